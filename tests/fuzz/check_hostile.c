// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hostile logs: what a buggy or malicious writer can put in a log with
 * valid checksums, and what uring-convert must do with it -- convert or
 * fail with one clear line, within bounded memory and time.  One test per
 * bug the fuzzers found (tests/fuzz/regressions/ holds their inputs), and
 * the worst cases of the bounds audit (uring-log(5) limits, header counts,
 * CPUs, open requests, warnings), each run in a child process under
 * RLIMIT_AS (skipped under AddressSanitizer, which reserves terabytes of
 * address space) and RLIMIT_CPU.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert.h"
#include "convert_test.h"
#include "event_layout.h"
#include "fxt_layout.h"
#include "json.h"
#include "log_reader.h"
#include "log_writer.h"
#include "merge.h"
#include "output.h"
#include "timebase.h"
#include "sanitizer.h"
#include "test_util.h"

#define RING 0x5100ull

/* ------------------------------------------------------------ writing */

/* The default layout table as JSON text (malloc'd). */
static char *layout_json(void)
{
	struct json_out o;
	size_t len;
	char *s;

	json_out_init(&o, false);
	ev_layout_to_json(&o);
	s = json_out_steal(&o, &len);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* Replace the first occurrence of from by to (same or any length). */
static char *replace(char *s, const char *from, const char *to)
{
	char *at = strstr(s, from), *r;

	ck_assert_msg(at != NULL, "'%s' not in the layout table", from);
	r = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
	ck_assert_ptr_nonnull(r);
	memcpy(r, s, (size_t)(at - s));
	strcpy(r + (at - s), to);
	strcat(r, at + strlen(from));
	free(s);
	return r;
}

/* A log with the given layout table (NULL: the default) and metadata. */
static struct log_writer *hostile_create(const char *path, const char *records)
{
	struct log_writer_options wopt = { .overwrite = true };
	struct log_writer *w;
	char err[256], *meta, *def = NULL;
	int n;

	ck_assert_int_eq(log_writer_create(&w, path, &wopt, err, sizeof(err)), 0);
	if (!records)
		records = def = layout_json();
	n = asprintf(&meta,
		     "{\"format\":\"ringside-log\",\"host\":{\"cpus\":2},"
		     "\"clock\":{\"domain\":\"boottime\",\"start\":{\"boot_ns\":1000000000,"
		     "\"real_ns\":1700000000000000000}},\"records\":%s}", records);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(log_write_meta(w, meta, (size_t)n), 0);
	free(meta);
	free(def);
	return w;
}

static void frame(struct log_writer *w, uint32_t cpu, uint32_t count, uint64_t first,
		  uint64_t last, const void *payload, size_t len)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_EVENTS, .flags = LOG_FRAME_F_MUST_UNDERSTAND,
		.stream = cpu, .count = count, .first_ts = first, .last_ts = last,
	};

	ck_assert_int_eq(log_write_frame(w, &d, payload, len), 0);
}

static void finish(struct log_writer *w)
{
	char err[256];

	ck_assert_int_eq(log_writer_finish(w, "{\"reason\":\"signal\"}", err, sizeof(err)), 0);
}

/* ---------------------------------------------------------- converting */

struct result {
	int status;			/* convert_into's, or 128 + signal */
	char err[65536];		/* its stderr */
	unsigned lines;
};

/*
 * Convert path to JSON in a child limited to as_mib MiB of address space
 * (0: none) and cpu_s seconds of CPU.  The child's death by a limit is a
 * test failure with a message saying which.
 */
static void convert_limited_to(const char *path, enum out_format fmt, unsigned as_mib,
			       unsigned cpu_s, struct result *res)
{
	char *dir = test_tmpdir();
	char *out = test_path(dir, "out.json"), *errpath = test_path(dir, "stderr");
	int st;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct output_config cfg = { .path = out, .force = true, .quiet = true };
		struct options o = { .log_path = path, .format = fmt, .force = true };
		struct rlimit cpu = { cpu_s, cpu_s + 1 };
		char err[256];
		FILE *errf = fopen(errpath, "w");
		struct output *op;

		if (as_mib && !RINGSIDE_ASAN) {
			struct rlimit as = { (rlim_t)as_mib << 20, (rlim_t)as_mib << 20 };

			setrlimit(RLIMIT_AS, &as);
		}
		setrlimit(RLIMIT_CPU, &cpu);
		op = fmt == FORMAT_FXT ? output_fxt_new(&cfg, FXT_LANES_DEFAULT, err, sizeof(err)) :
		     output_json_new(&cfg, err, sizeof(err));
		if (!errf || !op)
			_exit(100);
		st = convert_into(&o, op, errf);
		fclose(errf);
		_exit(st);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	{
		FILE *f = fopen(errpath, "r");
		size_t n = f ? fread(res->err, 1, sizeof(res->err) - 1, f) : 0;

		res->err[n] = '\0';
		if (f)
			fclose(f);
		for (size_t i = 0; i < n; i++)
			res->lines += res->err[i] == '\n';
	}
	ck_assert_msg(!WIFSIGNALED(st) || WTERMSIG(st) != SIGXCPU,
		      "%s: more than %u s of CPU (quadratic?)", path, cpu_s);
	ck_assert_msg(!WIFSIGNALED(st), "%s: killed by signal %d (%s)", path, WTERMSIG(st),
		      res->err);
	res->status = WEXITSTATUS(st);
	ck_assert_msg(res->status != 100, "%s: cannot set up the conversion", path);
	ck_assert_msg(!strstr(res->err, "out of memory"),
		      "%s: out of memory within %u MiB: %s", path, as_mib, res->err);
	test_rmtree(dir);
	free(dir);
	free(out);
	free(errpath);
}

static void convert_limited(const char *path, unsigned as_mib, unsigned cpu_s,
			    struct result *res)
{
	convert_limited_to(path, FORMAT_JSON, as_mib, cpu_s, res);
}

/* -------------------------------------------- bugs the fuzzers found */

/*
 * fuzz_reader, regressions/layout-header-field-kind: a layout table that
 * declared the header's "type" field as padding was accepted; the
 * normalised records then had type 0 while the raw ones did not.
 */
START_TEST(test_header_field_kind)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "kind.log");
	char *records = replace(layout_json(), "[\"type\",16,2,\"u16\"]", "[\"type\",16,2,\"pad\"]");
	struct log_reader *r;
	char msg[LOG_MSG_LEN];

	finish(hostile_create(path, records));
	ck_assert_int_ne(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	ck_assert_msg(strstr(msg, "header field type") && strstr(msg, "kind u16"), "%s", msg);
	free(records);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * fuzz_convert_json, regressions/layout-comm-field-size: a comm field of 9
 * to 15 bytes was read as an integer, shifting by 64 bits or more
 * (undefined behaviour, caught by UBSan).  It is now copied as bytes.
 */
START_TEST(test_comm_field_size)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "comm.log");
	char *records = replace(layout_json(), "[\"comm\",32,16,\"comm\"]", "[\"comm\",32,12,\"comm\"]");
	struct log_writer *w = hostile_create(path, records);
	struct ev_task t = {
		.ts = T0, .tid = 1, .tgid = 1, .type = EV_TASK, .subject_tid = 1,
		.subject_tgid = 1, .comm = "abcdefghijklmnop", .reason = EV_TASK_FORK,
	};
	struct log_reader *r;
	struct log_frame f;
	const struct ev_header *rec;
	const struct ev_task *nt;
	char msg[LOG_MSG_LEN];
	_Alignas(8) unsigned char scratch[EV_RECORD_MAX];
	const void *buf;
	size_t len, pos = 0;
	bool known;

	memcpy(t.comm, "abcdefghijklmnop", 16);
	frame(w, 0, 1, T0, T0, &t, sizeof(t));
	finish(w);
	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	ck_assert_int_eq(log_reader_next(r, &f), 1);
	ck_assert_int_eq(log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg)), 0);
	ck_assert_int_eq(log_next_record(log_reader_layout(r), buf, len, &pos, &rec, &known,
					 scratch, msg, sizeof(msg)), 1);
	ck_assert(known);
	nt = (const struct ev_task *)rec;
	ck_assert_int_eq(memcmp(nt->comm, "abcdefghijkl\0\0\0\0", 16), 0);
	ck_assert_uint_eq(nt->task_flags, t.task_flags);
	log_reader_close(r);
	free(records);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * fuzz_convert_json, regressions/merge-frame-count-4g: an EVENTS frame
 * declaring 2^32-1 records made the merge allocate 64 GiB for their index.
 * The index is now sized by what the payload can hold; the missing
 * records are reported as lost, once.
 */
START_TEST(test_frame_count_huge)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "count.log");
	struct log_writer *w = hostile_create(path, NULL);
	struct ev_task_exit e[3] = {
		{ .ts = T0, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT },
		{ .ts = T0 + 1, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT },
		{ .ts = T0 + 2, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT },
	};
	struct result res;

	frame(w, 0, UINT32_MAX, T0, T0 + 2, e, sizeof(e));
	finish(w);
	convert_limited(path, 512, 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	ck_assert_msg(strstr(res.err, "payload ends after 3 of 4294967295 records"), "%s", res.err);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * A record type named with a newline and an escape sequence: messages
 * quoting it stay one line with nothing a terminal would interpret.
 */
START_TEST(test_control_characters)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "ctl.log");
	char *records = replace(layout_json(), "\"name\":\"task_exit\"",
				"\"name\":\"task\\n\\u001b[2Jexit\"");
	struct log_writer *w = hostile_create(path, records);
	struct ev_task_exit e = { .ts = T0, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT };
	struct result res;

	/* A task_exit record cut short: "... runs past the end ...". */
	frame(w, 0, 1, T0, T0, &e, EV_HEADER_SIZE);
	finish(w);
	convert_limited(path, 0, 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	ck_assert_msg(strstr(res.err, "record type task??[2Jexit"), "%s", res.err);
	for (const char *c = res.err; *c; c++)
		ck_assert_msg((unsigned char)*c >= 0x20 || *c == '\n', "control character in %s",
			      res.err);
	free(records);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * fuzz_convert_json, regressions/model-overflow-marker-use-after-free: on
 * 6.18 an overflowing CQE fires only cqe_overflow; the model completes
 * the request from it and, when the CQE was posted on a thread that does
 * not use io_uring (an io-wq worker without traced work), delivers and
 * frees it at once -- then read its id for the overflow marker.  The
 * marker must name the request (ASan: heap-use-after-free; without ASan
 * the id read was the allocator's free-list pointer).
 */
START_TEST(test_overflow_marker_after_free)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "overflow.log");
	ev_submit(&sc, T0 + 1000, 1, 1, RING, 0xa1, 22, 7, 0, 0);
	ev_overflow(&sc, T0 + 2000, 50, 1, RING, 7, 4096, false);
	scen_finish(&sc);
	c = convert_capture(sc.path, NULL);
	r = req_by_ud(c, 7);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert(r->modifiers & REQM_CQ_OVERFLOW);
	ck_assert_uint_eq(count_markers(c, MARK_CQE_OVERFLOW), 1);
	for (size_t i = 0; i < c->nmark; i++)
		if (c->mark[i].kind == MARK_CQE_OVERFLOW)
			ck_assert_uint_eq(c->mark[i].request_id, r->id);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* ------------------------------------------------ the bounds audit */

/* A log of n submits (one thread, one ring, distinct requests, never
 * completed), in frames of 100000 records, then more (records appended
 * by fill, in frames of `per`). */
static struct log_writer *open_requests_log(const char *path, uint64_t n)
{
	struct log_writer *w = hostile_create(path, NULL);
	const size_t per = 100000;
	struct ev_submit *buf = calloc(per, sizeof(*buf));
	uint64_t done = 0;

	ck_assert_ptr_nonnull(buf);
	while (done < n) {
		size_t k = 0;

		for (; k < per && done < n; k++, done++)
			buf[k] = (struct ev_submit){
				.ts = T0 + done, .tid = 7, .tgid = 7, .type = EV_SUBMIT,
				.flags = EVF_SQE_VALID, .ring = RING, .req = 0x1000 + done * 64,
				.user_data = done,
			};
		frame(w, 0, (uint32_t)k, buf[0].ts, buf[k - 1].ts, buf, k * sizeof(*buf));
	}
	free(buf);
	return w;
}

/*
 * 200000 requests open when their ring's address is used for a new ring:
 * they are closed in id order, which was an insertion sort (quadratic:
 * minutes for this 800 KiB log).
 */
START_TEST(test_open_requests_ring_recreated)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "recreate.log");
	struct log_writer *w = open_requests_log(path, 200000);
	struct ev_create c = {
		.ts = T0 + 300000, .tid = 7, .tgid = 7, .type = EV_CREATE, .ring = RING, .fd = 3,
	};
	struct result res;

	frame(w, 1, 1, c.ts, c.ts, &c, sizeof(c));
	finish(w);
	convert_limited(path, 1024, RINGSIDE_ASAN ? 120 : 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * 100000 open requests, then 100000 CQ overflows (6.18: no request
 * pointer) whose user_data matches none, and 1000 that match: each was a
 * scan of every open request (quadratic: minutes).  The matching ones
 * still complete the oldest open request with their user_data.
 */
START_TEST(test_overflow_storm)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "storm.log");
	const size_t nopen = 100000, nover = 101000;
	struct log_writer *w = open_requests_log(path, nopen);
	struct ev_cqe_overflow *o = calloc(nover, sizeof(*o));
	struct result res;
	struct capture *cap;
	struct options opt = { 0 };

	ck_assert_ptr_nonnull(o);
	for (size_t i = 0; i < nover; i++)
		o[i] = (struct ev_cqe_overflow){
			.ts = T0 + 200000 + i, .tid = 7, .tgid = 7, .type = EV_CQE_OVERFLOW,
			.ring = RING, .res = 0,
			/* the last 1000 complete requests 0..999 */
			.user_data = i < nover - 1000 ? UINT64_MAX - i : i - (nover - 1000),
		};
	frame(w, 1, (uint32_t)nover, o[0].ts, o[nover - 1].ts, o, nover * sizeof(*o));
	free(o);
	finish(w);
	convert_limited(path, 1024, RINGSIDE_ASAN ? 120 : 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	cap = convert_capture(path, &opt);
	{
		size_t complete = 0;

		for (size_t i = 0; i < cap->nreq; i++) {
			const struct model_request *r = &cap->req[i];

			if (r->status != REQ_COMPLETE)
				continue;
			complete++;
			ck_assert_uint_lt(r->user_data, 1000);
			ck_assert(r->modifiers & REQM_CQ_OVERFLOW);
		}
		ck_assert_uint_eq(complete, 1000);
		ck_assert_uint_eq(cap->nreq, nopen);
	}
	capture_free(cap);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * 65536 CPUs (the most a log may name), listed from the highest down: the
 * per-CPU statistics were kept sorted by inserting in place (quadratic);
 * they are still sorted, and all there.
 */
START_TEST(test_many_cpus)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "cpus.log");
	struct log_writer *w = hostile_create(path, NULL);
	struct log_reader *r;
	struct merge *m;
	struct timebase tb;
	const struct merge_stats *st;
	char err[LOG_MSG_LEN];
	struct result res;

	for (long cpu = MERGE_MAX_CPUS - 1; cpu >= 0; cpu--) {
		struct ev_task_exit e = {
			.ts = T0 + (uint64_t)cpu, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT,
		};

		frame(w, (uint32_t)cpu, 1, e.ts, e.ts, &e, sizeof(e));
	}
	finish(w);
	convert_limited(path, 1024, RINGSIDE_ASAN ? 10 : 3, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	ck_assert_int_eq(log_reader_open(&r, path, err, sizeof(err)), 0);
	timebase_init(&tb);
	ck_assert_int_eq(merge_open(&m, r, &tb, err, sizeof(err)), 0);
	st = merge_stats(m);
	ck_assert_uint_eq(st->ncpus, MERGE_MAX_CPUS);
	for (size_t i = 0; i < st->ncpus; i++) {
		ck_assert_uint_eq(st->cpus[i].cpu, i);
		ck_assert_uint_eq(st->cpus[i].records, 1);
	}
	merge_close(m);
	timebase_free(&tb);
	log_reader_close(r);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * 65536 CPUs with 4 loss windows each, to FXT: the loss track of a CPU was
 * found by a scan of every CPU's track (quadratic: 13 s for 10 windows
 * each).
 */
START_TEST(test_many_cpus_losses_fxt)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "losses.log");
	struct log_writer *w = hostile_create(path, NULL);
	struct result res;

	for (uint32_t cpu = 0; cpu < MERGE_MAX_CPUS; cpu++) {
		struct ev_lost e[4];

		for (int k = 0; k < 4; k++)
			e[k] = (struct ev_lost){
				.ts = T0 + (uint64_t)k * 100000 + cpu, .type = EV_LOST, .count = 1,
				.last_ts = T0 + (uint64_t)k * 100000 + cpu,
			};
		frame(w, cpu, 4, e[0].ts, e[3].ts, e, sizeof(e));
	}
	finish(w);
	convert_limited_to(path, FORMAT_FXT, 1024, RINGSIDE_ASAN ? 15 : 3, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* 1000 frames of implausible CPUs: 100 warning lines, the last counting
 * the rest (one line each flooded stderr and the outputs). */
START_TEST(test_warning_flood)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "flood.log");
	struct log_writer *w = hostile_create(path, NULL);
	struct result res;
	const char *last;

	for (uint32_t i = 0; i < 1000; i++) {
		struct ev_task_exit e = { .ts = T0 + i, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT };

		frame(w, 0x80000000u + i, 1, e.ts, e.ts, &e, sizeof(e));
	}
	finish(w);
	convert_limited(path, 0, 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	ck_assert_uint_eq(res.lines, MERGE_MAX_WARNINGS);
	last = res.err + strlen(res.err) - 1;
	while (last > res.err && last[-1] != '\n')
		last--;
	ck_assert_msg(strstr(last, "901 more problems like the ones above are not listed"), "%s",
		      last);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * Frames that all overlap in time are merged at once.  A 64 MiB payload of
 * one repeated record compresses to 6 KiB, so a small hostile log could
 * make the converter hold gigabytes (100 such frames, 576 KiB: 10.9 GiB
 * before the limit).  Past merge_max_active_bytes (here lowered to 24 MiB)
 * a frame is skipped and counted as lost, and the conversion succeeds.
 */
START_TEST(test_overlapping_frames)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "overlap.log");
	struct log_writer *w = hostile_create(path, NULL);
	const size_t per = (8u << 20) / 24;
	struct ev_task_exit *buf = calloc(per, sizeof(*buf));
	uint64_t saved = merge_max_active_bytes;
	struct result res;
	unsigned skipped = 0;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < per; i++)
		buf[i] = (struct ev_task_exit){ .ts = T0, .tid = 1, .tgid = 1, .type = EV_TASK_EXIT };
	for (uint32_t f = 0; f < 8; f++)
		frame(w, f % 2, (uint32_t)per, T0, T0, buf, per * sizeof(*buf));
	free(buf);
	finish(w);
	merge_max_active_bytes = 24u << 20;
	convert_limited(path, 1024, 60, &res);
	merge_max_active_bytes = saved;
	ck_assert_msg(res.status == 0, "%s", res.err);
	for (const char *p = res.err; (p = strstr(p, "overlaps in time with")); p++)
		skipped++;
	/* 8 MiB + 5.3 MiB of index each: the first frame always loads, and
	 * at most 24 MiB worth stays loaded at once. */
	ck_assert_msg(skipped >= 6 && skipped <= 7, "%u frames skipped: %s", skipped, res.err);
	ck_assert_ptr_nonnull(strstr(res.err, "records are counted as lost"));
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * Memory grows with what is open at once, not with the log: 300000
 * requests left open (the worst a log can do with submits alone) fit in
 * 512 MiB of address space -- about 1 KiB each at most.
 */
START_TEST(test_open_requests_memory)
{
	char *dir = test_tmpdir(), *path = test_path(dir, "open.log");
	struct result res;

	finish(open_requests_log(path, 300000));
	convert_limited(path, 512, RINGSIDE_ASAN ? 120 : 30, &res);
	ck_assert_msg(res.status == 0, "%s", res.err);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* ------------------------------------------- recorder failures */

/*
 * A recording stopped by a full disk has an END frame (the recorder cuts
 * the file back to its last whole frame and writes END), but the events
 * it could not write are gone: requests open across the end are
 * incomplete (loss), never "in flight at end", and the loss is placed in
 * time on every CPU, as for a log cut by a kill.
 */
START_TEST(test_write_error_end)
{
	/* The first END also says when the recorder stopped (the quotes
	 * close synth_finish()'s "reason" string). */
	static const char *const reasons[] = {
		"disk full\",\"stop_boot_ns\":2000009000,\"message\":\"the disk is full",
		"error", "signal",
	};

	for (size_t k = 0; k < 3; k++) {
		struct scen sc;
		struct capture *c;
		size_t cut = 0;

		scen_open(&sc, "full.log");
		ev_submit(&sc, T0 + 1000, 1, 1, RING, 1, 22, 7, 0, 0);
		ev_complete(&sc, T0 + 2000, 1, 1, RING, 1, 7, 4096, 0);
		ev_submit(&sc, T0 + 3000, 1, 1, RING, 2, 22, 8, 0, 0);
		sc.cpu = 1;
		ev_submit(&sc, T0 + 3500, 2, 1, RING, 3, 22, 9, 0, 0);
		synth_finish(sc.s, reasons[k]);
		sc.s = NULL;
		c = convert_capture(sc.path, NULL);
		ck_assert_uint_eq(c->nreq, 3);
		ck_assert_int_eq(req_by_ud(c, 7)->status, REQ_COMPLETE);
		for (size_t i = 0; i < c->nloss; i++) {
			if (c->loss[i].source != LOSS_LOG_CUT)
				continue;
			cut++;
			/* From each CPU's last record to the stop, if known. */
			ck_assert_uint_eq(c->loss[i].first_ts,
					  c->loss[i].cpu == 0 ? T0 + 3001 : T0 + 3501);
			ck_assert_uint_eq(c->loss[i].last_ts, k == 0 ? 2000009000 :
					  c->loss[i].cpu == 0 ? T0 + 3500 : T0 + 3501);
		}
		if (k < 2) {
			ck_assert_int_eq(req_by_ud(c, 8)->status, REQ_INCOMPLETE);
			ck_assert_int_eq(req_by_ud(c, 8)->incomplete_reason, INCOMPLETE_LOSS);
			ck_assert_int_eq(req_by_ud(c, 9)->status, REQ_INCOMPLETE);
			ck_assert_uint_eq(cut, 2);
			ck_assert_ptr_nonnull(strstr(c->warnings, "stopped on a write error"));
		} else {
			/* A clean stop lost nothing: still in flight. */
			ck_assert_int_eq(req_by_ud(c, 8)->status, REQ_IN_FLIGHT_AT_END);
			ck_assert_uint_eq(cut, 0);
		}
		capture_free(c);
		scen_free(&sc);
	}
}
END_TEST

/* The disk filled before the first EVENTS frame: one window, on no
 * known CPU, from the start of the recording to its stop. */
START_TEST(test_write_error_no_events)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "empty.log");
	synth_finish(sc.s, "disk full\",\"stop_boot_ns\":3000000000,\"x\":\"");
	sc.s = NULL;
	c = convert_capture(sc.path, NULL);
	ck_assert_uint_eq(c->nloss, 1);
	ck_assert_int_eq(c->loss[0].source, LOSS_LOG_CUT);
	ck_assert_uint_eq(c->loss[0].cpu, LOG_STREAM_GLOBAL);
	ck_assert_uint_eq(c->loss[0].first_ts, 1000000000);	/* synth_log's start */
	ck_assert_uint_eq(c->loss[0].last_ts, 3000000000);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

static Suite *hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("found_by_fuzzing");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_header_field_kind);
	tcase_add_test(tc, test_comm_field_size);
	tcase_add_test(tc, test_frame_count_huge);
	tcase_add_test(tc, test_control_characters);
	tcase_add_test(tc, test_overflow_marker_after_free);
	suite_add_tcase(s, tc);
	tc = tcase_create("bounds");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_open_requests_ring_recreated);
	tcase_add_test(tc, test_overflow_storm);
	tcase_add_test(tc, test_many_cpus);
	tcase_add_test(tc, test_many_cpus_losses_fxt);
	tcase_add_test(tc, test_warning_flood);
	tcase_add_test(tc, test_overlapping_frames);
	tcase_add_test(tc, test_open_requests_memory);
	suite_add_tcase(s, tc);
	tc = tcase_create("recorder_failures");
	tcase_add_test(tc, test_write_error_end);
	tcase_add_test(tc, test_write_error_no_events);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(hostile_suite)
