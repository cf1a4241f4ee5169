/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Which tasks and rings are recorded: -p, --follow, -- COMMAND, --comm and
 * --cgroup (uring-record(8)).  Part of uring_record.bpf.c, included after
 * its maps (pid_filter, ring_owner, cgroup_filter) and settings.
 */
#ifndef RINGSIDE_FILTER_BPF_H
#define RINGSIDE_FILTER_BPF_H

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

/*
 * The last -p/COMMAND/--follow answer on this CPU: tgid << 32 | the low 31
 * bits of pid_filter_gen << 1 | selected.  One u64, so that a program
 * interrupting another on this CPU can only replace it whole.  Events come
 * in runs from one process, so this spares a hash lookup per event.  A
 * process's events come after the pid_filter changes about it (the fork
 * that adds it, the free that removes it), so a memo tagged with the
 * current generation holds the map's answer.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} pid_memo SEC(".maps");

static __always_inline void pid_filter_changed(void)
{
	__sync_fetch_and_add(&pid_filter_gen, 1);
}

static __always_inline bool pid_selected(u32 tgid)
{
	u64 tag = (u64)tgid << 32 | (pid_filter_gen & 0x7fffffff) << 1;
	u32 zero = 0;
	u64 *memo = bpf_map_lookup_elem(&pid_memo, &zero);
	bool in;

	if (memo && (*memo & ~1ULL) == tag)
		return *memo & 1;
	in = bpf_map_lookup_elem(&pid_filter, &tgid) != NULL;
	if (memo)
		*memo = tag | in;
	return in;
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
 * is not free (more so on kernels that return through the SRSO "safe RET"
 * thunk; bench/RESULTS.md), and the compiler cannot drop one.
 */
static __always_inline bool __task_selected(u32 tgid, struct task_struct *task)
{
	if (tgid == self_tgid)
		return false;
	if (!filter_active)
		return true;
	if (filter_pids && !pid_selected(tgid))
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

/*
 * The last ring this CPU found in ring_owner or put there, and
 * ring_owner_gen then: every submission and enter would look it up
 * otherwise.  Two words (the verifier lets no arithmetic mix a pointer into
 * one), so a program interrupting another on this CPU may rewrite them
 * between two reads: the generation is read before and after the ring, and
 * a memo whose two reads differ is not used.  An entry LRU-evicted while it
 * is memoized here is put back once this CPU's memo moves on; ring_owner
 * holds UR_MAX_RING_OWNERS rings before it evicts.
 */
struct ring_memo {
	u64 gen;
	u64 ring;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct ring_memo);
} ring_memos SEC(".maps");

static __always_inline void forget_ring(u64 ring)
{
	bpf_map_delete_elem(&ring_owner, &ring);
	__sync_fetch_and_add(&ring_owner_gen, 1);
}

/* Remember that ring belongs to a selected process (only with filters). */
static __always_inline void remember_ring(u64 ring, u64 pid_tgid)
{
	u32 tgid = pid_tgid >> 32, zero = 0;
	volatile struct ring_memo *memo;
	u64 gen;

	if (!filter_active || !ring)
		return;
	gen = ring_owner_gen;
	memo = bpf_map_lookup_elem(&ring_memos, &zero);
	if (memo && memo->gen == gen && memo->ring == ring && memo->gen == gen)
		return;
	if (!bpf_map_lookup_elem(&ring_owner, &ring)) {
		if (!current_task_selected(tgid))
			return;
		if (bpf_map_update_elem(&ring_owner, &ring, &tgid, BPF_ANY)) {
			__sync_fetch_and_add(&stats.ring_owner_map_full, 1);
			return;
		}
	}
	if (memo) {
		memo->ring = ring;
		memo->gen = gen;
	}
}

#endif /* RINGSIDE_FILTER_BPF_H */
