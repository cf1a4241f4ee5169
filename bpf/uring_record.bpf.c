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
struct ur_stats stats = {};

/* ------------------------------------------------------ record emission */

/*
 * How records reach the recorder (see UR_STAGE_BYTES): the outermost
 * program running on a CPU appends its record to the CPU's stage, and the
 * stage goes to the CPU's ring buffer in one bpf_ringbuf_output() once it
 * is nearly full -- or when the recorder runs flush_stage on that CPU
 * (every flush interval, so that a CPU that went quiet does not keep old
 * records), or, at stop, reads what is left from the map.  A program that
 * interrupts another on the same CPU (depth > 0) must not touch the stage
 * the interrupted one is filling: it builds its record in a nest slot and
 * writes it to the ring buffer at once.  Readers sort records by time
 * (uring-log(5)), so a nested record that reaches the ring before older
 * staged ones is in its place in the log.
 *
 * depth is changed without atomics: only programs interrupting each other on
 * one CPU share it, and each puts back the value it found before the one
 * it interrupted resumes.  The stage is read only after depth is raised.
 */
#define barrier() asm volatile("" ::: "memory")

/* Record sizes by type, in 8-byte words: how a stage is walked. */
static const u8 type_words[EV_TYPE_LIMIT] = {
#define EV_WORDS(NAME, num, name, size) [num] = (size) / 8,
	EV_TYPES(EV_WORDS)
#undef EV_WORDS
};

struct emit {
	struct ur_cpu_state *st;
	u64 ts;
	u32 off;			/* depth 0: where the record is in the stage */
	u32 size;
	u32 depth;			/* st->depth when this program started */
	u16 type;
};

/*
 * A record of this type could not be written on this CPU.  Atomics: programs
 * nest on a CPU (an interrupt's completion inside a submission), so two of
 * them may count at once.
 */
static __always_inline void count_drop(struct ur_cpu_state *st, u32 kind, u32 type,
				       u64 ts)
{
	u32 slot = kind * EV_TYPE_LIMIT + (type & (EV_TYPE_LIMIT - 1));
	u64 *count;

	if (__sync_fetch_and_add(&st->pending, 1) == 0)
		st->first_ts = ts;
	st->last_ts = ts;
	count = bpf_map_lookup_elem(&loss_counts, &slot);
	if (count)
		__sync_fetch_and_add(count, 1);
}

/*
 * Write the "lost" record for drops not reported yet.  Returns false when
 * the ring is still full (the drops stay pending).
 */
static __always_inline bool report_pending(void *rb, struct ur_cpu_state *st)
{
	u64 n = __sync_lock_test_and_set(&st->pending, 0);
	u64 first = st->first_ts, last = st->last_ts;
	struct ev_lost *l;

	if (!n)
		return true;
	l = bpf_ringbuf_reserve(rb, sizeof(*l), 0);
	if (!l) {
		if (__sync_fetch_and_add(&st->pending, n) == 0)
			st->first_ts = first;
		return false;
	}
	if (n > 0xffffffffULL) {
		/* count is 32 bits: the rest goes into the next record */
		__sync_fetch_and_add(&st->pending, n - 0xffffffffULL);
		n = 0xffffffffULL;
	}
	l->ts = first;
	l->tid = 0;
	l->tgid = 0;
	l->type = EV_LOST;
	l->flags = 0;
	l->count = (u32)n;
	l->last_ts = last;
	bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
	return true;
}

/*
 * No wakeup per write (the recorder drains on a timer), but wake it early
 * when the ring is filling up -- once per fill: a forced wakeup is an IPI
 * (a VM exit under virtualisation), and repeating it while the recorder is
 * already on its way costs the traced CPU dearly and helps nobody.
 */
static __always_inline u64 wakeup_flags(struct ur_cpu_state *st, void *rb, u32 len)
{
	if (bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) + len < wakeup_bytes) {
		st->woken = 0;
		return BPF_RB_NO_WAKEUP;
	}
	if (st->woken)
		return BPF_RB_NO_WAKEUP;
	st->woken = 1;
	return BPF_RB_FORCE_WAKEUP;
}

struct drop_walk {
	u32 len, kind;
};

/*
 * The walk's position lives in the map value (st->drop_off), not in ctx: the
 * verifier tracks a stack value exactly, and since Linux 6.7 (ab5cfac139ab,
 * "bpf: verify callbacks as if they are called unknown number of times") it
 * re-verifies the callback until its states repeat -- with the offset on the
 * stack, once per possible offset: ~60k instructions per call site, 1.1 s
 * of load on 6.18 and most of a 6.12 guest's start.  A map value is an
 * unknown scalar to the verifier, so the second pass matches the first.
 */
static long drop_staged_one(u32 i, void *ctx)
{
	struct drop_walk *w = ctx;
	u32 zero = 0, off, words;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);
	struct ev_header *h;

	if (!st)
		return 1;
	off = st->drop_off;
	if (off >= w->len)
		return 1;
	h = (void *)&st->stage[off & (UR_STAGE_BYTES - 1)];
	words = type_words[h->type & (EV_TYPE_LIMIT - 1)];
	if (!words)
		return 1;
	count_drop(st, w->kind, h->type, h->ts);
	st->drop_off = off + words * 8;
	return 0;
}

/* The stage could not be written: count each record in it as lost. */
static __always_inline void drop_staged(struct ur_cpu_state *st, u32 len, u32 kind)
{
	struct drop_walk w = { .len = len, .kind = kind };

	st->drop_off = 0;
	bpf_loop(UR_STAGE_BYTES / sizeof(struct ev_header) + 1, drop_staged_one, &w, 0);
}

/* Hand the stage to the CPU's ring buffer (st->depth is held). */
static __always_inline void stage_flush(struct ur_cpu_state *st)
{
	u32 cpu = bpf_get_smp_processor_id();
	u32 len = st->stage_len;
	void *rb;

	if (!len)
		return;
	if (len > UR_STAGE_BYTES)
		len = UR_STAGE_BYTES;
	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb)
		drop_staged(st, len, EV_LOSS_NO_RING);
	else if ((st->pending && !report_pending(rb, st)) ||
		 bpf_ringbuf_output(rb, st->stage, len, wakeup_flags(st, rb, len)))
		drop_staged(st, len, EV_LOSS_RING_FULL);
	st->stage_len = 0;
}

/*
 * Room for a record of this type on this CPU: in the stage, or in a nest
 * slot when this program interrupted another.  NULL when the record is
 * dropped (and counted).  The record is zeroed and its header filled in;
 * ev_submit() must follow.
 */
static __always_inline void *ev_reserve(struct emit *em, u32 size, u16 type, u16 flags,
					u64 ts, u64 pid_tgid)
{
	u32 zero = 0, depth;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);
	struct ev_header *h;

	if (!st)
		return NULL;
	depth = st->depth;
	st->depth = depth + 1;
	barrier();
	if (depth == 0) {
		/* stage_len <= stage_flush_bytes: the mask changes nothing */
		em->off = st->stage_len & (UR_STAGE_BYTES - 1);
		h = (void *)&st->stage[em->off];
	} else if (depth <= UR_NEST_SLOTS) {
		h = (void *)st->nest[(depth - 1) & (UR_NEST_SLOTS - 1)];
	} else {
		/* task, softirq, hardirq: cannot happen with these hooks */
		count_drop(st, EV_LOSS_RING_FULL, type, ts);
		barrier();
		st->depth = depth;
		return NULL;
	}
	em->st = st;
	em->ts = ts;
	em->size = size;
	em->depth = depth;
	em->type = type;
	__builtin_memset(h, 0, size);
	h->ts = ts;
	h->tid = (u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->type = type;
	h->flags = flags;
	return h;
}

/* The record ev_reserve() returned is filled in. */
static __always_inline void ev_submit(struct emit *em, void *rec)
{
	struct ur_cpu_state *st = em->st;
	u32 size = em->size, cpu;
	void *rb;

	if (em->depth == 0) {
		st->stage_len = em->off + size;
		if (st->stage_len > stage_flush_bytes)
			stage_flush(st);
	} else {
		cpu = bpf_get_smp_processor_id();
		rb = bpf_map_lookup_elem(&rings, &cpu);
		if (size > UR_RECORD_MAX)
			size = UR_RECORD_MAX;
		if (!rb)
			count_drop(st, EV_LOSS_NO_RING, em->type, em->ts);
		else if ((st->pending && !report_pending(rb, st)) ||
			 bpf_ringbuf_output(rb, rec, size, wakeup_flags(st, rb, size)))
			count_drop(st, EV_LOSS_RING_FULL, em->type, em->ts);
	}
	barrier();
	st->depth = em->depth;
}

#define EV_RESERVE(em, name, TYPE, flags, ts, pid_tgid)			\
	((struct ev_##name *)ev_reserve((em), sizeof(struct ev_##name), (TYPE), \
					(flags), (ts), (pid_tgid)))

/*
 * Run by the recorder on each CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU:
 * in an IPI, or directly when it runs there) every flush interval, so that
 * the log holds every record older than that even from a CPU that went
 * quiet.  Returns 1 when the CPU was inside a program (try again later).
 */
SEC("?raw_tp")
int flush_stage(void *ctx)
{
	u32 zero = 0;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);

	if (!st)
		return 0;
	if (st->depth)
		return 1;
	st->depth = 1;
	barrier();
	stage_flush(st);
	barrier();
	st->depth = 0;
	return 0;
}

/* -------------------------------------------------------------- filters */

static __always_inline bool comm_matches(struct task_struct *task)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	char comm[EV_COMM_LEN];

	if (bpf_probe_read_kernel(comm, sizeof(comm), __builtin_preserve_access_index(&leader->comm)))
		return false;
#pragma unroll
	for (int i = 0; i < EV_COMM_LEN; i++) {
		if (comm[i] != filter_comm_name[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* Levels of cgroups task_under_cgroup() walks up from a task's own. */
#define UR_CGROUP_MAX_DEPTH 32

/*
 * Is task, current or not, in the --cgroup directory or below it?  The next
 * task of a context switch is in general not in the cgroup of current (the
 * previous task): testing current's recorded the switches from any task of
 * the cgroup into any process's io-wq worker or SQPOLL thread, and missed
 * those into the cgroup's own threads from other tasks.
 * bpf_current_task_under_cgroup() tests only current and the kfunc
 * bpf_task_under_cgroup() needs 6.5, so another task's cgroup v2 and its
 * ancestors are compared with the directory's id, as cgroup_is_descendant()
 * does.  A new child is in its own cgroup by task_newtask: copy_process()
 * runs cgroup_post_fork() first (CLONE_INTO_CGROUP: maybe not current's).
 */
static __always_inline bool task_under_cgroup(struct task_struct *task)
{
	struct cgroup *cg;

	if (task == bpf_get_current_task_btf())
		return bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1;
	cg = task->cgroups->dfl_cgrp;
	for (int i = 0; i < UR_CGROUP_MAX_DEPTH && cg; i++) {
		if (cg->kn->id == filter_cgroup_id)
			return true;
		cg = cg->self.parent ? cg->self.parent->cgroup : NULL;
	}
	return false;
}

/*
 * Is a task of process tgid selected by the filters?  task is that thread,
 * or NULL for the current task, whose cgroup is tested by the helper and
 * whose task_struct is fetched only when a filter reads it: a helper call
 * is not free (about 30 ns on the development VM, whose kernel returns
 * through the SRSO "safe RET" thunk), and the compiler cannot drop one.
 */
static __always_inline bool __task_selected(u32 tgid, struct task_struct *task)
{
	if (tgid == self_tgid)
		return false;
	if (!filter_active)
		return true;
	if (filter_pids && !bpf_map_lookup_elem(&pid_filter, &tgid))
		return false;
	if (filter_comm &&
	    !comm_matches(task ? task : (struct task_struct *)bpf_get_current_task()))
		return false;
	if (filter_cgroup && !(task ? task_under_cgroup(task) :
			       bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1))
		return false;
	return true;
}

/* Any task (a BTF pointer): a new child, the next task of a context switch. */
static __always_inline bool task_selected(u32 tgid, struct task_struct *task)
{
	return __task_selected(tgid, task);
}

/* The current task, of process tgid. */
static __always_inline bool current_task_selected(u32 tgid)
{
	return __task_selected(tgid, NULL);
}

/* Task records (fork, exec, rename) start with the listing (UR_STATE_LISTING). */
static __always_inline bool naming_tasks(void)
{
	return state == UR_STATE_RECORDING || state == UR_STATE_LISTING;
}

static __always_inline bool current_selected(u64 pid_tgid)
{
	if (state != UR_STATE_RECORDING)
		return false;
	return current_task_selected(pid_tgid >> 32);
}

/*
 * An event about ring: selected when the current task is, or when the ring
 * belongs to a selected process (it may run in an interrupt or another
 * task).  The recorder's own probe ring is never recorded.
 */
static __always_inline bool ring_selected(u64 ring, u64 pid_tgid)
{
	if (state != UR_STATE_RECORDING || ring == self_ring)
		return false;
	if (!filter_active)
		return true;
	if (current_task_selected(pid_tgid >> 32))
		return true;
	return ring && ring_owners_valid && bpf_map_lookup_elem(&ring_owner, &ring);
}

/* Remember that ring belongs to a selected process (only with filters). */
static __always_inline void remember_ring(u64 ring, u64 pid_tgid)
{
	u32 tgid = pid_tgid >> 32;

	if (!filter_active || !ring || bpf_map_lookup_elem(&ring_owner, &ring))
		return;
	if (!current_task_selected(tgid))
		return;
	if (bpf_map_update_elem(&ring_owner, &ring, &tgid, BPF_ANY))
		__sync_fetch_and_add(&stats.ring_owner_map_full, 1);
}

/* -------------------------------------------------------- kernel reads */

/*
 * Memory reached through an untyped pointer or a variable index cannot be
 * loaded directly by a tracing program.  This file is built twice
 * (bpf/local.mk): the plain build reads it with bpf_probe_read_kernel(), a
 * helper call, about 35 ns on the first bench VM and 25 to 75 ns on the
 * second, whose kernel returns through the SRSO thunk (bench/RESULTS.md);
 * the UR_DIRECT_LOADS build makes a typed pointer of the address with the
 * bpf_rdonly_cast() kfunc (6.2, commit a35b9af4ec2c), which the verifier
 * rewrites into a register move, and loads through it: one instruction
 * each, with an exception-table fixup (BPF_PROBE_MEM) that reads 0 where
 * the helper would fail.  recorder/probes.c opens the direct build when the
 * kernel's BTF has the kfunc (not 6.1).
 */
#ifdef UR_DIRECT_LOADS
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

#define ur_cast(type, addr) \
	((type *)bpf_rdonly_cast((void *)(u64)(addr), bpf_core_type_id_kernel(type)))
#endif

/*
 * One u32 or u64 of kernel memory.  bpf_rdonly_cast() casts only to
 * structs: the loads go through the first member of a kernel struct that
 * starts with one (struct io_uring's head, struct io_uring_cqe's user_data).
 */
static __always_inline int read_kernel_u32(u32 *dst, u64 addr)
{
#ifdef UR_DIRECT_LOADS
	*dst = ur_cast(struct io_uring, addr)->head;
	return 0;
#else
	return bpf_probe_read_kernel(dst, sizeof(*dst), (void *)addr);
#endif
}

static __always_inline int read_kernel_u64(u64 *dst, u64 addr)
{
#ifdef UR_DIRECT_LOADS
	*dst = ur_cast(struct io_uring_cqe, addr)->user_data;
	return 0;
#else
	return bpf_probe_read_kernel(dst, sizeof(*dst), (void *)addr);
#endif
}

/* ---------------------------------------------------- io_uring helpers */

static __always_inline u64 req_flags(struct io_kiocb *req)
{
	if (bpf_core_field_size(req->flags) == 4)
		return ((struct io_kiocb___flags32 *)req)->flags;
	return req->flags;
}

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

/* Submit record common to io_uring_submit_req and io_uring_submit_sqe. */
static __always_inline int emit_submit(struct io_kiocb *req, u16 flags)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct io_ring_ctx *ctx = req->ctx;
	u64 ring = (u64)ctx;
	struct ev_submit *e;
	/* zeroed: on paths with no SQE, clang would keep garbage registers in it */
	struct ur_sqe sqe = {};
	struct emit em;
	u64 rflags;

	if (!ring_selected(ring, pid_tgid))
		return 0;
	remember_ring(ring, pid_tgid);
	rflags = req_flags(req);
	if (ctx->flags & UR_IORING_SETUP_SQPOLL)
		flags |= EVF_SQ_THREAD;
	if (read_submitted_sqe(req, &sqe))
		flags |= EVF_SQE_VALID;
	e = EV_RESERVE(&em, submit, EV_SUBMIT, flags, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
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
			bpf_map_delete_elem(&ring_owner, &rctx);
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

/* io_uring_file_get(struct io_kiocb *req, int fd) */
SEC("?tp_btf/io_uring_file_get")
int BPF_PROG(tp_file_get, struct io_kiocb *req, int fd)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_file_get *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
		return 0;
	e = EV_RESERVE(&em, file_get, EV_FILE_GET, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return 0;
	e->fd = fd;
	e->ring = ring;
	e->req = (u64)req;
	e->user_data = req->cqe.user_data;
	ev_submit(&em, e);
	return 0;
}

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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_queue_async_work *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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
	ev_submit(&em, e);
	return 0;
}

/* io_uring_defer(struct io_kiocb *req) */
SEC("?tp_btf/io_uring_defer")
int BPF_PROG(tp_defer, struct io_kiocb *req)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_defer *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_link *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_fail_link *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_req_failed *e;
	struct ur_sqe sqe;
	struct emit em;
	u16 flags = 0;

	if (!ring_selected(ring, pid_tgid))
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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_poll_arm *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ring = (u64)req->ctx;
	struct ev_task_add *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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

/* A completion; COMPLETE32 when the CQE carries the two extra words. */
static __always_inline int emit_complete(u64 ring, u64 req, u64 user_data, s32 res,
					 u32 cflags, u64 extra1, u64 extra2)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	u64 ts;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
		return 0;
	ts = bpf_ktime_get_boot_ns();
	if (extra1 || extra2) {
		struct ev_complete32 *e;

		e = EV_RESERVE(&em, complete32, EV_COMPLETE32, 0, ts, pid_tgid);
		if (!e)
			return 0;
		e->res = res;
		e->ring = ring;
		e->req = req;
		e->user_data = user_data;
		e->cflags = cflags;
		e->extra1 = extra1;
		e->extra2 = extra2;
		ev_submit(&em, e);
	} else {
		struct ev_complete *e;

		e = EV_RESERVE(&em, complete, EV_COMPLETE, 0, ts, pid_tgid);
		if (!e)
			return 0;
		e->res = res;
		e->ring = ring;
		e->req = req;
		e->user_data = user_data;
		e->cflags = cflags;
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
		} else if (bpf_map_lookup_elem(&pid_filter, &tgid)) {
			bpf_map_delete_elem(&pid_filter, &tgid);
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
	if (start_time && (!*start_time || *start_time == p->start_time))
		bpf_map_delete_elem(&pid_filter, &tgid);
	return 0;
}

/* ------------------------------------------------------------- io-wq */

static __always_inline struct io_kiocb *work_to_req(void *work)
{
	return (struct io_kiocb *)((u64)work - bpf_core_field_offset(struct io_kiocb, work));
}

static __always_inline int emit_work_begin(void *work)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct io_kiocb *req = work_to_req(work);
	u64 ring = (u64)BPF_CORE_READ(req, ctx);
	struct ev_work_begin *e;
	struct emit em;

	if (!ring_selected(ring, pid_tgid))
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

/* ---------------------------------------------------------- syscalls */

/*
 * In the build without direct loads (6.1, see "kernel reads"), each
 * bpf_probe_read_kernel() costs the traced CPU about 35 ns (measured with
 * kernel.bpf_stats_enabled on the bench machine), and io_uring_enter's
 * programs read a dozen fields through pointers a tracepoint program cannot
 * dereference.  Fields a few dozen bytes apart in one object are read with
 * one call: the span from the first to the last, known at load time from
 * the CO-RE offsets, when it fits in UR_SPAN_MAX bytes (on 6.1 the
 * cacheline-aligned SQ and CQ heads and tails of io_rings span 196 bytes,
 * on 6.12 and later 16); one call per field otherwise.
 */
#define UR_SPAN_MAX	256

/* The file's private_data if its f_op is fops, else 0. */
static __always_inline u64 file_private_data(struct file *file, u64 fops, u64 *span)
{
#ifdef UR_DIRECT_LOADS
	struct file *f = ur_cast(struct file, file);

	if ((u64)f->f_op != fops)
		return 0;
	return (u64)f->private_data;
#else
	u32 op = bpf_core_field_offset(struct file, f_op);
	u32 pd = bpf_core_field_offset(struct file, private_data);
	u32 lo = op < pd ? op : pd;
	u32 len = (op < pd ? pd : op) + 8 - lo;

	if (len > UR_SPAN_MAX || (op | pd) & 7) {
		if ((u64)BPF_CORE_READ(file, f_op) != fops)
			return 0;
		return (u64)BPF_CORE_READ(file, private_data);
	}
	if (bpf_probe_read_kernel(span, len, (void *)((u64)file + lo)))
		return 0;
	if (span[(op - lo) / 8] != fops)
		return 0;
	return span[(pd - lo) / 8];
#endif
}

/*
 * The ring an io_uring_enter(2)/io_uring_register(2) fd names: the file in
 * the task's fd table (or its registered-ring table) whose f_op is
 * io_uring's -- learned at start, because io_uring_fops is not in kallsyms
 * without CONFIG_KALLSYMS_ALL.  0 when it cannot be told.
 */
static __always_inline u64 resolve_ring(struct task_struct *task, s32 fd, bool registered,
					u64 *span)
{
	/*
	 * The task's own structures through BTF (plain loads); the slot of a
	 * variable index and the file it holds are read as in "kernel reads".
	 */
	u64 file = 0;
	u64 fops = io_uring_fops;

	if (!fops || fd < 0)
		return 0;
	if (registered) {
		struct io_uring_task *tctx = task->io_uring;
		u64 off = bpf_core_field_offset(struct io_uring_task, registered_rings);

		if (!tctx || fd >= UR_IO_RINGFD_REG_MAX)
			return 0;
		if (read_kernel_u64(&file, (u64)tctx + off + (u64)fd * sizeof(file)))
			return 0;
	} else {
		struct fdtable *fdt = task->files->fdt;

		if ((u32)fd >= fdt->max_fds)
			return 0;
		if (read_kernel_u64(&file, (u64)fdt->fd + (u64)fd * 8))
			return 0;
	}
	if (!file)
		return 0;
	return file_private_data((struct file *)file, fops, span);
}

/*
 * Plain u32s: a local copy of struct io_uring would be relocated like the
 * kernel's, whose head and tail are each cacheline-aligned on 6.1 and packed
 * on 6.18.
 */
struct ring_state {
	u32 sq_head, sq_tail, cq_head, cq_tail;
	u8 sq_order, cq_order;
	bool valid;
};

/*
 * The ring sizes are read from the shared ring header (sq/cq_ring_entries,
 * which io_uring_setup and IORING_REGISTER_RESIZE_RINGS write beside the
 * heads and tails) rather than from io_ring_ctx: on 6.12 and later they are
 * inside the span of the heads and tails, so the entry reads them with no
 * call of its own (each costs ~35 ns, see UR_SPAN_MAX); on 6.1, whose
 * cacheline-aligned heads and tails push them past UR_SPAN_MAX, with one
 * call each, as from io_ring_ctx before.
 */
static __always_inline void read_ring_state(u64 ring, struct ring_state *rs, bool orders,
					    u64 *span)
{
#ifdef UR_DIRECT_LOADS
	struct io_rings *rings = ur_cast(struct io_ring_ctx, ring)->rings;

	rs->valid = false;
	if (!rings)
		return;
	rs->sq_head = rings->sq.head;
	rs->sq_tail = rings->sq.tail;
	rs->cq_head = rings->cq.head;
	rs->cq_tail = rings->cq.tail;
	if (orders) {
		rs->sq_order = log2_u32(rings->sq_ring_entries);
		rs->cq_order = log2_u32(rings->cq_ring_entries);
	}
	rs->valid = true;
#else
	struct io_ring_ctx *ctx = (struct io_ring_ctx *)ring;
	struct io_rings *rings = BPF_CORE_READ(ctx, rings);
	/* sq.head comes first and cq.tail last on every kernel */
	u32 sqh = bpf_core_field_offset(struct io_rings, sq.head);
	u32 sqt = bpf_core_field_offset(struct io_rings, sq.tail);
	u32 cqh = bpf_core_field_offset(struct io_rings, cq.head);
	u32 cqt = bpf_core_field_offset(struct io_rings, cq.tail);
	u32 sqe = bpf_core_field_offset(struct io_rings, sq_ring_entries);
	u32 cqe = bpf_core_field_offset(struct io_rings, cq_ring_entries);
	bool span_ok = sqh < sqt && sqt < cqh && cqh < cqt && cqt + 4 - sqh <= UR_SPAN_MAX &&
		       !((sqh | sqt | cqh | cqt) & 3);
	bool sizes_in_span = orders && span_ok && cqt < sqe && sqe < cqe &&
			     cqe + 4 - sqh <= UR_SPAN_MAX && !((sqe | cqe) & 3);
	u32 len = (sizes_in_span ? cqe : cqt) + 4 - sqh;
	u32 *words = (u32 *)span;
	u32 sq_size = 0, cq_size = 0;

	rs->valid = false;
	if (!rings)
		return;
	if (span_ok) {
		if (bpf_probe_read_kernel(span, len, (void *)((u64)rings + sqh)))
			return;
		rs->sq_head = words[0];
		rs->sq_tail = words[(sqt - sqh) / 4];
		rs->cq_head = words[(cqh - sqh) / 4];
		rs->cq_tail = words[(cqt - sqh) / 4];
		if (sizes_in_span) {
			sq_size = words[(sqe - sqh) / 4];
			cq_size = words[(cqe - sqh) / 4];
		}
	} else if (bpf_core_read(&rs->sq_head, sizeof(u32), &rings->sq.head) ||
		   bpf_core_read(&rs->sq_tail, sizeof(u32), &rings->sq.tail) ||
		   bpf_core_read(&rs->cq_head, sizeof(u32), &rings->cq.head) ||
		   bpf_core_read(&rs->cq_tail, sizeof(u32), &rings->cq.tail)) {
		return;
	}
	if (orders && !sizes_in_span) {
		sq_size = BPF_CORE_READ(rings, sq_ring_entries);
		cq_size = BPF_CORE_READ(rings, cq_ring_entries);
	}
	if (orders) {
		rs->sq_order = log2_u32(sq_size);
		rs->cq_order = log2_u32(cq_size);
	}
	rs->valid = true;
#endif
}

/*
 * What io_uring_enter's entry found, kept in the CPU's state for its exit:
 * the fd and flags, which the syscalls tracepoint's exit record does not
 * carry (reading them from the task's user registers is three helper
 * calls), and the ring (resolving the fd again is two kernel reads, helper
 * calls on 6.1).  Trusted only while the task's context switch
 * counts are those of the entry: a task that was never switched out stayed
 * on this CPU, made no other system call, and no other task's entry ran
 * here in between.  A task that slept or migrated reads its registers and
 * resolves the fd again.  The cached ring is the one the call used even if
 * another thread replaced the fd meanwhile.
 */
static __always_inline u64 task_switches(struct task_struct *task)
{
	return task->nvcsw + task->nivcsw;
}

/* bpf_get_current_pid_tgid()'s value, from a task already at hand. */
static __always_inline u64 task_pid_tgid(struct task_struct *task)
{
	return (u64)(u32)task->tgid << 32 | (u32)task->pid;
}

static __always_inline void enter_cache_put(struct ur_cpu_state *st, struct task_struct *task,
					    u64 fd, u64 flags, u64 ring)
{
	st->enter_ring = ring;
	st->enter_fd = fd;
	st->enter_flags = flags;
	st->enter_switches = task_switches(task);
	st->enter_tid = task->pid;
}

static __always_inline bool enter_cache_take(struct task_struct *task, u64 *fd, u64 *flags,
					     u64 *ring)
{
	u32 zero = 0;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);

	if (!st || st->enter_tid != (u32)task->pid || st->enter_switches != task_switches(task))
		return false;
	st->enter_tid = 0;
	*fd = st->enter_fd;
	*flags = st->enter_flags;
	*ring = st->enter_ring;
	return true;
}

/*
 * The user registers at syscall exit: the arguments are still where the
 * entry code saved them, so exit probes can read them without a map keyed
 * by task.
 */
static __always_inline struct pt_regs *user_regs(struct task_struct *task)
{
	return (struct pt_regs *)bpf_task_pt_regs(task);
}

static __always_inline void sys_enter_begin(u64 fd, u64 to_submit, u64 min_complete,
					    u64 flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	u64 pid_tgid = task_pid_tgid(task);
	bool registered = flags & UR_IORING_ENTER_REGISTERED_RING;
	u64 span[UR_SPAN_MAX / 8];
	struct ring_state rs = {};
	struct ev_enter_begin *e;
	struct emit em;
	u16 evf = registered ? EVF_REGISTERED_RING : 0;
	u64 ring;

	if (!current_selected(pid_tgid))
		return;
	ring = resolve_ring(task, (s32)fd, registered, span);
	if (ring) {
		evf |= EVF_RING_VALID;
		remember_ring(ring, pid_tgid);
		read_ring_state(ring, &rs, true, span);
		if (rs.valid)
			evf |= EVF_RING_STATE_VALID;
	}
	e = EV_RESERVE(&em, enter_begin, EV_ENTER_BEGIN, evf, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return;
	e->fd = (s32)fd;
	e->ring = ring;
	e->to_submit = to_submit;
	e->min_complete = min_complete;
	e->enter_flags = flags;
	e->sq_head = rs.sq_head;
	e->sq_tail = rs.sq_tail;
	e->cq_head = rs.cq_head;
	e->cq_tail = rs.cq_tail;
	e->sq_order = rs.sq_order;
	e->cq_order = rs.cq_order;
	enter_cache_put(em.st, task, fd, flags, ring);
	ev_submit(&em, e);
}

/*
 * regs: the user registers when the hook has them (fexit, raw sys_exit),
 * NULL for the syscalls tracepoint; either way read only when the entry's
 * cache does not hold the call's fd and flags.
 */
static __always_inline void sys_enter_end(struct pt_regs *regs, s64 ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	u64 pid_tgid = task_pid_tgid(task);
	u64 span[UR_SPAN_MAX / 8];
	struct ring_state rs = {};
	struct ev_enter_end *e;
	struct emit em;
	u64 fd, flags, ring;
	u16 evf;

	if (!current_selected(pid_tgid))
		return;
	if (!enter_cache_take(task, &fd, &flags, &ring)) {
		if (!regs)
			regs = user_regs(task);
		fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
		flags = PT_REGS_PARM4_CORE_SYSCALL(regs);
		ring = resolve_ring(task, (s32)fd, flags & UR_IORING_ENTER_REGISTERED_RING, span);
	}
	evf = flags & UR_IORING_ENTER_REGISTERED_RING ? EVF_REGISTERED_RING : 0;
	if (ring) {
		evf |= EVF_RING_VALID;
		read_ring_state(ring, &rs, false, span);
		if (rs.valid)
			evf |= EVF_RING_STATE_VALID;
	}
	e = EV_RESERVE(&em, enter_end, EV_ENTER_END, evf, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return;
	e->fd = (s32)fd;
	e->ret = ret;
	e->ring = ring;
	e->sq_head = rs.sq_head;
	e->sq_tail = rs.sq_tail;
	e->cq_head = rs.cq_head;
	e->cq_tail = rs.cq_tail;
	ev_submit(&em, e);
}

static __always_inline void sys_setup_begin(u64 entries, u64 params)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ur_uring_params p = {};
	struct ev_setup_begin *e;
	struct emit em;
	u16 evf = 0;

	if (!current_selected(pid_tgid))
		return;
	/* May fail if the page is not resident: then the params are unknown. */
	if (params && !bpf_probe_read_user(&p, sizeof(p), (void *)params))
		evf |= EVF_PARAMS_VALID;
	e = EV_RESERVE(&em, setup_begin, EV_SETUP_BEGIN, evf, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return;
	e->entries = entries;
	e->setup_flags = p.flags;
	e->sq_thread_cpu = p.sq_thread_cpu;
	e->sq_thread_idle = p.sq_thread_idle;
	e->cq_entries = p.cq_entries;
	ev_submit(&em, e);
}

static __always_inline void sys_setup_end(s64 ret)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_setup_end *e;
	struct emit em;

	if ((u32)(pid_tgid >> 32) == self_tgid) {
		/* Fallback when io_uring_create could not be hooked. */
		if (!io_uring_fops && ret >= 0)
			learn_fops((int)ret);
		return;
	}
	if (!current_selected(pid_tgid))
		return;
	e = EV_RESERVE(&em, setup_end, EV_SETUP_END, 0, bpf_ktime_get_boot_ns(), pid_tgid);
	if (!e)
		return;
	e->ret = ret;
	ev_submit(&em, e);
}

static __always_inline void sys_register_begin(u64 fd, u64 opcode, u64 nr_args)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	bool registered = opcode & UR_IORING_REGISTER_USE_REGISTERED_RING;
	u64 span[UR_SPAN_MAX / 8];
	struct ev_register_begin *e;
	struct emit em;
	u16 evf = registered ? EVF_REGISTERED_RING : 0;
	u64 ring;

	if (!current_selected(pid_tgid))
		return;
	ring = resolve_ring(bpf_get_current_task_btf(), (s32)fd, registered, span);
	if (ring)
		evf |= EVF_RING_VALID;
	e = EV_RESERVE(&em, register_begin, EV_REGISTER_BEGIN, evf, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return;
	e->fd = (s32)fd;
	e->ring = ring;
	e->opcode = opcode;
	e->nr_args = nr_args;
	ev_submit(&em, e);
}

static __always_inline void sys_register_end(u64 fd, u64 opcode, s64 ret)
{
	u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ev_register_end *e;
	struct emit em;
	u16 evf = opcode & UR_IORING_REGISTER_USE_REGISTERED_RING ? EVF_REGISTERED_RING : 0;

	if (!current_selected(pid_tgid))
		return;
	e = EV_RESERVE(&em, register_end, EV_REGISTER_END, evf, bpf_ktime_get_boot_ns(),
		       pid_tgid);
	if (!e)
		return;
	e->fd = (s32)fd;
	e->ret = ret;
	ev_submit(&em, e);
}

/*
 * Variant 1: fentry/fexit on the arch syscall wrappers (__x64_sys_*, whose
 * argument is the user pt_regs).  The attach target is set by the recorder
 * from the kernel's BTF, so the section names carry no function.
 */
SEC("?fentry")
int BPF_PROG(fentry_setup, struct pt_regs *regs)
{
	sys_setup_begin(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs));
	return 0;
}

SEC("?fexit")
int BPF_PROG(fexit_setup, struct pt_regs *regs, long ret)
{
	sys_setup_end(ret);
	return 0;
}

SEC("?fentry")
int BPF_PROG(fentry_enter, struct pt_regs *regs)
{
	sys_enter_begin(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			PT_REGS_PARM3_CORE_SYSCALL(regs), PT_REGS_PARM4_CORE_SYSCALL(regs));
	return 0;
}

SEC("?fexit")
int BPF_PROG(fexit_enter, struct pt_regs *regs, long ret)
{
	sys_enter_end(regs, ret);
	return 0;
}

SEC("?fentry")
int BPF_PROG(fentry_register, struct pt_regs *regs)
{
	sys_register_begin(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			   PT_REGS_PARM4_CORE_SYSCALL(regs));
	return 0;
}

SEC("?fexit")
int BPF_PROG(fexit_register, struct pt_regs *regs, long ret)
{
	sys_register_end(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			 ret);
	return 0;
}

/*
 * Variant 2: the classic syscalls:sys_{enter,exit}_io_uring_* tracepoints
 * (CONFIG_FTRACE_SYSCALLS), attached by id through perf_event_open.  Their
 * records: the 8-byte common header, int __syscall_nr, then 8-byte slots
 * (see their format files in the log's metadata).
 */
struct ur_syscall_enter {
	u64 common;
	s32 nr;
	u32 pad;
	u64 args[6];
};

struct ur_syscall_exit {
	u64 common;
	s32 nr;
	u32 pad;
	s64 ret;
};

SEC("?tracepoint/syscalls/sys_enter_io_uring_setup")
int tp_sys_enter_setup(struct ur_syscall_enter *ctx)
{
	sys_setup_begin(ctx->args[0], ctx->args[1]);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_uring_setup")
int tp_sys_exit_setup(struct ur_syscall_exit *ctx)
{
	sys_setup_end(ctx->ret);
	return 0;
}

SEC("?tracepoint/syscalls/sys_enter_io_uring_enter")
int tp_sys_enter_enter(struct ur_syscall_enter *ctx)
{
	sys_enter_begin(ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3]);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_uring_enter")
int tp_sys_exit_enter(struct ur_syscall_exit *ctx)
{
	sys_enter_end(NULL, ctx->ret);
	return 0;
}

SEC("?tracepoint/syscalls/sys_enter_io_uring_register")
int tp_sys_enter_register(struct ur_syscall_enter *ctx)
{
	sys_register_begin(ctx->args[0], ctx->args[1], ctx->args[3]);
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_io_uring_register")
int tp_sys_exit_register(struct ur_syscall_exit *ctx)
{
	struct pt_regs *regs = user_regs(bpf_get_current_task_btf());

	sys_register_end(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			 ctx->ret);
	return 0;
}

/*
 * Variant 3: the raw_syscalls sys_enter/sys_exit hooks, filtered by syscall
 * number.  They run for every syscall of every task, so they are the last
 * resort.
 */
SEC("?tp_btf/sys_enter")
int BPF_PROG(tp_raw_sys_enter, struct pt_regs *regs, long id)
{
	if (id < UR_NR_IO_URING_SETUP || id > UR_NR_IO_URING_REGISTER)
		return 0;
	if (id == UR_NR_IO_URING_ENTER)
		sys_enter_begin(PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
				PT_REGS_PARM3_CORE_SYSCALL(regs),
				PT_REGS_PARM4_CORE_SYSCALL(regs));
	else if (id == UR_NR_IO_URING_SETUP)
		sys_setup_begin(PT_REGS_PARM1_CORE_SYSCALL(regs),
				PT_REGS_PARM2_CORE_SYSCALL(regs));
	else
		sys_register_begin(PT_REGS_PARM1_CORE_SYSCALL(regs),
				   PT_REGS_PARM2_CORE_SYSCALL(regs),
				   PT_REGS_PARM4_CORE_SYSCALL(regs));
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(tp_raw_sys_exit, struct pt_regs *regs, long ret)
{
	long id = UR_REGS_SYSCALL_NR(regs);

	if (id < UR_NR_IO_URING_SETUP || id > UR_NR_IO_URING_REGISTER)
		return 0;
	if (id == UR_NR_IO_URING_ENTER)
		sys_enter_end(regs, ret);
	else if (id == UR_NR_IO_URING_SETUP)
		sys_setup_end(ret);
	else
		sys_register_end(PT_REGS_PARM1_CORE_SYSCALL(regs),
				 PT_REGS_PARM2_CORE_SYSCALL(regs), ret);
	return 0;
}
