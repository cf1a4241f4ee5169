/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The records a submit_complete record stands for (common/uring_event.h,
 * format 4.0): every reader yields these two instead of it, so that the
 * request model, events.csv and the tests see what they saw before the
 * recorder folded inline completions into their submit records.
 */
#ifndef RINGSIDE_EVENT_SPLIT_H
#define RINGSIDE_EVENT_SPLIT_H

#include <stdbool.h>
#include <string.h>

#include "uring_event.h"

_Static_assert(sizeof(struct ev_submit) <= sizeof(struct ev_submit_complete),
	       "submit_complete begins with a submit record");

/* The submit record: the same bytes, under its own type. */
static inline void ev_split_submit(const struct ev_submit_complete *in, struct ev_submit *out)
{
	memcpy(out, in, sizeof(*out));
	out->type = EV_SUBMIT;
	out->flags &= (uint16_t)~EVF_COMPLETED;
}

/* Whether a record is a submit_complete record holding its completion. */
static inline bool ev_holds_completion(const struct ev_header *h)
{
	return h->type == EV_SUBMIT_COMPLETE && (h->flags & EVF_COMPLETED);
}

/* Its completion's ts; meaningful only with EVF_COMPLETED. */
static inline uint64_t ev_split_complete_ts(const struct ev_submit_complete *in)
{
	return in->ts + in->complete_dts;
}

/* The complete record; false when the record holds no completion. */
static inline bool ev_split_complete(const struct ev_submit_complete *in, struct ev_complete *out)
{
	if (!(in->flags & EVF_COMPLETED))
		return false;
	memset(out, 0, sizeof(*out));
	out->ts = ev_split_complete_ts(in);
	out->tid = in->tid;
	out->tgid = in->tgid;
	out->type = EV_COMPLETE;
	out->flags = in->complete_flags;
	out->res = in->res;
	out->ring = in->ring;
	out->req = in->req;
	out->user_data = in->user_data;
	out->cflags = in->cflags;
	out->file = in->file;
	return true;
}

#endif /* RINGSIDE_EVENT_SPLIT_H */
