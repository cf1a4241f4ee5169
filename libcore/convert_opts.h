/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What to convert: the log, the selection in time, processes and rings,
 * and the output asked for.  uring-convert fills it from its command line
 * (converter/options.c), uring-replay itself; the pipeline (pipeline.c)
 * reads it.
 */
#ifndef RINGSIDE_CONVERT_OPTS_H
#define RINGSIDE_CONVERT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum out_format { FORMAT_DEFAULT = 0, FORMAT_SUMMARY, FORMAT_JSON, FORMAT_CSV, FORMAT_FXT, FORMAT_FIO };

/* --start/--end: relative to the recording start, or wall clock. */
struct time_arg {
	bool set;
	bool absolute;			/* ISO 8601 wall-clock time */
	int64_t rel_ns;			/* when !absolute (>= 0) */
	int64_t real_ns;		/* when absolute */
	const char *text;		/* as given, for messages */
};

#define OPT_MAX_SELECT 256

struct options {
	const char *log_path;
	enum out_format format;
	const char *output;		/* -o */
	bool force, info, quiet;
	struct time_arg start, end;
	uint32_t pids[OPT_MAX_SELECT];
	size_t npids;
	unsigned rings[OPT_MAX_SELECT];
	size_t nrings;
	unsigned lanes;			/* --lanes (fxt), 0: default */
	unsigned csv_tables;		/* --tables (csv), 0: all */
	unsigned threads;		/* --threads: 1 the model and the output on one
					 * thread, more: on two; 0: fxt and csv on
					 * the CPUs we may use, the others on one */
};

#endif
