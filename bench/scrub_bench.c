// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * scrub_bench: nanoseconds per id of recorder/pointer_scrub, the one piece
 * of decoding the recorder does on the host for every event.
 *
 *   bench/scrub_bench [-n IDS]
 *
 * Cases:
 *   slab     scrub_id() on distinct slab-like kernel addresses (every id a
 *            cache miss: the permutation itself);
 *   la57     the same with 5-level-paging kernel addresses (0xff11...);
 *   other    scrub_id() on values no kernel pointer has (user-half and
 *            non-canonical addresses: the rare path);
 *   storm    scrub_id_cached() as a NOP storm calls it: one ring and 256
 *            recycled requests, alternating (nearly all cache hits).
 * Times are this thread's CPU time (best of 5), so that other load on the
 * machine shows less.  Not part of make check: a benchmark, not a test.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pointer_scrub.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static volatile uint64_t sink;

/* One pass over the ids; its sum goes to sink, so that nothing is skipped. */
typedef uint64_t (*scrub_pass)(struct pointer_scrub *s, const uint64_t *in, size_t n);

static uint64_t pass_plain(struct pointer_scrub *s, const uint64_t *in, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += scrub_id(s, in[i]);
	return acc;
}

static uint64_t pass_cached(struct pointer_scrub *s, const uint64_t *in, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += scrub_id_cached(s, in[i]);
	return acc;
}

/* Best of 5 passes, in ns per id. */
static double best_ns_per_id(scrub_pass pass, struct pointer_scrub *s, const uint64_t *in,
			     size_t n)
{
	double best = 1e9;

	for (int rep = 0; rep < 5; rep++) {
		double t0 = now();

		sink = pass(s, in, n);
		t0 = now() - t0;
		if (t0 * 1e9 / (double)n < best)
			best = t0 * 1e9 / (double)n;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const uint64_t key[SCRUB_ROUNDS] = {
		0x243f6a8885a308d3ull, 0x13198a2e03707344ull,
		0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull,
	};
	static struct pointer_scrub s;	/* 16 KiB of cache: not on the stack */
	size_t n = 4000000;
	uint64_t *in, rng = 0x9e3779b97f4a7c15ull;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: scrub_bench [-n IDS]\n");
			return 2;
		}
		n = strtoull(optarg, NULL, 0);
	}
	if (!n || !(in = malloc(n * sizeof(*in)))) {
		fprintf(stderr, "scrub_bench: bad -n or out of memory\n");
		return 1;
	}
	scrub_init(&s, key, false);

	for (size_t i = 0; i < n; i++)
		in[i] = 0xffff888100000000ull + i * 64;
	printf("slab   %6.2f ns/id\n", best_ns_per_id(pass_plain, &s, in, n));

	for (size_t i = 0; i < n; i++)
		in[i] = 0xff11000100000000ull + i * 64;
	printf("la57   %6.2f ns/id\n", best_ns_per_id(pass_plain, &s, in, n));

	for (size_t i = 0; i < n; i++) {
		uint64_t v = xorshift(&rng);

		/* half user-half (top byte 0), half anywhere but the kernel half */
		in[i] = i & 1 ? v >> 8 : (v >> 56) == 0xff ? v >> 1 : v;
	}
	printf("other  %6.2f ns/id\n", best_ns_per_id(pass_plain, &s, in, n));

	for (size_t i = 0; i < n; i++)
		in[i] = i & 1 ? 0xffff888104a2c000ull + (xorshift(&rng) % 256) * 256 :
				0xffff88810b37e000ull;
	printf("storm  %6.2f ns/id (cached)\n", best_ns_per_id(pass_cached, &s, in, n));
	free(in);
	return 0;
}
