/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An output file written through 1 MiB buffers, the write() of a full
 * buffer done by a second thread while the converter fills the next one.
 *
 * Why not stdio: CSV writes about 360 bytes per event, most of them a few
 * at a time: putc_unlocked() per byte and fwrite_unlocked() per field
 * cost much of CSV's own time, and glibc ignores setvbuf()'s size when it
 * is not given the buffer, so every write() was 4 KiB.  Why the thread:
 * copying the output into the page cache is a large part of a CSV
 * conversion's CPU time even in 1 MiB writes; on a second CPU it overlaps
 * the formatting instead of adding to it (figures: bench/RESULTS.md).  The thread starts at the first full buffer, so small
 * files never start one; when it cannot start, writes are synchronous.
 *
 * One thread fills a given out_buf.  The first failed write is kept
 * (later output is dropped) and returned by out_buf_close().
 *
 * An out_buf in memory (out_buf_open_mem()) collects the output of a
 * formatter lane (block_queue.h) until out_buf_move() hands it, in order,
 * to the file's out_buf.
 */
#ifndef RINGSIDE_OUT_BUF_H
#define RINGSIDE_OUT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define OUT_BUF_BYTES	(1u << 20)

struct out_buf_writer;

struct out_buf {
	char *cur;			/* the buffer being filled */
	size_t len;			/* bytes in it */
	int fd;
	bool owns_fd;			/* false for stdout */
	int err;			/* first errno of a failed write (sync) */
	struct out_buf_writer *w;	/* the writing thread; NULL: none yet */
	bool sync;			/* no thread: write() in the caller */
	bool mem;			/* no file: full buffers go to spill */
	char *spill;			/* in memory: what the buffer held before */
	size_t spill_len, spill_cap;
};

/*
 * Open path for writing (NULL or "-": stdout).  Refuses (one error line
 * naming the path) when it exists and !force, when it is a directory, or
 * when it cannot be created or the buffer allocated.
 */
int out_buf_open(struct out_buf *b, const char *path, bool force, char *err, size_t errlen);

/* An out_buf in memory, empty; -1 when out of memory. */
int out_buf_open_mem(struct out_buf *b);

/* Append everything in src (in memory) to dst and empty src; a failure
 * of src (out of memory) becomes dst's, and from dst's first failure on
 * nothing more is appended. */
void out_buf_move(struct out_buf *dst, struct out_buf *src);

/* Hand the filled buffer over to be written; called when it is full. */
void out_buf_drain(struct out_buf *b);

/* The first errno of a failed write so far, 0 if none. */
int out_buf_error(struct out_buf *b);

/* Write everything, stop the thread and close; 0 or the first errno.
 * Safe on a buffer that was never opened or was already closed. */
int out_buf_close(struct out_buf *b);

/* Where to put up to n (<= OUT_BUF_BYTES) bytes; out_buf_commit() them. */
static inline char *out_buf_room(struct out_buf *b, size_t n)
{
	if (OUT_BUF_BYTES - b->len < n)
		out_buf_drain(b);
	return b->cur + b->len;
}

static inline void out_buf_commit(struct out_buf *b, size_t n)
{
	b->len += n;
}

static inline void out_buf_putc(struct out_buf *b, char ch)
{
	*out_buf_room(b, 1) = ch;
	b->len++;
}

void out_buf_put_long(struct out_buf *b, const void *p, size_t n);

static inline void out_buf_put(struct out_buf *b, const void *p, size_t n)
{
	if (n > OUT_BUF_BYTES) {
		out_buf_put_long(b, p, n);
		return;
	}
	memcpy(out_buf_room(b, n), p, n);
	b->len += n;
}

static inline void out_buf_puts(struct out_buf *b, const char *s)
{
	out_buf_put(b, s, strlen(s));
}

#endif
