/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel addresses (fields of kind "id": ring, req, target_req, link, tctx)
 * never reach a log: the consumer replaces each with a keyed permutation of
 * it while copying.  The same address gives the same id for the whole
 * recording, different addresses give different ids (it is a bijection of
 * the 64-bit values: the converter follows requests and rings by id), 0
 * stays 0, and without the key -- random per recording, never written -- an
 * id says nothing about the address beyond its class below (KASLR stays
 * intact).
 *
 * No id of a kernel address looks like a kernel address either.  A random
 * 64-bit permutation gives one in 2^17 ids the top 17 bits of an x86-64
 * kernel address, and a recycled request repeats its id thousands of times:
 * a reader (or a test) could not tell that from a leak.  So the permutation
 * keeps to classes by top byte -- kernel addresses under 4- and 5-level
 * paging alike have it 0xff, user ones 0x00, and 0x01..0xfe is
 * non-canonical under both, never a pointer:
 *
 *   0xff (kernel)        -> 0x00, a keyed permutation of the low 56 bits
 *   0x00 (user, small)   -> 0x80, likewise (0 itself stays 0, see below)
 *   0x80 (non-canonical) -> 0xff, likewise
 *   any other top byte   -> any other top byte: a keyed 64-bit permutation,
 *                           applied again while it lands in the three above
 *                           (cycle walking: still a bijection of that set)
 *
 * In a bijection every value is some input's id, kernel-looking ones
 * included: they are the ids of the 0x80 class, which no pointer is in
 * under either paging mode.
 *
 * Each permutation is a 4-round Feistel network with a keyed 64-bit mixing
 * round function (a bijection whatever the round function), on 28-bit
 * halves for the 56-bit ones and 32-bit halves for the 64-bit one, each
 * class with its own round functions.  To keep 0 -> 0, the kernel address
 * that would map to 0 takes the image of 0 instead (a swap, still a
 * bijection, and that image has top byte 0x80).
 */
#ifndef RINGSIDE_RECORDER_POINTER_SCRUB_H
#define RINGSIDE_RECORDER_POINTER_SCRUB_H

#include <stdbool.h>
#include <stdint.h>

#define SCRUB_ROUNDS 4
#define SCRUB_MAX_IDS 4		/* id fields per record type */
/* the permutations, by top byte of the input (see above) */
enum scrub_class { SCRUB_KERNEL, SCRUB_USER, SCRUB_SPARE, SCRUB_OTHER, SCRUB_CLASSES };
/*
 * Recent addresses and their ids.  The same few ring contexts and recycled
 * requests come back all the time, and a hit costs a few nanoseconds where
 * the permutation costs tens (it was the recorder's largest cost after
 * compression at millions of events per second).
 */
#define SCRUB_CACHE 1024

struct pointer_scrub {
	bool raw;			/* --raw-pointers: leave addresses alone */
	uint64_t key[SCRUB_ROUNDS];
	uint64_t round_key[SCRUB_CLASSES][SCRUB_ROUNDS];	/* key, per class */
	uint64_t zero_preimage;		/* the kernel address with permute(x) == 0 */
	uint64_t zero_image;		/* permute(0), top byte 0x80 */
	/* id field offsets per record type, from the layout table */
	uint8_t nids[64];
	uint16_t id_offset[64][SCRUB_MAX_IDS];
	struct {
		uint64_t addr, id;
	} cache[SCRUB_CACHE];
};

/* With a given key (tests) or a fresh one from getrandom(2). */
void scrub_init(struct pointer_scrub *s, const uint64_t key[SCRUB_ROUNDS], bool raw);
int scrub_init_random(struct pointer_scrub *s, bool raw);

uint64_t scrub_id(const struct pointer_scrub *s, uint64_t addr);

/* scrub_id() through the cache (one thread per pointer_scrub). */
static inline uint64_t scrub_id_cached(struct pointer_scrub *s, uint64_t addr)
{
	/* kernel objects are at least 8-byte aligned: skip those bits */
	unsigned slot = (unsigned)((addr >> 3) ^ (addr >> 13)) & (SCRUB_CACHE - 1);

	if (s->cache[slot].addr != addr) {
		s->cache[slot].addr = addr;
		s->cache[slot].id = scrub_id(s, addr);
	}
	return s->cache[slot].id;
}
/* Inverse of scrub_id (tests only: the recorder never needs it). */
uint64_t scrub_unid(const struct pointer_scrub *s, uint64_t id);

/* Replace the id fields of one record of this type in place. */
static inline void scrub_record(struct pointer_scrub *s, unsigned type, void *rec)
{
	unsigned char *p = rec;

	if (s->raw || type >= 64)
		return;
	for (unsigned i = 0; i < s->nids[type]; i++) {
		uint64_t v;

		__builtin_memcpy(&v, p + s->id_offset[type][i], sizeof(v));
		v = scrub_id_cached(s, v);
		__builtin_memcpy(p + s->id_offset[type][i], &v, sizeof(v));
	}
}

#endif
