/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal JSON: a writer that builds text in memory (log metadata, END
 * frames, uring-convert --format=json) and a strict, bounded DOM parser
 * (reading log metadata, which may come from a damaged or hostile file).
 */
#ifndef RINGSIDE_JSON_H
#define RINGSIDE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- writer ---- */

#define JSON_MAX_DEPTH 64

struct json_out {
	char *buf;
	size_t len, cap;
	int depth;
	bool pretty;
	bool failed;			/* out of memory or misuse; text invalid */
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this depth */
	bool after_key;
};

void json_out_init(struct json_out *o, bool pretty);
void json_out_free(struct json_out *o);
/* Takes ownership of the text (NUL-terminated); NULL if the writer failed. */
char *json_out_steal(struct json_out *o, size_t *len);

void json_obj_begin(struct json_out *o);
void json_obj_end(struct json_out *o);
void json_arr_begin(struct json_out *o);
void json_arr_end(struct json_out *o);
void json_key(struct json_out *o, const char *key);
void json_str(struct json_out *o, const char *s);
void json_strn(struct json_out *o, const char *s, size_t n);
void json_i64(struct json_out *o, int64_t v);
void json_u64(struct json_out *o, uint64_t v);
void json_double(struct json_out *o, double v);	/* non-finite -> null */
void json_bool(struct json_out *o, bool v);
void json_null(struct json_out *o);

static inline void json_kv_str(struct json_out *o, const char *k, const char *v)
{
	json_key(o, k);
	json_str(o, v);
}

static inline void json_kv_i64(struct json_out *o, const char *k, int64_t v)
{
	json_key(o, k);
	json_i64(o, v);
}

static inline void json_kv_u64(struct json_out *o, const char *k, uint64_t v)
{
	json_key(o, k);
	json_u64(o, v);
}

static inline void json_kv_bool(struct json_out *o, const char *k, bool v)
{
	json_key(o, k);
	json_bool(o, v);
}

static inline void json_kv_double(struct json_out *o, const char *k, double v)
{
	json_key(o, k);
	json_double(o, v);
}

/* ---- parser ---- */

enum json_type {
	JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT,
};

struct json_value {
	enum json_type type;
	bool boolean;
	bool is_integer;		/* number without fraction or exponent */
	bool is_negative;
	uint64_t magnitude;		/* |integer|, when is_integer and it fits */
	bool magnitude_overflow;
	double number;
	char *string;			/* NUL-terminated; may contain NULs (len) */
	size_t len;			/* string length, or element count */
	struct json_value *items;	/* array elements / object values */
	char **keys;			/* object keys (same order as items) */
};

struct json_doc {
	struct json_value root;
	void *arena;			/* all allocations, freed together */
};

/*
 * Parse text[0..len).  On failure returns -1 and writes a message naming the
 * byte offset into err (errlen bytes).  Limits: nesting depth
 * JSON_MAX_DEPTH, and memory proportional to len.
 */
int json_parse(const char *text, size_t len, struct json_doc *doc,
	       char *err, size_t errlen);
void json_doc_free(struct json_doc *doc);

/* Lookups return NULL (or the fallback) when absent or of another type. */
const struct json_value *json_get(const struct json_value *obj, const char *key);
const struct json_value *json_at(const struct json_value *arr, size_t i);
const char *json_get_str(const struct json_value *obj, const char *key,
			 const char *fallback);
bool json_get_u64(const struct json_value *obj, const char *key, uint64_t *out);
bool json_get_i64(const struct json_value *obj, const char *key, int64_t *out);
/* A finite number, integer or not. */
bool json_get_double(const struct json_value *obj, const char *key, double *out);
bool json_value_u64(const struct json_value *v, uint64_t *out);
bool json_value_i64(const struct json_value *v, int64_t *out);

#endif
