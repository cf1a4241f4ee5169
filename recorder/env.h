/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command line of uring-record: struct env and its parser (argp), with
 * unit-aware parsers for sizes and durations.  Everything here is pure (no
 * BPF, no root) so tests/check_recorder.c can exercise it.
 */
#ifndef RINGSIDE_RECORDER_ENV_H
#define RINGSIDE_RECORDER_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trigger.h"
#include "uring_event.h"

enum io_wq_mode {
	IO_WQ_AUTO,
	IO_WQ_FENTRY,
	IO_WQ_KPROBE,
	IO_WQ_SCHED_SWITCH,
	IO_WQ_NONE,
};

enum syscall_mode {
	SYSCALLS_AUTO,
	SYSCALLS_FENTRY,
	SYSCALLS_TRACEPOINT,
	SYSCALLS_RAW,
	SYSCALLS_NONE,
};

#define ENV_DEFAULT_OUTPUT		"uring.log"
/* Default ring size: this budget shared by the online CPUs, within bounds. */
#define ENV_RING_BUDGET			(128ull << 20)
#define ENV_RING_MIN_DEFAULT		(4ull << 20)
#define ENV_RING_MAX_DEFAULT		(32ull << 20)
/*
 * 50 ms, not 5: every drain wakes the recorder and walks every ring.  At
 * 50 ms the recorder takes less CPU per event for the same IOPS and no
 * loss, and much less on an idle host (bench/RESULTS.md, "A longer drain
 * interval").  A ring that passes a
 * quarter full wakes the recorder at once, whatever the interval.
 */
#define ENV_DEFAULT_DRAIN_NS		(50ull * 1000 * 1000)
/* --drain-interval's range: the epoll wait is in whole milliseconds, so
 * anything below 1 ms drains every millisecond anyway. */
#define ENV_MIN_DRAIN_NS		(100ull * 1000)
#define ENV_MAX_DRAIN_NS		(1000ull * 1000 * 1000)
#define ENV_DEFAULT_FLUSH_NS		(1000ull * 1000 * 1000)
/* --flush-interval's upper bound: a killed recorder loses at most one
 * flush interval, so it stays short; the lower is the drain interval. */
#define ENV_MAX_FLUSH_NS		(1000ull * 1000 * 1000)
#define ENV_DEFAULT_QUEUE_SIZE		(64ull << 20)
#define ENV_DEFAULT_FRAME_SIZE		(1ull << 20)
#define ENV_MAX_PIDS			4096
/* --flight-recorder: compressed frames kept in memory, and its bounds. */
#define ENV_DEFAULT_FLIGHT_SIZE		(64ull << 20)
#define ENV_MIN_FLIGHT_SIZE		(1ull << 20)
#define ENV_DEFAULT_POST_NS		(1000ull * 1000 * 1000)
#define ENV_MAX_SNAPSHOTS		1000000u
#define ENV_MAX_TRIGGERS		16
/* --sample's upper bound: beyond it a recording holds too few requests
 * for its counts to mean anything. */
#define ENV_MAX_SAMPLE			(1u << 20)
/*
 * How long a recording whose selection exited waits for the kernel to tear
 * down the rings it used (io_ring_exit_work runs in a kworker after the last
 * reference is gone, and may wait for requests to be cancelled).
 */
#define ENV_RING_TEARDOWN_NS		(2000ull * 1000 * 1000)

struct env {
	const char *output;
	bool force;
	pid_t *pids;
	size_t npids;
	bool follow;
	bool keep_recording;		/* -p: on after the selection exited */
	bool have_comm;
	char comm[EV_COMM_LEN];
	const char *cgroup;
	uint64_t duration_ns;		/* 0: until stopped */
	uint64_t max_size;		/* 0: no limit */
	uint64_t ring_size;		/* bytes per CPU, power of two; 0: default */
	uint64_t drain_ns;
	bool drain_given;		/* --drain-interval: not lowered to flush_ns */
	uint64_t flush_ns;
	uint64_t queue_size;
	uint64_t frame_size;
	int zstd_level;
	bool raw_pointers;
	bool no_self_cost;		/* BPF run time not measured */
	bool run_as_root;
	enum io_wq_mode io_wq;
	enum syscall_mode syscalls;
	/* --sample=N: 1 request in N (0: every request); --sample-syscalls */
	uint32_t sample;
	bool sample_syscalls;
	int verbosity;			/* -1 quiet, 0, 1.. verbose */
	/* --flight-recorder[=SIZE], --post, --snapshots, --trigger */
	uint64_t flight_size;		/* 0: a plain recording */
	uint64_t post_ns;
	unsigned snapshots;
	struct trigger_spec triggers[ENV_MAX_TRIGGERS];
	size_t ntriggers;		/* signal is always among them */
	bool exit_now;			/* --help, --usage or --version done */
	char **command;			/* NULL-terminated, or NULL */
	int argc;			/* the whole command line, for metadata */
	char **argv;
};

/*
 * Parse argv.  Returns 0 to record, 1 when the program should exit with
 * status 0 (--help, --version), or -1 on bad input, after printing one
 * error line naming the option and the problem.
 */
int env_parse(struct env *env, int argc, char **argv);
void env_free(struct env *env);

/*
 * "8M", "512KiB", "1G", "4096" (bytes).  Suffixes K M G T are powers of
 * 1024, optionally followed by "iB" or "B".  Returns 0, or -1 with a message.
 */
int parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/*
 * "30s", "1.5s", "500ms", "2m", "1h", "250us", "100ns"; a bare number is
 * seconds.  Returns 0, or -1 with a message.
 */
int parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);

/*
 * The default ring size for this many online CPUs: the largest power of two
 * within ENV_RING_BUDGET / cpus, clamped to [ENV_RING_MIN_DEFAULT,
 * ENV_RING_MAX_DEFAULT].
 */
uint64_t env_default_ring_size(unsigned online_cpus);

const char *io_wq_mode_name(enum io_wq_mode mode);
const char *syscall_mode_name(enum syscall_mode mode);

#endif
