/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --start/--end/--pid/--ring: an output that forwards to another output
 * only what is selected.  The model always sees the whole log (so that a
 * request that started before --start is still followed correctly); the
 * selection only decides what is delivered:
 *   - requests and syscalls overlapping [start, end] (an object with an
 *     unknown end overlaps everything after its start);
 *   - CQEs, raw events, markers, counters inside [start, end];
 *   - loss windows overlapping [start, end], whatever the pid/ring (a loss
 *     on any CPU may hide events of the selected processes);
 *   - with --pid: objects of those processes (requests by submitter, else
 *     ring owner; raw events by the header's process; rings by owner);
 *   - with --ring: objects of those ring numbers (syscalls without a known
 *     ring are left out).
 */
#ifndef RINGSIDE_FILTER_H
#define RINGSIDE_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "output.h"

struct selection {
	uint64_t start_ns, end_ns;	/* boot ns; 0 / UINT64_MAX: unbounded */
	const uint32_t *pids;
	size_t npids;
	const unsigned *rings;
	size_t nrings;
};

/* Wraps inner (takes ownership: destroy() destroys both).  NULL: no memory. */
struct output *output_filter_new(struct output *inner, const struct selection *sel);

#endif
