// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The floor of any BPF io_uring recorder: on exactly the hooks, with exactly
 * the attach types, uring-record uses, do nothing but add one to a per-CPU
 * counter.  bench/run compares uring-record against this to isolate the
 * cost of recording (reserve, fill, submit a record) from the cost of the
 * hook itself (trampoline, tracepoint slow path).
 *
 * Hooks (bench/iou_cnt.c attaches those the kernel has):
 *   tp_btf on the io_uring tracepoints;
 *   the io_uring syscalls like uring-record's --syscalls modes: the classic
 *   syscalls:sys_{enter,exit}_io_uring_* tracepoints, or tp_btf
 *   sys_enter/sys_exit filtered by syscall number;
 *   tp_btf sched_switch (uring-record's io-wq fallback when fentry and
 *   kprobes are unavailable) and the task lifecycle tracepoints.
 *
 * Where uring-record decides not to write a record from the arguments alone
 * (a task_work_run that ran nothing, a context switch not involving an
 * io_uring thread, a syscall that is not io_uring's), this does the same
 * test, so that "events" here and records there count the same things.
 */
#include "kernel_types.bpf.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "iou_cnt.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * --clock: also read the clock uring-record stamps its records with, and
 * keep the last reading, so that the floor includes placing each event in
 * time -- a cost no recorder can skip, and on a kvm-clock guest the largest
 * single part of a record (see bench/RESULTS.md).
 */
const volatile bool read_clock = false;
/*
 * --thread: also ask which thread hit the hook, as every uring-record
 * record does (bpf_get_current_pid_tgid(), a helper call: not inlined by
 * the JIT up to at least 6.18).  With --clock, the floor of any recorder
 * that says when and in which thread each event happened, before it
 * copies or delivers anything.
 */
const volatile bool read_thread = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_SLOTS);
	__type(key, u32);
	__type(value, struct cnt_slot);
} counts SEC(".maps");

static __always_inline void count(u32 slot)
{
	struct cnt_slot *c = bpf_map_lookup_elem(&counts, &slot);

	if (!c)
		return;
	c->hits++;
	if (read_clock)
		c->last_ts = bpf_ktime_get_boot_ns();
	if (read_thread)
		c->last_pid_tgid = bpf_get_current_pid_tgid();
}

/* A program that counts every hit of the hook SECTION "NAME". */
#define COUNT_HOOK(section, name, slot)			\
	SEC("?" section #name)				\
	int cnt_##name(void *ctx)			\
	{						\
		count(slot);				\
		return 0;				\
	}
#define COUNT_TP_BTF(name, slot) COUNT_HOOK("tp_btf/", name, slot)

COUNT_TP_BTF(io_uring_create, CNT_CREATE)
COUNT_TP_BTF(io_uring_register, CNT_REGISTER)
COUNT_TP_BTF(io_uring_submit_req, CNT_SUBMIT)
COUNT_TP_BTF(io_uring_submit_sqe, CNT_SUBMIT)
COUNT_TP_BTF(io_uring_queue_async_work, CNT_QUEUE_ASYNC_WORK)
COUNT_TP_BTF(io_uring_defer, CNT_DEFER)
COUNT_TP_BTF(io_uring_link, CNT_LINK)
COUNT_TP_BTF(io_uring_fail_link, CNT_FAIL_LINK)
COUNT_TP_BTF(io_uring_cqring_wait, CNT_CQRING_WAIT)
COUNT_TP_BTF(io_uring_req_failed, CNT_REQ_FAILED)
COUNT_TP_BTF(io_uring_cqe_overflow, CNT_CQE_OVERFLOW)
COUNT_TP_BTF(io_uring_poll_arm, CNT_POLL_ARM)
COUNT_TP_BTF(io_uring_task_add, CNT_TASK_ADD)
COUNT_TP_BTF(io_uring_local_work_run, CNT_LOCAL_WORK_RUN)
COUNT_TP_BTF(io_uring_short_write, CNT_SHORT_WRITE)
COUNT_TP_BTF(io_uring_complete, CNT_COMPLETE)
COUNT_TP_BTF(task_newtask, CNT_TASK_NEWTASK)
COUNT_TP_BTF(task_rename, CNT_TASK_RENAME)
COUNT_TP_BTF(sched_process_exec, CNT_PROC_EXEC)
COUNT_TP_BTF(sched_process_exit, CNT_PROC_EXIT)

/* io_uring_task_work_run(void *tctx, unsigned count, ...): empty runs apart */
SEC("?tp_btf/io_uring_task_work_run")
int BPF_PROG(cnt_io_uring_task_work_run, void *tctx, unsigned int n)
{
	count(n ? CNT_TASK_WORK_RUN : CNT_TASK_WORK_RUN_EMPTY);
	return 0;
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(cnt_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if ((prev->flags | next->flags) & EV_PF_IO_WORKER)
		count(CNT_SCHED_SWITCH);
	return 0;
}

/* --syscalls=tracepoint: the classic per-syscall tracepoints */
#define COUNT_TP(sys, slot) COUNT_HOOK("tracepoint/syscalls/", sys, slot)

COUNT_TP(sys_enter_io_uring_setup, CNT_SYS_SETUP)
COUNT_TP(sys_exit_io_uring_setup, CNT_SYS_SETUP_EXIT)
COUNT_TP(sys_enter_io_uring_enter, CNT_SYS_ENTER)
COUNT_TP(sys_exit_io_uring_enter, CNT_SYS_ENTER_EXIT)
COUNT_TP(sys_enter_io_uring_register, CNT_SYS_REGISTER)
COUNT_TP(sys_exit_io_uring_register, CNT_SYS_REGISTER_EXIT)

/* --syscalls=raw: every syscall of every task, filtered by number */
SEC("?tp_btf/sys_enter")
int BPF_PROG(cnt_raw_sys_enter, struct pt_regs *regs, long id)
{
	if (id >= CNT_NR_IO_URING_SETUP && id <= CNT_NR_IO_URING_REGISTER)
		count(CNT_SYS_SETUP + 2 * (u32)(id - CNT_NR_IO_URING_SETUP));
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(cnt_raw_sys_exit, struct pt_regs *regs, long ret)
{
	long id = UR_REGS_SYSCALL_NR(regs);

	if (id >= CNT_NR_IO_URING_SETUP && id <= CNT_NR_IO_URING_REGISTER)
		count(CNT_SYS_SETUP_EXIT + 2 * (u32)(id - CNT_NR_IO_URING_SETUP));
	return 0;
}
