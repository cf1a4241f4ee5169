/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Open-addressing hash map from a pair of 64-bit keys to a pointer (linear
 * probing, backward-shift deletion: no tombstones, so memory tracks the
 * number of live entries).  Used for the model's open requests, tasks,
 * rings and syscalls.  Iteration order is never used for output.
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
};

void hmap_init(struct hmap *h);
void hmap_free(struct hmap *h);
void *hmap_get(const struct hmap *h, uint64_t a, uint64_t b);
/* Insert or replace (val != NULL).  Returns -1 when out of memory. */
int hmap_put(struct hmap *h, uint64_t a, uint64_t b, void *val);
/* Remove; returns the old value or NULL. */
void *hmap_del(struct hmap *h, uint64_t a, uint64_t b);

/* Visit every entry (order unspecified: never use it for output order). */
#define hmap_for_each(h, s) \
	for ((s) = (h)->slots; (h)->slots && (s) < (h)->slots + (h)->cap; (s)++) \
		if ((s)->val)

#endif
