// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Fuzz target: the log reader, every frame, payload and record. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "event_layout.h"
#include "fuzz_input.h"
#include "fuzz_targets.h"
#include "json.h"
#include "log_reader.h"

/* A message for the user: one non-empty line of printable characters. */
static void check_line(const char *what, const char *msg, const char *path)
{
	size_t len = strlen(msg);

	if (!len)
		fuzz_fail("%s: empty message", what);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			fuzz_fail("%s: control character 0x%02x at %zu in message: %s", what,
				  (unsigned char)msg[i], i, msg);
	if (path && strncmp(msg, path, strlen(path)))
		fuzz_fail("%s: message does not name the file %s: %s", what, path, msg);
}

/* Read every byte (the sanitizers catch anything out of bounds). */
static unsigned touch(const void *p, size_t len)
{
	const unsigned char *c = p;
	unsigned sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += c[i];
	return sum;
}

static void walk_records(const struct ev_layout_map *map, const void *buf, size_t len,
			 const struct log_frame *f)
{
	static _Alignas(8) unsigned char scratch[EV_RECORD_MAX];
	const struct ev_header *rec;
	char msg[LOG_MSG_LEN];
	size_t pos = 0, n = 0;
	bool known;
	int ret;

	while ((ret = log_next_record(map, buf, len, &pos, &rec, &known, scratch, msg,
				      sizeof(msg))) > 0) {
		const unsigned char *raw = (const unsigned char *)rec;
		unsigned type = rec->type;
		const struct ev_type_map *m = &map->types[type < EV_TYPE_LIMIT ? type : 0];

		if (pos > len)
			fuzz_fail("frame %" PRIu64 ": record ends at %zu, past the payload (%zu)",
				  f->index, pos, len);
		if (type >= EV_TYPE_LIMIT || !m->present)
			fuzz_fail("frame %" PRIu64 ": record of undescribed type %u returned",
				  f->index, type);
		if (known != m->known)
			fuzz_fail("record type %u: known %d, map says %d", type, known, m->known);
		if (known) {
			const struct ev_type_info *t = ev_type_info(type);

			if (!t)
				fuzz_fail("record type %u reported known but has no layout", type);
			touch(rec, t->size);
			if (raw != scratch && raw != (const unsigned char *)buf + pos - m->log_size)
				fuzz_fail("record type %u: pointer neither in scratch nor in the payload",
					  type);
		} else {
			touch(rec, m->log_size);
		}
		n++;
	}
	if (ret < 0)
		check_line("log_next_record", msg, NULL);
	/* rebuilt from columns: exactly the declared records, all readable */
	if (f->columns && (ret < 0 || n != f->h.count))
		fuzz_fail("frame %" PRIu64 ": %zu records rebuilt from columns (%s), header says %u",
			  f->index, n, ret < 0 ? msg : "no error", f->h.count);
}

int fuzz_reader_one(const uint8_t *data, size_t size)
{
	struct fuzz_log l;
	struct log_reader *r = NULL;
	struct log_frame f;
	char path[64], msg[LOG_MSG_LEN];
	const char *stopmsg;
	uint64_t next_offset = 0, stop_offset;
	enum log_stop stop;
	unsigned slot = 0;
	int fd, ret;

	if (fuzz_make_log(data, size, &l))
		return 0;
	fd = fuzz_memfd("fuzz.log", l.bytes, l.len, path, sizeof(path));
	if (fd < 0)
		fuzz_fail("memfd: cannot create the log file");
	ret = log_reader_open(&r, path, msg, sizeof(msg));
	if (ret) {
		if (ret > 0)
			fuzz_fail("log_reader_open returned %d", ret);
		check_line("log_reader_open", msg, path);
		goto out;
	}
	if (!log_reader_info(r)->meta)
		fuzz_fail("opened without metadata");
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len;

		if (f.offset < next_offset)
			fuzz_fail("frame %" PRIu64 " at %" PRIu64 " overlaps the previous one (ends %"
				  PRIu64 ")", f.index, f.offset, next_offset);
		if (f.payload_offset > l.len || f.h.stored_size > l.len - f.payload_offset)
			fuzz_fail("frame %" PRIu64 ": payload runs past the end of the file", f.index);
		next_offset = f.payload_offset + f.h.stored_size;
		slot ^= 1;
		if (log_reader_payload(r, &f, slot, &buf, &len, msg, sizeof(msg))) {
			check_line("log_reader_payload", msg, path);
			continue;
		}
		/* records rebuilt from columns are longer than the columns */
		if (f.columns ? len > LOG_MAX_RAW_SIZE : len != f.h.raw_size)
			fuzz_fail("frame %" PRIu64 ": payload of %zu bytes, header says %" PRIu64,
				  f.index, len, (uint64_t)f.h.raw_size);
		touch(buf, len);
		switch (f.h.type) {
		case LOG_FRAME_EVENTS:
		case LOG_FRAME_TASKS:
			walk_records(log_reader_layout(r), buf, len, &f);
			break;
		case LOG_FRAME_STATS:
		case LOG_FRAME_END: {
			struct json_doc doc;

			if (!json_parse(buf, len, &doc, msg, sizeof(msg)))
				json_doc_free(&doc);
			break;
		}
		default:
			break;
		}
	}
	stop = log_reader_stop(r, &stopmsg, &stop_offset);
	if (stop == LOG_STOP_NONE)
		fuzz_fail("walk ended without a reason");
	if (stop != LOG_STOP_END)
		check_line("log_reader_stop", stopmsg, path);
	if (stop_offset > l.len)
		fuzz_fail("stop offset %" PRIu64 " past the end of the file", stop_offset);
out:
	log_reader_close(r);
	close(fd);
	fuzz_log_free(&l);
	return 0;
}
