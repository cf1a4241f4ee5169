// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "file_stats.h"

/* include/uapi/linux/io_uring.h, enum io_uring_op: what moves bytes. */
enum {
	OP_READV = 1, OP_WRITEV = 2, OP_READ_FIXED = 4, OP_WRITE_FIXED = 5,
	OP_SENDMSG = 9, OP_RECVMSG = 10, OP_READ = 22, OP_WRITE = 23,
	OP_SEND = 26, OP_RECV = 27, OP_SEND_ZC = 47, OP_SENDMSG_ZC = 48,
	OP_READ_MULTISHOT = 49, OP_READV_FIXED = 60, OP_WRITEV_FIXED = 61,
};

static bool op_reads(uint8_t op)
{
	return op == OP_READV || op == OP_READ_FIXED || op == OP_RECVMSG || op == OP_READ ||
	       op == OP_RECV || op == OP_READ_MULTISHOT || op == OP_READV_FIXED;
}

static bool op_writes(uint8_t op)
{
	return op == OP_WRITEV || op == OP_WRITE_FIXED || op == OP_SENDMSG || op == OP_WRITE ||
	       op == OP_SEND || op == OP_SEND_ZC || op == OP_SENDMSG_ZC || op == OP_WRITEV_FIXED;
}

void file_stats_init(struct file_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void file_stats_free(struct file_stats *s)
{
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->by_number[i])
			continue;
		hist_free(&s->by_number[i]->latency);
		free(s->by_number[i]);
	}
	free(s->by_number);
	memset(s, 0, sizeof(*s));
}

static struct file_agg *agg_of(struct file_stats *s, const struct model_file *f)
{
	size_t i = f->number - 1;

	if (i >= s->cap) {
		size_t cap = s->cap ? s->cap : 16;
		struct file_agg **a;

		while (cap <= i)
			cap *= 2;
		a = realloc(s->by_number, cap * sizeof(*a));
		if (!a)
			return NULL;
		memset(a + s->cap, 0, (cap - s->cap) * sizeof(*a));
		s->by_number = a;
		s->cap = cap;
	}
	if (!s->by_number[i]) {
		struct file_agg *g = calloc(1, sizeof(*g));

		if (!g)
			return NULL;
		g->file = f;
		hist_init(&g->latency);
		s->by_number[i] = g;
		s->n++;
	}
	return s->by_number[i];
}

void file_stats_add(struct file_stats *s, const struct model_request *r)
{
	struct file_agg *g;

	if (!r->file || !r->file->number)
		return;
	g = agg_of(s, r->file);
	if (!g) {
		s->oom = true;
		return;
	}
	g->requests++;
	if (r->status != REQ_COMPLETE)
		return;
	g->complete++;
	g->paths[r->path < PATH_COUNT ? r->path : PATH_UNKNOWN]++;
	if (r->complete_ts && r->res < 0)
		g->errors++;
	if (r->complete_ts && r->res > 0) {
		if (op_reads(r->opcode))
			g->bytes_read += (uint64_t)r->res;
		else if (op_writes(r->opcode))
			g->bytes_written += (uint64_t)r->res;
	}
	if (r->submit_ts && r->complete_ts && r->complete_ts >= r->submit_ts) {
		g->latency_total_ns += r->complete_ts - r->submit_ts;
		if (hist_add(&g->latency, r->complete_ts - r->submit_ts))
			s->oom = true;
	}
}

static int cmp_number(const struct file_agg *x, const struct file_agg *y)
{
	return x->file->number < y->file->number ? -1 : x->file->number > y->file->number;
}

#define AGG(p) (*(const struct file_agg *const *)(p))

static int cmp_by_number(const void *a, const void *b)
{
	return cmp_number(AGG(a), AGG(b));
}

static int cmp_by_requests(const void *a, const void *b)
{
	const struct file_agg *x = AGG(a), *y = AGG(b);

	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	return cmp_number(x, y);
}

static int cmp_by_latency(const void *a, const void *b)
{
	const struct file_agg *x = AGG(a), *y = AGG(b);

	if (x->latency_total_ns != y->latency_total_ns)
		return x->latency_total_ns > y->latency_total_ns ? -1 : 1;
	return cmp_number(x, y);
}

const struct file_agg **file_stats_sorted(struct file_stats *s, enum file_order order,
					   size_t *n)
{
	const struct file_agg **v;
	size_t k = 0;

	*n = 0;
	if (!s->n)
		return NULL;
	v = malloc(s->n * sizeof(*v));
	if (!v) {
		s->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < s->cap; i++)
		if (s->by_number[i])
			v[k++] = s->by_number[i];
	qsort(v, k, sizeof(*v), order == FILE_BY_REQUESTS ? cmp_by_requests :
				order == FILE_BY_LATENCY ? cmp_by_latency : cmp_by_number);
	*n = k;
	return v;
}
