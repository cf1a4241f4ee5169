// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "crc32c.h"
#include "fuzz_input.h"
#include "log_format.h"

/* Same limit as the reader: larger "headers" are copied as garbage. */
#define MAX_HEADER_SIZE 4096

struct buf {
	unsigned char *p;
	size_t len, cap;
	int failed;
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (b->failed || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void wr32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void wr64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static ZSTD_CCtx *cctx(void)
{
	static ZSTD_CCtx *c;

	if (!c)
		c = ZSTD_createCCtx();
	return c;
}

/* One skippable header + body whose checksum is its last four bytes. */
static int header_ok(const unsigned char *p, size_t left, size_t min, uint32_t *hsize)
{
	if (left < LOG_SKIPPABLE_HDR_SIZE)
		return 0;
	*hsize = rd32(p + 4);
	return *hsize >= min && *hsize <= MAX_HEADER_SIZE && *hsize % 4 == 0 &&
	       left - LOG_SKIPPABLE_HDR_SIZE >= *hsize;
}

static void pack(const unsigned char *in, size_t size, struct buf *b)
{
	unsigned char hdr[LOG_SKIPPABLE_HDR_SIZE + MAX_HEADER_SIZE];
	size_t pos = 0;
	uint32_t hsize;
	void *z = NULL;
	size_t zcap = 0;

	/* Preamble: fix its checksum. */
	if (!header_ok(in, size, sizeof(struct log_preamble), &hsize))
		goto rest;
	memcpy(hdr, in, LOG_SKIPPABLE_HDR_SIZE + hsize);
	wr32(hdr + LOG_SKIPPABLE_HDR_SIZE + hsize - 4,
	     crc32c(0, hdr + LOG_SKIPPABLE_HDR_SIZE, hsize - 4));
	put(b, hdr, LOG_SKIPPABLE_HDR_SIZE + hsize);
	pos = LOG_SKIPPABLE_HDR_SIZE + hsize;

	/* Frames: header, then raw_size bytes of uncompressed payload. */
	while (header_ok(in + pos, size - pos, sizeof(struct log_frame_header), &hsize)) {
		unsigned char *h = hdr + LOG_SKIPPABLE_HDR_SIZE;
		size_t after = pos + LOG_SKIPPABLE_HDR_SIZE + hsize;
		uint64_t want = rd64(in + pos + LOG_SKIPPABLE_HDR_SIZE + 40);
		size_t take = want < size - after ? (size_t)want : size - after;
		size_t stored = 0;

		memcpy(hdr, in + pos, LOG_SKIPPABLE_HDR_SIZE + hsize);
		if (take) {
			size_t bound = ZSTD_compressBound(take);

			if (bound > zcap) {
				void *p = realloc(z, bound);

				if (!p) {
					b->failed = 1;
					break;
				}
				z = p;
				zcap = bound;
			}
			stored = ZSTD_compressCCtx(cctx(), z, zcap, in + after, take, 1);
			if (ZSTD_isError(stored)) {
				b->failed = 1;
				break;
			}
		}
		wr64(h + 40, stored ? take : 0);
		wr64(h + 48, stored);
		wr32(h + 56, stored ? crc32c(0, z, stored) : 0);
		wr32(h + hsize - 4, crc32c(0, h, hsize - 4));
		put(b, hdr, LOG_SKIPPABLE_HDR_SIZE + hsize);
		put(b, z, stored);
		pos = after + take;
	}
	free(z);
rest:
	put(b, in + pos, size - pos);
}

int fuzz_make_log(const uint8_t *data, size_t size, struct fuzz_log *out)
{
	struct buf b = { 0 };

	memset(out, 0, sizeof(*out));
	if (size >= FUZZ_PACKED_PREFIX_LEN &&
	    !memcmp(data, FUZZ_PACKED_MAGIC, FUZZ_PACKED_MAGIC_LEN)) {
		out->packed = 1;
		out->options = data[FUZZ_PACKED_MAGIC_LEN];
		pack(data + FUZZ_PACKED_PREFIX_LEN, size - FUZZ_PACKED_PREFIX_LEN, &b);
	} else {
		put(&b, data, size);
	}
	if (b.failed) {
		free(b.p);
		return -1;
	}
	out->bytes = b.p;
	out->len = b.len;
	return 0;
}

void fuzz_log_free(struct fuzz_log *l)
{
	free(l->bytes);
	l->bytes = NULL;
}

int fuzz_memfd(const char *name, const void *buf, size_t len, char *path, size_t pathlen)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

unsigned char *fuzz_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *p = NULL;
	struct stat st;
	size_t done = 0;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < 0)
		goto fail;
	p = malloc((size_t)st.st_size + 1);
	if (!p)
		goto fail;
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, (size_t)st.st_size - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			goto fail;
		}
		done += (size_t)n;
	}
	p[done] = '\0';
	*len = done;
	close(fd);
	return p;
fail:
	free(p);
	close(fd);
	return NULL;
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FUZZ ORACLE FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
