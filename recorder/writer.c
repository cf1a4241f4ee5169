// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"

#include "log_format.h"
#include "writer.h"

static void wake_main(struct writer *w)
{
	uint64_t one = 1;

	if (w->wake_fd >= 0 && write(w->wake_fd, &one, sizeof(one)) < 0) {
		/* the eventfd counter cannot overflow here; nothing to do */
	}
}

int writer_push_snapshot(struct frame_queue *q, struct flight_snapshot *s)
{
	struct frame *f = frame_new(FRAME_FLIGHT_SNAPSHOT, LOG_STREAM_GLOBAL, sizeof(s));

	if (!f)
		return -ENOMEM;
	frame_add_bytes(f, &s, sizeof(s), 1);
	fq_push(q, f);
	return 0;
}

/*
 * --flight-recorder: EVENTS frames go to the ring through lw's sink, LOSS
 * frames as they are (the counts a snapshot's start from); CLOCK and STATS
 * frames are not kept (a snapshot request brings its own, current ones).
 */
static void write_flight(struct writer *w, struct frame *f)
{
	struct flight_snapshot *s;

	if (f->type == LOG_FRAME_EVENTS) {
		if (frame_write(w->lw, f))
			atomic_fetch_add(&w->events_discarded, f->events);
		else
			atomic_fetch_add(&w->events_written, f->events);
		atomic_store(&w->bytes, w->flight->bytes);
		return;
	}
	if (f->type == LOG_FRAME_LOSS) {
		flight_ring_add_loss(w->flight, f);
		return;
	}
	if (f->type != FRAME_FLIGHT_SNAPSHOT)
		return;
	memcpy(&s, f->data, sizeof(s));
	if (flight_snapshot_write(w->flight, s)) {
		msg_error("%s", s->message);
		atomic_fetch_add(&w->snapshots_failed, 1);
	} else {
		msg_info("wrote %s: %s", s->path, s->message);
		atomic_fetch_add(&w->snapshots_written, 1);
	}
	flight_snapshot_free(s);
	wake_main(w);
}

static void write_one(struct writer *w, struct frame *f)
{
	uint64_t bytes;
	int ret;

	if (w->flight) {
		write_flight(w, f);
		return;
	}
	if (atomic_load(&w->error)) {
		if (f->type == LOG_FRAME_EVENTS)
			atomic_fetch_add(&w->events_discarded, f->events);
		return;
	}
	if (f->type == LOG_FRAME_EVENTS && atomic_load(&w->max_size_hit)) {
		frame_drop_events(f, &w->ul);
		if (!f->count)
			return;
	}
	ret = frame_write(w->lw, f);
	if (ret) {
		atomic_store(&w->error, ret);
		if (f->type == LOG_FRAME_EVENTS)
			atomic_fetch_add(&w->events_discarded, f->events);
		wake_main(w);
		return;
	}
	if (f->type == LOG_FRAME_EVENTS)
		atomic_fetch_add(&w->events_written, f->events);
	bytes = log_writer_bytes(w->lw);
	atomic_store(&w->bytes, bytes);
	atomic_store(&w->raw_bytes, log_writer_raw_bytes(w->lw));
	if (w->max_size && bytes >= w->max_size && !atomic_exchange(&w->max_size_hit, true))
		wake_main(w);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct frame *f;

	while ((f = fq_pop(w->q))) {
		write_one(w, f);
		fq_recycle(w->q, f);
	}
	w->cpu_ns = clock_thread_cpu_ns();
	return NULL;
}

int writer_start(struct writer *w, struct log_writer *lw, struct frame_queue *q,
		 unsigned ncpus, uint64_t max_size, int wake_fd)
{
	int ret;

	if (user_losses_init(&w->ul, ncpus))
		return -ENOMEM;
	w->lw = lw;
	w->q = q;
	w->max_size = max_size;
	w->wake_fd = wake_fd;
	atomic_init(&w->bytes, log_writer_bytes(lw));
	atomic_init(&w->raw_bytes, log_writer_raw_bytes(lw));
	atomic_init(&w->events_written, 0);
	atomic_init(&w->events_discarded, 0);
	atomic_init(&w->error, 0);
	atomic_init(&w->max_size_hit, false);
	atomic_init(&w->snapshots_written, 0);
	atomic_init(&w->snapshots_failed, 0);
	ret = pthread_create(&w->thread, NULL, writer_main, w);
	if (ret) {
		user_losses_free(&w->ul);
		return -ret;
	}
	/* For top -H and perf: this thread packs and compresses, the main
	 * one (named uring-record, which pidof matches) drains the rings. */
	pthread_setname_np(w->thread, "rs-log-writer");
	w->running = true;
	return 0;
}

void writer_stop(struct writer *w)
{
	if (!w->running)
		return;
	fq_close(w->q);
	pthread_join(w->thread, NULL);
	w->running = false;
}

void writer_free(struct writer *w)
{
	user_losses_free(&w->ul);
}
