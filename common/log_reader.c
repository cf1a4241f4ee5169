// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "buffer.h"
#include "crc32c.h"
#include "log_reader.h"

/* Largest preamble or frame header a reader accepts (newer minors may grow
 * them; the checksum is always their last 4 bytes). */
#define MAX_HEADER_SIZE 4096

struct payload_slot {
	void *buf;
	size_t cap;
};

/* What fetching a payload writes: see log_decoder_new(). */
struct log_decoder {
	ZSTD_DCtx *dctx;
	void *zbuf;			/* the stored (compressed) payload */
	size_t zcap;
	void *cbuf;			/* an EVENTS_COLUMNS/_PACKED payload, decompressed */
	size_t ccap;
	uint32_t *rec_off;		/* columns_to_records(): offsets by type */
	size_t rec_off_cap;
};

struct log_reader {
	char *path;
	int fd;
	uint64_t size;
	uint64_t pos;			/* next frame header */
	uint64_t frame_index;
	struct log_info info;
	struct json_doc meta;
	struct ev_layout_map layout;
	bool end_seen;
	enum log_stop stop;
	uint64_t stop_offset;
	char stop_msg[LOG_MSG_LEN];
	struct log_decoder *dec;	/* the reader's own */
	struct payload_slot slots[LOG_READER_SLOTS];
};

static const char *const frame_names[] = {
	[LOG_FRAME_META] = "META", [LOG_FRAME_EVENTS] = "EVENTS",
	[LOG_FRAME_LOSS] = "LOSS", [LOG_FRAME_TASKS] = "TASKS",
	[LOG_FRAME_CLOCK] = "CLOCK", [LOG_FRAME_STATS] = "STATS",
	[LOG_FRAME_END] = "END", [LOG_FRAME_INDEX] = "INDEX",
	/* EVENTS_COLUMNS (2.x) and EVENTS_PACKED (3.x) are reported as EVENTS */
};

const char *log_frame_type_name(unsigned type)
{
	static __thread char buf[16];

	if (type < sizeof(frame_names) / sizeof(frame_names[0]) && frame_names[type])
		return frame_names[type];
	snprintf(buf, sizeof(buf), "type %u", type);
	return buf;
}

const char *log_stop_name(enum log_stop stop)
{
	switch (stop) {
	case LOG_STOP_NONE: return "not stopped";
	case LOG_STOP_END: return "end frame";
	case LOG_STOP_EOF: return "end of file without end frame";
	case LOG_STOP_TRUNCATED: return "truncated frame";
	case LOG_STOP_CORRUPT: return "damaged frame header";
	case LOG_STOP_UNSUPPORTED: return "unsupported frame";
	case LOG_STOP_IO: return "read error";
	}
	return "?";
}

static void msgf(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void msgf(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	/* Messages quote names from the file (record types, fields): keep
	 * them one line, with nothing a terminal would interpret. */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Read exactly len bytes at off; -1 on I/O error, or fewer bytes at EOF. */
static ssize_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static void decode_frame_header(const unsigned char *p, struct log_frame_header *h)
{
	h->sync = le32(p + 0);
	h->type = le16(p + 4);
	h->flags = le16(p + 6);
	h->stream = le32(p + 8);
	h->count = le32(p + 12);
	h->seq = le64(p + 16);
	h->first_ts = le64(p + 24);
	h->last_ts = le64(p + 32);
	h->raw_size = le64(p + 40);
	h->stored_size = le64(p + 48);
	h->payload_crc = le32(p + 56);
	h->header_crc = le32(p + 60);
}

static void describe_frame(const struct log_frame *f, char *buf, size_t len)
{
	if (f->h.type == LOG_FRAME_EVENTS)
		snprintf(buf, len, "frame %" PRIu64 " (EVENTS, CPU %u)", f->index,
			 f->h.stream);
	else
		snprintf(buf, len, "frame %" PRIu64 " (%s)", f->index,
			 log_frame_type_name(f->h.type));
}

/*
 * Read and check the frame header at off.  Returns 1 (frame), 0 (clean end
 * of file) or -1 (r->stop set).
 */
static int read_frame_header(struct log_reader *r, uint64_t off, struct log_frame *f)
{
	unsigned char skip[LOG_SKIPPABLE_HDR_SIZE];
	unsigned char hbuf[MAX_HEADER_SIZE];
	uint64_t remaining = r->size - off;
	uint32_t magic, hsize, limit;
	char what[96];
	ssize_t n;

	r->stop_offset = off;
	if (remaining == 0)
		return 0;
	if (remaining < sizeof(skip)) {
		r->stop = LOG_STOP_TRUNCATED;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": file ends %" PRIu64
		     " bytes into the header of frame %" PRIu64 " (truncated)",
		     r->path, off, remaining, r->frame_index);
		return -1;
	}
	n = pread_full(r->fd, skip, sizeof(skip), off);
	if (n != (ssize_t)sizeof(skip))
		goto io_error;
	magic = le32(skip);
	hsize = le32(skip + 4);
	if (magic != LOG_SKIPPABLE_FRAME) {
		r->stop = LOG_STOP_CORRUPT;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": expected frame %" PRIu64
		     " (magic 0x%08x), found 0x%08x: the log is damaged here",
		     r->path, off, r->frame_index, LOG_SKIPPABLE_FRAME, magic);
		return -1;
	}
	if (hsize < sizeof(struct log_frame_header) || hsize > MAX_HEADER_SIZE || hsize % 4) {
		r->stop = LOG_STOP_CORRUPT;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": frame %" PRIu64
		     " has an invalid header size %u: the log is damaged here",
		     r->path, off, r->frame_index, hsize);
		return -1;
	}
	if (remaining - sizeof(skip) < hsize) {
		r->stop = LOG_STOP_TRUNCATED;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": file ends inside the header of frame %"
		     PRIu64 " (%" PRIu64 " of %u bytes present; truncated)",
		     r->path, off, r->frame_index, remaining - sizeof(skip), hsize);
		return -1;
	}
	n = pread_full(r->fd, hbuf, hsize, off + sizeof(skip));
	if (n != (ssize_t)hsize)
		goto io_error;
	if (crc32c(0, hbuf, hsize - 4) != le32(hbuf + hsize - 4)) {
		r->stop = LOG_STOP_CORRUPT;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": frame %" PRIu64
		     " header checksum mismatch: the log is damaged here",
		     r->path, off, r->frame_index);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	decode_frame_header(hbuf, &f->h);
	f->offset = off;
	f->payload_offset = off + sizeof(skip) + hsize;
	f->index = r->frame_index;
	if ((f->h.type == LOG_FRAME_EVENTS_COLUMNS && r->info.major >= 2) ||
	    (f->h.type == LOG_FRAME_EVENTS_PACKED && r->info.major >= 3)) {
		/* the encoding is the reader's business: callers see EVENTS */
		f->packed = f->h.type == LOG_FRAME_EVENTS_PACKED;
		f->h.type = LOG_FRAME_EVENTS;
		f->columns = true;
	}
	describe_frame(f, what, sizeof(what));
	if (f->h.sync != LOG_FRAME_SYNC) {
		r->stop = LOG_STOP_CORRUPT;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": %s has a bad sync word 0x%08x",
		     r->path, off, what, f->h.sync);
		return -1;
	}
	limit = f->h.type == LOG_FRAME_META ? LOG_MAX_META_SIZE : LOG_MAX_RAW_SIZE;
	if (f->h.raw_size > limit || f->h.stored_size > LOG_MAX_STORED_SIZE ||
	    (f->h.raw_size == 0) != (f->h.stored_size == 0)) {
		r->stop = LOG_STOP_CORRUPT;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": %s declares implausible sizes (raw %"
		     PRIu64 ", stored %" PRIu64 ")", r->path, off, what,
		     (uint64_t)f->h.raw_size, (uint64_t)f->h.stored_size);
		return -1;
	}
	if (r->size - f->payload_offset < f->h.stored_size) {
		r->stop = LOG_STOP_TRUNCATED;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": %s is truncated: its payload needs %"
		     PRIu64 " bytes, the file has %" PRIu64 " left",
		     r->path, off, what, (uint64_t)f->h.stored_size,
		     r->size - f->payload_offset);
		return -1;
	}
	if (f->h.type == 0 || (f->h.type >= sizeof(frame_names) / sizeof(frame_names[0])
			       && (f->h.flags & LOG_FRAME_F_MUST_UNDERSTAND))) {
		r->stop = LOG_STOP_UNSUPPORTED;
		msgf(r->stop_msg, sizeof(r->stop_msg),
		     "%s: offset %" PRIu64 ": %s must be understood, but this uring-convert does not know it; upgrade ringside",
		     r->path, off, what);
		return -1;
	}
	return 1;

io_error:
	r->stop = LOG_STOP_IO;
	msgf(r->stop_msg, sizeof(r->stop_msg), "%s: offset %" PRIu64 ": read error: %s",
	     r->path, off, n < 0 ? strerror(errno) : "unexpected end of file");
	return -1;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void put_le64(unsigned char *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * One column of n records of a type: the values at from, one per record,
 * into the records at out + offs[k].  Returns where the next column
 * starts.  EV_COL_DELTA values are stored as they are (see the caller).
 */
static const unsigned char *fill_column(unsigned char *out, const uint32_t *offs, uint32_t n,
					const struct ev_column *col, const unsigned char *from)
{
	unsigned char *to = out + col->offset;
	uint64_t prev = 0;

	switch (col->coding) {
	case EV_COL_DELTA_TYPE:	/* 4 bytes, from the previous record of the type */
		for (uint32_t k = 0; k < n; k++, from += col->size) {
			prev += le32(from);
			put_le32(to + offs[k], (uint32_t)prev);
		}
		return from;
	}
	switch (col->size) {
	case 1:
		for (uint32_t k = 0; k < n; k++)
			to[offs[k]] = from[k];
		break;
	case 2:
		for (uint32_t k = 0; k < n; k++)
			memcpy(to + offs[k], from + 2 * k, 2);
		break;
	case 4:
		for (uint32_t k = 0; k < n; k++)
			memcpy(to + offs[k], from + 4 * k, 4);
		break;
	case 8:
		for (uint32_t k = 0; k < n; k++)
			memcpy(to + offs[k], from + 8 * k, 8);
		break;
	default:
		for (uint32_t k = 0; k < n; k++)
			memcpy(to + offs[k], from + (size_t)col->size * k, col->size);
	}
	return from + (size_t)col->size * n;
}

/*
 * One varint of at most max bytes at p (uring-log(5), EVENTS_PACKED), into
 * *v.  NULL when it runs past end or past max bytes, or, in its tenth byte,
 * past 64 bits.
 */
static inline const unsigned char *get_uvarint(const unsigned char *p, const unsigned char *end,
					       unsigned max, uint64_t *v)
{
	uint64_t x = 0;

	if ((size_t)(end - p) > max)
		end = p + max;
	for (unsigned shift = 0; p < end; shift += 7) {
		unsigned char b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift == 63 && b > 1)
				return NULL;
			*v = x;
			return p;
		}
	}
	return NULL;
}

static inline uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

enum packed_kind { PACKED_DELTA, PACKED_SUM32, PACKED_SUM64 };

/*
 * The values of one packed column (see fill_column_packed()), for one
 * kind: inlined once per kind, so that the coding and the size are
 * decided once a column, not once a value (the stores into the records
 * may alias anything, so the compiler would read them again each time).
 * Most values take one byte: those skip get_uvarint().
 */
static inline __attribute__((always_inline)) const unsigned char *
packed_values(unsigned char *to, const uint32_t *offs, uint32_t n, const unsigned char *from,
	      const unsigned char *end, unsigned max, bool four, enum packed_kind kind)
{
	uint64_t v, last = 0;

	for (uint32_t k = 0; k < n; k++) {
		if (from < end && *from < 0x80)
			v = *from++;
		else if (!(from = get_uvarint(from, end, max, &v)))
			return NULL;
		if (four && v > UINT32_MAX)
			return NULL;
		switch (kind) {
		case PACKED_DELTA:
			put_le64(to + offs[k], unzigzag(v));
			break;
		case PACKED_SUM32:
			last = (uint32_t)(last + unzigzag(v));
			put_le32(to + offs[k], (uint32_t)last);
			break;
		case PACKED_SUM64:
			last += unzigzag(v);
			put_le64(to + offs[k], last);
			break;
		}
	}
	return from;
}

/*
 * fill_column() for an EVENTS_PACKED payload ending at end.  EV_COL_DELTA
 * values are stored as the differences they are (see the caller), other
 * 4- and 8-byte ones added up.  NULL, with the problem in *why, when a
 * value runs past the payload or does not fit its field.
 */
static const unsigned char *fill_column_packed(unsigned char *out, const uint32_t *offs,
					       uint32_t n, const struct ev_column *col,
					       const unsigned char *from,
					       const unsigned char *end, const char **why)
{
	unsigned char *to = out + col->offset;
	unsigned max = ev_column_packed_max(col);
	bool four = col->size == 4;

	if (col->size != 4 && col->size != 8) {
		if ((size_t)(end - from) < (size_t)col->size * n) {
			*why = "runs past the payload's end";
			return NULL;
		}
		return fill_column(out, offs, n, col, from);
	}
	if (col->coding == EV_COL_DELTA)
		from = packed_values(to, offs, n, from, end, max, four, PACKED_DELTA);
	else if (four)
		from = packed_values(to, offs, n, from, end, max, true, PACKED_SUM32);
	else
		from = packed_values(to, offs, n, from, end, max, false, PACKED_SUM64);
	if (!from)
		*why = "has a value that runs past the payload's end or does not fit the field";
	return from;
}

/*
 * Rebuild the records of an EVENTS_COLUMNS payload, or EVENTS_PACKED if
 * packed, (src, len bytes, count >= 1 records) into *buf, with the log's own layouts.  Returns the
 * records' size, or 0 with a message in why.
 */
static size_t columns_to_records(const struct log_reader *r, struct log_decoder *d,
				 const unsigned char *src, size_t len, uint32_t count, bool packed,
				 void **buf, size_t *cap, char *why, size_t whylen)
{
	const struct ev_layout_map *map = &r->layout;
	uint32_t n[EV_TYPE_LIMIT] = { 0 }, next[EV_TYPE_LIMIT];
	uint16_t delta_off[EV_TYPE_LIMIT][EV_MAX_COLUMNS];
	uint8_t ndelta[EV_TYPE_LIMIT];
	size_t pos = count, size = 0;
	const unsigned char *from;
	uint64_t prev_ts = 0;
	unsigned char *out;

	if (count > len) {
		snprintf(why, whylen, "%u records declared, but the payload has %zu bytes",
			 count, len);
		return 0;
	}
	for (uint32_t i = 0; i < count; i++) {
		const struct ev_type_map *m = &map->types[src[i] % EV_TYPE_LIMIT];

		if (src[i] >= EV_TYPE_LIMIT || !m->present || m->columns.too_many) {
			snprintf(why, whylen, "record %u has type %u, %s", i, src[i],
				 src[i] < EV_TYPE_LIMIT && m->present ?
				 "with more fields than this uring-convert can hold" :
				 "which the metadata does not describe");
			return 0;
		}
		n[src[i]]++;
	}
	for (unsigned t = 0; t < EV_TYPE_LIMIT; t++) {
		const struct ev_columns *c = &map->types[t].columns;

		for (unsigned j = 0; n[t] && j < c->n; j++)
			pos += (size_t)n[t] * c->col[j].size;
		size += (size_t)n[t] * map->types[t].log_size;
	}
	/* packed values take from 1 to ev_column_packed_max() bytes: checked below */
	if ((!packed && pos != len) || size > LOG_MAX_RAW_SIZE) {
		snprintf(why, whylen, "the columns of %u records take %zu bytes, the payload has %zu",
			 count, pos, len);
		return 0;
	}
	if (buffer_reserve(buf, cap, size) ||
	    buffer_reserve((void **)&d->rec_off, &d->rec_off_cap, (size_t)count * sizeof(uint32_t))) {
		snprintf(why, whylen, "out of memory");
		return 0;
	}
	out = *buf;
	/*
	 * Every record's type and zeroed gaps in place, and its offset,
	 * grouped by type (a counting sort).  Then the columns are filled one
	 * at a time, the coding and the size decided once per column, not
	 * per value, which record by record cost every value.
	 */
	for (unsigned t = 0, k = 0; t < EV_TYPE_LIMIT; k += n[t], t++)
		next[t] = k;
	for (uint32_t i = 0, off = 0; i < count; i++) {
		const struct ev_type_map *m = &map->types[src[i]];

		d->rec_off[next[src[i]]++] = off;
		if (!m->columns.covers_record)
			memset(out + off, 0, m->log_size);
		out[off + m->log_type_offset] = src[i];
		out[off + m->log_type_offset + 1] = 0;
		off += m->log_size;
	}
	from = src + count;
	for (unsigned t = 0, k = 0; t < EV_TYPE_LIMIT; k += n[t], t++) {
		const struct ev_columns *c = &map->types[t].columns;

		for (unsigned j = 0; n[t] && j < c->n; j++) {
			const char *problem;

			if (!packed) {
				from = fill_column(out, d->rec_off + k, n[t], &c->col[j], from);
				continue;
			}
			from = fill_column_packed(out, d->rec_off + k, n[t], &c->col[j], from,
						  src + len, &problem);
			if (!from) {
				snprintf(why, whylen, "the column of the field at offset %u of type %u %s",
					 c->col[j].offset, t, problem);
				return 0;
			}
		}
	}
	if (from != src + len) {
		snprintf(why, whylen, "%zu bytes are left after the last column",
			 (size_t)(src + len - from));
		return 0;
	}
	/* EV_COL_DELTA ("ts") chains through all the payload's records in order */
	for (unsigned t = 0; t < EV_TYPE_LIMIT; t++) {
		const struct ev_columns *c = &map->types[t].columns;

		ndelta[t] = 0;
		for (unsigned j = 0; n[t] && j < c->n; j++)
			if (c->col[j].coding == EV_COL_DELTA)
				delta_off[t][ndelta[t]++] = c->col[j].offset;
	}
	for (uint32_t i = 0, off = 0; i < count; i++) {
		unsigned t = src[i];

		for (unsigned j = 0; j < ndelta[t]; j++) {
			unsigned char *p = out + off + delta_off[t][j];

			prev_ts += le64(p);
			put_le64(p, prev_ts);
		}
		off += map->types[t].log_size;
	}
	return size;
}

struct log_decoder *log_decoder_new(void)
{
	struct log_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->dctx = ZSTD_createDCtx();
	if (!d->dctx) {
		free(d);
		return NULL;
	}
	return d;
}

void log_decoder_free(struct log_decoder *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->dctx);
	free(d->zbuf);
	free(d->cbuf);
	free(d->rec_off);
	free(d);
}

int log_reader_payload_into(const struct log_reader *r, struct log_decoder *d,
			    const struct log_frame *f, void **buf, size_t *cap, size_t *len,
			    char *msg, size_t msglen)
{
	const struct log_frame_header *h = &f->h;
	char what[96];
	unsigned long long content;
	size_t got;

	if (!d)
		d = r->dec;
	describe_frame(f, what, sizeof(what));
	*len = 0;
	if (!h->stored_size && f->columns && h->count) {
		/* found by fuzz_reader: an empty payload read as 0 records */
		msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: %u records declared, but the payload is empty (damaged data)",
		     r->path, f->payload_offset, what, h->count);
		return -1;
	}
	if (!h->stored_size)
		return buffer_reserve(buf, cap, 1) ? -1 : 0;
	/* columns are decompressed into the reader's buffer, then rebuilt */
	if (buffer_reserve(&d->zbuf, &d->zcap, h->stored_size) ||
	    (f->columns ? buffer_reserve(&d->cbuf, &d->ccap, h->raw_size) :
	     buffer_reserve(buf, cap, h->raw_size))) {
		msgf(msg, msglen, "%s: %s: out of memory", r->path, what);
		return -1;
	}
	if (pread_full(r->fd, d->zbuf, h->stored_size, f->payload_offset) !=
	    (ssize_t)h->stored_size) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: cannot read payload: %s",
		     r->path, f->payload_offset, what, strerror(errno));
		return -1;
	}
	if (crc32c(0, d->zbuf, h->stored_size) != h->payload_crc) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: payload checksum mismatch (damaged data)",
		     r->path, f->payload_offset, what);
		return -1;
	}
	content = ZSTD_getFrameContentSize(d->zbuf, h->stored_size);
	if (content != h->raw_size ||
	    ZSTD_findFrameCompressedSize(d->zbuf, h->stored_size) != h->stored_size) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: payload is not one zstd frame of %" PRIu64 " bytes",
		     r->path, f->payload_offset, what, (uint64_t)h->raw_size);
		return -1;
	}
	got = ZSTD_decompressDCtx(d->dctx, f->columns ? d->cbuf : *buf, h->raw_size,
				  d->zbuf, h->stored_size);
	if (ZSTD_isError(got) || got != h->raw_size) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: cannot decompress payload: %s",
		     r->path, f->payload_offset, what,
		     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short output");
		return -1;
	}
	if (f->columns) {
		char why[160];

		got = columns_to_records(r, d, d->cbuf, got, h->count, f->packed, buf, cap,
					 why, sizeof(why));
		if (!got) {
			msgf(msg, msglen, "%s: offset %" PRIu64 ": %s: %s (damaged data)",
			     r->path, f->payload_offset, what, why);
			return -1;
		}
	}
	*len = got;
	return 0;
}

int log_reader_payload(struct log_reader *r, const struct log_frame *f, unsigned slot,
		       const void **buf, size_t *len, char *msg, size_t msglen)
{
	struct payload_slot *s;
	int ret;

	if (slot >= LOG_READER_SLOTS) {
		msgf(msg, msglen, "%s: internal error: bad payload slot", r->path);
		return -1;
	}
	s = &r->slots[slot];
	ret = log_reader_payload_into(r, NULL, f, &s->buf, &s->cap, len, msg, msglen);
	*buf = s->buf;
	return ret;
}

static void format_uuid(const uint8_t id[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	int o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[id[i] >> 4];
		out[o++] = hex[id[i] & 15];
	}
	out[o] = '\0';
}

static int read_preamble(struct log_reader *r, char *msg, size_t msglen)
{
	unsigned char skip[LOG_SKIPPABLE_HDR_SIZE];
	unsigned char buf[MAX_HEADER_SIZE];
	uint32_t size;

	if (r->size < sizeof(skip) + sizeof(struct log_preamble)) {
		msgf(msg, msglen, "%s: offset 0: %s (%" PRIu64 " bytes); not a ringside log",
		     r->path, r->size ? "file too short" : "file is empty", r->size);
		return -EINVAL;
	}
	if (pread_full(r->fd, skip, sizeof(skip), 0) != (ssize_t)sizeof(skip)) {
		msgf(msg, msglen, "%s: offset 0: read error: %s", r->path, strerror(errno));
		return -EIO;
	}
	size = le32(skip + 4);
	if (le32(skip) != LOG_SKIPPABLE_PREAMBLE || size < sizeof(struct log_preamble) ||
	    size > MAX_HEADER_SIZE || size % 4 ||
	    pread_full(r->fd, buf, size, sizeof(skip)) != (ssize_t)size ||
	    memcmp(buf, LOG_MAGIC, 8)) {
		msgf(msg, msglen, "%s: offset 0: not a ringside log (no RINGSIDE preamble)",
		     r->path);
		return -EINVAL;
	}
	if (crc32c(0, buf, size - 4) != le32(buf + size - 4)) {
		msgf(msg, msglen, "%s: offset %zu: preamble checksum mismatch: the log is damaged",
		     r->path, sizeof(skip));
		return -EINVAL;
	}
	r->info.major = le16(buf + 8);
	r->info.minor = le16(buf + 10);
	memcpy(r->info.recording_id, buf + 16, 16);
	format_uuid(r->info.recording_id, r->info.recording_id_str);
	r->info.created_realtime_ns = le64(buf + 32);
	if (r->info.major > LOG_FORMAT_MAJOR || r->info.major == 0) {
		msgf(msg, msglen,
		     "%s: log format %u.%u is %s this uring-convert supports (%d.x); %s",
		     r->path, r->info.major, r->info.minor,
		     r->info.major ? "newer than what" : "not a version",
		     LOG_FORMAT_MAJOR,
		     r->info.major ? "upgrade ringside to read it" : "the file is damaged");
		return -EPROTONOSUPPORT;
	}
	r->pos = sizeof(skip) + size;
	return 0;
}

static void load_meta_fields(struct log_reader *r)
{
	const struct json_value *root = &r->meta.root;
	const struct json_value *clock = json_get(json_get(root, "clock"), "start");
	const struct json_value *host = json_get(root, "host");
	uint64_t v;

	r->info.meta = root;
	if (clock && json_get_u64(clock, "boot_ns", &r->info.start_clock.boot_ns) &&
	    json_get_u64(clock, "real_ns", &r->info.start_clock.real_ns)) {
		json_get_u64(clock, "mono_ns", &r->info.start_clock.mono_ns);
		json_get_u64(clock, "tai_ns", &r->info.start_clock.tai_ns);
		json_get_u64(clock, "uncertainty_ns", &r->info.start_clock.uncertainty_ns);
		r->info.have_start_clock = true;
	}
	if (json_get_u64(host, "cpus", &v) && v <= 65536)
		r->info.ncpus = (unsigned)v;
}

static int read_meta(struct log_reader *r, char *msg, size_t msglen)
{
	struct log_frame f;
	const void *buf;
	size_t len;
	char err[LOG_MSG_LEN];
	int ret;

	ret = read_frame_header(r, r->pos, &f);
	if (ret <= 0) {
		if (ret == 0)
			msgf(msg, msglen, "%s: offset %" PRIu64 ": log ends before its metadata frame",
			     r->path, r->pos);
		else
			msgf(msg, msglen, "%s (no metadata: the log is unusable)", r->stop_msg);
		return -EINVAL;
	}
	if (f.h.type != LOG_FRAME_META) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": first frame is %s, not META",
		     r->path, f.offset, log_frame_type_name(f.h.type));
		return -EINVAL;
	}
	if (log_reader_payload(r, &f, 0, &buf, &len, err, sizeof(err))) {
		msgf(msg, msglen, "%s (no metadata: the log is unusable)", err);
		return -EINVAL;
	}
	if (json_parse(buf, len, &r->meta, err, sizeof(err))) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": metadata is not valid JSON: %s",
		     r->path, f.payload_offset, err);
		return -EINVAL;
	}
	if (ev_layout_map_build(&r->layout, json_get(&r->meta.root, "records"),
				err, sizeof(err))) {
		msgf(msg, msglen, "%s: offset %" PRIu64 ": metadata: %s",
		     r->path, f.payload_offset, err);
		return -EINVAL;
	}
	load_meta_fields(r);
	r->pos = f.payload_offset + f.h.stored_size;
	r->frame_index = 1;
	return 0;
}

int log_reader_open(struct log_reader **rp, const char *path, char *msg, size_t msglen)
{
	struct log_reader *r;
	struct stat st;
	int ret;

	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		msgf(msg, msglen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->fd = -1;
	r->path = strdup(path);
	r->dec = log_decoder_new();
	if (!r->path || !r->dec) {
		msgf(msg, msglen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto fail;
	}
	/* O_NONBLOCK: opening a FIFO would wait for a writer forever; it is
	 * refused below like any file that is not regular.  (Reads of a
	 * regular file ignore the flag.) */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		ret = -errno;
		msgf(msg, msglen, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) < 0) {
		ret = -errno;
		msgf(msg, msglen, "%s: cannot stat: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		msgf(msg, msglen, "%s: is a directory, not a log", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		msgf(msg, msglen, "%s: not a regular file (logs are read by offset)", path);
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	r->info.file_size = r->size;
	ret = read_preamble(r, msg, msglen);
	if (ret)
		goto fail;
	ret = read_meta(r, msg, msglen);
	if (ret)
		goto fail;
	*rp = r;
	return 0;
fail:
	log_reader_close(r);
	return ret;
}

void log_reader_close(struct log_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	json_doc_free(&r->meta);
	ev_layout_map_free(&r->layout);
	log_decoder_free(r->dec);
	for (int i = 0; i < LOG_READER_SLOTS; i++)
		free(r->slots[i].buf);
	free(r->path);
	free(r);
}

const struct log_info *log_reader_info(const struct log_reader *r) { return &r->info; }
const struct ev_layout_map *log_reader_layout(const struct log_reader *r) { return &r->layout; }
const char *log_reader_path(const struct log_reader *r) { return r->path; }

int log_reader_next(struct log_reader *r, struct log_frame *f)
{
	int ret;

	if (r->stop != LOG_STOP_NONE)
		return 0;
	ret = read_frame_header(r, r->pos, f);
	if (ret == 0) {
		r->stop = r->end_seen ? LOG_STOP_END : LOG_STOP_EOF;
		if (!r->end_seen)
			msgf(r->stop_msg, sizeof(r->stop_msg),
			     "%s: offset %" PRIu64 ": log ends without an end frame (the recorder did not stop cleanly); all %" PRIu64 " frames before it are complete",
			     r->path, r->pos, r->frame_index);
		return 0;
	}
	if (ret < 0)
		return 0;
	if (f->h.type == LOG_FRAME_END)
		r->end_seen = true;
	r->pos = f->payload_offset + f->h.stored_size;
	r->frame_index++;
	return 1;
}

enum log_stop log_reader_stop(const struct log_reader *r, const char **msg,
			      uint64_t *offset)
{
	if (msg)
		*msg = r->stop_msg;
	if (offset)
		*offset = r->stop_offset;
	return r->stop;
}

int log_next_record(const struct ev_layout_map *map, const void *payload, size_t len,
		    size_t *pos, const struct ev_header **rec, bool *known,
		    void *scratch, char *msg, size_t msglen)
{
	const unsigned char *p = (const unsigned char *)payload + *pos;
	const struct ev_type_map *m;
	unsigned type;

	if (*pos >= len)
		return 0;
	if (len - *pos < EV_HEADER_SIZE) {
		msgf(msg, msglen, "payload offset %zu: %zu trailing bytes are not a record",
		     *pos, len - *pos);
		return -1;
	}
	type = le16(p + 16);
	m = type < EV_TYPE_LIMIT ? &map->types[type] : NULL;
	if (!m || !m->present) {
		msgf(msg, msglen, "payload offset %zu: record type %u is not described in the metadata",
		     *pos, type);
		return -1;
	}
	if (len - *pos < m->log_size) {
		msgf(msg, msglen, "payload offset %zu: record type %s (%u bytes) runs past the end of the payload (%zu bytes)",
		     *pos, m->log_name, m->log_size, len);
		return -1;
	}
	*known = m->known;
	*rec = m->known ? ev_layout_normalize(map, type, p, scratch) : (const void *)p;
	*pos += m->log_size;
	return 1;
}
