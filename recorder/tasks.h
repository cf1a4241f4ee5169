/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tasks that exist when recording starts, from /proc: they get EV_TASK
 * records (reason EV_TASK_EXISTING) in the log's TASKS frame, so that every
 * task in the trace has a name even if it never forks, renames or execs
 * while recording.
 *
 * Why /proc and not a BPF task iterator: it works on every kernel and
 * privilege setup the recorder supports (iterators are BPF_PROG_TYPE_TRACING
 * programs, which some kernels refuse, like fentry on this project's 6.18
 * host), it costs one pass at start, and /proc/PID/stat has everything an
 * EV_TASK record holds, PF_* flags included.  The scan runs after the BPF
 * programs are attached, so a task is either seen here or by the fork hook.
 */
#ifndef RINGSIDE_RECORDER_TASKS_H
#define RINGSIDE_RECORDER_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "frames.h"
#include "uring_event.h"

struct task_filter {
	bool active;
	const pid_t *pids;		/* selected processes (tgids), or NULL */
	size_t npids;
	bool follow;			/* also their existing descendants */
	const char *comm;		/* main thread name, or NULL */
	const char *cgroup;		/* cgroup v2 path relative to its mount, or NULL */
	pid_t self;			/* the recorder: never selected */
};

struct task_scan {
	struct ev_task *tasks;		/* selected tasks */
	size_t ntasks;
	pid_t *followed;		/* descendants added by follow */
	size_t nfollowed;
};

/* Scan /proc.  Returns 0 or a negative errno. */
int tasks_scan(struct task_scan *scan, const struct task_filter *flt, const char *proc_root,
	       uint64_t ts);
void tasks_scan_free(struct task_scan *scan);

/*
 * The state letter of a /proc/PID/stat line (R, S, D, Z, ...), found after
 * the comm, which may hold spaces and parentheses; 0 if there is none.
 */
char tasks_stat_state(const char *line);

/* Parse one /proc/PID/stat line: comm, ppid and flags.  0 or -1. */
int tasks_parse_stat(const char *line, char comm[EV_COMM_LEN], pid_t *ppid,
		     unsigned *flags);

#endif
