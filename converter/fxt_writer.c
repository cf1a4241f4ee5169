// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuchsia Trace Format encoder.  The API, the interning strategy and what
 * Perfetto does with each record are described in fxt_writer.h.
 *
 * Every record is built the same way: validate the call (refuse it whole if
 * it is malformed), resolve the thread and string references (which may
 * write thread and string records first), compute the record's size in
 * words, check it, then reserve exactly that many words in the output buffer
 * and fill them in.  Nothing is allocated per record.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_proto.h"
#include "fxt_writer.h"

/* ------------------------------------------------------------ wire format */

/* Bits lo..hi (inclusive, as the spec writes them) holding v. */
#define FIELD(v, lo, hi) \
	(((uint64_t)(v) & ((1ull << ((hi) - (lo) + 1)) - 1)) << (lo))
/* Bits lo..hi of word w. */
#define FIELD_GET(w, lo, hi) \
	(((uint64_t)(w) >> (lo)) & ((1ull << ((hi) - (lo) + 1)) - 1))

/* Record header: type [0..3], size in words [4..15]. */
#define REC_HEADER(type, words) (FIELD(type, 0, 3) | FIELD(words, 4, 15))

_Static_assert(FXT_MAX_ARGS == 15, "arg count is a 4-bit field");
_Static_assert(FXT_MAX_RECORD_WORDS == 4095, "size is a 12-bit field");
_Static_assert(FXT_MAX_STRING_LEN < 0x8000, "string length is 15 bits");
_Static_assert(1 + (FXT_MAX_STRING_LEN + 7) / 8 <= FXT_MAX_RECORD_WORDS,
	       "a string record of the longest string must fit");

/* ------------------------------------------------------------ the writer */

#define OUT_BUFFER_SIZE		(256 * 1024)

/*
 * String table: 1..STR_INTERN_LAST interned by content, the rest scratch
 * slots for strings too long to intern (see fxt_writer.h).
 */
#define STR_INTERN_LAST		0x7fbf
#define STR_SCRATCH_FIRST	0x7fc0
#define STR_SCRATCH_LAST	0x7fff
#define STR_SCRATCH_COUNT	(STR_SCRATCH_LAST - STR_SCRATCH_FIRST + 1)
#define STR_BUCKETS		0x10000		/* load factor <= 1/2 */

/* The most strings one record can reference: cat, name, 15 x (arg name,
 * value), and the "process" arg name of a thread object. */
#define MAX_STRINGS_PER_RECORD	(2 + 2 * FXT_MAX_ARGS + 1)

_Static_assert(STR_BUCKETS >= 2 * STR_INTERN_LAST, "hash load factor");
_Static_assert(STR_SCRATCH_COUNT > MAX_STRINGS_PER_RECORD,
	       "a record's scratch strings must not evict each other");
_Static_assert(FXT_MAX_PINNED + MAX_STRINGS_PER_RECORD < STR_INTERN_LAST,
	       "the CLOCK hand must always find a victim");

#define THR_LAST		255
#define THR_BUCKETS		512
/*
 * Every event looks its thread up, and a few threads take most events:
 * the slot a tid was last found in, checked, skips the hash and the probe.
 * Indexed by a Fibonacci hash of the tid: with tid & 63, a process's
 * thread whose tid ended in the bits of a lane's synthetic koid
 * (0x40000100 + n) took the slow path for every request drawn on that
 * lane (fio's tid 0x1801 and lane 1 in bench/run's cached recording).
 * Hashed, consecutive koids and tids spread over the memo, and another
 * thread rarely meets a hot one.
 */
#define THR_MEMO_BITS		10
#define THR_MEMO_SIZE		(1u << THR_MEMO_BITS)

/*
 * Callers pass the same names (arg names, categories, opcode names) from
 * the same addresses over and over; remembering the slot per address,
 * checked against the slot's content, skips the strlen(), the hash and
 * the probe of a 128 KiB index, the largest part of interning.
 */
#define STR_MEMO_SIZE		512
/*
 * A pinned string's address is trusted without the check
 * (fxt_writer_pin_string()), and has an entry of its own in a table at
 * most an eighth full (so that a miss, an unpinned string, probes little).
 * In the direct-mapped memo, two pinned names could share an entry: the
 * one that lost, which depended on where the linker put the literals, was
 * then looked up by content at every use ("request", 3 times a request).  The inline lookup checks an
 * address's entry and the next (str_ref_memo()); past them it takes a
 * call.  The addresses change from run to run (ASLR): at a quarter full,
 * with the first entry alone, some of the names and texts of each request
 * or call were past it in most runs; with two entries only the strings
 * used once take the call.
 */
#define PINS_MIN		1024
#define PINS_LOAD		8	/* entries per address, at least */
/* Addresses remembered at most: one string may be pinned from several
 * addresses, and memory stays bounded however often. */
#define PINS_MAX		(4 * FXT_MAX_PINNED)

struct str_slot {
	char *buf;		/* content of an interned string */
	uint32_t len;
	uint32_t cap;
	uint32_t hash;
	uint32_t stamp;		/* serial of the last record using it */
	bool pinned;
	bool referenced;	/* CLOCK bit */
	bool in_map;
};

struct thr_slot {
	uint64_t pid;
	uint64_t tid;
	uint32_t hash;
	bool referenced;
};

struct fxt_writer {
	fxt_sink_fn sink;
	void *sink_ctx;
	FILE *file;		/* set by fxt_writer_new_file */
	int err;		/* sticky sink error (negative errno) */

	unsigned char *buf;
	size_t len;

	/* Serial of the record being built: its strings carry it as stamp. */
	uint32_t serial;

	struct str_slot *str;		/* [0..STR_INTERN_LAST] */
	uint16_t *str_buckets;		/* slot index, 0 = empty */
	unsigned str_next;		/* next never-used slot */
	unsigned str_hand;		/* CLOCK hand */
	unsigned npinned;
	uint32_t scratch_stamp[STR_SCRATCH_COUNT];
	unsigned scratch_hand;

	/* The slot a string pointer was last interned into (str_ref_memo). */
	struct str_memo {
		const char *s;
		unsigned idx;
		uint32_t len;		/* pins: the string's length */
	} str_memo[STR_MEMO_SIZE], *pins;	/* pins: pinned addresses */
	unsigned pins_mask;		/* the pins table's size - 1 */
	unsigned npins;			/* addresses in it */

	struct thr_slot thr[THR_LAST + 1];
	uint16_t thr_buckets[THR_BUCKETS];	/* slot index, 0 = empty */
	uint8_t thr_memo[THR_MEMO_SIZE];	/* by tid: the slot it was last in */
	unsigned thr_next;
	unsigned thr_hand;

	struct fxt_writer_stats stats;
};

/* ------------------------------------------------------------ output */

/* Out of line: reserve(), inline everywhere, calls it once per buffer. */
static __attribute__((noinline)) int flush_buffer(struct fxt_writer *w)
{
	int rc;

	if (w->err)
		return w->err;
	if (!w->len)
		return 0;
	rc = w->sink(w->sink_ctx, w->buf, w->len);
	w->len = 0;
	if (rc) {
		/* Sticky: the output is broken from here on. */
		w->err = rc < 0 ? rc : -EIO;
		return w->err;
	}
	return 0;
}

/*
 * Room for one whole record of nwords words, or NULL after a sink error.
 * The buffer holds whole words only, so the result is 8-byte aligned.
 */
static inline uint64_t *reserve(struct fxt_writer *w, size_t nwords)
{
	size_t bytes = nwords * 8;
	uint64_t *p;

	if (__builtin_expect(w->len + bytes > OUT_BUFFER_SIZE, 0) && flush_buffer(w))
		return NULL;
	if (w->err)
		return NULL;
	p = (uint64_t *)(void *)(w->buf + w->len);
	w->len += bytes;
	w->stats.bytes += bytes;
	w->stats.records++;
	return p;
}

static inline void put_word(uint64_t *p, uint64_t v)
{
	*p = htole64(v);
}

/* len bytes into whole words at p, zero-padded. */
static void put_stream(uint64_t *p, const char *s, size_t len)
{
	size_t words = (len + 7) / 8;

	if (!words)
		return;
	p[words - 1] = 0;
	memcpy(p, s, len);
}

/* ------------------------------------------------------------ strings */

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	uint64_t v;

	while (len >= 8) {
		memcpy(&v, s, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		len -= 8;
	}
	/*
	 * The tail in registers: a variable-length memcpy into v is stored
	 * byte by byte and read back whole, a store-forwarding stall.
	 * Overlapping fixed-size loads
	 * cover every byte (len is in h already).
	 */
	if (len >= 4) {
		uint32_t first, last;

		memcpy(&first, s, 4);
		memcpy(&last, s + len - 4, 4);
		v = (uint64_t)first << 32 | last;
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	} else if (len) {
		v = (uint64_t)(uint8_t)s[0] << 16 | (uint64_t)(uint8_t)s[len / 2] << 8 |
		    (uint8_t)s[len - 1];
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

/*
 * Length of s cut to at most max bytes (s has more than max) without
 * splitting a UTF-8 character: if s[max] continues a character, drop that
 * character's leading bytes too.  Bytes that are not UTF-8 are cut at max.
 */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t n = max;

	for (int back = 0; back < 3 && n > 0 &&
	     ((unsigned char)s[n] & 0xc0) == 0x80; back++)
		n--;
	if (((unsigned char)s[n] & 0xc0) == 0x80)
		return max;
	return n;
}

static int write_string_record(struct fxt_writer *w, unsigned idx,
			       const char *s, size_t len)
{
	size_t words = 1 + (len + 7) / 8;
	uint64_t *p;

	if (words > FXT_MAX_RECORD_WORDS || !idx || idx > STR_SCRATCH_LAST)
		return -EINVAL;	/* cannot happen: len <= FXT_MAX_STRING_LEN */
	p = reserve(w, words);
	if (!p)
		return w->err;
	put_word(p, REC_HEADER(FXT_REC_STRING, words) | FIELD(idx, 16, 30) |
		    FIELD(len, 32, 46));
	put_stream(p + 1, s, len);
	w->stats.string_records++;
	return 0;
}

/*
 * The string and the thread tables are each found by hash through an index
 * of their slot numbers (0 = empty): open addressing with linear probing,
 * and backward-shift deletion, so there are no tombstones.  hash_of(w, idx)
 * is the hash of what slot idx holds; mask is the bucket count - 1.
 */
typedef uint32_t slot_hash_fn(const struct fxt_writer *w, unsigned idx);

static void index_insert(const struct fxt_writer *w, uint16_t *buckets, unsigned mask,
			 slot_hash_fn *hash_of, unsigned idx)
{
	unsigned b = hash_of(w, idx) & mask;

	while (buckets[b])
		b = (b + 1) & mask;
	buckets[b] = (uint16_t)idx;
}

static void index_remove(const struct fxt_writer *w, uint16_t *buckets, unsigned mask,
			 slot_hash_fn *hash_of, unsigned idx)
{
	unsigned i = hash_of(w, idx) & mask;
	unsigned j;

	while (buckets[i] != idx)
		i = (i + 1) & mask;
	j = i;
	for (;;) {
		unsigned home;

		j = (j + 1) & mask;
		if (!buckets[j])
			break;
		home = hash_of(w, buckets[j]) & mask;
		/* Leave it if its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		buckets[i] = buckets[j];
		i = j;
	}
	buckets[i] = 0;
}

static uint32_t str_hash_of(const struct fxt_writer *w, unsigned idx)
{
	return w->str[idx].hash;
}

static void str_map_insert(struct fxt_writer *w, unsigned idx)
{
	index_insert(w, w->str_buckets, STR_BUCKETS - 1, str_hash_of, idx);
	w->str[idx].in_map = true;
}

static void str_map_remove(struct fxt_writer *w, unsigned idx)
{
	index_remove(w, w->str_buckets, STR_BUCKETS - 1, str_hash_of, idx);
	w->str[idx].in_map = false;
}

/*
 * A slot for a new interned string: a never-used one, else CLOCK: skip
 * pinned slots and those the current record references, give referenced
 * slots a second chance.  Terminates within two turns of the hand because
 * fewer than STR_INTERN_LAST slots are pinned or stamped (static asserts).
 */
static unsigned str_alloc_slot(struct fxt_writer *w)
{
	if (w->str_next <= STR_INTERN_LAST)
		return w->str_next++;
	for (;;) {
		unsigned idx = w->str_hand;
		struct str_slot *s = &w->str[idx];

		w->str_hand = idx == STR_INTERN_LAST ? 1 : idx + 1;
		if (s->pinned || s->stamp == w->serial)
			continue;
		if (s->referenced) {
			s->referenced = false;
			continue;
		}
		if (s->in_map)
			str_map_remove(w, idx);
		w->stats.string_evictions++;
		return idx;
	}
}

/* A scratch slot for a string too long to intern: a new record each use. */
static int str_scratch(struct fxt_writer *w, const char *s, size_t len)
{
	unsigned k;
	int err;

	for (unsigned tries = 0;; tries++) {
		k = w->scratch_hand;
		w->scratch_hand = (k + 1) % STR_SCRATCH_COUNT;
		if (w->scratch_stamp[k] != w->serial)
			break;
		if (tries >= STR_SCRATCH_COUNT)
			return -EINVAL;	/* cannot happen: static assert */
	}
	w->scratch_stamp[k] = w->serial;
	err = write_string_record(w, STR_SCRATCH_FIRST + k, s, len);
	return err ? err : (int)(STR_SCRATCH_FIRST + k);
}

/* A found string is in use by the record being built (CLOCK bit, stamp). */
static void str_slot_use(struct fxt_writer *w, unsigned idx)
{
	w->str[idx].referenced = true;
	w->str[idx].stamp = w->serial;
}

/*
 * The string ref (0 for "", else a table index whose string record has been
 * written) for len bytes at s, or the sticky error.
 */
static int str_ref(struct fxt_writer *w, const char *s, size_t len)
{
	struct str_slot *slot;
	unsigned b, idx;
	uint32_t h;
	int err;

	if (!len)
		return 0;
	if (len > FXT_MAX_STRING_LEN) {
		len = utf8_cut(s, FXT_MAX_STRING_LEN);
		w->stats.strings_truncated++;
	}
	if (len > FXT_INTERN_MAX_LEN)
		return str_scratch(w, s, len);

	h = hash_bytes(s, len);
	b = h & (STR_BUCKETS - 1);
	while ((idx = w->str_buckets[b])) {
		slot = &w->str[idx];
		if (slot->hash == h && slot->len == len &&
		    !memcmp(slot->buf, s, len)) {
			str_slot_use(w, idx);
			return (int)idx;
		}
		b = (b + 1) & (STR_BUCKETS - 1);
	}

	idx = str_alloc_slot(w);
	slot = &w->str[idx];
	if (slot->cap < len) {
		uint32_t cap = (uint32_t)((len + 31) & ~(size_t)31);
		char *nb = realloc(slot->buf, cap);

		if (!nb) {
			/* Keep going without this copy: the slot stays free
			 * (referenced = false) and the string goes out as a
			 * scratch record. */
			slot->len = 0;
			slot->referenced = false;
			slot->stamp = 0;
			return str_scratch(w, s, len);
		}
		slot->buf = nb;
		slot->cap = cap;
	}
	memcpy(slot->buf, s, len);
	slot->len = (uint32_t)len;
	slot->hash = h;
	slot->stamp = w->serial;
	slot->referenced = false;
	str_map_insert(w, idx);
	err = write_string_record(w, idx, s, len);
	return err ? err : (int)idx;
}

static inline unsigned ptr_hash(const char *s)
{
	return (unsigned)(((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull) >> 32);
}

static struct str_memo *str_memo_of(struct fxt_writer *w, const char *s)
{
	return &w->str_memo[ptr_hash(s) & (STR_MEMO_SIZE - 1)];
}

/* The pins table's entry for s, or the empty entry where it would go. */
static inline struct str_memo *pin_entry(struct str_memo *pins, unsigned mask, const char *s)
{
	for (unsigned h = ptr_hash(s);; h++) {
		struct str_memo *e = &pins[h & mask];

		if (e->s == s || !e->s)
			return e;
	}
}

/* Whether pins entry e is the pinned string at s, all of its len bytes
 * (SIZE_MAX: NUL-terminated), not a prefix of it. */
static inline bool pin_is(const struct str_memo *e, const char *s, size_t len)
{
	return e->s == s && (len == SIZE_MAX || len == e->len);
}

/* Remember that s, pinned, is in slot idx: 0 or -ENOMEM.  Past
 * PINS_MAX addresses, s is found by its content. */
static int pins_add(struct fxt_writer *w, const char *s, unsigned idx)
{
	struct str_memo *e = pin_entry(w->pins, w->pins_mask, s);

	if (!e->s && w->npins >= PINS_MAX)
		return 0;
	if (!e->s && (w->npins + 1) * PINS_LOAD > w->pins_mask + 1) {
		unsigned mask = w->pins_mask * 2 + 1;
		struct str_memo *t = calloc((size_t)mask + 1, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (unsigned i = 0; i <= w->pins_mask; i++)
			if (w->pins[i].s)
				*pin_entry(t, mask, w->pins[i].s) = w->pins[i];
		free(w->pins);
		w->pins = t;
		w->pins_mask = mask;
		e = pin_entry(w->pins, w->pins_mask, s);
	}
	if (!e->s)
		w->npins++;
	*e = (struct str_memo){ .s = s, .idx = idx, .len = w->str[idx].len };
	return 0;
}

/*
 * Whether slot idx still holds the bytes at s: exactly len of them, or
 * (len == SIZE_MAX) a NUL-terminated string, read no further than its NUL.
 */
static bool str_slot_holds(const struct fxt_writer *w, unsigned idx, const char *s, size_t len)
{
	const struct str_slot *slot = &w->str[idx];

	if (!slot->in_map)
		return false;
	if (len != SIZE_MAX)
		return slot->len == len && !memcmp(slot->buf, s, len);
	/* strncmp() stops at the NUL of a shorter s; slot->buf has none */
	return !strncmp(s, slot->buf, slot->len) && !s[slot->len];
}

/* str_ref_memo() for a string not in its first pins entry: pinned
 * further on, checked, or looked up. */
static __attribute__((noinline)) int str_ref_memo_slow(struct fxt_writer *w, const char *s,
						       size_t len)
{
	const struct str_memo *e = pin_entry(w->pins, w->pins_mask, s);
	struct str_memo *m = str_memo_of(w, s);
	int ref;

	w->stats.string_lookups++;
	if (pin_is(e, s, len))
		return (int)e->idx;
	if (m->s == s && m->idx && str_slot_holds(w, m->idx, s, len)) {
		str_slot_use(w, m->idx);
		return (int)m->idx;
	}
	ref = str_ref(w, s, len == SIZE_MAX ? strlen(s) : len);
	if (ref > 0 && ref <= STR_INTERN_LAST)
		*m = (struct str_memo){ .s = s, .idx = (unsigned)ref };
	return ref;
}

/*
 * The slot of s when it is pinned and in its own pins entry or the next;
 * 0 for NULL (the empty string's ref); -1 otherwise (str_ref_memo() looks
 * further).  Looks only: marks nothing.
 */
static inline int pinned_ref(const struct fxt_writer *w, const char *s, size_t len)
{
	unsigned h;
	const struct str_memo *e;

	if (!s)
		return len == SIZE_MAX ? 0 : -1;
	h = ptr_hash(s);
	e = &w->pins[h & w->pins_mask];
	if (__builtin_expect(pin_is(e, s, len), 1))
		return (int)e->idx;
	/* The next entry too: a pinned address not in its own entry is
	 * nearly always there (PINS_MIN). */
	e = &w->pins[(h + 1) & w->pins_mask];
	return pin_is(e, s, len) ? (int)e->idx : -1;
}

/*
 * str_ref() through the memos; len SIZE_MAX: s is NUL-terminated.  The
 * slot is taken without a look when s is a string the caller pinned
 * (fxt_writer_pin_string()), else from the memo if it still holds the
 * bytes at s.  The pinned case is most of them: it is kept small enough
 * to need no saved registers, and it marks nothing, as CLOCK never looks
 * at a pinned slot's marks (str_alloc_slot()).
 */
static inline int str_ref_memo(struct fxt_writer *w, const char *s, size_t len)
{
	int ref = pinned_ref(w, s, len);

	return ref >= 0 ? ref : str_ref_memo_slow(w, s, len);
}

static int str_ref_cstr(struct fxt_writer *w, const char *s)
{
	return str_ref_memo(w, s, SIZE_MAX);	/* NULL: 0, by pinned_ref() */
}

/* ------------------------------------------------------------ threads */

static uint32_t hash_thread(uint64_t pid, uint64_t tid)
{
	uint64_t h = (pid * 0x9e3779b97f4a7c15ull) ^ tid;

	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static uint32_t thr_hash_of(const struct fxt_writer *w, unsigned idx)
{
	return w->thr[idx].hash;
}

static void thr_map_insert(struct fxt_writer *w, unsigned idx)
{
	index_insert(w, w->thr_buckets, THR_BUCKETS - 1, thr_hash_of, idx);
}

static void thr_map_remove(struct fxt_writer *w, unsigned idx)
{
	index_remove(w, w->thr_buckets, THR_BUCKETS - 1, thr_hash_of, idx);
}

/* thread_ref() when the memo missed: look up, else add and write. */
static __attribute__((noinline)) int thread_ref_slow(struct fxt_writer *w,
						     struct fxt_thread th, uint8_t *memo)
{
	struct thr_slot *slot;
	uint32_t h;
	unsigned b, idx;
	uint64_t *p;

	w->stats.thread_lookups++;
	h = hash_thread(th.pid, th.tid);
	b = h & (THR_BUCKETS - 1);
	while ((idx = w->thr_buckets[b])) {
		slot = &w->thr[idx];
		if (slot->pid == th.pid && slot->tid == th.tid) {
			slot->referenced = true;
			*memo = (uint8_t)idx;
			return (int)idx;
		}
		b = (b + 1) & (THR_BUCKETS - 1);
	}

	if (w->thr_next <= THR_LAST) {
		idx = w->thr_next++;
	} else {
		for (;;) {
			idx = w->thr_hand;
			w->thr_hand = idx == THR_LAST ? 1 : idx + 1;
			if (!w->thr[idx].referenced)
				break;
			w->thr[idx].referenced = false;
		}
		thr_map_remove(w, idx);
		w->stats.thread_evictions++;
	}
	slot = &w->thr[idx];
	slot->pid = th.pid;
	slot->tid = th.tid;
	slot->hash = h;
	slot->referenced = false;
	thr_map_insert(w, idx);
	*memo = (uint8_t)idx;

	p = reserve(w, 3);
	if (!p)
		return w->err;
	put_word(p, REC_HEADER(FXT_REC_THREAD, 3) | FIELD(idx, 16, 23));
	put_word(p + 1, th.pid);
	put_word(p + 2, th.tid);
	w->stats.thread_records++;
	return (int)idx;
}

/* th's entry in the memo of the slot each tid was last found in. */
static inline uint8_t *thread_memo(struct fxt_writer *w, uint64_t tid)
{
	return &w->thr_memo[(uint32_t)((uint32_t)tid * 0x9e3779b9u) >> (32 - THR_MEMO_BITS)];
}

/* The slot th's memo names, if th is in it (marked referenced), else 0. */
static inline unsigned thread_memo_hit(struct fxt_writer *w, struct fxt_thread th,
				       const uint8_t *memo)
{
	struct thr_slot *slot = &w->thr[*memo];

	/* the memo is 0 (slot 0 is never used) or a slot to check */
	if (__builtin_expect(*memo && slot->tid == th.tid && slot->pid == th.pid, 1)) {
		slot->referenced = true;
		return *memo;
	}
	return 0;
}

/*
 * The thread ref (1..255) of th, writing its thread record if it is not in
 * the table.  An event references a single thread, so any slot but the one
 * returned may be recycled.  The memo hit is inline and small: with the
 * lookup in the same function, saving and restoring registers was half of
 * its cost.
 */
static inline int thread_ref(struct fxt_writer *w, struct fxt_thread th)
{
	uint8_t *memo = thread_memo(w, th.tid);
	unsigned idx = thread_memo_hit(w, th, memo);

	return idx ? (int)idx : thread_ref_slow(w, th, memo);
}

/* ------------------------------------------------------------ arguments */

/*
 * Each argument's header word, with its name and string references in,
 * built while the references are looked up: put_args() only copies.
 */
struct arg_refs {
	uint64_t hdr[FXT_MAX_ARGS];
	size_t words;			/* all args, headers included */
};

static unsigned arg_words(enum fxt_arg_type type)
{
	switch (type) {
	case FXT_ARG_INT64:
	case FXT_ARG_UINT64:
	case FXT_ARG_DOUBLE:
	case FXT_ARG_POINTER:
	case FXT_ARG_KOID:
		return 2;
	default:
		return 1;
	}
}

static int check_args(const struct fxt_arg *args, unsigned nargs,
		      unsigned max)
{
	if (nargs > max)
		return -E2BIG;
	if (nargs && !args)
		return -EINVAL;
	for (unsigned i = 0; i < nargs; i++) {
		if ((unsigned)args[i].type > FXT_ARG_BOOL)
			return -EINVAL;
		if (args[i].type == FXT_ARG_STRING && args[i].len &&
		    !args[i].v.str)
			return -EINVAL;
	}
	return 0;
}

/* The header word of a checked argument whose name (and string value)
 * have these references. */
static inline uint64_t arg_header(const struct fxt_arg *a, unsigned name_ref, unsigned value_ref)
{
	uint64_t hdr = FIELD(a->type, 0, 3) | FIELD(arg_words(a->type), 4, 15) |
		       FIELD(name_ref, 16, 31);

	switch (a->type) {
	case FXT_ARG_INT32:
		return hdr | FIELD((uint32_t)a->v.i32, 32, 63);
	case FXT_ARG_UINT32:
		return hdr | FIELD(a->v.u32, 32, 63);
	case FXT_ARG_STRING:
		return hdr | FIELD(value_ref, 32, 47);
	case FXT_ARG_BOOL:
		return hdr | FIELD(a->v.b ? 1 : 0, 32, 32);
	default:
		return hdr;
	}
}

/* Intern every name and string value, build the headers, sum the words. */
static int resolve_args(struct fxt_writer *w, const struct fxt_arg *args,
			unsigned nargs, struct arg_refs *refs)
{
	int name, value;

	refs->words = 0;
	for (unsigned i = 0; i < nargs; i++) {
		name = str_ref_cstr(w, args[i].name);
		if (name < 0)
			return name;
		value = 0;
		if (args[i].type == FXT_ARG_STRING && args[i].len) {
			value = str_ref_memo(w, args[i].v.str, args[i].len);
			if (value < 0)
				return value;
		}
		refs->hdr[i] = arg_header(&args[i], (unsigned)name, (unsigned)value);
		refs->words += arg_words(args[i].type);
	}
	return 0;
}

/* Encode the args at p; returns the word after them.  The second word of
 * every two-word type is the union's 64 bits (a double's too). */
static uint64_t *put_args(uint64_t *p, const struct fxt_arg *args,
			  unsigned nargs, const struct arg_refs *refs)
{
	for (unsigned i = 0; i < nargs; i++) {
		put_word(p++, refs->hdr[i]);
		if (FIELD_GET(refs->hdr[i], 4, 15) == 2)
			put_word(p++, args[i].v.u64);
	}
	return p;
}

/* ------------------------------------------------------------ records */

static int refuse(struct fxt_writer *w, int err)
{
	w->stats.refused++;
	return err;
}

/* A record's references: its thread, category and name, and its args'. */
struct event_refs {
	int tref, cref, nref;
	struct arg_refs args;
};

/* The references of a new record, writing first the thread and string
 * records it needs; 0 or the sticky error. */
static inline int event_refs(struct fxt_writer *w, struct fxt_thread th, const char *cat,
		      const char *name, const struct fxt_arg *args, unsigned nargs,
		      struct event_refs *r)
{
	w->serial++;
	r->tref = thread_ref(w, th);
	if (r->tref < 0)
		return r->tref;
	r->cref = str_ref_cstr(w, cat);
	if (r->cref < 0)
		return r->cref;
	r->nref = str_ref_cstr(w, name);
	if (r->nref < 0)
		return r->nref;
	if (!nargs) {
		r->args.words = 0;
		return 0;
	}
	return resolve_args(w, args, nargs, &r->args);
}

/* An event record's header word but its size. */
static inline uint64_t event_header_of(unsigned type, unsigned tref, unsigned cref,
				       unsigned nref, unsigned nargs)
{
	return REC_HEADER(FXT_REC_EVENT, 0) | FIELD(type, 16, 19) | FIELD(nargs, 20, 23) |
	       FIELD(tref, 24, 31) | FIELD(cref, 32, 47) | FIELD(nref, 48, 63);
}

static inline uint64_t event_header(unsigned type, const struct event_refs *r, unsigned nargs)
{
	return event_header_of(type, (unsigned)r->tref, (unsigned)r->cref, (unsigned)r->nref,
			       nargs);
}

/* The event record: header, timestamp, args, trailing word; no inline
 * thread or strings. */
static inline int put_event(struct fxt_writer *w, unsigned type, uint64_t ts,
		     const struct event_refs *r, const struct fxt_arg *args, unsigned nargs,
		     bool has_extra, uint64_t extra)
{
	size_t words = 2 + r->args.words + (has_extra ? 1 : 0);
	uint64_t *p;

	if (words > FXT_MAX_RECORD_WORDS)
		return refuse(w, -E2BIG);	/* cannot happen: <= 33 */
	p = reserve(w, words);
	if (!p)
		return w->err;
	put_word(p, event_header(type, r, nargs) | REC_HEADER(0, words));
	put_word(p + 1, ts);
	p = put_args(p + 2, args, nargs, &r->args);
	if (has_extra)
		put_word(p, extra);
	w->stats.events++;
	return 0;
}

/*
 * write_event() for a record that needs no lookup and writes nothing but
 * itself: its thread in its memo, its category, name, argument names and
 * string values pinned (nearly every record of a conversion).  Built in
 * place in one pass over the args, where the general path checks them,
 * looks their references up into a staging array and copies that
 * (bench/RESULTS.md).  The bytes are the same.
 * Returns 1, with nothing written, when the record needs the general path
 * (which also refuses bad calls), else 0 or the sticky error.
 */
static inline int put_event_pinned(struct fxt_writer *w, unsigned type, uint64_t ts,
				   struct fxt_thread th, const char *cat, const char *name,
				   const struct fxt_arg *args, unsigned nargs,
				   bool has_extra, uint64_t extra)
{
	unsigned tref = thread_memo_hit(w, th, thread_memo(w, th.tid));
	int cref = pinned_ref(w, cat, SIZE_MAX), nref = pinned_ref(w, name, SIZE_MAX);
	/* room for the longest such record; what the args leave is given back */
	size_t most = 3 + 2 * (size_t)nargs, words;
	uint64_t *p, *q;

	if (!tref || cref < 0 || nref < 0 || nargs > FXT_MAX_ARGS || (nargs && !args) ||
	    ts > INT64_MAX)
		return 1;
	p = reserve(w, most);
	if (!p)
		return w->err;
	q = p + 2;
	for (unsigned i = 0; i < nargs; i++) {
		const struct fxt_arg *a = &args[i];
		int aref = pinned_ref(w, a->name, SIZE_MAX), vref = 0;

		if (a->type == FXT_ARG_STRING && a->len)
			vref = pinned_ref(w, a->v.str, a->len);
		if (aref < 0 || vref < 0 || (unsigned)a->type > FXT_ARG_BOOL) {
			/* take the record back: the general path looks it up */
			w->len -= most * 8;
			w->stats.bytes -= most * 8;
			w->stats.records--;
			return 1;
		}
		put_word(q++, arg_header(a, (unsigned)aref, (unsigned)vref));
		if (arg_words(a->type) == 2)
			put_word(q++, a->v.u64);
	}
	if (has_extra)
		put_word(q++, extra);
	words = (size_t)(q - p);
	w->len -= (most - words) * 8;
	w->stats.bytes -= (most - words) * 8;
	w->serial++;
	put_word(p, event_header_of(type, tref, (unsigned)cref, (unsigned)nref, nargs) |
		    REC_HEADER(0, words));
	put_word(p + 1, ts);
	w->stats.events++;
	return 0;
}

/* write_event() when the record needs lookups, or is refused.  The thread
 * comes as two words: a struct passed on would be spilled by the caller
 * in two stores and reloaded in one, a store-forwarding stall on every
 * event. */
static __attribute__((noinline)) int write_event_general(struct fxt_writer *w, unsigned type,
							 uint64_t ts, uint64_t pid, uint64_t tid,
							 const char *cat, const char *name,
							 const struct fxt_arg *args, unsigned nargs,
							 bool has_extra, uint64_t extra)
{
	struct fxt_thread th = FXT_THREAD(pid, tid);
	struct event_refs r;
	int err;

	err = check_args(args, nargs, FXT_MAX_ARGS);
	if (err)
		return refuse(w, err);
	if (ts > INT64_MAX)
		return refuse(w, -ERANGE);
	err = event_refs(w, th, cat, name, args, nargs, &r);
	if (err)
		return err;
	return put_event(w, type, ts, &r, args, nargs, has_extra, extra);
}

static int write_event(struct fxt_writer *w, unsigned type, uint64_t ts,
		       struct fxt_thread th, const char *cat, const char *name,
		       const struct fxt_arg *args, unsigned nargs,
		       bool has_extra, uint64_t extra)
{
	int err;

	if (w->err)
		return w->err;
	err = put_event_pinned(w, type, ts, th, cat, name, args, nargs, has_extra, extra);
	if (err <= 0)
		return err;
	return write_event_general(w, type, ts, th.pid, th.tid, cat, name, args, nargs,
				   has_extra, extra);
}

int fxt_instant(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		const char *cat, const char *name,
		const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_INSTANT, ts, th, cat, name, args, nargs,
			   false, 0);
}

int fxt_counter(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		const char *cat, const char *name, uint64_t counter_id,
		const struct fxt_arg *args, unsigned nargs)
{
	int err;

	if (w->err)
		return w->err;
	err = check_args(args, nargs, FXT_MAX_ARGS);
	if (err)
		return refuse(w, err);
	if (!nargs)
		return refuse(w, -EINVAL);
	for (unsigned i = 0; i < nargs; i++) {
		switch (args[i].type) {
		case FXT_ARG_INT32:
		case FXT_ARG_UINT32:
		case FXT_ARG_INT64:
		case FXT_ARG_UINT64:
		case FXT_ARG_DOUBLE:
			break;
		default:
			return refuse(w, -EINVAL);
		}
	}
	return write_event(w, FXT_EVT_COUNTER, ts, th, cat, name, args, nargs,
			   true, counter_id);
}

static uint64_t evictions(const struct fxt_writer *w)
{
	return w->stats.string_evictions + w->stats.thread_evictions;
}

/* An interned string's slot, not a scratch one: stays until evicted. */
static bool str_cacheable(unsigned ref)
{
	return ref <= STR_INTERN_LAST;
}

static bool fits_i32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/*
 * fxt_counter_sample() without the cache: look the references up, cache
 * them (and the header words they make) when they can be, and write.
 */
static __attribute__((noinline)) int counter_sample_lookup(struct fxt_writer *w,
							   struct fxt_counter_series *s,
							   uint64_t ts, const int64_t *values)
{
	struct fxt_arg a[FXT_SERIES_MAX_ARGS];
	struct event_refs r;
	bool cacheable;
	int err;

	if (w->err)
		return w->err;
	if (!s->nargs || s->nargs > FXT_SERIES_MAX_ARGS)
		return refuse(w, -EINVAL);
	if (ts > INT64_MAX)
		return refuse(w, -ERANGE);
	for (unsigned i = 0; i < s->nargs; i++)
		a[i] = fits_i32(values[i]) ? fxt_arg_i32(s->arg[i], (int32_t)values[i]) :
					    fxt_arg_i64(s->arg[i], values[i]);
	err = event_refs(w, s->th, s->cat, s->name, a, s->nargs, &r);
	if (err)
		return err;
	s->tref = (uint16_t)r.tref;
	s->cref = (uint16_t)r.cref;
	s->nref = (uint16_t)r.nref;
	s->header = event_header(FXT_EVT_COUNTER, &r, s->nargs);
	cacheable = str_cacheable(s->cref) && str_cacheable(s->nref);
	for (unsigned i = 0; i < s->nargs; i++) {
		struct fxt_arg a32 = fxt_arg_i32(s->arg[i], 0), a64 = fxt_arg_i64(s->arg[i], 0);

		s->aref[i] = (uint16_t)FIELD_GET(r.args.hdr[i], 16, 31);
		s->arg32[i] = arg_header(&a32, s->aref[i], 0);
		s->arg64[i] = arg_header(&a64, s->aref[i], 0);
		cacheable = cacheable && str_cacheable(s->aref[i]);
	}
	s->evictions = evictions(w);
	s->cached = cacheable;
	return put_event(w, FXT_EVT_COUNTER, ts, &r, a, s->nargs, true, s->id);
}

/*
 * While cached, a sample is its header words with the values in: the same
 * bytes put_event() writes.  It does to the tables what event_refs() does
 * (a string or thread the cached sample added is not yet marked used), so
 * that evictions, and so the file, are the same as without the cache.
 */
int fxt_counter_sample(struct fxt_writer *w, struct fxt_counter_series *s, uint64_t ts,
		       const int64_t *values)
{
	size_t words = 3;
	uint64_t *p;

	if (!s->cached || s->evictions != evictions(w) || w->err || ts > INT64_MAX)
		return counter_sample_lookup(w, s, ts, values);
	for (unsigned i = 0; i < s->nargs; i++)
		words += fits_i32(values[i]) ? 1 : 2;
	w->serial++;
	w->thr[s->tref].referenced = true;
	if (s->cref)
		str_slot_use(w, s->cref);
	if (s->nref)
		str_slot_use(w, s->nref);
	for (unsigned i = 0; i < s->nargs; i++)
		if (s->aref[i])
			str_slot_use(w, s->aref[i]);
	p = reserve(w, words);
	if (!p)
		return w->err;
	put_word(p++, s->header | REC_HEADER(0, words));
	put_word(p++, ts);
	for (unsigned i = 0; i < s->nargs; i++) {
		if (fits_i32(values[i])) {
			put_word(p++, s->arg32[i] | FIELD((uint32_t)(int32_t)values[i], 32, 63));
		} else {
			put_word(p++, s->arg64[i]);
			put_word(p++, (uint64_t)values[i]);
		}
	}
	put_word(p, s->id);
	w->stats.events++;
	return 0;
}

int fxt_duration_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		       const char *cat, const char *name,
		       const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_DURATION_BEGIN, ts, th, cat, name, args,
			   nargs, false, 0);
}

int fxt_duration_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		     const char *cat, const char *name,
		     const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_DURATION_END, ts, th, cat, name, args, nargs,
			   false, 0);
}

int fxt_duration_complete(struct fxt_writer *w, uint64_t ts, uint64_t end_ts,
			  struct fxt_thread th, const char *cat,
			  const char *name,
			  const struct fxt_arg *args, unsigned nargs)
{
	if (w->err)
		return w->err;
	if (end_ts < ts)
		return refuse(w, -EINVAL);
	if (end_ts > INT64_MAX)
		return refuse(w, -ERANGE);
	return write_event(w, FXT_EVT_DURATION_COMPLETE, ts, th, cat, name, args,
			   nargs, true, end_ts);
}

int fxt_async_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		    const char *cat, const char *name, uint64_t id,
		    const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_ASYNC_BEGIN, ts, th, cat, name, args, nargs,
			   true, id);
}

int fxt_async_instant(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		      const char *cat, const char *name, uint64_t id,
		      const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_ASYNC_INSTANT, ts, th, cat, name, args,
			   nargs, true, id);
}

int fxt_async_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		  const char *cat, const char *name, uint64_t id,
		  const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, FXT_EVT_ASYNC_END, ts, th, cat, name, args, nargs,
			   true, id);
}

/*
 * Flow events have no arguments (Perfetto drops them), three a request:
 * such a record skips write_event()'s argument checks and loops, for the
 * same bytes.
 */
static int write_flow_event(struct fxt_writer *w, unsigned type, uint64_t ts,
			    struct fxt_thread th, const char *cat, const char *name, uint64_t id,
			    const struct fxt_arg *args, unsigned nargs)
{
	return write_event(w, type, ts, th, cat, name, args, nargs, true, id);
}

int fxt_flow_begin(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		   const char *cat, const char *name, uint64_t id,
		   const struct fxt_arg *args, unsigned nargs)
{
	return write_flow_event(w, FXT_EVT_FLOW_BEGIN, ts, th, cat, name, id, args, nargs);
}

int fxt_flow_step(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		  const char *cat, const char *name, uint64_t id,
		  const struct fxt_arg *args, unsigned nargs)
{
	return write_flow_event(w, FXT_EVT_FLOW_STEP, ts, th, cat, name, id, args, nargs);
}

int fxt_flow_end(struct fxt_writer *w, uint64_t ts, struct fxt_thread th,
		 const char *cat, const char *name, uint64_t id,
		 const struct fxt_arg *args, unsigned nargs)
{
	return write_flow_event(w, FXT_EVT_FLOW_END, ts, th, cat, name, id, args, nargs);
}

static int write_kernel_object(struct fxt_writer *w, unsigned obj_type,
			       uint64_t koid, const char *name,
			       const struct fxt_arg *args, unsigned nargs)
{
	struct arg_refs refs;
	int nref, err;
	size_t words;
	uint64_t *p;

	w->serial++;
	nref = str_ref_cstr(w, name);
	if (nref < 0)
		return nref;
	err = resolve_args(w, args, nargs, &refs);
	if (err)
		return err;
	words = 2 + refs.words;
	if (words > FXT_MAX_RECORD_WORDS)
		return refuse(w, -E2BIG);
	p = reserve(w, words);
	if (!p)
		return w->err;
	put_word(p, REC_HEADER(FXT_REC_KERNEL_OBJECT, words) |
		    FIELD(obj_type, 16, 23) | FIELD(nref, 24, 39) |
		    FIELD(nargs, 40, 43));
	put_word(p + 1, koid);
	put_args(p + 2, args, nargs, &refs);
	return 0;
}

int fxt_name_process(struct fxt_writer *w, uint64_t pid, const char *name,
		     const struct fxt_arg *args, unsigned nargs)
{
	int err;

	if (w->err)
		return w->err;
	err = check_args(args, nargs, FXT_MAX_ARGS);
	if (err)
		return refuse(w, err);
	return write_kernel_object(w, FXT_KOBJ_PROCESS, pid, name, args, nargs);
}

int fxt_name_thread(struct fxt_writer *w, struct fxt_thread th,
		    const char *name,
		    const struct fxt_arg *args, unsigned nargs)
{
	struct fxt_arg all[FXT_MAX_ARGS];
	int err;

	if (w->err)
		return w->err;
	err = check_args(args, nargs, FXT_MAX_ARGS - 1);
	if (err)
		return refuse(w, err);
	/* Perfetto reads the thread's pid from this koid argument only. */
	all[0] = fxt_arg_koid("process", th.pid);
	if (nargs)
		memcpy(&all[1], args, nargs * sizeof(*args));
	return write_kernel_object(w, FXT_KOBJ_THREAD, th.tid, name, all,
				   nargs + 1);
}

static int write_scheduling(struct fxt_writer *w, uint64_t header_bits,
			    const uint64_t *body, unsigned nbody,
			    const struct fxt_arg *args, unsigned nargs)
{
	struct arg_refs refs;
	size_t words;
	uint64_t *p;
	int err;

	w->serial++;
	err = resolve_args(w, args, nargs, &refs);
	if (err)
		return err;
	words = 1 + nbody + refs.words;
	if (words > FXT_MAX_RECORD_WORDS)
		return refuse(w, -E2BIG);
	p = reserve(w, words);
	if (!p)
		return w->err;
	put_word(p, REC_HEADER(FXT_REC_SCHEDULING, words) | header_bits |
		    FIELD(nargs, 16, 19));
	for (unsigned i = 0; i < nbody; i++)
		put_word(p + 1 + i, body[i]);
	put_args(p + 1 + nbody, args, nargs, &refs);
	return 0;
}

int fxt_context_switch(struct fxt_writer *w, uint64_t ts, uint32_t cpu,
		       enum fxt_thread_state out_state, uint64_t out_tid,
		       uint64_t in_tid,
		       const struct fxt_arg *args, unsigned nargs)
{
	uint64_t body[3] = { ts, out_tid, in_tid };
	int err;

	if (w->err)
		return w->err;
	err = check_args(args, nargs, FXT_MAX_ARGS);
	if (err)
		return refuse(w, err);
	if (cpu > 0xffff || (unsigned)out_state > FXT_THREAD_DEAD)
		return refuse(w, -EINVAL);
	if (ts > INT64_MAX)
		return refuse(w, -ERANGE);
	return write_scheduling(w, FIELD(cpu, 20, 35) |
				   FIELD(out_state, 36, 39) |
				   FIELD(FXT_SCHED_CONTEXT_SWITCH, 60, 63),
				body, 3, args, nargs);
}

int fxt_thread_wakeup(struct fxt_writer *w, uint64_t ts, uint32_t cpu,
		      uint64_t tid, const struct fxt_arg *args, unsigned nargs)
{
	uint64_t body[2] = { ts, tid };
	int err;

	if (w->err)
		return w->err;
	err = check_args(args, nargs, FXT_MAX_ARGS);
	if (err)
		return refuse(w, err);
	if (cpu > 0xffff)
		return refuse(w, -EINVAL);
	if (ts > INT64_MAX)
		return refuse(w, -ERANGE);
	return write_scheduling(w, FIELD(cpu, 20, 35) |
				   FIELD(FXT_SCHED_THREAD_WAKEUP, 60, 63),
				body, 2, args, nargs);
}

int fxt_writer_pin_string(struct fxt_writer *w, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int idx;

	if (w->err)
		return w->err;
	if (!len || len > FXT_INTERN_MAX_LEN)
		return -EINVAL;
	w->serial++;
	idx = str_ref(w, s, len);
	if (idx < 0)
		return idx;
	if (idx >= STR_SCRATCH_FIRST)
		return -ENOMEM;	/* no memory for the copy: not interned */
	if (!w->str[idx].pinned) {
		if (w->npinned >= FXT_MAX_PINNED)
			return -ENOSPC;
		w->str[idx].pinned = true;
		w->npinned++;
	}
	/* Pinned, it stays usable even without its address remembered. */
	return pins_add(w, s, (unsigned)idx) ? -ENOMEM : idx;
}

/* ------------------------------------------------------------ lifetime */

static int file_sink(void *ctx, const void *data, size_t len)
{
	FILE *f = ctx;

	errno = 0;
	if (fwrite(data, 1, len, f) == len)
		return 0;
	return errno ? -errno : -EIO;
}

struct fxt_writer *fxt_writer_new(fxt_sink_fn sink, void *ctx)
{
	struct fxt_writer *w = calloc(1, sizeof(*w));
	uint64_t *p;

	if (!w)
		goto fail;
	w->sink = sink;
	w->sink_ctx = ctx;
	w->buf = malloc(OUT_BUFFER_SIZE);
	w->str = calloc(STR_INTERN_LAST + 1, sizeof(*w->str));
	w->str_buckets = calloc(STR_BUCKETS, sizeof(*w->str_buckets));
	w->pins = calloc(PINS_MIN, sizeof(*w->pins));
	w->pins_mask = PINS_MIN - 1;
	if (!w->buf || !w->str || !w->str_buckets || !w->pins)
		goto fail;
	w->str_next = 1;
	w->str_hand = 1;
	w->thr_next = 1;
	w->thr_hand = 1;
	/* Stamps start at 0; the first record has serial 1. */

	p = reserve(w, 1);
	put_word(p, FXT_MAGIC);
	p = reserve(w, 2);
	put_word(p, REC_HEADER(FXT_REC_INITIALIZATION, 2));
	put_word(p + 1, FXT_TICKS_PER_SECOND);
	/* Every thread object carries it (string index 1 from here on). */
	if (fxt_writer_pin_string(w, "process") < 0)
		goto fail;
	return w;

fail:
	fxt_writer_free(w);
	errno = ENOMEM;
	return NULL;
}

struct fxt_writer *fxt_writer_new_file(FILE *f)
{
	struct fxt_writer *w = fxt_writer_new(file_sink, f);

	if (w)
		w->file = f;
	return w;
}

int fxt_writer_flush(struct fxt_writer *w)
{
	return flush_buffer(w);
}

int fxt_writer_error(const struct fxt_writer *w)
{
	return w->err;
}

void fxt_writer_get_stats(const struct fxt_writer *w,
			  struct fxt_writer_stats *stats)
{
	*stats = w->stats;
}

uint64_t fxt_writer_bytes(const struct fxt_writer *w)
{
	return w->stats.bytes;
}

void fxt_writer_free(struct fxt_writer *w)
{
	if (!w)
		return;
	if (w->str)
		for (unsigned i = 0; i <= STR_INTERN_LAST; i++)
			free(w->str[i].buf);
	free(w->str);
	free(w->str_buckets);
	free(w->pins);
	free(w->buf);
	free(w);
}

int fxt_writer_close(struct fxt_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = flush_buffer(w);
	if (!err && w->file) {
		errno = 0;
		if (fflush(w->file) || ferror(w->file))
			err = errno ? -errno : -EIO;
	}
	fxt_writer_free(w);
	return err;
}
