/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Bounded-memory latency histograms (log-linear, in the spirit of
 * HdrHistogram): values below 64 are counted exactly, larger values in 64
 * linear sub-buckets per power of two, so a reported percentile is within
 * 0.8% of a value actually recorded (the bucket midpoint, clamped to the
 * exact min and max).  Memory is fixed (about 30 KiB) whatever the count.
 * Count, sum, min and max are exact.
 */
#ifndef RINGSIDE_STATS_H
#define RINGSIDE_STATS_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (HIST_SUB + (64 - HIST_SUB_BITS) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum;			/* saturates at UINT64_MAX */
	uint64_t min, max;
	uint32_t *buckets;		/* HIST_BUCKETS, allocated on first add */
	uint64_t overflow;		/* bucket counters saturate; see hist_add */
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
/* Returns -1 when out of memory (the value is then counted nowhere). */
int hist_add(struct hist *h, uint64_t v);
/* p in [0, 100]; 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

#endif
