// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's own cost.  The kernel counts a BPF program's runs and run
 * time (bpf_prog_info run_cnt, run_time_ns) only while statistics are on:
 * the kernel.bpf_stats_enabled sysctl, or an fd from BPF_ENABLE_STATS
 * (5.8), which this holds so that it changes no setting of the host and
 * the statistics go off when the recorder exits.  The counting reads the
 * clock twice per program run, which costs the traced threads about a
 * tenth of their throughput at the highest event rates: the fd is held for
 * the first seconds and then in windows (self_cost.h), and --no-self-cost
 * saves even that.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "clock.h"
#include "self_cost.h"

static double cpu_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* kernel.bpf_stats_enabled: someone keeps the statistics on for all. */
static bool stats_sysctl_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

void self_cost_enable(struct self_cost *c, bool off)
{
	memset(c, 0, sizeof(*c));
	c->stats_fd = -1;
	c->off = off;
	if (off)
		return;
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (c->stats_fd < 0)
		c->stats_err = errno ? errno : EINVAL;
	c->always_on = stats_sysctl_on();
}

void self_cost_tick(struct self_cost *c, uint64_t now)
{
	if (c->off || c->stats_err || c->always_on || !c->start_mono_ns)
		return;
	if (c->stats_fd >= 0) {
		if (now < c->start_mono_ns + SELF_COST_FULL_NS ||
		    now < c->window_open_ns + SELF_COST_WINDOW_NS)
			return;
		close(c->stats_fd);
		c->stats_fd = -1;
		c->held_ns += now - c->window_open_ns;
		c->next_window_ns = c->window_open_ns + SELF_COST_PERIOD_NS;
		if (c->next_window_ns <= now)
			c->next_window_ns = now + SELF_COST_PERIOD_NS - SELF_COST_WINDOW_NS;
		return;
	}
	if (now < c->next_window_ns)
		return;
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	c->window_open_ns = now;
}

/* Nanoseconds the statistics were on since the start of recording. */
static uint64_t held_ns(const struct self_cost *c, uint64_t now)
{
	if (c->always_on)
		return now - c->start_mono_ns;
	return c->held_ns + (c->stats_fd >= 0 ? now - c->window_open_ns : 0);
}

static int prog_stats(const struct bpf_program *p, uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(p);

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	*run_ns = info.run_time_ns;
	*runs = info.run_cnt;
	return 0;
}

void self_cost_start(struct self_cost *c, struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0;

	c->start_mono_ns = c->window_open_ns = clock_mono_ns();
	c->start_cpu_s = cpu_s();
	if (c->stats_fd < 0)
		return;
	bpf_object__for_each_program(p, obj)
		n++;
	c->progs = calloc(n ? n : 1, sizeof(*c->progs));
	if (!c->progs)
		return;
	bpf_object__for_each_program(p, obj) {
		struct self_cost_prog *s = &c->progs[c->nprogs];

		if (prog_stats(p, &s->run_ns, &s->runs))
			continue;
		s->name = bpf_program__name(p);
		c->nprogs++;
	}
}

static const struct self_cost_prog *baseline(const struct self_cost *c, const char *name)
{
	for (size_t i = 0; i < c->nprogs; i++)
		if (!strcmp(c->progs[i].name, name))
			return &c->progs[i];
	return NULL;
}

/* "bpf_programs": the programs that ran, with their runs and run time. */
static void progs_json(const struct self_cost *c, struct bpf_object *obj,
		       struct json_out *o)
{
	struct bpf_program *p;

	json_key(o, "bpf_programs");
	json_arr_begin(o);
	bpf_object__for_each_program(p, obj) {
		const struct self_cost_prog *b = baseline(c, bpf_program__name(p));
		uint64_t ns, cnt;

		if (!b || prog_stats(p, &ns, &cnt) || cnt <= b->runs)
			continue;
		json_obj_begin(o);
		json_kv_str(o, "name", b->name);
		json_kv_u64(o, "runs", cnt - b->runs);
		json_kv_u64(o, "run_time_ns", ns - b->run_ns);
		json_obj_end(o);
	}
	json_arr_end(o);
}

/* Run time and runs of obj's programs since the start of recording. */
static void bpf_totals(const struct self_cost *c, struct bpf_object *obj,
		       uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_program *p;

	*run_ns = *runs = 0;
	bpf_object__for_each_program(p, obj) {
		const struct self_cost_prog *b = baseline(c, bpf_program__name(p));
		uint64_t ns, cnt;

		if (b && !prog_stats(p, &ns, &cnt) && cnt >= b->runs) {
			*run_ns += ns - b->run_ns;
			*runs += cnt - b->runs;
		}
	}
}

/*
 * The share of the recording the statistics were on (1: all of it), and
 * the BPF run time and runs scaled up from it to the whole recording.
 */
static double bpf_estimate(const struct self_cost *c, struct bpf_object *obj, uint64_t now,
			   uint64_t *run_ns, uint64_t *runs)
{
	uint64_t rec = now - c->start_mono_ns, held = held_ns(c, now);
	double share = rec && held < rec ? (double)held / (double)rec : 1.0;

	bpf_totals(c, obj, run_ns, runs);
	if (share < 1.0 && share > 0) {
		*run_ns = (uint64_t)((double)*run_ns / share);
		*runs = (uint64_t)((double)*runs / share);
	}
	return share;
}

/*
 * The recorder's CPU, split between its threads: the log writer packs and
 * compresses, the main thread drains the rings (and the rest).
 */
static void recorder_cpu(const struct self_cost *c, uint64_t now, uint64_t writer_cpu_ns,
			 char *buf, size_t len)
{
	double wall = (double)(now - c->start_mono_ns) / 1e9;
	double cpu = wall > 0 ? 100.0 * (cpu_s() - c->start_cpu_s) / wall : 0;
	double writer = wall > 0 ? 100.0 * (double)writer_cpu_ns / 1e9 / wall : 0;

	if (!writer_cpu_ns || writer > cpu) {
		snprintf(buf, len, "%.1f %% of one CPU for the recorder", cpu);
		return;
	}
	snprintf(buf, len, "%.1f %% of one CPU for the recorder (%.1f %% packing and "
		 "compressing in rs-log-writer, %.1f %% draining the rings)", cpu, writer,
		 cpu - writer);
}

void self_cost_line(const struct self_cost *c, struct bpf_object *obj, uint64_t writer_cpu_ns,
		    char *buf, size_t len)
{
	uint64_t now = clock_mono_ns(), run_ns, runs;
	char est[64] = "", rec[160];
	double share;

	recorder_cpu(c, now, writer_cpu_ns, rec, sizeof(rec));
	if (c->off || c->stats_err) {
		snprintf(buf, len, "tracing cost: %s", rec);
		return;
	}
	share = bpf_estimate(c, obj, now, &run_ns, &runs);
	if (share < 1.0)
		snprintf(est, sizeof(est), ", estimated from %.0f %% of the time", 100 * share);
	snprintf(buf, len, "tracing cost: %.3f ms of BPF in the traced threads (%" PRIu64
		 " hook runs, %.0f ns each%s), %s",
		 (double)run_ns / 1e6, runs, runs ? (double)run_ns / (double)runs : 0.0, est, rec);
}

void self_cost_json(const struct self_cost *c, struct bpf_object *obj, struct json_out *o)
{
	uint64_t now = clock_mono_ns(), run_ns = 0, runs = 0;
	double share;

	json_key(o, "cost");
	json_obj_begin(o);
	json_kv_double(o, "recording_s", (double)(now - c->start_mono_ns) / 1e9);
	json_kv_double(o, "recorder_cpu_s", cpu_s() - c->start_cpu_s);
	if (c->off) {
		json_kv_str(o, "bpf_stats", "off (--no-self-cost)");
	} else if (c->stats_err) {
		char b[128];

		snprintf(b, sizeof(b), "unavailable: BPF_ENABLE_STATS: %s", strerror(c->stats_err));
		json_kv_str(o, "bpf_stats", b);
	} else {
		json_kv_str(o, "bpf_stats", "run_time");
		share = bpf_estimate(c, obj, now, &run_ns, &runs);
		progs_json(c, obj, o);
		json_kv_double(o, "bpf_measured_share", share);
		json_kv_u64(o, "bpf_run_time_ns", run_ns);
		json_kv_u64(o, "bpf_runs", runs);
	}
	json_obj_end(o);
}

void self_cost_free(struct self_cost *c)
{
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	c->stats_fd = -1;
	free(c->progs);
	c->progs = NULL;
	c->nprogs = 0;
}
