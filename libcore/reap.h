/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * When the application reaped each CQE.  An application consumes CQEs by
 * moving the CQ head in shared memory, without a syscall; the log holds
 * the CQ head and tail only where the recorder read them (io_uring_enter
 * begin and end).  Per ring, this module gives each posted CQE its index
 * in the CQ (the value of the CQ tail it was written at) and finds the
 * first ring snapshot whose head is past it: an upper bound of the time
 * the application reaped it.  The rules (what is exact, what is a bound)
 * are in uring-convert(1), MODEL, "When CQEs were reaped".
 */
#ifndef RINGSIDE_REAP_H
#define RINGSIDE_REAP_H

#include <stdbool.h>
#include <stdint.h>

/* A CQE whose reaping is being followed (embedded in the model's request). */
struct reap_entry {
	struct reap_entry *prev, *next;	/* the ring's list, in CQ index order */
	bool queued;			/* in a ring's list: not reaped yet */
	uint32_t index;			/* CQ index (tail value it was written at) */
	bool index_shifted;		/* CQEs went unseen: index is an upper bound */
	uint64_t posted_ts;
	uint64_t reaped_ts;		/* 0 unknown */
	bool reaped_by_capacity;	/* bound from the ring size, not a snapshot */
};

struct reap_ring {
	bool anchored;			/* next_index known */
	uint32_t next_index;		/* CQ index the next CQE posted takes */
	uint32_t size;			/* CQ ring entries, 0 unknown */
	struct reap_entry *first, *last;
	struct reap_entry *since_snapshot;	/* first entry posted after the last snapshot */
};

/*
 * A CQE was written into the CQ ring (complete event), taking slots slots
 * (2 for a 32-byte CQE of an IORING_SETUP_CQE_MIXED ring, else 1).  e may
 * be NULL (a CQE nobody follows); else e gets its index when the ring is
 * anchored and is queued until reaped.  Returns true when that reaped
 * some entries (by the ring-size rule).
 */
bool reap_posted(struct reap_ring *rr, struct reap_entry *e, uint64_t ts, unsigned slots);
/* A snapshot of the shared CQ head and tail at ts.  Returns true when
 * entries were reaped. */
bool reap_snapshot(struct reap_ring *rr, uint64_t ts, uint32_t head, uint32_t tail);
/* Stop following e (its reaped_ts stays 0 unless already set). */
void reap_remove(struct reap_ring *rr, struct reap_entry *e);
/* Forget everything queued and the anchor (ring gone, end of the log). */
void reap_forget(struct reap_ring *rr);

#endif
