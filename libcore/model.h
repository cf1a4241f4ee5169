/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The request model: fed the merged records in time order, it follows
 * every ring, task, request and io_uring syscall, and hands each finished
 * object to the output (output.h) as soon as it is finished.  Memory grows
 * with the requests and syscalls in flight (and the tasks and rings seen),
 * never with the length of the log.
 *
 * The rules (which event means what, how paths are classified, when a
 * request is incomplete) are documented in uring-convert(1), sections
 * MODEL and PATHS, and next to the code below.
 */
#ifndef RINGSIDE_MODEL_H
#define RINGSIDE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "output.h"

struct model;

struct model_config {
	struct output *out;		/* receives everything (may be a filter) */
	const struct names *names;
	/* metadata io_wq_tracking: "fentry"/"kprobe" give exact work_begin
	 * events; anything else means worker placement is approximated. */
	bool iowq_exact;
	/* metadata "sampling": 1 request in sample_every was recorded (0 or
	 * 1: all); events of requests never seen submitted are not requests. */
	uint32_t sample_every;
	/* --end, boot ns (0: none): requests and syscalls that begin by it
	 * are counted until delivered, for model_open_by_end(). */
	uint64_t end_ns;
};

int model_new(struct model **m, const struct model_config *cfg);
/* One known record (normalised), in merge order. */
void model_record(struct model *m, const struct ev_header *rec, unsigned cpu);
/* A loss window that did not come as a record (damaged frame, gap). */
void model_loss(struct model *m, const struct model_loss *l);
/*
 * Requests and syscalls that began by cfg.end_ns and are not yet delivered
 * (still open, or finished and waiting for their reaping).  Once the merge
 * is past end_ns and this is 0, nothing more that overlaps the window can
 * come: what began later starts after it.
 */
uint64_t model_open_by_end(const struct model *m);
/* End of the log: flush everything still open. */
void model_finish(struct model *m);
/* Fill the model's part of the totals (tasks, rings, counts); the arrays
 * stay valid until model_free(). */
void model_totals(struct model *m, struct output_totals *t);
/* True once an allocation failed (the conversion must then fail). */
bool model_failed(const struct model *m);
void model_free(struct model *m);

#endif
