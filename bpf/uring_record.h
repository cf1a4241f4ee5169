/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What bpf/uring_record.bpf.c and the recorder (recorder/) agree on besides
 * the event ABI (common/uring_event.h): the layout of the per-CPU state and
 * loss counters the recorder reads back, map sizes, and a few io_uring and
 * syscall constants the BPF side needs without kernel headers.
 */
#ifndef RINGSIDE_URING_RECORD_H
#define RINGSIDE_URING_RECORD_H

#include "uring_event.h"

/*
 * Records are not written to the ring buffer one by one: each CPU stages
 * them back to back in its ur_cpu_state and hands UR_STAGE_BYTES or so to
 * its ring in one bpf_ringbuf_output() (a ring-buffer entry therefore holds
 * one or more whole records; the recorder splits them by type size).  This
 * takes the ring buffer's lock, its header and the first write to a cold
 * ring line off the per-event path.  UR_RECORD_MAX is the largest record.
 */
#define UR_STAGE_BYTES		8192		/* power of two */
#define UR_RECORD_MAX		80
/*
 * Programs nest on a CPU (an interrupt's program inside a task's): only the
 * outermost one stages; nested ones build their record in one of these
 * slots and write it to the ring buffer directly.  Deeper nesting drops.
 */
#define UR_NEST_SLOTS		4		/* power of two */

/*
 * Per-CPU state of the BPF side (PERCPU_ARRAY "cpu_states", one slot).
 * pending counts events dropped on this CPU that no "lost" record has
 * reported yet; first_ts/last_ts place them in time.  The recorder reads it
 * at stop to write "lost" records with EVF_LOSS_AT_STOP, and to collect the
 * records still staged (stage_len bytes of stage).
 */
struct ur_cpu_state {
	__u64 pending;
	__u64 first_ts;
	__u64 last_ts;
	__u32 woken;			/* a wakeup was forced for this fill */
	__u32 depth;			/* programs running on this CPU */
	__u32 stage_len;		/* bytes staged */
	__u32 drop_off;		/* drop_staged() walk */
	/* what io_uring_enter's entry found, for its exit (enter_cache_put) */
	__u64 enter_ring;
	__u64 enter_fd;			/* its arguments fd and flags */
	__u64 enter_flags;
	__u64 enter_switches;		/* the task's nvcsw + nivcsw at the entry */
	__u32 enter_tid;
	__u32 pad;
	__u8 stage[UR_STAGE_BYTES + UR_RECORD_MAX];
	__u8 nest[UR_NEST_SLOTS][UR_RECORD_MAX];
};

/*
 * Loss counters (PERCPU_ARRAY "loss_counts"): slot kind * EV_TYPE_LIMIT +
 * type counts the records of that type dropped for that reason
 * (enum ev_loss_kind) on each CPU.  The BPF side only uses the kernel-side
 * kinds; EV_LOSS_USER_QUEUE is counted by the recorder.
 */
#define UR_LOSS_KINDS_BPF	(EV_LOSS_NO_RING + 1)
#define UR_LOSS_SLOTS		(UR_LOSS_KINDS_BPF * EV_TYPE_LIMIT)

/* The BPF side's "state" (.bss), set by the recorder. */
#define UR_STATE_ATTACHED	0	/* hooks in place, not recording yet */
#define UR_STATE_RECORDING	1
#define UR_STATE_STOPPED	2
/*
 * Listing the tasks alive before the start: only fork, exec and rename are
 * recorded, so that a process that execs after the listing passed it and
 * exits before the listing after the start still has a name.
 */
#define UR_STATE_LISTING	3

/* Processes selected by -p / --follow / -- COMMAND. */
#define UR_MAX_FILTER_PIDS	16384
/* Rings of selected processes, learned at create, enter and submit. */
#define UR_MAX_RING_OWNERS	16384

/*
 * Counters the recorder reports at exit (".bss" ur_stats); none of them is
 * an event loss.
 */
struct ur_stats {
	__u64 follow_map_full;		/* --follow: child not added, map full */
	__u64 ring_owner_map_full;	/* ring of a selected process not remembered */
	__u64 task_work_run_empty;	/* io_uring_task_work_run with count 0, skipped */
};

/*
 * io_uring syscall numbers.  They are the same on every architecture: the
 * io_uring syscalls were added (5.1) after the syscall tables were unified
 * (include/uapi/asm-generic/unistd.h, arch/x86/entry/syscalls/syscall_64.tbl).
 */
#define UR_NR_IO_URING_SETUP	425
#define UR_NR_IO_URING_ENTER	426
#define UR_NR_IO_URING_REGISTER	427

/* include/uapi/linux/io_uring.h values the BPF side tests. */
#define UR_IORING_SETUP_SQPOLL		(1U << 1)
#define UR_IORING_SETUP_SQE128		(1U << 10)
#define UR_IORING_SETUP_CQE32		(1U << 11)
#define UR_IORING_SETUP_NO_SQARRAY	(1U << 16)	/* 6.6 */
#define UR_IORING_ENTER_REGISTERED_RING	(1U << 4)
#define UR_IORING_REGISTER_USE_REGISTERED_RING (1U << 31)
#define UR_IORING_CQE_F_32		(1U << 15)	/* 6.18 mixed-size CQ rings */
#define UR_IO_RINGFD_REG_MAX		16

#endif /* RINGSIDE_URING_RECORD_H */
