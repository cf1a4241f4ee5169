// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "hmap.h"
#include "log_reader.h"
#include "convert_opts.h"
#include "output.h"
#include "plan.h"
#include "uring.h"

/*
 * The recorded opcode's name (the log's own table) -> the host's opcode;
 * stream: only on a pipe or socket (streams.c decides which are replayed).
 */
static const struct {
	const char *name;
	enum plan_op op;
	uint8_t host;
	enum plan_dir dir;
	bool stream;
} ops[] = {
	{ "NOP", POP_NOP, IORING_OP_NOP, PDIR_NONE, false },
	{ "READ", POP_RW, IORING_OP_READ, PDIR_OUT, false },
	{ "WRITE", POP_RW, IORING_OP_WRITE, PDIR_IN, false },
	{ "READ_FIXED", POP_RW_FIXED, IORING_OP_READ_FIXED, PDIR_OUT, false },
	{ "WRITE_FIXED", POP_RW_FIXED, IORING_OP_WRITE_FIXED, PDIR_IN, false },
	{ "READV", POP_RWV, IORING_OP_READV, PDIR_OUT, false },
	{ "WRITEV", POP_RWV, IORING_OP_WRITEV, PDIR_IN, false },
	{ "FSYNC", POP_FSYNC, IORING_OP_FSYNC, PDIR_NONE, false },
	{ "SYNC_FILE_RANGE", POP_SYNC_RANGE, IORING_OP_SYNC_FILE_RANGE, PDIR_NONE, false },
	{ "TIMEOUT", POP_TIMEOUT, IORING_OP_TIMEOUT, PDIR_NONE, false },
	{ "LINK_TIMEOUT", POP_LINK_TIMEOUT, IORING_OP_LINK_TIMEOUT, PDIR_NONE, false },
	{ "SEND", POP_NET, IORING_OP_SEND, PDIR_IN, true },
	{ "RECV", POP_NET, IORING_OP_RECV, PDIR_OUT, true },
	{ "SENDMSG", POP_MSG, IORING_OP_SENDMSG, PDIR_IN, true },
	{ "RECVMSG", POP_MSG, IORING_OP_RECVMSG, PDIR_OUT, true },
	{ "POLL_ADD", POP_POLL, IORING_OP_POLL_ADD, PDIR_NONE, true },
	{ "SHUTDOWN", POP_SHUTDOWN, IORING_OP_SHUTDOWN, PDIR_NONE, true },
};

#define OPS_N (sizeof(ops) / sizeof(ops[0]))

struct rec_sys {
	uint64_t id, ts;
	unsigned ring;
	uint32_t tid;
	uint32_t to_submit, min_complete, flags, submitted;
	size_t step;			/* SIZE_MAX: none yet */
};

struct plan_out {
	struct output base;
	struct plan *p;
	size_t reqcap, syscap, targetcap;
	struct hmap target_map;
	struct rec_sys *sys;
	size_t nsys;
	bool oom;
};

static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	q = realloc(*a, ncap * size);
	if (!q)
		return false;
	memset((char *)q + *cap * size, 0, (ncap - *cap) * size);
	*a = q;
	*cap = ncap;
	return true;
}

static void plan_ring_cb(struct output *o, const struct model_ring *r)
{
	struct plan_out *po = (struct plan_out *)o;
	struct plan *p = po->p;
	struct plan_ring *pr;
	size_t cap = p->nrings;

	if (r->number > p->nrings) {
		if (!grow((void **)&p->rings, &cap, r->number, sizeof(*p->rings))) {
			po->oom = true;
			return;
		}
		p->nrings = r->number;
	}
	pr = &p->rings[r->number - 1];
	pr->number = r->number;
	pr->known = true;
	pr->created = r->created_seen;
	pr->creator_tid = r->tid;
	if (r->created_seen) {
		pr->setup_flags = r->setup_flags;
		pr->sq_entries = r->sq_entries;
		pr->cq_entries = r->cq_entries;
	}
}

/* Why the opcode named name is never replayed, or NULL. */
static const char *opcode_skip(const char *name)
{
	if (!strcmp(name, "FALLOCATE"))
		return "the log does not hold a fallocate's length (sqe->addr)";
	if (!strcmp(name, "SPLICE") || !strcmp(name, "TEE"))
		return "the log does not hold its second file (sqe->splice_fd_in)";
	return "outside the replayer's scope (file, block, pipe and socket I/O, NOP, timeout, fsync)";
}

/* Why a pipe or socket request r cannot be prepared, or NULL. */
static const char *stream_skip(const struct model_request *r, const struct plan_req *q)
{
	if (q->op == POP_POLL) {
		if (r->len & IORING_POLL_ADD_MULTI)
			return "multishot POLL_ADD: it ends only by a POLL_REMOVE or cancellation, not replayed";
		if (r->len)
			return "POLL_ADD that updates another poll (the log does not hold which)";
		return NULL;
	}
	if ((q->op == POP_NET || q->op == POP_MSG) && q->dir == PDIR_OUT &&
	    (r->ioprio & IORING_RECV_MULTISHOT))
		return "multishot receive: its provided buffers are not replayed";
	if (r->sqe_flags & IOSQE_BUFFER_SELECT)
		return "provided buffers (IOSQE_BUFFER_SELECT) are not replayed";
	if (q->op == POP_MSG && (!r->complete_ts || r->res <= 0))
		return "sendmsg/recvmsg: byte count known only from a successful completion";
	return NULL;
}

/* Why r cannot be replayed, or NULL; sets what the SQE needs. */
static const char *classify(struct plan *p, const struct model_request *r, struct plan_req *q)
{
	const char *name = p->opnames[r->opcode];
	size_t i;

	for (i = 0; i < OPS_N; i++)
		if (!strcmp(name, ops[i].name))
			break;
	if (i == OPS_N)
		return opcode_skip(name);
	q->op = ops[i].op;
	q->host_opcode = ops[i].host;
	q->dir = ops[i].dir;
	if (!r->submit_ts || r->status == REQ_IN_FLIGHT_AT_START)
		return "submitted before the recording started";
	if (!r->sqe_fields_valid)
		return "its SQE was not recorded";
	if (ops[i].stream || (r->sqe_flags & IOSQE_BUFFER_SELECT)) {
		const char *why = stream_skip(r, q);

		if (why)
			return why;
		if (q->op == POP_MSG)
			q->bytes = (uint32_t)r->res;
	}
	switch (q->op) {
	case POP_NOP:
		return r->op_flags ? "NOP with flags" : NULL;
	case POP_TIMEOUT:
	case POP_LINK_TIMEOUT:
		/* The timespec is behind sqe->addr, not recorded: the time
		 * it took to complete stands for it. */
		if (!r->complete_ts || (r->op_flags & IORING_TIMEOUT_ABS))
			return "timeout of unknown duration";
		return NULL;
	case POP_RWV:
		if (!r->complete_ts || r->res <= 0 || !r->len)
			return "vectored: byte count known only from a successful completion";
		q->bytes = (uint32_t)r->res;
		break;
	default:
		break;
	}
	if ((q->op == POP_RW || q->op == POP_RW_FIXED || q->op == POP_SYNC_RANGE) && !r->off_valid)
		return "its offset was not recorded";
	return NULL;
}

/* Why a request on a file of kind k cannot be replayed there, or NULL. */
static const char *kind_skip(const struct plan *p, const struct model_request *r,
			     const struct plan_req *q, const struct replay_key *k)
{
	bool stream_op = q->op == POP_NET || q->op == POP_MSG || q->op == POP_POLL ||
			 q->op == POP_SHUTDOWN;

	if (k->kind == RK_OTHER)
		return "its file is not a regular file, block device, pipe or socket (eventfd, ...)";
	if (k->kind == RK_PIPE || k->kind == RK_SOCKET) {
		if (k->kind == RK_PIPE && (q->op == POP_NET || q->op == POP_MSG ||
					   q->op == POP_SHUTDOWN))
			return "a socket request on a pipe";
		return NULL;
	}
	/* Pipe and socket requests need the file's identity: both ends of a
	 * pair are told apart, and matched, by inode (streams.c).  Without
	 * it, a read or write that armed a poll was on one: a regular file
	 * or block device never has to wait for readiness. */
	if (!stream_op && !r->poll_arm_ts)
		return NULL;
	if (!p->identity)
		return "pipe or socket: the log does not identify files (format before 3.1)";
	if (!r->file)
		return "pipe or socket: the log does not name its file (no completion named it)";
	if (!stream_op)
		return NULL;
	return "POLL_ADD, SHUTDOWN or socket request on a regular file or block device";
}

/* The target of key, added on first use; UINT32_MAX out of memory. */
static uint32_t target_of(struct plan_out *po, const struct replay_key *key)
{
	struct plan *p = po->p;
	struct plan_target *t;
	uintptr_t v;
	uint64_t a, b;

	replay_key_words(key, &a, &b);
	v = (uintptr_t)hmap_get(&po->target_map, a, b);
	if (v)
		return (uint32_t)(v - 1);
	if (!grow((void **)&p->targets, &po->targetcap, p->ntargets + 1, sizeof(*t)) ||
	    hmap_put(&po->target_map, a, b, (void *)(uintptr_t)(p->ntargets + 1))) {
		po->oom = true;
		return UINT32_MAX;
	}
	t = &p->targets[p->ntargets++];
	*t = (struct plan_target){ .key = *key, .fd = -1, .fd2 = -1, .fd_oflags = -1,
				   .peer = UINT32_MAX };
	replay_key_name(key, t->name);
	return (uint32_t)(p->ntargets - 1);
}

/*
 * A request that is not replayed on a pipe or socket: what it did to the
 * data flow is not replayed either, so neither is the rest (streams.c).
 */
static void taint_stream(struct plan_out *po, const struct model_request *r)
{
	struct replay_key key;
	uint32_t t;

	if (!r->sqe_fields_valid || !replay_key_of(r, &key, true) ||
	    (key.kind != RK_PIPE && key.kind != RK_SOCKET))
		return;
	t = target_of(po, &key);
	if (t != UINT32_MAX)
		po->p->targets[t].tainted = true;
}

/* The target of r's file, added on first use; NULL or why there is none. */
static const char *plan_target(struct plan_out *po, const struct model_request *r,
			       struct plan_req *q)
{
	struct plan *p = po->p;
	struct replay_key key;
	const char *why;

	if (!replay_key_of(r, &key, true))
		return "no file descriptor";
	why = kind_skip(p, r, q, &key);
	if (why)
		return why;
	q->target = target_of(po, &key);
	if (q->target == UINT32_MAX)
		return "out of memory";
	if (key.kind == RK_FILE && r->file && (r->file->f_flags & PLAN_OFLAGS)) {
		/* how the recorded fd reached the device: cached or not, and
		 * when a write is durable */
		p->targets[q->target].oflags |= (int)(r->file->f_flags & PLAN_OFLAGS);
		q->oflagged = true;
	}
	if (key.kind == RK_PIPE || key.kind == RK_SOCKET) {
		struct plan_target *t = &p->targets[q->target];
		uint32_t acc = r->file->f_flags & O_ACCMODE;

		/* A pipe end is O_RDONLY or O_WRONLY (pipe(7)); an end opened
		 * O_RDWR (a FIFO) by which way the request moves data. */
		q->end_write = key.kind == RK_PIPE &&
			       (acc == O_WRONLY || (acc == O_RDWR && q->dir == PDIR_IN));
		t->nonblock[q->end_write] = r->file->f_flags & O_NONBLOCK;
	}
	return NULL;
}

static void plan_request_cb(struct output *o, const struct model_request *r)
{
	struct plan_out *po = (struct plan_out *)o;
	struct plan *p = po->p;
	struct plan_req *q;

	if (po->oom || !grow((void **)&p->reqs, &po->reqcap, p->nreqs + 1, sizeof(*p->reqs))) {
		po->oom = true;
		return;
	}
	q = &p->reqs[p->nreqs++];
	memset(q, 0, sizeof(*q));
	q->id = r->id;
	q->ring = r->ring->number;
	q->opcode = r->opcode;
	q->sqe_flags = r->sqe_flags;
	q->ioprio = r->ioprio;
	q->buf_index = r->buf_index;
	q->op_flags = r->op_flags;
	q->len = r->len;
	q->fd = r->fd;
	q->off = r->off;
	q->submit_ts = r->submit_ts;
	q->complete_ts = r->complete_ts;
	q->res = r->res;
	q->syscall = r->submit_syscall;
	q->submit_tid = r->submit_tid;
	q->chain_id = r->chain_id;
	q->target = UINT32_MAX;
	q->skip = classify(p, r, q);
	/* A negative fd is replayed as it is: the kernel fails it with EBADF
	 * as it did, touching nothing. */
	if (!q->skip && q->op != POP_NOP && q->op != POP_TIMEOUT && q->op != POP_LINK_TIMEOUT &&
	    (r->fd >= 0 || (r->sqe_flags & IOSQE_FIXED_FILE)))
		q->skip = plan_target(po, r, q);
	if (q->skip)
		taint_stream(po, r);
}

static void plan_syscall_cb(struct output *o, const struct model_syscall *s)
{
	struct plan_out *po = (struct plan_out *)o;
	struct rec_sys *rs;

	if (s->kind != SYS_ENTER || !s->ring || po->oom)
		return;
	if (!grow((void **)&po->sys, &po->syscap, po->nsys + 1, sizeof(*po->sys))) {
		po->oom = true;
		return;
	}
	rs = &po->sys[po->nsys++];
	*rs = (struct rec_sys){ .id = s->id, .ts = s->begin_ts, .ring = s->ring->number,
				.tid = s->tid,
				.to_submit = s->to_submit, .min_complete = s->min_complete,
				.flags = s->enter_flags, .submitted = s->submitted,
				.step = SIZE_MAX };
}

static int plan_begin_cb(struct output *o, const struct output_meta *meta, char *err,
			 size_t errlen)
{
	struct plan *p = ((struct plan_out *)o)->p;
	char buf[NAMES_MAX_LEN];

	(void)err;
	(void)errlen;
	/* EV_FILE records, and completions naming files, since format 3.1 */
	p->identity = meta->info && (meta->info->major > 3 ||
				     (meta->info->major == 3 && meta->info->minor >= 1));
	for (unsigned op = 0; op < 256; op++)
		snprintf(p->opnames[op], sizeof(p->opnames[op]), "%s",
			 names_opcode(meta->names, op, buf));
	return 0;
}

static int plan_end_cb(struct output *o, const struct output_totals *t, char *err,
		       size_t errlen)
{
	(void)t;
	if (((struct plan_out *)o)->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void plan_destroy_cb(struct output *o)
{
	(void)o;
}

static const struct output_ops plan_ops = {
	.name = "replay-plan",
	.begin = plan_begin_cb,
	.ring = plan_ring_cb,
	.request = plan_request_cb,
	.syscall = plan_syscall_cb,
	.end = plan_end_cb,
	.destroy = plan_destroy_cb,
};

static void count_skip(struct plan *p, uint8_t opcode, const char *reason)
{
	size_t cap = p->nskips;

	p->skipped++;
	for (size_t i = 0; i < p->nskips; i++) {
		if (p->skips[i].opcode == opcode && p->skips[i].reason == reason) {
			p->skips[i].n++;
			return;
		}
	}
	if (grow((void **)&p->skips, &cap, p->nskips + 1, sizeof(*p->skips)))
		p->skips[p->nskips++] = (struct plan_skip){ opcode, reason, 1 };
}

static int by_submit(const void *pa, const void *pb)
{
	const struct plan_req *a = pa, *b = pb;

	if (a->submit_ts != b->submit_ts)
		return a->submit_ts < b->submit_ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * A chain runs as a whole or not at all: a member left out would join the
 * rest to whatever follows, or unlink it.
 */
static int skip_broken_chains(struct plan *p)
{
	struct hmap broken;

	hmap_init(&broken);
	for (size_t i = 0; i < p->nreqs; i++)
		if (p->reqs[i].skip && p->reqs[i].chain_id &&
		    hmap_put(&broken, p->reqs[i].chain_id, 0, (void *)1)) {
			hmap_free(&broken);
			return -1;
		}
	for (size_t i = 0; i < p->nreqs; i++)
		if (!p->reqs[i].skip && p->reqs[i].chain_id &&
		    hmap_get(&broken, p->reqs[i].chain_id, 0))
			p->reqs[i].skip = "a member of its link chain is not replayed";
	hmap_free(&broken);
	return 0;
}

/* What each ring and target must hold: extents, registered tables. */
static void plan_sizes(struct plan *p)
{
	for (size_t i = 0; i < p->nreqs; i++) {
		struct plan_req *q = &p->reqs[i];
		struct plan_ring *r = &p->rings[q->ring - 1];
		uint32_t bytes = q->op == POP_RWV || q->op == POP_MSG ? q->bytes : q->len;
		struct plan_target *t = q->target != UINT32_MAX ? &p->targets[q->target] : NULL;

		if (q->skip) {
			count_skip(p, q->opcode, q->skip);
			continue;
		}
		p->replayed++;
		if (t)
			t->used = true;
		if (q->op == POP_RW || q->op == POP_RW_FIXED || q->op == POP_RWV ||
		    q->op == POP_NET || q->op == POP_MSG) {
			if (bytes > p->max_len)
				p->max_len = bytes;
			if (q->off != UINT64_MAX && t && t->key.kind == RK_FILE &&
			    q->off + bytes > t->extent)
				t->extent = q->off + bytes;
		}
		if (q->target != UINT32_MAX && (q->sqe_flags & IOSQE_FIXED_FILE) &&
		    q->fd >= 0 && (uint32_t)q->fd + 1 > r->max_fixed_file)
			r->max_fixed_file = (uint32_t)q->fd + 1;
		if (q->op == POP_RW_FIXED) {
			if ((uint32_t)q->buf_index + 1 > r->max_buf_index)
				r->max_buf_index = (uint32_t)q->buf_index + 1;
			if (q->len > r->max_len)
				r->max_len = q->len;
		}
	}
}

static int by_step_ts(const void *pa, const void *pb)
{
	const struct plan_step *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static struct plan_step *new_step(struct plan *p, size_t *cap, uint64_t ts, unsigned ring)
{
	struct plan_step *s;

	if (!grow((void **)&p->steps, cap, p->nsteps + 1, sizeof(*s)))
		return NULL;
	s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->ts = ts;
	s->ring = ring;
	s->enter = true;
	s->first = SIZE_MAX;
	return s;
}

/*
 * One step per recorded io_uring_enter that submitted a replayed request
 * or waited for completions, in the recorded order; a request submitted
 * by an SQPOLL thread (no enter) is a step of its own, handed to the
 * replayed ring's SQPOLL thread at its time.  step->first temporarily
 * holds the first request's index, the tie-break of equal times.
 */
static int plan_steps(struct plan_out *po)
{
	struct plan *p = po->p;
	struct hmap by_id;
	size_t cap = 0, *step_of, *fill;

	hmap_init(&by_id);
	for (size_t i = 0; i < po->nsys; i++)
		if (hmap_put(&by_id, po->sys[i].id, 0, &po->sys[i]))
			goto oom;
	step_of = calloc(p->nreqs ? p->nreqs : 1, sizeof(*step_of));
	if (!step_of)
		goto oom;
	for (size_t i = 0; i < p->nreqs; i++) {
		struct plan_req *q = &p->reqs[i];
		struct rec_sys *rs = q->syscall ? hmap_get(&by_id, q->syscall, 0) : NULL;
		const struct plan_ring *r = &p->rings[q->ring - 1];
		struct plan_step *s;

		if (q->skip)
			continue;
		if (rs && rs->step != SIZE_MAX) {
			step_of[i] = rs->step;
			p->steps[rs->step].n++;
			continue;
		}
		s = new_step(p, &cap, rs ? rs->ts : q->submit_ts, q->ring);
		if (!s)
			goto oom_free;
		s->first = i;
		s->n = 1;
		if (rs) {
			rs->step = p->nsteps - 1;
			s->tid = rs->tid;
			s->to_submit_rec = rs->to_submit;
			s->submitted_rec = rs->submitted;
			s->min_complete = rs->min_complete;
			s->flags = rs->flags;
		} else {
			s->enter = !(r->setup_flags & IORING_SETUP_SQPOLL);
			/* an SQPOLL thread's submission: its ring's thread's */
			s->tid = s->enter ? q->submit_tid : 0;
			s->to_submit_rec = s->submitted_rec = 1;
		}
		step_of[i] = p->nsteps - 1;
	}
	/* Enters that only waited. */
	for (size_t i = 0; i < po->nsys; i++) {
		struct rec_sys *rs = &po->sys[i];
		struct plan_step *s;

		if (rs->step != SIZE_MAX || rs->submitted || !rs->min_complete ||
		    !(rs->flags & IORING_ENTER_GETEVENTS))
			continue;
		s = new_step(p, &cap, rs->ts, rs->ring);
		if (!s)
			goto oom_free;
		s->min_complete = rs->min_complete;
		s->flags = rs->flags;
		s->tid = rs->tid;
		rs->step = p->nsteps - 1;
	}
	/* Sort the steps, then lay the requests out step by step. */
	for (size_t i = 0; i < p->nsteps; i++)
		p->steps[i].err_ns = (int64_t)i;	/* old index, for step_of */
	if (p->nsteps)		/* qsort(NULL, 0): undefined */
		qsort(p->steps, p->nsteps, sizeof(*p->steps), by_step_ts);
	fill = calloc(p->nsteps + 1, sizeof(*fill));
	p->order = calloc(p->replayed ? p->replayed : 1, sizeof(*p->order));
	if (!fill || !p->order) {
		free(fill);
		goto oom_free;
	}
	{
		size_t *new_index = calloc(p->nsteps + 1, sizeof(*new_index)), at = 0;

		if (!new_index) {
			free(fill);
			goto oom_free;
		}
		for (size_t i = 0; i < p->nsteps; i++) {
			new_index[p->steps[i].err_ns] = i;
			p->steps[i].first = at;
			fill[i] = at;
			at += p->steps[i].n;
			p->steps[i].err_ns = 0;
		}
		for (size_t i = 0; i < p->nreqs; i++)
			if (!p->reqs[i].skip)
				p->order[fill[new_index[step_of[i]]]++] = i;
		free(new_index);
	}
	free(fill);
	free(step_of);
	hmap_free(&by_id);
	return 0;
oom_free:
	free(step_of);
oom:
	hmap_free(&by_id);
	return -1;
}

/*
 * Which replay thread replays each ring.  A ring with SINGLE_ISSUER or
 * DEFER_TASKRUN may be entered by one thread only, the one that created it
 * (6.1; the first submitter on 6.0), and a registered ring fd is the
 * thread's own: each recorded thread's rings are set up, entered and
 * reaped by a replay thread of its own.  A ring entered by several
 * recorded threads has no such thread: everything is replayed on one, in
 * recorded order, as each thread's enters could not wait for the others'.
 */
static int plan_threads(struct plan *p)
{
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct plan_step *s = &p->steps[i];
		struct plan_ring *r = &p->rings[s->ring - 1];

		if (!s->tid)
			continue;
		if (!r->tid) {
			r->tid = s->tid;
		} else if (r->tid != s->tid && !p->shared_ring) {
			p->shared_ring = r->number;
			p->shared_tid[0] = r->tid;
			p->shared_tid[1] = s->tid;
		}
	}
	for (size_t i = 0; i < p->nrings; i++)
		p->rings[i].thread = UINT_MAX;
	for (size_t i = 0; i < p->nsteps; i++) {
		struct plan_ring *r = &p->rings[p->steps[i].ring - 1];
		unsigned t;

		if (r->thread != UINT_MAX)
			continue;
		if (!r->tid)		/* SQPOLL only: its creator's */
			r->tid = r->creator_tid;
		for (t = 0; t < p->nthreads; t++)
			if (p->shared_ring || p->thread_tid[t] == r->tid)
				break;
		if (t == p->nthreads) {
			uint32_t *n = realloc(p->thread_tid, (t + 1) * sizeof(*n));

			if (!n)
				return -1;
			p->thread_tid = n;
			p->thread_tid[p->nthreads++] = p->shared_ring ? 0 : r->tid;
		}
		r->thread = t;
	}
	return 0;
}

/*
 * convert_into() with its messages (about the log: damage, losses) said
 * as this program's.
 */
static int read_log(const struct options *o, struct output *out)
{
	static const char prefix[] = "uring-convert: ";
	char *text = NULL, *line, *next;
	size_t len = 0;
	FILE *errf = open_memstream(&text, &len);
	int ret;

	if (!errf)
		return convert_into(o, out, stderr);
	ret = convert_into(o, out, errf);
	fclose(errf);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, prefix, sizeof(prefix) - 1))
			line += sizeof(prefix) - 1;
		fprintf(stderr, "uring-replay: %s\n", line);
	}
	free(text);
	return ret;
}

int plan_read(struct plan *p, const char *log, bool quiet)
{
	struct plan_out po = { .base.ops = &plan_ops, .p = p };
	struct options o = { .log_path = log, .quiet = quiet };
	size_t marked;
	int ret = 1;

	memset(p, 0, sizeof(*p));
	hmap_init(&po.target_map);
	if (read_log(&o, &po.base))
		goto out;
	/* Requests come in order of completion: submission order it is. */
	if (p->nreqs)
		qsort(p->reqs, p->nreqs, sizeof(*p->reqs), by_submit);
	/* A chain left out may take a pipe's writer with it, and a pipe left
	 * out a chain's member: until neither leaves out more. */
	do {
		if (skip_broken_chains(p))
			goto oom;
		marked = plan_streams(p);
		if (marked == SIZE_MAX)
			goto oom;
	} while (marked);
	plan_sizes(p);
	if (plan_steps(&po) || plan_threads(p))
		goto oom;
	ret = 0;
	goto out;
oom:
	fprintf(stderr, "uring-replay: %s: out of memory\n", log);
out:
	hmap_free(&po.target_map);
	free(po.sys);
	return ret;
}

void plan_free(struct plan *p)
{
	free(p->reqs);
	free(p->order);
	free(p->steps);
	free(p->rings);
	free(p->targets);
	free(p->skips);
	free(p->thread_tid);
	memset(p, 0, sizeof(*p));
}
