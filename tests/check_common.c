// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The shared pieces under the log format: the event ABI table, JSON, CRC32C
 * and the name tables.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "event_layout.h"
#include "json.h"
#include "uring_names.h"
#include "test_util.h"

START_TEST(test_abi_table)
{
	size_t n;
	const struct ev_type_info *t = ev_types(&n);

	ck_assert_uint_ge(n, 30);
	for (size_t i = 0; i < n; i++) {
		unsigned end = 0;

		ck_assert_ptr_eq(ev_type_info(t[i].type), &t[i]);
		ck_assert_str_eq(ev_type_name(t[i].type), t[i].name);
		if (i)
			ck_assert_uint_gt(t[i].type, t[i - 1].type);
		/* The common header, at the same place in every type. */
		ck_assert_str_eq(t[i].fields[0].name, "ts");
		ck_assert_str_eq(t[i].fields[3].name, "type");
		ck_assert_uint_eq(t[i].fields[3].offset, 16);
		ck_assert_uint_eq(t[i].fields[5].offset, EV_HEADER_SIZE);
		for (size_t j = 0; j < t[i].nfields; j++) {
			const struct ev_field *f = &t[i].fields[j];

			ck_assert_uint_eq(f->offset, end);
			/* Natural alignment, so BPF and the converter can read
			 * fields in place. */
			if (f->kind != EVK_COMM && f->kind != EVK_STR)
				ck_assert_uint_eq(f->offset % f->size, 0);
			end += f->size;
			for (size_t k = 0; k < j; k++)
				ck_assert_str_ne(t[i].fields[k].name, f->name);
		}
		ck_assert_uint_eq(end, t[i].size);
	}
	ck_assert_ptr_null(ev_type_info(0));
	ck_assert_ptr_null(ev_type_info(63));
	ck_assert_str_eq(ev_type_name(63), "type-63");
	/* A few offsets the BPF side and the man page rely on. */
	ck_assert_uint_eq(ev_find_field(ev_type_info(EV_SUBMIT), "ring")->offset, 24);
	ck_assert_uint_eq(ev_find_field(ev_type_info(EV_COMPLETE), "res")->offset, 20);
	ck_assert_uint_eq(ev_find_field(ev_type_info(EV_TASK), "comm")->offset, 32);
}
END_TEST

/* Fields whose validity flag is clear are unknown, whatever they hold. */
START_TEST(test_field_known)
{
	const struct ev_type_info *sub = ev_type_info(EV_SUBMIT);
	const struct ev_type_info *ent = ev_type_info(EV_ENTER_BEGIN);
	const struct ev_type_info *twr = ev_type_info(EV_TASK_WORK_RUN);
	const struct ev_type_info *set = ev_type_info(EV_SETUP_BEGIN);
	const struct ev_type_info *wend = ev_type_info(EV_WORK_END);
	struct ev_submit s = { .type = EV_SUBMIT };
	struct ev_enter_begin e = { .type = EV_ENTER_BEGIN };
	struct ev_task_work_run t = { .type = EV_TASK_WORK_RUN };
	struct ev_setup_begin p = { .type = EV_SETUP_BEGIN };
	struct ev_work_end w = { .type = EV_WORK_END };
	const struct ev_header *hs = (const void *)&s, *he = (const void *)&e;

	ck_assert(!ev_field_known(hs, ev_find_field(sub, "off")));
	ck_assert(!ev_field_known(hs, ev_find_field(sub, "personality")));
	ck_assert(ev_field_known(hs, ev_find_field(sub, "sqe_flags")));
	ck_assert(ev_field_known(hs, ev_find_field(sub, "user_data")));
	ck_assert(ev_field_known(hs, ev_find_field(sub, "ts")));
	s.flags = EVF_SQE_VALID;
	ck_assert(ev_field_known(hs, ev_find_field(sub, "off")));

	ck_assert(!ev_field_known(he, ev_find_field(ent, "ring")));
	ck_assert(!ev_field_known(he, ev_find_field(ent, "cq_tail")));
	ck_assert(ev_field_known(he, ev_find_field(ent, "to_submit")));
	e.flags = EVF_RING_VALID;
	ck_assert(ev_field_known(he, ev_find_field(ent, "ring")));
	ck_assert(!ev_field_known(he, ev_find_field(ent, "sq_order")));
	e.flags |= EVF_RING_STATE_VALID;
	ck_assert(ev_field_known(he, ev_find_field(ent, "sq_order")));

	ck_assert(!ev_field_known((const void *)&t, ev_find_field(twr, "loops")));
	ck_assert(ev_field_known((const void *)&t, ev_find_field(twr, "count")));
	t.flags = EVF_LOOPS_VALID;
	ck_assert(ev_field_known((const void *)&t, ev_find_field(twr, "loops")));
	ck_assert(!ev_field_known((const void *)&p, ev_find_field(set, "entries")));
	p.flags = EVF_PARAMS_VALID;
	ck_assert(ev_field_known((const void *)&p, ev_find_field(set, "entries")));
	ck_assert(ev_field_known((const void *)&w, ev_find_field(wend, "req")));
	w.flags = EVF_WORK_REQ_UNKNOWN;
	ck_assert(!ev_field_known((const void *)&w, ev_find_field(wend, "req")));
}
END_TEST

START_TEST(test_layout_json_identity)
{
	struct json_out o;
	struct json_doc doc;
	struct ev_layout_map map;
	char err[256];
	size_t len;
	char *text;

	json_out_init(&o, false);
	ev_layout_to_json(&o);
	text = json_out_steal(&o, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(json_parse(text, len, &doc, err, sizeof(err)), 0);
	ck_assert_msg(ev_layout_map_build(&map, &doc.root, err, sizeof(err)) == 0, "%s", err);
	for (unsigned t = 1; t < EV_TYPE_LIMIT; t++) {
		if (!ev_type_info(t)) {
			ck_assert(!map.types[t].present);
			continue;
		}
		ck_assert(map.types[t].present && map.types[t].known);
		ck_assert_msg(map.types[t].identity, "type %u not identity", t);
		ck_assert_uint_eq(map.types[t].missing_fields, 0);
	}
	ev_layout_map_free(&map);
	json_doc_free(&doc);
	free(text);
}
END_TEST

/* A layout whose fields share bytes is refused, naming both fields: the
 * reader rebuilds columns one field at a time. */
START_TEST(test_layout_overlap_refused)
{
	static const char text[] =
		"{\"header_size\":24,\"byte_order\":\"little\",\"types\":[{\"type\":1,"
		"\"name\":\"x\",\"size\":32,\"fields\":[[\"ts\",0,8,\"u64\"],"
		"[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],[\"type\",16,2,\"u16\"],"
		"[\"flags\",18,2,\"u16\"],[\"a\",24,4,\"u32\"],[\"b\",%u,4,\"u32\"]]}]}";
	static const struct {
		unsigned b_offset;
		bool ok;
	} cases[] = { { 28, true }, { 27, false }, { 24, false }, { 21, false }, { 20, true } };
	struct ev_layout_map map;
	struct json_doc doc;
	char buf[512], err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = snprintf(buf, sizeof(buf), text, cases[i].b_offset);

		ck_assert_int_eq(json_parse(buf, (size_t)n, &doc, err, sizeof(err)), 0);
		err[0] = '\0';
		if (cases[i].ok) {
			ck_assert_msg(ev_layout_map_build(&map, &doc.root, err, sizeof(err)) == 0,
				      "b at %u: %s", cases[i].b_offset, err);
			ev_layout_map_free(&map);
		} else {
			ck_assert_int_eq(ev_layout_map_build(&map, &doc.root, err, sizeof(err)), -1);
			ck_assert_msg(strstr(err, "overlap") && strstr(err, " b "),
				      "b at %u: %s", cases[i].b_offset, err);
		}
		json_doc_free(&doc);
	}
}
END_TEST

START_TEST(test_json_parse)
{
	static const char text[] =
		" {\"a\": [1, -2, 3.5, 1e3, true, false, null],"
		" \"s\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\","
		" \"big\": 18446744073709551615, \"neg\": -9223372036854775808,"
		" \"too_big\": 18446744073709551616, \"nested\": {\"x\": {}} } ";
	struct json_doc doc;
	char err[256];
	uint64_t u;
	int64_t i;
	const struct json_value *a, *s;

	ck_assert_int_eq(json_parse(text, strlen(text), &doc, err, sizeof(err)), 0);
	a = json_get(&doc.root, "a");
	ck_assert_uint_eq(a->len, 7);
	ck_assert(json_value_u64(json_at(a, 0), &u) && u == 1);
	ck_assert(json_value_i64(json_at(a, 1), &i) && i == -2);
	ck_assert(!json_value_u64(json_at(a, 1), &u));
	ck_assert(!json_value_i64(json_at(a, 2), &i));
	ck_assert(json_at(a, 2)->number == 3.5);
	ck_assert(json_at(a, 3)->number == 1000.0);
	ck_assert(json_at(a, 4)->type == JSON_BOOL && json_at(a, 4)->boolean);
	ck_assert(json_at(a, 6)->type == JSON_NULL);
	ck_assert_ptr_null(json_at(a, 7));
	s = json_get(&doc.root, "s");
	ck_assert_str_eq(s->string, "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
	ck_assert(json_get_u64(&doc.root, "big", &u) && u == UINT64_MAX);
	ck_assert(json_get_i64(&doc.root, "neg", &i) && i == INT64_MIN);
	ck_assert(!json_get_u64(&doc.root, "too_big", &u));
	ck_assert_ptr_nonnull(json_get(json_get(&doc.root, "nested"), "x"));
	ck_assert_ptr_null(json_get(&doc.root, "missing"));
	ck_assert_str_eq(json_get_str(&doc.root, "missing", "fb"), "fb");
	json_doc_free(&doc);
}
END_TEST

START_TEST(test_json_errors)
{
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "\"abc", "01", "1.", "-",
		"tru", "[1] [2]", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"",
		"{1:2}", "[\"\\u12\"]", "nul",
	};
	struct json_doc doc;
	char err[256];
	char deep[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(json_parse(bad[i], strlen(bad[i]), &doc, err, sizeof(err)) == -1,
			      "accepted: %s", bad[i]);
		ck_assert_msg(strstr(err, "offset"), "no offset for %s: %s", bad[i], err);
	}
	/* Nesting deeper than the limit is refused, not a stack overflow. */
	memset(deep, '[', sizeof(deep));
	ck_assert_int_eq(json_parse(deep, sizeof(deep), &doc, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "deep"), "%s", err);
}
END_TEST

START_TEST(test_json_writer)
{
	struct json_out o;
	struct json_doc doc;
	char err[256];
	char *text;
	size_t len;
	static const char odd[] = "tab\there \"quoted\" \\ \x01 \x7f end";

	json_out_init(&o, true);
	json_obj_begin(&o);
	json_kv_str(&o, "odd", odd);
	json_key(&o, "list");
	json_arr_begin(&o);
	json_i64(&o, -5);
	json_u64(&o, UINT64_MAX);
	json_double(&o, 0.25);
	json_double(&o, 1.0 / 0.0);
	json_bool(&o, false);
	json_str(&o, NULL);
	json_arr_end(&o);
	json_key(&o, "empty");
	json_obj_begin(&o);
	json_obj_end(&o);
	json_obj_end(&o);
	text = json_out_steal(&o, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(json_parse(text, len, &doc, err, sizeof(err)) == 0, "%s\n%s", err, text);
	ck_assert_str_eq(json_get_str(&doc.root, "odd", ""), odd);
	ck_assert_uint_eq(json_get(&doc.root, "list")->len, 6);
	ck_assert(json_at(json_get(&doc.root, "list"), 3)->type == JSON_NULL);
	json_doc_free(&doc);
	free(text);

	/* Misuse is reported, not silently emitted. */
	json_out_init(&o, false);
	json_obj_begin(&o);
	ck_assert_ptr_null(json_out_steal(&o, NULL));
}
END_TEST

static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = ~0u;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

START_TEST(test_crc32c)
{
	unsigned char buf[4099];

	ck_assert_uint_eq(crc32c(0, "123456789", 9), 0xe3069283u);
	ck_assert_uint_eq(crc32c_portable(0, "123456789", 9), 0xe3069283u);
	ck_assert_uint_eq(crc32c(0, "", 0), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t off = 0; off < 9; off++) {
		for (size_t len = 0; len < 70; len++) {
			uint32_t want = crc_bitwise(buf + off, len);

			ck_assert_uint_eq(crc32c(0, buf + off, len), want);
			ck_assert_uint_eq(crc32c_portable(0, buf + off, len), want);
		}
	}
	/* Incremental equals one-shot. */
	ck_assert_uint_eq(crc32c(crc32c(0, buf, 1000), buf + 1000, 3099),
			  crc32c(0, buf, 4099));
	ck_assert_uint_eq(crc32c_portable(crc32c_portable(0, buf, 3), buf + 3, 4096),
			  crc_bitwise(buf, 4099));
}
END_TEST

START_TEST(test_names)
{
	char buf[128];

	ck_assert_str_eq(uring_opcode_name(0), "NOP");
	ck_assert_str_eq(uring_opcode_name(22), "READ");
	ck_assert_str_eq(uring_opcode_name(62), "PIPE");
	ck_assert_ptr_null(uring_opcode_name(200));
	ck_assert_str_eq(errno_name(9), "EBADF");
	ck_assert_str_eq(errno_name(125), "ECANCELED");
	ck_assert_str_eq(errno_name(62), "ETIME");
	ck_assert_str_eq(errno_name(512), "ERESTARTSYS");
	ck_assert_ptr_null(errno_name(0));
	ck_assert_ptr_null(errno_name(100000));
	ck_assert_str_eq(uring_register_opcode_name(2), "REGISTER_FILES");
	ck_assert_str_eq(uring_register_opcode_name(2 | (1u << 31)), "REGISTER_FILES");
	ck_assert_str_eq(format_flags(buf, sizeof(buf), 0, iosqe_flag_names), "");
	ck_assert_str_eq(format_flags(buf, sizeof(buf), 0x14, iosqe_flag_names), "IO_LINK|ASYNC");
	ck_assert_str_eq(format_flags(buf, sizeof(buf), 0x180, iosqe_flag_names), "0x180");
	ck_assert_str_eq(format_flags(buf, sizeof(buf), 0x3, cqe_flag_names), "BUFFER|MORE");
	ck_assert_str_eq(format_flags(buf, sizeof(buf), (1u << 13) | (1u << 12),
				      setup_flag_names), "SINGLE_ISSUER|DEFER_TASKRUN");
	/* Never overruns a small buffer. */
	ck_assert_str_eq(format_flags(buf, 8, 0x7f, iosqe_flag_names), "");
}
END_TEST

static Suite *common_suite(void)
{
	Suite *s = suite_create("common");
	TCase *tc = tcase_create("common");

	tcase_add_test(tc, test_abi_table);
	tcase_add_test(tc, test_field_known);
	tcase_add_test(tc, test_layout_json_identity);
	tcase_add_test(tc, test_layout_overlap_refused);
	tcase_add_test(tc, test_json_parse);
	tcase_add_test(tc, test_json_errors);
	tcase_add_test(tc, test_json_writer);
	tcase_add_test(tc, test_crc32c);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(common_suite)
