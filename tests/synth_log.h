/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Build logs in code, through the real writer (common/log_writer.c), for
 * unit tests, golden logs and fuzz seeds.  Deterministic: fixed recording
 * id and creation time unless changed, so the same calls give the same
 * bytes.
 */
#ifndef RINGSIDE_SYNTH_LOG_H
#define RINGSIDE_SYNTH_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "log_format.h"
#include "uring_event.h"

struct synth_log;

struct synth_options {
	unsigned ncpus;			/* default 2 */
	uint64_t start_boot_ns;		/* clock snapshot: boot time at start */
	uint64_t start_real_ns;		/* ... and the wall clock */
	const char *extra_meta;		/* JSON members appended to the metadata */
	const char *records_json;	/* replaces the layout table (old/new layouts) */
	const char *hostname;
	/*
	 * Write EVENTS frames as format 1.0 did (absolute timestamps) instead
	 * of the recorder's EVENTS_PACKED; implied by records_json, whose
	 * records the writer cannot walk.
	 */
	bool plain_events;
	/* Write format 2.0's EVENTS_COLUMNS frames instead of EVENTS_PACKED. */
	bool fixed_columns;
};

/* Create path with a META frame; aborts the test program on failure. */
struct synth_log *synth_log_create(const char *path, const struct synth_options *opt);

/* Queue one record (header filled in by the caller) for cpu's next frame. */
void synth_emit(struct synth_log *s, unsigned cpu, const void *rec, size_t size);
#define SYNTH_EMIT(s, cpu, ev) synth_emit((s), (cpu), &(ev), sizeof(ev))

/* Write one EVENTS frame per CPU with queued records. */
void synth_flush(struct synth_log *s);

/* Write a raw frame of any type (tests of unknown frame types). */
void synth_frame(struct synth_log *s, uint16_t type, uint16_t flags, uint32_t stream,
		 uint32_t count, const void *payload, size_t len);

/* Cumulative loss counters (LOSS frame). */
void synth_loss(struct synth_log *s, const struct log_loss_row *rows, size_t n,
		uint64_t ts);

/* TASKS frame from EV_TASK records. */
void synth_tasks(struct synth_log *s, const struct ev_task *tasks, size_t n);

/* Flush, then write END (reason may be NULL: no END frame) and close. */
void synth_finish(struct synth_log *s, const char *reason);

/* synth_finish() with end_json as the END frame's payload. */
void synth_finish_json(struct synth_log *s, const char *end_json);

/* Header initialiser for records: SYNTH_HDR(EV_SUBMIT, ts, tid, tgid). */
#define SYNTH_HDR(TYPE, TS, TID, TGID) \
	.ts = (TS), .tid = (TID), .tgid = (TGID), .type = (TYPE)

#endif
