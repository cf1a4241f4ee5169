/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one reader of uring-log(5).
 *
 * log_reader_open() checks the preamble and loads the metadata frame;
 * log_reader_next() then walks the frame headers in file order without
 * touching payloads, and log_reader_payload() fetches, checks and
 * decompresses one frame's payload by its offset, so a caller can visit
 * frames in any order (the converter merges CPUs by time this way).
 *
 * Every length, count and offset read from the file is checked before use;
 * every problem is reported as "FILE: offset N: what" in the reader's
 * message buffer.
 */
#ifndef RINGSIDE_LOG_READER_H
#define RINGSIDE_LOG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event_layout.h"
#include "json.h"
#include "log_format.h"

struct log_reader;

#define LOG_MSG_LEN 512

/* Why log_reader_next() stopped. */
enum log_stop {
	LOG_STOP_NONE = 0,		/* not stopped yet */
	LOG_STOP_END,			/* END frame seen: the recorder stopped cleanly */
	LOG_STOP_EOF,			/* file ends on a frame boundary, no END frame */
	LOG_STOP_TRUNCATED,		/* file ends inside a frame */
	LOG_STOP_CORRUPT,		/* a frame header is damaged: framing lost */
	LOG_STOP_UNSUPPORTED,		/* a must-understand frame this reader does not know */
	LOG_STOP_IO,			/* read error */
};

struct log_frame {
	struct log_frame_header h;
	uint64_t offset;		/* file offset of the frame (skippable header) */
	uint64_t payload_offset;	/* file offset of the stored payload */
	uint64_t index;			/* 0-based frame number in the file */
	/*
	 * Stored as EVENTS_COLUMNS (format 2.0).  h.type then reads
	 * LOG_FRAME_EVENTS: the payload functions rebuild the records, so
	 * callers never see the encoding.
	 */
	bool columns;
	/* Stored as EVENTS_PACKED (format 3.0): columns, varint values. */
	bool packed;
};

struct log_info {
	uint16_t major, minor;
	uint8_t recording_id[16];
	char recording_id_str[37];
	uint64_t created_realtime_ns;
	uint64_t file_size;
	const struct json_value *meta;	/* root of the metadata JSON */
	struct log_clock_snapshot start_clock;	/* from metadata "clock" */
	bool have_start_clock;
	unsigned ncpus;			/* metadata host.cpus (0 if absent) */
};

/*
 * Open a log.  On failure returns a negative errno and writes a one-line
 * message (naming the file, the offset and the problem) into msg.
 */
int log_reader_open(struct log_reader **r, const char *path, char *msg, size_t msglen);
void log_reader_close(struct log_reader *r);

const struct log_info *log_reader_info(const struct log_reader *r);
const struct ev_layout_map *log_reader_layout(const struct log_reader *r);
const char *log_reader_path(const struct log_reader *r);

/*
 * Next frame header after the metadata frame, in file order.  Returns 1 with
 * *f filled, or 0 when the walk has stopped (see log_reader_stop()).
 * Frames of unknown types are returned too (callers skip them); an unknown
 * must-understand frame stops the walk.
 */
int log_reader_next(struct log_reader *r, struct log_frame *f);

/* After the walk: why it stopped and, if not cleanly, a message. */
enum log_stop log_reader_stop(const struct log_reader *r, const char **msg,
			      uint64_t *offset);

/*
 * Fetch, check (CRC32C, size) and decompress a frame's payload.  The buffer
 * is owned by the reader slot (0..LOG_READER_SLOTS-1) and stays valid until
 * the next call with the same slot.  Returns 0, or -1 with a message (the
 * frame's payload is damaged; its header and so the rest of the log are
 * fine).
 */
#define LOG_READER_SLOTS 2
int log_reader_payload(struct log_reader *r, const struct log_frame *f, unsigned slot,
		       const void **buf, size_t *len, char *msg, size_t msglen);

/*
 * What fetching a payload needs besides the reader: a zstd context and
 * scratch buffers.  Fetching reads the file by offset (pread) and nothing
 * of the reader that changes after log_reader_open(), so threads that each
 * bring their own decoder may fetch payloads at once (the converter loads
 * frames ahead of its merge this way), as long as no thread is walking
 * frame headers (log_reader_next()) at the same time.
 */
struct log_decoder;
struct log_decoder *log_decoder_new(void);	/* NULL: out of memory */
void log_decoder_free(struct log_decoder *d);

/*
 * Same as log_reader_payload(), with decoder d (NULL: the reader's own,
 * which log_reader_payload() uses too), into a caller-owned buffer that
 * grows as needed (free() it).  For callers that keep many payloads at
 * once (the converter's merge).
 */
int log_reader_payload_into(const struct log_reader *r, struct log_decoder *d,
			    const struct log_frame *f, void **buf, size_t *cap, size_t *len,
			    char *msg, size_t msglen);

/*
 * Walk the records of an EVENTS or TASKS payload.  *pos starts at 0.
 * Returns 1 with *rec pointing at a record normalised to the compiled-in
 * layout (possibly into scratch, which must hold EV_RECORD_MAX bytes), 0 at
 * the end, or -1 with a message when the payload is malformed.  Records of
 * types this converter does not know are returned with *known false and
 * their raw bytes in *rec.
 */
#define EV_RECORD_MAX 4096
int log_next_record(const struct ev_layout_map *map, const void *payload, size_t len,
		    size_t *pos, const struct ev_header **rec, bool *known,
		    void *scratch, char *msg, size_t msglen);

/* Human-readable frame type name ("EVENTS", "type 9" if unknown). */
const char *log_frame_type_name(unsigned type);
const char *log_stop_name(enum log_stop stop);

#endif
