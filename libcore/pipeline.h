/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The conversion pipeline (pipeline.c): a log, merged and followed by the
 * request model, into one output.
 */
#ifndef RINGSIDE_PIPELINE_H
#define RINGSIDE_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "convert_opts.h"
#include "output.h"

/*
 * Convert o->log_path into out (which is destroyed before returning),
 * applying the selection in o.  Returns the exit status (0, 1); error and
 * warning lines go to errf (NULL: stderr) unless o->quiet.
 */
int convert_into(const struct options *o, struct output *out, FILE *errf);

/*
 * With --end, stop reading the log once the merge is past the window and
 * every request and syscall that began in it has been delivered
 * (output_totals.read_to_ns says where); false: read every log whole
 * (tests compare the two).
 */
extern bool convert_stop_after_end;

/* The threads a conversion of o->format may use: --threads, else the
 * CPUs this process may run on for FXT and CSV, 1 for the others. */
unsigned convert_threads(const struct options *o);

#endif
