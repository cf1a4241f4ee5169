/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal io_uring ring over the raw system calls (no liburing: the
 * replayer must set up exactly the recorded ring, batch exactly as
 * recorded, and depend on nothing the converter does not).
 */
#ifndef RINGSIDE_REPLAY_URING_H
#define RINGSIDE_REPLAY_URING_H

#include <linux/io_uring.h>
#include <stdbool.h>
#include <stdint.h>

/* Flags newer than the oldest uapi headers this builds with (5.15's):
 * the kernel's values, which never change. */
#ifndef IORING_SETUP_SUBMIT_ALL
#define IORING_SETUP_SUBMIT_ALL		(1U << 7)	/* 5.18 */
#endif
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN	(1U << 8)	/* 5.19 */
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG	(1U << 9)	/* 5.19 */
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER	(1U << 12)	/* 6.0 */
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN	(1U << 13)	/* 6.1 */
#endif
#ifndef IORING_RECV_MULTISHOT
#define IORING_RECV_MULTISHOT		(1U << 1)	/* 6.0 */
#endif
#ifndef IORING_ASYNC_CANCEL_ANY
#define IORING_ASYNC_CANCEL_ANY		(1U << 2)	/* 5.19 */
#endif
#ifndef IORING_ENTER_REGISTERED_RING
#define IORING_ENTER_REGISTERED_RING	(1U << 4)	/* 5.18 */
#endif
/* IORING_REGISTER_RING_FDS (5.18), an enum value in the uapi header. */
#define URING_REGISTER_RING_FDS		20
#ifndef IOSQE_CQE_SKIP_SUCCESS
#define IOSQE_CQE_SKIP_SUCCESS		(1U << 6)	/* 5.17 */
#endif

struct uring {
	int fd;
	struct io_uring_params p;
	void *sq_map, *cq_map;
	size_t sq_map_len, cq_map_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_cqe *cqes;
	unsigned sq_local_tail;		/* SQEs prepared, not yet published */
	int ring_index;			/* the fd's registered index; -1 none */
};

/* io_uring_setup with p (entries, flags, ...); 0 or -errno. */
int uring_init(struct uring *u, unsigned entries, struct io_uring_params *p);
void uring_exit(struct uring *u);

/* The next free SQE (zeroed), or NULL when the SQ ring is full. */
struct io_uring_sqe *uring_get_sqe(struct uring *u);
/* Publish the prepared SQEs to the kernel (tail store). */
void uring_publish(struct uring *u);
/* io_uring_enter; returns its result or -errno.  With
 * IORING_ENTER_REGISTERED_RING in flags, by the ring's registered index
 * (when uring_register_ring_fd() made one; else by its fd). */
int uring_enter(struct uring *u, unsigned to_submit, unsigned min_complete, unsigned flags);
/* io_uring_enter waiting at most timeout_ns (IORING_ENTER_EXT_ARG, 5.11;
 * without it, unbounded); result or -errno, -ETIME when it timed out. */
int uring_enter_timeout(struct uring *u, unsigned to_submit, unsigned min_complete,
			unsigned flags, uint64_t timeout_ns);
/* The next CQE or NULL; uring_cqe_seen() consumes it. */
struct io_uring_cqe *uring_peek_cqe(struct uring *u);
void uring_cqe_seen(struct uring *u);
/* io_uring_register; returns its result or -errno. */
int uring_register(struct uring *u, unsigned opcode, const void *arg, unsigned nr);
/* Register the ring's own fd (IORING_REGISTER_RING_FDS), for enters that
 * name it by its index; 0 or -errno. */
int uring_register_ring_fd(struct uring *u);
/* SQPOLL: the thread needs a wake-up (IORING_SQ_NEED_WAKEUP). */
bool uring_sq_needs_wakeup(const struct uring *u);

#endif
