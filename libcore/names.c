// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "uring_names.h"

/* A name from a file is used only if it is a short plain identifier. */
static bool plain_identifier(const struct json_value *v)
{
	if (!v || v->type != JSON_STRING || v->len == 0 || v->len >= NAMES_MAX_LEN)
		return false;
	for (size_t i = 0; i < v->len; i++) {
		char c = v->string[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

static void load_opcodes(struct names *n, const struct json_value *meta)
{
	const struct json_value *list = json_get(json_get(meta, "opcodes"), "names");

	if (!list || list->type != JSON_ARRAY)
		return;
	for (size_t i = 0; i < list->len && i < NAMES_MAX_OPCODES; i++) {
		const struct json_value *v = json_at(list, i);

		if (!plain_identifier(v))
			continue;
		memcpy(n->opcode[i], v->string, v->len + 1);
		/* Some kernels name the enum IORING_OP_READ: keep "READ". */
		if (!strncmp(n->opcode[i], "IORING_OP_", 10))
			memmove(n->opcode[i], n->opcode[i] + 10, strlen(n->opcode[i] + 10) + 1);
		n->opcodes_from_log = true;
	}
	n->nopcodes = list->len < NAMES_MAX_OPCODES ? (unsigned)list->len : NAMES_MAX_OPCODES;
}

/*
 * kernel_enums: {enum: {CONSTANT: value}}.  REQ_F_*_BIT constants give bit
 * numbers (io_uring/io_uring_types.h, enum { REQ_F_FIXED_FILE_BIT, ... }).
 */
static void load_req_flags(struct names *n, const struct json_value *meta)
{
	const struct json_value *enums = json_get(meta, "kernel_enums");

	if (!enums || enums->type != JSON_OBJECT)
		return;
	for (size_t e = 0; e < enums->len; e++) {
		const struct json_value *consts = &enums->items[e];

		if (consts->type != JSON_OBJECT)
			continue;
		for (size_t i = 0; i < consts->len; i++) {
			const char *key = consts->keys[i];
			size_t klen = strlen(key);
			uint64_t bit;

			if (klen <= 10 || strncmp(key, "REQ_F_", 6) ||
			    strcmp(key + klen - 4, "_BIT") || klen - 10 >= NAMES_MAX_LEN)
				continue;
			if (!json_value_u64(&consts->items[i], &bit) || bit >= 64)
				continue;
			/* Skip markers such as REQ_F_LAST_BIT / __REQ_F_LAST_BIT. */
			if (!strcmp(key, "REQ_F_LAST_BIT"))
				continue;
			bool ok = true;

			for (size_t c = 6; c < klen - 4; c++) {
				char ch = key[c];

				if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
					ok = false;
			}
			if (!ok || n->req_flag[bit][0])
				continue;
			memcpy(n->req_flag[bit], key + 6, klen - 10);
			n->req_flag[bit][klen - 10] = '\0';
			n->req_flags_from_log = true;
		}
	}
}

static void load_off_zeroed(struct names *n, const struct json_value *meta)
{
	const struct json_value *list = json_get(json_get(meta, "options"),
						 "sqe_off_zeroed_for");
	char buf[NAMES_MAX_LEN];

	if (!list || list->type != JSON_ARRAY)
		return;
	for (size_t i = 0; i < list->len; i++) {
		const struct json_value *v = &list->items[i];

		if (v->type != JSON_STRING)
			continue;
		/* The names are the recording kernel's: match them against
		 * the same table opcodes are printed with. */
		for (unsigned op = 0; op < NAMES_MAX_OPCODES; op++)
			if (!strcmp(names_opcode(n, op, buf), v->string))
				n->off_zeroed[op] = true;
	}
}

void names_init(struct names *n, const struct json_value *meta)
{
	memset(n, 0, sizeof(*n));
	if (!meta)
		return;
	load_opcodes(n, meta);
	load_req_flags(n, meta);
	load_off_zeroed(n, meta);
}

bool names_off_known(const struct names *n, unsigned op)
{
	return !n || op >= NAMES_MAX_OPCODES || !n->off_zeroed[op];
}

const char *names_opcode(const struct names *n, unsigned op, char *buf)
{
	const char *name = NULL;

	if (n && op < NAMES_MAX_OPCODES && n->opcode[op][0])
		name = n->opcode[op];
	else if (!n || !n->opcodes_from_log || op >= n->nopcodes)
		name = uring_opcode_name(op);
	if (name)
		return name;
	snprintf(buf, NAMES_MAX_LEN, "OP_%u", op);
	return buf;
}

const char *names_errno(int64_t err, char *buf)
{
	/* The magnitude in unsigned: -INT64_MIN overflows (a damaged log's
	 * 64-bit result, found by fuzz_convert_csv). */
	uint64_t e = err < 0 ? -(uint64_t)err : (uint64_t)err;
	const char *name;

	if (e == 0)
		return "";
	name = e <= 4095 ? errno_name((int)e) : NULL;
	if (name)
		return name;
	snprintf(buf, NAMES_MAX_LEN, "E%" PRIu64, e);
	return buf;
}

char *names_req_flags(const struct names *n, uint64_t flags, char *buf, size_t len)
{
	size_t off = 0;
	uint64_t rest = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t mask = 1ull << bit;

		if (!(flags & mask))
			continue;
		if (!n || !n->req_flag[bit][0]) {
			rest |= mask;
			continue;
		}
		if (!flag_name_append(buf, len, &off, n->req_flag[bit]))
			return buf;
	}
	if (rest) {
		int w = snprintf(buf + off, len - off, "%s0x%" PRIx64, off ? "|" : "", rest);

		if (w < 0 || (size_t)w >= len - off)
			buf[off] = '\0';
	}
	return buf;
}
