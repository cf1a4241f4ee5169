/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What recording costs, measured while it records (uring-record(8),
 * COST): the run time of the BPF programs, in the threads that hit the
 * hooks, and the recorder's own CPU time.  Both cover the recording only,
 * from the start of recording to its stop, and go into the STATS frame.
 */
#ifndef RINGSIDE_RECORDER_SELF_COST_H
#define RINGSIDE_RECORDER_SELF_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "json.h"

struct self_cost_prog {
	const char *name;
	uint64_t run_ns, runs;		/* at the start of recording */
};

/*
 * The statistics cost every program run two clock reads, so they are held
 * for the first SELF_COST_FULL_NS of a recording (short ones are measured
 * whole) and then SELF_COST_WINDOW_NS of every SELF_COST_PERIOD_NS; the
 * totals are scaled up from the time they were held.
 */
#define SELF_COST_FULL_NS	2000000000ull
#define SELF_COST_PERIOD_NS	2000000000ull
#define SELF_COST_WINDOW_NS	200000000ull

struct self_cost {
	int stats_fd;			/* BPF_ENABLE_STATS, held; -1 when not */
	int stats_err;			/* why not (a positive errno), 0 if held */
	bool off;			/* --no-self-cost */
	bool always_on;			/* kernel.bpf_stats_enabled: counted anyway */
	uint64_t window_open_ns;	/* when stats_fd was taken */
	uint64_t held_ns;		/* in earlier windows */
	uint64_t next_window_ns;	/* when the next window opens */
	struct self_cost_prog *progs;
	size_t nprogs;
	uint64_t start_mono_ns;
	double start_cpu_s;		/* user + system, at the start */
};

/*
 * Before the programs are attached: hold the kernel's per-program run
 * time statistics on for the recorder's life (off: do not).
 */
void self_cost_enable(struct self_cost *c, bool off);
/* At the start of recording: the baselines of obj's programs and CPU. */
void self_cost_start(struct self_cost *c, struct bpf_object *obj);
/* From the main loop: open and close the statistics' windows. */
void self_cost_tick(struct self_cost *c, uint64_t now_mono_ns);
/* The "cost" member of the STATS frame, as of now. */
void self_cost_json(const struct self_cost *c, struct bpf_object *obj, struct json_out *o);
/* One line for the user: "tracing cost: ...", with the log writer
 * thread's share when writer_cpu_ns (its CPU time) is not 0. */
void self_cost_line(const struct self_cost *c, struct bpf_object *obj, uint64_t writer_cpu_ns,
		    char *buf, size_t len);
void self_cost_free(struct self_cost *c);

#endif
