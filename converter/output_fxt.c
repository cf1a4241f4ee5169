// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=fxt: a Fuchsia trace for ui.perfetto.dev that shows the path of
 * every request.  The layout (uring-convert(1), FXT OUTPUT, is the user's
 * description) follows from what Perfetto's FXT importer does
 * (src/trace_processor/importers/fuchsia/ in Perfetto's sources):
 *
 *   - Only thread tracks nest slices and carry flows; async events go to a
 *     global group where flows cannot bind.  So request lifetimes go on
 *     synthetic LANE threads under the ring's owning process
 *     ("ring 3 (fd 5) lane 00"), each lane holding lifetimes that never
 *     overlap (fxt_layout.h), and the steps of a request (io-wq queue,
 *     poll wait, ...) are child slices of its lifetime.
 *   - A flow event binds to the slice on top of its thread's stack when
 *     Perfetto processes it (timestamp order, ties in file order), so each
 *     flow event is written right after the slice it belongs to, with that
 *     slice's start time.  Every point of a flow is placed only if its time
 *     is not before the previous point's, so points are processed in the
 *     order written.  Requests whose events were lost get no arrow.
 *   - Perfetto draws an arrow from the END of its source slice to the start
 *     of its target unless the target is a descendant (then from the
 *     source's start).  So the request's flow goes submit anchor -> lifetime
 *     -> the step that ends where the next thread takes over ("io-wq queue"
 *     -> worker slice, "poll wait" -> completion) -> completion anchor.  A
 *     link arrow goes from the member of a link that finished first to the
 *     other one at that moment: from a lifetime (drawn from its end) to
 *     the step that starts there.  Members are delivered as they finish,
 *     in either order, so it is written when the second one arrives, and
 *     the end on the member drawn earlier is written late on its lane at
 *     the start of its step that contains that moment (drawn_slice_at()).
 *   - Counters are per process: "ring N:<counter>:0" under the ring's owner.
 *     The SQ and CQ pending counts, sampled together, are one record with
 *     two arguments: two tracks in Perfetto, as two records would make,
 *     in 40 bytes instead of 64.
 *   - Names come only from kernel-object records, which Perfetto applies
 *     before any event wherever they are in the file: they are written at
 *     end(), with the final names.  A thread's "process" argument must be
 *     the pid its events use, so each thread's pid is fixed at first use.
 *
 * Timestamps are relative to the recording start (meta->start_ns).  The
 * output is streamed: memory holds lane ends, threads and rings seen, and
 * the link arrows whose other end has not been delivered yet.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_layout.h"
#include "fxt_layout.h"
#include "fxt_plan.h"
#include "fxt_writer.h"
#include "hmap.h"
#include "model_names.h"
#include "out_buf.h"
#include "output.h"
#include "output_util.h"
#include "report.h"
#include "uring_names.h"

#define CAT "io_uring"
#define CAT_META "ringside"
#define MAX_WARNING_MARKERS 100
#define COMM_UTF8_LEN (EV_COMM_LEN * 3 + 1)

/*
 * Perfetto's UI parses a trace in the browser, whose memory is limited
 * ("2GB is typical", and a trace takes 2 to 4 times its size there:
 * Perfetto's docs/visualization/large-traces.md).  Past this size, end()
 * says how to open the trace and where --end would cut it.
 */
uint64_t output_fxt_large_bytes = 512ull << 20;
/* The bytes drawn for each of this many spans of the recording. */
#define SIZE_SPANS 4096

/* A thread of the recording. */
struct task_out {
	uint32_t tid;
	uint64_t pid;			/* process koid of its events (fixed at first use) */
	const struct model_task *task;	/* NULL: never announced */
	bool used;			/* an event was written on it */
	struct fxt_span_guard guard;	/* its duration slices */
	struct fxt_instant_guard ig;	/* its instants */
};

/* A ring's counters sampled together (model_counter): one FXT series. */
_Static_assert(MODEL_COUNTER_MAX_SAMPLES == 2, "x_counter() compares two kinds");
struct ring_counter {
	enum counter_kind kind[MODEL_COUNTER_MAX_SAMPLES];	/* of series.nargs args */
	struct fxt_counter_series series;
};

struct ring_out {
	const struct model_ring *ring;	/* valid until destroy(): final state in end() */
	unsigned number;
	char counter_name[24];		/* "ring N": its counters' name, made once */
	struct ring_counter counter[COUNTER_KIND_COUNT];	/* by first kind; set at first use */
	uint64_t pid;			/* owning process koid (fixed at first use) */
	uint32_t track;			/* koid of "ring N (fd F)", 0 until used */
	struct fxt_instant_guard ig;	/* instants on that track */
	struct fxt_lanes lanes;
	uint64_t no_lane;		/* requests that found every lane busy */
};

/*
 * The first-delivered member of a link (predecessor -> successor), keyed
 * by the successor's id.  The model delivers requests when they finish and
 * holds completions until their thread's next io_uring event, so either
 * member can come first; the arrow is decided and written, both ends at
 * once, when the second one is delivered.
 */
struct link_out {
	bool is_pred;			/* d is the predecessor's */
	struct fxt_drawn d;
};

struct loss_track {
	unsigned cpu;
	uint32_t koid;
	uint64_t last_end;		/* end of its last window slice (boot ns) */
	struct fxt_instant_guard ig;
};

/* The names of an opcode's slices, formatted once. */
struct op_names {
	bool set;
	const char *plain;		/* "READ" */
	char buf[NAMES_MAX_LEN];
	char submit[NAMES_MAX_LEN + 8], cqe[NAMES_MAX_LEN + 8];
	char more[NAMES_MAX_LEN + 16], approx[NAMES_MAX_LEN + 16];
};

/*
 * Texts that repeat call after call (an io_uring_enter's flags, its "31 ->
 * 32" pending counts), each made once and pinned, so that the writer
 * takes its slot without looking at the bytes, which a lookup by content,
 * three times a call, would.  Direct-mapped by key;
 * a pinned text cannot change, so a key whose entry is taken by another
 * is made in the caller's buffer each time, as before.  At most
 * TEXT_CACHE_SIZE texts a cache: a bounded part of the pinned slots.
 */
#define TEXT_CACHE_BITS 8
#define TEXT_CACHE_SIZE (1u << TEXT_CACHE_BITS)

struct text_cache {
	uint64_t key[TEXT_CACHE_SIZE];
	char *text[TEXT_CACHE_SIZE];	/* NULL: free */
};

struct fxo {
	struct output base;
	struct output_config cfg;
	unsigned max_lanes;
	struct out_buf out;
	bool is_stdout;
	struct fxt_writer *w;
	struct output_meta meta;
	struct hmap tasks;		/* tid -> task_out */
	struct ring_out **rings;	/* by ring number */
	size_t nrings;
	struct hmap links;		/* successor request id -> link_out */
	struct loss_track *loss;
	size_t nloss, losscap;
	struct hmap loss_index;		/* cpu -> index + 1 in loss */
	struct fxt_koids koids;
	struct op_names ops[256];
	/* io_uring_enter's texts: flags, SQ and CQ pending counts */
	struct text_cache enter_flags, pending;
	/* each file's path as valid UTF-8, by number - 1: made once, as a
	 * file never changes (output.h) */
	char **file_text;
	size_t nfile_text;
	uint64_t next_flow;
	uint64_t lost_total;
	bool lost_counter_started;
	struct fxt_instant_guard rec_ig;	/* markers on the recording thread */
	bool oom;
	/* the bytes drawn for what began in each span of 2^span_shift ns
	 * of the recording: what --end would keep */
	uint64_t span_bytes[SIZE_SPANS];
	unsigned span_shift;
	uint64_t spanned;		/* the file's size when last added */
	/* for the "recording end" marker */
	uint64_t requests, no_lane, undrawable, refused_slices, refused_instants, syscalls,
		 out_of_range;
};

#define X(o) ((struct fxo *)(void *)(o))

/* ------------------------------------------------------------- helpers */

static uint64_t rel(const struct fxo *x, uint64_t ts)
{
	return ts > x->meta.start_ns ? ts - x->meta.start_ns : 0;
}

/*
 * Perfetto keeps timestamps as int64 ns (the writer refuses more): an
 * event more than 2^63 ns (292 years) after the start comes from a
 * damaged log and is left out, counted.
 */
static bool in_range(struct fxo *x, uint64_t ts)
{
	if (rel(x, ts) <= INT64_MAX)
		return true;
	x->out_of_range++;
	return false;
}

/* Raw kernel bytes as valid UTF-8 (invalid bytes become U+FFFD). */
static const char *utf8_clean(const char *s, size_t n, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < n && u[i];) {
		size_t l = utf8_seq_len(u + i, n - i);

		if (!l) {
			if (o + 4 > len)
				break;
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		if (o + l + 1 > len)
			break;
		memcpy(buf + o, u + i, l);
		o += l;
		i += l;
	}
	buf[o] = '\0';
	return buf;
}

/*
 * Up to FXT_MAX_ARGS arguments; the call sites stay within the limit.
 * The per-event paths declare it without an initializer and set n: "= {
 * .n = 0 }" zeroes all 15 arguments (480 bytes), three times a request.
 */
struct args {
	struct fxt_arg a[FXT_MAX_ARGS];
	unsigned n;
};

static void add(struct args *v, struct fxt_arg a)
{
	if (v->n < FXT_MAX_ARGS)
		v->a[v->n++] = a;
}

static const struct op_names *opnames(struct fxo *x, uint8_t op)
{
	struct op_names *n = &x->ops[op];

	if (n->set)
		return n;
	n->plain = names_opcode(x->meta.names, op, n->buf);
	snprintf(n->submit, sizeof(n->submit), "submit %s", n->plain);
	snprintf(n->cqe, sizeof(n->cqe), "CQE %s", n->plain);
	snprintf(n->more, sizeof(n->more), "CQE %s (more)", n->plain);
	snprintf(n->approx, sizeof(n->approx), "%s (approx)", n->plain);
	/* They stay as they are now: each use takes its slot without a look
	 * at the bytes (three uses a request). */
	fxt_writer_pin_string(x->w, n->plain);
	fxt_writer_pin_string(x->w, n->submit);
	fxt_writer_pin_string(x->w, n->cqe);
	n->set = true;
	return n;
}

static struct task_out *task_entry(struct fxo *x, uint32_t tid)
{
	struct task_out *t = hmap_get(&x->tasks, tid, 0);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || hmap_put(&x->tasks, tid, 0, t)) {
		free(t);
		x->oom = true;
		return NULL;
	}
	t->tid = tid;
	return t;
}

/*
 * The thread tid of the recording, with its pid fixed at first use (the
 * announced task's pid, else pid_hint, else tid itself).  NULL for tid 0
 * (idle/interrupt context: Perfetto's swapper) or out of memory.
 */
static struct task_out *task_use(struct fxo *x, uint32_t tid, uint64_t pid_hint)
{
	struct task_out *t;

	/* Linux tids and pids are below PID_MAX_LIMIT (2^22): anything at or
	 * above our synthetic koids comes from a damaged log. */
	if (!tid || tid >= FXT_KOID_RINGSIDE)
		return NULL;
	t = task_entry(x, tid);
	if (!t)
		return NULL;
	if (!t->used) {
		uint64_t pid = t->task && t->task->pid ? t->task->pid : pid_hint;

		t->pid = pid && pid < FXT_KOID_RINGSIDE ? pid : tid;
		t->used = true;
	}
	return t;
}

static struct fxt_thread tthread(const struct task_out *t)
{
	return FXT_THREAD(t->pid, t->tid);
}

/*
 * cqe_outside_poster() of a CQE of ring ro.  Such a thread would be a
 * process of its own in Perfetto, so the caller draws the CQE on the
 * ring's track, under its owner, and says who posted it.
 */
static const char *outside_poster(struct fxo *x, uint32_t tid, const struct ring_out *ro,
				  uint32_t cflags, uint64_t ts)
{
	const struct task_out *t = hmap_get(&x->tasks, tid, 0);
	const struct task_out *owner;

	if (!t || ro->pid >= FXT_KOID_RINGSIDE)
		return NULL;
	owner = hmap_get(&x->tasks, ro->pid, 0);
	return cqe_outside_poster(t->task, owner ? owner->task : NULL, (uint32_t)ro->pid,
				  cflags, ts);
}

static void add_poster(struct args *v, const char *why, uint32_t tid)
{
	add(v, fxt_arg_str("posted_by", why));
	add(v, fxt_arg_u32("posted_by_tid", tid));
}

/* ring_use() for a ring without its ring_out yet. */
static __attribute__((noinline)) struct ring_out *ring_add(struct fxo *x,
							   const struct model_ring *r,
							   uint64_t pid_hint)
{
	struct ring_out *ro;

	if (r->number >= x->nrings) {
		size_t n = r->number + 16;
		struct ring_out **p = realloc(x->rings, n * sizeof(*p));

		if (!p) {
			x->oom = true;
			return NULL;
		}
		memset(p + x->nrings, 0, (n - x->nrings) * sizeof(*p));
		x->rings = p;
		x->nrings = n;
	}
	ro = calloc(1, sizeof(*ro));
	if (!ro) {
		x->oom = true;
		return NULL;
	}
	ro->ring = r;
	ro->number = r->number;
	snprintf(ro->counter_name, sizeof(ro->counter_name), "ring %u", ro->number);
	/* The owner may not be known yet (a ring open before the recording,
	 * first seen through an io-wq worker): the thread that first used
	 * it, or the caller's hint, belongs to the same process. */
	if (!r->pid && r->tid) {
		struct task_out *t = hmap_get(&x->tasks, r->tid, 0);

		if (t && t->task && t->task->pid)
			pid_hint = t->task->pid;
	}
	ro->pid = r->pid ? r->pid : pid_hint ? pid_hint : FXT_KOID_RINGSIDE;
	if (ro->pid > FXT_KOID_RINGSIDE)
		ro->pid = FXT_KOID_RINGSIDE;
	fxt_lanes_init(&ro->lanes, x->max_lanes);
	x->rings[r->number] = ro;
	return ro;
}

/* The output state of ring r (NULL: none, or out of memory).  Once per
 * counter sample, request and CQE: the known ring is inline. */
static inline struct ring_out *ring_use(struct fxo *x, const struct model_ring *r,
					uint64_t pid_hint)
{
	if (!r)
		return NULL;
	if (r->number < x->nrings && x->rings[r->number])
		return x->rings[r->number];
	return ring_add(x, r, pid_hint);
}

/* One more instant at ts on a track, unless it would stack too deep
 * (fxt_layout.h: only a damaged log does that); counted. */
static bool instant_ok(struct fxo *x, struct fxt_instant_guard *g, uint64_t ts)
{
	if (fxt_instant_guard_admit(g, ts))
		return true;
	x->refused_instants++;
	return false;
}

/* The ring's own track ("ring N (fd F)"): markers and counters. */
static bool ring_track(struct fxo *x, struct ring_out *ro, struct fxt_thread *th)
{
	if (!ro->track)
		ro->track = fxt_koids_next(&x->koids);
	if (!ro->track)
		return false;
	*th = FXT_THREAD(ro->pid, ro->track);
	return true;
}

static struct fxt_thread recording_thread(void)
{
	return FXT_THREAD(FXT_KOID_RINGSIDE, FXT_KOID_RECORDING);
}

/*
 * Integers in the narrowest FXT type that holds them: 32-bit values fit in
 * the argument's header word, 64-bit ones take a second word, and Perfetto
 * shows both as the same int.  Most ids and results are small, so most
 * arguments take one word.
 */
static struct fxt_arg arg_uint(const char *name, uint64_t v)
{
	/* Perfetto stores uint64 as int64: from 2^63 up (a tagged user_data,
	 * -1 as an offset) it would show a negative number; hex is exact. */
	if (v > INT64_MAX)
		return fxt_arg_ptr(name, v);
	return v <= UINT32_MAX ? fxt_arg_u32(name, (uint32_t)v) : fxt_arg_u64(name, v);
}

static struct fxt_arg arg_int(const char *name, int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX ? fxt_arg_i32(name, (int32_t)v) : fxt_arg_i64(name, v);
}

/* A result, and its errno name when negative. */
static void add_result(struct args *v, const char *name, int64_t res, char *buf)
{
	add(v, arg_int(name, res));
	if (res < 0)
		add(v, fxt_arg_str("errno", names_errno(res, buf)));
}

static void flags_arg(struct args *v, const char *name, uint64_t flags,
		      const struct flag_name *table, char *buf, size_t len)
{
	add(v, fxt_arg_str(name, flags ? format_flags(buf, len, flags, table) : "none"));
}

/* ------------------------------------------------------------- begin */

static const char *status_text(enum req_status s)
{
	switch (s) {
	case REQ_COMPLETE: return "complete";
	case REQ_IN_FLIGHT_AT_END: return "in flight at end";
	case REQ_IN_FLIGHT_AT_START: return "in flight at start";
	case REQ_INCOMPLETE: return "incomplete";
	case REQ_STATUS_COUNT: break;
	}
	return "?";
}

static const char *const pinned[] = {
	CAT, CAT_META, "request", "user_data", "fd", "offset", "length", "result",
	"errno", "cflags", "path", "status", "note", "modifiers", "sqe_flags",
	"cqes", "chain", "ring", "worker", "approximate", "to_submit",
	"min_complete", "flags", "ret", "submitted", "completed", "submit_ns",
	"wait_ns", "sq_pending", "cq_pending", "events_lost", "registered_ring",
	"waiting", "min_events", "issue", "link wait", "drain wait", "poll wait",
	"task work", "io-wq queue", "io-wq run", "io-wq run (approx)",
	"after io-wq", "cancelled", "in flight", "io_uring_enter",
	"io_uring_setup", "io_uring_register", "lanes full", "inflight",
	"sq_pending", "cq_pending", "io_wq", "count", "cpu", "source",
};

/*
 * The FXT writer's sink: into out_buf, whose thread does the write(); a
 * failed write stops the writer at its next flush.  Building the records
 * in out_buf's buffer instead would save this copy but was slower to
 * tmpfs, and erratic (bench/RESULTS.md): probably the stores of records
 * into lines the writing thread's CPU had just read.
 */
static int out_sink(void *ctx, const void *data, size_t len)
{
	struct out_buf *b = ctx;
	int err = out_buf_error(b);

	if (err)
		return -err;
	out_buf_put(b, data, len);
	return 0;
}

static int x_begin(struct output *o, const struct output_meta *meta, char *err, size_t errlen)
{
	struct fxo *x = X(o);
	char iso[TIMEBASE_ISO_LEN], rid[64];
	const char *base;
	struct args v = { .n = 0 };

	if (out_buf_open(&x->out, x->cfg.path, x->cfg.force, err, errlen))
		return -1;
	x->is_stdout = !x->out.owns_fd;
	x->meta = *meta;
	while ((meta->end_ns - meta->start_ns) >> x->span_shift >= SIZE_SPANS)
		x->span_shift++;
	x->w = fxt_writer_new(out_sink, &x->out);
	if (!x->w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++)
		fxt_writer_pin_string(x->w, pinned[i]);
	/* Two values of every request: literals, looked up by address. */
	for (unsigned i = 0; i < PATH_COUNT; i++)
		fxt_writer_pin_string(x->w, path_name((enum req_path)i));
	for (unsigned i = 0; i < REQ_STATUS_COUNT; i++)
		fxt_writer_pin_string(x->w, status_text((enum req_status)i));

	/* The recording's metadata: args of an instant at t = 0 on the
	 * "ringside" process's "recording" thread (and in the process name,
	 * written at end()). */
	base = strrchr(meta->log_path, '/');
	base = base ? base + 1 : meta->log_path;
	snprintf(rid, sizeof(rid), "%s", meta->info->recording_id_str);
	add(&v, fxt_arg_str("start_wall", *timebase_iso(meta->tb, meta->start_ns, iso) ?
			    iso : "unknown (no clock snapshot)"));
	add(&v, arg_uint("start_boot_ns", meta->start_ns));
	add(&v, arg_uint("duration_ns", meta->end_ns - meta->start_ns));
	add(&v, fxt_arg_str("host", meta->hostname));
	add(&v, fxt_arg_str("kernel", meta->kernel_release));
	add(&v, fxt_arg_str("machine", meta->machine));
	add(&v, fxt_arg_u32("cpus", meta->ncpus));
	add(&v, fxt_arg_str("recording_id", rid));
	{
		char lb[4096], rsel[512];

		add(&v, fxt_arg_str("log", utf8_clean(base, strlen(base), lb, sizeof(lb))));
		add(&v, fxt_arg_u32("log_format_major", meta->info->major));
		add(&v, fxt_arg_u32("log_format_minor", meta->info->minor));
		add(&v, fxt_arg_str("io_wq_tracking", *meta->io_wq_tracking ?
				    meta->io_wq_tracking : "unknown"));
		add(&v, fxt_arg_str("selection", *meta->selection ? meta->selection : "everything"));
		if (meta->info && report_recorded_selection(meta->info->meta, rsel, sizeof(rsel)))
			add(&v, fxt_arg_str("recorded_selection",
					    *rsel ? utf8_clean(rsel, strlen(rsel), lb, sizeof(lb)) :
					    "every process"));
		add(&v, fxt_arg_u32("max_lanes_per_ring", x->max_lanes));
		fxt_instant(x->w, 0, recording_thread(), CAT_META, "recording", v.a, v.n);
	}
	/* uring-record --sample: the requests shown are 1 in N.  An instant of
	 * its own: "recording" may hold FXT_MAX_ARGS arguments already. */
	if (meta->sample_requests > 1) {
		v.n = 0;
		add(&v, fxt_arg_u32("requests_one_in", meta->sample_requests));
		add(&v, fxt_arg_u32("syscalls_one_in", meta->sample_syscalls));
		fxt_instant(x->w, 0, recording_thread(), CAT_META, "sampled", v.a, v.n);
	}
	if (fxt_writer_error(x->w)) {
		snprintf(err, errlen, "%s: write error: %s",
			 x->is_stdout ? "standard output" : x->cfg.path,
			 strerror(-fxt_writer_error(x->w)));
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------- tasks and rings */

static void x_task(struct output *o, const struct model_task *t)
{
	struct task_out *to = task_entry(X(o), t->tid);

	if (to)
		to->task = t;
}

/* ------------------------------------------------------------- requests */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t new_flow(struct fxo *x)
{
	return ++x->next_flow;
}

static void write_flow(struct fxo *x, enum fxt_flow_kind type, uint64_t ts, struct fxt_thread th,
		       const char *name, uint64_t id)
{
	switch (type) {
	case FXT_FLOW_BEGIN:
		fxt_flow_begin(x->w, ts, th, CAT, name, id, NULL, 0);
		break;
	case FXT_FLOW_STEP:
		fxt_flow_step(x->w, ts, th, CAT, name, id, NULL, 0);
		break;
	case FXT_FLOW_END:
		fxt_flow_end(x->w, ts, th, CAT, name, id, NULL, 0);
		break;
	case FXT_FLOW_NONE:
		break;
	}
}

/* The flow events that belong to slot, right after its slice. */
static void slot_flows(struct fxo *x, const struct fxt_plan *p, enum fxt_slot s,
		       struct fxt_thread th)
{
	uint64_t ts = rel(x, p->ts[s]);

	if (p->flow[s])
		write_flow(x, p->flow[s], ts, th, "request", p->flow_id);
	for (unsigned i = 0; i < 2; i++)
		if (p->link[i].ok && p->link[i].our_slot == (int)s)
			write_flow(x, p->link[i].our_type, ts, th, "link", p->link[i].id);
}

/* The other ends of link arrows: begins before our slices, ends after. */
static void late_flows(struct fxo *x, const struct fxt_plan *p, enum fxt_flow_kind type)
{
	for (unsigned i = 0; i < 2; i++)
		if (p->link[i].ok && p->link[i].late_type == type)
			write_flow(x, type, rel(x, p->link[i].late_ts), p->link[i].late_th, "link",
				   p->link[i].id);
}

static void remember_link(struct fxo *x, uint64_t key, bool is_pred, const struct fxt_drawn *d)
{
	struct link_out *l = calloc(1, sizeof(*l));

	if (!l || hmap_put(&x->links, key, 0, l)) {
		free(l);
		x->oom = true;
		return;
	}
	l->is_pred = is_pred;
	l->d = *d;
}

/* A lane of the request's ring for [start, end]; false when every lane is
 * busy (counted) or out of memory (x->oom). */
static bool place_lane(struct fxo *x, struct ring_out *ro, uint64_t start, uint64_t end,
		       struct fxt_thread *th)
{
	bool opened;
	int lane = fxt_lanes_place(&ro->lanes, start, end, &opened);

	if (lane == -ENOMEM) {
		x->oom = true;
		return false;
	}
	if (lane >= 0 && opened) {
		ro->lanes.koid[lane] = fxt_koids_next(&x->koids);
		if (!ro->lanes.koid[lane]) {
			ro->lanes.n--;
			lane = -1;
		}
	}
	if (lane < 0) {
		ro->no_lane++;
		x->no_lane++;
		return false;
	}
	*th = FXT_THREAD(ro->pid, ro->lanes.koid[lane]);
	return true;
}

/* The threads a request ran on, and whether each may take its slice there:
 * submission, io-wq work, completion. */
struct req_threads {
	struct task_out *sub, *wrk, *cqt;
	uint64_t w_end;			/* end of the io-wq work slice */
	struct fxt_thread cq_th;	/* the CQE's thread: cqt's, or the ring's */
	const char *cq_poster;		/* outside_poster() of the CQE */
};

static void admit_threads(struct fxo *x, const struct model_request *r, struct ring_out *ro,
			  struct req_threads *t, struct fxt_plan_input *in)
{
	if (r->submit_ts && r->submit_tid) {
		t->sub = task_use(x, r->submit_tid, r->submit_pid ? r->submit_pid : ro->pid);
		in->submit = t->sub && instant_ok(x, &t->sub->ig, r->submit_ts);
	}
	if (r->worker_tid && r->work_begin_ts) {
		t->w_end = fxt_plan_work_end(r, x->meta.end_ns);
		t->wrk = task_use(x, r->worker_tid, ro->pid);
		in->worker = t->wrk && in_range(x, t->w_end) &&
			     fxt_span_guard_admit(&t->wrk->guard, r->work_begin_ts, t->w_end);
		if (t->wrk && !in->worker)
			x->refused_slices++;
	}
	if (r->complete_ts && r->complete_tid) {
		struct fxt_instant_guard *ig = NULL;

		t->cq_poster = outside_poster(x, r->complete_tid, ro, r->cflags, r->complete_ts);
		if (t->cq_poster) {
			if (ring_track(x, ro, &t->cq_th))
				ig = &ro->ig;
		} else if ((t->cqt = task_use(x, r->complete_tid, ro->pid))) {
			t->cq_th = tthread(t->cqt);
			ig = &t->cqt->ig;
		}
		in->cqe = ig && instant_ok(x, ig, r->complete_ts);
	}
}

/* utf8_clean() of f's path, made at its first request: a path is up to
 * 3 KiB, and the requests of a file are many. */
static const char *file_text(struct fxo *x, const struct model_file *f, char *buf, size_t len)
{
	size_t i = f->number - 1;
	char *t;

	if (i < x->nfile_text && x->file_text[i])
		return x->file_text[i];
	utf8_clean(f->path, strlen(f->path), buf, len);
	if (!f->number)
		return buf;
	if (i >= x->nfile_text) {
		size_t n = i + 64;
		char **p = realloc(x->file_text, n * sizeof(*p));

		if (!p)
			return buf;
		memset(p + x->nfile_text, 0, (n - x->nfile_text) * sizeof(*p));
		x->file_text = p;
		x->nfile_text = n;
	}
	t = strdup(buf);
	if (!t)
		return buf;
	x->file_text[i] = t;
	return t;
}

/* The lifetime's arguments: what the request was and how it ended. */
static void write_lifetime(struct fxo *x, const struct model_request *r, const struct fxt_plan *p,
			   const struct fxt_lifetime *lt, const char *op)
{
	char name[NAMES_MAX_LEN + 32], eb[32], fb[256], mb[256], cb[128], nb[256], chb[96];
	char pb[3 * (EV_PATH_LEN + 64) + 1];
	bool have_res = r->complete_ts || r->overflow_ts;
	struct fxt_thread lane_th = p->me.lane;
	struct args v;

	v.n = 0;
	add(&v, arg_uint("request", r->id));
	add(&v, arg_uint("user_data", r->user_data));
	if (r->sqe_fields_valid) {
		add(&v, fxt_arg_i32("fd", r->fd));
		if (r->off_valid)
			add(&v, arg_int("offset", (int64_t)r->off));
		add(&v, fxt_arg_u32("length", r->len));
	}
	if (have_res)
		add_result(&v, "result", r->res, eb);
	if (have_res && r->cflags)
		flags_arg(&v, "cflags", r->cflags, cqe_flag_names, cb, sizeof(cb));
	add(&v, fxt_arg_str("path", path_name(r->path)));
	if (r->status == REQ_INCOMPLETE) {
		snprintf(nb, sizeof(nb), "incomplete (%s): events of it may be missing, no arrows drawn",
			 incomplete_reason_name(r->incomplete_reason));
		add(&v, fxt_arg_str("status", nb));
	} else {
		add(&v, fxt_arg_str("status", status_text(r->status)));
	}
	if (lt->note)
		add(&v, fxt_arg_str("note", lt->note));
	if (r->modifiers)
		add(&v, fxt_arg_str("modifiers", format_modifiers(mb, sizeof(mb), r->modifiers)));
	if (r->sqe_valid && r->sqe_flags)
		flags_arg(&v, "sqe_flags", r->sqe_flags, iosqe_flag_names, fb, sizeof(fb));
	if (r->ncqes > 1)
		add(&v, fxt_arg_u32("cqes", r->ncqes));
	if (r->chain_id) {
		snprintf(chb, sizeof(chb), "member %" PRIu32 " of the chain headed by request %" PRIu64,
			 r->chain_pos, r->chain_id);
		add(&v, fxt_arg_str("chain", chb));
	}
	/* Last: a slice that already has FXT_MAX_ARGS arguments goes without
	 * (uring-convert(1), FXT OUTPUT); requests.csv still has it. */
	if (r->file)
		add(&v, fxt_arg_str("file", file_text(x, r->file, pb, sizeof(pb))));
	if (r->status != REQ_COMPLETE)
		snprintf(name, sizeof(name), "%s (%s)", op, status_text(r->status));
	fxt_duration_complete(x->w, rel(x, lt->start), rel(x, lt->end), lane_th, CAT,
			      r->status == REQ_COMPLETE ? op : name, v.a, v.n);
	slot_flows(x, p, FXT_SLOT_LANE, lane_th);
	for (unsigned i = 0; i < p->nph; i++) {
		fxt_duration_complete(x->w, rel(x, p->ph[i].start), rel(x, p->ph[i].end), lane_th,
				      CAT, p->ph[i].name, NULL, 0);
		slot_flows(x, p, FXT_SLOT_PHASE0 + i, lane_th);
	}
}

/* No lane for the lifetime: say so on the ring's track instead. */
static void write_lanes_full(struct fxo *x, const struct model_request *r, struct ring_out *ro,
			     const struct fxt_lifetime *lt, const char *op)
{
	struct fxt_thread th;

	if (ring_track(x, ro, &th) && instant_ok(x, &ro->ig, lt->start))
		fxt_instant(x->w, rel(x, lt->start), th, CAT, "lanes full",
			    FXT_ARGV(arg_uint("request", r->id), fxt_arg_str("opcode", op),
				     arg_uint("user_data", r->user_data),
				     arg_uint("duration_ns", lt->end - lt->start),
				     fxt_arg_str("note", "every lane of this ring was busy: the request's lifetime is not drawn (raise --lanes)")));
}

static void write_work(struct fxo *x, const struct model_request *r, const struct ring_out *ro,
		       const struct fxt_plan *p, const struct req_threads *t,
		       const struct op_names *on)
{
	bool approx = r->modifiers & REQM_WORKER_APPROX;
	struct args v;

	v.n = 0;
	add(&v, arg_uint("request", r->id));
	add(&v, fxt_arg_u32("ring", ro->number));
	add(&v, arg_uint("user_data", r->user_data));
	if (r->queue_async_ts && r->queue_async_ts <= r->work_begin_ts)
		add(&v, arg_uint("queued_ns", r->work_begin_ts - r->queue_async_ts));
	if (r->modifiers & REQM_HASHED)
		add(&v, fxt_arg_bool("hashed", true));
	if (approx)
		add(&v, fxt_arg_str("approximate", "worker and start inferred from scheduling and the completion: this kernel gave no io-wq work events"));
	if (!r->work_end_ts)
		add(&v, fxt_arg_str("note", "end of the work not recorded"));
	fxt_duration_complete(x->w, rel(x, r->work_begin_ts), rel(x, t->w_end), tthread(t->wrk),
			      CAT, approx ? on->approx : on->plain, v.a, v.n);
	slot_flows(x, p, FXT_SLOT_WORKER, tthread(t->wrk));
}

static void write_cqe(struct fxo *x, const struct model_request *r, const struct ring_out *ro,
		      const struct fxt_plan *p, const struct req_threads *t,
		      const struct op_names *on)
{
	char eb[32], cb[128];
	struct args v;

	v.n = 0;
	add(&v, arg_uint("request", r->id));
	add(&v, fxt_arg_u32("ring", ro->number));
	add(&v, arg_uint("user_data", r->user_data));
	add_result(&v, "result", r->res, eb);
	if (r->cflags)
		flags_arg(&v, "cflags", r->cflags, cqe_flag_names, cb, sizeof(cb));
	if (r->modifiers & REQM_CQ_OVERFLOW)
		add(&v, fxt_arg_bool("overflowed", true));
	if (r->modifiers & REQM_CQE_DROPPED)
		add(&v, fxt_arg_bool("dropped", true));
	if (t->cq_poster)
		add_poster(&v, t->cq_poster, r->complete_tid);
	else if (r->tw_run_ts && r->tw_run_tid == r->complete_tid)
		add(&v, fxt_arg_str("posted_by", "task work"));
	fxt_instant(x->w, rel(x, r->complete_ts), t->cq_th, CAT, on->cqe, v.a, v.n);
	slot_flows(x, p, FXT_SLOT_CQE, t->cq_th);
}

/*
 * A request: find its lane, threads and the link members delivered
 * earlier, plan its drawing (fxt_plan.h), then write the plan in slot
 * order, and leave its lifetime for a link member delivered later.
 */
static void draw_request(struct output *o, const struct model_request *r)
{
	struct fxo *x = X(o);
	struct ring_out *ro = ring_use(x, r->ring, r->submit_pid);
	struct fxt_plan_input in = { .r = r };
	struct req_threads t = { 0 };
	struct link_out *prev = NULL, *next = NULL;
	const struct op_names *on;
	struct fxt_plan p;

	if (!ro || x->oom)
		return;
	x->requests++;
	on = opnames(x, r->opcode);
	in.life = fxt_plan_lifetime(r, x->meta.start_ns, x->meta.end_ns);
	if (!in.life.start) {
		x->undrawable++;
		return;
	}
	if (!in_range(x, in.life.end))
		return;
	in.lane = place_lane(x, ro, in.life.start, in.life.end, &in.lane_th);
	if (x->oom)
		return;
	if (r->link_prev) {
		prev = hmap_del(&x->links, r->id, 0);
		if (prev && prev->is_pred)
			in.pred = &prev->d;
	}
	if (r->link_next) {
		next = hmap_get(&x->links, r->link_next, 0);
		if (next && !next->is_pred) {
			hmap_del(&x->links, r->link_next, 0);
			in.succ = &next->d;
		} else {
			next = NULL;
		}
	}
	admit_threads(x, r, ro, &t, &in);

	fxt_plan_request(&in, &p);
	if (p.request_flow)
		p.flow_id = new_flow(x);
	for (unsigned k = 0; k < 2; k++)
		if (p.link[k].ok)
			p.link[k].id = new_flow(x);

	late_flows(x, &p, FXT_FLOW_BEGIN);
	if (p.on[FXT_SLOT_SUBMIT]) {
		fxt_instant(x->w, rel(x, r->submit_ts), tthread(t.sub), CAT, on->submit,
			    FXT_ARGV(arg_uint("request", r->id), fxt_arg_u32("ring", ro->number),
				     arg_uint("user_data", r->user_data)));
		slot_flows(x, &p, FXT_SLOT_SUBMIT, tthread(t.sub));
	}
	if (p.on[FXT_SLOT_LANE])
		write_lifetime(x, r, &p, &in.life, on->plain);
	else
		write_lanes_full(x, r, ro, &in.life, on->plain);
	if (p.on[FXT_SLOT_WORKER])
		write_work(x, r, ro, &p, &t, on);
	if (p.on[FXT_SLOT_CQE])
		write_cqe(x, r, ro, &p, &t, on);
	late_flows(x, &p, FXT_FLOW_END);

	free(prev);
	free(next);
	if (r->link_prev && !prev)
		remember_link(x, r->id, false, &p.me);
	if (r->link_next && !next && !hmap_get(&x->links, r->link_next, 0))
		remember_link(x, r->link_next, true, &p.me);
}
/* ------------------------------------------------------------- syscalls */

/* "?" or v in decimal at p; returns the end, without snprintf's cost. */
static char *put_count(char *p, bool ok, uint32_t v)
{
	char digits[DEC_U64_MAX], *end = digits + sizeof(digits), *d;

	if (!ok) {
		*p++ = '?';
		return p;
	}
	d = dec_u64(end, v);
	memcpy(p, d, (size_t)(end - d));
	return p + (end - d);
}

#define PENDING_ARG_LEN sizeof("4294967295 -> 4294967295")

static unsigned text_cache_slot(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> (64 - TEXT_CACHE_BITS));
}

/* The cached text of key, or NULL: make it, then text_cache_keep() it. */
static const char *text_cache_get(const struct text_cache *c, uint64_t key)
{
	unsigned i = text_cache_slot(key);

	return c->text[i] && c->key[i] == key ? c->text[i] : NULL;
}

/* made, the text of key: kept and pinned when its entry is free. */
static const char *text_cache_keep(struct fxo *x, struct text_cache *c, uint64_t key,
				   const char *made)
{
	unsigned i = text_cache_slot(key);
	char *t;

	if (c->text[i])
		return made;
	t = strdup(made);
	if (!t)
		return made;
	if (fxt_writer_pin_string(x->w, t) <= 0) {
		free(t);
		return made;
	}
	c->key[i] = key;
	c->text[i] = t;
	return t;
}

static void text_cache_free(struct text_cache *c)
{
	for (unsigned i = 0; i < TEXT_CACHE_SIZE; i++)
		free(c->text[i]);
}

/* What flags_arg() gives; buf holds it when it is not kept. */
static const char *enter_flags_text(struct fxo *x, uint32_t flags, char *buf, size_t len)
{
	const char *t;

	if (!flags)
		return "none";
	t = text_cache_get(&x->enter_flags, flags);
	if (t)
		return t;
	return text_cache_keep(x, &x->enter_flags, flags,
			       format_flags(buf, len, flags, enter_flag_names));
}

static void pending_arg(struct fxo *x, struct args *v, const char *name, bool b_ok,
			uint32_t bh, uint32_t bt, bool e_ok, uint32_t eh, uint32_t et,
			char buf[PENDING_ARG_LEN])
{
	/* exact: each count + 1 (0: not known) in 32 bits, counts below 2^31 */
	uint64_t key = (uint64_t)(b_ok ? bt - bh + 1u : 0) << 32 | (e_ok ? et - eh + 1u : 0);
	bool keyed = (!b_ok || bt - bh < 1u << 31) && (!e_ok || et - eh < 1u << 31);
	const char *t;
	char *p = buf;

	if (!b_ok && !e_ok)
		return;
	t = keyed ? text_cache_get(&x->pending, key) : NULL;
	if (!t) {
		p = put_count(p, b_ok, bt - bh);
		memcpy(p, " -> ", 4);
		p = put_count(p + 4, e_ok, et - eh);
		*p = 0;
		t = keyed ? text_cache_keep(x, &x->pending, key, buf) : buf;
	}
	add(v, fxt_arg_str(name, t));
}

static void draw_syscall(struct output *o, const struct model_syscall *s)
{
	struct fxo *x = X(o);
	struct task_out *t = task_use(x, s->tid, s->pid);
	struct args v;
	char eb[32], fb[256], sq[48], cq[48];
	const char *reg;
	uint64_t end = max_u64(s->end_ts, s->begin_ts);

	if (!t || !s->begin_ts || !in_range(x, end))
		return;
	if (!fxt_span_guard_admit(&t->guard, s->begin_ts, end)) {
		x->refused_slices++;
		return;
	}
	x->syscalls++;
	v.n = 0;
	if (s->ring)
		add(&v, fxt_arg_u32("ring", s->ring->number));
	switch (s->kind) {
	case SYS_ENTER:
		add(&v, fxt_arg_i32("fd", s->fd));
		if (s->registered_ring)
			add(&v, fxt_arg_bool("registered_ring", true));
		add(&v, fxt_arg_u32("to_submit", s->to_submit));
		add(&v, fxt_arg_u32("min_complete", s->min_complete));
		add(&v, fxt_arg_str("flags", enter_flags_text(x, s->enter_flags, fb, sizeof(fb))));
		add_result(&v, "ret", s->ret, eb);
		add(&v, fxt_arg_u32("submitted", s->submitted));
		add(&v, fxt_arg_u32("completed", s->completed));
		add(&v, arg_uint("submit_ns", syscall_submit_ns(s)));
		add(&v, arg_uint("wait_ns", syscall_wait_ns(s)));
		pending_arg(x, &v, "sq_pending", s->state_begin_valid, s->sq_head[0], s->sq_tail[0],
			    s->state_end_valid, s->sq_head[1], s->sq_tail[1], sq);
		pending_arg(x, &v, "cq_pending", s->state_begin_valid, s->cq_head[0], s->cq_tail[0],
			    s->state_end_valid, s->cq_head[1], s->cq_tail[1], cq);
		break;
	case SYS_SETUP:
		if (s->params_valid) {
			add(&v, fxt_arg_u32("entries", s->entries));
			flags_arg(&v, "flags", s->setup_flags, setup_flag_names, fb, sizeof(fb));
			add(&v, fxt_arg_u32("cq_entries", s->cq_entries));
			if (s->setup_flags & (1u << 1)) {	/* IORING_SETUP_SQPOLL */
				add(&v, fxt_arg_u32("sq_thread_cpu", s->sq_thread_cpu));
				add(&v, fxt_arg_u32("sq_thread_idle_ms", s->sq_thread_idle));
			}
		}
		add_result(&v, "ret", s->ret, eb);
		break;
	case SYS_REGISTER:
		add(&v, fxt_arg_i32("fd", s->fd));
		if (s->registered_ring)
			add(&v, fxt_arg_bool("registered_ring", true));
		reg = uring_register_opcode_name(s->reg_opcode);
		if (!reg) {
			snprintf(fb, sizeof(fb), "%" PRIu32, s->reg_opcode);
			reg = fb;
		}
		add(&v, fxt_arg_str("opcode", reg));
		add(&v, fxt_arg_u32("nr_args", s->nr_args));
		add_result(&v, "ret", s->ret, eb);
		break;
	case SYS_KIND_COUNT:
		break;
	}
	if (s->events_lost)
		add(&v, fxt_arg_bool("events_lost", true));
	fxt_duration_complete(x->w, rel(x, s->begin_ts), rel(x, end), tthread(t), CAT,
			      syscall_kind_name(s->kind), v.a, v.n);
	if (s->kind == SYS_ENTER && s->wait_ts >= s->begin_ts && s->wait_ts < end)
		fxt_duration_complete(x->w, rel(x, s->wait_ts), rel(x, end), tthread(t), CAT,
				      "waiting", FXT_ARGV(fxt_arg_i32("min_events",
								      s->wait_min_events)));
}

/* ------------------------------------------------------- CQEs, markers */

static void draw_cqe(struct output *o, const struct model_cqe *c)
{
	struct fxo *x = X(o);
	struct ring_out *ro = ring_use(x, c->ring, 0);
	const char *poster = ro ? outside_poster(x, c->tid, ro, c->cflags, c->ts) : NULL;
	struct task_out *t = NULL;
	struct args v = { .n = 0 };
	struct fxt_thread th;
	const char *name = "CQE (no request)";
	char eb[32], cb[128];

	if (!ro || !in_range(x, c->ts))
		return;
	if (c->request && !poster)
		t = task_use(x, c->tid, ro->pid);
	if (c->request)
		add(&v, arg_uint("request", c->request->id));
	add(&v, fxt_arg_u32("ring", ro->number));
	add(&v, arg_uint("user_data", c->user_data));
	add_result(&v, "result", c->res, eb);
	if (c->cflags)
		flags_arg(&v, "cflags", c->cflags, cqe_flag_names, cb, sizeof(cb));
	if (c->overflowed)
		add(&v, fxt_arg_bool("overflowed", true));
	if (c->dropped)
		add(&v, fxt_arg_bool("dropped", true));
	if (poster)
		add_poster(&v, poster, c->tid);
	if (c->request)
		name = opnames(x, c->request->opcode)->more;
	else if (poster == cqe_poster_teardown)
		name = "CQE (ring teardown)";
	if (t) {
		th = tthread(t);
		if (!instant_ok(x, &t->ig, c->ts))
			return;
	} else if (!ring_track(x, ro, &th) || !instant_ok(x, &ro->ig, c->ts)) {
		return;
	}
	fxt_instant(x->w, rel(x, c->ts), th, CAT, name, v.a, v.n);
}

static void x_marker(struct output *o, const struct model_marker *m)
{
	struct fxo *x = X(o);
	struct ring_out *ro = ring_use(x, m->ring, m->pid);
	struct args v = { .n = 0 };
	struct fxt_thread th = recording_thread();
	struct fxt_instant_guard *g = &x->rec_ig;
	struct task_out *t;
	char name[96], eb[32];
	bool on_thread = m->kind == MARK_UNPAIRED_SYSCALL || !ro;

	if (!in_range(x, m->ts))
		return;
	if (m->request_id)
		add(&v, arg_uint("request", m->request_id));
	if (ro)
		add(&v, fxt_arg_u32("ring", ro->number));
	switch (m->kind) {
	case MARK_CQE_OVERFLOW:
	case MARK_CQE_DROPPED:
		snprintf(name, sizeof(name), m->kind == MARK_CQE_OVERFLOW ? "CQ overflow" :
			 "CQE dropped");
		add(&v, arg_uint("user_data", m->user_data));
		add_result(&v, "result", m->value, eb);
		break;
	case MARK_SHORT_WRITE:
		snprintf(name, sizeof(name), "short write");
		add(&v, arg_uint("file_pos", m->a));
		add(&v, arg_uint("wanted", m->b));
		add(&v, arg_uint("got", m->c));
		break;
	case MARK_REQ_FAILED:
		snprintf(name, sizeof(name), "request failed");
		add(&v, arg_uint("user_data", m->user_data));
		add_result(&v, "error", m->value, eb);
		break;
	case MARK_LINK_FAILED:
		snprintf(name, sizeof(name), "link failed");
		add(&v, arg_uint("user_data", m->user_data));
		add_result(&v, "result", m->value, eb);
		break;
	case MARK_UNPAIRED_SYSCALL:
		snprintf(name, sizeof(name), "unpaired %s", syscall_kind_name((enum syscall_kind)m->a));
		add(&v, fxt_arg_str("note", m->b ? "entry recorded, exit missing" :
				    "exit recorded, entry missing"));
		break;
	case MARK_UNMATCHED_EVENT:
		snprintf(name, sizeof(name), "unmatched %s", ev_type_name((unsigned)m->c));
		add(&v, arg_uint("user_data", m->user_data));
		break;
	default:
		snprintf(name, sizeof(name), "%s", marker_kind_name(m->kind));
		break;
	}
	if (on_thread && (t = task_use(x, m->tid, m->pid)) != NULL) {
		th = tthread(t);
		g = &t->ig;
	} else if (ro && ring_track(x, ro, &th)) {
		g = &ro->ig;
	}
	if (instant_ok(x, g, m->ts))
		fxt_instant(x->w, rel(x, m->ts), th, CAT, name, v.a, v.n);
}

static void draw_counter(struct output *o, const struct model_counter *c)
{
	struct fxo *x = X(o);
	struct ring_out *ro = ring_use(x, c->ring, 0);
	struct fxt_thread th;
	struct ring_counter *rc;

	if (!ro || !c->n || c->n > MODEL_COUNTER_MAX_SAMPLES || !in_range(x, c->ts) ||
	    !ring_track(x, ro, &th))
		return;
	rc = &ro->counter[c->kind[0]];
	if (rc->series.th.tid != th.tid || rc->series.th.pid != th.pid ||
	    rc->series.nargs != c->n || rc->kind[0] != c->kind[0] ||
	    (c->n > 1 && rc->kind[1] != c->kind[1])) {
		rc->series = (struct fxt_counter_series){ .th = th, .cat = CAT,
							  .name = ro->counter_name,
							  .nargs = c->n };
		for (unsigned i = 0; i < c->n; i++) {
			rc->kind[i] = c->kind[i];
			rc->series.arg[i] = counter_kind_name(c->kind[i]);
		}
	}
	fxt_counter_sample(x->w, &rc->series, rel(x, c->ts), c->value);
}

/* ---------------------------------------------------------------- losses */

/* The track of a CPU's losses.  Indexed: a log may name 65536 CPUs, each
 * with many loss windows, and a scan per window is quadratic. */
static struct loss_track *loss_track(struct fxo *x, unsigned cpu)
{
	uintptr_t at = (uintptr_t)hmap_get(&x->loss_index, cpu, 0);
	struct loss_track *p;

	if (at)
		return &x->loss[at - 1];
	if (x->nloss == x->losscap) {
		size_t cap = x->losscap ? x->losscap * 2 : 8;

		p = realloc(x->loss, cap * sizeof(*p));
		if (!p) {
			x->oom = true;
			return NULL;
		}
		x->loss = p;
		x->losscap = cap;
	}
	p = &x->loss[x->nloss];
	*p = (struct loss_track){ .cpu = cpu, .koid = fxt_koids_next(&x->koids) };
	if (!p->koid)
		return NULL;
	if (hmap_put(&x->loss_index, cpu, 0, (void *)(uintptr_t)(x->nloss + 1))) {
		x->oom = true;
		return NULL;
	}
	x->nloss++;
	return p;
}

static void x_loss(struct output *o, const struct model_loss *l)
{
	struct fxo *x = X(o);
	struct loss_track *lt = loss_track(x, l->cpu);
	struct args v = { .n = 0 };
	struct fxt_thread th;
	uint64_t first = l->first_ts ? l->first_ts : l->last_ts, last = max_u64(l->last_ts, first);
	char name[64], db[512];

	if (!lt || !in_range(x, first))
		return;
	if (rel(x, last) > INT64_MAX)
		last = first;
	th = FXT_THREAD(FXT_KOID_RINGSIDE, lt->koid);
	if (l->cpu == LOG_STREAM_GLOBAL)
		add(&v, fxt_arg_str("cpu", "none (not tied to a CPU)"));
	else
		add(&v, fxt_arg_u32("cpu", l->cpu));
	add(&v, fxt_arg_str("source", loss_source_name(l->source)));
	if (l->count)
		add(&v, arg_uint("count", l->count));
	else
		add(&v, fxt_arg_str("count", "unknown"));
	if (l->detail && *l->detail)
		add(&v, fxt_arg_str("detail", utf8_clean(l->detail, strlen(l->detail), db, sizeof(db))));
	if (l->count)
		snprintf(name, sizeof(name), "lost %" PRIu64 " events", l->count);
	else
		snprintf(name, sizeof(name), "events lost (count unknown)");
	/* A window that would partially overlap the previous one on this
	 * track is shown as an instant at its start (Perfetto would drop it). */
	if (last > first && (first >= lt->last_end || last <= lt->last_end)) {
		fxt_duration_complete(x->w, rel(x, first), rel(x, last), th, CAT_META, name, v.a, v.n);
		lt->last_end = max_u64(lt->last_end, last);
	} else {
		add(&v, arg_uint("window_ns", last - first));
		if (instant_ok(x, &lt->ig, first))
			fxt_instant(x->w, rel(x, first), th, CAT_META, name, v.a, v.n);
	}
	if (l->count) {
		if (!x->lost_counter_started) {
			fxt_counter(x->w, 0, recording_thread(), CAT_META, "lost events", 0,
				    FXT_ARGV(fxt_arg_u32("total", 0)));
			x->lost_counter_started = true;
		}
		x->lost_total = x->lost_total + l->count < x->lost_total ? UINT64_MAX :
				x->lost_total + l->count;
		fxt_counter(x->w, rel(x, first), recording_thread(), CAT_META, "lost events", 0,
			    FXT_ARGV(arg_int("total", x->lost_total > INT64_MAX ? INT64_MAX :
							(int64_t)x->lost_total)));
	}
}

/* ------------------------------------------------------------------ end */

static unsigned digits(uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_out *x = *(struct task_out *const *)a, *y = *(struct task_out *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *task_name(const struct task_out *t, char *buf, size_t len)
{
	if (t->task && t->task->comm[0])
		return utf8_clean(t->task->comm, EV_COMM_LEN, buf, len);
	switch (t->task ? t->task->kind : TASK_THREAD) {
	case TASK_IOWQ_WORKER: return "io-wq worker (name not recorded)";
	case TASK_SQPOLL: return "SQPOLL thread (name not recorded)";
	case TASK_KERNEL: return "kernel thread (name not recorded)";
	default: return "thread (name not recorded)";
	}
}

/* Kernel-object records for every process and thread events were written
 * on, sorted (so the file does not depend on hash order). */
static void write_names(struct fxo *x)
{
	struct task_out **tasks = NULL;
	uint64_t *pids = NULL;
	size_t nt = 0, np = 0, cap;
	struct hmap_slot *s;
	char buf[COMM_UTF8_LEN + 64], pname[512], iso[TIMEBASE_ISO_LEN];
	unsigned rw = 1, lw = 2, maxlanes = 0;

	cap = x->tasks.len + x->nrings + 1;
	tasks = calloc(x->tasks.len + 1, sizeof(*tasks));
	pids = calloc(cap, sizeof(*pids));
	if (!tasks || !pids) {
		x->oom = true;
		goto cleanup;
	}
	hmap_for_each(&x->tasks, s) {
		struct task_out *t = s->val;

		if (!t->used)
			continue;
		tasks[nt++] = t;
		pids[np++] = t->pid;
	}
	for (size_t i = 0; i < x->nrings; i++) {
		if (!x->rings[i])
			continue;
		if (x->rings[i]->track || x->rings[i]->lanes.n)
			pids[np++] = x->rings[i]->pid;
		rw = digits(i);
		if (x->rings[i]->lanes.n > maxlanes)
			maxlanes = x->rings[i]->lanes.n;
	}
	if (maxlanes > 1 && digits(maxlanes - 1) > lw)
		lw = digits(maxlanes - 1);
	if (nt)
		qsort(tasks, nt, sizeof(*tasks), cmp_task);
	if (np)
		qsort(pids, np, sizeof(*pids), cmp_u64);

	/* processes */
	snprintf(pname, sizeof(pname), "ringside recording: %s%s%s, Linux %s",
		 *x->meta.hostname ? x->meta.hostname : "unknown host",
		 *timebase_iso(x->meta.tb, x->meta.start_ns, iso) ? ", " : "", iso,
		 *x->meta.kernel_release ? x->meta.kernel_release : "?");
	fxt_name_process(x->w, FXT_KOID_RINGSIDE, pname, NULL, 0);
	for (size_t i = 0; i < np; i++) {
		struct task_out *main_t;
		const char *n = NULL;

		if (i && pids[i] == pids[i - 1])
			continue;
		if (pids[i] == FXT_KOID_RINGSIDE)
			continue;
		main_t = pids[i] <= UINT32_MAX ? hmap_get(&x->tasks, pids[i], 0) : NULL;
		if (main_t && main_t->task && main_t->task->comm[0])
			n = utf8_clean(main_t->task->comm, EV_COMM_LEN, buf, sizeof(buf));
		for (size_t k = 0; !n && k < nt; k++)
			if (tasks[k]->pid == pids[i] && tasks[k]->task && tasks[k]->task->comm[0] &&
			    tasks[k]->task->kind == TASK_THREAD)
				n = utf8_clean(tasks[k]->task->comm, EV_COMM_LEN, buf, sizeof(buf));
		if (!n) {
			snprintf(buf, sizeof(buf), "process %" PRIu64, pids[i]);
			n = buf;
		}
		fxt_name_process(x->w, pids[i], n, NULL, 0);
	}

	/* threads of the recording */
	for (size_t i = 0; i < nt; i++)
		fxt_name_thread(x->w, tthread(tasks[i]), task_name(tasks[i], buf, sizeof(buf)), NULL, 0);

	/* rings and their lanes */
	for (size_t i = 0; i < x->nrings; i++) {
		struct ring_out *ro = x->rings[i];
		char label[64];

		if (!ro)
			continue;
		if (ro->ring->fd >= 0)
			snprintf(label, sizeof(label), "ring %0*u (fd %" PRId32 ")", (int)rw, ro->number,
				 ro->ring->fd);
		else
			snprintf(label, sizeof(label), "ring %0*u", (int)rw, ro->number);
		if (ro->track)
			fxt_name_thread(x->w, FXT_THREAD(ro->pid, ro->track), label, NULL, 0);
		for (unsigned k = 0; k < ro->lanes.n; k++) {
			snprintf(buf, sizeof(buf), "%s lane %0*u", label, (int)lw, k);
			fxt_name_thread(x->w, FXT_THREAD(ro->pid, ro->lanes.koid[k]), buf, NULL, 0);
		}
	}

	/* the ringside process */
	fxt_name_thread(x->w, recording_thread(), "recording", NULL, 0);
	for (size_t i = 0; i < x->nloss; i++) {
		if (x->loss[i].cpu == LOG_STREAM_GLOBAL)
			snprintf(buf, sizeof(buf), "lost events (no CPU)");
		else
			snprintf(buf, sizeof(buf), "lost events cpu %0*u",
				 (int)digits(x->meta.ncpus ? x->meta.ncpus - 1 : 0), x->loss[i].cpu);
		fxt_name_thread(x->w, FXT_THREAD(FXT_KOID_RINGSIDE, x->loss[i].koid), buf, NULL, 0);
	}
cleanup:
	free(tasks);
	free(pids);
}

static void end_markers(struct fxo *x, const struct output_totals *t)
{
	uint64_t ts = rel(x, x->meta.end_ns) > INT64_MAX ? INT64_MAX : rel(x, x->meta.end_ns);
	struct args v = { .n = 0 };
	size_t nw = t->nwarnings < MAX_WARNING_MARKERS ? t->nwarnings : MAX_WARNING_MARKERS;
	char buf[1024], sb[1024];	/* not one: both can be arguments of one event */

	add(&v, arg_uint("records", t->records));
	add(&v, arg_uint("lost_events", t->lost_events));
	add(&v, arg_uint("loss_windows", t->loss_windows));
	add(&v, arg_uint("damaged_frames", t->damaged_frames));
	add(&v, arg_uint("frame_gaps", t->frame_gaps));
	add(&v, fxt_arg_str("stopped", t->stop == LOG_STOP_END ?
			    (*t->end_reason ? t->end_reason : "cleanly") : "not cleanly"));
	if (t->stop != LOG_STOP_END)
		add(&v, fxt_arg_str("stop_message", utf8_clean(t->stop_message, strlen(t->stop_message),
							       sb, sizeof(sb))));
	add(&v, arg_uint("requests", x->requests));
	add(&v, arg_uint("requests_not_on_lanes", x->no_lane));
	add(&v, arg_uint("syscalls", x->syscalls));
	add(&v, arg_uint("unpaired_syscalls", t->unpaired_syscalls));
	add(&v, arg_uint("cqes_of_no_request", t->aux_cqes));
	add(&v, arg_uint("unmatched_events", t->unmatched_events));
	add(&v, arg_uint("warnings", t->nwarnings));
	if (x->refused_slices || x->refused_instants || x->undrawable || x->out_of_range) {
		snprintf(buf, sizeof(buf), "%" PRIu64 " slices that would partially overlap another on "
			 "their thread (Perfetto would drop one), %" PRIu64 " instants past %u at one "
			 "time on one track (Perfetto would drop them), %" PRIu64
			 " requests without timestamps, %" PRIu64 " events more than 2^63 ns after "
			 "the start", x->refused_slices, x->refused_instants, FXT_INSTANT_RUN,
			 x->undrawable, x->out_of_range);
		add(&v, fxt_arg_str("not_drawn", buf));
	}
	fxt_instant(x->w, ts, recording_thread(), CAT_META, "recording end", v.a, v.n);
	if (t->read_to_ns)
		fxt_instant(x->w, rel(x, t->read_to_ns), recording_thread(), CAT_META,
			    "log read to here",
			    FXT_ARGV(fxt_arg_str("why", "all that --end needed: records, tasks and "
						 "rings are counted to here")));
	for (size_t i = 0; i < nw; i++)
		fxt_instant(x->w, ts, recording_thread(), CAT_META, "warning",
			    FXT_ARGV(fxt_arg_str("message", utf8_clean(t->warnings[i],
								      strlen(t->warnings[i]),
								      buf, sizeof(buf)))));
	if (t->nwarnings > nw) {
		snprintf(buf, sizeof(buf), "%zu more warnings (see uring-convert's standard error)",
			 t->nwarnings - nw);
		fxt_instant(x->w, ts, recording_thread(), CAT_META, "warning",
			    FXT_ARGV(fxt_arg_str("message", buf)));
	}
}

/* bytes as "1.4 GiB", "512 MiB" or "64 KiB". */
static const char *size_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1ull << 30)
		snprintf(buf, len, "%.1f GiB", bytes / (double)(1ull << 30));
	else if (bytes >= 1ull << 20)
		snprintf(buf, len, "%" PRIu64 " MiB", bytes >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
	return buf;
}

/*
 * A trace too large for the UI in a browser: how to open it, and an
 * --end that keeps what began in the first spans, up to 9/10 of the size
 * (the requests in flight then are written too, and the names).
 */
static void large_warning(const struct fxo *x, const char *path, uint64_t bytes)
{
	char cut[128] = "", size[32], most[32];
	uint64_t sum = 0, ns;
	size_t n = 0;

	if (x->cfg.quiet || bytes <= output_fxt_large_bytes)
		return;
	while (n < SIZE_SPANS && sum + x->span_bytes[n] <= output_fxt_large_bytes / 10 * 9)
		sum += x->span_bytes[n++];
	if (n && n < SIZE_SPANS) {
		ns = ((uint64_t)n << x->span_shift) - 1;
		snprintf(cut, sizeof(cut), ", or convert less: --end=+%" PRIu64 ".%06" PRIu64
			 "s keeps it under %s", ns / 1000000000, ns / 1000 % 1000000,
			 size_text(output_fxt_large_bytes, most, sizeof(most)));
	}
	fprintf(stderr, "uring-convert: warning: %s: %s of FXT, more than Perfetto's UI may hold in a browser: open it with trace_processor --httpd (uring-convert(1), FXT OUTPUT)%s\n",
		path, size_text(bytes, size, sizeof(size)), cut);
}

static int x_end(struct output *o, const struct output_totals *t, char *err, size_t errlen)
{
	struct fxo *x = X(o);
	const char *path = x->is_stdout ? "standard output" : x->cfg.path;
	struct fxt_writer_stats st;
	int r, e;

	end_markers(x, t);
	write_names(x);
	if (x->oom) {
		snprintf(err, errlen, "out of memory while writing FXT");
		return -1;
	}
	if (!x->cfg.quiet) {
		for (size_t i = 0; i < x->nrings; i++) {
			const struct ring_out *ro = x->rings[i];

			if (ro && ro->no_lane)
				fprintf(stderr, "uring-convert: warning: ring %u (pid %" PRIu64 "): %" PRIu64
					" requests found all %u lanes busy; they are drawn as \"lanes full\" markers on the ring's track, not as slices (raise --lanes)\n",
					ro->number, ro->pid, ro->no_lane, ro->lanes.max);
		}
		if (x->refused_slices)
			fprintf(stderr, "uring-convert: warning: %" PRIu64 " io-wq or system-call slices would partially overlap another on their thread (a damaged or approximate log): not drawn\n",
				x->refused_slices);
		if (x->out_of_range)
			fprintf(stderr, "uring-convert: warning: %" PRIu64 " events more than 2^63 ns (292 years) after the recording start (a damaged log): not drawn\n",
				x->out_of_range);
		if (x->refused_instants)
			fprintf(stderr, "uring-convert: warning: %" PRIu64 " markers past %u at one nanosecond on one track (a damaged log): not drawn\n",
				x->refused_instants, FXT_INSTANT_RUN);
	}
	fxt_writer_get_stats(x->w, &st);
	r = fxt_writer_close(x->w);
	x->w = NULL;
	e = out_buf_close(&x->out);
	if (!r)
		r = -e;
	if (r) {
		snprintf(err, errlen, "%s: write error: %s", path, strerror(-r));
		return -1;
	}
	if (st.refused) {
		/* A record the writer refused is a bug here, not in the log. */
		snprintf(err, errlen, "%s: internal error: %" PRIu64 " FXT records were refused",
			 path, st.refused);
		return -1;
	}
	large_warning(x, path, st.bytes);
	return 0;
}

static void x_destroy(struct output *o)
{
	struct fxo *x = X(o);
	struct hmap_slot *s;

	if (x->w)
		fxt_writer_free(x->w);
	out_buf_close(&x->out);
	hmap_for_each(&x->tasks, s)
		free(s->val);
	hmap_free(&x->tasks);
	hmap_for_each(&x->links, s)
		free(s->val);
	hmap_free(&x->links);
	for (size_t i = 0; i < x->nrings; i++) {
		if (!x->rings[i])
			continue;
		fxt_lanes_free(&x->rings[i]->lanes);
		free(x->rings[i]);
	}
	free(x->rings);
	free(x->loss);
	hmap_free(&x->loss_index);
	text_cache_free(&x->enter_flags);
	text_cache_free(&x->pending);
	for (size_t i = 0; i < x->nfile_text; i++)
		free(x->file_text[i]);
	free(x->file_text);
	free(x);
}

/*
 * The bytes drawn since the last call go to the span of the time this
 * one began at: what --end keeps (large_warning()).
 */
static void span_add(struct fxo *x, uint64_t ts)
{
	uint64_t s = rel(x, ts) >> x->span_shift, bytes = fxt_writer_bytes(x->w);

	x->span_bytes[s < SIZE_SPANS ? s : SIZE_SPANS - 1] += bytes - x->spanned;
	x->spanned = bytes;
}

static void x_request(struct output *o, const struct model_request *r)
{
	draw_request(o, r);
	span_add(X(o), r->submit_ts);
}

static void x_syscall(struct output *o, const struct model_syscall *s)
{
	draw_syscall(o, s);
	span_add(X(o), s->begin_ts);
}

static void x_cqe(struct output *o, const struct model_cqe *c)
{
	draw_cqe(o, c);
	span_add(X(o), c->ts);
}

static void x_counter(struct output *o, const struct model_counter *c)
{
	draw_counter(o, c);
	span_add(X(o), c->ts);
}

static const struct output_ops fxt_ops = {
	.name = "fxt",
	.begin = x_begin,
	.task = x_task,
	/* .ring: rings are taken when first drawn on (the pointer stays valid
	 * and holds the final state in end()). */
	.request = x_request,
	.syscall = x_syscall,
	.cqe = x_cqe,
	.loss = x_loss,
	.marker = x_marker,
	.counter = x_counter,
	.end = x_end,
	.destroy = x_destroy,
};

struct output *output_fxt_new(const struct output_config *cfg, unsigned max_lanes,
			      char *err, size_t errlen)
{
	struct fxo *x;

	if ((!cfg->path || !strcmp(cfg->path, "-")) && isatty(STDOUT_FILENO)) {
		snprintf(err, errlen, "--format=fxt writes a binary file: give -o FILE (or redirect standard output)");
		return NULL;
	}
	if (max_lanes < 1 || max_lanes > FXT_LANES_MAX) {
		snprintf(err, errlen, "--lanes %u: must be 1 to %u", max_lanes, FXT_LANES_MAX);
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->base.ops = &fxt_ops;
	x->cfg = *cfg;
	x->max_lanes = max_lanes;
	hmap_init(&x->tasks);
	hmap_init(&x->links);
	hmap_init(&x->loss_index);
	return &x->base;
}
