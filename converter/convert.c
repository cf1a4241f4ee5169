// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "csv_tables.h"
#include "filter.h"
#include "fxt_layout.h"
#include "merge.h"
#include "model.h"
#include "model_names.h"
#include "names.h"
#include "output_util.h"
#include "timebase.h"

/* Printable copy of a metadata string (it comes from a file). */
static void meta_str(const struct json_value *obj, const char *key, char *buf, size_t len)
{
	const char *s = json_get_str(obj, key, "");
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
}

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

struct context {
	const struct options *o;
	FILE *errf;
	struct log_reader *r;
	struct timebase tb;
	struct merge *m;
	struct names names;
	char hostname[128], release[128], machine[64], iowq[32], selection[256];
};

static int open_log(struct context *c)
{
	char msg[LOG_MSG_LEN];

	if (log_reader_open(&c->r, c->o->log_path, msg, sizeof(msg))) {
		fprintf(c->errf, "uring-convert: %s\n", msg);
		return 1;
	}
	timebase_init(&c->tb);
	if (merge_open(&c->m, c->r, &c->tb, msg, sizeof(msg))) {
		fprintf(c->errf, "uring-convert: %s\n", msg);
		return 1;
	}
	if (log_reader_info(c->r)->have_start_clock &&
	    timebase_add(&c->tb, &log_reader_info(c->r)->start_clock)) {
		fprintf(c->errf, "uring-convert: out of memory\n");
		return 1;
	}
	names_init(&c->names, log_reader_info(c->r)->meta);
	return 0;
}

static void close_log(struct context *c)
{
	merge_close(c->m);
	timebase_free(&c->tb);
	log_reader_close(c->r);
}

static void print_warnings(struct context *c)
{
	size_t n;
	const char *const *w = merge_warnings(c->m, &n);

	if (c->o->quiet)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(c->errf, "uring-convert: warning: %s\n", w[i]);
}

/* Recording start: the start clock snapshot, or the first record if earlier,
 * so that relative times are never negative. */
static uint64_t recording_start(const struct context *c)
{
	const struct log_info *info = log_reader_info(c->r);
	const struct merge_stats *st = merge_stats(c->m);
	uint64_t start = info->have_start_clock ? info->start_clock.boot_ns : 0;

	if (st->first_ts && (!start || st->first_ts < start))
		start = st->first_ts;
	return start;
}

static int resolve_time(struct context *c, const struct time_arg *t, uint64_t start,
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

int convert_into(const struct options *o, struct output *out, FILE *errf)
{
	struct context c = { .o = o, .errf = errf ? errf : stderr };
	struct output_meta meta = { 0 };
	struct output_totals totals = { 0 };
	struct selection sel = { .start_ns = 0, .end_ns = UINT64_MAX };
	struct model_config mcfg = { 0 };
	struct model *model = NULL;
	struct progress prog = { 0 };
	const struct merge_stats *st;
	const struct json_value *host;
	struct output *sink = out;
	char err[LOG_MSG_LEN];
	struct merge_item it;
	size_t off = 0;
	int ret = 1, r;
	uint64_t n = 0;

	if (open_log(&c))
		goto cleanup;
	st = merge_stats(c.m);
	meta.log_path = o->log_path;
	meta.info = log_reader_info(c.r);
	meta.names = &c.names;
	meta.tb = &c.tb;
	c.tb.start_ns = meta.start_ns = recording_start(&c);
	meta.end_ns = st->last_ts > meta.start_ns ? st->last_ts : meta.start_ns;
	meta.ncpus = meta.info->ncpus;
	host = json_get(meta.info->meta, "host");
	meta_str(host, "hostname", c.hostname, sizeof(c.hostname));
	meta_str(host, "release", c.release, sizeof(c.release));
	meta_str(host, "machine", c.machine, sizeof(c.machine));
	meta_str(meta.info->meta, "io_wq_tracking", c.iowq, sizeof(c.iowq));
	meta.hostname = c.hostname;
	meta.kernel_release = c.release;
	meta.machine = c.machine;
	meta.io_wq_tracking = c.iowq;
	meta.converter_version = PACKAGE_VERSION;

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
	if (o->start.set)
		off += (size_t)snprintf(c.selection + off, sizeof(c.selection) - off,
					"--start %s ", o->start.text);
	if (o->end.set && off < sizeof(c.selection))
		off += (size_t)snprintf(c.selection + off, sizeof(c.selection) - off,
					"--end %s ", o->end.text);
	for (size_t i = 0; i < o->npids && off < sizeof(c.selection); i++)
		off += (size_t)snprintf(c.selection + off, sizeof(c.selection) - off,
					"--pid %u ", o->pids[i]);
	for (size_t i = 0; i < o->nrings && off < sizeof(c.selection); i++)
		off += (size_t)snprintf(c.selection + off, sizeof(c.selection) - off,
					"--ring %u ", o->rings[i]);
	if (off && off < sizeof(c.selection))
		c.selection[off - 1] = '\0';
	meta.selection = c.selection;
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
	if (sink->ops->begin(sink, &meta, err, sizeof(err))) {
		fprintf(c.errf, "uring-convert: %s\n", err);
		goto cleanup;
	}
	mcfg.out = sink;
	mcfg.names = &c.names;
	mcfg.iowq_exact = !strcmp(c.iowq, "fentry") || !strcmp(c.iowq, "kprobe");
	if (model_new(&model, &mcfg)) {
		fprintf(c.errf, "uring-convert: out of memory\n");
		goto cleanup;
	}
	prog.on = !o->quiet && isatty(fileno(c.errf));
	prog.total = st->bytes_total;
	while ((r = merge_next(c.m, &it, err, sizeof(err))) > 0) {
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
	totals.records = st->records;
	totals.unknown_records = st->unknown_records;
	totals.loss_counters = st->loss_counters;
	totals.nloss_counters = st->nloss_counters;
	totals.lost_events = st->lost_total;
	totals.damaged_frames = st->damaged_frames;
	totals.frame_gaps = st->frame_gaps;
	totals.stop = st->stop;
	totals.stop_message = st->stop == LOG_STOP_END ? "" : st->stop_message;
	totals.end_reason = st->end_reason;
	totals.warnings = merge_warnings(c.m, &totals.nwarnings);
	print_warnings(&c);
	if (st->unknown_records && !o->quiet)
		fprintf(c.errf, "uring-convert: warning: %s: %" PRIu64
			" records of types this uring-convert does not know were skipped (a newer recorder wrote them; upgrade ringside to see them)\n",
			o->log_path, st->unknown_records);
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
		close_log(&c);
	return ret;
}

/* A metadata value on one line, printable ASCII only, at most len chars. */
static void info_value(FILE *f, const struct json_value *v, int *left)
{
	if (!v || *left <= 0)
		return;
	switch (v->type) {
	case JSON_NULL:
		*left -= fprintf(f, "null");
		break;
	case JSON_BOOL:
		*left -= fprintf(f, v->boolean ? "true" : "false");
		break;
	case JSON_NUMBER:
		if (v->is_integer && !v->magnitude_overflow)
			*left -= fprintf(f, "%s%" PRIu64, v->is_negative ? "-" : "", v->magnitude);
		else
			*left -= fprintf(f, "%g", v->number);
		break;
	case JSON_STRING:
		for (size_t i = 0; i < v->len && *left > 0; i++, (*left)--)
			fputc((unsigned char)v->string[i] >= 0x20 && (unsigned char)v->string[i] < 0x7f ?
			      v->string[i] : '?', f);
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		fputc(v->type == JSON_ARRAY ? '[' : '{', f);
		(*left)--;
		for (size_t i = 0; i < v->len && *left > 0; i++) {
			if (i)
				*left -= fprintf(f, ", ");
			if (v->type == JSON_OBJECT)
				*left -= fprintf(f, "%.40s=", v->keys[i]);
			info_value(f, &v->items[i], left);
		}
		fputc(v->type == JSON_ARRAY ? ']' : '}', f);
		(*left)--;
		break;
	}
}

static void info_line(FILE *f, const char *label, const struct json_value *v)
{
	int left = 400;

	if (!v)
		return;
	fprintf(f, "%-14s", label);
	info_value(f, v, &left);
	fprintf(f, left <= 0 ? " ...\n" : "\n");
}

static void info_probes(FILE *f, const struct json_value *probes)
{
	if (!probes || probes->type != JSON_ARRAY)
		return;
	fprintf(f, "probes:\n");
	for (size_t i = 0; i < probes->len; i++) {
		const struct json_value *p = json_at(probes, i);
		char hook[96], status[32], variant[64], reason[160];

		meta_str(p, "hook", hook, sizeof(hook));
		meta_str(p, "status", status, sizeof(status));
		meta_str(p, "variant", variant, sizeof(variant));
		meta_str(p, "reason", reason, sizeof(reason));
		fprintf(f, "  %-32s %-9s %s%s%s\n", hook, status, variant,
			*reason ? "  " : "", reason);
	}
}

int convert_info(const struct options *o, FILE *f, FILE *errf)
{
	struct context c = { .o = o, .errf = errf ? errf : stderr };
	const struct log_info *info;
	const struct merge_stats *st;
	const struct json_value *meta, *host, *rec;
	char a[TIMEBASE_ISO_LEN], b[128], d[128];
	uint64_t start;
	int ret = 1;

	if (open_log(&c))
		goto cleanup;
	info = log_reader_info(c.r);
	st = merge_stats(c.m);
	meta = info->meta;
	host = json_get(meta, "host");
	rec = json_get(meta, "recorder");
	c.tb.start_ns = start = recording_start(&c);
	fprintf(f, "log:          %s (%" PRIu64 " bytes)\n", o->log_path, info->file_size);
	fprintf(f, "format:       %u.%u\n", info->major, info->minor);
	fprintf(f, "recording id: %s\n", info->recording_id_str);
	fprintf(f, "created:      %s\n", format_iso_ns((int64_t)info->created_realtime_ns, a));
	meta_str(rec, "name", b, sizeof(b));
	meta_str(rec, "version", d, sizeof(d));
	fprintf(f, "recorder:     %s %s\n", *b ? b : "?", d);
	{
		const struct json_value *argv = json_get(rec, "command_line");

		if (argv && argv->type == JSON_ARRAY) {
			fprintf(f, "command line:");
			for (size_t i = 0; i < argv->len; i++) {
				const struct json_value *v = json_at(argv, i);
				char arg[256];
				size_t k;

				if (!v || v->type != JSON_STRING)
					continue;
				for (k = 0; k < v->len && k + 1 < sizeof(arg); k++)
					arg[k] = (unsigned char)v->string[k] >= 0x20 &&
						 (unsigned char)v->string[k] < 0x7f ? v->string[k] : '?';
				arg[k] = '\0';
				fprintf(f, " %s", arg);
			}
			fputc('\n', f);
		}
	}
	meta_str(host, "hostname", b, sizeof(b));
	meta_str(host, "release", d, sizeof(d));
	fprintf(f, "host:         %s, Linux %s, %u CPUs\n", *b ? b : "?", *d ? d : "?", info->ncpus);
	meta_str(meta, "io_wq_tracking", b, sizeof(b));
	fprintf(f, "io-wq:        %s\n", *b ? b : "unknown");
	meta_str(json_get(meta, "opcodes"), "source", b, sizeof(b));
	fprintf(f, "opcodes:      %s\n", *b ? b : "built-in table");
	meta_str(meta, "pointers", b, sizeof(b));
	fprintf(f, "pointers:     %s\n", *b ? b : "opaque");
	info_line(f, "filters:", json_get(meta, "filters"));
	info_line(f, "options:", json_get(meta, "options"));
	info_probes(f, json_get(meta, "probes"));
	fprintf(f, "time:         start %s", *timebase_iso(&c.tb, start, a) ? a : "(no wall clock)");
	fprintf(f, ", span %.9f s, %zu clock snapshots\n",
		st->last_ts > start ? (double)(st->last_ts - start) / 1e9 : 0.0, c.tb.nsnaps);
	fprintf(f, "frames:      ");
	for (unsigned t = 1; t < 16; t++)
		if (st->frames_by_type[t])
			fprintf(f, " %s %" PRIu64, log_frame_type_name(t), st->frames_by_type[t]);
	if (st->unknown_frames)
		fprintf(f, " unknown %" PRIu64, st->unknown_frames);
	fputc('\n', f);
	fprintf(f, "records:      %" PRIu64 " (headers)\n", st->planned_records);
	fprintf(f, "per CPU:\n  %5s %8s %12s %12s %12s %14s %14s\n", "cpu", "frames", "records",
		"stored", "raw", "first_ns", "last_ns");
	for (size_t i = 0; i < st->ncpus; i++) {
		const struct merge_cpu_stats *p = &st->cpus[i];

		fprintf(f, "  %5u %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %14" PRId64
			" %14" PRId64 "\n", p->cpu, p->frames, p->records, p->stored_bytes,
			p->raw_bytes, timebase_rel(&c.tb, p->first_ts), timebase_rel(&c.tb, p->last_ts));
	}
	fprintf(f, "lost events:  %" PRIu64 "%s\n", st->lost_total,
		st->nloss_counters ? "" : " (no LOSS frame)");
	for (size_t i = 0; i < st->nloss_counters; i++) {
		const struct loss_counter *l = &st->loss_counters[i];

		if (!l->count)
			continue;
		fprintf(f, "  cpu %u %s %s: %" PRIu64 "\n", l->cpu, loss_kind_name(l->kind),
			l->event_type ? ev_type_name(l->event_type) : "total", l->count);
	}
	if (st->stop == LOG_STOP_END)
		fprintf(f, "stopped:      %s%s%s\n", *st->end_reason ? st->end_reason : "cleanly",
			*st->end_message ? ": " : "", st->end_message);
	else
		fprintf(f, "stopped:      NOT CLEANLY: %s\n", st->stop_message);
	if (st->frame_gaps)
		fprintf(f, "frame gaps:   %" PRIu64 "\n", st->frame_gaps);
	print_warnings(&c);
	ret = fflush(f) || ferror(f) ? 1 : 0;
	if (ret)
		fprintf(c.errf, "uring-convert: write error on output\n");
cleanup:
	if (c.r)
		close_log(&c);
	return ret;
}

/* Would writing path destroy the log being read (--force -o LOG)? */
static bool is_the_log(const char *log, const char *path)
{
	struct stat a, b;

	return path && stat(log, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool output_is_log(const struct options *o, enum out_format fmt)
{
	if (!o->output)
		return false;
	if (fmt != FORMAT_CSV)
		return is_the_log(o->log_path, o->output);
	for (int i = 0; i < CSV_NTABLES; i++) {
		char *path = csv_table_path(o->output, i);
		bool same = is_the_log(o->log_path, path);

		free(path);
		if (same)
			return true;
	}
	return false;
}

int convert_run(const struct options *o)
{
	struct output_config cfg = { .path = o->output, .force = o->force, .quiet = o->quiet,
				     .csv_tables = o->csv_tables };
	enum out_format fmt = o->format;
	struct output *out = NULL;
	char err[LOG_MSG_LEN];

	if (o->info) {
		FILE *f = stdout;
		bool is_stdout;
		int ret;

		if (o->output) {
			f = output_open_file(o->output, o->force, &is_stdout, err, sizeof(err));
			if (!f) {
				fprintf(stderr, "uring-convert: %s\n", err);
				return 1;
			}
		}
		ret = convert_info(o, f, stderr);
		if (f != stdout)
			fclose(f);
		return ret;
	}
	if (fmt == FORMAT_DEFAULT)
		fmt = isatty(STDOUT_FILENO) && (!o->output || !strcmp(o->output, "-")) ?
		      FORMAT_SUMMARY : FORMAT_JSON;
	if (output_is_log(o, fmt)) {
		fprintf(stderr, "uring-convert: %s: refusing to write over the log being converted\n",
			o->output);
		return 1;
	}
	switch (fmt) {
	case FORMAT_SUMMARY:
		out = output_summary_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_JSON:
		out = output_json_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_CSV:
		if (!o->output) {
			fprintf(stderr, "uring-convert: --format=csv writes several files: give a directory with -o DIR\n");
			return 2;
		}
		out = output_csv_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_FXT:
		out = output_fxt_new(&cfg, o->lanes ? o->lanes : FXT_LANES_DEFAULT, err, sizeof(err));
		break;
	default:
		break;
	}
	if (!out) {
		fprintf(stderr, "uring-convert: %s\n", err);
		return 1;
	}
	return convert_into(o, out, stderr);
}
