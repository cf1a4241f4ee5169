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

struct self_cost {
	int stats_fd;			/* BPF_ENABLE_STATS, held; -1 when not */
	int stats_err;			/* why not (a positive errno), 0 if held */
	bool off;			/* --no-self-cost */
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
/* The "cost" member of the STATS frame, as of now. */
void self_cost_json(const struct self_cost *c, struct bpf_object *obj, struct json_out *o);
/* One line for the user: "tracing cost: ...". */
void self_cost_line(const struct self_cost *c, struct bpf_object *obj, char *buf,
		    size_t len);
void self_cost_free(struct self_cost *c);

#endif
