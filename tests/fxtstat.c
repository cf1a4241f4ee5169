// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxtstat: what Perfetto would show for an FXT file, as JSON, for the
 * end-to-end suite (tests/e2e/check.py) to compare with the workload's
 * ground truth.
 * It reads the file with the independent tests/fxt_reader (which replays
 * Perfetto's slice stacks and flow binding) and prints:
 *
 *   issues, issue_messages   what Perfetto would drop or misplace (the first 20)
 *   processes                [{pid, name}]
 *   threads                  [{pid, tid, name, top {slice name: n at depth 0},
 *                              all {slice name: n at any depth}}]
 *   flows                    {kind ("request", "link"): {count, ended,
 *                              points {"2": n, "3": n, ...}}}, arrows
 *   counters                 [{pid, name, samples, max, last}]
 *
 *   fxtstat FILE.fxt
 * Exit status 0, or 1 when the file cannot be read (one line on stderr).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fxt_reader.h"
#include "json.h"

struct name_count {
	const char *name;
	uint64_t top, all;
};

struct tcounts {
	struct name_count *v;
	size_t n, cap;
};

static struct name_count *bump(struct tcounts *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v) {
			fprintf(stderr, "fxtstat: out of memory\n");
			exit(1);
		}
	}
	t->v[t->n] = (struct name_count){ .name = name };
	return &t->v[t->n++];
}

static int cmp_nc(const void *a, const void *b)
{
	return strcmp(((const struct name_count *)a)->name, ((const struct name_count *)b)->name);
}

int main(int argc, char **argv)
{
	struct fxtr_model *m;
	struct tcounts *tc;
	struct json_out o;
	char err[512];
	const char *kinds[] = { "request", "link" };
	char *text;
	size_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: fxtstat FILE.fxt\n");
		return 2;
	}
	if (fxtr_read_file(argv[1], &m, err, sizeof(err))) {
		fprintf(stderr, "fxtstat: %s\n", err);
		return 1;
	}
	tc = calloc(m->nthreads + 1, sizeof(*tc));
	if (!tc) {
		fprintf(stderr, "fxtstat: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < m->nslices; i++) {
		const struct fxtr_slice *s = &m->slices[i];
		const struct fxtr_thread *t = fxtr_find_thread(m, s->pid, s->tid);
		struct name_count *nc;

		if (!t)
			continue;
		nc = bump(&tc[t - m->threads], s->name);
		nc->all++;
		if (!s->depth)
			nc->top++;
	}

	json_out_init(&o, false);
	json_obj_begin(&o);
	json_kv_u64(&o, "issues", m->nissues);
	json_key(&o, "issue_messages");
	json_arr_begin(&o);
	for (size_t i = 0; i < m->nissues_kept && i < 20; i++)
		json_str(&o, m->issues[i].message);
	json_arr_end(&o);
	json_key(&o, "processes");
	json_arr_begin(&o);
	for (size_t i = 0; i < m->nprocesses; i++) {
		json_obj_begin(&o);
		json_kv_u64(&o, "pid", m->processes[i].pid);
		json_key(&o, "name");
		if (m->processes[i].name)
			json_str(&o, m->processes[i].name);
		else
			json_null(&o);
		json_obj_end(&o);
	}
	json_arr_end(&o);
	json_key(&o, "threads");
	json_arr_begin(&o);
	for (size_t i = 0; i < m->nthreads; i++) {
		const struct fxtr_thread *t = &m->threads[i];

		json_obj_begin(&o);
		json_kv_u64(&o, "pid", t->pid);
		json_kv_u64(&o, "tid", t->tid);
		json_key(&o, "name");
		if (t->name)
			json_str(&o, t->name);
		else
			json_null(&o);
		if (tc[i].n)
			qsort(tc[i].v, tc[i].n, sizeof(*tc[i].v), cmp_nc);
		json_key(&o, "top");
		json_obj_begin(&o);
		for (size_t k = 0; k < tc[i].n; k++)
			if (tc[i].v[k].top)
				json_kv_u64(&o, tc[i].v[k].name, tc[i].v[k].top);
		json_obj_end(&o);
		json_key(&o, "all");
		json_obj_begin(&o);
		for (size_t k = 0; k < tc[i].n; k++)
			json_kv_u64(&o, tc[i].v[k].name, tc[i].v[k].all);
		json_obj_end(&o);
		json_obj_end(&o);
		free(tc[i].v);
	}
	json_arr_end(&o);
	json_key(&o, "flows");
	json_obj_begin(&o);
	for (size_t k = 0; k < 2; k++) {
		uint64_t count = 0, ended = 0, points[16] = { 0 };

		for (size_t i = 0; i < m->nflows; i++) {
			const struct fxtr_flow *f = &m->flows[i];

			if (strcmp(m->records[f->points[0].record].name, kinds[k]))
				continue;
			count++;
			ended += f->ended;
			points[f->npoints < 15 ? f->npoints : 15]++;
		}
		json_key(&o, kinds[k]);
		json_obj_begin(&o);
		json_kv_u64(&o, "count", count);
		json_kv_u64(&o, "ended", ended);
		json_key(&o, "points");
		json_obj_begin(&o);
		for (unsigned p = 0; p < 16; p++) {
			char key[8];

			if (!points[p])
				continue;
			snprintf(key, sizeof(key), "%u", p);
			json_kv_u64(&o, key, points[p]);
		}
		json_obj_end(&o);
		json_obj_end(&o);
	}
	json_obj_end(&o);
	json_kv_u64(&o, "flows_total", m->nflows);
	json_kv_u64(&o, "arrows", m->arrows);
	json_key(&o, "counters");
	json_arr_begin(&o);
	for (size_t i = 0; i < m->ncounters; i++) {
		const struct fxtr_counter *c = &m->counters[i];
		double max = 0;

		for (size_t k = 0; k < c->nsamples; k++)
			if (!k || c->samples[k].value > max)
				max = c->samples[k].value;
		json_obj_begin(&o);
		json_kv_u64(&o, "pid", c->pid);
		json_kv_str(&o, "name", c->name);
		json_kv_u64(&o, "samples", c->nsamples);
		json_kv_double(&o, "max", max);
		json_kv_double(&o, "last", c->nsamples ? c->samples[c->nsamples - 1].value : 0);
		json_obj_end(&o);
	}
	json_arr_end(&o);
	json_obj_end(&o);
	text = json_out_steal(&o, &len);
	if (!text) {
		fprintf(stderr, "fxtstat: out of memory\n");
		return 1;
	}
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
	free(text);
	free(tc);
	fxtr_free(m);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
