// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An independent FXT reader for the tests: framing checks in file order,
 * then a replay of the events in Perfetto's order.  See fxt_reader.h.
 *
 * Deliberately shares nothing with converter/fxt_writer.c: the field
 * positions below are transcribed from the spec again, and bytes are
 * assembled into words one by one (no endian.h, no casts of the buffer).
 * Allocation failures abort: this is test code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"

/* The magic record, as the spec prints its bytes. */
static const uint8_t fxt_magic_bytes[8] = {
	0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00
};

#define SPEC_MAX_STRING		32000
#define PERFETTO_MAX_DEPTH	512
#define NS_PER_SECOND		1000000000ull
#define PENDING			(-1)

/* ------------------------------------------------------------ helpers */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "fxt_reader: out of memory\n");
		abort();
	}
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *q = calloc(n ? n : 1, size);

	if (!q) {
		fprintf(stderr, "fxt_reader: out of memory\n");
		abort();
	}
	return q;
}

/* Make room for one more element in a growable array. */
#define PUSH(arr, n, cap)						\
	do {								\
		if ((n) == (cap)) {					\
			(cap) = (cap) ? 2 * (cap) : 16;			\
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr))); \
		}							\
	} while (0)

static uint64_t bits(uint64_t w, unsigned lo, unsigned hi)
{
	unsigned n = hi - lo + 1;

	return n == 64 ? w : (w >> lo) & ((1ull << n) - 1);
}

/* ------------------------------------------------------------ arena */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	unsigned char data[];
};

struct key_map {
	size_t cap, n;
	struct key_entry {
		uint64_t a, b;
		size_t value;
		bool used;
	} *e;
};

struct provider {
	uint32_t id;
	uint64_t ticks;			/* per second */
	/* string table, grown up to the highest index defined */
	const char **str;
	uint32_t *str_len;
	size_t str_cap;
	bool thr_set[256];
	uint64_t thr_pid[256], thr_tid[256];
};

struct thread_state {
	size_t *stack;
	size_t depth, cap;
};

struct async_state {
	size_t *open;			/* async slice indexes, innermost last */
	size_t nopen, cap;
	bool used;
};

struct priv {
	struct chunk *chunks;
	struct provider **providers;
	size_t nproviders, cur;
	size_t cap_records, cap_processes, cap_threads, cap_slices;
	size_t cap_counters, cap_asyncs, cap_flows, cap_issues;
	struct key_map thread_map;	/* (pid, tid) -> thread index */
	struct thread_state *tstates;	/* parallel to m->threads */
	struct key_map flow_map;	/* id -> flow index */
	struct key_map async_map;	/* id -> async state index */
	struct async_state *astates;
	size_t nastates, cap_astates;
	size_t *flow_caps;		/* capacity of flows[i].points */
	bool have_ts;
	size_t *counter_caps;
};

static void *arena_alloc(struct priv *p, size_t n)
{
	struct chunk *c = p->chunks;
	void *r;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < n) {
		/* 16 KiB, doubling to 1 MiB: small files stay cheap */
		size_t cap = c ? 2 * c->cap : 16384;

		if (cap > (1 << 20))
			cap = 1 << 20;
		if (cap < n)
			cap = n;

		c = xrealloc(NULL, sizeof(*c) + cap);
		c->next = p->chunks;
		c->used = 0;
		c->cap = cap;
		p->chunks = c;
	}
	r = c->data + c->used;
	c->used += n;
	return r;
}

static char *arena_strndup(struct priv *p, const void *s, size_t len)
{
	char *r = arena_alloc(p, len + 1);

	memcpy(r, s, len);
	r[len] = 0;
	return r;
}

/* ------------------------------------------------------------ key map */

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9fb21c651e98df25ull + b;

	h ^= h >> 31;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

static size_t *map_find(const struct key_map *mp, uint64_t a, uint64_t b)
{
	size_t i;

	if (!mp->cap)
		return NULL;
	for (i = mix(a, b) & (mp->cap - 1); mp->e[i].used;
	     i = (i + 1) & (mp->cap - 1))
		if (mp->e[i].a == a && mp->e[i].b == b)
			return &mp->e[i].value;
	return NULL;
}

static void map_set(struct key_map *mp, uint64_t a, uint64_t b, size_t v)
{
	size_t *slot = map_find(mp, a, b);
	size_t i;

	if (slot) {
		*slot = v;
		return;
	}
	if (2 * (mp->n + 1) > mp->cap) {
		struct key_map bigger = { .cap = mp->cap ? 2 * mp->cap : 64 };

		bigger.e = xcalloc(bigger.cap, sizeof(*bigger.e));
		for (i = 0; i < mp->cap; i++)
			if (mp->e[i].used)
				map_set(&bigger, mp->e[i].a, mp->e[i].b,
					mp->e[i].value);
		free(mp->e);
		*mp = bigger;
	}
	for (i = mix(a, b) & (mp->cap - 1); mp->e[i].used;
	     i = (i + 1) & (mp->cap - 1))
		;
	mp->e[i] = (struct key_entry){ .a = a, .b = b, .value = v,
				       .used = true };
	mp->n++;
}

/* ------------------------------------------------------------ reader */

struct rd {
	const uint8_t *data;
	size_t size;
	struct fxtr_model *m;
	struct priv *p;
	size_t recno;			/* index of the record being read */
	uint64_t rec_offset;
	char *err;
	size_t errsz;
	bool failed;
};

/* A byte range inside the current record. */
struct cur {
	size_t pos, end;
};

static bool fail(struct rd *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct rd *rd, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (rd->failed)
		return false;
	rd->failed = true;
	if (!rd->errsz)
		return false;
	if (rd->recno == FXTR_NONE)	/* the file as a whole */
		n = snprintf(rd->err, rd->errsz, "offset 0x%" PRIx64 ": ",
			     rd->rec_offset);
	else
		n = snprintf(rd->err, rd->errsz, "offset 0x%" PRIx64 ": record "
			     "%zu: ", rd->rec_offset, rd->recno);
	if (n < 0 || (size_t)n >= rd->errsz)
		return false;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errsz - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

static void issue(struct rd *rd, enum fxtr_issue_kind kind, size_t record,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void issue(struct rd *rd, enum fxtr_issue_kind kind, size_t record,
		  const char *fmt, ...)
{
	struct fxtr_model *m = rd->m;
	struct fxtr_issue *is;
	va_list ap;

	m->nissues++;
	m->issue_counts[kind]++;
	if (m->nissues_kept >= 10000)
		return;
	PUSH(m->issues, m->nissues_kept, rd->p->cap_issues);
	is = &m->issues[m->nissues_kept++];
	is->kind = kind;
	is->record = record;
	va_start(ap, fmt);
	vsnprintf(is->message, sizeof(is->message), fmt, ap);
	va_end(ap);
}

static uint64_t word_at(const struct rd *rd, size_t off)
{
	uint64_t w = 0;

	for (int i = 7; i >= 0; i--)
		w = w << 8 | rd->data[off + (size_t)i];
	return w;
}

static bool get_word(struct rd *rd, struct cur *c, uint64_t *w,
		     const char *what)
{
	if (c->end - c->pos < 8)
		return fail(rd, "%s lies beyond the declared record size", what);
	*w = word_at(rd, c->pos);
	c->pos += 8;
	return true;
}

static bool zero_bits(struct rd *rd, uint64_t w, unsigned lo, unsigned hi,
		      const char *what)
{
	if (bits(w, lo, hi))
		return fail(rd, "%s: reserved bits [%u..%u] are not zero (0x%"
			    PRIx64 ")", what, lo, hi, bits(w, lo, hi));
	return true;
}

static bool valid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned c = s[i], n;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (unsigned k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

/* len bytes padded to words; copied NUL-terminated into the arena. */
static bool get_stream(struct rd *rd, struct cur *c, size_t len,
		       const char **out, const char *what)
{
	size_t padded = (len + 7) & ~(size_t)7;

	if (c->end - c->pos < padded)
		return fail(rd, "%s (%zu bytes) lies beyond the declared record "
			    "size", what, len);
	for (size_t i = len; i < padded; i++)
		if (rd->data[c->pos + i])
			return fail(rd, "%s: padding byte %zu is not zero",
				    what, i - len);
	*out = arena_strndup(rd->p, rd->data + c->pos, len);
	c->pos += padded;
	return true;
}

static struct provider *cur_provider(struct rd *rd)
{
	return rd->p->providers[rd->p->cur];
}

static void check_text(struct rd *rd, const char *s, size_t len,
		       const char *what)
{
	if (!valid_utf8((const unsigned char *)s, len))
		issue(rd, FXTR_ISSUE_BAD_UTF8, rd->recno,
		      "%s is not valid UTF-8", what);
}

/* Resolve a string ref: 0 = "", bit 15 = inline, else table index. */
static bool get_string(struct rd *rd, struct cur *c, unsigned ref,
		       const char **out, uint32_t *len, const char *what)
{
	struct provider *pv = cur_provider(rd);
	uint32_t n;

	if (!ref) {
		*out = "";
		n = 0;
	} else if (ref & 0x8000) {
		n = ref & 0x7fff;
		if (n > SPEC_MAX_STRING)
			return fail(rd, "%s: inline string of %u bytes (more "
				    "than %u)", what, n, SPEC_MAX_STRING);
		if (!get_stream(rd, c, n, out, what))
			return false;
		check_text(rd, *out, n, what);
	} else {
		if (ref >= pv->str_cap || !pv->str[ref])
			return fail(rd, "%s: string index %u used before any "
				    "string record defined it", what, ref);
		*out = pv->str[ref];
		n = pv->str_len[ref];
	}
	if (len)
		*len = n;
	return true;
}

static bool get_thread(struct rd *rd, struct cur *c, unsigned ref,
		       uint64_t *pid, uint64_t *tid, const char *what)
{
	struct provider *pv = cur_provider(rd);

	if (!ref)
		return get_word(rd, c, pid, "inline process koid") &&
		       get_word(rd, c, tid, "inline thread koid");
	if (!pv->thr_set[ref])
		return fail(rd, "%s: thread index %u used before any thread "
			    "record defined it", what, ref);
	*pid = pv->thr_pid[ref];
	*tid = pv->thr_tid[ref];
	return true;
}

static bool get_args(struct rd *rd, struct cur *c, unsigned n,
		     const struct fxtr_arg **out)
{
	struct fxtr_arg *args = n ? arena_alloc(rd->p, n * sizeof(*args)) : NULL;

	for (unsigned i = 0; i < n; i++) {
		struct fxtr_arg *a = &args[i];
		size_t base = c->pos;
		struct cur ac;
		uint64_t h, v = 0;
		char what[48];

		memset(a, 0, sizeof(*a));
		snprintf(what, sizeof(what), "argument %u", i);
		if (c->end - c->pos < 8)
			return fail(rd, "%s header lies beyond the declared "
				    "record size", what);
		h = word_at(rd, c->pos);
		a->type = (enum fxtr_arg_type)bits(h, 0, 3);
		a->words = (unsigned)bits(h, 4, 15);
		a->name_ref = (unsigned)bits(h, 16, 31);
		if (!a->words)
			return fail(rd, "%s: argument size is 0", what);
		if ((c->end - base) / 8 < a->words)
			return fail(rd, "%s of %u words runs past the end of the "
				    "record", what, a->words);
		ac.pos = base + 8;
		ac.end = base + (size_t)a->words * 8;
		if (!get_string(rd, &ac, a->name_ref, &a->name, NULL, what))
			return false;
		switch (a->type) {
		case FXTR_ARG_NULL:
			if (!zero_bits(rd, h, 32, 63, what))
				return false;
			break;
		case FXTR_ARG_INT32:
			a->i = (int32_t)(uint32_t)bits(h, 32, 63);
			break;
		case FXTR_ARG_UINT32:
			a->u = bits(h, 32, 63);
			break;
		case FXTR_ARG_INT64:
		case FXTR_ARG_UINT64:
		case FXTR_ARG_DOUBLE:
		case FXTR_ARG_POINTER:
		case FXTR_ARG_KOID:
			if (!zero_bits(rd, h, 32, 63, what) ||
			    !get_word(rd, &ac, &v, what))
				return false;
			a->u = v;
			a->i = (int64_t)v;
			memcpy(&a->d, &v, sizeof(a->d));
			break;
		case FXTR_ARG_STRING:
			a->value_ref = (unsigned)bits(h, 32, 47);
			if (!zero_bits(rd, h, 48, 63, what) ||
			    !get_string(rd, &ac, a->value_ref, &a->str,
					&a->str_len, what))
				return false;
			break;
		case FXTR_ARG_BOOL:
			if (!zero_bits(rd, h, 33, 63, what))
				return false;
			a->b = bits(h, 32, 32);
			break;
		case FXTR_ARG_BLOB:
			a->u = bits(h, 32, 63);
			if (!get_stream(rd, &ac, a->u, &a->str, what))
				return false;
			a->str_len = (uint32_t)a->u;
			break;
		default:
			return fail(rd, "%s: unknown argument type %u", what,
				    a->type);
		}
		if (ac.pos != ac.end)
			return fail(rd, "%s: argument header says %u words but "
				    "its content is %zu", what, a->words,
				    (ac.pos - base) / 8);
		c->pos = ac.end;
	}
	*out = args;
	return true;
}

/* ticks -> ns with the current provider's rate; false if out of range. */
static bool to_ns(struct rd *rd, uint64_t ticks, uint64_t *ns)
{
	uint64_t tps = cur_provider(rd)->ticks;
	unsigned __int128 v;

	if (tps == NS_PER_SECOND) {
		*ns = ticks;
	} else {
		v = (unsigned __int128)ticks * NS_PER_SECOND / tps;
		*ns = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	}
	return *ns <= INT64_MAX;
}

static void check_koid(struct rd *rd, uint64_t koid, const char *what)
{
	if (koid > UINT32_MAX)
		issue(rd, FXTR_ISSUE_KOID_OVER_32_BITS, rd->recno,
		      "%s koid 0x%" PRIx64 " does not fit in 32 bits (Perfetto "
		      "truncates it)", what, koid);
}

/* ------------------------------------------------------------ model */

static size_t thread_index(struct rd *rd, uint64_t pid, uint64_t tid)
{
	struct fxtr_model *m = rd->m;
	struct priv *p = rd->p;
	size_t *idx;
	size_t old_cap = p->cap_threads;

	/* Perfetto keeps 32-bit pids and tids. */
	pid = (uint32_t)pid;
	tid = (uint32_t)tid;
	idx = map_find(&p->thread_map, pid, tid);
	if (idx)
		return *idx;
	PUSH(m->threads, m->nthreads, p->cap_threads);
	if (p->cap_threads != old_cap) {
		p->tstates = xrealloc(p->tstates,
				      p->cap_threads * sizeof(*p->tstates));
		memset(p->tstates + old_cap, 0,
		       (p->cap_threads - old_cap) * sizeof(*p->tstates));
	}
	m->threads[m->nthreads] = (struct fxtr_thread){ .pid = pid,
							.tid = tid };
	map_set(&p->thread_map, pid, tid, m->nthreads);
	return m->nthreads++;
}

static struct fxtr_process *process_entry(struct rd *rd, uint64_t pid)
{
	struct fxtr_model *m = rd->m;

	pid = (uint32_t)pid;
	for (size_t i = 0; i < m->nprocesses; i++)
		if (m->processes[i].pid == pid)
			return &m->processes[i];
	PUSH(m->processes, m->nprocesses, rd->p->cap_processes);
	m->processes[m->nprocesses] = (struct fxtr_process){ .pid = pid };
	return &m->processes[m->nprocesses++];
}

/* ------------------------------------------------------------ records */

static void free_provider(struct provider *pv)
{
	if (!pv)
		return;
	free(pv->str);
	free(pv->str_len);
	free(pv);
}

static void new_provider(struct rd *rd, uint32_t id)
{
	struct priv *p = rd->p;
	struct provider *pv = xcalloc(1, sizeof(*pv));

	pv->id = id;
	pv->ticks = NS_PER_SECOND;	/* spec: without init, 1 tick = 1 ns */
	for (size_t i = 0; i < p->nproviders; i++) {
		if (p->providers[i]->id == id) {
			/* Perfetto replaces it, tables and all. */
			free_provider(p->providers[i]);
			p->providers[i] = pv;
			p->cur = i;
			return;
		}
	}
	p->providers = xrealloc(p->providers,
				(p->nproviders + 1) * sizeof(*p->providers));
	p->providers[p->nproviders] = pv;
	p->cur = p->nproviders++;
}

static bool rec_metadata(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	uint64_t h = r->header;
	unsigned len;

	r->subtype = (unsigned)bits(h, 16, 19);
	switch (r->subtype) {
	case 1:		/* provider info */
		r->value = bits(h, 20, 51);
		len = (unsigned)bits(h, 52, 59);
		if (!zero_bits(rd, h, 60, 63, "provider info") ||
		    !get_stream(rd, c, len, &r->str, "provider name"))
			return false;
		r->str_len = len;
		new_provider(rd, (uint32_t)r->value);
		return true;
	case 2:		/* provider section */
		r->value = bits(h, 20, 51);
		if (!zero_bits(rd, h, 52, 63, "provider section"))
			return false;
		for (size_t i = 0; i < rd->p->nproviders; i++) {
			if (rd->p->providers[i]->id == r->value) {
				rd->p->cur = i;
				return true;
			}
		}
		return fail(rd, "provider section for id %" PRIu64 ", which no "
			    "provider info record registered (Perfetto drops "
			    "everything after it)", r->value);
	case 3:		/* provider event */
		r->value = bits(h, 20, 51);
		r->index = (unsigned)bits(h, 52, 55);
		if (!zero_bits(rd, h, 56, 63, "provider event"))
			return false;
		issue(rd, FXTR_ISSUE_IGNORED_RECORD, rd->recno,
		      "provider event %u (buffer full?) is ignored by "
		      "Perfetto", r->index);
		return true;
	case 4:		/* trace info */
		if (bits(h, 20, 23) != 0)
			return fail(rd, "unknown trace info type %u",
				    (unsigned)bits(h, 20, 23));
		if (memcmp(rd->data + rd->rec_offset, fxt_magic_bytes, 8))
			return fail(rd, "magic number record is 0x%016" PRIx64,
				    h);
		r->value = h;
		return true;
	default:
		return fail(rd, "unknown metadata type %u", r->subtype);
	}
}

static bool rec_init(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	if (!zero_bits(rd, r->header, 16, 63, "initialization record") ||
	    !get_word(rd, c, &r->value, "ticks per second"))
		return false;
	if (!r->value)
		return fail(rd, "0 ticks per second");
	if (r->value != NS_PER_SECOND)
		issue(rd, FXTR_ISSUE_TICKS_NOT_NS, rd->recno,
		      "%" PRIu64 " ticks per second: Perfetto converts with "
		      "integer arithmetic", r->value);
	cur_provider(rd)->ticks = r->value;
	if (!rd->m->ticks_per_second)
		rd->m->ticks_per_second = r->value;
	return true;
}

static bool rec_string(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	uint64_t h = r->header;
	struct provider *pv = cur_provider(rd);

	r->index = (unsigned)bits(h, 16, 30);
	r->str_len = (uint32_t)bits(h, 32, 46);
	if (!zero_bits(rd, h, 31, 31, "string record") ||
	    !zero_bits(rd, h, 47, 63, "string record"))
		return false;
	if (!r->index)
		return fail(rd, "string record assigns index 0");
	if (r->str_len > SPEC_MAX_STRING)
		return fail(rd, "string of %u bytes (more than %u)",
			    r->str_len, SPEC_MAX_STRING);
	if (!get_stream(rd, c, r->str_len, &r->str, "string"))
		return false;
	check_text(rd, r->str, r->str_len, "string record");
	if (r->index >= pv->str_cap) {
		size_t cap = pv->str_cap ? pv->str_cap : 64;

		while (cap <= r->index)
			cap *= 2;
		pv->str = xrealloc(pv->str, cap * sizeof(*pv->str));
		pv->str_len = xrealloc(pv->str_len, cap * sizeof(*pv->str_len));
		memset(pv->str + pv->str_cap, 0,
		       (cap - pv->str_cap) * sizeof(*pv->str));
		pv->str_cap = cap;
	}
	pv->str[r->index] = r->str;
	pv->str_len[r->index] = r->str_len;
	return true;
}

static bool rec_thread(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	struct provider *pv = cur_provider(rd);

	r->index = (unsigned)bits(r->header, 16, 23);
	if (!zero_bits(rd, r->header, 24, 63, "thread record") ||
	    !get_word(rd, c, &r->pid, "process koid") ||
	    !get_word(rd, c, &r->tid, "thread koid"))
		return false;
	if (!r->index)
		return fail(rd, "thread record assigns index 0");
	pv->thr_set[r->index] = true;
	pv->thr_pid[r->index] = r->pid;
	pv->thr_tid[r->index] = r->tid;
	return true;
}

static bool rec_event(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	struct fxtr_model *m = rd->m;
	uint64_t h = r->header;

	r->subtype = (unsigned)bits(h, 16, 19);
	r->nargs = (unsigned)bits(h, 20, 23);
	r->thread_ref = (unsigned)bits(h, 24, 31);
	r->category_ref = (unsigned)bits(h, 32, 47);
	r->name_ref = (unsigned)bits(h, 48, 63);
	if (r->subtype > FXTR_EV_FLOW_END)
		return fail(rd, "unknown event type %u", r->subtype);
	if (!get_word(rd, c, &r->ts, "timestamp") ||
	    !get_thread(rd, c, r->thread_ref, &r->pid, &r->tid, "event") ||
	    !get_string(rd, c, r->category_ref, &r->category, NULL,
			"category") ||
	    !get_string(rd, c, r->name_ref, &r->name, NULL, "name") ||
	    !get_args(rd, c, r->nargs, &r->args))
		return false;
	switch (r->subtype) {
	case FXTR_EV_COUNTER:
		if (!get_word(rd, c, &r->extra, "counter id"))
			return false;
		break;
	case FXTR_EV_COMPLETE:
		if (!get_word(rd, c, &r->extra, "end timestamp"))
			return false;
		if (!to_ns(rd, r->extra, &r->end_ns))
			issue(rd, FXTR_ISSUE_TIMESTAMP_RANGE, rd->recno,
			      "end timestamp beyond INT64_MAX ns");
		break;
	case FXTR_EV_ASYNC_BEGIN:
	case FXTR_EV_ASYNC_INSTANT:
	case FXTR_EV_ASYNC_END:
		if (!get_word(rd, c, &r->extra, "async correlation id"))
			return false;
		break;
	case FXTR_EV_FLOW_BEGIN:
	case FXTR_EV_FLOW_STEP:
	case FXTR_EV_FLOW_END:
		if (!get_word(rd, c, &r->extra, "flow correlation id"))
			return false;
		break;
	default:
		break;
	}
	if (!to_ns(rd, r->ts, &r->ts_ns))
		issue(rd, FXTR_ISSUE_TIMESTAMP_RANGE, rd->recno,
		      "timestamp beyond INT64_MAX ns: Perfetto drops the event");
	check_koid(rd, r->pid, "process");
	check_koid(rd, r->tid, "thread");
	if (!(uint32_t)r->pid || !(uint32_t)r->tid)
		issue(rd, FXTR_ISSUE_PID_TID_ZERO, rd->recno,
		      "event on pid %" PRIu64 " tid %" PRIu64 ": 0 is "
		      "Perfetto's idle process/thread", r->pid, r->tid);
	m->event_counts[r->subtype]++;
	if (r->ts_ns <= INT64_MAX) {
		int64_t ts = (int64_t)r->ts_ns;

		if (!rd->p->have_ts || ts < m->ts_min)
			m->ts_min = ts;
		if (!rd->p->have_ts || ts > m->ts_max)
			m->ts_max = ts;
		rd->p->have_ts = true;
	}
	return true;
}

static bool rec_blob(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	uint64_t h = r->header;
	uint32_t len = (uint32_t)bits(h, 32, 46);

	r->name_ref = (unsigned)bits(h, 16, 31);
	r->subtype = (unsigned)bits(h, 48, 55);
	if (!zero_bits(rd, h, 47, 47, "blob record") ||
	    !zero_bits(rd, h, 56, 63, "blob record") ||
	    !get_string(rd, c, r->name_ref, &r->name, NULL, "blob name") ||
	    !get_stream(rd, c, len, &r->str, "blob payload"))
		return false;
	r->str_len = len;
	issue(rd, FXTR_ISSUE_IGNORED_RECORD, rd->recno,
	      "blob record of type %u is not interpreted", r->subtype);
	return true;
}

static bool rec_userspace_object(struct rd *rd, struct fxtr_record *r,
				 struct cur *c)
{
	uint64_t h = r->header;

	r->thread_ref = (unsigned)bits(h, 16, 23);
	r->name_ref = (unsigned)bits(h, 24, 39);
	r->nargs = (unsigned)bits(h, 40, 43);
	if (!zero_bits(rd, h, 44, 63, "userspace object record") ||
	    !get_word(rd, c, &r->value, "pointer"))
		return false;
	if (!r->thread_ref) {
		/* The spec inlines the process koid only. */
		if (!get_word(rd, c, &r->pid, "process koid"))
			return false;
	} else if (!get_thread(rd, c, r->thread_ref, &r->pid, &r->tid,
			       "userspace object")) {
		return false;
	}
	if (!get_string(rd, c, r->name_ref, &r->name, NULL, "name") ||
	    !get_args(rd, c, r->nargs, &r->args))
		return false;
	issue(rd, FXTR_ISSUE_IGNORED_RECORD, rd->recno,
	      "userspace object records are ignored by Perfetto");
	return true;
}

static bool rec_kernel_object(struct rd *rd, struct fxtr_record *r,
			      struct cur *c)
{
	uint64_t h = r->header;
	const struct fxtr_arg *proc;
	uint32_t len;
	size_t t;

	r->subtype = (unsigned)bits(h, 16, 23);
	r->name_ref = (unsigned)bits(h, 24, 39);
	r->nargs = (unsigned)bits(h, 40, 43);
	if (!zero_bits(rd, h, 44, 63, "kernel object record") ||
	    !get_word(rd, c, &r->koid, "koid") ||
	    !get_string(rd, c, r->name_ref, &r->name, &len, "object name") ||
	    !get_args(rd, c, r->nargs, &r->args))
		return false;
	switch (r->subtype) {
	case 1:		/* process */
		check_koid(rd, r->koid, "process object");
		process_entry(rd, r->koid)->name = r->name;
		break;
	case 2:		/* thread */
		check_koid(rd, r->koid, "thread object");
		proc = fxtr_record_arg(r, "process");
		if (!proc) {
			issue(rd, FXTR_ISSUE_THREAD_NO_PROCESS, rd->recno,
			      "thread object %" PRIu64 " (%s) has no "
			      "\"process\" argument: Perfetto puts it in pid 0",
			      r->koid, r->name);
			r->pid = 0;
		} else if (proc->type != FXTR_ARG_KOID) {
			issue(rd, FXTR_ISSUE_THREAD_PROCESS_TYPE, rd->recno,
			      "thread object %" PRIu64 ": \"process\" is not a "
			      "koid: Perfetto drops the record", r->koid);
			break;
		} else {
			r->pid = proc->u;
			check_koid(rd, r->pid, "thread object's process");
		}
		t = thread_index(rd, r->pid, r->koid);
		rd->m->threads[t].name = r->name;
		break;
	default:
		issue(rd, FXTR_ISSUE_IGNORED_RECORD, rd->recno,
		      "kernel object of type %u is ignored by Perfetto",
		      r->subtype);
		break;
	}
	return true;
}

static bool rec_scheduling(struct rd *rd, struct fxtr_record *r,
			   struct cur *c)
{
	uint64_t h = r->header;
	unsigned out_ref, in_ref;

	r->subtype = (unsigned)bits(h, 60, 63);
	switch (r->subtype) {
	case 0:		/* legacy context switch */
		r->cpu = (unsigned)bits(h, 16, 23);
		r->out_state = (unsigned)bits(h, 24, 27);
		out_ref = (unsigned)bits(h, 28, 35);
		in_ref = (unsigned)bits(h, 36, 43);
		if (!get_word(rd, c, &r->ts, "timestamp") ||
		    !get_thread(rd, c, out_ref, &r->pid, &r->out_tid,
				"outgoing thread") ||
		    !get_thread(rd, c, in_ref, &r->value, &r->in_tid,
				"incoming thread"))
			return false;
		r->tid = r->out_tid;
		break;
	case 1:		/* context switch */
		r->nargs = (unsigned)bits(h, 16, 19);
		r->cpu = (unsigned)bits(h, 20, 35);
		r->out_state = (unsigned)bits(h, 36, 39);
		if (!zero_bits(rd, h, 40, 59, "context switch record") ||
		    !get_word(rd, c, &r->ts, "timestamp") ||
		    !get_word(rd, c, &r->out_tid, "outgoing tid") ||
		    !get_word(rd, c, &r->in_tid, "incoming tid") ||
		    !get_args(rd, c, r->nargs, &r->args))
			return false;
		break;
	case 2:		/* thread wakeup */
		r->nargs = (unsigned)bits(h, 16, 19);
		r->cpu = (unsigned)bits(h, 20, 35);
		if (!zero_bits(rd, h, 36, 59, "thread wakeup record") ||
		    !get_word(rd, c, &r->ts, "timestamp") ||
		    !get_word(rd, c, &r->in_tid, "waking tid") ||
		    !get_args(rd, c, r->nargs, &r->args))
			return false;
		break;
	default:
		return fail(rd, "unknown scheduling record type %u",
			    r->subtype);
	}
	if (r->out_state > 5)
		return fail(rd, "unknown thread state %u", r->out_state);
	if (!to_ns(rd, r->ts, &r->ts_ns))
		issue(rd, FXTR_ISSUE_TIMESTAMP_RANGE, rd->recno,
		      "timestamp beyond INT64_MAX ns");
	return true;
}

static bool rec_log(struct rd *rd, struct fxtr_record *r, struct cur *c)
{
	uint64_t h = r->header;

	r->str_len = (uint32_t)bits(h, 16, 30);
	r->thread_ref = (unsigned)bits(h, 32, 39);
	if (!zero_bits(rd, h, 31, 31, "log record") ||
	    !zero_bits(rd, h, 40, 63, "log record") ||
	    !get_word(rd, c, &r->ts, "timestamp") ||
	    !get_thread(rd, c, r->thread_ref, &r->pid, &r->tid, "log") ||
	    !get_stream(rd, c, r->str_len, &r->str, "log message"))
		return false;
	issue(rd, FXTR_ISSUE_IGNORED_RECORD, rd->recno,
	      "log records are ignored by Perfetto");
	return true;
}

static bool read_records(struct rd *rd)
{
	struct fxtr_model *m = rd->m;
	size_t off = 0;

	rd->recno = FXTR_NONE;
	if (!rd->size)
		return fail(rd, "empty file");
	if (rd->size % 8) {
		rd->rec_offset = rd->size - rd->size % 8;
		return fail(rd, "file size %zu is not a multiple of 8 bytes",
			    rd->size);
	}
	rd->recno = 0;
	if (memcmp(rd->data, fxt_magic_bytes, 8))
		return fail(rd, "first record is not the FXT magic number "
			    "record (0x%016" PRIx64 ")", word_at(rd, 0));

	while (off < rd->size) {
		struct fxtr_record *r;
		struct cur c;
		uint64_t h = word_at(rd, off);
		unsigned words = (unsigned)bits(h, 4, 15);
		bool ok;

		rd->recno = m->nrecords;
		rd->rec_offset = off;
		if (!words)
			return fail(rd, "record size is 0 (Perfetto aborts the "
				    "import)");
		if ((rd->size - off) / 8 < words)
			return fail(rd, "record of %u words runs past end of "
				    "file", words);
		PUSH(m->records, m->nrecords, rd->p->cap_records);
		r = &m->records[m->nrecords++];
		memset(r, 0, sizeof(*r));
		r->offset = off;
		r->type = (enum fxtr_record_type)bits(h, 0, 3);
		r->words = words;
		r->header = h;
		r->provider = (unsigned)rd->p->cur;
		c.pos = off + 8;
		c.end = off + (size_t)words * 8;

		switch ((unsigned)r->type) {
		case FXTR_REC_METADATA:
			ok = rec_metadata(rd, r, &c);
			break;
		case FXTR_REC_INIT:
			ok = rec_init(rd, r, &c);
			break;
		case FXTR_REC_STRING:
			ok = rec_string(rd, r, &c);
			break;
		case FXTR_REC_THREAD:
			ok = rec_thread(rd, r, &c);
			break;
		case FXTR_REC_EVENT:
			ok = rec_event(rd, r, &c);
			break;
		case FXTR_REC_BLOB:
			ok = rec_blob(rd, r, &c);
			break;
		case FXTR_REC_USERSPACE_OBJECT:
			ok = rec_userspace_object(rd, r, &c);
			break;
		case FXTR_REC_KERNEL_OBJECT:
			ok = rec_kernel_object(rd, r, &c);
			break;
		case FXTR_REC_SCHEDULING:
			ok = rec_scheduling(rd, r, &c);
			break;
		case FXTR_REC_LOG:
			ok = rec_log(rd, r, &c);
			break;
		case 10:
			return fail(rd, "profiler record (type 10) is not "
				    "supported (Perfetto ignores it)");
		case 15:
			return fail(rd, "large record (type 15): Perfetto reads "
				    "its size from bits [4..15] and would "
				    "misframe the rest of the file");
		default:
			return fail(rd, "unknown record type %u", r->type);
		}
		if (!ok)
			return false;
		if (c.pos != c.end)
			return fail(rd, "record header says %u words but its "
				    "content is %zu", words, (c.pos - off) / 8);
		m->record_counts[r->type]++;
		off += (size_t)words * 8;
	}
	return true;
}

/* ------------------------------------------------------------ replay */

static struct thread_state *tstate(struct rd *rd, size_t t)
{
	return &rd->p->tstates[t];
}

static void push_slice(struct rd *rd, size_t t, const struct fxtr_record *r,
		       size_t recno, int64_t ts, int64_t dur,
		       enum fxtr_slice_kind kind)
{
	struct fxtr_model *m = rd->m;
	struct thread_state *st = tstate(rd, t);
	struct fxtr_slice *s;

	PUSH(m->slices, m->nslices, rd->p->cap_slices);
	s = &m->slices[m->nslices];
	*s = (struct fxtr_slice){
		.pid = m->threads[t].pid, .tid = m->threads[t].tid,
		.ts = ts, .dur = dur, .depth = (unsigned)st->depth,
		.parent = st->depth ? st->stack[st->depth - 1] : FXTR_NONE,
		.kind = kind, .category = r->category, .name = r->name,
		.begin_record = recno, .end_record = FXTR_NONE,
	};
	PUSH(st->stack, st->depth, st->cap);
	st->stack[st->depth++] = m->nslices++;
	m->threads[t].nslices++;
}

/*
 * SliceTracker::MaybeCloseStack, transcribed: walk the stack from the
 * top, pop finished slices that end before new_ts (or at it, unless both
 * are instants), truncate begin/end slices that an ended slice below them
 * forces closed, and refuse a complete event that partially overlaps.
 * Like Perfetto, a pop removes the top of the stack.
 */
static bool close_stack(struct rd *rd, size_t t, int64_t new_ts,
			int64_t new_dur, size_t recno)
{
	struct fxtr_model *m = rd->m;
	struct thread_state *st = tstate(rd, t);
	bool incomplete_below = false;

	for (size_t k = st->depth; k-- > 0;) {
		struct fxtr_slice *s = &m->slices[st->stack[k]];
		int64_t end = s->ts + s->dur;

		if (s->dur == PENDING) {
			incomplete_below = true;
			continue;
		}
		if (incomplete_below) {
			if (new_ts <= end)
				continue;
			issue(rd, FXTR_ISSUE_MISPLACED_END, recno,
			      "slice \"%s\" [%" PRId64 ", %" PRId64 "] on %"
			      PRIu64 "/%" PRIu64 " ends while slices begun "
			      "inside it are open: Perfetto truncates them",
			      s->name, s->ts, end, s->pid, s->tid);
			while (st->depth > k + 1) {
				struct fxtr_slice *child =
					&m->slices[st->stack[--st->depth]];

				child->dur = end - child->ts;
			}
			st->depth--;
			incomplete_below = false;
			continue;
		}
		if (end < new_ts ||
		    (end == new_ts && !(s->dur == 0 && new_dur == 0))) {
			st->depth--;
			continue;
		}
		if (new_dur == PENDING)
			continue;
		if (new_ts < end && new_ts + new_dur > end) {
			issue(rd, FXTR_ISSUE_PARTIAL_OVERLAP, recno,
			      "\"%s\" [%" PRId64 ", %" PRId64 "] partially "
			      "overlaps \"%s\" [%" PRId64 ", %" PRId64 "] on %"
			      PRIu64 "/%" PRIu64 ": Perfetto drops it",
			      m->records[recno].name, new_ts, new_ts + new_dur,
			      s->name, s->ts, end, s->pid, s->tid);
			return false;
		}
	}
	return true;
}

static void replay_scoped(struct rd *rd, size_t t, size_t recno, int64_t ts,
			  int64_t dur, enum fxtr_slice_kind kind)
{
	const struct fxtr_record *r = &rd->m->records[recno];

	if (!close_stack(rd, t, ts, dur, recno))
		return;
	if (tstate(rd, t)->depth >= PERFETTO_MAX_DEPTH) {
		issue(rd, FXTR_ISSUE_MAX_DEPTH, recno,
		      "\"%s\" would be deeper than %d: Perfetto drops it",
		      r->name, PERFETTO_MAX_DEPTH);
		return;
	}
	push_slice(rd, t, r, recno, ts, dur, kind);
}

static void replay_begin(struct rd *rd, size_t t, size_t recno, int64_t ts)
{
	const struct fxtr_record *r = &rd->m->records[recno];

	close_stack(rd, t, ts, PENDING, recno);
	if (tstate(rd, t)->depth >= PERFETTO_MAX_DEPTH) {
		issue(rd, FXTR_ISSUE_MAX_DEPTH, recno,
		      "begin \"%s\" would be deeper than %d: Perfetto drops it",
		      r->name, PERFETTO_MAX_DEPTH);
		return;
	}
	push_slice(rd, t, r, recno, ts, PENDING, FXTR_SLICE_BEGIN_END);
}

static void replay_end(struct rd *rd, size_t t, size_t recno, int64_t ts)
{
	struct fxtr_model *m = rd->m;
	struct thread_state *st = tstate(rd, t);
	size_t k;

	close_stack(rd, t, ts, PENDING, recno);
	/* FXT ends carry no name for Perfetto: the innermost open begin. */
	for (k = st->depth; k-- > 0;)
		if (m->slices[st->stack[k]].dur == PENDING)
			break;
	if (k == (size_t)-1) {
		issue(rd, FXTR_ISSUE_UNMATCHED_END, recno,
		      "duration end at %" PRId64 " on %" PRIu64 "/%" PRIu64
		      " with no open begin: Perfetto ignores it", ts,
		      m->threads[t].pid, m->threads[t].tid);
		return;
	}
	m->slices[st->stack[k]].dur = ts - m->slices[st->stack[k]].ts;
	m->slices[st->stack[k]].end_record = recno;
	if (k == st->depth - 1)
		st->depth--;
}

static void replay_counter(struct rd *rd, size_t recno, int64_t ts)
{
	struct fxtr_model *m = rd->m;
	const struct fxtr_record *r = &m->records[recno];
	uint64_t pid = (uint32_t)r->pid;

	for (unsigned i = 0; i < r->nargs; i++) {
		const struct fxtr_arg *a = &r->args[i];
		struct fxtr_counter *ctr = NULL;
		double v;
		size_t n, k;
		char *name;

		switch (a->type) {
		case FXTR_ARG_INT32:
		case FXTR_ARG_INT64:
			v = (double)a->i;
			break;
		case FXTR_ARG_UINT32:
		case FXTR_ARG_UINT64:
			v = (double)a->u;
			break;
		case FXTR_ARG_DOUBLE:
			v = a->d;
			break;
		default:
			issue(rd, FXTR_ISSUE_COUNTER_NON_NUMERIC, recno,
			      "counter \"%s\" argument \"%s\" is not numeric: "
			      "Perfetto skips it", r->name, a->name);
			continue;
		}
		n = strlen(r->name) + strlen(a->name) + 24;
		name = xrealloc(NULL, n);
		snprintf(name, n, "%s:%s:%" PRIu64, r->name, a->name,
			 r->extra);
		for (k = 0; k < m->ncounters; k++) {
			if (m->counters[k].pid == pid &&
			    !strcmp(m->counters[k].name, name)) {
				ctr = &m->counters[k];
				break;
			}
		}
		if (ctr) {
			free(name);
		} else {
			size_t old = rd->p->cap_counters;

			PUSH(m->counters, m->ncounters, rd->p->cap_counters);
			if (old != rd->p->cap_counters) {
				rd->p->counter_caps = xrealloc(
					rd->p->counter_caps, rd->p->cap_counters *
					sizeof(*rd->p->counter_caps));
			}
			k = m->ncounters++;
			ctr = &m->counters[k];
			*ctr = (struct fxtr_counter){ .pid = pid, .name = name };
			rd->p->counter_caps[k] = 0;
		}
		PUSH(ctr->samples, ctr->nsamples, rd->p->counter_caps[k]);
		ctr->samples[ctr->nsamples++] =
			(struct fxtr_sample){ .ts = ts, .value = v };
	}
}

static struct async_state *async_state(struct rd *rd, uint64_t id)
{
	struct priv *p = rd->p;
	size_t *idx = map_find(&p->async_map, id, 0);

	if (idx)
		return &p->astates[*idx];
	PUSH(p->astates, p->nastates, p->cap_astates);
	memset(&p->astates[p->nastates], 0, sizeof(p->astates[0]));
	map_set(&p->async_map, id, 0, p->nastates);
	return &p->astates[p->nastates++];
}

/* Perfetto treats an empty category or name as matching anything. */
static bool async_matches(const struct fxtr_async *a,
			  const struct fxtr_record *end)
{
	return (!*end->category || !strcmp(a->category, end->category)) &&
	       (!*end->name || !*a->name || !strcmp(a->name, end->name));
}

static void replay_async(struct rd *rd, size_t recno, int64_t ts)
{
	struct fxtr_model *m = rd->m;
	const struct fxtr_record *r = &m->records[recno];
	struct async_state *as = async_state(rd, r->extra);
	struct fxtr_async *a;
	size_t k;

	switch (r->subtype) {
	case FXTR_EV_ASYNC_BEGIN:
	case FXTR_EV_ASYNC_INSTANT:
		if (r->subtype == FXTR_EV_ASYNC_BEGIN && as->used &&
		    !as->nopen)
			issue(rd, FXTR_ISSUE_ASYNC_ID_REUSED, recno,
			      "async id %" PRIu64 " is used again after it "
			      "ended", r->extra);
		if (r->subtype == FXTR_EV_ASYNC_INSTANT && !as->nopen)
			issue(rd, FXTR_ISSUE_ASYNC_INSTANT_OUTSIDE, recno,
			      "async instant \"%s\" outside an open async "
			      "slice of id %" PRIu64, r->name, r->extra);
		PUSH(m->asyncs, m->nasyncs, rd->p->cap_asyncs);
		a = &m->asyncs[m->nasyncs];
		*a = (struct fxtr_async){
			.id = r->extra, .pid = r->pid, .tid = r->tid,
			.category = r->category, .name = r->name, .ts = ts,
			.dur = r->subtype == FXTR_EV_ASYNC_BEGIN ? PENDING : 0,
			.depth = (unsigned)as->nopen, .begin_record = recno,
			.end_record = FXTR_NONE,
		};
		as->used = true;
		if (r->subtype == FXTR_EV_ASYNC_BEGIN) {
			PUSH(as->open, as->nopen, as->cap);
			as->open[as->nopen++] = m->nasyncs;
		}
		m->nasyncs++;
		return;
	default:
		for (k = as->nopen; k-- > 0;)
			if (async_matches(&m->asyncs[as->open[k]], r))
				break;
		if (k == (size_t)-1) {
			if (as->nopen)
				issue(rd, FXTR_ISSUE_ASYNC_NAME_MISMATCH, recno,
				      "async end \"%s\" of id %" PRIu64 ": its "
				      "category/name differ from the open "
				      "begin \"%s\"", r->name, r->extra,
				      m->asyncs[as->open[as->nopen - 1]].name);
			else
				issue(rd, FXTR_ISSUE_ASYNC_UNMATCHED_END, recno,
				      "async end \"%s\" of id %" PRIu64 " with "
				      "no open begin", r->name, r->extra);
			return;
		}
		a = &m->asyncs[as->open[k]];
		a->dur = ts - a->ts;
		a->end_record = recno;
		memmove(&as->open[k], &as->open[k + 1],
			(as->nopen - k - 1) * sizeof(as->open[0]));
		as->nopen--;
		return;
	}
}

static void replay_flow(struct rd *rd, size_t t, size_t recno, int64_t ts)
{
	struct fxtr_model *m = rd->m;
	struct priv *p = rd->p;
	const struct fxtr_record *r = &m->records[recno];
	struct thread_state *st = tstate(rd, t);
	uint64_t id = r->extra;
	size_t *fi = map_find(&p->flow_map, id, 0);
	struct fxtr_flow *f = fi ? &m->flows[*fi] : NULL;
	const char *kind = r->subtype == FXTR_EV_FLOW_BEGIN ? "begin" :
			   r->subtype == FXTR_EV_FLOW_STEP ? "step" : "end";
	struct fxtr_slice *s;
	size_t top;

	/* FlowTracker: the enclosing slice is checked first. */
	if (!st->depth) {
		issue(rd, FXTR_ISSUE_FLOW_NO_ENCLOSING, recno,
		      "flow %s of id %" PRIu64 " at %" PRId64 " on %" PRIu64
		      "/%" PRIu64 " has no enclosing slice: Perfetto drops it",
		      kind, id, ts, m->threads[t].pid, m->threads[t].tid);
		return;
	}
	top = st->stack[st->depth - 1];
	s = &m->slices[top];

	if (r->subtype == FXTR_EV_FLOW_BEGIN) {
		if (f && !f->ended) {
			issue(rd, FXTR_ISSUE_FLOW_DUPLICATE, recno,
			      "flow begin of id %" PRIu64 " while that id is "
			      "still active: Perfetto ignores it", id);
			return;
		}
		if (f)
			issue(rd, FXTR_ISSUE_FLOW_ID_REUSED, recno,
			      "flow id %" PRIu64 " is begun again after it "
			      "ended", id);
		size_t old_cap = p->cap_flows;

		PUSH(m->flows, m->nflows, p->cap_flows);
		if (old_cap != p->cap_flows)
			p->flow_caps = xrealloc(p->flow_caps, p->cap_flows *
						sizeof(*p->flow_caps));
		p->flow_caps[m->nflows] = 0;
		m->flows[m->nflows] = (struct fxtr_flow){ .id = id };
		map_set(&p->flow_map, id, 0, m->nflows);
		f = &m->flows[m->nflows++];
	} else if (!f || f->ended) {
		issue(rd, r->subtype == FXTR_EV_FLOW_STEP ?
		      FXTR_ISSUE_FLOW_STEP_WITHOUT_BEGIN :
		      FXTR_ISSUE_FLOW_END_WITHOUT_BEGIN, recno,
		      "flow %s of id %" PRIu64 " with no active flow: Perfetto "
		      "drops it", kind, id);
		return;
	} else {
		f->arrows++;
		m->arrows++;
		if (r->subtype == FXTR_EV_FLOW_END)
			f->ended = true;
	}

	if (!(s->ts <= ts && (s->dur == PENDING || ts <= s->ts + s->dur)))
		issue(rd, FXTR_ISSUE_FLOW_STALE_BINDING, recno,
		      "flow %s of id %" PRIu64 " at %" PRId64 " binds to \"%s\" "
		      "[%" PRId64 ", %" PRId64 "], which does not enclose it",
		      kind, id, ts, s->name, s->ts, s->ts + s->dur);
	s->nflows++;
	PUSH(f->points, f->npoints, p->flow_caps[f - m->flows]);
	f->points[f->npoints++] = (struct fxtr_flow_point){
		.record = recno, .type = (enum fxtr_event_type)r->subtype,
		.ts = ts, .slice = top,
	};
}

static void check_uint64_args(struct rd *rd, size_t recno)
{
	const struct fxtr_record *r = &rd->m->records[recno];

	for (unsigned i = 0; i < r->nargs; i++)
		if (r->args[i].type == FXTR_ARG_UINT64 &&
		    r->args[i].u > INT64_MAX)
			issue(rd, FXTR_ISSUE_UINT64_NEGATIVE, recno,
			      "argument \"%s\" = %" PRIu64 " shows as negative "
			      "in Perfetto", r->args[i].name, r->args[i].u);
}

/* qsort has no context argument; the reader is not used concurrently. */
static const struct fxtr_model *sort_model;

/* Perfetto's sorter: timestamp, then push (file) order. */
static int cmp_event(const void *a, const void *b)
{
	const struct fxtr_model *m = sort_model;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t tx = m->records[x].ts_ns, ty = m->records[y].ts_ns;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void replay(struct rd *rd)
{
	struct fxtr_model *m = rd->m;
	size_t *order = xcalloc(m->nrecords, sizeof(*order));
	size_t n = 0;

	for (size_t i = 0; i < m->nrecords; i++)
		if (m->records[i].type == FXTR_REC_EVENT &&
		    m->records[i].ts_ns <= INT64_MAX &&
		    (m->records[i].subtype != FXTR_EV_COMPLETE ||
		     m->records[i].end_ns <= INT64_MAX))
			order[n++] = i;
	sort_model = m;
	qsort(order, n, sizeof(*order), cmp_event);

	for (size_t i = 0; i < n; i++) {
		size_t recno = order[i];
		const struct fxtr_record *r = &m->records[recno];
		int64_t ts = (int64_t)r->ts_ns;
		size_t t = FXTR_NONE;

		if (r->subtype != FXTR_EV_COUNTER) {
			t = thread_index(rd, r->pid, r->tid);
			m->threads[t].nevents++;
		}
		if (r->subtype != FXTR_EV_COUNTER &&
		    r->subtype < FXTR_EV_FLOW_BEGIN)
			check_uint64_args(rd, recno);
		process_entry(rd, r->pid);

		switch (r->subtype) {
		case FXTR_EV_INSTANT:
			replay_scoped(rd, t, recno, ts, 0, FXTR_SLICE_INSTANT);
			break;
		case FXTR_EV_COUNTER:
			replay_counter(rd, recno, ts);
			break;
		case FXTR_EV_BEGIN:
			replay_begin(rd, t, recno, ts);
			break;
		case FXTR_EV_END:
			replay_end(rd, t, recno, ts);
			break;
		case FXTR_EV_COMPLETE:
			if (r->end_ns < r->ts_ns) {
				issue(rd, FXTR_ISSUE_NEGATIVE_DURATION, recno,
				      "complete \"%s\" ends (%" PRIu64 ") before "
				      "it begins (%" PRIu64 "): Perfetto drops "
				      "it", r->name, r->end_ns, r->ts_ns);
				break;
			}
			replay_scoped(rd, t, recno, ts,
				      (int64_t)(r->end_ns - r->ts_ns),
				      FXTR_SLICE_COMPLETE);
			break;
		case FXTR_EV_ASYNC_BEGIN:
		case FXTR_EV_ASYNC_INSTANT:
		case FXTR_EV_ASYNC_END:
			replay_async(rd, recno, ts);
			break;
		default:
			replay_flow(rd, t, recno, ts);
			break;
		}
	}
	free(order);
}

/* What can only be judged once everything was seen. */
static void final_checks(struct rd *rd)
{
	struct fxtr_model *m = rd->m;
	struct priv *p = rd->p;

	for (size_t i = 0; i < m->nslices; i++)
		if (m->slices[i].dur == PENDING)
			issue(rd, FXTR_ISSUE_UNMATCHED_BEGIN,
			      m->slices[i].begin_record,
			      "begin \"%s\" at %" PRId64 " on %" PRIu64 "/%"
			      PRIu64 " never ends", m->slices[i].name,
			      m->slices[i].ts, m->slices[i].pid,
			      m->slices[i].tid);
	for (size_t i = 0; i < m->nflows; i++)
		if (!m->flows[i].ended)
			issue(rd, FXTR_ISSUE_FLOW_UNTERMINATED,
			      m->flows[i].points[0].record,
			      "flow %" PRIu64 " is never ended", m->flows[i].id);
	for (size_t i = 0; i < m->nasyncs; i++)
		if (m->asyncs[i].dur == PENDING)
			issue(rd, FXTR_ISSUE_ASYNC_UNMATCHED_BEGIN,
			      m->asyncs[i].begin_record,
			      "async begin \"%s\" of id %" PRIu64 " never ends",
			      m->asyncs[i].name, m->asyncs[i].id);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct fxtr_thread *t = &m->threads[i];

		if (!t->nevents)
			continue;
		if (!t->name)
			issue(rd, FXTR_ISSUE_UNNAMED_THREAD, FXTR_NONE,
			      "thread %" PRIu64 "/%" PRIu64 " has events but no "
			      "kernel object naming it", t->pid, t->tid);
		for (size_t j = 0; j < m->nthreads; j++)
			if (j != i && m->threads[j].tid == t->tid &&
			    m->threads[j].pid != t->pid &&
			    m->threads[j].name && !m->threads[j].nevents)
				issue(rd, FXTR_ISSUE_THREAD_PID_MISMATCH,
				      FXTR_NONE,
				      "events use %" PRIu64 "/%" PRIu64 " but "
				      "the kernel object names tid %" PRIu64
				      " in process %" PRIu64 ": Perfetto shows "
				      "two threads", t->pid, t->tid, t->tid,
				      m->threads[j].pid);
	}
	for (size_t i = 0; i < m->nprocesses; i++)
		if (!m->processes[i].name)
			issue(rd, FXTR_ISSUE_UNNAMED_PROCESS, FXTR_NONE,
			      "process %" PRIu64 " has events but no kernel "
			      "object naming it", m->processes[i].pid);
	(void)p;
}

/* ------------------------------------------------------------ public */

static void free_priv(struct fxtr_model *m)
{
	struct priv *p = m->priv;

	if (!p)
		return;
	while (p->chunks) {
		struct chunk *next = p->chunks->next;

		free(p->chunks);
		p->chunks = next;
	}
	for (size_t i = 0; i < p->nproviders; i++)
		free_provider(p->providers[i]);
	free(p->providers);
	free(p->thread_map.e);
	free(p->flow_map.e);
	free(p->async_map.e);
	for (size_t i = 0; i < m->nthreads && p->tstates; i++)
		free(p->tstates[i].stack);
	free(p->tstates);
	for (size_t i = 0; i < p->nastates; i++)
		free(p->astates[i].open);
	free(p->astates);
	free(p->flow_caps);
	free(p->counter_caps);
	free(p);
	m->priv = NULL;
}

void fxtr_free(struct fxtr_model *m)
{
	if (!m)
		return;
	free_priv(m);
	for (size_t i = 0; i < m->ncounters; i++) {
		free(m->counters[i].name);
		free(m->counters[i].samples);
	}
	for (size_t i = 0; i < m->nflows; i++)
		free(m->flows[i].points);
	free(m->records);
	free(m->processes);
	free(m->threads);
	free(m->slices);
	free(m->counters);
	free(m->asyncs);
	free(m->flows);
	free(m->issues);
	free(m);
}

int fxtr_read(const void *data, size_t size, struct fxtr_model **out,
	      char *err, size_t errsz)
{
	struct fxtr_model *m = xcalloc(1, sizeof(*m));
	struct rd rd = {
		.data = data, .size = size, .m = m, .err = err, .errsz = errsz,
	};

	*out = NULL;
	if (errsz)
		err[0] = 0;
	rd.p = m->priv = xcalloc(1, sizeof(*rd.p));
	new_provider(&rd, 0);	/* implicit provider 0 */

	if (!read_records(&rd)) {
		fxtr_free(m);
		return -1;
	}
	replay(&rd);
	final_checks(&rd);
	/* The string arena stays alive with the model; tables go. */
	for (size_t i = 0; i < rd.p->nproviders; i++)
		free_provider(rd.p->providers[i]);
	rd.p->nproviders = 0;
	*out = m;
	return 0;
}

int fxtr_read_file(const char *path, struct fxtr_model **out,
		   char *err, size_t errsz)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");
	int rc;

	*out = NULL;
	if (!f) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errsz, "%s: read error", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	rc = fxtr_read(buf, len, out, err, errsz);
	if (rc && errsz) {
		size_t plen = strlen(path) + 2;
		size_t elen = strlen(err);

		if (plen + elen < errsz) {
			memmove(err + plen, err, elen + 1);
			memcpy(err, path, plen - 2);
			memcpy(err + plen - 2, ": ", 2);
		}
	}
	free(buf);
	return rc;
}

const char *fxtr_issue_name(enum fxtr_issue_kind kind)
{
	static const char *const names[FXTR_ISSUE_KINDS] = {
		[FXTR_ISSUE_IGNORED_RECORD] = "ignored_record",
		[FXTR_ISSUE_TICKS_NOT_NS] = "ticks_not_ns",
		[FXTR_ISSUE_TIMESTAMP_RANGE] = "timestamp_range",
		[FXTR_ISSUE_BAD_UTF8] = "bad_utf8",
		[FXTR_ISSUE_KOID_OVER_32_BITS] = "koid_over_32_bits",
		[FXTR_ISSUE_PID_TID_ZERO] = "pid_tid_zero",
		[FXTR_ISSUE_THREAD_NO_PROCESS] = "thread_no_process",
		[FXTR_ISSUE_THREAD_PROCESS_TYPE] = "thread_process_type",
		[FXTR_ISSUE_THREAD_PID_MISMATCH] = "thread_pid_mismatch",
		[FXTR_ISSUE_UNNAMED_THREAD] = "unnamed_thread",
		[FXTR_ISSUE_UNNAMED_PROCESS] = "unnamed_process",
		[FXTR_ISSUE_UNMATCHED_BEGIN] = "unmatched_begin",
		[FXTR_ISSUE_UNMATCHED_END] = "unmatched_end",
		[FXTR_ISSUE_MISPLACED_END] = "misplaced_end",
		[FXTR_ISSUE_PARTIAL_OVERLAP] = "partial_overlap",
		[FXTR_ISSUE_NEGATIVE_DURATION] = "negative_duration",
		[FXTR_ISSUE_MAX_DEPTH] = "max_depth",
		[FXTR_ISSUE_COUNTER_NON_NUMERIC] = "counter_non_numeric",
		[FXTR_ISSUE_UINT64_NEGATIVE] = "uint64_negative",
		[FXTR_ISSUE_ASYNC_UNMATCHED_BEGIN] = "async_unmatched_begin",
		[FXTR_ISSUE_ASYNC_UNMATCHED_END] = "async_unmatched_end",
		[FXTR_ISSUE_ASYNC_NAME_MISMATCH] = "async_name_mismatch",
		[FXTR_ISSUE_ASYNC_ID_REUSED] = "async_id_reused",
		[FXTR_ISSUE_ASYNC_INSTANT_OUTSIDE] = "async_instant_outside",
		[FXTR_ISSUE_FLOW_NO_ENCLOSING] = "flow_no_enclosing_slice",
		[FXTR_ISSUE_FLOW_STALE_BINDING] = "flow_stale_binding",
		[FXTR_ISSUE_FLOW_DUPLICATE] = "flow_duplicate_id",
		[FXTR_ISSUE_FLOW_ID_REUSED] = "flow_id_reused",
		[FXTR_ISSUE_FLOW_STEP_WITHOUT_BEGIN] = "flow_step_without_begin",
		[FXTR_ISSUE_FLOW_END_WITHOUT_BEGIN] = "flow_end_without_begin",
		[FXTR_ISSUE_FLOW_UNTERMINATED] = "flow_unterminated",
	};

	return (unsigned)kind < FXTR_ISSUE_KINDS && names[kind] ?
	       names[kind] : "unknown";
}

void fxtr_print_issues(const struct fxtr_model *m, FILE *f)
{
	for (size_t i = 0; i < m->nissues_kept; i++) {
		const struct fxtr_issue *is = &m->issues[i];

		if (is->record == FXTR_NONE)
			fprintf(f, "%s: %s\n", fxtr_issue_name(is->kind),
				is->message);
		else
			fprintf(f, "%s: record %zu: %s\n",
				fxtr_issue_name(is->kind), is->record,
				is->message);
	}
	if (m->nissues > m->nissues_kept)
		fprintf(f, "... and %zu more\n", m->nissues - m->nissues_kept);
}

const struct fxtr_process *fxtr_find_process(const struct fxtr_model *m,
					     uint64_t pid)
{
	for (size_t i = 0; i < m->nprocesses; i++)
		if (m->processes[i].pid == pid)
			return &m->processes[i];
	return NULL;
}

const struct fxtr_thread *fxtr_find_thread(const struct fxtr_model *m,
					   uint64_t pid, uint64_t tid)
{
	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].pid == pid && m->threads[i].tid == tid)
			return &m->threads[i];
	return NULL;
}

const struct fxtr_slice *fxtr_find_slice(const struct fxtr_model *m,
					 uint64_t pid, uint64_t tid,
					 const char *name, size_t nth)
{
	for (size_t i = 0; i < m->nslices; i++) {
		const struct fxtr_slice *s = &m->slices[i];

		if (s->pid == pid && s->tid == tid && !strcmp(s->name, name) &&
		    nth-- == 0)
			return s;
	}
	return NULL;
}

size_t fxtr_count_slices(const struct fxtr_model *m, uint64_t pid,
			 uint64_t tid, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nslices; i++)
		if (m->slices[i].pid == pid && m->slices[i].tid == tid &&
		    (!name || !strcmp(m->slices[i].name, name)))
			n++;
	return n;
}

const struct fxtr_counter *fxtr_find_counter(const struct fxtr_model *m,
					     uint64_t pid, const char *name)
{
	for (size_t i = 0; i < m->ncounters; i++)
		if (m->counters[i].pid == pid &&
		    !strcmp(m->counters[i].name, name))
			return &m->counters[i];
	return NULL;
}

const struct fxtr_flow *fxtr_find_flow(const struct fxtr_model *m,
				       uint64_t id)
{
	for (size_t i = m->nflows; i-- > 0;)
		if (m->flows[i].id == id)
			return &m->flows[i];
	return NULL;
}

const struct fxtr_async *fxtr_find_async(const struct fxtr_model *m,
					 uint64_t id, const char *name)
{
	for (size_t i = 0; i < m->nasyncs; i++)
		if (m->asyncs[i].id == id && !strcmp(m->asyncs[i].name, name))
			return &m->asyncs[i];
	return NULL;
}

const struct fxtr_arg *fxtr_find_arg(const struct fxtr_arg *args,
				     unsigned nargs, const char *name)
{
	for (unsigned i = 0; i < nargs; i++)
		if (!strcmp(args[i].name, name))
			return &args[i];
	return NULL;
}

const struct fxtr_arg *fxtr_record_arg(const struct fxtr_record *r,
				       const char *name)
{
	return fxtr_find_arg(r->args, r->nargs, name);
}

const struct fxtr_arg *fxtr_slice_arg(const struct fxtr_model *m,
				      const struct fxtr_slice *s,
				      const char *name)
{
	const struct fxtr_arg *a;

	a = fxtr_record_arg(&m->records[s->begin_record], name);
	if (!a && s->end_record != FXTR_NONE)
		a = fxtr_record_arg(&m->records[s->end_record], name);
	return a;
}
