// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fuzz_unpack: turn a log into a packed fuzz input (tests/fuzz/fuzz_input.h):
 * "RSFZ", an option byte, then the log with every payload decompressed.
 * With --small, the metadata is rewritten compactly without the members
 * uring-convert never reads (tracepoint formats, probe list, STATS), which
 * shrinks a real recording's metadata from ~70 KiB to ~10 KiB: smaller
 * inputs fuzz faster.
 *
 *   fuzz_unpack [--small] [--options N] LOG OUT
 *
 * Used by tests/fuzz/mkcorpus.sh to build the seed corpus.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "json.h"
#include "log_reader.h"

static const char *const dropped_members[] = { "tracepoints", "probes", "tracepoints_source" };

static void emit_value(struct json_out *o, const struct json_value *v, bool drop_unread)
{
	switch (v->type) {
	case JSON_NULL:
		json_null(o);
		break;
	case JSON_BOOL:
		json_bool(o, v->boolean);
		break;
	case JSON_NUMBER:
		if (v->is_integer && !v->magnitude_overflow && !v->is_negative)
			json_u64(o, v->magnitude);
		else if (v->is_integer && !v->magnitude_overflow && v->magnitude <= INT64_MAX)
			json_i64(o, -(int64_t)v->magnitude);
		else
			json_double(o, v->number);
		break;
	case JSON_STRING:
		json_strn(o, v->string, v->len);
		break;
	case JSON_ARRAY:
		json_arr_begin(o);
		for (size_t i = 0; i < v->len; i++)
			emit_value(o, &v->items[i], false);
		json_arr_end(o);
		break;
	case JSON_OBJECT:
		json_obj_begin(o);
		for (size_t i = 0; i < v->len; i++) {
			bool drop = false;

			for (size_t k = 0; drop_unread && k < sizeof(dropped_members) /
						       sizeof(dropped_members[0]); k++)
				drop |= !strcmp(v->keys[i], dropped_members[k]);
			if (drop)
				continue;
			json_key(o, v->keys[i]);
			emit_value(o, &v->items[i], false);
		}
		json_obj_end(o);
		break;
	}
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int copy_bytes(int fd, FILE *out, uint64_t off, size_t len)
{
	unsigned char buf[8192];

	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		if (pread(fd, buf, n, (off_t)off) != (ssize_t)n || fwrite(buf, 1, n, out) != n)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* Frame header bytes as in the file, with raw_size set to len. */
static int write_frame(int fd, FILE *out, const struct log_frame *f, const void *payload,
		       size_t len)
{
	size_t hlen = (size_t)(f->payload_offset - f->offset);
	unsigned char hdr[8 + 4096];

	if (hlen > sizeof(hdr) || pread(fd, hdr, hlen, (off_t)f->offset) != (ssize_t)hlen)
		return -1;
	put64(hdr + 8 + 40, len);
	if (fwrite(hdr, 1, hlen, out) != hlen || (len && fwrite(payload, 1, len, out) != len))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct log_reader *r;
	struct log_frame f;
	const struct log_info *info;
	char msg[LOG_MSG_LEN];
	const char *log, *outpath;
	unsigned long options = 0;
	int small = 0, argi = 1, fd = -1, ret = 1;
	FILE *out = NULL;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--small"))
			small = 1;
		else if (!strcmp(argv[argi], "--options") && argi + 1 < argc)
			options = strtoul(argv[++argi], NULL, 0);
		else
			break;
	}
	if (argc - argi != 2 || options > 255) {
		fprintf(stderr, "usage: fuzz_unpack [--small] [--options N] LOG OUT\n");
		return 2;
	}
	log = argv[argi];
	outpath = argv[argi + 1];
	if (log_reader_open(&r, log, msg, sizeof(msg))) {
		fprintf(stderr, "fuzz_unpack: %s\n", msg);
		return 1;
	}
	info = log_reader_info(r);
	fd = open(log, O_RDONLY | O_CLOEXEC);
	out = fopen(outpath, "wb");
	if (fd < 0 || !out) {
		fprintf(stderr, "fuzz_unpack: %s: %s\n", fd < 0 ? log : outpath, strerror(errno));
		goto cleanup;
	}
	fputs(FUZZ_PACKED_MAGIC, out);
	fputc((int)options, out);
	/* The preamble as it is, then META: the walk starts after it. */
	{
		unsigned char skip[8];
		uint32_t psize;
		struct log_frame meta = { 0 };
		struct json_out jo;
		char *text;
		size_t len;

		if (pread(fd, skip, 8, 0) != 8)
			goto io;
		psize = (uint32_t)skip[4] | (uint32_t)skip[5] << 8 | (uint32_t)skip[6] << 16 |
			(uint32_t)skip[7] << 24;
		if (copy_bytes(fd, out, 0, 8 + (size_t)psize))
			goto io;
		json_out_init(&jo, false);
		emit_value(&jo, info->meta, small);
		text = json_out_steal(&jo, &len);
		if (!text)
			goto io;
		meta.offset = 8 + psize;
		/* The META header is as large as any other in this format. */
		meta.payload_offset = meta.offset + 8 + sizeof(struct log_frame_header);
		if (write_frame(fd, out, &meta, text, len)) {
			free(text);
			goto io;
		}
		free(text);
	}
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len;

		if (small && f.h.type == LOG_FRAME_STATS)
			continue;
		if (log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg))) {
			fprintf(stderr, "fuzz_unpack: %s (frame left out)\n", msg);
			continue;
		}
		if (write_frame(fd, out, &f, buf, len))
			goto io;
	}
	if (fclose(out)) {
		out = NULL;
		goto io;
	}
	out = NULL;
	ret = 0;
	goto cleanup;
io:
	fprintf(stderr, "fuzz_unpack: %s: cannot copy: %s\n", log, strerror(errno));
cleanup:
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
	log_reader_close(r);
	return ret;
}
