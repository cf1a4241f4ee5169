/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Running a plan (plan.h): targets, rings, timed submission, fidelity. */
#ifndef RINGSIDE_REPLAY_RUN_H
#define RINGSIDE_REPLAY_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

struct run_options {
	const char *log;
	const char *scratch;		/* directory for scratch files */
	bool keep;			/* keep the scratch files */
	bool filled;			/* write scratch files instead of sparse */
	bool force;			/* allow block devices as targets */
	bool no_stall;
	double speed;			/* > 0 */
	bool quiet;
	char **maps;			/* "NAME=PATH" */
	size_t nmaps;
};

/* Open or create every target; 0, or 1 after one error line. */
int targets_open(struct plan *p, const struct run_options *o);
void targets_close(struct plan *p, const struct run_options *o);

/* Replay p; prints the fidelity report on stdout.  0, or 1 on error. */
int run_plan(struct plan *p, const struct run_options *o);

#endif
