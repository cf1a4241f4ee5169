// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: the JSON document (schema in workload.c).  Built with
 * common/json's writer; names of opcodes, flags and errnos come from
 * common/uring_names so they match what uring-convert prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json.h"
#include "uring_names.h"
#include "workload.h"

static const char *op_name(unsigned op, char *buf, size_t len)
{
	const char *n = uring_opcode_name(op);

	if (n)
		return n;
	snprintf(buf, len, "OP_%u", op);
	return buf;
}

/* Result key: "4096", "-EBADF" (a negative errno by name), "-4095". */
static const char *res_key(int64_t res, char *buf, size_t len)
{
	const char *e = res < 0 && res >= -4095 ? errno_name((int)-res) : NULL;

	if (e)
		snprintf(buf, len, "-%s", e);
	else
		snprintf(buf, len, "%lld", (long long)res);
	return buf;
}

static void kv_flags(struct json_out *o, const char *key, uint64_t flags,
		     const struct flag_name *table)
{
	char buf[256];

	json_kv_str(o, key, format_flags(buf, sizeof(buf), flags, table));
}

static void kv_u64_list_begin(struct json_out *o, const char *key)
{
	json_key(o, key);
	json_arr_begin(o);
}

static int exit_status_of(enum wl_status s)
{
	return s == WL_FAILED ? WL_EXIT_FAILED :
	       s == WL_UNAVAILABLE ? WL_EXIT_UNAVAILABLE : WL_EXIT_OK;
}

static const char *status_name(enum wl_status s)
{
	return s == WL_FAILED ? "failed" : s == WL_UNAVAILABLE ? "unavailable" : "ok";
}

/* ---------------------------------------------------------------- tallies */

static void tally_merge(struct wl_tally *dst, const struct wl_tally *src)
{
	unsigned op;
	size_t i;

	for (op = 0; op < 256; op++) {
		const struct wl_op_tally *s = &src->op[op];
		struct wl_op_tally *d = &dst->op[op];

		d->submitted += s->submitted;
		d->completed += s->completed;
		d->cqes += s->cqes;
		d->cqes_more += s->cqes_more;
		for (i = 0; i < s->res.n; i++)
			wl_hist_add(&d->res, s->res.ent[i].value, s->res.ent[i].count);
		for (i = 0; i < s->cflags.n; i++)
			wl_hist_add(&d->cflags, s->cflags.ent[i].value, s->cflags.ent[i].count);
	}
}

static void tally_free(struct wl_tally *t)
{
	unsigned op;

	for (op = 0; op < 256; op++) {
		wl_hist_free(&t->op[op].res);
		wl_hist_free(&t->op[op].cflags);
	}
	free(t);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct wl_hist_ent *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static void json_res_hist(struct json_out *o, const struct wl_hist *h)
{
	struct wl_hist_ent *sorted;
	char buf[32];
	size_t i;

	json_obj_begin(o);
	if (h->n) {
		sorted = wl_xcalloc(h->n, sizeof(*sorted));
		memcpy(sorted, h->ent, h->n * sizeof(*sorted));
		qsort(sorted, h->n, sizeof(*sorted), cmp_ent);
		for (i = 0; i < h->n; i++)
			json_kv_u64(o, res_key(sorted[i].value, buf, sizeof(buf)),
				    sorted[i].count);
		free(sorted);
	}
	json_obj_end(o);
}

static void json_requests(struct json_out *o, const struct wl_tally *t)
{
	char buf[32];
	unsigned op;

	json_obj_begin(o);
	for (op = 0; op < 256; op++) {
		const struct wl_op_tally *s = &t->op[op];

		if (!s->submitted && !s->cqes)
			continue;
		json_key(o, op_name(op, buf, sizeof(buf)));
		json_obj_begin(o);
		json_kv_u64(o, "submitted", s->submitted);
		json_kv_u64(o, "completed", s->completed);
		json_kv_u64(o, "cqes", s->cqes);
		json_kv_u64(o, "cqes_more", s->cqes_more);
		json_key(o, "res");
		json_res_hist(o, &s->res);
		json_obj_end(o);
	}
	json_obj_end(o);
}

static void json_cqe_flags(struct json_out *o, const struct wl_tally *t)
{
	char buf[64], nbuf[32];
	unsigned op;
	size_t i;

	json_obj_begin(o);
	for (op = 0; op < 256; op++) {
		const struct wl_op_tally *s = &t->op[op];

		if (!s->cflags.n)
			continue;
		json_key(o, op_name(op, nbuf, sizeof(nbuf)));
		json_obj_begin(o);
		for (i = 0; i < s->cflags.n; i++) {
			format_flags(buf, sizeof(buf), (uint64_t)s->cflags.ent[i].value,
				     cqe_flag_names);
			json_kv_u64(o, buf[0] ? buf : "0", s->cflags.ent[i].count);
		}
		json_obj_end(o);
	}
	json_obj_end(o);
}

/* ---------------------------------------------------------------- calls */

static void json_call(struct json_out *o, const struct wl_call *c)
{
	char buf[64];
	const char *n;

	json_obj_begin(o);
	json_kv_u64(o, "seq", c->seq);
	json_kv_i64(o, "tid", c->tid);
	json_key(o, "ring");
	if (c->ring)
		json_str(o, c->ring);
	else
		json_null(o);
	switch (c->kind) {
	case WL_CALL_SETUP:
		json_kv_u64(o, "entries", c->a1);
		json_kv_u64(o, "cq_entries", c->a2);
		json_kv_u64(o, "flags", c->flags);
		kv_flags(o, "flags_names", c->flags, setup_flag_names);
		break;
	case WL_CALL_ENTER:
		json_kv_i64(o, "fd", c->fd);
		json_kv_u64(o, "to_submit", c->a1);
		json_kv_u64(o, "min_complete", c->a2);
		json_kv_u64(o, "flags", c->flags);
		kv_flags(o, "flags_names", c->flags, enter_flag_names);
		break;
	case WL_CALL_REGISTER:
		json_kv_i64(o, "fd", c->fd);
		json_kv_u64(o, "opcode", c->a1);
		n = uring_register_opcode_name(c->a1);
		json_kv_str(o, "opcode_name", n ? n : "?");
		json_kv_u64(o, "nr_args", c->a2);
		break;
	}
	json_kv_i64(o, "ret", c->ret);
	if (c->ret < 0) {
		n = errno_name((int)-c->ret);
		snprintf(buf, sizeof(buf), "%s", n ? n : "?");
		json_kv_str(o, "errno", buf);
	}
	json_obj_end(o);
}

static int cmp_call(const void *a, const void *b)
{
	const struct wl_call *x = *(const struct wl_call *const *)a;
	const struct wl_call *y = *(const struct wl_call *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Calls of one kind from every ring, in the order they were made. */
static void json_call_list(struct json_out *o, struct wl_run *run,
			   enum wl_call_kind kind)
{
	const struct wl_call **all = NULL;
	size_t n = 0, cap = 0, i, j;

	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		for (j = 0; j < r->n_calls; j++) {
			if (r->calls[j].kind != kind)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				all = wl_xrealloc(all, cap, sizeof(*all));
			}
			all[n++] = &r->calls[j];
		}
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_call);
	json_arr_begin(o);
	for (i = 0; i < n; i++)
		json_call(o, all[i]);
	json_arr_end(o);
	free(all);
}

struct tid_count {
	int tid;
	uint64_t n;
};

static void count_tid(struct tid_count *tc, size_t *n, size_t max, int tid, uint64_t k)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (tc[i].tid == tid) {
			tc[i].n += k;
			return;
		}
	}
	if (*n < max) {
		tc[*n].tid = tid;
		tc[*n].n = k;
		(*n)++;
	}
}

static void json_tid_counts(struct json_out *o, const struct tid_count *tc, size_t n)
{
	char buf[16];
	size_t i;

	json_obj_begin(o);
	for (i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%d", tc[i].tid);
		json_kv_u64(o, buf, tc[i].n);
	}
	json_obj_end(o);
}

static void json_enter_calls(struct json_out *o, struct wl_run *run)
{
	uint64_t count = 0, to_submit = 0, submitted = 0;
	struct tid_count tc[64] = { { 0, 0 } };
	size_t n_tc = 0, i;
	bool listed = true;

	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		count += r->enter_calls;
		to_submit += r->enter_to_submit;
		submitted += r->enter_submitted;
		count_tid(tc, &n_tc, 64, r->tid, r->enter_calls);
		if (!r->log_calls)
			listed = false;
	}
	json_key(o, "enter_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", count);
	json_kv_u64(o, "to_submit", to_submit);
	json_kv_u64(o, "submitted", submitted);
	json_key(o, "by_tid");
	json_tid_counts(o, tc, n_tc);
	json_kv_bool(o, "calls_listed", listed);
	if (listed) {
		json_key(o, "calls");
		json_call_list(o, run, WL_CALL_ENTER);
	} else {
		/* storm: how many calls submitted how many SQEs each */
		struct wl_hist h = { 0 };
		char buf[24];
		size_t j;

		for (i = 0; i < run->n_rings; i++)
			for (j = 0; j < run->rings[i]->enter_shape.n; j++)
				wl_hist_add(&h, run->rings[i]->enter_shape.ent[j].value,
					    run->rings[i]->enter_shape.ent[j].count);
		json_key(o, "to_submit_hist");
		json_obj_begin(o);
		for (j = 0; j < h.n; j++) {
			snprintf(buf, sizeof(buf), "%lld", (long long)h.ent[j].value);
			json_kv_u64(o, buf, h.ent[j].count);
		}
		json_obj_end(o);
		wl_hist_free(&h);
	}
	json_obj_end(o);
}

static void json_register_calls(struct json_out *o, struct wl_run *run)
{
	uint64_t by_op[64] = { 0 }, count = 0;
	size_t i, j;

	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		count += r->register_calls;
		for (j = 0; j < r->n_calls; j++)
			if (r->calls[j].kind == WL_CALL_REGISTER && r->calls[j].a1 < 64)
				by_op[r->calls[j].a1]++;
	}
	json_key(o, "register_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", count);
	json_key(o, "by_opcode");
	json_obj_begin(o);
	for (i = 0; i < 64; i++) {
		const char *n = uring_register_opcode_name((unsigned)i);

		if (by_op[i])
			json_kv_u64(o, n ? n : "?", by_op[i]);
	}
	json_obj_end(o);
	json_key(o, "calls");
	json_call_list(o, run, WL_CALL_REGISTER);
	json_obj_end(o);
}

static void json_setup_calls(struct json_out *o, struct wl_run *run)
{
	size_t i, failed = 0;

	for (i = 0; i < run->n_setups; i++)
		if (run->setups[i].ret < 0)
			failed++;
	json_key(o, "setup_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", run->n_setups);
	json_kv_u64(o, "failed", failed);
	json_key(o, "calls");
	json_arr_begin(o);
	for (i = 0; i < run->n_setups; i++)
		json_call(o, &run->setups[i]);
	json_arr_end(o);
	json_obj_end(o);
}

/* ---------------------------------------------------------------- parts */

static void json_tid(struct json_out *o, const struct wl_tid *t)
{
	json_obj_begin(o);
	json_kv_i64(o, "tid", t->tid);
	json_kv_str(o, "role", t->role);
	json_kv_str(o, "comm", t->comm);
	json_obj_end(o);
}

static void json_ring(struct json_out *o, const struct wl_ring *r, const char *scenario)
{
	int submitter = r->sq_thread_tid ? r->sq_thread_tid : r->tid;
	char buf[32];

	json_obj_begin(o);
	json_kv_str(o, "name", r->name);
	if (scenario)
		json_kv_str(o, "scenario", scenario);
	json_kv_i64(o, "fd", r->fd);
	json_kv_u64(o, "setup_seq", r->setup_seq);
	json_kv_i64(o, "tid", r->tid);
	json_kv_u64(o, "setup_flags", r->setup_flags);
	kv_flags(o, "setup_flags_names", r->setup_flags, setup_flag_names);
	json_kv_u64(o, "sq_entries", r->sq_entries);
	json_kv_u64(o, "cq_entries", r->cq_entries);
	json_kv_bool(o, "sqpoll", r->setup_flags & IORING_SETUP_SQPOLL);
	json_key(o, "sq_thread_tid");
	if (r->sq_thread_tid)
		json_i64(o, r->sq_thread_tid);
	else
		json_null(o);
	json_key(o, "sq_thread_comm");
	if (r->sq_thread_tid)
		json_str(o, r->sq_thread_comm);
	else
		json_null(o);
	json_kv_i64(o, "submitter_tid", submitter);
	snprintf(buf, sizeof(buf), "iou-wrk-%d", submitter);
	json_kv_str(o, "io_wq_worker_comm", buf);
	json_key(o, "registered_index");
	if (r->reg_index_used >= 0)
		json_i64(o, r->reg_index_used);
	else
		json_null(o);
	json_kv_u64(o, "user_data_base", r->ud_base);
	json_kv_u64(o, "enter_calls", r->enter_calls);
	json_kv_u64(o, "register_calls", r->register_calls);
	json_kv_u64(o, "cqes", r->cqes);
	json_kv_u64(o, "cqes_aux", r->cqes_aux);
	json_key(o, "requests");
	json_requests(o, r->tally);
	json_obj_end(o);
}

static const struct {
	unsigned bit;
	const char *name;
} path_names[] = {
	{ WL_PATH_ASYNC_FORCED, "async_forced" },
	{ WL_PATH_ALWAYS_ASYNC, "always_async" },
	{ WL_PATH_POLL_ARMED, "poll_armed" },
	{ WL_PATH_DEFERRED, "deferred" },
	{ WL_PATH_INIT_FAILED, "init_failed" },
	{ WL_PATH_MAY_IOWQ, "may_io_wq" },
	{ WL_PATH_MAY_POLL, "may_poll_arm" },
	{ WL_PATH_MAY_DEFER, "may_defer" },
};

static void json_path_list(struct json_out *o, struct wl_run *run, unsigned bit)
{
	size_t i, j;

	json_arr_begin(o);
	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		for (j = 0; r->track && j < r->n_reqs; j++)
			if (r->reqs[j].paths & bit)
				json_u64(o, r->reqs[j].user_data);
	}
	json_arr_end(o);
}

static void json_paths(struct json_out *o, struct wl_run *run, bool guaranteed)
{
	size_t k;

	for (k = 0; k < sizeof(path_names) / sizeof(path_names[0]); k++) {
		bool g = path_names[k].bit < WL_PATH_MAY_IOWQ;

		if (g != guaranteed)
			continue;
		json_key(o, path_names[k].name);
		json_path_list(o, run, path_names[k].bit);
	}
}

static void json_links(struct json_out *o, struct wl_run *run)
{
	size_t i, j;
	int c;

	json_key(o, "links");
	json_arr_begin(o);
	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		for (c = 0; r->track && c < r->n_chains; c++) {
			bool hard = false;

			for (j = 0; j < r->n_reqs; j++)
				if (r->reqs[j].chain == c &&
				    (r->reqs[j].sqe_flags & IOSQE_IO_HARDLINK))
					hard = true;
			json_obj_begin(o);
			json_kv_str(o, "ring", r->name);
			json_kv_bool(o, "hard", hard);
			kv_u64_list_begin(o, "user_data");
			for (j = 0; j < r->n_reqs; j++)
				if (r->reqs[j].chain == c)
					json_u64(o, r->reqs[j].user_data);
			json_arr_end(o);
			kv_u64_list_begin(o, "res");
			for (j = 0; j < r->n_reqs; j++)
				if (r->reqs[j].chain == c)
					json_i64(o, r->reqs[j].n_cqes ?
						 r->reqs[j].got[r->reqs[j].n_cqes - 1] :
						 r->reqs[j].expect[0]);
			json_arr_end(o);
			json_obj_end(o);
		}
	}
	json_arr_end(o);
}

/* The files of the requests tagged with one ("file": its index here). */
static void json_files(struct json_out *o, const struct wl_run *run)
{
	char dev[24];

	json_key(o, "files");
	json_arr_begin(o);
	for (size_t i = 0; i < run->n_files; i++) {
		const struct wl_file *f = &run->files[i];

		json_obj_begin(o);
		json_kv_str(o, "name", f->name);
		json_kv_str(o, "path", f->path);
		snprintf(dev, sizeof(dev), "%u:%u", f->dev_major, f->dev_minor);
		json_kv_str(o, "dev", dev);
		json_kv_u64(o, "ino", f->ino);
		json_kv_str(o, "type", f->type);
		json_kv_str(o, "flags", f->flags);
		json_obj_end(o);
	}
	json_arr_end(o);
}

static void json_request_list(struct json_out *o, struct wl_run *run)
{
	char buf[32];
	size_t i, j, k;

	json_key(o, "request_list");
	json_arr_begin(o);
	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];

		for (j = 0; r->track && j < r->n_reqs; j++) {
			const struct wl_req *q = &r->reqs[j];
			int32_t final = q->n_cqes ? q->got[q->n_cqes - 1] : q->expect[q->n_expect - 1];

			json_obj_begin(o);
			json_kv_u64(o, "user_data", q->user_data);
			json_kv_str(o, "ring", r->name);
			json_kv_str(o, "opcode", op_name(q->opcode, buf, sizeof(buf)));
			json_kv_u64(o, "sqe_flags", q->sqe_flags);
			kv_flags(o, "sqe_flags_names", q->sqe_flags, iosqe_flag_names);
			json_kv_str(o, "what", q->what);
			json_kv_i64(o, "res", final);
			if (q->reaped_ns)
				json_kv_u64(o, "reaped_ns", q->reaped_ns);
			if (q->n_expect > 1) {
				kv_u64_list_begin(o, "more_res");
				for (k = 0; k + 1 < q->n_cqes; k++)
					json_i64(o, q->got[k]);
				json_arr_end(o);
			}
			if (q->chain >= 0)
				json_kv_i64(o, "chain", q->chain);
			if (q->file >= 0)
				json_kv_i64(o, "file", q->file);
			json_key(o, "paths");
			json_arr_begin(o);
			for (k = 0; k < sizeof(path_names) / sizeof(path_names[0]); k++)
				if (q->paths & path_names[k].bit)
					json_str(o, path_names[k].name);
			json_arr_end(o);
			json_obj_end(o);
		}
	}
	json_arr_end(o);
}

static struct wl_tally *run_tally(struct wl_run *run)
{
	struct wl_tally *t = wl_xcalloc(1, sizeof(*t));
	size_t i;

	for (i = 0; i < run->n_rings; i++)
		tally_merge(t, run->rings[i]->tally);
	return t;
}

static void json_cqes(struct json_out *o, struct wl_run **runs, size_t n)
{
	uint64_t total = 0, more = 0, aux = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < runs[i]->n_rings; j++) {
			total += runs[i]->rings[j]->cqes;
			more += runs[i]->rings[j]->cqes_more;
			aux += runs[i]->rings[j]->cqes_aux;
		}
	}
	json_key(o, "cqes");
	json_obj_begin(o);
	json_kv_u64(o, "total", total);
	json_kv_u64(o, "more", more);
	json_kv_u64(o, "aux", aux);
	json_obj_end(o);
}

static void json_head(struct json_out *o)
{
	struct utsname u;

	json_kv_str(o, "schema", WL_SCHEMA);
	json_kv_i64(o, "pid", getpid());
	if (uname(&u) == 0)
		json_kv_str(o, "kernel", u.release);
}

static void json_time(struct json_out *o, uint64_t start, uint64_t end)
{
	json_key(o, "time");
	json_obj_begin(o);
	json_kv_str(o, "clock", "CLOCK_BOOTTIME");
	json_kv_u64(o, "start_ns", start);
	json_kv_u64(o, "end_ns", end);
	json_obj_end(o);
}

/* ---------------------------------------------------------------- documents */

void wl_json_run(struct json_out *o, struct wl_run *run, bool top)
{
	struct wl_tally *t = run_tally(run);
	size_t i;

	json_obj_begin(o);
	if (top)
		json_head(o);
	json_kv_str(o, "scenario", run->scenario);
	json_kv_str(o, "status", status_name(run->status));
	json_kv_i64(o, "exit_status", exit_status_of(run->status));
	json_key(o, "errors");
	json_arr_begin(o);
	for (i = 0; i < run->n_errors; i++)
		json_str(o, run->errors[i]);
	json_arr_end(o);
	json_key(o, "params");
	json_obj_begin(o);
	json_kv_u64(o, "seed", run->opts->seed);
	for (i = 0; i < run->n_params; i++) {
		const struct wl_param *p = &run->params[i];

		if (p->is_str)
			json_kv_str(o, p->key, p->str);
		else if (p->is_double)
			json_kv_double(o, p->key, p->dbl);
		else
			json_kv_i64(o, p->key, p->num);
	}
	json_obj_end(o);
	json_time(o, run->start_ns, run->end_ns);

	json_key(o, "tids");
	json_arr_begin(o);
	for (i = 0; i < run->n_tids; i++)
		json_tid(o, &run->tids[i]);
	json_arr_end(o);
	json_key(o, "rings");
	json_arr_begin(o);
	for (i = 0; i < run->n_rings; i++)
		json_ring(o, run->rings[i], NULL);
	json_arr_end(o);
	json_key(o, "requests");
	json_requests(o, t);
	json_cqes(o, &run, 1);
	json_key(o, "paths");
	json_obj_begin(o);
	json_paths(o, run, true);
	json_obj_end(o);
	json_links(o, run);
	json_key(o, "order");
	json_arr_begin(o);
	for (i = 0; i < run->n_orders; i++) {
		const struct wl_order *ord = &run->orders[i];
		size_t j;

		json_obj_begin(o);
		json_kv_u64(o, "user_data", ord->user_data);
		kv_u64_list_begin(o, "after");
		for (j = 0; j < ord->n_after; j++)
			json_u64(o, ord->after[j]);
		json_arr_end(o);
		kv_u64_list_begin(o, "before");
		for (j = 0; j < ord->n_before; j++)
			json_u64(o, ord->before[j]);
		json_arr_end(o);
		json_obj_end(o);
	}
	json_arr_end(o);
	json_key(o, "aux_cqes");
	json_arr_begin(o);
	for (i = 0; i < run->n_rings; i++) {
		const struct wl_ring *r = run->rings[i];
		size_t j;

		for (j = 0; j < r->n_aux; j++) {
			json_obj_begin(o);
			json_kv_str(o, "ring", r->name);
			json_kv_u64(o, "user_data", r->aux[j].user_data);
			json_kv_i64(o, "res", r->aux[j].res);
			json_kv_u64(o, "posted_by", r->aux[j].posted_by);
			json_obj_end(o);
		}
	}
	json_arr_end(o);
	json_enter_calls(o, run);
	json_register_calls(o, run);
	json_setup_calls(o, run);
	if (run->storm) {
		json_key(o, "storm");
		json_obj_begin(o);
		json_kv_u64(o, "nops", t->op[IORING_OP_NOP].submitted);
		json_obj_end(o);
	} else {
		json_request_list(o, run);
		json_files(o, run);
	}

	json_key(o, "kernel_may_choose");
	json_obj_begin(o);
	json_key(o, "notes");
	json_arr_begin(o);
	for (i = 0; i < run->n_notes; i++)
		json_str(o, run->notes[i]);
	json_arr_end(o);
	json_paths(o, run, false);
	json_key(o, "cqe_flags");
	json_cqe_flags(o, t);
	json_key(o, "io_threads_seen");
	json_arr_begin(o);
	for (i = 0; i < run->n_io_threads; i++)
		json_tid(o, &run->io_threads[i]);
	json_arr_end(o);
	if (run->storm) {
		json_kv_u64(o, "storm_elapsed_ns", run->storm_elapsed_ns);
		json_kv_double(o, "storm_nops_per_s", run->storm_elapsed_ns ?
			       t->op[IORING_OP_NOP].submitted * 1e9 / run->storm_elapsed_ns : 0);
	}
	json_obj_end(o);
	json_obj_end(o);
	tally_free(t);
}

void wl_json_all(struct json_out *o, struct wl_run **runs, size_t n,
		 const struct wl_opts *opts, uint64_t start_ns, uint64_t end_ns)
{
	struct wl_tally *t = wl_xcalloc(1, sizeof(*t));
	enum wl_status status = WL_OK;
	uint64_t enters = 0, to_submit = 0, submitted = 0, regs = 0, setups = 0, failed = 0;
	struct tid_count tc[256] = { { 0, 0 } };
	size_t n_tc = 0, i, j;
	char buf[300];

	for (i = 0; i < n; i++) {
		if (runs[i]->status == WL_FAILED)
			status = WL_FAILED;
		else if (runs[i]->status == WL_UNAVAILABLE && status == WL_OK)
			status = WL_UNAVAILABLE;
		for (j = 0; j < runs[i]->n_rings; j++) {
			const struct wl_ring *r = runs[i]->rings[j];

			tally_merge(t, r->tally);
			enters += r->enter_calls;
			to_submit += r->enter_to_submit;
			submitted += r->enter_submitted;
			regs += r->register_calls;
			count_tid(tc, &n_tc, 256, r->tid, r->enter_calls);
		}
		setups += runs[i]->n_setups;
		for (j = 0; j < runs[i]->n_setups; j++)
			if (runs[i]->setups[j].ret < 0)
				failed++;
	}

	json_obj_begin(o);
	json_head(o);
	json_kv_str(o, "scenario", "all");
	json_kv_str(o, "status", status_name(status));
	json_kv_i64(o, "exit_status", exit_status_of(status));
	json_key(o, "errors");
	json_arr_begin(o);
	for (i = 0; i < n; i++) {
		for (j = 0; j < runs[i]->n_errors; j++) {
			snprintf(buf, sizeof(buf), "%s: %s", runs[i]->scenario,
				 runs[i]->errors[j]);
			json_str(o, buf);
		}
	}
	json_arr_end(o);
	json_key(o, "params");
	json_obj_begin(o);
	json_kv_u64(o, "seed", opts->seed);
	json_obj_end(o);
	json_time(o, start_ns, end_ns);
	json_key(o, "tids");
	json_arr_begin(o);
	for (i = 0; i < n; i++) {
		for (j = 0; j < runs[i]->n_tids; j++) {
			const struct wl_tid *tt = &runs[i]->tids[j];
			size_t a, b;
			bool dup = false;

			/* The main thread takes part in every scenario. */
			for (a = 0; a <= i && !dup; a++)
				for (b = 0; b < (a == i ? j : runs[a]->n_tids) && !dup; b++)
					dup = runs[a]->tids[b].tid == tt->tid;
			if (!dup)
				json_tid(o, tt);
		}
	}
	json_arr_end(o);
	json_key(o, "rings");
	json_arr_begin(o);
	for (i = 0; i < n; i++)
		for (j = 0; j < runs[i]->n_rings; j++)
			json_ring(o, runs[i]->rings[j], runs[i]->scenario);
	json_arr_end(o);
	json_key(o, "requests");
	json_requests(o, t);
	json_cqes(o, runs, n);
	json_key(o, "enter_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", enters);
	json_kv_u64(o, "to_submit", to_submit);
	json_kv_u64(o, "submitted", submitted);
	json_key(o, "by_tid");
	json_tid_counts(o, tc, n_tc);
	json_obj_end(o);
	json_key(o, "register_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", regs);
	json_obj_end(o);
	json_key(o, "setup_calls");
	json_obj_begin(o);
	json_kv_u64(o, "count", setups);
	json_kv_u64(o, "failed", failed);
	json_obj_end(o);
	json_key(o, "scenarios");
	json_arr_begin(o);
	for (i = 0; i < n; i++)
		wl_json_run(o, runs[i], false);
	json_arr_end(o);
	json_obj_end(o);
	tally_free(t);
}
