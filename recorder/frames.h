/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Frames on their way to the log, and the bounded queue between the
 * consumer (which drains the BPF rings into per-CPU EVENTS frames) and the
 * writer thread (which compresses and writes them).
 *
 * The queue only bounds EVENTS frames: when adding one would exceed the
 * limit, the consumer does not wait (the rings would overflow behind it)
 * but drops the frame's events with frame_drop_events(), which counts them
 * and leaves in the frame a "lost" record (EVF_LOSS_USER) with their exact
 * count and time range.  Control frames (LOSS, CLOCK, STATS, TASKS) are
 * small and always queued.
 */
#ifndef RINGSIDE_RECORDER_FRAMES_H
#define RINGSIDE_RECORDER_FRAMES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uring_event.h"

struct frame {
	struct frame *next;
	uint16_t type;			/* enum log_frame_type */
	uint16_t flags;
	uint32_t stream;
	uint32_t count;			/* records (or rows) */
	uint32_t events;		/* records that are not "lost" markers */
	uint64_t first_ts, last_ts;	/* over all records */
	size_t len, cap;
	unsigned char *data;
};

/* Not a log frame type: a snapshot request to the writer (flight.h). */
#define FRAME_FLIGHT_SNAPSHOT 0x7fff

struct frame *frame_new(uint16_t type, uint32_t stream, size_t cap);
void frame_free(struct frame *f);
void frame_reset(struct frame *f, uint16_t type, uint32_t stream);
/* Append a record of known size (EVENTS, TASKS); false when full. */
bool frame_add_record(struct frame *f, const void *rec, size_t size);
/* Append raw bytes (LOSS rows, CLOCK, JSON); false when full. */
bool frame_add_bytes(struct frame *f, const void *data, size_t size, uint32_t count);

struct log_writer;
/* Append f to a log (the writer thread, or anyone once it ended). */
int frame_write(struct log_writer *lw, const struct frame *f);

/* Records dropped by the recorder itself, per CPU and type. */
struct user_losses {
	unsigned ncpus;
	uint64_t *count;		/* [cpu * EV_TYPE_LIMIT + type] */
	uint64_t total;
};

int user_losses_init(struct user_losses *ul, unsigned ncpus);
void user_losses_free(struct user_losses *ul);
static inline uint64_t user_loss(const struct user_losses *ul, unsigned cpu, unsigned type)
{
	return ul->count[(size_t)cpu * EV_TYPE_LIMIT + type];
}

/*
 * Count record rec of CPU cpu as dropped by the recorder, as the events
 * readers would have yielded (a completed submit_complete record is a
 * submit and a completion): returns how many.
 */
uint32_t user_losses_add(struct user_losses *ul, unsigned cpu, const void *rec);

/*
 * Drop the events of EVENTS frame f of CPU f->stream, in place: every record
 * except "lost" markers is counted in ul and removed; the markers stay (they
 * report kernel drops) and one new EVF_LOSS_USER marker with the count and
 * time range of what was removed is appended (f must have room for one
 * "lost" record after its last record).  Returns the number of events
 * dropped (0 when f held only markers).
 */
uint32_t frame_drop_events(struct frame *f, struct user_losses *ul);

struct frame_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct frame *head, *tail;
	struct frame *free_list;	/* recycled EVENTS frames */
	size_t free_count;
	size_t event_bytes;		/* capacity of queued EVENTS frames */
	size_t limit;
	size_t peak_bytes;
	bool closed;
};

int fq_init(struct frame_queue *q, size_t limit);
void fq_destroy(struct frame_queue *q);
/* Queue an EVENTS frame unless the queue is full: then false, f untouched. */
bool fq_push_events(struct frame_queue *q, struct frame *f);
/* Queue any frame regardless of the limit. */
void fq_push(struct frame_queue *q, struct frame *f);
/* Next frame, waiting for one; NULL once closed and empty. */
struct frame *fq_pop(struct frame_queue *q);
void fq_close(struct frame_queue *q);
/* An empty EVENTS frame of capacity cap, recycled when possible. */
struct frame *fq_get_events_frame(struct frame_queue *q, uint32_t cpu, size_t cap);
void fq_recycle(struct frame_queue *q, struct frame *f);

#endif
