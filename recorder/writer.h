/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The writer thread: takes frames from the queue, compresses and appends
 * them to the log (common/log_writer.c), so that a slow disk never stalls
 * the draining of the BPF rings.  It owns the log writer while it runs.
 *
 * A write error (disk full, file too large) stops the writing: later frames
 * are discarded (and counted) and the main loop is woken through wake_fd to
 * stop the recording; log_writer has already cut the file back to its last
 * complete frame.  Once the log reaches --max-size, the events of later
 * EVENTS frames are dropped like a full queue's (counted in ul, placed in
 * time by "lost" markers, which are still written), so the log ends near
 * the limit instead of a queue's worth past it.
 */
#ifndef RINGSIDE_RECORDER_WRITER_H
#define RINGSIDE_RECORDER_WRITER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "flight.h"
#include "frames.h"
#include "log_writer.h"

struct writer {
	struct log_writer *lw;
	struct frame_queue *q;
	pthread_t thread;
	bool running;
	uint64_t max_size;		/* 0: none */
	int wake_fd;			/* eventfd, -1: none */
	atomic_uint_fast64_t bytes;	/* log size so far */
	atomic_uint_fast64_t raw_bytes;
	atomic_uint_fast64_t events_written;
	atomic_uint_fast64_t events_discarded;	/* after an error */
	atomic_int error;		/* first write error, -errno */
	atomic_bool max_size_hit;
	struct user_losses ul;		/* dropped past --max-size; read after stop */
	/* --flight-recorder: lw's sink keeps frames here; snapshots are written
	 * when a FRAME_FLIGHT_SNAPSHOT frame comes */
	struct flight_ring *flight;
	atomic_uint snapshots_written;
	atomic_uint snapshots_failed;
	uint64_t cpu_ns;		/* the thread's CPU time; read after stop */
};

/* Queue a snapshot request (the writer thread frees it once written). */
int writer_push_snapshot(struct frame_queue *q, struct flight_snapshot *s);

int writer_start(struct writer *w, struct log_writer *lw, struct frame_queue *q,
		 unsigned ncpus, uint64_t max_size, int wake_fd);
/* Close the queue, write what is in it, and join the thread. */
void writer_stop(struct writer *w);
void writer_free(struct writer *w);

#endif
