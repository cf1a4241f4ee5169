/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The io_uring system calls (io_uring_setup, io_uring_enter,
 * io_uring_register): entry and exit records with what the call found in
 * the ring, from fentry/fexit, syscall tracepoints or raw sys_enter/exit,
 * whichever the kernel offers (recorder/probes.c picks).  Part of
 * uring_record.bpf.c, included last.
 */
#ifndef RINGSIDE_SYSCALLS_BPF_H
#define RINGSIDE_SYSCALLS_BPF_H

/*
 * In the build without direct loads (6.1, see kernel_reads.bpf.h), each
 * bpf_probe_read_kernel() is a helper call on the traced CPU (its cost:
 * bench/RESULTS.md), and io_uring_enter's
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
	 * variable index and the file it holds are read as in kernel_reads.bpf.h.
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
 * call of its own (see UR_SPAN_MAX); on 6.1, whose
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

static __always_inline void enter_cache_put(const struct emit *em, struct task_struct *task,
					    u64 fd, u64 flags, u64 ring)
{
	struct ur_cpu_state *st = em->st;

	st->enter_off = em->depth ? ~0u : em->off;
	st->enter_epoch = st->epoch;
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
 * At the end of an io_uring_enter whose records (from its entry's) are all
 * in the stage, ending at end: whether the stage lacks the room they took.
 * A next call like this one would then have the stage handed over in its
 * midst, and the inline completions of the submissions before that point
 * could not be folded into them (emit.bpf.h).  Handing it over now instead
 * makes no more hand-overs.
 */
static __always_inline bool stage_short_for_next_call(const struct emit *em, u32 end)
{
	const struct ur_cpu_state *st = em->st;

	if (em->depth || st->enter_epoch != st->epoch || st->enter_off > end)
		return false;
	return end + (end - st->enter_off) > stage_flush_bytes;
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

	if (!current_selected(pid_tgid) || !enter_begin_sampled(pid_tgid))
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
	enter_cache_put(&em, task, fd, flags, ring);
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
	bool cached;
	u16 evf;

	if (!current_selected(pid_tgid) || !enter_end_sampled(pid_tgid))
		return;
	cached = enter_cache_take(task, &fd, &flags, &ring);
	if (!cached) {
		if (!regs)
			regs = user_regs(task);
		fd = PT_REGS_PARM1_SYSCALL(regs);
		flags = PT_REGS_PARM4_SYSCALL(regs);
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
	em.flush = cached && stage_short_for_next_call(&em, em.off + sizeof(*e));
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
	sys_setup_begin(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs));
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
	sys_enter_begin(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs),
			PT_REGS_PARM3_SYSCALL(regs), PT_REGS_PARM4_SYSCALL(regs));
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
	sys_register_begin(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs),
			   PT_REGS_PARM4_SYSCALL(regs));
	return 0;
}

SEC("?fexit")
int BPF_PROG(fexit_register, struct pt_regs *regs, long ret)
{
	sys_register_end(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs),
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

	sys_register_end(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs),
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
		sys_enter_begin(PT_REGS_PARM1_SYSCALL(regs), PT_REGS_PARM2_SYSCALL(regs),
				PT_REGS_PARM3_SYSCALL(regs),
				PT_REGS_PARM4_SYSCALL(regs));
	else if (id == UR_NR_IO_URING_SETUP)
		sys_setup_begin(PT_REGS_PARM1_SYSCALL(regs),
				PT_REGS_PARM2_SYSCALL(regs));
	else
		sys_register_begin(PT_REGS_PARM1_SYSCALL(regs),
				   PT_REGS_PARM2_SYSCALL(regs),
				   PT_REGS_PARM4_SYSCALL(regs));
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
		sys_register_end(PT_REGS_PARM1_SYSCALL(regs),
				 PT_REGS_PARM2_SYSCALL(regs), ret);
	return 0;
}

#endif /* RINGSIDE_SYSCALLS_BPF_H */
