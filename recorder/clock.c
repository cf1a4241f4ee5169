// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <time.h>

#include "clock.h"

#define SNAPSHOT_TRIES 5

static uint64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t clock_boot_ns(void)
{
	return read_ns(CLOCK_BOOTTIME);
}

uint64_t clock_mono_ns(void)
{
	return read_ns(CLOCK_MONOTONIC);
}

uint64_t clock_thread_cpu_ns(void)
{
	return read_ns(CLOCK_THREAD_CPUTIME_ID);
}

void clock_snapshot(struct log_clock_snapshot *snap)
{
	uint64_t best_width = UINT64_MAX;

	for (int i = 0; i < SNAPSHOT_TRIES; i++) {
		uint64_t b0 = read_ns(CLOCK_BOOTTIME);
		uint64_t mono = read_ns(CLOCK_MONOTONIC);
		uint64_t real = read_ns(CLOCK_REALTIME);
		uint64_t tai = read_ns(CLOCK_TAI);
		uint64_t b1 = read_ns(CLOCK_BOOTTIME);
		uint64_t width = b1 - b0;

		if (width >= best_width)
			continue;
		best_width = width;
		snap->boot_ns = b0 + width / 2;
		snap->mono_ns = mono;
		snap->real_ns = real;
		snap->tai_ns = tai;
		snap->uncertainty_ns = (width + 1) / 2;
	}
}
