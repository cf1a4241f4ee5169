/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Time in a recording: record timestamps are CLOCK_BOOTTIME ns; the log
 * carries clock snapshots (metadata "clock.start" and CLOCK frames, see
 * uring-log(5) CLOCKS) from which wall-clock time is found by linear
 * interpolation between the snapshots around a timestamp, and by
 * extrapolation from the nearest one outside them.
 */
#ifndef RINGSIDE_TIMEBASE_H
#define RINGSIDE_TIMEBASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log_format.h"

struct timebase {
	uint64_t start_ns;		/* recording start, boot ns */
	struct log_clock_snapshot *snaps;	/* sorted by boot_ns, unique */
	size_t nsnaps, cap;
};

void timebase_init(struct timebase *tb);
void timebase_free(struct timebase *tb);
/* Returns -1 when out of memory.  Snapshots may come in any order. */
int timebase_add(struct timebase *tb, const struct log_clock_snapshot *s);

/* boot ns -> ns relative to the recording start (may be negative). */
static inline int64_t timebase_rel(const struct timebase *tb, uint64_t boot_ns)
{
	return (int64_t)(boot_ns - tb->start_ns);
}

/* boot ns -> CLOCK_REALTIME ns; false when the log has no clock snapshot. */
bool timebase_wall(const struct timebase *tb, uint64_t boot_ns, int64_t *real_ns);
/* The inverse (for --start/--end given as wall-clock times). */
bool timebase_boot(const struct timebase *tb, int64_t real_ns, uint64_t *boot_ns);

/* "2023-11-14T22:13:20.123456789Z" (UTC); "" when unknown.  buf >= TIMEBASE_ISO_LEN. */
#define TIMEBASE_ISO_LEN 96
char *timebase_iso(const struct timebase *tb, uint64_t boot_ns, char *buf);
/* Format a CLOCK_REALTIME ns value the same way. */
char *format_iso_ns(int64_t real_ns, char *buf);

/*
 * Parse an ISO 8601 date-time: YYYY-MM-DDTHH:MM:SS[.frac][Z|+HH:MM|-HH:MM]
 * (also with a space instead of T).  Without a zone it is UTC: the result
 * never depends on the machine converting.  Returns 0 or -1.
 */
int parse_iso_ns(const char *s, int64_t *real_ns);

#endif
