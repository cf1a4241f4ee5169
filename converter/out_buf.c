// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * out_buf: buffered output with the write() on a second thread (see
 * out_buf.h for why).  Two buffers per file: the caller fills one while
 * the thread writes the other; the caller waits only when it fills a
 * buffer before the thread has written the previous one.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fd_io.h"
#include "out_buf.h"
#include "output_util.h"
#include "worker.h"

struct out_buf_writer {
	struct worker wk;		/* cond: a buffer handed over, written, or stop */
	int fd;
	char *busy;			/* being written; NULL: the thread is idle */
	size_t busy_len;
	char *spare;			/* written, free for the caller */
	int err;			/* first errno of the thread's writes */
};

/* 0 or the errno of the first failure; a full disk ends it with ENOSPC. */
static void *writer_main(void *arg)
{
	struct out_buf_writer *w = arg;

	pthread_mutex_lock(&w->wk.lock);
	for (;;) {
		char *buf;
		size_t len;
		int err;

		while (!w->busy && !w->wk.stop)
			pthread_cond_wait(&w->wk.cond, &w->wk.lock);
		if (!w->busy)
			break;
		buf = w->busy;
		len = w->busy_len;
		err = w->err;
		pthread_mutex_unlock(&w->wk.lock);
		/* After a failure the rest is dropped: a file with a hole
		 * in the middle would be worse than a short one. */
		if (!err)
			err = fd_write_all(w->fd, buf, len);
		pthread_mutex_lock(&w->wk.lock);
		w->err = err;
		w->spare = buf;
		w->busy = NULL;
		pthread_cond_broadcast(&w->wk.cond);
	}
	pthread_mutex_unlock(&w->wk.lock);
	return NULL;
}

/* Start the thread; false (and writes stay synchronous) if it cannot. */
static bool writer_start(struct out_buf *b)
{
	struct out_buf_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return false;
	w->fd = b->fd;
	w->spare = malloc(OUT_BUF_BYTES);
	if (!w->spare || worker_start(&w->wk, writer_main, w, "rs-write")) {
		free(w->spare);
		free(w);
		return false;
	}
	b->w = w;
	return true;
}

int out_buf_open(struct out_buf *b, const char *path, bool force, char *err, size_t errlen)
{
	bool is_stdout;
	int fd;

	*b = (struct out_buf){ .fd = -1 };
	fd = output_open_fd(path, force, &is_stdout, err, errlen);
	if (fd < 0)
		return -1;
	b->cur = malloc(OUT_BUF_BYTES);
	if (!b->cur) {
		snprintf(err, errlen, "%s: out of memory", is_stdout ? "stdout" : path);
		if (!is_stdout)
			close(fd);
		return -1;
	}
	b->fd = fd;
	b->owns_fd = !is_stdout;
	return 0;
}

int out_buf_open_mem(struct out_buf *b)
{
	*b = (struct out_buf){ .fd = -1, .mem = true };
	b->cur = malloc(OUT_BUF_BYTES);
	return b->cur ? 0 : -1;
}

/* In memory: keep the full buffer's bytes in the spill. */
static void spill(struct out_buf *b)
{
	if (b->spill_cap - b->spill_len < b->len) {
		size_t cap = b->spill_cap ? b->spill_cap * 2 : OUT_BUF_BYTES;
		char *p;

		while (cap - b->spill_len < b->len)
			cap *= 2;
		p = realloc(b->spill, cap);
		if (!p) {
			b->err = b->err ? b->err : ENOMEM;
			b->len = 0;
			return;
		}
		b->spill = p;
		b->spill_cap = cap;
	}
	memcpy(b->spill + b->spill_len, b->cur, b->len);
	b->spill_len += b->len;
	b->len = 0;
}

void out_buf_move(struct out_buf *dst, struct out_buf *src)
{
	if (src->err && !dst->err)
		dst->err = src->err;
	/* after a failure, a short file rather than one with a hole */
	if (!dst->err) {
		if (src->spill_len)
			out_buf_put(dst, src->spill, src->spill_len);
		out_buf_put(dst, src->cur, src->len);
	}
	src->spill_len = 0;
	src->len = 0;
	src->err = 0;
}

void out_buf_drain(struct out_buf *b)
{
	struct out_buf_writer *w = b->w;
	char *next;

	if (!b->len)
		return;
	if (b->mem) {
		spill(b);
		return;
	}
	if (!w && (b->sync || !writer_start(b))) {
		b->sync = true;
		if (!b->err)
			b->err = fd_write_all(b->fd, b->cur, b->len);
		b->len = 0;
		return;
	}
	w = b->w;
	pthread_mutex_lock(&w->wk.lock);
	while (w->busy)
		pthread_cond_wait(&w->wk.cond, &w->wk.lock);
	next = w->spare;
	w->spare = NULL;
	w->busy = b->cur;
	w->busy_len = b->len;
	pthread_cond_broadcast(&w->wk.cond);
	pthread_mutex_unlock(&w->wk.lock);
	b->cur = next;
	b->len = 0;
}

void out_buf_put_long(struct out_buf *b, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		size_t k = OUT_BUF_BYTES - b->len;

		if (!k) {
			out_buf_drain(b);
			continue;
		}
		if (k > n)
			k = n;
		memcpy(b->cur + b->len, s, k);
		b->len += k;
		s += k;
		n -= k;
	}
}

int out_buf_error(struct out_buf *b)
{
	struct out_buf_writer *w = b->w;
	int err = b->err;

	if (!err && w) {
		pthread_mutex_lock(&w->wk.lock);
		err = w->err;
		pthread_mutex_unlock(&w->wk.lock);
	}
	return err;
}

int out_buf_close(struct out_buf *b)
{
	struct out_buf_writer *w = b->w;
	int err;

	if (!b->cur)
		return 0;
	/* A file that never filled a buffer needs no thread for its end. */
	if (!w)
		b->sync = true;
	if (!b->mem)
		out_buf_drain(b);
	err = b->err;
	if (w) {
		worker_stop(&w->wk);
		if (!err)
			err = w->err;
		free(w->spare);
		free(w);
		b->w = NULL;
	}
	if (b->owns_fd && close(b->fd) && !err)
		err = errno;
	free(b->spill);
	free(b->cur);
	*b = (struct out_buf){ .fd = -1 };
	return err;
}
