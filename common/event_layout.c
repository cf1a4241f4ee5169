// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_layout.h"
#include "log_format.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define EVK_FROM_u8	EVK_U8
#define EVK_FROM_u16	EVK_U16
#define EVK_FROM_u32	EVK_U32
#define EVK_FROM_s32	EVK_S32
#define EVK_FROM_u64	EVK_U64
#define EVK_FROM_s64	EVK_S64
#define EVK_FROM_id	EVK_ID
#define EVK_FROM_comm	EVK_COMM
#define EVK_FROM_fsname	EVK_STR
#define EVK_FROM_path	EVK_STR
#define EVK_FROM_pad8	EVK_PAD
#define EVK_FROM_pad16	EVK_PAD
#define EVK_FROM_pad32	EVK_PAD

/* Offsets are filled in by layout_init(): the running sum of field sizes,
 * which uring_event.h asserts equals the C layout. */
#define EV_FIELD_DESC(kind, fname) \
	{ #fname, 0, EV_KIND_SIZE_##kind, EVK_FROM_##kind },
#define EV_FIELD_TABLE(NAME, num, name, size)				\
	static struct ev_field ev_fields_##name[] = {			\
		EV_HEADER_FIELDS(EV_FIELD_DESC)				\
		EV_FIELDS_##name(EV_FIELD_DESC)				\
	};
EV_TYPES(EV_FIELD_TABLE)

#define EV_TYPE_DESC(NAME, num, name, size) \
	{ num, #name, size, ARRAY_SIZE(ev_fields_##name), ev_fields_##name },
static struct ev_type_info type_table[] = {
	EV_TYPES(EV_TYPE_DESC)
};

static const struct ev_type_info *type_by_number[EV_TYPE_LIMIT];
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void layout_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(type_table); i++) {
		struct ev_field *f = (struct ev_field *)type_table[i].fields;
		uint16_t off = 0;

		for (size_t j = 0; j < type_table[i].nfields; j++) {
			f[j].offset = off;
			off += f[j].size;
		}
		type_by_number[type_table[i].type] = &type_table[i];
	}
}

const struct ev_type_info *ev_types(size_t *count)
{
	pthread_once(&layout_once, layout_init);
	*count = ARRAY_SIZE(type_table);
	return type_table;
}

const struct ev_type_info *ev_type_info(unsigned type)
{
	pthread_once(&layout_once, layout_init);
	return type < EV_TYPE_LIMIT ? type_by_number[type] : NULL;
}

const char *ev_type_name(unsigned type)
{
	static __thread char buf[16];
	const struct ev_type_info *t = ev_type_info(type);

	if (t)
		return t->name;
	snprintf(buf, sizeof(buf), "type-%u", type);
	return buf;
}

const struct ev_field *ev_find_field(const struct ev_type_info *t, const char *name)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (!strcmp(t->fields[i].name, name))
			return &t->fields[i];
	return NULL;
}

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

struct ev_known_rule ev_field_known_rule(uint16_t type, const struct ev_field *f)
{
	static const char *const sqe_fields[] = {
		"buf_index", "off", "fd", "len", "op_flags", "ioprio",
		"personality", "file_index", NULL,
	};
	static const char *const ring_state[] = {
		"sq_head", "sq_tail", "cq_head", "cq_tail", "sq_order", "cq_order", NULL,
	};
	static const char *const setup_params[] = {
		"entries", "setup_flags", "sq_thread_cpu", "sq_thread_idle",
		"cq_entries", NULL,
	};
	const struct ev_known_rule always = { 0, 0 };

	if (f->offset < EV_HEADER_SIZE)
		return always;
	switch (type) {
	case EV_SUBMIT_COMPLETE:
		if (f->offset >= sizeof(struct ev_submit))
			return (struct ev_known_rule){ EVF_COMPLETED, EVF_COMPLETED };
		if (name_in(f->name, sqe_fields))
			return (struct ev_known_rule){ EVF_SQE_VALID, EVF_SQE_VALID };
		return always;
	case EV_SUBMIT:
	case EV_REQ_FAILED:
		if (name_in(f->name, sqe_fields))
			return (struct ev_known_rule){ EVF_SQE_VALID, EVF_SQE_VALID };
		return always;
	case EV_ENTER_BEGIN:
	case EV_ENTER_END:
		if (!strcmp(f->name, "ring"))
			return (struct ev_known_rule){ EVF_RING_VALID, EVF_RING_VALID };
		if (name_in(f->name, ring_state))
			return (struct ev_known_rule){ EVF_RING_STATE_VALID, EVF_RING_STATE_VALID };
		return always;
	case EV_REGISTER_BEGIN:
		if (!strcmp(f->name, "ring"))
			return (struct ev_known_rule){ EVF_RING_VALID, EVF_RING_VALID };
		return always;
	case EV_SETUP_BEGIN:
		if (name_in(f->name, setup_params))
			return (struct ev_known_rule){ EVF_PARAMS_VALID, EVF_PARAMS_VALID };
		return always;
	case EV_TASK_WORK_RUN:
		if (!strcmp(f->name, "loops"))
			return (struct ev_known_rule){ EVF_LOOPS_VALID, EVF_LOOPS_VALID };
		return always;
	case EV_QUEUE_ASYNC_WORK:
		if (!strcmp(f->name, "work_flags"))
			return (struct ev_known_rule){ EVF_WORK_FLAGS_VALID, EVF_WORK_FLAGS_VALID };
		return always;
	case EV_WORK_END:
		if (!strcmp(f->name, "req"))
			return (struct ev_known_rule){ EVF_WORK_REQ_UNKNOWN, 0 };
		return always;
	case EV_COMPLETE:
	case EV_COMPLETE32:
		if (!strcmp(f->name, "file"))
			return (struct ev_known_rule){ EVF_FILE_VALID, EVF_FILE_VALID };
		return always;
	default:
		return always;
	}
}

bool ev_field_known(const struct ev_header *rec, const struct ev_field *f)
{
	struct ev_known_rule r = ev_field_known_rule(rec->type, f);

	return (rec->flags & r.mask) == r.want;
}

static const char *const kind_names[] = {
	[EVK_U8] = "u8", [EVK_U16] = "u16", [EVK_U32] = "u32",
	[EVK_S32] = "s32", [EVK_U64] = "u64", [EVK_S64] = "s64",
	[EVK_ID] = "id", [EVK_COMM] = "comm", [EVK_PAD] = "pad",
	[EVK_STR] = "str",
};

const char *ev_kind_name(enum ev_kind kind)
{
	return (unsigned)kind < ARRAY_SIZE(kind_names) ? kind_names[kind] : "?";
}

static int kind_from_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(kind_names[i], name))
			return (int)i;
	return -1;
}

bool ev_kind_is_signed(enum ev_kind kind)
{
	return kind == EVK_S32 || kind == EVK_S64;
}

static bool kind_is_integer(int kind)
{
	return kind >= EVK_U8 && kind <= EVK_ID;
}

static bool kind_is_bytes(int kind)
{
	return kind == EVK_COMM || kind == EVK_STR;
}

void ev_layout_to_json(struct json_out *o)
{
	size_t n;
	const struct ev_type_info *types = ev_types(&n);

	json_obj_begin(o);
	json_kv_u64(o, "header_size", EV_HEADER_SIZE);
	json_kv_str(o, "byte_order", "little");
	json_key(o, "types");
	json_arr_begin(o);
	for (size_t i = 0; i < n; i++) {
		json_obj_begin(o);
		json_kv_u64(o, "type", types[i].type);
		json_kv_str(o, "name", types[i].name);
		json_kv_u64(o, "size", types[i].size);
		json_key(o, "fields");
		json_arr_begin(o);
		for (size_t j = 0; j < types[i].nfields; j++) {
			const struct ev_field *f = &types[i].fields[j];

			json_arr_begin(o);
			json_str(o, f->name);
			json_u64(o, f->offset);
			json_u64(o, f->size);
			json_str(o, ev_kind_name(f->kind));
			json_arr_end(o);
		}
		json_arr_end(o);
		json_obj_end(o);
	}
	json_arr_end(o);
	json_obj_end(o);
}

/* Maximum record size a log may declare (uring-log(5)). */
#define LOG_MAX_RECORD_SIZE 4096

struct log_field {
	const char *name;
	uint64_t offset, size;
	int kind;			/* -1: a kind this converter does not know */
};

static int parse_log_fields(const struct json_value *arr, uint64_t size,
			    struct log_field **out, size_t *nout,
			    char *err, size_t errlen, const char *tname)
{
	struct log_field *fields;

	if (!arr || arr->type != JSON_ARRAY) {
		snprintf(err, errlen, "record type %s: no field list", tname);
		return -1;
	}
	fields = calloc(arr->len ? arr->len : 1, sizeof(*fields));
	if (!fields) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < arr->len; i++) {
		const struct json_value *f = &arr->items[i];
		const struct json_value *name = json_at(f, 0);
		const struct json_value *kind = json_at(f, 3);

		if (f->type != JSON_ARRAY || f->len < 4 || !name ||
		    name->type != JSON_STRING || !kind || kind->type != JSON_STRING ||
		    !json_value_u64(json_at(f, 1), &fields[i].offset) ||
		    !json_value_u64(json_at(f, 2), &fields[i].size)) {
			snprintf(err, errlen, "record type %s: field %zu is malformed",
				 tname, i);
			goto fail;
		}
		fields[i].name = name->string;
		fields[i].kind = kind_from_name(kind->string);
		if (fields[i].size == 0 || fields[i].offset > size ||
		    fields[i].size > size - fields[i].offset) {
			snprintf(err, errlen,
				 "record type %s: field %s (offset %llu, size %llu) lies outside the %llu-byte record",
				 tname, name->string,
				 (unsigned long long)fields[i].offset,
				 (unsigned long long)fields[i].size,
				 (unsigned long long)size);
			goto fail;
		}
		if (kind_is_integer(fields[i].kind) && fields[i].size != 1 &&
		    fields[i].size != 2 && fields[i].size != 4 && fields[i].size != 8) {
			snprintf(err, errlen, "record type %s: integer field %s has size %llu",
				 tname, name->string, (unsigned long long)fields[i].size);
			goto fail;
		}
		/*
		 * No two fields share a byte: the reader rebuilds columns one
		 * field at a time (log_reader.c), so overlapping fields would
		 * depend on that order; no recorder ever wrote such a layout.
		 */
		for (size_t k = 0; k < i; k++) {
			if (fields[k].offset < fields[i].offset + fields[i].size &&
			    fields[i].offset < fields[k].offset + fields[k].size) {
				snprintf(err, errlen, "record type %s: fields %s and %s overlap",
					 tname, fields[k].name, name->string);
				goto fail;
			}
		}
	}
	*out = fields;
	*nout = arr->len;
	return 0;
fail:
	free(fields);
	return -1;
}

static const struct log_field *find_log_field(const struct log_field *f, size_t n,
					      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* The header every record type of every format-1 log must start with. */
static int check_header_fields(const struct log_field *f, size_t n,
			       char *err, size_t errlen, const char *tname)
{
	static const struct { const char *name; unsigned off, size; enum ev_kind kind; } hdr[] = {
		{ "ts", 0, 8, EVK_U64 }, { "tid", 8, 4, EVK_U32 }, { "tgid", 12, 4, EVK_U32 },
		{ "type", 16, 2, EVK_U16 }, { "flags", 18, 2, EVK_U16 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(hdr); i++) {
		const struct log_field *lf = find_log_field(f, n, hdr[i].name);

		/* The kind too: a "type" declared as padding would be mapped
		 * to 0 in the normalised record, disagreeing with the raw one. */
		if (!lf || lf->offset != hdr[i].off || lf->size != hdr[i].size ||
		    lf->kind != (int)hdr[i].kind) {
			snprintf(err, errlen,
				 "record type %s: header field %s missing or not at offset %u size %u kind %s",
				 tname, hdr[i].name, hdr[i].off, hdr[i].size,
				 ev_kind_name(hdr[i].kind));
			return -1;
		}
	}
	return 0;
}

static int build_type_map(struct ev_type_map *m, const struct ev_type_info *mine,
			  const struct log_field *lf, size_t nlf, uint64_t size,
			  bool *identity)
{
	*identity = mine->size == size;
	m->copies = calloc(mine->nfields, sizeof(*m->copies));
	if (!m->copies)
		return -1;
	for (size_t i = 0; i < mine->nfields; i++) {
		const struct ev_field *f = &mine->fields[i];
		const struct log_field *l = find_log_field(lf, nlf, f->name);
		bool compatible;

		if (f->kind == EVK_PAD)
			continue;
		compatible = l && ((kind_is_bytes(f->kind) && l->kind == (int)f->kind) ||
				   (kind_is_integer(f->kind) && kind_is_integer(l->kind)));
		if (!compatible) {
			*identity = false;
			m->missing_fields |= i < 64 ? 1ull << i : 0;
			continue;
		}
		if (l->offset != f->offset || l->size != f->size || l->kind != (int)f->kind)
			*identity = false;
		m->copies[m->ncopies++] = (struct ev_field_copy){
			.src_offset = (uint16_t)l->offset,
			.src_size = (uint16_t)l->size,
			.dst_offset = f->offset,
			.dst_size = f->size,
			.is_signed = ev_kind_is_signed(l->kind),
			.is_bytes = kind_is_bytes(f->kind),
		};
	}
	return 0;
}

int ev_layout_map_build(struct ev_layout_map *map, const struct json_value *records,
			char *err, size_t errlen)
{
	const struct json_value *types = json_get(records, "types");
	const char *order = json_get_str(records, "byte_order", NULL);

	memset(map, 0, sizeof(*map));
	if (!types || types->type != JSON_ARRAY) {
		snprintf(err, errlen, "metadata has no record layout table");
		return -1;
	}
	if (!order || strcmp(order, "little")) {
		snprintf(err, errlen, "record byte order \"%s\" is not supported",
			 order ? order : "(missing)");
		return -1;
	}
	for (size_t i = 0; i < types->len; i++) {
		const struct json_value *t = &types->items[i];
		const char *tname = json_get_str(t, "name", NULL);
		uint64_t num, size;
		struct log_field *lf = NULL;
		size_t nlf = 0;
		struct ev_type_map *m;
		const struct ev_type_info *mine;
		bool identity;

		if (!tname || !json_get_u64(t, "type", &num) ||
		    !json_get_u64(t, "size", &size)) {
			snprintf(err, errlen, "record layout entry %zu is malformed", i);
			goto fail;
		}
		if (num == 0 || num >= EV_TYPE_LIMIT) {
			/* A type from a newer recorder beyond anything this
			 * converter can hold: refuse rather than misparse. */
			snprintf(err, errlen,
				 "record type %s has number %llu, beyond this converter's limit of %d",
				 tname, (unsigned long long)num, EV_TYPE_LIMIT - 1);
			goto fail;
		}
		if (size < EV_HEADER_SIZE || size % 8 || size > LOG_MAX_RECORD_SIZE) {
			snprintf(err, errlen, "record type %s has invalid size %llu",
				 tname, (unsigned long long)size);
			goto fail;
		}
		m = &map->types[num];
		if (m->present) {
			snprintf(err, errlen, "record type %llu is described twice",
				 (unsigned long long)num);
			goto fail;
		}
		if (parse_log_fields(json_get(t, "fields"), size, &lf, &nlf, err,
				     errlen, tname) ||
		    check_header_fields(lf, nlf, err, errlen, tname)) {
			free(lf);
			goto fail;
		}
		m->present = true;
		m->log_size = (uint16_t)size;
		for (size_t f = 0; f < nlf; f++)
			ev_columns_add(&m->columns, lf[f].name, (unsigned)lf[f].offset,
				       (unsigned)lf[f].size);
		ev_columns_finish(&m->columns, (unsigned)size);
		m->log_type_offset = 16;
		m->log_name = strdup(tname);
		if (!m->log_name) {
			free(lf);
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if (size > map->max_record_size)
			map->max_record_size = size;
		mine = ev_type_info((unsigned)num);
		if (mine) {
			m->known = true;
			if (build_type_map(m, mine, lf, nlf, size, &identity)) {
				free(lf);
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			m->identity = identity &&
				      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
		}
		free(lf);
	}
	return 0;
fail:
	ev_layout_map_free(map);
	return -1;
}

void ev_columns_add(struct ev_columns *cols, const char *name, unsigned offset, unsigned size)
{
	/* the hardware ring positions move by small steps within one type */
	static const char *const positions[] = { "sq_head", "sq_tail", "cq_head", "cq_tail" };
	uint8_t coding = EV_COL_PLAIN;

	if (!strcmp(name, "type"))
		return;		/* the payload's type column says it */
	if (cols->n == EV_MAX_COLUMNS) {
		cols->too_many = true;
		return;
	}
	if (!strcmp(name, "ts") && size == 8)
		coding = EV_COL_DELTA;
	for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); i++)
		if (!strcmp(name, positions[i]) && size == 4)
			coding = EV_COL_DELTA_TYPE;
	cols->col[cols->n++] = (struct ev_column){ (uint16_t)offset, (uint16_t)size, coding };
	cols->bytes += size;
	cols->packed_max += ev_column_packed_max(&cols->col[cols->n - 1]);
}

void ev_columns_finish(struct ev_columns *cols, unsigned record_size)
{
	unsigned char covered[LOG_MAX_RECORD_SIZE] = { 0 };
	unsigned n = 0;

	cols->covers_record = false;
	if (cols->too_many || record_size > LOG_MAX_RECORD_SIZE || record_size < EV_HEADER_SIZE)
		return;
	covered[16] = covered[17] = 1;	/* the type field */
	for (unsigned j = 0; j < cols->n; j++)
		for (unsigned b = 0; b < cols->col[j].size; b++)
			if (cols->col[j].offset + b < record_size)
				covered[cols->col[j].offset + b] = 1;
	for (unsigned b = 0; b < record_size; b++)
		n += covered[b];
	cols->covers_record = n == record_size;
}

void ev_layout_map_free(struct ev_layout_map *map)
{
	for (size_t i = 0; i < EV_TYPE_LIMIT; i++) {
		free(map->types[i].copies);
		free(map->types[i].log_name);
	}
	memset(map, 0, sizeof(*map));
}

static uint64_t load_le(const unsigned char *p, unsigned size, bool is_signed)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	return v;
}

static void store_native(unsigned char *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	case 8: memcpy(p, &v, 8); break;
	}
}

const void *ev_layout_normalize(const struct ev_layout_map *map, unsigned type,
				const void *src, void *dst)
{
	const struct ev_type_map *m = &map->types[type];

	if (m->identity)
		return src;
	memset(dst, 0, ev_type_info(type)->size);
	for (size_t i = 0; i < m->ncopies; i++) {
		const struct ev_field_copy *c = &m->copies[i];
		const unsigned char *s = (const unsigned char *)src + c->src_offset;
		unsigned char *d = (unsigned char *)dst + c->dst_offset;

		/* comm and str fields are bytes, whatever size the log
		 * gives them; dst is zeroed above, so a shorter one is
		 * NUL-padded. */
		if (c->is_bytes) {
			memcpy(d, s, c->src_size < c->dst_size ? c->src_size : c->dst_size);
			continue;
		}
		store_native(d, c->dst_size, load_le(s, c->src_size, c->is_signed));
	}
	return dst;
}
