// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "log_reader.h"
#include "output_util.h"
#include "report.h"

/* Append to a NUL-terminated buffer, truncating; non-printable bytes of
 * names taken from the log become '?'. */
static void put(char *buf, size_t len, const char *s, size_t n)
{
	size_t off = strlen(buf);

	for (size_t i = 0; i < n && off + 1 < len; i++)
		buf[off++] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	buf[off] = '\0';
}

static void put_opt(char *buf, size_t len, const char *opt, const struct json_value *v)
{
	if (!v || v->type != JSON_STRING)
		return;
	if (*buf)
		put(buf, len, " ", 1);
	put(buf, len, opt, strlen(opt));
	put(buf, len, v->string, v->len);
}

/*
 * What uring-record selected (metadata "filters"), written as its options:
 * "-- COMMAND ARGS (pid N)", "--pid N --follow", "--comm NAME", "--cgroup
 * PATH"; "" when it recorded every process.  Returns false when the log
 * does not say.
 */
bool report_recorded_selection(const struct json_value *meta, char *buf, size_t len)
{
	const struct json_value *f = meta ? json_get(meta, "filters") : NULL;
	const struct json_value *cmd, *pids, *follow;
	char num[32];

	buf[0] = '\0';
	if (!f || f->type != JSON_OBJECT)
		return false;
	cmd = json_get(f, "command");
	pids = json_get(f, "pids");
	if (cmd && cmd->type == JSON_ARRAY && cmd->len) {
		put(buf, len, "--", 2);
		for (size_t i = 0; i < cmd->len; i++) {
			const struct json_value *a = json_at(cmd, i);

			if (a && a->type == JSON_STRING) {
				put(buf, len, " ", 1);
				put(buf, len, a->string, a->len);
			}
		}
		/* The command's pid is the last of "pids". */
		if (pids && pids->type == JSON_ARRAY && pids->len) {
			int64_t pid;

			if (json_value_i64(json_at(pids, pids->len - 1), &pid)) {
				snprintf(num, sizeof(num), " (pid %lld)", (long long)pid);
				put(buf, len, num, strlen(num));
			}
		}
	} else if (pids && pids->type == JSON_ARRAY) {
		for (size_t i = 0; i < pids->len; i++) {
			int64_t pid;

			if (!json_value_i64(json_at(pids, i), &pid))
				continue;
			snprintf(num, sizeof(num), "%s--pid %lld", *buf ? " " : "", (long long)pid);
			put(buf, len, num, strlen(num));
		}
		follow = json_get(f, "follow");
		if (follow && follow->type == JSON_BOOL && follow->boolean) {
			const char *opt = *buf ? " --follow" : "--follow";

			put(buf, len, opt, strlen(opt));
		}
	}
	put_opt(buf, len, "--comm ", json_get(f, "comm"));
	put_opt(buf, len, "--cgroup ", json_get(f, "cgroup"));
	return true;
}

void report_init(struct report *r, const struct output_meta *meta)
{
	memset(r, 0, sizeof(*r));
	r->meta = meta;
	r->recorded_known = meta->info &&
			    report_recorded_selection(meta->info->meta, r->recorded,
						      sizeof(r->recorded));
	hmap_init(&r->procs);
	hmap_init(&r->errs);
	hmap_init(&r->comms);
	file_stats_init(&r->files);
}

void report_free(struct report *r)
{
	struct hmap_slot *s;

	file_stats_free(&r->files);
	for (unsigned i = 0; i < 256; i++)
		hist_free(&r->ops[i].latency);
	for (unsigned i = 0; i < PATH_COUNT; i++)
		hist_free(&r->path_latency[i]);
	hist_free(&r->cq_wait);
	for (size_t i = 0; i < r->nrings; i++) {
		if (r->rings[i])
			hist_free(&r->rings[i]->latency);
		free(r->rings[i]);
	}
	free(r->rings);
	hmap_for_each(&r->procs, s)
		free(s->val);
	hmap_for_each(&r->errs, s)
		free(s->val);
	hmap_for_each(&r->comms, s)
		free(s->val);
	hmap_free(&r->procs);
	hmap_free(&r->errs);
	hmap_free(&r->comms);
	free(r->losses);
	memset(r, 0, sizeof(*r));
}

static struct ring_stats *ring_stats(struct report *r, const struct model_ring *ring)
{
	size_t i;

	if (!ring || !ring->number)
		return NULL;
	i = ring->number - 1;
	if (i >= r->nrings) {
		struct ring_stats **p = realloc(r->rings, (i + 1) * sizeof(*p));

		if (!p) {
			r->oom = true;
			return NULL;
		}
		memset(p + r->nrings, 0, (i + 1 - r->nrings) * sizeof(*p));
		r->rings = p;
		r->nrings = i + 1;
	}
	if (!r->rings[i]) {
		r->rings[i] = calloc(1, sizeof(**r->rings));
		if (!r->rings[i]) {
			r->oom = true;
			return NULL;
		}
	}
	r->rings[i]->ring = ring;
	return r->rings[i];
}

static struct proc_stats *proc_stats(struct report *r, uint32_t pid)
{
	struct proc_stats *p = hmap_get(&r->procs, pid, 0);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || hmap_put(&r->procs, pid, 0, p)) {
		free(p);
		r->oom = true;
		return NULL;
	}
	p->pid = pid;
	return p;
}

void report_task(struct report *r, const struct model_task *t)
{
	char *c;

	if (t->tid != t->pid || !t->name_known)
		return;
	c = hmap_get(&r->comms, t->pid, 0);
	if (!c) {
		c = calloc(1, EV_COMM_LEN + 1);
		if (!c || hmap_put(&r->comms, t->pid, 0, c)) {
			free(c);
			r->oom = true;
			return;
		}
	}
	memcpy(c, t->comm, EV_COMM_LEN + 1);
}

const char *report_comm(const struct report *r, uint32_t pid)
{
	const char *c = hmap_peek(&r->comms, pid, 0);

	return c ? c : "";
}

static unsigned batch_bucket(uint32_t n)
{
	unsigned b = 1;

	if (!n)
		return 0;
	while (b < REPORT_BATCH_BUCKETS - 1 && n >= (2u << (b - 1)))
		b++;
	return b;
}

void report_request(struct report *r, const struct model_request *q)
{
	struct op_stats *op = &r->ops[q->opcode];
	struct ring_stats *rs = ring_stats(r, q->ring);
	struct proc_stats *ps;
	uint32_t pid = q->submit_pid ? q->submit_pid : q->ring->pid;

	r->requests++;
	r->by_status[q->status]++;
	file_stats_add(&r->files, q);
	if (r->files.oom)
		r->oom = true;
	if (q->status == REQ_INCOMPLETE && (unsigned)q->incomplete_reason < 4)
		r->by_reason[q->incomplete_reason]++;
	if (q->modifiers & REQM_LINK_CANCELLED)
		r->cancelled_links++;
	op->count++;
	op->by_status[q->status]++;
	op->reasons[q->path_reason < PR_COUNT ? q->path_reason : PR_UNKNOWN]++;
	if (rs)
		rs->requests++;
	if (pid && (ps = proc_stats(r, pid))) {
		ps->requests++;
		if (q->modifiers & REQM_SQPOLL)
			ps->sqpoll_submitted++;
	}
	if (rs && (q->modifiers & REQM_SQPOLL))
		rs->sqpoll_submitted++;
	if (q->status != REQ_COMPLETE)
		return;
	op->paths[q->path]++;
	if (rs)
		rs->complete++;
	if (q->complete_ts && q->res < 0) {
		struct err_stats *e;
		/* in 64 bits: -INT32_MIN, a damaged log's CQE, overflows int */
		int64_t err = -(int64_t)q->res;

		op->errors++;
		e = hmap_get(&r->errs, q->opcode, (uint64_t)err);
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e || hmap_put(&r->errs, q->opcode, (uint64_t)err, e)) {
				free(e);
				r->oom = true;
				return;
			}
			e->opcode = q->opcode;
			e->err = err;
		}
		e->count++;
	}
	if (q->submit_ts && q->complete_ts && q->complete_ts >= q->submit_ts) {
		if (hist_add(&op->latency, q->complete_ts - q->submit_ts) ||
		    hist_add(&r->path_latency[q->path], q->complete_ts - q->submit_ts))
			r->oom = true;
		if (rs && hist_add(&rs->latency, q->complete_ts - q->submit_ts))
			r->oom = true;
	}
	if (q->reaped_ts && q->complete_ts && q->reaped_ts >= q->complete_ts) {
		if (hist_add(&r->cq_wait, q->reaped_ts - q->complete_ts))
			r->oom = true;
		if (q->reaped_by_capacity)
			r->cq_wait_by_capacity++;
	}
	if (rs && q->path == PATH_IOWQ) {
		rs->iowq_requests++;
		if (q->work_begin_ts && q->work_end_ts >= q->work_begin_ts) {
			rs->iowq_placed++;
			rs->iowq_busy_ns += q->work_end_ts - q->work_begin_ts;
			if (q->modifiers & REQM_WORKER_APPROX)
				rs->iowq_busy_approx = true;
		}
	}
}

void report_syscall(struct report *r, const struct model_syscall *s)
{
	struct proc_stats *ps = proc_stats(r, s->pid);
	struct ring_stats *rs = ring_stats(r, s->ring);
	uint64_t dur = s->end_ts > s->begin_ts ? s->end_ts - s->begin_ts : 0;

	r->syscalls[s->kind]++;
	if (ps)
		ps->syscalls[s->kind]++;
	if (s->kind != SYS_ENTER)
		return;
	if (s->events_lost) {
		/* Counts inside are lower bounds: keep them out of the
		 * batching figures, keep the time (begin and end are exact). */
		if (ps) {
			ps->enters_lossy++;
			ps->enter_ns += dur;
		}
		if (rs) {
			rs->enters_lossy++;
			rs->enter_ns += dur;
		}
		return;
	}
	if (ps) {
		ps->enters++;
		ps->submitted += s->submitted;
		ps->enter_ns += dur;
		ps->submit_ns += syscall_submit_ns(s);
		ps->wait_ns += syscall_wait_ns(s);
	}
	if (rs) {
		rs->enters++;
		rs->submitted += s->submitted;
		rs->cqes_in_enters += s->completed;
		rs->enter_ns += dur;
		rs->submit_ns += syscall_submit_ns(s);
		rs->wait_ns += syscall_wait_ns(s);
		rs->batch[batch_bucket(s->submitted)]++;
	}
}

void report_cqe(struct report *r, const struct model_cqe *c)
{
	struct ring_stats *rs = ring_stats(r, c->ring);

	if (c->request) {
		r->multishot_cqes++;
		if (rs)
			rs->multishot_cqes++;
	} else {
		r->aux_cqes++;
		if (rs)
			rs->aux_cqes++;
	}
}

void report_loss(struct report *r, const struct model_loss *l)
{
	size_t lo = 0, hi = r->nlosses;
	struct cpu_loss *c;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->losses[mid].cpu < l->cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->nlosses || r->losses[lo].cpu != l->cpu) {
		struct cpu_loss *p = realloc(r->losses, (r->nlosses + 1) * sizeof(*p));

		if (!p) {
			r->oom = true;
			return;
		}
		r->losses = p;
		memmove(&p[lo + 1], &p[lo], (r->nlosses - lo) * sizeof(*p));
		memset(&p[lo], 0, sizeof(*p));
		p[lo].cpu = l->cpu;
		r->nlosses++;
	}
	c = &r->losses[lo];
	c->windows++;
	c->events += l->count;
	if (l->source == LOSS_FRAME_GAP || l->source == LOSS_LOG_CUT) {
		c->unknown_windows++;
		r->unknown_windows++;
	}
	c->by_source[l->source] += l->count;
	if (!c->first_ts || l->first_ts < c->first_ts)
		c->first_ts = l->first_ts;
	if (l->last_ts > c->last_ts)
		c->last_ts = l->last_ts;
	r->loss_windows++;
	r->loss_events += l->count;
}

void report_marker(struct report *r, const struct model_marker *m)
{
	struct ring_stats *rs = ring_stats(r, m->ring);

	switch (m->kind) {
	case MARK_CQE_DROPPED:	/* a dropped CQE overflowed first */
	case MARK_CQE_OVERFLOW:
		r->overflows++;
		if (rs)
			rs->overflows++;
		if (m->kind == MARK_CQE_DROPPED) {
			r->dropped++;
			if (rs)
				rs->dropped++;
		}
		break;
	case MARK_SHORT_WRITE:
		r->short_writes++;
		break;
	case MARK_REQ_FAILED:
		r->failed_requests++;
		break;
	case MARK_LINK_FAILED:
		r->failed_links++;
		break;
	case MARK_UNPAIRED_SYSCALL:
		r->unpaired_markers++;
		break;
	default:
		break;
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc_stats *x = *(struct proc_stats *const *)a;
	const struct proc_stats *y = *(struct proc_stats *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct proc_stats **report_procs(const struct report *r, size_t *n)
{
	struct proc_stats **v = calloc(r->procs.len ? r->procs.len : 1, sizeof(*v));
	struct hmap_slot *s;

	*n = 0;
	if (!v)
		return NULL;
	hmap_for_each(&r->procs, s)
		v[(*n)++] = s->val;
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_proc);
	return v;
}

static int cmp_err(const void *a, const void *b)
{
	const struct err_stats *x = *(struct err_stats *const *)a;
	const struct err_stats *y = *(struct err_stats *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->opcode != y->opcode)
		return x->opcode < y->opcode ? -1 : 1;
	return x->err < y->err ? -1 : x->err > y->err;
}

struct err_stats **report_errors(const struct report *r, size_t *n)
{
	struct err_stats **v = calloc(r->errs.len ? r->errs.len : 1, sizeof(*v));
	struct hmap_slot *s;

	*n = 0;
	if (!v)
		return NULL;
	hmap_for_each(&r->errs, s)
		v[(*n)++] = s->val;
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_err);
	return v;
}

bool report_cost_text(const struct tracing_cost *c, uint64_t requests, char *buf, size_t len)
{
	double cpu = c && c->recording_s > 0 ? 100.0 * c->recorder_cpu_s / c->recording_s : 0;
	char est[64] = "";
	int n = 0;

	buf[0] = '\0';
	if (!c || !c->known)
		return false;
	if (c->bpf_known && requests)
		n = snprintf(buf, len, "%.0f ns of BPF per request in the traced threads (",
			     (double)c->bpf_run_ns / (double)requests);
	if (c->bpf_known && c->bpf_share < 0.999)
		snprintf(est, sizeof(est), ", estimated from %.0f %% of the time",
			 100 * c->bpf_share);
	if (c->bpf_known)
		n += snprintf(buf + n, len - (size_t)n, "%.0f ns per hook run, %.1f ms in all%s%s, ",
			      c->bpf_runs ? (double)c->bpf_run_ns / (double)c->bpf_runs : 0.0,
			      (double)c->bpf_run_ns / 1e6, est, requests ? ")" : "");
	else
		n = snprintf(buf, len, "BPF run time not measured (%s), ",
			     *c->bpf_stats ? c->bpf_stats : "unknown");
	snprintf(buf + n, len - (size_t)n, "%.1f %% of one CPU for the recorder", cpu);
	return true;
}

uint64_t report_cost_requests(const struct output_totals *t, uint64_t scale)
{
	return t->read_to_ns ? 0 : t->requests * scale;
}

bool report_lost_share_known(const struct output_totals *t)
{
	return !t->read_to_ns || !t->nloss_counters;
}

uint64_t report_lost_events(const struct report *r, const struct output_totals *t)
{
	uint64_t damaged = 0;

	for (size_t i = 0; i < r->nlosses; i++)
		damaged += r->losses[i].by_source[LOSS_DAMAGED_FRAME];
	if (t->nloss_counters)
		return t->lost_events + damaged;
	return r->loss_events;
}

/* ------------------------------------------------ output plumbing */

int report_output_begin(struct output *o, const struct output_meta *meta,
			char *err, size_t errlen)
{
	struct report_output *ro = REPORT_OUTPUT(o);

	ro->f = output_open_file(ro->cfg.path, ro->cfg.force, &ro->is_stdout, err, errlen);
	if (!ro->f)
		return -1;
	ro->meta = *meta;
	report_init(&ro->rep, &ro->meta);
	return 0;
}

void report_output_task(struct output *o, const struct model_task *t)
{
	report_task(&REPORT_OUTPUT(o)->rep, t);
}

void report_output_request(struct output *o, const struct model_request *r)
{
	report_request(&REPORT_OUTPUT(o)->rep, r);
}

void report_output_syscall(struct output *o, const struct model_syscall *c)
{
	report_syscall(&REPORT_OUTPUT(o)->rep, c);
}

void report_output_cqe(struct output *o, const struct model_cqe *c)
{
	report_cqe(&REPORT_OUTPUT(o)->rep, c);
}

void report_output_loss(struct output *o, const struct model_loss *l)
{
	report_loss(&REPORT_OUTPUT(o)->rep, l);
}

void report_output_marker(struct output *o, const struct model_marker *m)
{
	report_marker(&REPORT_OUTPUT(o)->rep, m);
}

int report_output_end(struct output *o, const struct output_totals *t,
		      char *err, size_t errlen)
{
	struct report_output *ro = REPORT_OUTPUT(o);

	if (ro->render(ro, t, err, errlen))
		return -1;
	if (ro->rep.oom) {
		snprintf(err, errlen, "out of memory while summarising");
		return -1;
	}
	if (fflush(ro->f) || ferror(ro->f)) {
		snprintf(err, errlen, "%s: write error", ro->cfg.path ? ro->cfg.path : "stdout");
		return -1;
	}
	return 0;
}

void report_output_destroy(struct output *o)
{
	struct report_output *ro = REPORT_OUTPUT(o);

	if (ro->f && !ro->is_stdout)
		fclose(ro->f);
	report_free(&ro->rep);
	free(ro);
}

struct output *report_output_new(const struct output_config *cfg,
				 const struct output_ops *ops, report_render_fn render,
				 char *err, size_t errlen)
{
	struct report_output *ro = calloc(1, sizeof(*ro));

	if (!ro) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ro->base.ops = ops;
	ro->cfg = *cfg;
	ro->render = render;
	return &ro->base;
}
