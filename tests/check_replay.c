// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-replay's plan (replay/plan.c) from synthetic logs: requests
 * grouped by the io_uring_enter that submitted them, in recorded order;
 * what is not replayed and why, whole link chains included; the files and
 * their extents; registered-file tables.  No root: nothing is run.
 */
#include <check.h>
#include <string.h>

#include "convert_test.h"
#include "plan.h"
#include "uring.h"
#include "test_util.h"

#define US 1000ull
#define PID 100
#define RING 0xa

static void submit(struct scen *sc, uint64_t ts, uint64_t req, uint8_t opcode, int32_t fd,
		   uint64_t off, uint32_t len, uint8_t sqe_flags)
{
	struct ev_submit e = {
		SYNTH_HDR(EV_SUBMIT, ts, PID, PID),
		.opcode = opcode, .sqe_flags = sqe_flags, .ring = RING, .req = req,
		.user_data = req, .req_flags = sqe_flags, .off = off, .fd = fd, .len = len,
	};

	e.flags = EVF_SQE_VALID;
	synth_emit(sc->s, sc->cpu, &e, sizeof(e));
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
	plan_free(&p);
	scen_free(&sc);
}
END_TEST

static Suite *replay_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("plan");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_plan);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(replay_suite)
