/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-file aggregates of the requests delivered to an output: behind
 * files.csv, the summary's "Per file" table and the JSON "files" array.
 * One entry per file that a delivered request worked on (so a selection
 * shows only its files), each with a fixed-size latency histogram.
 */
#ifndef RINGSIDE_FILE_STATS_H
#define RINGSIDE_FILE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "stats.h"

struct file_agg {
	const struct model_file *file;
	uint64_t requests;		/* delivered, any status */
	uint64_t complete;		/* of them, complete */
	uint64_t errors;		/* complete with res < 0 */
	uint64_t bytes_read;		/* res > 0 of complete reads (read, readv, recv, ...) */
	uint64_t bytes_written;		/* res > 0 of complete writes (write, send, ...) */
	uint64_t latency_total_ns;	/* sum of submit -> completion, complete requests */
	struct hist latency;
	uint64_t paths[PATH_COUNT];	/* complete requests, by path */
};

struct file_stats {
	struct file_agg **by_number;	/* file number - 1 -> aggregate, NULL none */
	size_t cap;
	size_t n;			/* files with an aggregate */
	bool oom;
};

enum file_order {
	FILE_BY_NUMBER,			/* first seen first */
	FILE_BY_REQUESTS,		/* most requests first */
	FILE_BY_LATENCY,		/* largest total latency first */
};

void file_stats_init(struct file_stats *s);
void file_stats_free(struct file_stats *s);
/* Count request r under its file (nothing when it has none). */
void file_stats_add(struct file_stats *s, const struct model_request *r);
/* The aggregates in that order (ties: by number), *n of them; malloc'd
 * array, NULL when there are none or out of memory (s->oom). */
const struct file_agg **file_stats_sorted(struct file_stats *s, enum file_order order,
					   size_t *n);

#endif
