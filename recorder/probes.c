// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_info.h"
#include "clock.h"
#include "msg.h"
#include "probes.h"
#include "uring_record.h"
#include "uring_record.skel.h"
#include "uring_record_direct.skel.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_LOAD_ATTEMPTS 8

#if defined(__x86_64__)
#define SYSCALL_PREFIX "__x64_sys_"
#elif defined(__aarch64__)
#define SYSCALL_PREFIX "__arm64_sys_"
#elif defined(__s390x__)
#define SYSCALL_PREFIX "__s390x_sys_"
#else
#define SYSCALL_PREFIX "sys_"
#endif

/* AK_NONE: loaded, never attached (run by the recorder: flush_stage). */
enum attach_kind { AK_TP_BTF, AK_FENTRY, AK_FEXIT, AK_KPROBE, AK_KRETPROBE, AK_TRACEPOINT, AK_NONE };

/* ------------------------------------------------------ tracepoints */

struct tp_variant {
	const char *prog;
	const char *category;		/* tracefs system */
	const char *tp;
	int nargs;			/* > 0: exactly; < 0: at least -nargs */
	const char *variant;
};

struct tp_hook {
	const char *feature;		/* what is missing without it */
	bool required;
	struct tp_variant v[2];
};

static const struct tp_hook tp_hooks[] = {
	{ "submissions", true, {
		{ "tp_submit_req", "io_uring", "io_uring_submit_req", 2, "submit_req (6.4+)" },
		{ "tp_submit_sqe", "io_uring", "io_uring_submit_sqe", 3, "submit_sqe (6.1-6.3)" } } },
	{ "completions", true, {
		{ "tp_complete_args", "io_uring", "io_uring_complete", 8, "7 arguments (before 6.18)" },
		{ "tp_complete_cqe", "io_uring", "io_uring_complete", 4, "io_uring_cqe (6.18+)" } } },
	{ "ring creation (and resolving rings of io_uring_enter/register)", false, {
		{ "tp_create", "io_uring", "io_uring_create", 6, "" } } },
	{ "io_uring_register tracepoint events", false, {
		{ "tp_register", "io_uring", "io_uring_register", 6, "" } } },
	{ "io-wq queueing", false, {
		{ "tp_queue_async", "io_uring", "io_uring_queue_async_work", 3, "" } } },
	{ "drain deferrals", false, {
		{ "tp_defer", "io_uring", "io_uring_defer", 2, "" } } },
	{ "links", false, {
		{ "tp_link", "io_uring", "io_uring_link", 3, "" } } },
	{ "failed links", false, {
		{ "tp_fail_link", "io_uring", "io_uring_fail_link", 3, "" } } },
	{ "CQ ring waits", false, {
		{ "tp_cqring_wait", "io_uring", "io_uring_cqring_wait", 3, "" } } },
	{ "failed submissions", false, {
		{ "tp_req_failed", "io_uring", "io_uring_req_failed", 4, "" } } },
	{ "CQ overflows", false, {
		{ "tp_cqe_overflow", "io_uring", "io_uring_cqe_overflow", 6, "" } } },
	{ "poll arming", false, {
		{ "tp_poll_arm", "io_uring", "io_uring_poll_arm", 4, "" } } },
	{ "task work queueing", false, {
		{ "tp_task_add", "io_uring", "io_uring_task_add", 3, "" } } },
	{ "task work runs", false, {
		{ "tp_tw_run_loops", "io_uring", "io_uring_task_work_run", 4, "with loops (before 6.9)" },
		{ "tp_tw_run", "io_uring", "io_uring_task_work_run", 3, "without loops (6.9+)" } } },
	{ "local (DEFER_TASKRUN) work runs", false, {
		{ "tp_local_work_run", "io_uring", "io_uring_local_work_run", 4, "" } } },
	{ "short writes", false, {
		{ "tp_short_write", "io_uring", "io_uring_short_write", 5, "" } } },
	{ "new tasks (names of threads and io-wq workers)", false, {
		{ "tp_task_newtask", "task", "task_newtask", 3, "" } } },
	{ "task renames (io-wq worker and SQPOLL thread names)", false, {
		{ "tp_task_rename", "task", "task_rename", 3, "" } } },
	{ "exec (new program names)", false, {
		{ "tp_proc_exec", "sched", "sched_process_exec", 4, "" } } },
	{ "task exits", false, {
		{ "tp_proc_exit", "sched", "sched_process_exit", -2, "" } } },
	{ "dropping exited processes from -p/--follow (else only when their pid is reused)", false, {
		{ "tp_proc_free", "sched", "sched_process_free", 2, "" } } },
	{ "ring teardown (waiting for the rings of an exited selection)", false, {
		{ "tp_ring_exit", "workqueue", "workqueue_execute_end", 3, "" } } },
};

/* ------------------------------------------------ programs and state */

struct prog_state {
	const char *name;
	enum attach_kind kind;
	char target[64];		/* function or tracefs "system/name" */
	bool enabled;			/* autoload */
	bool load_failed;
	char load_reason[200];
	struct bpf_link *link;
};

struct plan {
	struct prog_state progs[64];
	size_t nprogs;
	/* tracepoint hooks: chosen variant per tp_hooks[] entry, -1 none */
	int tp_choice[ARRAY_SIZE(tp_hooks)];
	char tp_reason[ARRAY_SIZE(tp_hooks)][160];
	/* io-wq and syscall methods found usable before load */
	bool iowq_fentry, iowq_kprobe, iowq_sched;
	char iowq_fentry_why[128], iowq_kprobe_why[128], iowq_sched_why[128];
	bool sys_fentry, sys_tp, sys_raw;
	char sys_fentry_why[128], sys_tp_why[160], sys_raw_why[128];
};

static struct prog_state *prog_add(struct plan *pl, const char *name, enum attach_kind kind,
				   const char *target)
{
	struct prog_state *ps;

	for (size_t i = 0; i < pl->nprogs; i++)
		if (!strcmp(pl->progs[i].name, name))
			return &pl->progs[i];
	if (pl->nprogs >= ARRAY_SIZE(pl->progs))
		return NULL;
	ps = &pl->progs[pl->nprogs++];
	memset(ps, 0, sizeof(*ps));
	ps->name = name;
	ps->kind = kind;
	snprintf(ps->target, sizeof(ps->target), "%s", target);
	ps->enabled = true;
	return ps;
}

static struct prog_state *prog_find(struct plan *pl, const char *name)
{
	for (size_t i = 0; i < pl->nprogs; i++)
		if (!strcmp(pl->progs[i].name, name))
			return &pl->progs[i];
	return NULL;
}

static bool prog_usable(struct plan *pl, const char *name)
{
	struct prog_state *ps = prog_find(pl, name);

	return ps && ps->enabled && !ps->load_failed;
}

/* ------------------------------------------------------ entries */

static struct probe_entry *entry_add(struct probes *p, const char *hook, const char *program,
				     const char *status, const char *variant,
				     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static struct probe_entry *entry_add(struct probes *p, const char *hook, const char *program,
				     const char *status, const char *variant,
				     const char *fmt, ...)
{
	struct probe_entry *e;
	va_list ap;

	if (p->nentries == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct probe_entry *n = realloc(p->entries, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->entries = n;
		p->cap = cap;
	}
	e = &p->entries[p->nentries++];
	memset(e, 0, sizeof(*e));
	snprintf(e->hook, sizeof(e->hook), "%s", hook);
	snprintf(e->program, sizeof(e->program), "%s", program ? program : "");
	e->status = status;
	snprintf(e->variant, sizeof(e->variant), "%s", variant ? variant : "");
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
	return e;
}

static int keep_link(struct probes *p, struct bpf_link *link)
{
	if (p->nlinks == p->links_cap) {
		size_t cap = p->links_cap ? p->links_cap * 2 : 64;
		struct bpf_link **n = realloc(p->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->links = n;
		p->links_cap = cap;
	}
	p->links[p->nlinks++] = link;
	return 0;
}

/* ---------------------------------------------------- feature probes */

/*
 * Can a BPF trampoline be attached to func?  Loads a two-instruction
 * fentry/fexit program and attaches it for a moment (libbpf-tools'
 * fentry_can_attach()).  Some kernels refuse trampolines altogether (this
 * project's 6.18 host answers EPERM), which must not cost a reload.
 */
static int trampoline_probe(const struct btf *btf, const char *func, enum bpf_attach_type type)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	int id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	int prog_fd, link_fd, err;

	if (id <= 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ur_probe", "GPL", insns,
				ARRAY_SIZE(insns), &opts);
	if (prog_fd < 0)
		return -errno;
	link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	err = link_fd < 0 ? -errno : 0;
	if (link_fd >= 0)
		close(link_fd);
	close(prog_fd);
	return err;
}

static int kprobe_pmu_type(void)
{
	char buf[32] = "";
	int fd = open("/sys/bus/event_source/devices/kprobe/type", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Bit of the "retprobe" flag in the kprobe PMU's config (format/retprobe). */
static int kprobe_retprobe_bit(void)
{
	char buf[32] = "";
	int fd = open("/sys/bus/event_source/devices/kprobe/format/retprobe", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || strncmp(buf, "config:", 7))
		return -1;
	return atoi(buf + 7);
}

/* Whether the kernel has function func, and its address (0 when hidden). */
static bool kallsyms_find(const char *func, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    (type == 't' || type == 'T') && !strcmp(name, func)) {
			found = true;
			if (addr)
				*addr = a;
		}
	}
	fclose(f);
	return found;
}

static bool kallsyms_has(const char *func)
{
	return kallsyms_find(func, NULL);
}

uint64_t probes_kernel_func(const char *func)
{
	uint64_t addr = 0;

	return kallsyms_find(func, &addr) ? addr : 0;
}

static int perf_event_open(struct perf_event_attr *attr)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* A kprobe through the kprobe PMU only: libbpf's legacy path writes tracefs. */
static int open_kprobe(const char *func, bool retprobe)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = kprobe_pmu_type(), bit = kprobe_retprobe_bit();

	if (type < 0 || (retprobe && bit < 0))
		return -EOPNOTSUPP;
	attr.type = (__u32)type;
	attr.config = retprobe ? 1ull << bit : 0;
	attr.config1 = (__u64)(unsigned long)func;	/* kprobe_func */
	attr.config2 = 0;				/* offset */
	return perf_event_open(&attr);
}

static int open_tracepoint(int id)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.config = (__u64)id,
		.sample_period = 1,
		.wakeup_events = 1,
	};

	return perf_event_open(&attr);
}

/* ------------------------------------------------------------ planning */

static const char *const sys_names[3] = { "io_uring_setup", "io_uring_enter", "io_uring_register" };
static const char *const sys_fentry_progs[3][2] = {
	{ "fentry_setup", "fexit_setup" },
	{ "fentry_enter", "fexit_enter" },
	{ "fentry_register", "fexit_register" },
};
static const char *const sys_tp_progs[3][2] = {
	{ "tp_sys_enter_setup", "tp_sys_exit_setup" },
	{ "tp_sys_enter_enter", "tp_sys_exit_enter" },
	{ "tp_sys_enter_register", "tp_sys_exit_register" },
};

static bool tp_nargs_match(int have, int want)
{
	return want > 0 ? have == want : have >= -want;
}

static void plan_tracepoints(struct plan *pl, const struct btf *btf)
{
	for (size_t h = 0; h < ARRAY_SIZE(tp_hooks); h++) {
		const struct tp_hook *hk = &tp_hooks[h];
		int seen = -1;

		pl->tp_choice[h] = -1;
		for (int v = 0; v < 2 && hk->v[v].prog; v++) {
			int n = btf_tp_nargs(btf, hk->v[v].tp);

			if (n < 0)
				continue;
			seen = n;
			if (tp_nargs_match(n, hk->v[v].nargs)) {
				pl->tp_choice[h] = v;
				break;
			}
		}
		if (pl->tp_choice[h] >= 0) {
			const struct tp_variant *tv = &hk->v[pl->tp_choice[h]];

			prog_add(pl, tv->prog, AK_TP_BTF, tv->tp);
		} else if (seen >= 0) {
			snprintf(pl->tp_reason[h], sizeof(pl->tp_reason[h]),
				 "unknown prototype (%d arguments) in the kernel's BTF", seen - 1);
		} else {
			snprintf(pl->tp_reason[h], sizeof(pl->tp_reason[h]),
				 "the kernel has no such tracepoint (no btf_trace_%s in its BTF)",
				 hk->v[0].tp);
		}
	}
}

static void plan_io_wq(struct plan *pl, const struct btf *btf, enum io_wq_mode mode)
{
	const char *func = "io_wq_submit_work";
	int err;

	if (mode == IO_WQ_AUTO || mode == IO_WQ_FENTRY) {
		err = trampoline_probe(btf, func, BPF_TRACE_FENTRY);
		if (!err)
			err = trampoline_probe(btf, func, BPF_TRACE_FEXIT);
		if (!err) {
			pl->iowq_fentry = true;
			prog_add(pl, "fentry_wq_work", AK_FENTRY, func);
			prog_add(pl, "fexit_wq_work", AK_FEXIT, func);
		} else if (err == -ENOENT) {
			snprintf(pl->iowq_fentry_why, sizeof(pl->iowq_fentry_why),
				 "no %s in the kernel's BTF", func);
		} else {
			snprintf(pl->iowq_fentry_why, sizeof(pl->iowq_fentry_why),
				 "the kernel refuses fentry/fexit: %s", strerror(-err));
		}
	}
	if (mode == IO_WQ_AUTO || mode == IO_WQ_KPROBE) {
		if (kprobe_pmu_type() < 0) {
			snprintf(pl->iowq_kprobe_why, sizeof(pl->iowq_kprobe_why),
				 "the kernel has no kprobe PMU (CONFIG_KPROBES)");
		} else if (!kallsyms_has(func)) {
			snprintf(pl->iowq_kprobe_why, sizeof(pl->iowq_kprobe_why),
				 "%s is not in /proc/kallsyms (inlined?)", func);
		} else {
			pl->iowq_kprobe = true;
			prog_add(pl, "kprobe_wq_work", AK_KPROBE, func);
			prog_add(pl, "kretprobe_wq_work", AK_KRETPROBE, func);
		}
	}
	if (mode == IO_WQ_AUTO || mode == IO_WQ_SCHED_SWITCH) {
		if (btf_tp_nargs(btf, "sched_switch") >= 5) {
			pl->iowq_sched = true;
			prog_add(pl, "tp_sched_switch", AK_TP_BTF, "sched_switch");
		} else {
			snprintf(pl->iowq_sched_why, sizeof(pl->iowq_sched_why),
				 "no sched_switch tracepoint with prev/next tasks in the kernel's BTF");
		}
	}
}

static void plan_syscalls(struct plan *pl, const struct btf *btf, const struct tracefs_info *tf,
			  enum syscall_mode mode)
{
	if (mode == SYSCALLS_AUTO || mode == SYSCALLS_FENTRY) {
		int err = 0;

		for (int s = 0; s < 3 && !err; s++) {
			char func[64];

			snprintf(func, sizeof(func), SYSCALL_PREFIX "%s", sys_names[s]);
			err = trampoline_probe(btf, func, BPF_TRACE_FENTRY);
			if (!err)
				err = trampoline_probe(btf, func, BPF_TRACE_FEXIT);
			if (err == -ENOENT)
				snprintf(pl->sys_fentry_why, sizeof(pl->sys_fentry_why),
					 "no %s in the kernel's BTF", func);
			else if (err)
				snprintf(pl->sys_fentry_why, sizeof(pl->sys_fentry_why),
					 "the kernel refuses fentry/fexit: %s", strerror(-err));
		}
		if (!err) {
			pl->sys_fentry = true;
			for (int s = 0; s < 3; s++) {
				char func[64];

				snprintf(func, sizeof(func), SYSCALL_PREFIX "%s", sys_names[s]);
				prog_add(pl, sys_fentry_progs[s][0], AK_FENTRY, func);
				prog_add(pl, sys_fentry_progs[s][1], AK_FEXIT, func);
			}
		}
	}
	if (mode == SYSCALLS_AUTO || mode == SYSCALLS_TRACEPOINT) {
		const char *missing = NULL;
		char names[6][64];

		for (int s = 0; s < 3; s++) {
			snprintf(names[2 * s], sizeof(names[0]), "syscalls/sys_enter_%s", sys_names[s]);
			snprintf(names[2 * s + 1], sizeof(names[0]), "syscalls/sys_exit_%s",
				 sys_names[s]);
		}
		for (int i = 0; i < 6 && !missing; i++) {
			const struct tp_format *fmt = tracefs_find(tf, names[i]);

			if (!fmt || fmt->id < 0)
				missing = names[i];
		}
		if (tf->unavailable[0]) {
			snprintf(pl->sys_tp_why, sizeof(pl->sys_tp_why), "%.150s", tf->unavailable);
		} else if (missing) {
			snprintf(pl->sys_tp_why, sizeof(pl->sys_tp_why),
				 "no %.60s tracepoint (CONFIG_FTRACE_SYSCALLS)", missing);
		} else {
			pl->sys_tp = true;
			for (int s = 0; s < 3; s++) {
				prog_add(pl, sys_tp_progs[s][0], AK_TRACEPOINT, names[2 * s]);
				prog_add(pl, sys_tp_progs[s][1], AK_TRACEPOINT, names[2 * s + 1]);
			}
		}
	}
	if (mode == SYSCALLS_AUTO || mode == SYSCALLS_RAW) {
		if (btf_tp_nargs(btf, "sys_enter") >= 3 && btf_tp_nargs(btf, "sys_exit") >= 3) {
			pl->sys_raw = true;
			prog_add(pl, "tp_raw_sys_enter", AK_TP_BTF, "sys_enter");
			prog_add(pl, "tp_raw_sys_exit", AK_TP_BTF, "sys_exit");
		} else {
			snprintf(pl->sys_raw_why, sizeof(pl->sys_raw_why),
				 "no raw_syscalls sys_enter/sys_exit tracepoints in the kernel's BTF");
		}
	}
}

/* ---------------------------------------------------------- loading */

static char *load_log;
static size_t load_log_len;
static int libbpf_verbosity;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list copy;

	if (load_log) {
		char line[1024];
		int n;

		va_copy(copy, ap);
		n = vsnprintf(line, sizeof(line), fmt, copy);
		va_end(copy);
		if (n > 0 && level != LIBBPF_DEBUG) {
			size_t add = strlen(line);
			char *grown = realloc(load_log, load_log_len + add + 1);

			if (grown) {
				load_log = grown;
				memcpy(load_log + load_log_len, line, add + 1);
				load_log_len += add;
			}
		}
	}
	/* Our own messages say what failed; libbpf's need -v (-vv: debug). */
	if (libbpf_verbosity < (level == LIBBPF_DEBUG ? 2 : 1))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * Mark the programs a failed load names ("prog 'NAME': ... failed ...").
 * Returns how many were found.
 */
static int mark_failed(struct plan *pl, const char *log)
{
	int found = 0;

	for (const char *p = log; p && (p = strstr(p, "prog '")); p++) {
		const char *name = p + 6, *end = strchr(name, '\'');
		const char *eol = strchr(p, '\n');
		struct prog_state *ps;
		char buf[64];

		if (!end || (size_t)(end - name) >= sizeof(buf))
			continue;
		memcpy(buf, name, (size_t)(end - name));
		buf[end - name] = '\0';
		ps = prog_find(pl, buf);
		if (!ps || ps->load_failed || !ps->enabled)
			continue;
		if (!eol)
			eol = p + strlen(p);
		if (!memmem(p, (size_t)(eol - p), "fail", 4))
			continue;
		ps->load_failed = true;
		snprintf(ps->load_reason, sizeof(ps->load_reason), "%.*s", (int)(eol - end - 3),
			 end + 3);
		found++;
	}
	return found;
}

static int apply_plan(struct plan *pl, struct uring_record_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		struct prog_state *ps = prog_find(pl, bpf_program__name(prog));
		bool on = ps && ps->enabled && !ps->load_failed;
		int err;

		bpf_program__set_autoload(prog, on);
		if (!on || (ps->kind != AK_FENTRY && ps->kind != AK_FEXIT))
			continue;
		err = bpf_program__set_attach_target(prog, 0, ps->target);
		if (err)
			return err;
	}
	return 0;
}

static bool required_failed(struct plan *pl)
{
	if (!prog_usable(pl, "flush_stage"))
		return true;
	for (size_t h = 0; h < ARRAY_SIZE(tp_hooks); h++) {
		if (!tp_hooks[h].required || pl->tp_choice[h] < 0)
			continue;
		if (!prog_usable(pl, tp_hooks[h].v[pl->tp_choice[h]].prog))
			return true;
	}
	return false;
}

/*
 * Sum what the verifier processed for the loaded programs: the recorder's
 * start is mostly verification (a bpf_loop callback once made it slow,
 * see drop_staged_one()), and the live tests hold it down.
 */
static void count_verified(struct probes *p, struct uring_record_bpf *skel)
{
	struct bpf_program *prog;

	p->verified_insns = 0;
	p->verified_insns_max = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		p->verified_insns += info.verified_insns;
		if (info.verified_insns > p->verified_insns_max)
			p->verified_insns_max = info.verified_insns;
	}
	msg_verbose("BPF programs loaded in %.0f ms, reading kernel memory with %s; the "
		    "verifier processed %" PRIu64 " instructions (at most %" PRIu64
		    " for one program)", p->load_s * 1e3,
		    p->direct_loads ? "direct loads" : "bpf_probe_read_kernel()",
		    p->verified_insns, p->verified_insns_max);
}

/*
 * Open the BPF object: the build with direct loads where the kernel has
 * bpf_rdonly_cast() ("kernel reads" in bpf/uring_record.bpf.c), else the one
 * that reads through bpf_probe_read_kernel().  Both declare the same maps,
 * programs and variables (bpf/local.mk checks their skeletons at build
 * time), so the first build's skeleton serves both.
 */
static struct uring_record_bpf *open_object(bool direct_loads)
{
	struct uring_record_bpf *skel = calloc(1, sizeof(*skel));
	int err;

	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	err = uring_record_bpf__create_skeleton(skel);
	if (!err && direct_loads)
		skel->skeleton->data =
			(void *)uring_record_direct_bpf__elf_bytes(&skel->skeleton->data_sz);
	if (!err)
		err = bpf_object__open_skeleton(skel->skeleton, NULL);
	if (err) {
		uring_record_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

static int load(struct probes *p, struct plan *pl, struct uring_record_bpf **skelp,
		probes_configure_fn configure, void *arg)
{
	/*
	 * For the live tests only: take the direct build as refused, so that
	 * the fallback and the helper build run on the test kernel too
	 * (tests/e2e/plan).
	 */
	bool refuse_direct = getenv("URING_RECORD_TEST_NO_DIRECT_LOADS") != NULL;

	for (int attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
		struct uring_record_bpf *skel = open_object(p->direct_loads);
		uint64_t t0;
		int err, found;

		p->load_attempts = attempt + 1;
		if (!skel) {
			err = -errno;
			msg_error("cannot open the BPF object: %s", strerror(-err));
			return err;
		}
		err = configure(skel, arg);
		if (!err)
			err = apply_plan(pl, skel);
		if (err) {
			uring_record_bpf__destroy(skel);
			return err;
		}
		free(load_log);
		load_log = calloc(1, 1);
		load_log_len = 0;
		t0 = clock_mono_ns();
		if (p->direct_loads && refuse_direct) {
			msg_warn("URING_RECORD_TEST_NO_DIRECT_LOADS: the direct build taken as refused");
			err = -EACCES;
		} else {
			err = uring_record_bpf__load(skel);
		}
		if (!err) {
			free(load_log);
			load_log = NULL;
			p->load_s = (double)(clock_mono_ns() - t0) / 1e9;
			count_verified(p, skel);
			*skelp = skel;
			return 0;
		}
		uring_record_bpf__destroy(skel);
		if (p->direct_loads) {
			/*
			 * Only 6.12 and 6.18 were tried with direct loads: a
			 * verifier that refuses them gets the helper build, which
			 * every kernel since 6.1 loads, before any program is
			 * dropped.
			 */
			msg_verbose("BPF load failed with direct kernel loads; retrying with "
				    "bpf_probe_read_kernel()");
			p->direct_loads = false;
			continue;
		}
		found = mark_failed(pl, load_log);
		if (!found || required_failed(pl)) {
			const char *tail = load_log;

			/* The last lines say why. */
			if (load_log_len > 1500)
				tail = load_log + load_log_len - 1500;
			msg_error("cannot load the BPF programs: %s%s%s", strerror(-err),
				  *tail ? "; libbpf said:\n" : "", tail);
			free(load_log);
			load_log = NULL;
			return err;
		}
		msg_verbose("BPF load failed for %d program(s); retrying without them", found);
	}
	free(load_log);
	load_log = NULL;
	msg_error("cannot load the BPF programs after %d attempts", MAX_LOAD_ATTEMPTS);
	return -ELOOP;
}

/* ---------------------------------------------------------- attaching */

static struct bpf_program *skel_prog(struct uring_record_bpf *skel, const char *name)
{
	return bpf_object__find_program_by_name(skel->obj, name);
}

/*
 * Attach prog to the perf event fd (a kprobe or a tracepoint); the link owns
 * fd from then on.  On failure fd is closed and errno says why.
 */
static struct bpf_link *attach_perf_fd(struct bpf_program *prog, int fd)
{
	struct bpf_link *link = bpf_program__attach_perf_event(prog, fd);
	int err;

	if (!link) {
		err = errno;
		close(fd);
		errno = err;
	}
	return link;
}

static int attach_one(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
		      const struct tracefs_info *tf, const char *name, char *why, size_t whylen)
{
	struct prog_state *ps = prog_find(pl, name);
	struct bpf_program *prog = skel_prog(skel, name);
	struct bpf_link *link = NULL;
	int fd, err;

	if (!ps || !prog) {
		snprintf(why, whylen, "not planned");
		return -ENOENT;
	}
	if (ps->load_failed) {
		snprintf(why, whylen, "load failed: %s", ps->load_reason);
		return -EINVAL;
	}
	switch (ps->kind) {
	case AK_NONE:
		snprintf(why, whylen, "not attachable");
		return -EINVAL;
	case AK_TP_BTF:
	case AK_FENTRY:
	case AK_FEXIT:
		link = bpf_program__attach(prog);
		break;
	case AK_KPROBE:
	case AK_KRETPROBE:
		fd = open_kprobe(ps->target, ps->kind == AK_KRETPROBE);
		if (fd < 0) {
			snprintf(why, whylen, "kprobe on %s: %s", ps->target, strerror(-fd));
			return fd;
		}
		link = attach_perf_fd(prog, fd);
		break;
	case AK_TRACEPOINT: {
		const struct tp_format *fmt = tracefs_find(tf, ps->target);

		fd = open_tracepoint(fmt ? fmt->id : -1);
		if (fd < 0) {
			snprintf(why, whylen, "perf_event_open(%s): %s", ps->target, strerror(-fd));
			return fd;
		}
		link = attach_perf_fd(prog, fd);
		break;
	}
	}
	if (!link) {
		err = -errno;
		snprintf(why, whylen, "attach failed: %s", strerror(-err));
		return err ? err : -EINVAL;
	}
	err = keep_link(p, link);
	if (err) {
		bpf_link__destroy(link);
		snprintf(why, whylen, "out of memory");
		return err;
	}
	ps->link = link;
	return 0;
}

static void detach_one(struct probes *p, struct prog_state *ps)
{
	if (!ps || !ps->link)
		return;
	for (size_t i = 0; i < p->nlinks; i++) {
		if (p->links[i] == ps->link) {
			p->links[i] = p->links[--p->nlinks];
			break;
		}
	}
	bpf_link__destroy(ps->link);
	ps->link = NULL;
}

static int attach_tracepoints(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
			      const struct tracefs_info *tf)
{
	for (size_t h = 0; h < ARRAY_SIZE(tp_hooks); h++) {
		const struct tp_hook *hk = &tp_hooks[h];
		const struct tp_variant *tv;
		char hook[64], why[256];
		int err;

		if (pl->tp_choice[h] < 0) {
			snprintf(hook, sizeof(hook), "%s:%s", hk->v[0].category, hk->v[0].tp);
			entry_add(p, hook, hk->v[0].prog, "absent", "", "%s", pl->tp_reason[h]);
			if (hk->required) {
				msg_error("%s: %s; cannot record io_uring %s on this kernel", hook,
					  pl->tp_reason[h], hk->feature);
				return -EOPNOTSUPP;
			}
			msg_warn("%s: %s; not recording %s", hook, pl->tp_reason[h], hk->feature);
			continue;
		}
		tv = &hk->v[pl->tp_choice[h]];
		snprintf(hook, sizeof(hook), "%s:%s", tv->category, tv->tp);
		err = attach_one(p, pl, skel, tf, tv->prog, why, sizeof(why));
		if (!err) {
			entry_add(p, hook, tv->prog, "attached", tv->variant, "%s", "");
			continue;
		}
		entry_add(p, hook, tv->prog, "failed", tv->variant, "%s", why);
		if (hk->required) {
			msg_error("%s: %s; cannot record io_uring %s", hook, why, hk->feature);
			return err;
		}
		msg_warn("%s: %s; not recording %s", hook, why, hk->feature);
	}
	return 0;
}

static int attach_method(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
			 const struct tracefs_info *tf, const char *const *progs, size_t n,
			 char *why, size_t whylen)
{
	for (size_t i = 0; i < n; i++) {
		int err = attach_one(p, pl, skel, tf, progs[i], why, whylen);

		if (err) {
			for (size_t j = 0; j < i; j++)
				detach_one(p, prog_find(pl, progs[j]));
			return err;
		}
	}
	return 0;
}

/* One way of hooking something that has several (io-wq work, syscalls). */
struct method {
	const char *name;		/* "fentry", "kprobe", ...: metadata tracking */
	bool wanted;			/* allowed by --io-wq / --syscalls */
	bool available;			/* found usable before load */
	const char *why_absent;
	const char *hook;		/* probe entry of an absent or failed method */
	const char *entry_program;
	size_t nprogs;
	const char *const *progs;	/* attached together, or not at all */
	const char *const *hooks;	/* their probe entries */
	const char *const *variants;
};

/*
 * Attach the first wanted method whose programs all attach.  Returns its
 * index, or -1; summary says why the methods before it did not.
 */
static int attach_first(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
			const struct tracefs_info *tf, const struct method *m, size_t n,
			char *summary, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		size_t off = strlen(summary);
		const char *reason = m[i].why_absent;
		char why[256];

		if (!m[i].wanted)
			continue;
		if (!m[i].available) {
			entry_add(p, m[i].hook, m[i].entry_program, "absent", m[i].name, "%s", reason);
		} else if (attach_method(p, pl, skel, tf, m[i].progs, m[i].nprogs, why,
					 sizeof(why))) {
			reason = why;
			entry_add(p, m[i].hook, m[i].entry_program, "failed", m[i].name, "%s", why);
		} else {
			for (size_t j = 0; j < m[i].nprogs; j++)
				entry_add(p, m[i].hooks[j], m[i].progs[j], "attached", m[i].variants[j],
					  "%s", "");
			return (int)i;
		}
		snprintf(summary + off, len - off, "%s%s: %s", off ? "; " : "", m[i].name, reason);
	}
	return -1;
}

static void attach_io_wq(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
			 const struct tracefs_info *tf, enum io_wq_mode mode)
{
	static const char *const wq_hooks[] = { "io_wq_submit_work", "io_wq_submit_work" };
	static const char *const fentry[] = { "fentry_wq_work", "fexit_wq_work" };
	static const char *const fentry_variants[] = { "fentry", "fexit" };
	static const char *const kprobe[] = { "kprobe_wq_work", "kretprobe_wq_work" };
	static const char *const kprobe_variants[] = { "kprobe", "kretprobe" };
	static const char *const sched[] = { "tp_sched_switch" };
	static const char *const sched_hooks[] = { "sched:sched_switch" };
	static const char *const sched_variants[] = { "sched_switch" };
	const struct method m[] = {
		{ "fentry", mode == IO_WQ_AUTO || mode == IO_WQ_FENTRY, pl->iowq_fentry,
		  pl->iowq_fentry_why, "io_wq_submit_work", fentry[0], 2, fentry, wq_hooks,
		  fentry_variants },
		{ "kprobe", mode == IO_WQ_AUTO || mode == IO_WQ_KPROBE, pl->iowq_kprobe,
		  pl->iowq_kprobe_why, "io_wq_submit_work", kprobe[0], 2, kprobe, wq_hooks,
		  kprobe_variants },
		{ "sched_switch", mode == IO_WQ_AUTO || mode == IO_WQ_SCHED_SWITCH, pl->iowq_sched,
		  pl->iowq_sched_why, sched_hooks[0], sched[0], 1, sched, sched_hooks,
		  sched_variants },
	};
	char summary[512] = "";
	int i;

	p->io_wq_tracking = "none";
	if (mode == IO_WQ_NONE) {
		entry_add(p, "io_wq_submit_work", "", "absent", "none", "--io-wq=none");
		return;
	}
	i = attach_first(p, pl, skel, tf, m, ARRAY_SIZE(m), summary, sizeof(summary));
	if (i < 0) {
		msg_warn("io-wq work is not tracked: %s", summary[0] ? summary : "no method left");
		return;
	}
	p->io_wq_tracking = m[i].name;
	if (!summary[0])
		return;
	if (!strcmp(m[i].name, "kprobe"))
		msg_verbose("io-wq work: %s; using kprobes", summary);
	else if (!strcmp(m[i].name, "sched_switch"))
		msg_info("io-wq work is placed in time from context switches of io-wq threads (%s)",
			 summary);
}

static void attach_syscalls(struct probes *p, struct plan *pl, struct uring_record_bpf *skel,
			    const struct tracefs_info *tf, enum syscall_mode mode)
{
	static const char *const raw[] = { "tp_raw_sys_enter", "tp_raw_sys_exit" };
	static const char *const raw_hooks[] = { "raw_syscalls:sys_enter", "raw_syscalls:sys_exit" };
	static const char *const raw_variants[] = { "raw_syscalls", "raw_syscalls" };
	const char *fentry[6], *tps[6], *hooks[6], *fentry_variants[6], *tp_variants[6];
	char summary[600] = "";
	int i;

	for (int s = 0; s < 6; s++) {
		fentry[s] = sys_fentry_progs[s / 2][s % 2];
		tps[s] = sys_tp_progs[s / 2][s % 2];
		hooks[s] = sys_names[s / 2];
		fentry_variants[s] = "fentry/fexit";
		tp_variants[s] = "syscalls tracepoints";
	}
	{
		const struct method m[] = {
			{ "fentry", mode == SYSCALLS_AUTO || mode == SYSCALLS_FENTRY, pl->sys_fentry,
			  pl->sys_fentry_why, "io_uring syscalls", "", 6, fentry, hooks,
			  fentry_variants },
			{ "tracepoint", mode == SYSCALLS_AUTO || mode == SYSCALLS_TRACEPOINT,
			  pl->sys_tp, pl->sys_tp_why, "io_uring syscalls", "", 6, tps, hooks,
			  tp_variants },
			{ "raw_syscalls", mode == SYSCALLS_AUTO || mode == SYSCALLS_RAW, pl->sys_raw,
			  pl->sys_raw_why, "io_uring syscalls", "", 2, raw, raw_hooks,
			  raw_variants },
		};

		p->syscall_tracking = "none";
		if (mode == SYSCALLS_NONE) {
			entry_add(p, "io_uring syscalls", "", "absent", "none", "--syscalls=none");
			return;
		}
		i = attach_first(p, pl, skel, tf, m, ARRAY_SIZE(m), summary, sizeof(summary));
		if (i < 0) {
			msg_warn("io_uring_setup/enter/register are not recorded: %s",
				 summary[0] ? summary : "no method left");
			return;
		}
		p->syscall_tracking = m[i].name;
	}
	if (!strcmp(p->syscall_tracking, "tracepoint") && summary[0])
		msg_verbose("io_uring syscalls: %s; using the syscalls tracepoints", summary);
	else if (!strcmp(p->syscall_tracking, "raw_syscalls") && mode == SYSCALLS_AUTO)
		msg_warn("io_uring syscalls are hooked through raw_syscalls (%s): every syscall "
			 "on the host pays a little", summary);
}

/* ---------------------------------------------------------- interface */

int probes_setup(struct probes *p, struct uring_record_bpf **skelp, const struct env *env,
		 const struct btf *btf, const struct tracefs_info *tracefs,
		 probes_configure_fn configure, probes_loaded_fn loaded, void *arg)
{
	struct plan *pl = calloc(1, sizeof(*pl));
	struct uring_record_bpf *skel = NULL;
	int err;

	if (!pl)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	libbpf_verbosity = env->verbosity;
	libbpf_set_print(libbpf_print);
	/* the records staged on a CPU reach its ring buffer through this one */
	prog_add(pl, "flush_stage", AK_NONE, "");
	plan_tracepoints(pl, btf);
	plan_io_wq(pl, btf, env->io_wq);
	plan_syscalls(pl, btf, tracefs, env->syscalls);
	p->direct_loads = btf_has_func(btf, "bpf_rdonly_cast");

	err = load(p, pl, &skel, configure, arg);
	if (err)
		goto cleanup;
	err = loaded(skel, arg);
	if (err)
		goto cleanup;
	err = attach_tracepoints(p, pl, skel, tracefs);
	if (err)
		goto cleanup;
	attach_io_wq(p, pl, skel, tracefs, env->io_wq);
	attach_syscalls(p, pl, skel, tracefs, env->syscalls);
	*skelp = skel;
	skel = NULL;
cleanup:
	if (skel) {
		probes_detach(p);
		uring_record_bpf__destroy(skel);
	}
	free(pl);
	return err;
}

void probes_detach(struct probes *p)
{
	for (size_t i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nlinks = 0;
}

void probes_free(struct probes *p)
{
	probes_detach(p);
	free(p->links);
	free(p->entries);
	memset(p, 0, sizeof(*p));
}

void probes_json(const struct probes *p, struct json_out *o)
{
	json_arr_begin(o);
	for (size_t i = 0; i < p->nentries; i++) {
		const struct probe_entry *e = &p->entries[i];

		json_obj_begin(o);
		json_kv_str(o, "hook", e->hook);
		json_kv_str(o, "program", e->program);
		json_kv_str(o, "status", e->status);
		json_kv_str(o, "variant", e->variant);
		json_kv_str(o, "reason", e->reason);
		json_obj_end(o);
	}
	json_arr_end(o);
}

bool probes_attached(const struct probes *p, const char *program)
{
	for (size_t i = 0; i < p->nentries; i++)
		if (!strcmp(p->entries[i].program, program) &&
		    !strcmp(p->entries[i].status, "attached"))
			return true;
	return false;
}

const char *const probes_tracefs_names[] = {
	"io_uring/io_uring_create",
	"io_uring/io_uring_register",
	"io_uring/io_uring_submit_req",
	"io_uring/io_uring_submit_sqe",
	"io_uring/io_uring_queue_async_work",
	"io_uring/io_uring_defer",
	"io_uring/io_uring_link",
	"io_uring/io_uring_fail_link",
	"io_uring/io_uring_cqring_wait",
	"io_uring/io_uring_req_failed",
	"io_uring/io_uring_cqe_overflow",
	"io_uring/io_uring_poll_arm",
	"io_uring/io_uring_task_add",
	"io_uring/io_uring_task_work_run",
	"io_uring/io_uring_local_work_run",
	"io_uring/io_uring_short_write",
	"io_uring/io_uring_complete",
	"task/task_newtask",
	"task/task_rename",
	"sched/sched_process_exec",
	"sched/sched_process_exit",
	"sched/sched_process_free",
	"sched/sched_switch",
	"syscalls/sys_enter_io_uring_setup",
	"syscalls/sys_exit_io_uring_setup",
	"syscalls/sys_enter_io_uring_enter",
	"syscalls/sys_exit_io_uring_enter",
	"syscalls/sys_enter_io_uring_register",
	"syscalls/sys_exit_io_uring_register",
	"raw_syscalls/sys_enter",
	"raw_syscalls/sys_exit",
};
const size_t probes_tracefs_count = ARRAY_SIZE(probes_tracefs_names);

const char *probes_entry_tracefs_name(const struct probe_entry *e)
{
	static char buf[96];
	const char *colon;

	if (strcmp(e->status, "attached"))
		return NULL;
	for (size_t h = 0; h < ARRAY_SIZE(tp_hooks); h++) {
		for (int v = 0; v < 2 && tp_hooks[h].v[v].prog; v++) {
			if (strcmp(tp_hooks[h].v[v].prog, e->program))
				continue;
			snprintf(buf, sizeof(buf), "%s/%s", tp_hooks[h].v[v].category,
				 tp_hooks[h].v[v].tp);
			return buf;
		}
	}
	for (int s = 0; s < 3; s++) {
		for (int d = 0; d < 2; d++) {
			if (strcmp(sys_tp_progs[s][d], e->program))
				continue;
			snprintf(buf, sizeof(buf), "syscalls/sys_%s_%s", d ? "exit" : "enter",
				 sys_names[s]);
			return buf;
		}
	}
	colon = strchr(e->hook, ':');
	if (colon && (!strncmp(e->hook, "sched:", 6) || !strncmp(e->hook, "raw_syscalls:", 13))) {
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - e->hook), e->hook, colon + 1);
		return buf;
	}
	return NULL;
}
