// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-record: the flow.  Check privileges and the command line, create
 * the log (fail early), fork COMMAND (held), read tracepoint formats, load
 * and attach the BPF programs with per-CPU ring buffers, learn io_uring's
 * file operations, write META and TASKS, start the writer thread, release
 * COMMAND, then drain rings on a short timer until something says stop.
 * Stopping: the BPF side is told to stop, every program still running is
 * waited for, the rings are drained completely, and the last "lost",
 * LOSS, CLOCK, STATS and END frames are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_info.h"
#include "clock.h"
#include "command.h"
#include "env.h"
#include "flight.h"
#include "frames.h"
#include "host.h"
#include "log_writer.h"
#include "losses.h"
#include "metadata.h"
#include "msg.h"
#include "pointer_scrub.h"
#include "probes.h"
#include "ringbufs.h"
#include "selection.h"
#include "self_cost.h"
#include "status.h"
#include "tasks.h"
#include "tracefs.h"
#include "trigger.h"
#include "uring_names.h"
#include "uring_record.h"
#include "uring_record.skel.h"
#include "writer.h"

#define CLOCK_PERIOD_NS (10ull * 1000 * 1000 * 1000)
#define CGROUP2_MAGIC 0x63677270	/* include/uapi/linux/magic.h */

enum { TAG_SIGNAL = 0, TAG_WRITER = 1 };

struct recorder {
	struct env env;
	struct log_writer *lw;
	bool log_created;
	struct command cmd;
	bool have_cmd, cmd_released;
	struct btf *btf;
	struct tracefs_info tracefs;
	unsigned ncpus;
	bool *online;
	char online_text[256];
	struct pointer_scrub scrub;
	struct probes probes;
	struct uring_record_bpf *skel;
	struct self_cost cost;
	struct frame_queue q;
	bool q_ready;
	struct ringbufs rb;
	bool rb_ready;
	struct writer writer;
	struct losses losses;
	struct status status;
	int sigfd, wakefd, cgroup_fd;
	char cgroup_rel[PATH_MAX];
	__u64 cgroup_id;
	uint64_t wakeup_bytes;
	bool fops_learned;
	struct log_clock_snapshot start_clock;
	uint64_t start_mono;
	int signals;
	const char *stop_reason;
	char stop_message[256];
	uint64_t pending_at_stop;
	/* The selection is over; waiting for its rings' teardown since then. */
	uint64_t closing_since;
	const char *closing_reason;
	char closing_message[256];
	uint64_t next_selection_check;
	/* --flight-recorder */
	bool flight;
	struct flight_ring ring;
	struct triggers trig;
	bool trig_records;		/* a trigger looks at records */
	unsigned snapshots_sent;
	uint64_t snapshot_due;		/* mono ns; 0: no trigger pending */
	struct trigger_hit pending;
	uint64_t pending_boot_ns;
};

/* ------------------------------------------------------------ checks */

/* CAP_BPF + CAP_PERFMON (5.8+), or CAP_SYS_ADMIN which implies both. */
static int check_capabilities(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];
	bool bpf, perfmon, admin;

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(f);
	}
	admin = eff & (1ull << 21);
	bpf = eff & (1ull << 39);
	perfmon = eff & (1ull << 38);
	if (admin || (bpf && perfmon))
		return 0;
	msg_error("needs CAP_BPF and CAP_PERFMON (or root); missing:%s%s (try sudo)",
		  bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON");
	return -EPERM;
}

static int check_pids(const struct env *env)
{
	for (size_t i = 0; i < env->npids; i++) {
		if (kill(env->pids[i], 0) && errno == ESRCH) {
			msg_error("--pid %d: no such process", (int)env->pids[i]);
			return -ESRCH;
		}
	}
	return 0;
}

/*
 * --cgroup: a cgroup v2 directory; its path below the cgroup2 mount and its
 * id, which the BPF side compares with other tasks' cgroups: the 8-byte
 * handle of the directory is its kernfs node id (kernfs_encode_fh()).
 */
static int open_cgroup(struct recorder *r)
{
	const char *path = r->env.cgroup;
	char real[PATH_MAX], line[4096];
	_Alignas(struct file_handle) char handle[sizeof(struct file_handle) + sizeof(__u64)];
	struct file_handle *fh = (struct file_handle *)handle;
	struct statfs sfs;
	size_t best = 0;
	int mount_id;
	FILE *f;

	r->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->cgroup_fd < 0) {
		msg_error("--cgroup %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstatfs(r->cgroup_fd, &sfs) || (uint32_t)sfs.f_type != CGROUP2_MAGIC) {
		msg_error("--cgroup %s: not a cgroup v2 directory", path);
		return -EINVAL;
	}
	fh->handle_bytes = sizeof(__u64);
	if (name_to_handle_at(r->cgroup_fd, "", fh, &mount_id, AT_EMPTY_PATH)) {
		int err = errno;

		msg_error("--cgroup %s: cannot tell its id: %s", path, strerror(err));
		return -err;
	}
	if (fh->handle_bytes != sizeof(__u64)) {
		msg_error("--cgroup %s: a %u-byte handle is not a cgroup id", path,
			  fh->handle_bytes);
		return -EINVAL;
	}
	memcpy(&r->cgroup_id, fh->f_handle, sizeof(r->cgroup_id));
	if (!realpath(path, real)) {
		msg_error("--cgroup %s: %s", path, strerror(errno));
		return -errno;
	}
	f = fopen("/proc/self/mountinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], *sep = strstr(line, " - cgroup2 ");
		size_t n;

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		n = strlen(mnt);
		if (n > best && !strncmp(real, mnt, n) && (real[n] == '/' || !real[n])) {
			best = n;
			snprintf(r->cgroup_rel, sizeof(r->cgroup_rel), "%s", real[n] ? real + n : "/");
		}
	}
	if (f)
		fclose(f);
	if (!best) {
		msg_error("--cgroup %s: cannot find its cgroup2 mount", path);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------- BPF setup */

static bool filter_active(const struct env *env)
{
	return env->npids || env->command || env->have_comm || env->cgroup;
}

/*
 * Opcodes whose SQE offset slot is addr2, a user-space pointer (their
 * prep functions in io_uring/: u64_to_user_ptr(READ_ONCE(sqe->addr2))).
 */
static const char *const off_pointer_ops[] = {
	"STATX", "OPENAT2", "ACCEPT", "SEND", "RENAMEAT", "SYMLINKAT", "LINKAT",
	"FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SEND_ZC", "WAITID",
	"TIMEOUT_REMOVE", NULL,
};

static void off_pointer_mask(__u64 mask[2])
{
	mask[0] = mask[1] = 0;
	for (unsigned op = 0; op < uring_opcode_count() && op < 128; op++) {
		const char *name = uring_opcode_name(op);

		for (size_t i = 0; name && off_pointer_ops[i]; i++)
			if (!strcmp(name, off_pointer_ops[i]))
				mask[op >> 6] |= 1ull << (op & 63);
	}
}

/*
 * Staged records go to the ring in batches of up to this many bytes (plus
 * one record): UR_STAGE_BYTES, or a quarter of a small ring, so that a ring
 * always holds a few batches.
 */
static __u32 stage_flush_bytes(uint64_t ring_size)
{
	uint64_t batch = ring_size / 4 < UR_STAGE_BYTES ? ring_size / 4 : UR_STAGE_BYTES;

	return batch > UR_RECORD_MAX ? (__u32)(batch - UR_RECORD_MAX) : 0;
}

/*
 * --sample's tables (bpf/sample.bpf.h) take memory only when sampling.
 * For the live tests only: fewer buckets for the requests, a power of two,
 * so that chosen requests find theirs full (tests/live/sample.sh).
 */
static int size_sample_tables(struct uring_record_bpf *skel, const struct env *env)
{
	const char *text = getenv("URING_RECORD_TEST_SAMPLE_BUCKETS");
	unsigned long buckets = text ? strtoul(text, NULL, 10) : UR_SAMPLE_REQ_BUCKETS;
	int err;

	if (!buckets || buckets > UR_SAMPLE_REQ_BUCKETS || (buckets & (buckets - 1)))
		buckets = UR_SAMPLE_REQ_BUCKETS;
	skel->rodata->sample_req_mask = (__u32)buckets - 1;
	err = bpf_map__set_max_entries(skel->maps.sampled_reqs, env->sample > 1 ? buckets : 1);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.sampled_enters,
					       env->sample_syscalls ? UR_SAMPLE_ENTER_BUCKETS : 1);
	return err;
}

static int configure_skel(struct uring_record_bpf *skel, void *arg)
{
	struct recorder *r = arg;
	const struct env *env = &r->env;
	int err;

	skel->rodata->self_tgid = (__u32)getpid();
	skel->rodata->filter_active = filter_active(env);
	skel->rodata->filter_pids = env->npids || env->command;
	skel->rodata->filter_follow = env->follow;
	skel->rodata->ring_exit_work_fn = probes_kernel_func("io_ring_exit_work");
	skel->rodata->filter_comm = env->have_comm;
	memcpy((void *)skel->rodata->filter_comm_name, env->comm, EV_COMM_LEN);
	skel->rodata->filter_cgroup = env->cgroup != NULL;
	skel->rodata->filter_cgroup_id = r->cgroup_id;
	skel->rodata->wakeup_bytes = r->wakeup_bytes;
	skel->rodata->stage_flush_bytes = stage_flush_bytes(r->env.ring_size);
	off_pointer_mask((__u64 *)skel->rodata->off_is_pointer);
	skel->rodata->sample_every = env->sample > 1 ? env->sample : 0;
	skel->rodata->sample_syscalls = env->sample_syscalls;
	err = size_sample_tables(skel, env);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.rings, r->ncpus);
	if (!err)
		err = bpf_map__set_inner_map_fd(skel->maps.rings, ringbufs_template_fd(&r->rb));
	if (err)
		msg_error("cannot size the BPF maps: %s", strerror(-err));
	return err;
}

static int add_filter_pid(struct recorder *r, pid_t pid)
{
	__u32 key = (__u32)pid;
	__u64 any_instance = 0;		/* see pid_filter in uring_record.bpf.c */

	if (bpf_map__update_elem(r->skel->maps.pid_filter, &key, sizeof(key), &any_instance,
				 sizeof(any_instance), BPF_ANY)) {
		msg_error("cannot add pid %d to the filter: %s", (int)pid, strerror(errno));
		return -errno;
	}
	__atomic_fetch_add(&r->skel->bss->pid_filter_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/*
 * Processes still in the pid selection (-p, COMMAND, --follow) at the stop:
 * those alive then, plus exited ones whose leader the RCU callback has not
 * freed yet (see tp_proc_free; about a second here, 6.18).  Not a growing
 * count of every process seen.
 */
static uint64_t count_filter_pids(struct recorder *r)
{
	__u32 key, next;
	const __u32 *prev = NULL;
	uint64_t n = 0;

	while (!bpf_map__get_next_key(r->skel->maps.pid_filter, prev, &next, sizeof(next))) {
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

static int skel_loaded(struct uring_record_bpf *skel, void *arg)
{
	struct recorder *r = arg;
	int err;

	r->skel = skel;
	err = ringbufs_install(&r->rb, bpf_map__fd(skel->maps.rings));
	if (err)
		return err;
	for (size_t i = 0; i < r->env.npids && !err; i++)
		err = add_filter_pid(r, r->env.pids[i]);
	if (!err && r->have_cmd)
		err = add_filter_pid(r, r->cmd.pid);
	if (!err && r->env.cgroup) {
		__u32 zero = 0, fd = (__u32)r->cgroup_fd;

		if (bpf_map__update_elem(skel->maps.cgroup_filter, &zero, sizeof(zero), &fd,
					 sizeof(fd), BPF_ANY)) {
			err = -errno;
			msg_error("--cgroup: cannot use it in BPF: %s", strerror(-err));
		}
	}
	return err;
}

/*
 * io_uring's file operations: the recorder makes a ring of its own while
 * the create hook (or the setup exit hook) watches for its pid, and they
 * store that file's f_op.  The ring is never recorded.
 */
static void learn_fops(struct recorder *r)
{
	struct {
		__u32 sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle;
		__u32 features, wq_fd, resv[3];
		__u64 offsets[10];
	} params;
	int fd;

	memset(&params, 0, sizeof(params));
	fd = (int)syscall(__NR_io_uring_setup, 1, &params);
	if (fd >= 0)
		close(fd);
	r->fops_learned = r->skel->bss->io_uring_fops != 0;
	r->skel->bss->self_ring = 0;
	r->skel->bss->ring_owners_valid = probes_attached(&r->probes, "tp_create");
	if (!r->fops_learned)
		msg_warn("cannot tell io_uring files apart (%s): rings of io_uring_enter and "
			 "io_uring_register calls are not resolved",
			 fd < 0 ? strerror(errno) : "the create hook did not see the probe ring");
}

/* ------------------------------------------------------ metadata */

static void meta_host(struct json_out *o, void *arg)
{
	struct recorder *r = arg;

	host_json(o, r->ncpus, r->online_text);
}

static void meta_opcodes(struct json_out *o, void *arg)
{
	struct recorder *r = arg;

	if (!btf_has_enum_value(r->btf, "IORING_OP_NOP")) {
		metadata_builtin_opcodes(o);
		return;
	}
	json_obj_begin(o);
	json_kv_str(o, "source", "btf");
	json_key(o, "names");
	btf_opcode_names_json(r->btf, o);
	json_obj_end(o);
}

static void meta_enums(struct json_out *o, void *arg)
{
	struct recorder *r = arg;

	btf_kernel_enums_json(r->btf, o);
}

static void meta_tracepoints(struct json_out *o, void *arg)
{
	struct recorder *r = arg;
	const struct tracefs_info *tf = &r->tracefs;

	if (tf->unavailable[0]) {
		json_kv_str(o, "tracepoints_unavailable", tf->unavailable);
		return;
	}
	json_kv_str(o, "tracepoints_source", tf->source);
	json_key(o, "tracepoints");
	json_obj_begin(o);
	for (size_t i = 0; i < r->probes.nentries; i++) {
		const char *name = probes_entry_tracefs_name(&r->probes.entries[i]);
		const struct tp_format *fmt = name ? tracefs_find(tf, name) : NULL;
		char key[96];

		if (!fmt || !fmt->text)
			continue;
		snprintf(key, sizeof(key), "%s", name);
		*strchr(key, '/') = ':';
		json_kv_str(o, key, fmt->text);
	}
	json_obj_end(o);
}

static void meta_probes(struct json_out *o, void *arg)
{
	struct recorder *r = arg;

	probes_json(&r->probes, o);
}

static void meta_flight(struct json_out *o, void *arg)
{
	struct recorder *r = arg;

	json_obj_begin(o);
	json_kv_u64(o, "size", r->env.flight_size);
	json_kv_u64(o, "post_ns", r->env.post_ns);
	json_kv_u64(o, "snapshots", r->env.snapshots);
	json_key(o, "triggers");
	json_arr_begin(o);
	for (size_t i = 0; i < r->env.ntriggers; i++)
		json_str(o, r->env.triggers[i].text);
	json_arr_end(o);
	json_kv_u64(o, "snapshot", r->snapshots_sent + 1);
	json_kv_u64(o, "recorder_start_boot_ns", r->start_clock.boot_ns);
	json_key(o, "trigger");
	trigger_hit_json(o, &r->pending, r->pending_boot_ns);
	json_obj_end(o);
}

/* The metadata JSON, starting at start (malloc'd), or NULL. */
static char *build_meta(struct recorder *r, const struct log_clock_snapshot *start,
			size_t *len)
{
	struct meta_input in = {
		.env = &r->env,
		.start = start,
		.ncpus = r->ncpus,
		.online_cpus = r->online_text,
		.ring_cpus = r->online,
		.wakeup_bytes = r->wakeup_bytes,
		.io_wq_tracking = r->probes.io_wq_tracking,
		.syscall_tracking = r->probes.syscall_tracking,
		.cgroup_rel = r->env.cgroup ? r->cgroup_rel : NULL,
		.initial_pid_ns = host_in_initial_pid_ns(),
		.command_pid = r->have_cmd ? r->cmd.pid : 0,
		.fops_learned = r->fops_learned,
		.off_pointer_ops = off_pointer_ops,
		.host = meta_host,
		.opcodes = meta_opcodes,
		.kernel_enums = meta_enums,
		.tracepoints = meta_tracepoints,
		.probes = meta_probes,
		.flight = r->flight ? meta_flight : NULL,
		.arg = r,
	};

	return metadata_build(&in, len);
}

static int write_meta(struct recorder *r)
{
	size_t len;
	char *json = build_meta(r, &r->start_clock, &len);
	int err;

	if (!json) {
		msg_error("out of memory building the metadata");
		return -ENOMEM;
	}
	err = log_write_meta(r->lw, json, len);
	free(json);
	if (err)
		msg_error("cannot write %s: %s", r->env.output, strerror(-err));
	return err;
}

/*
 * Tasks alive now (TASKS frame); with --follow their existing descendants
 * join the filter.
 */
static int scan_tasks(struct recorder *r, struct task_scan *scan)
{
	pid_t pids[ENV_MAX_PIDS + 1];
	size_t npids = 0;
	struct task_filter flt = {
		.active = filter_active(&r->env),
		.follow = r->env.follow,
		.comm = r->env.have_comm ? r->env.comm : NULL,
		.cgroup = r->env.cgroup ? r->cgroup_rel : NULL,
		.self = getpid(),
	};
	int err;

	for (size_t i = 0; i < r->env.npids; i++)
		pids[npids++] = r->env.pids[i];
	if (r->have_cmd)
		pids[npids++] = r->cmd.pid;
	if (npids) {
		flt.pids = pids;
		flt.npids = npids;
	}
	err = tasks_scan(scan, &flt, "/proc", clock_boot_ns());
	if (err) {
		msg_warn("cannot list existing tasks in /proc: %s", strerror(-err));
		memset(scan, 0, sizeof(*scan));
		return 0;
	}
	for (size_t i = 0; i < scan->nfollowed && !err; i++)
		err = add_filter_pid(r, scan->followed[i]);
	return err;
}

/*
 * Start recording at one instant, every hook in place.  Existing tasks are
 * listed before (so a task that forks or execs before the start is still
 * named) and after it (so one that appears in between is too); the TASKS
 * frame holds both, later view first.  Fork, exec and rename are recorded
 * from the first listing on (UR_STATE_LISTING): a process that execs after
 * the first listing passed its pid and exits before the second one has no
 * other name.
 */
static int start_recording(struct recorder *r, struct task_scan *tasks)
{
	/*
	 * For the live tests only: widen the instants between the listings
	 * and the start to a known length, so that a process can exec in
	 * the first gap and exit in the second (tests/live/filters.sh).
	 */
	const char *pause_text = getenv("URING_RECORD_TEST_START_PAUSE_MS");
	unsigned pause_ms = pause_text ? (unsigned)strtoul(pause_text, NULL, 10) : 0;
	struct timespec pause = { pause_ms / 1000, pause_ms % 1000 * 1000000L };
	struct task_scan before, after;
	size_t n;
	int err;

	r->skel->bss->state = UR_STATE_LISTING;
	err = scan_tasks(r, &before);
	if (err)
		return err;
	if (pause_ms) {
		msg_warn("test hook: pausing %u ms before and after the start", pause_ms);
		nanosleep(&pause, NULL);
	}
	r->skel->bss->state = UR_STATE_RECORDING;
	clock_snapshot(&r->start_clock);
	self_cost_start(&r->cost, r->skel->obj);
	if (pause_ms)
		nanosleep(&pause, NULL);
	err = scan_tasks(r, &after);
	if (err) {
		tasks_scan_free(&before);
		return err;
	}
	*tasks = after;
	n = after.ntasks;
	if (before.ntasks) {
		struct ev_task *all = realloc(tasks->tasks,
					      (n + before.ntasks) * sizeof(*all));

		if (all) {
			tasks->tasks = all;
			for (size_t i = 0; i < before.ntasks; i++) {
				bool seen = false;

				for (size_t j = 0; j < n && !seen; j++)
					seen = all[j].subject_tid == before.tasks[i].subject_tid;
				if (!seen)
					all[tasks->ntasks++] = before.tasks[i];
			}
		}
	}
	tasks_scan_free(&before);
	msg_verbose("%zu existing tasks selected", tasks->ntasks);
	return 0;
}

static int write_tasks(struct recorder *r, const struct task_scan *scan)
{
	struct log_frame_desc d = { .type = LOG_FRAME_TASKS, .stream = LOG_STREAM_GLOBAL };
	int err;

	if (!scan->ntasks)
		return 0;
	d.count = (uint32_t)scan->ntasks;
	d.first_ts = UINT64_MAX;
	for (size_t i = 0; i < scan->ntasks; i++) {
		if (scan->tasks[i].ts < d.first_ts)
			d.first_ts = scan->tasks[i].ts;
		if (scan->tasks[i].ts > d.last_ts)
			d.last_ts = scan->tasks[i].ts;
	}
	err = log_write_frame(r->lw, &d, scan->tasks, scan->ntasks * sizeof(*scan->tasks));
	if (err)
		msg_error("cannot write %s: %s", r->env.output, strerror(-err));
	return err;
}

/* --------------------------------------------------------- frames */

/* The writer's own drops are read only once it has ended (final). */
static struct frame *loss_frame(struct recorder *r, bool final)
{
	int err = losses_read(&r->losses, bpf_map__fd(r->skel->maps.loss_counts), &r->rb.ul,
			      final ? &r->writer.ul : NULL);

	if (err)
		msg_verbose("cannot read the loss counters: %s", strerror(-err));
	return losses_frame(&r->losses);
}

static struct frame *clock_frame(void)
{
	struct log_clock_snapshot snap;
	struct frame *f = frame_new(LOG_FRAME_CLOCK, LOG_STREAM_GLOBAL, sizeof(snap));

	if (!f)
		return NULL;
	clock_snapshot(&snap);
	frame_add_bytes(f, &snap, sizeof(snap), 1);
	f->first_ts = f->last_ts = snap.boot_ns;
	return f;
}

static struct frame *stats_frame(struct recorder *r)
{
	struct json_out o;
	struct rusage ru;
	struct frame *f;
	size_t len;
	char *text;

	getrusage(RUSAGE_SELF, &ru);
	json_out_init(&o, false);
	json_obj_begin(&o);
	json_kv_u64(&o, "drains", r->rb.drains);
	json_kv_u64(&o, "stage_flushes", r->rb.stage_flushes);
	json_kv_u64(&o, "stage_flush_busy", r->rb.stage_flush_busy);
	json_kv_u64(&o, "stage_flush_errors", r->rb.stage_flush_errors);
	json_kv_u64(&o, "records_staged_at_stop", r->rb.staged_at_stop);
	json_kv_u64(&o, "records_copied", r->rb.records);
	json_kv_u64(&o, "bytes_copied", r->rb.bytes);
	json_kv_u64(&o, "malformed_records", r->rb.malformed);
	json_kv_u64(&o, "frames_dropped", r->rb.frames_dropped);
	json_kv_u64(&o, "dropped_past_max_size", r->writer.ul.total);
	json_kv_u64(&o, "queue_peak_bytes", r->q.peak_bytes);
	json_kv_u64(&o, "kernel_lost_placed", r->rb.kernel_lost_reported);
	json_kv_u64(&o, "kernel_lost_at_stop", r->pending_at_stop);
	json_kv_u64(&o, "follow_map_full", r->skel->bss->stats.follow_map_full);
	json_kv_u64(&o, "selected_pids_at_stop", count_filter_pids(r));
	json_kv_u64(&o, "ring_owner_map_full", r->skel->bss->stats.ring_owner_map_full);
	json_kv_u64(&o, "task_work_run_empty_skipped", r->skel->bss->stats.task_work_run_empty);
	json_kv_u64(&o, "sample_requests_declined", r->skel->bss->stats.sample_req_declined);
	json_kv_u64(&o, "sample_enters_declined", r->skel->bss->stats.sample_enter_declined);
	json_kv_i64(&o, "load_attempts", r->probes.load_attempts);
	json_kv_str(&o, "bpf_kernel_reads", r->probes.direct_loads ? "direct" : "probe_read");
	json_kv_double(&o, "bpf_load_s", r->probes.load_s);
	json_kv_u64(&o, "bpf_verified_insns", r->probes.verified_insns);
	json_kv_u64(&o, "bpf_verified_insns_max", r->probes.verified_insns_max);
	json_kv_double(&o, "cpu_user_s", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
	json_kv_double(&o, "cpu_sys_s", (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	json_kv_u64(&o, "max_rss_kib", (uint64_t)ru.ru_maxrss);
	self_cost_json(&r->cost, r->skel->obj, &o);
	json_obj_end(&o);
	text = json_out_steal(&o, &len);
	if (!text)
		return NULL;
	f = frame_new(LOG_FRAME_STATS, LOG_STREAM_GLOBAL, len);
	if (f)
		frame_add_bytes(f, text, len, 1);
	free(text);
	return f;
}

/* While the writer thread runs. */
static void push(struct recorder *r, struct frame *f)
{
	if (f)
		fq_push(&r->q, f);
}

/* After it ended: the main thread owns the log writer again. */
static void write_now(struct recorder *r, struct frame *f)
{
	if (!f)
		return;
	if (!log_writer_error(r->lw))
		frame_write(r->lw, f);
	frame_free(f);
}

static void add_at_stop(void *arg, unsigned cpu, const struct ev_lost *rec)
{
	struct recorder *r = arg;

	ringbufs_add(&r->rb, cpu, rec, sizeof(*rec));
}

/* ------------------------------------------------------- main loop */

static void stop(struct recorder *r, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void stop(struct recorder *r, const char *reason, const char *fmt, ...)
{
	va_list ap;

	if (r->stop_reason)
		return;
	r->stop_reason = reason;
	va_start(ap, fmt);
	vsnprintf(r->stop_message, sizeof(r->stop_message), fmt, ap);
	va_end(ap);
}

static void handle_signals(struct recorder *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;	/* command_poll() looks */
		if (si.ssi_signo == SIGUSR1) {
			triggers_signal(&r->trig, clock_boot_ns());
			continue;
		}
		r->signals++;
		if (r->have_cmd && r->cmd_released && !r->cmd.exited && r->signals == 1) {
			/* kill(1)'d: pass it on; a terminal's ^C reached it already */
			if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
				kill(r->cmd.pid, (int)si.ssi_signo);
			msg_info("waiting for the command to exit (SIG%s again stops recording now)",
				 sigabbrev_np((int)si.ssi_signo));
			continue;
		}
		stop(r, "signal", "stopped by SIG%s", sigabbrev_np((int)si.ssi_signo));
	}
}

static void check_writer(struct recorder *r, bool woken)
{
	int err = atomic_load(&r->writer.error);
	uint64_t v;

	if (woken && read(r->wakefd, &v, sizeof(v)) < 0) {
		/* already read: the atomics below are what counts */
	}
	if (err == -ENOSPC)
		stop(r, "disk full", "the disk is full: %s", strerror(-err));
	else if (err == -EFBIG)
		stop(r, "error", "%s reached the file size limit: %s", r->env.output,
		     strerror(-err));
	else if (err)
		stop(r, "error", "cannot write %s: %s", r->env.output, strerror(-err));
	else if (atomic_load(&r->writer.max_size_hit))
		stop(r, "max-size", "the log reached --max-size");
}

/*
 * The selection is over: the COMMAND exited, or every process of -p (and
 * --follow) has.  The rings they used are torn down after that, in a
 * kworker (io_ring_exit_work), and the CQEs the teardown posts belong to
 * the recording: stop once tp_ring_exit saw the last of them go, or after
 * ENV_RING_TEARDOWN_NS.  Without the hook, or without ring owners (no
 * selection, or no io_uring_create tracepoint), stop at once.  After a
 * COMMAND, the processes it started that still run get the same time to
 * end (a parent that does not wait for its children).
 */
static void selection_over(struct recorder *r, uint64_t now, const char *reason,
			   const char *message)
{
	r->closing_since = now;
	r->closing_reason = reason;
	snprintf(r->closing_message, sizeof(r->closing_message), "%s", message);
}

static bool rings_closing(struct recorder *r)
{
	if (!r->skel->rodata->ring_exit_work_fn || !r->skel->bss->ring_owners_valid ||
	    !probes_attached(&r->probes, "tp_ring_exit"))
		return false;
	return selection_rings_closing(bpf_map__fd(r->skel->maps.ring_owner)) > 0;
}

/* Do processes the COMMAND started still run?  (-p: none do by now.)
 * A COMMAND implies --follow (env.c). */
static bool descendants_running(struct recorder *r)
{
	return r->have_cmd && selection_any_alive(bpf_map__fd(r->skel->maps.pid_filter));
}

/* Has everything selected with -p (not a COMMAND) exited?  Looked at every
 * 100 ms: each look reads /proc for the selected processes. */
static bool pid_selection_exited(struct recorder *r, uint64_t now)
{
	if (!r->env.npids || r->have_cmd || r->env.keep_recording ||
	    now < r->next_selection_check)
		return false;
	r->next_selection_check = now + 100ull * 1000 * 1000;
	return !selection_any_alive(bpf_map__fd(r->skel->maps.pid_filter));
}

static void check_selection(struct recorder *r, uint64_t now)
{
	char msg[128];

	if (!r->closing_since) {
		if (r->have_cmd && command_poll(&r->cmd)) {
			snprintf(msg, sizeof(msg), "the command exited with status %d",
				 command_exit_code(&r->cmd));
			selection_over(r, now, "command exited", msg);
		} else if (pid_selection_exited(r, now)) {
			selection_over(r, now, "selection exited",
				       "every selected process has exited");
		}
	}
	if (r->closing_since &&
	    (now - r->closing_since >= ENV_RING_TEARDOWN_NS ||
	     (!rings_closing(r) && !descendants_running(r))))
		stop(r, r->closing_reason, "%s", r->closing_message);
}

/* ------------------------------------------------- flight recorder */

static void on_record(void *arg, unsigned cpu, const void *rec)
{
	triggers_record(arg, cpu, rec);
}

/* FILE, or FILE.N when there can be several snapshots. */
static void snapshot_path(const struct recorder *r, unsigned n, char *buf, size_t len)
{
	if (r->env.snapshots == 1)
		snprintf(buf, len, "%s", r->env.output);
	else
		snprintf(buf, len, "%s.%u", r->env.output, n);
}

/* The clocks as they were at boot time at (before now). */
static void clock_at(struct log_clock_snapshot *c, uint64_t at)
{
	uint64_t back;

	clock_snapshot(c);
	back = c->boot_ns > at ? c->boot_ns - at : 0;
	c->boot_ns -= back;
	c->mono_ns -= back;
	c->real_ns -= back;
	c->tai_ns -= back;
}

/*
 * Hand the writer a snapshot of what is kept now: everything recorded so
 * far reaches the ring first (the request follows it in the queue).
 */
static void take_snapshot(struct recorder *r, bool final)
{
	struct flight_snapshot *s = calloc(1, sizeof(*s));
	uint64_t window = atomic_load(&r->ring.window_start);
	struct task_scan tasks = { 0 };
	struct log_clock_snapshot start = r->start_clock;

	if (!final) {
		ringbufs_flush_stages(&r->rb);
		ringbufs_drain(&r->rb, false);
	}
	ringbufs_flush(&r->rb, final);
	if (!s)
		goto fail;
	/* meta_flight() numbers it snapshots_sent + 1 */
	s->number = r->snapshots_sent + 1;
	snapshot_path(r, s->number, s->path, sizeof(s->path));
	s->zstd_level = r->env.zstd_level;
	s->overwrite = r->env.force;
	s->hit = r->pending;
	s->fired_boot_ns = r->pending_boot_ns;
	if (window > start.boot_ns)
		clock_at(&start, window);
	s->meta = build_meta(r, &start, &s->meta_len);
	if (!scan_tasks(r, &tasks)) {
		s->tasks = tasks.tasks;
		s->ntasks = tasks.ntasks;
		tasks.tasks = NULL;
	}
	tasks_scan_free(&tasks);
	s->loss = loss_frame(r, false);
	s->clock = clock_frame();
	if (!s->meta || writer_push_snapshot(&r->q, s))
		goto fail;
	goto out;
fail:
	msg_error("out of memory for snapshot %u", r->snapshots_sent + 1);
	flight_snapshot_free(s);
out:
	r->snapshots_sent++;
	r->snapshot_due = 0;
	triggers_rearm(&r->trig);
	if (r->snapshots_sent >= r->env.snapshots)
		stop(r, "snapshots", "--snapshots=%u reached", r->env.snapshots);
}

/*
 * Evaluate the triggers after a drain: records staged on the CPUs are
 * flushed to the rings and drained first, so a trigger fires within a
 * drain interval of its event; a request in flight for too long is looked
 * for with the time read before that flush, so its completion, if it came
 * before, has been seen.
 */
static void flight_tick(struct recorder *r, uint64_t now)
{
	char text[256];

	if (r->trig_records && !r->trig.fired) {
		uint64_t boot = clock_boot_ns();

		ringbufs_flush_stages(&r->rb);
		ringbufs_drain(&r->rb, false);
		triggers_overdue(&r->trig, boot, true);
	}
	if (r->trig.fired && !r->snapshot_due) {
		r->pending = r->trig.hit;
		r->pending_boot_ns = clock_boot_ns();
		r->snapshot_due = now + (r->env.post_ns ? r->env.post_ns : 1);
		trigger_hit_describe(&r->pending, text, sizeof(text));
		msg_info("trigger %s; snapshot in %.3f s", text, (double)r->env.post_ns / 1e9);
	}
	if (r->snapshot_due && now >= r->snapshot_due)
		take_snapshot(r, false);
}

static void run(struct recorder *r)
{
	uint64_t now = clock_mono_ns();
	uint64_t next_flush = now + r->env.flush_ns;
	uint64_t next_clock = now + CLOCK_PERIOD_NS;
	uint64_t deadline = r->env.duration_ns ? now + r->env.duration_ns : UINT64_MAX;

	while (!r->stop_reason) {
		/* the next drain, flush or --duration's end, whichever is first;
		 * every 5 ms while waiting for a ring's teardown */
		uint64_t wake = now + (r->closing_since ? 5000000ull : r->env.drain_ns);
		unsigned tags;

		/* a request in flight for too long is looked for every 10 ms */
		if (r->flight && r->trig.min_latency_ns != UINT64_MAX &&
		    r->env.drain_ns > 10000000ull)
			wake = now + 10000000ull;
		if (r->snapshot_due && r->snapshot_due < wake)
			wake = r->snapshot_due;

		wake = next_flush < wake ? next_flush : wake;
		wake = deadline < wake ? deadline : wake;
		tags = ringbufs_wait(&r->rb, wake > now ? (int)((wake - now + 999999) / 1000000) : 0);

		ringbufs_drain(&r->rb, false);
		if (tags & (1u << TAG_SIGNAL))
			handle_signals(r);
		check_writer(r, tags & (1u << TAG_WRITER));
		now = clock_mono_ns();
		check_selection(r, now);
		if (r->flight && !r->stop_reason)
			flight_tick(r, now);
		self_cost_tick(&r->cost, now);
		if (now >= deadline)
			stop(r, "duration", "--duration reached");
		if (now >= next_flush) {
			/* everything staged before now goes into this flush */
			ringbufs_flush_stages(&r->rb);
			ringbufs_drain(&r->rb, false);
			ringbufs_flush(&r->rb, false);
			push(r, loss_frame(r, false));
			next_flush += r->env.flush_ns;
			if (next_flush <= now)
				next_flush = now + r->env.flush_ns;
		}
		if (now >= next_clock) {
			push(r, clock_frame());
			next_clock += CLOCK_PERIOD_NS;
		}
		status_update(&r->status, now, r->rb.records,
			      r->losses.total[EV_LOSS_RING_FULL] + r->losses.total[EV_LOSS_NO_RING] +
			      r->rb.ul.total, atomic_load(&r->writer.bytes));
	}
}

/*
 * Wait until no BPF program can still be running: each runs inside an RCU
 * read-side section (or with preemption off), and MEMBARRIER_CMD_GLOBAL
 * waits for an RCU grace period (kernel/sched/membarrier.c).
 */
static void wait_for_programs(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	usleep(50 * 1000);
}

static char *end_json(struct recorder *r, uint64_t records, uint64_t lost)
{
	struct json_out o;
	size_t len;

	json_out_init(&o, false);
	json_obj_begin(&o);
	json_kv_str(&o, "reason", r->stop_reason ? r->stop_reason : "error");
	json_kv_str(&o, "message", r->stop_message);
	json_kv_u64(&o, "stop_boot_ns", clock_boot_ns());
	json_kv_u64(&o, "records", records);
	json_kv_u64(&o, "lost", lost);
	json_kv_u64(&o, "bytes", log_writer_bytes(r->lw));
	json_kv_u64(&o, "frames", log_writer_frames(r->lw));
	json_key(&o, "exit_status");
	if (r->have_cmd && r->cmd.exited)
		json_i64(&o, command_exit_code(&r->cmd));
	else
		json_null(&o);
	json_obj_end(&o);
	return json_out_steal(&o, &len);
}

/*
 * --flight-recorder: nothing is written at the stop but the snapshot of a
 * trigger that fired during its --post time, with what came after it so far.
 */
/* --sample: chosen requests or calls whose bucket was full (bpf/sample.bpf.h). */
static void warn_sample_declined(const struct recorder *r)
{
	const struct ur_stats *st = &r->skel->bss->stats;

	if (st->sample_req_declined || st->sample_enter_declined)
		msg_warn("--sample: %" PRIu64 " chosen requests and %" PRIu64 " chosen "
			 "io_uring_enter calls not recorded: their sampling table bucket was full",
			 (uint64_t)st->sample_req_declined, (uint64_t)st->sample_enter_declined);
}

static int finish_flight(struct recorder *r)
{
	unsigned written, failed;

	r->skel->bss->state = UR_STATE_STOPPED;
	wait_for_programs();
	ringbufs_drain(&r->rb, true);
	ringbufs_collect_stages(&r->rb);
	if (r->snapshot_due)
		take_snapshot(r, true);
	writer_stop(&r->writer);
	log_writer_abort(r->lw);
	r->lw = NULL;
	status_clear(&r->status);
	written = atomic_load(&r->writer.snapshots_written);
	failed = atomic_load(&r->writer.snapshots_failed);
	msg_info("%s; %u snapshot%s written, %" PRIu64 " MiB of frames kept at the stop, "
		 "%" PRIu64 " frames evicted", r->stop_message, written, written == 1 ? "" : "s",
		 r->ring.bytes >> 20, r->ring.evicted_frames);
	if (r->trig.untracked)
		msg_warn("%" PRIu64 " requests were not tracked for latency triggers (table full)",
			 r->trig.untracked);
	warn_sample_declined(r);
	if (failed || (r->stop_reason && !strcmp(r->stop_reason, "error")))
		return 1;
	if (r->have_cmd && r->cmd.exited)
		return command_exit_code(&r->cmd);
	return 0;
}

static int finish(struct recorder *r)
{
	uint64_t records, lost, kernel_lost;
	struct summary sum;
	char err[256];
	char *end;
	int ret;

	if (r->flight)
		return finish_flight(r);

	r->skel->bss->state = UR_STATE_STOPPED;
	wait_for_programs();
	ringbufs_drain(&r->rb, true);
	ringbufs_collect_stages(&r->rb);
	r->pending_at_stop = losses_pending_at_stop(bpf_map__fd(r->skel->maps.cpu_states),
						    r->ncpus, add_at_stop, r);
	ringbufs_flush(&r->rb, true);
	/* The last frames follow every event frame, whatever the writer dropped. */
	writer_stop(&r->writer);
	write_now(r, loss_frame(r, true));
	write_now(r, clock_frame());
	write_now(r, stats_frame(r));

	/* The at-stop records went through the consumer too. */
	kernel_lost = r->losses.total[EV_LOSS_RING_FULL] + r->losses.total[EV_LOSS_NO_RING];
	if (kernel_lost != r->rb.kernel_lost_reported)
		msg_warn("internal: %" PRIu64 " events counted lost, %" PRIu64 " placed in time",
			 kernel_lost, r->rb.kernel_lost_reported);
	records = atomic_load(&r->writer.events_written);
	lost = kernel_lost + r->rb.ul.total + r->writer.ul.total;
	end = end_json(r, records, lost);
	memset(&sum, 0, sizeof(sum));
	sum.path = r->env.output;
	sum.duration_ns = clock_mono_ns() - r->start_mono;
	sum.events = records;
	sum.kernel_lost = kernel_lost;
	sum.user_lost = r->rb.ul.total + r->writer.ul.total;
	sum.discarded = atomic_load(&r->writer.events_discarded);
	sum.raw_bytes = log_writer_raw_bytes(r->lw);
	sum.losses = &r->losses;
	sum.ring_size = r->env.ring_size;
	sum.drain_ns = r->env.drain_ns;
	sum.quiet = r->env.verbosity < 0;
	ret = log_writer_finish(r->lw, end, err, sizeof(err));
	r->lw = NULL;
	free(end);
	sum.bytes = atomic_load(&r->writer.bytes);
	{
		struct stat st;

		if (stat(r->env.output, &st) == 0)
			sum.bytes = (uint64_t)st.st_size;
	}
	status_clear(&r->status);
	if (r->stop_reason && strcmp(r->stop_reason, "command exited") &&
	    strcmp(r->stop_reason, "selection exited") &&
	    strcmp(r->stop_reason, "signal") && strcmp(r->stop_reason, "duration"))
		msg_error("%s", r->stop_message);
	else
		msg_verbose("%s", r->stop_message);
	if (ret)
		msg_error("%s: %s", r->env.output, err);
	status_summary(&sum);
	if (!sum.quiet) {
		char line[512];

		self_cost_line(&r->cost, r->skel->obj, r->writer.cpu_ns, line, sizeof(line));
		msg_info("%s", line);
	}
	warn_sample_declined(r);
	if (r->have_cmd && !r->cmd.exited)
		msg_info("the command (pid %d) is still running and no longer recorded",
			 (int)r->cmd.pid);
	if (ret || (r->stop_reason && (!strcmp(r->stop_reason, "disk full") ||
				       !strcmp(r->stop_reason, "error"))))
		return 1;
	if (r->have_cmd && r->cmd.exited)
		return command_exit_code(&r->cmd);
	return 0;
}

/* ------------------------------------------------------------ setup */

static int setup_signals(struct recorder *r)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	/* A file size limit must end the recording cleanly (EFBIG), not kill it. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (r->flight)
		sigaddset(&set, SIGUSR1);	/* the signal trigger */
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	r->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	r->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return r->sigfd < 0 || r->wakefd < 0 ? -errno : 0;
}

/*
 * --flight-recorder: frames are compressed into the ring, and the snapshot
 * files are only created when written; say now if the first cannot be.
 */
static int create_flight(struct recorder *r)
{
	struct log_writer_options opt = { .zstd_level = r->env.zstd_level };
	char path[PATH_MAX];
	int ret;

	snapshot_path(r, 1, path, sizeof(path));
	if (!r->env.force && access(path, F_OK) == 0) {
		msg_error("%s already exists (use --force to overwrite it)", path);
		return -EEXIST;
	}
	flight_ring_init(&r->ring, r->env.flight_size);
	ret = log_writer_create_sink(&r->lw, &opt, flight_ring_add, &r->ring);
	if (!ret)
		ret = triggers_init(&r->trig, r->env.triggers, r->env.ntriggers);
	if (ret) {
		msg_error("cannot start the flight recorder: %s", strerror(-ret));
		return ret;
	}
	r->trig_records = triggers_need_records(r->env.triggers, r->env.ntriggers);
	r->writer.flight = &r->ring;
	return 0;
}

static int create_log(struct recorder *r)
{
	struct log_writer_options opt = {
		.zstd_level = r->env.zstd_level,
		.overwrite = r->env.force,
	};
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	char err[512];
	int ret;

	ret = log_writer_create(&r->lw, r->env.output, &opt, err, sizeof(err));
	if (ret) {
		msg_error("%s", err);
		return ret;
	}
	r->log_created = true;
	/* Under sudo the log belongs to the user, who converts it without root. */
	if (geteuid() == 0 && sudo_uid && sudo_gid &&
	    fchownat(AT_FDCWD, r->env.output, (uid_t)strtoul(sudo_uid, NULL, 10),
		     (gid_t)strtoul(sudo_gid, NULL, 10), AT_SYMLINK_NOFOLLOW))
		msg_warn("cannot give %s to uid %s: %s", r->env.output, sudo_uid, strerror(errno));
	return 0;
}

static int setup(struct recorder *r)
{
	struct task_scan tasks = { 0 };
	char err[256];
	int ret;
	int ncpus;

	ret = check_capabilities();
	if (!ret)
		ret = check_pids(&r->env);
	if (!ret && r->env.cgroup)
		ret = open_cgroup(r);
	if (ret)
		return ret;
	r->flight = r->env.flight_size != 0;
	ret = setup_signals(r);
	if (ret) {
		msg_error("cannot set up signal handling: %s", strerror(-ret));
		return ret;
	}
	ret = r->flight ? create_flight(r) : create_log(r);
	if (ret)
		return ret;
	if (r->env.command) {
		if (command_spawn(&r->cmd, r->env.command, r->env.run_as_root, err, sizeof(err))) {
			msg_error("cannot start %s: %s", r->env.command[0], err);
			return -1;
		}
		r->have_cmd = true;
	}
	r->btf = btf__load_vmlinux_btf();
	if (!r->btf) {
		msg_error("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux, "
			  "CONFIG_DEBUG_INFO_BTF): %s", strerror(errno));
		return -ENOENT;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		msg_error("cannot count the CPUs: %s", strerror(-ncpus));
		return ncpus ? ncpus : -EINVAL;
	}
	r->ncpus = (unsigned)ncpus;
	r->online = calloc(r->ncpus, sizeof(*r->online));
	if (!r->online)
		return -ENOMEM;
	host_online_cpus(r->online_text, sizeof(r->online_text));
	if (cpulist_parse(r->online_text, r->online, r->ncpus)) {
		msg_warn("cannot parse the online CPU list '%s'; using all CPUs", r->online_text);
		for (unsigned c = 0; c < r->ncpus; c++)
			r->online[c] = true;
	}
	/*
	 * For the live tests only: CPUs to leave without a ring buffer, as if
	 * they had come online after the start (their events are lost, "no
	 * ring", and must be counted and reported like any other loss).
	 */
	if (getenv("URING_RECORD_TEST_NO_RING_CPUS")) {
		bool *skip = calloc(r->ncpus, sizeof(*skip));

		if (skip && !cpulist_parse(getenv("URING_RECORD_TEST_NO_RING_CPUS"), skip,
					   r->ncpus))
			for (unsigned c = 0; c < r->ncpus; c++)
				r->online[c] = r->online[c] && !skip[c];
		free(skip);
	}
	if (!r->env.ring_size) {
		unsigned online = 0;

		for (unsigned c = 0; c < r->ncpus; c++)
			online += r->online[c];
		r->env.ring_size = env_default_ring_size(online);
		msg_verbose("ring buffers: %llu MiB per CPU for %u online CPUs",
			    (unsigned long long)(r->env.ring_size >> 20), online);
	}
	if (losses_init(&r->losses, r->ncpus) || fq_init(&r->q, r->env.queue_size))
		return -ENOMEM;
	r->q_ready = true;
	ret = scrub_init_random(&r->scrub, r->env.raw_pointers);
	if (ret) {
		msg_error("getrandom: %s", strerror(-ret));
		return ret;
	}
	r->wakeup_bytes = r->env.ring_size / 4;
	ret = ringbufs_create(&r->rb, r->ncpus, r->online, r->env.ring_size, r->env.frame_size,
			      &r->q, &r->scrub);
	r->rb_ready = true;
	if (ret)
		return ret;
	tracefs_read(&r->tracefs, probes_tracefs_names, probes_tracefs_count);
	if (r->tracefs.unavailable[0])
		msg_verbose("tracepoint formats unavailable: %s", r->tracefs.unavailable);

	self_cost_enable(&r->cost, r->env.no_self_cost);
	ret = probes_setup(&r->probes, &r->skel, &r->env, r->btf, &r->tracefs, configure_skel,
			   skel_loaded, r);
	if (ret) {
		r->skel = NULL;		/* probes_setup() destroyed what it loaded */
		return ret;
	}
	ringbufs_set_stage(&r->rb, bpf_program__fd(r->skel->progs.flush_stage),
			   bpf_map__fd(r->skel->maps.cpu_states));
	learn_fops(r);
	if (r->trig_records) {
		r->rb.on_record = on_record;
		r->rb.on_record_arg = &r->trig;
	}
	ret = start_recording(r, &tasks);
	for (size_t i = 0; !ret && i < tasks.ntasks; i++)
		triggers_task(&r->trig, 0, &tasks.tasks[i]);
	if (!ret && !r->flight)
		ret = write_meta(r);
	if (!ret && !r->flight)
		ret = write_tasks(r, &tasks);
	tasks_scan_free(&tasks);
	if (ret)
		return ret;
	ret = ringbufs_watch(&r->rb, r->sigfd, TAG_SIGNAL);
	if (!ret)
		ret = ringbufs_watch(&r->rb, r->wakefd, TAG_WRITER);
	if (!ret)
		ret = writer_start(&r->writer, r->lw, &r->q, r->ncpus, r->env.max_size,
				   r->wakefd);
	if (ret) {
		msg_error("cannot start: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static void cleanup(struct recorder *r, bool failed)
{
	if (r->writer.running)
		writer_stop(&r->writer);
	writer_free(&r->writer);
	if (r->have_cmd && !r->cmd_released)
		command_abort(&r->cmd);
	if (r->lw) {
		log_writer_abort(r->lw);
		r->lw = NULL;
		/* Nothing was recorded: leave no half-made log behind. */
		if (failed && r->log_created)
			unlink(r->env.output);
	}
	probes_free(&r->probes);
	self_cost_free(&r->cost);
	if (r->rb_ready)
		ringbufs_destroy(&r->rb);
	if (r->skel)
		uring_record_bpf__destroy(r->skel);
	if (r->q_ready)
		fq_destroy(&r->q);
	losses_free(&r->losses);
	flight_ring_free(&r->ring);
	triggers_free(&r->trig);
	tracefs_free(&r->tracefs);
	btf__free(r->btf);
	free(r->online);
	if (r->cgroup_fd >= 0)
		close(r->cgroup_fd);
	if (r->sigfd >= 0)
		close(r->sigfd);
	if (r->wakefd >= 0)
		close(r->wakefd);
	env_free(&r->env);
}

int main(int argc, char **argv)
{
	struct recorder r;
	char err[256];
	int ret;

	memset(&r, 0, sizeof(r));
	r.sigfd = r.wakefd = r.cgroup_fd = -1;
	r.cost.stats_fd = -1;
	ret = env_parse(&r.env, argc, argv);
	if (ret) {
		env_free(&r.env);
		return ret > 0 ? 0 : 2;
	}
	msg_verbosity = r.env.verbosity;
	if (setup(&r)) {
		cleanup(&r, true);
		return 1;
	}
	r.start_mono = clock_mono_ns();
	status_init(&r.status, isatty(STDERR_FILENO) && r.env.verbosity >= 0, r.start_mono);
	msg_info("recording io_uring events into %s%s", r.env.output,
		 r.have_cmd ? "" : "; press Ctrl-C to stop");
	if (r.env.sample > 1)
		msg_info("sampling: 1 request in %u, %s", r.env.sample,
			 r.env.sample_syscalls ? "1 io_uring_enter call in N" : "every syscall");
	if (r.have_cmd) {
		ret = command_release(&r.cmd, err, sizeof(err));
		r.cmd_released = true;
		if (ret) {
			/* Nothing of it was recorded: no log either. */
			msg_error("cannot run %s: %s", r.env.command[0], err);
			command_abort(&r.cmd);
			cleanup(&r, true);
			return ret == -ENOENT ? 127 : 126;
		}
	}
	run(&r);
	ret = finish(&r);
	cleanup(&r, false);
	return ret;
}
