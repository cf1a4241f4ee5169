// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---------------------------------------------------------------- writer */

void json_out_init(struct json_out *o, bool pretty)
{
	memset(o, 0, sizeof(*o));
	o->pretty = pretty;
	o->first[0] = true;
}

void json_out_free(struct json_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

char *json_out_steal(struct json_out *o, size_t *len)
{
	char *text;

	if (o->failed || o->depth != 0) {
		json_out_free(o);
		return NULL;
	}
	text = o->buf ? o->buf : strdup("");
	if (len)
		*len = o->buf ? o->len : 0;
	o->buf = NULL;
	o->len = o->cap = 0;
	return text;
}

static void out_bytes(struct json_out *o, const char *s, size_t n)
{
	if (o->failed)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		char *buf;

		while (cap < o->len + n + 1)
			cap *= 2;
		buf = realloc(o->buf, cap);
		if (!buf) {
			o->failed = true;
			return;
		}
		o->buf = buf;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void out_printf(struct json_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct json_out *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		o->failed = true;
		return;
	}
	out_bytes(o, tmp, (size_t)n);
}

static void out_newline(struct json_out *o)
{
	if (!o->pretty)
		return;
	out_bytes(o, "\n", 1);
	for (int i = 0; i < o->depth; i++)
		out_bytes(o, "  ", 2);
}

/* Separator and indentation before a value or key at the current depth. */
static void before_item(struct json_out *o)
{
	if (o->after_key) {
		o->after_key = false;
		return;
	}
	if (o->depth > 0) {
		if (!o->first[o->depth])
			out_bytes(o, ",", 1);
		out_newline(o);
	}
	o->first[o->depth] = false;
}

static void open_container(struct json_out *o, char c)
{
	before_item(o);
	out_bytes(o, &c, 1);
	if (o->depth + 1 >= JSON_MAX_DEPTH) {
		o->failed = true;
		return;
	}
	o->depth++;
	o->first[o->depth] = true;
}

static void close_container(struct json_out *o, char c)
{
	bool empty;

	if (o->depth <= 0 || o->after_key) {
		o->failed = true;
		return;
	}
	empty = o->first[o->depth];
	o->depth--;
	if (!empty)
		out_newline(o);
	out_bytes(o, &c, 1);
}

void json_obj_begin(struct json_out *o) { open_container(o, '{'); }
void json_obj_end(struct json_out *o) { close_container(o, '}'); }
void json_arr_begin(struct json_out *o) { open_container(o, '['); }
void json_arr_end(struct json_out *o) { close_container(o, ']'); }

static void out_string(struct json_out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t start = 0;

	out_bytes(o, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		const char *rep = NULL;
		size_t rlen = 2;

		switch (c) {
		case '"': rep = "\\\""; break;
		case '\\': rep = "\\\\"; break;
		case '\n': rep = "\\n"; break;
		case '\r': rep = "\\r"; break;
		case '\t': rep = "\\t"; break;
		case '\b': rep = "\\b"; break;
		case '\f': rep = "\\f"; break;
		default:
			if (c >= 0x20 && c != 0x7f)
				continue;
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			rep = esc;
			rlen = 6;
		}
		out_bytes(o, s + start, i - start);
		out_bytes(o, rep, rlen);
		start = i + 1;
	}
	out_bytes(o, s + start, n - start);
	out_bytes(o, "\"", 1);
}

void json_key(struct json_out *o, const char *key)
{
	before_item(o);
	out_string(o, key, strlen(key));
	out_bytes(o, o->pretty ? ": " : ":", o->pretty ? 2 : 1);
	o->after_key = true;
}

void json_strn(struct json_out *o, const char *s, size_t n)
{
	before_item(o);
	out_string(o, s, n);
}

void json_str(struct json_out *o, const char *s)
{
	if (!s) {
		json_null(o);
		return;
	}
	json_strn(o, s, strlen(s));
}

void json_i64(struct json_out *o, int64_t v)
{
	before_item(o);
	out_printf(o, "%" PRId64, v);
}

void json_u64(struct json_out *o, uint64_t v)
{
	before_item(o);
	out_printf(o, "%" PRIu64, v);
}

void json_double(struct json_out *o, double v)
{
	if (!isfinite(v)) {
		json_null(o);
		return;
	}
	before_item(o);
	out_printf(o, "%.17g", v);
}

void json_bool(struct json_out *o, bool v)
{
	before_item(o);
	out_bytes(o, v ? "true" : "false", v ? 4 : 5);
}

void json_null(struct json_out *o)
{
	before_item(o);
	out_bytes(o, "null", 4);
}

/* ---------------------------------------------------------------- parser */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

static void *arena_alloc(void **arena, size_t n)
{
	struct arena_chunk *c = *arena;
	size_t align = sizeof(max_align_t);

	n = (n + align - 1) / align * align;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *arena;
		c->used = 0;
		c->cap = cap;
		*arena = c;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

static void arena_free(void *arena)
{
	struct arena_chunk *c = arena;

	while (c) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
}

struct parser {
	const char *p, *start, *end;
	void *arena;
	char *err;
	size_t errlen;
	bool failed;
};

static void perr(struct parser *ps, const char *what)
{
	if (ps->failed)
		return;
	ps->failed = true;
	snprintf(ps->err, ps->errlen, "JSON offset %zu: %s",
		 (size_t)(ps->p - ps->start), what);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;

	if (ps->end - ps->p < 4) {
		perr(ps, "truncated \\u escape");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		int h = hexval(ps->p[i]);

		if (h < 0) {
			perr(ps, "bad \\u escape");
			return -1;
		}
		v = v << 4 | (unsigned)h;
	}
	ps->p += 4;
	*out = v;
	return 0;
}

static size_t put_utf8(char *dst, unsigned cp)
{
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xc0 | cp >> 6);
		dst[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xe0 | cp >> 12);
		dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		dst[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	dst[0] = (char)(0xf0 | cp >> 18);
	dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	dst[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* ps->p is just past the opening quote. */
static char *parse_string(struct parser *ps, size_t *len)
{
	const char *q = ps->p;
	char *out;
	size_t n = 0;

	/* The decoded string is never longer than the quoted text. */
	while (q < ps->end && *q != '"') {
		if (*q == '\\' && q + 1 < ps->end)
			q++;
		q++;
	}
	if (q >= ps->end) {
		perr(ps, "unterminated string");
		return NULL;
	}
	out = arena_alloc(&ps->arena, (size_t)(q - ps->p) + 1);
	if (!out) {
		perr(ps, "out of memory");
		return NULL;
	}
	while (*ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		unsigned cp, lo;

		if (c < 0x20) {
			ps->p--;
			perr(ps, "control character in string");
			return NULL;
		}
		if (c != '\\') {
			out[n++] = (char)c;
			continue;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': out[n++] = '"'; break;
		case '\\': out[n++] = '\\'; break;
		case '/': out[n++] = '/'; break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u':
			if (parse_hex4(ps, &cp))
				return NULL;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
					perr(ps, "unpaired surrogate");
					return NULL;
				}
				ps->p += 2;
				if (parse_hex4(ps, &lo))
					return NULL;
				if (lo < 0xdc00 || lo >= 0xe000) {
					perr(ps, "bad low surrogate");
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				perr(ps, "unpaired surrogate");
				return NULL;
			}
			/* \uXXXX takes 6 bytes of input for at most 3 of output
			 * (4 for a 12-byte surrogate pair), so out stays in bounds. */
			n += put_utf8(out + n, cp);
			break;
		default:
			ps->p--;
			perr(ps, "bad escape");
			return NULL;
		}
	}
	ps->p++;
	out[n] = '\0';
	*len = n;
	return out;
}

static int parse_number(struct parser *ps, struct json_value *v)
{
	const char *s = ps->p;
	char buf[64];
	size_t n;

	v->type = JSON_NUMBER;
	v->is_integer = true;
	if (ps->p < ps->end && *ps->p == '-') {
		v->is_negative = true;
		ps->p++;
	}
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
		perr(ps, "bad number");
		return -1;
	}
	if (*ps->p == '0' && ps->p + 1 < ps->end && ps->p[1] >= '0' && ps->p[1] <= '9') {
		perr(ps, "leading zero in number");
		return -1;
	}
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		unsigned d = (unsigned)(*ps->p - '0');

		if (v->magnitude > (UINT64_MAX - d) / 10)
			v->magnitude_overflow = true;
		else
			v->magnitude = v->magnitude * 10 + d;
		ps->p++;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		v->is_integer = false;
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			perr(ps, "bad fraction");
			return -1;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		v->is_integer = false;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
			perr(ps, "bad exponent");
			return -1;
		}
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	n = (size_t)(ps->p - s);
	if (n >= sizeof(buf)) {
		v->number = v->is_negative ? -HUGE_VAL : HUGE_VAL;
		return 0;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	v->number = strtod(buf, NULL);
	return 0;
}

static int parse_value(struct parser *ps, struct json_value *v, int depth);

/* Grows a temporary malloc'd vector, then moves it into the arena. */
struct vec {
	struct json_value *items;
	char **keys;
	size_t n, cap;
};

static int vec_push(struct parser *ps, struct vec *vec, bool with_keys)
{
	if (vec->n == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 8;
		struct json_value *items = realloc(vec->items, cap * sizeof(*items));

		if (!items) {
			perr(ps, "out of memory");
			return -1;
		}
		vec->items = items;
		if (with_keys) {
			char **keys = realloc(vec->keys, cap * sizeof(*keys));

			if (!keys) {
				perr(ps, "out of memory");
				return -1;
			}
			vec->keys = keys;
		}
		vec->cap = cap;
	}
	memset(&vec->items[vec->n], 0, sizeof(vec->items[0]));
	vec->n++;
	return 0;
}

static int vec_finish(struct parser *ps, struct vec *vec, struct json_value *v,
		      bool with_keys)
{
	int ret = 0;

	v->len = vec->n;
	if (vec->n) {
		v->items = arena_alloc(&ps->arena, vec->n * sizeof(*v->items));
		if (!v->items) {
			perr(ps, "out of memory");
			ret = -1;
			goto out;
		}
		memcpy(v->items, vec->items, vec->n * sizeof(*v->items));
		if (with_keys) {
			v->keys = arena_alloc(&ps->arena, vec->n * sizeof(*v->keys));
			if (!v->keys) {
				perr(ps, "out of memory");
				ret = -1;
				goto out;
			}
			memcpy(v->keys, vec->keys, vec->n * sizeof(*v->keys));
		}
	}
out:
	free(vec->items);
	free(vec->keys);
	return ret;
}

static int parse_container(struct parser *ps, struct json_value *v, int depth,
			   bool object)
{
	struct vec vec = { 0 };
	char close = object ? '}' : ']';

	v->type = object ? JSON_OBJECT : JSON_ARRAY;
	if (depth >= JSON_MAX_DEPTH) {
		perr(ps, "nesting too deep");
		return -1;
	}
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return vec_finish(ps, &vec, v, object);
	}
	for (;;) {
		char *key = NULL;
		size_t klen;

		skip_ws(ps);
		if (object) {
			if (ps->p >= ps->end || *ps->p != '"') {
				perr(ps, "expected object key");
				goto fail;
			}
			ps->p++;
			key = parse_string(ps, &klen);
			if (!key)
				goto fail;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				perr(ps, "expected ':'");
				goto fail;
			}
			ps->p++;
		}
		if (vec_push(ps, &vec, object))
			goto fail;
		if (object)
			vec.keys[vec.n - 1] = key;
		if (parse_value(ps, &vec.items[vec.n - 1], depth + 1))
			goto fail;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return vec_finish(ps, &vec, v, object);
		}
		perr(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
		goto fail;
	}
fail:
	free(vec.items);
	free(vec.keys);
	return -1;
}

static int expect_word(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) {
		perr(ps, "unexpected token");
		return -1;
	}
	ps->p += n;
	return 0;
}

static int parse_value(struct parser *ps, struct json_value *v, int depth)
{
	skip_ws(ps);
	if (ps->p >= ps->end) {
		perr(ps, "unexpected end of text");
		return -1;
	}
	switch (*ps->p) {
	case '{':
		return parse_container(ps, v, depth, true);
	case '[':
		return parse_container(ps, v, depth, false);
	case '"':
		ps->p++;
		v->type = JSON_STRING;
		v->string = parse_string(ps, &v->len);
		return v->string ? 0 : -1;
	case 't':
		v->type = JSON_BOOL;
		v->boolean = true;
		return expect_word(ps, "true");
	case 'f':
		v->type = JSON_BOOL;
		return expect_word(ps, "false");
	case 'n':
		v->type = JSON_NULL;
		return expect_word(ps, "null");
	default:
		return parse_number(ps, v);
	}
}

int json_parse(const char *text, size_t len, struct json_doc *doc,
	       char *err, size_t errlen)
{
	char dummy[1];
	struct parser ps = {
		.p = text, .start = text, .end = text + len,
		.err = errlen ? err : dummy, .errlen = errlen ? errlen : 1,
	};

	memset(doc, 0, sizeof(*doc));
	if (parse_value(&ps, &doc->root, 0) == 0) {
		skip_ws(&ps);
		if (ps.p != ps.end)
			perr(&ps, "trailing characters after JSON value");
	}
	if (ps.failed) {
		arena_free(ps.arena);
		memset(doc, 0, sizeof(*doc));
		return -1;
	}
	doc->arena = ps.arena;
	return 0;
}

void json_doc_free(struct json_doc *doc)
{
	arena_free(doc->arena);
	memset(doc, 0, sizeof(*doc));
}

const struct json_value *json_get(const struct json_value *obj, const char *key)
{
	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->len; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const struct json_value *json_at(const struct json_value *arr, size_t i)
{
	if (!arr || arr->type != JSON_ARRAY || i >= arr->len)
		return NULL;
	return &arr->items[i];
}

const char *json_get_str(const struct json_value *obj, const char *key,
			 const char *fallback)
{
	const struct json_value *v = json_get(obj, key);

	return v && v->type == JSON_STRING ? v->string : fallback;
}

bool json_value_u64(const struct json_value *v, uint64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->is_integer ||
	    v->magnitude_overflow || (v->is_negative && v->magnitude))
		return false;
	*out = v->magnitude;
	return true;
}

bool json_value_i64(const struct json_value *v, int64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->is_integer || v->magnitude_overflow)
		return false;
	if (v->is_negative) {
		if (v->magnitude > (uint64_t)INT64_MAX + 1)
			return false;
		*out = v->magnitude == (uint64_t)INT64_MAX + 1 ?
		       INT64_MIN : -(int64_t)v->magnitude;
		return true;
	}
	if (v->magnitude > INT64_MAX)
		return false;
	*out = (int64_t)v->magnitude;
	return true;
}

bool json_get_u64(const struct json_value *obj, const char *key, uint64_t *out)
{
	return json_value_u64(json_get(obj, key), out);
}

bool json_get_i64(const struct json_value *obj, const char *key, int64_t *out)
{
	return json_value_i64(json_get(obj, key), out);
}

bool json_get_double(const struct json_value *obj, const char *key, double *out)
{
	const struct json_value *v = json_get(obj, key);

	if (!v || v->type != JSON_NUMBER || !isfinite(v->number))
		return false;
	*out = v->number;
	return true;
}
