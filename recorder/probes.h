/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Choosing, loading and attaching the BPF programs for the running kernel.
 *
 * Every hook has one or more program variants (bpf/uring_record.bpf.c,
 * declared with SEC("?...")).  The kernel's BTF picks the variant of each
 * tracepoint from its prototype; io-wq tracking and the syscall hooks try
 * their methods in order (fentry, then kprobe or classic tracepoints, then
 * a coarser fallback).  A hook that is missing, fails to load or fails to
 * attach costs its feature only: one warning, one "probes" entry in the
 * metadata.  Only the submit and complete tracepoints are required.
 */
#ifndef RINGSIDE_RECORDER_PROBES_H
#define RINGSIDE_RECORDER_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "env.h"
#include "json.h"
#include "tracefs.h"

struct btf;
struct bpf_link;
struct uring_record_bpf;

struct probe_entry {
	char hook[64];			/* "io_uring:io_uring_submit_req", "io_uring_enter" */
	char program[32];		/* BPF program name */
	const char *status;		/* "attached", "absent", "failed" */
	char variant[48];
	char reason[256];
};

struct probes {
	struct probe_entry *entries;
	size_t nentries, cap;
	const char *io_wq_tracking;	/* "fentry", "kprobe", "sched_switch", "none" */
	const char *syscall_tracking;	/* "fentry", "tracepoint", "raw_syscalls", "none" */
	struct bpf_link **links;
	size_t nlinks, links_cap;
	/*
	 * How the BPF programs read kernel memory behind untyped pointers:
	 * loads through bpf_rdonly_cast() (6.2+), else bpf_probe_read_kernel().
	 */
	bool direct_loads;
	int load_attempts;
	/*
	 * What loading cost: wall time of the last (successful) load, and the
	 * instructions the kernel's verifier processed (bpf_prog_info
	 * verified_insns, 5.16+), in all and for the costliest program.
	 */
	double load_s;
	uint64_t verified_insns, verified_insns_max;
};

/* Called on each freshly opened skeleton, before load (rodata, map sizes). */
typedef int (*probes_configure_fn)(struct uring_record_bpf *skel, void *arg);
/* Called once loaded, before anything is attached (ring buffers, filter maps). */
typedef int (*probes_loaded_fn)(struct uring_record_bpf *skel, void *arg);

/*
 * Open, configure, load (dropping programs the kernel refuses, then
 * reloading) and attach.  On success *skelp is loaded and attached.
 * Returns 0, or a negative errno after printing why (a required hook is
 * missing, or nothing could be loaded).
 */
int probes_setup(struct probes *p, struct uring_record_bpf **skelp, const struct env *env,
		 const struct btf *btf, const struct tracefs_info *tracefs,
		 probes_configure_fn configure, probes_loaded_fn loaded, void *arg);

/* Detach everything (links die with the process anyway). */
void probes_detach(struct probes *p);
void probes_free(struct probes *p);

/* The "probes" metadata array. */
void probes_json(const struct probes *p, struct json_out *o);
/* Is the program attached?  (For the tracepoint format texts.) */
bool probes_attached(const struct probes *p, const char *program);
/* The address of a kernel function from /proc/kallsyms; 0 if unknown. */
uint64_t probes_kernel_func(const char *func);

/*
 * Tracepoints (tracefs "category/name") the recorder may hook, to read
 * their formats and ids before setup.
 */
extern const char *const probes_tracefs_names[];
extern const size_t probes_tracefs_count;
/* Tracefs name of the tracepoint behind an attached probe entry, or NULL. */
const char *probes_entry_tracefs_name(const struct probe_entry *e);

#endif
