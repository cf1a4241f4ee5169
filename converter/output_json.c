// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=json: the summary for scripts.  The schema ("schema":
 * "ringside-summary/1") is documented in uring-convert(1), section JSON
 * OUTPUT; members are only ever added.  All times are integer nanoseconds;
 * *_ns members holding a point in time are relative to the recording
 * start, *_boot_ns are CLOCK_BOOTTIME.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_names.h"
#include "output.h"
#include "output_util.h"
#include "report.h"
#include "uring_names.h"

#define JSON_SCHEMA "ringside-summary/1"



/* A string from the log or the command line as valid UTF-8: bytes that do
 * not form a valid sequence become U+FFFD. */
static void text_str(struct json_out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	char *buf = malloc(n * 3 + 1);
	size_t len = 0;

	if (!buf) {
		o->failed = true;
		return;
	}
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len(u + i, n - i);

		if (!l) {
			memcpy(buf + len, "\xef\xbf\xbd", 3);
			len += 3;
			i++;
			continue;
		}
		memcpy(buf + len, u + i, l);
		len += l;
		i += l;
	}
	json_strn(o, buf, len);
	free(buf);
}

static void comm_str(struct json_out *o, const char *s)
{
	text_str(o, s, strnlen(s, EV_COMM_LEN));
}

static void latency(struct json_out *o, const char *key, const struct hist *h)
{
	json_key(o, key);
	json_obj_begin(o);
	json_kv_u64(o, "count", h->count);
	json_kv_u64(o, "min", h->count ? h->min : 0);
	json_kv_u64(o, "mean", (uint64_t)hist_mean(h));
	json_kv_u64(o, "p50", hist_percentile(h, 50));
	json_kv_u64(o, "p90", hist_percentile(h, 90));
	json_kv_u64(o, "p99", hist_percentile(h, 99));
	json_kv_u64(o, "p99_9", hist_percentile(h, 99.9));
	json_kv_u64(o, "max", h->max);
	json_obj_end(o);
}

/*
 * Sampled recordings (uring-record --sample): the counts stay the counts of
 * what was recorded; each main one gets an "estimated_" sibling, the count
 * times the rate (requests_one_in for requests, syscalls_one_in for
 * io_uring_enter calls, both for requests submitted inside those calls).
 * Unsampled recordings have none of these keys.
 */
static bool sampled(const struct report_output *j)
{
	return j->meta.sample_requests > 1;
}

enum estimate_of { EST_REQUESTS, EST_ENTERS, EST_SUBMITTED };

static void kv_estimate(const struct report_output *j, struct json_out *o, const char *key,
			uint64_t n, enum estimate_of what)
{
	uint64_t req = j->meta.sample_requests, sys = j->meta.sample_syscalls > 1 ?
		       j->meta.sample_syscalls : 1;
	char k[64];

	if (!sampled(j))
		return;
	snprintf(k, sizeof(k), "estimated_%s", key);
	json_kv_u64(o, k, n * (what == EST_REQUESTS ? req : what == EST_ENTERS ? sys : req * sys));
}

static void sampling(struct report_output *j, struct json_out *o, const struct output_totals *t)
{
	if (!sampled(j))
		return;
	json_key(o, "sampling");
	json_obj_begin(o);
	json_kv_u64(o, "requests_one_in", j->meta.sample_requests);
	json_kv_u64(o, "syscalls_one_in", j->meta.sample_syscalls);
	json_kv_bool(o, "counts_estimated", true);
	json_kv_str(o, "latency", "over the sampled requests");
	json_kv_u64(o, "events_of_requests_not_sampled", t->sampled_away_events);
	json_obj_end(o);
}

static void recording(struct report_output *j, struct json_out *o, const struct output_totals *t)
{
	const struct output_meta *m = &j->meta;
	char iso[TIMEBASE_ISO_LEN];

	json_key(o, "recording");
	json_obj_begin(o);
	json_key(o, "log");
	text_str(o, m->log_path, strlen(m->log_path));
	json_kv_str(o, "recording_id", m->info->recording_id_str);
	json_key(o, "format_version");
	json_obj_begin(o);
	json_kv_u64(o, "major", m->info->major);
	json_kv_u64(o, "minor", m->info->minor);
	json_obj_end(o);
	json_key(o, "host");
	json_obj_begin(o);
	json_kv_str(o, "hostname", m->hostname);
	json_kv_str(o, "kernel", m->kernel_release);
	json_kv_str(o, "machine", m->machine);
	json_kv_u64(o, "cpus", m->ncpus);
	json_obj_end(o);
	json_kv_u64(o, "start_boot_ns", m->start_ns);
	json_kv_u64(o, "end_boot_ns", m->end_ns);
	json_kv_u64(o, "duration_ns", m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0);
	if (t->read_to_ns)	/* --end stopped reading early */
		json_kv_u64(o, "read_to_boot_ns", t->read_to_ns);
	json_key(o, "start_wall");
	if (*timebase_iso(m->tb, m->start_ns, iso))
		json_str(o, iso);
	else
		json_null(o);
	json_kv_bool(o, "stopped_cleanly", t->stop == LOG_STOP_END);
	json_kv_str(o, "stop_reason", t->stop == LOG_STOP_END ? t->end_reason : log_stop_name(t->stop));
	json_kv_str(o, "stop_message", t->stop_message);
	if (*t->trigger) {
		json_key(o, "flight_recorder");
		json_obj_begin(o);
		json_kv_u64(o, "snapshot", t->snapshot);
		json_kv_str(o, "trigger", t->trigger);
		json_kv_u64(o, "trigger_boot_ns", t->trigger_ns);
		json_kv_u64(o, "window_start_boot_ns", t->window_start_ns);
		json_kv_u64(o, "records_before_window", t->window_dropped);
		json_obj_end(o);
	}
	json_kv_str(o, "io_wq_tracking", m->io_wq_tracking);
	json_kv_str(o, "selection", m->selection);
	json_key(o, "recorded_selection");
	if (j->rep.recorded_known)
		json_str(o, j->rep.recorded);
	else
		json_null(o);
	json_obj_end(o);
}

/* "cpu": the CPU, or null for what belongs to no CPU (LOG_STREAM_GLOBAL). */
static void json_kv_cpu(struct json_out *o, uint32_t cpu)
{
	json_key(o, "cpu");
	if (cpu == LOG_STREAM_GLOBAL)
		json_null(o);
	else
		json_u64(o, cpu);
}

/*
 * "tracing_cost": what recording cost (null when the log does not say).
 * requests: how many the programs ran for -- in a sampled recording the
 * estimate, as they run (and decide) for the requests not sampled too.
 */
static void tracing_cost(struct json_out *o, const struct output_totals *t, uint64_t requests)
{
	const struct tracing_cost *c = t->cost;
	char text[256];

	json_key(o, "tracing_cost");
	if (!report_cost_text(c, requests, text, sizeof(text))) {
		json_null(o);
		return;
	}
	json_obj_begin(o);
	json_kv_str(o, "text", text);
	json_kv_str(o, "bpf_stats", c->bpf_stats);
	json_key(o, "bpf_run_time_ns");
	if (c->bpf_known)
		json_u64(o, c->bpf_run_ns);
	else
		json_null(o);
	json_key(o, "bpf_runs");
	if (c->bpf_known)
		json_u64(o, c->bpf_runs);
	else
		json_null(o);
	json_key(o, "bpf_ns_per_request");
	if (c->bpf_known && requests)
		json_double(o, (double)c->bpf_run_ns / (double)requests);
	else
		json_null(o);
	json_key(o, "bpf_measured_share");
	if (c->bpf_known)
		json_double(o, c->bpf_share);
	else
		json_null(o);
	json_kv_double(o, "recorder_cpu_s", c->recorder_cpu_s);
	json_kv_double(o, "recorder_cpu_percent", c->recording_s > 0 ?
		       100.0 * c->recorder_cpu_s / c->recording_s : 0.0);
	json_obj_end(o);
}

static void losses(struct report_output *j, struct json_out *o, const struct output_totals *t)
{
	const struct report *r = &j->rep;
	uint64_t lost = report_lost_events(r, t);

	json_key(o, "losses");
	json_obj_begin(o);
	json_kv_u64(o, "events_lost", lost);
	json_kv_u64(o, "events_recorded", t->records);
	json_key(o, "percent_lost");
	if (report_lost_share_known(t))
		json_double(o, t->records + lost ?
				100.0 * (double)lost / (double)(t->records + lost) : 0.0);
	else
		json_null(o);
	json_kv_u64(o, "windows", r->loss_windows);
	json_kv_u64(o, "damaged_frames", t->damaged_frames);
	json_kv_u64(o, "frame_gaps", t->frame_gaps);
	json_key(o, "counters");
	json_arr_begin(o);
	for (size_t i = 0; i < t->nloss_counters; i++) {
		const struct loss_counter *c = &t->loss_counters[i];

		json_obj_begin(o);
		json_kv_cpu(o, c->cpu);
		json_kv_str(o, "kind", loss_kind_name(c->kind));
		json_key(o, "event");
		if (c->event_type)
			json_str(o, ev_type_name(c->event_type));
		else
			json_null(o);
		json_kv_u64(o, "count", c->count);
		json_obj_end(o);
	}
	json_arr_end(o);
	json_key(o, "per_cpu");
	json_arr_begin(o);
	for (size_t i = 0; i < r->nlosses; i++) {
		const struct cpu_loss *c = &r->losses[i];

		json_obj_begin(o);
		json_kv_cpu(o, c->cpu);
		json_kv_u64(o, "windows", c->windows);
		json_kv_u64(o, "events", c->events);
		json_kv_i64(o, "first_ns", timebase_rel(j->meta.tb, c->first_ts));
		json_kv_i64(o, "last_ns", timebase_rel(j->meta.tb, c->last_ts));
		json_key(o, "by_source");
		json_obj_begin(o);
		for (unsigned s = 0; s < LOSS_SOURCE_COUNT; s++)
			json_kv_u64(o, loss_source_name(s), c->by_source[s]);
		json_obj_end(o);
		json_obj_end(o);
	}
	json_arr_end(o);
	json_obj_end(o);
}

static void requests(struct report_output *j, struct json_out *o)
{
	const struct report *r = &j->rep;

	json_key(o, "requests");
	json_obj_begin(o);
	json_kv_u64(o, "total", r->requests);
	kv_estimate(j, o, "total", r->requests, EST_REQUESTS);
	for (unsigned s = 0; s < REQ_STATUS_COUNT; s++)
		json_kv_u64(o, status_name(s), r->by_status[s]);
	json_key(o, "incomplete_reasons");
	json_obj_begin(o);
	for (unsigned s = 1; s < 4; s++)
		json_kv_u64(o, incomplete_reason_name(s), r->by_reason[s]);
	json_obj_end(o);
	json_obj_end(o);

	json_key(o, "opcodes");
	json_arr_begin(o);
	for (unsigned op = 0; op < 256; op++) {
		const struct op_stats *s = &r->ops[op];
		char name[NAMES_MAX_LEN];

		if (!s->count)
			continue;
		json_obj_begin(o);
		json_kv_str(o, "opcode", names_opcode(j->meta.names, op, name));
		json_kv_u64(o, "opcode_number", op);
		json_kv_u64(o, "count", s->count);
		kv_estimate(j, o, "count", s->count, EST_REQUESTS);
		for (unsigned st = 0; st < REQ_STATUS_COUNT; st++)
			json_kv_u64(o, status_name(st), s->by_status[st]);
		json_kv_u64(o, "errors", s->errors);
		kv_estimate(j, o, "errors", s->errors, EST_REQUESTS);
		latency(o, "latency_ns", &s->latency);
		json_key(o, "paths");
		json_obj_begin(o);
		for (unsigned p = 0; p < PATH_COUNT; p++)
			json_kv_u64(o, path_name(p), s->paths[p]);
		json_obj_end(o);
		json_key(o, "why_not_inline");
		json_obj_begin(o);
		for (unsigned p = PR_NONE + 1; p < PR_COUNT; p++)
			json_kv_u64(o, path_reason_name(p), s->reasons[p]);
		json_obj_end(o);
		json_obj_end(o);
	}
	json_arr_end(o);

	json_key(o, "paths");
	json_arr_begin(o);
	for (unsigned p = 0; p < PATH_COUNT; p++) {
		const struct hist *h = &r->path_latency[p];

		if (!h->count)
			continue;
		json_obj_begin(o);
		json_kv_str(o, "path", path_name(p));
		json_kv_u64(o, "count", h->count);
		latency(o, "latency_ns", h);
		json_obj_end(o);
	}
	json_arr_end(o);

	/* Completion to reaped_by (an upper bound), complete requests. */
	latency(o, "cq_wait_ns", &r->cq_wait);
	json_kv_u64(o, "cq_wait_bounded_by_ring_size", r->cq_wait_by_capacity);
}

static void procs_rings(struct report_output *j, struct json_out *o)
{
	const struct report *r = &j->rep;
	struct proc_stats **ps;
	size_t n;

	json_key(o, "processes");
	json_arr_begin(o);
	ps = report_procs(r, &n);
	for (size_t i = 0; ps && i < n; i++) {
		const struct proc_stats *p = ps[i];

		json_obj_begin(o);
		json_kv_u64(o, "pid", p->pid);
		json_key(o, "comm");
		comm_str(o, report_comm(r, p->pid));
		json_kv_u64(o, "requests", p->requests);
		kv_estimate(j, o, "requests", p->requests, EST_REQUESTS);
		json_kv_u64(o, "enters", p->enters + p->enters_lossy);
		kv_estimate(j, o, "enters", p->enters + p->enters_lossy, EST_ENTERS);
		json_kv_u64(o, "enters_with_lost_events", p->enters_lossy);
		json_kv_u64(o, "submitted", p->submitted);
		kv_estimate(j, o, "submitted", p->submitted, EST_SUBMITTED);
		json_kv_u64(o, "sqpoll_submitted", p->sqpoll_submitted);
		json_kv_u64(o, "setups", p->syscalls[SYS_SETUP]);
		json_kv_u64(o, "registers", p->syscalls[SYS_REGISTER]);
		json_kv_u64(o, "enter_ns", p->enter_ns);
		json_kv_u64(o, "submitting_ns", p->submit_ns);
		json_kv_u64(o, "waiting_ns", p->wait_ns);
		json_obj_end(o);
	}
	free(ps);
	json_arr_end(o);

	json_key(o, "rings");
	json_arr_begin(o);
	for (size_t i = 0; i < r->nrings; i++) {
		const struct ring_stats *rs = r->rings[i];
		char id[24], fl[256];

		if (!rs)
			continue;
		json_obj_begin(o);
		json_kv_u64(o, "ring", rs->ring->number);
		snprintf(id, sizeof(id), "0x%016" PRIx64, rs->ring->ring_id);
		json_kv_str(o, "ring_id", id);
		json_kv_u64(o, "generation", rs->ring->generation);
		json_kv_u64(o, "pid", rs->ring->pid);
		json_kv_str(o, "owner_from", rs->ring->created_seen ? "create" :
					     rs->ring->pid ? "first_use" : "");
		json_kv_i64(o, "fd", rs->ring->fd);
		json_kv_bool(o, "created_in_recording", rs->ring->created_seen);
		json_key(o, "setup_flags");
		if (rs->ring->created_seen)
			json_str(o, format_flags(fl, sizeof(fl), rs->ring->setup_flags, setup_flag_names));
		else
			json_null(o);
		json_kv_u64(o, "sq_entries", rs->ring->sq_entries);
		json_kv_u64(o, "cq_entries", rs->ring->cq_entries);
		json_kv_u64(o, "sqpoll_tid", rs->ring->sqpoll_tid);
		json_kv_u64(o, "requests", rs->requests);
		kv_estimate(j, o, "requests", rs->requests, EST_REQUESTS);
		json_kv_u64(o, "complete", rs->complete);
		latency(o, "latency_ns", &rs->latency);
		json_kv_u64(o, "enters", rs->enters + rs->enters_lossy);
		kv_estimate(j, o, "enters", rs->enters + rs->enters_lossy, EST_ENTERS);
		json_kv_u64(o, "enters_with_lost_events", rs->enters_lossy);
		json_kv_u64(o, "submitted", rs->submitted);
		kv_estimate(j, o, "submitted", rs->submitted, EST_SUBMITTED);
		json_kv_u64(o, "sqpoll_submitted", rs->sqpoll_submitted);
		json_kv_u64(o, "cqes_in_enters", rs->cqes_in_enters);
		json_kv_u64(o, "enter_ns", rs->enter_ns);
		json_kv_u64(o, "submitting_ns", rs->submit_ns);
		json_kv_u64(o, "waiting_ns", rs->wait_ns);
		json_key(o, "batching");
		json_obj_begin(o);
		{
			static const char *const b[REPORT_BATCH_BUCKETS] = {
				"0", "1", "2-3", "4-7", "8-15", "16-31", "32-63", "64+",
			};

			for (unsigned k = 0; k < REPORT_BATCH_BUCKETS; k++)
				json_kv_u64(o, b[k], rs->batch[k]);
		}
		json_obj_end(o);
		json_key(o, "io_wq");
		json_obj_begin(o);
		json_kv_u64(o, "requests", rs->iowq_requests);
		json_kv_u64(o, "placed_requests", rs->iowq_placed);
		json_kv_u64(o, "workers", rs->ring->iowq_workers);
		json_kv_u64(o, "peak_queued", rs->ring->iowq_peak);
		json_kv_u64(o, "busy_ns", rs->iowq_busy_ns);
		json_kv_bool(o, "busy_approximate", rs->iowq_busy_approx);
		json_kv_u64(o, "hashed", rs->ring->iowq_hashed);
		if (rs->ring->iowq_work_flags_known) {
			json_kv_u64(o, "hashed_key_peak", rs->ring->iowq_hashed_key_peak);
			json_kv_u64(o, "bound_workers_peak", rs->ring->iowq_bound_peak);
			json_kv_u64(o, "unbound_workers_peak", rs->ring->iowq_unbound_peak);
		} else {
			json_key(o, "hashed_key_peak");
			json_null(o);
			json_key(o, "bound_workers_peak");
			json_null(o);
			json_key(o, "unbound_workers_peak");
			json_null(o);
		}
		json_obj_end(o);
		json_kv_u64(o, "cq_overflows", rs->overflows);
		json_kv_u64(o, "cqes_dropped", rs->dropped);
		json_kv_u64(o, "aux_cqes", rs->aux_cqes);
		json_kv_u64(o, "multishot_cqes", rs->multishot_cqes);
		json_obj_end(o);
	}
	json_arr_end(o);
}

/* Every file a request worked on, first seen first (logs of format 3.1+). */
static void files(struct report_output *j, struct json_out *o)
{
	const struct file_agg **v;
	size_t n;
	char buf[64];

	v = file_stats_sorted(&j->rep.files, FILE_BY_NUMBER, &n);
	json_key(o, "files");
	json_arr_begin(o);
	for (size_t i = 0; i < n; i++) {
		const struct file_agg *g = v[i];
		const struct model_file *f = g->file;

		json_obj_begin(o);
		json_kv_u64(o, "file", f->number);
		json_key(o, "path");
		text_str(o, f->path, strlen(f->path));
		json_kv_str(o, "type", file_type_name(f->type));
		snprintf(buf, sizeof(buf), "%" PRIu32 ":%" PRIu32, f->dev_major, f->dev_minor);
		json_kv_str(o, "dev", buf);
		json_kv_u64(o, "ino", f->ino);
		json_kv_str(o, "flags", format_file_flags(buf, sizeof(buf), f->f_flags,
							  j->meta.machine));
		json_kv_u64(o, "f_flags", f->f_flags);
		json_key(o, "fs");
		text_str(o, f->fs, strlen(f->fs));
		json_kv_u64(o, "mode", f->mode);
		json_kv_bool(o, "deleted", f->deleted);
		json_kv_bool(o, "anonymous", f->anonymous);
		json_kv_bool(o, "path_truncated", f->path_truncated);
		json_kv_u64(o, "requests", g->requests);
		json_kv_u64(o, "complete", g->complete);
		json_kv_u64(o, "errors", g->errors);
		json_kv_u64(o, "bytes_read", g->bytes_read);
		json_kv_u64(o, "bytes_written", g->bytes_written);
		json_kv_u64(o, "latency_total_ns", g->latency_total_ns);
		latency(o, "latency_ns", &g->latency);
		json_key(o, "paths");
		json_obj_begin(o);
		for (unsigned p = 0; p < PATH_COUNT; p++)
			json_kv_u64(o, path_name(p), g->paths[p]);
		json_obj_end(o);
		json_obj_end(o);
	}
	json_arr_end(o);
	free(v);
}

static void errors_anomalies(struct report_output *j, struct json_out *o, const struct output_totals *t)
{
	const struct report *r = &j->rep;
	struct err_stats **es;
	size_t n;

	json_key(o, "errors");
	json_arr_begin(o);
	es = report_errors(r, &n);
	for (size_t i = 0; es && i < n; i++) {
		char op[NAMES_MAX_LEN], e[NAMES_MAX_LEN];

		json_obj_begin(o);
		json_kv_str(o, "opcode", names_opcode(j->meta.names, es[i]->opcode, op));
		json_kv_str(o, "errno", names_errno(es[i]->err, e));
		json_kv_i64(o, "errno_number", es[i]->err);
		json_kv_u64(o, "count", es[i]->count);
		json_obj_end(o);
	}
	free(es);
	json_arr_end(o);

	json_key(o, "syscalls");
	json_obj_begin(o);
	for (unsigned k = 0; k < SYS_KIND_COUNT; k++)
		json_kv_u64(o, syscall_kind_name(k), r->syscalls[k]);
	json_kv_u64(o, "unpaired", r->unpaired_markers);
	json_obj_end(o);

	json_key(o, "anomalies");
	json_obj_begin(o);
	json_kv_u64(o, "cq_overflows", r->overflows);
	json_kv_u64(o, "cqes_dropped", r->dropped);
	json_kv_u64(o, "short_writes", r->short_writes);
	json_kv_u64(o, "failed_links", r->failed_links);
	json_kv_u64(o, "cancelled_link_members", r->cancelled_links);
	json_kv_u64(o, "failed_at_submission", r->failed_requests);
	json_kv_u64(o, "aux_cqes", r->aux_cqes);
	json_kv_u64(o, "multishot_cqes", r->multishot_cqes);
	json_kv_u64(o, "unknown_records", t->unknown_records);
	json_obj_end(o);

	json_key(o, "warnings");
	json_arr_begin(o);
	for (size_t i = 0; i < t->nwarnings; i++)
		text_str(o, t->warnings[i], strlen(t->warnings[i]));
	json_arr_end(o);
}

static int j_render(struct report_output *j, const struct output_totals *t, char *err, size_t errlen)
{
	struct json_out out;
	char *text;
	size_t len;

	json_out_init(&out, true);
	json_obj_begin(&out);
	json_kv_str(&out, "schema", JSON_SCHEMA);
	recording(j, &out, t);
	sampling(j, &out, t);
	tracing_cost(&out, t, report_cost_requests(t, sampled(j) ? j->meta.sample_requests : 1));
	losses(j, &out, t);
	requests(j, &out);
	procs_rings(j, &out);
	files(j, &out);
	errors_anomalies(j, &out, t);
	json_obj_end(&out);
	text = json_out_steal(&out, &len);
	if (!text || j->rep.oom) {
		free(text);
		snprintf(err, errlen, "out of memory while writing JSON");
		return -1;
	}
	fwrite(text, 1, len, j->f);
	fputc('\n', j->f);
	free(text);
	return 0;
}

static const struct output_ops json_ops = REPORT_OUTPUT_OPS("json");

struct output *output_json_new(const struct output_config *cfg, char *err, size_t errlen)
{
	return report_output_new(cfg, &json_ops, j_render, err, errlen);
}
