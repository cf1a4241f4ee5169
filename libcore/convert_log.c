// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The log being converted (convert_log.h). */
#include <stdio.h>

#include "convert_log.h"

int convert_log_open(struct convert_log *c)
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

void convert_log_close(struct convert_log *c)
{
	merge_close(c->m);
	timebase_free(&c->tb);
	log_reader_close(c->r);
}

void convert_log_warnings(struct convert_log *c)
{
	size_t n;
	const char *const *w = merge_warnings(c->m, &n);

	if (c->o->quiet)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(c->errf, "uring-convert: warning: %s\n", w[i]);
}

void meta_str(const struct json_value *obj, const char *key, char *buf, size_t len)
{
	const char *s = json_get_str(obj, key, "");
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
}

/* The largest rate uring-record --sample accepts. */
#define SAMPLE_MAX	(1u << 20)

static int sampling_rate(const struct convert_log *c, const struct json_value *s,
			 const char *key, uint32_t *out)
{
	const struct json_value *v = json_get(s, key);
	uint64_t n;

	*out = 1;
	if (!v)
		return 0;
	if (!json_value_u64(v, &n) || n < 1 || n > SAMPLE_MAX) {
		fprintf(c->errf, "uring-convert: %s: metadata: sampling.%s is not a rate from 1 to %u\n",
			c->o->log_path, key, SAMPLE_MAX);
		return -1;
	}
	*out = (uint32_t)n;
	return 0;
}

int convert_log_sampling(const struct convert_log *c, uint32_t *requests, uint32_t *syscalls)
{
	const struct json_value *s = json_get(log_reader_info(c->r)->meta, "sampling");

	*requests = *syscalls = 1;
	if (!s)
		return 0;
	if (sampling_rate(c, s, "requests_one_in", requests) ||
	    sampling_rate(c, s, "syscalls_one_in", syscalls))
		return -1;
	return 0;
}

uint64_t convert_log_start(const struct convert_log *c)
{
	const struct log_info *info = log_reader_info(c->r);
	const struct merge_stats *st = merge_stats(c->m);
	uint64_t start = info->have_start_clock ? info->start_clock.boot_ns : 0;
	uint64_t first = st->first_ts;

	/* a snapshot's records before its window are dropped (merge.c) */
	if (first && st->window_start_ns > first)
		first = st->window_start_ns;
	if (first && (!start || first < start))
		start = first;
	return start;
}
