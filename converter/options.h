/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The uring-convert command line (argp). */
#ifndef RINGSIDE_OPTIONS_H
#define RINGSIDE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "convert_opts.h"

/*
 * Parse argv.  Returns 0, or the exit status to use (2 for a bad command
 * line, after printing one error line; 0 after --help/--version).
 */
int options_parse(struct options *o, int argc, char **argv, bool *exit_now);

/* Exposed for tests: "+1.5s", "2s", "500ms", "750us", "10ns", "1.5" (s),
 * "2min", "1h", or an ISO 8601 date-time.  Returns 0 or -1. */
int parse_time_arg(const char *s, struct time_arg *t);

#endif
