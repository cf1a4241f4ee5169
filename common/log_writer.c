// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "buffer.h"
#include "crc32c.h"
#include "event_layout.h"
#include "log_writer.h"

/*
 * Room kept allocated past the last frame for the END frame (a few hundred
 * bytes compressed), with fallocate(FALLOC_FL_KEEP_SIZE) before each frame.
 * Without it a disk that fills exactly at a frame's end has nothing left
 * for the END frame: the failed write wrote nothing, so cutting it back
 * frees nothing (tests/hardening/tmpfs_full.sh, 1 run in 20 on tmpfs).
 */
#define LOG_END_RESERVE 4096

/* Sequence numbers are kept per (frame type, stream); streams beyond this
 * many CPUs share the last slot's counter space by hashing, which never
 * happens on real hosts (Linux NR_CPUS <= 8192). */
#define SEQ_STREAMS 8193

struct log_writer {
	int fd;
	int error;			/* first failure, negative errno */
	uint64_t offset;		/* end of the last complete frame */
	uint64_t raw_bytes;
	uint64_t frames;
	bool meta_written;
	bool reserve_end;		/* keep LOG_END_RESERVE allocated past offset */
	bool reserved;			/* some was: give it back at the end */
	ZSTD_CCtx *cctx;
	void *zbuf;
	size_t zcap;
	void *ebuf;			/* EVENTS_PACKED/_COLUMNS payload being encoded */
	size_t ecap;
	struct ev_columns columns[EV_TYPE_LIMIT];
	uint16_t type_size[EV_TYPE_LIMIT];		/* 0: not written by columns */
	/* per record of the frame being encoded: offset, ts difference */
	void *rec_off;			/* uint32_t: where each record starts */
	size_t rec_off_cap;
	void *rec_dts;			/* uint64_t: its ts minus the previous one's */
	size_t rec_dts_cap;
	void *by_type;			/* uint32_t: record numbers grouped by type */
	size_t by_type_cap;
	void *pack;			/* EVENTS_PACKED: one type's columns being packed */
	size_t pack_cap;
	bool fixed_columns;		/* write format 2.0's EVENTS_COLUMNS */
	uint8_t recording_id[16];
	uint64_t *seq[LOG_FRAME_INDEX + 1];	/* [type][stream slot] */
	uint64_t other_seq;		/* frame types beyond the table */
	struct log_index_entry *index;
	size_t index_len, index_cap;
	unsigned index_every;
	log_frame_sink sink;		/* frames go here instead of a file */
	void *sink_arg;
};

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int write_all_at_end(struct log_writer *w, struct iovec *iov, int iovcnt,
			    size_t total)
{
	size_t done = 0;

	while (done < total) {
		ssize_t n = writev(w->fd, iov, iovcnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		done += (size_t)n;
		/* Advance the iovec past what was written. */
		while (iovcnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * Allocate room for a frame of frame_bytes and the END frame after it
 * before writing the frame, so that a full disk refuses the frame while the
 * END frame still fits.  Filesystems without fallocate (EOPNOTSUPP) are
 * written without a reserve, as before.
 */
static int reserve_room(struct log_writer *w, size_t frame_bytes)
{
	int ret;

	if (!w->reserve_end)
		return 0;
	do {
		ret = fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->offset,
				(off_t)(frame_bytes + LOG_END_RESERVE));
	} while (ret < 0 && errno == EINTR);
	if (!ret) {
		w->reserved = true;
		return 0;
	}
	if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
		return -errno;
	w->reserve_end = false;
	return 0;
}

/*
 * A frame that was only partly written (disk full, file size limit) is cut
 * off again so the log ends on a frame boundary.
 */
static void cut_back(struct log_writer *w)
{
	if (ftruncate(w->fd, (off_t)w->offset) == 0)
		lseek(w->fd, (off_t)w->offset, SEEK_SET);
}

static void put_skippable(unsigned char hdr[LOG_SKIPPABLE_HDR_SIZE], uint32_t magic,
			  uint32_t size)
{
	for (int i = 0; i < 4; i++) {
		hdr[i] = (unsigned char)(magic >> (8 * i));
		hdr[4 + i] = (unsigned char)(size >> (8 * i));
	}
}

/* The compiled-in record types' columns and sizes (log_write_events()). */
static void build_columns(struct log_writer *w)
{
	size_t count;
	const struct ev_type_info *types = ev_types(&count);

	for (size_t i = 0; i < count; i++) {
		unsigned t = types[i].type % EV_TYPE_LIMIT;

		w->type_size[t] = types[i].size;
		for (size_t f = 0; f < types[i].nfields; f++)
			ev_columns_add(&w->columns[t], types[i].fields[f].name,
				       types[i].fields[f].offset, types[i].fields[f].size);
		if (w->columns[t].too_many)
			w->type_size[t] = 0;	/* cannot be written by columns */
	}
}

int log_writer_create(struct log_writer **wp, const char *path,
		      const struct log_writer_options *opt, char *err, size_t errlen)
{
	struct log_writer_options defaults = { 0 };
	struct log_preamble pre;
	unsigned char skip[LOG_SKIPPABLE_HDR_SIZE];
	struct iovec iov[2];
	struct log_writer *w;
	struct stat st;
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int level, ret;

	*wp = NULL;
	if (!opt)
		opt = &defaults;
	if (opt->overwrite) {
		/* Never replace something that is not a regular file. */
		if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return set_err(err, errlen, -EEXIST,
				       "%s exists and is not a regular file; not overwriting it",
				       path);
		flags |= O_TRUNC;
	} else {
		flags |= O_EXCL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return set_err(err, errlen, -ENOMEM, "out of memory");
	w->fd = open(path, flags, 0600);
	if (w->fd < 0) {
		ret = -errno;
		if (errno == EEXIST)
			set_err(err, errlen, ret,
				"%s already exists (use --force to overwrite it)", path);
		else if (errno == ELOOP)
			set_err(err, errlen, ret,
				"%s is a symbolic link; refusing to follow it", path);
		else
			set_err(err, errlen, ret, "cannot create %s: %s", path,
				strerror(errno));
		free(w);
		return ret;
	}
	/* O_TRUNC on an existing file keeps its mode; logs are private. */
	if (fchmod(w->fd, 0600) < 0) {
		ret = set_err(err, errlen, -errno, "cannot chmod %s: %s", path,
			      strerror(errno));
		goto fail;
	}
	build_columns(w);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		ret = set_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	level = opt->zstd_level ? opt->zstd_level : LOG_DEFAULT_ZSTD_LEVEL;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		ret = set_err(err, errlen, -EINVAL, "invalid zstd level %d", level);
		goto fail;
	}
	w->index_every = opt->index_every ? opt->index_every : LOG_DEFAULT_INDEX_EVERY;
	w->fixed_columns = opt->fixed_columns;
	w->reserve_end = true;

	memset(&pre, 0, sizeof(pre));
	memcpy(pre.magic, LOG_MAGIC, sizeof(pre.magic));
	pre.major = LOG_FORMAT_MAJOR;
	pre.minor = LOG_FORMAT_MINOR;
	pre.size = sizeof(pre);
	if (opt->recording_id) {
		memcpy(pre.recording_id, opt->recording_id, 16);
	} else {
		if (getrandom(pre.recording_id, 16, 0) != 16) {
			ret = set_err(err, errlen, -EIO, "getrandom failed: %s",
				      strerror(errno));
			goto fail;
		}
		/* UUID version 4, variant 1. */
		pre.recording_id[6] = (pre.recording_id[6] & 0x0f) | 0x40;
		pre.recording_id[8] = (pre.recording_id[8] & 0x3f) | 0x80;
	}
	pre.created_realtime_ns = opt->created_realtime_ns ? opt->created_realtime_ns :
				  realtime_ns();
	pre.crc = crc32c(0, &pre, offsetof(struct log_preamble, crc));
	memcpy(w->recording_id, pre.recording_id, 16);

	put_skippable(skip, LOG_SKIPPABLE_PREAMBLE, sizeof(pre));
	iov[0] = (struct iovec){ skip, sizeof(skip) };
	iov[1] = (struct iovec){ &pre, sizeof(pre) };
	ret = write_all_at_end(w, iov, 2, sizeof(skip) + sizeof(pre));
	if (ret) {
		set_err(err, errlen, ret, "cannot write %s: %s", path, strerror(-ret));
		goto fail;
	}
	w->offset = sizeof(skip) + sizeof(pre);
	*wp = w;
	return 0;
fail:
	close(w->fd);
	unlink(path);
	ZSTD_freeCCtx(w->cctx);
	free(w);
	return ret;
}

int log_writer_create_sink(struct log_writer **wp, const struct log_writer_options *opt,
			   log_frame_sink sink, void *arg)
{
	struct log_writer_options defaults = { 0 };
	struct log_writer *w;
	int level;

	*wp = NULL;
	if (!opt)
		opt = &defaults;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->sink = sink;
	w->sink_arg = arg;
	w->meta_written = true;		/* the sink's owner writes META elsewhere */
	w->fixed_columns = opt->fixed_columns;
	w->index_every = UINT32_MAX;
	build_columns(w);
	w->cctx = ZSTD_createCCtx();
	level = opt->zstd_level ? opt->zstd_level : LOG_DEFAULT_ZSTD_LEVEL;
	if (!w->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		ZSTD_freeCCtx(w->cctx);
		free(w);
		return -EINVAL;
	}
	*wp = w;
	return 0;
}

static uint64_t next_seq(struct log_writer *w, uint16_t type, uint32_t stream)
{
	size_t slot = stream == LOG_STREAM_GLOBAL ? SEQ_STREAMS - 1 :
		      stream % (SEQ_STREAMS - 1);

	/* one sequence per CPU whatever the encoding: gaps are found in it */
	if (type == LOG_FRAME_EVENTS_COLUMNS || type == LOG_FRAME_EVENTS_PACKED)
		type = LOG_FRAME_EVENTS;
	if (type > LOG_FRAME_INDEX)
		return w->other_seq++;
	if (!w->seq[type]) {
		w->seq[type] = calloc(SEQ_STREAMS, sizeof(uint64_t));
		if (!w->seq[type])
			return 0;
	}
	return w->seq[type][slot]++;
}

static int write_frame_raw(struct log_writer *w, const struct log_frame_desc *d,
			   const void *payload, size_t raw_size, bool record_index);

static int flush_index(struct log_writer *w)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_INDEX,
		.stream = LOG_STREAM_GLOBAL,
	};
	int ret;

	if (!w->index_len)
		return 0;
	d.count = (uint32_t)w->index_len;
	d.first_ts = UINT64_MAX;
	for (size_t i = 0; i < w->index_len; i++) {
		if (w->index[i].count && w->index[i].first_ts < d.first_ts)
			d.first_ts = w->index[i].first_ts;
		if (w->index[i].last_ts > d.last_ts)
			d.last_ts = w->index[i].last_ts;
	}
	if (d.first_ts == UINT64_MAX)
		d.first_ts = 0;
	ret = write_frame_raw(w, &d, w->index, w->index_len * sizeof(*w->index), false);
	w->index_len = 0;
	return ret;
}

/*
 * Append frame h (its sequence number and header CRC not yet set) with
 * its stored payload: to the file, or to the sink.
 */
static int emit_frame(struct log_writer *w, struct log_frame_header *h, const void *stored,
		      bool record_index)
{
	unsigned char skip[LOG_SKIPPABLE_HDR_SIZE];
	struct iovec iov[3];
	size_t total;
	uint64_t frame_offset = w->offset;
	int ret;

	h->seq = next_seq(w, h->type, h->stream);
	h->header_crc = crc32c(0, h, offsetof(struct log_frame_header, header_crc));
	total = sizeof(skip) + sizeof(*h) + h->stored_size;
	if (w->sink) {
		ret = w->sink(w->sink_arg, h, stored);
		if (ret)
			return ret;
		w->offset += total;
		w->raw_bytes += h->raw_size;
		w->frames++;
		return 0;
	}
	put_skippable(skip, LOG_SKIPPABLE_FRAME, sizeof(*h));
	iov[0] = (struct iovec){ skip, sizeof(skip) };
	iov[1] = (struct iovec){ h, sizeof(*h) };
	iov[2] = (struct iovec){ (void *)stored, h->stored_size };
	ret = reserve_room(w, total);
	if (ret)
		return ret;	/* nothing written: cutting back would free the reserve */
	ret = write_all_at_end(w, iov, h->stored_size ? 3 : 2, total);
	if (ret) {
		cut_back(w);
		return ret;
	}
	w->offset += total;
	w->raw_bytes += h->raw_size;
	w->frames++;

	if (!record_index)
		return 0;
	if (w->index_len == w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 256;
		struct log_index_entry *idx = realloc(w->index, cap * sizeof(*idx));

		if (!idx)
			return 0;	/* the index is an optimisation only */
		w->index = idx;
		w->index_cap = cap;
	}
	w->index[w->index_len++] = (struct log_index_entry){
		.offset = frame_offset, .type = h->type, .flags = h->flags,
		.stream = h->stream, .seq = h->seq, .first_ts = h->first_ts,
		.last_ts = h->last_ts, .count = h->count,
	};
	if (w->index_len >= w->index_every)
		return flush_index(w);
	return 0;
}

static int write_frame_raw(struct log_writer *w, const struct log_frame_desc *d,
			   const void *payload, size_t raw_size, bool record_index)
{
	struct log_frame_header h;
	size_t stored = 0;

	if (raw_size > LOG_MAX_RAW_SIZE)
		return -EMSGSIZE;
	if (raw_size) {
		if (buffer_reserve(&w->zbuf, &w->zcap, ZSTD_compressBound(raw_size)))
			return -ENOMEM;
		stored = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, payload, raw_size);
		if (ZSTD_isError(stored))
			return -EIO;
	}

	memset(&h, 0, sizeof(h));
	h.sync = LOG_FRAME_SYNC;
	h.type = d->type;
	h.flags = d->flags;
	h.stream = d->stream;
	h.count = d->count;
	h.first_ts = d->first_ts;
	h.last_ts = d->last_ts;
	h.raw_size = raw_size;
	h.stored_size = stored;
	h.payload_crc = stored ? crc32c(0, w->zbuf, stored) : 0;
	return emit_frame(w, &h, w->zbuf, record_index);
}

int log_write_frame(struct log_writer *w, const struct log_frame_desc *d,
		    const void *payload, size_t raw_size)
{
	int ret;

	if (w->error)
		return w->error;
	if (!w->meta_written && d->type != LOG_FRAME_META)
		return -EINVAL;
	if (d->type == LOG_FRAME_INDEX)
		return -EINVAL;		/* written by the writer itself */
	ret = write_frame_raw(w, d, payload, raw_size, true);
	if (ret == -EMSGSIZE || ret == -EINVAL)
		return ret;		/* caller error; the log is intact */
	if (ret) {
		w->error = ret;
		return ret;
	}
	if (d->type == LOG_FRAME_META)
		w->meta_written = true;
	return 0;
}

int log_write_stored(struct log_writer *w, const struct log_frame_header *src,
		     const void *stored)
{
	struct log_frame_header h = *src;
	int ret;

	if (w->error)
		return w->error;
	if ((!w->meta_written && h.type != LOG_FRAME_META) || h.type == LOG_FRAME_INDEX ||
	    h.raw_size > LOG_MAX_RAW_SIZE || h.stored_size > LOG_MAX_STORED_SIZE ||
	    (h.stored_size && crc32c(0, stored, h.stored_size) != h.payload_crc))
		return -EINVAL;
	ret = emit_frame(w, &h, stored, true);
	if (ret) {
		w->error = ret;
		return ret;
	}
	if (h.type == LOG_FRAME_META)
		w->meta_written = true;
	return 0;
}

/*
 * One column of n records of one type: the field at offset of each record
 * in order (rec: their numbers), coded as col says.  Column by column, so
 * that the loop's size and coding are fixed, which field by field in
 * record order they were not.
 */
static unsigned char *encode_column(unsigned char *to, const struct ev_column *col,
				    const unsigned char *src, const uint32_t *rec, uint32_t n,
				    const uint32_t *rec_off, const uint64_t *rec_dts)
{
	const unsigned char *base = src + col->offset;
	uint32_t prev32 = 0;

	switch (col->coding) {
	case EV_COL_DELTA:	/* ts: 8 bytes, from the previous record of any type */
		for (uint32_t k = 0; k < n; k++, to += 8)
			memcpy(to, &rec_dts[rec[k]], 8);
		return to;
	case EV_COL_DELTA_TYPE:	/* ring positions: 4 bytes, from the previous record of this type */
		for (uint32_t k = 0; k < n; k++, to += 4) {
			uint32_t v, d;

			memcpy(&v, base + rec_off[rec[k]], 4);
			d = v - prev32;
			prev32 = v;
			memcpy(to, &d, 4);
		}
		return to;
	}
	switch (col->size) {
	case 1:
		for (uint32_t k = 0; k < n; k++)
			*to++ = base[rec_off[rec[k]]];
		return to;
	case 2:
		for (uint32_t k = 0; k < n; k++, to += 2)
			memcpy(to, base + rec_off[rec[k]], 2);
		return to;
	case 4:
		for (uint32_t k = 0; k < n; k++, to += 4)
			memcpy(to, base + rec_off[rec[k]], 4);
		return to;
	case 8:
		for (uint32_t k = 0; k < n; k++, to += 8)
			memcpy(to, base + rec_off[rec[k]], 8);
		return to;
	default:
		for (uint32_t k = 0; k < n; k++, to += col->size)
			memcpy(to, base + rec_off[rec[k]], col->size);
		return to;
	}
}

static inline unsigned char *put_uvarint(unsigned char *to, uint64_t v)
{
	while (v >= 0x80) {
		*to++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*to++ = (unsigned char)v;
	return to;
}

static inline uint64_t zigzag64(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

/*
 * n values of width 4 or 8 at base in the records (rec, rec_off), as
 * varints of their difference from *prev, which is updated.  A 4-byte
 * difference is sign-extended first, so its zigzag fits 32 bits.  Inline
 * with a constant width: one loop of fixed size per caller.
 */
static inline __attribute__((always_inline)) unsigned char *
pack_values(unsigned char *to, const unsigned char *base, unsigned width,
	    const uint32_t *rec, uint32_t n, const uint32_t *rec_off, uint64_t *prev)
{
	uint64_t last = *prev;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t v = 0, d;

		memcpy(&v, base + rec_off[rec[k]], width);
		d = v - last;
		if (width == 4)
			d = (uint64_t)(int64_t)(int32_t)(uint32_t)d;
		to = put_uvarint(to, zigzag64(d));
		last = v;
	}
	*prev = last;
	return to;
}

/*
 * encode_column() for an EVENTS_PACKED payload (ev_column_packed_max()):
 * 4- and 8-byte values as varints of their difference from *prev, the
 * column's previous value, which is updated; other sizes as they are.
 */
static unsigned char *pack_column(unsigned char *to, const struct ev_column *col,
				  const unsigned char *src, const uint32_t *rec, uint32_t n,
				  const uint32_t *rec_off, const uint64_t *rec_dts, uint64_t *prev)
{
	const unsigned char *base = src + col->offset;

	if (col->coding == EV_COL_DELTA) {
		for (uint32_t k = 0; k < n; k++)
			to = put_uvarint(to, zigzag64(rec_dts[rec[k]]));
		return to;
	}
	if (col->size == 4)
		return pack_values(to, base, 4, rec, n, rec_off, prev);
	if (col->size == 8)
		return pack_values(to, base, 8, rec, n, rec_off, prev);
	return encode_column(to, col, src, rec, n, rec_off, rec_dts);
}

/*
 * Records taken per column before moving to the next: column by column
 * over a whole frame, each pass streamed the frame's megabyte from L3
 * again; in chunks of this many, the chunk's records stay in L1/L2 and
 * packing costs a sixth less (bench/RESULTS.md, "Packed columns").
 */
#define PACK_CHUNK 512

/*
 * The columns of n records of one type (cols, rec: their numbers) packed
 * at to.  Columns are packed a chunk of records at a time into their own
 * stretch of w->pack, then laid end to end.
 */
static unsigned char *pack_type(struct log_writer *w, unsigned char *to,
				const struct ev_columns *cols, const unsigned char *src,
				const uint32_t *rec, uint32_t n, const uint32_t *rec_off,
				const uint64_t *rec_dts)
{
	unsigned char *start[EV_MAX_COLUMNS], *end[EV_MAX_COLUMNS];
	uint64_t prev[EV_MAX_COLUMNS] = { 0 };
	unsigned char *at = w->pack;

	for (unsigned j = 0; j < cols->n; j++) {
		start[j] = end[j] = at;
		at += (size_t)n * ev_column_packed_max(&cols->col[j]);
	}
	for (uint32_t k = 0; k < n; k += PACK_CHUNK) {
		uint32_t m = n - k < PACK_CHUNK ? n - k : PACK_CHUNK;

		for (unsigned j = 0; j < cols->n; j++)
			end[j] = pack_column(end[j], &cols->col[j], src, rec + k, m, rec_off,
					     rec_dts, &prev[j]);
	}
	for (unsigned j = 0; j < cols->n; j++) {
		memcpy(to, start[j], (size_t)(end[j] - start[j]));
		to += end[j] - start[j];
	}
	return to;
}

/*
 * Records are in the host's byte order, which the recorder only runs on
 * little-endian hosts (the log's byte order): fields are copied as they
 * are, and differences taken on native integers.
 */
int log_write_events(struct log_writer *w, const struct log_frame_desc *d,
		     const void *records, size_t raw_size)
{
	const struct ev_columns *cols = w->columns;
	struct log_frame_desc cd = *d;
	const unsigned char *src = records;
	uint32_t n[EV_TYPE_LIMIT] = { 0 }, first[EV_TYPE_LIMIT], nrec = 0, max_rec;
	uint64_t prev_ts = 0, *rec_dts;
	uint32_t *rec_off, *by_type;
	unsigned char *dst, *to;
	size_t pos, out, pack;

	if (d->type != LOG_FRAME_EVENTS || raw_size > LOG_MAX_RAW_SIZE)
		return -EINVAL;
	max_rec = (uint32_t)(raw_size / EV_HEADER_SIZE);
	if (buffer_reserve(&w->rec_off, &w->rec_off_cap, max_rec * sizeof(uint32_t)) ||
	    buffer_reserve(&w->rec_dts, &w->rec_dts_cap, max_rec * sizeof(uint64_t)) ||
	    buffer_reserve(&w->by_type, &w->by_type_cap, max_rec * sizeof(uint32_t)))
		return -ENOMEM;
	rec_off = w->rec_off;
	rec_dts = w->rec_dts;
	by_type = w->by_type;
	/* pass 1: which types, how many, where; whole records of this build only */
	for (pos = 0; pos < raw_size; nrec++) {
		uint16_t t, size;
		uint64_t ts;

		if (raw_size - pos < EV_HEADER_SIZE)
			return -EINVAL;
		/* each position hangs on the last record's type: fetch ahead */
		__builtin_prefetch(src + pos + 512);
		memcpy(&t, src + pos + 16, sizeof(t));
		size = t < EV_TYPE_LIMIT ? w->type_size[t] : 0;
		if (!size || size > raw_size - pos)
			return -EINVAL;	/* nothing written */
		memcpy(&ts, src + pos + offsetof(struct ev_header, ts), sizeof(ts));
		rec_off[nrec] = (uint32_t)pos;
		rec_dts[nrec] = ts - prev_ts;
		prev_ts = ts;
		n[t]++;
		pos += size;
	}
	out = nrec;
	pack = 0;
	for (unsigned t = 0; t < EV_TYPE_LIMIT; t++) {
		size_t most = (size_t)n[t] * (w->fixed_columns ? cols[t].bytes : cols[t].packed_max);

		out += most;
		pack = most > pack ? most : pack;
	}
	if (buffer_reserve(&w->ebuf, &w->ecap, out) ||
	    (!w->fixed_columns && buffer_reserve(&w->pack, &w->pack_cap, pack)))
		return -ENOMEM;
	dst = w->ebuf;
	/* the type bytes, and the records grouped by type (in order) */
	for (unsigned t = 0, at = 0; t < EV_TYPE_LIMIT; t++) {
		first[t] = at;
		at += n[t];
	}
	for (uint32_t i = 0; i < nrec; i++) {
		uint16_t t;

		memcpy(&t, src + rec_off[i] + 16, sizeof(t));
		dst[i] = (unsigned char)t;
		by_type[first[t]++] = i;
	}
	/* pass 2: each type's columns (first[t] is now where its records end) */
	to = nrec ? dst + nrec : dst;
	for (unsigned t = 0; t < EV_TYPE_LIMIT; t++) {
		const uint32_t *rec = by_type + first[t] - n[t];

		if (!n[t])
			continue;
		if (!w->fixed_columns) {
			to = pack_type(w, to, &cols[t], src, rec, n[t], rec_off, rec_dts);
			continue;
		}
		for (unsigned j = 0; j < cols[t].n; j++)
			to = encode_column(to, &cols[t].col[j], src, rec, n[t], rec_off, rec_dts);
	}
	cd.type = w->fixed_columns ? LOG_FRAME_EVENTS_COLUMNS : LOG_FRAME_EVENTS_PACKED;
	cd.flags |= LOG_FRAME_F_MUST_UNDERSTAND;
	cd.count = nrec;
	return log_write_frame(w, &cd, dst, (size_t)(to - dst));
}

int log_write_meta(struct log_writer *w, const char *json, size_t len)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_META,
		.flags = LOG_FRAME_F_MUST_UNDERSTAND,
		.stream = LOG_STREAM_GLOBAL,
		.count = 1,
	};

	if (w->meta_written)
		return -EINVAL;
	if (len > LOG_MAX_META_SIZE)
		return -EMSGSIZE;
	return log_write_frame(w, &d, json, len);
}

static void writer_free(struct log_writer *w)
{
	for (size_t i = 0; i <= LOG_FRAME_INDEX; i++)
		free(w->seq[i]);
	free(w->index);
	free(w->zbuf);
	free(w->ebuf);
	free(w->rec_off);
	free(w->rec_dts);
	free(w->by_type);
	free(w->pack);
	ZSTD_freeCCtx(w->cctx);
	free(w);
}

int log_writer_finish(struct log_writer *w, const char *end_json,
		      char *err, size_t errlen)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_END,
		.stream = LOG_STREAM_GLOBAL,
		.count = 1,
	};
	int ret = 0;

	/* what was kept for the END frame is for these two */
	w->reserve_end = false;
	if (end_json && w->meta_written) {
		/* After a failure (disk full) it goes into the reserve. */
		ret = write_frame_raw(w, &d, end_json, strlen(end_json), true);
		if (ret)
			set_err(err, errlen, ret, "cannot write the end frame: %s",
				strerror(-ret));
	}
	if (!ret && w->meta_written) {
		ret = flush_index(w);
		if (ret) {
			/* The END frame is already complete; a missing
			 * index only costs the reader a scan. */
			cut_back(w);
			ret = 0;
		}
	}
	/* Give back what is left of the reserve past the end of the file. */
	if (w->reserved && ftruncate(w->fd, (off_t)w->offset) < 0 && !ret)
		ret = set_err(err, errlen, -errno, "cannot truncate: %s", strerror(errno));
	if (fsync(w->fd) < 0 && !ret)
		ret = set_err(err, errlen, -errno, "fsync failed: %s", strerror(errno));
	if (close(w->fd) < 0 && !ret)
		ret = set_err(err, errlen, -errno, "close failed: %s", strerror(errno));
	writer_free(w);
	return ret;
}

void log_writer_abort(struct log_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
}

uint64_t log_writer_bytes(const struct log_writer *w) { return w->offset; }
uint64_t log_writer_raw_bytes(const struct log_writer *w) { return w->raw_bytes; }
uint64_t log_writer_frames(const struct log_writer *w) { return w->frames; }
int log_writer_error(const struct log_writer *w) { return w->error; }

int log_writer_sync(struct log_writer *w)
{
	return fdatasync(w->fd) < 0 ? -errno : 0;
}

void log_writer_recording_id(const struct log_writer *w, uint8_t id[16])
{
	memcpy(id, w->recording_id, 16);
}
