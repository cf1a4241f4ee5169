// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert's request model on synthetic logs: every path, pointer
 * reuse, losses, requests in flight at both ends, threads and rings,
 * SQPOLL, links with a failure, multishot, aux CQEs, CQ overflow,
 * syscall slices, damaged frames, selection.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_test.h"
#include "file_stats.h"
#include "hmap.h"
#include "model_files.h"
#include "model_names.h"
#include "names.h"
#include "pipeline.h"
#include "report.h"
#include "stats.h"
#include "test_util.h"
#include "timebase.h"

#define RING 0x1000
#define RING2 0x2000
#define PID 100
#define TID 100
#define TID2 101
#define WORKER 150
#define SQTHREAD 160
#define OP_READ 22
#define OP_WRITE 23
#define OP_NOP 0
#define IOSQE_IO_DRAIN 2
#define IOSQE_IO_LINK 4
#define IOSQE_ASYNC 16
#define IOSQE_CQE_SKIP 64
#define CQE_F_MORE 2
#define CQE_F_NOTIF 8
#define US 1000ull

static struct capture *run(struct scen *sc)
{
	scen_finish(sc);
	return convert_capture(sc->path, NULL);
}

/* enter(submit 1) with an inline completion; a second request completes
 * after cqring_wait (task-work); a third completes inside the slice but is
 * claimed by the end of a task-work batch. */
START_TEST(test_inline_and_task_work)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "inline.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 10 * US, TID, PID, RING, 3, 3, 1, 1);
	ev_submit(&sc, T0 + 11 * US, TID, PID, RING, 0xa1, OP_NOP, 1, 0, 0);
	ev_submit(&sc, T0 + 12 * US, TID, PID, RING, 0xa2, OP_READ, 2, 0, 0);
	ev_submit(&sc, T0 + 13 * US, TID, PID, RING, 0xa3, OP_READ, 3, 0, 0);
	ev_complete(&sc, T0 + 14 * US, TID, PID, RING, 0xa1, 1, 0, 0);
	ev_complete(&sc, T0 + 15 * US, TID, PID, RING, 0xa3, 3, 512, 0);
	ev_tw_run(&sc, T0 + 16 * US, TID, PID, 1);
	ev_cqring_wait(&sc, T0 + 17 * US, TID, PID, RING, 1);
	ev_complete(&sc, T0 + 30 * US, TID, PID, RING, 0xa2, 2, 512, 0);
	ev_tw_run(&sc, T0 + 31 * US, TID, PID, 1);
	ev_enter_end(&sc, T0 + 32 * US, TID, PID, RING, 3);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 3);
	ck_assert_int_eq(req_by_ud(c, 1)->path, PATH_INLINE);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 2)->path, PATH_TASK_WORK);
	ck_assert_int_eq(req_by_ud(c, 3)->path, PATH_TASK_WORK);
	ck_assert_uint_eq(req_by_ud(c, 3)->tw_run_ts, T0 + 16 * US);
	ck_assert_uint_eq(req_by_ud(c, 2)->tw_run_ts, T0 + 31 * US);
	ck_assert_uint_eq(req_by_ud(c, 1)->tw_run_ts, 0);
	ck_assert_uint_eq(req_by_ud(c, 2)->submit_ts, T0 + 12 * US);
	ck_assert_uint_eq(req_by_ud(c, 2)->complete_ts, T0 + 30 * US);
	ck_assert_int_eq(req_by_ud(c, 2)->res, 512);

	/* The enter slice: 3 submitted, 3 CQEs, split at cqring_wait. */
	ck_assert_uint_eq(c->nsys, 1);
	ck_assert_int_eq(c->sys[0].kind, SYS_ENTER);
	ck_assert_uint_eq(c->sys[0].submitted, 3);
	ck_assert_uint_eq(c->sys[0].completed, 3);
	ck_assert_uint_eq(syscall_submit_ns(&c->sys[0]), 7 * US);
	ck_assert_uint_eq(syscall_wait_ns(&c->sys[0]), 15 * US);
	ck_assert_int_eq(c->sys[0].ret, 3);
	ck_assert(!c->sys[0].events_lost);
	ck_assert_uint_eq(req_by_ud(c, 1)->submit_syscall, c->sys[0].id);
	ck_assert_uint_eq(req_by_ud(c, 2)->complete_syscall, c->sys[0].id);
	ck_assert_uint_eq(c->nrings, 1);
	ck_assert_uint_eq(c->rings[0].number, 1);
	ck_assert_uint_eq(c->rings[0].pid, PID);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * The recorder writes 0 for the SQE offset of opcodes whose offset slot
 * holds a user pointer and lists them in options.sqe_off_zeroed_for: that
 * 0 is unknown, not an offset.
 */
START_TEST(test_off_zeroed_is_unknown)
{
	struct synth_options opt = {
		.extra_meta = "\"options\":{\"sqe_off_zeroed_for\":[\"STATX\",\"SEND\"]}",
	};
	struct scen sc;
	struct capture *c;

	scen_open_opts(&sc, "offzero.log", &opt);
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xb1, 21 /* STATX */, 1, 0, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xb2, OP_READ, 2, 0, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xb3, OP_WRITE, 3, 0, EVF_SQ_THREAD);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0xb1, 1, 0, 0);
	ev_complete(&sc, T0 + 5 * US, TID, PID, RING, 0xb2, 2, 512, 0);
	ev_complete(&sc, T0 + 6 * US, TID, PID, RING, 0xb3, 3, 512, 0);
	c = run(&sc);
	ck_assert_uint_eq(c->nreq, 3);
	ck_assert(req_by_ud(c, 1)->sqe_fields_valid);
	ck_assert(!req_by_ud(c, 1)->off_valid);
	ck_assert(req_by_ud(c, 2)->off_valid);
	ck_assert_uint_eq(req_by_ud(c, 2)->off, 4096);
	ck_assert(req_by_ud(c, 3)->off_valid);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* io-wq with the worker known only from its completion (approximate), and
 * with exact work_begin/work_end events. */
START_TEST(test_iowq)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "iowq.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xb1, OP_WRITE, 1, 16, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 2 * US, TID, PID, RING, 0xb1, 1);
	ev_complete(&sc, T0 + 50 * US, WORKER, PID, RING, 0xb1, 1, 4096, 0);
	ev_submit(&sc, T0 + 60 * US, TID, PID, RING, 0xb2, OP_WRITE, 2, 16, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 61 * US, TID, PID, RING, 0xb2, 2);
	ev_work(&sc, true, T0 + 70 * US, WORKER, PID, RING, 0xb2);
	ev_complete(&sc, T0 + 80 * US, WORKER, PID, RING, 0xb2, 2, 4096, 0);
	ev_work(&sc, false, T0 + 81 * US, WORKER, PID, RING, 0xb2);
	c = run(&sc);

	r = req_by_ud(c, 1);
	ck_assert_int_eq(r->path, PATH_IOWQ);
	ck_assert_uint_eq(r->worker_tid, WORKER);
	ck_assert(r->modifiers & REQM_WORKER_APPROX);
	ck_assert_uint_eq(r->work_begin_ts, T0 + 2 * US);
	ck_assert_uint_eq(r->queue_async_ts, T0 + 2 * US);
	r = req_by_ud(c, 2);
	ck_assert_int_eq(r->path, PATH_IOWQ);
	ck_assert(!(r->modifiers & REQM_WORKER_APPROX));
	ck_assert_uint_eq(r->work_begin_ts, T0 + 70 * US);
	ck_assert_uint_eq(r->work_end_ts, T0 + 81 * US);
	ck_assert_uint_eq(c->rings[0].iowq_workers, 1);
	ck_assert_uint_eq(c->rings[0].iowq_peak, 1);
	for (size_t i = 0; i < c->ntasks; i++)
		if (c->tasks[i].tid == WORKER) {
			ck_assert_int_eq(c->tasks[i].kind, TASK_IOWQ_WORKER);
			ck_assert_uint_eq(c->tasks[i].nrings, 1);
		}
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * Two workers begin the same request (a damaged or out-of-order log), its
 * ring is then re-created, which closes it, and a new request takes its
 * pointer (and, with the model's reuse of freed states, its memory).  The
 * first worker's work_end must not land on the new request: the first
 * worker stopped pointing at the request when the second took it.  (Found
 * by test_read_ahead_same_output under AddressSanitizer: a use after free.)
 */
START_TEST(test_work_handed_over_then_ring_recreated)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "handover.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER + 1, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xb1, OP_WRITE, 1, 16, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 3 * US, TID, PID, RING, 0xb1, 1);
	ev_work(&sc, true, T0 + 4 * US, WORKER, PID, RING, 0xb1);
	ev_work(&sc, true, T0 + 5 * US, WORKER + 1, PID, RING, 0xb1);
	ev_create(&sc, T0 + 6 * US, TID, PID, RING, 6, 0);
	ev_submit(&sc, T0 + 7 * US, TID, PID, RING, 0xb1, OP_WRITE, 2, 0, 0);
	ev_work(&sc, false, T0 + 8 * US, WORKER, PID, RING, 0xb1);
	ev_complete(&sc, T0 + 9 * US, TID, PID, RING, 0xb1, 2, 4096, 0);
	c = run(&sc);

	r = req_by_ud(c, 1);
	ck_assert_int_eq(r->status, REQ_INCOMPLETE);
	ck_assert_int_eq(r->incomplete_reason, INCOMPLETE_RING_RECREATED);
	ck_assert_uint_eq(r->worker_tid, WORKER + 1);
	ck_assert_uint_eq(r->work_begin_ts, T0 + 5 * US);
	r = req_by_ud(c, 2);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_uint_eq(r->work_end_ts, 0);
	ck_assert_uint_eq(r->worker_tid, 0);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * A thread posts a multishot CQE of a request, the ring is re-created by
 * another thread (closing the request), a new request with the same
 * user_data takes its place, and then the first thread reports a CQE
 * overflow.  The overflow cannot be the first CQE's (that request is
 * gone): it is the new request's completion, as every overflow is a CQE
 * of its own, not a mark on whatever reuses the closed request's memory.  (Found under AddressSanitizer like the test above.)
 */
START_TEST(test_overflow_after_ring_recreated)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "overflow_recreated.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, TID2, PID, "app2", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xc1, OP_READ, 7, 0, 0);
	ev_complete(&sc, T0 + 3 * US, TID2, PID, RING, 0xc1, 7, 1, CQE_F_MORE);
	ev_create(&sc, T0 + 4 * US, TID, PID, RING, 6, 0);
	ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0xc2, OP_READ, 7, 0, 0);
	ev_overflow(&sc, T0 + 6 * US, TID2, PID, RING, 7, 4, false);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 2);
	r = &c->req[0];
	ck_assert_int_eq(r->status, REQ_INCOMPLETE);
	ck_assert_int_eq(r->incomplete_reason, INCOMPLETE_RING_RECREATED);
	ck_assert_uint_eq(r->overflow_ts, 0);
	r = &c->req[1];
	ck_assert_uint_eq(r->req_ptr, 0xc2);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_uint_eq(r->complete_ts, T0 + 6 * US);
	ck_assert_uint_eq(r->overflow_ts, T0 + 6 * US);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* A submit whose REQ_F_* differ from its SQE flags (the prep forced async),
 * with or without the SQE read (EVF_SQE_VALID). */
static void ev_submit_forced(struct scen *sc, uint64_t ts, uint64_t req, uint8_t opcode,
			     uint64_t user_data, bool sqe_read)
{
	struct ev_submit e = {
		SYNTH_HDR(EV_SUBMIT, ts, TID, PID),
		.opcode = opcode, .sqe_flags = sqe_read ? 0 : IOSQE_ASYNC, .ring = RING,
		.req = req, .user_data = user_data, .req_flags = IOSQE_ASYNC, .fd = 5,
	};

	e.flags = sqe_read ? EVF_SQE_VALID : 0;
	synth_emit(sc->s, sc->cpu, &e, sizeof(e));
}

/*
 * When each CQE was reaped: CQ indices counted from the first snapshot of
 * the CQ tail, reaped at the first snapshot whose head is past them; a
 * tail ahead of the count (an overflowed CQE flushed unseen) moves the
 * indices since the last snapshot up, so they stay upper bounds; an
 * overflowed CQE has no index; with the ring size known, writing index q
 * proves every index <= q - size consumed.
 */
START_TEST(test_reaped_by)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "reaped.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_enter_cq(&sc, true, T0 + 1 * US, TID, PID, RING, 0, 0, 0);
	for (unsigned i = 1; i <= 5; i++)
		ev_submit(&sc, T0 + 1 * US + i, TID, PID, RING, 0xa0 + i, OP_NOP, i, 0, 0);
	ev_complete(&sc, T0 + 3 * US, TID, PID, RING, 0xa1, 1, 0, 0);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0xa2, 2, 0, 0);
	ev_enter_cq(&sc, false, T0 + 5 * US, TID, PID, RING, 0, 0, 2);
	ev_enter_cq(&sc, true, T0 + 10 * US, TID, PID, RING, 0, 1, 2);
	ev_complete(&sc, T0 + 11 * US, TID, PID, RING, 0xa3, 3, 0, 0);
	ev_overflow(&sc, T0 + 12 * US, TID, PID, RING, 4, 0, false);
	ev_complete(&sc, T0 + 13 * US, TID, PID, RING, 0xa5, 5, 0, 0);
	ev_enter_cq(&sc, false, T0 + 14 * US, TID, PID, RING, 0, 2, 5);
	ev_enter_cq(&sc, true, T0 + 20 * US, TID, PID, RING, 0, 5, 5);
	ev_enter_cq(&sc, false, T0 + 21 * US, TID, PID, RING, 0, 5, 5);

	/* A ring of 4 CQEs whose application never enters again. */
	ev_enter_cq(&sc, true, T0 + 30 * US, TID, PID, RING2, 2, 7, 7);
	for (unsigned i = 1; i <= 6; i++)
		ev_submit(&sc, T0 + 30 * US + i, TID, PID, RING2, 0xb0 + i, OP_NOP, 10 + i, 0, 0);
	ev_enter_cq(&sc, false, T0 + 31 * US, TID, PID, RING2, 0, 7, 7);
	for (unsigned i = 1; i <= 6; i++)
		ev_complete(&sc, T0 + (40 + i) * US, TID2, PID, RING2, 0xb0 + i, 10 + i, 0, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 11);
	/* Delivered in the order they finished, reaped or not. */
	for (size_t i = 0; i + 1 < 5; i++)
		ck_assert_uint_lt(c->req[i].user_data, c->req[i + 1].user_data);
	r = req_by_ud(c, 1);
	ck_assert(r->cq_index_valid && !r->cq_index_upper);
	ck_assert_uint_eq(r->cq_index, 0);
	ck_assert_uint_eq(r->reaped_ts, T0 + 10 * US);
	ck_assert(!r->reaped_by_capacity);
	r = req_by_ud(c, 2);
	ck_assert_uint_eq(r->cq_index, 1);
	ck_assert(!r->cq_index_upper);
	ck_assert_uint_eq(r->reaped_ts, T0 + 14 * US);
	r = req_by_ud(c, 3);
	ck_assert(r->cq_index_valid && r->cq_index_upper);
	ck_assert_uint_eq(r->cq_index, 3);
	ck_assert_uint_eq(r->reaped_ts, T0 + 20 * US);
	r = req_by_ud(c, 4);
	ck_assert(r->modifiers & REQM_CQ_OVERFLOW);
	ck_assert(!r->cq_index_valid);
	ck_assert_uint_eq(r->reaped_ts, 0);
	r = req_by_ud(c, 5);
	ck_assert(r->cq_index_valid && r->cq_index_upper);
	ck_assert_uint_eq(r->cq_index, 4);
	ck_assert_uint_eq(r->reaped_ts, T0 + 20 * US);

	/* Index 7 + 4 written at 45 us: index 7 was gone by then, 7 + 1
	 * by 46 us; the rest is never known. */
	r = req_by_ud(c, 11);
	ck_assert_uint_eq(r->cq_index, 7);
	ck_assert_uint_eq(r->reaped_ts, T0 + 45 * US);
	ck_assert(r->reaped_by_capacity);
	r = req_by_ud(c, 12);
	ck_assert_uint_eq(r->reaped_ts, T0 + 46 * US);
	for (unsigned ud = 13; ud <= 16; ud++) {
		r = req_by_ud(c, ud);
		ck_assert(r->cq_index_valid);
		ck_assert_uint_eq(r->reaped_ts, 0);
	}
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * io-wq pools and hashed work from the work flags (format 3.1): a worker
 * is in the pool of the work it runs, counts for a ring from its first
 * work there until it exits; hashed work is counted per hash key.
 */
START_TEST(test_iowq_pools)
{
	const uint32_t key5 = (5u << 24) | 2, key7 = (7u << 24) | 2, unbound = 4;
	const uint32_t w[3] = { WORKER, WORKER + 1, WORKER + 2 };
	struct scen sc;
	struct capture *c;
	const struct model_request *r;
	uint64_t t = T0 + 10 * US;

	scen_open(&sc, "iowq_pools.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	for (unsigned i = 0; i < 3; i++)
		ev_task(&sc, T0, w[i], PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 1 * US, TID, PID, RING, 3, 7, 0, 0);
	for (unsigned i = 1; i <= 7; i++) {
		ev_submit(&sc, T0 + 1 * US + i, TID, PID, RING, 0xc0 + i, OP_WRITE, i, 0, 0);
		ev_queue_async(&sc, T0 + 1 * US + 10 + i, TID, PID, RING, 0xc0 + i, i, i <= 5,
			       i <= 4 ? key5 : i == 5 ? key7 : unbound);
	}
	ev_enter_end(&sc, T0 + 2 * US, TID, PID, RING, 7);
	/* W0 runs the four of key 5, W1 the one of key 7, W2 the unbound two. */
	for (unsigned i = 1; i <= 7; i++) {
		uint32_t tid = w[i <= 4 ? 0 : i == 5 ? 1 : 2];

		ev_work(&sc, true, t, tid, PID, RING, 0xc0 + i);
		ev_complete(&sc, t + 1 * US, tid, PID, RING, 0xc0 + i, i, 512, 0);
		ev_work(&sc, false, t + 2 * US, tid, PID, RING, 0xc0 + i);
		t += 3 * US;
	}
	for (unsigned i = 0; i < 3; i++)
		ev_task_exit(&sc, t + i * US, w[i], PID);
	c = run(&sc);

	ck_assert_uint_eq(c->nrings, 1);
	ck_assert(c->rings[0].iowq_work_flags_known);
	ck_assert_uint_eq(c->rings[0].iowq_hashed, 5);
	ck_assert_uint_eq(c->rings[0].iowq_hashed_key_peak, 4);
	ck_assert_uint_eq(c->rings[0].iowq_bound_peak, 2);
	ck_assert_uint_eq(c->rings[0].iowq_unbound_peak, 1);
	ck_assert_int_eq(c->counter_max[COUNTER_IOWQ_BOUND_WORKERS], 2);
	ck_assert_int_eq(c->counter_max[COUNTER_IOWQ_UNBOUND_WORKERS], 1);
	ck_assert_int_eq(c->counter_last[COUNTER_IOWQ_BOUND_WORKERS], 0);
	ck_assert_int_eq(c->counter_last[COUNTER_IOWQ_UNBOUND_WORKERS], 0);
	r = req_by_ud(c, 1);
	ck_assert(r->work_flags_valid && (r->modifiers & REQM_HASHED));
	ck_assert_uint_eq(r->work_flags >> 24, 5);
	r = req_by_ud(c, 6);
	ck_assert(r->work_flags_valid && !(r->modifiers & REQM_HASHED));
	ck_assert_uint_eq(r->work_flags & EV_IO_WQ_WORK_UNBOUND, EV_IO_WQ_WORK_UNBOUND);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Without work flags (logs before 3.1) pools and keys stay unknown. */
START_TEST(test_iowq_pools_unknown)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "iowq_old.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xc1, OP_WRITE, 1, 0, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 2 * US, TID, PID, RING, 0xc1, 1);
	ev_work(&sc, true, T0 + 3 * US, WORKER, PID, RING, 0xc1);
	ev_complete(&sc, T0 + 4 * US, WORKER, PID, RING, 0xc1, 1, 512, 0);
	ev_work(&sc, false, T0 + 5 * US, WORKER, PID, RING, 0xc1);
	c = run(&sc);

	ck_assert(!c->rings[0].iowq_work_flags_known);
	ck_assert_uint_eq(c->rings[0].iowq_workers, 1);
	ck_assert_uint_eq(c->rings[0].iowq_bound_peak + c->rings[0].iowq_unbound_peak, 0);
	ck_assert(!req_by_ud(c, 1)->work_flags_valid);
	ck_assert_int_eq(c->counter_max[COUNTER_IOWQ_BOUND_WORKERS], 0);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * File identity (format 3.1): a file is named once by a FILE record and
 * then by its id in completions; a plain fd and a fixed file of the same
 * struct file are the same file; a record repeated with the same identity
 * (the recorder forgot it) is still that file, one for another inode at
 * the same address is another file; pipes, sockets, anonymous inodes,
 * deleted and truncated paths read as /proc/PID/fd shows them.
 */
#define FILE_A 0xf11e0001ull
#define FILE_P 0xf11e0002ull
#define FILE_E 0xf11e0003ull
#define FILE_T 0xf11e0004ull
#define FILE_R 0xf11e0005ull
#define DEV(maj, min) ((uint32_t)(maj) << 20 | (min))

START_TEST(test_file_identity)
{
	struct scen sc;
	struct capture *c;
	const struct model_file *f[12];
	struct file_stats fs;
	size_t n;
	const struct file_agg **v;

	scen_open(&sc, "files.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 1 * US, TID, PID, RING, 3, 16, 1, 1);
	/* 1: READ by fd, 2: READ_FIXED (4) of the same file, 3: WRITE */
	ev_file(&sc, T0 + 2 * US, FILE_A, DEV(259, 3), 1234, 040002 /* O_DIRECT|O_RDWR */, 1,
		0100644, "ext4", "data\0dir\0", 9, 2, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xe1, OP_READ, 1, 0, 0);
	ev_complete_file(&sc, T0 + 3 * US, TID, PID, RING, 0xe1, 1, 4096, FILE_A);
	ev_submit(&sc, T0 + 4 * US, TID, PID, RING, 0xe2, 4 /* READ_FIXED */, 2, 1, 0);
	/* forgotten by the recorder and described again: the same file */
	ev_file(&sc, T0 + 5 * US, FILE_A, DEV(259, 3), 1234, 040002, 1, 0100644, "ext4",
		"data\0dir\0", 9, 2, 0);
	ev_complete_file(&sc, T0 + 5 * US, TID, PID, RING, 0xe2, 2, 4096, FILE_A);
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0xe3, OP_WRITE, 3, 0, 0);
	ev_complete_file(&sc, T0 + 7 * US, TID, PID, RING, 0xe3, 3, 512, FILE_A);
	/* 4: the address now holds another inode, unlinked: another file */
	ev_file(&sc, T0 + 8 * US, FILE_A, DEV(8, 1), 999, 02001 /* O_APPEND|O_WRONLY */, 0,
		0100600, "tmpfs", "gone\0", 5, 1, 0);
	ev_submit(&sc, T0 + 8 * US, TID, PID, RING, 0xe4, OP_WRITE, 4, 0, 0);
	ev_complete_file(&sc, T0 + 9 * US, TID, PID, RING, 0xe4, 4, 100, FILE_A);
	/* 5: a pipe, 6: an eventfd, 7: a path too long to walk, 8: the root */
	ev_file(&sc, T0 + 10 * US, FILE_P, 15, 77, 04000 /* O_NONBLOCK */, 1, 010600,
		"pipefs", "\0", 1, 1, EV_PATH_DETACHED);
	ev_submit(&sc, T0 + 10 * US, TID, PID, RING, 0xe5, OP_READ, 5, 0, 0);
	ev_complete_file(&sc, T0 + 11 * US, TID, PID, RING, 0xe5, 5, 32, FILE_P);
	ev_file(&sc, T0 + 12 * US, FILE_E, 14, 5, 2, 1, 0600, "anon_inodefs",
		"[eventfd]\0", 10, 1, EV_PATH_DETACHED);
	ev_submit(&sc, T0 + 12 * US, TID, PID, RING, 0xe6, OP_READ, 6, 0, 0);
	ev_complete_file(&sc, T0 + 13 * US, TID, PID, RING, 0xe6, 6, 8, FILE_E);
	ev_file(&sc, T0 + 14 * US, FILE_T, DEV(259, 3), 4321, 0, 1, 0100644, "ext4",
		"c\0b\0", 4, 2, EV_PATH_TRUNCATED);
	ev_submit(&sc, T0 + 14 * US, TID, PID, RING, 0xe7, OP_READ, 7, 0, 0);
	ev_complete_file(&sc, T0 + 15 * US, TID, PID, RING, 0xe7, 7, -11, FILE_T);
	ev_file(&sc, T0 + 16 * US, FILE_R, DEV(259, 3), 2, 0, 20, 040755, "ext4", "", 0, 0, 0);
	ev_submit(&sc, T0 + 16 * US, TID, PID, RING, 0xe8, 3 /* FSYNC */, 8, 0, 0);
	ev_complete_file(&sc, T0 + 17 * US, TID, PID, RING, 0xe8, 8, 0, FILE_R);
	/* 9: a completion without FILE_VALID (format 3.0): no file, whatever
	 * the field holds; 10: a file never described: none either */
	ev_submit(&sc, T0 + 18 * US, TID, PID, RING, 0xe9, OP_READ, 9, 0, 0);
	{
		struct ev_complete e = {
			.ts = T0 + 19 * US, .tid = TID, .tgid = PID, .type = EV_COMPLETE,
			.res = 1, .ring = RING, .req = 0xe9, .user_data = 9, .file = FILE_P,
		};

		synth_emit(sc.s, sc.cpu, &e, sizeof(e));
	}
	ev_submit(&sc, T0 + 20 * US, TID, PID, RING, 0xea, OP_READ, 10, 0, 0);
	ev_complete_file(&sc, T0 + 21 * US, TID, PID, RING, 0xea, 10, 1, 0xdeadull);
	/* 11: a 32-byte CQE: the file is after the two extra words */
	ev_submit(&sc, T0 + 22 * US, TID, PID, RING, 0xeb, 46 /* URING_CMD */, 11, 0, 0);
	{
		struct ev_complete32 e = {
			.ts = T0 + 23 * US, .tid = TID, .tgid = PID, .type = EV_COMPLETE32,
			.flags = EVF_FILE_VALID, .res = 0, .ring = RING, .req = 0xeb,
			.user_data = 11, .extra1 = FILE_E, .extra2 = 7, .file = FILE_P,
		};

		synth_emit(sc.s, sc.cpu, &e, sizeof(e));
	}
	ev_enter_end(&sc, T0 + 30 * US, TID, PID, RING, 11);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 11);
	for (unsigned i = 1; i <= 11; i++)
		f[i] = req_file(c, req_by_ud(c, i));
	/* fd and fixed file: one file, its identity exact */
	ck_assert_ptr_nonnull(f[1]);
	ck_assert_uint_eq(f[1]->number, 1);
	ck_assert_uint_eq(f[2]->number, 1);
	ck_assert_uint_eq(f[3]->number, 1);
	ck_assert_str_eq(f[1]->path, "/dir/data");
	ck_assert_str_eq(f[2]->path, "/dir/data");
	ck_assert_int_eq(f[1]->type, FILE_REGULAR);
	ck_assert_uint_eq(f[1]->dev_major, 259);
	ck_assert_uint_eq(f[1]->dev_minor, 3);
	ck_assert_uint_eq(f[1]->ino, 1234);
	ck_assert_str_eq(f[1]->fs, "ext4");
	ck_assert(!f[1]->deleted && !f[1]->anonymous && !f[1]->path_truncated);
	/* the address reused */
	ck_assert_uint_eq(f[4]->number, 2);
	ck_assert_str_eq(f[4]->path, "/gone (deleted)");
	ck_assert(f[4]->deleted);
	ck_assert_uint_eq(f[4]->dev_major, 8);
	ck_assert_uint_eq(f[4]->ino, 999);
	/* pseudo files, truncated, root */
	ck_assert_str_eq(f[5]->path, "pipe:[77]");
	ck_assert_int_eq(f[5]->type, FILE_PIPE);
	ck_assert(f[5]->anonymous && !f[5]->deleted);
	ck_assert_str_eq(f[6]->path, "anon_inode:[eventfd]");
	ck_assert_int_eq(f[6]->type, FILE_EVENTFD);
	ck_assert_str_eq(f[7]->path, ".../b/c");
	ck_assert(f[7]->path_truncated);
	ck_assert_str_eq(f[8]->path, "/");
	ck_assert_int_eq(f[8]->type, FILE_OTHER);
	ck_assert_ptr_null(f[9]);
	ck_assert_ptr_null(f[10]);
	ck_assert_ptr_nonnull(f[11]);
	ck_assert_uint_eq(f[11]->number, f[5]->number);
	{
		char b[64];

		ck_assert_str_eq(format_file_flags(b, sizeof(b), f[1]->f_flags, "x86_64"),
				 "O_DIRECT");
		ck_assert_str_eq(format_file_flags(b, sizeof(b), f[4]->f_flags, "x86_64"),
				 "O_APPEND");
		ck_assert_str_eq(format_file_flags(b, sizeof(b), 0200000 | 04000, "aarch64"),
				 "O_DIRECT|O_NONBLOCK");
		ck_assert_str_eq(format_file_flags(b, sizeof(b), 2, "x86_64"), "");
	}

	/* per file: requests, bytes, errors, latency, path mix */
	file_stats_init(&fs);
	for (size_t i = 0; i < c->nreq; i++) {
		struct model_request r = c->req[i];

		r.file = req_file(c, &c->req[i]);
		file_stats_add(&fs, &r);
	}
	v = file_stats_sorted(&fs, FILE_BY_REQUESTS, &n);
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(v[0]->file->number, 1);
	ck_assert_uint_eq(v[0]->requests, 3);
	ck_assert_uint_eq(v[0]->bytes_read, 8192);
	ck_assert_uint_eq(v[0]->bytes_written, 512);
	ck_assert_uint_eq(v[0]->latency_total_ns, 1 * US + 1 * US + 1 * US);
	ck_assert_uint_eq(v[0]->paths[PATH_INLINE], 3);
	ck_assert_uint_eq(v[1]->file->number, 3);	/* the pipe: 2 requests */
	ck_assert_uint_eq(v[1]->requests, 2);
	ck_assert_uint_eq(v[1]->bytes_read, 32);
	free(v);
	v = file_stats_sorted(&fs, FILE_BY_NUMBER, &n);
	ck_assert_uint_eq(v[4]->file->number, 5);	/* the truncated one */
	ck_assert_uint_eq(v[4]->errors, 1);
	free(v);
	file_stats_free(&fs);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* The path field of a FILE record, joined; never past its bytes. */
START_TEST(test_file_path_join)
{
	char b[32];

	ck_assert_uint_eq(file_path_join(b, sizeof(b), "a\0tmp\0", 6, 2, 0), 6);
	ck_assert_str_eq(b, "/tmp/a");
	file_path_join(b, sizeof(b), "", 0, 0, 0);
	ck_assert_str_eq(b, "/");
	file_path_join(b, sizeof(b), "x\0", 2, 1, EV_PATH_DETACHED);
	ck_assert_str_eq(b, "x");
	file_path_join(b, sizeof(b), "x\0y\0", 4, 2, EV_PATH_DETACHED);
	ck_assert_str_eq(b, "y/x");
	file_path_join(b, sizeof(b), "x\0y\0", 4, 2, EV_PATH_TRUNCATED);
	ck_assert_str_eq(b, ".../y/x");
	/* more names claimed than bytes hold, no terminating NUL */
	file_path_join(b, sizeof(b), "abc", 3, 5, 0);
	ck_assert_str_eq(b, "/abc");
	/* a buffer too small: cut, terminated */
	file_path_join(b, 5, "abcdef\0", 7, 1, 0);
	ck_assert_str_eq(b, "/abc");
}
END_TEST

/* Every path reason, each from the events that decide it. */
START_TEST(test_path_reasons)
{
	static const struct {
		uint64_t ud;
		enum req_path_reason want;
	} cases[] = {
		{ 1, PR_NONE }, { 2, PR_SQE_ASYNC }, { 3, PR_POLL_ARMED },
		{ 4, PR_IOWQ_AFTER_EAGAIN }, { 5, PR_IOWQ_NO_NOWAIT }, { 6, PR_IOWQ_NO_NOWAIT },
		{ 7, PR_SQE_ASYNC }, { 8, PR_DRAIN }, { 9, PR_DRAIN }, { 10, PR_NONE },
		{ 11, PR_LINK }, { 12, PR_TW_AFTER_POLL }, { 13, PR_TW_AFTER_COMPLETION },
		{ 14, PR_NONE }, { 15, PR_UNKNOWN }, { 16, PR_POLL_ARMED },
	};
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "reasons.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, TID2, PID, "app2", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, WORKER, PID, "iou-wrk-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 1 * US, TID, PID, RING, 3, 16, 1, 1);
	/* 1: inline */
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xe1, OP_NOP, 1, 0, 0);
	ev_complete(&sc, T0 + 3 * US, TID, PID, RING, 0xe1, 1, 0, 0);
	/* 2: IOSQE_ASYNC */
	ev_submit(&sc, T0 + 4 * US, TID, PID, RING, 0xe2, OP_READ, 2, IOSQE_ASYNC, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 5 * US, TID, PID, RING, 0xe2, 2);
	/* 3: -EAGAIN on a pollable file */
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0xe3, OP_READ, 3, 0, 0);
	ev_req(&sc, EV_POLL_ARM, T0 + 7 * US, TID, PID, RING, 0xe3, 3);
	/* 4: -EAGAIN, not pollable: io-wq */
	ev_submit(&sc, T0 + 8 * US, TID, PID, RING, 0xe4, OP_READ, 4, 0, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 9 * US, TID, PID, RING, 0xe4, 4);
	/* 5: FSYNC has no non-blocking path */
	ev_submit(&sc, T0 + 10 * US, TID, PID, RING, 0xe5, 3 /* FSYNC */, 5, 0, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 11 * US, TID, PID, RING, 0xe5, 5);
	/* 6: the prep forced async (REQ_F_FORCE_ASYNC, the SQE did not ask) */
	ev_submit_forced(&sc, T0 + 12 * US, 0xe6, 18 /* OPENAT */, 6, true);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 13 * US, TID, PID, RING, 0xe6, 6);
	/* 7: the same without the SQE read: taken for IOSQE_ASYNC */
	ev_submit_forced(&sc, T0 + 14 * US, 0xe7, 18 /* OPENAT */, 7, false);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, T0 + 15 * US, TID, PID, RING, 0xe7, 7);
	/* 8: drained; 9: drained and IOSQE_ASYNC: the drain held it first */
	ev_submit(&sc, T0 + 16 * US, TID, PID, RING, 0xe8, OP_READ, 8, IOSQE_IO_DRAIN, 0);
	ev_req(&sc, EV_DEFER, T0 + 17 * US, TID, PID, RING, 0xe8, 8);
	ev_submit(&sc, T0 + 18 * US, TID, PID, RING, 0xe9, OP_READ, 9,
		  IOSQE_IO_DRAIN | IOSQE_ASYNC, 0);
	ev_req(&sc, EV_DEFER, T0 + 19 * US, TID, PID, RING, 0xe9, 9);
	/* 10 -> 11: the head completes inline, the member later */
	ev_submit(&sc, T0 + 20 * US, TID, PID, RING, 0xea, OP_WRITE, 10, IOSQE_IO_LINK, 0);
	ev_submit(&sc, T0 + 21 * US, TID, PID, RING, 0xeb, OP_WRITE, 11, 0, 0);
	ev_link(&sc, T0 + 21 * US + 1, TID, PID, RING, 0xeb, 0xea);
	ev_complete(&sc, T0 + 22 * US, TID, PID, RING, 0xea, 10, 512, 0);
	/* 12: POLL_ADD, woken: task_add without poll_arm */
	ev_submit(&sc, T0 + 23 * US, TID, PID, RING, 0xec, 6 /* POLL_ADD */, 12, 0, 0);
	/* 13: issued inline, completed later from task work */
	ev_submit(&sc, T0 + 24 * US, TID, PID, RING, 0xed, OP_READ, 13, 0, 0);
	/* 14: failed at init */
	ev_req_failed(&sc, T0 + 25 * US, TID, PID, RING, 0xee, 200, 14, -22);
	ev_complete(&sc, T0 + 26 * US, TID, PID, RING, 0xee, 14, -22, 0);
	/* 15: in flight at the end, nothing seen after submit; 16: armed, in flight */
	ev_submit(&sc, T0 + 27 * US, TID, PID, RING, 0xef, OP_READ, 15, 0, 0);
	ev_submit(&sc, T0 + 28 * US, TID, PID, RING, 0xf0, OP_READ, 16, 0, 0);
	ev_req(&sc, EV_POLL_ARM, T0 + 29 * US, TID, PID, RING, 0xf0, 16);
	ev_cqring_wait(&sc, T0 + 30 * US, TID, PID, RING, 1);
	ev_complete(&sc, T0 + 40 * US, WORKER, PID, RING, 0xe2, 2, 512, 0);
	ev_req(&sc, EV_TASK_ADD, T0 + 41 * US, 0, 0, RING, 0xe3, 3);
	ev_complete(&sc, T0 + 42 * US, TID, PID, RING, 0xe3, 3, 512, 0);
	ev_complete(&sc, T0 + 43 * US, WORKER, PID, RING, 0xe4, 4, 512, 0);
	ev_complete(&sc, T0 + 44 * US, WORKER, PID, RING, 0xe5, 5, 0, 0);
	ev_complete(&sc, T0 + 45 * US, WORKER, PID, RING, 0xe6, 6, 7, 0);
	ev_complete(&sc, T0 + 46 * US, WORKER, PID, RING, 0xe7, 7, 8, 0);
	ev_complete(&sc, T0 + 47 * US, TID, PID, RING, 0xe8, 8, 512, 0);
	ev_complete(&sc, T0 + 48 * US, TID, PID, RING, 0xe9, 9, 512, 0);
	ev_complete(&sc, T0 + 49 * US, TID, PID, RING, 0xeb, 11, 512, 0);
	ev_req(&sc, EV_TASK_ADD, T0 + 50 * US, 0, 0, RING, 0xec, 12);
	ev_complete(&sc, T0 + 51 * US, TID, PID, RING, 0xec, 12, 1, 0);
	ev_complete(&sc, T0 + 52 * US, TID, PID, RING, 0xed, 13, 512, 0);
	ev_tw_run(&sc, T0 + 53 * US, TID, PID, 8);
	ev_enter_end(&sc, T0 + 54 * US, TID, PID, RING, 16);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 16);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct model_request *r = req_by_ud(c, cases[i].ud);

		ck_assert_msg(r->path_reason == cases[i].want, "user_data %llu: %s, want %s",
			      (unsigned long long)cases[i].ud, path_reason_name(r->path_reason),
			      path_reason_name(cases[i].want));
	}
	ck_assert_int_eq(req_by_ud(c, 13)->path, PATH_TASK_WORK);
	ck_assert_int_eq(req_by_ud(c, 15)->status, REQ_IN_FLIGHT_AT_END);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

START_TEST(test_poll_iopoll_failed_drained)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "paths.log");
	/* poll */
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xc1, 27, 1, 0, 0);
	ev_req(&sc, EV_POLL_ARM, T0 + 2 * US, TID, PID, RING, 0xc1, 1);
	ev_req(&sc, EV_TASK_ADD, T0 + 9 * US, 0, 0, RING, 0xc1, 1);
	ev_complete(&sc, T0 + 10 * US, TID, PID, RING, 0xc1, 1, 10, 0);
	/* iopoll ring */
	ev_create(&sc, T0 + 20 * US, TID, PID, RING2, 7, 1);
	ev_submit(&sc, T0 + 21 * US, TID, PID, RING2, 0xc2, OP_READ, 2, 0, 0);
	ev_complete(&sc, T0 + 25 * US, TID, PID, RING2, 0xc2, 2, 512, 0);
	/* failed at submission */
	ev_req_failed(&sc, T0 + 30 * US, TID, PID, RING, 0xc3, 200, 3, -22);
	ev_complete(&sc, T0 + 31 * US, TID, PID, RING, 0xc3, 3, -22, 0);
	/* drained */
	ev_submit(&sc, T0 + 40 * US, TID, PID, RING, 0xc4, OP_NOP, 4, 2, 0);
	ev_req(&sc, EV_DEFER, T0 + 41 * US, TID, PID, RING, 0xc4, 4);
	ev_complete(&sc, T0 + 45 * US, TID2, PID, RING, 0xc4, 4, 0, 0);
	c = run(&sc);

	r = req_by_ud(c, 1);
	ck_assert_int_eq(r->path, PATH_POLL);
	ck_assert_uint_eq(r->poll_arm_ts, T0 + 2 * US);
	ck_assert_uint_eq(r->task_add_ts, T0 + 9 * US);
	r = req_by_ud(c, 2);
	ck_assert_int_eq(r->path, PATH_IOPOLL);
	ck_assert_uint_eq(req_ring(c, r)->number, 2);
	ck_assert(req_ring(c, r)->created_seen);
	ck_assert_int_eq(req_ring(c, r)->fd, 7);
	r = req_by_ud(c, 3);
	ck_assert_int_eq(r->path, PATH_FAILED);
	ck_assert_int_eq(r->init_error, -22);
	ck_assert_int_eq(r->res, -22);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_uint_eq(count_markers(c, MARK_REQ_FAILED), 1);
	r = req_by_ud(c, 4);
	ck_assert(r->modifiers & REQM_DRAINED);
	ck_assert_int_eq(r->path, PATH_TASK_WORK);
	ck_assert_uint_eq(r->defer_ts, T0 + 41 * US);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* A chain A -> B -> C where A fails: B and C are cancelled (-ECANCELED).
 * The link events use the 6.18 convention (target = previous member). */
static void chain_test(bool target_is_head)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *a, *b, *d;

	scen_open(&sc, "link.log");
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xd1, OP_WRITE, 1, IOSQE_IO_LINK, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xd2, OP_WRITE, 2, IOSQE_IO_LINK, 0);
	ev_link(&sc, T0 + 2 * US + 1, TID, PID, RING, 0xd2, 0xd1);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xd3, OP_WRITE, 3, 0, 0);
	ev_link(&sc, T0 + 3 * US + 1, TID, PID, RING, 0xd3, target_is_head ? 0xd1 : 0xd2);
	ev_complete(&sc, T0 + 10 * US, TID, PID, RING, 0xd1, 1, -5, 0);
	ev_fail_link(&sc, T0 + 11 * US, TID, PID, RING, 0xd1, 0xd2);
	ev_fail_link(&sc, T0 + 11 * US + 1, TID, PID, RING, 0xd1, 0xd3);
	ev_complete(&sc, T0 + 12 * US, TID, PID, RING, 0xd2, 2, -125, 0);
	ev_complete(&sc, T0 + 13 * US, TID, PID, RING, 0xd3, 3, -125, 0);
	c = run(&sc);

	a = req_by_ud(c, 1);
	b = req_by_ud(c, 2);
	d = req_by_ud(c, 3);
	ck_assert_uint_eq(a->chain_id, a->id);
	ck_assert_uint_eq(b->chain_id, a->id);
	ck_assert_uint_eq(d->chain_id, a->id);
	ck_assert_uint_eq(a->chain_pos, 0);
	ck_assert_uint_eq(b->chain_pos, 1);
	ck_assert_uint_eq(d->chain_pos, 2);
	ck_assert_uint_eq(a->link_next, b->id);
	ck_assert_uint_eq(b->link_prev, a->id);
	ck_assert_uint_eq(b->link_next, d->id);
	ck_assert_uint_eq(d->link_prev, b->id);
	ck_assert(a->modifiers & REQM_LINK_FAILED);
	ck_assert(b->modifiers & REQM_LINK_CANCELLED);
	ck_assert(d->modifiers & REQM_LINK_CANCELLED);
	ck_assert(!(a->modifiers & REQM_LINK_CANCELLED));
	ck_assert_int_eq(b->res, -125);
	ck_assert_uint_eq(b->fail_link_ts, T0 + 11 * US);
	ck_assert_uint_eq(count_markers(c, MARK_LINK_FAILED), 1);
	capture_free(c);
	scen_free(&sc);
}

START_TEST(test_link_chain_failure) { chain_test(false); }
END_TEST
START_TEST(test_link_chain_failure_6_1) { chain_test(true); }
END_TEST

/* The kernel reuses request pointers: a new submit closes the old one. */
START_TEST(test_pointer_reuse)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "reuse.log");
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0xe1, OP_READ, 1, 0, 0);
	ev_complete(&sc, T0 + 2 * US, TID, PID, RING, 0xe1, 1, 1, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xe1, OP_READ, 2, 0, 0);	/* reused */
	ev_submit(&sc, T0 + 4 * US, TID, PID, RING, 0xe1, OP_READ, 3, 0, 0);	/* completion of 2 missing */
	ev_complete(&sc, T0 + 5 * US, TID, PID, RING, 0xe1, 3, 3, 0);
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0xe1, OP_NOP, 4, IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 7 * US, TID, PID, RING, 0xe1, OP_NOP, 5, 0, 0);
	ev_complete(&sc, T0 + 8 * US, TID, PID, RING, 0xe1, 5, 0, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 5);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 2)->status, REQ_INCOMPLETE);
	ck_assert_int_eq(req_by_ud(c, 2)->incomplete_reason, INCOMPLETE_POINTER_REUSED);
	ck_assert_int_eq(req_by_ud(c, 3)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 3)->res, 3);
	ck_assert_int_eq(req_by_ud(c, 4)->status, REQ_COMPLETE);
	ck_assert(req_by_ud(c, 4)->modifiers & REQM_CQE_SKIPPED);
	ck_assert_uint_eq(req_by_ud(c, 4)->complete_ts, 0);
	for (size_t i = 0; i < c->nreq; i++)
		for (size_t k = i + 1; k < c->nreq; k++)
			ck_assert_uint_ne(c->req[i].id, c->req[k].id);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Loss windows: a request spanning one is incomplete, never guessed; a
 * completion without submit is in flight at start only when no loss could
 * explain the missing submit. */
START_TEST(test_losses)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "loss.log");
	ev_complete(&sc, T0 + 1 * US, TID, PID, RING, 0xf0, 100, 0, 0);	/* before any loss */
	ev_enter_begin(&sc, T0 + 1 * US + 500, TID2, PID, RING, 3, 0, 1, 1);	/* spans the loss */
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xf1, OP_READ, 1, 0, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xf2, OP_READ, 2, 0, 0);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0xf2, 2, 0, 0);	/* before the loss */
	sc.cpu = 1;
	ev_lost(&sc, T0 + 10 * US, T0 + 20 * US, 7);
	sc.cpu = 0;
	ev_complete(&sc, T0 + 30 * US, TID, PID, RING, 0xf1, 1, 0, 0);	/* spans the loss */
	ev_enter_end(&sc, T0 + 30 * US + 500, TID2, PID, RING, 0);
	ev_enter_begin(&sc, T0 + 32 * US, TID2, PID, RING, 3, 0, 1, 1);	/* after it */
	ev_enter_end(&sc, T0 + 33 * US, TID2, PID, RING, 0);
	ev_complete(&sc, T0 + 31 * US, TID, PID, RING, 0xf3, 3, 0, 0);	/* submit lost? */
	ev_submit(&sc, T0 + 40 * US, TID, PID, RING, 0xf4, OP_READ, 4, 0, 0);
	ev_complete(&sc, T0 + 41 * US, TID, PID, RING, 0xf4, 4, 0, 0);	/* after it: fine */
	ev_submit(&sc, T0 + 50 * US, TID, PID, RING, 0xf5, OP_READ, 5, 0, 0);	/* open at end */
	c = run(&sc);

	ck_assert_int_eq(req_by_ud(c, 100)->status, REQ_IN_FLIGHT_AT_START);
	ck_assert_int_eq(req_by_ud(c, 100)->path, PATH_UNKNOWN);
	ck_assert_int_eq(req_by_ud(c, 2)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_INCOMPLETE);
	ck_assert_int_eq(req_by_ud(c, 1)->incomplete_reason, INCOMPLETE_LOSS);
	ck_assert_int_eq(req_by_ud(c, 1)->path, PATH_UNKNOWN);
	ck_assert_int_eq(req_by_ud(c, 3)->status, REQ_INCOMPLETE);
	ck_assert_int_eq(req_by_ud(c, 4)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 5)->status, REQ_IN_FLIGHT_AT_END);
	ck_assert_uint_eq(c->nloss, 1);
	ck_assert_uint_eq(c->loss[0].cpu, 1);
	ck_assert_uint_eq(c->loss[0].count, 7);
	ck_assert_uint_eq(c->loss[0].first_ts, T0 + 10 * US);
	ck_assert_uint_eq(c->loss[0].last_ts, T0 + 20 * US);
	ck_assert_int_eq(c->loss[0].source, LOSS_KERNEL);
	ck_assert_uint_eq(c->nsys, 2);
	ck_assert(c->sys[0].events_lost);
	ck_assert(!c->sys[1].events_lost);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* A frame whose payload is damaged: skipped, reported, a loss window. */
START_TEST(test_damaged_frame)
{
	struct scen sc;
	struct capture *c;
	unsigned char *buf;
	size_t size, pos = 0;

	scen_open(&sc, "damaged.log");
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x11, OP_READ, 1, 0, 0);
	synth_flush(sc.s);
	sc.cpu = 1;
	for (int i = 0; i < 50; i++)
		ev_submit(&sc, T0 + (10 + (uint64_t)i) * US, TID2, PID, RING, 0x1000 + (uint64_t)i,
			  OP_NOP, 1000 + (uint64_t)i, 0, 0);
	synth_flush(sc.s);
	sc.cpu = 0;
	ev_complete(&sc, T0 + 100 * US, TID, PID, RING, 0x11, 1, 0, 0);
	scen_finish(&sc);
	/* Damage the last byte of the payload of the CPU 1 frame: find the
	 * second EVENTS frame by walking to its largest payload. */
	buf = test_read_file(sc.path, &size);
	{
		struct log_reader *r;
		struct log_frame f;
		char msg[LOG_MSG_LEN];

		ck_assert_int_eq(log_reader_open(&r, sc.path, msg, sizeof(msg)), 0);
		while (log_reader_next(r, &f))
			if (f.h.type == LOG_FRAME_EVENTS && f.h.stream == 1)
				pos = f.payload_offset + f.h.stored_size / 2;
		log_reader_close(r);
	}
	ck_assert_uint_gt(pos, 0);
	buf[pos] ^= 0x55;
	test_write_file(sc.path, buf, size);
	free(buf);
	c = convert_capture(sc.path, NULL);
	ck_assert_uint_eq(c->nloss, 1);
	ck_assert_int_eq(c->loss[0].source, LOSS_DAMAGED_FRAME);
	ck_assert_uint_eq(c->loss[0].cpu, 1);
	ck_assert_uint_eq(c->loss[0].count, 50);
	ck_assert_uint_eq(c->loss[0].first_ts, T0 + 10 * US);
	ck_assert_uint_eq(c->loss[0].last_ts, T0 + 59 * US);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_INCOMPLETE);
	ck_assert_ptr_nonnull(strstr(c->warnings, "checksum"));
	ck_assert_ptr_nonnull(strstr(c->warnings, "CPU 1"));
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Truncated logs convert up to the damage with a warning. */
START_TEST(test_truncated)
{
	struct scen sc;
	struct capture *c;
	unsigned char *buf;
	size_t size;

	scen_open(&sc, "cut.log");
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x11, OP_READ, 1, 0, 0);
	ev_complete(&sc, T0 + 2 * US, TID, PID, RING, 0x11, 1, 0, 0);
	synth_flush(sc.s);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x12, OP_READ, 2, 0, 0);
	scen_finish(&sc);
	buf = test_read_file(sc.path, &size);
	/* Cut only the trailing INDEX frame: the END frame says the recorder
	 * stopped cleanly, nothing is lost. */
	test_write_file(sc.path, buf, size - 30);
	c = convert_capture(sc.path, NULL);
	ck_assert_int_eq(req_by_ud(c, 2)->status, REQ_IN_FLIGHT_AT_END);
	ck_assert_uint_eq(c->nloss, 0);
	capture_free(c);
	/* Cut inside the END frame: the recorder did not stop cleanly. */
	{
		struct log_reader *r;
		struct log_frame f;
		char msg[LOG_MSG_LEN];
		uint64_t end_at = 0;

		ck_assert_int_eq(log_reader_open(&r, sc.path, msg, sizeof(msg)), 0);
		while (log_reader_next(r, &f))
			if (f.h.type == LOG_FRAME_END)
				end_at = f.offset;
		log_reader_close(r);
		ck_assert_uint_gt(end_at, 0);
		test_write_file(sc.path, buf, end_at + 20);
	}
	free(buf);
	c = convert_capture(sc.path, NULL);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_COMPLETE);
	/* Open when the log was cut: its completion may be in the lost tail. */
	ck_assert_int_eq(req_by_ud(c, 2)->status, REQ_INCOMPLETE);
	ck_assert_int_eq(req_by_ud(c, 2)->incomplete_reason, INCOMPLETE_LOSS);
	ck_assert_uint_eq(c->nloss, 1);
	ck_assert_int_eq(c->loss[0].source, LOSS_LOG_CUT);
	ck_assert_uint_eq(c->loss[0].cpu, 0);
	ck_assert_uint_eq(c->loss[0].first_ts, T0 + 3 * US + 1);
	ck_assert_ptr_nonnull(strstr(c->warnings, "truncated"));
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Two processes, nested threads, several rings per process. */
START_TEST(test_threads_and_rings)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "rings.log");
	ev_task(&sc, T0, 100, 100, "db", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 101, 100, "db-io", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 200, 200, "web", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, 100, 100, 0xa000, 4, 0);
	ev_create(&sc, T0 + 2 * US, 101, 100, 0xb000, 5, 0);
	ev_submit(&sc, T0 + 3 * US, 101, 100, 0xa000, 0x1, OP_READ, 1, 0, 0);
	ev_submit(&sc, T0 + 4 * US, 101, 100, 0xb000, 0x1, OP_READ, 2, 0, 0);
	ev_submit(&sc, T0 + 5 * US, 200, 200, 0xc000, 0x1, OP_READ, 3, 0, 0);
	ev_complete(&sc, T0 + 6 * US, 101, 100, 0xa000, 0x1, 1, 0, 0);
	ev_complete(&sc, T0 + 7 * US, 101, 100, 0xb000, 0x1, 2, 0, 0);
	ev_complete(&sc, T0 + 8 * US, 200, 200, 0xc000, 0x1, 3, 0, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nrings, 3);
	ck_assert_uint_eq(c->rings[0].ring_id, 0xa000);
	ck_assert_uint_eq(c->rings[1].ring_id, 0xb000);
	ck_assert_uint_eq(c->rings[2].ring_id, 0xc000);
	ck_assert_uint_eq(c->rings[1].pid, 100);
	ck_assert_uint_eq(c->rings[1].tid, 101);
	ck_assert_uint_eq(c->rings[2].pid, 200);
	ck_assert(!c->rings[2].created_seen);
	/* Same request pointer on three rings: three requests. */
	ck_assert_uint_eq(c->nreq, 3);
	ck_assert_uint_eq(req_ring(c, req_by_ud(c, 2))->number, 2);
	ck_assert_uint_eq(req_by_ud(c, 2)->submit_tid, 101);
	ck_assert_uint_eq(req_by_ud(c, 2)->submit_pid, 100);
	ck_assert_uint_eq(c->ntasks, 3);
	ck_assert_str_eq(c->tasks[1].comm, "db-io");
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* SQPOLL: the application only wakes the thread; submissions come from it. */
START_TEST(test_sqpoll)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "sqpoll.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, SQTHREAD, PID, "iou-sqp-100", EV_PF_IO_WORKER, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 4, 2);
	ev_enter_begin(&sc, T0 + 2 * US, TID, PID, RING, 4, 0, 0, 2 /* SQ_WAKEUP */);
	ev_enter_end(&sc, T0 + 3 * US, TID, PID, RING, 0);
	ev_submit(&sc, T0 + 5 * US, SQTHREAD, PID, RING, 0x31, OP_NOP, 1, 0, EVF_SQ_THREAD);
	ev_complete(&sc, T0 + 6 * US, SQTHREAD, PID, RING, 0x31, 1, 0, 0);
	ev_submit(&sc, T0 + 7 * US, SQTHREAD, PID, RING, 0x32, OP_READ, 2, 0, EVF_SQ_THREAD);
	ev_tw_run(&sc, T0 + 8 * US, SQTHREAD, PID, 0);
	ev_complete(&sc, T0 + 20 * US, SQTHREAD, PID, RING, 0x32, 2, 512, 0);
	ev_tw_run(&sc, T0 + 21 * US, SQTHREAD, PID, 1);
	c = run(&sc);

	r = req_by_ud(c, 1);
	ck_assert(r->modifiers & REQM_SQPOLL);
	ck_assert_int_eq(r->path, PATH_INLINE);
	ck_assert_uint_eq(r->submit_syscall, 0);
	ck_assert_int_eq(req_by_ud(c, 2)->path, PATH_TASK_WORK);
	ck_assert_uint_eq(c->rings[0].sqpoll_tid, SQTHREAD);
	ck_assert_uint_eq(c->rings[0].pid, PID);
	ck_assert_uint_eq(c->nsys, 1);
	ck_assert_uint_eq(c->sys[0].submitted, 0);
	ck_assert_uint_eq(c->sys[0].enter_flags, 2);
	for (size_t i = 0; i < c->ntasks; i++)
		if (c->tasks[i].tid == SQTHREAD)
			ck_assert_int_eq(c->tasks[i].kind, TASK_SQPOLL);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Multishot CQEs, aux CQEs (req 0), CQ overflow. */
START_TEST(test_cqes)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "cqe.log");
	ev_submit(&sc, T0 + 1 * US, TID, PID, RING, 0x41, 13 /* ACCEPT */, 1, 0, 0);
	ev_complete(&sc, T0 + 2 * US, TID, PID, RING, 0x41, 1, 7, CQE_F_MORE);
	ev_complete(&sc, T0 + 3 * US, TID, PID, RING, 0x41, 1, 8, CQE_F_MORE);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0x41, 1, -125, 0);
	ev_complete(&sc, T0 + 5 * US, TID, PID, RING, 0, 99, 0, 0);	/* MSG_RING target */
	/* Since 6.10 multishot CQEs come through io_fill_cqe_aux(): no req. */
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0x45, 6 /* POLL_ADD */, 9, 0, 0);
	ev_complete(&sc, T0 + 7 * US, TID, PID, RING, 0, 9, 1, CQE_F_MORE);
	ev_complete(&sc, T0 + 8 * US, TID, PID, RING, 0, 9, 1, CQE_F_MORE);
	ev_complete(&sc, T0 + 9 * US, TID, PID, RING, 0x45, 9, -125, 0);
	/* The overflow is the completion. */
	ev_submit(&sc, T0 + 10 * US, TID, PID, RING, 0x42, OP_NOP, 2, 0, 0);
	ev_submit(&sc, T0 + 11 * US, TID, PID, RING, 0x43, OP_NOP, 2, 0, 0);
	ev_overflow(&sc, T0 + 12 * US, TID, PID, RING, 2, 0, false);
	ev_overflow(&sc, T0 + 13 * US, TID, PID, RING, 2, 0, true);
	c = run(&sc);

	r = req_by_ud(c, 1);
	ck_assert(r->modifiers & REQM_MULTISHOT);
	ck_assert_uint_eq(r->ncqes, 3);
	ck_assert_uint_eq(r->first_cqe_ts, T0 + 2 * US);
	ck_assert_uint_eq(r->complete_ts, T0 + 4 * US);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_uint_eq(c->ncqe, 5);	/* 2 + 2 F_MORE, one aux */
	ck_assert_ptr_null(c->cqe[2].request);
	ck_assert_uint_eq(c->cqe[2].user_data, 99);
	ck_assert_ptr_nonnull(c->cqe[3].request);
	r = req_by_ud(c, 9);
	ck_assert(r->modifiers & REQM_MULTISHOT);
	ck_assert_uint_eq(r->ncqes, 3);
	ck_assert_uint_eq(r->first_cqe_ts, T0 + 7 * US);
	/* Oldest open request with user_data 2 first. */
	ck_assert_uint_eq(c->nreq, 4);
	for (size_t i = 0; i < c->nreq; i++) {
		if (c->req[i].req_ptr == 0x42) {
			ck_assert(c->req[i].modifiers & REQM_CQ_OVERFLOW);
			ck_assert(!(c->req[i].modifiers & REQM_CQE_DROPPED));
			ck_assert_uint_eq(c->req[i].complete_ts, T0 + 12 * US);
		}
		if (c->req[i].req_ptr == 0x43) {
			ck_assert(c->req[i].modifiers & REQM_CQE_DROPPED);
			ck_assert_uint_eq(c->req[i].complete_ts, T0 + 13 * US);
		}
	}
	ck_assert_uint_eq(count_markers(c, MARK_CQE_OVERFLOW), 1);
	ck_assert_uint_eq(count_markers(c, MARK_CQE_DROPPED), 1);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * Nine NOPs with one user_data into a CQ ring of eight, all nine CQEs
 * reaped (then the same for a multishot's final CQE): eight completes, then the ninth CQE overflows.  complete fires
 * only for a CQE that got a slot (io_fill_cqe_req(), 6.1 .. 6.18), so the
 * overflow right after the eighth complete, on the same thread with the
 * same user_data, is the ninth request's CQE, not a mark on the eighth.
 */
START_TEST(test_overflow_after_complete_is_another_cqe)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "overflow_nine.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_enter_begin(&sc, T0 + 2 * US, TID, PID, RING, 5, 9, 0, 0);
	for (unsigned i = 0; i < 9; i++)
		ev_submit(&sc, T0 + (3 + i) * US, TID, PID, RING, 0x500 + i, OP_NOP, 77, 0, 0);
	for (unsigned i = 0; i < 8; i++)
		ev_complete(&sc, T0 + (20 + i) * US, TID, PID, RING, 0x500 + i, 77, 0, 0);
	ev_overflow(&sc, T0 + 28 * US, TID, PID, RING, 77, 0, false);
	ev_enter_end(&sc, T0 + 30 * US, TID, PID, RING, 9);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 9);
	for (size_t i = 0; i < c->nreq; i++) {
		const struct model_request *r = &c->req[i];

		ck_assert_int_eq(r->status, REQ_COMPLETE);
		ck_assert_uint_eq(r->ncqes, 1);
		if (r->req_ptr == 0x508) {
			ck_assert(r->modifiers & REQM_CQ_OVERFLOW);
			ck_assert_uint_eq(r->complete_ts, T0 + 28 * US);
		} else {
			ck_assert(!(r->modifiers & REQM_CQ_OVERFLOW));
		}
	}
	ck_assert_uint_eq(count_markers(c, MARK_CQE_OVERFLOW), 1);
	capture_free(c);
	scen_free(&sc);

	/* A multishot receive whose final CQE overflows right after its
	 * MORE CQEs (DEFER_TASKRUN flushes them together): it ends there. */
	scen_open(&sc, "overflow_multishot.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0x600, 27 /* RECV */, 5, 0, 0);
	ev_complete(&sc, T0 + 3 * US, TID, PID, RING, 0x600, 5, 100, CQE_F_MORE);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0, 5, 100, CQE_F_MORE);
	ev_overflow(&sc, T0 + 4 * US + 1, TID, PID, RING, 5, 0, false);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 1);
	ck_assert_int_eq(c->req[0].status, REQ_COMPLETE);
	ck_assert_uint_eq(c->req[0].ncqes, 3);
	ck_assert_uint_eq(c->req[0].complete_ts, T0 + 4 * US + 1);
	ck_assert(c->req[0].modifiers & REQM_CQ_OVERFLOW);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * SEND_ZC: the send completes with IORING_CQE_F_MORE (its result), then a
 * kworker posts the notification with the notification's own request
 * pointer, the send's user_data and IORING_CQE_F_NOTIF.  The notification
 * ends the send; it is not a request of its own (a NOP in flight at start
 * on a ring created in the recording).  A request the model still had
 * open at the notification's pointer ended unseen (skipped CQE).  A
 * notification whose send was not seen is a CQE of no request.
 */
START_TEST(test_send_zc_notification)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "send_zc.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_task(&sc, T0, 200, 2, "kworker/0:1", 0x00200000, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0x71, OP_READ, 5, IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x72, 48 /* SENDMSG_ZC */, 9, 0, 0);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0x72, 9, 4096, CQE_F_MORE);
	ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0x73, 47 /* SEND_ZC */, 10, 0, 0);
	ev_complete(&sc, T0 + 6 * US, TID, PID, RING, 0x73, 10, -32, 0);	/* no notif */
	ev_complete(&sc, T0 + 9 * US, 200, 2, RING, 0x71, 9, 0, CQE_F_NOTIF);
	/* A notification whose send was not seen is no request either. */
	ev_complete(&sc, T0 + 10 * US, 200, 2, RING, 0x74, 11, 0, CQE_F_NOTIF);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 3);
	ck_assert_uint_eq(c->ncqe, 2);	/* the send's F_MORE CQE, the lone notification */
	ck_assert_ptr_null(c->cqe[1].request);
	ck_assert_uint_eq(c->cqe[1].user_data, 11);
	r = req_by_ud(c, 9);
	ck_assert_int_eq(r->opcode, 48);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_uint_eq(r->ncqes, 2);
	ck_assert_uint_eq(r->first_cqe_ts, T0 + 4 * US);
	ck_assert_uint_eq(r->complete_ts, T0 + 9 * US);
	ck_assert_uint_eq(r->complete_tid, 200);
	ck_assert_int_eq(r->res, 4096);
	r = req_by_ud(c, 10);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_int_eq(r->res, -32);
	r = req_by_ud(c, 5);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert(r->modifiers & REQM_CQE_SKIPPED);
	for (size_t i = 0; i < c->nreq; i++)
		ck_assert_int_ne(c->req[i].status, REQ_IN_FLIGHT_AT_START);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * IOSQE_CQE_SKIP_SUCCESS requests that succeed leave no event at all.  A
 * lone plain NOP completes within its submission pass; members of a chain
 * have finished when a later member posts its CQE, and a LINK_TIMEOUT
 * when the member it guards did.
 */
START_TEST(test_cqe_skip_success)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "skip.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_enter_begin(&sc, T0 + 2 * US, TID, PID, RING, 5, 5, 0, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x81, OP_NOP, 1, IOSQE_CQE_SKIP, 0);
	/* NOP(skip) -> LINK_TIMEOUT(skip) -> NOP(skip) -> NOP -> LINK_TIMEOUT(skip) */
	ev_submit(&sc, T0 + 4 * US, TID, PID, RING, 0x82, OP_NOP, 2,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0x83, 15, 3, IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 5 * US + 1, TID, PID, RING, 0x83, 0x82);
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0x84, OP_NOP, 4,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 6 * US + 1, TID, PID, RING, 0x84, 0x83);
	ev_submit(&sc, T0 + 7 * US, TID, PID, RING, 0x85, OP_READ, 5, IOSQE_IO_LINK, 0);
	ev_link(&sc, T0 + 7 * US + 1, TID, PID, RING, 0x85, 0x84);
	ev_submit(&sc, T0 + 8 * US, TID, PID, RING, 0x86, 15, 6, IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 8 * US + 1, TID, PID, RING, 0x86, 0x85);
	ev_enter_end(&sc, T0 + 9 * US, TID, PID, RING, 5);
	ev_complete(&sc, T0 + 20 * US, TID, PID, RING, 0x85, 5, 512, 0);
	/* A read with the flag and no later proof stays in flight. */
	ev_submit(&sc, T0 + 30 * US, TID, PID, RING, 0x87, OP_READ, 7, IOSQE_CQE_SKIP, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 7);
	for (uint64_t ud = 1; ud <= 6; ud++) {
		r = req_by_ud(c, ud);
		ck_assert_int_eq(r->status, REQ_COMPLETE);
		if (ud == 5) {
			ck_assert(!(r->modifiers & REQM_CQE_SKIPPED));
			continue;
		}
		ck_assert(r->modifiers & REQM_CQE_SKIPPED);
		ck_assert_uint_eq(r->complete_ts, 0);
	}
	ck_assert_int_eq(req_by_ud(c, 1)->path, PATH_INLINE);
	ck_assert_int_eq(req_by_ud(c, 7)->status, REQ_IN_FLIGHT_AT_END);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * A LINK_TIMEOUT that fires (-ETIME) before the member it guards: that
 * member is being cancelled, not done, and posts its own -ECANCELED CQE
 * after, skip flag or not (liburing's skip-cqe.t, a READ with
 * IO_LINK|ASYNC|CQE_SKIP_SUCCESS guarded by a link timeout).
 */
START_TEST(test_cqe_skip_link_timeout_fired)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "skip_ltimeout.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0x91, OP_READ, 1,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x92, 15, 2, 0, 0);
	ev_link(&sc, T0 + 3 * US + 1, TID, PID, RING, 0x92, 0x91);
	ev_complete(&sc, T0 + 50 * US, TID, PID, RING, 0x92, 2, -62 /* ETIME */, 0);
	ev_complete(&sc, T0 + 51 * US, TID, PID, RING, 0x91, 1, -125, 0);
	/* A WRITE(skip) that fails cancels the NOP(skip) after it and that
	 * NOP's LINK_TIMEOUT(skip) with the chain: the timeout ends at its own
	 * fail_link, not at the failure nor at the NOP's fail_link. */
	ev_submit(&sc, T0 + 60 * US, TID, PID, RING, 0x93, OP_WRITE, 3,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 61 * US, TID, PID, RING, 0x94, OP_NOP, 4,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 61 * US + 1, TID, PID, RING, 0x94, 0x93);
	ev_submit(&sc, T0 + 62 * US, TID, PID, RING, 0x95, 15, 5,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 62 * US + 1, TID, PID, RING, 0x95, 0x94);
	ev_submit(&sc, T0 + 63 * US, TID, PID, RING, 0x96, OP_NOP, 6, 0, 0);
	ev_link(&sc, T0 + 63 * US + 1, TID, PID, RING, 0x96, 0x95);
	ev_complete(&sc, T0 + 70 * US, TID, PID, RING, 0x93, 3, -14, 0);
	ev_fail_link(&sc, T0 + 71 * US, TID, PID, RING, 0x93, 0x94);
	ev_fail_link(&sc, T0 + 72 * US, TID, PID, RING, 0x93, 0x95);
	ev_fail_link(&sc, T0 + 73 * US, TID, PID, RING, 0x93, 0x96);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 6);
	for (uint64_t ud = 4; ud <= 6; ud++) {
		r = req_by_ud(c, ud);
		ck_assert_int_eq(r->status, REQ_COMPLETE);
		ck_assert(r->modifiers & REQM_CQE_SKIPPED);
		ck_assert_uint_ne(r->fail_link_ts, 0);
	}
	r = req_by_ud(c, 1);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert_int_eq(r->res, -125);
	ck_assert(!(r->modifiers & REQM_CQE_SKIPPED));
	ck_assert_uint_eq(r->complete_ts, T0 + 51 * US);
	ck_assert_int_eq(req_by_ud(c, 2)->res, -62);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * A ring freed and its address reused by a new ring: the kernel ended every
 * request of the old one first.  One with IOSQE_CQE_SKIP_SUCCESS and no
 * CQE succeeded (a cancellation would have posted one); one without the
 * flag and no CQE is incomplete.  (liburing's recv-multishot.t: an
 * ASYNC_CANCEL with the flag on each of its rings.)
 */
START_TEST(test_cqe_skip_ring_recreated)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "skip_recreated.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0x71, 14 /* ASYNC_CANCEL */, 1,
		  IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0x72, OP_READ, 2, 0, 0);
	ev_create(&sc, T0 + 9 * US, TID, PID, RING, 6, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 2);
	r = req_by_ud(c, 1);
	ck_assert_int_eq(r->status, REQ_COMPLETE);
	ck_assert(r->modifiers & REQM_CQE_SKIPPED);
	r = req_by_ud(c, 2);
	ck_assert_int_eq(r->status, REQ_INCOMPLETE);
	ck_assert_int_eq(r->incomplete_reason, INCOMPLETE_RING_RECREATED);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * A chain of six (0..4 with IO_LINK and CQE_SKIP_SUCCESS, 5 plain) whose
 * fourth member fails, on an io-wq worker: req_set_fail() turned its
 * REQ_F_CQE_SKIP into REQ_F_SKIP_LINK_CQES, so io_fail_links() sets
 * REQ_F_CQE_SKIP on the members it cancels: 4 and 5 end at their
 * fail_link, without a CQE, even 5 that had no flag.  Their pointers are
 * then reused: that is no sign of a missing event.
 */
START_TEST(test_cqe_skip_failed_link)
{
	struct scen sc;
	struct capture *c;
	const struct model_request *r;

	scen_open(&sc, "skip_fail.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_create(&sc, T0 + 1 * US, TID, PID, RING, 5, 0);
	for (unsigned i = 0; i < 6; i++) {
		ev_submit(&sc, T0 + (2 + i) * US, TID, PID, RING, 0x90 + i,
			  i == 3 ? OP_WRITE : OP_NOP, i,
			  i < 5 ? IOSQE_IO_LINK | IOSQE_CQE_SKIP : 0, 0);
		if (i)
			ev_link(&sc, T0 + (2 + i) * US + 1, TID, PID, RING, 0x90 + i, 0x8f + i);
	}
	ev_complete(&sc, T0 + 20 * US, WORKER, PID, RING, 0x93, 3, -9, 0);
	ev_fail_link(&sc, T0 + 21 * US, WORKER, PID, RING, 0x93, 0x94);
	ev_fail_link(&sc, T0 + 21 * US + 1, WORKER, PID, RING, 0x93, 0x95);
	ev_submit(&sc, T0 + 30 * US, TID, PID, RING, 0x94, OP_READ, 10, 0, 0);
	ev_submit(&sc, T0 + 31 * US, TID, PID, RING, 0x95, OP_READ, 11, 0, 0);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 8);
	for (uint64_t ud = 0; ud < 6; ud++) {
		r = req_by_ud(c, ud);
		ck_assert_int_eq(r->status, REQ_COMPLETE);
		if (ud == 3) {
			ck_assert_int_eq(r->res, -9);
			continue;
		}
		ck_assert(r->modifiers & REQM_CQE_SKIPPED);
		if (ud > 3) {
			ck_assert(r->modifiers & REQM_LINK_CANCELLED);
			ck_assert_uint_eq(r->fail_link_ts, T0 + 21 * US + (ud - 4));
		}
	}
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* The same failure with the failed request still held on its thread
 * (found by pointer), and a failure of a member without the flag, whose
 * cancelled members do get their CQEs (6.1 posts them in io_fail_links()). */
START_TEST(test_cqe_skip_failed_link_held)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "skip_fail_held.log");
	ev_task(&sc, T0, TID, PID, "app", 0, EV_TASK_EXISTING);
	ev_enter_begin(&sc, T0 + 1 * US, TID, PID, RING, 5, 3, 0, 0);
	ev_submit(&sc, T0 + 2 * US, TID, PID, RING, 0xa1, OP_WRITE, 1,
		  IOSQE_IO_LINK | IOSQE_CQE_SKIP, 0);
	ev_submit(&sc, T0 + 3 * US, TID, PID, RING, 0xa2, OP_NOP, 2, 0, 0);
	ev_link(&sc, T0 + 3 * US + 1, TID, PID, RING, 0xa2, 0xa1);
	ev_complete(&sc, T0 + 4 * US, TID, PID, RING, 0xa1, 1, -9, 0);
	ev_fail_link(&sc, T0 + 5 * US, TID, PID, RING, 0xa1, 0xa2);
	/* no skip on the failed one: the member's CQE follows */
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0xa3, OP_WRITE, 3, IOSQE_IO_LINK, 0);
	ev_submit(&sc, T0 + 7 * US, TID, PID, RING, 0xa4, OP_NOP, 4, IOSQE_CQE_SKIP, 0);
	ev_link(&sc, T0 + 7 * US + 1, TID, PID, RING, 0xa4, 0xa3);
	ev_complete(&sc, T0 + 8 * US, TID, PID, RING, 0xa3, 3, -9, 0);
	ev_fail_link(&sc, T0 + 9 * US, TID, PID, RING, 0xa3, 0xa4);
	ev_complete(&sc, T0 + 9 * US + 1, TID, PID, RING, 0xa4, 4, -125, 0);
	ev_enter_end(&sc, T0 + 10 * US, TID, PID, RING, 3);
	c = run(&sc);

	ck_assert_uint_eq(c->nreq, 4);
	ck_assert_int_eq(req_by_ud(c, 2)->status, REQ_COMPLETE);
	ck_assert(req_by_ud(c, 2)->modifiers & REQM_CQE_SKIPPED);
	ck_assert_int_eq(req_by_ud(c, 4)->status, REQ_COMPLETE);
	ck_assert(!(req_by_ud(c, 4)->modifiers & REQM_CQE_SKIPPED));
	ck_assert_int_eq(req_by_ud(c, 4)->res, -125);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

START_TEST(test_unpaired_syscalls)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "unpaired.log");
	ev_enter_end(&sc, T0 + 1 * US, TID, PID, RING, 0);		/* began before */
	ev_enter_begin(&sc, T0 + 2 * US, TID, PID, RING, 3, 1, 0, 0);
	ev_enter_begin(&sc, T0 + 3 * US, TID, PID, RING, 3, 1, 0, 0);	/* end lost */
	ev_enter_end(&sc, T0 + 4 * US, TID, PID, RING, 1);
	ev_enter_begin(&sc, T0 + 5 * US, TID2, PID, RING, 3, 1, 0, 0);	/* open at end */
	c = run(&sc);

	ck_assert_uint_eq(c->nsys, 1);
	ck_assert_uint_eq(c->sys[0].begin_ts, T0 + 3 * US);
	ck_assert_uint_eq(count_markers(c, MARK_UNPAIRED_SYSCALL), 3);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* --start/--end/--pid/--ring select what is delivered. */
START_TEST(test_selection)
{
	struct scen sc;
	struct capture *c;
	struct options o = { 0 };

	scen_open(&sc, "select.log");
	for (unsigned i = 0; i < 10; i++) {
		uint64_t t = T0 + i * 1000 * US;	/* one request per ms */

		ev_submit(&sc, t, 100 + i % 2, 100 + i % 2, i % 2 ? RING2 : RING, 0x100 + i,
			  OP_NOP, i, 0, 0);
		ev_complete(&sc, t + 10 * US, 100 + i % 2, 100 + i % 2, i % 2 ? RING2 : RING,
			    0x100 + i, i, 0, 0);
	}
	scen_finish(&sc);

	/* Recording start is the synth start snapshot (1 s), T0 is +1 s. */
	ck_assert_int_eq(parse_time_arg("+1.002s", &o.start), 0);
	ck_assert_int_eq(parse_time_arg("1005ms", &o.end), 0);
	c = convert_capture(sc.path, &o);
	ck_assert_uint_eq(c->nreq, 4);	/* i = 2, 3, 4, 5 */
	capture_free(c);

	memset(&o, 0, sizeof(o));
	o.pids[o.npids++] = 101;
	c = convert_capture(sc.path, &o);
	ck_assert_uint_eq(c->nreq, 5);
	capture_free(c);

	memset(&o, 0, sizeof(o));
	o.rings[o.nrings++] = 1;
	c = convert_capture(sc.path, &o);
	ck_assert_uint_eq(c->nreq, 5);
	for (size_t i = 0; i < c->nreq; i++)
		ck_assert_uint_eq(req_ring(c, &c->req[i])->ring_id, RING);
	capture_free(c);

	/* Absolute wall clock: start snapshot is 1700000000 s at boot 1 s. */
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(parse_time_arg("2023-11-14T22:13:21.0085Z", &o.start), 0);
	c = convert_capture(sc.path, &o);
	ck_assert_uint_eq(c->nreq, 1);	/* i = 9 */
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/*
 * One request a millisecond from T0 on thread TID, whose io_uring_enter
 * calls first reap every CQE posted; request 2 completes at +8 ms (so is
 * reaped at +9 ms), and thread TID2 waits in io_uring_enter from +4.2 ms
 * to wait_end.  open_end: request 3 never completes.
 */
static void write_end_log(struct scen *sc, const char *name, uint64_t wait_end, bool open_end)
{
	uint32_t posted = 0;

	scen_open(sc, name);
	for (unsigned i = 0; i < 10; i++) {
		uint64_t t = T0 + i * 1000 * US;

		posted += i == 9;	/* request 2's, at +8 ms */
		ev_enter_cq(sc, true, t, TID, PID, RING, 7, posted, posted);
		ev_submit(sc, t + 1 * US, TID, PID, RING, 0x100 + i, OP_NOP, i, 0, 0);
		ev_enter_end(sc, t + 2 * US, TID, PID, RING, 1);
		if (i == 3 && open_end)
			continue;
		ev_complete(sc, i == 2 ? T0 + 8000 * US : t + 10 * US, TID, PID, RING, 0x100 + i, i,
			    0, 0);
		posted += i != 2;
		if (i == 4)
			ev_enter_cq(sc, true, T0 + 4200 * US, TID2, PID, RING, 7, posted, posted);
	}
	ev_enter_end(sc, wait_end, TID2, PID, RING, 0);
	scen_finish(sc);
}

/* sc converted with o, reading the rest of the log after --end or not. */
static struct capture *convert_end(const struct scen *sc, const struct options *o, bool stop)
{
	struct capture *c;

	convert_stop_after_end = stop;
	c = convert_capture(sc->path, o);
	convert_stop_after_end = true;
	return c;
}

/*
 * --end stops reading once what began by the end is delivered, and
 * delivers the same as reading the whole log.
 */
START_TEST(test_end_stops_reading)
{
	/* the last of the window to be delivered: request 2, reaped at +9 ms,
	 * or TID2's io_uring_enter, which returns at +9.005 ms */
	static const uint64_t wait_end[] = { T0 + 8500 * US, T0 + 9005 * US };
	struct scen sc;
	struct capture *early, *whole;
	struct options o = { 0 };

	ck_assert_int_eq(parse_time_arg("1004500us", &o.end), 0);	/* T0 + 4.5 ms */
	for (size_t k = 0; k < 2; k++) {
		write_end_log(&sc, "end.log", wait_end[k], false);
		early = convert_end(&sc, &o, true);
		whole = convert_end(&sc, &o, false);
		ck_assert_uint_eq(early->nreq, 5);
		ck_assert_uint_eq(whole->nreq, 5);
		for (size_t i = 0; i < early->nreq; i++) {
			ck_assert_uint_eq(early->req[i].user_data, whole->req[i].user_data);
			ck_assert_uint_eq(early->req[i].complete_ts, whole->req[i].complete_ts);
			ck_assert_int_eq(early->req[i].status, whole->req[i].status);
			ck_assert_uint_eq(early->req[i].reaped_ts, whole->req[i].reaped_ts);
		}
		ck_assert_int_eq(req_by_ud(early, 2)->status, REQ_COMPLETE);
		ck_assert_uint_eq(req_by_ud(early, 2)->reaped_ts, T0 + 9000 * US);
		ck_assert_uint_eq(early->nsys, 6);	/* TID's first five, TID2's */
		ck_assert_uint_eq(whole->nsys, 6);
		for (size_t i = 0; i < early->nsys; i++)
			ck_assert_uint_eq(early->sys[i].end_ts, whole->sys[i].end_ts);
		ck_assert_uint_eq(early->ncqe, whole->ncqe);
		ck_assert_uint_eq(early->nmark, whole->nmark);
		ck_assert_uint_eq(early->counters, whole->counters);
		ck_assert_uint_eq(early->nloss, whole->nloss);
		/* the first record after it: request 9's completion, submission */
		ck_assert_uint_eq(early->read_to_ns, T0 + (k ? 9010 : 9001) * US);
		ck_assert_uint_eq(whole->read_to_ns, 0);
		ck_assert_uint_lt(early->records, whole->records);
		capture_free(early);
		capture_free(whole);
		scen_free(&sc);
	}

	/* a request of the window that never completes: read to the end */
	write_end_log(&sc, "end_open.log", wait_end[0], true);
	early = convert_end(&sc, &o, true);
	ck_assert_uint_eq(early->read_to_ns, 0);
	ck_assert_int_eq(req_by_ud(early, 3)->status, REQ_IN_FLIGHT_AT_END);
	capture_free(early);

	/* no --end: read whole */
	memset(&o, 0, sizeof(o));
	early = convert_end(&sc, &o, true);
	ck_assert_uint_eq(early->read_to_ns, 0);
	ck_assert_uint_eq(early->nreq, 10);
	capture_free(early);
	scen_free(&sc);
}
END_TEST

START_TEST(test_time_args)
{
	struct time_arg t;

	ck_assert_int_eq(parse_time_arg("+1.5s", &t), 0);
	ck_assert_int_eq(t.rel_ns, 1500000000);
	ck_assert_int_eq(parse_time_arg("500ms", &t), 0);
	ck_assert_int_eq(t.rel_ns, 500000000);
	ck_assert_int_eq(parse_time_arg("2", &t), 0);
	ck_assert_int_eq(t.rel_ns, 2000000000);
	ck_assert_int_eq(parse_time_arg("750us", &t), 0);
	ck_assert_int_eq(t.rel_ns, 750000);
	ck_assert_int_eq(parse_time_arg("3min", &t), 0);
	ck_assert_int_eq(t.rel_ns, 180000000000);
	ck_assert_int_eq(parse_time_arg("2023-11-14T22:13:20Z", &t), 0);
	ck_assert(t.absolute);
	ck_assert_int_eq(t.real_ns, 1700000000000000000);
	ck_assert_int_eq(parse_time_arg("2023-11-14T23:13:20.5+01:00", &t), 0);
	ck_assert_int_eq(t.real_ns, 1700000000500000000);
	ck_assert_int_eq(parse_time_arg("-1s", &t), -1);
	ck_assert_int_eq(parse_time_arg("1 s", &t), -1);
	ck_assert_int_eq(parse_time_arg("1parsec", &t), -1);
	ck_assert_int_eq(parse_time_arg("2023-13-01T00:00:00Z", &t), -1);
	ck_assert_int_eq(parse_time_arg("", &t), -1);
	ck_assert_int_eq(parse_time_arg("9999-01-01T00:00:00Z", &t), -1);	/* beyond int64 ns */
}
END_TEST

/* A CPU's frame cut out of the file: a sequence gap, reported and placed. */
START_TEST(test_frame_gap)
{
	struct scen sc;
	struct capture *c;
	unsigned char *buf;
	size_t size;
	uint64_t cut_from = 0, cut_to = 0;
	unsigned seen = 0;

	scen_open(&sc, "gap.log");
	sc.cpu = 1;
	for (int f = 0; f < 3; f++) {
		ev_submit(&sc, T0 + (uint64_t)f * 100 * US, TID, PID, RING, 0x60 + (uint64_t)f,
			  OP_NOP, 60 + (uint64_t)f, 0, 0);
		ev_complete(&sc, T0 + (uint64_t)f * 100 * US + 50 * US, TID, PID, RING,
			    0x60 + (uint64_t)f, 60 + (uint64_t)f, 0, 0);
		synth_flush(sc.s);
	}
	scen_finish(&sc);
	{
		struct log_reader *r;
		struct log_frame f;
		char msg[LOG_MSG_LEN];

		ck_assert_int_eq(log_reader_open(&r, sc.path, msg, sizeof(msg)), 0);
		while (log_reader_next(r, &f))
			if (f.h.type == LOG_FRAME_EVENTS && seen++ == 1) {
				cut_from = f.offset;
				cut_to = f.payload_offset + f.h.stored_size;
			}
		log_reader_close(r);
	}
	ck_assert_uint_gt(cut_to, cut_from);
	buf = test_read_file(sc.path, &size);
	memmove(buf + cut_from, buf + cut_to, size - cut_to);
	test_write_file(sc.path, buf, size - (cut_to - cut_from));
	free(buf);
	c = convert_capture(sc.path, NULL);
	ck_assert_uint_eq(c->nloss, 1);
	ck_assert_int_eq(c->loss[0].source, LOSS_FRAME_GAP);
	ck_assert_uint_eq(c->loss[0].cpu, 1);
	ck_assert_uint_eq(c->loss[0].first_ts, T0 + 50 * US + 1);
	ck_assert_uint_eq(c->loss[0].last_ts, T0 + 200 * US - 1);
	ck_assert_ptr_nonnull(strstr(c->warnings, "sequence gap"));
	ck_assert_int_eq(req_by_ud(c, 60)->status, REQ_COMPLETE);
	ck_assert_int_eq(req_by_ud(c, 62)->status, REQ_COMPLETE);
	ck_assert_uint_eq(c->nreq, 2);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Percentiles within 1% of the exact ones, exact count/min/max. */
START_TEST(test_hist)
{
	struct hist h;
	static uint64_t v[100000];
	uint64_t x = 88172645463325252ull;
	const double ps[] = { 50, 90, 99, 99.9 };

	hist_init(&h);
	ck_assert_uint_eq(hist_percentile(&h, 50), 0);
	for (size_t i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = 100 + x % 50000000;	/* 100 ns .. 50 ms */
		ck_assert_int_eq(hist_add(&h, v[i]), 0);
	}
	{
		size_t n = 100000;

		for (size_t gap = n / 2; gap > 0; gap /= 2)
			for (size_t i = gap; i < n; i++)
				for (size_t j = i; j >= gap && v[j - gap] > v[j]; j -= gap) {
					uint64_t t = v[j];

					v[j] = v[j - gap];
					v[j - gap] = t;
				}
	}
	ck_assert_uint_eq(h.count, 100000);
	ck_assert_uint_eq(h.min, v[0]);
	ck_assert_uint_eq(h.max, v[99999]);
	ck_assert_uint_eq(hist_percentile(&h, 100), v[99999]);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		size_t rank = (size_t)(ps[i] / 100.0 * 100000 + 0.999999);
		double exact = (double)v[rank - 1], got = (double)hist_percentile(&h, ps[i]);

		ck_assert_msg(got >= exact * 0.99 && got <= exact * 1.01,
			      "p%g: %.0f vs exact %.0f", ps[i], got, exact);
	}
	hist_free(&h);
	/* Small values are exact. */
	hist_init(&h);
	for (uint64_t i = 1; i <= 50; i++)
		hist_add(&h, i);
	ck_assert_uint_eq(hist_percentile(&h, 50), 25);
	ck_assert_uint_eq(hist_percentile(&h, 90), 45);
	hist_free(&h);
}
END_TEST

START_TEST(test_timebase)
{
	struct timebase tb;
	struct log_clock_snapshot a = { .boot_ns = 1000, .real_ns = 1000000000000 };
	struct log_clock_snapshot b = { .boot_ns = 11000, .real_ns = 1000000020000 };
	char iso[TIMEBASE_ISO_LEN];
	int64_t real;
	uint64_t boot;

	timebase_init(&tb);
	ck_assert(!timebase_wall(&tb, 5, &real));
	ck_assert_str_eq(timebase_iso(&tb, 5, iso), "");
	ck_assert_int_eq(timebase_add(&tb, &b), 0);
	ck_assert_int_eq(timebase_add(&tb, &a), 0);
	ck_assert_int_eq(timebase_add(&tb, &a), 0);	/* duplicates ignored */
	ck_assert_uint_eq(tb.nsnaps, 2);
	ck_assert(timebase_wall(&tb, 6000, &real));	/* interpolated: slope 2 */
	ck_assert_int_eq(real, 1000000010000);
	ck_assert(timebase_wall(&tb, 500, &real));	/* before: slope 1 */
	ck_assert_int_eq(real, 999999999500);
	ck_assert(timebase_wall(&tb, 12000, &real));	/* after: slope 1 */
	ck_assert_int_eq(real, 1000000021000);
	ck_assert(timebase_boot(&tb, 1000000010000, &boot));
	ck_assert_uint_eq(boot, 6000);
	ck_assert_str_eq(format_iso_ns(1700000000123456789, iso), "2023-11-14T22:13:20.123456789Z");
	ck_assert_str_eq(format_iso_ns(-1, iso), "1969-12-31T23:59:59.999999999Z");
	timebase_free(&tb);
}
END_TEST

/*
 * Interpolation between two clock snapshots takes a 64-bit path where the
 * clocks drift apart by little: it must give exactly the 128-bit result,
 * for drifts of either sign, clock steps, and spans whose product
 * overflows 64 bits.
 */
START_TEST(test_timebase_interpolation_exact)
{
	static const int64_t drifts[] = {
		0, 1, -1, 37, -37, 999983, -999983, 1000000000, -1000000000,
		INT64_C(1) << 40, -(INT64_C(1) << 40), INT64_C(1) << 62,
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 200000; i++) {
		struct log_clock_snapshot a, b;
		struct timebase tb;
		uint64_t span, t;
		int64_t drift, real;
		__int128 want;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		span = 1 + (x >> (24 + i % 40));
		drift = drifts[i % (sizeof(drifts) / sizeof(drifts[0]))];
		if (i % 7 == 0)
			drift = (int64_t)(x >> 20) - (int64_t)(x >> 21);
		if (drift < 0 && (uint64_t)-drift > span)
			drift = -(int64_t)(span / 2);	/* the real clock stepped back less */
		a = (struct log_clock_snapshot){ .boot_ns = 5000 + (x & 0xffff),
						 .real_ns = 1700000000000000000 };
		b = a;
		b.boot_ns += span;
		b.real_ns += (int64_t)span + drift;
		t = a.boot_ns + (x >> 7) % span;
		want = (__int128)a.real_ns + (__int128)(t - a.boot_ns) *
		       ((__int128)b.real_ns - a.real_ns) / (__int128)span;
		timebase_init(&tb);
		ck_assert_int_eq(timebase_add(&tb, &a), 0);
		ck_assert_int_eq(timebase_add(&tb, &b), 0);
		ck_assert(timebase_wall(&tb, t, &real));
		if ((__int128)real != want)
			ck_abort_msg("span %llu drift %lld t-a %llu: got %lld want %lld",
				     (unsigned long long)span, (long long)drift,
				     (unsigned long long)(t - a.boot_ns), (long long)real,
				     (long long)want);
		timebase_free(&tb);
	}
}
END_TEST

/*
 * A failed request's error is counted by its magnitude, also for a CQE
 * result of INT32_MIN (a damaged log), whose negation overflows int:
 * UndefinedBehaviorSanitizer stops the suite's sanitizer run there.
 */
START_TEST(test_report_error_magnitude)
{
	struct output_meta meta = { 0 };
	struct model_ring ring = { .number = 1, .pid = 7, .fd = 3 };
	struct model_request q = {
		.id = 1, .ring = &ring, .status = REQ_COMPLETE, .opcode = 22,
		.submit_ts = 100, .complete_ts = 200, .submit_pid = 7,
	};
	struct err_stats **es;
	struct report r;
	char nb[NAMES_MAX_LEN];
	size_t n;

	report_init(&r, &meta);
	q.res = INT32_MIN;
	report_request(&r, &q);
	q.res = -9;
	report_request(&r, &q);
	report_request(&r, &q);
	es = report_errors(&r, &n);
	ck_assert_ptr_nonnull(es);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(es[0]->err, 9);
	ck_assert_uint_eq(es[0]->count, 2);
	ck_assert_int_eq(es[1]->err, 2147483648);
	ck_assert_uint_eq(es[1]->count, 1);
	ck_assert_str_eq(names_errno(es[1]->err, nb), "E2147483648");
	free(es);
	report_free(&r);
}
END_TEST

START_TEST(test_names)
{
	static const char meta[] =
		"{\"opcodes\":{\"source\":\"btf\",\"names\":[\"NOP\",\"IORING_OP_READV\",\"bad name!\",7]},"
		"\"kernel_enums\":{\"req_flag_bits\":{\"REQ_F_FIXED_FILE_BIT\":0,"
		"\"REQ_F_FORCE_ASYNC_BIT\":4,\"REQ_F_LAST_BIT\":40,\"REQ_F_HUGE_BIT\":99}}}";
	struct json_doc doc;
	struct names n;
	char buf[128], nb[NAMES_MAX_LEN];

	ck_assert_int_eq(json_parse(meta, sizeof(meta) - 1, &doc, buf, sizeof(buf)), 0);
	names_init(&n, &doc.root);
	ck_assert_str_eq(names_opcode(&n, 0, nb), "NOP");
	ck_assert_str_eq(names_opcode(&n, 1, nb), "READV");
	ck_assert_str_eq(names_opcode(&n, 2, nb), "OP_2");	/* invalid in the log */
	ck_assert_str_eq(names_opcode(&n, 22, nb), "READ");	/* beyond: built-in */
	ck_assert_str_eq(names_opcode(&n, 250, nb), "OP_250");
	ck_assert_str_eq(names_req_flags(&n, 0x11, buf, sizeof(buf)), "FIXED_FILE|FORCE_ASYNC");
	ck_assert_str_eq(names_req_flags(&n, 0x13, buf, sizeof(buf)), "FIXED_FILE|FORCE_ASYNC|0x2");
	ck_assert_str_eq(names_errno(-9, nb), "EBADF");
	ck_assert_str_eq(names_errno(125, nb), "ECANCELED");
	ck_assert_str_eq(names_errno(-4000, nb), "E4000");
	ck_assert_str_eq(names_errno(0, nb), "");
	ck_assert_str_eq(names_errno(INT64_MIN, nb), "E9223372036854775808");
	ck_assert_str_eq(names_errno(INT64_MAX, nb), "E9223372036854775807");
	json_doc_free(&doc);
	names_init(&n, NULL);
	ck_assert_str_eq(names_opcode(&n, 22, nb), "READ");
	ck_assert_str_eq(names_req_flags(&n, 0x11, buf, sizeof(buf)), "0x11");
}
END_TEST

/*
 * hmap against a plain array: random puts, replaces, dels and repeated
 * gets over few keys (long probe runs, backward shifts under the slot a
 * get remembered) and through several grows.  Fails when a remembered
 * slot is trusted without checking its keys and value.
 */
START_TEST(test_hmap_remembered_slot)
{
	enum { KEYS = 300, STEPS = 200000 };
	static void *ref[KEYS];
	char vals[4];
	struct hmap h;
	uint64_t x = 88172645463325252ull;

	hmap_init(&h);
	memset(ref, 0, sizeof(ref));
	for (unsigned i = 0; i < STEPS; i++) {
		unsigned k, op;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		k = (unsigned)(x % KEYS);
		op = (unsigned)(x >> 32) % 8;
		/* keys share b so that they differ in a only */
		if (op == 0 || op == 1) {
			ref[k] = &vals[op + (x >> 40) % 2];
			ck_assert_int_eq(hmap_put(&h, k, 7, ref[k]), 0);
		} else if (op == 2) {
			ck_assert_ptr_eq(hmap_del(&h, k, 7), ref[k]);
			ref[k] = NULL;
		} else {
			/* the same key again: the remembered slot */
			ck_assert_ptr_eq(hmap_get(&h, k, 7), ref[k]);
			ck_assert_ptr_eq(hmap_get(&h, k, 7), ref[k]);
			ck_assert_ptr_eq(hmap_get(&h, (k + 1) % KEYS, 7), ref[(k + 1) % KEYS]);
			ck_assert_ptr_null(hmap_get(&h, k, 8));
		}
		ck_assert_ptr_eq(hmap_peek(&h, k, 7), ref[k]);
	}
	hmap_free(&h);
	ck_assert_ptr_null(hmap_get(&h, 1, 7));
}
END_TEST

static Suite *convert_suite(void)
{
	Suite *s = suite_create("convert");
	TCase *tc = tcase_create("model");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_inline_and_task_work);
	tcase_add_test(tc, test_off_zeroed_is_unknown);
	tcase_add_test(tc, test_iowq);
	tcase_add_test(tc, test_work_handed_over_then_ring_recreated);
	tcase_add_test(tc, test_overflow_after_ring_recreated);
	tcase_add_test(tc, test_overflow_after_complete_is_another_cqe);
	tcase_add_test(tc, test_poll_iopoll_failed_drained);
	tcase_add_test(tc, test_path_reasons);
	tcase_add_test(tc, test_reaped_by);
	tcase_add_test(tc, test_iowq_pools);
	tcase_add_test(tc, test_iowq_pools_unknown);
	tcase_add_test(tc, test_file_identity);
	tcase_add_test(tc, test_file_path_join);
	tcase_add_test(tc, test_link_chain_failure);
	tcase_add_test(tc, test_link_chain_failure_6_1);
	tcase_add_test(tc, test_pointer_reuse);
	tcase_add_test(tc, test_losses);
	tcase_add_test(tc, test_damaged_frame);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_threads_and_rings);
	tcase_add_test(tc, test_sqpoll);
	tcase_add_test(tc, test_cqes);
	tcase_add_test(tc, test_send_zc_notification);
	tcase_add_test(tc, test_cqe_skip_success);
	tcase_add_test(tc, test_cqe_skip_ring_recreated);
	tcase_add_test(tc, test_cqe_skip_link_timeout_fired);
	tcase_add_test(tc, test_cqe_skip_failed_link);
	tcase_add_test(tc, test_cqe_skip_failed_link_held);
	tcase_add_test(tc, test_unpaired_syscalls);
	tcase_add_test(tc, test_selection);
	tcase_add_test(tc, test_end_stops_reading);
	tcase_add_test(tc, test_time_args);
	tcase_add_test(tc, test_frame_gap);
	tcase_add_test(tc, test_hist);
	tcase_add_test(tc, test_timebase);
	tcase_add_test(tc, test_timebase_interpolation_exact);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_report_error_magnitude);
	tcase_add_test(tc, test_hmap_remembered_slot);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(convert_suite)
