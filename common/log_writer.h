/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one writer of uring-log(5).  Not thread-safe: one thread owns a
 * writer (the recorder's writer thread).
 */
#ifndef RINGSIDE_LOG_WRITER_H
#define RINGSIDE_LOG_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_format.h"

struct log_writer;

struct log_writer_options {
	int zstd_level;			/* 0: LOG_DEFAULT_ZSTD_LEVEL */
	bool overwrite;			/* replace an existing regular file */
	/* Write an INDEX frame after this many frames (0: default). */
	unsigned index_every;
	/*
	 * For tests: log_write_events() writes format 2.0's EVENTS_COLUMNS
	 * frames, fixed-width columns, instead of EVENTS_PACKED.
	 */
	bool fixed_columns;
	/* For tests and golden logs: fixed id and creation time. */
	const uint8_t *recording_id;
	uint64_t created_realtime_ns;
};

/*
 * Level 1: on EVENTS_PACKED payloads, where most values are already one
 * byte, level 3's double-fast matcher finds little more than level 1's
 * single hash, for more of the recorder's CPU per record
 * (bench/RESULTS.md, "Packed columns").  On
 * format 2.0's EVENTS_COLUMNS it found the long runs level 1 missed,
 * hence level 3 then.
 */
#define LOG_DEFAULT_ZSTD_LEVEL 1
#define LOG_DEFAULT_INDEX_EVERY 4096

struct log_frame_desc {
	uint16_t type;			/* enum log_frame_type */
	uint16_t flags;			/* LOG_FRAME_F_* */
	uint32_t stream;
	uint32_t count;
	uint64_t first_ts, last_ts;
};

/*
 * Create path (mode 0600, never following a symlink, failing if it exists
 * unless overwrite) and write the preamble.  Returns 0 or a negative errno
 * with a one-line message in err.
 */
int log_writer_create(struct log_writer **w, const char *path,
		      const struct log_writer_options *opt, char *err, size_t errlen);

/*
 * A writer without a file: each frame, once compressed and numbered, is
 * given to sink (header, stored payload of h->stored_size bytes), which
 * returns 0 or a negative errno.  No preamble, META or INDEX frame; for a
 * recorder that keeps frames in memory and writes some of them later with
 * log_write_stored().  Free it with log_writer_abort().
 */
typedef int (*log_frame_sink)(void *arg, const struct log_frame_header *h,
			      const void *stored);
int log_writer_create_sink(struct log_writer **w, const struct log_writer_options *opt,
			   log_frame_sink sink, void *arg);

/*
 * Append a frame another writer compressed (header h, stored payload),
 * under this log's next sequence number for its type and stream.  -EINVAL
 * (nothing written) when the payload does not match the header's CRC.
 */
int log_write_stored(struct log_writer *w, const struct log_frame_header *h,
		     const void *stored);

/*
 * Append one frame: payload (raw_size bytes) is compressed and written with
 * its header in a single write.  The first frame must be LOG_FRAME_META.
 * Returns 0, or a negative errno (-ENOSPC, -EFBIG, -EIO, ...): the file is
 * then cut back to the end of the last complete frame and the writer
 * refuses further frames except log_writer_finish()'s attempt at an END
 * frame.
 */
int log_write_frame(struct log_writer *w, const struct log_frame_desc *desc,
		    const void *payload, size_t raw_size);

/*
 * Append one CPU's records (desc->type LOG_FRAME_EVENTS, records of the
 * compiled-in layouts back to back) as a LOG_FRAME_EVENTS_PACKED frame.
 * records is not modified.  -EINVAL (nothing written) when the payload is
 * not a whole number of known records.
 */
int log_write_events(struct log_writer *w, const struct log_frame_desc *desc,
		     const void *records, size_t raw_size);

int log_write_meta(struct log_writer *w, const char *json, size_t len);

/*
 * Write the END frame (end_json may be NULL to skip it) and a final INDEX
 * frame, fsync and close.  Frees the writer whatever happens; returns 0 or a
 * negative errno.  A writer that failed earlier still tries to record the
 * END frame, so a full disk leaves a log that says why it stopped.
 */
int log_writer_finish(struct log_writer *w, const char *end_json,
		      char *err, size_t errlen);

/* Close without END or INDEX (a writer abandoned after an error). */
void log_writer_abort(struct log_writer *w);

uint64_t log_writer_bytes(const struct log_writer *w);	/* file size so far */
uint64_t log_writer_raw_bytes(const struct log_writer *w);	/* before compression */
uint64_t log_writer_frames(const struct log_writer *w);
int log_writer_error(const struct log_writer *w);	/* 0 or first -errno */
int log_writer_sync(struct log_writer *w);		/* fdatasync */
void log_writer_recording_id(const struct log_writer *w, uint8_t id[16]);

#endif
