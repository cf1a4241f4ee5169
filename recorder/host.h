/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Facts about the host for the metadata and for sizing per-CPU state. */
#ifndef RINGSIDE_RECORDER_HOST_H
#define RINGSIDE_RECORDER_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "json.h"

/*
 * Parse a CPU list ("0-3,8,10-11") into online[0..ncpus).  Returns 0, or -1
 * when the text is malformed.  CPUs beyond ncpus are ignored.
 */
int cpulist_parse(const char *text, bool *online, unsigned ncpus);

/* Read /sys/devices/system/cpu/online into text; "" on failure. */
void host_online_cpus(char *text, size_t len);

/* The "host" metadata object. */
void host_json(struct json_out *o, unsigned possible_cpus, const char *online_text);

/* Does this process see the initial PID namespace (pids match the kernel's)? */
bool host_in_initial_pid_ns(void);

#endif
