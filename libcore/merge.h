/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The records of a log in global time order.
 *
 * merge_open() walks the frame headers once (log_reader_next: cheap, no
 * decompression) and builds the merge plan: every EVENTS and TASKS frame
 * with its offset, stream (CPU), sequence number, first/last timestamp and
 * record count.  On the way it reads the small frames (LOSS: cumulative
 * lost-event counters, keeping the last; CLOCK: wall-clock snapshots into
 * the timebase; END: why the recording stopped) and checks per-CPU frame
 * sequences for gaps.
 *
 * merge_next() then yields records ordered by (timestamp, stream, position
 * in the stream): a k-way merge over frames.  A frame is decompressed when
 * the merge reaches its first_ts and freed when exhausted, so memory is
 * bounded by the frames overlapping in time, never by the size of the log.
 * Each frame's records are stably sorted by timestamp (a CPU's records are
 * nearly, not exactly, in order: a probe reads the clock before it reserves
 * ring-buffer space).
 *
 * Damage never stops the merge: a frame whose payload fails its checksum
 * (or holds a malformed record) is skipped and yielded as a loss window
 * with its CPU, time range and record count; a gap in a CPU's frame
 * sequence is yielded as a loss window of unknown size; a log cut short
 * converts up to its last complete frame.  Each problem also becomes one
 * warning line naming the file, offset and problem.
 */
#ifndef RINGSIDE_MERGE_H
#define RINGSIDE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_reader.h"
#include "output.h"
#include "timebase.h"

#define MERGE_MAX_CPUS 65536

/*
 * Memory for the frames being merged at once (payloads and their record
 * indexes): a frame that would take more is skipped and reported as lost
 * (warning, loss window).  uring-record's frames are 1 MiB and overlap a
 * few per CPU; only a damaged or hostile log comes near.  A variable so
 * that tests can lower it.
 */
#define MERGE_MAX_ACTIVE_BYTES (4ull << 30)
/* Warning lines kept (the last one then counts the others). */
#define MERGE_MAX_WARNINGS 100
extern uint64_t merge_max_active_bytes;

/*
 * Frames are loaded (fetched, checked, decompressed, indexed) by a second
 * thread, a few ahead of the merge, when the log has two frames or more
 * of at least merge_read_ahead_min_raw bytes (smaller ones are loaded by
 * the merge itself: handing one over costs more than loading it);
 * merge_read_ahead false: every frame by the merging thread (tests
 * compare the two).  The output is the same either way.
 */
#define MERGE_READ_AHEAD_MIN_RAW (16u << 10)
extern bool merge_read_ahead;
extern uint32_t merge_read_ahead_min_raw;

enum merge_item_kind { MERGE_RECORD = 1, MERGE_LOSS };

struct merge_item {
	enum merge_item_kind kind;
	/* MERGE_RECORD */
	const struct ev_header *rec;	/* normalised when known; valid until the next call */
	bool known;			/* type known to this converter */
	unsigned cpu;			/* stream; LOG_STREAM_GLOBAL for TASKS frames */
	/* MERGE_LOSS: a damaged frame or a frame-sequence gap */
	struct model_loss loss;
};

struct merge_cpu_stats {
	unsigned cpu;
	uint64_t frames, records, stored_bytes, raw_bytes;
	uint64_t first_ts, last_ts;
};

struct merge_stats {
	/* From the walk (merge_open). */
	uint64_t frames_by_type[16];	/* index: enum log_frame_type (0: unknown) */
	uint64_t unknown_frames;
	struct merge_cpu_stats *cpus;	/* sorted by cpu */
	size_t ncpus;
	uint64_t first_ts, last_ts;	/* over EVENTS and TASKS frames; 0 if none */
	uint64_t planned_records;
	struct loss_counter *loss_counters;	/* rows of the last LOSS frame */
	size_t nloss_counters;
	uint64_t lost_total;		/* sum of its total rows */
	bool have_end;
	char end_reason[64];
	char end_message[256];
	uint64_t end_boot_ns;		/* END "stop_boot_ns", 0 if absent */
	/*
	 * A flight-recorder snapshot (END "flight_recorder"): records before
	 * the window's start are dropped, since some CPUs' frames before it
	 * were evicted; window_start_ns 0: not a snapshot.
	 */
	uint64_t window_start_ns;
	uint64_t window_dropped;	/* records dropped (from merging) */
	uint64_t snapshot;		/* its number */
	char trigger[256];		/* what fired, as the recorder described it */
	uint64_t trigger_ns;		/* when its condition became true (boot ns) */
	enum log_stop stop;
	char stop_message[LOG_MSG_LEN];
	uint64_t frame_gaps;
	struct tracing_cost cost;	/* the last STATS frame's */
	/* From merging (merge_next). */
	uint64_t records;		/* yielded */
	uint64_t unknown_records;
	uint64_t damaged_frames;
	uint64_t damaged_records;	/* records in damaged frames (lost) */
	uint64_t bytes_done, bytes_total;	/* progress (stored bytes) */
};

struct merge;

/* Walk the log.  Returns 0, or -1 with one line in err (out of memory). */
int merge_open(struct merge **m, struct log_reader *r, struct timebase *tb,
	       char *err, size_t errlen);
/* 1: *it filled; 0: end; -1: fatal (out of memory) with a line in err. */
int merge_next(struct merge *m, struct merge_item *it, char *err, size_t errlen);
const struct merge_stats *merge_stats(const struct merge *m);
/* Warning lines so far (file, offset, problem). */
const char *const *merge_warnings(const struct merge *m, size_t *n);
void merge_close(struct merge *m);

#endif
