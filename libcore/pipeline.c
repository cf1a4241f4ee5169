// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The conversion pipeline, the core every program shares: the log's
 * records, merged across CPUs in time order (merge.c), selected
 * (filter.c), followed request by request by the model (model.c), which
 * calls an output (output.h): uring-convert's formats, uring-replay's plan.
 * With more than one CPU, FXT and CSV output run on a thread of their own
 * (output_async.h), the model on this one.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "convert_log.h"
#include "filter.h"
#include "merge.h"
#include "model.h"
#include "names.h"
#include "output_async.h"
#include "pipeline.h"
#include "timebase.h"

bool convert_stop_after_end = true;

struct progress {
	bool on;
	struct timespec last;
	uint64_t total;
};

static void progress_update(struct progress *p, uint64_t done, bool final)
{
	struct timespec now;
	int width = 40, fill;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!final && (now.tv_sec - p->last.tv_sec) * 1000000000L +
		      (now.tv_nsec - p->last.tv_nsec) < 100000000L)
		return;
	p->last = now;
	if (final) {
		fprintf(stderr, "\r%*s\r", width + 40, "");
		return;
	}
	fill = p->total ? (int)((double)done / (double)p->total * width) : 0;
	if (fill > width)
		fill = width;
	fprintf(stderr, "\r[%.*s%*s] %3d%%  %" PRIu64 " / %" PRIu64 " MiB", fill,
		"========================================", width - fill, "",
		p->total ? (int)(100.0 * (double)done / (double)p->total) : 0,
		done >> 20, p->total >> 20);
}

static int resolve_time(struct convert_log *c, const struct time_arg *t, uint64_t start,
			uint64_t *out, const char *opt)
{
	if (!t->absolute) {
		*out = start + (uint64_t)t->rel_ns;
		return 0;
	}
	if (!timebase_boot(&c->tb, t->real_ns, out)) {
		fprintf(c->errf, "uring-convert: --%s %s: %s has no clock snapshot to map wall-clock times; use a relative time\n",
			opt, t->text, c->o->log_path);
		return -1;
	}
	return 0;
}

/*
 * --threads, else the CPUs this process may run on for FXT and CSV, whose
 * formatting costs as much as following the requests.  The summary, JSON
 * and fio cost little to write: what they wait for is the model's thread,
 * which would also copy every call for their thread, so a thread of their
 * own slows them down.
 */
unsigned convert_threads(const struct options *o)
{
	cpu_set_t set;

	if (o->threads)
		return o->threads;
	if (o->format != FORMAT_FXT && o->format != FORMAT_CSV)
		return 1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

/* The recording's host and settings, and the selection, as the outputs name them. */
struct meta_text {
	char hostname[128], release[128], machine[64], iowq[32];
	char selection[256];
};

static void fill_meta(struct convert_log *c, struct output_meta *meta, struct meta_text *t)
{
	const struct merge_stats *st = merge_stats(c->m);
	const struct json_value *host;

	meta->log_path = c->o->log_path;
	meta->info = log_reader_info(c->r);
	meta->names = &c->names;
	meta->tb = &c->tb;
	c->tb.start_ns = meta->start_ns = convert_log_start(c);
	meta->end_ns = st->last_ts > meta->start_ns ? st->last_ts : meta->start_ns;
	meta->ncpus = meta->info->ncpus;
	host = json_get(meta->info->meta, "host");
	meta_str(host, "hostname", t->hostname, sizeof(t->hostname));
	meta_str(host, "release", t->release, sizeof(t->release));
	meta_str(host, "machine", t->machine, sizeof(t->machine));
	meta_str(meta->info->meta, "io_wq_tracking", t->iowq, sizeof(t->iowq));
	meta->hostname = t->hostname;
	meta->kernel_release = t->release;
	meta->machine = t->machine;
	meta->io_wq_tracking = t->iowq;
	meta->converter_version = PACKAGE_VERSION;
}

/* The selection options as given, for the outputs' metadata. */
static void selection_text(const struct options *o, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (o->start.set)
		off += (size_t)snprintf(buf + off, len - off, "--start %s ", o->start.text);
	if (o->end.set && off < len)
		off += (size_t)snprintf(buf + off, len - off, "--end %s ", o->end.text);
	for (size_t i = 0; i < o->npids && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "--pid %u ", o->pids[i]);
	for (size_t i = 0; i < o->nrings && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "--ring %u ", o->rings[i]);
	if (off && off < len)
		buf[off - 1] = '\0';
}

/* What the merge counted, for the outputs' end. */
static void fill_totals(struct convert_log *c, struct output_totals *t)
{
	const struct merge_stats *st = merge_stats(c->m);

	t->records = st->records;
	t->unknown_records = st->unknown_records;
	t->loss_counters = st->loss_counters;
	t->nloss_counters = st->nloss_counters;
	t->lost_events = st->lost_total;
	t->damaged_frames = st->damaged_frames;
	t->frame_gaps = st->frame_gaps;
	t->stop = st->stop;
	t->stop_message = st->stop == LOG_STOP_END ? "" : st->stop_message;
	t->end_reason = st->end_reason;
	t->trigger = st->window_start_ns ? st->trigger : "";
	t->snapshot = st->snapshot;
	t->trigger_ns = st->trigger_ns;
	/* 1: nothing was evicted, the window is the whole recording */
	t->window_start_ns = st->window_start_ns > 1 ? st->window_start_ns : convert_log_start(c);
	t->window_dropped = st->window_dropped;
	t->window_cut = st->window_start_ns > 1;
	t->cost = &st->cost;
	t->warnings = merge_warnings(c->m, &t->nwarnings);
}

/*
 * Past the window, with nothing of it still open: whatever comes next
 * began after it, so the rest of the log cannot change what is delivered.
 */
static bool window_done(const struct merge_item *it, uint64_t end_ns, const struct model *model,
			uint64_t *stop_ts)
{
	uint64_t ts = it->kind == MERGE_RECORD ? it->rec->ts : it->loss.first_ts;

	if (ts <= end_ns || model_open_by_end(model))
		return false;
	*stop_ts = ts;
	return true;
}

int convert_into(const struct options *o, struct output *out, FILE *errf)
{
	struct convert_log c = { .o = o, .errf = errf ? errf : stderr };
	struct output_meta meta = { 0 };
	struct output_totals totals = { 0 };
	struct selection sel = { .start_ns = 0, .end_ns = UINT64_MAX };
	struct model_config mcfg = { 0 };
	struct model *model = NULL;
	struct progress prog = { 0 };
	const struct merge_stats *st;
	struct output *sink = out;
	struct meta_text text = { 0 };
	char err[LOG_MSG_LEN];
	struct merge_item it;
	int ret = 1, r;
	uint64_t n = 0, stop_ts = 0;

	if (convert_log_open(&c))
		goto cleanup;
	st = merge_stats(c.m);
	fill_meta(&c, &meta, &text);
	if (convert_log_sampling(&c, &meta.sample_requests, &meta.sample_syscalls))
		goto cleanup;

	if (o->start.set && resolve_time(&c, &o->start, meta.start_ns, &sel.start_ns, "start"))
		goto cleanup;
	if (o->end.set && resolve_time(&c, &o->end, meta.start_ns, &sel.end_ns, "end"))
		goto cleanup;
	if (sel.start_ns > sel.end_ns) {
		fprintf(c.errf, "uring-convert: --start is after --end\n");
		goto cleanup;
	}
	sel.pids = o->pids;
	sel.npids = o->npids;
	sel.rings = o->rings;
	sel.nrings = o->nrings;
	selection_text(o, text.selection, sizeof(text.selection));
	meta.selection = text.selection;
	meta.sel_start_ns = sel.start_ns;
	meta.sel_end_ns = sel.end_ns;

	if (o->start.set || o->end.set || o->npids || o->nrings) {
		sink = output_filter_new(out, &sel);
		if (!sink) {
			fprintf(c.errf, "uring-convert: out of memory\n");
			sink = out;
			goto cleanup;
		}
	}
	if (convert_threads(o) > 1) {
		struct output *async = output_async_new(sink);

		if (async)	/* else everything on this thread */
			sink = async;
	}
	if (sink->ops->begin(sink, &meta, err, sizeof(err))) {
		fprintf(c.errf, "uring-convert: %s\n", err);
		goto cleanup;
	}
	mcfg.out = sink;
	mcfg.names = &c.names;
	mcfg.iowq_exact = !strcmp(text.iowq, "fentry") || !strcmp(text.iowq, "kprobe");
	mcfg.sample_every = meta.sample_requests;
	mcfg.end_ns = o->end.set && convert_stop_after_end ? sel.end_ns : 0;
	if (model_new(&model, &mcfg)) {
		fprintf(c.errf, "uring-convert: out of memory\n");
		goto cleanup;
	}
	prog.on = !o->quiet && isatty(fileno(c.errf));
	prog.total = st->bytes_total;
	while ((r = merge_next(c.m, &it, err, sizeof(err))) > 0) {
		if (mcfg.end_ns && window_done(&it, mcfg.end_ns, model, &stop_ts))
			break;
		if (it.kind == MERGE_LOSS)
			model_loss(model, &it.loss);
		else if (it.known)
			model_record(model, it.rec, it.cpu);
		if (model_failed(model))
			break;
		if (prog.on && !(++n & 4095))
			progress_update(&prog, st->bytes_done, false);
	}
	progress_update(&prog, 0, true);
	if (r < 0) {
		fprintf(c.errf, "uring-convert: %s\n", err);
		goto cleanup;
	}
	if (!model_failed(model))
		model_finish(model);
	model_totals(model, &totals);
	if (model_failed(model)) {
		fprintf(c.errf, "uring-convert: %s: out of memory while converting\n", o->log_path);
		goto cleanup;
	}
	fill_totals(&c, &totals);
	if (stop_ts) {
		/* the record that showed the window done was merged, not read */
		totals.read_to_ns = stop_ts;
		if (it.kind == MERGE_RECORD) {
			totals.records--;
			totals.unknown_records -= !it.known;
		}
	}
	convert_log_warnings(&c);
	if (totals.unknown_records && !o->quiet)
		fprintf(c.errf, "uring-convert: warning: %s: %" PRIu64
			" records of types this uring-convert does not know were skipped (a newer recorder wrote them; upgrade ringside to see them)\n",
			o->log_path, totals.unknown_records);
	if (sink->ops->end(sink, &totals, err, sizeof(err))) {
		fprintf(c.errf, "uring-convert: %s\n", err);
		goto cleanup;
	}
	ret = 0;
cleanup:
	/* The output may hold task and ring pointers until destroy(). */
	if (sink)
		sink->ops->destroy(sink);
	model_free(model);
	if (c.r)
		convert_log_close(&c);
	return ret;
}

/* Would writing path destroy the log being read (--force -o LOG)? */