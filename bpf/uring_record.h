/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What bpf/uring_record.bpf.c and the recorder (recorder/) agree on besides
 * the event ABI (common/uring_event.h) and the staging protocol (stage.h):
 * the loss counters the recorder reads back, map sizes, and a few io_uring and
 * syscall constants the BPF side needs without kernel headers.
 */
#ifndef RINGSIDE_URING_RECORD_H
#define RINGSIDE_URING_RECORD_H

#include "stage.h"
#include "uring_event.h"

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
/* Files described by an EV_FILE record (bpf/files.bpf.h). */
#define UR_MAX_FILES		16384
/*
 * --sample: requests chosen and in flight, threads inside a chosen
 * io_uring_enter (bpf/sample.bpf.h).  Tables of buckets of UR_SAMPLE_WAYS
 * keys, one 64-byte line each; a power of two of buckets.  A chosen
 * request or call that finds its bucket full is not recorded, and counted.
 */
#define UR_SAMPLE_WAYS		8
#define UR_SAMPLE_REQ_BUCKETS	65536
#define UR_SAMPLE_ENTER_BUCKETS	4096

struct ur_sample_bucket {
	__u64 key[UR_SAMPLE_WAYS];
};

/*
 * Counters the recorder reports at exit (".bss" ur_stats); none of them is
 * an event loss.
 */
struct ur_stats {
	__u64 follow_map_full;		/* --follow: child not added, map full */
	__u64 ring_owner_map_full;	/* ring of a selected process not remembered */
	__u64 task_work_run_empty;	/* io_uring_task_work_run with count 0, skipped */
	__u64 sample_req_declined;	/* --sample: chosen request, its bucket full */
	__u64 sample_enter_declined;	/* --sample-syscalls: chosen call, bucket full */
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
#define UR_IORING_CQE_F_MORE		(1U << 1)
#define UR_IORING_CQE_F_NOTIF		(1U << 3)
#define UR_IO_RINGFD_REG_MAX		16

#endif /* RINGSIDE_URING_RECORD_H */
