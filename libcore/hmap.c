// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "hmap.h"

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return x;
}

void hmap_init(struct hmap *h)
{
	h->slots = NULL;
	h->cap = h->len = 0;
	h->last = NULL;
}

void hmap_free(struct hmap *h)
{
	free(h->slots);
	hmap_init(h);
}

static struct hmap_slot *find(const struct hmap *h, uint64_t a, uint64_t b)
{
	size_t mask = h->cap - 1, i = mix(a, b) & mask;

	for (;;) {
		struct hmap_slot *s = &h->slots[i];

		if (!s->val || (s->a == a && s->b == b))
			return s;
		i = (i + 1) & mask;
	}
}

void *hmap_peek(const struct hmap *h, uint64_t a, uint64_t b)
{
	if (!h->cap)
		return NULL;
	return find(h, a, b)->val;
}

void *hmap_get_slow(struct hmap *h, uint64_t a, uint64_t b)
{
	struct hmap_slot *s;

	if (!h->cap)
		return NULL;
	s = find(h, a, b);
	if (s->val)
		h->last = s;
	return s->val;
}

static int grow(struct hmap *h)
{
	size_t cap = h->cap ? h->cap * 2 : 64;
	struct hmap_slot *old = h->slots, *slots = calloc(cap, sizeof(*slots));
	size_t oldcap = h->cap;

	if (!slots)
		return -1;
	h->slots = slots;
	h->cap = cap;
	h->last = NULL;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].val)
			*find(h, old[i].a, old[i].b) = old[i];
	free(old);
	return 0;
}

int hmap_put(struct hmap *h, uint64_t a, uint64_t b, void *val)
{
	struct hmap_slot *s;

	if ((h->len + 1) * 4 > h->cap * 3 && grow(h))
		return -1;
	s = find(h, a, b);
	if (!s->val)
		h->len++;
	s->a = a;
	s->b = b;
	s->val = val;
	return 0;
}

void *hmap_del(struct hmap *h, uint64_t a, uint64_t b)
{
	size_t mask, i, j;
	struct hmap_slot *s;
	void *val;

	if (!h->cap)
		return NULL;
	s = find(h, a, b);
	if (!s->val)
		return NULL;
	val = s->val;
	mask = h->cap - 1;
	i = (size_t)(s - h->slots);
	/* Backward-shift: move later entries of the probe run into the hole. */
	for (j = (i + 1) & mask; h->slots[j].val; j = (j + 1) & mask) {
		size_t home = mix(h->slots[j].a, h->slots[j].b) & mask;

		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			h->slots[i] = h->slots[j];
			i = j;
		}
	}
	h->slots[i].val = NULL;
	h->len--;
	return val;
}
