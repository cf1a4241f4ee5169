/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The log being converted, opened for both uses of it: the conversion
 * (convert.c) and its description, --info (info.c).  Opening it reads the
 * header and metadata, starts the merge of its CPUs and the clock map.
 */
#ifndef RINGSIDE_CONVERT_LOG_H
#define RINGSIDE_CONVERT_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "log_reader.h"
#include "merge.h"
#include "names.h"
#include "convert_opts.h"
#include "timebase.h"

struct convert_log {
	const struct options *o;
	FILE *errf;			/* error and warning lines */
	struct log_reader *r;		/* NULL until opened */
	struct timebase tb;
	struct merge *m;
	struct names names;		/* from the log's metadata */
};

/* Open c->o->log_path; 0, or 1 after an error line on c->errf.  Call
 * convert_log_close() in both cases once c->r is set. */
int convert_log_open(struct convert_log *c);
void convert_log_close(struct convert_log *c);

/* The merge's warnings on c->errf (none with --quiet). */
void convert_log_warnings(struct convert_log *c);

/* Recording start: the start clock snapshot, or the first record if earlier,
 * so that relative times are never negative. */
uint64_t convert_log_start(const struct convert_log *c);

/*
 * The metadata's "sampling" rates (uring-record --sample): 1 request and 1
 * syscall in *requests / *syscalls were recorded, 1 when not sampled.
 * Returns 0, or -1 after an error line on c->errf (a rate out of range).
 */
int convert_log_sampling(const struct convert_log *c, uint32_t *requests, uint32_t *syscalls);

/* Printable copy of a metadata string (it comes from a file). */
void meta_str(const struct json_value *obj, const char *key, char *buf, size_t len);

#endif
