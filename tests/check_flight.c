// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of uring-record --flight-recorder's pure parts: its options
 * and trigger specs, the retained-frame ring (eviction, window start, LOSS
 * base), the triggers' evaluation on synthetic records, and a snapshot
 * written from a ring and read back with the log reader.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "flight.h"
#include "json.h"
#include "log_reader.h"
#include "log_writer.h"
#include "metadata.h"
#include "test_util.h"
#include "trigger.h"
#include "uring_event.h"
#include "uring_names.h"

static int parse(struct env *env, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return env_parse(env, argc, argv);
}

static int opcode_of(const char *name)
{
	for (unsigned i = 0; i < uring_opcode_count(); i++)
		if (uring_opcode_name(i) && !strcmp(uring_opcode_name(i), name))
			return (int)i;
	return -1;
}

/* --------------------------------------------------------- options */

START_TEST(test_flight_options)
{
	char *plain[] = { "uring-record", NULL };
	char *dflt[] = { "uring-record", "--flight-recorder", NULL };
	char *full[] = { "uring-record", "--flight-recorder=16M", "--post=250ms",
			 "--snapshots=3", "--trigger=errno=ECANCELED:READ",
			 "--trigger=latency>200ms", "--trigger", "cq-overflow",
			 "--trigger=io-wq-workers>4", NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, plain), 0);
	ck_assert_uint_eq(env.flight_size, 0);
	ck_assert_uint_eq(env.ntriggers, 0);
	env_free(&env);

	ck_assert_int_eq(parse(&env, dflt), 0);
	ck_assert_uint_eq(env.flight_size, 64ull << 20);
	ck_assert_uint_eq(env.post_ns, 1000000000ull);
	ck_assert_uint_eq(env.snapshots, 1);
	ck_assert_uint_eq(env.ntriggers, 1);
	ck_assert_int_eq(env.triggers[0].kind, TRIG_SIGNAL);
	env_free(&env);

	ck_assert_int_eq(parse(&env, full), 0);
	ck_assert_uint_eq(env.flight_size, 16ull << 20);
	ck_assert_uint_eq(env.post_ns, 250000000ull);
	ck_assert_uint_eq(env.snapshots, 3);
	ck_assert_uint_eq(env.ntriggers, 5);	/* signal added last */
	ck_assert_int_eq(env.triggers[0].kind, TRIG_ERRNO);
	ck_assert_int_eq(env.triggers[0].err, 125);
	ck_assert_int_eq(env.triggers[0].opcode, opcode_of("READ"));
	ck_assert_int_eq(env.triggers[1].kind, TRIG_LATENCY);
	ck_assert_uint_eq(env.triggers[1].latency_ns, 200000000ull);
	ck_assert_int_eq(env.triggers[1].opcode, TRIGGER_ANY_OPCODE);
	ck_assert_int_eq(env.triggers[2].kind, TRIG_CQ_OVERFLOW);
	ck_assert_int_eq(env.triggers[3].kind, TRIG_IOWQ_WORKERS);
	ck_assert_uint_eq(env.triggers[3].workers, 4);
	ck_assert_int_eq(env.triggers[4].kind, TRIG_SIGNAL);
	ck_assert_str_eq(env.triggers[1].text, "latency>200ms");
	env_free(&env);
}
END_TEST

START_TEST(test_flight_options_bad)
{
	static const char *const bad[][4] = {
		{ "--trigger=signal" },				/* needs --flight-recorder */
		{ "--post=2s" },
		{ "--snapshots=2" },
		{ "--flight-recorder=100K" },
		{ "--flight-recorder=8X" },
		{ "--flight-recorder", "--max-size=10M" },
		{ "--flight-recorder", "--snapshots=0" },
		{ "--flight-recorder", "--snapshots=-1" },
		{ "--flight-recorder", "--trigger=sometimes" },
		{ "--flight-recorder", "--trigger=errno=ENOTANERROR" },
		{ "--flight-recorder", "--trigger=errno=EIO:NOTANOP" },
		{ "--flight-recorder", "--trigger=latency>" },
		{ "--flight-recorder", "--trigger=latency>0" },
		{ "--flight-recorder", "--trigger=latency>5parsecs" },
		{ "--flight-recorder", "--trigger=io-wq-workers>-1" },
		{ "--flight-recorder", "--trigger=io-wq-workers>many" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "uring-record" };
		struct env env;
		int n = 1;

		for (int k = 0; k < 4 && bad[i][k]; k++)
			argv[n++] = (char *)bad[i][k];
		argv[n] = NULL;
		ck_assert_msg(parse(&env, argv) == -1, "accepted: %s %s", bad[i][0],
			      bad[i][1] ? bad[i][1] : "");
		env_free(&env);
	}
}
END_TEST

START_TEST(test_trigger_parse)
{
	struct trigger_spec t;
	char err[160];

	ck_assert_int_eq(trigger_parse("errno=ENOBUFS", &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.err, 105);
	ck_assert_int_eq(trigger_parse("errno=-11:iORing_op_recv", &t, err, sizeof(err)), 0);
	ck_assert_int_eq(t.err, 11);
	ck_assert_int_eq(t.opcode, opcode_of("RECV"));
	ck_assert_int_eq(trigger_parse("latency>1.5s:NOP", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.latency_ns, 1500000000ull);
	ck_assert_int_eq(t.opcode, opcode_of("NOP"));
	ck_assert_int_eq(trigger_parse("io-wq-workers>0", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.workers, 0);
	ck_assert_int_eq(trigger_parse("latency<5s", &t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "unknown trigger"), "%s", err);
	ck_assert_int_eq(trigger_parse("io-wq-workers>1024", &t, err, sizeof(err)), -1);
}
END_TEST

/* ------------------------------------------------------------ ring */

static struct log_frame_header fh(uint16_t type, uint32_t stream, uint64_t first,
				  uint64_t last, uint64_t stored)
{
	return (struct log_frame_header){
		.type = type, .stream = stream, .count = 10, .first_ts = first,
		.last_ts = last, .stored_size = stored, .raw_size = stored,
	};
}

START_TEST(test_flight_ring_evicts)
{
	static unsigned char payload[4000];
	uint64_t cost = FLIGHT_FRAME_COST(1000);
	struct flight_ring r;
	struct log_frame_header h;

	flight_ring_init(&r, 3 * cost);
	for (unsigned i = 0; i < 3; i++) {
		h = fh(LOG_FRAME_EVENTS_PACKED, i % 2, 100 * i + 1, 100 * i + 50, 1000);
		ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	}
	ck_assert_uint_eq(r.frames, 3);
	ck_assert_uint_eq(r.bytes, 3 * cost);
	ck_assert_uint_eq(atomic_load(&r.window_start), 0);
	/* the fourth evicts the oldest, and the window starts after it */
	h = fh(LOG_FRAME_EVENTS_PACKED, 1, 301, 350, 1000);
	ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	ck_assert_uint_eq(r.frames, 3);
	ck_assert_uint_eq(r.evicted_frames, 1);
	ck_assert_uint_eq(r.evicted_records, 10);
	ck_assert_uint_eq(atomic_load(&r.window_start), 51);
	ck_assert_uint_le(r.bytes, r.limit);
	/* a larger one evicts as many as it needs, whole */
	h = fh(LOG_FRAME_EVENTS_PACKED, 0, 401, 450, 2500);
	ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	ck_assert_uint_eq(r.frames, 1);
	ck_assert_uint_eq(atomic_load(&r.window_start), 351);
	ck_assert_uint_le(r.bytes, r.limit);
	/* one larger than the limit is not kept: everything before is cut */
	h = fh(LOG_FRAME_EVENTS_PACKED, 0, 501, 550, 4000);
	ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	ck_assert_uint_eq(r.frames, 0);
	ck_assert_uint_eq(r.too_large, 1);
	ck_assert_uint_eq(atomic_load(&r.window_start), 551);
	flight_ring_free(&r);
}
END_TEST

static struct frame *loss_rows(uint64_t a, uint64_t b)
{
	struct log_loss_row rows[2] = {
		{ .cpu = 0, .kind = 1, .count = a },
		{ .cpu = 1, .kind = 1, .event_type = EV_SUBMIT, .count = b },
	};
	struct frame *f = frame_new(LOG_FRAME_LOSS, LOG_STREAM_GLOBAL, sizeof(rows));

	frame_add_bytes(f, rows, sizeof(rows), 2);
	return f;
}

START_TEST(test_flight_loss_base)
{
	static unsigned char payload[1000];
	struct flight_ring r;
	struct log_frame_header h = fh(LOG_FRAME_EVENTS_PACKED, 0, 1, 50, 1000);
	struct frame *l1 = loss_rows(5, 7), *now = loss_rows(9, 7);
	struct log_loss_row *rows = (struct log_loss_row *)(void *)now->data;

	flight_ring_init(&r, 2 * FLIGHT_FRAME_COST(1000));
	ck_assert_int_eq(flight_ring_add_loss(&r, l1), 0);
	ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	/* nothing evicted yet: counts are since the start */
	flight_loss_since(&r, rows, 2);
	ck_assert_uint_eq(rows[0].count, 9);
	/* the LOSS frame goes with the oldest frames: counts from there */
	ck_assert_int_eq(flight_ring_add(&r, &h, payload), 0);
	ck_assert_uint_eq(r.nloss_base, 2);
	flight_loss_since(&r, rows, 2);
	ck_assert_uint_eq(rows[0].count, 4);
	ck_assert_uint_eq(rows[1].count, 0);
	frame_free(l1);
	frame_free(now);
	flight_ring_free(&r);
}
END_TEST

/* -------------------------------------------------------- triggers */

static void submit(struct triggers *t, uint64_t ts, uint64_t req, int opcode)
{
	struct ev_submit e = { .ts = ts, .type = EV_SUBMIT, .ring = 1, .req = req,
			       .opcode = (__u8)opcode, .user_data = req * 10 };

	triggers_record(t, 0, &e);
}

static void complete(struct triggers *t, uint64_t ts, uint64_t req, int res, unsigned cflags)
{
	struct ev_complete e = { .ts = ts, .type = EV_COMPLETE, .ring = 1, .req = req,
				 .res = res, .user_data = req * 10, .cflags = cflags };

	triggers_record(t, 1, &e);
}

START_TEST(test_trigger_errno)
{
	struct trigger_spec spec[2];
	struct triggers t;
	char err[128];

	ck_assert_int_eq(trigger_parse("errno=ECANCELED:READ", &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(trigger_parse("signal", &spec[1], err, sizeof(err)), 0);
	ck_assert_int_eq(triggers_init(&t, spec, 2), 0);
	ck_assert(t.track);		/* an opcode needs the submissions */
	submit(&t, 10, 1, opcode_of("NOP"));
	submit(&t, 11, 2, opcode_of("READ"));
	complete(&t, 20, 1, -125, 0);	/* ECANCELED, but a NOP */
	ck_assert(!t.fired);
	complete(&t, 21, 2, -11, 0);	/* a READ, but EAGAIN */
	ck_assert(!t.fired);
	submit(&t, 30, 2, opcode_of("READ"));	/* the req slot recycled */
	complete(&t, 40, 2, -125, 0);
	ck_assert(t.fired);
	ck_assert_uint_eq(t.hit.ts, 40);
	ck_assert_uint_eq(t.hit.user_data, 20);
	ck_assert_ptr_eq(t.hit.spec, &spec[0]);
	/* fired once until re-armed */
	complete(&t, 50, 3, -125, 0);
	ck_assert_uint_eq(t.hit.ts, 40);
	triggers_rearm(&t);
	ck_assert(!t.fired);
	triggers_signal(&t, 60);
	ck_assert(t.fired);
	ck_assert_ptr_eq(t.hit.spec, &spec[1]);
	triggers_free(&t);
}
END_TEST

START_TEST(test_trigger_latency)
{
	struct trigger_spec spec[2];
	struct triggers t;
	char err[128];

	ck_assert_int_eq(trigger_parse("latency>100ns:READ", &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(trigger_parse("latency>1000ns", &spec[1], err, sizeof(err)), 0);
	ck_assert_int_eq(triggers_init(&t, spec, 2), 0);
	/* a late completion */
	submit(&t, 10, 1, opcode_of("READ"));
	complete(&t, 100, 1, 0, 0);
	ck_assert(!t.fired);
	submit(&t, 200, 1, opcode_of("READ"));
	complete(&t, 301, 1, 0, 0);
	ck_assert(t.fired);
	ck_assert_uint_eq(t.hit.latency_ns, 101);
	ck_assert_uint_eq(t.hit.due_ns, 300);
	ck_assert(!t.hit.in_flight);
	triggers_rearm(&t);
	ck_assert(!triggers_overdue(&t, 10000, true));	/* nothing in flight */

	/* in flight: a NOP is overdue only for the 1000 ns trigger, a
	 * multishot READ stays in flight after a CQE with F_MORE */
	submit(&t, 1000, 2, opcode_of("NOP"));
	submit(&t, 1001, 3, opcode_of("READ"));
	complete(&t, 1050, 3, 8, 1u << 1);
	ck_assert(!triggers_overdue(&t, 1090, true));
	ck_assert(triggers_overdue(&t, 1200, false));	/* the READ, only told */
	ck_assert(!t.fired);
	ck_assert(triggers_overdue(&t, 1200, true));
	ck_assert(t.fired);
	ck_assert_uint_eq(t.hit.user_data, 30);
	ck_assert(t.hit.in_flight);
	ck_assert_uint_eq(t.hit.latency_ns, 199);
	ck_assert_ptr_eq(t.hit.spec, &spec[0]);
	triggers_rearm(&t);
	/* the READ fired once: its late completion does not fire again */
	complete(&t, 5000, 3, 8, 0);
	ck_assert(!t.fired);
	/* the NOP's turn at 1000 ns */
	ck_assert(!triggers_overdue(&t, 1900, true));
	ck_assert(triggers_overdue(&t, 2001, true));
	ck_assert_uint_eq(t.hit.user_data, 20);
	ck_assert_ptr_eq(t.hit.spec, &spec[1]);
	triggers_free(&t);
}
END_TEST

/* A submission with its completion folded in (submit_complete) fires as
 * the two records it stands for. */
START_TEST(test_trigger_folded)
{
	struct trigger_spec spec[2];
	struct triggers t;
	struct ev_submit_complete e = {
		.ts = 100, .type = EV_SUBMIT_COMPLETE, .ring = 1, .req = 7,
		.opcode = (__u8)opcode_of("READ"), .user_data = 70,
	};
	char err[128];

	ck_assert_int_eq(trigger_parse("latency>500ns:READ", &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(trigger_parse("errno=EIO:READ", &spec[1], err, sizeof(err)), 0);
	ck_assert_int_eq(triggers_init(&t, spec, 2), 0);
	/* completed inline, 400 ns later, with EIO */
	e.flags = EVF_COMPLETED;
	e.complete_dts = 400;
	e.res = -5;
	triggers_record(&t, 0, &e);
	ck_assert(t.fired);
	ck_assert_ptr_eq(t.hit.spec, &spec[1]);
	ck_assert_uint_eq(t.hit.ts, 500);
	ck_assert_uint_eq(t.hit.user_data, 70);
	ck_assert_int_eq(t.hit.res, -5);
	triggers_rearm(&t);
	ck_assert(!triggers_overdue(&t, 10000, true));	/* not in flight */
	/* not completed: in flight */
	e.req = 8;
	e.user_data = 80;
	e.flags = 0;
	triggers_record(&t, 0, &e);
	ck_assert(!t.fired);
	ck_assert(triggers_overdue(&t, 20000, true));
	ck_assert_uint_eq(t.hit.user_data, 80);
	ck_assert(t.hit.in_flight);
	triggers_free(&t);
}
END_TEST

START_TEST(test_trigger_workers_overflow)
{
	struct trigger_spec spec[2];
	struct triggers t;
	struct ev_task w = { .type = EV_TASK, .reason = EV_TASK_RENAME, .comm = "iou-wrk-50" };
	struct ev_task sqp = { .type = EV_TASK, .reason = EV_TASK_RENAME, .comm = "iou-sqp-50" };
	struct ev_task_exit x = { .type = EV_TASK_EXIT };
	struct ev_cqe_overflow o = { .type = EV_CQE_OVERFLOW, .ring = 7, .ts = 99 };
	char err[128];

	ck_assert_int_eq(trigger_parse("io-wq-workers>3", &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(trigger_parse("cq-overflow", &spec[1], err, sizeof(err)), 0);
	ck_assert_int_eq(triggers_init(&t, spec, 2), 0);
	ck_assert(!t.track);
	/* an SQPOLL thread and another task's workers are not task 50's */
	sqp.subject_tid = 90;
	triggers_record(&t, 0, &sqp);
	snprintf(w.comm, sizeof(w.comm), "iou-wrk-51");
	for (uint32_t tid = 91; tid < 94; tid++) {
		w.subject_tid = tid;
		triggers_record(&t, 0, &w);
	}
	ck_assert(!t.fired);
	/* the first listed at the start, the others named as they start */
	snprintf(w.comm, sizeof(w.comm), "iou-wrk-50");
	w.reason = EV_TASK_EXISTING;
	w.subject_tid = 100;
	triggers_task(&t, 0, &w);
	w.reason = EV_TASK_RENAME;
	for (uint32_t tid = 101; tid < 103; tid++) {
		w.subject_tid = tid;
		w.ts = tid;
		triggers_record(&t, 1, &w);
		triggers_record(&t, 1, &w);	/* the same worker, again */
		ck_assert(!t.fired);
	}
	/* the fourth of task 50's io-wq */
	w.subject_tid = 103;
	w.ts = 103;
	triggers_record(&t, 1, &w);
	ck_assert(t.fired);
	ck_assert_uint_eq(t.hit.workers, 3 + 1);
	ck_assert_uint_eq(t.hit.tid, 50);
	ck_assert_uint_eq(t.hit.worker_tid, 103);
	ck_assert_uint_eq(t.hit.ts, 103);
	triggers_rearm(&t);
	/* exited workers are not counted: two leave, one comes, three live */
	x.tid = 100;
	triggers_record(&t, 0, &x);
	x.tid = 101;
	triggers_record(&t, 0, &x);
	w.subject_tid = 104;
	triggers_record(&t, 0, &w);
	ck_assert(!t.fired);
	triggers_record(&t, 0, &o);
	ck_assert(t.fired);
	ck_assert_ptr_eq(t.hit.spec, &spec[1]);
	triggers_free(&t);
}
END_TEST

/* -------------------------------------------------------- snapshot */

START_TEST(test_flight_snapshot)
{
	struct trigger_spec spec;
	struct flight_ring ring;
	struct log_writer *sink;
	struct flight_snapshot *s = calloc(1, sizeof(*s));
	struct log_reader *rd;
	struct log_frame f;
	char *dir = test_tmpdir(), *path = test_path(dir, "snap.log"), msg[LOG_MSG_LEN];
	uint64_t events = 0, next_seq[2] = { 0, 0 };
	char *argv[] = { "uring-record", "--flight-recorder", NULL };
	struct log_clock_snapshot clk = { .boot_ns = 1, .real_ns = 2 };
	bool rings[2] = { true, true };
	struct meta_input in = { .start = &clk, .ncpus = 2, .online_cpus = "0-1",
				 .ring_cpus = rings };
	struct env env;
	const void *buf;
	size_t len;
	struct json_doc doc;
	uint64_t ws = 0;

	ck_assert_int_eq(trigger_parse("signal", &spec, msg, sizeof(msg)), 0);
	flight_ring_init(&ring, 3 * FLIGHT_FRAME_COST(200));
	ck_assert_int_eq(log_writer_create_sink(&sink, NULL, flight_ring_add, &ring), 0);
	/* 8 frames of 4 NOP submissions, alternating CPUs: most are evicted */
	for (unsigned i = 0; i < 8; i++) {
		struct ev_submit rec[4];
		struct log_frame_desc d = { .type = LOG_FRAME_EVENTS, .stream = i % 2, .count = 4,
					    .first_ts = 1000 * i + 1, .last_ts = 1000 * i + 4 };

		memset(rec, 0, sizeof(rec));
		for (unsigned k = 0; k < 4; k++) {
			rec[k].ts = 1000 * i + 1 + k;
			rec[k].type = EV_SUBMIT;
			rec[k].req = i * 4 + k;
		}
		ck_assert_int_eq(log_write_events(sink, &d, rec, sizeof(rec)), 0);
	}
	ck_assert_uint_gt(ring.evicted_frames, 0);
	ck_assert_uint_lt(ring.frames, 8);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->number = 1;
	ck_assert_int_eq(parse(&env, argv), 0);
	in.env = &env;
	s->meta = metadata_build(&in, &s->meta_len);
	ck_assert_ptr_nonnull(s->meta);
	env_free(&env);
	s->hit.spec = &spec;
	ck_assert_int_eq(flight_snapshot_write(&ring, s), 0);
	ck_assert_uint_eq(s->records, ring.records);
	flight_snapshot_free(s);

	ck_assert_msg(log_reader_open(&rd, path, msg, sizeof(msg)) == 0, "%s", msg);
	while (log_reader_next(rd, &f) == 1) {
		if (f.h.type == LOG_FRAME_EVENTS) {
			/* renumbered: each CPU's frames from 0, no gap */
			ck_assert_uint_eq(f.h.seq, next_seq[f.h.stream]++);
			events += f.h.count;
		}
		if (f.h.type == LOG_FRAME_END) {
			ck_assert_int_eq(log_reader_payload(rd, &f, 0, &buf, &len, msg,
							    sizeof(msg)), 0);
			ck_assert_int_eq(json_parse(buf, len, &doc, msg, sizeof(msg)), 0);
			ck_assert(json_get_u64(json_get(&doc.root, "flight_recorder"),
					       "window_start_boot_ns", &ws));
			json_doc_free(&doc);
		}
	}
	ck_assert_int_eq(log_reader_stop(rd, NULL, NULL), LOG_STOP_END);
	ck_assert_uint_eq(events, ring.records);
	ck_assert_uint_eq(ws, atomic_load(&ring.window_start));
	ck_assert_uint_gt(ws, 0);
	log_reader_close(rd);
	log_writer_abort(sink);
	flight_ring_free(&ring);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

static Suite *flight_suite(void)
{
	Suite *s = suite_create("flight");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_flight_options);
	tcase_add_test(tc, test_flight_options_bad);
	tcase_add_test(tc, test_trigger_parse);
	tcase_add_test(tc, test_flight_ring_evicts);
	tcase_add_test(tc, test_flight_loss_base);
	tcase_add_test(tc, test_trigger_errno);
	tcase_add_test(tc, test_trigger_latency);
	tcase_add_test(tc, test_trigger_folded);
	tcase_add_test(tc, test_trigger_workers_overflow);
	tcase_add_test(tc, test_flight_snapshot);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(flight_suite)
