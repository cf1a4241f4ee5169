// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: a pipe and socket pair whose data flow is all io_uring
 * (streams): every byte read was written by a request of the same ring,
 * so uring-replay can run it again over its own pipe and socketpair.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "workload.h"

static void close_pair(int fds[2])
{
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	fds[0] = fds[1] = -1;
}

/* One SQE with its expected result and paths; out if the SQ is full. */
#define PREP(r, sqe, res, what, paths, prep)			\
	do {							\
		sqe = wl_get_sqe(r);				\
		if (!sqe)					\
			goto out;				\
		prep;						\
		wl_mark(wl_expect(r, sqe, res, what), paths);	\
	} while (0)

void wl_scen_streams(struct wl_run *run)
{
	char a_out[74], a_in[64], a_short[64], c_out = '!', c_in;
	char s_out[32], s_in[32], m_out[16], m_in[16], eof[32];
	struct iovec m_out_iov = { m_out, sizeof(m_out) }, m_in_iov = { m_in, sizeof(m_in) };
	struct msghdr m_out_msg = { .msg_iov = &m_out_iov, .msg_iovlen = 1 };
	struct msghdr m_in_msg = { .msg_iov = &m_in_iov, .msg_iovlen = 1 };
	int pa[2] = { -1, -1 }, pc[2] = { -1, -1 }, sp[2] = { -1, -1 };
	struct io_uring_sqe *sqe;
	struct wl_ring *r = NULL;
	int err = 0;

	wl_fill_pattern(a_out, sizeof(a_out), run->opts->seed, 11);
	wl_fill_pattern(s_out, sizeof(s_out), run->opts->seed, 12);
	wl_fill_pattern(m_out, sizeof(m_out), run->opts->seed, 13);
	if (!wl_nonblocking_pipe(run, pa) || !wl_nonblocking_pipe(run, pc))
		goto out;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
		wl_fail(run, "socketpair: %s", strerror(errno));
		goto out;
	}
	r = wl_ring_new(run, "streams", 16, NULL, &err);
	if (!r) {
		wl_setup_failed(run, "streams", err);
		goto out;
	}
	/* 1: nothing written yet: the reads arm polls, and a POLL_ADD waits. */
	PREP(r, sqe, sizeof(a_in), "pipe read, before the writes", WL_PATH_POLL_ARMED,
	     io_uring_prep_read(sqe, pa[0], a_in, sizeof(a_in), 0));
	PREP(r, sqe, sizeof(s_in), "recv, before the send", WL_PATH_POLL_ARMED,
	     io_uring_prep_recv(sqe, sp[1], s_in, sizeof(s_in), 0));
	PREP(r, sqe, POLLIN, "one-shot poll for POLLIN on a pipe", 0,
	     io_uring_prep_poll_add(sqe, pc[0], POLLIN));
	if (!wl_submit(r, 0))
		goto out;
	/* 2: 74 bytes into pipe A (the read takes 64), the send, 1 byte into
	 * pipe C; all seven complete. */
	PREP(r, sqe, 64, "pipe write, 64 bytes", 0,
	     io_uring_prep_write(sqe, pa[1], a_out, 64, 0));
	PREP(r, sqe, 10, "pipe write, 10 bytes", 0,
	     io_uring_prep_write(sqe, pa[1], a_out + 64, 10, 0));
	PREP(r, sqe, sizeof(s_out), "send", 0,
	     io_uring_prep_send(sqe, sp[0], s_out, sizeof(s_out), 0));
	PREP(r, sqe, 1, "pipe write, 1 byte", 0,
	     io_uring_prep_write(sqe, pc[1], &c_out, 1, 0));
	if (!wl_submit(r, 7))
		goto out;
	/* 3: a short read (the 10 bytes left of 64 asked), the polled byte,
	 * a sendmsg the other way. */
	PREP(r, sqe, 10, "pipe read of 64 bytes, 10 there", 0,
	     io_uring_prep_read(sqe, pa[0], a_short, sizeof(a_short), 0));
	PREP(r, sqe, 1, "pipe read of the polled byte", 0,
	     io_uring_prep_read(sqe, pc[0], &c_in, 1, 0));
	PREP(r, sqe, sizeof(m_out), "sendmsg", 0,
	     io_uring_prep_sendmsg(sqe, sp[1], &m_out_msg, 0));
	if (!wl_submit(r, 3))
		goto out;
	/* 4: its recvmsg, and a shutdown of the sending side ... */
	PREP(r, sqe, sizeof(m_in), "recvmsg", 0,
	     io_uring_prep_recvmsg(sqe, sp[0], &m_in_msg, 0));
	PREP(r, sqe, 0, "shutdown SHUT_WR", WL_PATH_ALWAYS_ASYNC,
	     io_uring_prep_shutdown(sqe, sp[1], SHUT_WR));
	if (!wl_submit(r, 2))
		goto out;
	/* 5: ... which a recv sees as end of file. */
	PREP(r, sqe, 0, "recv after the peer's shutdown", 0,
	     io_uring_prep_recv(sqe, sp[0], eof, sizeof(eof), 0));
	if (!wl_submit(r, 1))
		goto out;
	if (memcmp(a_in, a_out, sizeof(a_in)) || memcmp(a_short, a_out + 64, 10) ||
	    memcmp(s_in, s_out, sizeof(s_in)) || memcmp(m_in, m_out, sizeof(m_in)) ||
	    c_in != c_out)
		wl_fail(run, "streams: data read back differs from what was written");
out:
	if (r)
		wl_ring_close(r);
	close_pair(pa);
	close_pair(pc);
	close_pair(sp);
}
