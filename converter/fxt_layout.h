/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxt_layout: the placement rules of --format=fxt that are worth testing on
 * their own (output_fxt.c uses them; uring-convert(1), FXT OUTPUT,
 * describes the result).
 *
 * Lanes
 *   Perfetto nests slices only on thread tracks and DROPS a complete event
 *   that partially overlaps an earlier slice of the same thread (Perfetto's
 *   FXT importer, fuchsia_trace_parser.cc).  Request lifetimes of one ring
 *   overlap, so each ring gets synthetic "lane" threads, each holding
 *   lifetimes that never overlap.  The model delivers requests when they
 *   FINISH, roughly in end-time order (libcore/output.h), so lanes are
 *   filled greedily in that order: a request goes to the lowest-numbered
 *   lane whose last lifetime ended at or before the request's start.
 *   Every placement starts at or after the lane's previous end, so a
 *   lane's lifetimes are in time order and pairwise disjoint (touching
 *   is allowed: Perfetto closes the earlier slice first).  The exception
 *   is two zero-length lifetimes at the same time, which Perfetto stacks
 *   like instants: those go to different lanes.  When every
 *   lane is busy and the limit is reached the request gets no lane; the
 *   caller counts and shows it.
 *
 * Span guard
 *   Slices on real threads (io-wq work, syscalls) come from the log and are
 *   written out of time order.  They should never partially overlap, but
 *   a damaged or approximate log could make them; the guard remembers the
 *   last few spans written on a thread and refuses one that would
 *   partially overlap any of them (nesting and disjoint spans pass), so
 *   that Perfetto never silently drops a slice we wrote.
 *
 * Synthetic koids
 *   Perfetto truncates koids to 32 bits and Linux tids are below
 *   PID_MAX_LIMIT (2^22), so synthetic processes and threads live in
 *   [0x40000000, 0x7fffffff], allocated in order of first use (hence
 *   identical for every conversion of the same log).
 */
#ifndef RINGSIDE_FXT_LAYOUT_H
#define RINGSIDE_FXT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The synthetic "ringside" process (recording metadata, lost events). */
#define FXT_KOID_RINGSIDE	0x40000000u
/* Its "recording" thread. */
#define FXT_KOID_RECORDING	0x40000001u
/* First koid handed out by fxt_koids_next(). */
#define FXT_KOID_FIRST		0x40000100u
/* Last usable koid: keeps every synthetic koid within 31 bits. */
#define FXT_KOID_LAST		0x7fffffffu

#define FXT_LANES_DEFAULT	64
#define FXT_LANES_MAX		4096

struct fxt_koids {
	uint32_t next;			/* 0: not initialised */
};

/* A fresh synthetic koid, or 0 when the range is exhausted. */
uint32_t fxt_koids_next(struct fxt_koids *k);

/* One ring's lanes. */
struct fxt_lanes {
	uint64_t *last_end;		/* per lane: end of its last lifetime */
	bool *last_zero;		/* per lane: ... which had zero length */
	uint32_t *koid;			/* per lane: its thread koid */
	unsigned n;			/* lanes opened so far */
	unsigned cap;
	unsigned max;			/* limit (>= 1) */
};

void fxt_lanes_init(struct fxt_lanes *l, unsigned max);
void fxt_lanes_free(struct fxt_lanes *l);

/*
 * Place the lifetime [start, end] (end >= start).  Returns the lane index
 * (>= 0); for a newly opened lane, *opened is set and the caller must set
 * l->koid[index].  -1: every lane is busy and the limit is reached;
 * -ENOMEM: out of memory (nothing changed).
 */
int fxt_lanes_place(struct fxt_lanes *l, uint64_t start, uint64_t end, bool *opened);

/*
 * Instant guard: Perfetto stacks zero-length slices at the same time on a
 * thread and drops what goes deeper than 512.  Only a damaged or hostile
 * log puts hundreds of events of one thread at one nanosecond; past
 * FXT_INSTANT_RUN consecutive instants at one time on a track, the caller
 * leaves the rest out (and counts them).
 */
#define FXT_INSTANT_RUN 128

struct fxt_instant_guard {
	uint64_t ts;
	unsigned run;
};

/* true when one more instant at ts may go on this track. */
bool fxt_instant_guard_admit(struct fxt_instant_guard *g, uint64_t ts);

#define FXT_GUARD_SPANS 8

struct fxt_span_guard {
	uint64_t start[FXT_GUARD_SPANS], end[FXT_GUARD_SPANS];
	uint64_t max_end;		/* of every span admitted */
	unsigned n, next;
};

/*
 * true (and the span is remembered) when [start, end] does not partially
 * overlap a remembered span: it is disjoint from each (touching allowed),
 * or nested in it, or contains it.
 */
bool fxt_span_guard_admit(struct fxt_span_guard *g, uint64_t start, uint64_t end);

#endif
