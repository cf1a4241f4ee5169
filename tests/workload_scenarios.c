// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: single-ring scenarios (nop, rw, recreate, link, poll,
 * timeout, drain, multishot).  What each one promises is documented at
 * the top of workload.c; the comments here say why a request behaves as
 * promised on every kernel from 6.1 to 6.18.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "workload.h"

static unsigned opt(bool set, unsigned value, unsigned def)
{
	return set ? value : def;
}

static void close_fds(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static void check_data(struct wl_run *run, const char *what, const void *got,
		       const void *want, size_t len)
{
	if (memcmp(got, want, len))
		wl_fail(run, "%s: data read back differs from what was written", what);
}

/* ---------------------------------------------------------------- nop */

void wl_scen_nop(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned batches = opt(o->batches_set, o->batches, 4);
	unsigned size = opt(o->batch_size_set, o->batch_size, 8);
	struct wl_ring *r;
	unsigned b, i;
	int err = 0;

	wl_param_num(run, "batches", batches);
	wl_param_num(run, "batch_size", size);
	r = wl_ring_new(run, "nop", size, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "nop", err);
		return;
	}
	/* One io_uring_enter per batch: to_submit = min_complete = size. */
	for (b = 0; b < batches && wl_ok(run); b++) {
		for (i = 0; i < size; i++) {
			struct io_uring_sqe *sqe = wl_get_sqe(r);

			if (!sqe)
				break;
			io_uring_prep_nop(sqe);
			wl_expect(r, sqe, 0, "nop");
		}
		if (!wl_submit(r, size))
			break;
	}
	wl_ring_close(r);
}

/* ---------------------------------------------------------------- rw */

void wl_scen_rw(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned count = opt(o->count_set, o->count, 8);
	unsigned size = opt(o->size_set, o->size, 4096);
	unsigned char *wbuf = NULL, *rbuf = NULL;
	struct iovec wv[2], rv[2];
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	struct wl_req *q;
	unsigned i;
	int fd, err = 0;

	wl_param_num(run, "count", count);
	wl_param_num(run, "size", size);
	fd = wl_open_scratch_file(run, "rw", 0);
	if (fd < 0)
		return;
	wbuf = wl_xcalloc(count + 1, size);
	rbuf = wl_xcalloc(count + 1, size);
	wl_fill_pattern(wbuf, (size_t)(count + 1) * size, o->seed, 1);

	r = wl_ring_new(run, "rw", count + 1, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "rw", err);
		goto out;
	}

	/* count writes, odd ones forced to io-wq, in one enter. */
	for (i = 0; i < count; i++) {
		sqe = wl_get_sqe(r);
		if (!sqe)
			goto out;
		io_uring_prep_write(sqe, fd, wbuf + (size_t)i * size, size, (uint64_t)i * size);
		if (i % 2)
			sqe->flags |= IOSQE_ASYNC;
		q = wl_expect(r, sqe, (int32_t)size, i % 2 ? "file write, IOSQE_ASYNC" : "file write");
		if (!(i % 2))
			wl_mark(q, WL_PATH_MAY_IOWQ);
	}
	if (!wl_submit(r, count))
		goto out;

	/* fsync cannot run non-blocking: io_fsync() returns -EAGAIN under
	 * IO_URING_F_NONBLOCK on 6.1..6.18, so it always goes to io-wq. */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_fsync(sqe, fd, 0);
	wl_mark(wl_expect(r, sqe, 0, "fsync"), WL_PATH_ALWAYS_ASYNC);
	if (!wl_submit(r, 1))
		goto out;

	/* count reads, even ones forced to io-wq. */
	for (i = 0; i < count; i++) {
		sqe = wl_get_sqe(r);
		if (!sqe)
			goto out;
		io_uring_prep_read(sqe, fd, rbuf + (size_t)i * size, size, (uint64_t)i * size);
		if (!(i % 2))
			sqe->flags |= IOSQE_ASYNC;
		q = wl_expect(r, sqe, (int32_t)size, i % 2 ? "file read" : "file read, IOSQE_ASYNC");
		if (i % 2)
			wl_mark(q, WL_PATH_MAY_IOWQ);
	}
	if (!wl_submit(r, count))
		goto out;
	check_data(run, "rw reads", rbuf, wbuf, (size_t)count * size);

	/* A vectored write linked to a vectored read of the same bytes: the
	 * link orders them, so the read must see the data. */
	wv[0].iov_base = wbuf + (size_t)count * size;
	wv[0].iov_len = size / 2;
	wv[1].iov_base = wbuf + (size_t)count * size + size / 2;
	wv[1].iov_len = size - size / 2;
	rv[0].iov_base = rbuf + (size_t)count * size;
	rv[0].iov_len = size / 2;
	rv[1].iov_base = rbuf + (size_t)count * size + size / 2;
	rv[1].iov_len = size - size / 2;
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_writev(sqe, fd, wv, 2, (uint64_t)count * size);
	sqe->flags |= IOSQE_IO_LINK;
	wl_mark(wl_expect(r, sqe, (int32_t)size, "writev, linked to the readv"), WL_PATH_MAY_IOWQ);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_readv(sqe, fd, rv, 2, (uint64_t)count * size);
	wl_mark(wl_expect(r, sqe, (int32_t)size, "readv after the writev"), WL_PATH_MAY_IOWQ);
	if (!wl_submit(r, 2))
		goto out;
	check_data(run, "rw readv", rbuf + (size_t)count * size,
		   wbuf + (size_t)count * size, size);
	wl_note(run, "buffered reads and writes without IOSQE_ASYNC may complete inline or be punted to io-wq: it depends on the kernel and the filesystem (6.1 punts buffered writes on tmpfs, 6.12 punts all of them on tmpfs)");
out:
	if (r)
		wl_ring_close(r);
	close(fd);
	free(wbuf);
	free(rbuf);
}

/* ---------------------------------------------------------------- recreate */

/* One READ of len bytes from fd into buf, tagged with fd's file. */
static bool read_tagged(struct wl_run *run, struct wl_ring *r, const char *name, int fd,
			void *buf, unsigned len)
{
	int file = wl_file_add(run, name, fd);
	struct io_uring_sqe *sqe = file < 0 ? NULL : wl_get_sqe(r);

	if (!sqe)
		return false;
	io_uring_prep_read(sqe, fd, buf, len, 0);
	wl_mark(wl_file_tag(wl_expect(r, sqe, (int32_t)len, name), file), WL_PATH_MAY_IOWQ);
	return wl_submit(r, 1);
}

/*
 * The file objects of a closed file go to the next one opened, and the
 * recorder must tell the two apart.  An eventfd, then a timerfd: every
 * anonymous inode file shares one struct inode (anon_inode_getfile()),
 * and the struct file freed at the close is the next one allocated.
 */
static void recreate_anon(struct wl_run *run, struct wl_ring *r)
{
	struct itimerspec soon = { .it_value = { .tv_nsec = 1000 } };
	struct pollfd pfd = { .events = POLLIN };
	uint64_t v = 0;
	int fd;

	fd = eventfd(7, EFD_CLOEXEC);
	if (fd < 0) {
		wl_fail(run, "eventfd: %s", strerror(errno));
		return;
	}
	if (read_tagged(run, r, "eventfd", fd, &v, sizeof(v)) && v != 7)
		wl_fail(run, "eventfd read %llu, not 7", (unsigned long long)v);
	close(fd);
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0) {
		wl_fail(run, "timerfd_create: %s", strerror(errno));
		return;
	}
	pfd.fd = fd;
	errno = 0;
	/* fired before the READ, which then completes inline: no poll armed */
	if (timerfd_settime(fd, 0, &soon, NULL) || poll(&pfd, 1, 5000) != 1)
		wl_fail(run, "timerfd: %s", errno ? strerror(errno) : "did not fire");
	else if (read_tagged(run, r, "timerfd", fd, &v, sizeof(v)) && v != 1)
		wl_fail(run, "timerfd read %llu expirations, not 1", (unsigned long long)v);
	close(fd);
}

/*
 * A file read, closed and deleted, then another file of the same size
 * created in the same directory and read, count times.  ext4 hands the
 * deleted file's inode number to the next file it creates, and the slabs
 * hand back the same struct file and, once an RCU callback has freed the
 * inode (i_callback()), the same struct inode: every request must still
 * be named after its own file.  One CPU for the whole loop, so that the
 * frees and the allocations meet in the same per-CPU slab;
 * membarrier(MEMBARRIER_CMD_GLOBAL) waits for a grace period, and the
 * sleep after it lets the callbacks run.
 */
void wl_scen_recreate(struct wl_run *run)
{
	enum { SIZE = 4096 };
	const struct wl_opts *o = run->opts;
	unsigned count = opt(o->count_set, o->count, 12);
	unsigned char *buf = wl_xcalloc(1, SIZE), *want = wl_xcalloc(1, SIZE);
	cpu_set_t was, one;
	bool pinned = false;
	struct wl_ring *r;
	char name[24];
	unsigned i;
	int fd, cpu, err = 0;

	wl_param_num(run, "count", count);
	wl_fill_pattern(want, SIZE, o->seed, 0xf11e);
	cpu = sched_getcpu();
	if (cpu >= 0 && !sched_getaffinity(0, sizeof(was), &was)) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = !sched_setaffinity(0, sizeof(one), &one);
	}
	r = wl_ring_new(run, "recreate", 2, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "recreate", err);
		goto out;
	}
	for (i = 0; i < count && wl_ok(run); i++) {
		snprintf(name, sizeof(name), "recreate%u", i);
		fd = wl_open_scratch_file(run, name, SIZE);
		if (fd < 0)
			break;
		memset(buf, 0, SIZE);
		if (read_tagged(run, r, name, fd, buf, SIZE))
			check_data(run, "recreate read", buf, want, SIZE);
		close(fd);
		syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
		wl_sleep_ms(50);
	}
	if (wl_ok(run))
		recreate_anon(run, r);
	wl_ring_close(r);
out:
	if (pinned)
		sched_setaffinity(0, sizeof(was), &was);
	free(buf);
	free(want);
}

/* ---------------------------------------------------------------- link */

void wl_scen_link(struct wl_run *run)
{
	enum { SIZE = 4096 };
	unsigned char *wbuf, *rbuf, *junk;
	struct io_uring_sqe *sqe;
	struct wl_ring *r;
	int fd, err = 0;

	fd = wl_open_scratch_file(run, "link", 0);
	if (fd < 0)
		return;
	wbuf = wl_xcalloc(1, SIZE);
	rbuf = wl_xcalloc(1, SIZE);
	junk = wl_xcalloc(1, SIZE);
	wl_fill_pattern(wbuf, SIZE, run->opts->seed, 2);
	r = wl_ring_new(run, "link", 16, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "link", err);
		goto out;
	}

#define LINK_SQE(prep, fl, res, what)				\
	do {								\
		sqe = wl_get_sqe(r);					\
		if (!sqe)						\
			goto out;					\
		prep;							\
		sqe->flags |= (fl);					\
		wl_expect(r, sqe, (res), (what));			\
	} while (0)

	/*
	 * A: the second member fails (a read of fd -1 fails with EBADF when
	 * the file is looked up at issue time), so the members after it are
	 * cancelled.
	 */
	LINK_SQE(io_uring_prep_nop(sqe), IOSQE_IO_LINK, 0, "chain A: nop");
	LINK_SQE(io_uring_prep_read(sqe, -1, junk, 64, 0), IOSQE_IO_LINK, -EBADF,
		 "chain A: read of fd -1");
	LINK_SQE(io_uring_prep_nop(sqe), IOSQE_IO_LINK, -ECANCELED, "chain A: nop, cancelled");
	LINK_SQE(io_uring_prep_nop(sqe), 0, -ECANCELED, "chain A: nop, cancelled");

	/* B: the head fails. */
	LINK_SQE(io_uring_prep_read(sqe, -1, junk, 64, 0), IOSQE_IO_LINK, -EBADF,
		 "chain B: read of fd -1");
	LINK_SQE(io_uring_prep_write(sqe, fd, wbuf, SIZE, SIZE), IOSQE_IO_LINK, -ECANCELED,
		 "chain B: file write, cancelled");
	LINK_SQE(io_uring_prep_nop(sqe), 0, -ECANCELED, "chain B: nop, cancelled");

	/* C: a hard link goes on after a failure. */
	LINK_SQE(io_uring_prep_nop(sqe), IOSQE_IO_HARDLINK, 0, "chain C: nop");
	LINK_SQE(io_uring_prep_read(sqe, -1, junk, 64, 0), IOSQE_IO_HARDLINK, -EBADF,
		 "chain C: read of fd -1");
	LINK_SQE(io_uring_prep_nop(sqe), 0, 0, "chain C: nop after the failure");

	/* D: a chain that succeeds, in order; its head is forced to io-wq
	 * (IOSQE_ASYNC on a link head is honoured at submission). */
	LINK_SQE(io_uring_prep_write(sqe, fd, wbuf, SIZE, 0), IOSQE_IO_LINK | IOSQE_ASYNC,
		 SIZE, "chain D: file write, IOSQE_ASYNC");
	LINK_SQE(io_uring_prep_read(sqe, fd, rbuf, SIZE, 0), IOSQE_IO_LINK, SIZE,
		 "chain D: file read");
	LINK_SQE(io_uring_prep_nop(sqe), 0, 0, "chain D: nop");
	wl_mark(&r->reqs[r->n_reqs - 2], WL_PATH_MAY_IOWQ);

	/*
	 * E: a member is rejected while its SQE is read (a TIMEOUT with
	 * len != 1 fails io_timeout_prep() with EINVAL): the kernel keeps
	 * assembling the chain, fails the head with ECANCELED and the rest
	 * with ECANCELED (io_submit_fail_init(), 6.1..6.18).
	 */
	LINK_SQE(io_uring_prep_nop(sqe), IOSQE_IO_LINK, -ECANCELED, "chain E: nop, cancelled");
	LINK_SQE(io_uring_prep_timeout(sqe, NULL, 0, 0); sqe->len = 2, IOSQE_IO_LINK, -EINVAL,
		 "chain E: timeout with len 2");
	wl_mark(&r->reqs[r->n_reqs - 1], WL_PATH_INIT_FAILED);
	LINK_SQE(io_uring_prep_nop(sqe), 0, -ECANCELED, "chain E: nop, cancelled");
#undef LINK_SQE

	if (!wl_submit(r, r->prepared))
		goto out;
	check_data(run, "chain D read", rbuf, wbuf, SIZE);
out:
	if (r)
		wl_ring_close(r);
	close(fd);
	free(wbuf);
	free(rbuf);
	free(junk);
}

/* ---------------------------------------------------------------- poll */

void wl_scen_poll(struct wl_run *run)
{
	unsigned delay = run->opts->delay_ms;
	char pa_data[64], sp_data[32], pb_data[16], one = '!';
	char pa_buf[64], sp_buf[32], pb_buf[16];
	int pa[2] = { -1, -1 }, pb[2] = { -1, -1 }, pc[2] = { -1, -1 };
	int sp[2] = { -1, -1 };
	struct io_uring_sqe *sqe;
	struct wl_writer *w = NULL;
	struct wl_ring *r = NULL;
	int err = 0;

	wl_param_num(run, "delay_ms", delay);
	wl_fill_pattern(pa_data, sizeof(pa_data), run->opts->seed, 3);
	wl_fill_pattern(sp_data, sizeof(sp_data), run->opts->seed, 4);
	wl_fill_pattern(pb_data, sizeof(pb_data), run->opts->seed, 5);
	if (!wl_nonblocking_pipe(run, pa) || !wl_nonblocking_pipe(run, pb) ||
	    !wl_nonblocking_pipe(run, pc))
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		wl_fail(run, "socketpair: %s", strerror(errno));
		goto out;
	}
	r = wl_ring_new(run, "poll", 8, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "poll", err);
		goto out;
	}
	w = wl_writer_start(run, "wl-writer");
	if (!w)
		goto out;

	/* Nothing to read yet: each read fails its non-blocking attempt with
	 * EAGAIN during io_uring_enter and arms a poll on the file. */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_read(sqe, pa[0], pa_buf, sizeof(pa_buf), 0);
	wl_mark(wl_expect(r, sqe, sizeof(pa_buf), "read of an empty pipe"), WL_PATH_POLL_ARMED);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_recv(sqe, sp[0], sp_buf, sizeof(sp_buf), 0);
	wl_mark(wl_expect(r, sqe, sizeof(sp_buf), "recv on an empty socket"), WL_PATH_POLL_ARMED);
	/* POLL_ADD is a poll by itself (no io_uring_poll_arm event). */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_poll_add(sqe, pc[0], POLLIN);
	wl_expect(r, sqe, POLLIN, "one-shot poll for POLLIN on a pipe");
	/* Forced to io-wq; the worker then arms a poll itself (kernel's choice). */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_read(sqe, pb[0], pb_buf, sizeof(pb_buf), 0);
	sqe->flags |= IOSQE_ASYNC;
	wl_mark(wl_expect(r, sqe, sizeof(pb_buf), "read of an empty pipe, IOSQE_ASYNC"),
		WL_PATH_MAY_POLL);
	if (!wl_submit(r, 0))
		goto out;

	/* The writer fills them only after the submitting enter returned. */
	{
		struct wl_write_job jobs[] = {
			{ delay, pa[1], pa_data, sizeof(pa_data), -1 },
			{ 2, sp[1], sp_data, sizeof(sp_data), -1 },
			{ 2, pc[1], &one, 1, -1 },
			{ 2, pb[1], pb_data, sizeof(pb_data), -1 },
		};

		wl_writer_kick(w, jobs, sizeof(jobs) / sizeof(jobs[0]));
	}
	if (!wl_wait(r, 4))
		goto out;
	check_data(run, "pipe read", pa_buf, pa_data, sizeof(pa_buf));
	check_data(run, "socket recv", sp_buf, sp_data, sizeof(sp_buf));
	check_data(run, "async pipe read", pb_buf, pb_data, sizeof(pb_buf));
	wl_note(run, "a pipe read forced to io-wq (IOSQE_ASYNC) is retried by the io-wq worker, which arms a poll instead of blocking on 6.1..6.18 (io_wq_submit_work), so its io_uring_poll_arm event may come from an iou-wrk thread");
out:
	wl_writer_stop(w);
	if (r)
		wl_ring_close(r);
	close_fds(pa, 2);
	close_fds(pb, 2);
	close_fds(pc, 2);
	close_fds(sp, 2);
}

/* ---------------------------------------------------------------- timeout */

void wl_scen_timeout(struct wl_run *run)
{
	struct __kernel_timespec t10 = { .tv_nsec = 10000000 };
	struct __kernel_timespec t20 = { .tv_nsec = 20000000 };
	struct __kernel_timespec tlong = { .tv_sec = 10 };
	int p1[2] = { -1, -1 }, p2[2] = { -1, -1 };
	char buf1[16], buf2[16], junk[16];
	uint64_t ud_t3, ud_r1;
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	int err = 0;

	if (!wl_nonblocking_pipe(run, p1) || !wl_nonblocking_pipe(run, p2))
		goto out;
	r = wl_ring_new(run, "timeout", 16, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "timeout", err);
		goto out;
	}

#define T_SQE(prep, fl, res, what)					\
	do {								\
		sqe = wl_get_sqe(r);					\
		if (!sqe)						\
			goto out;					\
		prep;							\
		sqe->flags |= (fl);					\
		wl_expect(r, sqe, (res), (what));			\
	} while (0)

	/* A timeout with a completion count of 1 completes (res 0) when the
	 * NOP submitted after it posts its CQE, long before 10 s. */
	T_SQE(io_uring_prep_timeout(sqe, &tlong, 1, 0), 0, 0,
	      "timeout of 10 s or 1 completion");
	T_SQE(io_uring_prep_nop(sqe), 0, 0, "nop completing the counted timeout");
	if (!wl_submit(r, 2))
		goto out;

	/*
	 * Immediate results only, so that no timer can end the wait: EBADF
	 * at issue, a 10 s timeout removed and a poll-armed read cancelled.
	 */
	ud_t3 = wl_next_user_data(r);
	T_SQE(io_uring_prep_timeout(sqe, &tlong, 0, 0), 0, -ECANCELED,
	      "timeout of 10 s, removed");
	ud_r1 = wl_next_user_data(r);
	T_SQE(io_uring_prep_read(sqe, p1[0], buf1, sizeof(buf1), 0), 0, -ECANCELED,
	      "read of an empty pipe, cancelled");
	wl_mark(&r->reqs[r->n_reqs - 1], WL_PATH_POLL_ARMED);
	T_SQE(io_uring_prep_read(sqe, -1, junk, sizeof(junk), 0), 0, -EBADF, "read of fd -1");
	T_SQE(io_uring_prep_write(sqe, -1, junk, sizeof(junk), 0), 0, -EBADF, "write to fd -1");
	if (!wl_submit(r, 0))
		goto out;
	T_SQE(io_uring_prep_timeout_remove(sqe, ud_t3, 0), 0, 0, "remove the 10 s timeout");
	T_SQE(io_uring_prep_cancel64(sqe, ud_r1, 0), 0, 0, "cancel the pipe read");
	if (!wl_submit(r, 6))
		goto out;

	/*
	 * Two timers, each waited for on its own: the 10 ms one ends the
	 * first wait, the 20 ms one the second.  (A fired TIMEOUT ends a wait
	 * even short of min_complete, see wl_ring.c.)
	 */
	T_SQE(io_uring_prep_timeout(sqe, &t10, 0, 0), 0, -ETIME, "timeout of 10 ms");
	T_SQE(io_uring_prep_timeout(sqe, &t20, 0, 0), 0, -ETIME, "timeout of 20 ms");
	if (!wl_submit(r, 1) || !wl_wait(r, 1))
		goto out;
	wl_note(run, "a wait ended by a firing TIMEOUT can return before the timeout's CQE is posted (a narrow race); the program then enters again, and enter_calls lists that call");

	/* A read that never gets data, bounded by a linked timeout: the
	 * timeout fires (ETIME) and cancels the read (ECANCELED). */
	T_SQE(io_uring_prep_read(sqe, p2[0], buf2, sizeof(buf2), 0), IOSQE_IO_LINK, -ECANCELED,
	      "read of an empty pipe, linked timeout");
	wl_mark(&r->reqs[r->n_reqs - 1], WL_PATH_POLL_ARMED);
	T_SQE(io_uring_prep_link_timeout(sqe, &t10, 0), 0, -ETIME, "linked timeout of 10 ms");
	if (!wl_submit(r, 2))
		goto out;

	/* Rejected while the SQE is read: io_uring_req_failed, then a CQE. */
	T_SQE(io_uring_prep_timeout(sqe, &t10, 0, 0); sqe->len = 2, 0, -EINVAL,
	      "timeout with len 2, invalid");
	wl_mark(&r->reqs[r->n_reqs - 1], WL_PATH_INIT_FAILED);
	if (!wl_submit(r, 1))
		goto out;
#undef T_SQE
out:
	if (r)
		wl_ring_close(r);
	close_fds(p1, 2);
	close_fds(p2, 2);
}

/* ---------------------------------------------------------------- drain */

void wl_scen_drain(struct wl_run *run)
{
	unsigned delay = run->opts->delay_ms;
	int p[2] = { -1, -1 };
	char buf[8], data[8];
	uint64_t ud_read, ud_drain, ud_after;
	struct io_uring_sqe *sqe;
	struct wl_writer *w = NULL;
	struct wl_ring *r = NULL;
	int err = 0;

	wl_param_num(run, "delay_ms", delay);
	wl_fill_pattern(data, sizeof(data), run->opts->seed, 6);
	if (!wl_nonblocking_pipe(run, p))
		goto out;
	r = wl_ring_new(run, "drain", 8, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "drain", err);
		goto out;
	}
	w = wl_writer_start(run, "wl-writer");
	if (!w)
		goto out;

	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	ud_read = wl_next_user_data(r);
	io_uring_prep_read(sqe, p[0], buf, sizeof(buf), 0);
	wl_mark(wl_expect(r, sqe, sizeof(buf), "read of an empty pipe"), WL_PATH_POLL_ARMED);
	if (!wl_submit(r, 0))
		goto out;

	/*
	 * The read is pending, so the drained NOP must wait for it: the
	 * kernel defers it (io_uring_defer), and the NOP after it too.  Both
	 * complete after the read; their own order is not kept on 6.1, whose
	 * task work runs the two released requests last-in first-out.
	 * Every request the kernel reads while a drain is active gets
	 * REQ_F_FORCE_ASYNC ("knock it to the slow queue path", io_init_req()
	 * since 5.14), so once released it is queued to io-wq
	 * (io_req_task_submit): may_io_wq, as the kernel's own choice.
	 */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	ud_drain = wl_next_user_data(r);
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	wl_mark(wl_expect(r, sqe, 0, "nop, IOSQE_IO_DRAIN, behind the read"),
		WL_PATH_DEFERRED | WL_PATH_MAY_IOWQ);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	ud_after = wl_next_user_data(r);
	io_uring_prep_nop(sqe);
	wl_mark(wl_expect(r, sqe, 0, "nop after the drained nop"),
		WL_PATH_MAY_DEFER | WL_PATH_MAY_IOWQ);
	if (!wl_submit(r, 0))
		goto out;
	wl_order(run, ud_drain, &ud_read, 1, NULL, 0);
	wl_order(run, ud_after, &ud_read, 1, NULL, 0);
	{
		struct wl_write_job job = { delay, p[1], data, sizeof(data), -1 };

		wl_writer_kick(w, &job, 1);
	}
	if (!wl_wait(r, 3))
		goto out;
	check_data(run, "pipe read", buf, data, sizeof(buf));

	/* A drain with nothing in flight runs at once; whether the kernel
	 * still passes it through the defer list (and io_uring_defer) changed
	 * in 6.16 (io_drain_req() rework). */
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_nop(sqe);
	sqe->flags |= IOSQE_IO_DRAIN;
	wl_mark(wl_expect(r, sqe, 0, "nop, IOSQE_IO_DRAIN, nothing in flight"),
		WL_PATH_MAY_DEFER | WL_PATH_MAY_IOWQ);
	if (!wl_submit(r, 1))
		goto out;
	wl_note(run, "the drained NOP and the NOP after it both complete after the read, but the NOP after it may complete first: 6.1 releases both in one task-work run, last in first out (6.18 keeps submission order)");
	wl_note(run, "io_uring_defer for the request behind a drained one, or for a drain with nothing in flight, depends on the kernel (io_drain_req() was reworked in 6.16)");
out:
	wl_writer_stop(w);
	if (r)
		wl_ring_close(r);
	wl_check_orders(run);
	close_fds(p, 2);
}

/* ---------------------------------------------------------------- multishot */

void wl_scen_multishot(struct wl_run *run)
{
	const struct wl_opts *o = run->opts;
	unsigned shots = opt(o->count_set, o->count, 3);
	int32_t more_res[WL_MAX_CQES];
	int p[2] = { -1, -1 }, sp[2] = { -1, -1 };
	unsigned char *bufs = NULL, data[WL_MAX_CQES * 8];
	uint64_t ud_poll;
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	unsigned i;
	int err = 0;

	if (shots < 1 || shots > WL_MAX_CQES - 1) {
		wl_fail(run, "--count for multishot must be 1..%d", WL_MAX_CQES - 1);
		return;
	}
	wl_param_num(run, "shots", shots);
	wl_fill_pattern(data, sizeof(data), o->seed, 7);
	if (!wl_nonblocking_pipe(run, p))
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		wl_fail(run, "socketpair: %s", strerror(errno));
		goto out;
	}
	r = wl_ring_new(run, "multishot", 16, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "multishot", err);
		goto out;
	}

	/*
	 * A multishot poll: every write to the empty pipe wakes it once, and
	 * each wakeup posts one CQE with IORING_CQE_F_MORE.  The writes come
	 * from this thread, one at a time, each waited for and drained, so
	 * wakeups can never merge.  POLL_REMOVE ends it with ECANCELED.
	 */
	for (i = 0; i < shots; i++)
		more_res[i] = POLLIN;
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	ud_poll = wl_next_user_data(r);
	io_uring_prep_poll_multishot(sqe, p[0], POLLIN);
	wl_expect_multi(r, sqe, more_res, shots, -ECANCELED, "multishot poll on a pipe");
	if (!wl_submit(r, 0))
		goto out;
	for (i = 0; i < shots; i++) {
		char c;

		if (write(p[1], data + i, 1) != 1) {
			wl_fail(run, "pipe write: %s", strerror(errno));
			goto out;
		}
		if (!wl_wait(r, 1))
			goto out;
		if (read(p[0], &c, 1) != 1) {
			wl_fail(run, "pipe read: %s", strerror(errno));
			goto out;
		}
	}
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_poll_remove(sqe, ud_poll);
	wl_expect(r, sqe, 0, "remove the multishot poll");
	if (!wl_submit(r, 2))
		goto out;

	/*
	 * A multishot recv with provided buffers (6.0+): one CQE per send,
	 * with IORING_CQE_F_MORE; the peer's shutdown makes the last recv
	 * return 0, which ends it.  shots + 1 buffers: one per send and one
	 * for the final recv.
	 */
	bufs = wl_xcalloc(shots + 1, 64);
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_provide_buffers(sqe, bufs, 64, (int)shots + 1, 7, 0);
	wl_expect(r, sqe, 0, "provide buffers (group 7)");
	if (!wl_submit(r, 1))
		goto out;
	for (i = 0; i < shots; i++)
		more_res[i] = (int32_t)(8 * (i + 1));
	sqe = wl_get_sqe(r);
	if (!sqe)
		goto out;
	io_uring_prep_recv_multishot(sqe, sp[0], NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = 7;
	wl_mark(wl_expect_multi(r, sqe, more_res, shots, 0, "multishot recv on a socket"),
		WL_PATH_POLL_ARMED);
	if (!wl_submit(r, 0))
		goto out;
	for (i = 0; i < shots; i++) {
		size_t len = 8 * (i + 1);

		if (send(sp[1], data, len, 0) != (ssize_t)len) {
			wl_fail(run, "send: %s", strerror(errno));
			goto out;
		}
		if (!wl_wait(r, 1))
			goto out;
	}
	if (shutdown(sp[1], SHUT_WR) < 0) {
		wl_fail(run, "shutdown: %s", strerror(errno));
		goto out;
	}
	if (!wl_wait(r, 1))
		goto out;
	wl_note(run, "multishot recv CQEs carry IORING_CQE_F_BUFFER (and may carry IORING_CQE_F_SOCK_NONEMPTY); whether the final res-0 CQE carries a buffer depends on the kernel");
out:
	if (r)
		wl_ring_close(r);
	close_fds(p, 2);
	close_fds(sp, 2);
	free(bufs);
}
