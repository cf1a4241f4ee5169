/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the user sees while and after recording: a one-line live status on
 * a terminal (events/s, lost, bytes written; about twice a second), and the
 * exit summary, in which a non-zero loss cannot be missed.
 */
#ifndef RINGSIDE_RECORDER_STATUS_H
#define RINGSIDE_RECORDER_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "losses.h"

struct status {
	bool enabled;
	uint64_t start_ns, next_ns, last_ns, last_events;
};

void status_init(struct status *s, bool enabled, uint64_t now_ns);
void status_update(struct status *s, uint64_t now_ns, uint64_t events, uint64_t lost,
		   uint64_t bytes);
void status_clear(struct status *s);

struct summary {
	const char *path;
	uint64_t duration_ns;
	uint64_t events;		/* written to the log */
	uint64_t kernel_lost;		/* ring full / no ring */
	uint64_t user_lost;		/* writer queue full */
	uint64_t discarded;		/* copied but not written (write error) */
	uint64_t bytes, raw_bytes;
	const struct losses *losses;
	uint64_t ring_size, drain_ns;
	bool quiet;
};

void status_summary(const struct summary *sum);

/* "12.3 MiB" */
void fmt_bytes(char *buf, size_t len, uint64_t bytes);

#endif
