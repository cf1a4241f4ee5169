/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What bench/iou_cnt.bpf.c and bench/iou_cnt.c agree on: the counter slots. */
#ifndef RINGSIDE_BENCH_IOU_CNT_H
#define RINGSIDE_BENCH_IOU_CNT_H

#include "uring_event.h"

/* X(slot, name printed) -- syscall slots: enter, then its exit */
#define CNT_SLOT_LIST(X)						\
	X(CNT_CREATE, "io_uring_create")				\
	X(CNT_REGISTER, "io_uring_register")				\
	X(CNT_SUBMIT, "io_uring_submit_req")				\
	X(CNT_QUEUE_ASYNC_WORK, "io_uring_queue_async_work")		\
	X(CNT_DEFER, "io_uring_defer")					\
	X(CNT_LINK, "io_uring_link")					\
	X(CNT_FAIL_LINK, "io_uring_fail_link")				\
	X(CNT_CQRING_WAIT, "io_uring_cqring_wait")			\
	X(CNT_REQ_FAILED, "io_uring_req_failed")			\
	X(CNT_CQE_OVERFLOW, "io_uring_cqe_overflow")			\
	X(CNT_POLL_ARM, "io_uring_poll_arm")				\
	X(CNT_TASK_ADD, "io_uring_task_add")				\
	X(CNT_TASK_WORK_RUN, "io_uring_task_work_run")			\
	X(CNT_LOCAL_WORK_RUN, "io_uring_local_work_run")		\
	X(CNT_SHORT_WRITE, "io_uring_short_write")			\
	X(CNT_COMPLETE, "io_uring_complete")				\
	X(CNT_SYS_SETUP, "sys_enter_io_uring_setup")			\
	X(CNT_SYS_SETUP_EXIT, "sys_exit_io_uring_setup")		\
	X(CNT_SYS_ENTER, "sys_enter_io_uring_enter")			\
	X(CNT_SYS_ENTER_EXIT, "sys_exit_io_uring_enter")		\
	X(CNT_SYS_REGISTER, "sys_enter_io_uring_register")		\
	X(CNT_SYS_REGISTER_EXIT, "sys_exit_io_uring_register")		\
	X(CNT_SCHED_SWITCH, "sched_switch")				\
	X(CNT_TASK_NEWTASK, "task_newtask")				\
	X(CNT_TASK_RENAME, "task_rename")				\
	X(CNT_PROC_EXEC, "sched_process_exec")				\
	X(CNT_PROC_EXIT, "sched_process_exit")				\
	/* not recorded by uring-record either (only counted) */	\
	X(CNT_TASK_WORK_RUN_EMPTY, "io_uring_task_work_run_empty")

#define CNT_ENUM(slot, name) slot,
enum { CNT_SLOT_LIST(CNT_ENUM) CNT_SLOTS };
#undef CNT_ENUM

/* Slots that uring-record would have written a record for. */
#define CNT_RECORDED_SLOTS CNT_TASK_WORK_RUN_EMPTY

/*
 * A counter slot, per CPU: its hits, with --clock the last time read, and
 * with --thread the last thread's bpf_get_current_pid_tgid().
 */
struct cnt_slot {
	__u64 hits;
	__u64 last_ts;
	__u64 last_pid_tgid;
};

#define CNT_NR_IO_URING_SETUP		425
#define CNT_NR_IO_URING_REGISTER	427

#endif
