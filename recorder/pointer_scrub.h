/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel addresses (fields of kind "id": ring, req, target_req, link, tctx)
 * never reach a log: the consumer replaces each with a keyed 64-bit
 * permutation of it while copying.  The same address gives the same id for
 * the whole recording, different addresses give different ids (it is a
 * bijection), 0 stays 0, and without the key -- random per recording, never
 * written -- an id says nothing about the address (KASLR stays intact).
 *
 * The permutation is a 4-round Feistel network on the two 32-bit halves
 * with a keyed 64-bit mixing round function; a Feistel network is a
 * bijection whatever its round function.  To keep 0 -> 0 the one address
 * that would map to 0 takes the image of 0 instead (a swap, still a
 * bijection).
 */
#ifndef RINGSIDE_RECORDER_POINTER_SCRUB_H
#define RINGSIDE_RECORDER_POINTER_SCRUB_H

#include <stdbool.h>
#include <stdint.h>

#define SCRUB_ROUNDS 4
#define SCRUB_MAX_IDS 4		/* id fields per record type */
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
	uint64_t zero_preimage;		/* the x != 0 with permute(x) == 0 */
	uint64_t zero_image;		/* permute(0) */
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
