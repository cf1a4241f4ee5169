// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert --format=fxt on synthetic logs, read back with the
 * independent reader tests/fxt_reader (which replays Perfetto's slice
 * stacks and flow binding): every path (inline, task work, io-wq exact and
 * approximate, poll, failed, drained), SQPOLL, several processes, rings and
 * threads, chains with a failure, multishot and aux CQEs, CQ overflow,
 * losses, requests in flight at both ends, the lane limit, a randomized
 * mix, the lane allocator and span guard on their own, the command line,
 * and a byte-exact golden file (tests/golden/convert_fxt.fxt; regenerate on
 * purpose with RINGSIDE_REGENERATE_GOLDEN=1 make check
 * TESTS=tests/check_fxt_output, then look at it with fxtcheck).
 *
 * Every conversion is checked for the same invariants (check_clean): zero
 * reader issues (nothing Perfetto would drop or misplace: partial
 * overlaps, unbound or stale flows, unnamed threads, pid mismatches, ...),
 * lifetimes on each lane pairwise disjoint, every flow begun, ended, with
 * at least two points, each bound to a slice, and flow ids unique.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert_test.h"
#include "fxt_layout.h"
#include "fxt_plan.h"
#include "fxt_reader.h"
#include "options.h"
#include "test_util.h"

extern char **environ;

#define RING 0x1000
#define RING2 0x2000
#define RING3 0x3000
#define PID 100
#define TID 100
#define TID2 101
#define PID_B 200
#define TID_B 200
#define WORKER 150
#define WORKER2 151
#define SQTHREAD 160
#define OP_NOP 0
#define OP_READ 22
#define OP_WRITE 23
#define OP_RECV 27
#define OP_ACCEPT 13
#define IOSQE_IO_DRAIN 2
#define IOSQE_IO_LINK 4
#define IOSQE_ASYNC 16
#define CQE_F_MORE 2
#define US 1000ull
#define MS 1000000ull

/* ------------------------------------------------------------ helpers */

struct conv {
	struct fxtr_model *m;
	char *dir, *path;		/* the .fxt */
};

static void conv_free(struct conv *c)
{
	fxtr_free(c->m);
	test_rmtree(c->dir);
	free(c->dir);
	free(c->path);
}

/* Convert log (with extra options: lanes, selection) to FXT in-process. */
static void convert_fxt(const char *log, const struct options *extra, struct conv *c)
{
	struct options o = { 0 };
	struct output_config cfg = { 0 };
	struct output *out;
	char err[512];

	if (extra)
		o = *extra;
	o.log_path = log;
	o.quiet = true;
	c->dir = test_tmpdir();
	c->path = test_path(c->dir, "out.fxt");
	cfg.path = c->path;
	cfg.quiet = true;
	out = output_fxt_new(&cfg, o.lanes ? o.lanes : FXT_LANES_DEFAULT, err, sizeof(err));
	ck_assert_msg(out != NULL, "%s", err);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	ck_assert_msg(fxtr_read_file(c->path, &c->m, err, sizeof(err)) == 0, "%s", err);
}

static const struct fxtr_thread *thread_named(const struct fxtr_model *m, const char *name)
{
	const struct fxtr_thread *found = NULL;

	for (size_t i = 0; i < m->nthreads; i++) {
		if (m->threads[i].name && !strcmp(m->threads[i].name, name)) {
			ck_assert_msg(!found, "two threads named \"%s\"", name);
			found = &m->threads[i];
		}
	}
	ck_assert_msg(found != NULL, "no thread named \"%s\"", name);
	return found;
}

static bool is_lane(const struct fxtr_model *m, uint64_t pid, uint64_t tid)
{
	const struct fxtr_thread *t = fxtr_find_thread(m, pid, tid);

	return t && t->name && strstr(t->name, " lane ");
}

static size_t count_named(const struct fxtr_model *m, uint64_t pid, uint64_t tid, const char *name)
{
	return fxtr_count_slices(m, pid, tid, name);
}

/* Slices (any depth) with this name on every thread of pid. */
static size_t count_in_process(const struct fxtr_model *m, uint64_t pid, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nslices; i++)
		if (m->slices[i].pid == pid && !strcmp(m->slices[i].name, name))
			n++;
	return n;
}

/* Top-level slices on the lanes of ring label ("ring 1 (fd 3)"). */
static size_t lane_lifetimes(const struct fxtr_model *m, const char *ring_label, size_t *lanes)
{
	size_t n = 0, len = strlen(ring_label);

	*lanes = 0;
	for (size_t t = 0; t < m->nthreads; t++) {
		const struct fxtr_thread *th = &m->threads[t];

		if (!th->name || strncmp(th->name, ring_label, len) || strncmp(th->name + len, " lane ", 6))
			continue;
		(*lanes)++;
		for (size_t i = 0; i < m->nslices; i++)
			if (m->slices[i].pid == th->pid && m->slices[i].tid == th->tid &&
			    m->slices[i].depth == 0)
				n++;
	}
	return n;
}

static const char *flow_kind(const struct fxtr_model *m, const struct fxtr_flow *f)
{
	return m->records[f->points[0].record].name;
}

/*
 * What Perfetto would show, and what must never happen.  Returns the
 * number of "request" flows.
 */
static size_t check_clean(const struct fxtr_model *m)
{
	size_t requests = 0;

	if (m->nissues) {
		fxtr_print_issues(m, stderr);
		ck_abort_msg("%zu reader issues (first: %s)", m->nissues, m->issues[0].message);
	}
	ck_assert_uint_eq(m->ticks_per_second, 1000000000ull);
	/* Lanes: top-level lifetimes pairwise disjoint (touching allowed). */
	for (size_t t = 0; t < m->nthreads; t++) {
		const struct fxtr_thread *th = &m->threads[t];
		int64_t last_end = INT64_MIN;

		if (!is_lane(m, th->pid, th->tid))
			continue;
		ck_assert_msg(th->pid < 0x40000000 || th->pid == FXT_KOID_RINGSIDE, "lane of pid %llu",
			      (unsigned long long)th->pid);
		ck_assert_msg(th->tid >= FXT_KOID_FIRST && th->tid <= FXT_KOID_LAST, "lane koid %llu",
			      (unsigned long long)th->tid);
		for (size_t i = 0; i < m->nslices; i++) {
			const struct fxtr_slice *s = &m->slices[i];

			if (s->pid != th->pid || s->tid != th->tid || s->depth)
				continue;
			ck_assert_msg(s->ts >= last_end, "lane \"%s\": \"%s\" at %lld overlaps the previous lifetime (ends %lld)",
				      th->name, s->name, (long long)s->ts, (long long)last_end);
			ck_assert_int_ge(s->dur, 0);
			last_end = s->ts + s->dur;
		}
	}
	/* Flows: begun, ended, bound; ids unique. */
	for (size_t i = 0; i < m->nflows; i++) {
		const struct fxtr_flow *f = &m->flows[i];

		ck_assert_msg(f->ended, "flow %llu never ends", (unsigned long long)f->id);
		ck_assert_uint_ge(f->npoints, 2);
		ck_assert_int_eq(f->points[0].type, FXTR_EV_FLOW_BEGIN);
		ck_assert_int_eq(f->points[f->npoints - 1].type, FXTR_EV_FLOW_END);
		for (size_t k = 0; k < f->npoints; k++)
			ck_assert_uint_ne(f->points[k].slice, FXTR_NONE);
		for (size_t j = 0; j < i; j++)
			ck_assert_uint_ne(m->flows[j].id, f->id);
		if (!strcmp(flow_kind(m, f), "request"))
			requests++;
		else
			ck_assert_str_eq(flow_kind(m, f), "link");
	}
	ck_assert_uint_eq(m->event_counts[FXTR_EV_FLOW_BEGIN], m->nflows);
	ck_assert_uint_eq(m->event_counts[FXTR_EV_FLOW_END], m->nflows);
	/* Every thread with events is named, and so is its process. */
	for (size_t t = 0; t < m->nthreads; t++) {
		ck_assert_ptr_nonnull(m->threads[t].name);
		ck_assert_ptr_nonnull(fxtr_find_process(m, m->threads[t].pid));
		ck_assert_ptr_nonnull(fxtr_find_process(m, m->threads[t].pid)->name);
	}
	return requests;
}

/* "thread:slice > thread:slice > ..." (lane threads shown as "lane"). */
static char *describe(const struct fxtr_model *m, const struct fxtr_flow *f)
{
	static char buf[2048];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < f->npoints && off < sizeof(buf); k++) {
		const struct fxtr_slice *s = &m->slices[f->points[k].slice];
		const struct fxtr_thread *t = fxtr_find_thread(m, s->pid, s->tid);
		const char *tn = is_lane(m, s->pid, s->tid) ? "lane" : t->name;

		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%s", k ? " > " : "", tn,
					s->name);
	}
	return buf;
}

static bool slice_has_ud(const struct fxtr_model *m, const struct fxtr_slice *s, uint64_t ud)
{
	const struct fxtr_arg *a = fxtr_slice_arg(m, s, "user_data");

	return a && a->u == ud;
}

/* The request flow of the request with this user_data, or NULL. */
static const struct fxtr_flow *request_flow(const struct fxtr_model *m, uint64_t ud)
{
	for (size_t i = 0; i < m->nflows; i++) {
		const struct fxtr_flow *f = &m->flows[i];

		if (strcmp(flow_kind(m, f), "request"))
			continue;
		for (size_t k = 0; k < f->npoints; k++)
			if (slice_has_ud(m, &m->slices[f->points[k].slice], ud))
				return f;
	}
	return NULL;
}

static const char *request_path(const struct fxtr_model *m, uint64_t ud)
{
	const struct fxtr_flow *f = request_flow(m, ud);

	ck_assert_msg(f != NULL, "no request flow for user_data %llu", (unsigned long long)ud);
	return describe(m, f);
}

/* The slice or the lifetime it is a step of carries user_data ud. */
static bool in_lifetime_of(const struct fxtr_model *m, size_t slice, uint64_t ud)
{
	for (; slice != FXTR_NONE; slice = m->slices[slice].parent)
		if (slice_has_ud(m, &m->slices[slice], ud))
			return true;
	return false;
}

/* The link flow that starts on the lifetime of user_data (or a step of it). */
static const struct fxtr_flow *link_flow_from(const struct fxtr_model *m, uint64_t ud)
{
	for (size_t i = 0; i < m->nflows; i++) {
		const struct fxtr_flow *f = &m->flows[i];

		if (!strcmp(flow_kind(m, f), "link") && in_lifetime_of(m, f->points[0].slice, ud))
			return f;
	}
	return NULL;
}

/* The lifetime of user_data on its lane (top level), or NULL. */
static const struct fxtr_slice *lifetime(const struct fxtr_model *m, uint64_t ud)
{
	const struct fxtr_slice *found = NULL;

	for (size_t i = 0; i < m->nslices; i++) {
		const struct fxtr_slice *s = &m->slices[i];

		if (s->depth || !is_lane(m, s->pid, s->tid) || !slice_has_ud(m, s, ud))
			continue;
		ck_assert_msg(!found, "two lifetimes for user_data %llu", (unsigned long long)ud);
		found = s;
	}
	return found;
}

static const char *str_arg(const struct fxtr_model *m, const struct fxtr_slice *s, const char *name)
{
	const struct fxtr_arg *a = fxtr_slice_arg(m, s, name);

	ck_assert_msg(a && a->type == FXTR_ARG_STRING, "slice \"%s\": no string arg %s", s->name, name);
	return a->str;
}

static int64_t int_arg(const struct fxtr_model *m, const struct fxtr_slice *s, const char *name)
{
	const struct fxtr_arg *a = fxtr_slice_arg(m, s, name);

	ck_assert_msg(a != NULL, "slice \"%s\": no arg %s", s->name, name);
	switch (a->type) {
	case FXTR_ARG_INT32:
	case FXTR_ARG_INT64:
		return a->i;
	case FXTR_ARG_UINT32:
	case FXTR_ARG_UINT64:
		return (int64_t)a->u;
	default:
		ck_abort_msg("arg %s is not an integer", name);
	}
	return 0;
}

static int64_t rel_us(uint64_t us)
{
	/* T0 is the first record in these logs: the recording starts there
	 * unless the clock snapshot is earlier (it is 1 s). */
	return (int64_t)(T0 + us * US - 1000000000ull);
}

static void emit_sched_in(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid)
{
	struct ev_sched_switch sw = { SYNTH_HDR(EV_SCHED_SWITCH, ts, 0, 0), .next_tid = tid,
				      .next_tgid = pid };

	synth_emit(sc->s, sc->cpu, &sw, sizeof(sw));
}

/* ------------------------------------------------------------- paths */

/* One thread, one worker: inline, task work, io-wq exact and approximate,
 * poll, a failed request and a drained one, in two enter calls. */
static void write_paths_log(struct scen *sc)
{
	ev_task(sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, TID, PID, RING, 3, 0);
	ev_enter_begin(sc, T0 + 10 * US, TID, PID, RING, 3, 3, 3, 1);
	ev_submit(sc, T0 + 11 * US, TID, PID, RING, 0xa1, OP_NOP, 1, 0, 0);
	ev_submit(sc, T0 + 12 * US, TID, PID, RING, 0xa2, OP_READ, 2, 0, 0);
	ev_submit(sc, T0 + 13 * US, TID, PID, RING, 0xa3, OP_WRITE, 3, IOSQE_ASYNC, 0);
	ev_req(sc, EV_QUEUE_ASYNC_WORK, T0 + 13 * US + 500, TID, PID, RING, 0xa3, 3);
	ev_complete(sc, T0 + 14 * US, TID, PID, RING, 0xa1, 1, 0, 0);
	ev_cqring_wait(sc, T0 + 17 * US, TID, PID, RING, 2);
	ev_work(sc, true, T0 + 20 * US, WORKER, PID, RING, 0xa3);
	ev_complete(sc, T0 + 25 * US, WORKER, PID, RING, 0xa3, 3, 4096, 0);
	ev_work(sc, false, T0 + 26 * US, WORKER, PID, RING, 0xa3);
	ev_complete(sc, T0 + 30 * US, TID, PID, RING, 0xa2, 2, 512, 0);
	ev_tw_run(sc, T0 + 31 * US, TID, PID, 1);
	ev_enter_end(sc, T0 + 40 * US, TID, PID, RING, 3);

	ev_enter_begin(sc, T0 + 49 * US, TID, PID, RING, 3, 5, 3, 1);
	ev_submit(sc, T0 + 50 * US, TID, PID, RING, 0xa4, OP_WRITE, 4, IOSQE_ASYNC, 0);
	ev_req(sc, EV_QUEUE_ASYNC_WORK, T0 + 51 * US, TID, PID, RING, 0xa4, 4);
	ev_submit(sc, T0 + 52 * US, TID, PID, RING, 0xa5, OP_RECV, 5, 0, 0);
	ev_req(sc, EV_POLL_ARM, T0 + 53 * US, TID, PID, RING, 0xa5, 5);
	ev_req_failed(sc, T0 + 54 * US, TID, PID, RING, 0xa6, OP_READ, 6, -9);
	ev_complete(sc, T0 + 55 * US, TID, PID, RING, 0xa6, 6, -9, 0);
	ev_submit(sc, T0 + 56 * US, TID, PID, RING, 0xa7, OP_NOP, 7, IOSQE_IO_DRAIN, 0);
	ev_req(sc, EV_DEFER, T0 + 57 * US, TID, PID, RING, 0xa7, 7);
	ev_cqring_wait(sc, T0 + 58 * US, TID, PID, RING, 3);
	emit_sched_in(sc, T0 + 60 * US, WORKER, PID);
	ev_complete(sc, T0 + 90 * US, WORKER, PID, RING, 0xa4, 4, 4096, 0);
	ev_req(sc, EV_TASK_ADD, T0 + 150 * US, 0, 0, RING, 0xa5, 5);
	ev_complete(sc, T0 + 151 * US, TID, PID, RING, 0xa5, 5, 100, 0);
	ev_complete(sc, T0 + 152 * US, TID, PID, RING, 0xa7, 7, 0, 0);
	ev_tw_run(sc, T0 + 153 * US, TID, PID, 2);
	ev_enter_end(sc, T0 + 200 * US, TID, PID, RING, 5);
}

START_TEST(test_paths)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *app, *wrk;
	const struct fxtr_slice *s, *enter;
	size_t lanes;

	scen_open(&sc, "paths.log");
	write_paths_log(&sc);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	/* 7 requests; the failed one ends at its error CQE: 7 flows. */
	ck_assert_uint_eq(check_clean(m), 7);
	ck_assert_str_eq(request_path(m, 1), "app:submit NOP > lane:NOP > app:CQE NOP");
	ck_assert_str_eq(request_path(m, 2), "app:submit READ > lane:READ > app:CQE READ");
	ck_assert_str_eq(request_path(m, 3),
			 "app:submit WRITE > lane:WRITE > lane:io-wq queue > iou-wrk-100:WRITE > iou-wrk-100:CQE WRITE");
	ck_assert_str_eq(request_path(m, 4),
			 "app:submit WRITE > lane:WRITE > lane:io-wq queue > iou-wrk-100:WRITE (approx) > iou-wrk-100:CQE WRITE");
	ck_assert_str_eq(request_path(m, 5),
			 "app:submit RECV > lane:RECV > lane:poll wait > app:CQE RECV");
	ck_assert_str_eq(request_path(m, 6), "app:submit READ > lane:READ > app:CQE READ");
	ck_assert_str_eq(request_path(m, 7), "app:submit NOP > lane:NOP > app:CQE NOP");
	ck_assert_uint_eq(m->arrows, 4 * 2 + 2 * 4 + 3);

	/* Names and pids: the "process" arg matches the events' pid. */
	app = thread_named(m, "app");
	wrk = thread_named(m, "iou-wrk-100");
	ck_assert_uint_eq(app->pid, PID);
	ck_assert_uint_eq(app->tid, TID);
	ck_assert_uint_eq(wrk->pid, PID);
	ck_assert_str_eq(fxtr_find_process(m, PID)->name, "app");
	ck_assert_uint_eq(lane_lifetimes(m, "ring 1 (fd 3)", &lanes), 7);

	/* The application thread: 2 enter slices, each with a "waiting"
	 * child; 7 submit and 5 CQE anchors inside them. */
	ck_assert_uint_eq(count_named(m, PID, TID, "io_uring_enter"), 2);
	ck_assert_uint_eq(count_named(m, PID, TID, "waiting"), 2);
	ck_assert_uint_eq(app->nslices, 2 + 2 + 7 + 5);
	enter = fxtr_find_slice(m, PID, TID, "io_uring_enter", 0);
	ck_assert_int_eq(enter->ts, rel_us(10));
	ck_assert_int_eq(enter->dur, 30 * US);
	ck_assert_int_eq(int_arg(m, enter, "submitted"), 3);
	ck_assert_int_eq(int_arg(m, enter, "completed"), 3);
	ck_assert_int_eq(int_arg(m, enter, "to_submit"), 3);
	ck_assert_int_eq(int_arg(m, enter, "min_complete"), 3);
	ck_assert_int_eq(int_arg(m, enter, "ret"), 3);
	ck_assert_int_eq(int_arg(m, enter, "submit_ns"), 7 * US);
	ck_assert_int_eq(int_arg(m, enter, "wait_ns"), 23 * US);
	ck_assert_str_eq(str_arg(m, enter, "flags"), "GETEVENTS");
	ck_assert_str_eq(str_arg(m, enter, "sq_pending"), "3 -> ?");
	s = fxtr_find_slice(m, PID, TID, "waiting", 0);
	ck_assert_int_eq(s->ts, rel_us(17));
	ck_assert_uint_eq(s->depth, 1);
	/* Anchors nest in the enter slice (submissions in the submitting
	 * part, completions in the wait). */
	s = fxtr_find_slice(m, PID, TID, "submit NOP", 0);
	ck_assert_uint_eq(s->depth, 1);
	ck_assert_int_eq(s->dur, 0);
	s = fxtr_find_slice(m, PID, TID, "CQE READ", 0);
	ck_assert_uint_eq(s->depth, 2);

	/* io-wq: the exact work and the approximate one. */
	ck_assert_uint_eq(count_named(m, PID, WORKER, "WRITE"), 1);
	ck_assert_uint_eq(count_named(m, PID, WORKER, "WRITE (approx)"), 1);
	s = fxtr_find_slice(m, PID, WORKER, "WRITE", 0);
	ck_assert_int_eq(s->ts, rel_us(20));
	ck_assert_int_eq(s->dur, 6 * US);
	ck_assert_int_eq(int_arg(m, s, "queued_ns"), 6500);
	s = fxtr_find_slice(m, PID, WORKER, "WRITE (approx)", 0);
	ck_assert_int_eq(s->ts, rel_us(60));	/* switched in after the queueing */
	ck_assert_int_eq(s->dur, 30 * US);
	ck_assert_ptr_nonnull(strstr(str_arg(m, s, "approximate"), "inferred"));

	/* Lifetimes: span submission to completion; args; phases. */
	s = lifetime(m, 3);
	ck_assert_int_eq(s->ts, rel_us(13));
	ck_assert_int_eq(s->dur, 12 * US);
	ck_assert_str_eq(s->name, "WRITE");
	ck_assert_str_eq(str_arg(m, s, "path"), "io-wq");
	ck_assert_str_eq(str_arg(m, s, "status"), "complete");
	ck_assert_str_eq(str_arg(m, s, "sqe_flags"), "ASYNC");
	ck_assert_int_eq(int_arg(m, s, "result"), 4096);
	ck_assert_int_eq(int_arg(m, s, "fd"), 5);
	ck_assert_int_eq(int_arg(m, s, "offset"), 4096);
	ck_assert_int_eq(int_arg(m, s, "length"), 512);
	ck_assert_uint_eq(count_in_process(m, PID, "issue"), 4);	/* a3 a4 a5 a7 */
	ck_assert_uint_eq(count_in_process(m, PID, "io-wq queue"), 2);
	ck_assert_uint_eq(count_in_process(m, PID, "io-wq run"), 1);
	ck_assert_uint_eq(count_in_process(m, PID, "io-wq run (approx)"), 1);
	ck_assert_uint_eq(count_in_process(m, PID, "poll wait"), 1);
	ck_assert_uint_eq(count_in_process(m, PID, "task work"), 1);
	ck_assert_uint_eq(count_in_process(m, PID, "drain wait"), 1);
	s = lifetime(m, 6);
	ck_assert_str_eq(str_arg(m, s, "path"), "failed");
	ck_assert_str_eq(str_arg(m, s, "errno"), "EBADF");
	s = lifetime(m, 5);
	ck_assert_str_eq(str_arg(m, s, "path"), "poll");
	ck_assert_int_eq(s->dur, 99 * US);

	/* Markers and counters. */
	ck_assert_uint_eq(count_named(m, PID, thread_named(m, "ring 1 (fd 3)")->tid, "request failed"), 1);
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 1:inflight:0"));
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 1:sq_pending:0"));
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 1:cq_pending:0"));
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 1:io_wq:0"));
	{
		const struct fxtr_counter *k = fxtr_find_counter(m, PID, "ring 1:inflight:0");
		double max = 0;

		for (size_t i = 0; i < k->nsamples; i++)
			if (k->samples[i].value > max)
				max = k->samples[i].value;
		ck_assert(max >= 3);
		ck_assert(k->samples[k->nsamples - 1].value == 0);
	}
	/* Metadata at t = 0 on the ringside process. */
	{
		const struct fxtr_thread *rec = thread_named(m, "recording");
		const struct fxtr_slice *r0 = fxtr_find_slice(m, rec->pid, rec->tid, "recording", 0);

		ck_assert_uint_eq(rec->pid, FXT_KOID_RINGSIDE);
		ck_assert_int_eq(r0->ts, 0);
		ck_assert_str_eq(str_arg(m, r0, "host"), "synthetic");
		ck_assert_str_eq(str_arg(m, r0, "log"), "paths.log");
		ck_assert_ptr_nonnull(strstr(str_arg(m, r0, "start_wall"), "T"));
		ck_assert_ptr_nonnull(strstr(fxtr_find_process(m, FXT_KOID_RINGSIDE)->name, "synthetic"));
		ck_assert_uint_eq(count_named(m, rec->pid, rec->tid, "recording end"), 1);
	}
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* ------------------------------------------------------------ SQPOLL */

START_TEST(test_sqpoll_setup_register)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *sq;
	const struct fxtr_slice *s;

	scen_open(&sc, "sqpoll.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, SQTHREAD, PID, "iou-sqp-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	{
		struct ev_setup_begin sb = { SYNTH_HDR(EV_SETUP_BEGIN, T0 + 1 * US, TID, PID),
					     .entries = 64, .setup_flags = 2, .sq_thread_idle = 2000 };
		struct ev_setup_end se = { SYNTH_HDR(EV_SETUP_END, T0 + 4 * US, TID, PID), .ret = 4 };
		struct ev_register_begin rb = { SYNTH_HDR(EV_REGISTER_BEGIN, T0 + 5 * US, TID, PID),
						.fd = 4, .ring = RING, .opcode = 2, .nr_args = 8 };
		struct ev_register_end re = { SYNTH_HDR(EV_REGISTER_END, T0 + 6 * US, TID, PID),
					      .fd = 4, .ret = -22 };

		sb.flags = EVF_PARAMS_VALID;
		rb.flags = EVF_RING_VALID;
		SYNTH_EMIT(sc.s, 0, sb);
		ev_create(&sc, T0 + 3 * US, TID, PID, RING, 4, 2);
		SYNTH_EMIT(sc.s, 0, se);
		SYNTH_EMIT(sc.s, 0, rb);
		SYNTH_EMIT(sc.s, 0, re);
	}
	ev_enter_begin(&sc, T0 + 7 * US, TID, PID, RING, 4, 0, 0, 2);
	ev_enter_end(&sc, T0 + 8 * US, TID, PID, RING, 0);
	ev_submit(&sc, T0 + 10 * US, SQTHREAD, PID, RING, 0x31, OP_NOP, 1, 0, EVF_SQ_THREAD);
	ev_complete(&sc, T0 + 11 * US, SQTHREAD, PID, RING, 0x31, 1, 0, 0);
	ev_submit(&sc, T0 + 12 * US, SQTHREAD, PID, RING, 0x32, OP_READ, 2, 0, EVF_SQ_THREAD);
	ev_tw_run(&sc, T0 + 13 * US, SQTHREAD, PID, 0);
	ev_complete(&sc, T0 + 20 * US, SQTHREAD, PID, RING, 0x32, 2, 512, 0);
	ev_tw_run(&sc, T0 + 21 * US, SQTHREAD, PID, 1);
	/* enter flags that change from call to call (the text is kept for
	 * the next call with the same flags) */
	for (unsigned i = 0; i < 4; i++) {
		static const uint32_t flags[] = { 1, 0, 3, 2 };

		ev_enter_begin(&sc, T0 + (30 + 2 * i) * US, TID, PID, RING, 4, 0, 0, flags[i]);
		ev_enter_end(&sc, T0 + (31 + 2 * i) * US, TID, PID, RING, 0);
	}
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 2);
	sq = thread_named(m, "iou-sqp-100");
	ck_assert_uint_eq(sq->pid, PID);
	ck_assert_str_eq(request_path(m, 1), "iou-sqp-100:submit NOP > lane:NOP > iou-sqp-100:CQE NOP");
	ck_assert_str_eq(request_path(m, 2), "iou-sqp-100:submit READ > lane:READ > iou-sqp-100:CQE READ");
	ck_assert_str_eq(str_arg(m, lifetime(m, 1), "modifiers"), "sqpoll");
	ck_assert_ptr_nonnull(strstr(str_arg(m, fxtr_find_slice(m, PID, SQTHREAD, "CQE READ", 0),
					     "posted_by"), "task work"));
	/* Setup and register slices with their arguments. */
	s = fxtr_find_slice(m, PID, TID, "io_uring_setup", 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->dur, 3 * US);
	ck_assert_int_eq(int_arg(m, s, "entries"), 64);
	ck_assert_str_eq(str_arg(m, s, "flags"), "SQPOLL");
	ck_assert_int_eq(int_arg(m, s, "sq_thread_idle_ms"), 2000);
	ck_assert_int_eq(int_arg(m, s, "ret"), 4);
	s = fxtr_find_slice(m, PID, TID, "io_uring_register", 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(str_arg(m, s, "opcode"), "REGISTER_FILES");
	ck_assert_int_eq(int_arg(m, s, "nr_args"), 8);
	ck_assert_int_eq(int_arg(m, s, "ret"), -22);
	ck_assert_str_eq(str_arg(m, s, "errno"), "EINVAL");
	s = fxtr_find_slice(m, PID, TID, "io_uring_enter", 0);
	ck_assert_str_eq(str_arg(m, s, "flags"), "SQ_WAKEUP");
	ck_assert_int_eq(int_arg(m, s, "submitted"), 0);
	ck_assert_str_eq(str_arg(m, fxtr_find_slice(m, PID, TID, "io_uring_enter", 1), "flags"),
			 "GETEVENTS");
	ck_assert_str_eq(str_arg(m, fxtr_find_slice(m, PID, TID, "io_uring_enter", 2), "flags"),
			 "none");
	ck_assert_str_eq(str_arg(m, fxtr_find_slice(m, PID, TID, "io_uring_enter", 3), "flags"),
			 "GETEVENTS|SQ_WAKEUP");
	ck_assert_str_eq(str_arg(m, fxtr_find_slice(m, PID, TID, "io_uring_enter", 4), "flags"),
			 "SQ_WAKEUP");
	ck_assert_uint_eq(count_named(m, PID, TID, "waiting"), 0);
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* ------------------------------------------------- processes and rings */

START_TEST(test_processes_rings_threads)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	size_t lanes;

	scen_open(&sc, "procs.log");
	ev_task(&sc, T0, TID, PID, "db", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, TID2, PID, "db-io", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, TID_B, PID_B, "web", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 3, 0);
	ev_create(&sc, T0 + 2 * US, TID2, PID, RING2, 4, 0);
	ev_create(&sc, T0 + 3 * US, TID_B, PID_B, RING3, 3, 0);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t t = T0 + (10 + 10 * i) * US;

		ev_submit(&sc, t, TID, PID, RING, 0x100 + i, OP_NOP, 10 + i, 0, 0);
		ev_submit(&sc, t + 1 * US, TID2, PID, RING2, 0x200 + i, OP_READ, 20 + i, 0, 0);
		ev_submit(&sc, t + 2 * US, TID_B, PID_B, RING3, 0x300 + i, OP_WRITE, 30 + i, 0, 0);
	}
	for (unsigned i = 0; i < 3; i++) {
		uint64_t t = T0 + (50 + 10 * i) * US;

		ev_complete(&sc, t, TID, PID, RING, 0x100 + i, 10 + i, 0, 0);
		ev_complete(&sc, t + 1 * US, TID2, PID, RING2, 0x200 + i, 20 + i, 1, 0);
		ev_complete(&sc, t + 2 * US, TID_B, PID_B, RING3, 0x300 + i, 30 + i, 2, 0);
	}
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 9);
	ck_assert_str_eq(fxtr_find_process(m, PID)->name, "db");
	ck_assert_str_eq(fxtr_find_process(m, PID_B)->name, "web");
	ck_assert_uint_eq(thread_named(m, "db-io")->pid, PID);
	ck_assert_uint_eq(thread_named(m, "web")->pid, PID_B);
	/* Each ring's lanes under its owner; three overlapping requests
	 * each: three lanes each. */
	ck_assert_uint_eq(lane_lifetimes(m, "ring 1 (fd 3)", &lanes), 3);
	ck_assert_uint_eq(lanes, 3);
	ck_assert_uint_eq(lane_lifetimes(m, "ring 2 (fd 4)", &lanes), 3);
	ck_assert_uint_eq(lanes, 3);
	ck_assert_uint_eq(lane_lifetimes(m, "ring 3 (fd 3)", &lanes), 3);
	ck_assert_uint_eq(lanes, 3);
	ck_assert_uint_eq(thread_named(m, "ring 1 (fd 3) lane 00")->pid, PID);
	ck_assert_uint_eq(thread_named(m, "ring 2 (fd 4) lane 02")->pid, PID);
	ck_assert_uint_eq(thread_named(m, "ring 3 (fd 3) lane 01")->pid, PID_B);
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 1:inflight:0"));
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID, "ring 2:inflight:0"));
	ck_assert_ptr_nonnull(fxtr_find_counter(m, PID_B, "ring 3:inflight:0"));
	ck_assert_ptr_null(fxtr_find_counter(m, PID, "ring 3:inflight:0"));
	ck_assert_str_eq(request_path(m, 21), "db-io:submit READ > lane:READ > db-io:CQE READ");
	ck_assert_str_eq(request_path(m, 32), "web:submit WRITE > lane:WRITE > web:CQE WRITE");
	/* Lanes are reused lowest first: the first request on lane 00. */
	{
		const struct fxtr_slice *s = lifetime(m, 10);

		ck_assert_str_eq(fxtr_find_thread(m, s->pid, s->tid)->name, "ring 1 (fd 3) lane 00");
	}
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* --------------------------------------------------------------- links */

static void chain_log(struct scen *sc)
{
	ev_task(sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_enter_begin(sc, T0 + 1 * US - 500, TID, PID, RING, 3, 3, 3, 1);
	ev_submit(sc, T0 + 1 * US, TID, PID, RING, 0xd1, OP_WRITE, 1, IOSQE_IO_LINK, 0);
	ev_submit(sc, T0 + 2 * US, TID, PID, RING, 0xd2, OP_WRITE, 2, IOSQE_IO_LINK, 0);
	ev_link(sc, T0 + 2 * US + 1, TID, PID, RING, 0xd2, 0xd1);
	ev_submit(sc, T0 + 3 * US, TID, PID, RING, 0xd3, OP_WRITE, 3, 0, 0);
	ev_link(sc, T0 + 3 * US + 1, TID, PID, RING, 0xd3, 0xd2);
	ev_complete(sc, T0 + 10 * US, TID, PID, RING, 0xd1, 1, -5, 0);
	ev_fail_link(sc, T0 + 11 * US, TID, PID, RING, 0xd1, 0xd2);
	ev_fail_link(sc, T0 + 11 * US + 1, TID, PID, RING, 0xd1, 0xd3);
	ev_complete(sc, T0 + 12 * US, TID, PID, RING, 0xd2, 2, -125, 0);
	ev_complete(sc, T0 + 13 * US, TID, PID, RING, 0xd3, 3, -125, 0);
	ev_enter_end(sc, T0 + 14 * US, TID, PID, RING, 3);
	/* A chain that succeeds: NOP -> READ, the READ issued after the NOP. */
	ev_submit(sc, T0 + 20 * US, TID, PID, RING, 0xe1, OP_NOP, 11, IOSQE_IO_LINK, 0);
	ev_submit(sc, T0 + 21 * US, TID, PID, RING, 0xe2, OP_READ, 12, 0, 0);
	ev_link(sc, T0 + 21 * US + 1, TID, PID, RING, 0xe2, 0xe1);
	ev_complete(sc, T0 + 22 * US, TID, PID, RING, 0xe1, 11, 0, 0);
	ev_req(sc, EV_QUEUE_ASYNC_WORK, T0 + 23 * US, TID, PID, RING, 0xe2, 12);
	ev_work(sc, true, T0 + 24 * US, WORKER, PID, RING, 0xe2);
	ev_complete(sc, T0 + 30 * US, WORKER, PID, RING, 0xe2, 12, 512, 0);
	ev_work(sc, false, T0 + 31 * US, WORKER, PID, RING, 0xe2);
}

START_TEST(test_link_chains)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_flow *f;
	const struct fxtr_slice *s;

	scen_open(&sc, "link.log");
	chain_log(&sc);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 5);
	ck_assert_uint_eq(m->nflows, 5 + 3);
	/* The failing member's completion cancels the next one: the arrow
	 * goes from its lifetime (drawn from its end) to the next member's
	 * "cancelled" step, which starts at that completion. */
	f = link_flow_from(m, 1);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(describe(m, f), "lane:WRITE > lane:cancelled");
	ck_assert_int_eq(m->slices[f->points[1].slice].ts, rel_us(10));
	/* From the second member (written before: the arrow starts on its
	 * last step, the same point in time) to the third's CQE: the third
	 * has no step starting at the second's cancellation. */
	f = link_flow_from(m, 2);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(describe(m, f), "lane:cancelled > app:CQE WRITE");
	ck_assert_int_eq(m->slices[f->points[1].slice].ts, rel_us(13));
	ck_assert_ptr_null(link_flow_from(m, 3));
	/* Phases of the members: waiting for the previous one, then cancelled. */
	s = lifetime(m, 2);
	ck_assert_str_eq(str_arg(m, s, "modifiers"), "linked|link_cancelled");
	/* each its own text: they once shared a buffer, and sqe_flags
	 * showed the start of the chain's text */
	ck_assert_str_eq(str_arg(m, s, "sqe_flags"), "IO_LINK");
	ck_assert_str_eq(str_arg(m, s, "chain"), "member 1 of the chain headed by request 1");
	ck_assert_str_eq(str_arg(m, s, "errno"), "ECANCELED");
	ck_assert_uint_eq(count_in_process(m, PID, "link wait"), 2);
	ck_assert_uint_eq(count_in_process(m, PID, "cancelled"), 2);
	/* The good chain: NOP -> READ on io-wq, issued at the NOP's CQE.
	 * The READ was delivered first (the NOP's completion was held until
	 * the app thread's next io_uring event), so the arrow ends in the
	 * READ's step that contains the NOP's completion (written later, at
	 * that step's start; no "link wait" step: unknown when it was drawn). */
	f = link_flow_from(m, 11);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(describe(m, f), "lane:NOP > lane:issue");
	ck_assert_int_eq(f->points[1].ts, rel_us(21));
	ck_assert_int_eq(m->slices[f->points[1].slice].ts, rel_us(21));
	ck_assert_int_eq(m->slices[f->points[1].slice].dur, 2 * US);
	ck_assert_str_eq(request_path(m, 12),
			 "app:submit READ > lane:READ > lane:io-wq queue > iou-wrk-100:READ > iou-wrk-100:CQE READ");
	/* The marker of the failure, on the ring's track. */
	ck_assert_uint_eq(count_named(m, PID, thread_named(m, "ring 1 (fd 3)")->tid, "link failed"), 1);
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* A chain whose next member is outside the selection: the arrow begun on
 * the first member ends on a marker saying so. */
START_TEST(test_link_outside_selection)
{
	struct scen sc;
	struct conv c;
	struct options o = { 0 };
	const struct fxtr_model *m;
	const struct fxtr_flow *f;

	scen_open(&sc, "linksel.log");
	chain_log(&sc);
	scen_finish(&sc);
	/* Times are relative to the recording start, T0 - 1 s.  Selected:
	 * the NOP (20-22 us) and its READ (21-30 us) both overlap the
	 * window; the failing chain (1-14 us) is left out. */
	o.rings[o.nrings++] = 1;
	ck_assert_int_eq(parse_time_arg("1000021900ns", &o.end), 0);
	ck_assert_int_eq(parse_time_arg("1000021000ns", &o.start), 0);
	convert_fxt(sc.path, &o, &c);
	m = c.m;
	check_clean(m);
	ck_assert_ptr_nonnull(lifetime(m, 11));
	ck_assert_ptr_nonnull(lifetime(m, 12));
	f = link_flow_from(m, 11);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(describe(m, f), "lane:NOP > lane:issue");
	conv_free(&c);

	/* Only the NOP: no arrow (nothing to point at). */
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(parse_time_arg("1000020000ns", &o.start), 0);
	ck_assert_int_eq(parse_time_arg("1000020500ns", &o.end), 0);
	convert_fxt(sc.path, &o, &c);
	m = c.m;
	check_clean(m);
	ck_assert_ptr_nonnull(lifetime(m, 11));
	ck_assert_ptr_null(lifetime(m, 12));
	ck_assert_ptr_null(link_flow_from(m, 11));
	ck_assert_uint_eq(m->nflows, 1);
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* A READ linked to a LINK_TIMEOUT that fires first: the arrow goes from
 * the timeout (its end: when it fired) to the READ's "cancelled" step. */
START_TEST(test_link_timeout)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_flow *f;
	const struct fxtr_slice *s;

	scen_open(&sc, "ltimeout.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 1 * US, TID, PID, RING, 3, 2, 0, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xc1, OP_READ, 1, IOSQE_IO_LINK, 0);
	ev_req(&sc, EV_POLL_ARM, T0 + 3 * US, TID, PID, RING, 0xc1, 1);
	ev_submit(&sc, T0 + 4 * US, TID, PID, RING, 0xc2, 15 /* LINK_TIMEOUT */, 2, 0, 0);
	ev_link(&sc, T0 + 4 * US + 1, TID, PID, RING, 0xc2, 0xc1);
	ev_enter_end(&sc, T0 + 5 * US, TID, PID, RING, 2);
	ev_enter_begin(&sc, T0 + 6 * US, TID, PID, RING, 3, 0, 2, 1);
	ev_cqring_wait(&sc, T0 + 7 * US, TID, PID, RING, 2);
	ev_complete(&sc, T0 + 1000 * US, TID, PID, RING, 0xc2, 2, -62, 0);
	ev_complete(&sc, T0 + 1001 * US, TID, PID, RING, 0xc1, 1, -125, 0);
	ev_tw_run(&sc, T0 + 1002 * US, TID, PID, 2);
	ev_enter_end(&sc, T0 + 1003 * US, TID, PID, RING, 0);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 2);
	ck_assert_uint_eq(m->nflows, 3);
	ck_assert_ptr_null(link_flow_from(m, 1));
	f = link_flow_from(m, 2);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(describe(m, f), "lane:LINK_TIMEOUT > lane:cancelled");
	s = &m->slices[f->points[1].slice];
	ck_assert_int_eq(s->ts, rel_us(1000));
	ck_assert_int_eq(s->dur, 1 * US);
	ck_assert_ptr_nonnull(in_lifetime_of(m, f->points[1].slice, 1) ? s : NULL);
	ck_assert_str_eq(request_path(m, 1), "app:submit READ > lane:READ > lane:poll wait > app:CQE READ");
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* A damaged log: two pieces of work on one worker that partially overlap.
 * Perfetto would drop one of them; the second is left out, said so in the
 * "recording end" marker, and its request's arrows skip it. */
START_TEST(test_overlapping_work)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *rec;
	const struct fxtr_slice *e;

	scen_open(&sc, "overlap.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x71, OP_WRITE, 1, IOSQE_ASYNC, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 2 * US, TID, PID, RING, 0x71, 1);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x72, OP_WRITE, 2, IOSQE_ASYNC, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 4 * US, TID, PID, RING, 0x72, 2);
	ev_work(&sc, true, T0 + 10 * US, WORKER, PID, RING, 0x71);
	ev_work(&sc, true, T0 + 12 * US, WORKER, PID, RING, 0x72);
	ev_complete(&sc, T0 + 15 * US, WORKER, PID, RING, 0x71, 1, 4096, 0);
	ev_work(&sc, false, T0 + 20 * US, WORKER, PID, RING, 0x72);
	ev_complete(&sc, T0 + 22 * US, WORKER, PID, RING, 0x72, 2, 4096, 0);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 2);
	ck_assert_uint_eq(count_named(m, PID, WORKER, "WRITE"), 1);
	ck_assert_str_eq(request_path(m, 1),
			 "app:submit WRITE > lane:WRITE > lane:io-wq queue > iou-wrk-100:WRITE > iou-wrk-100:CQE WRITE");
	ck_assert_str_eq(request_path(m, 2), "app:submit WRITE > lane:WRITE > iou-wrk-100:CQE WRITE");
	rec = thread_named(m, "recording");
	e = fxtr_find_slice(m, rec->pid, rec->tid, "recording end", 0);
	ck_assert_ptr_nonnull(strstr(str_arg(m, e, "not_drawn"), "1 slices that would partially overlap"));
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* A hostile log: 400 requests submitted and completed at one nanosecond
 * on one thread, and a thread id in the range of the synthetic koids.
 * Perfetto stacks zero-length slices at one time and drops what goes past
 * depth 512: the output stays clean, says what it left out, and keeps
 * the impossible thread id off the lanes. */
START_TEST(test_hostile_same_time)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *rec;
	const struct fxtr_slice *e;
	size_t lanes;

	scen_open(&sc, "hostile.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	for (unsigned i = 0; i < 400; i++)
		ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0x5000 + i, OP_NOP, 5000 + i, 0, 0);
	for (unsigned i = 0; i < 400; i++)
		ev_complete(&sc, T0 + 5 * US, TID, PID, RING, 0x5000 + i, 5000 + i, 0, 0);
	ev_submit(&sc, T0 + 6 * US, FXT_KOID_FIRST, FXT_KOID_FIRST, RING, 0x6000, OP_NOP, 6000, 0, 0);
	ev_complete(&sc, T0 + 7 * US, FXT_KOID_FIRST, FXT_KOID_FIRST, RING, 0x6000, 6000, 0, 0);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	check_clean(m);
	ck_assert_uint_eq(lane_lifetimes(m, "ring 1", &lanes), 64 + 1);
	ck_assert_uint_eq(lanes, 64);
	ck_assert_uint_le(count_named(m, PID, TID, "submit NOP"), FXT_INSTANT_RUN);
	ck_assert_uint_le(count_named(m, PID, TID, "CQE NOP"), FXT_INSTANT_RUN);
	/* The koid is the ring's track, one thread, not also the bogus tid. */
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid == FXT_KOID_FIRST)
			ck_assert_str_eq(m->threads[i].name, "ring 1");
	ck_assert_ptr_null(fxtr_find_thread(m, FXT_KOID_FIRST, FXT_KOID_FIRST));
	rec = thread_named(m, "recording");
	e = fxtr_find_slice(m, rec->pid, rec->tid, "recording end", 0);
	ck_assert_ptr_nonnull(strstr(str_arg(m, e, "not_drawn"), "instants past 128"));
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* A damaged log with events more than 2^63 ns after the start (Perfetto
 * keeps int64 ns): they are left out and counted, the rest converts. */
START_TEST(test_far_future)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *rec;
	const struct fxtr_slice *e;
	uint64_t far = 1000000000ull + (1ull << 63) + 5000;

	scen_open(&sc, "future.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x81, OP_NOP, 1, 0, 0);
	ev_complete(&sc, T0 + 2 * US, TID, PID, RING, 0x81, 1, 0, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x82, OP_NOP, 2, 0, 0);
	ev_complete(&sc, far, TID, PID, RING, 0x82, 2, 0, 0);
	/* no END frame: "recording end" also says why it stopped */
	synth_finish(sc.s, NULL);
	sc.s = NULL;
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 1);
	ck_assert_ptr_nonnull(lifetime(m, 1));
	ck_assert_ptr_null(lifetime(m, 2));
	rec = thread_named(m, "recording");
	e = fxtr_find_slice(m, rec->pid, rec->tid, "recording end", 0);
	ck_assert_int_eq(e->ts, INT64_MAX);
	ck_assert_ptr_nonnull(strstr(str_arg(m, e, "not_drawn"), "events more than 2^63 ns"));
	/* each its own text: they once shared a buffer */
	ck_assert_str_eq(str_arg(m, e, "stopped"), "not cleanly");
	ck_assert_ptr_null(strstr(str_arg(m, e, "stop_message"), "slices"));
	ck_assert_ptr_nonnull(strstr(str_arg(m, e, "stop_message"), "log ends without an end frame"));
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* -------------------------------------------------- CQEs and overflow */

START_TEST(test_multishot_aux_overflow)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *rt;
	const struct fxtr_slice *s;

	scen_open(&sc, "cqe.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0, TID, PID, RING, 3, 0);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x41, OP_ACCEPT, 1, 0, 0);
	ev_complete(&sc, T0 + 2 * US, TID, PID, RING, 0x41, 1, 7, CQE_F_MORE);
	ev_complete(&sc, T0 + 3 * US, TID, PID, RING, 0x41, 1, 8, CQE_F_MORE);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0x41, 1, -125, 0);
	ev_complete(&sc, T0 + 5 * US, TID, PID, RING, 0, 99, 42, 0);
	ev_submit(&sc, T0 + 10 * US, TID, PID, RING, 0x42, OP_NOP, 2, 0, 0);
	ev_submit(&sc, T0 + 11 * US, TID, PID, RING, 0x43, OP_NOP, 2, 0, 0);
	ev_overflow(&sc, T0 + 12 * US, TID, PID, RING, 2, 0, false);
	ev_overflow(&sc, T0 + 13 * US, TID, PID, RING, 2, 0, true);
	ev_submit(&sc, T0 + 20 * US, TID, PID, RING, 0x44, OP_NOP, 3, 0, 0);
	ev_complete(&sc, T0 + 21 * US, TID, PID, RING, 0x44, 3, 0, 0);
	/* Another CQE (the kernel traces complete only for CQEs that fit):
	 * no request is open with user_data 3. */
	ev_overflow(&sc, T0 + 21 * US + 1, TID, PID, RING, 3, 0, false);
	{
		struct ev_short_write sw = { SYNTH_HDR(EV_SHORT_WRITE, T0 + 25 * US, TID, PID),
					     .ring = RING, .fpos = 8192, .wanted = 4096, .got = 1024 };

		SYNTH_EMIT(sc.s, 0, sw);
	}
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 4);
	ck_assert_uint_eq(count_named(m, PID, TID, "CQE ACCEPT (more)"), 2);
	s = fxtr_find_slice(m, PID, TID, "CQE ACCEPT (more)", 1);
	ck_assert_int_eq(int_arg(m, s, "result"), 8);
	ck_assert_str_eq(str_arg(m, s, "cflags"), "MORE");
	s = lifetime(m, 1);
	ck_assert_int_eq(int_arg(m, s, "cqes"), 3);
	ck_assert_str_eq(str_arg(m, s, "modifiers"), "multishot");
	ck_assert_int_eq(s->dur, 3 * US);
	rt = thread_named(m, "ring 1 (fd 3)");
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "CQE (no request)"), 2);
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "CQ overflow"), 2);
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "CQE dropped"), 1);
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "short write"), 1);
	s = fxtr_find_slice(m, PID, rt->tid, "short write", 0);
	ck_assert_int_eq(int_arg(m, s, "got"), 1024);
	s = fxtr_find_slice(m, PID, rt->tid, "CQE (no request)", 0);
	ck_assert_int_eq(int_arg(m, s, "result"), 42);
	ck_assert_ptr_null(fxtr_slice_arg(m, lifetime(m, 3), "modifiers"));
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/*
 * CQEs a kworker posts for a ring (a request's, and one of no request)
 * are drawn on the ring's track under its owner, saying who posted them,
 * never as a process of their own; after the owner exited they are its
 * ring's teardown.  The header gives the recorder's selection.
 */
START_TEST(test_cqes_posted_by_kworker)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *rt;
	const struct fxtr_slice *s;
	const uint32_t kw = 300;
	struct synth_options opt = {
		.extra_meta = "\"filters\":{\"pids\":[77],\"follow\":true,\"comm\":null,"
			      "\"cgroup\":null,\"command\":[\"./prog\"]}",
	};

	scen_open_opts(&sc, "kworker.log", &opt);
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0, TID, PID, RING, 3, 0);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x41, OP_NOP, 1, 0, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0x42, OP_NOP, 2, 0, 0);
	ev_complete(&sc, T0 + 3 * US, kw, kw, RING, 0x41, 1, 0, 0);
	{
		struct ev_task_exit x = { SYNTH_HDR(EV_TASK_EXIT, T0 + 5 * US, TID, PID) };

		SYNTH_EMIT(sc.s, 0, x);
	}
	ev_complete(&sc, T0 + 8 * US, kw, kw, RING, 0x42, 2, -125, 0);
	ev_complete(&sc, T0 + 9 * US, kw, kw, RING, 0, 7, 0, 0);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	ck_assert_uint_eq(check_clean(m), 2);
	for (size_t i = 0; i < m->nthreads; i++)
		ck_assert_uint_ne(m->threads[i].pid, kw);
	rt = thread_named(m, "ring 1 (fd 3)");
	ck_assert_uint_eq(rt->pid, PID);
	s = fxtr_find_slice(m, PID, rt->tid, "CQE NOP", 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(str_arg(m, s, "posted_by"), "kworker or another process");
	ck_assert_int_eq(int_arg(m, s, "posted_by_tid"), kw);
	s = fxtr_find_slice(m, PID, rt->tid, "CQE NOP", 1);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(str_arg(m, s, "posted_by"), "kworker: ring teardown after the owner exited");
	ck_assert_int_eq(int_arg(m, s, "result"), -125);
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "CQE (no request)"), 0);
	s = fxtr_find_slice(m, PID, rt->tid, "CQE (ring teardown)", 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(int_arg(m, s, "user_data"), 7);
	ck_assert_int_eq(int_arg(m, s, "posted_by_tid"), kw);
	/* The recorder's selection, beside the converter's. */
	rt = thread_named(m, "recording");
	s = fxtr_find_slice(m, rt->pid, rt->tid, "recording", 0);
	ck_assert_str_eq(str_arg(m, s, "recorded_selection"), "-- ./prog (pid 77)");
	ck_assert_str_eq(str_arg(m, s, "selection"), "everything");
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* ------------------------------------------------ losses, both ends */

START_TEST(test_losses_and_ends)
{
	struct scen sc;
	struct conv c;
	const struct fxtr_model *m;
	const struct fxtr_thread *lt;
	const struct fxtr_slice *s;
	const struct fxtr_counter *k;

	scen_open(&sc, "loss.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_complete(&sc, T0 + 1 * US, TID, PID, RING, 0xf0, 100, 0, 0);	/* in flight at start */
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xf1, OP_READ, 1, 0, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xf2, OP_READ, 2, 0, 0);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0xf2, 2, 0, 0);
	sc.cpu = 1;
	ev_lost(&sc, T0 + 10 * US, T0 + 20 * US, 7);
	sc.cpu = 0;
	ev_complete(&sc, T0 + 30 * US, TID, PID, RING, 0xf1, 1, 0, 0);	/* spans the loss */
	ev_complete(&sc, T0 + 31 * US, TID, PID, RING, 0xf3, 3, 0, 0);	/* submit lost */
	ev_submit(&sc, T0 + 40 * US, TID, PID, RING, 0xf4, OP_READ, 4, 0, 0);
	ev_complete(&sc, T0 + 41 * US, TID, PID, RING, 0xf4, 4, 0, 0);
	ev_submit(&sc, T0 + 50 * US, TID, PID, RING, 0xf5, OP_READ, 5, 0, 0);	/* in flight at end */
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	m = c.m;

	/* Arrows for 100 (lifetime -> CQE), 2, 4, 5 (submit -> lifetime);
	 * none for the incomplete 1 and 3. */
	ck_assert_uint_eq(check_clean(m), 4);
	ck_assert_ptr_null(request_flow(m, 1));
	ck_assert_ptr_null(request_flow(m, 3));
	ck_assert_str_eq(request_path(m, 100), "lane:NOP (in flight at start) > app:CQE NOP");
	ck_assert_str_eq(request_path(m, 5), "app:submit READ > lane:READ (in flight at end)");
	s = lifetime(m, 1);
	ck_assert_str_eq(s->name, "READ (incomplete)");
	ck_assert_ptr_nonnull(strstr(str_arg(m, s, "status"), "incomplete (loss)"));
	ck_assert_int_eq(s->ts, rel_us(2));
	ck_assert_int_eq(s->dur, 28 * US);
	s = lifetime(m, 3);
	ck_assert_str_eq(s->name, "NOP (incomplete)");
	ck_assert_int_eq(s->dur, 0);
	s = lifetime(m, 100);
	ck_assert_int_eq(s->ts, 0);
	ck_assert_ptr_nonnull(strstr(str_arg(m, s, "note"), "before the recording"));
	s = lifetime(m, 5);
	ck_assert_int_eq(s->ts + s->dur, m->ts_max);
	ck_assert_int_eq(s->ts + s->dur, rel_us(50));
	ck_assert_ptr_nonnull(strstr(str_arg(m, s, "note"), "recording ended"));

	/* The loss window on its own track, and the cumulative counter. */
	lt = thread_named(m, "lost events cpu 1");
	ck_assert_uint_eq(lt->pid, FXT_KOID_RINGSIDE);
	s = fxtr_find_slice(m, lt->pid, lt->tid, "lost 7 events", 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->ts, rel_us(10));
	ck_assert_int_eq(s->dur, 10 * US);
	ck_assert_int_eq(int_arg(m, s, "count"), 7);
	ck_assert_str_eq(str_arg(m, s, "source"), "kernel");
	k = fxtr_find_counter(m, FXT_KOID_RINGSIDE, "lost events:total:0");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->nsamples, 2);
	ck_assert(k->samples[0].value == 0 && k->samples[1].value == 7);
	ck_assert_int_eq(k->samples[1].ts, rel_us(10));
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* ---------------------------------------------------------- lane limit */

static void write_wide_log(struct scen *sc, unsigned n)
{
	ev_task(sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(sc, T0, TID, PID, RING, 3, 0);
	ev_enter_begin(sc, T0 + 1 * US, TID, PID, RING, 3, n, n, 1);
	for (unsigned i = 0; i < n; i++)
		ev_submit(sc, T0 + (10 + i) * US, TID, PID, RING, 0x1000 + i, OP_NOP, 1000 + i, 0, 0);
	for (unsigned i = 0; i < n; i++)
		ev_complete(sc, T0 + (1000 + i) * US, TID, PID, RING, 0x1000 + i, 1000 + i, 0, 0);
	ev_enter_end(sc, T0 + 2000 * US, TID, PID, RING, n);
	/* Later, one at a time: they reuse lane 00. */
	for (unsigned i = 0; i < 10; i++) {
		ev_submit(sc, T0 + (3000 + 10 * i) * US, TID, PID, RING, 0x9000 + i, OP_NOP, 9000 + i, 0, 0);
		ev_complete(sc, T0 + (3001 + 10 * i) * US, TID, PID, RING, 0x9000 + i, 9000 + i, 0, 0);
	}
}

static void check_lane_limit(unsigned lanes_opt, unsigned want_lanes)
{
	struct scen sc;
	struct conv c;
	struct options o = { 0 };
	const struct fxtr_model *m;
	const struct fxtr_thread *rt;
	size_t lanes, lifetimes;
	unsigned n = 70;

	scen_open(&sc, "wide.log");
	write_wide_log(&sc, n);
	scen_finish(&sc);
	o.lanes = lanes_opt;
	convert_fxt(sc.path, &o, &c);
	m = c.m;

	/* Every request has its flow, with or without a lane. */
	ck_assert_uint_eq(check_clean(m), n + 10);
	lifetimes = lane_lifetimes(m, "ring 1 (fd 3)", &lanes);
	ck_assert_uint_eq(lanes, want_lanes);
	ck_assert_uint_eq(lifetimes, want_lanes + 10);
	rt = thread_named(m, "ring 1 (fd 3)");
	ck_assert_uint_eq(count_named(m, PID, rt->tid, "lanes full"), n - want_lanes);
	/* The requests without a lane still get submit -> CQE arrows. */
	if (want_lanes < n)
		ck_assert_str_eq(request_path(m, 1000 + n - 1), "app:submit NOP > app:CQE NOP");
	ck_assert_str_eq(request_path(m, 1000), "app:submit NOP > lane:NOP > app:CQE NOP");
	/* The sequential ones all reuse lane 00. */
	for (unsigned i = 0; i < 10; i++) {
		const struct fxtr_slice *s = lifetime(m, 9000 + i);

		ck_assert_str_eq(fxtr_find_thread(m, s->pid, s->tid)->name, "ring 1 (fd 3) lane 00");
	}
	{
		const struct fxtr_thread *rec = thread_named(m, "recording");
		const struct fxtr_slice *e = fxtr_find_slice(m, rec->pid, rec->tid, "recording end", 0);

		ck_assert_int_eq(int_arg(m, e, "requests_not_on_lanes"), n - want_lanes);
		ck_assert_int_eq(int_arg(m, e, "requests"), n + 10);
	}
	conv_free(&c);
	scen_free(&sc);
}

START_TEST(test_lane_limit_default) { check_lane_limit(0, 64); }
END_TEST

START_TEST(test_lane_limit_small) { check_lane_limit(4, 4); }
END_TEST

START_TEST(test_lane_limit_large) { check_lane_limit(100, 70); }
END_TEST

/* ------------------------------------------------------ randomized mix */

struct rnd {
	uint64_t s;
};

static uint32_t rnd_next(struct rnd *r)
{
	r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(r->s >> 33);
}

struct tev {
	uint64_t ts;
	unsigned kind, req, tid;
	int32_t res;
};

enum { T_SUBMIT, T_QUEUE, T_ARM, T_TASKADD, T_COMPLETE, T_WORK_B, T_WORK_E };

static int cmp_tev(const void *a, const void *b)
{
	const struct tev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/*
 * n requests on two rings of one process: random submission times,
 * durations and paths (inline, poll, io-wq on one of two workers whose
 * work never overlaps, approximate io-wq), some in flight at the end.
 */
START_TEST(test_random_mix)
{
	struct scen sc;
	struct conv c;
	struct options o = { 0 };
	const struct fxtr_model *m;
	struct rnd r = { 12345 };
	unsigned n = 3000, nev = 0, open_at_end = 0, approx = 0;
	struct tev *ev = calloc(n * 5, sizeof(*ev));
	uint64_t worker_free[2] = { 0, 0 };
	size_t lanes1, lanes2, life;

	scen_open(&sc, "random.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, TID2, PID, "app2", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER2, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_create(&sc, T0, TID, PID, RING, 3, 0);
	ev_create(&sc, T0, TID2, PID, RING2, 4, 0);
	for (unsigned i = 0; i < n; i++) {
		uint64_t s = T0 + 10 * US + (uint64_t)i * 2 * US + rnd_next(&r) % 1000;
		uint64_t d = 200 + rnd_next(&r) % (rnd_next(&r) % 8 ? 5000 : 200000);
		unsigned kind = rnd_next(&r) % 5, tid = i % 3 ? TID : TID2;

		ev[nev++] = (struct tev){ s, T_SUBMIT, i, tid, 0 };
		if (i >= n - 20 && i % 2) {
			open_at_end++;
			continue;
		}
		switch (kind) {
		case 0:	/* inline or task work */
		case 1:
			ev[nev++] = (struct tev){ s + d, T_COMPLETE, i, tid, (int32_t)i };
			break;
		case 2:	/* poll */
			ev[nev++] = (struct tev){ s + 100, T_ARM, i, tid, 0 };
			ev[nev++] = (struct tev){ s + d, T_TASKADD, i, 0, 0 };
			ev[nev++] = (struct tev){ s + d + 50, T_COMPLETE, i, tid, 1 };
			break;
		case 3: {	/* io-wq, exact, on the first free worker */
			unsigned w = worker_free[0] <= worker_free[1] ? 0 : 1;
			uint64_t b = s + 100 > worker_free[w] ? s + 100 : worker_free[w] + 10;

			ev[nev++] = (struct tev){ s + 50, T_QUEUE, i, tid, 0 };
			ev[nev++] = (struct tev){ b, T_WORK_B, i, WORKER + w, 0 };
			ev[nev++] = (struct tev){ b + d, T_COMPLETE, i, WORKER + w, 4096 };
			ev[nev++] = (struct tev){ b + d + 10, T_WORK_E, i, WORKER + w, 0 };
			worker_free[w] = b + d + 10;
			break;
		}
		default:	/* io-wq, the worker known from its completion */
			ev[nev++] = (struct tev){ s + 50, T_QUEUE, i, tid, 0 };
			ev[nev++] = (struct tev){ s + d, T_COMPLETE, i, WORKER2 + 10, -11 };
			approx++;
			break;
		}
	}
	qsort(ev, nev, sizeof(*ev), cmp_tev);
	ev_task(&sc, T0, WORKER2 + 10, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	for (unsigned k = 0; k < nev; k++) {
		const struct tev *e = &ev[k];
		uint64_t ring = e->req % 3 ? RING : RING2, req = 0x100000 + e->req;
		uint32_t sub = e->req % 3 ? TID : TID2;

		switch (e->kind) {
		case T_SUBMIT:
			ev_submit(&sc, e->ts, e->tid, PID, ring, req, e->req % 7, 100000 + e->req, 0, 0);
			break;
		case T_QUEUE:
			ev_req(&sc, EV_QUEUE_ASYNC_WORK, e->ts, sub, PID, ring, req, 100000 + e->req);
			break;
		case T_ARM:
			ev_req(&sc, EV_POLL_ARM, e->ts, sub, PID, ring, req, 100000 + e->req);
			break;
		case T_TASKADD:
			ev_req(&sc, EV_TASK_ADD, e->ts, 0, 0, ring, req, 100000 + e->req);
			break;
		case T_COMPLETE:
			ev_complete(&sc, e->ts, e->tid, PID, ring, req, 100000 + e->req, e->res, 0);
			break;
		case T_WORK_B:
		case T_WORK_E:
			ev_work(&sc, e->kind == T_WORK_B, e->ts, e->tid, PID, ring, req);
			break;
		}
		if (k % 500 == 499)
			synth_flush(sc.s);
	}
	scen_finish(&sc);
	free(ev);
	o.lanes = 16;
	convert_fxt(sc.path, &o, &c);
	m = c.m;

	/* Every request has one flow (in flight ones: submit -> lifetime). */
	ck_assert_uint_eq(check_clean(m), n);
	life = lane_lifetimes(m, "ring 1 (fd 3)", &lanes1) + lane_lifetimes(m, "ring 2 (fd 4)", &lanes2);
	ck_assert_uint_le(lanes1, 16);
	ck_assert_uint_le(lanes2, 16);
	{
		const struct fxtr_thread *rec = thread_named(m, "recording");
		const struct fxtr_slice *e = fxtr_find_slice(m, rec->pid, rec->tid, "recording end", 0);

		ck_assert_int_eq(int_arg(m, e, "requests"), n);
		ck_assert_uint_eq(life + (uint64_t)int_arg(m, e, "requests_not_on_lanes"), n);
	}
	{
		size_t inflight = 0, approx_slices = 0;

		for (size_t i = 0; i < m->nslices; i++) {
			if (strstr(m->slices[i].name, "(in flight at end)"))
				inflight++;
			if (m->slices[i].tid == WORKER2 + 10 && strstr(m->slices[i].name, "(approx)"))
				approx_slices++;
		}
		ck_assert_uint_le(inflight, open_at_end);
		ck_assert_uint_eq(approx_slices, approx);
	}
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

/* ---------------------------------------- fxt_layout on its own */

START_TEST(test_lanes_allocator)
{
	struct fxt_lanes l;
	struct rnd r = { 7 };
	struct { uint64_t s, e; int lane; } iv[2000];
	bool opened;
	size_t n = 0;

	fxt_lanes_init(&l, 3);
	ck_assert_int_eq(fxt_lanes_place(&l, 10, 20, &opened), 0);
	ck_assert(opened);
	ck_assert_int_eq(fxt_lanes_place(&l, 20, 30, &opened), 0);	/* touching: same lane */
	ck_assert(!opened);
	ck_assert_int_eq(fxt_lanes_place(&l, 25, 40, &opened), 1);
	ck_assert(opened);
	ck_assert_int_eq(fxt_lanes_place(&l, 5, 45, &opened), 2);
	ck_assert_int_eq(fxt_lanes_place(&l, 29, 50, &opened), -1);	/* all busy */
	ck_assert_int_eq(fxt_lanes_place(&l, 40, 40, &opened), 0);	/* zero length */
	ck_assert_int_eq(fxt_lanes_place(&l, 40, 40, &opened), 1);	/* would stack on it */
	ck_assert_int_eq(fxt_lanes_place(&l, 40, 60, &opened), 0);	/* touches it */
	ck_assert_int_eq(fxt_lanes_place(&l, 41, 50, &opened), 1);
	ck_assert_uint_eq(l.n, 3);
	fxt_lanes_free(&l);

	/* Intervals arriving roughly in end order: whatever the order, no
	 * two on a lane overlap. */
	fxt_lanes_init(&l, 64);
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t e = 1000 + i * 10 + rnd_next(&r) % 300;
		uint64_t s = e - rnd_next(&r) % 2000;

		iv[n].s = s;
		iv[n].e = e;
		iv[n].lane = fxt_lanes_place(&l, s, e, &opened);
		if (opened)
			l.koid[iv[n].lane] = 1;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (iv[i].lane >= 0 && iv[i].lane == iv[j].lane)
				ck_assert_msg(iv[j].s >= iv[i].e,
					      "lane %d: [%llu,%llu] then [%llu,%llu]", iv[i].lane,
					      (unsigned long long)iv[i].s, (unsigned long long)iv[i].e,
					      (unsigned long long)iv[j].s, (unsigned long long)iv[j].e);
	fxt_lanes_free(&l);
}
END_TEST

/* ---------------------------------------- fxt_plan on its own */

/* Where lifetimes are drawn from and to, and the note that says why. */
START_TEST(test_plan_lifetime)
{
	struct model_request r = { .status = REQ_COMPLETE, .submit_ts = 100, .complete_ts = 300 };
	struct fxt_lifetime lt = fxt_plan_lifetime(&r, 50, 1000);

	ck_assert_uint_eq(lt.start, 100);
	ck_assert_uint_eq(lt.end, 300);
	ck_assert_ptr_null(lt.note);

	r.status = REQ_IN_FLIGHT_AT_START;
	lt = fxt_plan_lifetime(&r, 50, 1000);
	ck_assert_uint_eq(lt.start, 50);
	ck_assert_ptr_nonnull(strstr(lt.note, "before the recording started"));

	r = (struct model_request){ .status = REQ_IN_FLIGHT_AT_END, .submit_ts = 100 };
	lt = fxt_plan_lifetime(&r, 50, 1000);
	ck_assert_uint_eq(lt.end, 1000);
	ck_assert_ptr_nonnull(strstr(lt.note, "still in flight"));

	/* submission lost: from the first event; completion lost: to the last */
	r = (struct model_request){ .status = REQ_INCOMPLETE, .queue_async_ts = 200,
				    .work_begin_ts = 250, .work_end_ts = 400 };
	lt = fxt_plan_lifetime(&r, 50, 1000);
	ck_assert_uint_eq(lt.start, 200);
	ck_assert_uint_eq(lt.end, 400);
	ck_assert_ptr_nonnull(strstr(lt.note, "submission not recorded"));

	/* nothing recorded: nothing to draw from */
	r = (struct model_request){ .status = REQ_INCOMPLETE };
	ck_assert_uint_eq(fxt_plan_lifetime(&r, 50, 1000).start, 0);
}
END_TEST

/* A request punted to io-wq: its steps, and its arrow submit -> lifetime ->
 * io-wq queue -> work -> CQE. */
START_TEST(test_plan_iowq)
{
	struct model_request r = {
		.status = REQ_COMPLETE, .submit_ts = 100, .queue_async_ts = 120,
		.worker_tid = 7, .work_begin_ts = 150, .work_end_ts = 280, .complete_ts = 300,
	};
	struct fxt_plan_input in = { .r = &r, .lane = true, .lane_th = FXT_THREAD(1, 2),
				     .submit = true, .worker = true, .cqe = true };
	struct fxt_plan p;
	static const char *const steps[] = { "issue", "io-wq queue", "io-wq run", "after io-wq" };

	in.life = fxt_plan_lifetime(&r, 0, 1000);
	fxt_plan_request(&in, &p);
	ck_assert_uint_eq(p.nph, 4);
	for (unsigned i = 0; i < 4; i++)
		ck_assert_str_eq(p.ph[i].name, steps[i]);
	ck_assert_uint_eq(p.ph[1].start, 120);
	ck_assert_uint_eq(p.ph[1].end, 150);
	ck_assert(p.request_flow);
	ck_assert_int_eq(p.flow[FXT_SLOT_SUBMIT], FXT_FLOW_BEGIN);
	ck_assert_int_eq(p.flow[FXT_SLOT_LANE], FXT_FLOW_STEP);
	ck_assert_int_eq(p.flow[FXT_SLOT_PHASE0], FXT_FLOW_NONE);
	ck_assert_int_eq(p.flow[FXT_SLOT_PHASE0 + 1], FXT_FLOW_STEP);	/* hands over */
	ck_assert_int_eq(p.flow[FXT_SLOT_PHASE0 + 2], FXT_FLOW_NONE);
	ck_assert_int_eq(p.flow[FXT_SLOT_WORKER], FXT_FLOW_STEP);
	ck_assert_int_eq(p.flow[FXT_SLOT_CQE], FXT_FLOW_END);
	ck_assert(p.me.on && p.me.completed);
	ck_assert_uint_eq(p.me.nph, 4);
	ck_assert_uint_eq(p.me.ph_start[3], 280);

	/* no lane: no lifetime, no steps, the arrow skips them */
	in.lane = false;
	fxt_plan_request(&in, &p);
	ck_assert(!p.on[FXT_SLOT_LANE]);
	ck_assert_uint_eq(p.nph, 0);
	ck_assert(!p.me.on);
	ck_assert_int_eq(p.flow[FXT_SLOT_SUBMIT], FXT_FLOW_BEGIN);
	ck_assert_int_eq(p.flow[FXT_SLOT_WORKER], FXT_FLOW_STEP);

	/* events lost: no arrows at all */
	in.lane = true;
	r.status = REQ_INCOMPLETE;
	fxt_plan_request(&in, &p);
	ck_assert(!p.request_flow);
	for (unsigned s = 0; s < FXT_SLOT_COUNT; s++)
		ck_assert_int_eq(p.flow[s], FXT_FLOW_NONE);

	/* only the submission admitted on its thread: one point, no arrow */
	r.status = REQ_COMPLETE;
	in = (struct fxt_plan_input){ .r = &r, .life = in.life, .submit = true };
	fxt_plan_request(&in, &p);
	ck_assert(!p.request_flow);
}
END_TEST

/* The successor of a link that its predecessor's completion released: it
 * waits for the link, then is issued; the arrow goes from the end of the
 * predecessor's lifetime (late, on its lane) to the step starting there. */
START_TEST(test_plan_link)
{
	struct fxt_drawn pred = { .on = true, .completed = true, .lane = FXT_THREAD(1, 3),
				  .start = 100, .end = 200, .nph = 2, .ph_start = { 100, 150 } };
	struct model_request r = { .status = REQ_COMPLETE, .submit_ts = 100, .complete_ts = 300,
				   .link_prev = 9 };
	struct fxt_plan_input in = { .r = &r, .lane = true, .lane_th = FXT_THREAD(1, 2),
				     .pred = &pred };
	struct fxt_plan p;

	in.life = fxt_plan_lifetime(&r, 0, 1000);
	fxt_plan_request(&in, &p);
	ck_assert_uint_eq(p.nph, 2);
	ck_assert_str_eq(p.ph[0].name, "link wait");
	ck_assert_str_eq(p.ph[1].name, "issue");
	ck_assert_uint_eq(p.ph[1].start, 200);
	ck_assert(p.link[0].ok);
	ck_assert(!p.link[1].ok);
	ck_assert_int_eq(p.link[0].our_type, FXT_FLOW_END);
	ck_assert_int_eq(p.link[0].our_slot, FXT_SLOT_PHASE0 + 1);
	ck_assert_int_eq(p.link[0].late_type, FXT_FLOW_BEGIN);
	ck_assert_uint_eq(p.link[0].late_th.tid, 3);
	ck_assert_uint_eq(p.link[0].late_ts, 150);	/* its last step holds its end */
	ck_assert_uint_eq(fxt_drawn_slice_at(&pred, 199), 150);
	ck_assert_uint_eq(fxt_drawn_slice_at(&pred, 200), 0);

	/* the predecessor's events were lost: no link arrow */
	pred.on = false;
	fxt_plan_request(&in, &p);
	ck_assert(!p.link[0].ok);
	ck_assert_uint_eq(p.nph, 0);
}
END_TEST

START_TEST(test_span_guard)
{
	struct fxt_span_guard g = { 0 };
	struct fxt_koids k = { 0 };

	ck_assert(fxt_span_guard_admit(&g, 10, 20));
	ck_assert(fxt_span_guard_admit(&g, 20, 30));	/* touching */
	ck_assert(fxt_span_guard_admit(&g, 12, 18));	/* nested */
	ck_assert(fxt_span_guard_admit(&g, 5, 35));	/* contains */
	ck_assert(!fxt_span_guard_admit(&g, 15, 25));	/* partial */
	ck_assert(!fxt_span_guard_admit(&g, 1, 11));	/* partial, before */
	ck_assert(fxt_span_guard_admit(&g, 40, 40));
	ck_assert(!fxt_span_guard_admit(&g, 50, 40));
	ck_assert_uint_eq(fxt_koids_next(&k), FXT_KOID_FIRST);
	ck_assert_uint_eq(fxt_koids_next(&k), FXT_KOID_FIRST + 1);
	k.next = FXT_KOID_LAST;
	ck_assert_uint_eq(fxt_koids_next(&k), FXT_KOID_LAST);
	ck_assert_uint_eq(fxt_koids_next(&k), 0);
}
END_TEST

/* ---------------------------------------------------------- golden */

static bool regenerate(void)
{
	const char *v = getenv("RINGSIDE_REGENERATE_GOLDEN");

	return v && *v && strcmp(v, "0");
}

/* A small log with one of everything (see write_paths_log and chain_log),
 * a multishot request, a loss window and a request open at the end. */
static void write_golden(struct scen *sc)
{
	write_paths_log(sc);
	ev_task(sc, T0, WORKER2, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_submit(sc, T0 + 300 * US, TID, PID, RING, 0xb1, OP_ACCEPT, 8, 0, 0);
	ev_complete(sc, T0 + 301 * US, TID, PID, RING, 0xb1, 8, 7, CQE_F_MORE);
	ev_complete(sc, T0 + 302 * US, TID, PID, RING, 0xb1, 8, -125, 0);
	ev_submit(sc, T0 + 310 * US, TID, PID, RING, 0xb2, OP_WRITE, 9, IOSQE_IO_LINK, 0);
	ev_submit(sc, T0 + 311 * US, TID, PID, RING, 0xb3, OP_WRITE, 10, 0, 0);
	ev_link(sc, T0 + 311 * US + 1, TID, PID, RING, 0xb3, 0xb2);
	ev_complete(sc, T0 + 312 * US, TID, PID, RING, 0xb2, 9, -5, 0);
	ev_fail_link(sc, T0 + 313 * US, TID, PID, RING, 0xb2, 0xb3);
	ev_complete(sc, T0 + 314 * US, TID, PID, RING, 0xb3, 10, -125, 0);
	sc->cpu = 1;
	ev_lost(sc, T0 + 320 * US, T0 + 330 * US, 2);
	sc->cpu = 0;
	ev_submit(sc, T0 + 340 * US, TID, PID, RING, 0xb4, OP_READ, 11, 0, 0);
}

/* ------------------------------------------- FXT against requests.csv */

/* A request's lifetime on its lane, by its "request" argument. */
static const struct fxtr_slice *lifetime_of(const struct fxtr_model *m, int64_t id)
{
	for (size_t i = 0; i < m->nslices; i++) {
		const struct fxtr_slice *s = &m->slices[i];
		const struct fxtr_arg *a;

		if (s->depth || !is_lane(m, s->pid, s->tid))
			continue;
		a = fxtr_slice_arg(m, s, "request");
		if (a && (int64_t)a->u == id)
			return s;
	}
	return NULL;
}

/* A string argument, or dflt when the slice has none. */
static const char *str_arg_or(const struct fxtr_model *m, const struct fxtr_slice *s,
			      const char *name, const char *dflt)
{
	return fxtr_slice_arg(m, s, name) ? str_arg(m, s, name) : dflt;
}

/* The "a -> b" of an FXT pending argument from the two CSV columns. */
static void pending_text(char *buf, size_t len, const char *enter, const char *exit)
{
	snprintf(buf, len, "%s -> %s", *enter ? enter : "?", *exit ? exit : "?");
}

/*
 * Every system call of log, as its FXT slice (on its thread, at its
 * entry, named after it) and as its row of syscalls.csv, says the same.
 */
static void check_syscalls_agree_with_csv(const struct fxtr_model *m, const char *csvdir)
{
	char *path = test_path(csvdir, "syscalls.csv");
	struct test_csv t;
	size_t rows = 0, enters = 0;

	test_csv_open(&t, path);
	while (test_csv_next(&t)) {
		const char *kind = test_csv_cell(&t, "syscall");
		uint64_t tid = strtoull(test_csv_cell(&t, "tid"), NULL, 10);
		int64_t at = strtoll(test_csv_cell(&t, "enter_ns"), NULL, 10);
		const struct fxtr_slice *s = NULL;
		char want[64];

		for (size_t i = 0; i < m->nslices && !s; i++)
			if (m->slices[i].tid == tid && m->slices[i].ts == at &&
			    !strcmp(m->slices[i].name, kind))
				s = &m->slices[i];
		ck_assert_msg(s != NULL, "no %s slice at %lld on thread %llu", kind,
			      (long long)at, (unsigned long long)tid);
		ck_assert_int_eq(s->dur, strtoll(test_csv_cell(&t, "duration_ns"), NULL, 10));
		ck_assert_int_eq(int_arg(m, s, "ret"), strtoll(test_csv_cell(&t, "ret"), NULL, 10));
		ck_assert_str_eq(str_arg_or(m, s, "errno", ""), test_csv_cell(&t, "errno"));
		if (!strcmp(kind, "io_uring_enter")) {
			ck_assert_int_eq(int_arg(m, s, "fd"), strtoll(test_csv_cell(&t, "fd"), NULL, 10));
			ck_assert_str_eq(str_arg(m, s, "flags"), test_csv_cell(&t, "flags"));
			ck_assert_int_eq(int_arg(m, s, "to_submit"),
					 strtoll(test_csv_cell(&t, "to_submit"), NULL, 10));
			ck_assert_int_eq(int_arg(m, s, "min_complete"),
					 strtoll(test_csv_cell(&t, "min_complete"), NULL, 10));
			ck_assert_int_eq(int_arg(m, s, "submitted"),
					 strtoll(test_csv_cell(&t, "submitted"), NULL, 10));
			ck_assert_int_eq(int_arg(m, s, "completed"),
					 strtoll(test_csv_cell(&t, "completed"), NULL, 10));
			pending_text(want, sizeof(want), test_csv_cell(&t, "sq_pending_enter"),
				     test_csv_cell(&t, "sq_pending_exit"));
			ck_assert_str_eq(str_arg(m, s, "sq_pending"), want);
			pending_text(want, sizeof(want), test_csv_cell(&t, "cq_pending_enter"),
				     test_csv_cell(&t, "cq_pending_exit"));
			ck_assert_str_eq(str_arg(m, s, "cq_pending"), want);
			enters++;
		} else if (!strcmp(kind, "io_uring_register")) {
			ck_assert_str_eq(str_arg(m, s, "opcode"), test_csv_cell(&t, "register_opcode"));
		}
		rows++;
	}
	ck_assert_uint_gt(enters, 0);
	ck_assert_uint_ge(rows, enters);
	test_csv_close(&t);
	free(path);
}

/* A counter track by name, in whatever process; the one of that name. */
static size_t counter_track(const struct fxtr_model *m, const char *name)
{
	size_t found = m->ncounters;

	for (size_t i = 0; i < m->ncounters; i++) {
		if (strcmp(m->counters[i].name, name))
			continue;
		ck_assert_msg(found == m->ncounters, "two counter tracks named %s", name);
		found = i;
	}
	ck_assert_msg(found < m->ncounters, "no counter track named %s", name);
	return found;
}

/*
 * Every row of counters.csv is the next sample of its FXT counter track
 * ("ring N:<counter>:0"), and those tracks have no other samples: the
 * SQ and CQ pending counts, written as one FXT record, import as the two
 * tracks and samples they were as two.
 */
static void check_counters_agree_with_csv(const struct fxtr_model *m, const char *csvdir)
{
	char *path = test_path(csvdir, "counters.csv"), name[96];
	size_t *next = calloc(m->ncounters + 1, sizeof(*next)), rows = 0, pairs = 0;
	struct test_csv t;

	ck_assert_ptr_nonnull(next);
	test_csv_open(&t, path);
	while (test_csv_next(&t)) {
		int64_t at = strtoll(test_csv_cell(&t, "time_ns"), NULL, 10);
		const struct fxtr_counter *c;
		size_t k;

		snprintf(name, sizeof(name), "ring %s:%s:0", test_csv_cell(&t, "ring"),
			 test_csv_cell(&t, "counter"));
		k = counter_track(m, name);
		c = &m->counters[k];
		ck_assert_msg(next[k] < c->nsamples, "%s: more rows than samples", name);
		ck_assert_int_eq(c->samples[next[k]].ts, at);
		ck_assert(c->samples[next[k]].value ==
			  (double)strtoll(test_csv_cell(&t, "value"), NULL, 10));
		next[k]++;
		if (!strcmp(test_csv_cell(&t, "counter"), "cq_pending"))
			pairs++;
		rows++;
	}
	for (size_t k = 0; k < m->ncounters; k++)
		if (!strncmp(m->counters[k].name, "ring ", 5))
			ck_assert_msg(next[k] == m->counters[k].nsamples, "%s: %zu samples, %zu rows",
				      m->counters[k].name, m->counters[k].nsamples, next[k]);
	ck_assert_uint_gt(pairs, 0);
	ck_assert_uint_gt(rows, pairs);
	test_csv_close(&t);
	free(next);
	free(path);
}

/*
 * Every request of log, as its FXT lifetime's arguments and as its row of
 * requests.csv, says the same; so do every system call and counter sample.
 * The two outputs are built apart; an FXT
 * argument that took another's text (a chain member's sqe_flags once
 * showed the start of its chain text) or a column that drifted shows.
 * calls_only: log has no requests (and so no chains).
 */
static void check_fxt_agrees_with_csv(const char *log, bool calls_only)
{
	struct options o = { .log_path = log, .quiet = true };
	struct output_config cfg = { .quiet = true };
	struct output *out;
	struct conv c;
	struct test_csv t;
	char err[512], *csvdir, *path;
	size_t rows = 0, chains = 0;

	convert_fxt(log, NULL, &c);
	csvdir = test_path(c.dir, "csv");
	cfg.path = csvdir;
	out = output_csv_new(&cfg, err, sizeof(err));
	ck_assert_msg(out != NULL, "%s", err);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	path = test_path(csvdir, "requests.csv");
	test_csv_open(&t, path);
	while (test_csv_next(&t)) {
		int64_t id = strtoll(test_csv_cell(&t, "req_id"), NULL, 10);
		const struct fxtr_slice *s = lifetime_of(c.m, id);
		const char *res = test_csv_cell(&t, "result");
		const char *chain_id = test_csv_cell(&t, "chain_id"), *cflags;

		ck_assert_msg(s != NULL, "%s: request %lld has no lifetime", log, (long long)id);
		ck_assert_uint_eq((uint64_t)int_arg(c.m, s, "user_data"),
				  strtoull(test_csv_cell(&t, "user_data"), NULL, 0));
		ck_assert_str_eq(str_arg(c.m, s, "path"), test_csv_cell(&t, "path"));
		ck_assert_str_eq(str_arg_or(c.m, s, "sqe_flags", "none"),
				 test_csv_cell(&t, "sqe_flags"));
		ck_assert_str_eq(str_arg_or(c.m, s, "modifiers", "none"),
				 test_csv_cell(&t, "modifiers"));
		/* CSV: "none" for a CQE without flags, empty without a CQE;
		 * FXT: the argument only when there are flags */
		cflags = test_csv_cell(&t, "cflags");
		ck_assert_str_eq(str_arg_or(c.m, s, "cflags", ""), strcmp(cflags, "none") ? cflags : "");
		ck_assert_str_eq(str_arg_or(c.m, s, "errno", ""), test_csv_cell(&t, "errno"));
		if (*res)
			ck_assert_int_eq(int_arg(c.m, s, "result"), strtoll(res, NULL, 10));
		if (!strcmp(test_csv_cell(&t, "status"), "complete"))
			ck_assert_str_eq(s->name, test_csv_cell(&t, "opcode"));
		if (*chain_id) {
			char want[96];

			snprintf(want, sizeof(want), "member %s of the chain headed by request %s",
				 test_csv_cell(&t, "chain_pos"), chain_id);
			ck_assert_str_eq(str_arg(c.m, s, "chain"), want);
			chains++;
		}
		rows++;
	}
	if (!calls_only) {
		ck_assert_uint_gt(rows, 0);
		ck_assert_uint_gt(chains, 0);
	}
	check_syscalls_agree_with_csv(c.m, csvdir);
	check_counters_agree_with_csv(c.m, csvdir);
	test_csv_close(&t);
	free(path);
	free(csvdir);
	conv_free(&c);
}

START_TEST(test_fxt_agrees_with_csv)
{
	char *real = test_path(test_srcdir(), "tests/golden/real_v2.0.log");
	struct scen sc;

	scen_open(&sc, "golden.log");
	write_golden(&sc);
	scen_finish(&sc);
	check_fxt_agrees_with_csv(sc.path, false);
	check_fxt_agrees_with_csv(real, false);
	free(real);
	scen_free(&sc);

	/* More io_uring_enter flags and pending counts than the FXT output
	 * keeps texts for (TEXT_CACHE_SIZE, 256): each call's own, also
	 * when another took its entry. */
	scen_open(&sc, "texts.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 4, 0);
	for (unsigned i = 0; i < 600; i++) {
		ev_enter_begin(&sc, T0 + (10 + 2 * i) * US, TID, PID, RING, 4, i % 300, 0,
			       i % 300 * 5);
		ev_enter_end(&sc, T0 + (11 + 2 * i) * US, TID, PID, RING, 0);
	}
	scen_finish(&sc);
	check_fxt_agrees_with_csv(sc.path, true);
	scen_free(&sc);
}
END_TEST

/*
 * Each lifetime names its request's file, as valid UTF-8 (a byte that is
 * not becomes U+FFFD): the text is made once per file, so requests of two
 * files in turns, and one of none, must each get their own.
 */
START_TEST(test_file_paths)
{
	static const char srv[] = "data\0srv\0", bad[] = "log\xff\0var\0";
	static const char *const want[] = { "/srv/data", "/var/log\xef\xbf\xbd", NULL };
	struct scen sc;
	struct conv c;

	scen_open(&sc, "files.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_file(&sc, T0, 0xf1, 8u << 20 | 1, 11, 0, 1, 0100644, "ext4", srv, sizeof(srv) - 1, 2, 0);
	ev_file(&sc, T0, 0xf2, 8u << 20 | 1, 12, 0, 1, 0100644, "ext4", bad, sizeof(bad) - 1, 2, 0);
	for (unsigned i = 0; i < 9; i++) {
		uint64_t t = T0 + (i + 1) * 10 * US;

		ev_submit(&sc, t, TID, PID, RING, 0x100 + i, OP_READ, i, 0, 0);
		if (i % 3 == 2)
			ev_complete(&sc, t + 2 * US, TID, PID, RING, 0x100 + i, i, 0, 0);
		else
			ev_complete_file(&sc, t + 2 * US, TID, PID, RING, 0x100 + i, i, 4096,
					 i % 3 ? 0xf2 : 0xf1);
	}
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	check_clean(c.m);
	for (unsigned i = 0; i < 9; i++) {
		const struct fxtr_slice *s = lifetime(c.m, i);
		const struct fxtr_arg *a;

		ck_assert_msg(s != NULL, "no lifetime for request %u", i);
		a = fxtr_slice_arg(c.m, s, "file");
		if (!want[i % 3]) {
			ck_assert_msg(a == NULL, "request %u: a file without one", i);
			continue;
		}
		ck_assert_msg(a && a->type == FXTR_ARG_STRING, "request %u: no file", i);
		ck_assert_uint_eq(a->str_len, strlen(want[i % 3]));
		ck_assert_msg(!memcmp(a->str, want[i % 3], a->str_len), "request %u: file %.*s", i,
			      (int)a->str_len, a->str);
	}
	conv_free(&c);
	scen_free(&sc);
}
END_TEST

START_TEST(test_golden)
{
	char *rel = test_path(test_srcdir(), "tests/golden/convert_fxt.fxt");
	struct scen sc;
	struct conv c;
	unsigned char *got, *exp;
	size_t gl, el;

	scen_open(&sc, "golden.log");
	write_golden(&sc);
	scen_finish(&sc);
	convert_fxt(sc.path, NULL, &c);
	check_clean(c.m);
	got = test_read_file(c.path, &gl);
	if (regenerate())
		test_write_file(rel, got, gl);
	exp = test_read_file(rel, &el);
	if (gl != el || memcmp(got, exp, gl)) {
		size_t i = 0;

		while (i < gl && i < el && got[i] == exp[i])
			i++;
		ck_abort_msg("%s differs from %s at byte %zu (run with RINGSIDE_REGENERATE_GOLDEN=1 to update on purpose)",
			     c.path, rel, i);
	}
	free(got);
	free(exp);
	/* Deterministic: a second conversion gives the same bytes. */
	{
		struct conv c2;

		convert_fxt(sc.path, NULL, &c2);
		got = test_read_file(c2.path, &gl);
		exp = test_read_file(c.path, &el);
		ck_assert_uint_eq(gl, el);
		ck_assert_int_eq(memcmp(got, exp, gl), 0);
		free(got);
		free(exp);
		conv_free(&c2);
	}
	conv_free(&c);
	scen_free(&sc);
	free(rel);
}
END_TEST

/* ------------------------------------------------------- command line */

static const char *convert_binary(void)
{
	const char *p = getenv("URING_CONVERT");

	return p && *p ? p : "converter/uring-convert";
}

/* Run uring-convert with stdout on out_path (or a pseudo-terminal when
 * NULL); returns the exit status, stderr in *errout. */
static int run_cli(const char *const *args, const char *out_path, char **errout)
{
	char *dir = test_tmpdir();
	char *errp = test_path(dir, "stderr");
	posix_spawn_file_actions_t fa;
	const char *argv[32];
	size_t n = 0, size;
	int status, pty = -1;
	pid_t pid;

	argv[n++] = convert_binary();
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	if (out_path) {
		posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	} else {
		pty = posix_openpt(O_RDWR | O_NOCTTY);
		ck_assert_int_ge(pty, 0);
		ck_assert_int_eq(grantpt(pty), 0);
		ck_assert_int_eq(unlockpt(pty), 0);
		posix_spawn_file_actions_addopen(&fa, 1, ptsname(pty), O_WRONLY | O_NOCTTY, 0);
	}
	posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	ck_assert_msg(posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ) == 0,
		      "cannot run %s (set URING_CONVERT)", argv[0]);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (pty >= 0)
		close(pty);
	*errout = (char *)test_read_file(errp, &size);
	test_rmtree(dir);
	free(dir);
	free(errp);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static unsigned lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* n requests, one a millisecond, each submitted and reaped by its own
 * io_uring_enter. */
static void write_steady_log(struct scen *sc, unsigned n)
{
	ev_task(sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(sc, T0, TID, PID, RING, 3, 0);
	for (unsigned i = 0; i < n; i++) {
		uint64_t t = T0 + (1 + i) * MS;

		ev_enter_begin(sc, t, TID, PID, RING, 3, 1, 1, 1);
		ev_submit(sc, t + 1 * US, TID, PID, RING, 0x1000 + i, OP_NOP, 1000 + i, 0, 0);
		ev_complete(sc, t + 2 * US, TID, PID, RING, 0x1000 + i, 1000 + i, 0, 0);
		ev_enter_end(sc, t + 3 * US, TID, PID, RING, 1);
	}
}

/* Convert log to FXT at out, not quiet; what it wrote on stderr. */
static char *convert_warnings(const char *log, const struct options *extra, const char *out)
{
	struct options o = extra ? *extra : (struct options){ 0 };
	struct output_config cfg = { .path = out, .force = true, .quiet = o.quiet };
	char *dir = test_tmpdir(), *errp = test_path(dir, "stderr"), *text, err[512];
	struct output *fxt;
	size_t size;
	int saved, fd;

	o.log_path = log;
	fxt = output_fxt_new(&cfg, FXT_LANES_DEFAULT, err, sizeof(err));
	ck_assert_msg(fxt != NULL, "%s", err);
	fflush(stderr);
	saved = dup(2);
	fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
	close(fd);
	ck_assert_int_eq(convert_into(&o, fxt, stderr), 0);
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	text = (char *)test_read_file(errp, &size);
	test_rmtree(dir);
	free(dir);
	free(errp);
	return text;
}

static size_t file_size(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (size_t)st.st_size;
}

/*
 * A trace past output_fxt_large_bytes: one warning line that says how to
 * open it and gives an --end that keeps it under that size, and does
 * (with more than half of it); none below the size, or with -q.
 */
START_TEST(test_large_trace)
{
	struct scen sc;
	char *dir = test_tmpdir(), *out = test_path(dir, "t.fxt"), *err, *end, *p;
	char end_arg[64];
	struct options o = { 0 };
	size_t whole;

	scen_open(&sc, "steady.log");
	write_steady_log(&sc, 2000);
	scen_finish(&sc);
	output_fxt_large_bytes = 64 << 10;

	err = convert_warnings(sc.path, NULL, out);
	whole = file_size(out);
	ck_assert_uint_gt(whole, 10 * output_fxt_large_bytes);
	ck_assert_uint_eq(lines(err), 1);
	ck_assert_msg(strstr(err, "of FXT, more than Perfetto's UI may hold in a browser: "
			      "open it with trace_processor --httpd") != NULL, "%s", err);
	ck_assert_msg(strstr(err, " keeps it under 64 KiB\n") != NULL, "%s", err);
	end = strstr(err, "--end=");
	ck_assert_ptr_nonnull(end);
	end += strlen("--end=");
	p = strchr(end, ' ');
	ck_assert_ptr_nonnull(p);
	*p = '\0';
	/* o.end keeps a pointer to its text, as it does into argv */
	snprintf(end_arg, sizeof(end_arg), "%s", end);
	ck_assert_int_eq(parse_time_arg(end_arg, &o.end), 0);
	free(err);

	err = convert_warnings(sc.path, &o, out);
	ck_assert_str_eq(err, "");
	ck_assert_uint_lt(file_size(out), output_fxt_large_bytes);
	ck_assert_uint_gt(file_size(out), output_fxt_large_bytes / 2);
	free(err);

	o = (struct options){ .quiet = true };
	err = convert_warnings(sc.path, &o, out);
	ck_assert_str_eq(err, "");
	free(err);

	output_fxt_large_bytes = whole;
	err = convert_warnings(sc.path, NULL, out);
	ck_assert_str_eq(err, "");
	free(err);

	scen_free(&sc);
	test_rmtree(dir);
	free(dir);
	free(out);
}
END_TEST

START_TEST(test_cli)
{
	struct scen sc;
	char *dir = test_tmpdir();
	char *out = test_path(dir, "t.fxt"), *so = test_path(dir, "stdout.fxt");
	char *err;
	struct fxtr_model *m;
	char msg[256];
	size_t size;
	unsigned char *bytes;

	scen_open(&sc, "cli.log");
	write_wide_log(&sc, 70);
	scen_finish(&sc);
	{
		/* A terminal on stdout: refused, one line. */
		const char *args[] = { "--format=fxt", sc.path, NULL };

		ck_assert_int_eq(run_cli(args, NULL, &err), 1);
		ck_assert_ptr_nonnull(strstr(err, "binary"));
		ck_assert_ptr_nonnull(strstr(err, "-o FILE"));
		ck_assert_uint_eq(lines(err), 1);
		free(err);
	}
	{
		/* stdout redirected to a file: fine. */
		const char *args[] = { "-q", "--format=fxt", sc.path, NULL };

		ck_assert_int_eq(run_cli(args, so, &err), 0);
		ck_assert_str_eq(err, "");
		free(err);
		ck_assert_int_eq(fxtr_read_file(so, &m, msg, sizeof(msg)), 0);
		ck_assert_uint_eq(m->nissues, 0);
		fxtr_free(m);
	}
	{
		/* -o FILE; the lane limit reported on stderr (one line). */
		const char *args[] = { "--format=fxt", "-o", out, sc.path, NULL };

		ck_assert_int_eq(run_cli(args, "/dev/null", &err), 0);
		ck_assert_ptr_nonnull(strstr(err, "ring 1 (pid 100): 6 requests found all 64 lanes busy"));
		ck_assert_uint_eq(lines(err), 1);
		free(err);
		bytes = test_read_file(out, &size);
		ck_assert_uint_gt(size, 1000);
		ck_assert_int_eq(memcmp(bytes, "\x10\x00\x04\x46\x78\x54\x16\x00", 8), 0);
		free(bytes);
	}
	{
		/* Existing file: refused without --force, overwritten with it. */
		const char *args[] = { "--format=fxt", "-o", out, sc.path, NULL };
		const char *fargs[] = { "-q", "--force", "--lanes=70", "--format=fxt", "-o", out, sc.path, NULL };

		ck_assert_int_eq(run_cli(args, "/dev/null", &err), 1);
		ck_assert_ptr_nonnull(strstr(err, "already exists"));
		ck_assert_uint_eq(lines(err), 1);
		free(err);
		ck_assert_int_eq(run_cli(fargs, "/dev/null", &err), 0);
		ck_assert_str_eq(err, "");
		free(err);
	}
	{
		const char *bad[][6] = {
			{ "--lanes=0", "--format=fxt", "-o", out, sc.path, NULL },
			{ "--lanes=4097", "--format=fxt", "-o", out, sc.path, NULL },
			{ "--lanes=x", "--format=fxt", "-o", out, sc.path, NULL },
		};

		for (size_t i = 0; i < 3; i++) {
			ck_assert_int_eq(run_cli(bad[i], "/dev/null", &err), 2);
			ck_assert_ptr_nonnull(strstr(err, "--lanes"));
			ck_assert_uint_eq(lines(err), 1);
			free(err);
		}
	}
	{
		/* A full disk: one line naming the file, exit 1. */
		const char *args[] = { "-q", "--force", "--format=fxt", "-o", "/dev/full", sc.path, NULL };

		ck_assert_int_eq(run_cli(args, "/dev/null", &err), 1);
		ck_assert_ptr_nonnull(strstr(err, "/dev/full: write error"));
		ck_assert_uint_eq(lines(err), 1);
		free(err);
	}
	{
		/* Writing over the log itself is refused. */
		const char *args[] = { "--force", "--format=fxt", "-o", sc.path, sc.path, NULL };

		ck_assert_int_eq(run_cli(args, "/dev/null", &err), 1);
		ck_assert_ptr_nonnull(strstr(err, "log being converted"));
		free(err);
	}
	{
		const char *args[] = { "--help", NULL };

		ck_assert_int_eq(run_cli(args, so, &err), 0);
		free(err);
		bytes = test_read_file(so, &size);
		ck_assert_ptr_nonnull(strstr((char *)bytes, "--lanes"));
		ck_assert_ptr_nonnull(strstr((char *)bytes, "lane NN"));
		free(bytes);
	}
	scen_free(&sc);
	test_rmtree(dir);
	free(dir);
	free(out);
	free(so);
}
END_TEST

static Suite *fxt_output_suite(void)
{
	Suite *s = suite_create("fxt_output");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_sqpoll_setup_register);
	tcase_add_test(tc, test_processes_rings_threads);
	tcase_add_test(tc, test_link_chains);
	tcase_add_test(tc, test_fxt_agrees_with_csv);
	tcase_add_test(tc, test_link_outside_selection);
	tcase_add_test(tc, test_link_timeout);
	tcase_add_test(tc, test_overlapping_work);
	tcase_add_test(tc, test_hostile_same_time);
	tcase_add_test(tc, test_far_future);
	tcase_add_test(tc, test_multishot_aux_overflow);
	tcase_add_test(tc, test_cqes_posted_by_kworker);
	tcase_add_test(tc, test_losses_and_ends);
	tcase_add_test(tc, test_lane_limit_default);
	tcase_add_test(tc, test_lane_limit_small);
	tcase_add_test(tc, test_lane_limit_large);
	tcase_add_test(tc, test_random_mix);
	tcase_add_test(tc, test_lanes_allocator);
	tcase_add_test(tc, test_span_guard);
	tcase_add_test(tc, test_plan_lifetime);
	tcase_add_test(tc, test_plan_iowq);
	tcase_add_test(tc, test_plan_link);
	tcase_add_test(tc, test_file_paths);
	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_large_trace);
	tcase_add_test(tc, test_cli);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(fxt_output_suite)
