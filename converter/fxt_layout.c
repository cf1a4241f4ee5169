// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_layout.h"

uint32_t fxt_koids_next(struct fxt_koids *k)
{
	if (!k->next)
		k->next = FXT_KOID_FIRST;
	if (k->next > FXT_KOID_LAST)
		return 0;
	return k->next++;
}

void fxt_lanes_init(struct fxt_lanes *l, unsigned max)
{
	memset(l, 0, sizeof(*l));
	l->max = max ? max : 1;
}

void fxt_lanes_free(struct fxt_lanes *l)
{
	free(l->last_end);
	free(l->last_zero);
	free(l->koid);
	memset(l, 0, sizeof(*l));
}

int fxt_lanes_place(struct fxt_lanes *l, uint64_t start, uint64_t end, bool *opened)
{
	unsigned i;

	*opened = false;
	if (end < start)
		end = start;
	for (i = 0; i < l->n; i++) {
		if (l->last_end[i] < start ||
		    (l->last_end[i] == start && !(l->last_zero[i] && end == start))) {
			l->last_end[i] = end;
			l->last_zero[i] = end == start;
			return (int)i;
		}
	}
	if (l->n >= l->max)
		return -1;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? l->cap * 2 : 4;
		uint64_t *e;
		uint32_t *k;
		bool *z;

		if (cap > l->max)
			cap = l->max;
		e = realloc(l->last_end, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		l->last_end = e;
		k = realloc(l->koid, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		l->koid = k;
		z = realloc(l->last_zero, cap * sizeof(*z));
		if (!z)
			return -ENOMEM;
		l->last_zero = z;
		l->cap = cap;
	}
	l->last_end[l->n] = end;
	l->last_zero[l->n] = end == start;
	l->koid[l->n] = 0;
	*opened = true;
	return (int)l->n++;
}

bool fxt_instant_guard_admit(struct fxt_instant_guard *g, uint64_t ts)
{
	if (g->run && g->ts == ts) {
		if (g->run >= FXT_INSTANT_RUN)
			return false;
		g->run++;
		return true;
	}
	g->ts = ts;
	g->run = 1;
	return true;
}

bool fxt_span_guard_admit(struct fxt_span_guard *g, uint64_t start, uint64_t end)
{
	if (end < start)
		return false;
	/* Past every span ever admitted (the next system call on a thread,
	 * nearly always): disjoint from each, no need to look. */
	if (start < g->max_end) {
		for (unsigned i = 0; i < g->n; i++) {
			uint64_t a = g->start[i], b = g->end[i];

			/* New one starts inside and ends after, or starts
			 * before and ends inside: Perfetto would drop one of
			 * the two. */
			if ((start > a && start < b && end > b) ||
			    (start < a && end > a && end < b))
				return false;
		}
	}
	if (end > g->max_end)
		g->max_end = end;
	g->start[g->next] = start;
	g->end[g->next] = end;
	g->next = (g->next + 1) % FXT_GUARD_SPANS;
	if (g->n < FXT_GUARD_SPANS)
		g->n++;
	return true;
}
