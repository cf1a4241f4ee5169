/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * uring-convert: one conversion into the output its options ask for
 * (convert.c, on the pipeline of libcore/pipeline.h), or a description of
 * the log, --info (info.c).  main.c is a thin wrapper; the unit tests
 * call these directly.
 */
#ifndef RINGSIDE_CONVERT_H
#define RINGSIDE_CONVERT_H

#include <stdio.h>

#include "options.h"
#include "output.h"
#include "pipeline.h"

/* Run uring-convert with parsed options; returns the exit status. */
int convert_run(const struct options *o);

/* --info: describe the log on f.  Returns the exit status. */
int convert_info(const struct options *o, FILE *f, FILE *errf);

#endif
