/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One conversion: open the log, merge, run the model into an output
 * (convert.c); or describe the log, --info (info.c).
 * main.c is a thin wrapper; the unit tests call these directly.
 */
#ifndef RINGSIDE_CONVERT_H
#define RINGSIDE_CONVERT_H

#include <stdio.h>

#include "options.h"
#include "output.h"

/* Run uring-convert with parsed options; returns the exit status. */
int convert_run(const struct options *o);

/*
 * Convert o->log_path into out (which is destroyed before returning),
 * applying the selection in o.  Returns the exit status (0, 1); error and
 * warning lines go to errf (NULL: stderr) unless o->quiet.
 */
int convert_into(const struct options *o, struct output *out, FILE *errf);

/* --info: describe the log on f.  Returns the exit status. */
int convert_info(const struct options *o, FILE *f, FILE *errf);

#endif
