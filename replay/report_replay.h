/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The fidelity report of a replay (report.c), on stdout. */
#ifndef RINGSIDE_REPLAY_REPORT_H
#define RINGSIDE_REPLAY_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"

int report_replay(const struct plan *p, const char *log, bool paced, uint64_t unfinished);

#endif
