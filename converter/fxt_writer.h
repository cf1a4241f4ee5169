/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxt_writer: a streaming encoder for the Fuchsia Trace Format (FXT), the
 * format uring-convert --format=fxt writes for Perfetto (ui.perfetto.dev,
 * trace_processor).
 *
 * Format: fuchsia.dev "Fuchsia trace format".  What Perfetto's importer does
 * with each record (and where it differs from the spec) is summarised next to
 * each builder below (Perfetto: src/trace_processor/importers/fuchsia/).
 *
 * Output
 *   A writer sends bytes to a sink (a FILE * or a callback) through one
 *   output buffer (256 KiB).  A record is encoded straight into that buffer
 *   once its size is known; nothing is allocated per record.  The file starts
 *   with the magic record and an initialization record declaring 1e9 ticks
 *   per second, so every timestamp is in nanoseconds, then the string
 *   "process" pinned at index 1 (every thread object uses it).  No provider
 *   records are written: Perfetto registers provider 0 implicitly.
 *
 * Timestamps
 *   u64 nanoseconds.  Rebase them to the start of the recording before
 *   calling: the UI keeps timestamps in JS doubles and loses precision on
 *   epoch-sized values.  Values above INT64_MAX are refused (Perfetto stores
 *   signed timestamps).  Records need not be written in time order
 *   (Perfetto sorts events by timestamp, ties in file order) - but a flow
 *   event binds to whatever slice is on top of its thread's stack when
 *   Perfetto processes it, so write each flow event right after the slice it
 *   belongs to, with that slice's start timestamp.
 *
 * Strings
 *   Every name, category, argument name and string value is a NUL-terminated
 *   C string (NULL = the empty string), or for string values an explicit
 *   (pointer, length).  The writer interns them by content in the 15-bit
 *   string table and writes a string record the first time a value is used:
 *     - indexes 1..0x7fbf hold interned strings of at most
 *       FXT_INTERN_MAX_LEN bytes.  Pinned strings (fxt_writer_pin_string:
 *       categories, op names, argument names) keep their slot for the whole
 *       trace.  When the table is full, an unpinned slot is recycled with the
 *       CLOCK policy (second chance: a slot used since the hand last passed is
 *       skipped once), and the string is written again if it comes back.
 *       Perfetto copies string values when it reads each record, so
 *       redefining an index later is safe.  Slots referenced by the record
 *       being built are never recycled for it.
 *     - indexes 0x7fc0..0x7fff are scratch slots for longer strings: such a
 *       string gets a fresh string record (in a cyclic scratch slot) every
 *       time it is used.  So no event record ever carries an inline string,
 *       and no event record can grow past a few dozen words.
 *   Strings longer than FXT_MAX_STRING_LEN (32000, the spec's limit) are
 *   truncated, backing off to the start of a UTF-8 character that would be
 *   cut in two (counted in fxt_writer_stats.strings_truncated).  Memory for
 *   the table is bounded: at most 0x7fbf copies of <= 256 bytes.
 *
 * Threads
 *   A thread is a (pid, tid) pair of koids - the Linux tgid and tid.
 *   Perfetto truncates koids to 32 bits, so synthetic ids must be unique in
 *   their low 32 bits (e.g. 0x40000000 + n: above PID_MAX_LIMIT = 2^22).
 *   pid 0 / tid 0 are Perfetto's idle "swapper" entities; avoid them.
 *   Threads are interned in the 8-bit thread table (1..255) with the same
 *   CLOCK recycling and a thread record re-written when an evicted thread
 *   comes back.  Names come only from fxt_name_process()/fxt_name_thread().
 *
 * Errors
 *   Builders return 0 or a negative errno and never abort or exit.
 *     -E2BIG   more than FXT_MAX_ARGS arguments (or 14 for fxt_name_thread);
 *     -EINVAL  a malformed call (bad argument type, complete event ending
 *              before it begins, non-numeric counter value, ...);
 *     -ERANGE  a timestamp above INT64_MAX.
 *   Such a record is refused whole (nothing is written, the stream stays
 *   valid) and counted in fxt_writer_stats.refused.
 *   A sink error (disk full, EPIPE, ...) is sticky: the sink is never called
 *   again, every later call returns that same error, and fxt_writer_close()
 *   returns it.  The caller reports it once.
 *
 * Not thread-safe: one writer per thread.
 */
#ifndef RINGSIDE_FXT_WRITER_H
#define RINGSIDE_FXT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fxt_proto.h"

/* At most 15 arguments per event: the count is a 4-bit field. */
#define FXT_MAX_ARGS		15
/* The spec's limit on a string's length in bytes. */
#define FXT_MAX_STRING_LEN	32000
/* Longer strings are not interned (see "Strings" above). */
#define FXT_INTERN_MAX_LEN	256
/* At most this many strings can be pinned (half the interned range),
 * "process" included. */
#define FXT_MAX_PINNED		0x3fe0
/* Records are at most 4095 words (12-bit size field); the writer checks. */
#define FXT_MAX_RECORD_WORDS	4095

struct fxt_writer;

/*
 * A sink consumes all len bytes or fails: return 0, or a negative errno.
 * After a failure it is not called again.
 */
typedef int (*fxt_sink_fn)(void *ctx, const void *data, size_t len);

/* A thread: process koid (Linux tgid) and thread koid (Linux tid). */
struct fxt_thread {
	uint64_t pid;
	uint64_t tid;
};

#define FXT_THREAD(p, t) ((struct fxt_thread){ .pid = (p), .tid = (t) })


/*
 * One event argument.  Build it with the fxt_arg_*() helpers below.  In
 * Perfetto the args of instants, slices and async events land in the args
 * table under their name: int32/uint32/int64/koid as int, uint64 cast to
 * int64 (values >= 2^63 show as negative - use fxt_arg_i64 or a string if
 * that matters, the caller decides), double as real, string, pointer (shown
 * in hex), bool, null as the string "null".  Flow events' args are dropped.
 */
struct fxt_arg {
	const char *name;
	enum fxt_arg_type type;
	uint32_t len;			/* FXT_ARG_STRING: bytes at v.str */
	union {
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
		double f64;
		const char *str;
		uint64_t ptr;
		uint64_t koid;
		bool b;
	} v;
};

static inline struct fxt_arg fxt_arg_null(const char *name)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_NULL };
}

static inline struct fxt_arg fxt_arg_i32(const char *name, int32_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_INT32, .v.i32 = v };
}

static inline struct fxt_arg fxt_arg_u32(const char *name, uint32_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_UINT32, .v.u32 = v };
}

static inline struct fxt_arg fxt_arg_i64(const char *name, int64_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_INT64, .v.i64 = v };
}

static inline struct fxt_arg fxt_arg_u64(const char *name, uint64_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_UINT64, .v.u64 = v };
}

static inline struct fxt_arg fxt_arg_double(const char *name, double v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_DOUBLE, .v.f64 = v };
}

/* s need not be NUL-terminated; at most FXT_MAX_STRING_LEN bytes are kept. */
static inline struct fxt_arg fxt_arg_strn(const char *name, const char *s,
					  size_t len)
{
	return (struct fxt_arg){
		.name = name, .type = FXT_ARG_STRING, .v.str = s,
		.len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len,
	};
}

/* NULL means the empty string. */
static inline struct fxt_arg fxt_arg_str(const char *name, const char *s)
{
	size_t len = 0;

	if (s)
		while (s[len])
			len++;
	return fxt_arg_strn(name, s, len);
}

static inline struct fxt_arg fxt_arg_ptr(const char *name, uint64_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_POINTER, .v.ptr = v };
}

static inline struct fxt_arg fxt_arg_koid(const char *name, uint64_t v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_KOID, .v.koid = v };
}

static inline struct fxt_arg fxt_arg_bool(const char *name, bool v)
{
	return (struct fxt_arg){ .name = name, .type = FXT_ARG_BOOL, .v.b = v };
}

/*
 * FXT_ARGV(a, b, ...) expands to "array, count" for the builders' last two
 * parameters, and refuses more than FXT_MAX_ARGS arguments at compile time:
 *   fxt_instant(w, ts, th, "io_uring", "CQE",
 *		 FXT_ARGV(fxt_arg_i64("res", res), fxt_arg_u64("user_data", ud)));
 * With no arguments pass NULL, 0.
 */
#define FXT_ARGV(...)							\
	((const struct fxt_arg[]){ __VA_ARGS__ }),			\
	(unsigned)(FXT_NARG_(__VA_ARGS__) + 0 * sizeof(struct {	\
		_Static_assert(FXT_NARG_(__VA_ARGS__) <= FXT_MAX_ARGS,	\
			       "an FXT event takes at most 15 arguments"); \
		int fxt_unused_;					\
	}))
#define FXT_NARG_(...)							\
	FXT_NARG_N_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,	\
		    10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define FXT_NARG_N_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,	\
		    a13, a14, a15, a16, a17, a18, a19, a20, n, ...) n

/* What the writer did so far (all counts since fxt_writer_new*). */
struct fxt_writer_stats {
	uint64_t records;		/* every record, magic included */
	uint64_t events;		/* event records (type 4) */
	uint64_t bytes;			/* bytes encoded (sent or buffered) */
	uint64_t string_records;
	uint64_t string_evictions;	/* interned slots recycled */
	uint64_t strings_truncated;	/* longer than FXT_MAX_STRING_LEN */
	uint64_t thread_records;
	uint64_t thread_evictions;
	/* Lookups past the fast paths, for tests and profiles: strings not
	 * pinned, or pinned but not in their address's first two entries;
	 * threads not in the slot their tid was last found in. */
	uint64_t string_lookups;
	uint64_t thread_lookups;
	uint64_t refused;		/* builder calls refused (-E2BIG, ...) */
};

/*
 * A writer sending to sink(ctx, ...).  The magic and initialization records
 * are buffered at once.  Returns NULL with errno = ENOMEM on failure.
 */
struct fxt_writer *fxt_writer_new(fxt_sink_fn sink, void *ctx);

/*
 * A writer appending to f with fwrite().  f stays the caller's: close
 * flushes it (fflush) but does not fclose it.
 */
struct fxt_writer *fxt_writer_new_file(FILE *f);

/* Hand the buffered bytes to the sink.  0 or the sticky error. */
int fxt_writer_flush(struct fxt_writer *w);

/*
 * Flush, free the writer and return 0 or the first error (sticky write
 * error, or the FILE's fflush error).  NULL is a no-op.
 */
int fxt_writer_close(struct fxt_writer *w);

/* Free without flushing: for a failed conversion whose output is dropped. */
void fxt_writer_free(struct fxt_writer *w);

/* 0, or the sticky sink error. */
int fxt_writer_error(const struct fxt_writer *w);

void fxt_writer_get_stats(const struct fxt_writer *w,
			  struct fxt_writer_stats *stats);

/* stats.bytes alone: the size of the file so far. */
uint64_t fxt_writer_bytes(const struct fxt_writer *w);

/*
 * Give s a permanent string-table slot and write its string record now.
 * Use it for names used all the time (categories, op names, argument
 * names).  s must stay valid and unchanged while the writer lives (a
 * string literal): later uses of that same pointer take the slot without
 * comparing the bytes.  Returns the index (> 0), or -ENOSPC when
 * FXT_MAX_PINNED strings are already pinned, -EINVAL for "" or a string
 * longer than FXT_INTERN_MAX_LEN, -ENOMEM when out of memory (all stay
 * usable, looked up by content), or the sticky error.
 */
int fxt_writer_pin_string(struct fxt_writer *w, const char *s);

/*
 * Events (record type 4).  cat and name may be NULL (the empty string).
 * All of them go on the thread's track in Perfetto except counters and
 * async events.
 */

/*
 * Instant: a zero-duration slice on the thread's track (Perfetto has no
 * process- or global-scoped FXT instants).  Instants at the same timestamp
 * stack on top of each other.
 */
int fxt_instant(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		const char *cat, const char *name,
		const struct fxt_arg *args, unsigned nargs);

/*
 * Counter: one Perfetto counter track per argument, named
 * "<name>:<arg name>:<counter_id>", under the thread's *process* (the tid is
 * ignored).  Values must be numeric (int32, uint32, int64, uint64, double;
 * anything else is refused with -EINVAL, Perfetto would skip it) and at least
 * one is needed.
 */
int fxt_counter(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		const char *cat, const char *name, uint64_t counter_id,
		const struct fxt_arg *args, unsigned nargs);

/*
 * Counters sampled often, together: one writer, thread (its process),
 * category, name, counter id and 1..FXT_SERIES_MAX_ARGS arg names, with
 * strings the caller keeps unchanged while it uses the series.
 * fxt_counter_sample() writes byte for byte what fxt_counter() would with
 * those args, each an int32 (int64 when its value needs it), but while the
 * writer's tables have evicted nothing it reuses the last sample's thread
 * and string references instead of looking them up: counters are almost
 * half of the event records of a busy ring's trace.  Zero-initialise a
 * series, then set its first six fields.  A series without args, or with
 * more than FXT_SERIES_MAX_ARGS, is refused (-EINVAL).
 */
#define FXT_SERIES_MAX_ARGS 2

struct fxt_counter_series {
	struct fxt_thread th;
	const char *cat, *name;
	uint64_t id;
	unsigned nargs;
	const char *arg[FXT_SERIES_MAX_ARGS];
	/* the writer's: the references of the last sample, while valid */
	bool cached;
	uint64_t evictions;		/* the writer's evictions when cached */
	uint16_t tref, cref, nref, aref[FXT_SERIES_MAX_ARGS];
	uint64_t header;		/* the event's header word, size 0 */
	/* each argument's header words, value 0 */
	uint64_t arg32[FXT_SERIES_MAX_ARGS], arg64[FXT_SERIES_MAX_ARGS];
};

/* values: one per arg of the series. */
int fxt_counter_sample(struct fxt_writer *w, struct fxt_counter_series *s, uint64_t ts,
		       const int64_t *values);

/*
 * Duration begin/end: a slice on the thread's track.  Perfetto ignores the
 * end's name and category and closes the innermost open begin on that
 * thread; the end's args are merged into that slice.  Slices must nest
 * strictly per thread.
 */
int fxt_duration_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		       const char *cat, const char *name,
		       const struct fxt_arg *args, unsigned nargs);
int fxt_duration_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		     const char *cat, const char *name,
		     const struct fxt_arg *args, unsigned nargs);

/*
 * Duration complete: [ts, end_ts] as one record (3 words fewer than a
 * begin/end pair).  end_ts < ts is refused (-EINVAL).  Perfetto drops a
 * complete event that partially overlaps an earlier slice on the thread.
 */
int fxt_duration_complete(struct fxt_writer *w, uint64_t ts, uint64_t end_ts,
			  struct fxt_thread th, const char *cat,
			  const char *name,
			  const struct fxt_arg *args, unsigned nargs);

/*
 * Async begin/instant/end with a correlation id.  Perfetto puts them on
 * *global* tracks ("Global Legacy Events"), grouped by the name of the first
 * event ever seen with that id, one lane per open id.  The end must repeat
 * the begin's category and name.  Never reuse an id within a trace.
 */
int fxt_async_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		    const char *cat, const char *name, uint64_t id,
		    const struct fxt_arg *args, unsigned nargs);
int fxt_async_instant(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		      const char *cat, const char *name, uint64_t id,
		      const struct fxt_arg *args, unsigned nargs);
int fxt_async_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		  const char *cat, const char *name, uint64_t id,
		  const struct fxt_arg *args, unsigned nargs);

/*
 * Flow begin/step/end with a flow id.  Perfetto binds each one to the top
 * slice on the thread's stack when it processes the flow event (dropping
 * it if there is none) and draws begin -> step -> ... -> end arrows.  Its
 * name, category and args are not stored.  Take ids from a counter that
 * starts at 1 and never reuse one within a trace (Perfetto scopes ids per
 * pid since 2026-06, globally before; unique ids work with both).
 */
int fxt_flow_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		   const char *cat, const char *name, uint64_t id,
		   const struct fxt_arg *args, unsigned nargs);
int fxt_flow_step(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		  const char *cat, const char *name, uint64_t id,
		  const struct fxt_arg *args, unsigned nargs);
int fxt_flow_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		 const char *cat, const char *name, uint64_t id,
		 const struct fxt_arg *args, unsigned nargs);

/*
 * Kernel object records: the only way to name processes and threads in
 * Perfetto.  They may appear anywhere in the file (Perfetto applies them
 * before any event); the last name written for a koid wins.
 *
 * fxt_name_process: ZX_OBJ_TYPE_PROCESS, koid = pid.  Perfetto ignores the
 * args of a process object.
 *
 * fxt_name_thread: ZX_OBJ_TYPE_THREAD, koid = th.tid, and the koid argument
 * "process" = th.pid added first (so at most 14 more args).  That argument
 * is mandatory in practice: without it, or with a pid other than the one the
 * events use, Perfetto puts the events on a second, unnamed thread.
 */
int fxt_name_process(struct fxt_writer *w, uint64_t pid, const char *name,
		     const struct fxt_arg *args, unsigned nargs);
int fxt_name_thread(struct fxt_writer *w, struct fxt_thread th,
		    const char *name,
		    const struct fxt_arg *args, unsigned nargs);

/*
 * Scheduling records (type 8): Perfetto fills its CPU tracks (sched_slice)
 * and thread states from them.  They carry tids only; the pid comes from the
 * thread's fxt_name_thread() record; the states are enum fxt_thread_state
 * (fxt_proto.h).
 */

/* incoming_weight/outgoing_weight == this mark the idle thread. */
#define FXT_IDLE_WEIGHT INT32_MIN

/*
 * Context switch on cpu (< 65536) from out_tid (left in out_state) to
 * in_tid.  Perfetto reads the int32 args "incoming_weight" and
 * "outgoing_weight" (the priority; FXT_IDLE_WEIGHT = idle).
 */
int fxt_context_switch(struct fxt_writer *w, uint64_t ts, uint32_t cpu,
		       enum fxt_thread_state out_state, uint64_t out_tid,
		       uint64_t in_tid,
		       const struct fxt_arg *args, unsigned nargs);

/*
 * Wake-up of tid on cpu.  Perfetto reads the args "waker" (koid: the waking
 * tid) and "weight" (int32).
 */
int fxt_thread_wakeup(struct fxt_writer *w, uint64_t ts, uint32_t cpu,
		      uint64_t tid, const struct fxt_arg *args, unsigned nargs);

#endif
