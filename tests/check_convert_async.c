// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The model and the output on two threads (libcore/output_async.c): every
 * golden log and synthetic logs with many requests convert byte for byte
 * the same with --threads=1, --threads=2 and --threads=8 (CSV's tables
 * formatted on lanes), in every format, also with a selection; the output
 * really runs on another thread (by default for fxt and csv only, with
 * more than one CPU); errors of begin() and end() come out the same; the
 * wrapper's mirrors hold what the model's objects held at each call and
 * their final state in end().  Blocks consumed on several lanes
 * (libcore/block_queue.c) are published in order, by more than one lane.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "block_queue.h"
#include "convert_test.h"
#include "fxt_layout.h"
#include "output.h"
#include "output_async.h"
#include "test_util.h"

#define US 1000ull
#define MS 1000000ull
#define RING0 0x7a7a000010000000ull
#define PID 700
#define WORKER 702

enum { FMT_SUMMARY, FMT_JSON, FMT_CSV, FMT_FXT, FMT_FIO, NFMT };

static const char *const fmt_name[NFMT] = { "summary", "json", "csv", "fxt", "fio" };

/* threads > 1 also gives CSV's requests.csv its own thread. */
static struct output *make_output(int fmt, const char *path, unsigned threads, char *err,
				  size_t errlen)
{
	struct output_config cfg = { .path = path, .force = true, .quiet = true,
				     .threads = threads };

	switch (fmt) {
	case FMT_SUMMARY:
		return output_summary_new(&cfg, err, errlen);
	case FMT_JSON:
		return output_json_new(&cfg, err, errlen);
	case FMT_CSV:
		return output_csv_new(&cfg, err, errlen);
	case FMT_FXT:
		return output_fxt_new(&cfg, FXT_LANES_DEFAULT, err, errlen);
	default:
		return output_fio_new(&cfg, false, err, errlen);
	}
}

/* fmt's output of o->log_path at path with o->threads; the exit status,
 * stderr's lines in *errs (free it). */
static int convert_to(const struct options *o, int fmt, const char *path, char **errs)
{
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *errf = open_memstream(&text, &len);
	struct output *out;
	int ret;

	ck_assert_ptr_nonnull(errf);
	out = make_output(fmt, path, o->threads, err, sizeof(err));
	ck_assert_msg(out != NULL, "%s: %s", fmt_name[fmt], err);
	ret = convert_into(o, out, errf);
	fclose(errf);
	*errs = text;
	return ret;
}

/* The same bytes at a and b: files, or directories of files. */
static void same_bytes(const char *a, const char *b, const char *what)
{
	struct stat st;
	unsigned char *x, *y;
	size_t xl, yl;

	ck_assert_msg(stat(a, &st) == 0, "%s: %s", a, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(a);
		struct dirent *e;
		unsigned na = 0, nb = 0;

		ck_assert_ptr_nonnull(d);
		while ((e = readdir(d))) {
			char *pa, *pb;

			if (e->d_name[0] == '.')
				continue;
			pa = test_path(a, e->d_name);
			pb = test_path(b, e->d_name);
			same_bytes(pa, pb, what);
			free(pa);
			free(pb);
			na++;
		}
		closedir(d);
		d = opendir(b);
		ck_assert_ptr_nonnull(d);
		while ((e = readdir(d)))
			nb += e->d_name[0] != '.';
		closedir(d);
		ck_assert_msg(na == nb && na > 0, "%s: %u files in %s, %u in %s", what, na, a, nb, b);
		return;
	}
	x = test_read_file(a, &xl);
	y = test_read_file(b, &yl);
	if (xl != yl || memcmp(x, y, xl)) {
		size_t i = 0;

		while (i < xl && i < yl && x[i] == y[i])
			i++;
		ck_abort_msg("%s: %s and %s differ at byte %zu (sizes %zu, %zu)", what, a, b, i,
			     xl, yl);
	}
	free(x);
	free(y);
}

/* Every format of log, one thread, two, and eight (CSV: four lanes per
 * table): the same bytes, the same messages, the same exit status. */
static void compare_threads(const char *log, const struct options *sel, const char *tmp)
{
	static const unsigned threads[] = { 1, 2, 8 };
	enum { N = sizeof(threads) / sizeof(threads[0]) };

	for (int fmt = 0; fmt < NFMT; fmt++) {
		char *path[N], *errs[N], what[512];
		int ret[N];

		for (int k = 0; k < N; k++) {
			struct options o = *sel;
			char name[32];

			o.log_path = log;
			o.threads = threads[k];
			snprintf(name, sizeof(name), "%s.%u", fmt_name[fmt], threads[k]);
			path[k] = test_path(tmp, name);
			ret[k] = convert_to(&o, fmt, path[k], &errs[k]);
		}
		for (int k = 1; k < N; k++) {
			snprintf(what, sizeof(what), "%s, --format=%s, --threads=%u", log,
				 fmt_name[fmt], threads[k]);
			ck_assert_msg(ret[0] == 0, "%s: exit %d: %s", what, ret[0], errs[0]);
			ck_assert_int_eq(ret[0], ret[k]);
			ck_assert_msg(!strcmp(errs[0], errs[k]), "%s: messages differ:\n%s---\n%s",
				      what, errs[0], errs[k]);
			same_bytes(path[0], path[k], what);
		}
		for (int k = 0; k < N; k++) {
			free(path[k]);
			free(errs[k]);
		}
	}
}

/*
 * Many requests on three rings over every path the model knows, with
 * files, multishot and aux CQEs, overflows, failures, chains, losses,
 * renamed and exiting threads and a re-created ring: several hundred
 * blocks of messages.
 */
static void write_busy_log(const char *path, unsigned n)
{
	static const char file_a[] = "data\0srv\0", file_b[] = "log\xff\0var\0";
	struct synth_options opt = { .ncpus = 2, .hostname = "busy" };
	struct scen sc = { 0 };
	uint64_t t = T0;

	sc.s = synth_log_create(path, &opt);
	ev_task(&sc, t, PID, PID, "busy,app", 0, EV_TASK_EXISTING);
	ev_task(&sc, t, PID + 1, PID, "io \"w\"", 0, EV_TASK_EXISTING);
	ev_task(&sc, t, WORKER, PID, "iou-wrk-700", EV_PF_IO_WORKER, EV_TASK_FORK);
	ev_file(&sc, t, 0xf1, 8u << 20 | 1, 11, 040002, 1, 0100644, "ext4", file_a,
		sizeof(file_a) - 1, 2, 0);
	ev_file(&sc, t, 0xf2, 8u << 20 | 1, 12, 02001, 1, 0100644, "ext4", file_b,
		sizeof(file_b) - 1, 2, 0);
	for (unsigned k = 0; k < 3; k++)
		ev_create(&sc, t + k, PID, PID, RING0 + k, 5 + (int)k, k == 2 ? 1u << 12 : 0);
	for (unsigned i = 0; i < n; i++) {
		uint32_t tid = PID + (i & 1);
		uint64_t ring = RING0 + i % 3, req = 0x100000 + 16ull * i, ud = i;

		t = T0 + 1 * MS + i * 40 * US;
		ev_enter_begin(&sc, t, tid, PID, ring, 5 + (int)(i % 3), 2, 1, 1);
		switch (i % 8) {
		case 0:		/* inline, on a file */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 22, ud, 0, 0);
			ev_complete_file(&sc, t + 2 * US, tid, PID, ring, req, ud, 4096,
					 i & 8 ? 0xf1 : 0xf2);
			break;
		case 1:		/* io-wq, hashed, on a file */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 23, ud, 16, 0);
			ev_queue_async(&sc, t + 2 * US, tid, PID, ring, req, ud, i & 2,
				       (uint32_t)(i & 3) << 24);
			ev_work(&sc, true, t + 3 * US, WORKER, PID, ring, req);
			ev_complete_file(&sc, t + 9 * US, WORKER, PID, ring, req, ud, 512, 0xf1);
			ev_work(&sc, false, t + 10 * US, WORKER, PID, ring, req);
			break;
		case 2:		/* poll, then task work */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 27, ud, 0, 0);
			ev_req(&sc, EV_POLL_ARM, t + 2 * US, tid, PID, ring, req, ud);
			ev_req(&sc, EV_TASK_ADD, t + 8 * US, 0, 0, ring, req, ud);
			ev_complete(&sc, t + 9 * US, tid, PID, ring, req, ud, 1, 0);
			ev_tw_run(&sc, t + 10 * US, tid, PID, 1);
			break;
		case 3:		/* multishot, and a CQE of no request */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 13, ud, 0, 0);
			ev_complete(&sc, t + 2 * US, tid, PID, ring, req, ud, 7, 2);
			ev_complete(&sc, t + 3 * US, tid, PID, ring, req, ud, 8, 2);
			ev_complete(&sc, t + 4 * US, tid, PID, ring, req, ud, 0, 0);
			ev_complete(&sc, t + 5 * US, tid, PID, ring, 0, 99, 0, 0);
			break;
		case 4:		/* a chain whose head fails */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 23, ud, 4, 0);
			ev_submit(&sc, t + 2 * US, tid, PID, ring, req + 1, 23, ud + n, 0, 0);
			ev_link(&sc, t + 2 * US + 1, tid, PID, ring, req + 1, req);
			ev_complete(&sc, t + 3 * US, tid, PID, ring, req, ud, -28, 0);
			ev_fail_link(&sc, t + 3 * US + 1, tid, PID, ring, req, req + 1);
			ev_complete(&sc, t + 4 * US, tid, PID, ring, req + 1, ud + n, -125, 0);
			break;
		case 5:		/* an overflowed CQE, sometimes dropped */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 0, ud, 0, 0);
			ev_overflow(&sc, t + 2 * US, tid, PID, ring, ud, 0, i & 16);
			break;
		case 6:		/* failed at init */
			ev_req_failed(&sc, t + 1 * US, tid, PID, ring, req, 22, ud, -9);
			ev_complete(&sc, t + 2 * US, tid, PID, ring, req, ud, -9, 0);
			break;
		default:	/* waited for, drained */
			ev_submit(&sc, t + 1 * US, tid, PID, ring, req, 3, ud, 2, 0);
			ev_req(&sc, EV_DEFER, t + 2 * US, tid, PID, ring, req, ud);
			ev_cqring_wait(&sc, t + 3 * US, tid, PID, ring, 1);
			ev_complete(&sc, t + 20 * US, tid, PID, ring, req, ud, 0, 0);
			break;
		}
		ev_enter_end(&sc, t + 30 * US, tid, PID, ring, 2);
		if (i % 997 == 500) {	/* a loss window on the other CPU */
			sc.cpu = 1;
			ev_lost(&sc, t + 31 * US, t + 32 * US, 2);
			sc.cpu = 0;
		}
		if (i % 1500 == 700)	/* renamed: task() again, mid-stream */
			ev_task(&sc, t + 33 * US, PID + 1, PID, i & 1 ? "io-b" : "io-a", 0,
				EV_TASK_RENAME);
		if (i % 4000 == 3999)	/* ring 1 re-created: a new ring number */
			ev_create(&sc, t + 34 * US, PID, PID, RING0, 5, 0);
		if ((i & 1023) == 1023)
			synth_flush(sc.s);
	}
	t += 1 * MS;
	ev_task_exit(&sc, t, PID + 1, PID);
	ev_submit(&sc, t + 1 * US, PID, PID, RING0 + 1, 0x1, 22, 1, 0, 0);	/* open at end */
	synth_finish(sc.s, "signal");
}

/* A copy of log with bytes flipped at a few places: damaged frames,
 * losses with a detail. */
static void write_damaged(const char *log, const char *out)
{
	size_t size;
	unsigned char *b = test_read_file(log, &size);

	for (unsigned k = 1; k <= 3; k++)
		b[k * size / 4] ^= 0x5a;
	test_write_file(out, b, size);
	free(b);
}

START_TEST(test_golden_logs_same_output)
{
	char *rel = test_path(test_srcdir(), "tests/golden");
	char *tmp = test_tmpdir();
	struct options none = { .quiet = true };
	DIR *d = opendir(rel);
	struct dirent *e;
	unsigned nlogs = 0;

	ck_assert_msg(d != NULL, "%s: %s", rel, strerror(errno));
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *log;

		if (len < 5 || strcmp(e->d_name + len - 4, ".log"))
			continue;
		log = test_path(rel, e->d_name);
		compare_threads(log, &none, tmp);
		free(log);
		nlogs++;
	}
	closedir(d);
	ck_assert_uint_ge(nlogs, 6);
	test_rmtree(tmp);
	free(tmp);
	free(rel);
}
END_TEST

START_TEST(test_busy_log_same_output)
{
	char *tmp = test_tmpdir();
	char *log = test_path(tmp, "busy.log"), *bad = test_path(tmp, "damaged.log");
	struct options none = { .quiet = true };
	struct options sel = { .quiet = true, .npids = 1, .pids = { PID }, .nrings = 2,
			       .rings = { 1, 3 } };

	write_busy_log(log, 24000);
	write_damaged(log, bad);
	/* the requests run from 1 s to 2 s after the recording start */
	sel.start = (struct time_arg){ .set = true, .rel_ns = 1200 * MS, .text = "1.2s" };
	sel.end = (struct time_arg){ .set = true, .rel_ns = 1700 * MS, .text = "1.7s" };
	compare_threads(log, &none, tmp);
	compare_threads(log, &sel, tmp);
	/* not quiet: the damage's warnings must come out the same too */
	none.quiet = false;
	compare_threads(bad, &none, tmp);
	test_rmtree(tmp);
	free(tmp);
	free(log);
	free(bad);
}
END_TEST

/* ------------------------------------------------ on another thread */

struct probe {
	struct output base;
	pid_t caller;
	unsigned requests, elsewhere;
};

static pid_t gettid_now(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int probe_begin(struct output *o, const struct output_meta *m, char *e, size_t l)
{
	(void)o; (void)m; (void)e; (void)l;
	return 0;
}

static void probe_request(struct output *o, const struct model_request *r)
{
	struct probe *p = (struct probe *)(void *)o;

	(void)r;
	p->requests++;
	p->elsewhere += gettid_now() != p->caller;
}

static int probe_end(struct output *o, const struct output_totals *t, char *e, size_t l)
{
	(void)o; (void)t; (void)e; (void)l;
	return 0;
}

static void probe_destroy(struct output *o)
{
	(void)o;
}

static const struct output_ops probe_ops = {
	.name = "probe", .begin = probe_begin, .request = probe_request, .end = probe_end,
	.destroy = probe_destroy,
};

/*
 * --threads=2 runs the output on another thread even on one CPU (the
 * tests above could otherwise pass without the wrapper); --threads=1 does
 * not.  By default fxt and csv do when the process may run on more than
 * one CPU, the other formats never.
 */
START_TEST(test_output_thread)
{
	static const struct {
		unsigned threads;
		enum out_format format;
		bool elsewhere;		/* with more than one CPU */
	} cases[] = {
		{ 1, FORMAT_FXT, false }, { 2, FORMAT_SUMMARY, true }, { 2, FORMAT_DEFAULT, true },
		{ 0, FORMAT_FXT, true }, { 0, FORMAT_CSV, true }, { 0, FORMAT_SUMMARY, false },
		{ 0, FORMAT_JSON, false }, { 0, FORMAT_FIO, false }, { 0, FORMAT_DEFAULT, false },
	};
	char *tmp = test_tmpdir(), *log = test_path(tmp, "busy.log");
	cpu_set_t set;
	bool cpus;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	cpus = CPU_COUNT(&set) > 1;
	write_busy_log(log, 2000);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct probe p = { .base.ops = &probe_ops, .caller = gettid_now() };
		struct options o = { .log_path = log, .quiet = true, .threads = cases[i].threads,
				     .format = cases[i].format };
		bool want = cases[i].elsewhere && (cases[i].threads > 1 || cpus);

		ck_assert_int_eq(convert_into(&o, &p.base, stderr), 0);
		ck_assert_uint_gt(p.requests, 1000);
		ck_assert_msg(p.elsewhere == (want ? p.requests : 0),
			      "case %zu: %u of %u requests on another thread", i, p.elsewhere,
			      p.requests);
	}
	test_rmtree(tmp);
	free(tmp);
	free(log);
}
END_TEST

/* A failing begin() (CSV into a file) and end() (FXT onto a full disk)
 * give the same one line and exit status on one thread and on two. */
START_TEST(test_errors_same)
{
	char *tmp = test_tmpdir(), *log = test_path(tmp, "busy.log");
	char *file = test_path(tmp, "not-a-dir");

	write_busy_log(log, 2000);
	test_write_file(file, "x", 1);
	for (int c = 0; c < 2; c++) {
		char *errs[2];
		int ret[2];

		for (int k = 0; k < 2; k++) {
			struct options o = { .log_path = log, .threads = k + 1 };

			ret[k] = convert_to(&o, c ? FMT_FXT : FMT_CSV, c ? "/dev/full" : file,
					    &errs[k]);
		}
		ck_assert_int_eq(ret[0], 1);
		ck_assert_int_eq(ret[1], 1);
		ck_assert_str_eq(errs[0], errs[1]);
		ck_assert_ptr_nonnull(strstr(errs[0], c ? "write error" : "not a directory"));
		free(errs[0]);
		free(errs[1]);
	}
	test_rmtree(tmp);
	free(tmp);
	free(log);
	free(file);
}
END_TEST

/* ------------------------------------------------ the mirrors */

struct seen {
	struct output base;
	const struct model_task *task;	/* as task() gave it */
	const struct model_ring *ring;
	uint32_t pid_at_request;	/* task's pid when request() came */
	uint64_t last_ts_at_request;
	uint64_t requests_at_request;	/* the ring's */
	const char *file_path;
	bool same_in_totals;		/* totals point to what task()/ring() gave */
	uint64_t last_ts_at_end, requests_at_end;
	unsigned destroyed;
};

#define SEEN(o) ((struct seen *)(void *)(o))

static void seen_task(struct output *o, const struct model_task *t)
{
	SEEN(o)->task = t;
}

static void seen_ring(struct output *o, const struct model_ring *r)
{
	SEEN(o)->ring = r;
}

static void seen_request(struct output *o, const struct model_request *r)
{
	struct seen *s = SEEN(o);

	ck_assert_ptr_eq(r->ring, s->ring);
	s->pid_at_request = s->task->pid;
	s->last_ts_at_request = s->task->last_ts;
	s->requests_at_request = r->ring->requests;
	s->file_path = r->file ? r->file->path : NULL;
}

static int seen_end(struct output *o, const struct output_totals *t, char *e, size_t l)
{
	struct seen *s = SEEN(o);

	s->same_in_totals = t->ntasks == 1 && t->tasks[0] == s->task && t->nrings == 1 &&
			    t->rings[0] == s->ring;
	s->last_ts_at_end = s->task->last_ts;
	s->requests_at_end = s->ring->requests;
	snprintf(e, l, "inner end");
	return -1;
}

static void seen_destroy(struct output *o)
{
	SEEN(o)->destroyed++;
}

static const struct output_ops seen_ops = {
	.name = "seen", .begin = probe_begin, .task = seen_task, .ring = seen_ring,
	.request = seen_request, .end = seen_end, .destroy = seen_destroy,
};

/*
 * What the model's thread changes after a call is not seen until the next
 * call: the pid changed with task() is, last_ts moved without one is not
 * (output.h); end() sees the final state through the same pointers, the
 * totals point to them, the file is a copy, end()'s error comes back.
 */
START_TEST(test_mirrors)
{
	struct seen s = { .base.ops = &seen_ops };
	struct output *a = output_async_new(&s.base);
	struct model_task task = { .tid = 5, .pid = 5, .last_ts = 10 };
	struct model_ring ring = { .number = 1, .requests = 1 };
	char path[] = "/tmp/f";
	struct model_file file = { .number = 1, .path = path };
	struct model_request req = { .id = 1, .ring = &ring, .file = &file };
	const struct model_task *tasks[] = { &task };
	const struct model_ring *rings[] = { &ring };
	struct output_totals t = { .tasks = tasks, .ntasks = 1, .rings = rings, .nrings = 1 };
	struct output_meta meta = { 0 };
	char err[64];

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->ops->begin(a, &meta, err, sizeof(err)), 0);
	a->ops->task(a, &task);
	a->ops->ring(a, &ring);
	task.pid = 6;
	a->ops->task(a, &task);
	task.last_ts = 20;		/* moves without a call */
	ring.requests = 2;
	a->ops->request(a, &req);
	path[1] = 'X';			/* the model's copy is gone after the call */
	task.last_ts = 30;
	ring.requests = 3;
	ck_assert_int_eq(a->ops->end(a, &t, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "inner end");
	ck_assert_ptr_ne(s.task, &task);
	ck_assert_ptr_ne(s.ring, &ring);
	ck_assert_uint_eq(s.pid_at_request, 6);
	ck_assert_uint_eq(s.last_ts_at_request, 10);
	ck_assert_uint_eq(s.requests_at_request, 1);
	ck_assert_str_eq(s.file_path, "/tmp/f");
	ck_assert(s.same_in_totals);
	ck_assert_uint_eq(s.last_ts_at_end, 30);
	ck_assert_uint_eq(s.requests_at_end, 3);
	a->ops->destroy(a);
	ck_assert_uint_eq(s.destroyed, 1);
}
END_TEST

/* destroy() without end(), blocks still queued: the thread stops, the
 * inner output is destroyed once, nothing leaks (AddressSanitizer). */
START_TEST(test_destroy_without_end)
{
	struct seen s = { .base.ops = &seen_ops };
	struct output *a = output_async_new(&s.base);
	struct model_task task = { .tid = 5, .pid = 5 };
	struct model_ring ring = { .number = 1 };
	struct model_request req = { .id = 1, .ring = &ring };
	struct output_meta meta = { 0 };
	char err[64];

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->ops->begin(a, &meta, err, sizeof(err)), 0);
	a->ops->task(a, &task);
	a->ops->ring(a, &ring);
	for (unsigned i = 0; i < 100000; i++)
		a->ops->request(a, &req);
	a->ops->destroy(a);
	ck_assert_uint_eq(s.destroyed, 1);
}
END_TEST

/* ------------------------------------------------ lanes */

#define LANE_VALUES 2000
#define LANE_BLOCK 16		/* bytes: four values a block */

struct lanes_seen {
	uint32_t held[BLOCK_QUEUE_LANES][LANE_BLOCK / 4];	/* a lane's last block */
	unsigned nheld[BLOCK_QUEUE_LANES];
	pid_t tid_of[LANE_VALUES];
	uint32_t published[LANE_VALUES];
	unsigned npublished;
	char name[BLOCK_QUEUE_LANES][THREAD_NAME_MAX + 1];	/* each lane's thread's */
};

static void lanes_consume(void *arg, unsigned lane, unsigned char *p, size_t len)
{
	struct lanes_seen *ls = arg;

	ls->nheld[lane] = 0;
	pthread_getname_np(pthread_self(), ls->name[lane], sizeof(ls->name[lane]));
	for (size_t off = 0; off + 4 <= len; off += 4) {
		uint32_t v;

		memcpy(&v, p + off, 4);
		ls->held[lane][ls->nheld[lane]++] = v;
		ls->tid_of[v % LANE_VALUES] = (pid_t)syscall(SYS_gettid);
	}
	usleep(100);	/* long enough for the next block to go to another lane */
}

static void lanes_publish(void *arg, unsigned lane)
{
	struct lanes_seen *ls = arg;

	for (unsigned i = 0; i < ls->nheld[lane] && ls->npublished < LANE_VALUES; i++)
		ls->published[ls->npublished++] = ls->held[lane][i];
}

static void lanes_fill(struct block_queue *q, unsigned n)
{
	for (uint32_t v = 0; v < n; v++) {
		memcpy(block_queue_room(q, 4), &v, 4);
		block_queue_commit(q, 4);
	}
}

/* Four lanes: every value published once, in the order filled, the
 * blocks consumed by more than one thread, each lane's named for it. */
START_TEST(test_block_queue_lanes)
{
	struct lanes_seen *ls = calloc(1, sizeof(*ls));
	struct block_queue q;
	unsigned threads = 0, named = 0;
	pid_t seen[LANE_VALUES];

	ck_assert_ptr_nonnull(ls);
	ck_assert_int_eq(block_queue_start(&q, 10, LANE_BLOCK, 4, lanes_consume, lanes_publish, ls,
					   "rs-test-lanes"), 0);
	ck_assert_uint_eq(q.nlanes, 4);
	lanes_fill(&q, LANE_VALUES);
	block_queue_stop(&q, false);
	ck_assert_uint_eq(ls->npublished, LANE_VALUES);
	for (uint32_t v = 0; v < LANE_VALUES; v++)
		ck_assert_uint_eq(ls->published[v], v);
	for (uint32_t v = 0; v < LANE_VALUES; v++) {
		unsigned k;

		ck_assert_int_ne(ls->tid_of[v], 0);
		for (k = 0; k < threads && seen[k] != ls->tid_of[v]; k++)
			;
		if (k == threads)
			seen[threads++] = ls->tid_of[v];
	}
	ck_assert_uint_gt(threads, 1);
	ck_assert_uint_le(threads, 4);
	for (unsigned l = 0; l < 4; l++) {
		char want[THREAD_NAME_MAX + 1];

		if (!ls->name[l][0])	/* a lane that took no block */
			continue;
		snprintf(want, sizeof(want), "rs-test-lanes/%u", l);
		ck_assert_str_eq(ls->name[l], want);
		named++;
	}
	ck_assert_uint_gt(named, 1);

	/* stopping with blocks left: the lanes finish theirs and stop */
	memset(ls, 0, sizeof(*ls));
	ck_assert_int_eq(block_queue_start(&q, 10, LANE_BLOCK, 4, lanes_consume, lanes_publish, ls,
					   "rs-test-lanes"), 0);
	lanes_fill(&q, 36);
	block_queue_stop(&q, true);
	ck_assert_uint_le(ls->npublished, 36);
	for (uint32_t v = 0; v < ls->npublished; v++)
		ck_assert_uint_eq(ls->published[v], v);
	free(ls);
}
END_TEST

static Suite *async_suite(void)
{
	Suite *s = suite_create("convert_async");
	TCase *tc = tcase_create("async");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_mirrors);
	tcase_add_test(tc, test_destroy_without_end);
	tcase_add_test(tc, test_block_queue_lanes);
	tcase_add_test(tc, test_output_thread);
	tcase_add_test(tc, test_errors_same);
	tcase_add_test(tc, test_golden_logs_same_output);
	tcase_add_test(tc, test_busy_log_same_output);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(async_suite)
