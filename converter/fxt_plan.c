// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What --format=fxt draws for one request: lifetime, steps, slots, the
 * request's arrow and its link arrows (the rules are in fxt_plan.h).
 */
#include <string.h>

#include "fxt_plan.h"

#define ECANCELED_VALUE 125		/* asm-generic ECANCELED, as the model uses */

/* One step boundary inside a request's lifetime. */
struct boundary {
	uint64_t ts;
	unsigned order;			/* tie-break: the order steps happen in */
	const char *label;		/* what the request does from here on */
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Earliest and latest step of a request (boot ns), 0 when none. */
static void known_span(const struct model_request *r, uint64_t *first, uint64_t *last)
{
	const uint64_t ts[] = {
		r->submit_ts, r->defer_ts, r->queue_async_ts, r->poll_arm_ts, r->task_add_ts,
		r->work_begin_ts, r->work_end_ts, r->tw_run_ts, r->fail_link_ts,
		r->first_cqe_ts, r->complete_ts, r->overflow_ts,
	};

	*first = *last = 0;
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		if (!ts[i])
			continue;
		if (!*first || ts[i] < *first)
			*first = ts[i];
		*last = max_u64(*last, ts[i]);
	}
}

struct fxt_lifetime fxt_plan_lifetime(const struct model_request *r, uint64_t rec_start,
				      uint64_t rec_end)
{
	struct fxt_lifetime lt = { 0 };
	const char *start_note = NULL, *end_note = NULL;
	uint64_t first, last;

	known_span(r, &first, &last);
	if (r->status == REQ_IN_FLIGHT_AT_START ||
	    (!r->submit_ts && r->status == REQ_COMPLETE)) {
		lt.start = rec_start;
		start_note = "submitted before the recording started: drawn from the recording start";
	} else if (r->submit_ts) {
		lt.start = r->submit_ts;
	} else {
		lt.start = first;
		start_note = "submission not recorded (events lost): drawn from its first recorded event";
	}
	if (r->status == REQ_IN_FLIGHT_AT_END) {
		lt.end = rec_end;
		end_note = "still in flight when the recording ended: drawn to the recording end";
	} else if (r->complete_ts) {
		lt.end = r->complete_ts;
	} else {
		lt.end = last;
		end_note = r->modifiers & REQM_CQE_SKIPPED ?
			   "finished without a CQE (IOSQE_CQE_SKIP_SUCCESS): drawn to its last recorded event" :
			   "completion not recorded: drawn to its last recorded event";
	}
	lt.end = max_u64(lt.end, lt.start);
	lt.note = start_note ? start_note : end_note;
	return lt;
}

uint64_t fxt_plan_work_end(const struct model_request *r, uint64_t rec_end)
{
	if (r->work_end_ts >= r->work_begin_ts)
		return r->work_end_ts;
	if (r->complete_tid == r->worker_tid && r->complete_ts >= r->work_begin_ts)
		return r->complete_ts;
	return r->status == REQ_IN_FLIGHT_AT_END ? rec_end : r->work_begin_ts;
}

bool fxt_plan_completed(const struct model_request *r)
{
	return r->complete_ts && (r->status == REQ_COMPLETE || r->status == REQ_IN_FLIGHT_AT_START);
}

uint64_t fxt_drawn_slice_at(const struct fxt_drawn *d, uint64_t ts)
{
	uint64_t t;

	if (!d->on || ts < d->start || ts >= d->end)
		return 0;
	t = d->start;
	for (unsigned i = 0; i < d->nph; i++)
		if (d->ph_start[i] <= ts)
			t = d->ph_start[i];
	return t;
}

static void push_boundary(struct boundary *b, unsigned *n, uint64_t ts, unsigned order,
			  const char *label)
{
	if (!ts)
		return;
	b[*n] = (struct boundary){ .ts = ts, .order = order, .label = label };
	for (unsigned i = (*n)++; i > 0 && (b[i].ts < b[i - 1].ts ||
			(b[i].ts == b[i - 1].ts && b[i].order < b[i - 1].order)); i--) {
		struct boundary t = b[i];

		b[i] = b[i - 1];
		b[i - 1] = t;
	}
}

/*
 * The steps of a lifetime [start, end] as consecutive child slices, each
 * named for what the request did from one step to the next (extra: the
 * moments a link released or cancelled it).  None when no step falls
 * strictly inside: an inline request is one slice.
 */
static unsigned build_phases(const struct model_request *r, uint64_t start, uint64_t end,
			     const struct boundary *extra, unsigned nextra, const char *first,
			     struct fxt_phase *ph)
{
	struct boundary b[16];
	unsigned nb = 0, n = 0;
	const char *label = first ? first : r->status == REQ_IN_FLIGHT_AT_START ? "in flight" : "issue";
	uint64_t cur = start;

	for (unsigned i = 0; i < nextra; i++)
		push_boundary(b, &nb, extra[i].ts, extra[i].order, extra[i].label);
	push_boundary(b, &nb, r->defer_ts, 1, "drain wait");
	push_boundary(b, &nb, r->poll_arm_ts, 2, "poll wait");
	push_boundary(b, &nb, r->task_add_ts, 3, "task work");
	push_boundary(b, &nb, r->queue_async_ts, 4, "io-wq queue");
	if (r->worker_tid)
		push_boundary(b, &nb, r->work_begin_ts, 5, r->modifiers & REQM_WORKER_APPROX ?
			      "io-wq run (approx)" : "io-wq run");
	if (r->work_begin_ts)
		push_boundary(b, &nb, r->work_end_ts, 6, "after io-wq");
	push_boundary(b, &nb, r->fail_link_ts, 7, "cancelled");
	for (unsigned i = 0; i < nb; i++) {
		if (b[i].ts >= end)
			break;
		if (b[i].ts > cur && strcmp(b[i].label, label) && n + 1 < FXT_PLAN_MAX_PHASES) {
			ph[n++] = (struct fxt_phase){ .start = cur, .end = b[i].ts, .name = label };
			cur = b[i].ts;
		}
		label = b[i].label;
	}
	if (!n)
		return 0;
	ph[n++] = (struct fxt_phase){ .start = cur, .end = end, .name = label };
	return n;
}

/*
 * The link arrow between a request and the other member of a link, which
 * was delivered earlier (other).  The arrow goes from the member that
 * finished first to the other one, at the moment it finished (X):
 * normally the predecessor's completion releases the successor (issued,
 * or cancelled after a failure); a LINK_TIMEOUT that fires first cancels
 * its predecessor.  Our end is an event after one of our slices (a begin
 * after our lifetime, drawn from its end; an end after the step that
 * starts at X, added to our steps); the other's is written late on its
 * lane at the start of its slice containing X.  Returns false (no arrow)
 * when the times do not allow one.
 */
static bool plan_link(const struct model_request *r, bool we_are_pred, uint64_t start,
		      uint64_t end, const struct fxt_drawn *other, struct fxt_link_plan *lp,
		      struct boundary *extra, unsigned *nextra, const char **first)
{
	bool we_done = fxt_plan_completed(r);
	bool other_first = other->completed && (!we_done || other->end < end);
	uint64_t t;

	if (!other->on)
		return false;
	if (other_first) {
		/* From the other's lifetime (drawn from its end) to our step
		 * that starts at X = its end. */
		if (other->end <= other->start)
			return false;
		t = fxt_drawn_slice_at(other, other->end - 1);
		*lp = (struct fxt_link_plan){ .our_type = FXT_FLOW_END, .our_ts = other->end,
					      .our_slot = -1, .late_type = FXT_FLOW_BEGIN,
					      .late_th = other->lane, .late_ts = t };
		if (other->end > start && other->end < end) {
			if (!we_are_pred) {
				extra[(*nextra)++] = (struct boundary){
					.ts = other->end, .order = 0,
					.label = r->modifiers & REQM_LINK_CANCELLED ? "cancelled" : "issue",
				};
				*first = "link wait";
			} else if (we_done && r->res == -ECANCELED_VALUE) {
				extra[(*nextra)++] = (struct boundary){
					.ts = other->end, .order = 0, .label = "cancelled",
				};
			}
		}
		return true;
	}
	if (!we_done)
		return false;
	/* From our lifetime (drawn from our end) to the other's slice that
	 * contains our end, which must not start before our lifetime. */
	t = fxt_drawn_slice_at(other, end);
	if (!t || t < start)
		return false;
	*lp = (struct fxt_link_plan){ .our_type = FXT_FLOW_BEGIN, .our_slot = FXT_SLOT_LANE,
				      .late_type = FXT_FLOW_END, .late_th = other->lane,
				      .late_ts = t };
	return true;
}

/* The request's flow: submission -> lifetime -> [step before the hand-over]
 * -> [io-wq work] -> completion, points in time order only. */
static void plan_request_flow(const struct model_request *r, struct fxt_plan *p)
{
	enum fxt_slot pts[FXT_SLOT_COUNT];
	unsigned np = 0;
	uint64_t last_ts = 0;

	for (unsigned s = 0; s < FXT_SLOT_COUNT; s++) {
		bool want = p->on[s];

		if (want && s >= FXT_SLOT_PHASE0 && s < FXT_SLOT_WORKER) {
			const struct fxt_phase *q = &p->ph[s - FXT_SLOT_PHASE0];

			want = !strcmp(q->name, "poll wait") ||
			       (p->on[FXT_SLOT_WORKER] && q->end == r->work_begin_ts);
		}
		if (!want || p->ts[s] < last_ts)
			continue;
		pts[np++] = s;
		last_ts = p->ts[s];
	}
	if (np < 2)
		return;
	p->request_flow = true;
	for (unsigned i = 0; i < np; i++)
		p->flow[pts[i]] = i == 0 ? FXT_FLOW_BEGIN : i + 1 == np ? FXT_FLOW_END : FXT_FLOW_STEP;
}

/* Our end of a link arrow goes after our earliest slice that starts at or
 * after its moment; none: no arrow. */
static void place_link_end(const struct fxt_plan *p, struct fxt_link_plan *lp)
{
	if (!lp->ok || lp->our_slot >= 0)
		return;
	for (unsigned s = 0; s < FXT_SLOT_COUNT; s++)
		if (p->on[s] && p->ts[s] >= lp->our_ts &&
		    (lp->our_slot < 0 || p->ts[s] < p->ts[lp->our_slot]))
			lp->our_slot = (int)s;
	if (lp->our_slot < 0)
		lp->ok = false;
}

static void plan_slot(struct fxt_plan *p, enum fxt_slot s, uint64_t ts)
{
	p->on[s] = true;
	p->ts[s] = ts;
}

void fxt_plan_request(const struct fxt_plan_input *in, struct fxt_plan *p)
{
	const struct model_request *r = in->r;
	uint64_t start = in->life.start, end = in->life.end;
	bool arrows = r->status != REQ_INCOMPLETE;
	struct boundary extra[2];
	unsigned nextra = 0;
	const char *first_label = NULL;

	memset(p, 0, sizeof(*p));
	p->me = (struct fxt_drawn){ .on = in->lane && arrows, .completed = fxt_plan_completed(r),
				    .lane = in->lane_th, .start = start, .end = end };

	/* link arrows with a member delivered earlier: may add steps */
	if (in->pred && p->me.on)
		p->link[0].ok = plan_link(r, false, start, end, in->pred, &p->link[0], extra,
					  &nextra, &first_label);
	if (in->succ && p->me.on)
		p->link[1].ok = plan_link(r, true, start, end, in->succ, &p->link[1], extra,
					  &nextra, &first_label);

	if (in->lane) {
		plan_slot(p, FXT_SLOT_LANE, start);
		p->nph = build_phases(r, start, end, extra, nextra, first_label, p->ph);
		for (unsigned i = 0; i < p->nph; i++)
			plan_slot(p, FXT_SLOT_PHASE0 + i, p->ph[i].start);
	}
	if (in->submit)
		plan_slot(p, FXT_SLOT_SUBMIT, r->submit_ts);
	if (in->worker)
		plan_slot(p, FXT_SLOT_WORKER, r->work_begin_ts);
	if (in->cqe)
		plan_slot(p, FXT_SLOT_CQE, r->complete_ts);

	if (arrows)
		plan_request_flow(r, p);
	for (unsigned k = 0; k < 2; k++)
		place_link_end(p, &p->link[k]);

	p->me.nph = p->nph;
	for (unsigned i = 0; i < p->nph; i++)
		p->me.ph_start[i] = p->ph[i].start;
}
