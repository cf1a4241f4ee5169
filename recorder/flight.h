/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --flight-recorder: the retained frames and the snapshots made of them.
 *
 * The writer thread compresses EVENTS frames as usual, with a log writer
 * whose sink is flight_ring_add() instead of a file: the ring keeps the
 * compressed frames (headers and payloads) in push order and evicts whole
 * frames, oldest first, to stay within its limit.  Each CPU's frames come
 * in sequence, so what is left of a CPU is always a run of consecutive
 * frames, and every record after window_start is still there, on every
 * CPU: window_start is just after the last record of the newest evicted
 * frame.
 *
 * A snapshot is a new log written with the one log writer: META, TASKS,
 * the retained frames as they are (log_write_stored() renumbers them from
 * 0, so the reader sees no gap), LOSS, CLOCK and END, whose JSON carries
 * "flight_recorder": the window start, which uring-convert drops records
 * before (a CPU's frames may begin earlier than another's).
 */
#ifndef RINGSIDE_RECORDER_FLIGHT_H
#define RINGSIDE_RECORDER_FLIGHT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "log_format.h"
#include "trigger.h"
#include "uring_event.h"

struct flight_frame;

struct flight_ring {
	uint64_t limit;			/* bytes of frames kept, headers included */
	uint64_t bytes;
	struct flight_frame *head, *tail;
	uint64_t frames;		/* kept */
	uint64_t records;		/* kept, "lost" markers included */
	uint64_t evicted_frames, evicted_records;
	uint64_t too_large;		/* frames larger than the limit, not kept */
	/* just after the newest evicted EVENTS frame's last record; 0: none */
	atomic_uint_fast64_t window_start;
	/* LOSS rows when the newest evicted LOSS frame was pushed (a snapshot's
	 * LOSS frame counts from there), and their count */
	struct log_loss_row *loss_base;
	size_t nloss_base;
};

/* The memory a kept frame is charged: its header and payload. */
#define FLIGHT_FRAME_COST(stored) (sizeof(struct log_frame_header) + 64 + (stored))

void flight_ring_init(struct flight_ring *r, uint64_t limit);
void flight_ring_free(struct flight_ring *r);
/* Keep a frame (the log writer's sink, arg: the ring); 0 or -ENOMEM. */
int flight_ring_add(void *arg, const struct log_frame_header *h, const void *stored);

/* Keep a LOSS frame's rows (uncompressed), in push order with the rest. */
int flight_ring_add_loss(struct flight_ring *r, const struct frame *f);
/* rows minus the base's matching rows (cpu, kind, event_type), in place. */
void flight_loss_since(const struct flight_ring *r, struct log_loss_row *rows, size_t n);

/* One snapshot request, made by the main thread, written by the writer's. */
struct flight_snapshot {
	char path[4096];
	unsigned number;		/* 1, 2, ... */
	int zstd_level;
	bool overwrite;
	char *meta;			/* JSON, malloc'd */
	size_t meta_len;
	struct ev_task *tasks;		/* malloc'd; their ts become the window start */
	size_t ntasks;
	struct frame *loss, *clock;	/* may be NULL */
	struct trigger_hit hit;		/* what fired */
	uint64_t fired_boot_ns;		/* when the recorder saw it fire */
	/* set by flight_snapshot_write() */
	int error;
	char message[4096 + 512];
	uint64_t records;
};

void flight_snapshot_free(struct flight_snapshot *s);

/*
 * Write s from what r holds now.  Returns 0, or a negative errno with a
 * one-line message in s->message (a snapshot that fails to be written
 * does not stop the recording).
 */
int flight_snapshot_write(struct flight_ring *r, struct flight_snapshot *s);

#endif
