// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "filter.h"

struct filter {
	struct output base;
	struct output *in;
	struct selection sel;
};

#define F(o) ((struct filter *)(void *)(o))

static bool pid_ok(const struct filter *f, uint32_t pid)
{
	if (!f->sel.npids)
		return true;
	for (size_t i = 0; i < f->sel.npids; i++)
		if (f->sel.pids[i] == pid)
			return true;
	return false;
}

static bool ring_ok(const struct filter *f, const struct model_ring *r)
{
	if (!f->sel.nrings)
		return true;
	if (!r)
		return false;
	for (size_t i = 0; i < f->sel.nrings; i++)
		if (f->sel.rings[i] == r->number)
			return true;
	return false;
}

static bool at_ok(const struct filter *f, uint64_t ts)
{
	return ts >= f->sel.start_ns && ts <= f->sel.end_ns;
}

/* [a, b] overlaps the window; 0 means unknown (open-ended). */
static bool span_ok(const struct filter *f, uint64_t a, uint64_t b)
{
	if (b && b < f->sel.start_ns)
		return false;
	if (a && a > f->sel.end_ns)
		return false;
	return true;
}

static int f_begin(struct output *o, const struct output_meta *meta, char *err, size_t errlen)
{
	return F(o)->in->ops->begin(F(o)->in, meta, err, errlen);
}

static void f_task(struct output *o, const struct model_task *t)
{
	struct filter *f = F(o);

	if (f->in->ops->task && pid_ok(f, t->pid))
		f->in->ops->task(f->in, t);
}

static void f_ring(struct output *o, const struct model_ring *r)
{
	struct filter *f = F(o);

	if (f->in->ops->ring && ring_ok(f, r) && (!f->sel.npids || !r->pid || pid_ok(f, r->pid)))
		f->in->ops->ring(f->in, r);
}

static void f_request(struct output *o, const struct model_request *r)
{
	struct filter *f = F(o);
	uint64_t first = r->submit_ts ? r->submit_ts : r->first_cqe_ts;
	uint32_t pid = r->submit_pid ? r->submit_pid : r->ring->pid;

	if (!f->in->ops->request || !ring_ok(f, r->ring) || !pid_ok(f, pid))
		return;
	if (r->status == REQ_IN_FLIGHT_AT_END || r->status == REQ_INCOMPLETE) {
		if (!span_ok(f, first, r->complete_ts))
			return;
	} else if (!span_ok(f, first, r->complete_ts ? r->complete_ts : first)) {
		return;
	}
	f->in->ops->request(f->in, r);
}

static void f_syscall(struct output *o, const struct model_syscall *s)
{
	struct filter *f = F(o);

	if (f->in->ops->syscall && ring_ok(f, s->ring) && pid_ok(f, s->pid) &&
	    span_ok(f, s->begin_ts, s->end_ts))
		f->in->ops->syscall(f->in, s);
}

static void f_cqe(struct output *o, const struct model_cqe *c)
{
	struct filter *f = F(o);
	uint32_t pid = c->request ? c->request->submit_pid : c->ring->pid;

	if (f->in->ops->cqe && at_ok(f, c->ts) && ring_ok(f, c->ring) &&
	    (!f->sel.npids || pid_ok(f, pid)))
		f->in->ops->cqe(f->in, c);
}

static void f_raw(struct output *o, const struct raw_event *e)
{
	struct filter *f = F(o);

	if (f->in->ops->raw_event && at_ok(f, e->rec->ts) && pid_ok(f, e->rec->tgid) &&
	    (!f->sel.nrings || ring_ok(f, e->ring)))
		f->in->ops->raw_event(f->in, e);
}

static void f_loss(struct output *o, const struct model_loss *l)
{
	struct filter *f = F(o);

	if (f->in->ops->loss && span_ok(f, l->first_ts, l->last_ts))
		f->in->ops->loss(f->in, l);
}

static void f_marker(struct output *o, const struct model_marker *m)
{
	struct filter *f = F(o);

	if (f->in->ops->marker && at_ok(f, m->ts) && pid_ok(f, m->pid) &&
	    (!f->sel.nrings || ring_ok(f, m->ring)))
		f->in->ops->marker(f->in, m);
}

static void f_counter(struct output *o, const struct model_counter *c)
{
	struct filter *f = F(o);

	if (f->in->ops->counter && at_ok(f, c->ts) && ring_ok(f, c->ring) &&
	    (!f->sel.npids || pid_ok(f, c->ring->pid)))
		f->in->ops->counter(f->in, c);
}

static int f_end(struct output *o, const struct output_totals *t, char *err, size_t errlen)
{
	return F(o)->in->ops->end(F(o)->in, t, err, errlen);
}

static void f_destroy(struct output *o)
{
	F(o)->in->ops->destroy(F(o)->in);
	free(o);
}

struct output *output_filter_new(struct output *inner, const struct selection *sel)
{
	/* Only forward the callbacks the inner output has, so the model can
	 * skip work (raw_event) for outputs that do not need it. */
	struct filter *f = calloc(1, sizeof(*f) + sizeof(struct output_ops));
	struct output_ops *ops;

	if (!f)
		return NULL;
	ops = (struct output_ops *)(f + 1);
	ops->name = inner->ops->name;
	ops->begin = f_begin;
	ops->task = inner->ops->task ? f_task : NULL;
	ops->ring = inner->ops->ring ? f_ring : NULL;
	ops->request = inner->ops->request ? f_request : NULL;
	ops->syscall = inner->ops->syscall ? f_syscall : NULL;
	ops->cqe = inner->ops->cqe ? f_cqe : NULL;
	ops->raw_event = inner->ops->raw_event ? f_raw : NULL;
	ops->loss = inner->ops->loss ? f_loss : NULL;
	ops->marker = inner->ops->marker ? f_marker : NULL;
	ops->counter = inner->ops->counter ? f_counter : NULL;
	ops->end = f_end;
	ops->destroy = f_destroy;
	f->base.ops = ops;
	f->in = inner;
	f->sel = *sel;
	return &f->base;
}
