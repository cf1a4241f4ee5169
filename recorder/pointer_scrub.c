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

static uint32_t round_fn(uint32_t half, uint64_t key)
{
	return (uint32_t)(mix64((uint64_t)half ^ key) >> 32);
}

static uint64_t permute(const struct pointer_scrub *s, uint64_t x)
{
	uint32_t l = (uint32_t)(x >> 32), r = (uint32_t)x;

	for (int i = 0; i < SCRUB_ROUNDS; i++) {
		uint32_t t = l ^ round_fn(r, s->key[i]);

		l = r;
		r = t;
	}
	return (uint64_t)l << 32 | r;
}

static uint64_t unpermute(const struct pointer_scrub *s, uint64_t y)
{
	uint32_t l = (uint32_t)(y >> 32), r = (uint32_t)y;

	for (int i = SCRUB_ROUNDS - 1; i >= 0; i--) {
		uint32_t t = r ^ round_fn(l, s->key[i]);

		r = l;
		l = t;
	}
	return (uint64_t)l << 32 | r;
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
	if (!addr)
		return 0;
	if (addr == s->zero_preimage)
		return s->zero_image;
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
