// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert --format=fio on synthetic logs: the exact iolog text
 * (version 3, microseconds since the start, sorted by submission), the
 * job file's iodepth and startdelay, and what is left out and why.
 */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert_test.h"
#include "test_util.h"

#define US 1000ull
#define OP_NOP 0
#define OP_READV 1
#define OP_FSYNC 3
#define OP_FALLOCATE 17
#define OP_READ 22
#define OP_WRITE 23

static void submit(struct scen *sc, uint64_t ts, uint32_t pid, uint64_t ring, uint64_t req,
		   uint8_t opcode, int32_t fd, uint64_t off, uint32_t len, uint32_t op_flags,
		   uint8_t sqe_flags)
{
	struct ev_submit e = {
		SYNTH_HDR(EV_SUBMIT, ts, pid, pid),
		.opcode = opcode, .sqe_flags = sqe_flags, .ring = ring, .req = req,
		.user_data = req, .req_flags = sqe_flags, .off = off, .fd = fd, .len = len,
		.op_flags = op_flags,
	};

	e.flags = EVF_SQE_VALID;
	synth_emit(sc->s, sc->cpu, &e, sizeof(e));
}

static void done(struct scen *sc, uint64_t ts, uint32_t pid, uint64_t ring, uint64_t req,
		 int32_t res)
{
	ev_complete(sc, ts, pid, pid, ring, req, req, res, 0);
}

/* Two processes: 100 ("db", rings 0xa and 0xb) and 200 (ring 0xc). */
static void write_scenario(struct scen *sc)
{
	scen_open(sc, "fio.log");
	ev_task(sc, T0, 100, 100, "db", 0, EV_TASK_EXISTING);
	ev_task(sc, T0, 200, 200, "idx", 0, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, 100, 100, 0xa, 4, 0);
	submit(sc, T0 + 10 * US, 100, 0xa, 1, OP_READ, 5, 4096, 512, 0, 0);
	submit(sc, T0 + 20 * US, 100, 0xa, 2, OP_WRITE, 6, 8192, 4096, 0, 0);
	done(sc, T0 + 30 * US, 100, 0xa, 1, 512);
	done(sc, T0 + 40 * US, 100, 0xa, 2, 4096);
	submit(sc, T0 + 50 * US, 100, 0xa, 3, OP_FSYNC, 6, 0, 0, 1, 0);
	submit(sc, T0 + 51 * US, 100, 0xa, 4, OP_FSYNC, 5, 0, 0, 0, 0);
	submit(sc, T0 + 52 * US, 100, 0xa, 5, OP_NOP, -1, 0, 0, 0, 0);
	/* A vectored read: 2 iovecs, 8192 bytes as its result says. */
	submit(sc, T0 + 53 * US, 100, 0xa, 6, OP_READV, 5, 0, 2, 0, 0);
	done(sc, T0 + 60 * US, 100, 0xa, 3, 0);
	done(sc, T0 + 61 * US, 100, 0xa, 4, 0);
	done(sc, T0 + 62 * US, 100, 0xa, 5, 0);
	done(sc, T0 + 63 * US, 100, 0xa, 6, 8192);
	/* Read at the file position, fallocate, a vectored read never done. */
	submit(sc, T0 + 70 * US, 100, 0xa, 7, OP_READ, 5, UINT64_MAX, 512, 0, 0);
	submit(sc, T0 + 71 * US, 100, 0xa, 8, OP_FALLOCATE, 5, 0, 0, 0, 0);
	submit(sc, T0 + 72 * US, 100, 0xa, 9, OP_READV, 5, 0, 1, 0, 0);
	done(sc, T0 + 80 * US, 100, 0xa, 7, 512);
	done(sc, T0 + 81 * US, 100, 0xa, 8, 0);
	/* A registered file (IOSQE_FIXED_FILE) on another ring. */
	ev_create(sc, T0 + 90 * US, 100, 100, 0xb, 7, 0);
	submit(sc, T0 + 91 * US, 100, 0xb, 10, OP_WRITE, 3, 0, 65536, 0, 1);
	done(sc, T0 + 95 * US, 100, 0xb, 10, 65536);
	/* The other process starts 1 ms later. */
	ev_create(sc, T0 + 1000 * US, 200, 200, 0xc, 4, 0);
	submit(sc, T0 + 1010 * US, 200, 0xc, 11, OP_READ, 5, 1 << 20, 4096, 0, 0);
	done(sc, T0 + 1020 * US, 200, 0xc, 11, 4096);
	scen_finish(sc);
}

static void convert_fio(const struct scen *sc, const char *dir, bool per_ring, bool force)
{
	struct options o = { .log_path = sc->path, .quiet = true };
	struct output_config cfg = { .path = dir, .force = force, .quiet = true };
	struct output *out;
	char err[256];

	out = output_fio_new(&cfg, per_ring, err, sizeof(err));
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
}

static char *read_in(const char *dir, const char *name)
{
	char *path = test_path(dir, name);
	size_t size;
	char *text = (char *)test_read_file(path, &size);

	ck_assert_msg(text, "%s was not written", path);
	free(path);
	return text;
}

static void assert_file(const char *dir, const char *name, const char *want)
{
	char *got = read_in(dir, name);

	ck_assert_str_eq(got, want);
	free(got);
}

static void assert_has(const char *dir, const char *name, const char *want)
{
	char *got = read_in(dir, name);

	ck_assert_msg(strstr(got, want), "%s lacks \"%s\":\n%s", name, want, got);
	free(got);
}

START_TEST(test_fio_per_process)
{
	struct scen sc;
	char *dir;

	write_scenario(&sc);
	dir = test_path(sc.dir, "fio");
	convert_fio(&sc, dir, false, false);
	assert_file(dir, "p100.iolog",
		    "fio version 3 iolog\n"
		    "1000010 targets/p100-fd5 add\n"
		    "1000010 targets/p100-fd6 add\n"
		    "1000010 targets/ring2-fixed3 add\n"
		    "1000010 targets/p100-fd5 open\n"
		    "1000010 targets/p100-fd6 open\n"
		    "1000010 targets/ring2-fixed3 open\n"
		    "1000010 targets/p100-fd5 read 4096 512\n"
		    "1000020 targets/p100-fd6 write 8192 4096\n"
		    "1000050 targets/p100-fd6 datasync 0 0\n"
		    "1000051 targets/p100-fd5 sync 0 0\n"
		    "1000053 targets/p100-fd5 read 0 8192\n"
		    "1000091 targets/ring2-fixed3 write 0 65536\n"
		    "1000091 targets/p100-fd5 close\n"
		    "1000091 targets/p100-fd6 close\n"
		    "1000091 targets/ring2-fixed3 close\n");
	assert_file(dir, "p200.iolog",
		    "fio version 3 iolog\n"
		    "1001010 targets/p200-fd5 add\n"
		    "1001010 targets/p200-fd5 open\n"
		    "1001010 targets/p200-fd5 read 1048576 4096\n"
		    "1001010 targets/p200-fd5 close\n");
	/* Two in flight at once in process 100 (reads 1 and 2, then the two
	 * fsyncs with the vectored read); process 200 starts 1 ms later. */
	assert_has(dir, "replay.fio",
		   "\n# process 100 db: 6 requests, peak 3 in flight\n"
		   "[p100]\nread_iolog=p100.iolog\niodepth=3\n");
	assert_has(dir, "replay.fio",
		   "\n# process 200 idx: 1 requests, peak 1 in flight\n"
		   "[p200]\nread_iolog=p200.iolog\niodepth=1\nstartdelay=1000us\n");
	assert_has(dir, "replay.fio", "[global]\nioengine=io_uring\n");
	assert_has(dir, "README.txt", "7 requests written in 2 iologs, 4 left out.\n");
	assert_has(dir, "README.txt",
		   "  1 NOP: no fio iolog action for this operation\n"
		   "  1 READ: offset -1 (the file position): fio needs an offset\n"
		   "  1 FALLOCATE: no fio iolog action for this operation\n"
		   "  1 READV: vectored: byte count known only from a successful completion\n");
	assert_has(dir, "make-targets.sh", "make p100-fd5 8192\nmake p100-fd6 12288\n"
		   "make ring2-fixed3 65536\nmake p200-fd5 1052672\n");
	free(dir);
	scen_free(&sc);
}
END_TEST

START_TEST(test_fio_per_ring)
{
	struct scen sc;
	char *dir;

	write_scenario(&sc);
	dir = test_path(sc.dir, "fio");
	convert_fio(&sc, dir, true, false);
	assert_file(dir, "ring2.iolog",
		    "fio version 3 iolog\n"
		    "1000091 targets/ring2-fixed3 add\n"
		    "1000091 targets/ring2-fixed3 open\n"
		    "1000091 targets/ring2-fixed3 write 0 65536\n"
		    "1000091 targets/ring2-fixed3 close\n");
	assert_has(dir, "replay.fio", "[ring1]\nread_iolog=ring1.iolog\niodepth=3\n");
	assert_has(dir, "replay.fio", "[ring2]\nread_iolog=ring2.iolog\niodepth=1\nstartdelay=81us\n");
	assert_has(dir, "replay.fio", "[ring3]\nread_iolog=ring3.iolog\niodepth=1\nstartdelay=1000us\n");
	free(dir);
	scen_free(&sc);
}
END_TEST

/*
 * A format 3.1 log names each request's file: a plain fd, another
 * process's fd and a fixed file of the same inode are one target, named
 * after its path; a pipe stays its descriptor.
 */
START_TEST(test_fio_file_identity)
{
	const uint64_t data = 0xf11e0001ull, data2 = 0xf11e0002ull, pipe = 0xf11e0003ull;
	const uint32_t dev = 8u << 20 | 1;
	struct scen sc;
	char *dir;

	scen_open(&sc, "fio31.log");
	ev_task(&sc, T0, 100, 100, "db", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 200, 200, "idx", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 100, 100, 0xa, 4, 0);
	ev_create(&sc, T0 + 1 * US, 200, 200, 0xc, 4, 0);
	ev_file(&sc, T0 + 2 * US, data, dev, 77, 0, 1, 0100644, "ext4", "my db.dat\0srv\0", 14,
		2, 0);
	/* process 200 opened it O_DIRECT: its job is direct=1 */
	ev_file(&sc, T0 + 2 * US, data2, dev, 77, O_RDWR | O_DIRECT, 1, 0100644, "ext4",
		"my db.dat\0srv\0", 14, 2, 0);
	ev_file(&sc, T0 + 2 * US, pipe, 15, 9, 0, 1, 010600, "pipefs", "\0", 1, 1,
		EV_PATH_DETACHED);
	submit(&sc, T0 + 10 * US, 100, 0xa, 1, OP_READ, 5, 0, 4096, 0, 0);
	ev_complete_file(&sc, T0 + 11 * US, 100, 100, 0xa, 1, 1, 4096, data);
	submit(&sc, T0 + 12 * US, 100, 0xa, 2, OP_WRITE, 3, 8192, 4096, 0, 1 /* fixed */);
	ev_complete_file(&sc, T0 + 13 * US, 100, 100, 0xa, 2, 2, 4096, data);
	submit(&sc, T0 + 14 * US, 100, 0xa, 3, OP_READ, 7, 0, 16, 0, 0);
	ev_complete_file(&sc, T0 + 15 * US, 100, 100, 0xa, 3, 3, 16, pipe);
	submit(&sc, T0 + 20 * US, 200, 0xc, 4, OP_READ, 9, 16384, 512, 0, 0);
	ev_complete_file(&sc, T0 + 21 * US, 200, 200, 0xc, 4, 4, 512, data2);
	scen_finish(&sc);
	dir = test_path(sc.dir, "fio");
	convert_fio(&sc, dir, false, false);
	assert_file(dir, "p100.iolog",
		    "fio version 3 iolog\n"
		    "1000010 targets/my_db.dat-d8.1-i77 add\n"
		    "1000010 targets/p100-fd7 add\n"
		    "1000010 targets/my_db.dat-d8.1-i77 open\n"
		    "1000010 targets/p100-fd7 open\n"
		    "1000010 targets/my_db.dat-d8.1-i77 read 0 4096\n"
		    "1000012 targets/my_db.dat-d8.1-i77 write 8192 4096\n"
		    "1000014 targets/p100-fd7 read 0 16\n"
		    "1000014 targets/my_db.dat-d8.1-i77 close\n"
		    "1000014 targets/p100-fd7 close\n");
	assert_has(dir, "p200.iolog", "targets/my_db.dat-d8.1-i77 read 16384 512\n");
	assert_has(dir, "make-targets.sh", "make my_db.dat-d8.1-i77 16896\n");
	assert_has(dir, "README.txt", "/srv/my db.dat (device 8:1, inode 77)");
	assert_has(dir, "replay.fio", "[p100]\nread_iolog=p100.iolog\niodepth=1\n\n");
	assert_has(dir, "replay.fio", "[p200]\nread_iolog=p200.iolog\niodepth=1\n"
		   "startdelay=10us\ndirect=1\n");
	free(dir);
	scen_free(&sc);
}
END_TEST

/* An existing output is not overwritten without --force. */
/* A selection that leaves no request: a job file without iologs (and no
 * qsort(NULL, 0): UndefinedBehaviorSanitizer). */
START_TEST(test_fio_nothing_selected)
{
	struct scen sc;
	struct options o = { .quiet = true, .npids = 1, .pids = { 999 } };
	struct output_config cfg = { .quiet = true };
	struct output *out;
	char err[256], *dir, *path;

	write_scenario(&sc);
	dir = test_path(sc.dir, "fio");
	o.log_path = sc.path;
	cfg.path = dir;
	out = output_fio_new(&cfg, false, err, sizeof(err));
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(convert_into(&o, out, stderr), 0);
	assert_has(dir, "replay.fio", "fio job file");
	path = test_path(dir, "p100.iolog");
	ck_assert_int_ne(access(path, F_OK), 0);
	free(path);
	free(dir);
	scen_free(&sc);
}
END_TEST

START_TEST(test_fio_refuses_overwrite)
{
	struct options o = { .quiet = true };
	struct output_config cfg = { .quiet = true };
	struct scen sc;
	struct output *out;
	char err[256], *dir;
	FILE *devnull = fopen("/dev/null", "w");

	write_scenario(&sc);
	dir = test_path(sc.dir, "fio");
	convert_fio(&sc, dir, false, false);
	o.log_path = sc.path;
	cfg.path = dir;
	out = output_fio_new(&cfg, false, err, sizeof(err));
	ck_assert_int_eq(convert_into(&o, out, devnull), 1);
	convert_fio(&sc, dir, false, true);
	cfg.path = "-";
	ck_assert_ptr_null(output_fio_new(&cfg, false, err, sizeof(err)));
	ck_assert_str_eq(err, "--format=fio writes several files: give a directory with -o DIR");
	fclose(devnull);
	free(dir);
	scen_free(&sc);
}
END_TEST

static Suite *fio_suite(void)
{
	Suite *s = suite_create("convert_fio");
	TCase *tc = tcase_create("fio");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fio_per_process);
	tcase_add_test(tc, test_fio_per_ring);
	tcase_add_test(tc, test_fio_refuses_overwrite);
	tcase_add_test(tc, test_fio_nothing_selected);
	tcase_add_test(tc, test_fio_file_identity);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(fio_suite)
