// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mkseeds DIR: write the synthetic seed logs of the fuzz corpus into DIR,
 * through the real writer (tests/synth_log).  They cover what a short real
 * recording rarely holds: every record type, every frame type, losses of
 * every kind, a log from an older and from a newer recorder, a log cut
 * short.  tests/fuzz/mkcorpus.sh packs them (fuzz_unpack --small).
 * Deterministic: the same program writes the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_test.h"
#include "event_layout.h"
#include "json.h"
#include "synth_log.h"

#define RING 0x5100ull
#define RING2 0x5200ull
#define US 1000ull

static char *path_in(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	return p;
}

static void scen_at(struct scen *sc, const char *dir, const char *name,
		    const struct synth_options *opt)
{
	memset(sc, 0, sizeof(*sc));
	sc->path = path_in(dir, name);
	sc->s = synth_log_create(sc->path, opt);
}

static void scen_done(struct scen *sc, const char *reason)
{
	synth_finish(sc->s, reason);
	free(sc->path);
}

/* Every request path, links, drains, overflows, multishot, syscalls, tasks,
 * losses of every source, LOSS/CLOCK/STATS frames, a re-created ring. */
static void seed_paths(const char *dir, const char *name, bool cut)
{
	struct synth_options opt = { .ncpus = 2 };
	struct scen sc;
	uint64_t t = T0;
	struct log_clock_snapshot clk = {
		.boot_ns = T0 + 500 * US, .mono_ns = T0 + 400 * US,
		.real_ns = 1700000000000000000ull + 500 * US, .tai_ns = 1700000037000000000ull,
		.uncertainty_ns = 40,
	};
	struct log_loss_row rows[] = {
		{ .cpu = 0, .kind = EV_LOSS_RING_FULL, .event_type = 0, .count = 7 },
		{ .cpu = 0, .kind = EV_LOSS_RING_FULL, .event_type = EV_SUBMIT, .count = 5 },
		{ .cpu = 0, .kind = EV_LOSS_RING_FULL, .event_type = EV_COMPLETE, .count = 2 },
		{ .cpu = 1, .kind = EV_LOSS_RING_FULL, .event_type = 0, .count = 0 },
		{ .cpu = 1, .kind = EV_LOSS_USER_QUEUE, .event_type = 0, .count = 3 },
	};
	struct ev_task tasks[2] = {
		{ SYNTH_HDR(EV_TASK, T0 - 10, 1, 1), .subject_tid = 100, .subject_tgid = 100,
		  .parent_tgid = 1, .comm = "server", .reason = EV_TASK_EXISTING },
		{ SYNTH_HDR(EV_TASK, T0 - 10, 1, 1), .subject_tid = 103, .subject_tgid = 100,
		  .parent_tgid = 1, .comm = "iou-wrk-100", .task_flags = EV_PF_IO_WORKER,
		  .reason = EV_TASK_EXISTING },
	};
	static const char stats[] = "{\"drains\":12,\"bytes\":4096}";

	scen_at(&sc, dir, name, &opt);
	synth_tasks(sc.s, tasks, 2);
	ev_task(&sc, t, 100, 100, "server", 0, EV_TASK_FORK);
	ev_create(&sc, t + 1 * US, 100, 100, RING, 3, 0);
	ev_create(&sc, t + 2 * US, 100, 100, RING2, 4, 1u << 1);
	/* inline */
	ev_enter_begin(&sc, t + 10 * US, 100, 100, RING, 3, 4, 1, 1);
	ev_submit(&sc, t + 11 * US, 100, 100, RING, 0xa1, 0, 1, 0, 0);
	ev_complete(&sc, t + 12 * US, 100, 100, RING, 0xa1, 1, 0, 0);
	/* poll -> task work */
	ev_submit(&sc, t + 13 * US, 100, 100, RING, 0xa2, 22, 2, 0, 0);
	ev_req(&sc, EV_POLL_ARM, t + 14 * US, 100, 100, RING, 0xa2, 2);
	/* io-wq */
	ev_submit(&sc, t + 15 * US, 100, 100, RING, 0xa3, 22, 3, 1u << 4, 0);
	ev_req(&sc, EV_QUEUE_ASYNC_WORK, t + 16 * US, 100, 100, RING, 0xa3, 3);
	/* link chain whose head fails */
	ev_submit(&sc, t + 17 * US, 100, 100, RING, 0xa4, 22, 4, 1u << 2, 0);
	ev_submit(&sc, t + 18 * US, 100, 100, RING, 0xa5, 22, 5, 0, 0);
	ev_link(&sc, t + 18 * US + 1, 100, 100, RING, 0xa5, 0xa4);
	/* drained */
	ev_submit(&sc, t + 19 * US, 100, 100, RING, 0xa6, 0, 6, 1u << 1, 0);
	ev_req(&sc, EV_DEFER, t + 19 * US + 1, 100, 100, RING, 0xa6, 6);
	/* fails at submission */
	ev_req_failed(&sc, t + 20 * US, 100, 100, RING, 0xa7, 99, 7, -22);
	ev_complete(&sc, t + 20 * US + 5, 100, 100, RING, 0xa7, 7, -22, 0);
	ev_cqring_wait(&sc, t + 21 * US, 100, 100, RING, 1);
	sc.cpu = 1;
	ev_work(&sc, true, t + 22 * US, 103, 100, RING, 0xa3);
	ev_complete(&sc, t + 23 * US, 103, 100, RING, 0xa3, 3, 4096, 0);
	ev_work(&sc, false, t + 24 * US, 103, 100, RING, 0xa3);
	ev_fail_link(&sc, t + 25 * US, 103, 100, RING, 0xa4, 0xa5);
	ev_complete(&sc, t + 25 * US + 1, 103, 100, RING, 0xa4, 4, -5, 0);
	ev_complete(&sc, t + 25 * US + 2, 103, 100, RING, 0xa5, 5, -125, 0);
	sc.cpu = 0;
	ev_req(&sc, EV_TASK_ADD, t + 26 * US, 100, 100, RING, 0xa2, 2);
	ev_complete(&sc, t + 27 * US, 100, 100, RING, 0xa2, 2, 10, 0);
	ev_tw_run(&sc, t + 28 * US, 100, 100, 1);
	ev_complete(&sc, t + 29 * US, 100, 100, RING, 0xa6, 6, 0, 0);
	ev_enter_end(&sc, t + 30 * US, 100, 100, RING, 4);
	synth_flush(sc.s);
	synth_frame(sc.s, LOG_FRAME_CLOCK, 0, LOG_STREAM_GLOBAL, 1, &clk, sizeof(clk));
	/* multishot, aux CQE, overflows, a loss window, SQPOLL ring */
	ev_submit(&sc, t + 40 * US, 100, 100, RING, 0xb1, 52, 11, 0, 0);
	ev_complete(&sc, t + 41 * US, 100, 100, RING, 0xb1, 11, 1, 2);
	ev_complete(&sc, t + 42 * US, 100, 100, RING, 0xb1, 11, 1, 2);
	ev_complete(&sc, t + 43 * US, 100, 100, RING, 0, 99, 0, 0);
	ev_overflow(&sc, t + 44 * US, 100, 100, RING, 11, 1, false);
	ev_overflow(&sc, t + 45 * US, 100, 100, RING, 12, 1, true);
	ev_complete(&sc, t + 46 * US, 100, 100, RING, 0xb1, 11, 0, 0);
	ev_lost(&sc, t + 47 * US, t + 48 * US, 7);
	ev_submit(&sc, t + 49 * US, 101, 100, RING2, 0xc1, 22, 21, 0, EVF_SQ_THREAD);
	ev_task(&sc, t + 50 * US, 101, 100, "iou-sqp-100", EV_PF_IO_WORKER, EV_TASK_FORK);
	/* the ring's address reused: a new generation */
	ev_create(&sc, t + 51 * US, 100, 100, RING2, 5, 0);
	ev_submit(&sc, t + 52 * US, 100, 100, RING2, 0xc2, 0, 22, 0, 0);
	synth_flush(sc.s);
	synth_loss(sc.s, rows, sizeof(rows) / sizeof(rows[0]), t + 52 * US);
	synth_frame(sc.s, LOG_FRAME_STATS, 0, LOG_STREAM_GLOBAL, 0, stats, strlen(stats));
	/* an unknown frame type a reader must skip */
	synth_frame(sc.s, 42, 0, LOG_STREAM_GLOBAL, 0, "future", 6);
	scen_done(&sc, cut ? NULL : "signal");
}

/* Records of every type with random values, small ids (so that they meet),
 * on 3 CPUs. */
static void seed_random(const char *dir)
{
	struct synth_options opt = { .ncpus = 3 };
	char *path = path_in(dir, "random.log");
	struct synth_log *s = synth_log_create(path, &opt);
	size_t ntypes;
	const struct ev_type_info *types = ev_types(&ntypes);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned char rec[EV_RECORD_MAX];

	for (unsigned i = 0; i < 3 * ntypes; i++) {
		const struct ev_type_info *t = &types[i % ntypes];
		struct ev_header *h = (struct ev_header *)rec;

		for (unsigned k = 0; k < t->size; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			rec[k] = (unsigned char)x;
		}
		for (unsigned f = 0; f < t->nfields; f++) {
			const struct ev_field *fld = &t->fields[f];

			if (fld->kind == EVK_ID || fld->kind == EVK_U32 || fld->kind == EVK_S32)
				memset(rec + fld->offset + 1, 0, fld->size - 1);
		}
		h->type = t->type;
		h->ts = T0 + (x & 0xffff);
		synth_emit(s, i % 3, rec, t->size);
	}
	synth_finish(s, "duration");
	free(path);
}

/* A layout table edited: a field dropped from submit (older recorder), a
 * trailing field added to complete and an unknown type (newer recorder). */
static void seed_layouts(const char *dir)
{
	static const char future[] =
		"{\"type\":50,\"name\":\"future_event\",\"size\":24,\"fields\":["
		"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
		"[\"type\",16,2,\"u16\"],[\"flags\",18,2,\"u16\"],[\"x\",20,4,\"u32\"]]},";
	struct synth_options opt = { 0 };
	struct json_out jo;
	struct scen sc;
	char *layout, *records, *at;
	unsigned char rec[24] = { 0 };
	struct ev_header *h = (struct ev_header *)rec;
	size_t len;

	json_out_init(&jo, false);
	ev_layout_to_json(&jo);
	layout = json_out_steal(&jo, &len);
	if (!layout)
		abort();
	records = malloc(len + sizeof(future));
	at = strstr(layout, "\"types\":[") + strlen("\"types\":[");
	memcpy(records, layout, (size_t)(at - layout));
	strcpy(records + (at - layout), future);
	strcat(records, at);
	/* submit without personality (an older recorder) */
	at = strstr(records, "[\"personality\",");
	if (at)
		memcpy(at + 2, "persXnality", 11);
	opt.records_json = records;
	scen_at(&sc, dir, "layouts.log", &opt);
	ev_submit(&sc, T0 + 1 * US, 1, 1, RING, 1, 22, 7, 0, 0);
	h->ts = T0 + 2 * US;
	h->tid = 1;
	h->tgid = 1;
	h->type = 50;
	synth_emit(sc.s, 0, rec, sizeof(rec));
	ev_complete(&sc, T0 + 9 * US, 1, 1, RING, 1, 7, 4096, 0);
	scen_done(&sc, "command exited");
	free(layout);
	free(records);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds DIR\n");
		return 2;
	}
	seed_paths(argv[1], "paths.log", false);
	seed_paths(argv[1], "cut.log", true);
	seed_random(argv[1]);
	seed_layouts(argv[1]);
	return 0;
}
