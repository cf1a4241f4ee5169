/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Open-addressing hash map from a pair of 64-bit keys to a pointer (linear
 * probing, backward-shift deletion: no tombstones, so memory tracks the
 * number of live entries).  Used for the model's open requests, tasks,
 * rings and syscalls.  Iteration order is never used for output.
 *
 * A get remembers the slot it found: the model and the outputs look up the
 * same task or ring many times in a row (three quarters of the lookups of
 * an FXT conversion), and the check of that slot's keys replaces hashing
 * and probing.  So even a get writes to the map: one thread per map.
 */
#ifndef RINGSIDE_HMAP_H
#define RINGSIDE_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_slot {
	uint64_t a, b;
	void *val;			/* NULL: empty slot */
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;			/* power of two, or 0 */
	size_t len;
	struct hmap_slot *last;		/* the last get's slot, or NULL */
};

void hmap_init(struct hmap *h);
void hmap_free(struct hmap *h);
void *hmap_get_slow(struct hmap *h, uint64_t a, uint64_t b);
/* The value of (a, b), or NULL, remembering nothing: for a const map. */
void *hmap_peek(const struct hmap *h, uint64_t a, uint64_t b);

/*
 * The value of (a, b), or NULL.  The remembered slot is right when it is
 * in use and holds these keys, as keys are unique; only a grow (new slots)
 * or a free forgets it.
 */
static inline void *hmap_get(struct hmap *h, uint64_t a, uint64_t b)
{
	struct hmap_slot *s = h->last;

	if (s && s->val && s->a == a && s->b == b)
		return s->val;
	return hmap_get_slow(h, a, b);
}
/* Insert or replace (val != NULL).  Returns -1 when out of memory. */
int hmap_put(struct hmap *h, uint64_t a, uint64_t b, void *val);
/* Remove; returns the old value or NULL. */
void *hmap_del(struct hmap *h, uint64_t a, uint64_t b);

/* Visit every entry (order unspecified: never use it for output order). */
#define hmap_for_each(h, s) \
	for ((s) = (h)->slots; (h)->slots && (s) < (h)->slots + (h)->cap; (s)++) \
		if ((s)->val)

#endif
