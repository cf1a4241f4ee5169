// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxt_bench: how many records per second converter/fxt_writer encodes.
 *
 *   bench/fxt_bench [-n REQUESTS] [-o FILE] [-m typical|churn]
 *
 * "typical" writes what uring-convert writes per io_uring request: an
 * io_uring_enter complete event (4 args) with a flow begin, the worker's
 * slice with a flow step, a CQE instant (2 args) with a flow end, and a
 * counter - 7 event records per request, names from a small set, 8 threads.
 * "churn" is the worst case for the interning tables: every request on one
 * of 1000 threads and with a unique path string.
 * Without -o the bytes go to a sink that drops them (pure encoding cost);
 * with -o they are written to FILE (then check it, e.g. with fxtcheck).
 * Not part of make check: a benchmark, not a test.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fxt_writer.h"

#define PID		4242
#define RING_TID	0x40000000

static const char *const ops[] = {
	"READ", "WRITE", "READV", "WRITEV", "FSYNC", "SEND", "RECV", "NOP",
};

static int drop_sink(void *ctx, const void *data, size_t len)
{
	uint64_t *bytes = ctx;

	(void)data;
	*bytes += len;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int name_threads(struct fxt_writer *w, unsigned nthreads)
{
	char name[32];
	int err;

	err = fxt_name_process(w, PID, "bench", NULL, 0);
	for (unsigned i = 0; i < nthreads && !err; i++) {
		snprintf(name, sizeof(name), "worker-%u", i);
		err = fxt_name_thread(w, FXT_THREAD(PID, PID + i), name,
				      NULL, 0);
	}
	if (!err)
		err = fxt_name_thread(w, FXT_THREAD(PID, RING_TID),
				      "ring 0 (fd 3)", NULL, 0);
	return err;
}

/* One request: 7 event records. */
static int write_request(struct fxt_writer *w, uint64_t i, unsigned nthreads,
			 bool churn)
{
	struct fxt_thread app = FXT_THREAD(PID, PID + i % nthreads);
	struct fxt_thread wrk = FXT_THREAD(PID, PID + (i + 1) % nthreads);
	struct fxt_thread ring = FXT_THREAD(PID, RING_TID);
	const char *op = ops[i % 8];
	uint64_t t = 1000 * i;
	char path[64], name[32];
	int err;

	snprintf(name, sizeof(name), "io_wq %s", op);
	err = fxt_duration_complete(w, t, t + 300, app, "io_uring",
				    "io_uring_enter",
				    FXT_ARGV(fxt_arg_u32("to_submit", 1),
					     fxt_arg_u32("min_complete", 0),
					     fxt_arg_u32("flags", 0),
					     fxt_arg_i64("res", 1)));
	err = err ?: fxt_flow_begin(w, t, app, "io_uring", "req", i + 1,
				    NULL, 0);
	err = err ?: fxt_duration_complete(w, t + 400, t + 600, wrk,
					   "io_uring", name, NULL, 0);
	err = err ?: fxt_flow_step(w, t + 400, wrk, "io_uring", "req", i + 1,
				   NULL, 0);
	if (churn) {
		snprintf(path, sizeof(path), "/data/file-%" PRIu64, i);
		err = err ?: fxt_instant(w, t + 700, ring, "io_uring", op,
					 FXT_ARGV(fxt_arg_i64("res", 4096),
						  fxt_arg_str("path", path)));
	} else {
		err = err ?: fxt_instant(w, t + 700, ring, "io_uring", op,
					 FXT_ARGV(fxt_arg_i64("res", 4096),
						  fxt_arg_u64("user_data", i)));
	}
	err = err ?: fxt_flow_end(w, t + 700, ring, "io_uring", "req", i + 1,
				  NULL, 0);
	err = err ?: fxt_counter(w, t + 700, ring, "io_uring", "ring 0", 0,
				 FXT_ARGV(fxt_arg_u32("inflight",
						      (uint32_t)(i % 64))));
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fxt_bench [-n REQUESTS] [-o FILE] "
		   "[-m typical|churn]\n");
}

int main(int argc, char **argv)
{
	uint64_t requests = 2000000, dropped = 0;
	const char *out = NULL, *mode = "typical";
	struct fxt_writer_stats st;
	struct fxt_writer *w;
	unsigned nthreads;
	FILE *f = NULL;
	double t0, t1;
	bool churn;
	int opt, err = 0;

	while ((opt = getopt(argc, argv, "n:o:m:h")) != -1) {
		switch (opt) {
		case 'n':
			requests = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(mode, "typical") && strcmp(mode, "churn")) {
		usage(stderr);
		return 2;
	}
	churn = !strcmp(mode, "churn");
	nthreads = churn ? 1000 : 8;

	if (out) {
		f = fopen(out, "wb");
		if (!f) {
			fprintf(stderr, "fxt_bench: %s: %s\n", out,
				strerror(errno));
			return 1;
		}
		w = fxt_writer_new_file(f);
	} else {
		w = fxt_writer_new(drop_sink, &dropped);
	}
	if (!w) {
		fprintf(stderr, "fxt_bench: %s\n", strerror(errno));
		return 1;
	}

	t0 = now();
	err = name_threads(w, nthreads);
	for (uint64_t i = 0; i < requests && !err; i++)
		err = write_request(w, i, nthreads, churn);
	fxt_writer_get_stats(w, &st);
	err = err ?: fxt_writer_close(w);
	t1 = now();
	if (f && fclose(f) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "fxt_bench: %s: %s\n", out ? out : "sink",
			strerror(-err));
		return 1;
	}
	printf("mode=%s requests=%" PRIu64 " records=%" PRIu64 " events=%"
	       PRIu64 " bytes=%" PRIu64 " string_records=%" PRIu64
	       " thread_records=%" PRIu64 "\n", mode, requests, st.records,
	       st.events, st.bytes, st.string_records, st.thread_records);
	printf("%.3f s, %.2f M records/s, %.1f ns/record, %.1f MB/s\n",
	       t1 - t0, (double)st.records / (t1 - t0) / 1e6,
	       (t1 - t0) * 1e9 / (double)st.records,
	       (double)st.bytes / (t1 - t0) / 1e6);
	return 0;
}
