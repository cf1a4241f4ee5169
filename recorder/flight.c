// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "flight.h"
#include "json.h"
#include "log_writer.h"

struct flight_frame {
	struct flight_frame *next;
	bool raw_loss;			/* LOSS rows as they are, not a log frame */
	struct log_frame_header h;
	unsigned char stored[];
};

void flight_ring_init(struct flight_ring *r, uint64_t limit)
{
	memset(r, 0, sizeof(*r));
	r->limit = limit;
	atomic_init(&r->window_start, 0);
}

static bool is_events(uint16_t type)
{
	return type == LOG_FRAME_EVENTS || type == LOG_FRAME_EVENTS_COLUMNS ||
	       type == LOG_FRAME_EVENTS_PACKED;
}

static void evict_oldest(struct flight_ring *r)
{
	struct flight_frame *f = r->head;

	r->head = f->next;
	if (!r->head)
		r->tail = NULL;
	r->bytes -= FLIGHT_FRAME_COST(f->h.stored_size);
	r->frames--;
	r->records -= f->h.count;
	r->evicted_frames++;
	r->evicted_records += f->h.count;
	if (is_events(f->h.type) && f->h.last_ts + 1 > atomic_load(&r->window_start))
		atomic_store(&r->window_start, f->h.last_ts + 1);
	if (f->raw_loss) {
		free(r->loss_base);
		r->nloss_base = f->h.raw_size / sizeof(*r->loss_base);
		r->loss_base = malloc(f->h.raw_size ? f->h.raw_size : 1);
		if (r->loss_base)
			memcpy(r->loss_base, f->stored, f->h.raw_size);
		else
			r->nloss_base = 0;
	}
	free(f);
}

static int ring_push(struct flight_ring *r, const struct log_frame_header *h,
		     const void *stored, bool raw_loss)
{
	uint64_t cost = FLIGHT_FRAME_COST(h->stored_size);
	struct flight_frame *f;

	if (cost > r->limit) {
		/* cannot be kept whole: what it held is a cut like an eviction */
		r->too_large++;
		while (r->head)
			evict_oldest(r);
		if (h->last_ts + 1 > atomic_load(&r->window_start))
			atomic_store(&r->window_start, h->last_ts + 1);
		return 0;
	}
	while (r->head && r->bytes + cost > r->limit)
		evict_oldest(r);
	f = malloc(sizeof(*f) + h->stored_size);
	if (!f)
		return -ENOMEM;
	f->next = NULL;
	f->raw_loss = raw_loss;
	f->h = *h;
	memcpy(f->stored, stored, h->stored_size);
	if (r->tail)
		r->tail->next = f;
	else
		r->head = f;
	r->tail = f;
	r->bytes += cost;
	r->frames++;
	r->records += h->count;
	return 0;
}

int flight_ring_add(void *arg, const struct log_frame_header *h, const void *stored)
{
	return ring_push(arg, h, stored, false);
}

int flight_ring_add_loss(struct flight_ring *r, const struct frame *f)
{
	struct log_frame_header h = {
		.type = LOG_FRAME_LOSS, .stream = LOG_STREAM_GLOBAL,
		.raw_size = f->len, .stored_size = f->len,
	};

	return ring_push(r, &h, f->data, true);
}

void flight_loss_since(const struct flight_ring *r, struct log_loss_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < r->nloss_base; j++) {
			const struct log_loss_row *b = &r->loss_base[j];

			if (b->cpu != rows[i].cpu || b->kind != rows[i].kind ||
			    b->event_type != rows[i].event_type)
				continue;
			rows[i].count = rows[i].count > b->count ? rows[i].count - b->count : 0;
			break;
		}
}

void flight_ring_free(struct flight_ring *r)
{
	while (r->head)
		evict_oldest(r);
	free(r->loss_base);
	r->loss_base = NULL;
	r->nloss_base = 0;
}

void flight_snapshot_free(struct flight_snapshot *s)
{
	if (!s)
		return;
	free(s->meta);
	free(s->tasks);
	frame_free(s->loss);
	frame_free(s->clock);
	free(s);
}

static char *end_json(const struct flight_ring *r, const struct flight_snapshot *s,
		      uint64_t window_start, struct log_writer *lw)
{
	struct json_out o;
	size_t len;

	json_out_init(&o, false);
	json_obj_begin(&o);
	json_kv_str(&o, "reason", "flight-recorder snapshot");
	json_kv_str(&o, "message", s->message);
	json_kv_u64(&o, "stop_boot_ns", clock_boot_ns());
	json_kv_u64(&o, "records", r->records);
	json_kv_u64(&o, "lost", 0);
	json_kv_u64(&o, "bytes", log_writer_bytes(lw));
	json_kv_u64(&o, "frames", log_writer_frames(lw));
	json_key(&o, "exit_status");
	json_null(&o);
	json_key(&o, "flight_recorder");
	json_obj_begin(&o);
	json_kv_u64(&o, "snapshot", s->number);
	json_kv_u64(&o, "window_start_boot_ns", window_start);
	json_kv_u64(&o, "frames_evicted", r->evicted_frames);
	json_kv_u64(&o, "records_evicted", r->evicted_records);
	json_key(&o, "trigger");
	trigger_hit_json(&o, &s->hit, s->fired_boot_ns);
	json_obj_end(&o);
	json_obj_end(&o);
	return json_out_steal(&o, &len);
}

/* The TASKS frame: names known at the snapshot, placed at the window's start. */
static int write_tasks(struct log_writer *lw, struct flight_snapshot *s, uint64_t at)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_TASKS, .stream = LOG_STREAM_GLOBAL,
		.count = (uint32_t)s->ntasks, .first_ts = at, .last_ts = at,
	};

	if (!s->ntasks)
		return 0;
	for (size_t i = 0; i < s->ntasks; i++)
		s->tasks[i].ts = at;
	return log_write_frame(lw, &d, s->tasks, s->ntasks * sizeof(*s->tasks));
}

int flight_snapshot_write(struct flight_ring *r, struct flight_snapshot *s)
{
	struct log_writer_options opt = { .zstd_level = s->zstd_level, .overwrite = s->overwrite };
	uint64_t window_start = atomic_load(&r->window_start);
	uint64_t first = UINT64_MAX;
	struct log_writer *lw;
	char err[512], *end;
	int ret;

	for (struct flight_frame *f = r->head; f; f = f->next)
		if (is_events(f->h.type) && f->h.count && f->h.first_ts < first)
			first = f->h.first_ts;
	ret = log_writer_create(&lw, s->path, &opt, s->message, sizeof(s->message));
	if (ret)
		return s->error = ret;
	ret = log_write_meta(lw, s->meta, s->meta_len);
	if (!ret)
		ret = write_tasks(lw, s, window_start > first || first == UINT64_MAX ?
					 window_start : first);
	for (struct flight_frame *f = r->head; f && !ret; f = f->next)
		if (!f->raw_loss)
			ret = log_write_stored(lw, &f->h, f->stored);
	if (!ret && s->loss) {
		flight_loss_since(r, (struct log_loss_row *)(void *)s->loss->data,
				  s->loss->len / sizeof(struct log_loss_row));
		ret = frame_write(lw, s->loss);
	}
	if (!ret && s->clock)
		ret = frame_write(lw, s->clock);
	if (ret) {
		snprintf(s->message, sizeof(s->message), "cannot write %s: %s", s->path,
			 strerror(-ret));
		log_writer_finish(lw, NULL, err, sizeof(err));
		return s->error = ret;
	}
	snprintf(s->message, sizeof(s->message), "snapshot %u, trigger %s", s->number,
		 s->hit.spec ? s->hit.spec->text : "signal");
	end = end_json(r, s, window_start, lw);
	s->records = r->records;
	ret = log_writer_finish(lw, end, err, sizeof(err));
	free(end);
	if (ret) {
		snprintf(s->message, sizeof(s->message), "%.4000s: %.500s", s->path, err);
		return s->error = ret;
	}
	return 0;
}
