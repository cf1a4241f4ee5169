// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fidelity report: how close the replay came to the recording.
 * Submission-time error is when the replayer entered the kernel minus when
 * it should have (the recorded time, scaled); replayed latencies are from
 * just before the enter to when the replayer saw the CQE, so they include
 * its own reaping delay (record the replay with --record for the kernel's).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_replay.h"

static int by_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The q-quantile of v[0..n) (sorts v); 0 when empty. */
static int64_t quantile(int64_t *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), by_i64);
	return v[(size_t)((double)(n - 1) * q + 0.5)];
}

static void latency_row(const struct plan *p, uint8_t op, int64_t *rec, int64_t *rep)
{
	size_t nrec = 0, nrep = 0;

	for (size_t i = 0; i < p->nreqs; i++) {
		const struct plan_req *q = &p->reqs[i];

		if (q->skip || q->opcode != op)
			continue;
		if (q->complete_ts > q->submit_ts)
			rec[nrec++] = (int64_t)(q->complete_ts - q->submit_ts);
		if (q->r_done && q->r_complete_ns >= q->r_submit_ns)
			rep[nrep++] = (int64_t)(q->r_complete_ns - q->r_submit_ns);
	}
	if (!nrec && !nrep)
		return;
	printf("  %-16s %8zu %10.1f %10.1f %10.1f %10.1f\n", p->opnames[op], nrec,
	       (double)quantile(rec, nrec, 0.5) / 1e3, (double)quantile(rec, nrec, 0.99) / 1e3,
	       (double)quantile(rep, nrep, 0.5) / 1e3, (double)quantile(rep, nrep, 0.99) / 1e3);
}

/*
 * Pipes and sockets: a read's byte count depends on what was written by
 * then, so whether each request got its recorded result is the measure.
 */
static void streams_line(const struct plan *p)
{
	size_t pipes = 0, pairs = 0, n = 0, same = 0;

	for (size_t i = 0; i < p->ntargets; i++) {
		const struct plan_target *t = &p->targets[i];

		if (!t->used)
			continue;
		pipes += t->key.kind == RK_PIPE;
		pairs += t->key.kind == RK_SOCKET && t->peer > i;
	}
	for (size_t i = 0; i < p->nreqs; i++) {
		const struct plan_req *q = &p->reqs[i];
		const struct plan_target *t = q->target != UINT32_MAX ? &p->targets[q->target] : NULL;

		if (q->skip || !t || (t->key.kind != RK_PIPE && t->key.kind != RK_SOCKET))
			continue;
		n++;
		same += q->r_done && q->complete_ts && q->r_res == q->res;
	}
	if (n)
		printf("pipes and sockets: %zu requests on %zu pipes and %zu socket pairs, %zu with the recorded result\n",
		       n, pipes, pairs, same);
}

int report_replay(const struct plan *p, const char *log, bool paced, uint64_t unfinished)
{
	int64_t *v = malloc((p->nreqs + p->nsteps + 1) * sizeof(*v) * 2);
	size_t n = 0, differ = 0, enters = 0, results = 0;

	if (!v)
		return 1;
	printf("uring-replay: %s: %" PRIu64 " requests replayed in %zu steps, %" PRIu64
	       " not replayed%s\n", log, p->replayed, p->nsteps, p->skipped,
	       p->nskips ? ":" : "");
	for (size_t i = 0; i < p->nskips; i++)
		printf("  %" PRIu64 " %s: %s\n", p->skips[i].n, p->opnames[p->skips[i].opcode],
		       p->skips[i].reason);
	if (p->shared_ring)
		printf("threads: 1 replay thread (ring %u was entered by threads %" PRIu32 " and %"
		       PRIu32 ": every ring on one thread, in recorded order)\n", p->shared_ring,
		       p->shared_tid[0], p->shared_tid[1]);
	else
		printf("threads: %u replay thread%s, one per recorded thread that entered rings\n",
		       p->nthreads, p->nthreads == 1 ? "" : "s");
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];

		if (!s->n)
			continue;
		enters++;
		v[n++] = s->err_ns;
		if (s->ret != (int)s->n || s->n != s->submitted_rec)
			differ++;
	}
	if (paced)
		printf("submission time error: p50 %.1f us, p99 %.1f us (%zu submissions)\n",
		       (double)quantile(v, n, 0.5) / 1e3, (double)quantile(v, n, 0.99) / 1e3, n);
	else
		printf("submission time error: not measured (--no-stall)\n");
	if (!differ)
		printf("batching: identical (%zu submissions, requests per io_uring_enter as recorded)\n",
		       enters);
	else
		printf("batching: differs in %zu of %zu submissions (requests not replayed, or submitted otherwise)\n",
		       differ, enters);
	for (size_t i = 0; i < p->nreqs; i++) {
		const struct plan_req *q = &p->reqs[i];

		if (!q->skip && q->r_done && q->complete_ts && (q->res < 0) != (q->r_res < 0))
			results++;
	}
	printf("results: %zu requests succeeded where the recording failed, or failed where it succeeded\n",
	       results);
	streams_line(p);
	if (unfinished)
		printf("unfinished: %" PRIu64 " requests had not completed 5 s after the recording's span (scaled) and the last submission: cancelled\n",
		       unfinished);
	printf("latency (us)          requests  recorded p50  p99    replayed p50  p99\n");
	for (unsigned op = 0; op < 256; op++)
		latency_row(p, (uint8_t)op, v, v + p->nreqs + p->nsteps + 1);
	free(v);
	return 0;
}
