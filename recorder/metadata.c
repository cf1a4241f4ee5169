// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "event_layout.h"
#include "metadata.h"
#include "uring_names.h"

void metadata_builtin_opcodes(struct json_out *o)
{
	json_obj_begin(o);
	json_kv_str(o, "source", "built-in");
	json_key(o, "names");
	json_arr_begin(o);
	for (unsigned i = 0; i < uring_opcode_count(); i++) {
		const char *name = uring_opcode_name(i);

		if (name)
			json_str(o, name);
		else
			json_null(o);
	}
	json_arr_end(o);
	json_obj_end(o);
}

static void clock_json(struct json_out *o, const struct log_clock_snapshot *c)
{
	json_obj_begin(o);
	json_kv_u64(o, "boot_ns", c->boot_ns);
	json_kv_u64(o, "mono_ns", c->mono_ns);
	json_kv_u64(o, "real_ns", c->real_ns);
	json_kv_u64(o, "tai_ns", c->tai_ns);
	json_kv_u64(o, "uncertainty_ns", c->uncertainty_ns);
	json_obj_end(o);
}

static void filters_json(struct json_out *o, const struct meta_input *in)
{
	const struct env *env = in->env;

	json_obj_begin(o);
	json_key(o, "pids");
	json_arr_begin(o);
	for (size_t i = 0; i < env->npids; i++)
		json_i64(o, env->pids[i]);
	if (in->command_pid > 0)
		json_i64(o, in->command_pid);
	json_arr_end(o);
	json_kv_bool(o, "follow", env->follow);
	json_key(o, "comm");
	if (env->have_comm)
		json_strn(o, env->comm, strnlen(env->comm, sizeof(env->comm)));
	else
		json_null(o);
	json_key(o, "cgroup");
	if (env->cgroup)
		json_str(o, env->cgroup);
	else
		json_null(o);
	json_key(o, "cgroup_relative");
	if (in->cgroup_rel)
		json_str(o, in->cgroup_rel);
	else
		json_null(o);
	json_key(o, "command");
	if (env->command) {
		json_arr_begin(o);
		for (char **a = env->command; *a; a++)
			json_str(o, *a);
		json_arr_end(o);
	} else {
		json_null(o);
	}
	json_kv_bool(o, "recorder_excluded", true);
	json_obj_end(o);
}

static void options_json(struct json_out *o, const struct meta_input *in)
{
	const struct env *env = in->env;

	json_obj_begin(o);
	json_kv_u64(o, "ring_buffer_bytes_per_cpu", env->ring_size);
	json_key(o, "ring_buffer_cpus");
	json_arr_begin(o);
	for (unsigned c = 0; c < in->ncpus; c++)
		if (in->ring_cpus && in->ring_cpus[c])
			json_u64(o, c);
	json_arr_end(o);
	json_kv_u64(o, "wakeup_bytes", in->wakeup_bytes);
	json_kv_u64(o, "drain_interval_ns", env->drain_ns);
	json_kv_u64(o, "flush_interval_ns", env->flush_ns);
	json_kv_u64(o, "queue_bytes", env->queue_size);
	json_kv_u64(o, "frame_bytes", env->frame_size);
	json_kv_i64(o, "zstd_level", env->zstd_level);
	json_kv_u64(o, "duration_ns", env->duration_ns);
	json_kv_u64(o, "max_size", env->max_size);
	json_kv_str(o, "io_wq", io_wq_mode_name(env->io_wq));
	json_kv_str(o, "syscalls", syscall_mode_name(env->syscalls));
	json_kv_str(o, "pointers", env->raw_pointers ? "raw" : "opaque");
	/* Not recorded on purpose (counted in the STATS frame instead). */
	json_key(o, "not_recorded");
	json_arr_begin(o);
	json_str(o, "io_uring_task_work_run with count 0");
	json_arr_end(o);
	/* submit/req_failed "off" is 0 for these: it holds a user pointer */
	json_key(o, "sqe_off_zeroed_for");
	json_arr_begin(o);
	for (size_t i = 0; in->off_pointer_ops && in->off_pointer_ops[i]; i++)
		json_str(o, in->off_pointer_ops[i]);
	json_arr_end(o);
	json_obj_end(o);
}

char *metadata_build(const struct meta_input *in, size_t *len)
{
	const struct env *env = in->env;
	struct json_out o;

	json_out_init(&o, true);
	json_obj_begin(&o);
	json_kv_str(&o, "format", "ringside-log");

	json_key(&o, "recorder");
	json_obj_begin(&o);
	json_kv_str(&o, "name", "uring-record");
	json_kv_str(&o, "version", PACKAGE_VERSION);
	json_key(&o, "command_line");
	json_arr_begin(&o);
	for (int i = 0; i < env->argc && env->argv[i]; i++)
		json_str(&o, env->argv[i]);
	json_arr_end(&o);
	json_kv_i64(&o, "pid", getpid());
	json_obj_end(&o);

	if (in->host) {
		json_key(&o, "host");
		in->host(&o, in->arg);
	}

	json_key(&o, "clock");
	json_obj_begin(&o);
	json_kv_str(&o, "domain", "boottime");
	json_key(&o, "start");
	clock_json(&o, in->start);
	json_obj_end(&o);

	json_key(&o, "records");
	ev_layout_to_json(&o);

	json_key(&o, "opcodes");
	if (in->opcodes)
		in->opcodes(&o, in->arg);
	else
		metadata_builtin_opcodes(&o);

	json_key(&o, "kernel_enums");
	json_obj_begin(&o);
	if (in->kernel_enums)
		in->kernel_enums(&o, in->arg);
	json_obj_end(&o);

	if (in->tracepoints)
		in->tracepoints(&o, in->arg);
	else
		json_kv_str(&o, "tracepoints_unavailable", "not collected");

	json_key(&o, "probes");
	if (in->probes) {
		in->probes(&o, in->arg);
	} else {
		json_arr_begin(&o);
		json_arr_end(&o);
	}
	json_kv_str(&o, "io_wq_tracking", in->io_wq_tracking ? in->io_wq_tracking : "none");
	json_kv_str(&o, "syscall_tracking", in->syscall_tracking ? in->syscall_tracking : "none");
	json_kv_bool(&o, "rings_resolved", in->fops_learned);

	json_key(&o, "filters");
	filters_json(&o, in);
	json_key(&o, "options");
	options_json(&o, in);
	/*
	 * --sample: only sampled recordings carry the key, so that the
	 * converter can tell them apart (uring-log(5)).
	 */
	if (env->sample > 1) {
		json_key(&o, "sampling");
		json_obj_begin(&o);
		json_kv_u64(&o, "requests_one_in", env->sample);
		json_kv_u64(&o, "syscalls_one_in", env->sample_syscalls ? env->sample : 1);
		json_obj_end(&o);
	}
	json_kv_str(&o, "pointers", env->raw_pointers ? "raw" : "opaque");
	json_kv_str(&o, "pid_namespace", in->initial_pid_ns ? "initial" : "nested");
	if (in->flight) {
		json_key(&o, "flight_recorder");
		in->flight(&o, in->arg);
	}
	json_obj_end(&o);
	return json_out_steal(&o, len);
}
