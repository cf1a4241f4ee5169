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
