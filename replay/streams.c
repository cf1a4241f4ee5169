// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which recorded pipes and sockets uring-replay runs again, over a pipe or
 * socketpair of its own: those whose data flow the recording holds whole.
 * The log holds no data and names no peer, so byte counts decide:
 *
 * - a pipe (one pipefs inode, both ends) when every request on it is
 *   replayed, it saw data, the bytes its reads got add up to the bytes
 *   its writes put, no read got more than had been written through
 *   io_uring by then, and no read saw end of file (its writer's close is
 *   not in the log);
 * - a socket (one inode per end) when exactly one other socket of the
 *   recording received what it sent and sent what it received, and that
 *   one has no other such match either: the two are a pair.  Each way,
 *   no receive got more than the peer had sent by then, and one that saw
 *   end of file has a peer that shut down its sending side.
 *
 * Everything else keeps its requests out, with the reason: data from a
 * writer, reader or peer outside the recording (a network client, a
 * write(2)) cannot be stood in for.  "By then" is the read's completion
 * against the writes' submissions: a write is in the pipe before it
 * completes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "plan.h"

struct flow {
	uint64_t in, out;		/* bytes written (sent), read (received) */
	bool eof;			/* a read got 0 bytes */
	bool shut_wr;			/* a SHUTDOWN of its sending side */
	uint32_t cand, ncand;		/* sockets: byte counts that match */
	const char *why;
};

static const char taint_pipe[] =
	"pipe: another request on it is not replayed, so neither is its data flow";
static const char taint_socket[] =
	"socket: another request on it is not replayed, so neither is its data flow";

static bool is_stream(const struct plan_target *t)
{
	return t->key.kind == RK_PIPE || t->key.kind == RK_SOCKET;
}

static int by_complete(const void *pa, const void *pb)
{
	const struct plan_req *a = *(const struct plan_req *const *)pa;
	const struct plan_req *b = *(const struct plan_req *const *)pb;

	return a->complete_ts < b->complete_ts ? -1 : a->complete_ts > b->complete_ts;
}

static bool moved(const struct plan_req *q, uint32_t target, enum plan_dir dir)
{
	return q->target == target && q->dir == dir && q->complete_ts && q->res > 0;
}

/*
 * Whether no read on reader got more than the writes on writer had put by
 * its completion (p->reqs is in submission order).  -1 out of memory.
 */
static int in_order(const struct plan *p, uint32_t writer, uint32_t reader)
{
	const struct plan_req **reads = malloc((p->nreqs + 1) * sizeof(*reads));
	uint64_t written = 0, read = 0;
	size_t n = 0, w = 0;
	int ok = 1;

	if (!reads)
		return -1;
	for (size_t i = 0; i < p->nreqs; i++)
		if (moved(&p->reqs[i], reader, PDIR_OUT))
			reads[n++] = &p->reqs[i];
	qsort(reads, n, sizeof(*reads), by_complete);
	for (size_t k = 0; k < n && ok; k++) {
		for (; w < p->nreqs && p->reqs[w].submit_ts <= reads[k]->complete_ts; w++)
			if (moved(&p->reqs[w], writer, PDIR_IN))
				written += (uint64_t)p->reqs[w].res;
		read += (uint64_t)reads[k]->res;
		ok = read <= written;
	}
	free(reads);
	return ok;
}

static void tally(struct plan *p, struct flow *f)
{
	for (size_t t = 0; t < p->ntargets; t++) {
		p->targets[t].peer = UINT32_MAX;
		if (p->targets[t].tainted)
			f[t].why = p->targets[t].key.kind == RK_PIPE ? taint_pipe : taint_socket;
	}
	for (size_t i = 0; i < p->nreqs; i++) {
		const struct plan_req *q = &p->reqs[i];
		struct flow *g = q->target != UINT32_MAX ? &f[q->target] : NULL;

		if (!g || !is_stream(&p->targets[q->target]))
			continue;
		if (q->skip && !g->why)
			g->why = p->targets[q->target].key.kind == RK_PIPE ? taint_pipe : taint_socket;
		if (!q->complete_ts || q->res < 0)
			continue;
		if (q->dir == PDIR_IN)
			g->in += (uint64_t)q->res;
		else if (q->dir == PDIR_OUT)
			g->out += (uint64_t)q->res;
		if (q->dir == PDIR_OUT && !q->res)
			g->eof = true;
		if (q->op == POP_SHUTDOWN && q->len != SHUT_RD)
			g->shut_wr = true;
	}
}

static int check_pipe(struct plan *p, struct flow *f, uint32_t t)
{
	int ok;

	if (f[t].why)
		return 0;
	if (!f[t].in && !f[t].out)
		f[t].why = "pipe: no data through io_uring in the recording";
	else if (!f[t].in)
		f[t].why = "pipe: its writer is not in the recording (data read, none written through io_uring)";
	else if (!f[t].out)
		f[t].why = "pipe: its reader is not in the recording (data written, none read through io_uring)";
	else if (f[t].in != f[t].out)
		f[t].why = "pipe: bytes written and read through io_uring differ (a reader or writer outside the recording)";
	else if (f[t].eof)
		f[t].why = "pipe: a read saw end of file (its writer's close is not in the log)";
	if (f[t].why)
		return 0;
	ok = in_order(p, t, t);
	if (!ok)
		f[t].why = "pipe: a read got data before io_uring had written it (a writer outside the recording)";
	return ok < 0 ? -1 : 0;
}

/* a and b, a pair by their byte counts: is each way's flow in order? */
static int check_pair(struct plan *p, struct flow *f, uint32_t a, uint32_t b)
{
	int ab = in_order(p, a, b), ba = in_order(p, b, a);

	if (ab < 0 || ba < 0)
		return -1;
	if (!ab || !ba)
		f[a].why = "socket: a receive got data before its peer had sent it (a sender outside the recording)";
	else if ((f[a].eof && !f[b].shut_wr) || (f[b].eof && !f[a].shut_wr))
		f[a].why = "socket: a receive saw end of file its peer's requests do not explain (a close)";
	f[b].why = f[a].why;
	if (!f[a].why) {
		p->targets[a].peer = b;
		p->targets[b].peer = a;
	}
	return 0;
}

static int pair_sockets(struct plan *p, struct flow *f)
{
	size_t n = p->ntargets;

	for (uint32_t a = 0; a < n; a++) {
		if (p->targets[a].key.kind != RK_SOCKET)
			continue;
		if (!f[a].in && !f[a].out) {
			if (!f[a].why)
				f[a].why = "socket: no data through io_uring in the recording: its peer cannot be told";
			continue;
		}
		/* Against every socket with data, replayed or not: a match
		 * that is not replayed is still a match. */
		for (uint32_t b = 0; b < n; b++)
			if (b != a && p->targets[b].key.kind == RK_SOCKET &&
			    f[a].in == f[b].out && f[a].out == f[b].in) {
				f[a].cand = b;
				f[a].ncand++;
			}
	}
	for (uint32_t a = 0; a < n; a++) {
		uint32_t b = f[a].cand;

		if (p->targets[a].key.kind != RK_SOCKET || f[a].why || p->targets[a].peer != UINT32_MAX)
			continue;
		if (!f[a].ncand)
			f[a].why = "socket: its peer is not in the recording (no other socket received what it sent and sent what it received)";
		else if (f[a].ncand > 1 || f[b].ncand != 1)
			f[a].why = "socket: its peer is ambiguous (several sockets' byte counts match)";
		else if (f[b].why)
			f[a].why = f[b].why == taint_socket ?
				"socket: a request on its peer is not replayed, so neither is their data flow" :
				f[b].why;
		else if (check_pair(p, f, a, b))
			return -1;
	}
	return 0;
}

size_t plan_streams(struct plan *p)
{
	struct flow *f = calloc(p->ntargets + 1, sizeof(*f));
	size_t marked = SIZE_MAX;

	if (!f)
		return SIZE_MAX;
	tally(p, f);
	for (uint32_t t = 0; t < p->ntargets; t++)
		if (p->targets[t].key.kind == RK_PIPE && check_pipe(p, f, t))
			goto out;
	if (pair_sockets(p, f))
		goto out;
	marked = 0;
	for (size_t i = 0; i < p->nreqs; i++) {
		struct plan_req *q = &p->reqs[i];

		if (!q->skip && q->target != UINT32_MAX && f[q->target].why) {
			q->skip = f[q->target].why;
			marked++;
		}
	}
out:
	free(f);
	return marked;
}
