// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert's outputs and command line: golden summary/JSON/CSV for a
 * small synthetic log (byte-exact; regenerate on purpose with
 * RINGSIDE_REGENERATE_GOLDEN=1 and review the diff), RFC 4180 quoting of
 * odd task names, bad command lines, memory that does not grow with the
 * number of requests, and the buffered writer under them (out_buf).
 */
#include <check.h>
#include <ctype.h>
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
#include "csv_tables.h"
#include "event_layout.h"
#include "event_split.h"
#include "merge.h"
#include "model_names.h"
#include "out_buf.h"
#include "output.h"
#include "output_util.h"
#include "sanitizer.h"
#include "test_util.h"

extern char **environ;

#define GOLDEN_LOG "convert_v1.log"
#define GOLDEN_DIR "convert_v1"
#define US 1000ull
#define MS 1000000ull
#define RING 0x5a5a000011110000ull
#define RING_B 0x5a5a000022220000ull

/* DIR/TABLE.csv of --format=csv's table i */
static char *csv_file(const char *dir, int i)
{
	char *p = csv_table_path(dir, i);

	ck_assert_ptr_nonnull(p);
	return p;
}

static bool regenerate(void)
{
	const char *v = getenv("RINGSIDE_REGENERATE_GOLDEN");

	return v && *v && strcmp(v, "0");
}

/*
 * The golden log: one process with two threads, an io-wq worker and two
 * rings; inline, task-work, io-wq, poll, failed, drained and linked (with a
 * failure) requests, multishot and aux CQEs, a CQ overflow, a short write,
 * a loss window, task names that need CSV quoting, clock and loss frames.
 */
static void write_golden_log(const char *path)
{
	struct synth_options opt = { .ncpus = 2, .hostname = "golden-host" };
	struct scen sc = { 0 };
	uint64_t t = T0;

	sc.s = synth_log_create(path, &opt);
	{
		struct ev_task tasks[] = {
			{ SYNTH_HDR(EV_TASK, T0 - 500 * MS, 4000, 4000), .subject_tid = 4000,
			  .subject_tgid = 4000, .parent_tgid = 1, .comm = "db,server",
			  .reason = EV_TASK_EXISTING },
			{ SYNTH_HDR(EV_TASK, T0 - 500 * MS, 4001, 4000), .subject_tid = 4001,
			  .subject_tgid = 4000, .parent_tgid = 1, .comm = "io \"fast\"",
			  .reason = EV_TASK_EXISTING },
		};

		synth_tasks(sc.s, tasks, 2);
	}
	ev_task(&sc, t, 4002, 4000, "iou-wrk-4000", EV_PF_IO_WORKER, EV_TASK_FORK);
	/* setup of ring A */
	{
		struct ev_setup_begin sb = { SYNTH_HDR(EV_SETUP_BEGIN, t + 1 * US, 4000, 4000),
					     .entries = 64, .setup_flags = 0 };
		struct ev_setup_end se = { SYNTH_HDR(EV_SETUP_END, t + 30 * US, 4000, 4000),
					   .ret = 5 };

		sb.flags = EVF_PARAMS_VALID;
		SYNTH_EMIT(sc.s, 0, sb);
		ev_create(&sc, t + 29 * US, 4000, 4000, RING, 5, 0);
		SYNTH_EMIT(sc.s, 0, se);
	}
	/* enter: NOP inline, READ task-work (after a wait), WRITE io-wq */
	t += 1 * MS;
	ev_enter_begin(&sc, t, 4000, 4000, RING, 5, 3, 2, 1);
	ev_submit(&sc, t + 2 * US, 4000, 4000, RING, 0x11, 0, 1, 0, 0);
	ev_submit(&sc, t + 4 * US, 4000, 4000, RING, 0x12, 22, 2, 0, 0);
	ev_submit(&sc, t + 6 * US, 4000, 4000, RING, 0x13, 23, 3, 16, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, t + 7 * US, 4000, 4000, RING, 0x13, 3);
	ev_complete(&sc, t + 8 * US, 4000, 4000, RING, 0x11, 1, 0, 0);
	ev_cqring_wait(&sc, t + 10 * US, 4000, 4000, RING, 2);
	sc.cpu = 1;
	{
		struct ev_sched_switch sw = { SYNTH_HDR(EV_SCHED_SWITCH, t + 20 * US, 0, 0),
					      .next_tid = 4002, .next_tgid = 4000 };

		SYNTH_EMIT(sc.s, 1, sw);
	}
	ev_complete(&sc, t + 90 * US, 4002, 4000, RING, 0x13, 3, 4096, 0);
	sc.cpu = 0;
	ev_complete(&sc, t + 120 * US, 4000, 4000, RING, 0x12, 2, 4096, 0);
	ev_tw_run(&sc, t + 121 * US, 4000, 4000, 1);
	ev_enter_end(&sc, t + 125 * US, 4000, 4000, RING, 3);
	/* thread 4001 on ring B: poll, failed, drained, a failing chain */
	t += 1 * MS;
	ev_create(&sc, t, 4001, 4000, RING_B, 6, 1u << 12);
	ev_enter_begin(&sc, t + 1 * US, 4001, 4000, RING_B, 6, 6, 0, 0);
	ev_submit(&sc, t + 2 * US, 4001, 4000, RING_B, 0x21, 27, 10, 0, 0);
	ev_req(&sc, EV_POLL_ARM, t + 3 * US, 4001, 4000, RING_B, 0x21, 10);
	ev_req_failed(&sc, t + 4 * US, 4001, 4000, RING_B, 0x22, 22, 11, -9);
	ev_complete(&sc, t + 5 * US, 4001, 4000, RING_B, 0x22, 11, -9, 0);
	ev_submit(&sc, t + 6 * US, 4001, 4000, RING_B, 0x23, 3, 12, 2, 0);
	ev_req(&sc, EV_DEFER, t + 7 * US, 4001, 4000, RING_B, 0x23, 12);
	ev_submit(&sc, t + 8 * US, 4001, 4000, RING_B, 0x24, 23, 13, 4, 0);
	ev_submit(&sc, t + 9 * US, 4001, 4000, RING_B, 0x25, 23, 14, 0, 0);
	ev_link(&sc, t + 9 * US + 1, 4001, 4000, RING_B, 0x25, 0x24);
	ev_complete(&sc, t + 10 * US, 4001, 4000, RING_B, 0x24, 13, -28, 0);
	ev_fail_link(&sc, t + 10 * US + 1, 4001, 4000, RING_B, 0x24, 0x25);
	ev_complete(&sc, t + 11 * US, 4001, 4000, RING_B, 0x25, 14, -125, 0);
	ev_enter_end(&sc, t + 12 * US, 4001, 4000, RING_B, 6);
	ev_complete(&sc, t + 13 * US, 4001, 4000, RING_B, 0x23, 12, 0, 0);
	ev_req(&sc, EV_TASK_ADD, t + 300 * US, 0, 0, RING_B, 0x21, 10);
	ev_complete(&sc, t + 301 * US, 4001, 4000, RING_B, 0x21, 10, 1, 0);
	synth_flush(sc.s);
	/* multishot, aux CQE, overflow, short write, a loss window */
	t += 1 * MS;
	ev_submit(&sc, t, 4000, 4000, RING, 0x31, 13, 20, 0, 0);
	ev_complete(&sc, t + 10 * US, 4000, 4000, RING, 0x31, 20, 7, 2);
	ev_complete(&sc, t + 20 * US, 4000, 4000, RING, 0x31, 20, 8, 2);
	ev_complete(&sc, t + 30 * US, 4000, 4000, RING, 0, 99, 0, 0);
	ev_submit(&sc, t + 40 * US, 4000, 4000, RING, 0x32, 0, 21, 0, 0);
	ev_overflow(&sc, t + 41 * US, 4000, 4000, RING, 21, 0, false);
	{
		struct ev_short_write sw = { SYNTH_HDR(EV_SHORT_WRITE, t + 50 * US, 4002, 4000),
					     .ring = RING, .fpos = 8192, .wanted = 4096,
					     .got = 1024 };

		SYNTH_EMIT(sc.s, 0, sw);
	}
	sc.cpu = 1;
	ev_lost(&sc, t + 60 * US, t + 70 * US, 3);
	sc.cpu = 0;
	ev_submit(&sc, t + 80 * US, 4000, 4000, RING, 0x33, 22, 22, 0, 0);	/* open at end */
	synth_flush(sc.s);
	{
		struct log_loss_row rows[] = {
			{ .cpu = 0, .kind = EV_LOSS_RING_FULL, .count = 0 },
			{ .cpu = 1, .kind = EV_LOSS_RING_FULL, .count = 3 },
			{ .cpu = 1, .kind = EV_LOSS_RING_FULL, .event_type = EV_COMPLETE, .count = 3 },
		};
		struct log_clock_snapshot clk = {
			.boot_ns = T0 + 10 * MS, .mono_ns = T0 + 10 * MS,
			.real_ns = 1700000000000000000ull + (T0 + 10 * MS - 1000000000ull) + 5000,
			.tai_ns = 0,
		};

		synth_loss(sc.s, rows, 3, t + 100 * US);
		synth_frame(sc.s, LOG_FRAME_CLOCK, 0, LOG_STREAM_GLOBAL, 1, &clk, sizeof(clk));
	}
	synth_finish(sc.s, "signal");
}

/* Run the real uring-convert; returns the exit status, stderr in *errout. */
static const char *convert_binary(void)
{
	static char *resolved;
	const char *p = getenv("URING_CONVERT");

	if (!p || !*p)
		p = "converter/uring-convert";
	if (!resolved)
		resolved = realpath(p, NULL);	/* before any chdir() */
	return resolved ? resolved : p;
}

static int run_cli(const char *const *args, char **errout, char **outout)
{
	char *dir = test_tmpdir();
	char *errp = test_path(dir, "stderr"), *outp = test_path(dir, "stdout");
	posix_spawn_file_actions_t fa;
	const char *argv[32];
	size_t n = 0, size;
	pid_t pid;
	int status;

	argv[n++] = convert_binary();
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	ck_assert_msg(posix_spawn(&pid, argv[0], &fa, NULL, (char **)argv, environ) == 0,
		      "cannot run %s (set URING_CONVERT)", argv[0]);
	posix_spawn_file_actions_destroy(&fa);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	*errout = (char *)test_read_file(errp, &size);
	if (outout)
		*outout = (char *)test_read_file(outp, &size);
	test_rmtree(dir);
	free(dir);
	free(errp);
	free(outp);
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

static void compare_or_write(const char *got_path, const char *golden_path)
{
	size_t gl, el;
	unsigned char *got = test_read_file(got_path, &gl);

	if (regenerate()) {
		test_write_file(golden_path, got, gl);
		free(got);
		return;
	}
	unsigned char *exp = test_read_file(golden_path, &el);

	if (gl != el || memcmp(got, exp, gl)) {
		size_t i = 0;

		while (i < gl && i < el && got[i] == exp[i])
			i++;
		ck_abort_msg("%s differs from %s at byte %zu (run with RINGSIDE_REGENERATE_GOLDEN=1 to update on purpose)",
			     got_path, golden_path, i);
	}
	free(got);
	free(exp);
}

/* sc's log converted to CSV, every table, in sc's directory "csv" (free it). */
static char *scen_csv(const struct scen *sc)
{
	struct options o = { .log_path = sc->path, .quiet = true };
	struct output_config cfg = { 0 };
	struct output *out;
	char err[256];

	cfg.path = test_path(sc->dir, "csv");
	out = output_csv_new(&cfg, err, sizeof(err));
	ck_assert_msg(out != NULL, "%s", err);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	return (char *)cfg.path;
}

/*
 * --tables: the tables asked for (twice, and as a list) are the golden
 * ones byte for byte; the others are not written, and a file of one of
 * them already there is left alone, --force or not.
 */
static void check_tables_subset(const char *tmp, const char *gdir)
{
	const unsigned want = 1u << CSV_REQUESTS | 1u << CSV_LOSSES | 1u << CSV_COUNTERS;
	char *dir = test_path(tmp, "csv-some"), *keep = csv_file(dir, CSV_EVENTS);
	const char *args[] = { "--format=csv", "--tables=requests,losses", "--tables", "counters",
			       "-o", dir, GOLDEN_LOG, NULL };
	char *err = NULL, *so = NULL;
	size_t len;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	test_write_file(keep, "keep", 4);
	ck_assert_int_eq(run_cli(args, &err, &so), 0);
	free(err);
	free(so);
	for (int i = 0; i < CSV_NTABLES; i++) {
		char *got = csv_file(dir, i), *exp = csv_file(gdir, i);

		if (want & (1u << i))
			compare_or_write(got, exp);
		else if (i != CSV_EVENTS)
			ck_assert_msg(access(got, F_OK) && errno == ENOENT, "%s written", got);
		free(got);
		free(exp);
	}
	free(test_read_file(keep, &len));
	ck_assert_uint_eq(len, 4);
	free(keep);
	free(dir);
}

START_TEST(test_golden)
{
	char *rel = test_path(test_srcdir(), "tests/golden");
	char *golden = realpath(rel, NULL);
	char *gdir;
	char *tmp = test_tmpdir();
	char *csvdir = test_path(tmp, "csv");
	char *out, *exp;
	char *err = NULL, *so = NULL;

	ck_assert_msg(golden != NULL, "%s: %s", rel, strerror(errno));
	free(rel);
	gdir = test_path(golden, GOLDEN_DIR);

	if (regenerate()) {
		char *log = test_path(golden, GOLDEN_LOG);

		/* A golden log never changes: only its outputs are rewritten. */
		mkdir(gdir, 0755);
		if (access(log, F_OK))
			write_golden_log(log);
		free(log);
	}
	/* Convert by a relative name so that the outputs do not depend on
	 * where the source tree is. */
	convert_binary();
	ck_assert_int_eq(chdir(golden), 0);
	out = test_path(tmp, "summary.txt");
	{
		const char *args[] = { "--format=summary", "-o", out, GOLDEN_LOG, NULL };

		ck_assert_int_eq(run_cli(args, &err, &so), 0);
		free(err);
		free(so);
	}
	exp = test_path(gdir, "summary.txt");
	compare_or_write(out, exp);
	free(out);
	free(exp);
	out = test_path(tmp, "summary.json");
	{
		const char *args[] = { "--format=json", "-o", out, GOLDEN_LOG, NULL };

		ck_assert_int_eq(run_cli(args, &err, &so), 0);
		free(err);
		free(so);
	}
	exp = test_path(gdir, "summary.json");
	compare_or_write(out, exp);
	free(out);
	free(exp);
	{
		const char *args[] = { "--format=csv", "-o", csvdir, GOLDEN_LOG, NULL };

		ck_assert_int_eq(run_cli(args, &err, &so), 0);
		free(err);
		free(so);
	}
	for (int i = 0; i < CSV_NTABLES; i++) {
		char *got = csv_file(csvdir, i);

		exp = csv_file(gdir, i);
		compare_or_write(got, exp);
		free(got);
		free(exp);
	}
	if (!regenerate())
		check_tables_subset(tmp, gdir);
	test_rmtree(tmp);
	free(tmp);
	free(csvdir);
	free(gdir);
	free(golden);
}
END_TEST

/* RFC 4180 quoting and UTF-8 repair of task names. */
/* dec_u64: every digit count and the pair table's edges. */
START_TEST(test_dec_u64)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 7, "7" }, { 10, "10" }, { 99, "99" }, { 100, "100" },
		{ 101, "101" }, { 909, "909" }, { 1000, "1000" }, { 4294967295u, "4294967295" },
		{ 10000000000000000000ull, "10000000000000000000" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	char buf[DEC_U64_MAX + 1];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *end = buf + DEC_U64_MAX, *p;

		*end = '\0';
		p = dec_u64(end, cases[i].v);
		ck_assert_str_eq(p, cases[i].want);
	}
	for (uint64_t v = 0; v < 100000; v += 7) {
		char want[24];

		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		buf[DEC_U64_MAX] = '\0';
		ck_assert_str_eq(dec_u64(buf + DEC_U64_MAX, v), want);
	}
	/* Every power of ten and its neighbours (the 8-digit groups' edges
	 * and their leading zeros), then pseudo-random values of every size. */
	for (uint64_t p = 1, x = 0x9e3779b97f4a7c15ull, i = 0; i < 4000; i++) {
		uint64_t vs[4] = { p - 1, p, p + 1, x >> (i % 64) };
		char want[24];

		for (int k = 0; k < 4; k++) {
			snprintf(want, sizeof(want), "%llu", (unsigned long long)vs[k]);
			buf[DEC_U64_MAX] = '\0';
			ck_assert_str_eq(dec_u64(buf + DEC_U64_MAX, vs[k]), want);
		}
		if (p <= UINT64_MAX / 10)
			p *= 10;
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	}
}
END_TEST

START_TEST(test_csv_quoting)
{
	struct scen sc;
	char *dir, *tasks;
	size_t size;
	struct options o = { 0 };
	struct output_config cfg = { 0 };
	struct output *out;
	char err[256];

	scen_open(&sc, "names.log");
	ev_task(&sc, T0, 10, 10, "a,b", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 11, 10, "say \"hi\"", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 12, 10, "two\nlines", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 13, 10, "bad\xff\xfe", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 14, 10, "na\xc3\xafve", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 15, 10, "NA", 0, EV_TASK_EXISTING);
	scen_finish(&sc);
	dir = scen_csv(&sc);
	cfg.path = dir;
	o.log_path = sc.path;
	o.quiet = true;
	tasks = test_path(dir, "tasks.csv");
	{
		char *text = (char *)test_read_file(tasks, &size);

		ck_assert_ptr_nonnull(strstr(text, "\r\n10,10,,\"a,b\",thread,"));
		ck_assert_ptr_nonnull(strstr(text, "\r\n10,11,,\"say \"\"hi\"\"\",thread,"));
		ck_assert_ptr_nonnull(strstr(text, "\r\n10,12,,\"two\nlines\",thread,"));
		ck_assert_ptr_nonnull(strstr(text, "\r\n10,13,,bad\\xff\\xfe,thread,"));
		ck_assert_ptr_nonnull(strstr(text, "\r\n10,14,,na\xc3\xafve,thread,"));
		free(text);
	}
	/* Refuses to overwrite without --force. */
	out = output_csv_new(&cfg, err, sizeof(err));
	{
		FILE *devnull = fopen("/dev/null", "w");

		ck_assert_int_eq(convert_into(&o, out, devnull), 1);
		fclose(devnull);
	}
	cfg.force = true;
	out = output_csv_new(&cfg, err, sizeof(err));
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	free(tasks);
	free(dir);
	scen_free(&sc);
}
END_TEST

/*
 * Who the CSV says owns a ring and posted a CQE: a ring opened before the
 * recording has the first user thread seen as its owner (owner_from
 * first_use, not create), and a CQE posted by a thread outside the
 * recorded processes (a kworker tearing the ring down) is named so, not
 * left empty.
 */
START_TEST(test_csv_ring_owner_and_kworker)
{
	struct scen sc;
	struct test_csv t;
	char *dir, *path;
	unsigned rows = 0;

	scen_open(&sc, "owner.log");
	ev_task(&sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 10, 10, RING, 3, 0);
	ev_submit(&sc, T0 + 2 * US, 10, 10, RING, 1, 22, 1, 0, 0);
	ev_enter_begin(&sc, T0 + 3 * US, 10, 10, RING_B, 4, 1, 0, 0);
	ev_submit(&sc, T0 + 4 * US, 10, 10, RING_B, 2, 22, 2, 0, 0);
	ev_enter_end(&sc, T0 + 5 * US, 10, 10, RING_B, 1);
	ev_complete(&sc, T0 + 6 * US, 10, 10, RING_B, 2, 2, 1, 0);
	ev_complete(&sc, T0 + 9 * US, 300, 300, RING, 1, 1, -125, 0);	/* kworker */
	scen_finish(&sc);
	dir = scen_csv(&sc);
	path = test_path(dir, "rings.csv");
	test_csv_open(&t, path);
	while (test_csv_next(&t)) {
		bool created = !strcmp(test_csv_cell(&t, "created_in_recording"), "true");

		ck_assert_str_eq(test_csv_cell(&t, "pid"), "10");
		ck_assert_str_eq(test_csv_cell(&t, "owner_from"), created ? "create" : "first_use");
		rows++;
	}
	test_csv_close(&t);
	ck_assert_uint_eq(rows, 2);
	free(path);
	path = test_path(dir, "requests.csv");
	test_csv_open(&t, path);
	rows = 0;
	while (test_csv_next(&t)) {
		bool kw = !strcmp(test_csv_cell(&t, "complete_tid"), "300");

		ck_assert_str_eq(test_csv_cell(&t, "complete_comm"),
				 kw ? "(kworker or another process)" : "app");
		rows++;
	}
	test_csv_close(&t);
	ck_assert_uint_eq(rows, 2);
	free(path);
	free(dir);
	scen_free(&sc);
}
END_TEST

static void assert_plain_cell(const char *what, unsigned v, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		ck_assert_msg(*p != ',' && *p != '"' && *p != '\r' && *p != '\n' && *p < 0x80,
			      "%s(%u) = \"%s\" would need quotes or escapes in a CSV cell", what, v, s);
	ck_assert_msg(*s, "%s(%u) is empty", what, v);
}

/*
 * The CSV writer copies this converter's own names without looking at
 * their bytes (field_plain()): every one of them, in range or not, must
 * be a plain cell.
 */
START_TEST(test_names_are_plain_cells)
{
	size_t ntypes;
	const struct ev_type_info *types = ev_types(&ntypes);
	char buf[512];

	for (unsigned v = 0; v <= 64; v++) {
		assert_plain_cell("path_name", v, path_name((enum req_path)v));
		assert_plain_cell("status_name", v, status_name((enum req_status)v));
		if (v)
			assert_plain_cell("incomplete_reason_name", v,
					  incomplete_reason_name((enum req_incomplete_reason)v));
		assert_plain_cell("task_kind_name", v, task_kind_name((enum task_kind)v));
		assert_plain_cell("syscall_kind_name", v, syscall_kind_name((enum syscall_kind)v));
		assert_plain_cell("loss_source_name", v, loss_source_name((enum loss_source)v));
		assert_plain_cell("counter_kind_name", v, counter_kind_name((enum counter_kind)v));
		assert_plain_cell("loss_kind_name", v, loss_kind_name(v));
		assert_plain_cell("ev_type_name", v, ev_type_name(v));
	}
	for (size_t i = 0; i < ntypes; i++)
		assert_plain_cell("ev_types name", (unsigned)i, types[i].name);
	assert_plain_cell("format_modifiers", ~0u,
			  format_modifiers(buf, sizeof(buf), (1u << REQM_COUNT_BITS) - 1));
}
END_TEST

/* w in s, not as part of a longer name ("counters" in "loss_counters") */
static bool has_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; (p = strstr(p, w)); p += n) {
		bool before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

struct cli_case {
	const char *args[8];
	int status;
	const char *needle;		/* in the first stderr line */
};

START_TEST(test_cli_errors)
{
	struct scen sc;
	char *notlog, *existing;
	char *err, *out;

	scen_open(&sc, "cli.log");
	ev_submit(&sc, T0, 1, 1, RING, 1, 0, 1, 0, 0);
	scen_finish(&sc);
	notlog = test_path(sc.dir, "notalog");
	test_write_file(notlog, "hello world, not a log at all\n", 30);
	existing = test_path(sc.dir, "exists.json");
	test_write_file(existing, "{}", 2);
	{
		const struct cli_case cases[] = {
			{ { NULL }, 2, "no LOG" },
			{ { "--format=bogus", sc.path, NULL }, 2, "unknown format" },
			{ { "--pid", "abc", sc.path, NULL }, 2, "not a process id" },
			{ { "--ring", "0", sc.path, NULL }, 2, "not a ring number" },
			{ { "--start", "soon", sc.path, NULL }, 2, "not a time" },
			{ { "--start", "2s", "--end", "1s", sc.path, NULL }, 2, "after --end" },
			{ { sc.path, sc.path, NULL }, 2, "one LOG at a time" },
			{ { "/nonexistent/x.log", NULL }, 1, "cannot open" },
			{ { sc.dir, NULL }, 1, "is a directory" },
			{ { notlog, NULL }, 1, "not a ringside log" },
			{ { "-o", existing, sc.path, NULL }, 1, "already exists" },
			{ { "-o", sc.dir, "--format=json", sc.path, NULL }, 1, "is a directory" },
			{ { "--format=fxt", "--lanes=0", sc.path, NULL }, 2, "--lanes" },
			{ { "--format=csv", sc.path, NULL }, 2, "-o DIR" },
			{ { "--format=csv", "-o", existing, sc.path, NULL }, 1, "not a directory" },
			{ { "--format=csv", "--tables=requests,bogus", "-o", sc.dir, sc.path, NULL }, 2,
			  "unknown table 'bogus'" },
			{ { "--format=csv", "--tables=requests,", "-o", sc.dir, sc.path, NULL }, 2,
			  "empty name" },
			{ { "--tables=requests", "-o", existing, sc.path, NULL }, 2,
			  "--tables needs --format=csv" },
			{ { "--force", "-o", sc.path, sc.path, NULL }, 1, "refusing to write over the log" },
			{ { "--threads=0", sc.path, NULL }, 2, "--threads: '0'" },
			{ { "--threads", "two", sc.path, NULL }, 2, "not a number of threads" },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int st = run_cli(cases[i].args, &err, &out);

			ck_assert_msg(st == cases[i].status, "case %zu: exit %d, want %d (%s)", i, st,
				      cases[i].status, err);
			ck_assert_msg(strstr(err, cases[i].needle), "case %zu: stderr '%s' lacks '%s'",
				      i, err, cases[i].needle);
			ck_assert_msg(lines(err) == 1, "case %zu: %u stderr lines: %s", i, lines(err), err);
			free(err);
			free(out);
		}
	}
	{	/* --force overwrites; --info describes. */
		const char *force[] = { "--force", "-o", existing, sc.path, NULL };
		const char *info[] = { "--info", sc.path, NULL };

		ck_assert_int_eq(run_cli(force, &err, &out), 0);
		free(err);
		free(out);
		ck_assert_int_eq(run_cli(info, &err, &out), 0);
		ck_assert_ptr_nonnull(strstr(out, "per CPU"));
		ck_assert_ptr_nonnull(strstr(out, "stopped:      signal"));
		free(err);
		free(out);
	}
	{	/* --tables' help names every table (options.c has a list of its own) */
		const char *help[] = { "--help", NULL };
		char *at, *end;

		ck_assert_int_eq(run_cli(help, &err, &out), 0);
		at = strstr(out, "--tables=LIST");
		ck_assert_ptr_nonnull(at);
		end = strstr(at, "--info");
		ck_assert_ptr_nonnull(end);
		*end = 0;
		for (int i = 0; i < CSV_NTABLES; i++)
			ck_assert_msg(has_word(at, csv_table_names[i]), "--tables' help lacks %s",
				      csv_table_names[i]);
		free(err);
		free(out);
	}
	free(notlog);
	free(existing);
	scen_free(&sc);
}
END_TEST

static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

/* n requests, each submitted and completed, on 2 CPUs and 4 threads. */
static void write_many(const char *path, uint64_t n)
{
	struct synth_log *s = synth_log_create(path, NULL);

	for (uint64_t i = 0; i < n; i++) {
		uint64_t t = T0 + i * 1000;
		unsigned cpu = (unsigned)(i & 1);
		uint32_t tid = 100 + (uint32_t)(i & 3);
		struct ev_submit sub = {
			SYNTH_HDR(EV_SUBMIT, t, tid, 100), .opcode = 22, .ring = RING,
			.req = 0x1000 + (i & 1023), .user_data = i,
		};
		struct ev_complete comp = {
			SYNTH_HDR(EV_COMPLETE, t + 500, tid, 100), .ring = RING,
			.req = 0x1000 + (i & 1023), .user_data = i, .res = 4096,
		};

		synth_emit(s, cpu, &sub, sizeof(sub));
		synth_emit(s, cpu, &comp, sizeof(comp));
		if ((i & 16383) == 16383)
			synth_flush(s);
	}
	synth_finish(s, "duration");
}

START_TEST(test_bounded_memory)
{
	char *dir = test_tmpdir();
	char *small = test_path(dir, "small.log"), *big = test_path(dir, "big.log");
	struct capture *c;
	long before, after;
	/* ASan's quarantine makes RSS meaningless */
	const uint64_t nbig = RINGSIDE_ASAN ? 200000 : 2000000;

	write_many(small, 100000);
	write_many(big, nbig);
	c = capture_new(false);
	{
		struct options o = { .log_path = small, .quiet = true };

		ck_assert_int_eq(convert_into(&o, &c->base, stderr), 0);
		ck_assert_uint_eq(c->nreq, 100000);
	}
	capture_free(c);
	before = peak_rss_kib();
	c = capture_new(false);
	{
		struct options o = { .log_path = big, .quiet = true };

		ck_assert_int_eq(convert_into(&o, &c->base, stderr), 0);
		ck_assert_uint_eq(c->nreq, nbig);
		ck_assert_uint_eq(c->records, 2 * nbig);
	}
	capture_free(c);
	after = peak_rss_kib();
	/* 20x the requests; a model that kept them would need > 300 MiB. */
	if (!RINGSIDE_ASAN)
		ck_assert_msg(after - before < 32 * 1024, "peak RSS grew from %ld to %ld KiB",
			      before, after);
	test_rmtree(dir);
	free(dir);
	free(small);
	free(big);
}
END_TEST

/*
 * events.csv is written by a thread of its own, fed in 256 KiB batches:
 * 60000 rows (about 60 batches, more than the 4 in flight) come out
 * complete and in the log's order.
 */
START_TEST(test_csv_events_in_order)
{
	enum { N = 30000 };
	char *dir = test_tmpdir();
	char *log = test_path(dir, "many.log"), *csv = test_path(dir, "csv");
	char *events = test_path(csv, "events.csv");
	struct output_config cfg = { .path = csv };
	struct options o = { .log_path = log, .quiet = true };
	struct output *out;
	struct test_csv t;
	char err[256];
	uint64_t submits = 0, completes = 0, last_ts = 0;

	write_many(log, N);
	out = output_csv_new(&cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	test_csv_open(&t, events);
	while (test_csv_next(&t)) {
		uint64_t ts = strtoull(test_csv_cell(&t, "time_ns"), NULL, 10);
		uint64_t ud = strtoull(test_csv_cell(&t, "user_data"), NULL, 10);
		const char *ev = test_csv_cell(&t, "event");

		ck_assert_msg(ts >= last_ts, "time_ns %llu after %llu", (unsigned long long)ts,
			      (unsigned long long)last_ts);
		last_ts = ts;
		if (!strcmp(ev, "submit")) {
			ck_assert_uint_eq(ud, submits);
			submits++;
		} else if (!strcmp(ev, "complete")) {
			ck_assert_uint_eq(ud, completes);
			completes++;
		}
	}
	ck_assert_uint_eq(submits, N);
	ck_assert_uint_eq(completes, N);
	test_csv_close(&t);
	test_rmtree(dir);
	free(events);
	free(csv);
	free(log);
	free(dir);
}
END_TEST

/* Records of every type with random field values (valid checksums: what a
 * buggy or hostile recorder could write), on 3 CPUs, all overlapping in
 * time: 60 frames. */
static void write_random_log(const char *path)
{
	struct synth_options opt = { .ncpus = 3 };
	struct synth_log *s = synth_log_create(path, &opt);
	size_t ntypes;
	const struct ev_type_info *types = ev_types(&ntypes);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned char rec[EV_RECORD_MAX];

	for (unsigned i = 0; i < 20000; i++) {
		const struct ev_type_info *t = &types[i % ntypes];
		struct ev_header *h = (struct ev_header *)rec;

		for (unsigned k = 0; k < t->size; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			rec[k] = (unsigned char)x;
		}
		/* Small ids and tids so that events meet each other. */
		for (unsigned f = 0; f < t->nfields; f++) {
			const struct ev_field *fld = &t->fields[f];

			if (fld->kind == EVK_ID || !strcmp(fld->name, "tid") ||
			    !strcmp(fld->name, "subject_tid") || !strcmp(fld->name, "next_tid"))
				memset(rec + fld->offset + 1, 0, fld->size - 1);
		}
		h->type = t->type;
		h->ts = (i & 7) == 7 ? x : T0 + (x & 0xffffff);
		synth_emit(s, i % 3, rec, t->size);
		if (i % 1000 == 999)
			synth_flush(s);
	}
	synth_finish(s, "signal");
}

/* They convert to every format without a crash, a sanitizer report or an
 * error. */
START_TEST(test_random_records)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "random.log");

	write_random_log(path);
	for (int fmt = 0; fmt < 3; fmt++) {
		struct output_config cfg = { .force = true };
		struct options o = { .log_path = path, .quiet = true };
		char err[256], *out = test_path(dir, fmt == 2 ? "csv" : "out");
		struct output *op;

		cfg.path = out;
		op = fmt == 0 ? output_summary_new(&cfg, err, sizeof(err)) :
		     fmt == 1 ? output_json_new(&cfg, err, sizeof(err)) :
				output_csv_new(&cfg, err, sizeof(err));
		ck_assert_ptr_nonnull(op);
		ck_assert_int_eq(convert_into(&o, op, stderr), 0);
		free(out);
	}
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* Convert path to JSON; its bytes and the warnings (ends with the exit
 * status) into *json and *warnings. */
static void convert_with(struct output *(*make)(const struct output_config *, char *, size_t),
			 const char *path, const char *out, char **text, char **warnings)
{
	struct output_config cfg = { .path = out, .force = true };
	struct options o = { .log_path = path };	/* not quiet: the warnings */
	FILE *errf = tmpfile();
	char err[256];
	struct output *op = make(&cfg, err, sizeof(err));
	size_t size;
	int ret;

	ck_assert_ptr_nonnull(op);
	ck_assert_ptr_nonnull(errf);
	ret = convert_into(&o, op, errf);
	fprintf(errf, "exit %d\n", ret);
	size = (size_t)ftell(errf);
	*warnings = calloc(1, size + 1);
	rewind(errf);
	ck_assert_uint_eq(fread(*warnings, 1, size, errf), size);
	fclose(errf);
	*text = ret ? strdup("") : (char *)test_read_file(out, &size);
}

static void convert_json(const char *path, const char *out, char **json, char **warnings)
{
	convert_with(output_json_new, path, out, json, warnings);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of the raw sizes of path's EVENTS frames. */
static uint32_t median_frame_raw_size(const char *path)
{
	struct log_reader *r;
	struct log_frame f;
	uint32_t sizes[256], median;
	size_t n = 0;
	char msg[LOG_MSG_LEN];

	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	while (log_reader_next(r, &f))
		if (f.h.type == LOG_FRAME_EVENTS && n < 256)
			sizes[n++] = (uint32_t)f.h.raw_size;
	log_reader_close(r);
	ck_assert_uint_ge(n, 10);
	qsort(sizes, n, sizeof(*sizes), cmp_u32);
	median = sizes[n / 2];
	/* Frames on both sides of it. */
	ck_assert_uint_lt(sizes[0], median);
	return median;
}

/*
 * Frames loaded ahead by a second thread (merge_read_ahead) and frames
 * loaded by the merge itself give the same output and the same warnings,
 * in the same order: for a 60-frame log intact and damaged at 40 places
 * (payloads, headers), each time also under a memory limit that skips
 * frames.  Three ways: every frame by the merge; every frame ahead; the
 * frames of at least the median size ahead and the others by the merge
 * (merge_read_ahead_min_raw), taken in turns.
 */
START_TEST(test_read_ahead_same_output)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "random.log"), *out = test_path(dir, "out.json");
	uint64_t saved_limit = merge_max_active_bytes;
	uint32_t median;
	unsigned char *orig;
	size_t size;
	unsigned damaged = 0, skipped = 0;

	write_random_log(path);
	median = median_frame_raw_size(path);
	orig = test_read_file(path, &size);
	for (unsigned k = 0; k <= 40; k++) {
		size_t pos = k * (size - 1) / 40;

		if (k)
			orig[pos] ^= 0x5a;
		test_write_file(path, orig, size);
		if (k)
			orig[pos] ^= 0x5a;
		for (int limited = 0; limited < 2; limited++) {
			char *json[3], *warn[3];

			merge_max_active_bytes = limited ? 100u << 10 : saved_limit;
			for (int way = 0; way < 3; way++) {
				merge_read_ahead = way > 0;
				merge_read_ahead_min_raw = way == 2 ? median : 0;
				convert_json(path, out, &json[way], &warn[way]);
			}
			merge_read_ahead = true;
			merge_read_ahead_min_raw = MERGE_READ_AHEAD_MIN_RAW;
			for (int way = 1; way < 3; way++) {
				ck_assert_msg(!strcmp(warn[0], warn[way]),
					      "damage at %zu, limit %d, way %d: warnings differ:\n%s---\n%s",
					      k ? pos : 0, limited, way, warn[0], warn[way]);
				ck_assert_msg(!strcmp(json[0], json[way]),
					      "damage at %zu, limit %d, way %d: outputs differ",
					      k ? pos : 0, limited, way);
			}
			damaged += !!strstr(warn[0], "counted as lost");
			skipped += !!strstr(warn[0], "overlaps in time with");
			for (int i = 0; i < 3; i++) {
				free(json[i]);
				free(warn[i]);
			}
		}
	}
	merge_max_active_bytes = saved_limit;
	/* The cases the comparison is about did happen. */
	ck_assert_uint_ge(skipped, 30);
	ck_assert_uint_ge(damaged, 60);
	free(orig);
	test_rmtree(dir);
	free(dir);
	free(path);
	free(out);
}
END_TEST

/*
 * The same I/O written as the recorder of format 3.x did (submit and
 * complete records) and as format 4.0's does (completions folded into
 * submit_complete records), on 2 CPUs: single requests with a file record
 * at their completion's time, batches of 4 submitted then completed,
 * multishot requests (the second CQE stays a complete record), frames
 * cut between a submit and its completion, and submit_complete records
 * without a completion.
 */
static void write_fold_log(const char *path, bool fold)
{
	struct synth_log *s = synth_log_create(path, NULL);

	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t t = T0 + i * 10 * US;
		unsigned cpu = (unsigned)(i & 1), n = i % 10 == 9 ? 4 : 1;
		uint32_t tid = 100 + cpu;
		struct ev_enter_begin eb = {
			SYNTH_HDR(EV_ENTER_BEGIN, t, tid, 100), .fd = 3, .ring = RING,
			.to_submit = n, .flags = EVF_RING_VALID,
		};
		struct ev_enter_end ee = {
			SYNTH_HDR(EV_ENTER_END, t + 9 * US, tid, 100), .fd = 3, .ring = RING,
			.ret = n, .flags = EVF_RING_VALID,
		};
		struct ev_submit_complete sc[4];
		struct ev_complete c[4];
		bool unfolded[4] = { false };
		struct ev_file f = {
			SYNTH_HDR(EV_FILE, t + 5 * US, tid, 100), .file = 0xf0 + (i & 7),
			.dev = 8u << 20 | 1, .ino = 1000 + (i & 7), .mode = 0100644,
			.ncomp = 1, .fs = "ext4", .path = "data",
		};

		synth_emit(s, cpu, &eb, sizeof(eb));
		for (unsigned k = 0; k < n; k++) {
			uint64_t req = 0x1000 + ((i * 4 + k) & 255), ud = i * 4 + k;

			sc[k] = (struct ev_submit_complete){
				SYNTH_HDR(EV_SUBMIT_COMPLETE, t + (1 + k) * 100, tid, 100),
				.opcode = 22, .ring = RING, .req = req, .user_data = ud,
				.fd = 5, .len = 4096,
			};
			c[k] = (struct ev_complete){
				SYNTH_HDR(EV_COMPLETE, t + 5 * US + k * 100, tid, 100),
				.flags = EVF_FILE_VALID, .res = 4096, .ring = RING, .req = req,
				.user_data = ud, .file = f.file,
			};
			if (fold && (i + k) % 11 == 5) {
				/* not folded, as readers also accept it */
				synth_emit(s, cpu, &sc[k], sizeof(sc[k]));
				unfolded[k] = true;
			} else if (fold) {
				sc[k].flags = EVF_COMPLETED;
				sc[k].complete_dts = (uint32_t)(c[k].ts - sc[k].ts);
				sc[k].res = c[k].res;
				sc[k].complete_flags = c[k].flags;
				sc[k].file = c[k].file;
				synth_emit(s, cpu, &sc[k], sizeof(sc[k]));
			} else {
				struct ev_submit sub;

				ev_split_submit(&sc[k], &sub);
				synth_emit(s, cpu, &sub, sizeof(sub));
			}
		}
		if (i % 97 == 0)
			synth_flush(s);		/* a frame ends between the two */
		if (i % 8 < 2)
			synth_emit(s, cpu, &f, sizeof(f));
		for (unsigned k = 0; k < n; k++)
			if (!fold || unfolded[k])
				synth_emit(s, cpu, &c[k], sizeof(c[k]));
		if (i % 7 == 3) {
			/* a multishot request's next CQE */
			c[0].ts += 2 * US;
			c[0].cflags = 2;	/* IORING_CQE_F_MORE */
			synth_emit(s, cpu, &c[0], sizeof(c[0]));
		}
		synth_emit(s, cpu, &ee, sizeof(ee));
		if (i % 500 == 499)
			synth_flush(s);
	}
	synth_finish(s, "duration");
}

static struct output *fxt_new(const struct output_config *cfg, char *err, size_t errlen)
{
	return output_fxt_new(cfg, 8, err, errlen);
}

/* Both convert to the same bytes, in every CSV table, JSON and FXT. */
START_TEST(test_folded_completions)
{
	static const char *const tables[] = {
		"events.csv", "requests.csv", "syscalls.csv", "files.csv", "rings.csv",
		"tasks.csv", "counters.csv", "losses.csv",
	};
	char *dir = test_tmpdir();
	char *text[2][3], *warn[2][3];

	for (int fold = 0; fold < 2; fold++) {
		char *log = test_path(dir, "x.log");	/* the outputs name it */
		char *csv = test_path(dir, fold ? "fold_csv" : "plain_csv");
		char *json = test_path(dir, fold ? "fold.json" : "plain.json");
		char *fxt = test_path(dir, fold ? "fold.fxt" : "plain.fxt");
		char *sum = test_path(dir, fold ? "fold.txt" : "plain.txt");

		struct output_config cfg = { .path = csv };
		struct options o = { .log_path = log, .quiet = true };
		struct output *out;
		char err[256];

		write_fold_log(log, fold);
		out = output_csv_new(&cfg, err, sizeof(err));
		ck_assert_ptr_nonnull(out);
		ck_assert_int_eq(convert_into(&o, out, stderr), 0);
		convert_json(log, json, &text[fold][0], &warn[fold][0]);
		convert_with(fxt_new, log, fxt, &text[fold][1], &warn[fold][1]);
		convert_with(output_summary_new, log, sum, &text[fold][2], &warn[fold][2]);
		free(log);
		free(csv);
		free(json);
		free(fxt);
		free(sum);
	}
	for (int k = 0; k < 3; k++) {
		ck_assert_str_eq(warn[0][k], "exit 0\n");
		ck_assert_str_eq(warn[1][k], "exit 0\n");
		size_t at = 0;

		while (text[0][k][at] && text[0][k][at] == text[1][k][at])
			at++;
		ck_assert_msg(!text[0][k][at] && !text[1][k][at],
			      "output %d differs at byte %zu: \"%.60s\" against \"%.60s\"", k,
			      at, text[0][k] + (at > 30 ? at - 30 : 0),
			      text[1][k] + (at > 30 ? at - 30 : 0));
		free(text[0][k]);
		free(text[1][k]);
		free(warn[0][k]);
		free(warn[1][k]);
	}
	for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		char *a = test_path(dir, "plain_csv"), *b = test_path(dir, "fold_csv");
		char *pa = test_path(a, tables[k]), *pb = test_path(b, tables[k]);
		size_t na, nb;
		unsigned char *da = test_read_file(pa, &na), *db = test_read_file(pb, &nb);

		ck_assert_msg(na == nb && !memcmp(da, db, na), "%s differs", tables[k]);
		if (k < 4)	/* rows, not only a header */
			ck_assert_msg(na > 500, "%s: %zu bytes", tables[k], na);
		free(da);
		free(db);
		free(pa);
		free(pb);
		free(a);
		free(b);
	}
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* Every byte of the golden log damaged in turn: converts with warnings or
 * fails with one error line; never crashes. */
START_TEST(test_damaged_bytes)
{
	char *rel = test_path(test_srcdir(), "tests/golden/" GOLDEN_LOG);
	char *dir = test_tmpdir();
	char *path = test_path(dir, "damaged.log"), *out = test_path(dir, "out.json");
	unsigned char *orig;
	size_t size;

	orig = test_read_file(rel, &size);
	for (size_t pos = 0; pos < size; pos += 1 + pos / 64) {
		struct output_config cfg = { .path = out, .force = true };
		struct options o = { .log_path = path, .quiet = true };
		char err[256];
		struct output *op;
		FILE *errf = tmpfile();
		int ret;

		orig[pos] ^= 0x5a;
		test_write_file(path, orig, size);
		orig[pos] ^= 0x5a;
		op = output_json_new(&cfg, err, sizeof(err));
		ck_assert_ptr_nonnull(op);
		ret = convert_into(&o, op, errf);
		ck_assert_msg(ret == 0 || ret == 1, "byte %zu: exit %d", pos, ret);
		if (ret) {
			char line[1024];
			unsigned n = 0;

			rewind(errf);
			while (fgets(line, sizeof(line), errf))
				n++;
			ck_assert_msg(n == 1, "byte %zu: %u error lines", pos, n);
		}
		fclose(errf);
	}
	free(orig);
	test_rmtree(dir);
	free(dir);
	free(rel);
	free(path);
	free(out);
}
END_TEST

/* A log from a newer recorder: an unknown record type and a new trailing
 * field in submit.  The unknown records are counted and skipped, the rest
 * converts as usual. */
START_TEST(test_newer_recorder)
{
	struct json_out jo;
	char *layout, *records, *at;
	size_t len;
	static const char future[] =
		"{\"type\":50,\"name\":\"future_event\",\"size\":24,\"fields\":["
		"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
		"[\"type\",16,2,\"u16\"],[\"flags\",18,2,\"u16\"],[\"x\",20,4,\"u32\"]]},";
	struct synth_options opt = { 0 };
	struct scen sc;
	struct capture *c;
	unsigned char rec[24] = { 0 };
	struct ev_header *h = (struct ev_header *)rec;

	json_out_init(&jo, false);
	ev_layout_to_json(&jo);
	layout = json_out_steal(&jo, &len);
	ck_assert_ptr_nonnull(layout);
	at = strstr(layout, "\"types\":[");
	ck_assert_ptr_nonnull(at);
	at += strlen("\"types\":[");
	records = malloc(len + sizeof(future));
	memcpy(records, layout, (size_t)(at - layout));
	strcpy(records + (at - layout), future);
	strcat(records, at);
	opt.records_json = records;
	scen_open_opts(&sc, "newer.log", &opt);
	ev_submit(&sc, T0 + 1 * US, 1, 1, RING, 1, 22, 7, 0, 0);
	for (int i = 0; i < 5; i++) {
		h->ts = T0 + 2 * US + (uint64_t)i;
		h->tid = 1;
		h->tgid = 1;
		h->type = 50;
		synth_emit(sc.s, 0, rec, sizeof(rec));
	}
	ev_complete(&sc, T0 + 9 * US, 1, 1, RING, 1, 7, 4096, 0);
	scen_finish(&sc);
	c = convert_capture(sc.path, NULL);
	ck_assert_uint_eq(c->nreq, 1);
	ck_assert_int_eq(c->req[0].status, REQ_COMPLETE);
	ck_assert_int_eq(c->req[0].res, 4096);
	ck_assert_uint_eq(c->records, 7);
	ck_assert_uint_eq(c->unknown_records, 5);
	capture_free(c);
	free(layout);
	free(records);
	scen_free(&sc);
}
END_TEST

/*
 * --info prints the recorder's options one a line, whole: a list is never
 * cut in the middle (it was at 400 characters of one line), and an
 * absurdly long one is cut between items, saying how many are left out.
 */
START_TEST(test_info_options_whole)
{
	char meta[16384], *err, *out, *at;
	struct synth_options opt = { .extra_meta = meta };
	struct scen sc;
	size_t n;
	int i;

	n = (size_t)snprintf(meta, sizeof(meta), "\"options\":{\"zstd_level\":1,"
			     "\"sqe_off_zeroed_for\":[");
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(meta + n, sizeof(meta) - n, "%s\"OPCODE_%02d\"",
				      i ? "," : "", i);
	n += (size_t)snprintf(meta + n, sizeof(meta) - n, "],\"long\":[");
	for (i = 0; i < 1000; i++)
		n += (size_t)snprintf(meta + n, sizeof(meta) - n, "%s%d", i ? "," : "", i);
	snprintf(meta + n, sizeof(meta) - n, "]}");
	scen_open_opts(&sc, "info.log", &opt);
	scen_finish(&sc);
	{
		const char *info[] = { "--info", sc.path, NULL };

		ck_assert_int_eq(run_cli(info, &err, &out), 0);
	}
	ck_assert_msg(strstr(out, "\noptions:\n  zstd_level                   1\n"), "%s", out);
	at = strstr(out, "  sqe_off_zeroed_for           [OPCODE_00, ");
	ck_assert_msg(at, "%s", out);
	ck_assert_msg(strstr(at, "OPCODE_39]\n"), "%s", out);
	at = strstr(out, "  long                         [0, 1, 2, ");
	ck_assert_msg(at, "%s", out);
	ck_assert_msg(strstr(at, ", ... ") && strstr(at, " more]\n"), "%s", out);
	free(err);
	free(out);
	scen_free(&sc);
}
END_TEST

/*
 * The recorder's own selection (metadata "filters") is shown next to the
 * converter's: a -p recording is not "everything".
 */
START_TEST(test_recorded_selection)
{
	static const struct {
		const char *filters, *want;
	} cases[] = {
		{ "\"filters\":{\"pids\":[123,45],\"follow\":true,\"comm\":null,"
		  "\"cgroup\":null,\"command\":null}",
		  "\"recorded_selection\": \"--pid 123 --pid 45 --follow\"" },
		{ "\"filters\":{\"pids\":[77],\"follow\":true,\"comm\":\"app\","
		  "\"cgroup\":\"/sys/fs/cgroup/x\",\"command\":[\"./prog\",\"-v\"]}",
		  "\"recorded_selection\": \"-- ./prog -v (pid 77) --comm app --cgroup /sys/fs/cgroup/x\"" },
		{ "\"filters\":{\"pids\":[],\"follow\":false,\"comm\":null,"
		  "\"cgroup\":null,\"command\":null}",
		  "\"recorded_selection\": \"\"" },
		{ NULL, "\"recorded_selection\": null" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct synth_options opt = { .extra_meta = cases[i].filters };
		struct scen sc;
		char *json, *warnings, *out;

		scen_open_opts(&sc, "recorded.log", &opt);
		ev_submit(&sc, T0 + 1 * US, 1, 1, RING, 1, 22, 7, 0, 0);
		ev_complete(&sc, T0 + 2 * US, 1, 1, RING, 1, 7, 0, 0);
		scen_finish(&sc);
		out = test_path(sc.dir, "summary.json");
		convert_json(sc.path, out, &json, &warnings);
		ck_assert_msg(strstr(json, cases[i].want), "case %zu: no %s in\n%s", i,
			      cases[i].want, json);
		free(json);
		free(warnings);
		free(out);
		scen_free(&sc);
	}
}
END_TEST

/* sc's summary as JSON and as text (free both). */
static void scen_summaries(struct scen *sc, char **json, char **summary)
{
	char *warnings, *out;

	out = test_path(sc->dir, "summary.json");
	convert_json(sc->path, out, json, &warnings);
	free(warnings);
	free(out);
	out = test_path(sc->dir, "summary.txt");
	convert_with(output_summary_new, sc->path, out, summary, &warnings);
	free(warnings);
	free(out);
}

/*
 * The recorder's cost (STATS frame, "cost"): per request in the summary,
 * JSON and --info, from the last STATS frame; absent, unmeasured and
 * damaged ones never invent a figure.
 */
START_TEST(test_tracing_cost)
{
	static const struct {
		const char *stats, *summary, *json;
	} cases[] = {
		{ "{\"cost\":{\"recording_s\":2,\"recorder_cpu_s\":0.05,\"bpf_stats\":\"run_time\","
		  "\"bpf_run_time_ns\":1000,\"bpf_runs\":4}}",
		  "  cost       500 ns of BPF per request in the traced threads (250 ns per hook run, "
		  "0.0 ms in all), 2.5 % of one CPU for the recorder\n",
		  "\"bpf_ns_per_request\": 500," },
		{ "{\"cost\":{\"recording_s\":1,\"recorder_cpu_s\":0.5,"
		  "\"bpf_stats\":\"off (--no-self-cost)\"}}",
		  "  cost       BPF run time not measured (off (--no-self-cost)), 50.0 % of one CPU "
		  "for the recorder\n",
		  "\"bpf_ns_per_request\": null," },
		{ "{\"drains\":3}", NULL, "\"tracing_cost\": null," },
		{ "{\"cost\":", NULL, "\"tracing_cost\": null," },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scen sc;
		char *json, *summary;

		scen_open(&sc, "cost.log");
		ev_submit(&sc, T0 + 1 * US, 1, 1, RING, 1, 22, 7, 0, 0);
		ev_complete(&sc, T0 + 2 * US, 1, 1, RING, 1, 7, 0, 0);
		ev_submit(&sc, T0 + 3 * US, 1, 1, RING, 2, 22, 8, 0, 0);
		ev_complete(&sc, T0 + 4 * US, 1, 1, RING, 2, 8, 0, 0);
		synth_flush(sc.s);
		synth_frame(sc.s, LOG_FRAME_STATS, 0, LOG_STREAM_GLOBAL, 1, cases[i].stats,
			    strlen(cases[i].stats));
		scen_finish(&sc);
		scen_summaries(&sc, &json, &summary);
		ck_assert_msg(strstr(json, cases[i].json), "case %zu: no %s in\n%s", i,
			      cases[i].json, json);
		if (cases[i].summary)
			ck_assert_msg(strstr(summary, cases[i].summary), "case %zu: no %s in\n%s", i,
				      cases[i].summary, summary);
		else
			ck_assert_ptr_null(strstr(summary, "  cost "));
		free(json);
		free(summary);
		scen_free(&sc);
	}
}
END_TEST

/*
 * --end: the outputs say how far the log was read, and leave out what
 * would mix the part read with the whole recording (the cost per
 * request, the share of events lost).
 */
START_TEST(test_end_read_to)
{
	static const char stats[] = "{\"cost\":{\"recording_s\":2,\"recorder_cpu_s\":0.05,"
		"\"bpf_stats\":\"run_time\",\"bpf_run_time_ns\":1000,\"bpf_runs\":4}}";
	static const struct log_loss_row lost = { .cpu = 0, .kind = EV_LOSS_RING_FULL, .count = 3 };
	static const char marker[] = "log read to here";
	struct scen sc;
	char *err, *out, *fxt;
	unsigned char *bytes;
	size_t len;

	scen_open(&sc, "end.log");
	for (unsigned i = 0; i < 10; i++) {
		uint64_t t = T0 + i * 1000 * US;

		ev_submit(&sc, t, 1, 1, RING, 0x100 + i, 22, i, 0, 0);
		ev_complete(&sc, t + 10 * US, 1, 1, RING, 0x100 + i, i, 0, 0);
	}
	ev_lost(&sc, T0 + 7500 * US, T0 + 7600 * US, 3);
	synth_flush(sc.s);
	synth_frame(sc.s, LOG_FRAME_STATS, 0, LOG_STREAM_GLOBAL, 1, stats, strlen(stats));
	synth_loss(sc.s, &lost, 1, T0 + 9 * MS);
	scen_finish(&sc);
	fxt = test_path(sc.dir, "end.fxt");

	/* read to request 5's completion: request 4's is held until its
	 * thread's next event (a task-work batch may follow), request 5's
	 * submission */
	ck_assert_int_eq(run_cli((const char *[]){ "--format=summary", "--end=1.0045s", sc.path,
						   NULL }, &err, &out), 0);
	ck_assert_msg(strstr(out, "\n  read       up to +1.005010 s, all that --end needed"), "%s",
		      out);
	ck_assert_msg(strstr(out, "\n  cost       250 ns per hook run, "), "%s", out);
	/* the counters are the whole recording's, the records those read */
	ck_assert_msg(strstr(out, "\n!!! 3 events lost (in the whole recording) on CPUs (not "
				  "placed in time) !!!"), "%s", out);
	free(err);
	free(out);
	ck_assert_int_eq(run_cli((const char *[]){ "--format=json", "--end=1.0045s", sc.path,
						   NULL }, &err, &out), 0);
	ck_assert_msg(strstr(out, "\"read_to_boot_ns\": 2005010000,"), "%s", out);
	ck_assert_msg(strstr(out, "\"bpf_ns_per_request\": null,"), "%s", out);
	ck_assert_msg(strstr(out, "\"percent_lost\": null,"), "%s", out);
	free(err);
	free(out);
	ck_assert_int_eq(run_cli((const char *[]){ "--format=fxt", "--end=1.0045s", "-o", fxt,
						   sc.path, NULL }, &err, NULL), 0);
	bytes = test_read_file(fxt, &len);
	ck_assert_ptr_nonnull(memmem(bytes, len, marker, strlen(marker)));
	free(bytes);
	free(err);

	/* read whole */
	ck_assert_int_eq(run_cli((const char *[]){ "--format=summary", sc.path, NULL }, &err, &out),
			 0);
	ck_assert_msg(!strstr(out, "\n  read "), "%s", out);
	ck_assert_msg(strstr(out, "\n  cost       100 ns of BPF per request"), "%s", out);
	ck_assert_msg(strstr(out, "\n!!! 3 events lost (12.50% of 24) on CPU 0 !!!"), "%s", out);
	free(err);
	free(out);
	ck_assert_int_eq(run_cli((const char *[]){ "--format=json", sc.path, NULL }, &err, &out),
			 0);
	ck_assert_msg(!strstr(out, "\"read_to_boot_ns\""), "%s", out);
	ck_assert_msg(!strstr(out, "\"percent_lost\": null"), "%s", out);
	free(err);
	free(out);
	ck_assert_int_eq(run_cli((const char *[]){ "--format=fxt", "--force", "-o", fxt, sc.path,
						   NULL }, &err, NULL), 0);
	bytes = test_read_file(fxt, &len);
	ck_assert_ptr_null(memmem(bytes, len, marker, strlen(marker)));
	free(bytes);
	free(err);
	free(fxt);
	scen_free(&sc);
}
END_TEST

/*
 * Submissions by the SQPOLL thread get their own column and member: the
 * enters of an SQPOLL ring submit nothing, and a req/enter of 0.00 would
 * read as "no batching".
 */
START_TEST(test_sqpoll_submissions)
{
	struct scen sc;
	char *json, *summary;

	scen_open(&sc, "sqpoll.log");
	ev_task(&sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 11, 10, "iou-sqp-10", 0x10, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 10, 10, RING, 3, 2 /* SQPOLL */);
	ev_enter_begin(&sc, T0 + 2 * US, 10, 10, RING, 3, 0, 1, 1 /* GETEVENTS */);
	ev_submit(&sc, T0 + 3 * US, 11, 10, RING, 1, 0, 1, 0, EVF_SQ_THREAD);
	ev_submit(&sc, T0 + 3 * US + 1, 11, 10, RING, 2, 0, 2, 0, EVF_SQ_THREAD);
	ev_complete(&sc, T0 + 4 * US, 11, 10, RING, 1, 1, 0, 0);
	ev_complete(&sc, T0 + 4 * US + 1, 11, 10, RING, 2, 2, 0, 0);
	ev_enter_end(&sc, T0 + 5 * US, 10, 10, RING, 0);
	scen_finish(&sc);
	scen_summaries(&sc, &json, &summary);
	ck_assert_ptr_nonnull(strstr(json, "\"submitted\": 0,\n      \"sqpoll_submitted\": 2"));
	ck_assert_msg(strstr(summary, "by sqpoll req/enter"), "%s", summary);
	/* ring 1: 2 requests, 1 enter, 2 by sqpoll, req/enter "-" */
	ck_assert_msg(strstr(summary, "         2         1         2         -"), "%s", summary);
	free(json);
	free(summary);
	scen_free(&sc);
}
END_TEST

/*
 * The files of a format 3.1 log in every output: requests.csv's file
 * columns (empty for a request without a file), files.csv, the summary's
 * Per file tables, the JSON files array.  A path with a comma and a quote
 * stays one CSV cell.
 */
START_TEST(test_file_outputs)
{
	static const char dir_name[] = "a \"b\",c\0tmp\0";
	struct scen sc;
	struct options o = { 0 };
	struct output *out;
	struct test_csv t;
	char err[256], *dir, *path, *json, *summary;
	unsigned rows = 0;

	scen_open(&sc, "files.log");
	ev_task(&sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_file(&sc, T0 + 1 * US, 0xf1, 8u << 20 | 2, 4242, 040000 | 02000, 1, 0100644, "xfs",
		dir_name, sizeof(dir_name) - 1, 2, 0);
	ev_submit(&sc, T0 + 1 * US, 10, 10, RING, 1, 22 /* READ */, 1, 0, 0);
	ev_complete_file(&sc, T0 + 3 * US, 10, 10, RING, 1, 1, 4096, 0xf1);
	ev_submit(&sc, T0 + 4 * US, 10, 10, RING, 2, 5 /* WRITE_FIXED */, 2, 1, 0);
	ev_complete_file(&sc, T0 + 9 * US, 10, 10, RING, 2, 2, 512, 0xf1);
	ev_submit(&sc, T0 + 10 * US, 10, 10, RING, 3, 0 /* NOP */, 3, 0, 0);
	ev_complete_file(&sc, T0 + 11 * US, 10, 10, RING, 3, 3, 0, 0);
	scen_finish(&sc);
	dir = scen_csv(&sc);
	path = test_path(dir, "requests.csv");
	test_csv_open(&t, path);
	while (test_csv_next(&t)) {
		bool nop = !strcmp(test_csv_cell(&t, "opcode"), "NOP");

		ck_assert_str_eq(test_csv_cell(&t, "file_path"), nop ? "" : "/tmp/a \"b\",c");
		ck_assert_str_eq(test_csv_cell(&t, "file_type"), nop ? "" : "regular");
		ck_assert_str_eq(test_csv_cell(&t, "file_dev"), nop ? "" : "8:2");
		ck_assert_str_eq(test_csv_cell(&t, "file_ino"), nop ? "" : "4242");
		ck_assert_str_eq(test_csv_cell(&t, "file_flags"), nop ? "" : "O_DIRECT|O_APPEND");
		ck_assert_str_eq(test_csv_cell(&t, "file_fs"), nop ? "" : "xfs");
		rows++;
	}
	test_csv_close(&t);
	ck_assert_uint_eq(rows, 3);
	free(path);
	path = test_path(dir, "files.csv");
	test_csv_open(&t, path);
	ck_assert(test_csv_next(&t));
	ck_assert_str_eq(test_csv_cell(&t, "file"), "1");
	ck_assert_str_eq(test_csv_cell(&t, "path"), "/tmp/a \"b\",c");
	ck_assert_str_eq(test_csv_cell(&t, "mode"), "100644");
	ck_assert_str_eq(test_csv_cell(&t, "requests"), "2");
	ck_assert_str_eq(test_csv_cell(&t, "bytes_read"), "4096");
	ck_assert_str_eq(test_csv_cell(&t, "bytes_written"), "512");
	ck_assert_str_eq(test_csv_cell(&t, "latency_total_ns"), "7000");
	ck_assert_str_eq(test_csv_cell(&t, "latency_max_ns"), "5000");
	ck_assert_str_eq(test_csv_cell(&t, "deleted"), "false");
	ck_assert(!test_csv_next(&t));
	test_csv_close(&t);
	free(path);
	{	/* FXT: the request slices carry the path */
		struct output_config fcfg = { 0 };
		unsigned char *fxt;
		size_t len;

		o.log_path = sc.path;
		o.quiet = true;
		fcfg.path = path = test_path(sc.dir, "trace.fxt");
		out = output_fxt_new(&fcfg, 64, err, sizeof(err));
		ck_assert_ptr_nonnull(out);
		ck_assert_int_eq(convert_into(&o, out, stderr), 0);
		fxt = test_read_file(path, &len);
		ck_assert_ptr_nonnull(memmem(fxt, len, "/tmp/a \"b\",c", 12));
		free(fxt);
		free(path);
	}
	scen_summaries(&sc, &json, &summary);
	ck_assert_msg(strstr(json, "\"path\": \"/tmp/a \\\"b\\\",c\""), "%s", json);
	ck_assert_msg(strstr(json, "\"bytes_written\": 512"), "%s", json);
	ck_assert_msg(strstr(summary, "Per file: top 10 by requests"), "%s", summary);
	ck_assert_msg(strstr(summary, "Per file: top 10 by total latency"), "%s", summary);
	ck_assert_msg(strstr(summary, "O_DIRECT|O_APPEND /tmp/a \"b\",c"), "%s", summary);
	free(json);
	free(summary);
	free(dir);
	scen_free(&sc);
}
END_TEST

/*
 * io-wq requests whose worker the log cannot name (no work events, and
 * the completion came back on the submitter): the io-wq table says
 * "unknown", not "0 workers, 0ns busy".
 */
START_TEST(test_iowq_unknown_worker)
{
	struct scen sc;
	char *json, *summary;

	scen_open(&sc, "iowq_unknown.log");
	ev_task(&sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 10, 10, RING, 3, 0);
	ev_submit(&sc, T0 + 2 * US, 10, 10, RING, 1, 22, 1, 0, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 3 * US, 10, 10, RING, 1, 1);
	ev_complete(&sc, T0 + 9 * US, 10, 10, RING, 1, 1, 512, 0);
	scen_finish(&sc);
	scen_summaries(&sc, &json, &summary);
	ck_assert_msg(strstr(summary, "   1         1  unknown            1    unknown"), "%s",
		      summary);
	ck_assert_msg(strstr(json, "\"requests\": 1,\n        \"placed_requests\": 0,"), "%s", json);
	free(json);
	free(summary);
	scen_free(&sc);
}
END_TEST

/*
 * The sampled scenario: requests 1 and 2 sampled (submitted and
 * completed); a request never submitted (ptr 9: its submit was sampled
 * away) has a queue_async and a completion; a multishot CQE and an overflow
 * of no request match no sampled one.
 */
static void sampled_scenario(struct scen *sc, const char *name, const char *meta)
{
	struct synth_options opt = { .extra_meta = meta };

	scen_open_opts(sc, name, &opt);
	ev_task(sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, 10, 10, RING, 3, 0);
	ev_submit(sc, T0 + 2 * US, 10, 10, RING, 1, 0, 1, 0, 0);
	ev_submit(sc, T0 + 3 * US, 10, 10, RING, 2, 22, 2, 0, 0);
	ev_req(sc, EV_QUEUE_ASYNC_WORK, T0 + 4 * US, 10, 10, RING, 9, 9);
	ev_complete(sc, T0 + 5 * US, 10, 10, RING, 1, 1, 0, 0);
	ev_complete(sc, T0 + 6 * US, 10, 10, RING, 9, 9, 0, 0);
	ev_complete(sc, T0 + 7 * US, 10, 10, RING, 0, 77, 5, 2 /* IORING_CQE_F_MORE */);
	ev_overflow(sc, T0 + 8 * US, 10, 10, RING, 78, 0, false);
	ev_complete(sc, T0 + 9 * US, 10, 10, RING, 2, 2, -9, 0);
	scen_finish(sc);
}

/*
 * A sampled recording (metadata "sampling", uring-record --sample=10):
 * the summary and JSON say so and scale the request counts (marked "~",
 * "estimated_*"); events of requests not sampled are neither requests
 * ("in flight at start") nor CQEs of no request.  The same log without
 * the key is read as before.
 */
START_TEST(test_sampled_counts)
{
	struct scen sc;
	char *json, *summary;

	sampled_scenario(&sc, "sampled.log",
			 "\"sampling\":{\"requests_one_in\":10,\"syscalls_one_in\":1}");
	scen_summaries(&sc, &json, &summary);
	ck_assert_msg(strstr(summary, "\n  sampled    1 request in 10: counts marked ~ are "
			     "estimates (sampled x rate), latencies are over the 2 sampled "
			     "requests; 4 events of requests not sampled ignored\n"), "%s", summary);
	ck_assert_msg(strstr(summary, "\nRequests: ~20 (complete ~20, in flight at start ~0,"),
		      "%s", summary);
	ck_assert_msg(strstr(summary, "\nREAD                   ~10     ~10 "), "%s", summary);
	ck_assert_msg(strstr(summary, "CQEs of no request    0\n"), "%s", summary);
	ck_assert_msg(strstr(summary, "(not shown: the recording is sampled)"), "%s", summary);
	ck_assert_msg(strstr(json, "\"sampling\": {\n    \"requests_one_in\": 10,\n"
			     "    \"syscalls_one_in\": 1,\n    \"counts_estimated\": true,"),
		      "%s", json);
	ck_assert_msg(strstr(json, "\"events_of_requests_not_sampled\": 4\n"), "%s", json);
	ck_assert_msg(strstr(json, "\"total\": 2,\n    \"estimated_total\": 20,"), "%s", json);
	ck_assert_msg(strstr(json, "\"count\": 1,\n      \"estimated_count\": 10,"), "%s", json);
	ck_assert_msg(strstr(json, "\"aux_cqes\": 0,"), "%s", json);
	free(json);
	free(summary);
	scen_free(&sc);

	sampled_scenario(&sc, "plain.log", NULL);
	scen_summaries(&sc, &json, &summary);
	ck_assert_msg(!strstr(summary, "sampled") && !strstr(summary, "~"), "%s", summary);
	ck_assert_msg(strstr(summary, "\nRequests: 3 (complete 2, in flight at start 1,"),
		      "%s", summary);
	ck_assert_msg(!strstr(json, "sampling") && !strstr(json, "estimated"), "%s", json);
	free(json);
	free(summary);
	scen_free(&sc);
}
END_TEST

/*
 * --sample-syscalls (syscalls_one_in 4): io_uring_enter counts are
 * estimates too (x 4), requests submitted inside them x 40, req/enter is
 * the sampled requests x 10 per sampled enter.
 */
START_TEST(test_sampled_syscalls)
{
	struct synth_options opt = {
		.extra_meta = "\"sampling\":{\"requests_one_in\":10,\"syscalls_one_in\":4}",
	};
	struct scen sc;
	char *json, *summary;

	scen_open_opts(&sc, "sampled_sys.log", &opt);
	ev_task(&sc, T0, 10, 10, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 10, 10, RING, 3, 0);
	ev_enter_begin(&sc, T0 + 2 * US, 10, 10, RING, 3, 8, 0, 0);
	ev_submit(&sc, T0 + 3 * US, 10, 10, RING, 1, 0, 1, 0, 0);
	ev_complete(&sc, T0 + 4 * US, 10, 10, RING, 1, 1, 0, 0);
	ev_enter_end(&sc, T0 + 5 * US, 10, 10, RING, 8);
	scen_finish(&sc);
	scen_summaries(&sc, &json, &summary);
	ck_assert_msg(strstr(summary, "  sampled    1 request in 10 and 1 io_uring_enter call "
			     "in 4: counts marked ~ are estimates (sampled x rate), latencies "
			     "are over the 1 sampled requests, times in enter over the sampled "
			     "calls; 0 events of requests not sampled ignored\n"), "%s", summary);
	/* pid, comm, requests, enters, submitted, by sqpoll, req/enter */
	ck_assert_msg(strstr(summary, "      10 app                    ~10        ~4       ~40"
			     "        ~0     10.00 "), "%s", summary);
	ck_assert_msg(strstr(json, "\"enters\": 1,\n      \"estimated_enters\": 4,"), "%s", json);
	ck_assert_msg(strstr(json, "\"submitted\": 1,\n      \"estimated_submitted\": 40,"),
		      "%s", json);
	free(json);
	free(summary);
	scen_free(&sc);
}
END_TEST

/* A sampling rate out of range is refused, naming the log and the key. */
START_TEST(test_sampled_bad_rate)
{
	static const char *const metas[] = {
		"\"sampling\":{\"requests_one_in\":0}",
		"\"sampling\":{\"requests_one_in\":10,\"syscalls_one_in\":\"x\"}",
		"\"sampling\":{\"requests_one_in\":4294967306}",
	};

	for (size_t i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		struct synth_options opt = { .extra_meta = metas[i] };
		struct scen sc;
		char *err, *out;

		scen_open_opts(&sc, "bad_rate.log", &opt);
		scen_finish(&sc);
		{
			const char *args[] = { "--format=summary", sc.path, NULL };

			ck_assert_int_ne(run_cli(args, &err, &out), 0);
		}
		ck_assert_msg(strstr(err, "bad_rate.log: metadata: sampling.") &&
			      strstr(err, " is not a rate from 1 to 1048576\n"), "case %zu: %s",
			      i, err);
		free(err);
		free(out);
		scen_free(&sc);
	}
}
END_TEST

/* The byte at offset i of test_out_buf's stream. */
static char out_buf_byte(size_t i)
{
	return (char)('a' + (i * 7 + i / 4096) % 26);
}

/*
 * out_buf: what goes in comes out in order, through the thread (several
 * buffers, with pieces that straddle them, and one longer than a buffer)
 * and without it (a file that never fills one); a failed write is
 * reported by out_buf_close() on both paths.
 */
START_TEST(test_out_buf)
{
	static const size_t sizes[] = { 100, 3 * OUT_BUF_BYTES + 12345 };
	char *dir = test_tmpdir(), *path = test_path(dir, "out"), err[256];

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t want = sizes[k], off = 0, n = 0;
		struct out_buf b;
		unsigned char *got;
		char piece[97];

		ck_assert_int_eq(out_buf_open(&b, path, true, err, sizeof(err)), 0);
		while (off < want) {
			size_t len = (n++ % 5) * 23 + 1;

			if (n == 7 && want > OUT_BUF_BYTES) {
				/* longer than a buffer: out_buf_put_long() */
				char *big = malloc(OUT_BUF_BYTES + 5000);

				ck_assert_ptr_nonnull(big);
				for (size_t i = 0; i < OUT_BUF_BYTES + 5000; i++)
					big[i] = out_buf_byte(off + i);
				out_buf_put(&b, big, OUT_BUF_BYTES + 5000);
				off += OUT_BUF_BYTES + 5000;
				free(big);
				continue;
			}
			if (len > want - off)
				len = want - off;
			if (len == 1) {
				out_buf_putc(&b, out_buf_byte(off++));
				continue;
			}
			for (size_t i = 0; i < len; i++)
				piece[i] = out_buf_byte(off + i);
			out_buf_put(&b, piece, len);
			off += len;
		}
		ck_assert_int_eq(out_buf_close(&b), 0);
		ck_assert_int_eq(out_buf_close(&b), 0);	/* again: nothing */
		got = test_read_file(path, &n);
		ck_assert_uint_eq(n, want);
		for (size_t i = 0; i < n; i++)
			if ((char)got[i] != out_buf_byte(i))
				ck_abort_msg("size %zu: byte %zu is %c, want %c", want, i, got[i],
					     out_buf_byte(i));
		free(got);
		unlink(path);

		/* The same into a full disk. */
		ck_assert_int_eq(out_buf_open(&b, "/dev/full", true, err, sizeof(err)), 0);
		for (off = 0; off < want; off += sizeof(piece))
			out_buf_put(&b, piece, sizeof(piece));
		ck_assert_int_eq(out_buf_close(&b), ENOSPC);
	}
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

static Suite *output_suite(void)
{
	Suite *s = suite_create("convert_output");
	TCase *tc = tcase_create("output");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_golden);
	tcase_add_test(tc, test_csv_quoting);
	tcase_add_test(tc, test_names_are_plain_cells);
	tcase_add_test(tc, test_csv_events_in_order);
	tcase_add_test(tc, test_dec_u64);
	tcase_add_test(tc, test_out_buf);
	tcase_add_test(tc, test_cli_errors);
	tcase_add_test(tc, test_bounded_memory);
	tcase_add_test(tc, test_random_records);
	tcase_add_test(tc, test_folded_completions);
	tcase_add_test(tc, test_read_ahead_same_output);
	tcase_add_test(tc, test_damaged_bytes);
	tcase_add_test(tc, test_newer_recorder);
	tcase_add_test(tc, test_recorded_selection);
	tcase_add_test(tc, test_tracing_cost);
	tcase_add_test(tc, test_end_read_to);
	tcase_add_test(tc, test_info_options_whole);
	tcase_add_test(tc, test_sqpoll_submissions);
	tcase_add_test(tc, test_iowq_unknown_worker);
	tcase_add_test(tc, test_file_outputs);
	tcase_add_test(tc, test_csv_ring_owner_and_kworker);
	tcase_add_test(tc, test_sampled_counts);
	tcase_add_test(tc, test_sampled_bad_rate);
	tcase_add_test(tc, test_sampled_syscalls);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(output_suite)
