/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The record layouts of uring_event.h as data: names, offsets, sizes and
 * kinds of every field of every type.  The recorder writes this table into
 * each log's metadata; a reader compares the log's table with its own and,
 * where they differ (a log from an older or newer recorder), maps records
 * field by field so that the rest of the converter only ever sees the
 * compiled-in structs.
 */
#ifndef RINGSIDE_EVENT_LAYOUT_H
#define RINGSIDE_EVENT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "uring_event.h"

enum ev_kind {
	EVK_U8, EVK_U16, EVK_U32, EVK_S32, EVK_U64, EVK_S64, EVK_ID, EVK_COMM,
	EVK_PAD,
	EVK_STR,			/* NUL-padded bytes of any size (3.1) */
};

struct ev_field {
	const char *name;
	uint16_t offset;
	uint16_t size;
	enum ev_kind kind;
};

struct ev_type_info {
	uint16_t type;
	const char *name;
	uint16_t size;
	uint16_t nfields;		/* header fields included */
	const struct ev_field *fields;
};

/* The compiled-in layouts, ordered by type number. */
const struct ev_type_info *ev_types(size_t *count);
const struct ev_type_info *ev_type_info(unsigned type);	/* NULL: unknown */
const char *ev_type_name(unsigned type);		/* "type-N" if unknown */
const struct ev_field *ev_find_field(const struct ev_type_info *t,
				     const char *name);
const char *ev_kind_name(enum ev_kind kind);
bool ev_kind_is_signed(enum ev_kind kind);

/*
 * Whether field f of record rec holds a real value: false when the record's
 * flags say the recorder could not read it (uring-log(5), "Flags"): SQE
 * fields without EVF_SQE_VALID, ring without EVF_RING_VALID, SQ/CQ head
 * and tail without EVF_RING_STATE_VALID, setup params without
 * EVF_PARAMS_VALID, loops without EVF_LOOPS_VALID, a work_end request with
 * EVF_WORK_REQ_UNKNOWN, a completion's file without EVF_FILE_VALID.  Printers show such fields as unknown, never as the
 * zero the record holds.
 */
bool ev_field_known(const struct ev_header *rec, const struct ev_field *f);

/*
 * The same rule for field f of records of type, to apply many times: the
 * field is known when (flags & mask) == want.
 */
struct ev_known_rule {
	uint16_t mask, want;
};
struct ev_known_rule ev_field_known_rule(uint16_t type, const struct ev_field *f);

/* Append the layout table as a JSON value (uring-log(5), "records"). */
void ev_layout_to_json(struct json_out *o);

/*
 * How to turn one record type of a log into the compiled-in struct.  Built
 * from the log's layout table by ev_layout_map_build().
 */
struct ev_field_copy {
	uint16_t src_offset, src_size;
	uint16_t dst_offset, dst_size;
	bool is_signed;
	bool is_bytes;			/* comm or str: copied, NUL-padded */
};

/*
 * The columns of a record type in an EVENTS_COLUMNS payload (uring-log(5)):
 * its fields in layout-table order, except "type".  ts is stored as its
 * difference from the previous record's ts, the ring positions as their
 * difference from the same field of the previous record of the same type;
 * other fields as they are.
 */
enum ev_column_coding {
	EV_COL_PLAIN,
	EV_COL_DELTA,			/* from the previous record */
	EV_COL_DELTA_TYPE,		/* from the previous record of the type */
};

#define EV_MAX_COLUMNS 64

struct ev_column {
	uint16_t offset, size;
	uint8_t coding;			/* enum ev_column_coding */
};

/*
 * In an EVENTS_PACKED payload the same columns in the same order, but
 * every value of a 4- or 8-byte column is the zigzag LEB128 varint of its
 * difference (modulo 2^32 or 2^64) from the previous value of the column
 * (the first from 0): for EV_COL_DELTA, the difference an EVENTS_COLUMNS
 * payload stores; otherwise from the same field of the previous record
 * of the type, which for EV_COL_DELTA_TYPE is what an EVENTS_COLUMNS
 * payload stores too.  Columns of other sizes are stored as they are.
 * This is the most bytes one value of col can take.
 */
static inline unsigned ev_column_packed_max(const struct ev_column *col)
{
	return col->size == 8 ? 10 : col->size == 4 ? 5 : col->size;
}

struct ev_columns {
	uint16_t n;
	bool too_many;			/* more fields than EV_MAX_COLUMNS */
	bool covers_record;		/* with "type", every byte of the record */
	uint32_t bytes;			/* sum of the columns' sizes */
	uint32_t packed_max;		/* sum of their ev_column_packed_max() */
	struct ev_column col[EV_MAX_COLUMNS];
};

/* Add field (name, offset, size) to cols unless it is the type field. */
void ev_columns_add(struct ev_columns *cols, const char *name, unsigned offset, unsigned size);
/* After the last ev_columns_add(): set covers_record. */
void ev_columns_finish(struct ev_columns *cols, unsigned record_size);

struct ev_type_map {
	bool present;			/* the log describes this type */
	bool known;			/* this converter knows the type */
	bool identity;			/* records can be used as they are */
	uint16_t log_size;		/* record size in the log */
	uint16_t log_type_offset;	/* offset of the "type" field (16) */
	char *log_name;			/* the log's name for the type */
	uint16_t ncopies;
	struct ev_field_copy *copies;
	uint64_t missing_fields;	/* bit i: compiled-in field i absent */
	struct ev_columns columns;	/* the log's fields, for EVENTS_COLUMNS */
};

struct ev_layout_map {
	struct ev_type_map types[EV_TYPE_LIMIT];
	size_t max_record_size;
};

/*
 * Build the map from a log's "records" metadata value.  Returns 0, or -1
 * with a message in err when the table is malformed (missing header fields,
 * overlapping or out-of-range fields, record sizes not multiples of 8, ...).
 */
int ev_layout_map_build(struct ev_layout_map *map, const struct json_value *records,
			char *err, size_t errlen);
void ev_layout_map_free(struct ev_layout_map *map);

/*
 * Normalise one record of a known type: copies it into dst (at least
 * sizeof the compiled-in struct, zero-filled where the log lacks a field)
 * and returns dst, or returns src itself when the layout is identical.
 */
const void *ev_layout_normalize(const struct ev_layout_map *map, unsigned type,
				const void *src, void *dst);

#endif
