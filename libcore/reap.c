// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CQ indices and reaping bounds (reap.h).  Kernel facts (io_uring/io_uring.c
 * and io_uring.h, 6.1 .. 6.18):
 *
 *  - CQEs are posted under the completion lock (or the ring's uring_lock
 *    for a DEFER_TASKRUN ring), in CQ order, and io_uring_complete fires
 *    for each CQE that got a slot, so the order of complete events is the
 *    order of the CQ indices.  An overflowing CQE fires only cqe_overflow
 *    and reaches the CQ later, when the overflow list is flushed, with no
 *    event: like a lost complete, it shows as a CQ tail ahead of the count.
 *  - The shared CQ tail is published (io_commit_cqring) after the trace
 *    fired, so a snapshot may show a tail behind the count: that is not a
 *    gap.
 *  - io_get_cqe() writes index q only when q - head < cq_entries (head as
 *    read then), so when index q is written every index <= q - cq_entries
 *    was already consumed.
 */
#include <stddef.h>

#include "reap.h"

static void unlink_entry(struct reap_ring *rr, struct reap_entry *e)
{
	if (rr->since_snapshot == e)
		rr->since_snapshot = e->next;
	if (e->prev)
		e->prev->next = e->next;
	else
		rr->first = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		rr->last = e->prev;
	e->prev = e->next = NULL;
	e->queued = false;
}

static void reaped(struct reap_ring *rr, struct reap_entry *e, uint64_t ts, bool capacity)
{
	e->reaped_ts = ts;
	e->reaped_by_capacity = capacity;
	unlink_entry(rr, e);
}

bool reap_posted(struct reap_ring *rr, struct reap_entry *e, uint64_t ts, unsigned slots)
{
	uint32_t q = rr->next_index;
	bool any = false;

	if (!rr->anchored)
		return false;
	rr->next_index += slots;
	/* Written at q: everything at q - size or before was consumed. */
	while (rr->size && rr->first && (int32_t)(q - rr->first->index) >= (int32_t)rr->size) {
		reaped(rr, rr->first, ts, true);
		any = true;
	}
	if (!e)
		return any;
	e->index = q;
	e->index_shifted = false;
	e->posted_ts = ts;
	e->reaped_ts = 0;
	e->queued = true;
	e->next = NULL;
	e->prev = rr->last;
	if (rr->last)
		rr->last->next = e;
	else
		rr->first = e;
	rr->last = e;
	if (!rr->since_snapshot)
		rr->since_snapshot = e;
	return any;
}

bool reap_snapshot(struct reap_ring *rr, uint64_t ts, uint32_t head, uint32_t tail)
{
	int32_t gap;
	bool any = false;

	if (!rr->anchored) {
		rr->anchored = true;
		rr->next_index = tail;
		rr->since_snapshot = NULL;
		return false;
	}
	gap = (int32_t)(tail - rr->next_index);
	if (gap > 0) {
		/* CQEs reached the ring unseen (overflow flush, lost events,
		 * padding) somewhere among those posted since the last
		 * snapshot: moving all of them up keeps every index an upper
		 * bound, so every reaping time stays an upper bound. */
		for (struct reap_entry *e = rr->since_snapshot; e; e = e->next) {
			e->index += (uint32_t)gap;
			e->index_shifted = true;
		}
		rr->next_index = tail;
	}
	while (rr->first && (int32_t)(head - rr->first->index) > 0 &&
	       rr->first->posted_ts <= ts) {
		reaped(rr, rr->first, ts, false);
		any = true;
	}
	rr->since_snapshot = NULL;
	return any;
}

void reap_remove(struct reap_ring *rr, struct reap_entry *e)
{
	if (e->queued)
		unlink_entry(rr, e);
}

void reap_forget(struct reap_ring *rr)
{
	while (rr->first)
		unlink_entry(rr, rr->first);
	rr->anchored = false;
	rr->since_snapshot = NULL;
}
