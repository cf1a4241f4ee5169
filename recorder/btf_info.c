// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf_info.h"

int btf_tp_nargs(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[160];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t);
}

bool btf_has_func(const struct btf *btf, const char *func)
{
	return btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) > 0;
}

/* The enum type holding a constant named want, or NULL. */
static const struct btf_type *enum_with(const struct btf *btf, const char *want)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (__u16 i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off), want))
				return t;
	}
	return NULL;
}

bool btf_has_enum_value(const struct btf *btf, const char *name)
{
	return enum_with(btf, name) != NULL;
}

bool btf_opcode_names_json(const struct btf *btf, struct json_out *o)
{
	const struct btf_type *t = enum_with(btf, "IORING_OP_NOP");
	const struct btf_enum *e;
	const char **names;
	int max = -1;

	if (!t)
		return false;
	e = btf_enum(t);
	for (__u16 i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);

		if (strcmp(name, "IORING_OP_LAST") && e[i].val >= 0 && e[i].val < 1024 &&
		    e[i].val > max)
			max = e[i].val;
	}
	names = calloc((size_t)max + 1, sizeof(*names));
	if (!names)
		return false;
	for (__u16 i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);

		if (!strcmp(name, "IORING_OP_LAST") || e[i].val < 0 || e[i].val > max)
			continue;
		if (!strncmp(name, "IORING_OP_", 10))
			name += 10;
		names[e[i].val] = name;
	}
	json_arr_begin(o);
	for (int i = 0; i <= max; i++) {
		if (names[i])
			json_str(o, names[i]);
		else
			json_null(o);
	}
	json_arr_end(o);
	free(names);
	return true;
}

static void enum_json(const struct btf *btf, const struct btf_type *t, struct json_out *o)
{
	const struct btf_enum *e = btf_enum(t);

	json_obj_begin(o);
	for (__u16 i = 0; i < btf_vlen(t); i++)
		json_kv_i64(o, btf__name_by_offset(btf, e[i].name_off), e[i].val);
	json_obj_end(o);
}

int btf_kernel_enums_json(const struct btf *btf, struct json_out *o)
{
	static const struct {
		const char *key;
		const char *member;
	} wanted[] = {
		{ "req_flag_bits", "REQ_F_FORCE_ASYNC_BIT" },
		{ "io_uring_register_op", "IORING_REGISTER_BUFFERS" },
	};
	int found = 0;

	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		const struct btf_type *t = enum_with(btf, wanted[i].member);

		if (!t)
			continue;
		json_key(o, wanted[i].key);
		enum_json(btf, t, o);
		found++;
	}
	return found;
}
