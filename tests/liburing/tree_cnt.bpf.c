// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The truth of make check-liburing: counts, for one process tree, the
 * io_uring tracepoints whose records uring-convert turns into requests,
 * CQEs and io_uring_enter calls.  Written apart from bpf/uring_record.bpf.c
 * so that a selection or capture bug there cannot hide here too.
 *
 * Selection: tree_cnt.c puts the pid of the command it runs (uring-record)
 * in sel as TC_ROOT; every process forked below it is counted.  Threads,
 * io-wq workers and SQPOLL threads share their process's tgid.
 *
 * Rings: a ring created by a counted process is remembered with a number;
 * its submissions and CQEs are counted whoever posts them (a kworker
 * running io_ring_exit_work, the task work of another process).
 */
#include "kernel_types.bpf.h"

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tree_cnt.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define TC_CLONE_THREAD 0x00010000

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, u32);
	__type(value, u32);
} sel SEC(".maps");

/* ring context address -> ring number */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, u64);
	__type(value, u32);
} rings SEC(".maps");

/* per ring number, and TC_OTHER_RING; all enters go to ring 0's TC_ENTER */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TC_MAX_RINGS + 1);
	__type(key, u32);
	__type(value, struct tc_ring);
} counts SEC(".maps");

__u32 nr_rings;		/* rings numbered so far (may exceed TC_MAX_RINGS) */
__u64 unowned;		/* events of counted tasks on rings not theirs */

static __always_inline u32 *sel_of_current(void)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&sel, &tgid);
}

static __always_inline bool current_counted(void)
{
	u32 *v = sel_of_current();

	return v && *v == TC_COUNTED;
}

static __always_inline void add(u32 ring, u32 slot)
{
	struct tc_ring *c = bpf_map_lookup_elem(&counts, &ring);

	if (c && slot < TC_SLOTS)
		__sync_fetch_and_add(&c->n[slot], 1);
}

static __always_inline void count_ring(void *ctx, u32 slot)
{
	u64 key = (u64)ctx;
	u32 *ring = bpf_map_lookup_elem(&rings, &key);

	if (ring) {
		add(*ring, slot);
		return;
	}
	if (current_counted())
		__sync_fetch_and_add(&unowned, 1);
}

SEC("tp_btf/task_newtask")
int BPF_PROG(tc_newtask, struct task_struct *task, u64 clone_flags)
{
	u32 tgid, counted = TC_COUNTED;

	if ((clone_flags & TC_CLONE_THREAD) || !sel_of_current())
		return 0;
	tgid = task->tgid;
	bpf_map_update_elem(&sel, &tgid, &counted, BPF_ANY);
	return 0;
}

/*
 * A process leaves the selection when its last thread is freed, before its
 * pid can be given to another process (pid_max may be as low as 32768).
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(tc_free, struct task_struct *task)
{
	u32 tgid = task->tgid;

	if (task->pid == tgid)
		bpf_map_delete_elem(&sel, &tgid);
	return 0;
}

/* io_uring_create(int fd, void *ctx, u32 sq_entries, u32 cq_entries, u32 flags) */
SEC("tp_btf/io_uring_create")
int BPF_PROG(tc_create, int fd, void *rctx)
{
	u64 key = (u64)rctx;
	struct tc_ring *c;
	u32 n;

	/* a ring at the address of a freed one is a new ring */
	if (!current_counted()) {
		bpf_map_delete_elem(&rings, &key);
		return 0;
	}
	n = __sync_fetch_and_add(&nr_rings, 1);
	if (n >= TC_MAX_RINGS)
		n = TC_OTHER_RING;
	bpf_map_update_elem(&rings, &key, &n, BPF_ANY);
	c = bpf_map_lookup_elem(&counts, &n);
	if (c) {
		c->creator = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(c->comm, sizeof(c->comm));
	}
	return 0;
}

/* io_uring_submit_req(struct io_kiocb *req) */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(tc_submit, struct io_kiocb *req)
{
	count_ring(req->ctx, TC_SUBMIT);
	return 0;
}

/* io_uring_req_failed(const struct io_uring_sqe *sqe, struct io_kiocb *req, int error) */
SEC("tp_btf/io_uring_req_failed")
int BPF_PROG(tc_req_failed, const void *sqe, struct io_kiocb *req)
{
	count_ring(req->ctx, TC_REQ_FAILED);
	return 0;
}

/* io_uring_complete: the ring first, on every kernel */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(tc_complete, void *rctx)
{
	count_ring(rctx, TC_COMPLETE);
	return 0;
}

/* io_uring_cqe_overflow(void *ctx, ...) */
SEC("tp_btf/io_uring_cqe_overflow")
int BPF_PROG(tc_cqe_overflow, void *rctx)
{
	count_ring(rctx, TC_CQE_OVERFLOW);
	return 0;
}

/*
 * Every syscall, filtered by number: the syscalls:sys_enter_* tracepoints
 * need tracefs mounted, raw_syscalls does not.  io_uring_enter is 426 on
 * every architecture (the unified numbers of Linux 5.1).
 */
#define TC_NR_IO_URING_ENTER 426

SEC("tp_btf/sys_enter")
int BPF_PROG(tc_sys_enter, struct pt_regs *regs, long id)
{
	if (id == TC_NR_IO_URING_ENTER && current_counted())
		add(0, TC_ENTER);
	return 0;
}
