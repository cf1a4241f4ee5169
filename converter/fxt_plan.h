/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxt_plan: what --format=fxt draws for one request, decided before any of
 * it is written (output_fxt.c then writes the plan; uring-convert(1), FXT
 * OUTPUT, describes the result).  Pure functions of the model's request,
 * the recording's bounds, the lane the output found for it and the other
 * members of its link drawn earlier: no state, no allocation, so each rule
 * below is tested on its own (tests/check_fxt_output.c).
 *
 * Lifetime
 *   From the submission to the completion; a request submitted before the
 *   recording started is drawn from its start, one still in flight at the
 *   end to its end, and one whose submission or completion was lost from
 *   its first or to its last recorded event, with a note saying so.
 *
 * Steps
 *   The lifetime is tiled by child slices named for what the request did
 *   from one step to the next (drain wait, poll wait, task work, io-wq
 *   queue, io-wq run, ...).  An inline request has none: one slice.
 *
 * Slots and flows
 *   The slices of a request are written in slot order: submit instant,
 *   lifetime, its steps, io-wq work, CQE instant.  Perfetto binds a flow
 *   event to the slice on top of its thread's stack, so each flow event
 *   goes right after its slice (its slot).  The request's arrow runs
 *   submission -> lifetime -> the step that ends where another thread takes
 *   over (poll wait, or the step before the io-wq work) -> work -> CQE,
 *   keeping only points in time order; fewer than two points: no arrow.
 *
 * Link arrows
 *   From the member of a link that finished first to the other one, at the
 *   moment it finished.  The model delivers members as they finish, in
 *   either order, so the arrow is planned when the second one arrives: one
 *   end after one of our slots, the other written "late" on the earlier
 *   member's lane, at the start of its slice that holds that moment
 *   (fxt_drawn_slice_at()).
 */
#ifndef RINGSIDE_FXT_PLAN_H
#define RINGSIDE_FXT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "fxt_proto.h"
#include "fxt_writer.h"
#include "output.h"

/* At most this many step slices a lifetime: later steps are not split off. */
#define FXT_PLAN_MAX_PHASES 10

/* The slices written for one request, in file order. */
enum fxt_slot {
	FXT_SLOT_SUBMIT, FXT_SLOT_LANE, FXT_SLOT_PHASE0,
	FXT_SLOT_WORKER = FXT_SLOT_PHASE0 + FXT_PLAN_MAX_PHASES, FXT_SLOT_CQE, FXT_SLOT_COUNT
};

/* One step slice of a lifetime. */
struct fxt_phase {
	uint64_t start, end;		/* boot ns */
	const char *name;
};

/* Where a request's lifetime is drawn. */
struct fxt_lifetime {
	uint64_t start, end;		/* boot ns; start 0: nothing to draw from */
	const char *note;		/* why it is not submission..completion, or NULL */
};

/* A request's lifetime as drawn on its lane, kept for a link arrow. */
struct fxt_drawn {
	bool on;			/* drawn on a lane, events not lost */
	bool completed;			/* its end is its completion */
	struct fxt_thread lane;
	uint64_t start, end;		/* boot ns */
	unsigned nph;
	uint64_t ph_start[FXT_PLAN_MAX_PHASES];	/* its step slices (boot ns) */
};

/*
 * A link arrow between this request and the other member of a link,
 * delivered earlier: one end after one of our slices, the other written
 * "late" on the other member's lane.
 */
struct fxt_link_plan {
	bool ok;
	uint64_t id;			/* flow id: set by the caller */
	enum fxt_flow_kind our_type;	/* BEGIN: after our lifetime; END: after our step */
	uint64_t our_ts;		/* END: after our earliest slice starting at or after this */
	int our_slot;
	enum fxt_flow_kind late_type;
	struct fxt_thread late_th;	/* the other member's lane ... */
	uint64_t late_ts;		/* ... and the start of its slice there */
};

/* What the output knows when it plans a request. */
struct fxt_plan_input {
	const struct model_request *r;
	struct fxt_lifetime life;	/* fxt_plan_lifetime(), start != 0 */
	bool lane;			/* the lifetime got a lane ... */
	struct fxt_thread lane_th;	/* ... this one */
	const struct fxt_drawn *pred;	/* the predecessor, delivered earlier, or NULL */
	const struct fxt_drawn *succ;	/* the successor, delivered earlier, or NULL */
	bool submit, worker, cqe;	/* admitted on their threads (output's guards) */
};

struct fxt_plan {
	bool on[FXT_SLOT_COUNT];
	uint64_t ts[FXT_SLOT_COUNT];	/* start of each slice (boot ns) */
	enum fxt_flow_kind flow[FXT_SLOT_COUNT];	/* request flow event after it */
	bool request_flow;		/* flow[] holds an arrow: it needs an id */
	uint64_t flow_id;		/* set by the caller */
	unsigned nph;
	struct fxt_phase ph[FXT_PLAN_MAX_PHASES];
	struct fxt_link_plan link[2];	/* [0] with the predecessor, [1] the successor */
	struct fxt_drawn me;		/* this request, for a member delivered later */
};

/* The lifetime of r in a recording [rec_start, rec_end] (boot ns). */
struct fxt_lifetime fxt_plan_lifetime(const struct model_request *r, uint64_t rec_start,
				      uint64_t rec_end);

/* The end of r's io-wq work slice (r->worker_tid and r->work_begin_ts set). */
uint64_t fxt_plan_work_end(const struct model_request *r, uint64_t rec_end);

/* A request whose end is its completion (not the end of the recording). */
bool fxt_plan_completed(const struct model_request *r);

/*
 * Start of the deepest slice of a drawn lifetime that contains ts, or 0.
 * A flow event written later on that lane at that time binds to that slice:
 * its step slices tile the lifetime, nothing else on the lane starts there
 * (lifetimes on a lane never overlap and the next one starts at or after
 * the end), so it is the top of the lane's stack when Perfetto gets there.
 */
uint64_t fxt_drawn_slice_at(const struct fxt_drawn *d, uint64_t ts);

/*
 * The slices, steps and arrows of in->r.  Flow ids are left to the caller,
 * in this order: p->flow_id if p->request_flow, then each p->link[k].id
 * whose p->link[k].ok.
 */
void fxt_plan_request(const struct fxt_plan_input *in, struct fxt_plan *p);

#endif
