// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: scenarios with several rings or threads, or special ring
 * setups (rings, threads, sqpoll, registered, storm, demo).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "workload.h"

static void close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

static bool nops(struct wl_ring *r, unsigned n, const char *what)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = wl_get_sqe(r);

		if (!sqe)
			return false;
		io_uring_prep_nop(sqe);
		wl_expect(r, sqe, 0, what);
	}
	return true;
}

static bool reg(struct wl_ring *r, unsigned opcode, const void *arg,
		unsigned nr, long want, const char *what)
{
	long ret = wl_register(r, opcode, arg, nr);

	if (ret != want) {
		wl_fail(r->run, "io_uring_register(%s) = %ld, expected %ld", what, ret, want);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- rings */

void wl_scen_rings(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned n = o->rings ? o->rings : 3;
	struct wl_ring *r[8] = { NULL };
	int p[2] = { -1, -1 };
	char data[8], buf[8];
	uint64_t ud_msg, ud_aux;
	struct io_uring_sqe *sqe;
	unsigned i;
	int err = 0;

	if (n < 3 || n > 8) {
		wl_fail(run, "--rings must be 3..8");
		return;
	}
	wl_param_num(run, "rings", n);
	wl_fill_pattern(data, sizeof(data), o->seed, 8);
	if (!wl_nonblocking_pipe(run, p))
		return;

	/*
	 * Different setups, so the recorder has different setup flags to
	 * report: ring 1 asks for a bigger CQ ring, ring 2 runs task work
	 * only when it enters (DEFER_TASKRUN, 6.1+).
	 */
	for (i = 0; i < n; i++) {
		struct io_uring_params params;
		char name[16];

		memset(&params, 0, sizeof(params));
		if (i == 1) {
			params.flags = IORING_SETUP_CQSIZE;
			params.cq_entries = 64;
		} else if (i == 2) {
			params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
		}
		snprintf(name, sizeof(name), "ring%u", i);
		r[i] = wl_ring_new(run, name, 16, &params, &err);
		if (!r[i]) {
			wl_setup_failed(run, name, err);
			goto out;
		}
	}

	/* Submit on every ring, then wait on each, in reverse order. */
	for (i = 0; i < n; i++)
		if (!nops(r[i], i + 2, "nop"))
			goto out;
	for (i = 0; i < n; i++)
		if (!wl_submit(r[i], 0))
			goto out;
	for (i = n; i-- > 0;)
		if (!wl_wait(r[i], i + 2))
			goto out;

	/* ring0 posts a CQE into ring1: one request on ring0, one CQE that
	 * belongs to no request on ring1 (io_uring_complete with req 0). */
	sqe = wl_get_sqe(r[0]);
	if (!sqe)
		goto out;
	ud_msg = wl_next_user_data(r[0]);
	ud_aux = r[1]->ud_base + WL_UD_RING - 1;
	io_uring_prep_msg_ring(sqe, r[1]->fd, 42, ud_aux, 0);
	wl_expect(r[0], sqe, 0, "msg_ring to ring1");
	wl_expect_aux(r[1], ud_aux, 42, ud_msg);
	if (!wl_submit(r[0], 1) || !wl_wait(r[1], 1))
		goto out;

	/* DEFER_TASKRUN: the pipe read's wakeup is queued on ring2 and runs
	 * only inside the io_uring_enter that waits for it. */
	sqe = wl_get_sqe(r[2]);
	if (!sqe)
		goto out;
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	wl_mark(wl_expect(r[2], sqe, sizeof(buf), "read of an empty pipe (DEFER_TASKRUN ring)"),
		WL_PATH_POLL_ARMED);
	if (!wl_submit(r[2], 0))
		goto out;
	if (write(p[1], data, sizeof(data)) != (ssize_t)sizeof(data)) {
		wl_fail(run, "pipe write: %s", strerror(errno));
		goto out;
	}
	if (!wl_wait(r[2], 1))
		goto out;
	if (memcmp(buf, data, sizeof(buf)))
		wl_fail(run, "ring2 pipe read: wrong data");
out:
	for (i = 0; i < n; i++)
		if (r[i])
			wl_ring_close(r[i]);
	close_pair(p);
}

/* ---------------------------------------------------------------- threads */

struct thr_shared {
	struct wl_run *run;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned turn;		/* which thread may set up its ring */
	pthread_barrier_t start, done;
};

struct thr_arg {
	struct thr_shared *sh;
	unsigned idx;
	pthread_t thread;
	bool started;
};

static void *thr_main(void *arg)
{
	struct thr_arg *a = arg;
	struct thr_shared *sh = a->sh;
	struct wl_run *run = sh->run;
	struct io_uring_sqe *sqe;
	struct wl_ring *r;
	char name[16];
	int err = 0;

	snprintf(name, sizeof(name), "wl-ring-%u", a->idx);
	pthread_setname_np(pthread_self(), name);

	/* Rings are created one thread after the other, so ring i belongs
	 * to thread i and the setup order is fixed. */
	pthread_mutex_lock(&sh->lock);
	while (sh->turn != a->idx)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	wl_register_thread(run, "ring-thread");
	snprintf(name, sizeof(name), "thread%u", a->idx);
	r = wl_ring_new(run, name, 8, NULL, &err);
	if (!r)
		wl_setup_failed(run, name, err);
	pthread_mutex_lock(&sh->lock);
	sh->turn++;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);

	/* Then all of them work at the same time. */
	pthread_barrier_wait(&sh->start);
	if (!r || !wl_ok(run))
		goto out;
	if (!nops(r, a->idx + 2, "nop"))
		goto out;
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_ASYNC;
	wl_expect(r, sqe, 0, "nop, IOSQE_ASYNC");
	if (!wl_submit(r, a->idx + 3))
		goto out;
	if (!nops(r, 2, "nop"))
		goto out;
	wl_submit(r, 2);
out:
	pthread_barrier_wait(&sh->done);
	if (r)
		wl_ring_close(r);
	return NULL;
}

void wl_scen_threads(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned n = o->threads ? o->threads : 3, i, started = 0;
	struct thr_shared sh;
	struct thr_arg *args;

	if (n < 1 || n > 16) {
		wl_fail(run, "--threads must be 1..16");
		return;
	}
	wl_param_num(run, "threads", n);
	memset(&sh, 0, sizeof(sh));
	sh.run = run;
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	pthread_barrier_init(&sh.start, NULL, n);
	pthread_barrier_init(&sh.done, NULL, n);
	args = wl_xcalloc(n, sizeof(*args));
	for (i = 0; i < n; i++) {
		args[i].sh = &sh;
		args[i].idx = i;
		if (pthread_create(&args[i].thread, NULL, thr_main, &args[i])) {
			wl_fail(run, "cannot create thread %u", i);
			break;
		}
		args[i].started = true;
		started++;
	}
	if (started < n) {
		/* The barriers can never fill up: nothing sane to do. */
		fprintf(stderr, "workload: threads: could not start all threads\n");
		exit(WL_EXIT_FAILED);
	}
	for (i = 0; i < n; i++)
		pthread_join(args[i].thread, NULL);
	pthread_barrier_destroy(&sh.start);
	pthread_barrier_destroy(&sh.done);
	pthread_cond_destroy(&sh.cond);
	pthread_mutex_destroy(&sh.lock);
	free(args);
}

/* ---------------------------------------------------------------- sqpoll */

void wl_scen_sqpoll(struct wl_run *run)
{
	enum { SIZE = 4096, READS = 4 };
	const struct wl_opts *o = run->opts;
	struct io_uring_params params;
	unsigned char *want = NULL, *got = NULL;
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	unsigned i;
	int fd, err = 0;

	fd = wl_open_scratch_file(run, "sqpoll", READS * SIZE);
	if (fd < 0)
		return;
	want = wl_xcalloc(READS, SIZE);
	got = wl_xcalloc(READS, SIZE);
	wl_fill_pattern(want, READS * SIZE, run->opts->seed, 0xf11e);

	memset(&params, 0, sizeof(params));
	params.flags = IORING_SETUP_SQPOLL;
	/* The SQ thread sleeps right after it starts (wl_ring_new waits for
	 * that), so the first batch needs one IORING_ENTER_SQ_WAKEUP; after
	 * it, sq_thread_idle is long enough for it to stay awake. */
	params.sq_thread_idle = 2000 + o->spin_ms;
	if (o->sq_cpu_set) {
		params.flags |= IORING_SETUP_SQ_AFF;
		params.sq_thread_cpu = o->sq_cpu;
	}
	r = wl_ring_new(run, "sqpoll", 16, &params, &err);
	if (!r) {
		wl_setup_failed(run, "sqpoll", err);
		goto out;
	}
	wl_param_num(run, "sq_thread_idle_ms", params.sq_thread_idle);
	if (o->sq_cpu_set)
		wl_param_num(run, "sq_thread_cpu", o->sq_cpu);
	if (o->spin_ms)
		wl_param_num(run, "spin_ms", o->spin_ms);

	/* Submissions are only published in the SQ ring; the SQ thread
	 * submits them.  This thread enters only to wait. */
	if (!nops(r, 8, "nop (submitted by the SQ thread)") || !wl_submit(r, 8))
		goto out;
	for (i = 0; i < READS; i++) {
		sqe = wl_get_sqe(r);
		if (!sqe)
			goto out;
		io_uring_prep_read(sqe, fd, got + i * SIZE, SIZE, (uint64_t)i * SIZE);
		if (i == READS - 1)
			sqe->flags |= IOSQE_ASYNC;
		wl_mark(wl_expect(r, sqe, SIZE, i == READS - 1 ?
				  "file read, IOSQE_ASYNC (SQ thread's io-wq)" :
				  "file read (submitted by the SQ thread)"),
			i == READS - 1 ? 0 : WL_PATH_MAY_IOWQ);
	}
	if (!wl_submit(r, READS))
		goto out;
	if (memcmp(got, want, READS * SIZE))
		wl_fail(run, "sqpoll reads: wrong data");
	wl_note(run, "the SQ thread sleeps as soon as it starts, so the first batch takes one io_uring_enter(IORING_ENTER_SQ_WAKEUP); a second one would be needed only if the thread idled for sq_thread_idle between batches (a very slow machine); every call is listed in enter_calls");
	/* the SQ thread polls for sq_thread_idle after its last SQE */
	if (o->spin_ms)
		wl_sleep_ms(o->spin_ms);
out:
	if (r)
		wl_ring_close(r);
	close(fd);
	free(want);
	free(got);
}

/* ---------------------------------------------------------------- registered */

void wl_scen_registered(struct wl_run *run)
{
	enum { SIZE = 4096 };
	struct io_uring_files_update fup;
	struct io_uring_rsrc_update rup;
	unsigned char *buf[2] = { NULL, NULL }, *plain = NULL, *small = NULL;
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	struct iovec iov[2];
	int files[2], fd, fd2 = -1, err = 0, i;

	fd = wl_open_scratch_file(run, "registered", 0);
	if (fd < 0)
		return;
	fd2 = wl_open_scratch_file(run, "registered2", 0);
	if (fd2 < 0)
		goto out;
	for (i = 0; i < 2; i++) {
		if (posix_memalign((void **)&buf[i], SIZE, SIZE)) {
			wl_fail(run, "out of memory");
			goto out;
		}
		memset(buf[i], 0, SIZE);
		iov[i].iov_base = buf[i];
		iov[i].iov_len = SIZE;
	}
	wl_fill_pattern(buf[0], SIZE, run->opts->seed, 9);
	plain = wl_xcalloc(1, SIZE);
	small = wl_xcalloc(1, 100);
	wl_fill_pattern(small, 100, run->opts->seed, 10);

	r = wl_ring_new(run, "registered", 8, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "registered", err);
		goto out;
	}
	/* Slot 1 starts empty (-1) and is filled by an update. */
	files[0] = fd;
	files[1] = -1;
	memset(&fup, 0, sizeof(fup));
	fup.offset = 1;
	fup.fds = (uint64_t)(uintptr_t)&fd2;
	memset(&rup, 0, sizeof(rup));
	rup.offset = -1U;	/* any free slot */
	rup.data = (uint64_t)r->fd;
	if (!reg(r, IORING_REGISTER_BUFFERS, iov, 2, 0, "REGISTER_BUFFERS") ||
	    !reg(r, IORING_REGISTER_FILES, files, 2, 0, "REGISTER_FILES") ||
	    !reg(r, IORING_REGISTER_FILES_UPDATE, &fup, 1, 1, "REGISTER_FILES_UPDATE") ||
	    !reg(r, IORING_REGISTER_RING_FDS, &rup, 1, 1, "REGISTER_RING_FDS"))
		goto out;
	/* From now on io_uring_enter gets the slot and REGISTERED_RING. */
	r->reg_index = (int)rup.offset;

	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_write_fixed(sqe, 0, buf[0], SIZE, 0, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	wl_mark(wl_expect(r, sqe, SIZE, "write_fixed, buffer 0, file slot 0"), WL_PATH_MAY_IOWQ);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_write_fixed(sqe, 0, buf[0], SIZE, SIZE, 0);
	sqe->flags |= IOSQE_FIXED_FILE | IOSQE_ASYNC;
	wl_expect(r, sqe, SIZE, "write_fixed, buffer 0, file slot 0, IOSQE_ASYNC");
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_write(sqe, 1, small, 100, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	wl_mark(wl_expect(r, sqe, 100, "write, file slot 1 (updated)"), WL_PATH_MAY_IOWQ);
	if (!wl_submit(r, 3))
		goto out;

	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_read_fixed(sqe, 0, buf[1], SIZE, 0, 1);
	sqe->flags |= IOSQE_FIXED_FILE;
	wl_mark(wl_expect(r, sqe, SIZE, "read_fixed, buffer 1, file slot 0"), WL_PATH_MAY_IOWQ);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_read(sqe, 0, plain, SIZE, SIZE);
	sqe->flags |= IOSQE_FIXED_FILE;
	wl_mark(wl_expect(r, sqe, SIZE, "read, file slot 0"), WL_PATH_MAY_IOWQ);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_read(sqe, 5, plain, SIZE, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	wl_expect(r, sqe, -EBADF, "read, file slot 5 (not registered)");
	if (!wl_submit(r, 3))
		goto out;
	if (memcmp(buf[1], buf[0], SIZE) || memcmp(plain, buf[0], SIZE))
		wl_fail(run, "registered reads: wrong data");
	if (pread(fd2, plain, 100, 0) != 100 || memcmp(plain, small, 100))
		wl_fail(run, "write to file slot 1 did not reach the updated file");

	memset(&rup, 0, sizeof(rup));
	rup.offset = (unsigned)r->reg_index;
	if (!reg(r, IORING_UNREGISTER_RING_FDS, &rup, 1, 1, "UNREGISTER_RING_FDS"))
		goto out;
	r->reg_index = -1;
	/* Back to the plain fd. */
	if (!nops(r, 2, "nop (plain ring fd)") || !wl_submit(r, 2))
		goto out;
	if (!reg(r, IORING_UNREGISTER_FILES, NULL, 0, 0, "UNREGISTER_FILES") ||
	    !reg(r, IORING_UNREGISTER_BUFFERS, NULL, 0, 0, "UNREGISTER_BUFFERS"))
		goto out;
out:
	if (r)
		wl_ring_close(r);
	close(fd);
	if (fd2 >= 0)
		close(fd2);
	free(buf[0]);
	free(buf[1]);
	free(plain);
	free(small);
}

/* ---------------------------------------------------------------- storm */

void wl_scen_storm(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned batch = o->batch_size_set ? o->batch_size : 32;
	/* Inside "all", a fixed count keeps the whole run short and exact. */
	bool by_count = o->count_set || (!o->seconds_set && o->in_all);
	uint64_t total = o->count_set ? o->count : 10000, done = 0;
	double seconds = o->seconds_set ? o->seconds : 1.0;
	uint64_t start, deadline;
	struct wl_ring *r;
	int err = 0;

	run->storm = true;
	wl_param_num(run, "batch_size", batch);
	if (by_count)
		wl_param_num(run, "count", (int64_t)total);
	else
		wl_param_double(run, "seconds", seconds);
	r = wl_ring_new(run, "storm", batch, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "storm", err);
		return;
	}
	/* Millions of requests: counted, not listed one by one. */
	r->track = false;
	r->log_calls = false;
	start = wl_now_ns();
	deadline = start + (uint64_t)(seconds * 1e9);
	while (wl_ok(run)) {
		unsigned n = batch;

		if (by_count) {
			if (done >= total)
				break;
			if (total - done < n)
				n = (unsigned)(total - done);
		} else if (wl_now_ns() >= deadline) {
			break;
		}
		wl_prep_nops_untracked(r, n);
		if (!wl_submit(r, n))
			break;
		done += n;
	}
	run->storm_elapsed_ns = wl_now_ns() - start;
	wl_ring_close(r);
}

/* ---------------------------------------------------------------- demo */

struct demo_bg {
	struct wl_run *run;
	int fd;
	int file;		/* fd's index in run->files */
	unsigned waves;
};

/*
 * The file a demo SQE works on, as an index in run->files: fds[i] is
 * files[i]; fixed file slot 0 is the scratch file, fds[0].
 */
static int demo_file_of(const struct io_uring_sqe *sqe, const int *fds, const int *files,
			unsigned n)
{
	if (sqe->flags & IOSQE_FIXED_FILE)
		return sqe->fd == 0 ? files[0] : -1;
	for (unsigned i = 0; i < n; i++)
		if (sqe->fd == fds[i])
			return files[i];
	return -1;
}

static void *demo_bg_main(void *arg)
{
	enum { SIZE = 4096 };
	struct demo_bg *bg = arg;
	struct wl_run *run = bg->run;
	unsigned char *buf = wl_xcalloc(6, SIZE);
	struct wl_ring *r;
	unsigned w, i;
	int err = 0;

	pthread_setname_np(pthread_self(), "wl-demo-bg");
	wl_register_thread(run, "background");
	r = wl_ring_new(run, "demo-bg", 16, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "demo-bg", err);
		free(buf);
		return NULL;
	}
	for (w = 0; w < bg->waves && wl_ok(run); w++) {
		for (i = 0; i < 6; i++) {
			struct io_uring_sqe *sqe = wl_get_sqe(r);

			if (!sqe)
				goto out;
			io_uring_prep_read(sqe, bg->fd, buf + i * SIZE, SIZE,
					   (uint64_t)((w + i) % 16) * SIZE);
			if (i < 2)
				sqe->flags |= IOSQE_ASYNC;
			wl_mark(wl_file_tag(wl_expect(r, sqe, SIZE, i < 2 ? "file read, IOSQE_ASYNC" :
							     "file read"), bg->file),
				i < 2 ? 0 : WL_PATH_MAY_IOWQ);
		}
		if (!nops(r, 2, "nop") || !wl_submit(r, 8))
			goto out;
		wl_sleep_ms(45);
	}
out:
	wl_ring_close(r);
	free(buf);
	return NULL;
}

enum { DEMO_SIZE = 4096, DEMO_PREFILL = 16, DEMO_FILES = 5 };

/* The demo's files, pipes, socket, buffers and ring. */
struct demo {
	struct wl_run *run;
	unsigned waves;
	int fd, pa[2], pc[2], pt[2], sp[2];
	unsigned char *wbuf, *rbuf, *fixed, junk[64];
	char pa_data[32], sp_data[32], pa_buf[32], sp_buf[32];
	/* what the converter must name each request's file (by fd and fixed) */
	int dfd[DEMO_FILES], dfile[DEMO_FILES];
	struct wl_ring *r;
	struct wl_writer *wr;
};

/* The scratch file, pipes and socket, the ring with file slot 0 and a
 * fixed buffer registered, and the writer thread. */
static bool demo_setup(struct demo *d)
{
	struct wl_run *run = d->run;
	const struct wl_opts *o = run->opts;
	struct iovec iov;
	int files[1], err = 0;

	d->wbuf = wl_xcalloc(4, DEMO_SIZE);
	d->rbuf = wl_xcalloc(4, DEMO_SIZE);
	if (posix_memalign((void **)&d->fixed, DEMO_SIZE, DEMO_SIZE)) {
		wl_fail(run, "out of memory");
		return false;
	}
	wl_fill_pattern(d->fixed, DEMO_SIZE, o->seed, 11);
	wl_fill_pattern(d->wbuf, 4 * DEMO_SIZE, o->seed, 12);
	wl_fill_pattern(d->pa_data, sizeof(d->pa_data), o->seed, 13);
	wl_fill_pattern(d->sp_data, sizeof(d->sp_data), o->seed, 14);
	if (!wl_nonblocking_pipe(run, d->pa) || !wl_nonblocking_pipe(run, d->pc) ||
	    !wl_nonblocking_pipe(run, d->pt))
		return false;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, d->sp) < 0) {
		wl_fail(run, "socketpair: %s", strerror(errno));
		return false;
	}
	d->dfd[0] = d->fd, d->dfd[1] = d->pa[0], d->dfd[2] = d->pc[0], d->dfd[3] = d->pt[0];
	d->dfd[4] = d->sp[0];
	d->dfile[0] = wl_file_add(run, "demo file", d->fd);
	d->dfile[1] = wl_file_add(run, "pipe a", d->pa[0]);
	d->dfile[2] = wl_file_add(run, "pipe c", d->pc[0]);
	d->dfile[3] = wl_file_add(run, "pipe t", d->pt[0]);
	d->dfile[4] = wl_file_add(run, "socket", d->sp[0]);
	if (!wl_ok(run))
		return false;

	d->r = wl_ring_new(run, "demo", 64, NULL, &err);
	if (!d->r) {
		wl_setup_failed(run, "demo", err);
		return false;
	}
	files[0] = d->fd;
	iov.iov_base = d->fixed;
	iov.iov_len = DEMO_SIZE;
	if (!reg(d->r, IORING_REGISTER_FILES, files, 1, 0, "REGISTER_FILES") ||
	    !reg(d->r, IORING_REGISTER_BUFFERS, &iov, 1, 0, "REGISTER_BUFFERS"))
		return false;
	d->wr = wl_writer_start(run, "wl-writer");
	return d->wr != NULL;
}

/* Wave w's requests: every path, submitted at once; then the writer
 * answers the pipes and the socket, and everything completes. */
static bool demo_wave(struct demo *d, unsigned w)
{
	enum { SIZE = DEMO_SIZE, PREFILL = DEMO_PREFILL };
	struct __kernel_timespec t15 = { .tv_nsec = 15000000 };
	struct wl_ring *r = d->r;
	struct io_uring_sqe *sqe;
	unsigned expected = 0, i;
	int fd = d->fd;
	char one = '*';

#define D_SQE(prep, fl, res, what, paths)				\
	do {								\
		sqe = wl_get_sqe(r);					\
		if (!sqe)						\
			return false;					\
		prep;							\
		sqe->flags |= (fl);					\
		wl_mark(wl_file_tag(wl_expect(r, sqe, (res), (what)),	\
				    demo_file_of(sqe, d->dfd, d->dfile, DEMO_FILES)), (paths)); \
		expected++;						\
	} while (0)

	for (i = 0; i < 16; i++)
		D_SQE(io_uring_prep_nop(sqe), 0, 0, "nop", 0);
	for (i = 0; i < 4; i++)
		D_SQE(io_uring_prep_write(sqe, fd, d->wbuf + i * SIZE, SIZE,
					  (uint64_t)(PREFILL + 4 * w + i) * SIZE),
		      i == 0 ? IOSQE_ASYNC : 0, SIZE,
		      i == 0 ? "file write, IOSQE_ASYNC" : "file write",
		      i == 0 ? 0 : WL_PATH_MAY_IOWQ);
	for (i = 0; i < 4; i++)
		D_SQE(io_uring_prep_read(sqe, fd, d->rbuf + i * SIZE, SIZE,
					 (uint64_t)((w + i) % PREFILL) * SIZE),
		      i == 0 ? IOSQE_ASYNC : 0, SIZE,
		      i == 0 ? "file read, IOSQE_ASYNC" : "file read",
		      i == 0 ? 0 : WL_PATH_MAY_IOWQ);
	if (w % 2 == 0)
		D_SQE(io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC), 0, 0,
		      "fdatasync", WL_PATH_ALWAYS_ASYNC);
	D_SQE(io_uring_prep_read(sqe, d->pa[0], d->pa_buf, sizeof(d->pa_buf), 0), 0,
	      sizeof(d->pa_buf), "read of an empty pipe", WL_PATH_POLL_ARMED);
	D_SQE(io_uring_prep_recv(sqe, d->sp[0], d->sp_buf, sizeof(d->sp_buf), 0), 0,
	      sizeof(d->sp_buf), "recv on an empty socket", WL_PATH_POLL_ARMED);
	if (w % 2) {
		D_SQE(io_uring_prep_nop(sqe), IOSQE_IO_LINK, 0, "chain: nop", 0);
		D_SQE(io_uring_prep_read(sqe, -1, d->junk, sizeof(d->junk), 0), IOSQE_IO_LINK,
		      -EBADF, "chain: read of fd -1", 0);
		D_SQE(io_uring_prep_nop(sqe), IOSQE_IO_LINK, -ECANCELED,
		      "chain: nop, cancelled", 0);
		D_SQE(io_uring_prep_nop(sqe), 0, -ECANCELED, "chain: nop, cancelled", 0);
	} else {
		D_SQE(io_uring_prep_write_fixed(sqe, 0, d->fixed, SIZE,
						(uint64_t)(PREFILL + 4 * d->waves + w) * SIZE, 0),
		      IOSQE_FIXED_FILE | IOSQE_IO_LINK, SIZE,
		      "chain: write_fixed, file slot 0", WL_PATH_MAY_IOWQ);
		D_SQE(io_uring_prep_read_fixed(sqe, 0, d->fixed, SIZE,
					       (uint64_t)(PREFILL + 4 * d->waves + w) * SIZE, 0),
		      IOSQE_FIXED_FILE, SIZE, "chain: read_fixed of the same block",
		      WL_PATH_MAY_IOWQ);
	}
	/* A LINK_TIMEOUT, not a TIMEOUT: a firing TIMEOUT would end the
	 * wave's wait early (io_should_wake() watches cq_timeouts). */
	D_SQE(io_uring_prep_read(sqe, d->pt[0], d->junk, sizeof(d->junk), 0), IOSQE_IO_LINK,
	      -ECANCELED, "read of a pipe nobody writes, linked timeout",
	      WL_PATH_POLL_ARMED);
	D_SQE(io_uring_prep_link_timeout(sqe, &t15, 0), 0, -ETIME,
	      "linked timeout of 15 ms", 0);
#undef D_SQE
	if (!wl_submit(r, 0))
		return false;
	{
		struct wl_write_job jobs[] = {
			{ 3, d->pa[1], d->pa_data, sizeof(d->pa_data), -1 },
			{ 2, d->sp[1], d->sp_data, sizeof(d->sp_data), -1 },
			{ 2, d->pc[1], &one, 1, -1 },
		};

		wl_writer_kick(d->wr, jobs, 3);
	}
	/* Everything of this wave, and the multishot poll's shot. */
	if (!wl_wait(r, expected + 1))
		return false;
	if (read(d->pc[0], d->junk, 1) != 1) {
		wl_fail(d->run, "pipe read: %s", strerror(errno));
		return false;
	}
	if (memcmp(d->pa_buf, d->pa_data, sizeof(d->pa_buf)) ||
	    memcmp(d->sp_buf, d->sp_data, sizeof(d->sp_buf)))
		wl_fail(d->run, "demo wave %u: pipe or socket data differs", w);
	return true;
}

void wl_scen_demo(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	struct demo d = {
		.run = run, .waves = o->count_set ? o->count : 8,
		.pa = { -1, -1 }, .pc = { -1, -1 }, .pt = { -1, -1 }, .sp = { -1, -1 },
	};
	int32_t more_res[WL_MAX_CQES];
	struct demo_bg bg = { .run = run };
	struct io_uring_sqe *sqe;
	uint64_t ud_mpoll = 0;
	pthread_t bg_thread;
	bool bg_started = false;
	unsigned w, i;

	if (d.waves < 1 || d.waves > WL_MAX_CQES - 1) {
		wl_fail(run, "--count for demo (waves) must be 1..%d", WL_MAX_CQES - 1);
		return;
	}
	wl_param_num(run, "waves", d.waves);
	d.fd = wl_open_scratch_file(run, "demo", DEMO_PREFILL * DEMO_SIZE);
	if (d.fd < 0)
		return;
	if (!demo_setup(&d))
		goto out;
	bg.fd = d.fd;
	bg.file = d.dfile[0];
	bg.waves = d.waves;
	if (pthread_create(&bg_thread, NULL, demo_bg_main, &bg)) {
		wl_fail(run, "cannot start the background thread");
		goto out;
	}
	bg_started = true;

	/* One multishot poll for the whole run: one CQE per wave. */
	for (i = 0; i < d.waves; i++)
		more_res[i] = POLLIN;
	sqe = wl_get_sqe(d.r);
	if (!sqe)
		goto out;
	ud_mpoll = wl_next_user_data(d.r);
	io_uring_prep_poll_multishot(sqe, d.pc[0], POLLIN);
	wl_file_tag(wl_expect_multi(d.r, sqe, more_res, d.waves, -ECANCELED,
				    "multishot poll, one shot per wave"), d.dfile[2]);
	if (!wl_submit(d.r, 0))
		goto out;
	for (w = 0; w < d.waves && wl_ok(run); w++) {
		if (!demo_wave(&d, w))
			goto out;
		wl_sleep_ms(35);
	}
	sqe = wl_get_sqe(d.r);
	if (!sqe)
		goto out;
	io_uring_prep_poll_remove(sqe, ud_mpoll);
	wl_expect(d.r, sqe, 0, "remove the multishot poll");
	if (!wl_submit(d.r, 2))
		goto out;
	if (!reg(d.r, IORING_UNREGISTER_BUFFERS, NULL, 0, 0, "UNREGISTER_BUFFERS") ||
	    !reg(d.r, IORING_UNREGISTER_FILES, NULL, 0, 0, "UNREGISTER_FILES"))
		goto out;
	wl_note(run, "demo: buffered file I/O without IOSQE_ASYNC may or may not be punted to io-wq; the pipe/socket writes come from the writer thread a few ms after each wave is submitted");
out:
	if (bg_started)
		pthread_join(bg_thread, NULL);
	wl_writer_stop(d.wr);
	if (d.r)
		wl_ring_close(d.r);
	close(d.fd);
	close_pair(d.pa);
	close_pair(d.pc);
	close_pair(d.pt);
	close_pair(d.sp);
	free(d.wbuf);
	free(d.rbuf);
	free(d.fixed);
}
