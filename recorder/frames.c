// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "event_layout.h"
#include "event_split.h"
#include "frames.h"
#include "log_format.h"
#include "log_writer.h"

/* Keep a few spare frames; more would only hold memory after a burst. */
#define FQ_MAX_FREE 16

struct frame *frame_new(uint16_t type, uint32_t stream, size_t cap)
{
	struct frame *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->data = malloc(cap ? cap : 1);
	if (!f->data) {
		free(f);
		return NULL;
	}
	f->cap = cap;
	frame_reset(f, type, stream);
	return f;
}

void frame_free(struct frame *f)
{
	if (!f)
		return;
	free(f->data);
	free(f);
}

void frame_reset(struct frame *f, uint16_t type, uint32_t stream)
{
	f->next = NULL;
	f->type = type;
	f->flags = type == LOG_FRAME_EVENTS ? LOG_FRAME_F_MUST_UNDERSTAND : 0;
	f->stream = stream;
	f->count = 0;
	f->events = 0;
	f->first_ts = UINT64_MAX;
	f->last_ts = 0;
	f->len = 0;
}

bool frame_add_record(struct frame *f, const void *rec, size_t size)
{
	const struct ev_header *h = rec;
	uint64_t ts;

	if (f->cap - f->len < size)
		return false;
	memcpy(f->data + f->len, rec, size);
	f->len += size;
	f->count++;
	memcpy(&ts, &h->ts, sizeof(ts));
	if (ts < f->first_ts)
		f->first_ts = ts;
	if (ev_holds_completion(h)) {
		/* the frame also holds the completion, which readers yield */
		ts = ev_split_complete_ts(rec);
		f->events++;
	}
	if (ts > f->last_ts)
		f->last_ts = ts;
	if (h->type != EV_LOST)
		f->events++;
	return true;
}

bool frame_add_bytes(struct frame *f, const void *data, size_t size, uint32_t count)
{
	if (f->cap - f->len < size)
		return false;
	memcpy(f->data + f->len, data, size);
	f->len += size;
	f->count += count;
	return true;
}

int frame_write(struct log_writer *lw, const struct frame *f)
{
	struct log_frame_desc d = {
		.type = f->type,
		.flags = f->flags,
		.stream = f->stream,
		.count = f->count,
		.first_ts = f->first_ts == UINT64_MAX ? 0 : f->first_ts,
		.last_ts = f->last_ts,
	};

	if (f->type == LOG_FRAME_EVENTS)
		return log_write_events(lw, &d, f->data, f->len);
	return log_write_frame(lw, &d, f->data, f->len);
}

int user_losses_init(struct user_losses *ul, unsigned ncpus)
{
	ul->ncpus = ncpus;
	ul->total = 0;
	ul->count = calloc((size_t)ncpus * EV_TYPE_LIMIT, sizeof(*ul->count));
	return ul->count ? 0 : -1;
}

void user_losses_free(struct user_losses *ul)
{
	free(ul->count);
	ul->count = NULL;
}

uint32_t user_losses_add(struct user_losses *ul, unsigned cpu, const void *rec)
{
	const struct ev_header *h = rec;
	uint16_t type = h->type == EV_SUBMIT_COMPLETE ? EV_SUBMIT : h->type;
	uint32_t n = ev_holds_completion(h) ? 2 : 1;

	if (cpu < ul->ncpus) {
		ul->count[(size_t)cpu * EV_TYPE_LIMIT + type % EV_TYPE_LIMIT]++;
		if (n == 2)
			ul->count[(size_t)cpu * EV_TYPE_LIMIT + EV_COMPLETE]++;
	}
	ul->total += n;
	return n;
}

uint32_t frame_drop_events(struct frame *f, struct user_losses *ul)
{
	struct ev_lost marker = { .type = EV_LOST, .flags = EVF_LOSS_USER };
	uint64_t first = UINT64_MAX, last = 0;
	size_t pos = 0, kept = 0;
	uint32_t dropped = 0, count = 0;
	unsigned cpu = f->stream;

	/* Records were checked against the layout table when copied in. */
	while (pos < f->len) {
		struct ev_header h;
		const struct ev_type_info *t;
		size_t size;

		memcpy(&h, f->data + pos, sizeof(h));
		t = ev_type_info(h.type);
		size = t ? t->size : f->len - pos;
		if (h.type == EV_LOST) {
			memmove(f->data + kept, f->data + pos, size);
			kept += size;
			count++;
		} else {
			dropped += user_losses_add(ul, cpu, f->data + pos);
			if (h.ts < first)
				first = h.ts;
			if (ev_holds_completion(&h))
				h.ts = ev_split_complete_ts((const void *)(f->data + pos));
			if (h.ts > last)
				last = h.ts;
		}
		pos += size;
	}
	f->len = kept;
	f->count = count;
	f->events = 0;
	f->first_ts = UINT64_MAX;
	f->last_ts = 0;
	/* Timestamps of the kept markers. */
	for (pos = 0; pos < f->len; pos += sizeof(struct ev_lost)) {
		uint64_t ts;

		memcpy(&ts, f->data + pos, sizeof(ts));
		if (ts < f->first_ts)
			f->first_ts = ts;
		if (ts > f->last_ts)
			f->last_ts = ts;
	}
	if (!dropped)
		return 0;
	marker.ts = first;
	marker.last_ts = last;
	marker.count = dropped;
	/*
	 * The consumer hands frames over with room for one marker; should that
	 * ever not hold, the drops are still in ul (and so in the LOSS frames),
	 * only not placed in time.
	 */
	frame_add_record(f, &marker, sizeof(marker));
	return dropped;
}

int fq_init(struct frame_queue *q, size_t limit)
{
	memset(q, 0, sizeof(*q));
	q->limit = limit;
	if (pthread_mutex_init(&q->lock, NULL))
		return -1;
	if (pthread_cond_init(&q->nonempty, NULL)) {
		pthread_mutex_destroy(&q->lock);
		return -1;
	}
	return 0;
}

void fq_destroy(struct frame_queue *q)
{
	struct frame *f, *next;

	for (f = q->head; f; f = next) {
		next = f->next;
		frame_free(f);
	}
	for (f = q->free_list; f; f = next) {
		next = f->next;
		frame_free(f);
	}
	q->head = q->tail = q->free_list = NULL;
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
}

static void push_locked(struct frame_queue *q, struct frame *f)
{
	f->next = NULL;
	if (q->tail)
		q->tail->next = f;
	else
		q->head = f;
	q->tail = f;
	if (f->type == LOG_FRAME_EVENTS) {
		q->event_bytes += f->cap;
		if (q->event_bytes > q->peak_bytes)
			q->peak_bytes = q->event_bytes;
	}
	pthread_cond_signal(&q->nonempty);
}

bool fq_push_events(struct frame_queue *q, struct frame *f)
{
	bool ok;

	pthread_mutex_lock(&q->lock);
	ok = q->event_bytes + f->cap <= q->limit;
	if (ok)
		push_locked(q, f);
	pthread_mutex_unlock(&q->lock);
	return ok;
}

void fq_push(struct frame_queue *q, struct frame *f)
{
	pthread_mutex_lock(&q->lock);
	push_locked(q, f);
	pthread_mutex_unlock(&q->lock);
}

struct frame *fq_pop(struct frame_queue *q)
{
	struct frame *f;

	pthread_mutex_lock(&q->lock);
	while (!q->head && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	f = q->head;
	if (f) {
		q->head = f->next;
		if (!q->head)
			q->tail = NULL;
		if (f->type == LOG_FRAME_EVENTS)
			q->event_bytes -= f->cap;
		f->next = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	return f;
}

void fq_close(struct frame_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

struct frame *fq_get_events_frame(struct frame_queue *q, uint32_t cpu, size_t cap)
{
	struct frame *f;

	pthread_mutex_lock(&q->lock);
	f = q->free_list;
	if (f) {
		q->free_list = f->next;
		q->free_count--;
	}
	pthread_mutex_unlock(&q->lock);
	if (f && f->cap == cap) {
		frame_reset(f, LOG_FRAME_EVENTS, cpu);
		return f;
	}
	frame_free(f);
	return frame_new(LOG_FRAME_EVENTS, cpu, cap);
}

void fq_recycle(struct frame_queue *q, struct frame *f)
{
	if (!f)
		return;
	if (f->type == LOG_FRAME_EVENTS) {
		pthread_mutex_lock(&q->lock);
		if (q->free_count < FQ_MAX_FREE) {
			f->next = q->free_list;
			q->free_list = f;
			q->free_count++;
			f = NULL;
		}
		pthread_mutex_unlock(&q->lock);
	}
	frame_free(f);
}
