/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxt_reader: an independent Fuchsia Trace Format reader for the tests.
 *
 * Written from the FXT spec (fuchsia.dev "Fuchsia trace format") and from
 * what Perfetto's importer does with each record (src/trace_processor/
 * importers/fuchsia and the SliceTracker/FlowTracker it drives).  It shares
 * no code and no constants with converter/fxt_writer so that it catches the
 * writer's mistakes instead of repeating them.
 *
 * fxtr_read() does two things:
 *
 * 1. Framing, record by record in file order (a violation is fatal: the
 *    read fails with one message naming the byte offset and record number):
 *    magic record first; file a whole number of words; record size not 0
 *    and not past the end of the file; the content of every record and
 *    argument exactly filling its declared size; reserved bits and stream
 *    padding zero; known record, metadata, event, argument and scheduling
 *    types; string and thread references defined by an earlier string or
 *    thread record of the current provider; table indexes not 0; ticks per
 *    second not 0; strings at most 32000 bytes.  Profiler (10) and large
 *    (15) records are refused (Perfetto ignores the first and misframes
 *    the second).  Every record is decoded into fxtr_model.records for
 *    record-by-record round-trip tests.
 *
 * 2. A model of what Perfetto would show, with "issues": legal FXT that
 *    Perfetto drops or shows wrongly, or that a converter should never
 *    write.  Events are replayed in Perfetto's order (timestamp, then file
 *    order), with its per-thread slice stack: finished slices are popped only
 *    when a later slice, instant or end on the thread starts at or after
 *    their end (two instants at the same time stack); a complete event that
 *    partially overlaps an earlier slice is dropped; a duration end closes
 *    the innermost open begin whatever its name; begin/end pairs that
 *    interleave are truncated; depth is limited to 512.  A flow event binds
 *    to the slice on top of its thread's stack at that moment (which may be
 *    a slice that already ended - reported as stale); with an empty stack
 *    Perfetto drops it.  Kernel objects name processes and threads; the
 *    thread's "process" koid argument must match the pid its events use.
 *
 * Tests assert on the model (slices, flows, counters, names, args) and on
 * the issue counts; a clean file has nissues == 0.
 */
#ifndef RINGSIDE_FXT_READER_H
#define RINGSIDE_FXT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Things Perfetto would drop or show wrongly (see fxtr_issue_name()). */
enum fxtr_issue_kind {
	FXTR_ISSUE_IGNORED_RECORD,	/* blob, userspace object, log,
					 * provider event: ignored */
	FXTR_ISSUE_TICKS_NOT_NS,	/* ticks per second != 1e9 */
	FXTR_ISSUE_TIMESTAMP_RANGE,	/* beyond INT64_MAX ns: dropped */
	FXTR_ISSUE_BAD_UTF8,		/* a string that is not UTF-8 */
	FXTR_ISSUE_KOID_OVER_32_BITS,	/* Perfetto truncates koids */
	FXTR_ISSUE_PID_TID_ZERO,	/* pid/tid 0: the idle "swapper" */
	FXTR_ISSUE_THREAD_NO_PROCESS,	/* thread object without "process" */
	FXTR_ISSUE_THREAD_PROCESS_TYPE,	/* "process" is not a koid: dropped */
	FXTR_ISSUE_THREAD_PID_MISMATCH,	/* events' pid != object's process */
	FXTR_ISSUE_UNNAMED_THREAD,	/* events on a thread never named */
	FXTR_ISSUE_UNNAMED_PROCESS,	/* events in a process never named */
	FXTR_ISSUE_UNMATCHED_BEGIN,	/* duration begin never ended */
	FXTR_ISSUE_UNMATCHED_END,	/* duration end with no open begin */
	FXTR_ISSUE_MISPLACED_END,	/* begin/end interleaved: truncated */
	FXTR_ISSUE_PARTIAL_OVERLAP,	/* complete event dropped */
	FXTR_ISSUE_NEGATIVE_DURATION,	/* complete ends before it begins */
	FXTR_ISSUE_MAX_DEPTH,		/* deeper than 512: dropped */
	FXTR_ISSUE_COUNTER_NON_NUMERIC,	/* counter arg skipped */
	FXTR_ISSUE_UINT64_NEGATIVE,	/* uint64 arg >= 2^63 shows < 0 */
	FXTR_ISSUE_ASYNC_UNMATCHED_BEGIN,
	FXTR_ISSUE_ASYNC_UNMATCHED_END,
	FXTR_ISSUE_ASYNC_NAME_MISMATCH,	/* end's category/name != begin's */
	FXTR_ISSUE_ASYNC_ID_REUSED,
	FXTR_ISSUE_ASYNC_INSTANT_OUTSIDE, /* async instant, id not open */
	FXTR_ISSUE_FLOW_NO_ENCLOSING,	/* empty slice stack: dropped */
	FXTR_ISSUE_FLOW_STALE_BINDING,	/* bound to a slice not around ts */
	FXTR_ISSUE_FLOW_DUPLICATE,	/* begin while the id is active */
	FXTR_ISSUE_FLOW_ID_REUSED,	/* begin of an id already ended */
	FXTR_ISSUE_FLOW_STEP_WITHOUT_BEGIN,
	FXTR_ISSUE_FLOW_END_WITHOUT_BEGIN,
	FXTR_ISSUE_FLOW_UNTERMINATED,	/* begun, never ended */
	FXTR_ISSUE_KINDS
};

/* Argument wire types, as the spec numbers them. */
enum fxtr_arg_type {
	FXTR_ARG_NULL, FXTR_ARG_INT32, FXTR_ARG_UINT32, FXTR_ARG_INT64,
	FXTR_ARG_UINT64, FXTR_ARG_DOUBLE, FXTR_ARG_STRING, FXTR_ARG_POINTER,
	FXTR_ARG_KOID, FXTR_ARG_BOOL, FXTR_ARG_BLOB,
};

struct fxtr_arg {
	const char *name;
	unsigned name_ref;		/* raw 16-bit ref from the file */
	enum fxtr_arg_type type;
	unsigned words;			/* declared size */
	int64_t i;			/* int32, int64 */
	uint64_t u;			/* uint32, uint64, pointer, koid;
					 * blob: byte count */
	double d;
	bool b;
	const char *str;		/* string value / blob bytes */
	uint32_t str_len;
	unsigned value_ref;		/* string: raw value ref */
};

/* Record types, as the spec numbers them. */
enum fxtr_record_type {
	FXTR_REC_METADATA = 0, FXTR_REC_INIT = 1, FXTR_REC_STRING = 2,
	FXTR_REC_THREAD = 3, FXTR_REC_EVENT = 4, FXTR_REC_BLOB = 5,
	FXTR_REC_USERSPACE_OBJECT = 6, FXTR_REC_KERNEL_OBJECT = 7,
	FXTR_REC_SCHEDULING = 8, FXTR_REC_LOG = 9,
};

enum fxtr_event_type {
	FXTR_EV_INSTANT, FXTR_EV_COUNTER, FXTR_EV_BEGIN, FXTR_EV_END,
	FXTR_EV_COMPLETE, FXTR_EV_ASYNC_BEGIN, FXTR_EV_ASYNC_INSTANT,
	FXTR_EV_ASYNC_END, FXTR_EV_FLOW_BEGIN, FXTR_EV_FLOW_STEP,
	FXTR_EV_FLOW_END,
};

/*
 * One record, decoded.  Which fields are set depends on type:
 *   metadata (subtype = metadata type): provider info/section/event ->
 *     value = provider id, str = provider name, index = provider event;
 *     trace info -> value = the magic word.
 *   init: value = ticks per second.
 *   string: index, str/str_len.
 *   thread: index, pid, tid.
 *   event (subtype = event type): ts (ticks) and ts_ns, thread_ref, pid,
 *     tid, category/category_ref, name/name_ref, args, extra (end ticks,
 *     counter id, async or flow id; end_ns for complete events).
 *   blob (subtype = blob type): name, str/str_len = payload.
 *   userspace object: value = pointer, pid, name, args.
 *   kernel object (subtype = object type): koid, name, args.
 *   scheduling (subtype 0 legacy switch, 1 switch, 2 wakeup): ts, ts_ns,
 *     cpu, out_state, out_tid/in_tid (wakeup: in_tid = waking tid),
 *     pid/tid = outgoing pair and value = incoming tid for the legacy form,
 *     args.
 *   log: ts, pid, tid, str = message.
 */
struct fxtr_record {
	uint64_t offset;		/* byte offset in the file */
	enum fxtr_record_type type;
	unsigned words;
	uint64_t header;
	unsigned subtype;
	unsigned provider;		/* index of the provider in force */
	unsigned index;
	uint64_t value;
	const char *str;
	uint32_t str_len;
	uint64_t pid, tid, koid;
	uint64_t ts, ts_ns;
	unsigned thread_ref;		/* 0 = inline */
	unsigned category_ref, name_ref;
	const char *category, *name;
	uint64_t extra, end_ns;
	unsigned cpu, out_state;
	uint64_t out_tid, in_tid;
	unsigned nargs;
	const struct fxtr_arg *args;
};

struct fxtr_process {
	uint64_t pid;
	const char *name;		/* NULL: no kernel object */
};

struct fxtr_thread {
	uint64_t pid, tid;
	const char *name;		/* NULL: no kernel object */
	size_t nevents;			/* events on (pid, tid) */
	size_t nslices;			/* slices and instants kept */
};

enum fxtr_slice_kind {
	FXTR_SLICE_COMPLETE,
	FXTR_SLICE_BEGIN_END,
	FXTR_SLICE_INSTANT,
};

#define FXTR_NONE ((size_t)-1)

/* A slice Perfetto keeps on a thread track (dropped ones are issues). */
struct fxtr_slice {
	uint64_t pid, tid;
	int64_t ts;
	int64_t dur;			/* -1: never ended */
	unsigned depth;
	size_t parent;			/* slice index or FXTR_NONE */
	enum fxtr_slice_kind kind;
	const char *category, *name;
	size_t begin_record;		/* begin, complete or instant */
	size_t end_record;		/* duration end or FXTR_NONE */
	size_t nflows;			/* flow events bound to it */
};

struct fxtr_sample {
	int64_t ts;
	double value;
};

/* A counter track, named as Perfetto names it. */
struct fxtr_counter {
	uint64_t pid;
	char *name;			/* "<event>:<arg>:<counter id>" */
	size_t nsamples;
	struct fxtr_sample *samples;
};

/* An async slice (begin/end pair or async instant) of one correlation id. */
struct fxtr_async {
	uint64_t id;
	uint64_t pid, tid;
	const char *category, *name;
	int64_t ts;
	int64_t dur;			/* -1: never ended; 0: instant */
	unsigned depth;			/* nesting within the id */
	size_t begin_record, end_record;
};

struct fxtr_flow_point {
	size_t record;			/* the flow event */
	enum fxtr_event_type type;
	int64_t ts;
	size_t slice;			/* bound slice or FXTR_NONE */
};

/* One flow: a begin and the steps/end that followed it under its id. */
struct fxtr_flow {
	uint64_t id;
	size_t npoints;
	struct fxtr_flow_point *points;
	size_t arrows;			/* rows in Perfetto's flow table */
	bool ended;
};

struct fxtr_issue {
	enum fxtr_issue_kind kind;
	size_t record;			/* FXTR_NONE if not one record */
	char message[200];
};

struct fxtr_model {
	size_t nrecords;
	struct fxtr_record *records;
	size_t record_counts[16];	/* by record type */
	size_t event_counts[11];	/* by event type */
	uint64_t ticks_per_second;	/* of the first provider */
	int64_t ts_min, ts_max;		/* over events, ns; 0 if none */

	size_t nprocesses;
	struct fxtr_process *processes;
	size_t nthreads;
	struct fxtr_thread *threads;
	size_t nslices;
	struct fxtr_slice *slices;
	size_t ncounters;
	struct fxtr_counter *counters;
	size_t nasyncs;
	struct fxtr_async *asyncs;
	size_t nflows;
	struct fxtr_flow *flows;
	size_t arrows;			/* over all flows */

	size_t nissues;			/* all issues found */
	size_t issue_counts[FXTR_ISSUE_KINDS];
	size_t nissues_kept;		/* the first ones, with messages */
	struct fxtr_issue *issues;

	void *priv;
};

/*
 * Read size bytes at data.  0: *out is the model (free it with
 * fxtr_free).  -1: the file is malformed; *out = NULL and err holds one
 * line "offset 0x...: record N: <problem>" ("offset 0x...: <problem>" for
 * the file as a whole: empty, or not a whole number of words).
 */
int fxtr_read(const void *data, size_t size, struct fxtr_model **out,
	      char *err, size_t errsz);

/* The same for a file ("<path>: <problem>" on failure). */
int fxtr_read_file(const char *path, struct fxtr_model **out,
		   char *err, size_t errsz);

void fxtr_free(struct fxtr_model *m);

const char *fxtr_issue_name(enum fxtr_issue_kind kind);

static inline size_t fxtr_issue_count(const struct fxtr_model *m,
				      enum fxtr_issue_kind kind)
{
	return m->issue_counts[kind];
}

/* Print the kept issues, one per line (for test failure messages). */
void fxtr_print_issues(const struct fxtr_model *m, FILE *f);

const struct fxtr_process *fxtr_find_process(const struct fxtr_model *m,
					     uint64_t pid);
const struct fxtr_thread *fxtr_find_thread(const struct fxtr_model *m,
					   uint64_t pid, uint64_t tid);

/* The nth (0-based, in replay order) slice named name on (pid, tid). */
const struct fxtr_slice *fxtr_find_slice(const struct fxtr_model *m,
					 uint64_t pid, uint64_t tid,
					 const char *name, size_t nth);
size_t fxtr_count_slices(const struct fxtr_model *m, uint64_t pid,
			 uint64_t tid, const char *name);

const struct fxtr_counter *fxtr_find_counter(const struct fxtr_model *m,
					     uint64_t pid, const char *name);
/* The last flow with this id (ids are never reused in a clean file). */
const struct fxtr_flow *fxtr_find_flow(const struct fxtr_model *m,
				       uint64_t id);
const struct fxtr_async *fxtr_find_async(const struct fxtr_model *m,
					 uint64_t id, const char *name);

/* The argument called name among args, or NULL. */
const struct fxtr_arg *fxtr_find_arg(const struct fxtr_arg *args,
				     unsigned nargs, const char *name);
/* An argument of a slice: from its begin (or complete/instant) record,
 * else from its end record, as Perfetto merges them. */
const struct fxtr_arg *fxtr_slice_arg(const struct fxtr_model *m,
				      const struct fxtr_slice *s,
				      const char *name);
const struct fxtr_arg *fxtr_record_arg(const struct fxtr_record *r,
				       const char *name);

#endif
