// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-replay's plan (replay/plan.c) from synthetic logs: requests
 * grouped by the io_uring_enter that submitted them, in recorded order;
 * what is not replayed and why, whole link chains included; the files and
 * their extents; registered-file tables.  No root: nothing is run.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "convert_test.h"
#include "plan.h"
#include "uring.h"
#include "test_util.h"

#define US 1000ull
#define PID 100
#define RING 0xa

/* A submission with its SQE, by thread tid (evflags: EVF_SQ_THREAD too). */
static void submit_by(struct scen *sc, uint64_t ts, uint32_t tid, uint64_t ring, uint64_t req,
		      uint8_t opcode, int32_t fd, uint64_t off, uint32_t len, uint8_t sqe_flags,
		      uint16_t evflags)
{
	struct ev_submit e = {
		SYNTH_HDR(EV_SUBMIT, ts, tid, PID),
		.opcode = opcode, .sqe_flags = sqe_flags, .ring = ring, .req = req,
		.user_data = req, .req_flags = sqe_flags, .off = off, .fd = fd, .len = len,
	};

	e.flags = EVF_SQE_VALID | evflags;
	synth_emit(sc->s, sc->cpu, &e, sizeof(e));
}

static void submit(struct scen *sc, uint64_t ts, uint64_t req, uint8_t opcode, int32_t fd,
		   uint64_t off, uint32_t len, uint8_t sqe_flags)
{
	submit_by(sc, ts, PID, RING, req, opcode, fd, off, len, sqe_flags, 0);
}

static void done(struct scen *sc, uint64_t ts, uint64_t req, int32_t res)
{
	ev_complete(sc, ts, PID, PID, RING, req, req, res, 0);
}

/*
 * Enter 1 submits a READ and a WRITE; enter 2 a chain NOP -> POLL_ADD ->
 * NOP (POLL_ADD is not replayed, so neither is the chain) and a READ on
 * registered file 4; enter 3 only waits.
 */
static void write_scenario(struct scen *sc)
{
	scen_open(sc, "replay.log");
	ev_task(sc, T0, PID, PID, "db", 0, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, PID, PID, RING, 4, IORING_SETUP_SINGLE_ISSUER);
	ev_enter_begin(sc, T0 + 10 * US, PID, PID, RING, 4, 2, 0, 0);
	submit(sc, T0 + 11 * US, 1, IORING_OP_READ, 5, 4096, 512, 0);
	submit(sc, T0 + 12 * US, 2, IORING_OP_WRITE, 6, 65536, 4096, 0);
	ev_enter_end(sc, T0 + 13 * US, PID, PID, RING, 2);
	ev_enter_begin(sc, T0 + 20 * US, PID, PID, RING, 4, 4, 1, IORING_ENTER_GETEVENTS);
	submit(sc, T0 + 21 * US, 3, IORING_OP_NOP, -1, 0, 0, IOSQE_IO_LINK);
	submit(sc, T0 + 22 * US, 4, IORING_OP_POLL_ADD, 7, 0, 1, IOSQE_IO_LINK);
	ev_link(sc, T0 + 22 * US + 1, PID, PID, RING, 4, 3);
	submit(sc, T0 + 23 * US, 5, IORING_OP_NOP, -1, 0, 0, 0);
	ev_link(sc, T0 + 23 * US + 1, PID, PID, RING, 5, 4);
	submit(sc, T0 + 24 * US, 6, IORING_OP_READ, 4, 0, 8192, IOSQE_FIXED_FILE);
	ev_enter_end(sc, T0 + 25 * US, PID, PID, RING, 4);
	done(sc, T0 + 30 * US, 1, 512);
	done(sc, T0 + 31 * US, 2, 4096);
	done(sc, T0 + 32 * US, 3, 0);
	done(sc, T0 + 33 * US, 6, 8192);
	ev_enter_begin(sc, T0 + 40 * US, PID, PID, RING, 4, 0, 2, IORING_ENTER_GETEVENTS);
	done(sc, T0 + 41 * US, 4, 1);
	done(sc, T0 + 42 * US, 5, 0);
	ev_enter_end(sc, T0 + 43 * US, PID, PID, RING, 0);
	scen_finish(sc);
}

/* ------------------------------------------------------ pipes and sockets */

#define DEV(maj, min) ((uint32_t)(maj) << 20 | (min))
#define PIPEFS DEV(0, 15)
#define SOCKFS DEV(0, 9)

static void done_file(struct scen *sc, uint64_t ts, uint64_t req, int32_t res, uint64_t file)
{
	ev_complete_file(sc, ts, PID, PID, RING, req, req, res, file);
}

/* One pipe end or socket (file id fid, inode ino) as the recorder names it. */
static void stream_file(struct scen *sc, uint64_t ts, uint64_t fid, bool pipe, uint64_t ino,
			uint32_t f_flags)
{
	ev_file(sc, ts, fid, pipe ? PIPEFS : SOCKFS, ino, f_flags, 1,
		pipe ? 010600 : 0140777, pipe ? "pipefs" : "sockfs", "\0", 1, 1,
		EV_PATH_DETACHED);
}

/* A request in an enter of its own: submitted at ts, done at done_ts. */
static void one(struct scen *sc, uint64_t ts, uint64_t req, uint8_t opcode, int32_t fd,
		uint32_t len, uint64_t done_ts, int32_t res, uint64_t fid)
{
	ev_enter_begin(sc, ts, PID, PID, RING, 4, 1, 0, 0);
	submit(sc, ts + 1, req, opcode, fd, 0, len, 0);
	ev_enter_end(sc, ts + 2, PID, PID, RING, 1);
	done_file(sc, done_ts, req, res, fid);
}

static const char *skip_of(const struct plan *p, uint64_t id)
{
	for (size_t i = 0; i < p->nreqs; i++)
		if (p->reqs[i].id == id)
			return p->reqs[i].skip;
	ck_abort_msg("no request %llu", (unsigned long long)id);
	return NULL;
}

static const struct plan_req *req_of(const struct plan *p, uint64_t id)
{
	for (size_t i = 0; i < p->nreqs; i++)
		if (p->reqs[i].id == id)
			return &p->reqs[i];
	ck_abort_msg("no request %llu", (unsigned long long)id);
	return NULL;
}

static const struct plan_req *step_req(const struct plan *p, size_t step, size_t k)
{
	ck_assert_uint_lt(k, p->steps[step].n);
	return &p->reqs[p->order[p->steps[step].first + k]];
}

START_TEST(test_plan)
{
	struct scen sc;
	struct plan p;

	write_scenario(&sc);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 3);
	ck_assert_uint_eq(p.skipped, 3);
	ck_assert_uint_eq(p.nskips, 2);
	ck_assert_str_eq(p.opnames[p.skips[0].opcode], "NOP");
	ck_assert_str_eq(p.skips[0].reason, "a member of its link chain is not replayed");
	ck_assert_uint_eq(p.skips[0].n, 2);
	ck_assert_str_eq(p.opnames[p.skips[1].opcode], "POLL_ADD");
	ck_assert_uint_eq(p.skips[1].n, 1);

	/* Three steps: the two enters that submitted, and the wait. */
	ck_assert_uint_eq(p.nsteps, 3);
	ck_assert_uint_eq(p.steps[0].n, 2);
	ck_assert_uint_eq(p.steps[0].submitted_rec, 2);
	ck_assert(p.steps[0].enter);
	ck_assert_uint_eq(step_req(&p, 0, 0)->off, 4096);
	ck_assert_uint_eq(step_req(&p, 0, 1)->off, 65536);
	ck_assert_uint_eq(p.steps[1].n, 1);
	ck_assert_uint_eq(p.steps[1].submitted_rec, 4);
	ck_assert_uint_eq(p.steps[1].min_complete, 1);
	ck_assert_uint_eq(p.steps[1].flags, IORING_ENTER_GETEVENTS);
	ck_assert_uint_eq(step_req(&p, 1, 0)->sqe_flags, IOSQE_FIXED_FILE);
	ck_assert_uint_eq(p.steps[2].n, 0);
	ck_assert_uint_eq(p.steps[2].min_complete, 2);
	ck_assert_uint_eq(p.steps[2].ts - p.steps[0].ts, 30 * US);

	/* Files: two fds of process 100 and registered file 4 of ring 1. */
	ck_assert_uint_eq(p.ntargets, 3);
	ck_assert_str_eq(p.targets[0].name, "p100-fd5");
	ck_assert_uint_eq(p.targets[0].extent, 4608);
	ck_assert_str_eq(p.targets[1].name, "p100-fd6");
	ck_assert_uint_eq(p.targets[1].extent, 69632);
	ck_assert_str_eq(p.targets[2].name, "ring1-fixed4");
	ck_assert_uint_eq(p.targets[2].extent, 8192);
	ck_assert_uint_eq(p.nrings, 1);
	ck_assert_uint_eq(p.rings[0].max_fixed_file, 5);
	ck_assert_uint_eq(p.rings[0].setup_flags, IORING_SETUP_SINGLE_ISSUER);
	ck_assert_uint_eq(p.max_len, 8192);
	/* One recorded thread: one replay thread. */
	ck_assert_uint_eq(p.nthreads, 1);
	ck_assert_uint_eq(p.thread_tid[0], PID);
	ck_assert_uint_eq(p.rings[0].thread, 0);
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/* ------------------------------------------------------------- threads */

#define W1 101
#define W2 102
#define SQT 200
#define RA 0xa1
#define RB 0xb2
#define RC 0xc3

/* An enter by tid on ring submitting one NOP (req), done at ts + 5 us. */
static void nop_enter(struct scen *sc, uint64_t ts, uint32_t tid, uint64_t ring, uint64_t req,
		      uint32_t min_complete)
{
	ev_enter_begin(sc, ts, tid, PID, ring, 4, 1, min_complete,
		       min_complete ? IORING_ENTER_GETEVENTS : 0);
	submit_by(sc, ts + 1, tid, ring, req, IORING_OP_NOP, -1, 0, 0, 0, 0);
	ev_enter_end(sc, ts + 2, tid, PID, ring, 1);
	ev_complete(sc, ts + 5 * US, tid, PID, ring, req, req, 0, 0);
}

/*
 * Thread W1 creates ring 1 (RA), W2 rings 2 (RB) and 3 (RC, SQPOLL, never
 * entered: its SQPOLL thread submits).  W2 enters ring 2, W1 ring 1 twice,
 * the SQPOLL thread submits on ring 3; with shared, W2 enters ring 1 too.
 */
static void write_threads(struct scen *sc, bool shared)
{
	scen_open(sc, shared ? "replay_shared.log" : "replay_threads.log");
	ev_task(sc, T0, W1, PID, "w1", 0, EV_TASK_EXISTING);
	ev_task(sc, T0, W2, PID, "w2", 0, EV_TASK_EXISTING);
	ev_task(sc, T0, SQT, PID, "iou-sqp-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, W1, PID, RA, 4, IORING_SETUP_SINGLE_ISSUER);
	ev_create(sc, T0 + 2 * US, W2, PID, RB, 5, 0);
	ev_create(sc, T0 + 3 * US, W2, PID, RC, 6, IORING_SETUP_SQPOLL);
	nop_enter(sc, T0 + 10 * US, W2, RB, 1, 0);
	nop_enter(sc, T0 + 20 * US, W1, RA, 2, 1);
	submit_by(sc, T0 + 30 * US, SQT, RC, 3, IORING_OP_NOP, -1, 0, 0, 0, EVF_SQ_THREAD);
	ev_complete(sc, T0 + 31 * US, SQT, PID, RC, 3, 3, 0, 0);
	nop_enter(sc, T0 + 40 * US, W1, RA, 4, 0);
	if (shared)
		nop_enter(sc, T0 + 50 * US, W2, RA, 5, 0);
	scen_finish(sc);
}

/* Each thread's rings to a replay thread of their own, SQPOLL's its creator's. */
START_TEST(test_threads)
{
	static const uint32_t step_tid[] = { W2, W1, 0, W1 };
	static const unsigned step_ring[] = { 2, 1, 3, 1 };
	struct scen sc;
	struct plan p;

	write_threads(&sc, false);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 4);
	ck_assert_uint_eq(p.nsteps, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(p.steps[i].ring, step_ring[i]);
		ck_assert_uint_eq(p.steps[i].tid, step_tid[i]);
		ck_assert_uint_eq(p.steps[i].n, 1);
	}
	ck_assert(!p.steps[2].enter);
	ck_assert_uint_eq(p.shared_ring, 0);
	ck_assert_uint_eq(p.nrings, 3);
	/* Replay threads in order of their first step: W2's, then W1's. */
	ck_assert_uint_eq(p.nthreads, 2);
	ck_assert_uint_eq(p.thread_tid[0], W2);
	ck_assert_uint_eq(p.thread_tid[1], W1);
	ck_assert_uint_eq(p.rings[0].tid, W1);
	ck_assert_uint_eq(p.rings[0].thread, 1);
	ck_assert_uint_eq(p.rings[1].tid, W2);
	ck_assert_uint_eq(p.rings[1].thread, 0);
	ck_assert_uint_eq(p.rings[2].tid, W2);
	ck_assert_uint_eq(p.rings[2].thread, 0);
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/* A ring entered by two threads: one replay thread for every ring. */
START_TEST(test_threads_shared)
{
	struct scen sc;
	struct plan p;

	write_threads(&sc, true);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.nsteps, 5);
	ck_assert_uint_eq(p.steps[4].tid, W2);
	ck_assert_uint_eq(p.steps[4].ring, 1);
	ck_assert_uint_eq(p.shared_ring, 1);
	ck_assert_uint_eq(p.shared_tid[0], W1);
	ck_assert_uint_eq(p.shared_tid[1], W2);
	ck_assert_uint_eq(p.nthreads, 1);
	for (size_t i = 0; i < p.nrings; i++)
		ck_assert_uint_eq(p.rings[i].thread, 0);
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/*
 * Pipe A (inode 77: read end fd 3, O_NONBLOCK, write end fd 4): a read
 * waits, two writes of 64 and 10 bytes, a short read of the 10: replayed.
 * Pipe B (78): a read its writer, not in the recording, fed.  Pipe C
 * (79): a read that got 8 bytes before the write of 8 was submitted.
 * Pipe D (80): 8 written, 4 read.
 */
static void write_pipes(struct scen *sc)
{
	scen_open(sc, "replay_pipes.log");
	ev_task(sc, T0, PID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, PID, PID, RING, 4, 0);
	stream_file(sc, T0 + 2 * US, 0xa0, true, 77, 04000);	/* O_RDONLY|O_NONBLOCK */
	stream_file(sc, T0 + 2 * US, 0xa1, true, 77, 01);	/* O_WRONLY */
	stream_file(sc, T0 + 2 * US, 0xb0, true, 78, 0);
	stream_file(sc, T0 + 2 * US, 0xc0, true, 79, 0);
	stream_file(sc, T0 + 2 * US, 0xc1, true, 79, 01);
	stream_file(sc, T0 + 2 * US, 0xd0, true, 80, 0);
	stream_file(sc, T0 + 2 * US, 0xd1, true, 80, 01);
	/* A: read 1 waits from 10 to 35 us for writes 2 and 3 */
	ev_enter_begin(sc, T0 + 10 * US, PID, PID, RING, 4, 1, 0, 0);
	submit(sc, T0 + 11 * US, 1, IORING_OP_READ, 3, 0, 64, 0);
	ev_enter_end(sc, T0 + 12 * US, PID, PID, RING, 1);
	ev_enter_begin(sc, T0 + 20 * US, PID, PID, RING, 4, 2, 0, 0);
	submit(sc, T0 + 21 * US, 2, IORING_OP_WRITE, 4, 0, 64, 0);
	submit(sc, T0 + 22 * US, 3, IORING_OP_WRITE, 4, 0, 10, 0);
	ev_enter_end(sc, T0 + 23 * US, PID, PID, RING, 2);
	done_file(sc, T0 + 30 * US, 2, 64, 0xa1);
	done_file(sc, T0 + 31 * US, 3, 10, 0xa1);
	done_file(sc, T0 + 35 * US, 1, 64, 0xa0);
	one(sc, T0 + 40 * US, 4, IORING_OP_READ, 3, 64, T0 + 45 * US, 10, 0xa0);
	/* B, C, D */
	one(sc, T0 + 50 * US, 5, IORING_OP_READ, 5, 64, T0 + 55 * US, 64, 0xb0);
	one(sc, T0 + 60 * US, 6, IORING_OP_READ, 6, 8, T0 + 65 * US, 8, 0xc0);
	one(sc, T0 + 70 * US, 7, IORING_OP_WRITE, 7, 8, T0 + 75 * US, 8, 0xc1);
	one(sc, T0 + 80 * US, 8, IORING_OP_WRITE, 9, 8, T0 + 85 * US, 8, 0xd1);
	one(sc, T0 + 90 * US, 9, IORING_OP_READ, 8, 4, T0 + 95 * US, 4, 0xd0);
	scen_finish(sc);
}

START_TEST(test_pipes)
{
	const struct plan_target *t;
	struct scen sc;
	struct plan p;

	write_pipes(&sc);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 4);
	for (uint64_t id = 1; id <= 4; id++)
		ck_assert_msg(!skip_of(&p, id), "request %llu: %s", (unsigned long long)id,
			      skip_of(&p, id));
	ck_assert_str_eq(skip_of(&p, 5), "pipe: its writer is not in the recording (data read, none written through io_uring)");
	ck_assert_str_eq(skip_of(&p, 6), "pipe: a read got data before io_uring had written it (a writer outside the recording)");
	ck_assert_str_eq(skip_of(&p, 7), skip_of(&p, 6));
	ck_assert_str_eq(skip_of(&p, 8), "pipe: bytes written and read through io_uring differ (a reader or writer outside the recording)");
	ck_assert_str_eq(skip_of(&p, 9), skip_of(&p, 8));
	/* Both ends are one target, a pipe: reads on its read end. */
	ck_assert_uint_eq(req_of(&p, 1)->target, req_of(&p, 2)->target);
	t = &p.targets[req_of(&p, 1)->target];
	ck_assert_int_eq(t->key.kind, RK_PIPE);
	ck_assert_str_eq(t->name, "pipe-d0.15-i77");
	ck_assert(t->used);
	ck_assert(t->nonblock[0]);
	ck_assert(!t->nonblock[1]);
	ck_assert(!req_of(&p, 1)->end_write);
	ck_assert(req_of(&p, 2)->end_write);
	ck_assert(req_of(&p, 3)->end_write);
	ck_assert(!req_of(&p, 4)->end_write);
	ck_assert_int_eq(req_of(&p, 4)->res, 10);
	/* Only A would be made. */
	for (size_t i = 0; i < p.ntargets; i++)
		ck_assert(p.targets[i].used == (&p.targets[i] == t));
	ck_assert_uint_eq(p.nsteps, 3);
	ck_assert_uint_eq(p.steps[1].n, 2);
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/*
 * Sockets 100 and 101 send each other 32 and 8 bytes, 101 then shuts down
 * its sending side and 100's recv gets 0: a pair.  102 got 16 bytes from
 * a peer outside.  103 sent 5 bytes, 104 and 105 each received 5: no pair
 * can be told.  106 only polled.  A pipe's end of file: test_socket_eof.
 */
static void write_sockets(struct scen *sc)
{
	scen_open(sc, "replay_sockets.log");
	ev_task(sc, T0, PID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(sc, T0 + 1 * US, PID, PID, RING, 4, 0);
	for (uint64_t i = 0; i < 7; i++)
		stream_file(sc, T0 + 2 * US, 0x100 + i, false, 100 + i, 02);	/* O_RDWR */
	one(sc, T0 + 10 * US, 1, IORING_OP_SEND, 10, 32, T0 + 15 * US, 32, 0x100);
	one(sc, T0 + 20 * US, 2, IORING_OP_RECV, 11, 64, T0 + 25 * US, 32, 0x101);
	one(sc, T0 + 30 * US, 3, IORING_OP_SEND, 11, 8, T0 + 35 * US, 8, 0x101);
	one(sc, T0 + 40 * US, 4, IORING_OP_RECV, 10, 8, T0 + 45 * US, 8, 0x100);
	one(sc, T0 + 50 * US, 5, IORING_OP_SHUTDOWN, 11, SHUT_WR, T0 + 55 * US, 0, 0x101);
	one(sc, T0 + 60 * US, 6, IORING_OP_RECV, 10, 8, T0 + 65 * US, 0, 0x100);
	one(sc, T0 + 70 * US, 7, IORING_OP_RECV, 12, 16, T0 + 75 * US, 16, 0x102);
	/* a receiver first: it must not take the sender its byte counts
	 * match before the sender's other match is seen */
	one(sc, T0 + 80 * US, 8, IORING_OP_RECV, 14, 5, T0 + 85 * US, 5, 0x104);
	one(sc, T0 + 90 * US, 9, IORING_OP_SEND, 13, 5, T0 + 91 * US, 5, 0x103);
	one(sc, T0 + 100 * US, 10, IORING_OP_RECV, 15, 5, T0 + 105 * US, 5, 0x105);
	one(sc, T0 + 110 * US, 11, IORING_OP_POLL_ADD, 16, 0, T0 + 115 * US, 1, 0x106);
	scen_finish(sc);
}

START_TEST(test_sockets)
{
	static const char ambiguous[] =
		"socket: its peer is ambiguous (several sockets' byte counts match)";
	const struct plan_target *a, *b;
	struct scen sc;
	struct plan p;

	write_sockets(&sc);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 6);
	for (uint64_t id = 1; id <= 6; id++)
		ck_assert_msg(!skip_of(&p, id), "request %llu: %s", (unsigned long long)id,
			      skip_of(&p, id));
	a = &p.targets[req_of(&p, 1)->target];
	b = &p.targets[req_of(&p, 2)->target];
	ck_assert_int_eq(a->key.kind, RK_SOCKET);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(&p.targets[a->peer], b);
	ck_assert_ptr_eq(&p.targets[b->peer], a);
	ck_assert_str_eq(skip_of(&p, 7), "socket: its peer is not in the recording (no other socket received what it sent and sent what it received)");
	ck_assert_str_eq(skip_of(&p, 8), ambiguous);
	ck_assert_str_eq(skip_of(&p, 9), ambiguous);
	ck_assert_str_eq(skip_of(&p, 10), ambiguous);
	ck_assert_str_eq(skip_of(&p, 11), "socket: no data through io_uring in the recording: its peer cannot be told");
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/*
 * The same pair without its SHUTDOWN: the recv that got 0 has no cause in
 * the recording, so neither socket is replayed.
 */
START_TEST(test_socket_eof)
{
	struct scen sc;
	struct plan p;

	scen_open(&sc, "replay_eof.log");
	ev_task(&sc, T0, PID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, PID, PID, RING, 4, 0);
	stream_file(&sc, T0 + 2 * US, 0x100, false, 100, 02);
	stream_file(&sc, T0 + 2 * US, 0x101, false, 101, 02);
	one(&sc, T0 + 10 * US, 1, IORING_OP_SEND, 10, 32, T0 + 15 * US, 32, 0x100);
	one(&sc, T0 + 20 * US, 2, IORING_OP_RECV, 11, 64, T0 + 25 * US, 32, 0x101);
	one(&sc, T0 + 30 * US, 3, IORING_OP_RECV, 11, 64, T0 + 35 * US, 0, 0x101);
	scen_finish(&sc);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 0);
	ck_assert_str_eq(skip_of(&p, 1), "socket: a receive saw end of file its peer's requests do not explain (a close)");
	ck_assert_str_eq(skip_of(&p, 3), skip_of(&p, 1));
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/*
 * On socket 100 and its pair 101: a multishot RECV, a RECV with provided
 * buffers, a multishot POLL_ADD, a SPLICE into 101: none can be replayed,
 * and so the pair's flow is not either.
 */
START_TEST(test_stream_skips)
{
	static const struct { uint8_t op; uint16_t ioprio; uint8_t sqe_flags; uint32_t len; }
	reqs[] = {
		{ IORING_OP_RECV, IORING_RECV_MULTISHOT, IOSQE_BUFFER_SELECT, 0 },
		{ IORING_OP_RECV, 0, IOSQE_BUFFER_SELECT, 0 },
		{ IORING_OP_POLL_ADD, 0, 0, IORING_POLL_ADD_MULTI },
		{ IORING_OP_SPLICE, 0, 0, 8 },
	};
	struct scen sc;
	struct plan p;

	scen_open(&sc, "replay_skips.log");
	ev_task(&sc, T0, PID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, PID, PID, RING, 4, 0);
	stream_file(&sc, T0 + 2 * US, 0x100, false, 100, 02);
	stream_file(&sc, T0 + 2 * US, 0x101, false, 101, 02);
	one(&sc, T0 + 10 * US, 1, IORING_OP_SEND, 10, 32, T0 + 15 * US, 32, 0x100);
	one(&sc, T0 + 20 * US, 2, IORING_OP_RECV, 11, 64, T0 + 25 * US, 32, 0x101);
	for (uint64_t i = 0; i < 4; i++) {
		struct ev_submit e = {
			SYNTH_HDR(EV_SUBMIT, T0 + (30 + 10 * i) * US, PID, PID),
			.opcode = reqs[i].op, .sqe_flags = reqs[i].sqe_flags, .ring = RING,
			.req = 3 + i, .user_data = 3 + i, .req_flags = reqs[i].sqe_flags,
			.fd = i == 3 ? 11 : 10, .len = reqs[i].len, .ioprio = reqs[i].ioprio,
		};

		e.flags = EVF_SQE_VALID;
		synth_emit(sc.s, sc.cpu, &e, sizeof(e));
		done_file(&sc, T0 + (35 + 10 * i) * US, 3 + i, 0, i == 3 ? 0x101 : 0x100);
	}
	scen_finish(&sc);
	ck_assert_int_eq(plan_read(&p, sc.path, true), 0);
	ck_assert_uint_eq(p.replayed, 0);
	ck_assert_str_eq(skip_of(&p, 1), "socket: another request on it is not replayed, so neither is its data flow");
	ck_assert_str_eq(skip_of(&p, 2), skip_of(&p, 1));
	ck_assert_str_eq(skip_of(&p, 3), "multishot receive: its provided buffers are not replayed");
	ck_assert_str_eq(skip_of(&p, 4), "provided buffers (IOSQE_BUFFER_SELECT) are not replayed");
	ck_assert_str_eq(skip_of(&p, 5), "multishot POLL_ADD: it ends only by a POLL_REMOVE or cancellation, not replayed");
	ck_assert_str_eq(skip_of(&p, 6), "the log does not hold its second file (sqe->splice_fd_in)");
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

/* A log before format 3.1 names no files: its RECVs and poll-armed reads
 * are on pipes or sockets that cannot be told. */
START_TEST(test_no_identity)
{
	char path[4096];
	struct plan p;
	bool recv = false, read = false;

	snprintf(path, sizeof(path), "%s/tests/golden/real_v3.0.log", test_srcdir());
	ck_assert_int_eq(plan_read(&p, path, true), 0);
	ck_assert(!p.identity);
	for (size_t i = 0; i < p.nskips; i++) {
		if (strcmp(p.skips[i].reason, "pipe or socket: the log does not identify files (format before 3.1)"))
			continue;
		recv |= !strcmp(p.opnames[p.skips[i].opcode], "RECV");
		read |= !strcmp(p.opnames[p.skips[i].opcode], "READ");
	}
	ck_assert(recv && read);
	for (size_t i = 0; i < p.ntargets; i++)
		ck_assert_int_eq(p.targets[i].key.kind, RK_FILE);
	plan_free(&p);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("plan");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_plan);
	tcase_add_test(tc, test_pipes);
	tcase_add_test(tc, test_sockets);
	tcase_add_test(tc, test_socket_eof);
	tcase_add_test(tc, test_stream_skips);
	tcase_add_test(tc, test_no_identity);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_threads_shared);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(replay_suite)
