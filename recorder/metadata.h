/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The META frame: one JSON object describing the recording (uring-log(5),
 * METADATA): recorder and command line, host, start clock, the record
 * layouts, the kernel's opcode names and enumerations, tracepoint formats,
 * which probes attached, filters and options.  The parts that need libbpf
 * or a live kernel come in through callbacks, so the builder itself can be
 * tested without either.
 */
#ifndef RINGSIDE_RECORDER_METADATA_H
#define RINGSIDE_RECORDER_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "env.h"
#include "json.h"
#include "log_format.h"

struct meta_input {
	const struct env *env;
	const struct log_clock_snapshot *start;
	unsigned ncpus;			/* possible */
	const char *online_cpus;	/* as in /sys/devices/system/cpu/online */
	const bool *ring_cpus;		/* CPUs that got a ring buffer */
	uint64_t wakeup_bytes;
	const char *io_wq_tracking;
	const char *syscall_tracking;
	const char *cgroup_rel;		/* --cgroup relative to the cgroup2 root */
	bool initial_pid_ns;
	pid_t command_pid;
	bool fops_learned;		/* rings of enter/register can be resolved */
	const char *const *off_pointer_ops;	/* opcodes whose SQE off is not kept */
	/* Each writes one member value (or members) into o; may be NULL. */
	void (*host)(struct json_out *o, void *arg);
	void (*opcodes)(struct json_out *o, void *arg);		/* the "opcodes" object */
	void (*kernel_enums)(struct json_out *o, void *arg);	/* members */
	void (*tracepoints)(struct json_out *o, void *arg);	/* members */
	void (*probes)(struct json_out *o, void *arg);		/* the array */
	/* --flight-recorder: the "flight_recorder" object of a snapshot */
	void (*flight)(struct json_out *o, void *arg);
	void *arg;
};

/* The metadata JSON (malloc'd, NUL-terminated), or NULL when out of memory. */
char *metadata_build(const struct meta_input *in, size_t *len);

/* The "opcodes" object from common/uring_names.c ("source": "built-in"). */
void metadata_builtin_opcodes(struct json_out *o);

#endif
