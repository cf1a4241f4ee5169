/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * On-disk layout of a ringside log, as specified in uring-log(5).  This
 * header only describes bytes; common/log_writer.c writes them and
 * common/log_reader.c reads them.
 *
 * A log is a valid concatenation of zstd frames:
 *
 *   preamble   zstd skippable frame (magic LOG_SKIPPABLE_PREAMBLE) holding
 *              struct log_preamble
 *   frame*     zstd skippable frame (magic LOG_SKIPPABLE_FRAME) holding
 *              struct log_frame_header, followed by the payload: one
 *              regular zstd frame of stored_size bytes (absent when 0)
 *
 * so `zstdcat log` prints the concatenated payloads (metadata JSON, raw
 * records, ...) with no ringside code at all.  Everything is little-endian.
 * Frames are appended whole and headers are never rewritten, so a log cut at
 * any byte is a valid log up to its last complete frame.
 */
#ifndef RINGSIDE_LOG_FORMAT_H
#define RINGSIDE_LOG_FORMAT_H

#include <stdint.h>

/*
 * 2.0 added LOG_FRAME_EVENTS_COLUMNS (records stored by columns), which
 * the recorder writes instead of EVENTS.  A 1.x reader could not
 * read those events, hence a major version: it refuses a 2.x log by its
 * preamble instead.  A 2.x reader reads 1.x logs unchanged.
 *
 * 3.0 added LOG_FRAME_EVENTS_PACKED (the same columns, 4- and 8-byte
 * values as varints), which the recorder writes instead of
 * EVENTS_COLUMNS; a major version for the same reason.  A 3.x reader
 * reads 1.x and 2.x logs unchanged.
 *
 * 3.1 added record type "file" (a file's identity and path), the field
 * "file" of complete and complete32 (EVF_FILE_VALID), the field
 * "work_flags" of queue_async_work (EVF_WORK_FLAGS_VALID), the field kind
 * "str" and the metadata member "sampling"; a 3.0 reader skips the new
 * type and fields.
 *
 * 3.2 added the "flight_recorder" members of META and END that a
 * --flight-recorder snapshot carries: frames and records are unchanged,
 * and a 3.1 reader still reads the log, but should leave out the records
 * before its window start (uring-log(5), Flight-recorder snapshots).
 */
/*
 * 4.0 added record type "submit_complete" (a submit record that may hold
 * its request's completion), which the recorder writes for requests
 * completed inline.  A 3.x reader would skip it as unknown and lose those
 * submissions and completions, hence a major version.  A 4.x reader reads
 * 1.x to 3.x logs unchanged.
 */
#define LOG_FORMAT_MAJOR 4
#define LOG_FORMAT_MINOR 0

/* zstd skippable frames: magic 0x184D2A50..0x184D2A5F, then a u32 size. */
#define LOG_SKIPPABLE_PREAMBLE	0x184D2A50u
#define LOG_SKIPPABLE_FRAME	0x184D2A51u
#define LOG_SKIPPABLE_HDR_SIZE	8

#define LOG_MAGIC "RINGSIDE"	/* 8 bytes, no terminator on disk */

struct log_preamble {
	char magic[8];			/* LOG_MAGIC */
	uint16_t major;			/* LOG_FORMAT_MAJOR */
	uint16_t minor;			/* LOG_FORMAT_MINOR */
	uint32_t size;			/* sizeof(struct log_preamble) as written */
	uint8_t recording_id[16];	/* random (UUID v4) */
	uint64_t created_realtime_ns;	/* CLOCK_REALTIME at creation */
	uint32_t flags;			/* none defined; must be 0 */
	uint32_t crc;			/* CRC32C of the bytes before this field */
};
_Static_assert(sizeof(struct log_preamble) == 48, "preamble size");

#define LOG_FRAME_SYNC 0x4d415246u	/* "FRAM" */

struct log_frame_header {
	uint32_t sync;			/* LOG_FRAME_SYNC */
	uint16_t type;			/* enum log_frame_type */
	uint16_t flags;			/* LOG_FRAME_F_* */
	uint32_t stream;		/* CPU for EVENTS frames, else LOG_STREAM_GLOBAL */
	uint32_t count;			/* records in the payload */
	uint64_t seq;			/* per-(type, stream) sequence, from 0 */
	uint64_t first_ts;		/* smallest record timestamp (boot ns) */
	uint64_t last_ts;		/* largest record timestamp (boot ns) */
	uint64_t raw_size;		/* payload bytes after decompression */
	uint64_t stored_size;		/* payload bytes on disk (zstd frame) */
	uint32_t payload_crc;		/* CRC32C of the stored payload bytes */
	uint32_t header_crc;		/* CRC32C of the bytes before this field */
};
_Static_assert(sizeof(struct log_frame_header) == 64, "frame header size");

#define LOG_STREAM_GLOBAL 0xffffffffu

enum log_frame_type {
	LOG_FRAME_META		= 1,	/* JSON metadata; first frame of every log */
	LOG_FRAME_EVENTS	= 2,	/* one CPU's raw records (uring_event.h) */
	LOG_FRAME_LOSS		= 3,	/* cumulative lost-event counters */
	LOG_FRAME_TASKS		= 4,	/* EV_TASK records of tasks alive at start */
	LOG_FRAME_CLOCK		= 5,	/* one struct log_clock_snapshot */
	LOG_FRAME_STATS		= 6,	/* recorder self-statistics, JSON */
	LOG_FRAME_END		= 7,	/* clean stop: JSON reason and totals */
	LOG_FRAME_INDEX		= 8,	/* struct log_index_entry per earlier frame */
	/*
	 * One CPU's records, stored by columns (uring-log(5), EVENT RECORDS):
	 * a type byte per record, then for each type present, in increasing
	 * type order, each field other than "type", in layout-table order,
	 * for every record of that type (enum ev_column_coding: ts and the
	 * ring positions as differences).  Since format 2.0, what the
	 * recorder writes: the same field of neighbouring records repeats or
	 * moves by small steps, which zstd models far better than whole
	 * records with random-looking identifiers, offsets and nanoseconds
	 * between them -- a busy recording takes far fewer bytes
	 * (bench/RESULTS.md).  Always must-understand.  The header's count is
	 * the number of records, first_ts/last_ts stay absolute.
	 */
	LOG_FRAME_EVENTS_COLUMNS = 9,
	/*
	 * EVENTS_COLUMNS with narrower values (uring-log(5), EVENT RECORDS):
	 * the same type bytes and columns in the same order, but every 4- and
	 * 8-byte field is stored as the zigzag LEB128 varint of its
	 * difference from the same field of the previous record of the type
	 * (ts: of the previous record), other fields as they are.  Since
	 * format 3.0, what the recorder writes: most of those differences
	 * fit one byte, so zstd reads 28 bytes per record instead of 67 and
	 * the recorder spends 1.5 to 2.5 times less CPU per record, for logs
	 * of about the same size (bench/RESULTS.md, "Packed columns").
	 * Always must-understand.
	 */
	LOG_FRAME_EVENTS_PACKED = 10,
};

enum log_frame_flag {
	/* A reader that does not know this frame type must stop here. */
	LOG_FRAME_F_MUST_UNDERSTAND	= 1 << 0,
};

/* Limits a reader enforces before allocating anything (uring-log(5)). */
#define LOG_MAX_RAW_SIZE	(64u << 20)	/* decompressed payload */
#define LOG_MAX_STORED_SIZE	(LOG_MAX_RAW_SIZE + (1u << 20))
#define LOG_MAX_META_SIZE	(16u << 20)

/* LOSS frame payload: count rows of this. */
struct log_loss_row {
	uint32_t cpu;			/* LOG_STREAM_GLOBAL: not tied to a CPU */
	uint16_t kind;			/* enum ev_loss_kind */
	uint16_t event_type;		/* enum ev_type, 0 when unknown */
	uint64_t count;			/* cumulative since the start */
};
_Static_assert(sizeof(struct log_loss_row) == 16, "loss row size");

/* CLOCK frame payload: clocks read as boot, mono, real, tai, boot. */
struct log_clock_snapshot {
	uint64_t boot_ns;		/* midpoint of the two boottime reads */
	uint64_t mono_ns;
	uint64_t real_ns;
	uint64_t tai_ns;
	uint64_t uncertainty_ns;	/* half the width of the boottime bracket */
};
_Static_assert(sizeof(struct log_clock_snapshot) == 40, "clock size");

/* INDEX frame payload: one row per frame written before it. */
struct log_index_entry {
	uint64_t offset;		/* of the frame's skippable header */
	uint16_t type;
	uint16_t flags;
	uint32_t stream;
	uint64_t seq;
	uint64_t first_ts;
	uint64_t last_ts;
	uint32_t count;
	uint32_t reserved;
};
_Static_assert(sizeof(struct log_index_entry) == 48, "index entry size");

#endif /* RINGSIDE_LOG_FORMAT_H */
