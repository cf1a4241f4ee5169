// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_layout.h"
#include "json.h"
#include "log_writer.h"
#include "synth_log.h"

#define SYNTH_MAX_CPUS 64

struct cpu_buf {
	unsigned char *data;
	size_t len, cap;
	uint32_t count;
	uint64_t first_ts, last_ts;
};

struct synth_log {
	struct log_writer *w;
	unsigned ncpus;
	struct cpu_buf cpu[SYNTH_MAX_CPUS];
	uint64_t last_ts;
	bool plain_events;
};

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "synth_log: %s: %s\n", what, msg);
	abort();
}

struct synth_log *synth_log_create(const char *path, const struct synth_options *opt)
{
	static const uint8_t id[16] = {
		0x52, 0x49, 0x4e, 0x47, 0x53, 0x49, 0x44, 0x45,
		0x40, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	struct synth_options def = { 0 };
	struct log_writer_options wopt = {
		.recording_id = id,
		.created_realtime_ns = 1700000000000000000ull,
		.overwrite = true,
	};
	struct synth_log *s = calloc(1, sizeof(*s));
	struct json_out o;
	char err[256];
	char *meta;
	size_t len;

	if (!s)
		die(path, "out of memory");
	if (!opt)
		opt = &def;
	s->ncpus = opt->ncpus ? opt->ncpus : 2;
	if (s->ncpus > SYNTH_MAX_CPUS)
		die(path, "too many CPUs");
	s->plain_events = opt->plain_events || opt->records_json;
	wopt.fixed_columns = opt->fixed_columns;
	if (log_writer_create(&s->w, path, &wopt, err, sizeof(err)))
		die(path, err);

	json_out_init(&o, true);
	json_obj_begin(&o);
	json_kv_str(&o, "format", "ringside-log");
	json_key(&o, "recorder");
	json_obj_begin(&o);
	json_kv_str(&o, "name", "synth_log");
	json_kv_str(&o, "version", "test");
	json_obj_end(&o);
	json_key(&o, "host");
	json_obj_begin(&o);
	json_kv_str(&o, "hostname", opt->hostname ? opt->hostname : "synthetic");
	json_kv_str(&o, "sysname", "Linux");
	json_kv_str(&o, "release", "6.18.0-synthetic");
	json_kv_str(&o, "machine", "x86_64");
	json_kv_u64(&o, "cpus", s->ncpus);
	json_kv_u64(&o, "page_size", 4096);
	json_obj_end(&o);
	json_key(&o, "clock");
	json_obj_begin(&o);
	json_kv_str(&o, "domain", "boottime");
	json_key(&o, "start");
	json_obj_begin(&o);
	json_kv_u64(&o, "boot_ns", opt->start_boot_ns ? opt->start_boot_ns : 1000000000ull);
	json_kv_u64(&o, "mono_ns", opt->start_boot_ns ? opt->start_boot_ns : 1000000000ull);
	json_kv_u64(&o, "real_ns", opt->start_real_ns ? opt->start_real_ns :
				   1700000000000000000ull);
	json_kv_u64(&o, "tai_ns", (opt->start_real_ns ? opt->start_real_ns :
				   1700000000000000000ull) + 37000000000ull);
	json_kv_u64(&o, "uncertainty_ns", 0);
	json_obj_end(&o);
	json_obj_end(&o);
	if (!opt->records_json) {
		json_key(&o, "records");
		ev_layout_to_json(&o);
	}
	json_obj_end(&o);
	meta = json_out_steal(&o, &len);
	if (!meta)
		die(path, "metadata JSON");
	if (opt->records_json || opt->extra_meta) {
		/* Splice raw JSON members in before the closing brace. */
		size_t extra = (opt->records_json ? strlen(opt->records_json) + 16 : 0) +
			       (opt->extra_meta ? strlen(opt->extra_meta) + 4 : 0);
		char *m = malloc(len + extra + 1);
		char *end = strrchr(meta, '}');
		size_t head = (size_t)(end - meta);
		size_t n;

		if (!m)
			die(path, "out of memory");
		memcpy(m, meta, head);
		n = head;
		if (opt->records_json)
			n += (size_t)sprintf(m + n, ",\"records\":%s", opt->records_json);
		if (opt->extra_meta)
			n += (size_t)sprintf(m + n, ",%s", opt->extra_meta);
		n += (size_t)sprintf(m + n, "}");
		free(meta);
		meta = m;
		len = n;
	}
	if (log_write_meta(s->w, meta, len))
		die(path, "cannot write metadata");
	free(meta);
	return s;
}

void synth_emit(struct synth_log *s, unsigned cpu, const void *rec, size_t size)
{
	struct cpu_buf *b;
	const struct ev_header *h = rec;

	if (cpu >= s->ncpus)
		die("synth_emit", "cpu out of range");
	b = &s->cpu[cpu];
	if (b->len + size > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;

		while (cap < b->len + size)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (!b->data)
			die("synth_emit", "out of memory");
		b->cap = cap;
	}
	memcpy(b->data + b->len, rec, size);
	b->len += size;
	if (!b->count || h->ts < b->first_ts)
		b->first_ts = h->ts;
	if (h->ts > b->last_ts)
		b->last_ts = h->ts;
	if (h->ts > s->last_ts)
		s->last_ts = h->ts;
	b->count++;
}

void synth_flush(struct synth_log *s)
{
	for (unsigned c = 0; c < s->ncpus; c++) {
		struct cpu_buf *b = &s->cpu[c];
		struct log_frame_desc d = {
			.type = LOG_FRAME_EVENTS,
			.flags = LOG_FRAME_F_MUST_UNDERSTAND,
			.stream = c,
			.count = b->count,
			.first_ts = b->first_ts,
			.last_ts = b->last_ts,
		};

		if (!b->count)
			continue;
		if (s->plain_events ? log_write_frame(s->w, &d, b->data, b->len) :
		    log_write_events(s->w, &d, b->data, b->len))
			die("synth_flush", "write failed");
		b->len = 0;
		b->count = 0;
		b->first_ts = b->last_ts = 0;
	}
}

void synth_frame(struct synth_log *s, uint16_t type, uint16_t flags, uint32_t stream,
		 uint32_t count, const void *payload, size_t len)
{
	struct log_frame_desc d = {
		.type = type, .flags = flags, .stream = stream, .count = count,
		.first_ts = s->last_ts, .last_ts = s->last_ts,
	};

	if (log_write_frame(s->w, &d, payload, len))
		die("synth_frame", "write failed");
}

void synth_loss(struct synth_log *s, const struct log_loss_row *rows, size_t n,
		uint64_t ts)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_LOSS, .stream = LOG_STREAM_GLOBAL,
		.count = (uint32_t)n, .first_ts = ts, .last_ts = ts,
	};

	if (log_write_frame(s->w, &d, rows, n * sizeof(*rows)))
		die("synth_loss", "write failed");
}

void synth_tasks(struct synth_log *s, const struct ev_task *tasks, size_t n)
{
	struct log_frame_desc d = {
		.type = LOG_FRAME_TASKS, .stream = LOG_STREAM_GLOBAL,
		.count = (uint32_t)n,
	};

	for (size_t i = 0; i < n; i++) {
		if (!i || tasks[i].ts < d.first_ts)
			d.first_ts = tasks[i].ts;
		if (tasks[i].ts > d.last_ts)
			d.last_ts = tasks[i].ts;
	}
	if (log_write_frame(s->w, &d, tasks, n * sizeof(*tasks)))
		die("synth_tasks", "write failed");
}

void synth_finish_json(struct synth_log *s, const char *end_json)
{
	char err[256];

	synth_flush(s);
	if (log_writer_finish(s->w, end_json, err, sizeof(err)))
		die("synth_finish", err);
	for (unsigned c = 0; c < s->ncpus; c++)
		free(s->cpu[c].data);
	free(s);
}

void synth_finish(struct synth_log *s, const char *reason)
{
	char end[256];

	if (reason)
		snprintf(end, sizeof(end), "{\"reason\":\"%s\"}", reason);
	synth_finish_json(s, reason ? end : NULL);
}
