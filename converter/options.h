/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The uring-convert command line (argp). */
#ifndef RINGSIDE_OPTIONS_H
#define RINGSIDE_OPTIONS_H

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
};

/*
 * Parse argv.  Returns 0, or the exit status to use (2 for a bad command
 * line, after printing one error line; 0 after --help/--version).
 */
int options_parse(struct options *o, int argc, char **argv, bool *exit_now);

/* Exposed for tests: "+1.5s", "2s", "500ms", "750us", "10ns", "1.5" (s),
 * "2min", "1h", or an ISO 8601 date-time.  Returns 0 or -1. */
int parse_time_arg(const char *s, struct time_arg *t);

#endif
