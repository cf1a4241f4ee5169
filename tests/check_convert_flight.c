// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert on flight-recorder snapshots (uring-log(5), Flight-recorder
 * snapshots): the records before the window start are left out, since the
 * frames of some CPUs before it were evicted, so that no request gets a
 * status or latency from half of its events.
 */
#include <check.h>
#include <stdio.h>

#include "convert_test.h"
#include "model.h"
#include "test_util.h"

#define RING 0x1000
#define PID 100
#define TID 100
#define OP_READ 22
#define US 1000ull

/* The snapshot's END frame: frames before T0 + 20 us were evicted. */
static void finish_snapshot(struct scen *sc, uint64_t window_start)
{
	char end[512];

	snprintf(end, sizeof(end),
		 "{\"reason\":\"flight-recorder snapshot\",\"flight_recorder\":{\"snapshot\":2,"
		 "\"window_start_boot_ns\":%llu,\"trigger\":{\"spec\":\"latency>1ms:READ\","
		 "\"description\":\"latency>1ms:READ: READ\",\"condition_boot_ns\":%llu}}}",
		 (unsigned long long)window_start, (unsigned long long)(T0 + 45 * US));
	synth_finish_json(sc->s, end);
	sc->s = NULL;
}

/*
 * CPU 1's frame up to T0 + 20 us was evicted, CPU 0's was kept: request 2
 * was submitted on CPU 0 and completed on CPU 1 in that frame, request 3
 * the reverse.  Read whole, 2 would be in flight at the end and 3 in
 * flight at the start although both completed long before.
 */
START_TEST(test_snapshot_window)
{
	struct scen sc;
	struct capture *c;
	uint64_t ws = T0 + 20 * US;

	scen_open(&sc, "snapshot.log");
	ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0xa1, OP_READ, 1, 0, 0);
	ev_submit(&sc, T0 + 6 * US, TID, PID, RING, 0xa2, OP_READ, 2, 0, 0);
	ev_complete(&sc, T0 + 12 * US, TID, PID, RING, 0xa3, 3, 0, 0);
	ev_complete(&sc, T0 + 25 * US, TID, PID, RING, 0xa1, 1, 0, 0);
	ev_submit(&sc, T0 + 30 * US, TID, PID, RING, 0xa4, OP_READ, 4, 0, 0);
	sc.cpu = 1;
	ev_complete(&sc, T0 + 40 * US, TID, PID, RING, 0xa4, 4, 0, 0);
	ev_submit(&sc, T0 + 44 * US, TID, PID, RING, 0xa5, OP_READ, 5, 0, 0);
	finish_snapshot(&sc, ws);
	c = convert_capture(sc.path, NULL);

	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_IN_FLIGHT_AT_START);
	ck_assert_uint_eq(req_by_ud(c, 4)->status, REQ_COMPLETE);
	ck_assert_uint_eq(req_by_ud(c, 4)->complete_ts - req_by_ud(c, 4)->submit_ts, 10 * US);
	ck_assert_int_eq(req_by_ud(c, 5)->status, REQ_IN_FLIGHT_AT_END);
	for (size_t i = 0; i < c->nreq; i++)
		ck_assert_msg(c->req[i].user_data != 2 && c->req[i].user_data != 3,
			      "request %llu from before the window",
			      (unsigned long long)c->req[i].user_data);
	ck_assert_uint_eq(c->nreq, 3);
	ck_assert_uint_eq(c->records, 4);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

/* Nothing evicted (window start 0): every record is kept. */
START_TEST(test_snapshot_whole)
{
	struct scen sc;
	struct capture *c;

	scen_open(&sc, "whole.log");
	ev_submit(&sc, T0 + 5 * US, TID, PID, RING, 0xa1, OP_READ, 1, 0, 0);
	ev_complete(&sc, T0 + 25 * US, TID, PID, RING, 0xa1, 1, 0, 0);
	finish_snapshot(&sc, 0);
	c = convert_capture(sc.path, NULL);
	ck_assert_int_eq(req_by_ud(c, 1)->status, REQ_COMPLETE);
	ck_assert_uint_eq(c->records, 2);
	capture_free(c);
	scen_free(&sc);
}
END_TEST

static Suite *flight_convert_suite(void)
{
	Suite *s = suite_create("convert_flight");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_snapshot_window);
	tcase_add_test(tc, test_snapshot_whole);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(flight_convert_suite)
