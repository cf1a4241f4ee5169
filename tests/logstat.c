// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * logstat: what a ringside log contains, as JSON, for the recorder's live
 * tests (tests/live/) to assert on.  It reads the log with
 * common/log_reader only -- no libbpf, no converter -- and does the
 * smallest interpretation the tests need: counts of records per type and
 * per thread, submissions and completions per opcode (completions matched
 * to their submission -- or to the io_uring_req_failed event of a request
 * that never got submitted -- by request id, in time order; CQEs that the
 * kernel posts without a request, such as multishot and MSG_RING ones, are
 * "completes_unmatched"), io_uring syscalls
 * with their arguments, the tasks, every loss the log reports, and the id
 * fields that look like kernel addresses (pointer scrubbing).
 *
 *   logstat [--no-requests] [--max-calls N] LOG
 *   logstat --dump LOG      every event record, one JSON object a line
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_layout.h"
#include "event_split.h"
#include "json.h"
#include "log_reader.h"
#include "uring_names.h"

#define MAX_TYPES EV_TYPE_LIMIT

struct tid_count {
	uint32_t tid;
	uint64_t count[MAX_TYPES];
};

/* A request event, for matching completions to submissions. */
struct req_ev {
	uint64_t ts;
	uint64_t req;
	uint32_t seq;			/* file order, to keep sorting stable */
	uint16_t type;
	uint8_t opcode;
	int32_t res;
};

struct call_ev {
	uint64_t ts;
	uint32_t seq;
	uint16_t type;
	_Alignas(8) unsigned char rec[80];	/* read through struct ev_* */
};

struct task_info {
	uint32_t tid, tgid, parent_tgid, flags;
	char comm[EV_COMM_LEN + 1];
	unsigned reasons;		/* bit per enum ev_task_reason */
	bool exited;
	int32_t exit_code;
	uint64_t ts;
};

/*
 * Pointer scrubbing check: every field of kind id in every record, counted
 * per record type and field, and the distinct values among those that look
 * like kernel addresses.  In an opaque log there should be none; when a
 * test finds some, where they are and how many distinct values they are
 * tells a scrubbing leak (many values, every field) from one unlucky id
 * that a recycled request repeats.
 */
#define MAX_ID_FIELDS 8
#define KL_SAMPLE 4

struct id_stats {
	uint64_t nonzero, kernel_like;
	uint8_t nfields[MAX_TYPES];
	uint16_t offset[MAX_TYPES][MAX_ID_FIELDS];
	const char *name[MAX_TYPES][MAX_ID_FIELDS];
	uint64_t field_nonzero[MAX_TYPES][MAX_ID_FIELDS];
	uint64_t field_kernel_like[MAX_TYPES][MAX_ID_FIELDS];
	uint64_t *kl_set;		/* open addressing, 0 = empty */
	size_t kl_cap, kl_distinct;
	uint64_t kl_sample[KL_SAMPLE];	/* the first distinct ones */
};

struct stats {
	uint64_t records[MAX_TYPES];
	uint64_t unknown_records;
	uint64_t folded;		/* completions held by submit_complete records */
	uint64_t frames[16];
	struct tid_count *tids;
	size_t ntids, tids_cap;
	struct req_ev *reqs;
	size_t nreqs, reqs_cap;
	struct call_ev *calls;
	size_t ncalls, calls_cap;
	struct task_info *tasks;
	size_t ntasks, tasks_cap;
	uint64_t submits_by_op[256], sqe_valid, submit_flags[16];
	uint64_t async_by_op[256];
	uint64_t failed_by_op[256];
	uint64_t lost_kernel, lost_user, lost_at_stop, lost_records;
	struct log_loss_row *loss_rows;	/* last LOSS frame */
	size_t nloss_rows;
	uint64_t loss_frames;
	uint64_t first_ts, last_ts;
	uint64_t tasks_frame_records;
	uint32_t seq;
	bool keep_requests;
	bool dump;
	struct json_doc end, stats_doc;
	bool have_end, have_stats;
	uint64_t payload_errors;
	struct id_stats ids;		/* pointer scrubbing check */
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	q = realloc(p, *cap * size);
	if (!q) {
		fprintf(stderr, "logstat: out of memory\n");
		exit(1);
	}
	return q;
}

static struct tid_count *tid_slot(struct stats *s, uint32_t tid)
{
	for (size_t i = 0; i < s->ntids; i++)
		if (s->tids[i].tid == tid)
			return &s->tids[i];
	s->tids = grow(s->tids, &s->tids_cap, s->ntids, sizeof(*s->tids));
	memset(&s->tids[s->ntids], 0, sizeof(s->tids[0]));
	s->tids[s->ntids].tid = tid;
	return &s->tids[s->ntids++];
}

static struct task_info *task_slot(struct stats *s, uint32_t tid)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
	s->tasks = grow(s->tasks, &s->tasks_cap, s->ntasks, sizeof(*s->tasks));
	memset(&s->tasks[s->ntasks], 0, sizeof(s->tasks[0]));
	s->tasks[s->ntasks].tid = tid;
	return &s->tasks[s->ntasks++];
}

static void add_req(struct stats *s, uint64_t ts, uint16_t type, uint64_t req, uint8_t op,
		    int32_t res)
{
	if (!s->keep_requests)
		return;
	s->reqs = grow(s->reqs, &s->reqs_cap, s->nreqs, sizeof(*s->reqs));
	s->reqs[s->nreqs++] = (struct req_ev){
		.ts = ts, .req = req, .seq = s->seq, .type = type, .opcode = op, .res = res,
	};
}

static void id_stats_init(struct id_stats *ids)
{
	size_t count;
	const struct ev_type_info *types = ev_types(&count);

	for (size_t t = 0; t < count; t++) {
		unsigned type = types[t].type;

		if (type >= MAX_TYPES)
			continue;
		for (size_t f = 0; f < types[t].nfields; f++) {
			unsigned n = ids->nfields[type];

			if (types[t].fields[f].kind != EVK_ID)
				continue;
			if (n == MAX_ID_FIELDS) {
				fprintf(stderr, "logstat: %s has more than %d id fields\n",
					types[t].name, MAX_ID_FIELDS);
				exit(1);
			}
			ids->offset[type][n] = types[t].fields[f].offset;
			ids->name[type][n] = types[t].fields[f].name;
			ids->nfields[type]++;
		}
	}
}

static size_t kl_slot(const struct id_stats *ids, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ull >> 32) & (ids->kl_cap - 1);

	while (ids->kl_set[i] && ids->kl_set[i] != id)
		i = (i + 1) & (ids->kl_cap - 1);
	return i;
}

/* Count id among the distinct kernel-like ids (never 0). */
static void kl_add(struct id_stats *ids, uint64_t id)
{
	size_t i;

	if ((ids->kl_distinct + 1) * 2 > ids->kl_cap) {
		uint64_t *old = ids->kl_set;
		size_t old_cap = ids->kl_cap;

		ids->kl_cap = old_cap ? old_cap * 2 : 64;
		ids->kl_set = calloc(ids->kl_cap, sizeof(*ids->kl_set));
		if (!ids->kl_set) {
			fprintf(stderr, "logstat: out of memory\n");
			exit(1);
		}
		for (size_t j = 0; j < old_cap; j++)
			if (old[j])
				ids->kl_set[kl_slot(ids, old[j])] = old[j];
		free(old);
	}
	i = kl_slot(ids, id);
	if (ids->kl_set[i])
		return;
	ids->kl_set[i] = id;
	if (ids->kl_distinct < KL_SAMPLE)
		ids->kl_sample[ids->kl_distinct] = id;
	ids->kl_distinct++;
}

static void note_ids(struct id_stats *ids, const struct ev_header *h)
{
	const unsigned char *p = (const void *)h;

	for (unsigned i = 0; i < ids->nfields[h->type]; i++) {
		uint64_t id;

		memcpy(&id, p + ids->offset[h->type][i], sizeof(id));
		if (!id)
			continue;
		ids->nonzero++;
		ids->field_nonzero[h->type][i]++;
		/*
		 * x86-64 kernel addresses have the top byte 0xff under 4- and
		 * 5-level paging (0xffff8..., 0xff11...); scrubbed ids never
		 * do (recorder/pointer_scrub.h).
		 */
		if ((id >> 56) != 0xff)
			continue;
		ids->kernel_like++;
		ids->field_kernel_like[h->type][i]++;
		kl_add(ids, id);
	}
}

/* "type.field": count, for the fields where count is not 0. */
static void write_id_fields(struct json_out *o, const char *key, const struct id_stats *ids,
			    const uint64_t (*counts)[MAX_ID_FIELDS])
{
	char name[64];

	json_key(o, key);
	json_obj_begin(o);
	for (unsigned t = 0; t < MAX_TYPES; t++) {
		for (unsigned i = 0; i < ids->nfields[t]; i++) {
			if (!counts[t][i])
				continue;
			snprintf(name, sizeof(name), "%s.%s", ev_type_name(t), ids->name[t][i]);
			json_kv_u64(o, name, counts[t][i]);
		}
	}
	json_obj_end(o);
}

static void write_ids(struct json_out *o, const struct id_stats *ids)
{
	char hex[24];

	json_key(o, "ids");
	json_obj_begin(o);
	json_kv_u64(o, "nonzero", ids->nonzero);
	json_kv_u64(o, "kernel_like", ids->kernel_like);
	json_kv_u64(o, "kernel_like_distinct", ids->kl_distinct);
	write_id_fields(o, "kernel_like_fields", ids, ids->field_kernel_like);
	json_key(o, "kernel_like_sample");
	json_arr_begin(o);
	for (size_t i = 0; i < ids->kl_distinct && i < KL_SAMPLE; i++) {
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, ids->kl_sample[i]);
		json_str(o, hex);
	}
	json_arr_end(o);
	write_id_fields(o, "nonzero_fields", ids, ids->field_nonzero);
	json_obj_end(o);
}

static void task_record(struct stats *s, const struct ev_task *t)
{
	struct task_info *ti = task_slot(s, t->subject_tid);

	if (t->ts < ti->ts && ti->reasons)
		return;		/* an older view of a task already seen later */
	ti->ts = t->ts;
	ti->tgid = t->subject_tgid;
	ti->parent_tgid = t->parent_tgid;
	ti->flags = t->task_flags;
	memcpy(ti->comm, t->comm, EV_COMM_LEN);
	ti->comm[EV_COMM_LEN] = '\0';
	if (t->reason < 16)
		ti->reasons |= 1u << t->reason;
}

static void event_record(struct stats *s, const struct ev_header *h)
{
	s->seq++;
	if (h->type < MAX_TYPES) {
		s->records[h->type]++;
		tid_slot(s, h->tid)->count[h->type]++;
		note_ids(&s->ids, h);
	}
	if (h->ts && (!s->first_ts || h->ts < s->first_ts))
		s->first_ts = h->ts;
	if (h->ts > s->last_ts)
		s->last_ts = h->ts;
	switch (h->type) {
	case EV_LOST: {
		const struct ev_lost *l = (const void *)h;

		s->lost_records++;
		if (l->flags & EVF_LOSS_USER)
			s->lost_user += l->count;
		else
			s->lost_kernel += l->count;
		if (l->flags & EVF_LOSS_AT_STOP)
			s->lost_at_stop += l->count;
		break;
	}
	case EV_TASK:
		task_record(s, (const void *)h);
		break;
	case EV_TASK_EXIT: {
		struct task_info *ti = task_slot(s, h->tid);

		ti->exited = true;
		ti->exit_code = ((const struct ev_task_exit *)h)->exit_code;
		if (!ti->tgid)
			ti->tgid = h->tgid;
		break;
	}
	case EV_SUBMIT: {
		const struct ev_submit *e = (const void *)h;

		s->submits_by_op[e->opcode]++;
		if (h->flags & EVF_SQE_VALID)
			s->sqe_valid++;
		for (int b = 0; b < 16; b++)
			if (h->flags & (1u << b))
				s->submit_flags[b]++;
		add_req(s, h->ts, h->type, e->req, e->opcode, 0);
		break;
	}
	case EV_COMPLETE:
	case EV_COMPLETE32: {
		const struct ev_complete *e = (const void *)h;

		add_req(s, h->ts, h->type, e->req, 0, e->res);
		break;
	}
	case EV_REQ_FAILED: {
		const struct ev_req_failed *e = (const void *)h;

		/* io_init_req() refused it: no submit event, but a completion */
		s->failed_by_op[e->opcode]++;
		add_req(s, h->ts, EV_SUBMIT, e->req, e->opcode, 0);
		break;
	}
	case EV_QUEUE_ASYNC_WORK: {
		const struct ev_queue_async_work *e = (const void *)h;

		s->async_by_op[e->opcode]++;
		break;
	}
	case EV_SETUP_BEGIN:
	case EV_SETUP_END:
	case EV_ENTER_BEGIN:
	case EV_ENTER_END:
	case EV_REGISTER_BEGIN:
	case EV_REGISTER_END: {
		const struct ev_type_info *t = ev_type_info(h->type);

		s->calls = grow(s->calls, &s->calls_cap, s->ncalls, sizeof(*s->calls));
		memset(&s->calls[s->ncalls], 0, sizeof(s->calls[0]));
		s->calls[s->ncalls].ts = h->ts;
		s->calls[s->ncalls].seq = s->seq;
		s->calls[s->ncalls].type = h->type;
		memcpy(s->calls[s->ncalls].rec, h, t->size < 80 ? t->size : 80);
		s->ncalls++;
		break;
	}
	default:
		break;
	}
}

static int cmp_req(const void *a, const void *b)
{
	const struct req_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_call(const void *a, const void *b)
{
	const struct call_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Open-addressing map req id -> opcode of its latest submission. */
struct req_map {
	uint64_t *keys;
	uint8_t *ops;
	size_t cap, n;
};

static void rm_put(struct req_map *m, uint64_t key, uint8_t op);

static void rm_grow(struct req_map *m)
{
	struct req_map old = *m;

	m->cap = m->cap ? m->cap * 2 : 1024;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->ops = calloc(m->cap, sizeof(*m->ops));
	m->n = 0;
	if (!m->keys || !m->ops) {
		fprintf(stderr, "logstat: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			rm_put(m, old.keys[i], old.ops[i]);
	free(old.keys);
	free(old.ops);
}

static size_t rm_slot(const struct req_map *m, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void rm_put(struct req_map *m, uint64_t key, uint8_t op)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap)
		rm_grow(m);
	i = rm_slot(m, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->ops[i] = op;
}

static int rm_get(const struct req_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return -1;
	i = rm_slot(m, key);
	return m->keys[i] ? m->ops[i] : -1;
}

static void opcode_key(unsigned op, char *buf, size_t len)
{
	const char *name = uring_opcode_name(op);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "OP_%u", op);
}

static void write_op_counts(struct json_out *o, const char *key, const uint64_t *counts)
{
	char name[32];

	json_key(o, key);
	json_obj_begin(o);
	for (unsigned op = 0; op < 256; op++) {
		if (!counts[op])
			continue;
		opcode_key(op, name, sizeof(name));
		json_kv_u64(o, name, counts[op]);
	}
	json_obj_end(o);
}

static void write_requests(struct json_out *o, struct stats *s)
{
	uint64_t completes[256] = { 0 }, unmatched = 0, complete_res[256][2] = { { 0 } };
	struct req_map m = { 0 };
	char name[32];

	if (s->nreqs)
		qsort(s->reqs, s->nreqs, sizeof(*s->reqs), cmp_req);
	for (size_t i = 0; i < s->nreqs; i++) {
		const struct req_ev *e = &s->reqs[i];
		int op;

		if (e->type == EV_SUBMIT) {
			if (e->req)
				rm_put(&m, e->req, e->opcode);
			continue;
		}
		op = e->req ? rm_get(&m, e->req) : -1;
		if (op < 0) {
			unmatched++;
			continue;
		}
		completes[op]++;
		complete_res[op][e->res < 0]++;
	}
	write_op_counts(o, "completes_by_opcode", completes);
	json_kv_u64(o, "completes_unmatched", unmatched);
	json_key(o, "complete_errors_by_opcode");
	json_obj_begin(o);
	for (unsigned op = 0; op < 256; op++) {
		if (!complete_res[op][1])
			continue;
		opcode_key(op, name, sizeof(name));
		json_kv_u64(o, name, complete_res[op][1]);
	}
	json_obj_end(o);
	free(m.keys);
	free(m.ops);
}

/* Syscalls in time order, each entry paired with its exit on the same thread. */
static void write_calls(struct json_out *o, struct stats *s, size_t max_calls)
{
	static const struct {
		const char *key;
		uint16_t begin, end;
	} kinds[] = {
		{ "setup", EV_SETUP_BEGIN, EV_SETUP_END },
		{ "enter", EV_ENTER_BEGIN, EV_ENTER_END },
		{ "register", EV_REGISTER_BEGIN, EV_REGISTER_END },
	};

	if (s->ncalls)
		qsort(s->calls, s->ncalls, sizeof(*s->calls), cmp_call);
	json_key(o, "syscalls");
	json_obj_begin(o);
	for (size_t k = 0; k < 3; k++) {
		size_t shown = 0, total = 0, unpaired = 0;

		json_key(o, kinds[k].key);
		json_arr_begin(o);
		for (size_t i = 0; i < s->ncalls; i++) {
			const struct call_ev *c = &s->calls[i];
			const struct ev_header *h = (const void *)c->rec;
			const struct call_ev *end = NULL;

			if (c->type != kinds[k].begin)
				continue;
			total++;
			for (size_t j = i + 1; j < s->ncalls; j++) {
				const struct ev_header *hj = (const void *)s->calls[j].rec;

				if (hj->tid != h->tid)
					continue;
				if (s->calls[j].type == kinds[k].end)
					end = &s->calls[j];
				break;
			}
			if (!end)
				unpaired++;
			if (shown >= max_calls)
				continue;
			shown++;
			json_obj_begin(o);
			json_kv_u64(o, "tid", h->tid);
			json_kv_u64(o, "flags", h->flags);
			if (c->type == EV_SETUP_BEGIN) {
				const struct ev_setup_begin *e = (const void *)c->rec;

				json_kv_u64(o, "entries", e->entries);
				json_kv_u64(o, "setup_flags", e->setup_flags);
				json_kv_u64(o, "cq_entries", e->cq_entries);
				json_kv_bool(o, "params_valid", h->flags & EVF_PARAMS_VALID);
			} else if (c->type == EV_ENTER_BEGIN) {
				const struct ev_enter_begin *e = (const void *)c->rec;

				json_kv_i64(o, "fd", e->fd);
				json_kv_u64(o, "to_submit", e->to_submit);
				json_kv_u64(o, "min_complete", e->min_complete);
				json_kv_u64(o, "enter_flags", e->enter_flags);
				json_kv_bool(o, "ring_valid", h->flags & EVF_RING_VALID);
				json_kv_bool(o, "state_valid", h->flags & EVF_RING_STATE_VALID);
				json_kv_u64(o, "ring", e->ring);
				json_kv_u64(o, "sq_head", e->sq_head);
				json_kv_u64(o, "sq_tail", e->sq_tail);
				json_kv_u64(o, "cq_head", e->cq_head);
				json_kv_u64(o, "cq_tail", e->cq_tail);
				json_kv_u64(o, "sq_order", e->sq_order);
				json_kv_u64(o, "cq_order", e->cq_order);
			} else {
				const struct ev_register_begin *e = (const void *)c->rec;

				json_kv_i64(o, "fd", e->fd);
				json_kv_u64(o, "opcode", e->opcode);
				json_kv_u64(o, "nr_args", e->nr_args);
				json_kv_bool(o, "ring_valid", h->flags & EVF_RING_VALID);
			}
			json_key(o, "ret");
			if (!end) {
				json_null(o);
			} else if (end->type == EV_SETUP_END) {
				json_i64(o, ((const struct ev_setup_end *)(const void *)end->rec)->ret);
			} else if (end->type == EV_ENTER_END) {
				const struct ev_enter_end *e = (const void *)end->rec;

				json_i64(o, e->ret);
				json_kv_i64(o, "end_fd", e->fd);
				json_kv_u64(o, "end_ring", e->ring);
				json_kv_u64(o, "end_sq_head", e->sq_head);
				json_kv_u64(o, "end_cq_tail", e->cq_tail);
				json_kv_bool(o, "end_ring_valid",
					     ((const struct ev_header *)(const void *)end->rec)->flags &
					     EVF_RING_VALID);
			} else {
				json_i64(o, ((const struct ev_register_end *)(const void *)end->rec)->ret);
			}
			json_obj_end(o);
		}
		json_arr_end(o);
		{
			char key[32];

			snprintf(key, sizeof(key), "%s_count", kinds[k].key);
			json_kv_u64(o, key, total);
			snprintf(key, sizeof(key), "%s_unpaired", kinds[k].key);
			json_kv_u64(o, key, unpaired);
		}
	}
	json_obj_end(o);
}

static const char *task_kind(const struct task_info *t)
{
	if (t->flags & EV_PF_IO_WORKER) {
		if (!strncmp(t->comm, "iou-wrk-", 8))
			return "io_worker";
		if (!strncmp(t->comm, "iou-sqp-", 8))
			return "sqpoll";
		return "io_thread";
	}
	if (t->flags & EV_PF_KTHREAD)
		return "kthread";
	return "task";
}

static void write_tasks(struct json_out *o, const struct stats *s)
{
	static const char *const reasons[] = { "", "existing", "fork", "rename", "exec" };

	json_key(o, "tasks");
	json_arr_begin(o);
	for (size_t i = 0; i < s->ntasks; i++) {
		const struct task_info *t = &s->tasks[i];

		json_obj_begin(o);
		json_kv_u64(o, "tid", t->tid);
		json_kv_u64(o, "tgid", t->tgid);
		json_kv_u64(o, "parent_tgid", t->parent_tgid);
		json_kv_str(o, "comm", t->comm);
		json_kv_u64(o, "task_flags", t->flags);
		json_kv_str(o, "kind", task_kind(t));
		json_key(o, "reasons");
		json_arr_begin(o);
		for (unsigned r = 1; r < 5; r++)
			if (t->reasons & (1u << r))
				json_str(o, reasons[r]);
		json_arr_end(o);
		json_key(o, "exit_code");
		if (t->exited)
			json_i64(o, t->exit_code);
		else
			json_null(o);
		json_obj_end(o);
	}
	json_arr_end(o);
}

static const char *loss_kind_name(unsigned kind)
{
	switch (kind) {
	case EV_LOSS_RING_FULL:
		return "ring_full";
	case EV_LOSS_NO_RING:
		return "no_ring";
	case EV_LOSS_USER_QUEUE:
		return "user_queue";
	default:
		return "unknown";
	}
}

static void write_losses(struct json_out *o, const struct stats *s)
{
	uint64_t total = 0, by_kind[8] = { 0 }, by_type[MAX_TYPES] = { 0 };
	char key[32];
	unsigned max_cpu = 0;
	bool seen_cpu[1024] = { false };
	uint64_t by_cpu[1024] = { 0 };

	for (size_t i = 0; i < s->nloss_rows; i++) {
		const struct log_loss_row *r = &s->loss_rows[i];

		if (r->event_type == 0) {
			total += r->count;
			if (r->kind < 8)
				by_kind[r->kind] += r->count;
			if (r->cpu < 1024) {
				by_cpu[r->cpu] += r->count;
				seen_cpu[r->cpu] = true;
				if (r->cpu > max_cpu)
					max_cpu = r->cpu;
			}
		} else if (r->event_type < MAX_TYPES) {
			by_type[r->event_type] += r->count;
		}
	}
	json_key(o, "losses");
	json_obj_begin(o);
	json_kv_u64(o, "loss_frames", s->loss_frames);
	json_kv_u64(o, "rows", s->nloss_rows);
	json_kv_u64(o, "total", total);
	json_key(o, "by_kind");
	json_obj_begin(o);
	for (unsigned k = 1; k < 4; k++)
		json_kv_u64(o, loss_kind_name(k), by_kind[k]);
	json_obj_end(o);
	json_key(o, "by_cpu");
	json_obj_begin(o);
	for (unsigned c = 0; c <= max_cpu && c < 1024; c++) {
		if (!seen_cpu[c])
			continue;
		snprintf(key, sizeof(key), "%u", c);
		json_kv_u64(o, key, by_cpu[c]);
	}
	json_obj_end(o);
	json_key(o, "by_type");
	json_obj_begin(o);
	for (unsigned t = 1; t < MAX_TYPES; t++)
		if (by_type[t])
			json_kv_u64(o, ev_type_name(t), by_type[t]);
	json_obj_end(o);
	json_key(o, "lost_records");
	json_obj_begin(o);
	json_kv_u64(o, "records", s->lost_records);
	json_kv_u64(o, "kernel", s->lost_kernel);
	json_kv_u64(o, "user", s->lost_user);
	json_kv_u64(o, "at_stop", s->lost_at_stop);
	json_obj_end(o);
	json_obj_end(o);
}

/* Copy a parsed JSON value into the output. */
static void copy_json(struct json_out *o, const struct json_value *v)
{
	switch (v->type) {
	case JSON_NULL:
		json_null(o);
		break;
	case JSON_BOOL:
		json_bool(o, v->boolean);
		break;
	case JSON_NUMBER:
		if (v->is_integer && !v->magnitude_overflow) {
			if (v->is_negative)
				json_i64(o, -(int64_t)v->magnitude);
			else
				json_u64(o, v->magnitude);
		} else {
			json_double(o, v->number);
		}
		break;
	case JSON_STRING:
		json_strn(o, v->string, v->len);
		break;
	case JSON_ARRAY:
		json_arr_begin(o);
		for (size_t i = 0; i < v->len; i++)
			copy_json(o, &v->items[i]);
		json_arr_end(o);
		break;
	case JSON_OBJECT:
		json_obj_begin(o);
		for (size_t i = 0; i < v->len; i++) {
			json_key(o, v->keys[i]);
			copy_json(o, &v->items[i]);
		}
		json_obj_end(o);
		break;
	}
}

static void copy_member(struct json_out *o, const struct json_value *obj, const char *key)
{
	const struct json_value *v = json_get(obj, key);

	json_key(o, key);
	if (v)
		copy_json(o, v);
	else
		json_null(o);
}

/* One record as {"type": name, field: value, ...} on its own line. */
static void dump_record(const struct ev_header *rec, unsigned cpu)
{
	const struct ev_type_info *t = ev_type_info(rec->type);
	const unsigned char *p = (const void *)rec;
	struct json_out o;
	size_t len;
	char *text;

	if (!t)
		return;
	json_out_init(&o, false);
	json_obj_begin(&o);
	json_kv_str(&o, "type", t->name);
	json_kv_u64(&o, "cpu", cpu);
	for (size_t i = 0; i < t->nfields; i++) {
		const struct ev_field *f = &t->fields[i];
		uint64_t u = 0;

		if (f->kind == EVK_PAD || !strcmp(f->name, "type"))
			continue;
		if (f->kind == EVK_COMM || f->kind == EVK_STR) {
			json_key(&o, f->name);
			json_strn(&o, (const char *)p + f->offset,
				  strnlen((const char *)p + f->offset, f->size));
			continue;
		}
		if (f->size > sizeof(u))
			continue;
		memcpy(&u, p + f->offset, f->size);
		json_key(&o, f->name);
		if (f->kind == EVK_S32)
			json_i64(&o, (int32_t)u);
		else if (f->kind == EVK_S64)
			json_i64(&o, (int64_t)u);
		else
			json_u64(&o, u);
	}
	json_obj_end(&o);
	text = json_out_steal(&o, &len);
	if (text) {
		puts(text);
		free(text);
	}
}

/*
 * A submit_complete record as the converter sees it: a submit and, when
 * it holds one, the completion (common/event_split.h).  Counted apart
 * too, so that tests can tell folded completions from written ones.
 */
static void split_record(struct stats *s, const struct ev_submit_complete *rec, unsigned cpu)
{
	struct ev_submit sub;
	struct ev_complete c;
	bool done;

	ev_split_submit(rec, &sub);
	done = ev_split_complete(rec, &c);
	s->folded += done;
	if (s->dump) {
		dump_record((const void *)&sub, cpu);
		if (done)
			dump_record((const void *)&c, cpu);
		return;
	}
	event_record(s, (const void *)&sub);
	if (done)
		event_record(s, (const void *)&c);
}

static int read_log(struct log_reader *r, struct stats *s)
{
	const struct ev_layout_map *map = log_reader_layout(r);
	unsigned char scratch[EV_RECORD_MAX];
	struct log_frame f;

	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len, pos = 0;
		char msg[LOG_MSG_LEN];
		const struct ev_header *rec;
		bool known;
		int ret;

		if (f.h.type < 16)
			s->frames[f.h.type]++;
		if (f.h.type != LOG_FRAME_EVENTS && f.h.type != LOG_FRAME_TASKS &&
		    f.h.type != LOG_FRAME_LOSS && f.h.type != LOG_FRAME_END &&
		    f.h.type != LOG_FRAME_STATS)
			continue;
		if (log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg))) {
			fprintf(stderr, "logstat: %s\n", msg);
			s->payload_errors++;
			continue;
		}
		if (f.h.type == LOG_FRAME_LOSS) {
			s->loss_frames++;
			free(s->loss_rows);
			s->nloss_rows = len / sizeof(struct log_loss_row);
			s->loss_rows = malloc(len ? len : 1);
			if (!s->loss_rows)
				return -ENOMEM;
			memcpy(s->loss_rows, buf, s->nloss_rows * sizeof(struct log_loss_row));
			continue;
		}
		if (f.h.type == LOG_FRAME_END || f.h.type == LOG_FRAME_STATS) {
			struct json_doc *doc = f.h.type == LOG_FRAME_END ? &s->end : &s->stats_doc;
			bool *have = f.h.type == LOG_FRAME_END ? &s->have_end : &s->have_stats;

			if (*have)
				json_doc_free(doc);
			*have = !json_parse(buf, len, doc, msg, sizeof(msg));
			continue;
		}
		while ((ret = log_next_record(map, buf, len, &pos, &rec, &known, scratch, msg,
					      sizeof(msg))) > 0) {
			if (!known) {
				s->unknown_records++;
				continue;
			}
			if (f.h.type == LOG_FRAME_TASKS) {
				if (s->dump) {
					dump_record(rec, f.h.stream);
					continue;
				}
				s->tasks_frame_records++;
				if (rec->type == EV_TASK)
					task_record(s, (const void *)rec);
				continue;
			}
			if (rec->type == EV_SUBMIT_COMPLETE)
				split_record(s, (const void *)rec, f.h.stream);
			else if (s->dump)
				dump_record(rec, f.h.stream);
			else
				event_record(s, rec);
		}
		if (ret < 0) {
			fprintf(stderr, "logstat: %s\n", msg);
			s->payload_errors++;
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: logstat [--no-requests] [--max-calls N] LOG\n"
		"       logstat --dump LOG\n");
}

/* How reading stopped, and the log's END frame. */
static void write_stop(struct json_out *o, struct log_reader *r, const struct stats *s)
{
	const char *stop_msg = NULL;
	uint64_t stop_offset = 0;
	enum log_stop stop = log_reader_stop(r, &stop_msg, &stop_offset);

	json_key(o, "stop");
	json_obj_begin(o);
	json_kv_str(o, "reader", log_stop_name(stop));
	json_kv_str(o, "message", stop_msg ? stop_msg : "");
	json_kv_u64(o, "offset", stop_offset);
	json_key(o, "end");
	if (s->have_end)
		copy_json(o, &s->end.root);
	else
		json_null(o);
	json_obj_end(o);
	json_kv_u64(o, "payload_errors", s->payload_errors);
}

/* Frames and records by type, and records by type and thread. */
static void write_records(struct json_out *o, const struct stats *s)
{
	json_key(o, "frames");
	json_obj_begin(o);
	for (unsigned t = 1; t < 16; t++)
		if (s->frames[t])
			json_kv_u64(o, log_frame_type_name(t), s->frames[t]);
	json_obj_end(o);

	json_key(o, "records");
	json_obj_begin(o);
	for (unsigned t = 1; t < MAX_TYPES; t++)
		if (s->records[t])
			json_kv_u64(o, ev_type_name(t), s->records[t]);
	json_obj_end(o);
	json_kv_u64(o, "folded_completions", s->folded);
	json_kv_u64(o, "unknown_records", s->unknown_records);
	json_kv_u64(o, "tasks_frame_records", s->tasks_frame_records);
	json_kv_u64(o, "first_ts", s->first_ts);
	json_kv_u64(o, "last_ts", s->last_ts);

	json_key(o, "records_by_tid");
	json_obj_begin(o);
	for (unsigned t = 1; t < MAX_TYPES; t++) {
		if (!s->records[t])
			continue;
		json_key(o, ev_type_name(t));
		json_obj_begin(o);
		for (size_t i = 0; i < s->ntids; i++) {
			char key[16];

			if (!s->tids[i].count[t])
				continue;
			snprintf(key, sizeof(key), "%u", s->tids[i].tid);
			json_kv_u64(o, key, s->tids[i].count[t]);
		}
		json_obj_end(o);
	}
	json_obj_end(o);
}

/* Submissions by opcode and flag, failures and io-wq queueing by opcode. */
static void write_submits(struct json_out *o, const struct stats *s)
{
	write_op_counts(o, "submits_by_opcode", s->submits_by_op);
	json_kv_u64(o, "submits_sqe_valid", s->sqe_valid);
	json_key(o, "submit_flags");
	json_obj_begin(o);
	{
		static const char *const names[16] = {
			"SQ_THREAD", "SQE_VALID", "FORCE_NONBLOCK", "RING_VALID", "RING_STATE_VALID",
			"HASHED", "LOOPS_VALID", "CQE_DROPPED", "LOSS_USER", "LOSS_AT_STOP",
			"PARAMS_VALID", "REGISTERED_RING", "WORK_REQ_UNKNOWN", "13", "14", "15",
		};

		for (int b = 0; b < 16; b++)
			if (s->submit_flags[b])
				json_kv_u64(o, names[b], s->submit_flags[b]);
	}
	json_obj_end(o);
	write_op_counts(o, "req_failed_by_opcode", s->failed_by_op);
	write_op_counts(o, "queue_async_by_opcode", s->async_by_op);
}

/* What the tests read of the log's metadata. */
static void write_meta(struct json_out *o, const struct log_info *info)
{
	json_key(o, "meta");
	json_obj_begin(o);
	copy_member(o, info->meta, "host");
	copy_member(o, info->meta, "probes");
	copy_member(o, info->meta, "io_wq_tracking");
	copy_member(o, info->meta, "syscall_tracking");
	copy_member(o, info->meta, "rings_resolved");
	copy_member(o, info->meta, "pointers");
	copy_member(o, info->meta, "filters");
	copy_member(o, info->meta, "options");
	json_key(o, "tracepoints");
	{
		const struct json_value *tps = json_get(info->meta, "tracepoints");

		json_arr_begin(o);
		for (size_t i = 0; tps && tps->type == JSON_OBJECT && i < tps->len; i++)
			json_str(o, tps->keys[i]);
		json_arr_end(o);
	}
	copy_member(o, info->meta, "tracepoints_unavailable");
	json_key(o, "opcodes_source");
	json_str(o, json_get_str(json_get(info->meta, "opcodes"), "source", ""));
	json_obj_end(o);
}

int main(int argc, char **argv)
{
	struct stats s = { .keep_requests = true };
	const struct log_info *info;
	struct log_reader *r;
	struct json_out o;
	char msg[LOG_MSG_LEN];
	const char *path = NULL;
	size_t max_calls = 1000, len;
	char *text;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dump")) {
			s.dump = true;
		} else if (!strcmp(argv[i], "--no-requests")) {
			s.keep_requests = false;
		} else if (!strcmp(argv[i], "--max-calls") && i + 1 < argc) {
			max_calls = strtoul(argv[++i], NULL, 10);
		} else if (argv[i][0] == '-' || path) {
			usage();
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		usage();
		return 2;
	}
	ret = log_reader_open(&r, path, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "logstat: %s\n", msg);
		return 1;
	}
	info = log_reader_info(r);
	id_stats_init(&s.ids);
	if (read_log(r, &s)) {
		fprintf(stderr, "logstat: out of memory\n");
		return 1;
	}
	if (s.dump) {
		log_reader_close(r);
		free(s.loss_rows);
		if (s.have_end)
			json_doc_free(&s.end);
		if (s.have_stats)
			json_doc_free(&s.stats_doc);
		return s.payload_errors ? 1 : 0;
	}
	json_out_init(&o, true);
	json_obj_begin(&o);
	json_kv_str(&o, "file", path);
	json_kv_str(&o, "recording_id", info->recording_id_str);
	write_stop(&o, r, &s);
	write_records(&o, &s);
	write_submits(&o, &s);
	if (s.keep_requests)
		write_requests(&o, &s);
	write_ids(&o, &s.ids);
	write_calls(&o, &s, max_calls);
	write_tasks(&o, &s);
	write_losses(&o, &s);

	write_meta(&o, info);
	json_key(&o, "stats");
	if (s.have_stats)
		copy_json(&o, &s.stats_doc.root);
	else
		json_null(&o);
	json_obj_end(&o);

	text = json_out_steal(&o, &len);
	if (!text) {
		fprintf(stderr, "logstat: out of memory\n");
		return 1;
	}
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
	free(text);
	if (s.have_end)
		json_doc_free(&s.end);
	if (s.have_stats)
		json_doc_free(&s.stats_doc);
	free(s.tids);
	free(s.reqs);
	free(s.calls);
	free(s.tasks);
	free(s.loss_rows);
	free(s.ids.kl_set);
	log_reader_close(r);
	return 0;
}
