/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What uring-replay will do, read from a log through the converter's
 * reader, merge and request model (plan.c is an output of the model,
 * libcore/output.h): every recorded ring, every request with its SQE
 * fields, grouped into the io_uring_enter calls that submitted them, and
 * the files they used (by replay_key.h), or the reason a request cannot be
 * replayed.
 */
#ifndef RINGSIDE_REPLAY_PLAN_H
#define RINGSIDE_REPLAY_PLAN_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "replay_key.h"

enum plan_op {			/* what the replayer knows how to prepare */
	POP_NOP, POP_RW, POP_RW_FIXED, POP_RWV, POP_FSYNC, POP_SYNC_RANGE,
	POP_TIMEOUT, POP_LINK_TIMEOUT,
	POP_NET,			/* SEND, RECV: buffer, length, msg flags */
	POP_MSG,			/* SENDMSG, RECVMSG: a msghdr of one iovec */
	POP_POLL,			/* one-shot POLL_ADD */
	POP_SHUTDOWN,
};

/* Which way a request moves data through its file. */
enum plan_dir { PDIR_NONE, PDIR_IN, PDIR_OUT };	/* IN: write, send */

struct plan_req {
	uint64_t id;			/* the model's request id */
	unsigned ring;			/* ring number */
	enum plan_op op;
	enum plan_dir dir;
	bool end_write;			/* pipe: on its write end */
	bool oflagged;			/* file: through the target's fd_oflags */
	uint8_t opcode, host_opcode, sqe_flags;
	uint16_t ioprio, buf_index;
	uint32_t op_flags, len;
	int32_t fd;			/* as recorded: with IOSQE_FIXED_FILE the
					 * registered-file slot, kept whatever
					 * identifies the file (replay_key.h) */
	uint64_t off;
	uint32_t bytes;			/* vectored: bytes in total */
	uint32_t target;		/* index in plan.targets; UINT32_MAX none */
	uint64_t submit_ts, complete_ts;
	int32_t res;
	uint64_t syscall;		/* enter slice that submitted it, 0 none */
	uint32_t submit_tid;		/* recorded thread that submitted it */
	uint64_t chain_id;
	const char *skip;		/* why it is not replayed, NULL: replayed */
	/* filled by the run */
	uint64_t r_submit_ns, r_complete_ns;
	int32_t r_res;
	bool r_done;
};

struct plan_step {		/* one io_uring_enter (or SQPOLL hand-over) */
	uint64_t ts;			/* recorded begin (boot ns) */
	unsigned ring;
	bool enter;			/* false: SQPOLL, no enter recorded */
	uint32_t to_submit_rec;		/* as recorded */
	uint32_t submitted_rec;		/* requests the recording saw submitted */
	uint32_t min_complete, flags;
	size_t first, n;		/* plan.order[first .. first + n) */
	uint32_t tid;			/* recorded thread that entered; SQPOLL:
					 * 0 (its ring's thread replays it) */
	/* filled by the run */
	int64_t err_ns;			/* submission time error */
	int ret;
};

struct plan_ring {
	unsigned number;
	bool known;
	bool created;			/* created during the recording */
	uint32_t setup_flags, sq_entries, cq_entries;
	uint32_t max_fixed_file, max_buf_index;	/* +1; 0 none */
	uint32_t max_len;
	uint32_t creator_tid;		/* thread that created or first used it */
	uint32_t tid;			/* recorded thread that entered it, 0 none:
					 * the first one when several did */
	unsigned thread;		/* replay thread; UINT_MAX: no step */
};

/* Open flags of a recorded file that its replay target is opened with too. */
#define PLAN_OFLAGS (O_DIRECT | O_DSYNC | O_SYNC)

struct plan_target {
	struct replay_key key;		/* key.kind: file, pipe or socket */
	char name[REPLAY_KEY_NAME_LEN];
	uint64_t extent;
	const char *path;		/* mapped (--map) or NULL: scratch */
	int fd;				/* a pipe's read end */
	int fd2;			/* a pipe's write end; -1 */
	uint32_t peer;			/* a socket's pair (streams.c); UINT32_MAX */
	bool nonblock[2];		/* O_NONBLOCK as recorded: fd, fd2 */
	int oflags;			/* file: O_DIRECT, O_DSYNC, O_SYNC as some
					 * of its recorded fds had them */
	int fd_oflags;			/* opened with oflags; -1 */
	bool used;			/* a replayed request uses it */
	bool tainted;			/* a request on it is not replayed */
};

struct plan_skip {
	uint8_t opcode;
	const char *reason;
	uint64_t n;
};

struct plan {
	const struct names *names;	/* valid during plan_read only */
	struct plan_req *reqs;
	size_t nreqs;
	size_t *order;			/* replayed requests by step */
	struct plan_step *steps;
	size_t nsteps;
	struct plan_ring *rings;	/* indexed by ring number - 1 */
	size_t nrings;
	struct plan_target *targets;
	size_t ntargets;
	struct plan_skip *skips;
	size_t nskips;
	uint64_t skipped, replayed;
	/* Replay threads: one per recorded thread that entered rings, each
	 * replaying its rings' steps; one for all when a ring was entered by
	 * several (shared_ring, by shared_tid[0] and [1]).  thread_tid[i]:
	 * the recorded thread that replay thread i stands for (0 unknown). */
	unsigned nthreads;
	uint32_t *thread_tid;
	unsigned shared_ring;		/* 0: none */
	uint32_t shared_tid[2];
	bool identity;			/* the log names files (format 3.1) */
	uint32_t max_len;
	char opnames[256][NAMES_MAX_LEN];	/* as the log names them */
};

/*
 * Pipes and sockets whose data flow the recording holds whole (streams.c):
 * the others' requests get their reason, the pairs their peer.  Returns
 * how many requests it marked, SIZE_MAX when out of memory.
 */
size_t plan_streams(struct plan *p);

/* Read log into p; returns 0, or 1 after one error line on stderr. */
int plan_read(struct plan *p, const char *log, bool quiet);
void plan_free(struct plan *p);

#endif
