/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Clock snapshots (uring-log(5), CLOCKS): CLOCK_BOOTTIME, the clock of
 * every record, bracketed around reads of the other clocks, so a converter
 * can map record times to wall-clock time years later.
 */
#ifndef RINGSIDE_RECORDER_CLOCK_H
#define RINGSIDE_RECORDER_CLOCK_H

#include <stdint.h>

#include "log_format.h"

/* The tightest of a few brackets: boot, mono, real, tai, boot. */
void clock_snapshot(struct log_clock_snapshot *snap);

uint64_t clock_boot_ns(void);
uint64_t clock_mono_ns(void);
/* The calling thread's CPU time. */
uint64_t clock_thread_cpu_ns(void);

#endif
