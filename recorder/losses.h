/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Loss accounting on the recorder's side: reading the BPF side's
 * cumulative per-CPU counters (bpf/uring_record.h, "loss_counts" and
 * "cpu_states"), building LOSS frames (uring-log(5), LOSS FRAMES) together
 * with the recorder's own drops, and the "lost" records of drops that no
 * later record reported.
 */
#ifndef RINGSIDE_RECORDER_LOSSES_H
#define RINGSIDE_RECORDER_LOSSES_H

#include <stdint.h>

#include "frames.h"
#include "uring_event.h"

#define LOSS_KINDS 4			/* enum ev_loss_kind, 1..3 */

struct losses {
	unsigned ncpus;
	/* [kind][cpu][type], cumulative; kind EV_LOSS_USER_QUEUE is copied in */
	uint64_t *count;
	uint64_t total[LOSS_KINDS];
};

int losses_init(struct losses *l, unsigned ncpus);
void losses_free(struct losses *l);
static inline uint64_t *losses_at(const struct losses *l, unsigned kind, unsigned cpu,
				  unsigned type)
{
	return &l->count[((size_t)kind * l->ncpus + cpu) * EV_TYPE_LIMIT + type];
}

/*
 * Refresh from the BPF map (fd of the PERCPU_ARRAY "loss_counts") and the
 * recorder's own counters (ul2 may be NULL).  Returns 0 or a negative errno.
 */
int losses_read(struct losses *l, int loss_map_fd, const struct user_losses *ul,
		const struct user_losses *ul2);

/*
 * A LOSS frame: for every CPU and kind a total row (event_type 0), then a
 * row per event type with a non-zero count.
 */
struct frame *losses_frame(const struct losses *l);

/*
 * "lost" records (EVF_LOSS_AT_STOP) for drops still pending in the per-CPU
 * state (fd of the PERCPU_ARRAY "cpu_states"): calls add(cpu, record) for
 * each.  Returns how many events they report.
 */
uint64_t losses_pending_at_stop(int cpu_state_fd, unsigned ncpus,
				void (*add)(void *arg, unsigned cpu, const struct ev_lost *rec),
				void *arg);

#endif
