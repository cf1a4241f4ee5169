// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "event_layout.h"
#include "pointer_scrub.h"

/* splitmix64's finaliser: a strong 64-bit mixer. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#define LOW56 ((1ull << 56) - 1)
#define TOP(x) ((unsigned)((x) >> 56))
#define TOP_KERNEL 0xffu
#define TOP_USER 0x00u
#define TOP_SPARE 0x80u		/* non-canonical: what maps onto the kernel half */

static uint64_t round_mix(uint32_t half, uint64_t round_key)
{
	return mix64((uint64_t)half ^ round_key);
}

/*
 * A 4-round Feistel network on two half_bits-bit halves: a permutation of
 * [0, 2^(2 * half_bits)), 28-bit halves for the classes' 56-bit ones and
 * 32-bit halves for the 64-bit one.  Callers pass a constant half_bits, so
 * each use compiles to its own straight code.
 */
static inline uint64_t feistel(uint64_t x, unsigned half_bits, const uint64_t key[SCRUB_ROUNDS])
{
	const uint32_t m = (uint32_t)((1ull << half_bits) - 1);
	uint32_t l = (uint32_t)(x >> half_bits) & m, r = (uint32_t)x & m;

	for (int i = 0; i < SCRUB_ROUNDS; i++) {
		uint32_t t = l ^ (uint32_t)(round_mix(r, key[i]) >> (64 - half_bits));

		l = r;
		r = t;
	}
	return (uint64_t)l << half_bits | r;
}

static uint64_t feistel_inverse(uint64_t y, unsigned half_bits, const uint64_t key[SCRUB_ROUNDS])
{
	const uint32_t m = (uint32_t)((1ull << half_bits) - 1);
	uint32_t l = (uint32_t)(y >> half_bits) & m, r = (uint32_t)y & m;

	for (int i = SCRUB_ROUNDS - 1; i >= 0; i--) {
		uint32_t t = r ^ (uint32_t)(round_mix(l, key[i]) >> (64 - half_bits));

		r = l;
		l = t;
	}
	return (uint64_t)l << half_bits | r;
}

static inline uint64_t permute56(const struct pointer_scrub *s, uint64_t x, enum scrub_class c)
{
	return feistel(x, 28, s->round_key[c]);
}

static uint64_t unpermute56(const struct pointer_scrub *s, uint64_t y, enum scrub_class c)
{
	return feistel_inverse(y, 28, s->round_key[c]);
}

static bool top_is_special(uint64_t x)
{
	return TOP(x) == TOP_KERNEL || TOP(x) == TOP_USER || TOP(x) == TOP_SPARE;
}

static uint64_t permute(const struct pointer_scrub *s, uint64_t x)
{
	switch (TOP(x)) {
	case TOP_KERNEL:
		return permute56(s, x & LOW56, SCRUB_KERNEL);
	case TOP_USER:
		return (uint64_t)TOP_SPARE << 56 | permute56(s, x, SCRUB_USER);
	case TOP_SPARE:
		return (uint64_t)TOP_KERNEL << 56 | permute56(s, x & LOW56, SCRUB_SPARE);
	}
	/*
	 * Cycle walking: the first value of x's orbit under the 64-bit Feistel
	 * network that is back among the other top bytes.  It ends (the orbit
	 * returns to x), and 253 of 256 top bytes are "other": 1.01 steps on
	 * average.
	 */
	do
		x = feistel(x, 32, s->round_key[SCRUB_OTHER]);
	while (top_is_special(x));
	return x;
}

static uint64_t unpermute(const struct pointer_scrub *s, uint64_t y)
{
	switch (TOP(y)) {
	case TOP_USER:
		return (uint64_t)TOP_KERNEL << 56 | unpermute56(s, y, SCRUB_KERNEL);
	case TOP_SPARE:
		return unpermute56(s, y & LOW56, SCRUB_USER);
	case TOP_KERNEL:
		return (uint64_t)TOP_SPARE << 56 | unpermute56(s, y & LOW56, SCRUB_SPARE);
	}
	do
		y = feistel_inverse(y, 32, s->round_key[SCRUB_OTHER]);
	while (top_is_special(y));
	return y;
}

static void build_offsets(struct pointer_scrub *s)
{
	size_t count;
	const struct ev_type_info *types = ev_types(&count);

	memset(s->nids, 0, sizeof(s->nids));
	for (size_t t = 0; t < count; t++) {
		unsigned type = types[t].type;

		for (size_t f = 0; f < types[t].nfields; f++) {
			if (types[t].fields[f].kind != EVK_ID || s->nids[type] >= SCRUB_MAX_IDS)
				continue;
			s->id_offset[type][s->nids[type]++] = types[t].fields[f].offset;
		}
	}
}

void scrub_init(struct pointer_scrub *s, const uint64_t key[SCRUB_ROUNDS], bool raw)
{
	memset(s, 0, sizeof(*s));
	s->raw = raw;
	memcpy(s->key, key, sizeof(s->key));
	/*
	 * Each permutation has its own round functions: the class in the top
	 * byte, above any half, makes the inputs of the mixer disjoint.
	 */
	for (unsigned c = 0; c < SCRUB_CLASSES; c++)
		for (unsigned i = 0; i < SCRUB_ROUNDS; i++)
			s->round_key[c][i] = key[i] ^ (uint64_t)c << 56;
	s->zero_image = permute(s, 0);
	s->zero_preimage = unpermute(s, 0);
	build_offsets(s);
	/* slot 0 of address 0 holds id 0: correct, so no "empty" marker needed */
	for (size_t i = 0; i < SCRUB_CACHE; i++)
		s->cache[i].id = scrub_id(s, s->cache[i].addr);
}

int scrub_init_random(struct pointer_scrub *s, bool raw)
{
	uint64_t key[SCRUB_ROUNDS];
	size_t got = 0;

	while (got < sizeof(key)) {
		ssize_t n = getrandom((char *)key + got, sizeof(key) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	scrub_init(s, key, raw);
	memset(key, 0, sizeof(key));
	return 0;
}

uint64_t scrub_id(const struct pointer_scrub *s, uint64_t addr)
{
	/* Kernel addresses, nearly every call, first; the swap keeps 0 for 0. */
	if (TOP(addr) == TOP_KERNEL) {
		uint64_t id = permute56(s, addr & LOW56, SCRUB_KERNEL);

		return id ? id : s->zero_image;
	}
	if (!addr)
		return 0;
	return permute(s, addr);
}

uint64_t scrub_unid(const struct pointer_scrub *s, uint64_t id)
{
	if (!id)
		return 0;
	if (id == s->zero_image)
		return s->zero_preimage;
	return unpermute(s, id);
}
