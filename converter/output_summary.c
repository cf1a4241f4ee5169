// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=summary: tables for a person, in the spirit of btt.  A header
 * (host, kernel, time span, how the recording stopped), a loss banner that
 * cannot be missed, then per opcode, per process and ring, batching, io-wq,
 * errors, anomalies and losses per CPU.
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


/* "812ns", "12.3us", "4.56ms", "1.23s", "2m03s" */
static const char *fmt_dur(uint64_t ns, char *buf, size_t len)
{
	static const struct { uint64_t div; const char *unit; } u[] = {
		{ 1000000000ull, "s" }, { 1000000ull, "ms" }, { 1000ull, "us" },
	};

	if (ns >= 600000000000ull) {
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", (uint64_t)(ns / 60000000000ull),
			 (uint64_t)(ns / 1000000000ull % 60));
		return buf;
	}
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (ns >= u[i].div) {
			double v = (double)ns / (double)u[i].div;

			snprintf(buf, len, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s",
				 v, u[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/*
 * Requests submitted per io_uring_enter, "-" when the SQPOLL thread did
 * all the submitting: the enters only woke it or waited, and 0.00 would
 * read as "no batching".
 */
static const char *per_enter(uint64_t submitted, uint64_t enters, uint64_t sqpoll, char *buf,
			     size_t len)
{
	if (!submitted && sqpoll)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", enters ? (double)submitted / (double)enters : 0.0);
	return buf;
}

/* comm for a terminal: non-printable bytes as '?'. */
static const char *clean(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	if (!i)
		snprintf(buf, len, "-");
	return buf;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Requests per sampled request: the sampling rate, 1 when not sampled. */
static uint64_t req_scale(const struct report_output *s)
{
	return s->meta.sample_requests > 1 ? s->meta.sample_requests : 1;
}

/* io_uring_enter calls per sampled call (--sample-syscalls), 1 when not sampled. */
static uint64_t sys_scale(const struct report_output *s)
{
	return s->meta.sample_syscalls > 1 ? s->meta.sample_syscalls : 1;
}

/*
 * A count n of sampled things, 1 in scale of them recorded: the estimate
 * n * scale, marked "~", or n itself when nothing was sampled away.
 */
static const char *count_of(uint64_t n, uint64_t scale, char *buf, size_t len)
{
	if (scale > 1)
		snprintf(buf, len, "~%" PRIu64, n * scale);
	else
		snprintf(buf, len, "%" PRIu64, n);
	return buf;
}

/* Requests; io_uring_enter calls; requests submitted inside those calls. */
#define REQS(s, n, buf) count_of((n), req_scale(s), (buf), sizeof(buf))
#define ENTERS(s, n, buf) count_of((n), sys_scale(s), (buf), sizeof(buf))
#define SUBMITTED(s, n, buf) count_of((n), req_scale(s) * sys_scale(s), (buf), sizeof(buf))

static void print_sampling(struct report_output *s, const struct output_totals *t)
{
	const struct output_meta *m = &s->meta;
	char sys[64] = "";

	if (m->sample_requests <= 1)
		return;
	if (m->sample_syscalls > 1)
		snprintf(sys, sizeof(sys), " and 1 io_uring_enter call in %u", m->sample_syscalls);
	fprintf(s->f, "  sampled    1 request in %u%s: counts marked ~ are estimates (sampled x rate), latencies are over the %" PRIu64 " sampled requests%s; %" PRIu64 " events of requests not sampled ignored\n",
		m->sample_requests, sys, t->requests,
		m->sample_syscalls > 1 ? ", times in enter over the sampled calls" : "",
		t->sampled_away_events);
}

static void print_header(struct report_output *s, const struct output_totals *t)
{
	const struct output_meta *m = &s->meta;
	FILE *f = s->f;
	char a[TIMEBASE_ISO_LEN], d[32], cost[256];

	fprintf(f, "ringside uring-convert summary of %s\n", m->log_path);
	fprintf(f, "  recording  %s (log format %u.%u)\n", m->info->recording_id_str,
		m->info->major, m->info->minor);
	fprintf(f, "  host       %s, Linux %s %s, %u CPUs\n", *m->hostname ? m->hostname : "?",
		*m->kernel_release ? m->kernel_release : "?", m->machine, m->ncpus);
	timebase_iso(m->tb, m->start_ns, a);
	fprintf(f, "  time       %s, %s (%" PRIu64 " ns)\n", *a ? a : "wall clock unknown",
		fmt_dur(m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0, d, sizeof(d)),
		m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0);
	if (t->stop == LOG_STOP_END)
		fprintf(f, "  stopped    %s\n", *t->end_reason ? t->end_reason : "cleanly");
	else
		fprintf(f, "  stopped    NOT CLEANLY: %s\n", t->stop_message);
	if (*t->trigger)
		print_snapshot_line(f, "  snapshot   ", t->snapshot, t->trigger, t->trigger_ns,
				    t->window_cut ? t->window_start_ns : 0, m->tb);
	fprintf(f, "  io-wq      worker placement: %s\n",
		*m->io_wq_tracking ? m->io_wq_tracking : "unknown");
	if (s->rep.recorded_known)
		fprintf(f, "  recorded   %s\n", *s->rep.recorded ? s->rep.recorded : "every process");
	if (*m->selection)
		fprintf(f, "  selection  %s\n", m->selection);
	if (t->read_to_ns)
		fprintf(f, "  read       up to %+.6f s, all that --end needed: records, tasks and rings are counted to there\n",
			(double)timebase_rel(m->tb, t->read_to_ns) / 1e9);
	print_sampling(s, t);
	if (report_cost_text(t->cost, report_cost_requests(t, req_scale(s)), cost, sizeof(cost)))
		fprintf(f, "  cost       %s\n", cost);
}

static void print_banner(struct report_output *s, const struct output_totals *t)
{
	const struct report *r = &s->rep;
	uint64_t lost = report_lost_events(r, t);
	FILE *f = s->f;

	fputc('\n', f);
	if (!lost && !r->loss_windows && !t->damaged_frames && !t->frame_gaps) {
		fprintf(f, "No events lost.\n");
		return;
	}
	fprintf(f, "!!! %" PRIu64 "%s events lost", lost, r->unknown_windows ? " counted" : "");
	if (report_lost_share_known(t))
		fprintf(f, " (%.2f%% of %" PRIu64 ")", pct(lost, t->records + lost), t->records + lost);
	else
		fprintf(f, " (in the whole recording)");
	fprintf(f, " on CPU%s", r->nlosses == 1 ? "" : "s");
	for (size_t i = 0; i < r->nlosses; i++) {
		if (r->losses[i].cpu == LOG_STREAM_GLOBAL)
			fprintf(f, "%s(none)", i ? ", " : " ");
		else
			fprintf(f, "%s%u", i ? ", " : " ", r->losses[i].cpu);
	}
	if (!r->nlosses)
		fprintf(f, " (not placed in time)");
	fprintf(f, " !!!\n");
	if (t->damaged_frames || t->frame_gaps)
		fprintf(f, "!!! %" PRIu64 " damaged frames, %" PRIu64 " frame sequence gaps !!!\n",
			t->damaged_frames, t->frame_gaps);
	if (r->unknown_windows)
		fprintf(f, "!!! plus an unknown number in %" PRIu64 " windows (%s) !!!\n",
			r->unknown_windows, t->stop != LOG_STOP_END ?
			"the log was cut short: each CPU's last events are missing" :
			!strcmp(t->end_reason, "disk full") || !strcmp(t->end_reason, "error") ?
			"the recorder could not write them: each CPU's last events are missing" :
			"frames missing");
	fprintf(f, "!!! %" PRIu64 " requests touched by a loss window are marked incomplete and left out of the latency tables !!!\n",
		r->by_reason[INCOMPLETE_LOSS]);
}

static void print_opcodes(struct report_output *s)
{
	const struct report *r = &s->rep;
	FILE *f = s->f;
	char b[7][24], n[5][24];

	fprintf(f, "\nRequests: %s (complete %s, in flight at start %s, in flight at end %s, incomplete %s)\n",
		REQS(s, r->requests, n[0]), REQS(s, r->by_status[REQ_COMPLETE], n[1]),
		REQS(s, r->by_status[REQ_IN_FLIGHT_AT_START], n[2]),
		REQS(s, r->by_status[REQ_IN_FLIGHT_AT_END], n[3]),
		REQS(s, r->by_status[REQ_INCOMPLETE], n[4]));
	if (!r->requests)
		return;
	fprintf(f, "\nPer opcode (latency: submission to completion, complete requests)\n");
	fprintf(f, "%-16s %9s %7s %8s %8s %8s %8s %8s %8s  %s\n", "opcode", "count", "errors",
		"mean", "p50", "p90", "p99", "p99.9", "max", "paths");
	for (unsigned op = 0; op < 256; op++) {
		const struct op_stats *o = &r->ops[op];
		const struct hist *h = &o->latency;
		char name[NAMES_MAX_LEN];
		uint64_t done = o->by_status[REQ_COMPLETE];

		if (!o->count)
			continue;
		fprintf(f, "%-16s %9s %7s %8s %8s %8s %8s %8s %8s ",
			names_opcode(s->meta.names, op, name), REQS(s, o->count, n[0]),
			REQS(s, o->errors, n[1]),
			h->count ? fmt_dur((uint64_t)hist_mean(h), b[0], 24) : "-",
			h->count ? fmt_dur(hist_percentile(h, 50), b[1], 24) : "-",
			h->count ? fmt_dur(hist_percentile(h, 90), b[2], 24) : "-",
			h->count ? fmt_dur(hist_percentile(h, 99), b[3], 24) : "-",
			h->count ? fmt_dur(hist_percentile(h, 99.9), b[4], 24) : "-",
			h->count ? fmt_dur(h->max, b[5], 24) : "-");
		for (unsigned p = 1, first = 1; p < PATH_COUNT; p++) {
			if (!o->paths[p])
				continue;
			fprintf(f, "%s%s %.1f%%", first ? " " : ", ", path_name(p),
				pct(o->paths[p], done));
			first = 0;
		}
		if (o->paths[PATH_UNKNOWN])
			fprintf(f, ", unknown %.1f%%", pct(o->paths[PATH_UNKNOWN], done));
		if (done != o->count)
			fprintf(f, " (%s not complete)", REQS(s, o->count - done, n[2]));
		fputc('\n', f);
	}
}

static void print_paths(struct report_output *s)
{
	const struct report *r = &s->rep;
	FILE *f = s->f;
	char b[6][24], n[24];
	bool any = false;

	for (unsigned p = 0; p < PATH_COUNT; p++)
		any |= r->path_latency[p].count > 0;
	if (!any)
		return;
	fprintf(f, "\nLatency by path (complete requests)\n");
	fprintf(f, "%-16s %9s %8s %8s %8s %8s %8s %8s\n", "path", "count", "mean", "p50", "p90",
		"p99", "p99.9", "max");
	for (unsigned p = 0; p < PATH_COUNT; p++) {
		const struct hist *h = &r->path_latency[p];

		if (!h->count)
			continue;
		fprintf(f, "%-16s %9s %8s %8s %8s %8s %8s %8s\n", path_name(p),
			REQS(s, h->count, n),
			fmt_dur((uint64_t)hist_mean(h), b[0], 24),
			fmt_dur(hist_percentile(h, 50), b[1], 24),
			fmt_dur(hist_percentile(h, 90), b[2], 24),
			fmt_dur(hist_percentile(h, 99), b[3], 24),
			fmt_dur(hist_percentile(h, 99.9), b[4], 24), fmt_dur(h->max, b[5], 24));
	}
}

/* One line: how long final CQEs sat in the CQ ring before the application
 * reaped them, as far as the log bounds it (reap.h). */
static void print_cq_wait(struct report_output *s)
{
	const struct hist *h = &s->rep.cq_wait;
	char b[3][24];

	if (!h->count)
		return;
	fprintf(s->f, "\nCQEs waited in the CQ ring (completion to reaped_by, an upper bound): "
		"%" PRIu64 " requests, p50 %s, p99 %s, max %s", h->count,
		fmt_dur(hist_percentile(h, 50), b[0], 24), fmt_dur(hist_percentile(h, 99), b[1], 24),
		fmt_dur(h->max, b[2], 24));
	if (s->rep.cq_wait_by_capacity)
		fprintf(s->f, " (%" PRIu64 " bounded by the ring size)", s->rep.cq_wait_by_capacity);
	fputc('\n', s->f);
}

/* Count per reason per opcode; only reasons some opcode has get a column. */
static void print_reasons(struct report_output *s)
{
	const struct report *r = &s->rep;
	FILE *f = s->f;
	bool col[PR_COUNT] = { false };
	bool any = false;
	char name[NAMES_MAX_LEN], n[24];

	for (unsigned op = 0; op < 256; op++)
		for (unsigned p = PR_NONE + 1; p < PR_COUNT; p++)
			if (r->ops[op].reasons[p])
				any = col[p] = true;
	if (!any)
		return;
	fprintf(f, "\nWhy not inline (requests per reason)\n%-16s", "opcode");
	for (unsigned p = PR_NONE + 1; p < PR_COUNT; p++)
		if (col[p])
			fprintf(f, " %*s", (int)strlen(path_reason_name(p)),
				path_reason_name(p));
	fputc('\n', f);
	for (unsigned op = 0; op < 256; op++) {
		const struct op_stats *o = &r->ops[op];
		bool row = false;

		for (unsigned p = PR_NONE + 1; p < PR_COUNT; p++)
			row |= o->reasons[p] > 0;
		if (!row)
			continue;
		fprintf(f, "%-16s", names_opcode(s->meta.names, op, name));
		for (unsigned p = PR_NONE + 1; p < PR_COUNT; p++)
			if (col[p])
				fprintf(f, " %*s", (int)strlen(path_reason_name(p)),
					REQS(s, o->reasons[p], n));
		fputc('\n', f);
	}
}

#define FILES_SHOWN 10

static void print_file_rows(struct report_output *s, const struct file_agg **v, size_t n)
{
	FILE *f = s->f;
	char b[3][24], fl[64], p[512];

	fprintf(f, "%4s %-8s %9s %8s %8s %8s %12s %12s %-10s %s\n", "file", "type", "requests",
		"total", "p50", "p99", "read", "written", "flags", "path");
	for (size_t i = 0; i < n && i < FILES_SHOWN; i++) {
		const struct file_agg *g = v[i];

		format_file_flags(fl, sizeof(fl), g->file->f_flags, s->meta.machine);
		fprintf(f, "%4u %-8s %9" PRIu64 " %8s %8s %8s %12" PRIu64 " %12" PRIu64 " %-10s %s\n",
			g->file->number, file_type_name(g->file->type), g->requests,
			fmt_dur(g->latency_total_ns, b[0], 24),
			fmt_dur(hist_percentile(&g->latency, 50), b[1], 24),
			fmt_dur(hist_percentile(&g->latency, 99), b[2], 24), g->bytes_read,
			g->bytes_written, fl[0] ? fl : "-", clean(g->file->path, p, sizeof(p)));
	}
	if (n > FILES_SHOWN)
		fprintf(f, "     (%zu more files: files.csv)\n", n - FILES_SHOWN);
}

/* The files most requests worked on, and the ones they waited longest on. */
static void print_files(struct report_output *s)
{
	struct file_stats *fs = &s->rep.files;
	const struct file_agg **v;
	size_t n;

	v = file_stats_sorted(fs, FILE_BY_REQUESTS, &n);
	if (!v)
		return;
	fprintf(s->f, "\nPer file: top %d by requests (latency: complete requests)\n",
		FILES_SHOWN);
	print_file_rows(s, v, n);
	free(v);
	v = file_stats_sorted(fs, FILE_BY_LATENCY, &n);
	if (!v)
		return;
	fprintf(s->f, "\nPer file: top %d by total latency\n", FILES_SHOWN);
	print_file_rows(s, v, n);
	free(v);
}

static void print_procs(struct report_output *s)
{
	const struct report *r = &s->rep;
	struct proc_stats **ps;
	FILE *f = s->f;
	char b[4][24], c[EV_COMM_LEN + 4], fl[256], k[4][24];
	size_t n;

	ps = report_procs(r, &n);
	if (!ps)
		return;
	if (n) {
		fprintf(f, "\nPer process\n");
		fprintf(f, "%8s %-16s %9s %9s %9s %9s %9s %10s %10s %10s\n", "pid", "comm",
			"requests", "enters", "submitted", "by sqpoll", "req/enter", "in enter",
			"submitting", "waiting");
		for (size_t i = 0; i < n; i++) {
			const struct proc_stats *p = ps[i];

			fprintf(f, "%8u %-16s %9s %9s %9s %9s %9s %10s %10s %10s\n",
				p->pid, clean(report_comm(r, p->pid), c, sizeof(c)),
				REQS(s, p->requests, k[0]), ENTERS(s, p->enters + p->enters_lossy, k[1]),
				SUBMITTED(s, p->submitted, k[2]), REQS(s, p->sqpoll_submitted, k[3]),
				per_enter(p->submitted * req_scale(s), p->enters, p->sqpoll_submitted, b[3], 24),
				fmt_dur(p->enter_ns, b[0], 24), fmt_dur(p->submit_ns, b[1], 24),
				fmt_dur(p->wait_ns, b[2], 24));
		}
	}
	free(ps);
	if (!r->nrings)
		return;
	fprintf(f, "\nPer ring\n");
	fprintf(f, "%4s %8s %4s %9s %9s %9s %9s %10s %10s %10s  %s\n", "ring", "pid", "fd",
		"requests", "enters", "by sqpoll", "req/enter", "in enter", "submitting", "waiting",
		"setup");
	for (size_t i = 0; i < r->nrings; i++) {
		const struct ring_stats *rs = r->rings[i];
		char fd[16];

		if (!rs)
			continue;
		snprintf(fd, sizeof(fd), "%d", rs->ring->fd);
		fprintf(f, "%4u %8u %4s %9s %9s %9s %9s %10s %10s %10s  %s\n",
			rs->ring->number, rs->ring->pid, rs->ring->fd >= 0 ? fd : "?",
			REQS(s, rs->requests, k[0]), ENTERS(s, rs->enters + rs->enters_lossy, k[1]),
			REQS(s, rs->sqpoll_submitted, k[2]),
			per_enter(rs->submitted * req_scale(s), rs->enters, rs->sqpoll_submitted, b[3], 24),
			fmt_dur(rs->enter_ns, b[0], 24), fmt_dur(rs->submit_ns, b[1], 24),
			fmt_dur(rs->wait_ns, b[2], 24),
			rs->ring->created_seen ?
			(rs->ring->setup_flags ? format_flags(fl, sizeof(fl), rs->ring->setup_flags,
							      setup_flag_names) : "default") :
			"(opened before recording; pid: first user seen)");
	}
	{
		uint64_t lossy = 0;

		for (size_t i = 0; i < r->nrings; i++)
			if (r->rings[i])
				lossy += r->rings[i]->enters_lossy;
		if (lossy)
			fprintf(f, "(%" PRIu64 " io_uring_enter calls overlapped a loss window: counted in \"enters\" and \"in enter\", left out of req/enter, submitting/waiting and batching)\n",
				lossy);
	}
	fprintf(f, "\nBatching: io_uring_enter calls by requests submitted\n");
	if (req_scale(s) > 1) {
		/* a call's sampled requests say little about its batch */
		fprintf(f, "(not shown: the recording is sampled)\n");
		return;
	}
	fprintf(f, "%4s %8s %8s %8s %8s %8s %8s %8s %8s\n", "ring", "0", "1", "2-3", "4-7",
		"8-15", "16-31", "32-63", "64+");
	for (size_t i = 0; i < r->nrings; i++) {
		const struct ring_stats *rs = r->rings[i];

		if (!rs || !rs->enters)
			continue;
		fprintf(f, "%4u", rs->ring->number);
		for (unsigned bkt = 0; bkt < REPORT_BATCH_BUCKETS; bkt++)
			fprintf(f, " %8" PRIu64, rs->batch[bkt]);
		fputc('\n', f);
	}
}

/* Hashed work and the workers by pool, where the log has work flags. */
static void print_iowq_pools(FILE *f, const struct model_ring *r)
{
	if (r->iowq_work_flags_known)
		fprintf(f, "     hashed %" PRIu64 " (at most %u of one hash key at once, run one at a time); "
			"workers alive at most: %u bounded, %u unbounded\n",
			r->iowq_hashed, r->iowq_hashed_key_peak, r->iowq_bound_peak,
			r->iowq_unbound_peak);
	else if (r->iowq_hashed)
		fprintf(f, "     hashed %" PRIu64 "\n", r->iowq_hashed);
}

static void print_iowq(struct report_output *s)
{
	const struct report *r = &s->rep;
	FILE *f = s->f;
	bool any = false;
	char b[24], n[24];

	for (size_t i = 0; i < r->nrings; i++)
		if (r->rings[i] && (r->rings[i]->iowq_requests || r->rings[i]->ring->iowq_workers))
			any = true;
	if (!any)
		return;
	fprintf(f, "\nio-wq\n");
	fprintf(f, "%4s %9s %8s %12s %10s\n", "ring", "requests", "workers", "peak queued", "busy");
	/* The pools and hash keys (format 3.1 work flags) on a line of their
	 * own below each ring's, so that the columns above stay as they were. */
	for (size_t i = 0; i < r->nrings; i++) {
		const struct ring_stats *rs = r->rings[i];
		char w[16];

		if (!rs || (!rs->iowq_requests && !rs->ring->iowq_workers))
			continue;
		/* No worker placed (no work events, and context switches
		 * that named none): 0 would read as "no worker ran". */
		if (rs->iowq_requests && !rs->iowq_placed && !rs->ring->iowq_workers) {
			fprintf(f, "%4u %9s %8s %12u %10s (no worker seen running them)\n",
				rs->ring->number, REQS(s, rs->iowq_requests, n), "unknown",
				rs->ring->iowq_peak,
				"unknown");
			print_iowq_pools(f, rs->ring);
			continue;
		}
		snprintf(w, sizeof(w), "%u", rs->ring->iowq_workers);
		fprintf(f, "%4u %9s %8s %12u %10s%s", rs->ring->number,
			REQS(s, rs->iowq_requests, n), w, rs->ring->iowq_peak,
			fmt_dur(rs->iowq_busy_ns, b, sizeof(b)),
			rs->iowq_busy_approx ? " (approximate)" : "");
		if (rs->iowq_placed < rs->iowq_requests)
			fprintf(f, " (%" PRIu64 " of %" PRIu64 " requests placed)", rs->iowq_placed,
				rs->iowq_requests);
		fputc('\n', f);
		print_iowq_pools(f, rs->ring);
	}
}

static void print_errors(struct report_output *s)
{
	const struct report *r = &s->rep;
	struct err_stats **es;
	FILE *f = s->f;
	char n[24], n2[24];
	size_t nerr;

	es = report_errors(r, &nerr);
	if (es && nerr) {
		fprintf(f, "\nErrors (complete requests with res < 0)\n");
		fprintf(f, "%-16s %-16s %9s\n", "opcode", "errno", "count");
		for (size_t i = 0; i < nerr; i++) {
			char op[NAMES_MAX_LEN], e[NAMES_MAX_LEN];

			fprintf(f, "%-16s %-16s %9s\n",
				names_opcode(s->meta.names, es[i]->opcode, op),
				names_errno(es[i]->err, e), REQS(s, es[i]->count, n));
		}
	}
	free(es);
	fprintf(f, "\nAnomalies\n");
	fprintf(f, "  CQ overflows          %" PRIu64 " (CQEs lost to the application: %" PRIu64 ")\n",
		r->overflows, r->dropped);
	fprintf(f, "  short writes          %" PRIu64 "\n", r->short_writes);
	fprintf(f, "  failed links          %s (members cancelled: %s)\n",
		REQS(s, r->failed_links, n), REQS(s, r->cancelled_links, n2));
	fprintf(f, "  failed at submission  %s\n", REQS(s, r->failed_requests, n));
	fprintf(f, "  CQEs of no request    %" PRIu64 "\n", r->aux_cqes);
	fprintf(f, "  multishot CQEs        %" PRIu64 "\n", r->multishot_cqes);
	fprintf(f, "  unpaired syscalls     %" PRIu64 "\n", r->unpaired_markers);
}

static void print_unknown(struct report_output *s, const struct output_totals *t)
{
	if (t->unknown_records)
		fprintf(s->f, "  records of unknown types (newer recorder; skipped)  %" PRIu64 "\n",
			t->unknown_records);
}

static void print_losses(struct report_output *s, const struct output_totals *t)
{
	const struct report *r = &s->rep;
	FILE *f = s->f;
	char a[24], b[24];

	if (t->nloss_counters) {
		bool any = false;

		for (size_t i = 0; i < t->nloss_counters; i++)
			if (!t->loss_counters[i].event_type && t->loss_counters[i].count)
				any = true;
		if (any) {
			fprintf(f, "\nLost events by CPU (recorder counters)\n");
			fprintf(f, "%6s %-20s %12s\n", "cpu", "kind", "lost");
			for (size_t i = 0; i < t->nloss_counters; i++) {
				const struct loss_counter *c = &t->loss_counters[i];
				char cpu[16];

				if (c->event_type || !c->count)
					continue;
				snprintf(cpu, sizeof(cpu), "%u", c->cpu);
				fprintf(f, "%6s %-20s %12" PRIu64 "\n",
					c->cpu == LOG_STREAM_GLOBAL ? "-" : cpu,
					loss_kind_name(c->kind), c->count);
			}
		}
	}
	if (!r->nlosses)
		return;
	fprintf(f, "\nLoss windows by CPU (times since the recording start)\n");
	fprintf(f, "%6s %8s %12s %12s %12s  %s\n", "cpu", "windows", "events", "first", "last",
		"sources");
	for (size_t i = 0; i < r->nlosses; i++) {
		const struct cpu_loss *c = &r->losses[i];
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%u", c->cpu);
		snprintf(a, sizeof(a), "%.6fs", (double)timebase_rel(s->meta.tb, c->first_ts) / 1e9);
		snprintf(b, sizeof(b), "%.6fs", (double)timebase_rel(s->meta.tb, c->last_ts) / 1e9);
		fprintf(f, "%6s %8" PRIu64 " %12" PRIu64 " %12s %12s ",
			c->cpu == LOG_STREAM_GLOBAL ? "-" : cpu, c->windows, c->events, a, b);
		for (unsigned src = 0, first = 1; src < LOSS_SOURCE_COUNT; src++) {
			if (!c->by_source[src] && !((src == LOSS_FRAME_GAP || src == LOSS_LOG_CUT) &&
						    c->unknown_windows))
				continue;
			fprintf(f, "%s%s %" PRIu64, first ? " " : ", ", loss_source_name(src),
				c->by_source[src]);
			first = 0;
		}
		fputc('\n', f);
	}
}

static int s_render(struct report_output *s, const struct output_totals *t, char *err, size_t errlen)
{
	FILE *f = s->f;

	print_header(s, t);
	print_banner(s, t);
	print_opcodes(s);
	print_paths(s);
	print_cq_wait(s);
	print_reasons(s);
	print_files(s);
	print_procs(s);
	print_iowq(s);
	print_errors(s);
	print_unknown(s, t);
	print_losses(s, t);
	if (t->nwarnings) {
		fprintf(f, "\nWarnings\n");
		for (size_t i = 0; i < t->nwarnings; i++)
			fprintf(f, "  %s\n", t->warnings[i]);
	}
	(void)err;
	(void)errlen;
	return 0;
}

static const struct output_ops summary_ops = REPORT_OUTPUT_OPS("summary");

struct output *output_summary_new(const struct output_config *cfg, char *err, size_t errlen)
{
	return report_output_new(cfg, &summary_ops, s_render, err, errlen);
}
