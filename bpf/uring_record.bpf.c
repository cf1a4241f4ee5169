// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * uring-record's BPF side: copy io_uring events, as fixed-size records of
 * common/uring_event.h, into one BPF ring buffer per CPU.  Nothing is decoded
 * here; every record is numbers read from the kernel, and every record that
 * does not fit is counted (per CPU, kind and type) and placed in time by a
 * "lost" record in front of the next record the CPU manages to write.
 *
 * Every program is declared with SEC("?...") (not loaded unless enabled):
 * recorder/probes.c turns on the variant the running kernel has (from its
 * BTF) and attaches each program on its own, so a hook the kernel lacks
 * costs one feature, never the recording.
 *
 * Programs on tp_btf hooks read their typed arguments directly (plain loads
 * relocated by CO-RE), which is what keeps the per-event cost low; anything
 * reached through an untyped pointer, an array index or user memory goes
 * through bpf_probe_read_*.
 *
 * One compilation unit, in parts: the maps and settings here, then
 *   emit.bpf.h          the per-CPU staging of records (stage.h, shared
 *                       with recorder/ringbufs.c), and loss counting;
 *   filter.bpf.h        which tasks and rings are recorded;
 *   sample.bpf.h        which requests are recorded with --sample;
 *   kernel_reads.bpf.h  reads through untyped pointers, per-kernel accessors;
 *   files.bpf.h         which file a request worked on (EV_FILE records);
 *   this file           the io_uring, task and io-wq tracepoints;
 *   syscalls.bpf.h      io_uring_setup/enter/register entry and exit.
 */
#include "kernel_types.bpf.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uring_event.h"
#include "uring_record.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* ---------------------------------------------------------------- maps */

struct ringbuf_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);	/* set to --ring-size before load */
};

/* One ring buffer per CPU, created by the recorder (recorder/ringbufs.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* set to the number of possible CPUs */
	__type(key, u32);
	__array(values, struct ringbuf_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct ur_cpu_state);
} cpu_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UR_LOSS_SLOTS);
	__type(key, u32);
	__type(value, u64);
} loss_counts SEC(".maps");

/*
 * tgid -> which process holds it: processes selected by -p, -- COMMAND and
 * --follow.  The value is the process's start_time (task_struct), or 0 for
 * the ones the recorder adds (-p, the COMMAND), which are alive then.  An
 * entry lives until the process's group leader is freed (tp_proc_free), or
 * until its pid is reused by a process that is not followed
 * (tp_task_newtask).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UR_MAX_FILTER_PIDS);
	__type(key, u32);
	__type(value, u64);
} pid_filter SEC(".maps");

/*
 * ring (io_ring_ctx address) -> tgid of a selected process using it, so that
 * events running in another task's context (completions from interrupts or
 * other tasks' task work) are kept when a filter is active.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UR_MAX_RING_OWNERS);
	__type(key, u64);
	__type(value, u32);
} ring_owner SEC(".maps");

/* --cgroup: the cgroup v2 directory; descendants are included. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} cgroup_filter SEC(".maps");

/* ------------------------------------------------------------- settings */

/* Set by the recorder before load. */
const volatile __u32 self_tgid = 0;
const volatile bool filter_active = false;
const volatile bool filter_pids = false;
const volatile bool filter_follow = false;
/* io_ring_exit_work's address (/proc/kallsyms), 0 when unknown. */
const volatile __u64 ring_exit_work_fn = 0;
const volatile bool filter_comm = false;
const volatile bool filter_cgroup = false;
/* --cgroup: the directory's cgroup id (its kernfs node id). */
const volatile __u64 filter_cgroup_id = 0;
const volatile char filter_comm_name[EV_COMM_LEN] = {};
/*
 * Opcodes whose SQE "off" slot holds a user-space pointer (addr2: STATX's
 * buffer, OPENAT2's open_how, ACCEPT's addrlen, ...): bit op of the pair.
 * Their off is not recorded -- the log never holds user addresses.
 */
const volatile __u64 off_is_pointer[2] = {};
/* FORCE_WAKEUP the recorder when a ring holds at least this many bytes. */
const volatile __u64 wakeup_bytes = 1 << 20;
/*
 * Hand the stage to the ring once it holds more than this: UR_STAGE_BYTES -
 * UR_RECORD_MAX, or less for a small ring, which must hold several stages.
 */
const volatile __u32 stage_flush_bytes = UR_STAGE_BYTES - UR_RECORD_MAX;

/*
 * Written by the recorder: UR_STATE_ATTACHED while it attaches, so that the
 * recording starts at one instant with every hook in place;
 * UR_STATE_LISTING while it lists existing tasks (task records only);
 * UR_STATE_RECORDING; UR_STATE_STOPPED before the last drain.  Filter
 * bookkeeping (--follow, exits) runs in every state.
 */
volatile __u32 state = UR_STATE_ATTACHED;
/* Learned from the recorder's own io_uring_setup(2): see learn_fops(). */
volatile __u64 io_uring_fops = 0;
volatile __u64 self_ring = 0;
/*
 * ring_owner is trusted only while io_uring_create is hooked: that is where
 * entries of freed rings whose address was reused are forgotten.
 */
volatile bool ring_owners_valid = false;
/*
 * Bumped after every change to pid_filter, by the programs and by the
 * recorder: what filter.bpf.h's per-CPU memo of the last answer is checked
 * against.
 */
volatile __u64 pid_filter_gen = 0;
/* The same for deletions from ring_owner. */
volatile __u64 ring_owner_gen = 0;
struct ur_stats stats = {};

#include "emit.bpf.h"

#include "filter.bpf.h"

#include "sample.bpf.h"

#include "kernel_reads.bpf.h"

#include "files.bpf.h"

/* ---------------------------------------------------- io_uring helpers */

static __always_inline u8 log2_u32(u32 v)
{
	u8 r = 0;

	if (v >= 1U << 16) { v >>= 16; r += 16; }
	if (v >= 1U << 8) { v >>= 8; r += 8; }
	if (v >= 1U << 4) { v >>= 4; r += 4; }
	if (v >= 1U << 2) { v >>= 2; r += 2; }
	if (v >= 1U << 1) r += 1;
	return r;
}

/*
 * The SQE io_submit_sqes() just consumed for req, as io_get_sqe() found it
 * (io_uring/io_uring.c): index (cached_sq_head - 1) & (sq_entries - 1),
 * through sq_array unless IORING_SETUP_NO_SQARRAY (6.6), doubled for
 * IORING_SETUP_SQE128.  The submit tracepoint fires right after io_get_sqe()
 * and io_init_req(), and the application cannot reuse the slot before the
 * kernel publishes the new SQ head, so the slot still holds this request's
 * SQE -- which we check: user_data and opcode must match the request, else
 * nothing is claimed.
 */
static __always_inline bool read_submitted_sqe(struct io_kiocb *req, struct ur_sqe *sqe)
{
	struct io_ring_ctx *ctx = req->ctx;
	u32 setup_flags = ctx->flags;
	u32 entries = ctx->sq_entries;
	u32 idx = (ctx->cached_sq_head - 1) & (entries - 1);
	u64 sqes;

	if (!(setup_flags & UR_IORING_SETUP_NO_SQARRAY)) {
		u64 array = (u64)ctx->sq_array;

		if (read_kernel_u32(&idx, array + (u64)idx * 4))
			return false;
		if (idx >= entries)
			return false;
	}
	if (setup_flags & UR_IORING_SETUP_SQE128)
		idx <<= 1;
	/*
	 * Below 2 * IORING_MAX_ENTRIES (32768) already; the mask tells the
	 * verifier, to which sq_sqes is a pointer that only a bounded offset
	 * may move.
	 */
	idx &= 0xffff;
	sqes = (u64)ctx->sq_sqes;
	if (!sqes)
		return false;
	sqes += (u64)idx * sizeof(*sqe);
#ifdef UR_DIRECT_LOADS
	{
		struct io_uring_sqe *s = ur_cast(struct io_uring_sqe, sqes);

		sqe->opcode = s->opcode;
		sqe->flags = s->flags;
		sqe->ioprio = s->ioprio;
		sqe->fd = s->fd;
		sqe->off = s->off;
		sqe->len = s->len;
		sqe->op_flags = s->rw_flags;
		sqe->user_data = s->user_data;
		sqe->buf_index = s->buf_index;
		sqe->personality = s->personality;
	}
#else
	if (bpf_probe_read_kernel(sqe, sizeof(*sqe), (void *)sqes))
		return false;
#endif
	return sqe->user_data == req->cqe.user_data && sqe->opcode == req->opcode;
}

static __always_inline u64 sqe_off(const struct ur_sqe *sqe)
{
	u8 op = sqe->opcode;

	if (op < 128 && (off_is_pointer[(op >> 6) & 1] >> (op & 63)) & 1)
		return 0;
	return sqe->off;
}

/*
 * The SQE fields that submit and req_failed records share, under the same
 * names (common/uring_event.h): a macro, as the two event types differ.
 */
#define COPY_SQE_FIELDS(e, sqe) do {					\
	(e)->sqe_flags = (sqe)->flags;					\
	(e)->buf_index = (sqe)->buf_index;				\
	(e)->off = sqe_off(sqe);					\
	(e)->fd = (sqe)->fd;						\
	(e)->len = (sqe)->len;						\
	(e)->op_flags = (sqe)->op_flags;				\
	(e)->ioprio = (sqe)->ioprio;					\
	(e)->personality = (sqe)->personality;				\
} while (0)

/* A submit record, for a request chosen in a selected ring. */
static __always_inline int record_submit(struct io_kiocb *req, u16 flags, u64 pid_tgid)
{
	struct io_ring_ctx *ctx = req->ctx;
	u64 ring = (u64)ctx;
	struct ev_submit_complete *e;
	/* zeroed: on paths with no SQE, clang would keep garbage registers in it */
	struct ur_sqe sqe = {};
	struct emit em;
	u64 rflags;

	remember_ring(ring, pid_tgid);
	rflags = req_flags(req);
	if (ctx->flags & UR_IORING_SETUP_SQPOLL)
		flags |= EVF_SQ_THREAD;
	if (read_submitted_sqe(req, &sqe))
		flags |= EVF_SQE_VALID;
	e = EV_RESERVE(&em, submit_complete, EV_SUBMIT_COMPLETE, flags, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return 0;
	em.pending_req = (u64)req;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	e->req_flags = rflags;
	if (flags & EVF_SQE_VALID) {
		COPY_SQE_FIELDS(e, &sqe);
	} else {
		/* REQ_F_* low bits mirror IOSQE_* (io_init_req copies them) */
		e->sqe_flags = (u8)rflags;
	}
	ev_submit(&em, e);
	return 0;
}

/* Submit record common to io_uring_submit_req and io_uring_submit_sqe. */
static __always_inline int emit_submit(struct io_kiocb *req, u16 flags)
{
	u64 pid_tgid;

	if (!submit_selected(req, &pid_tgid))
		return 0;
	return record_submit(req, flags, pid_tgid);
}

/* --------------------------------------------- io_uring tracepoints */

/*
 * io_uring_create(int fd, void *ctx, u32 sq_entries, u32 cq_entries, u32 flags).
 * The fd is installed before the tracepoint fires (io_uring_create() since
 * 5.12), which is how the recorder learns io_uring's file operations.
 */
static __always_inline void learn_fops(int fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *file;

	if (fd < 0 || (u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return;
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return;
	io_uring_fops = (u64)BPF_CORE_READ(file, f_op);
}

SEC("?tp_btf/io_uring_create")
int BPF_PROG(tp_create, int fd, void *rctx, u32 sq_entries, u32 cq_entries, u32 flags)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_create *e;
	struct emit em;

	if ((u32)(pid_tgid >> 32) == self_tgid) {
		if (!io_uring_fops) {
			learn_fops(fd);
			self_ring = (u64)rctx;
		}
		return 0;
	}
	if (!current_selected(pid_tgid)) {
		/*
		 * A ring context is only ever allocated here, so a ring made by
		 * a process that is not selected may sit at the address of a
		 * freed ring that was: forget that one.
		 */
		if (filter_active)
			forget_ring((u64)rctx);
		return 0;
	}
	remember_ring((u64)rctx, pid_tgid);
	e = EV_RESERVE(&em, create, EV_CREATE, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->fd = fd;
	e->ring = (u64)rctx;
	e->sq_entries = sq_entries;
	e->cq_entries = cq_entries;
	e->setup_flags = flags;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_register(void *ctx, unsigned opcode, unsigned nr_files, unsigned nr_bufs, long ret) */
SEC("?tp_btf/io_uring_register")
int BPF_PROG(tp_register, void *rctx, unsigned int opcode, unsigned int nr_files,
	     unsigned int nr_bufs, long ret)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_register *e;
	struct emit em;

	if (!ring_selected((u64)rctx, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, register, EV_REGISTER, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = opcode;
	e->ring = (u64)rctx;
	e->nr_files = nr_files;
	e->nr_bufs = nr_bufs;
	e->ret = ret;
	ev_submit(&em, e);
	return 0;
}

/*
 * io_uring_file_get is not hooked: its fd is the SQE's, which the submit
 * record carries, and it would cost a program run per plain-fd request.
 */

/* io_uring_submit_req(struct io_kiocb *req), 6.4+ */
SEC("?tp_btf/io_uring_submit_req")
int BPF_PROG(tp_submit_req, struct io_kiocb *req)
{
	return emit_submit(req, 0);
}

/* io_uring_submit_sqe(struct io_kiocb *req, bool force_nonblock), 6.1-6.3 */
SEC("?tp_btf/io_uring_submit_sqe")
int BPF_PROG(tp_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return emit_submit(req, force_nonblock ? EVF_FORCE_NONBLOCK : 0);
}

/* io_uring_queue_async_work(struct io_kiocb *req, int rw): rw = hashed */
SEC("?tp_btf/io_uring_queue_async_work")
int BPF_PROG(tp_queue_async, struct io_kiocb *req, int rw)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_queue_async_work *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, queue_async_work, EV_QUEUE_ASYNC_WORK, rw ? EVF_HASHED : 0,
		       bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	e->req_flags = req_flags(req);
	if (req_work_flags(req, &e->work_flags))
		e->flags |= EVF_WORK_FLAGS_VALID;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_defer(struct io_kiocb *req) */
SEC("?tp_btf/io_uring_defer")
int BPF_PROG(tp_defer, struct io_kiocb *req)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_defer *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, defer, EV_DEFER, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_link(struct io_kiocb *req, struct io_kiocb *target_req) */
SEC("?tp_btf/io_uring_link")
int BPF_PROG(tp_link, struct io_kiocb *req, struct io_kiocb *target_req)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_link *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, link, EV_LINK, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->ring = ring;
	e->req = (u64)req;
	e->target_req = (u64)target_req;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_fail_link(struct io_kiocb *req, struct io_kiocb *link) */
SEC("?tp_btf/io_uring_fail_link")
int BPF_PROG(tp_fail_link, struct io_kiocb *req, struct io_kiocb *link)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_fail_link *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, fail_link, EV_FAIL_LINK, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	e->link = (u64)link;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_cqring_wait(void *ctx, int min_events) */
SEC("?tp_btf/io_uring_cqring_wait")
int BPF_PROG(tp_cqring_wait, void *rctx, int min_events)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_cqring_wait *e;
	struct emit em;

	if (!ring_selected((u64)rctx, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, cqring_wait, EV_CQRING_WAIT, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->min_events = min_events;
	e->ring = (u64)rctx;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_req_failed(const struct io_uring_sqe *sqe, struct io_kiocb *req, int error) */
SEC("?tp_btf/io_uring_req_failed")
int BPF_PROG(tp_req_failed, const struct io_uring_sqe *usqe, struct io_kiocb *req, int error)
{
	u64 ring = (u64)req->ctx;
	struct ev_req_failed *e;
	struct ur_sqe sqe;
	struct emit em;
	u16 flags = 0;
	u64 pid_tgid;

	if (!submit_selected(req, &pid_tgid))
		return 0;
	/* This is the SQE io_init_req() refused: no matching needed. */
	if (!bpf_probe_read_kernel(&sqe, sizeof(sqe), usqe))
		flags |= EVF_SQE_VALID;
	e = EV_RESERVE(&em, req_failed, EV_REQ_FAILED, flags, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return 0;
	e->ring = ring;
	e->req = (u64)req;
	e->error = error;
	if (flags & EVF_SQE_VALID) {
		e->opcode = sqe.opcode;
		e->user_data = sqe.user_data;
		COPY_SQE_FIELDS(e, &sqe);
		e->file_index = sqe.file_index;
	} else {
		e->opcode = req->opcode;
		e->user_data = req->cqe.user_data;
	}
	ev_submit(&em, e);
	return 0;
}

/* io_uring_cqe_overflow(void *ctx, u64 user_data, s32 res, u32 cflags, void *ocqe) */
SEC("?tp_btf/io_uring_cqe_overflow")
int BPF_PROG(tp_cqe_overflow, void *rctx, u64 user_data, s32 res, u32 cflags, void *ocqe)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_cqe_overflow *e;
	struct emit em;

	if (!ring_selected((u64)rctx, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, cqe_overflow, EV_CQE_OVERFLOW, ocqe ? 0 : EVF_CQE_DROPPED,
		       bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->res = res;
	e->ring = (u64)rctx;
	e->user_data = user_data;
	e->cflags = cflags;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_poll_arm(struct io_kiocb *req, int mask, int events) */
SEC("?tp_btf/io_uring_poll_arm")
int BPF_PROG(tp_poll_arm, struct io_kiocb *req, int mask, int events)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_poll_arm *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, poll_arm, EV_POLL_ARM, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	e->mask = mask;
	e->events = events;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_task_add(struct io_kiocb *req, int mask) */
SEC("?tp_btf/io_uring_task_add")
int BPF_PROG(tp_task_add, struct io_kiocb *req, int mask)
{
	u64 pid_tgid;
	u64 ring = (u64)req->ctx;
	struct ev_task_add *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, task_add, EV_TASK_ADD, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = req->opcode;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	e->mask = mask;
	ev_submit(&em, e);
	return 0;
}

/*
 * io_uring_task_work_run(void *tctx, unsigned count[, unsigned loops]): the
 * loops argument was removed in 6.9.  It carries no ring, so it is selected
 * by the task that runs it (the submitter, or its io-wq / SQPOLL thread).
 * Runs that ran nothing are not recorded, only counted: an idle SQPOLL
 * thread polls its task work on every loop (io_sq_tw(), 6.9+), about a
 * million empty runs a second, which would drown everything else.
 */
static __always_inline int emit_task_work_run(void *tctx, u32 count, u32 loops, u16 flags)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_task_work_run *e;
	struct emit em;

	if (!count) {
		if (state == UR_STATE_RECORDING)
			__sync_fetch_and_add(&stats.task_work_run_empty, 1);
		return 0;
	}
	if (!current_selected(pid_tgid))
		return 0;
	e = EV_RESERVE(&em, task_work_run, EV_TASK_WORK_RUN, flags, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return 0;
	e->count = count;
	e->tctx = (u64)tctx;
	e->loops = loops;
	ev_submit(&em, e);
	return 0;
}

SEC("?tp_btf/io_uring_task_work_run")
int BPF_PROG(tp_tw_run_loops, void *tctx, unsigned int count, unsigned int loops)
{
	return emit_task_work_run(tctx, count, loops, EVF_LOOPS_VALID);
}

SEC("?tp_btf/io_uring_task_work_run")
int BPF_PROG(tp_tw_run, void *tctx, unsigned int count)
{
	return emit_task_work_run(tctx, count, 0, 0);
}

/* io_uring_local_work_run(void *ctx, int count, unsigned int loops) */
SEC("?tp_btf/io_uring_local_work_run")
int BPF_PROG(tp_local_work_run, void *rctx, int count, unsigned int loops)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_local_work_run *e;
	struct emit em;

	if (!ring_selected((u64)rctx, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, local_work_run, EV_LOCAL_WORK_RUN, 0, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return 0;
	e->count = count;
	e->ring = (u64)rctx;
	e->loops = loops;
	ev_submit(&em, e);
	return 0;
}

/* io_uring_short_write(void *ctx, u64 fpos, u64 wanted, u64 got) */
SEC("?tp_btf/io_uring_short_write")
int BPF_PROG(tp_short_write, void *rctx, u64 fpos, u64 wanted, u64 got)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_short_write *e;
	struct emit em;

	if (!ring_selected((u64)rctx, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, short_write, EV_SHORT_WRITE, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->ring = (u64)rctx;
	e->fpos = fpos;
	e->wanted = wanted;
	e->got = got;
	ev_submit(&em, e);
	return 0;
}

/*
 * A completion; COMPLETE32 when the CQE carries the two extra words.  Its
 * request's file, if any, is described first (files.bpf.h).
 */
static __always_inline int emit_complete(u64 ring, u64 req, u64 user_data, s32 res,
					 u32 cflags, u64 extra1, u64 extra2)
{
	u64 pid_tgid, ts, file;
	struct emit em;

	if (!cqe_sampled(req, cflags))
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!ring_selected(ring, pid_tgid))
		return 0;
	ts = bpf_ktime_get_boot_ns();
	file = note_request_file(req, ts, pid_tgid);
	if (!extra1 && !extra2 && req &&
	    complete_in_stage(ring, req, user_data, res, cflags, file, ts, pid_tgid))
		return 0;
	if (extra1 || extra2) {
		struct ev_complete32 *e;

		e = EV_RESERVE(&em, complete32, EV_COMPLETE32, EVF_FILE_VALID, ts, pid_tgid);
		if (!e)
			return 0;
		e->res = res;
		e->ring = ring;
		e->req = req;
		e->user_data = user_data;
		e->cflags = cflags;
		e->extra1 = extra1;
		e->extra2 = extra2;
		e->file = file;
		ev_submit(&em, e);
	} else {
		struct ev_complete *e;

		e = EV_RESERVE(&em, complete, EV_COMPLETE, EVF_FILE_VALID, ts, pid_tgid);
		if (!e)
			return 0;
		e->res = res;
		e->ring = ring;
		e->req = req;
		e->user_data = user_data;
		e->cflags = cflags;
		e->file = file;
		ev_submit(&em, e);
	}
	return 0;
}

/* io_uring_complete(void *ctx, void *req, u64 user_data, int res, unsigned cflags, u64 extra1, u64 extra2), <= 6.17 */
SEC("?tp_btf/io_uring_complete")
int BPF_PROG(tp_complete_args, void *rctx, void *req, u64 user_data, int res,
	     unsigned int cflags, u64 extra1, u64 extra2)
{
	return emit_complete((u64)rctx, (u64)req, user_data, res, cflags, extra1, extra2);
}

/*
 * io_uring_complete(struct io_ring_ctx *ctx, void *req, struct io_uring_cqe *cqe),
 * 6.18: the CQE is passed instead of its fields; the extra words exist when
 * the ring has 32-byte CQEs or this CQE is a big one (IORING_CQE_F_32), as
 * the tracepoint itself decides (include/trace/events/io_uring.h).
 */
SEC("?tp_btf/io_uring_complete")
int BPF_PROG(tp_complete_cqe, struct io_ring_ctx *rctx, void *req, struct io_uring_cqe *cqe)
{
	u32 cflags = cqe->flags;
	u64 extra[2] = {};

	if ((rctx->flags & UR_IORING_SETUP_CQE32) || (cflags & UR_IORING_CQE_F_32))
		bpf_probe_read_kernel(extra, sizeof(extra), (void *)((u64)cqe + 16));
	return emit_complete((u64)rctx, (u64)req, cqe->user_data, cqe->res, cflags,
			     extra[0], extra[1]);
}

/* ------------------------------------------------------------ tasks */

static __always_inline void fill_task(struct ev_task *e, struct task_struct *task, u16 reason)
{
	e->subject_tid = task->pid;
	e->subject_tgid = task->tgid;
	e->parent_tgid = task->real_parent->tgid;
	__builtin_memcpy(e->comm, task->comm, EV_COMM_LEN);
	e->task_flags = task->flags;
	e->reason = reason;
}

/*
 * task_newtask(struct task_struct *task, u64 clone_flags) fires in
 * copy_process() for every new task, io-wq workers and SQPOLL threads
 * included (create_io_thread() never reaches sched_process_fork).  current
 * is the parent.  With --follow a new process of a selected one joins the
 * selection here, before it can run.  Any other new process whose pid is
 * still selected got the pid of a selected process that is gone: the pid
 * is freed in release_task(), one RCU grace period before tp_proc_free
 * drops the entry.  It leaves the selection here, before it can run.
 */
SEC("?tp_btf/task_newtask")
int BPF_PROG(tp_task_newtask, struct task_struct *task, u64 clone_flags)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u32 parent_tgid = pid_tgid >> 32;
	u32 tgid = task->tgid;
	struct ev_task *e;
	struct emit em;

	if (parent_tgid == self_tgid)
		return 0;
	if (filter_pids && tgid != parent_tgid) {
		if (filter_follow && bpf_map_lookup_elem(&pid_filter, &parent_tgid)) {
			u64 start_time = task->start_time;

			if (bpf_map_update_elem(&pid_filter, &tgid, &start_time, BPF_ANY))
				__sync_fetch_and_add(&stats.follow_map_full, 1);
			pid_filter_changed();
		} else if (bpf_map_lookup_elem(&pid_filter, &tgid)) {
			bpf_map_delete_elem(&pid_filter, &tgid);
			pid_filter_changed();
		}
	}
	if (!naming_tasks() || !task_selected(tgid, task))
		return 0;
	e = EV_RESERVE(&em, task, EV_TASK, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	fill_task(e, task, EV_TASK_FORK);
	ev_submit(&em, e);
	return 0;
}

/*
 * task_rename(struct task_struct *task, const char *comm): io-wq workers and
 * SQPOLL threads name themselves iou-wrk-<pid> / iou-sqp-<pid> right after
 * they start; prctl(PR_SET_NAME) and exec land here too.
 */
SEC("?tp_btf/task_rename")
int BPF_PROG(tp_task_rename, struct task_struct *task, const char *comm)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_task *e;
	struct emit em;

	if (!naming_tasks() || !task_selected(task->tgid, task))
		return 0;
	e = EV_RESERVE(&em, task, EV_TASK, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	fill_task(e, task, EV_TASK_RENAME);
	/* the tracepoint fires before the new name is copied in */
	bpf_probe_read_kernel_str(e->comm, EV_COMM_LEN, comm);
	ev_submit(&em, e);
	return 0;
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) */
SEC("?tp_btf/sched_process_exec")
int BPF_PROG(tp_proc_exec, struct task_struct *p)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_task *e;
	struct emit em;

	if (!naming_tasks() || !task_selected(pid_tgid >> 32, p))
		return 0;
	e = EV_RESERVE(&em, task, EV_TASK, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	fill_task(e, p, EV_TASK_EXEC);
	ev_submit(&em, e);
	return 0;
}

/*
 * sched_process_exit(struct task_struct *p[, bool group_dead]), for every
 * exiting thread.  It does not end the process's selection: the thread that
 * finds signal->live at 0 need not be the last to get here, since do_exit()
 * decrements live before exit_mm() and the tracepoint, and the threads of an
 * exit_group() run them side by side.  tp_proc_free does that.
 */
SEC("?tp_btf/sched_process_exit")
int BPF_PROG(tp_proc_exit, struct task_struct *p)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_task_exit *e;
	struct emit em;

	if (!current_selected(pid_tgid))
		return 0;
	e = EV_RESERVE(&em, task_exit, EV_TASK_EXIT, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->exit_code = p->exit_code;
	ev_submit(&em, e);
	return 0;
}

/*
 * sched_process_free(struct task_struct *p) fires from the RCU callback that
 * drops a released task.  The group leader is released after every other
 * thread of its process has passed sched_process_exit and been released
 * (release_task(), delay_group_leader()), so its free ends the process's
 * selection.  The entry is dropped only if it still names this process: the
 * pid may already belong to a new followed process (see tp_task_newtask).
 * After exec from a thread, de_thread() frees the old leader with
 * group_leader pointing to the new one, which keeps start_time.
 */
SEC("?tp_btf/sched_process_free")
int BPF_PROG(tp_proc_free, struct task_struct *p)
{
	u32 tgid;
	u64 *start_time;

	if (!filter_pids || p->group_leader != p)
		return 0;
	tgid = p->tgid;
	start_time = bpf_map_lookup_elem(&pid_filter, &tgid);
	if (start_time && (!*start_time || *start_time == p->start_time)) {
		bpf_map_delete_elem(&pid_filter, &tgid);
		pid_filter_changed();
	}
	return 0;
}

/*
 * workqueue_execute_end(struct work_struct *work, work_func_t function): a
 * ring is freed at the end of io_ring_exit_work(), the work item that
 * io_ring_ctx_wait_and_kill() queues when the ring's last reference goes
 * (6.1 .. 6.18); the CQEs it posts on the way (cancellations, resource
 * tags) are recorded, as the ring is still in ring_owner.  Forgetting the
 * ring here tells the recorder, which waits for the rings of a selection
 * that has exited, that this one is gone.  No io_uring tracepoint marks a
 * ring's end.  A raw tracepoint: tp_btf refuses to read the function
 * pointer argument (its BTF type is not a struct).
 */
SEC("?raw_tp/workqueue_execute_end")
int BPF_PROG(tp_ring_exit, struct work_struct *work, void *function)
{
	u64 ring;

	if (!ring_exit_work_fn || (u64)function != ring_exit_work_fn || !filter_active)
		return 0;
	ring = (u64)work - bpf_core_field_offset(struct io_ring_ctx, exit_work);
	forget_ring(ring);
	return 0;
}

/* ------------------------------------------------------------- io-wq */

static __always_inline struct io_kiocb *work_to_req(void *work)
{
	return (struct io_kiocb *)((u64)work - bpf_core_field_offset(struct io_kiocb, work));
}

static __always_inline int emit_work_begin(void *work)
{
	u64 pid_tgid;
	struct io_kiocb *req = work_to_req(work);
	u64 ring = (u64)BPF_CORE_READ(req, ctx);
	struct ev_work_begin *e;
	struct emit em;

	if (!req_selected((u64)req, ring, &pid_tgid))
		return 0;
	e = EV_RESERVE(&em, work_begin, EV_WORK_BEGIN, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->opcode = BPF_CORE_READ(req, opcode);
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = BPF_CORE_READ(req, cqe.user_data);
	ev_submit(&em, e);
	return 0;
}

static __always_inline int emit_work_end(void *work)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_work_end *e;
	struct emit em;
	u64 ring = 0;

	/* The request may be freed by now: the ring decides only when known. */
	if (work) {
		if (!req_sampled((u64)work_to_req(work)))
			return 0;
		ring = (u64)BPF_CORE_READ(work_to_req(work), ctx);
		if (!ring_selected(ring, pid_tgid))
			return 0;
	} else if (!current_selected(pid_tgid)) {
		return 0;
	}
	e = EV_RESERVE(&em, work_end, EV_WORK_END, work ? 0 : EVF_WORK_REQ_UNKNOWN,
		       bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->req = work ? (u64)work_to_req(work) : 0;
	ev_submit(&em, e);
	return 0;
}

/* void io_wq_submit_work(struct io_wq_work *work): one io-wq work item */
SEC("?fentry/io_wq_submit_work")
int BPF_PROG(fentry_wq_work, struct io_wq_work *work)
{
	return emit_work_begin(work);
}

SEC("?fexit/io_wq_submit_work")
int BPF_PROG(fexit_wq_work, struct io_wq_work *work)
{
	return emit_work_end(work);
}

SEC("?kprobe/io_wq_submit_work")
int BPF_KPROBE(kprobe_wq_work, struct io_wq_work *work)
{
	return emit_work_begin(work);
}

SEC("?kretprobe/io_wq_submit_work")
int BPF_KRETPROBE(kretprobe_wq_work)
{
	return emit_work_end(NULL);
}

/*
 * Fallback when io_wq_submit_work cannot be probed: context switches in and
 * out of io_uring kernel threads (PF_IO_WORKER: io-wq workers and SQPOLL
 * threads), which place their activity in time.
 */
SEC("?tp_btf/sched_switch")
int BPF_PROG(tp_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_sched_switch *e;
	struct emit em;
	bool prev_io = prev->flags & EV_PF_IO_WORKER;
	bool next_io = next->flags & EV_PF_IO_WORKER;
	u32 next_tgid;

	if (state != UR_STATE_RECORDING || (!prev_io && !next_io))
		return 0;
	next_tgid = next->tgid;
	if (!(prev_io && task_selected(prev->tgid, prev)) &&
	    !(next_io && task_selected(next_tgid, next)))
		return 0;
	e = EV_RESERVE(&em, sched_switch, EV_SCHED_SWITCH, 0, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return 0;
	e->next_tid = next->pid;
	e->next_tgid = next_tgid;
	e->prev_state = prev_state;
	ev_submit(&em, e);
	return 0;
}

#include "syscalls.bpf.h"
