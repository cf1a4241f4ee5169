// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert --info: what a log holds (recording, host, probes, frames
 * and records per CPU, losses, how it stopped), without converting it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "convert.h"
#include "convert_log.h"
#include "model_names.h"
#include "output_util.h"
#include "report.h"

/*
 * At most this many characters of one metadata value: a hostile log cannot
 * fill the terminal, and a list is cut only between items, saying how many
 * were left out.
 */
#define INFO_VALUE_MAX 2000

/* A metadata value on one line, printable ASCII only. */
static void info_value(FILE *f, const struct json_value *v, int *left)
{
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
		for (size_t i = 0; i < v->len; i++, (*left)--) {
			if (*left <= 0) {
				fprintf(f, "...");
				break;
			}
			fputc((unsigned char)v->string[i] >= 0x20 && (unsigned char)v->string[i] < 0x7f ?
			      v->string[i] : '?', f);
		}
		break;
	case JSON_ARRAY:
	case JSON_OBJECT:
		fputc(v->type == JSON_ARRAY ? '[' : '{', f);
		(*left)--;
		for (size_t i = 0; i < v->len; i++) {
			if (*left <= 0) {
				*left -= fprintf(f, "%s... %zu more", i ? ", " : "", v->len - i);
				break;
			}
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

/* label and value; an object one member a line below the label. */
static void info_line(FILE *f, const char *label, const struct json_value *v)
{
	int left = INFO_VALUE_MAX;

	if (!v)
		return;
	if (v->type != JSON_OBJECT || !v->len) {
		fprintf(f, "%-14s", label);
		info_value(f, v, &left);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%s\n", label);
	for (size_t i = 0; i < v->len; i++) {
		left = INFO_VALUE_MAX;
		fprintf(f, "  %-28.40s ", v->keys[i]);
		info_value(f, &v->items[i], &left);
		fputc('\n', f);
	}
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
	struct convert_log c = { .o = o, .errf = errf ? errf : stderr };
	const struct log_info *info;
	const struct merge_stats *st;
	const struct json_value *meta, *host, *rec;
	char a[TIMEBASE_ISO_LEN], b[128], d[128];
	uint64_t start;
	uint32_t sample_req, sample_sys;
	int ret = 1;

	if (convert_log_open(&c))
		goto cleanup;
	info = log_reader_info(c.r);
	st = merge_stats(c.m);
	meta = info->meta;
	host = json_get(meta, "host");
	rec = json_get(meta, "recorder");
	c.tb.start_ns = start = convert_log_start(&c);
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
	if (convert_log_sampling(&c, &sample_req, &sample_sys))
		goto cleanup;
	if (sample_req > 1)
		fprintf(f, "sampling:     1 request in %u, %s (uring-record --sample)\n", sample_req,
			sample_sys > 1 ? "1 io_uring_enter call in N" : "every syscall");
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
	if (st->window_start_ns)
		print_snapshot_line(f, "snapshot:     ", st->snapshot, st->trigger, st->trigger_ns,
				    st->window_start_ns, &c.tb);
	{
		char cost[256];

		if (report_cost_text(&st->cost, 0, cost, sizeof(cost)))
			fprintf(f, "cost:         %s\n", cost);
	}
	convert_log_warnings(&c);
	ret = fflush(f) || ferror(f) ? 1 : 0;
	if (ret)
		fprintf(c.errf, "uring-convert: write error on output\n");
cleanup:
	if (c.r)
		convert_log_close(&c);
	return ret;
}
