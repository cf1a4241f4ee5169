// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_free(struct hist *h)
{
	free(h->buckets);
	hist_init(h);
}

static unsigned bucket_of(uint64_t v)
{
	unsigned e;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return HIST_SUB + (e - HIST_SUB_BITS) * HIST_SUB +
	       (unsigned)((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* Midpoint of a bucket's value range. */
static uint64_t bucket_value(unsigned b)
{
	unsigned e, sub;
	uint64_t lower, width;

	if (b < HIST_SUB)
		return b;
	e = (b - HIST_SUB) / HIST_SUB + HIST_SUB_BITS;
	sub = (b - HIST_SUB) % HIST_SUB;
	width = 1ull << (e - HIST_SUB_BITS);
	lower = ((uint64_t)HIST_SUB + sub) << (e - HIST_SUB_BITS);
	return lower + (width - 1) / 2;
}

int hist_add(struct hist *h, uint64_t v)
{
	unsigned b;

	if (!h->buckets) {
		h->buckets = calloc(HIST_BUCKETS, sizeof(*h->buckets));
		if (!h->buckets)
			return -1;
	}
	b = bucket_of(v);
	if (h->buckets[b] == UINT32_MAX) {
		/* 4 billion values in one bucket: keep the exact totals right
		 * and stop refining the shape (percentiles stay within range). */
		h->overflow++;
	} else {
		h->buckets[b]++;
	}
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
	return 0;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t total = h->count - h->overflow;
	uint64_t rank, seen = 0;

	if (!h->count || !h->buckets || !total)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)total);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen >= rank) {
			uint64_t v = bucket_value(b);

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
