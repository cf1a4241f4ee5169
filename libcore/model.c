// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The request model.  Kernel facts it relies on (io_uring/io_uring.c,
 * poll.c, io-wq.c, notif.c, net.c, include/trace/events/io_uring.h,
 * 6.1 .. 6.18):
 *
 *  - submit (io_uring_submit_req, io_uring_submit_sqe before 6.4) fires in
 *    io_submit_sqe() after io_init_req() succeeded, before the request is
 *    issued; when io_init_req() fails, req_failed fires instead and the
 *    error completion follows.
 *  - link (req, target) fires right after req's submit when a chain is
 *    being assembled: target is the chain head on 6.1 and the previous
 *    member on later kernels, so the model keeps its own chain (head,
 *    last member) and uses target only to find the chain.
 *  - complete fires once the CQE was written to the CQ ring.  A CQE that
 *    does not fit fires only cqe_overflow (ring, user_data; no request),
 *    never complete as well: an overflow is a CQE of its own.  CQEs with
 *    IORING_CQE_F_MORE keep a multishot request open.  complete with
 *    req == 0 is a CQE of no request (MSG_RING into this ring, ...).
 *  - task_work_run (tctx_task_work_run) and local_work_run
 *    (__io_run_local_work) fire at the END of a task-work batch, after the
 *    batch's completions were flushed, with the number of items run: the
 *    last <count> completions on that thread were posted by task work.
 *  - poll_arm fires in io_arm_poll_handler() when async poll was armed;
 *    task_add fires in __io_poll_execute() when a poll (async or
 *    IORING_OP_POLL_ADD) is woken and queues task work.
 *  - A zero-copy send completes with IORING_CQE_F_MORE, then its
 *    notification (IORING_CQE_F_NOTIF) is posted for a request of its own
 *    (io_alloc_notif(): another pointer, never submitted, same user_data):
 *    the notification ends the send.
 *  - IOSQE_CQE_SKIP_SUCCESS: a request posts its CQE only if it failed
 *    (req_set_fail() turns REQ_F_CQE_SKIP into REQ_F_SKIP_LINK_CQES, and
 *    io_fail_links() then sets REQ_F_CQE_SKIP on every member it cancels).
 *    A success leaves no event: the model ends such a request only where
 *    the log proves it finished (see req_close_skipped()'s callers).
 *  - Request and ring pointers are reused by the kernel.
 *  - A sampled recording (uring-record --sample) holds the events of the
 *    requests chosen at submission, and all events of no request: an
 *    event of a request not seen submitted, or a CQE of no request that
 *    matches no sampled one (multishot, notification, overflow), belongs
 *    to a request sampled away, and is counted as such, not as a request.
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "sanitizer.h"
#include "iowq.h"
#include "model.h"
#include "reap.h"
#include "model_files.h"

#define IOSQE_IO_DRAIN_BIT		(1u << 1)
#define IOSQE_LINK_BITS			((1u << 2) | (1u << 3))	/* IO_LINK, IO_HARDLINK */
#define IOSQE_ASYNC_BIT			(1u << 4)
#define IOSQE_CQE_SKIP_SUCCESS_BIT	(1u << 6)
#define IORING_OP_NOP_VALUE		0
#define IORING_OP_LINK_TIMEOUT_VALUE	15
#define IORING_CQE_F_MORE_BIT		(1u << 1)
#define IORING_CQE_F_NOTIF_BIT		(1u << 3)
#define IORING_CQE_F_32_BIT		(1u << 15)	/* 6.18 CQE_MIXED: two slots */
#define IORING_OP_SEND_ZC_VALUE		47
#define IORING_OP_SENDMSG_ZC_VALUE	48
#define IORING_SETUP_IOPOLL_BIT		(1u << 0)
#define IORING_SETUP_SQPOLL_BIT		(1u << 1)
#define ECANCELED_VALUE			125
#define ETIME_VALUE			62
#define HELD_MAX			1024

struct req;

struct chain {
	uint64_t id;			/* head's request id */
	uint32_t len;
	struct req **members;		/* by chain_pos; NULL once delivered */
	size_t cap;
	uint32_t scan_from;		/* members before it: nothing left to end */
	unsigned refs;
	/* The last member to post a final CQE (not a cancelled one) had
	 * IOSQE_CQE_SKIP_SUCCESS: it failed (req_set_fail() clears
	 * REQ_F_CQE_SKIP and sets REQ_F_SKIP_LINK_CQES), so the members
	 * io_fail_links() cancels get no CQE. */
	bool skip_link_cqes;
};

struct syscall_state;

struct task_state {
	struct model_task t;
	struct syscall_state *open_sys;
	struct req **held;		/* finished, awaiting the end of a tw batch */
	size_t nheld, heldcap;
	uint64_t last_activity_ts;	/* io-wq worker: last switch-in / completion */
	struct req *current_work;	/* io-wq worker: request of the last work_begin */
	bool is_worker_guess;
	bool uses_io_uring;		/* submitted, entered or ran io_uring task work */
	bool traced_work;		/* io-wq worker with work_begin/work_end events */
	enum iowq_acct iowq_acct;	/* io-wq worker: its pool, from the work it ran */
};

struct ring_state {
	struct model_ring r;
	int64_t inflight, iowq;
	struct syscall_state **enters;	/* enter slices open on this ring */
	size_t nenters, entercap;
	uint32_t *workers;
	size_t nworkers;
	bool had_events;
	/* The last request submitted with IOSQE_IO_LINK/HARDLINK: a chain is
	 * being assembled (io_submit_sqe() under the ring's uring_lock). */
	struct req *link_tail;
	bool drain_seen;		/* a submission had IOSQE_IO_DRAIN */
	struct reap_ring reap;		/* CQ indices of its CQEs, reaping (reap.h) */
	struct iowq_ring wq;		/* hashed work by key, workers by pool (iowq.h) */
};

struct req {
	struct model_request r;
	struct ring_state *ring;
	bool open;			/* in m->reqs */
	bool counted_inflight, in_iowq;
	bool tentative_inline;
	bool link_marker_sent;
	uint64_t async_req_flags;	/* REQ_F_* of the first queue_async_work */
	bool ud_indexed;		/* in m->by_user_data's list for its key */
	struct req *ud_prev, *ud_next;	/* that list: circular, oldest first */
	uint64_t loss_seq_at_open;
	bool loss_covered;
	bool by_end;			/* opened by cfg.end_ns: counted in open_by_end */
	struct chain *chain;
	/*
	 * The one thread that may point at this request through its
	 * current_work (the last worker to begin it): req_emit() clears that
	 * pointer, so that no thread is left pointing at a request that is
	 * gone (a log with two work_begins for one request, then its ring
	 * re-created).  Tasks live as long as the model.
	 */
	struct task_state *work_task;
	struct reap_entry reap;		/* its final CQE, until reaped */
	unsigned iowq_key;		/* in io-wq as hashed work: hash key + 1 */
	struct req *deliver_next;	/* m->deliver queue */
};

struct syscall_state {
	struct model_syscall s;
	struct ring_state *ring;
	uint64_t loss_seq_at_begin;
	bool loss_covered;
	bool by_end;			/* began by cfg.end_ns: counted in open_by_end */
};

/*
 * Freed requests and syscall states, kept for reuse: a log has millions of
 * each, every one allocated and freed once, and calloc() and free() were a
 * tenth of a summary's instructions (glibc's calloc() never takes from the
 * thread cache; GCC turns malloc() + memset() back into calloc()).  At
 * most SPARES_MAX are kept, so memory still follows what is open.
 */
#if RINGSIDE_ASAN
#define SPARES_MAX 0	/* AddressSanitizer must see every use after free */
#else
#define SPARES_MAX 64
#endif

struct spare {
	struct spare *next;
};

struct spares {
	struct spare *head;
	unsigned n;
};

struct model {
	struct model_config cfg;
	struct output *out;
	const struct output_ops *ops;
	struct hmap tasks, rings, reqs, fds;
	struct hmap by_user_data;	/* (ring, user_data) -> oldest open submitted request */
	struct model_files *files;	/* EV_FILE records (model_files.c) */
	struct ring_state **ring_list;
	size_t nrings, ringcap;
	uint64_t next_req_id, next_sys_id;
	struct spares spare_reqs, spare_syscalls;
	/* Finished requests, in the order they finished, each delivered once
	 * it and all before it know when their CQE was reaped (or never
	 * will): the order of request() is the order without reaping. */
	struct req *deliver_head, *deliver_tail;
	size_t deliver_len;
	uint64_t loss_seq, loss_max_end;
	uint64_t cur_req;		/* request the current record refers to */
	uint64_t now;
	bool oom;
	/* totals */
	uint64_t requests, syscalls, unpaired, aux_cqes, unmatched;
	uint64_t sampled_away;		/* events of requests not sampled */
	uint64_t open_by_end;		/* requests, syscalls begun by cfg.end_ns, not delivered */
	struct model_task **task_array;
	struct model_ring **ring_array;
};

/* ------------------------------------------------------------ allocation */

static void *zalloc(struct model *m, size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		m->oom = true;
	return p;
}

/* A zeroed object of size bytes, from the spares if there is one. */
static void *spare_get(struct model *m, struct spares *sp, size_t size)
{
	struct spare *p = sp->head;

	if (!p)
		return zalloc(m, size);
	sp->head = p->next;
	sp->n--;
	return memset(p, 0, size);
}

static void spare_put(struct spares *sp, void *obj)
{
	struct spare *p = obj;

	if (!p)
		return;
	if (sp->n == SPARES_MAX) {
		free(p);
		return;
	}
	p->next = sp->head;
	sp->head = p;
	sp->n++;
}

static void spares_free(struct spares *sp)
{
	while (sp->head) {
		struct spare *p = sp->head;

		sp->head = p->next;
		free(p);
	}
	sp->n = 0;
}

static bool grow(struct model *m, void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t c;
	void *p;

	if (need <= *cap)
		return true;
	c = *cap ? *cap * 2 : 8;
	while (c < need)
		c *= 2;
	p = realloc(*arr, c * elem);
	if (!p) {
		m->oom = true;
		return false;
	}
	*arr = p;
	*cap = c;
	return true;
}

/* ------------------------------------------------------------- tasks */

static void announce_task(struct model *m, struct task_state *ts)
{
	if (m->ops->task)
		m->ops->task(m->out, &ts->t);
}

static void classify_task(struct task_state *ts)
{
	const char *c = ts->t.comm;

	if (!strncmp(c, "iou-sqp-", 8))
		ts->t.kind = TASK_SQPOLL;
	else if (!strncmp(c, "iou-wrk-", 8))
		ts->t.kind = TASK_IOWQ_WORKER;
	else if (ts->t.task_flags & EV_PF_KTHREAD && !(ts->t.task_flags & EV_PF_IO_WORKER))
		ts->t.kind = TASK_KERNEL;
}

static struct task_state *task_get(struct model *m, uint32_t tid, uint32_t pid)
{
	struct task_state *ts = hmap_get(&m->tasks, tid, 0);

	if (ts) {
		bool changed = false;

		if (!ts->t.pid && pid) {
			ts->t.pid = pid;
			changed = true;
		}
		if (m->now && (!ts->t.first_ts || m->now < ts->t.first_ts))
			ts->t.first_ts = m->now;
		if (m->now > ts->t.last_ts)
			ts->t.last_ts = m->now;
		if (changed)
			announce_task(m, ts);
		return ts;
	}
	ts = zalloc(m, sizeof(*ts));
	if (!ts)
		return NULL;
	ts->t.tid = tid;
	ts->t.pid = pid;
	ts->t.first_ts = ts->t.last_ts = m->now;
	if (hmap_put(&m->tasks, tid, 0, ts)) {
		free(ts);
		m->oom = true;
		return NULL;
	}
	announce_task(m, ts);
	return ts;
}

static void task_add_ring(struct model *m, struct task_state *ts, const struct ring_state *rs)
{
	if (!ts || !rs)
		return;
	for (unsigned i = 0; i < ts->t.nrings; i++)
		if (ts->t.rings[i] == rs->r.number)
			return;
	if (ts->t.nrings < MODEL_TASK_MAX_RINGS) {
		ts->t.rings[ts->t.nrings++] = rs->r.number;
		announce_task(m, ts);
	}
}

static void task_set_kind(struct model *m, struct task_state *ts, enum task_kind kind)
{
	if (ts && ts->t.kind != kind) {
		ts->t.kind = kind;
		announce_task(m, ts);
	}
}

/* ------------------------------------------------------------- rings */

static void announce_ring(struct model *m, struct ring_state *rs)
{
	if (m->ops->ring)
		m->ops->ring(m->out, &rs->r);
}

static struct ring_state *ring_new(struct model *m, uint64_t id, unsigned generation)
{
	struct ring_state *rs = zalloc(m, sizeof(*rs));

	if (!rs)
		return NULL;
	if (!grow(m, (void **)&m->ring_list, &m->ringcap, m->nrings + 1, sizeof(*m->ring_list))) {
		free(rs);
		return NULL;
	}
	rs->r.number = (unsigned)m->nrings + 1;
	rs->r.ring_id = id;
	rs->r.generation = generation;
	rs->r.fd = -1;
	rs->r.first_ts = rs->r.last_ts = m->now;
	if (hmap_put(&m->rings, id, 0, rs)) {
		free(rs);
		m->oom = true;
		return NULL;
	}
	m->ring_list[m->nrings++] = rs;
	return rs;
}

static struct ring_state *ring_get(struct model *m, uint64_t id)
{
	struct ring_state *rs;

	if (!id)
		return NULL;
	rs = hmap_get(&m->rings, id, 0);
	if (!rs) {
		rs = ring_new(m, id, 0);
		if (rs)
			announce_ring(m, rs);
	}
	if (rs) {
		rs->had_events = true;
		if (m->now > rs->r.last_ts)
			rs->r.last_ts = m->now;
	}
	return rs;
}

/* A user thread (not an io_uring kernel thread) acting on a ring owns it. */
static void ring_learn_owner(struct model *m, struct ring_state *rs, const struct task_state *ts)
{
	if (!rs || !ts || rs->r.pid || ts->t.kind != TASK_THREAD || !ts->t.pid)
		return;
	rs->r.pid = ts->t.pid;
	rs->r.tid = ts->t.tid;
	announce_ring(m, rs);
}

static void counter(struct model *m, enum counter_kind kind, const struct ring_state *rs,
		    int64_t value)
{
	struct model_counter c;

	if (!m->ops->counter || !rs)
		return;
	c = (struct model_counter){ .ring = &rs->r, .ts = m->now, .n = 1, .kind = { kind },
				    .value = { value } };
	m->ops->counter(m->out, &c);
}

static void ring_add_worker(struct model *m, struct ring_state *rs, struct task_state *w)
{
	if (!rs || !w)
		return;
	task_add_ring(m, w, rs);
	for (size_t i = 0; i < rs->nworkers; i++)
		if (rs->workers[i] == w->t.tid)
			return;
	uint32_t *p = realloc(rs->workers, (rs->nworkers + 1) * sizeof(*p));

	if (!p) {
		m->oom = true;
		return;
	}
	rs->workers = p;
	rs->workers[rs->nworkers++] = w->t.tid;
	rs->r.iowq_workers = (unsigned)rs->nworkers;
	announce_ring(m, rs);
}

/*
 * Worker w ran (or finished) rq's work on rs: a worker stays in the io-wq
 * pool it was created for, so the first work with known flags it is seen
 * with gives its pool; from then on it counts among rs's workers of that
 * pool until it exits.
 */
static void worker_served(struct model *m, struct ring_state *rs, struct task_state *w,
			  const struct req *rq)
{
	int added;

	if (!rs || !w)
		return;
	if (w->iowq_acct == IOWQ_ACCT_UNKNOWN && rq && rq->r.work_flags_valid)
		w->iowq_acct = iowq_work_acct(rq->r.work_flags);
	added = iowq_worker_served(&rs->wq, &rs->r, w->t.tid, w->iowq_acct);
	if (added < 0) {
		m->oom = true;
		return;
	}
	if (!added)
		return;
	counter(m, w->iowq_acct == IOWQ_ACCT_BOUND ? COUNTER_IOWQ_BOUND_WORKERS :
		COUNTER_IOWQ_UNBOUND_WORKERS, rs, rs->wq.alive[w->iowq_acct]);
	announce_ring(m, rs);
}

/* An io-wq worker exited: it no longer counts for the rings it served. */
static void worker_exited(struct model *m, struct task_state *w)
{
	for (unsigned i = 0; i < w->t.nrings; i++) {
		struct ring_state *rs;
		enum iowq_acct acct;

		if (!w->t.rings[i] || w->t.rings[i] > m->nrings)
			continue;
		rs = m->ring_list[w->t.rings[i] - 1];
		acct = iowq_worker_exited(&rs->wq, w->t.tid);
		if (acct != IOWQ_ACCT_UNKNOWN)
			counter(m, acct == IOWQ_ACCT_BOUND ? COUNTER_IOWQ_BOUND_WORKERS :
				COUNTER_IOWQ_UNBOUND_WORKERS, rs, rs->wq.alive[acct]);
	}
}

static void marker_id(struct model *m, enum marker_kind kind, const struct ev_header *h,
		      const struct ring_state *rs, uint64_t request_id, int64_t value,
		      uint64_t user_data, uint64_t a, uint64_t b, uint64_t c)
{
	struct model_marker mk = {
		.kind = kind, .ts = h->ts, .tid = h->tid, .pid = h->tgid,
		.ring = rs ? &rs->r : NULL, .request_id = request_id,
		.user_data = user_data, .value = value, .a = a, .b = b, .c = c,
	};

	if (m->ops->marker)
		m->ops->marker(m->out, &mk);
}

static void marker(struct model *m, enum marker_kind kind, const struct ev_header *h,
		   const struct ring_state *rs, const struct req *rq, int64_t value,
		   uint64_t user_data, uint64_t a, uint64_t b, uint64_t c)
{
	marker_id(m, kind, h, rs, rq ? rq->r.id : 0, value, user_data, a, b, c);
}

/* ------------------------------------------------------------- requests */

static struct req *req_new(struct model *m, struct ring_state *rs, uint64_t req_ptr)
{
	struct req *rq = spare_get(m, &m->spare_reqs, sizeof(*rq));

	if (!rq)
		return NULL;
	rq->r.id = ++m->next_req_id;
	rq->r.ring = &rs->r;
	rq->r.req_ptr = req_ptr;
	rq->r.fd = -1;
	rq->ring = rs;
	rq->loss_seq_at_open = m->loss_seq;
	rq->loss_covered = m->loss_seq && m->now <= m->loss_max_end;
	if (hmap_put(&m->reqs, rs->r.ring_id, req_ptr, rq)) {
		spare_put(&m->spare_reqs, rq);
		m->oom = true;
		return NULL;
	}
	rq->open = true;
	rq->by_end = m->now <= m->cfg.end_ns;
	m->open_by_end += rq->by_end;
	m->requests++;
	return rq;
}

/* The request is no longer queued to or running in io-wq. */
static void iowq_leave(struct model *m, struct req *rq)
{
	if (!rq->in_iowq)
		return;
	rq->in_iowq = false;
	counter(m, COUNTER_IOWQ, rq->ring, --rq->ring->iowq);
	iowq_left(&rq->ring->wq, rq->iowq_key);
	rq->iowq_key = 0;
}

static void req_unlink_open(struct model *m, struct req *rq)
{
	if (rq->ud_indexed) {
		uint64_t key = (uint64_t)(uintptr_t)rq->ring;

		if (rq->ud_next == rq) {
			hmap_del(&m->by_user_data, key, rq->r.user_data);
		} else {
			rq->ud_prev->ud_next = rq->ud_next;
			rq->ud_next->ud_prev = rq->ud_prev;
			if (hmap_get(&m->by_user_data, key, rq->r.user_data) == rq &&
			    hmap_put(&m->by_user_data, key, rq->r.user_data, rq->ud_next))
				m->oom = true;
		}
		rq->ud_prev = rq->ud_next = NULL;
		rq->ud_indexed = false;
	}
	if (rq->open) {
		hmap_del(&m->reqs, rq->ring->r.ring_id, rq->r.req_ptr);
		rq->open = false;
	}
	if (rq->counted_inflight) {
		rq->counted_inflight = false;
		counter(m, COUNTER_INFLIGHT, rq->ring, --rq->ring->inflight);
	}
	iowq_leave(m, rq);
}

static bool lost_during(const struct model *m, const struct req *rq)
{
	return rq->loss_covered || m->loss_seq > rq->loss_seq_at_open;
}

static void chain_put(struct chain *c)
{
	if (--c->refs)
		return;
	free(c->members);
	free(c);
}

/*
 * Operations with no non-blocking path at all: io_issue_sqe() with
 * IO_URING_F_NONBLOCK returns -EAGAIN at once (io_fsync, io_fallocate,
 * io_sync_file_range, io_madvise) or their prep sets REQ_F_FORCE_ASYNC
 * (the path-name and xattr operations, 6.1 onwards).  UAPI opcode numbers.
 */
static bool op_never_nowait(uint8_t op)
{
	switch (op) {
	case 3:		/* FSYNC */
	case 8:		/* SYNC_FILE_RANGE */
	case 17:	/* FALLOCATE */
	case 25:	/* MADVISE */
	case 35: case 36: case 37: case 38: case 39:	/* RENAMEAT .. LINKAT */
	case 40: case 41: case 42: case 43:		/* F/SETXATTR, F/GETXATTR */
		return true;
	}
	return false;
}

/*
 * Why the request did not complete inline (uring-convert(1), MODEL).
 * Being held back (drain, link) comes first: whatever happened after was
 * caused by the release, not by the submission.
 */
static enum req_path_reason path_reason(const struct req *rq)
{
	const struct model_request *r = &rq->r;
	/* REQ_F_FORCE_ASYNC_BIT is IOSQE_ASYNC_BIT in every kernel; the
	 * submit's req_flags are read after io_init_req(), so they hold what
	 * the prep forced as well as what the SQE asked. */
	uint64_t forced = (r->sqe_valid ? r->req_flags : 0) | rq->async_req_flags;
	uint8_t asked = r->sqe_fields_valid ? r->sqe_flags : (uint8_t)forced;

	switch (r->path) {
	case PATH_INLINE:
	case PATH_FAILED:
		return PR_NONE;
	case PATH_UNKNOWN:
	case PATH_IOPOLL:
		return PR_UNKNOWN;
	default:
		break;
	}
	if (r->defer_ts)
		return PR_DRAIN;
	if (r->chain_id && r->chain_pos > 0)
		return PR_LINK;
	if (asked & IOSQE_ASYNC_BIT)
		return PR_SQE_ASYNC;
	switch (r->path) {
	case PATH_IOWQ:
		if ((forced & IOSQE_ASYNC_BIT) || op_never_nowait(r->opcode))
			return PR_IOWQ_NO_NOWAIT;
		return PR_IOWQ_AFTER_EAGAIN;
	case PATH_POLL:
		/* io_arm_poll_handler() runs only after the inline issue
		 * returned -EAGAIN; a task_add alone is a POLL_ADD's wake-up. */
		return r->poll_arm_ts ? PR_POLL_ARMED : PR_TW_AFTER_POLL;
	case PATH_TASK_WORK:
		return PR_TW_AFTER_COMPLETION;
	default:
		return PR_UNKNOWN;
	}
}

/*
 * Finished requests wait for their CQE to be reaped at most this many
 * deep; beyond, the oldest is delivered with its reaping unknown, so that
 * memory follows what is open, not the log (a ring whose application
 * never enters the kernel, e.g. SQPOLL with a busy-polled CQ, is bounded
 * by its ring size much earlier: reap.h).
 */
#define DELIVER_MAX 65536

static void deliver_now(struct model *m, struct req *rq)
{
	const struct reap_entry *re = &rq->reap;

	rq->r.cq_index_valid = re->posted_ts != 0;
	rq->r.cq_index = re->index;
	rq->r.cq_index_upper = re->index_shifted;
	rq->r.reaped_ts = re->reaped_ts;
	rq->r.reaped_by_capacity = re->reaped_by_capacity;
	if (m->ops->request)
		m->ops->request(m->out, &rq->r);
	m->open_by_end -= rq->by_end;
	spare_put(&m->spare_reqs, rq);
}

/* Deliver the queue's head while it no longer waits for its reaping. */
static void deliver_ready(struct model *m)
{
	struct req *rq;

	while ((rq = m->deliver_head) && !rq->reap.queued) {
		m->deliver_head = rq->deliver_next;
		if (!m->deliver_head)
			m->deliver_tail = NULL;
		m->deliver_len--;
		deliver_now(m, rq);
	}
}

static void deliver(struct model *m, struct req *rq)
{
	if (!rq->reap.queued && !m->deliver_head) {
		deliver_now(m, rq);
		return;
	}
	rq->deliver_next = NULL;
	if (m->deliver_tail)
		m->deliver_tail->deliver_next = rq;
	else
		m->deliver_head = rq;
	m->deliver_tail = rq;
	if (++m->deliver_len > DELIVER_MAX) {
		struct req *old = m->deliver_head;

		reap_remove(&old->ring->reap, &old->reap);
	}
	deliver_ready(m);
}

/* A CQE reached the CQ ring (not an overflow): give it its index. */
static void reap_cqe(struct model *m, struct ring_state *rs, struct req *rq,
		     const struct ev_complete *e, bool overflowed)
{
	if (overflowed)
		return;
	if (reap_posted(&rs->reap, rq ? &rq->reap : NULL, e->ts,
			e->cflags & IORING_CQE_F_32_BIT ? 2 : 1))
		deliver_ready(m);
}

/* Stop waiting for reapings on rs (ring gone, end of the log). */
static void reap_give_up(struct model *m, struct ring_state *rs)
{
	reap_forget(&rs->reap);
	deliver_ready(m);
}

/* Deliver a finished request (once its reaping is known) and free it. */
static void req_emit(struct model *m, struct req *rq)
{
	req_unlink_open(m, rq);
	if (rq->tentative_inline) {
		rq->r.path = PATH_INLINE;
		rq->tentative_inline = false;
	}
	rq->r.path_reason = path_reason(rq);
	if (rq->ring->link_tail == rq)
		rq->ring->link_tail = NULL;
	if (rq->chain) {
		rq->chain->members[rq->r.chain_pos] = NULL;
		chain_put(rq->chain);
		rq->chain = NULL;
	}
	if (rq->work_task && rq->work_task->current_work == rq)
		rq->work_task->current_work = NULL;
	rq->ring->r.requests++;
	deliver(m, rq);
}

/* Path from the async steps seen; PATH_UNKNOWN when there were none. */
static enum req_path async_path(struct req *rq)
{
	uint64_t q = rq->r.queue_async_ts;
	uint64_t p = rq->r.poll_arm_ts ? rq->r.poll_arm_ts : rq->r.task_add_ts;

	if (q && p) {
		rq->r.modifiers |= REQM_POLL_AND_IOWQ;
		return q <= p ? PATH_IOWQ : PATH_POLL;
	}
	if (q)
		return PATH_IOWQ;
	if (p)
		return PATH_POLL;
	return PATH_UNKNOWN;
}

/* Close a request that will never see its completion (end, reuse, ...). */
static void req_close_open(struct model *m, struct req *rq, enum req_status status,
			   enum req_incomplete_reason why)
{
	if (rq->r.path != PATH_FAILED)
		rq->r.path = async_path(rq);
	if (status == REQ_IN_FLIGHT_AT_END && lost_during(m, rq)) {
		status = REQ_INCOMPLETE;
		why = INCOMPLETE_LOSS;
	}
	rq->r.status = status;
	rq->r.incomplete_reason = status == REQ_INCOMPLETE ? why : INCOMPLETE_NONE;
	if (status == REQ_INCOMPLETE && rq->r.path != PATH_FAILED)
		rq->r.path = PATH_UNKNOWN;
	req_emit(m, rq);
}

static bool req_skips_cqe(const struct req *rq)
{
	return rq->r.sqe_valid && (rq->r.sqe_flags & IOSQE_CQE_SKIP_SUCCESS_BIT);
}

/* rq finished without a CQE: IOSQE_CQE_SKIP_SUCCESS and no failure, or a
 * link member whose CQE io_fail_links() suppressed.  Unless a loss could
 * hide a CQE, it is complete (cqe_skipped, no completion time). */
static void req_close_skipped(struct model *m, struct req *rq)
{
	if (lost_during(m, rq)) {
		req_close_open(m, rq, REQ_INCOMPLETE, INCOMPLETE_LOSS);
		return;
	}
	rq->r.modifiers |= REQM_CQE_SKIPPED;
	if (rq->r.path == PATH_UNKNOWN)
		rq->r.path = async_path(rq);
	rq->r.status = REQ_COMPLETE;
	req_emit(m, rq);
}

/* A new submission for a key that is still open: the old request ended
 * without us seeing it (CQE skipped on success, or its events were lost). */
static void req_close_reused(struct model *m, struct req *old)
{
	if (req_skips_cqe(old)) {
		req_close_skipped(m, old);
		return;
	}
	req_close_open(m, old, REQ_INCOMPLETE,
		       lost_during(m, old) ? INCOMPLETE_LOSS : INCOMPLETE_POINTER_REUSED);
}

/* The request an event refers to; created (submit unknown) if absent. */
static struct req *req_lookup(struct model *m, struct ring_state *rs, uint64_t req_ptr,
			      bool create)
{
	struct req *rq;

	if (!rs || !req_ptr)
		return NULL;
	rq = hmap_get(&m->reqs, rs->r.ring_id, req_ptr);
	if (!rq && create && m->cfg.sample_every > 1) {
		m->sampled_away++;
		return NULL;
	}
	if (!rq && create)
		rq = req_new(m, rs, req_ptr);
	if (rq && !m->cur_req)
		m->cur_req = rq->r.id;	/* the record's first request is its own */
	return rq;
}

/*
 * Index a request just submitted (submit or req_failed: the only requests
 * with sqe_valid, whose user_data then never changes) under (ring,
 * user_data).  It has the highest id so far, so appending keeps each list
 * oldest first.  An index kept up to date, not a scan per lookup: an
 * overflow storm, or CQEs of no known request, would otherwise
 * cost a scan of every open request each.
 */
static void req_index_user_data(struct model *m, struct req *rq)
{
	uint64_t key = (uint64_t)(uintptr_t)rq->ring;
	struct req *head = hmap_get(&m->by_user_data, key, rq->r.user_data);

	if (!head) {
		if (hmap_put(&m->by_user_data, key, rq->r.user_data, rq)) {
			m->oom = true;
			return;
		}
		rq->ud_prev = rq->ud_next = rq;
	} else {
		rq->ud_prev = head->ud_prev;
		rq->ud_next = head;
		head->ud_prev->ud_next = rq;
		head->ud_prev = rq;
	}
	rq->ud_indexed = true;
}

/*
 * The oldest open request of a ring with this user_data that was submitted
 * (CQEs that carry no request pointer: overflows, multishot CQEs
 * posted through io_req_post_cqe()/io_fill_cqe_aux()).
 */
static struct req *req_by_user_data(struct model *m, struct ring_state *rs, uint64_t user_data)
{
	struct req *rq = hmap_get(&m->by_user_data, (uint64_t)(uintptr_t)rs, user_data);

	if (rq && !m->cur_req)
		m->cur_req = rq->r.id;
	return rq;
}

static bool req_is_zc_send(const struct req *rq)
{
	return rq->r.opcode == IORING_OP_SEND_ZC_VALUE ||
	       rq->r.opcode == IORING_OP_SENDMSG_ZC_VALUE;
}

/*
 * The zero-copy send whose notification this CQE is.  io_send_zc_prep()
 * gives the notification a request of its own (io_alloc_notif(): another
 * pointer, never submitted) with the send's user_data and
 * IORING_CQE_F_NOTIF; the send completes first with IORING_CQE_F_MORE
 * once sock_sendmsg() was called, and the notification follows when the
 * network stack releases the buffers (task work of the submitter, or a
 * kworker when the task is gone).  So: the oldest open SEND_ZC or
 * SENDMSG_ZC of the ring with this user_data that already posted its
 * first CQE.
 */
static struct req *req_zc_of_notif(struct model *m, struct ring_state *rs, uint64_t user_data)
{
	struct req *head = hmap_get(&m->by_user_data, (uint64_t)(uintptr_t)rs, user_data);
	struct req *rq = head;

	if (!head)
		return NULL;
	do {
		if (req_is_zc_send(rq) && rq->r.ncqes) {
			if (!m->cur_req)
				m->cur_req = rq->r.id;
			return rq;
		}
		rq = rq->ud_next;
	} while (rq != head);
	return NULL;
}

/* ----------------------------------------------------- held completions */

static void held_flush(struct model *m, struct task_state *ts)
{
	size_t n;

	if (!ts || !ts->nheld)
		return;
	/* Emitting may not touch ts->held (req_emit does not), so walk it. */
	n = ts->nheld;
	ts->nheld = 0;
	for (size_t i = 0; i < n; i++)
		req_emit(m, ts->held[i]);
}

/*
 * Hold a finished request on its completing thread until that thread's next
 * boundary (submit, enter, cqring_wait, end of a task-work batch, work_end):
 * only there is its path final and its task-work batch known.  Threads that
 * never run io_uring task work (interrupted bystanders, io-wq workers when
 * their work is not traced) deliver at once.
 */
static void held_push(struct model *m, struct task_state *ts, struct req *rq)
{
	bool hold = ts && (ts->uses_io_uring || ts->t.tid == rq->r.submit_tid ||
			   ts->traced_work);

	if (!hold) {
		req_emit(m, rq);
		return;
	}
	if (ts->nheld == HELD_MAX) {
		struct req *oldest = ts->held[0];

		memmove(ts->held, ts->held + 1, (ts->nheld - 1) * sizeof(*ts->held));
		ts->nheld--;
		req_emit(m, oldest);
	}
	if (!grow(m, (void **)&ts->held, &ts->heldcap, ts->nheld + 1, sizeof(*ts->held))) {
		req_emit(m, rq);
		return;
	}
	ts->held[ts->nheld++] = rq;
}

/* The end of a task-work batch of count items on this thread (for one
 * ring when rs != NULL): the last count completions were task work. */
static void task_work_batch(struct model *m, struct task_state *ts, struct ring_state *rs,
			    uint64_t count)
{
	if (!ts)
		return;
	ts->uses_io_uring = true;
	for (size_t i = ts->nheld; i > 0 && count > 0; i--) {
		struct req *rq = ts->held[i - 1];

		if (rs && rq->ring != rs)
			continue;
		count--;
		if (rq->r.tw_run_ts)
			continue;
		rq->r.tw_run_ts = m->now;
		rq->r.tw_run_tid = ts->t.tid;
		if (rq->tentative_inline) {
			rq->tentative_inline = false;
			rq->r.path = PATH_TASK_WORK;
		}
	}
	held_flush(m, ts);
}

/* ------------------------------------------------------------- syscalls */

static void sys_detach(struct syscall_state *ss)
{
	struct ring_state *rs = ss->ring;

	if (!rs)
		return;
	for (size_t i = 0; i < rs->nenters; i++) {
		if (rs->enters[i] == ss) {
			rs->enters[i] = rs->enters[--rs->nenters];
			break;
		}
	}
	ss->ring = NULL;
}

static void sys_unpaired(struct model *m, const struct ev_header *h, enum syscall_kind kind,
			 bool begin, const struct ring_state *rs)
{
	m->unpaired++;
	marker(m, MARK_UNPAIRED_SYSCALL, h, rs, NULL, 0, 0, kind, begin, 0);
}

/* A syscall's state is done with: delivered, dropped or never begun. */
static void sys_free(struct model *m, struct syscall_state *ss)
{
	m->open_by_end -= ss->by_end;
	spare_put(&m->spare_syscalls, ss);
}

/* Drop an open slice whose end never came. */
static void sys_drop_open(struct model *m, struct task_state *ts)
{
	struct syscall_state *ss = ts->open_sys;
	struct ev_header h = { .ts = ss->s.begin_ts, .tid = ss->s.tid, .tgid = ss->s.pid };

	sys_unpaired(m, &h, ss->s.kind, true, ss->ring);
	sys_detach(ss);
	ts->open_sys = NULL;
	sys_free(m, ss);
}

static struct syscall_state *sys_begin(struct model *m, struct task_state *ts,
				       const struct ev_header *h, enum syscall_kind kind,
				       struct ring_state *rs)
{
	struct syscall_state *ss;

	if (!ts)
		return NULL;
	if (ts->open_sys)
		sys_drop_open(m, ts);
	ss = spare_get(m, &m->spare_syscalls, sizeof(*ss));
	if (!ss)
		return NULL;
	ss->s.id = ++m->next_sys_id;
	ss->s.kind = kind;
	ss->s.tid = h->tid;
	ss->s.pid = h->tgid;
	ss->s.begin_ts = h->ts;
	ss->s.fd = -1;
	ss->s.ring = rs ? &rs->r : NULL;
	ss->ring = rs;
	ss->loss_seq_at_begin = m->loss_seq;
	ss->loss_covered = m->loss_seq && h->ts <= m->loss_max_end;
	ss->by_end = h->ts <= m->cfg.end_ns;
	m->open_by_end += ss->by_end;
	if (rs && kind == SYS_ENTER) {
		if (!grow(m, (void **)&rs->enters, &rs->entercap, rs->nenters + 1,
			  sizeof(*rs->enters))) {
			sys_free(m, ss);
			return NULL;
		}
		rs->enters[rs->nenters++] = ss;
	}
	ts->open_sys = ss;
	return ss;
}

static struct syscall_state *sys_end(struct model *m, struct task_state *ts,
				     const struct ev_header *h, enum syscall_kind kind)
{
	struct syscall_state *ss = ts ? ts->open_sys : NULL;

	if (!ss || ss->s.kind != kind) {
		sys_unpaired(m, h, kind, false, NULL);
		return NULL;
	}
	ss->s.end_ts = h->ts;
	return ss;
}

static void sys_emit(struct model *m, struct task_state *ts, struct syscall_state *ss)
{
	ss->s.events_lost = ss->loss_covered || m->loss_seq > ss->loss_seq_at_begin;
	sys_detach(ss);
	ts->open_sys = NULL;
	m->syscalls++;
	if (m->ops->syscall)
		m->ops->syscall(m->out, &ss->s);
	sys_free(m, ss);
}

/* -------------------------------------------------------------- events */

static void on_lost(struct model *m, const struct ev_lost *e, unsigned cpu)
{
	struct model_loss l = {
		.cpu = cpu,
		.source = e->flags & EVF_LOSS_USER ? LOSS_RECORDER :
			  e->flags & EVF_LOSS_AT_STOP ? LOSS_AT_STOP : LOSS_KERNEL,
		.first_ts = e->ts,
		.last_ts = e->last_ts >= e->ts ? e->last_ts : e->ts,
		.count = e->count,
	};

	model_loss(m, &l);
}

static void on_task(struct model *m, const struct ev_task *e)
{
	struct task_state *ts = task_get(m, e->subject_tid, e->subject_tgid);

	if (!ts)
		return;
	if (e->subject_tgid)
		ts->t.pid = e->subject_tgid;
	if (e->parent_tgid)
		ts->t.ppid = e->parent_tgid;
	memcpy(ts->t.comm, e->comm, EV_COMM_LEN);
	ts->t.comm[EV_COMM_LEN] = '\0';
	ts->t.name_known = true;
	ts->t.task_flags = e->task_flags;
	classify_task(ts);
	announce_task(m, ts);
}

static void on_task_exit(struct model *m, const struct ev_task_exit *e, struct task_state *ts)
{
	if (!ts)
		return;
	held_flush(m, ts);
	if (ts->open_sys)
		sys_drop_open(m, ts);
	ts->t.exit_ts = e->ts;
	ts->t.exit_code = e->exit_code;
	if (ts->t.kind == TASK_IOWQ_WORKER)
		worker_exited(m, ts);
	announce_task(m, ts);
}

static struct ring_state *ring_from_fd(struct model *m, uint32_t pid, int32_t fd, uint16_t flags)
{
	if (fd < 0 || (flags & EVF_REGISTERED_RING))
		return NULL;
	return hmap_get(&m->fds, pid, (uint64_t)(uint32_t)fd);
}

static void enter_state_counters(struct model *m, struct ring_state *rs, uint32_t sq_head,
				 uint32_t sq_tail, uint32_t cq_head, uint32_t cq_tail)
{
	struct model_counter c;

	if (!m->ops->counter || !rs)
		return;
	c = (struct model_counter){
		.ring = &rs->r, .ts = m->now, .n = 2,
		.kind = { COUNTER_SQ_PENDING, COUNTER_CQ_PENDING },
		.value = { (int64_t)(uint32_t)(sq_tail - sq_head), (int64_t)(uint32_t)(cq_tail - cq_head) },
	};
	m->ops->counter(m->out, &c);
}

#define HDR(e) ((const struct ev_header *)(const void *)(e))

/* The shared CQ head and tail as an enter read them: CQEs before the head
 * were reaped.  cq_order: log2 of the CQ size when known (enter begin). */
static void ring_snapshot(struct model *m, struct ring_state *rs, uint8_t cq_order,
			  uint32_t cq_head, uint32_t cq_tail)
{
	if (!rs)
		return;
	if (!rs->reap.size && cq_order && cq_order < 32)
		rs->reap.size = 1u << cq_order;
	if (!rs->reap.size && rs->r.created_seen)
		rs->reap.size = rs->r.cq_entries;
	if (reap_snapshot(&rs->reap, m->now, cq_head, cq_tail))
		deliver_ready(m);
}

static void on_enter_begin(struct model *m, const struct ev_enter_begin *e, struct task_state *ts)
{
	struct ring_state *rs = e->flags & EVF_RING_VALID ? ring_get(m, e->ring) :
				ring_from_fd(m, e->tgid, e->fd, e->flags);
	struct syscall_state *ss;

	held_flush(m, ts);
	ring_learn_owner(m, rs, ts);
	if (rs && rs->r.fd < 0 && e->fd >= 0 && !(e->flags & EVF_REGISTERED_RING) &&
	    ts && ts->t.pid == rs->r.pid) {
		rs->r.fd = e->fd;
		announce_ring(m, rs);
	}
	ss = sys_begin(m, ts, HDR(e), SYS_ENTER, rs);
	if (!ss)
		return;
	ts->uses_io_uring = true;
	ss->s.fd = e->fd;
	ss->s.registered_ring = e->flags & EVF_REGISTERED_RING;
	ss->s.to_submit = e->to_submit;
	ss->s.min_complete = e->min_complete;
	ss->s.enter_flags = e->enter_flags;
	if (e->flags & EVF_RING_STATE_VALID) {
		ss->s.state_begin_valid = true;
		ss->s.sq_head[0] = e->sq_head;
		ss->s.sq_tail[0] = e->sq_tail;
		ss->s.cq_head[0] = e->cq_head;
		ss->s.cq_tail[0] = e->cq_tail;
		enter_state_counters(m, rs, e->sq_head, e->sq_tail, e->cq_head, e->cq_tail);
		ring_snapshot(m, rs, e->cq_order, e->cq_head, e->cq_tail);
	}
}

static void on_enter_end(struct model *m, const struct ev_enter_end *e, struct task_state *ts)
{
	struct syscall_state *ss;

	held_flush(m, ts);
	ss = sys_end(m, ts, HDR(e), SYS_ENTER);
	if (!ss)
		return;
	ss->s.ret = e->ret;
	if (!ss->ring && (e->flags & EVF_RING_VALID)) {
		ss->ring = ring_get(m, e->ring);
		ss->s.ring = ss->ring ? &ss->ring->r : NULL;
	}
	if (e->flags & EVF_RING_STATE_VALID) {
		ss->s.state_end_valid = true;
		ss->s.sq_head[1] = e->sq_head;
		ss->s.sq_tail[1] = e->sq_tail;
		ss->s.cq_head[1] = e->cq_head;
		ss->s.cq_tail[1] = e->cq_tail;
		enter_state_counters(m, ss->ring, e->sq_head, e->sq_tail, e->cq_head, e->cq_tail);
		ring_snapshot(m, ss->ring, 0, e->cq_head, e->cq_tail);
	}
	sys_emit(m, ts, ss);
}

static void on_setup_begin(struct model *m, const struct ev_setup_begin *e, struct task_state *ts)
{
	struct syscall_state *ss;

	held_flush(m, ts);
	ss = sys_begin(m, ts, HDR(e), SYS_SETUP, NULL);
	if (!ss)
		return;
	ss->s.params_valid = e->flags & EVF_PARAMS_VALID;
	ss->s.entries = e->entries;
	ss->s.setup_flags = e->setup_flags;
	ss->s.sq_thread_cpu = e->sq_thread_cpu;
	ss->s.sq_thread_idle = e->sq_thread_idle;
	ss->s.cq_entries = e->cq_entries;
}

static void on_setup_end(struct model *m, const struct ev_setup_end *e, struct task_state *ts)
{
	struct syscall_state *ss;

	held_flush(m, ts);
	ss = sys_end(m, ts, HDR(e), SYS_SETUP);
	if (!ss)
		return;
	ss->s.ret = e->ret;
	if (e->ret >= 0 && !ss->s.ring) {
		struct ring_state *rs = hmap_get(&m->fds, e->tgid, (uint64_t)e->ret);

		if (rs)
			ss->s.ring = &rs->r;
	}
	sys_emit(m, ts, ss);
}

static void on_register_begin(struct model *m, const struct ev_register_begin *e,
			      struct task_state *ts)
{
	struct ring_state *rs = e->flags & EVF_RING_VALID ? ring_get(m, e->ring) :
				ring_from_fd(m, e->tgid, e->fd, e->flags);
	struct syscall_state *ss;

	held_flush(m, ts);
	ring_learn_owner(m, rs, ts);
	ss = sys_begin(m, ts, HDR(e), SYS_REGISTER, rs);
	if (!ss)
		return;
	ss->s.fd = e->fd;
	ss->s.registered_ring = e->flags & EVF_REGISTERED_RING;
	ss->s.reg_opcode = e->opcode;
	ss->s.nr_args = e->nr_args;
}

static void on_register_end(struct model *m, const struct ev_register_end *e,
			    struct task_state *ts)
{
	struct syscall_state *ss;

	held_flush(m, ts);
	ss = sys_end(m, ts, HDR(e), SYS_REGISTER);
	if (!ss)
		return;
	ss->s.ret = e->ret;
	sys_emit(m, ts, ss);
}

static int cmp_req_id(const void *a, const void *b);

static void on_create(struct model *m, const struct ev_create *e, struct task_state *ts)
{
	struct ring_state *rs = hmap_get(&m->rings, e->ring, 0);

	if (!e->ring)
		return;
	if (rs && (rs->had_events || rs->r.created_seen)) {
		/* The kernel freed the old ring and reused its address: close
		 * what was open on it and start a new generation. */
		struct hmap_slot *s;
		struct req **open = NULL;
		size_t n = 0, cap = 0;

		hmap_for_each(&m->reqs, s) {
			struct req *rq = s->val;

			if (rq->ring == rs && grow(m, (void **)&open, &cap, n + 1, sizeof(*open)))
				open[n++] = rq;
		}
		/* Deterministic: by id.  (qsort: a log may leave any number
		 * of requests open on a ring whose address is then reused.) */
		if (n > 1)
			qsort(open, n, sizeof(*open), cmp_req_id);
		/* The kernel ended every request before it freed the ring, and
		 * posted a CQE for each but the skipped ones (a cancellation
		 * fails the request, which clears REQ_F_CQE_SKIP). */
		for (size_t i = 0; i < n; i++) {
			if (req_skips_cqe(open[i]))
				req_close_skipped(m, open[i]);
			else
				req_close_open(m, open[i], REQ_INCOMPLETE,
					       INCOMPLETE_RING_RECREATED);
		}
		free(open);
		reap_give_up(m, rs);
		hmap_del(&m->rings, e->ring, 0);
		rs = ring_new(m, e->ring, rs->r.generation + 1);
	} else if (!rs) {
		rs = ring_new(m, e->ring, 0);
	}
	if (!rs)
		return;
	rs->r.created_seen = true;
	rs->r.create_ts = e->ts;
	rs->r.setup_flags = e->setup_flags;
	rs->r.sq_entries = e->sq_entries;
	rs->r.cq_entries = e->cq_entries;
	rs->r.fd = e->fd;
	rs->r.pid = e->tgid;
	rs->r.tid = e->tid;
	if (e->fd >= 0 && hmap_put(&m->fds, e->tgid, (uint64_t)(uint32_t)e->fd, rs))
		m->oom = true;
	/* An open setup slice on this thread produced it. */
	if (ts && ts->open_sys && ts->open_sys->s.kind == SYS_SETUP) {
		ts->open_sys->ring = NULL;
		ts->open_sys->s.ring = &rs->r;
	}
	announce_ring(m, rs);
}

/* submit and req_failed: a new request (closing a reused key). */
static struct req *start_request(struct model *m, struct task_state *ts, struct ring_state *rs,
				 const struct ev_header *h, uint64_t req_ptr)
{
	struct req *old = req_lookup(m, rs, req_ptr, false);
	struct req *rq;

	if (old)
		req_close_reused(m, old);
	rq = req_new(m, rs, req_ptr);
	if (!rq)
		return NULL;
	m->cur_req = rq->r.id;
	rq->r.sqe_valid = true;
	rq->r.submit_ts = h->ts;
	rq->r.submit_tid = h->tid;
	rq->r.submit_pid = h->tgid;
	rq->counted_inflight = true;
	counter(m, COUNTER_INFLIGHT, rs, ++rs->inflight);
	if (ts && ts->open_sys && ts->open_sys->s.kind == SYS_ENTER &&
	    (!ts->open_sys->ring || ts->open_sys->ring == rs)) {
		rq->r.submit_syscall = ts->open_sys->s.id;
		ts->open_sys->s.submitted++;
		if (!ts->open_sys->ring) {
			ts->open_sys->ring = rs;
			ts->open_sys->s.ring = &rs->r;
		}
	}
	return rq;
}

static void track_link_flags(struct model *m, struct ring_state *rs, struct req *rq, bool failed);

/* The SQE fields have the same names in submit and req_failed records. */
#define COPY_SQE_FIELDS(m, rq, e) do {					\
	if ((e)->flags & EVF_SQE_VALID) {				\
		(rq)->r.sqe_fields_valid = true;			\
		(rq)->r.buf_index = (e)->buf_index;			\
		(rq)->r.off = (e)->off;					\
		(rq)->r.off_valid = names_off_known((m)->cfg.names, (e)->opcode); \
		(rq)->r.fd = (e)->fd;					\
		(rq)->r.len = (e)->len;					\
		(rq)->r.op_flags = (e)->op_flags;			\
		(rq)->r.ioprio = (e)->ioprio;				\
		(rq)->r.personality = (e)->personality;			\
	}								\
} while (0)

/*
 * A plain NOP (no nop_flags) with IOSQE_CQE_SKIP_SUCCESS, neither linked
 * nor forced async nor drained, on a ring that never saw IOSQE_IO_DRAIN
 * (drain_active can send any request through task work): io_submit_sqe()
 * issues it at once and io_nop() cannot fail, so it completes, without a
 * CQE and without any further event, before the submission pass ends.
 */
static bool nop_skipped_inline(const struct ring_state *rs, struct req *rq,
			       const struct ev_submit *e, bool in_chain)
{
	if (e->opcode != IORING_OP_NOP_VALUE || !(e->flags & EVF_SQE_VALID) || e->op_flags ||
	    in_chain || rs->drain_seen || !(e->sqe_flags & IOSQE_CQE_SKIP_SUCCESS_BIT) ||
	    (e->sqe_flags & (IOSQE_LINK_BITS | IOSQE_ASYNC_BIT | IOSQE_IO_DRAIN_BIT)))
		return false;
	rq->r.path = PATH_INLINE;
	return true;
}

static void on_submit(struct model *m, const struct ev_submit *e, struct task_state *ts)
{
	struct ring_state *rs = ring_get(m, e->ring);
	bool in_chain;
	struct req *rq;

	if (!rs || !e->req)
		return;
	held_flush(m, ts);
	if (ts)
		ts->uses_io_uring = true;
	if (e->flags & EVF_SQ_THREAD) {
		task_set_kind(m, ts, TASK_SQPOLL);
		task_add_ring(m, ts, rs);
		if (rs->r.sqpoll_tid != e->tid) {
			rs->r.sqpoll_tid = e->tid;
			announce_ring(m, rs);
		}
	} else {
		ring_learn_owner(m, rs, ts);
	}
	rq = start_request(m, ts, rs, HDR(e), e->req);
	if (!rq)
		return;
	rq->r.opcode = e->opcode;
	rq->r.sqe_flags = e->sqe_flags;
	rq->r.user_data = e->user_data;
	req_index_user_data(m, rq);
	rq->r.req_flags = e->req_flags;
	if (e->flags & EVF_SQ_THREAD)
		rq->r.modifiers |= REQM_SQPOLL;
	COPY_SQE_FIELDS(m, rq, e);
	in_chain = rs->link_tail != NULL;
	track_link_flags(m, rs, rq, false);
	if (e->sqe_flags & IOSQE_IO_DRAIN_BIT)
		rs->drain_seen = true;
	if (nop_skipped_inline(rs, rq, e, in_chain))
		req_close_skipped(m, rq);
}

static void on_req_failed(struct model *m, const struct ev_req_failed *e, struct task_state *ts)
{
	struct ring_state *rs = ring_get(m, e->ring);
	struct req *rq;

	if (!rs || !e->req)
		return;
	held_flush(m, ts);
	ring_learn_owner(m, rs, ts);
	rq = start_request(m, ts, rs, HDR(e), e->req);
	if (!rq)
		return;
	rq->r.path = PATH_FAILED;
	if (e->sqe_flags & IOSQE_IO_DRAIN_BIT)
		rs->drain_seen = true;
	rq->r.opcode = e->opcode;
	rq->r.sqe_flags = e->sqe_flags;
	rq->r.user_data = e->user_data;
	req_index_user_data(m, rq);
	rq->r.init_error = e->error;
	COPY_SQE_FIELDS(m, rq, e);
	track_link_flags(m, rs, rq, true);
	marker(m, MARK_REQ_FAILED, HDR(e), rs, rq, e->error, e->user_data, 0, 0, 0);
}

/* Fill opcode/user_data of a request first seen without its submit. */
static void learn_ids(struct req *rq, uint8_t opcode, uint64_t user_data)
{
	if (!rq->r.sqe_valid) {
		rq->r.opcode = opcode;
		rq->r.user_data = user_data;
	}
}

static void on_queue_async(struct model *m, const struct ev_queue_async_work *e)
{
	struct ring_state *rs = ring_get(m, e->ring);
	struct req *rq = req_lookup(m, rs, e->req, true);

	if (!rq)
		return;
	learn_ids(rq, e->opcode, e->user_data);
	if (!rq->r.queue_async_ts) {
		rq->r.queue_async_ts = e->ts;
		rq->async_req_flags = e->req_flags;
	}
	if (e->flags & EVF_HASHED)
		rq->r.modifiers |= REQM_HASHED;
	if (e->flags & EVF_WORK_FLAGS_VALID) {
		rq->r.work_flags_valid = true;
		rq->r.work_flags = e->work_flags;
		if (!rs->r.iowq_work_flags_known) {
			rs->r.iowq_work_flags_known = true;
			announce_ring(m, rs);
		}
	}
	if (!rq->in_iowq) {
		bool hashed = e->flags & EVF_HASHED;

		rq->in_iowq = true;
		rq->iowq_key = e->flags & EVF_WORK_FLAGS_VALID ?
			       iowq_work_key(hashed, e->work_flags) : 0;
		iowq_queued(&rs->wq, &rs->r, hashed, rq->iowq_key);
		counter(m, COUNTER_IOWQ, rs, ++rs->iowq);
		if ((uint64_t)rs->iowq > rs->r.iowq_peak) {
			rs->r.iowq_peak = (unsigned)rs->iowq;
			announce_ring(m, rs);
		}
	}
}

static void on_defer(struct model *m, const struct ev_defer *e)
{
	struct req *rq = req_lookup(m, ring_get(m, e->ring), e->req, true);

	if (!rq)
		return;
	learn_ids(rq, e->opcode, e->user_data);
	rq->r.modifiers |= REQM_DRAINED;
	if (!rq->r.defer_ts)
		rq->r.defer_ts = e->ts;
}

static bool chain_add(struct model *m, struct chain *c, struct req *rq)
{
	if (!grow(m, (void **)&c->members, &c->cap, c->len + 1, sizeof(*c->members)))
		return false;
	rq->chain = c;
	c->refs++;
	rq->r.chain_id = c->id;
	rq->r.chain_pos = c->len;
	rq->r.modifiers |= REQM_LINKED;
	c->members[c->len++] = rq;
	return true;
}

/* rq joins the chain target belongs to (starting one at target). */
static void chain_join(struct model *m, struct req *rq, struct req *target)
{
	struct chain *c;
	struct req *last;

	if (!rq || !target || rq == target || rq->chain)
		return;
	c = target->chain;
	if (!c) {
		c = zalloc(m, sizeof(*c));
		if (!c)
			return;
		c->id = target->r.id;
		if (!chain_add(m, c, target)) {
			free(c);
			return;
		}
	}
	last = c->members[c->len - 1];
	if (!chain_add(m, c, rq))
		return;
	if (last) {
		last->r.link_next = rq->r.id;
		rq->r.link_prev = last->r.id;
	}
}

/*
 * Member rq of a chain finished (final CQE, or ended without one).  A
 * member is issued only once the one before it completed (io_queue_next()
 * from the completion), and a LINK_TIMEOUT is disarmed when the member it
 * guards completes (io_disarm_next()): members before rq, and a
 * LINK_TIMEOUT right after it, that are still open with
 * IOSQE_CQE_SKIP_SUCCESS finished without a CQE.  But a LINK_TIMEOUT is
 * armed with the member it guards, not after it: when it fires (-ETIME),
 * that member is being cancelled, and posts its -ECANCELED CQE later
 * (io_link_timeout_fn(): a failure clears REQ_F_CQE_SKIP).
 */
static void chain_finished(struct model *m, struct req *rq)
{
	struct chain *c = rq->chain;
	uint32_t pos = rq->r.chain_pos;
	uint32_t done = pos;
	struct req *t;

	if (!c)
		return;
	if (rq->r.opcode == IORING_OP_LINK_TIMEOUT_VALUE && rq->r.res == -ETIME_VALUE && pos)
		done = pos - 1;		/* the guarded member is still running */
	c->refs++;	/* closing members must not free it under us */
	/* What stays open below done never qualifies later: scan it once. */
	for (uint32_t i = c->scan_from; i < done; i++) {
		t = c->members[i];
		if (t && t->open && t->r.submit_ts && req_skips_cqe(t))
			req_close_skipped(m, t);
	}
	if (done > c->scan_from)
		c->scan_from = done;
	/* A member that failed, or was cancelled by an earlier failure, does
	 * not disarm its LINK_TIMEOUT: io_fail_links() cancels that with the
	 * rest of the chain, and says so (a fail_link of its own). */
	t = pos + 1 < c->len ? c->members[pos + 1] : NULL;
	if (t && t->open && t->r.submit_ts && req_skips_cqe(t) &&
	    t->r.opcode == IORING_OP_LINK_TIMEOUT_VALUE && rq->r.res >= 0 &&
	    !rq->r.fail_link_ts)
		req_close_skipped(m, t);
	chain_put(c);
}

/*
 * link (req, target) fires after req's submit when a chain is being
 * assembled.  A member that fails io_init_req() joins the chain without a
 * link event (io_submit_fail_init()), so the model also follows the
 * IOSQE_IO_LINK/HARDLINK flags of consecutive submissions on the ring.
 */
static void on_link(struct model *m, const struct ev_link *e)
{
	struct ring_state *rs = ring_get(m, e->ring);
	struct req *rq = req_lookup(m, rs, e->req, true);	/* first: the record's own */
	struct req *target = req_lookup(m, rs, e->target_req, true);

	chain_join(m, rq, target);
}

static void track_link_flags(struct model *m, struct ring_state *rs, struct req *rq, bool failed)
{
	if (failed && rs->link_tail)
		chain_join(m, rq, rs->link_tail);
	rs->link_tail = rq->r.sqe_flags & IOSQE_LINK_BITS ? rq : NULL;
}

/* An open request, or one this thread just completed (still held). */
static struct req *req_recent(struct model *m, struct task_state *ts, struct ring_state *rs,
			      uint64_t req_ptr)
{
	struct req *rq = req_lookup(m, rs, req_ptr, false);

	for (size_t i = ts ? ts->nheld : 0; !rq && i > 0; i--)
		if (ts->held[i - 1]->ring == rs && ts->held[i - 1]->r.req_ptr == req_ptr)
			rq = ts->held[i - 1];
	if (rq && !m->cur_req)
		m->cur_req = rq->r.id;
	return rq;
}

/* fail_link fires when the failed request's completion is processed
 * (io_queue_next -> io_fail_links), i.e. just after its CQE was posted. */
static void on_fail_link(struct model *m, const struct ev_fail_link *e, struct task_state *ts)
{
	struct ring_state *rs = ring_get(m, e->ring);
	struct req *failed = req_recent(m, ts, rs, e->req);
	struct req *member = req_lookup(m, rs, e->link, true);

	if (failed) {
		learn_ids(failed, e->opcode, e->user_data);
		failed->r.modifiers |= REQM_LINK_FAILED;
		if (!failed->link_marker_sent) {
			failed->link_marker_sent = true;
			marker(m, MARK_LINK_FAILED, HDR(e), rs, failed, failed->r.res,
			       e->user_data, 0, 0, 0);
		}
	} else {
		marker(m, MARK_LINK_FAILED, HDR(e), rs, NULL, 0, e->user_data, 0, 0, 0);
	}
	if (!member)
		return;
	member->r.modifiers |= REQM_LINK_CANCELLED;
	if (!member->r.fail_link_ts)
		member->r.fail_link_ts = e->ts;
	/* io_fail_links() sets REQ_F_CQE_SKIP on every member when the
	 * failed request had IOSQE_CQE_SKIP_SUCCESS (REQ_F_SKIP_LINK_CQES):
	 * the member ends here, without a CQE. */
	if (!member->r.submit_ts ||
	    !(failed ? req_skips_cqe(failed) : member->chain && member->chain->skip_link_cqes))
		return;
	chain_finished(m, member);
	req_close_skipped(m, member);
}

static void on_cqring_wait(struct model *m, const struct ev_cqring_wait *e, struct task_state *ts)
{
	struct syscall_state *ss = ts ? ts->open_sys : NULL;

	held_flush(m, ts);
	ring_get(m, e->ring);
	if (ss && ss->s.kind == SYS_ENTER && !ss->s.wait_ts) {
		ss->s.wait_ts = e->ts;
		ss->s.wait_min_events = e->min_events;
	}
}

static void cqe_posted_on_ring(struct ring_state *rs)
{
	for (size_t i = 0; i < rs->nenters; i++)
		rs->enters[i]->s.completed++;
}

/* Which io-wq worker ran a request, when only its completion tells. */
static void place_worker(struct model *m, struct req *rq, struct task_state *ct)
{
	uint64_t begin;

	if (!rq->r.queue_async_ts || rq->r.work_begin_ts || !ct)
		return;
	if (ct->t.tid == rq->r.submit_tid || ct->t.kind == TASK_SQPOLL)
		return;		/* completed back in the submitter: worker unknown */
	if (ct->t.kind == TASK_THREAD && ct->t.name_known)
		return;		/* a named user thread is not a worker */
	if (ct->t.kind != TASK_IOWQ_WORKER) {
		/* Learned from its events: an io-wq request finished on a
		 * thread other than its submitter, with no other identity. */
		ct->is_worker_guess = true;
		task_set_kind(m, ct, TASK_IOWQ_WORKER);
	}
	begin = rq->r.queue_async_ts;
	if (ct->last_activity_ts > begin && ct->last_activity_ts <= m->now)
		begin = ct->last_activity_ts;
	rq->r.worker_tid = ct->t.tid;
	rq->r.work_begin_ts = begin;
	rq->r.work_end_ts = m->now;
	rq->r.modifiers |= REQM_WORKER_APPROX;
	ct->last_activity_ts = m->now;
	ring_add_worker(m, rq->ring, ct);
	worker_served(m, rq->ring, ct, rq);
}

static void classify_completed(struct model *m, struct req *rq, struct task_state *ct)
{
	enum req_path p;

	if (!rq->r.submit_ts) {
		rq->r.status = m->loss_seq ? REQ_INCOMPLETE : REQ_IN_FLIGHT_AT_START;
		rq->r.incomplete_reason = m->loss_seq ? INCOMPLETE_LOSS : INCOMPLETE_NONE;
	} else if (lost_during(m, rq)) {
		rq->r.status = REQ_INCOMPLETE;
		rq->r.incomplete_reason = INCOMPLETE_LOSS;
	} else {
		rq->r.status = REQ_COMPLETE;
	}
	if (rq->r.path == PATH_FAILED)
		return;
	if (rq->r.status == REQ_INCOMPLETE) {
		rq->r.path = PATH_UNKNOWN;
		return;
	}
	p = async_path(rq);
	if (p != PATH_UNKNOWN) {
		rq->r.path = p;
		return;
	}
	if (rq->ring->r.created_seen && (rq->ring->r.setup_flags & IORING_SETUP_IOPOLL_BIT)) {
		rq->r.path = PATH_IOPOLL;
		return;
	}
	if (!rq->r.submit_ts) {
		rq->r.path = PATH_UNKNOWN;
		return;
	}
	if (ct && ct->t.tid == rq->r.submit_tid) {
		const struct syscall_state *ss = ct->open_sys;
		bool same_pass = !rq->r.submit_syscall ||
				 (ss && ss->s.id == rq->r.submit_syscall && !ss->s.wait_ts);

		if (same_pass) {
			/* Final unless the end of a task-work batch on this
			 * thread claims it (task_work_batch). */
			rq->tentative_inline = true;
			rq->r.path = PATH_INLINE;
			return;
		}
	}
	rq->r.path = PATH_TASK_WORK;
}

static void on_complete(struct model *m, const struct ev_complete *e, struct task_state *ts,
			bool overflowed, bool dropped)
{
	struct ring_state *rs = ring_get(m, e->ring);
	bool notif = false;
	struct req *rq;

	if (!rs)
		return;
	cqe_posted_on_ring(rs);
	/* Multishot CQEs (IORING_CQE_F_MORE) go through io_fill_cqe_aux(),
	 * which traces no request: give them to their open request. */
	if (!e->req && (e->cflags & IORING_CQE_F_MORE_BIT) &&
	    (rq = req_by_user_data(m, rs, e->user_data)))
		goto have_request;
	if (e->cflags & IORING_CQE_F_NOTIF_BIT) {
		struct req *stale;

		rq = req_zc_of_notif(m, rs, e->user_data);
		/* The notification's request is live: whatever the model
		 * still had open at its pointer ended unseen. */
		stale = req_lookup(m, rs, e->req, false);
		if (stale && stale != rq)
			req_close_reused(m, stale);
		if (rq) {
			notif = true;
			goto have_request;
		}
		/* Its send was not seen (submitted before the recording,
		 * or lost): the notification is still no request. */
	}
	if (m->cfg.sample_every > 1 && (!e->req || (e->cflags & IORING_CQE_F_NOTIF_BIT)) &&
	    (overflowed || (e->cflags & (IORING_CQE_F_MORE_BIT | IORING_CQE_F_NOTIF_BIT)))) {
		m->sampled_away++;
		return;
	}
	if (!e->req || (e->cflags & IORING_CQE_F_NOTIF_BIT)) {
		struct model_cqe c = {
			.ts = e->ts, .tid = e->tid, .ring = &rs->r, .user_data = e->user_data,
			.res = e->res, .cflags = e->cflags, .overflowed = overflowed,
			.dropped = dropped,
		};

		m->aux_cqes++;
		reap_cqe(m, rs, NULL, e, overflowed);
		if (m->ops->cqe)
			m->ops->cqe(m->out, &c);
		return;
	}
	rq = req_lookup(m, rs, e->req, true);
	if (!rq)
		return;
have_request:
	if (e->flags & EVF_FILE_VALID) {
		/* COMPLETE32 carries the file after its two extra words */
		uint64_t file = e->type == EV_COMPLETE32 ?
				((const struct ev_complete32 *)(const void *)e)->file : e->file;
		const struct model_file *f = model_files_get(m->files, file);

		if (f)
			rq->r.file = f;
	}
	rq->r.ncqes++;
	if (!rq->r.first_cqe_ts)
		rq->r.first_cqe_ts = e->ts;
	if (overflowed) {
		rq->r.modifiers |= REQM_CQ_OVERFLOW;
		if (!rq->r.overflow_ts)
			rq->r.overflow_ts = e->ts;
		if (dropped)
			rq->r.modifiers |= REQM_CQE_DROPPED;
	}
	if (!rq->r.sqe_valid)
		rq->r.user_data = e->user_data;
	if (e->cflags & IORING_CQE_F_MORE_BIT) {
		struct model_cqe c = {
			.ts = e->ts, .tid = e->tid, .ring = &rs->r, .request = &rq->r,
			.user_data = e->user_data, .res = e->res, .cflags = e->cflags,
			.overflowed = overflowed, .dropped = dropped,
		};

		rq->r.modifiers |= REQM_MULTISHOT;
		reap_cqe(m, rs, NULL, e, overflowed);
		if (req_is_zc_send(rq)) {
			/* The send's result is in this CQE; its
			 * notification (res 0) only ends it. */
			rq->r.res = e->res;
			rq->r.cflags = e->cflags;
		}
		if (m->ops->cqe)
			m->ops->cqe(m->out, &c);
		return;
	}
	rq->r.complete_ts = e->ts;
	rq->r.complete_tid = e->tid;
	reap_cqe(m, rs, rq, e, overflowed);
	if (!notif) {
		rq->r.res = e->res;
		rq->r.cflags = e->cflags;
	}
	if (ts && ts->open_sys && ts->open_sys->s.kind == SYS_ENTER)
		rq->r.complete_syscall = ts->open_sys->s.id;
	if (rq->r.work_begin_ts && !rq->r.work_end_ts && ts &&
	    ts->t.tid == rq->r.worker_tid)
		ts->last_activity_ts = e->ts;
	if (!notif)	/* posted for the network stack, not by the worker */
		place_worker(m, rq, ts);
	classify_completed(m, rq, ts);
	req_unlink_open(m, rq);
	if (rq->chain) {
		if (!(rq->r.modifiers & REQM_LINK_CANCELLED))
			rq->chain->skip_link_cqes = req_skips_cqe(rq);
		chain_finished(m, rq);
	}
	held_push(m, ts, rq);
}

/*
 * A CQE that did not fit the CQ ring.  On every supported kernel (6.1 ..
 * 6.18) io_fill_cqe_req() and io_fill_cqe_aux() fire complete only once
 * io_get_cqe() gave them a slot, and an overflowing CQE goes to
 * io_cqring_event_overflow() (io_alloc_ocqe() since 6.16), which fires
 * only cqe_overflow (ring, user_data; no request).  So an overflow is
 * always a CQE of its own, never the complete just before it (5.19 traced
 * complete first; 6.1 no longer does).  Its request is the oldest open one
 * of this ring with this user_data.
 */
static void on_cqe_overflow(struct model *m, const struct ev_cqe_overflow *e,
			    struct task_state *ts)
{
	struct ring_state *rs = ring_get(m, e->ring);
	bool dropped = e->flags & EVF_CQE_DROPPED;
	struct req *rq;
	uint64_t rq_id;

	if (!rs)
		return;
	rq = req_by_user_data(m, rs, e->user_data);
	struct ev_complete fake = {
		.ts = e->ts, .tid = e->tid, .tgid = e->tgid, .type = EV_COMPLETE,
		.res = e->res, .ring = e->ring, .req = rq ? rq->r.req_ptr : 0,
		.user_data = e->user_data, .cflags = e->cflags,
	};

	/* on_complete() may deliver and free rq: keep its id. */
	rq_id = rq ? rq->r.id : 0;
	on_complete(m, &fake, ts, true, dropped);
	marker_id(m, dropped ? MARK_CQE_DROPPED : MARK_CQE_OVERFLOW, HDR(e), rs, rq_id, e->res,
		  e->user_data, e->cflags, 0, 0);
}

static void on_poll_arm(struct model *m, const struct ev_poll_arm *e)
{
	struct req *rq = req_lookup(m, ring_get(m, e->ring), e->req, true);

	if (!rq)
		return;
	learn_ids(rq, e->opcode, e->user_data);
	if (!rq->r.poll_arm_ts)
		rq->r.poll_arm_ts = e->ts;
}

static void on_task_add(struct model *m, const struct ev_task_add *e)
{
	struct req *rq = req_lookup(m, ring_get(m, e->ring), e->req, true);

	if (!rq)
		return;
	learn_ids(rq, e->opcode, e->user_data);
	if (!rq->r.task_add_ts)
		rq->r.task_add_ts = e->ts;
}

static void on_work_begin(struct model *m, const struct ev_work_begin *e, struct task_state *ts)
{
	struct ring_state *rs = ring_get(m, e->ring);
	struct req *rq = req_lookup(m, rs, e->req, true);

	held_flush(m, ts);	/* new work: the previous one is over */
	task_set_kind(m, ts, TASK_IOWQ_WORKER);
	ring_add_worker(m, rs, ts);
	worker_served(m, rs, ts, rq);
	if (ts) {
		ts->last_activity_ts = e->ts;
		ts->traced_work = true;
	}
	if (!rq)
		return;
	learn_ids(rq, e->opcode, e->user_data);
	rq->r.worker_tid = e->tid;
	rq->r.work_begin_ts = e->ts;
	rq->r.modifiers &= ~REQM_WORKER_APPROX;
	/* Only its latest worker points at it (struct req, work_task). */
	if (rq->work_task && rq->work_task != ts && rq->work_task->current_work == rq)
		rq->work_task->current_work = NULL;
	rq->work_task = ts;
	if (ts)
		ts->current_work = rq;
}

static void on_work_end(struct model *m, const struct ev_work_end *e, struct task_state *ts)
{
	struct req *rq = NULL;

	if (!ts)
		return;
	ts->last_activity_ts = e->ts;
	if ((e->flags & EVF_WORK_REQ_UNKNOWN) || !e->req) {
		rq = ts->current_work;
	} else if (ts->current_work && ts->current_work->r.req_ptr == e->req) {
		rq = ts->current_work;
	} else {
		/* Already completed: look among this worker's held requests. */
		for (size_t i = ts->nheld; i > 0 && !rq; i--)
			if (ts->held[i - 1]->r.req_ptr == e->req)
				rq = ts->held[i - 1];
	}
	ts->current_work = NULL;
	if (rq) {
		rq->r.work_end_ts = e->ts;
		iowq_leave(m, rq);
	}
	held_flush(m, ts);
}

static void on_sched_switch(struct model *m, const struct ev_sched_switch *e)
{
	struct task_state *next = e->next_tid ? hmap_get(&m->tasks, e->next_tid, 0) : NULL;

	if (next && (next->t.kind == TASK_IOWQ_WORKER || next->is_worker_guess))
		next->last_activity_ts = e->ts;
}

/* The ring a record refers to, for raw events. */
static uint64_t record_ring_id(const struct ev_header *h)
{
	switch (h->type) {
#define RING_OF(NAME, name) case EV_##NAME: return ((const struct ev_##name *)(const void *)h)->ring;
	RING_OF(ENTER_BEGIN, enter_begin)
	RING_OF(ENTER_END, enter_end)
	RING_OF(REGISTER_BEGIN, register_begin)
	RING_OF(CREATE, create)
	RING_OF(REGISTER, register)
	RING_OF(FILE_GET, file_get)
	RING_OF(SUBMIT, submit)
	RING_OF(QUEUE_ASYNC_WORK, queue_async_work)
	RING_OF(DEFER, defer)
	RING_OF(LINK, link)
	RING_OF(FAIL_LINK, fail_link)
	RING_OF(CQRING_WAIT, cqring_wait)
	RING_OF(REQ_FAILED, req_failed)
	RING_OF(CQE_OVERFLOW, cqe_overflow)
	RING_OF(POLL_ARM, poll_arm)
	RING_OF(TASK_ADD, task_add)
	RING_OF(LOCAL_WORK_RUN, local_work_run)
	RING_OF(SHORT_WRITE, short_write)
	RING_OF(COMPLETE, complete)
	RING_OF(COMPLETE32, complete32)
	RING_OF(WORK_BEGIN, work_begin)
#undef RING_OF
	default:
		return 0;
	}
}

void model_record(struct model *m, const struct ev_header *h, unsigned cpu)
{
	struct task_state *ts;

	m->now = h->ts;
	m->cur_req = 0;
	/* A context switch names whatever ran next to an io_uring thread:
	 * only tasks already known are touched. */
	if (h->type == EV_SCHED_SWITCH)
		ts = h->tid ? hmap_get(&m->tasks, h->tid, 0) : NULL;
	else
		ts = h->tid ? task_get(m, h->tid, h->tgid) : NULL;

	switch (h->type) {
	case EV_LOST:
		on_lost(m, (const void *)h, cpu);
		break;
	case EV_TASK:
		on_task(m, (const void *)h);
		break;
	case EV_TASK_EXIT:
		on_task_exit(m, (const void *)h, ts);
		break;
	case EV_ENTER_BEGIN:
		on_enter_begin(m, (const void *)h, ts);
		break;
	case EV_ENTER_END:
		on_enter_end(m, (const void *)h, ts);
		break;
	case EV_SETUP_BEGIN:
		on_setup_begin(m, (const void *)h, ts);
		break;
	case EV_SETUP_END:
		on_setup_end(m, (const void *)h, ts);
		break;
	case EV_REGISTER_BEGIN:
		on_register_begin(m, (const void *)h, ts);
		break;
	case EV_REGISTER_END:
		on_register_end(m, (const void *)h, ts);
		break;
	case EV_CREATE:
		on_create(m, (const void *)h, ts);
		break;
	case EV_REGISTER:
	case EV_FILE_GET:
		ring_get(m, record_ring_id(h));
		break;
	case EV_FILE:
		if (!model_files_record(m->files, (const void *)h))
			m->oom = true;
		break;
	case EV_SUBMIT:
		on_submit(m, (const void *)h, ts);
		break;
	case EV_QUEUE_ASYNC_WORK:
		on_queue_async(m, (const void *)h);
		break;
	case EV_DEFER:
		on_defer(m, (const void *)h);
		break;
	case EV_LINK:
		on_link(m, (const void *)h);
		break;
	case EV_FAIL_LINK:
		on_fail_link(m, (const void *)h, ts);
		break;
	case EV_CQRING_WAIT:
		on_cqring_wait(m, (const void *)h, ts);
		break;
	case EV_REQ_FAILED:
		on_req_failed(m, (const void *)h, ts);
		break;
	case EV_CQE_OVERFLOW:
		on_cqe_overflow(m, (const void *)h, ts);
		break;
	case EV_POLL_ARM:
		on_poll_arm(m, (const void *)h);
		break;
	case EV_TASK_ADD:
		on_task_add(m, (const void *)h);
		break;
	case EV_TASK_WORK_RUN: {
		const struct ev_task_work_run *e = (const void *)h;

		task_work_batch(m, ts, NULL, e->count);
		break;
	}
	case EV_LOCAL_WORK_RUN: {
		const struct ev_local_work_run *e = (const void *)h;

		task_work_batch(m, ts, ring_get(m, e->ring), e->count > 0 ? (uint64_t)e->count : 0);
		break;
	}
	case EV_SHORT_WRITE: {
		const struct ev_short_write *e = (const void *)h;

		marker(m, MARK_SHORT_WRITE, h, ring_get(m, e->ring), NULL, (int64_t)e->got, 0,
		       e->fpos, e->wanted, e->got);
		break;
	}
	case EV_COMPLETE:
	case EV_COMPLETE32:
		on_complete(m, (const void *)h, ts, false, false);
		break;
	case EV_WORK_BEGIN:
		on_work_begin(m, (const void *)h, ts);
		break;
	case EV_WORK_END:
		on_work_end(m, (const void *)h, ts);
		break;
	case EV_SCHED_SWITCH:
		on_sched_switch(m, (const void *)h);
		break;
	default:
		break;
	}

	if (m->ops->raw_event) {
		struct raw_event re = {
			.rec = h, .type = ev_type_info(h->type), .cpu = cpu,
		};
		struct ring_state *rs;
		struct model_task unknown = { .tid = h->tid, .pid = h->tgid };

		if (!re.type)
			return;
		ts = h->tid ? hmap_get(&m->tasks, h->tid, 0) : NULL;
		re.task = ts ? &ts->t : &unknown;
		rs = hmap_get(&m->rings, record_ring_id(h), 0);
		re.ring = rs ? &rs->r : NULL;
		re.request_id = m->cur_req;
		m->ops->raw_event(m->out, &re);
	}
}

void model_loss(struct model *m, const struct model_loss *l)
{
	if (l->first_ts > m->now)
		m->now = l->first_ts;
	m->loss_seq++;
	if (l->last_ts > m->loss_max_end)
		m->loss_max_end = l->last_ts;
	if (m->ops->loss)
		m->ops->loss(m->out, l);
}

static int cmp_req_id(const void *a, const void *b)
{
	const struct req *x = *(struct req *const *)a, *y = *(struct req *const *)b;

	return x->r.id < y->r.id ? -1 : x->r.id > y->r.id;
}

static int cmp_task_tid(const void *a, const void *b)
{
	const struct model_task *x = *(struct model_task *const *)a;
	const struct model_task *y = *(struct model_task *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void model_finish(struct model *m)
{
	struct hmap_slot *s;
	struct task_state **tasks = NULL;
	struct req **open = NULL;
	size_t ntasks = 0, taskcap = 0, n = 0, cap = 0;

	/* Tasks in tid order, so that everything below is deterministic. */
	hmap_for_each(&m->tasks, s)
		if (grow(m, (void **)&tasks, &taskcap, ntasks + 1, sizeof(*tasks)))
			tasks[ntasks++] = s->val;
	if (ntasks)
		qsort(tasks, ntasks, sizeof(*tasks), cmp_task_tid);
	for (size_t i = 0; i < ntasks; i++)
		held_flush(m, tasks[i]);
	for (size_t i = 0; i < ntasks; i++)
		if (tasks[i]->open_sys)
			sys_drop_open(m, tasks[i]);
	hmap_for_each(&m->reqs, s)
		if (grow(m, (void **)&open, &cap, n + 1, sizeof(*open)))
			open[n++] = s->val;
	if (n)
		qsort(open, n, sizeof(*open), cmp_req_id);
	for (size_t i = 0; i < n; i++) {
		struct req *rq = open[i];

		if (!rq->r.submit_ts && !rq->r.sqe_valid) {
			/* Seen only in passing (no submit, no completion). */
			req_close_open(m, rq, m->loss_seq ? REQ_INCOMPLETE : REQ_IN_FLIGHT_AT_END,
				       INCOMPLETE_LOSS);
		} else {
			req_close_open(m, rq, REQ_IN_FLIGHT_AT_END, INCOMPLETE_NONE);
		}
	}
	free(open);
	free(tasks);
	for (size_t i = 0; i < m->nrings; i++)
		reap_forget(&m->ring_list[i]->reap);
	deliver_ready(m);
}

uint64_t model_open_by_end(const struct model *m)
{
	return m->open_by_end;
}

void model_totals(struct model *m, struct output_totals *t)
{
	struct hmap_slot *s;
	size_t n = 0;

	free(m->task_array);
	m->task_array = calloc(m->tasks.len ? m->tasks.len : 1, sizeof(*m->task_array));
	free(m->ring_array);
	m->ring_array = calloc(m->nrings ? m->nrings : 1, sizeof(*m->ring_array));
	if (!m->task_array || !m->ring_array) {
		m->oom = true;
		return;
	}
	hmap_for_each(&m->tasks, s)
		m->task_array[n++] = &((struct task_state *)s->val)->t;
	if (n)
		qsort(m->task_array, n, sizeof(*m->task_array), cmp_task_tid);
	for (size_t i = 0; i < m->nrings; i++)
		m->ring_array[i] = &m->ring_list[i]->r;
	t->tasks = (const struct model_task *const *)m->task_array;
	t->ntasks = n;
	t->rings = (const struct model_ring *const *)m->ring_array;
	t->nrings = m->nrings;
	t->requests = m->requests;
	t->syscalls = m->syscalls;
	t->unpaired_syscalls = m->unpaired;
	t->aux_cqes = m->aux_cqes;
	t->unmatched_events = m->unmatched;
	t->sampled_away_events = m->sampled_away;
}

int model_new(struct model **mp, const struct model_config *cfg)
{
	struct model *m = calloc(1, sizeof(*m));

	*mp = NULL;
	if (!m)
		return -1;
	m->cfg = *cfg;
	m->out = cfg->out;
	m->ops = cfg->out->ops;
	hmap_init(&m->tasks);
	hmap_init(&m->rings);
	hmap_init(&m->reqs);
	hmap_init(&m->fds);
	hmap_init(&m->by_user_data);
	m->files = model_files_new();
	if (!m->files) {
		free(m);
		return -1;
	}
	*mp = m;
	return 0;
}

bool model_failed(const struct model *m)
{
	return m->oom;
}

void model_free(struct model *m)
{
	struct hmap_slot *s;

	if (!m)
		return;
	hmap_for_each(&m->reqs, s) {
		struct req *rq = s->val;

		if (rq->chain)
			chain_put(rq->chain);
		free(rq);
	}
	while (m->deliver_head) {
		struct req *rq = m->deliver_head;

		m->deliver_head = rq->deliver_next;
		free(rq);
	}
	hmap_for_each(&m->tasks, s) {
		struct task_state *ts = s->val;

		for (size_t i = 0; i < ts->nheld; i++) {
			struct req *rq = ts->held[i];

			if (rq->chain)
				chain_put(rq->chain);
			free(rq);
		}
		free(ts->held);
		free(ts->open_sys);
		free(ts);
	}
	for (size_t i = 0; i < m->nrings; i++) {
		free(m->ring_list[i]->enters);
		free(m->ring_list[i]->workers);
		iowq_free(&m->ring_list[i]->wq);
		free(m->ring_list[i]);
	}
	free(m->ring_list);
	spares_free(&m->spare_reqs);
	spares_free(&m->spare_syscalls);
	free(m->task_array);
	free(m->ring_array);
	hmap_free(&m->tasks);
	hmap_free(&m->rings);
	hmap_free(&m->reqs);
	hmap_free(&m->fds);
	hmap_free(&m->by_user_data);
	model_files_free(m->files);
	free(m);
}
