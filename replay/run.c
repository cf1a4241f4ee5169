// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay itself: one ring per recorded ring, set up as recorded where
 * the host allows; each recorded io_uring_enter becomes one enter with the
 * same requests (same SQE fields, links and drains) at the same time
 * relative to the start (scaled by --speed, or at once with --no-stall);
 * then the fidelity report.  Each recorded thread's rings are set up,
 * entered and reaped by a replay thread of its own (plan_threads() in
 * plan.c says which), all timed from one common start; a recording whose
 * ring was entered by several threads is replayed on one thread, in
 * recorded order.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "report_replay.h"
#include "run.h"
#include "uring.h"

/* Setup flags the replayer can honour (others need what the log lacks:
 * an attached io-wq's fd, user memory for the rings, 128-byte SQEs...). */
#define SETUP_KEEP (IORING_SETUP_SQPOLL | IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | \
		    IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN | \
		    IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SINGLE_ISSUER | \
		    IORING_SETUP_DEFER_TASKRUN)
/* Flags a host may refuse (older kernel, no privilege): retried without. */
#define SETUP_OPTIONAL (IORING_SETUP_SQPOLL | IORING_SETUP_COOP_TASKRUN | \
			IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SINGLE_ISSUER | \
			IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SUBMIT_ALL)
#define ENTER_KEEP (IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP | IORING_ENTER_SQ_WAIT | \
		    IORING_ENTER_REGISTERED_RING)
#define DEFAULT_ENTRIES 128
/* After the recording's span (scaled), what is still in flight has that
 * long to complete; then it is cancelled, and has that long again. */
#define GRACE_NS 5000000000ull

struct rring {
	struct uring u;
	bool up;
	uint32_t flags;			/* setup flags used */
	unsigned inflight;
	struct iovec *bufs;		/* registered buffers */
	uint32_t nbufs;
};

struct run {
	struct plan *p;
	const struct run_options *o;
	struct rring *rings;
	void *buf;			/* data of reads and writes */
	struct iovec *iov;		/* vectored requests, by order index */
	struct __kernel_timespec *ts;	/* timeouts, by order index */
	struct msghdr *msg;		/* SENDMSG, RECVMSG, by order index */
	size_t *iov_at;
	struct rthread *threads;
	unsigned nthreads;
	/* The rings are set up in the recording's ring order (setup_order),
	 * thread by thread (turn): the replay's recording numbers them as the
	 * recording did, whichever thread sets each up. */
	unsigned *setup_order;
	size_t nsetup;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t turn;			/* index in setup_order; under lock */
	unsigned ready;			/* threads set up; under lock */
	bool go, failed;		/* under lock */
	uint64_t t0, rec0, span;	/* common start; recorded start, span */
};

/* One replay thread: the steps of the rings with its number. */
struct rthread {
	struct run *x;
	unsigned index;
	pthread_t pt;
	uint64_t deadline;		/* no wait goes past it */
	uint64_t left;			/* in flight at the deadline: cancelled */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * The descriptor q works on: a pipe's request on its recorded end, a
 * file's through one opened with its recorded O_DIRECT/O_DSYNC/O_SYNC.
 */
static int target_fd(const struct plan_target *t, const struct plan_req *q)
{
	if (q->oflagged && t->fd_oflags >= 0)
		return t->fd_oflags;
	return t->key.kind == RK_PIPE && q->end_write ? t->fd2 : t->fd;
}

static int register_tables(struct run *x, struct rring *rr, const struct plan_ring *pr)
{
	struct plan *p = x->p;
	int ret;

	if (pr->max_fixed_file) {
		int *fds = malloc(pr->max_fixed_file * sizeof(*fds));

		if (!fds)
			return -ENOMEM;
		for (uint32_t i = 0; i < pr->max_fixed_file; i++)
			fds[i] = -1;
		/* Each slot holds the target of the requests that used it. */
		for (size_t i = 0; i < p->nreqs; i++) {
			const struct plan_req *q = &p->reqs[i];

			if (!q->skip && q->ring == pr->number && q->target != UINT32_MAX &&
			    (q->sqe_flags & IOSQE_FIXED_FILE) && q->fd >= 0 &&
			    (uint32_t)q->fd < pr->max_fixed_file)
				fds[q->fd] = target_fd(&p->targets[q->target], q);
		}
		ret = uring_register(&rr->u, IORING_REGISTER_FILES, fds, pr->max_fixed_file);
		free(fds);
		if (ret < 0)
			return ret;
	}
	if (pr->max_buf_index) {
		size_t len = pr->max_len > 4096 ? pr->max_len : 4096;

		rr->bufs = calloc(pr->max_buf_index, sizeof(*rr->bufs));
		if (!rr->bufs)
			return -ENOMEM;
		rr->nbufs = pr->max_buf_index;
		for (uint32_t i = 0; i < pr->max_buf_index; i++) {
			if (posix_memalign(&rr->bufs[i].iov_base, 4096, len))
				return -ENOMEM;
			memset(rr->bufs[i].iov_base, 0, len);
			rr->bufs[i].iov_len = len;
		}
		ret = uring_register(&rr->u, IORING_REGISTER_BUFFERS, rr->bufs, rr->nbufs);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int setup_ring(struct run *x, struct rring *rr, const struct plan_ring *pr)
{
	struct io_uring_params prm = { 0 };
	uint32_t want = pr->setup_flags & SETUP_KEEP;
	unsigned entries = pr->created && pr->sq_entries ? pr->sq_entries : DEFAULT_ENTRIES;
	int ret;

	prm.flags = want;
	prm.cq_entries = pr->cq_entries;
	prm.sq_thread_idle = 1000;
	ret = uring_init(&rr->u, entries, &prm);
	if (ret == -EINVAL || ret == -EPERM) {
		memset(&prm, 0, sizeof(prm));
		prm.flags = want & ~SETUP_OPTIONAL;
		prm.cq_entries = pr->cq_entries;
		ret = uring_init(&rr->u, entries, &prm);
	}
	if (ret) {
		fprintf(stderr, "uring-replay: ring %u: io_uring_setup: %s\n", pr->number,
			strerror(-ret));
		return 1;
	}
	rr->up = true;
	rr->flags = prm.flags;
	if (!x->o->quiet && (pr->setup_flags & ~prm.flags))
		fprintf(stderr, "uring-replay: ring %u: set up without setup flags 0x%x of 0x%x (the host refused them, or the log lacks what they need)\n",
			pr->number, pr->setup_flags & ~prm.flags, pr->setup_flags);
	ret = register_tables(x, rr, pr);
	if (ret) {
		fprintf(stderr, "uring-replay: ring %u: io_uring_register: %s\n", pr->number,
			strerror(-ret));
		return 1;
	}
	/* The recorded enters named the ring by its registered index (no
	 * fd lookup per call): so do the replayed ones, if the host can. */
	for (size_t i = 0; i < x->p->nsteps; i++) {
		if (x->p->steps[i].ring != pr->number ||
		    !(x->p->steps[i].flags & IORING_ENTER_REGISTERED_RING))
			continue;
		ret = uring_register_ring_fd(&rr->u);
		if (ret && !x->o->quiet)
			fprintf(stderr, "uring-replay: ring %u: cannot register its fd as the recording did: %s\n",
				pr->number, strerror(-ret));
		break;
	}
	return 0;
}

static void prep(struct run *x, struct io_uring_sqe *sqe, size_t idx, size_t pos)
{
	struct plan *p = x->p;
	struct plan_req *q = &p->reqs[idx];
	const struct plan_target *t = q->target != UINT32_MAX ? &p->targets[q->target] : NULL;
	double speed = x->o->speed;

	sqe->opcode = q->host_opcode;
	sqe->flags = q->sqe_flags;
	sqe->ioprio = q->ioprio;
	sqe->user_data = idx + 1;
	sqe->fd = -1;		/* also a recorded negative fd: EBADF again */
	if (t)
		sqe->fd = (q->sqe_flags & IOSQE_FIXED_FILE) ? q->fd : target_fd(t, q);
	switch (q->op) {
	case POP_NOP:
		break;
	case POP_RW:
		sqe->addr = (uintptr_t)x->buf;
		sqe->len = q->len;
		sqe->off = q->off;
		sqe->rw_flags = (int)q->op_flags;
		break;
	case POP_RW_FIXED:
		sqe->addr = (uintptr_t)x->rings[q->ring - 1].bufs[q->buf_index].iov_base;
		sqe->len = q->len;
		sqe->off = q->off;
		sqe->rw_flags = (int)q->op_flags;
		sqe->buf_index = q->buf_index;
		break;
	case POP_RWV: {
		struct iovec *iov = x->iov + x->iov_at[pos];

		/* As many iovecs as recorded, sharing the recorded byte count. */
		for (uint32_t i = 0; i < q->len; i++) {
			iov[i].iov_base = x->buf;
			iov[i].iov_len = q->bytes / q->len + (i + 1 == q->len ? q->bytes % q->len : 0);
		}
		sqe->addr = (uintptr_t)iov;
		sqe->len = q->len;
		sqe->off = q->off;
		sqe->rw_flags = (int)q->op_flags;
		break;
	}
	case POP_FSYNC:
		sqe->off = q->off;
		sqe->len = q->len;
		sqe->fsync_flags = q->op_flags;
		break;
	case POP_SYNC_RANGE:
		sqe->off = q->off;
		sqe->len = q->len;
		sqe->sync_range_flags = q->op_flags;
		break;
	case POP_NET:		/* the same union members as a read's */
		sqe->addr = (uintptr_t)x->buf;
		sqe->len = q->len;
		sqe->off = q->off;
		sqe->msg_flags = q->op_flags;
		break;
	case POP_MSG: {
		struct iovec *iov = x->iov + x->iov_at[pos];

		/* One iovec of the recorded result's bytes: the msghdr behind
		 * sqe->addr is not in the log. */
		iov->iov_base = x->buf;
		iov->iov_len = q->bytes;
		x->msg[pos] = (struct msghdr){ .msg_iov = iov, .msg_iovlen = 1 };
		sqe->addr = (uintptr_t)&x->msg[pos];
		sqe->len = q->len;
		sqe->off = q->off;
		sqe->msg_flags = q->op_flags;
		break;
	}
	case POP_POLL:
		sqe->poll32_events = q->op_flags;
		sqe->len = q->len;
		break;
	case POP_SHUTDOWN:
		sqe->len = q->len;
		break;
	case POP_TIMEOUT:
	case POP_LINK_TIMEOUT: {
		uint64_t d = (uint64_t)((double)(q->complete_ts - q->submit_ts) / speed);

		x->ts[pos].tv_sec = (long long)(d / 1000000000ull);
		x->ts[pos].tv_nsec = (long long)(d % 1000000000ull);
		sqe->addr = (uintptr_t)&x->ts[pos];
		sqe->len = q->len;	/* 1, or what made it fail */
		sqe->off = q->op == POP_TIMEOUT ? q->off : 0;
		sqe->timeout_flags = q->op_flags;
		break;
	}
	}
}

static void reap(struct run *x, struct rring *rr)
{
	struct io_uring_cqe *cqe;
	uint64_t t = 0;

	while ((cqe = uring_peek_cqe(&rr->u))) {
		struct plan_req *q;

		if (!t)
			t = now_ns();
		if (cqe->user_data && cqe->user_data <= x->p->nreqs) {
			q = &x->p->reqs[cqe->user_data - 1];
			if (!(cqe->flags & IORING_CQE_F_MORE)) {
				q->r_complete_ns = t;
				q->r_res = cqe->res;
				q->r_done = true;
				if (rr->inflight)
					rr->inflight--;
			}
		}
		uring_cqe_seen(&rr->u);
	}
}

/* The ring of number i + 1 if th replays it and it is set up, or NULL. */
static struct rring *own_ring(struct rthread *th, size_t i)
{
	struct run *x = th->x;

	if (x->p->rings[i].thread != th->index || !x->rings[i].up)
		return NULL;
	return &x->rings[i];
}

static void reap_all(struct rthread *th)
{
	for (size_t i = 0; i < th->x->p->nrings; i++)
		if (own_ring(th, i))
			reap(th->x, &th->x->rings[i]);
}

/*
 * Until t: reap completions (so that replayed latencies are not those of
 * the next step) in sleeps of at most 200 us, and spin the last 100 us: a
 * sleep alone wakes too late.
 */
static void wait_until(struct rthread *th, uint64_t t)
{
	uint64_t n;

	while ((n = now_ns()) + 100000 < t) {
		uint64_t d = t - 100000 - n;
		struct timespec ts = { 0, (long)(d < 200000 ? d : 200000) };

		reap_all(th);
		nanosleep(&ts, NULL);
	}
	while (now_ns() < t)
		;
}

static void run_step(struct rthread *th, struct plan_step *s, uint64_t target)
{
	struct run *x = th->x;
	struct rring *rr = &x->rings[s->ring - 1];
	unsigned n = 0, min;
	uint64_t t;

	reap_all(th);
	for (size_t k = 0; k < s->n; k++) {
		size_t pos = s->first + k, idx = x->p->order[pos];
		struct io_uring_sqe *sqe = uring_get_sqe(&rr->u);

		if (!sqe) {
			/* Our SQ is full (the recording's ring was not): flush. */
			uring_publish(&rr->u);
			if (uring_enter(&rr->u, n, 0, 0) > 0)
				rr->inflight += n;
			n = 0;
			s->ret = -EBUSY;
			sqe = uring_get_sqe(&rr->u);
			if (!sqe)
				continue;
		}
		prep(x, sqe, idx, pos);
		n++;
	}
	uring_publish(&rr->u);
	t = now_ns();
	s->err_ns = (int64_t)(t - target);
	for (size_t k = 0; k < s->n; k++) {
		struct plan_req *q = &x->p->reqs[x->p->order[s->first + k]];

		q->r_submit_ns = t;
		if (!(q->sqe_flags & IOSQE_CQE_SKIP_SUCCESS))
			rr->inflight++;
	}
	if (!s->enter) {
		if ((rr->flags & IORING_SETUP_SQPOLL) && uring_sq_needs_wakeup(&rr->u))
			uring_enter(&rr->u, 0, 0, IORING_ENTER_SQ_WAKEUP);
		else if (!(rr->flags & IORING_SETUP_SQPOLL))
			uring_enter(&rr->u, n, 0, 0);
		if (!s->ret)
			s->ret = (int)n;
		return;
	}
	/* Never wait for more than can come: what is in flight. */
	min = s->min_complete < rr->inflight ? s->min_complete : rr->inflight;
	if (!(rr->flags & IORING_SETUP_SQPOLL) || n || min) {
		uint64_t now = now_ns();
		/* A read whose data never comes must not hold the replay. */
		int ret = uring_enter_timeout(&rr->u, (rr->flags & IORING_SETUP_SQPOLL) ? 0 : n,
					      min, s->flags & ENTER_KEEP,
					      th->deadline > now ? th->deadline - now : 1);

		if (!s->ret)
			s->ret = (rr->flags & IORING_SETUP_SQPOLL) ? (int)n : ret;
	}
	reap(x, rr);
}

/* Wait until limit for what is in flight; returns how many still are. */
static uint64_t drain_until(struct rthread *th, uint64_t limit)
{
	struct timespec pause = { 0, 50000 };
	uint64_t left;

	do {
		left = 0;
		for (size_t i = 0; i < th->x->p->nrings; i++) {
			struct rring *rr = own_ring(th, i);

			if (!rr || !rr->inflight)
				continue;
			uring_enter(&rr->u, 0, 0, IORING_ENTER_GETEVENTS);
			reap(th->x, rr);
			left += rr->inflight;
		}
		if (left)
			nanosleep(&pause, NULL);
	} while (left && now_ns() < limit);
	return left;
}

/*
 * Wait for what is in flight until the deadline: a request may never
 * complete (a read whose data never came).  Then cancel everything still
 * in flight (IORING_ASYNC_CANCEL_ANY, 5.19) and give it the grace again.
 * Returns how many were still in flight at the deadline.
 */
static uint64_t drain(struct rthread *th)
{
	uint64_t left = drain_until(th, th->deadline);

	if (!left)
		return 0;
	for (size_t i = 0; i < th->x->p->nrings; i++) {
		struct rring *rr = own_ring(th, i);
		struct io_uring_sqe *sqe;

		if (!rr || !rr->inflight || !(sqe = uring_get_sqe(&rr->u)))
			continue;
		sqe->opcode = IORING_OP_ASYNC_CANCEL;
		sqe->fd = -1;
		sqe->cancel_flags = IORING_ASYNC_CANCEL_ANY;
		sqe->user_data = 0;	/* not a request of the plan */
		uring_publish(&rr->u);
		uring_enter(&rr->u, 1, 0, 0);
	}
	drain_until(th, now_ns() + GRACE_NS);
	return left;
}

static int run_alloc(struct run *x)
{
	struct plan *p = x->p;
	size_t niov = 0;

	x->rings = calloc(p->nrings ? p->nrings : 1, sizeof(*x->rings));
	x->iov_at = calloc(p->replayed ? p->replayed : 1, sizeof(*x->iov_at));
	x->ts = calloc(p->replayed ? p->replayed : 1, sizeof(*x->ts));
	x->msg = calloc(p->replayed ? p->replayed : 1, sizeof(*x->msg));
	x->nthreads = p->nthreads ? p->nthreads : 1;
	x->threads = calloc(x->nthreads, sizeof(*x->threads));
	x->setup_order = calloc(p->nrings ? p->nrings : 1, sizeof(*x->setup_order));
	if (!x->rings || !x->iov_at || !x->ts || !x->msg || !x->threads || !x->setup_order)
		return -1;
	for (size_t pos = 0; pos < p->replayed; pos++) {
		const struct plan_req *q = &p->reqs[p->order[pos]];

		x->iov_at[pos] = niov;
		if (q->op == POP_RWV)
			niov += q->len;
		else if (q->op == POP_MSG)
			niov++;
	}
	/* The rings with steps, in the order the recording numbered them. */
	for (size_t i = 0; i < p->nrings; i++)
		if (p->rings[i].thread != UINT_MAX)
			x->setup_order[x->nsetup++] = (unsigned)i + 1;
	x->iov = calloc(niov ? niov : 1, sizeof(*x->iov));
	if (!x->iov || posix_memalign(&x->buf, 4096, p->max_len > 4096 ? p->max_len : 4096))
		return -1;
	memset(x->buf, 0, p->max_len > 4096 ? p->max_len : 4096);
	return 0;
}

static void run_free(struct run *x)
{
	for (size_t i = 0; x->rings && i < x->p->nrings; i++) {
		struct rring *rr = &x->rings[i];

		if (rr->up)
			uring_exit(&rr->u);
		for (uint32_t b = 0; b < rr->nbufs; b++)
			free(rr->bufs[b].iov_base);
		free(rr->bufs);
	}
	free(x->rings);
	free(x->iov_at);
	free(x->iov);
	free(x->ts);
	free(x->msg);
	free(x->buf);
	free(x->threads);
	free(x->setup_order);
}

/* The last recorded submission or completion of a replayed request. */
static uint64_t plan_span_end(const struct plan *p)
{
	uint64_t end = p->nsteps ? p->steps[p->nsteps - 1].ts : 0;

	for (size_t i = 0; i < p->nreqs; i++)
		if (!p->reqs[i].skip && p->reqs[i].complete_ts > end)
			end = p->reqs[i].complete_ts;
	return end;
}

/*
 * Set up th's rings, each in its turn of x->setup_order; false when one
 * could not be (or another thread's could not: then nothing more is).
 */
static bool thread_setup(struct rthread *th)
{
	struct run *x = th->x;
	bool ok = true;

	for (size_t k = 0; k < x->nsetup; k++) {
		unsigned ring = x->setup_order[k];
		bool failed;

		if (x->p->rings[ring - 1].thread != th->index)
			continue;
		pthread_mutex_lock(&x->lock);
		while (x->turn != k && !x->failed)
			pthread_cond_wait(&x->cond, &x->lock);
		failed = x->failed;
		pthread_mutex_unlock(&x->lock);
		if (!failed && setup_ring(x, &x->rings[ring - 1], &x->p->rings[ring - 1]))
			ok = false;
		pthread_mutex_lock(&x->lock);
		x->turn = k + 1;
		if (!ok || failed)
			x->failed = true;
		pthread_cond_broadcast(&x->cond);
		pthread_mutex_unlock(&x->lock);
		if (!ok || failed)
			return false;
	}
	return true;
}

/*
 * One replay thread: its rings set up, then, from the common start, its
 * steps at their recorded times (scaled), then what they left in flight
 * until its own deadline.
 */
static void *thread_main(void *arg)
{
	struct rthread *th = arg;
	struct run *x = th->x;
	const struct run_options *o = x->o;
	bool ok = thread_setup(th);

	pthread_mutex_lock(&x->lock);
	x->ready++;
	if (!ok)
		x->failed = true;
	pthread_cond_broadcast(&x->cond);
	while (!x->go)
		pthread_cond_wait(&x->cond, &x->lock);
	ok = !x->failed;
	pthread_mutex_unlock(&x->lock);
	if (!ok)
		return NULL;
	th->deadline = x->t0 + (uint64_t)((double)x->span / (o->no_stall ? 1.0 : o->speed)) +
		       GRACE_NS;
	for (size_t i = 0; i < x->p->nsteps; i++) {
		struct plan_step *s = &x->p->steps[i];
		uint64_t target = x->t0 + (uint64_t)((double)(s->ts - x->rec0) / o->speed);

		if (x->p->rings[s->ring - 1].thread != th->index)
			continue;
		if (o->no_stall)
			target = now_ns();
		else
			wait_until(th, target);
		run_step(th, s, target);
	}
	/* Later steps may have run late: the grace counts from the last. */
	if (th->deadline < now_ns() + GRACE_NS)
		th->deadline = now_ns() + GRACE_NS;
	th->left = drain(th);
	return NULL;
}

/* Start the threads, and all of them at once when all are set up. */
static bool run_threads(struct run *x)
{
	unsigned started = 0;
	bool ok;

	for (; started < x->nthreads; started++) {
		struct rthread *th = &x->threads[started];

		int err;

		th->x = x;
		th->index = started;
		err = pthread_create(&th->pt, NULL, thread_main, th);
		if (err) {
			fprintf(stderr, "uring-replay: cannot start replay thread %u: %s\n",
				started + 1, strerror(err));
			break;
		}
	}
	pthread_mutex_lock(&x->lock);
	if (started < x->nthreads)
		x->failed = true;
	pthread_cond_broadcast(&x->cond);
	while (x->ready < started)
		pthread_cond_wait(&x->cond, &x->lock);
	/* A millisecond ahead: the first step is on time too. */
	x->t0 = now_ns() + 1000000;
	x->go = true;
	ok = !x->failed;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(x->threads[i].pt, NULL);
	return ok;
}

int run_plan(struct plan *p, const struct run_options *o)
{
	struct run x = { .p = p, .o = o };
	uint64_t left = 0;
	int ret = 1;

	pthread_mutex_init(&x.lock, NULL);
	pthread_cond_init(&x.cond, NULL);
	if (run_alloc(&x)) {
		fprintf(stderr, "uring-replay: out of memory\n");
		goto out;
	}
	if (p->shared_ring && !o->quiet)
		fprintf(stderr, "uring-replay: ring %u was entered by threads %" PRIu32 " and %" PRIu32
			": every ring is replayed on one thread, in recorded order\n",
			p->shared_ring, p->shared_tid[0], p->shared_tid[1]);
	x.rec0 = p->nsteps ? p->steps[0].ts : 0;
	x.span = plan_span_end(p) - x.rec0;
	if (!run_threads(&x))
		goto out;
	for (unsigned i = 0; i < x.nthreads; i++)
		left += x.threads[i].left;
	ret = report_replay(p, o->log, !o->no_stall, left);
out:
	run_free(&x);
	pthread_cond_destroy(&x.cond);
	pthread_mutex_destroy(&x.lock);
	return ret;
}
