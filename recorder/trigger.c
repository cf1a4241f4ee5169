// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"
#include "event_split.h"
#include "json.h"
#include "trigger.h"
#include "uring_event.h"
#include "uring_names.h"

/* IORING_CQE_F_MORE (include/uapi/linux/io_uring.h): more CQEs will come. */
#define CQE_F_MORE (1u << 1)

struct inflight_slot {
	uint64_t ring, req;		/* ring 0 and req 0: free */
	uint64_t submit_ts;
	uint64_t user_data;
	uint32_t tid;
	int16_t opcode;
	bool reported;			/* already fired a latency trigger */
};

struct inflight_fifo {
	uint64_t ring, req, submit_ts;
};

struct worker_slot {
	uint32_t tid;			/* 0: free */
	uint32_t owner;			/* the task whose io-wq it serves */
};

/* ---------------------------------------------------------- parsing */

static int set_err(char *err, size_t errlen, const char *msg, const char *arg)
{
	snprintf(err, errlen, "%s%s%s", msg, arg ? ": " : "", arg ? arg : "");
	return -1;
}

static int parse_opcode(const char *s, int *op)
{
	if (!strncasecmp(s, "IORING_OP_", 10))
		s += 10;
	for (unsigned i = 0; i < uring_opcode_count(); i++) {
		const char *name = uring_opcode_name(i);

		if (name && !strcasecmp(s, name)) {
			*op = (int)i;
			return 0;
		}
	}
	return -1;
}

static int parse_errno(const char *s, int *e)
{
	char *end;
	long v;

	for (int i = 1; i < 4096; i++) {
		const char *name = errno_name(i);

		if (name && !strcasecmp(s, name)) {
			*e = i;
			return 0;
		}
	}
	v = strtol(s, &end, 10);
	if (end == s || *end || v == 0 || v < -4095 || v > 4095)
		return -1;
	*e = v < 0 ? (int)-v : (int)v;
	return 0;
}

/* "VALUE[:OPCODE]": split off the opcode. */
static int split_opcode(char *value, int *op, char *err, size_t errlen)
{
	char *colon = strchr(value, ':');

	*op = TRIGGER_ANY_OPCODE;
	if (!colon)
		return 0;
	*colon = '\0';
	if (parse_opcode(colon + 1, op))
		return set_err(err, errlen, "unknown opcode (e.g. READ, RECV, NOP)", colon + 1);
	return 0;
}

int trigger_parse(const char *s, struct trigger_spec *t, char *err, size_t errlen)
{
	char buf[TRIGGER_TEXT_LEN], why[96];
	char *end;
	unsigned long v;

	memset(t, 0, sizeof(*t));
	t->opcode = TRIGGER_ANY_OPCODE;
	if (!s || strlen(s) >= sizeof(buf))
		return set_err(err, errlen, "not a trigger (see --help)", NULL);
	snprintf(t->text, sizeof(t->text), "%s", s);
	snprintf(buf, sizeof(buf), "%s", s);
	if (!strcmp(buf, "signal")) {
		t->kind = TRIG_SIGNAL;
		return 0;
	}
	if (!strcmp(buf, "cq-overflow")) {
		t->kind = TRIG_CQ_OVERFLOW;
		return 0;
	}
	if (!strncmp(buf, "errno=", 6)) {
		t->kind = TRIG_ERRNO;
		if (split_opcode(buf + 6, &t->opcode, err, errlen))
			return -1;
		if (parse_errno(buf + 6, &t->err))
			return set_err(err, errlen, "unknown errno name (e.g. ECANCELED, ENOBUFS)",
				       buf + 6);
		return 0;
	}
	if (!strncmp(buf, "latency>", 8)) {
		t->kind = TRIG_LATENCY;
		if (split_opcode(buf + 8, &t->opcode, err, errlen))
			return -1;
		if (parse_duration(buf + 8, &t->latency_ns, why, sizeof(why)))
			return set_err(err, errlen, why, buf + 8);
		if (!t->latency_ns)
			return set_err(err, errlen, "the latency must be more than 0", NULL);
		return 0;
	}
	if (!strncmp(buf, "io-wq-workers>", 14)) {
		t->kind = TRIG_IOWQ_WORKERS;
		errno = 0;
		v = strtoul(buf + 14, &end, 10);
		if (errno || end == buf + 14 || *end || buf[14] == '-' || v > TRIGGER_MAX_WORKERS)
			return set_err(err, errlen, "not a worker count (0 to 1023)", buf + 14);
		t->workers = (unsigned)v;
		return 0;
	}
	return set_err(err, errlen, "unknown trigger (signal, errno=NAME[:OPCODE], "
		       "cq-overflow, latency>TIME[:OPCODE], io-wq-workers>N)", NULL);
}

/* ---------------------------------------------------------- runtime */

bool triggers_need_records(const struct trigger_spec *specs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (specs[i].kind != TRIG_SIGNAL)
			return true;
	return false;
}

int triggers_init(struct triggers *t, const struct trigger_spec *specs, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->specs = specs;
	t->n = n;
	t->min_latency_ns = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		if (specs[i].kind == TRIG_LATENCY) {
			t->track = true;
			if (specs[i].latency_ns < t->min_latency_ns)
				t->min_latency_ns = specs[i].latency_ns;
		}
		if (specs[i].kind == TRIG_ERRNO && specs[i].opcode != TRIGGER_ANY_OPCODE)
			t->track = true;	/* completions carry no opcode */
		if (specs[i].kind == TRIG_IOWQ_WORKERS)
			t->workers = true;
	}
	if (t->track) {
		t->slot = calloc(TRIGGER_INFLIGHT_SLOTS, sizeof(*t->slot));
		t->fifo = calloc(TRIGGER_INFLIGHT_SLOTS, sizeof(*t->fifo));
		if (!t->slot || !t->fifo)
			goto fail;
	}
	if (t->workers) {
		t->worker = calloc(TRIGGER_WORKER_SLOTS, sizeof(*t->worker));
		if (!t->worker)
			goto fail;
	}
	return 0;
fail:
	triggers_free(t);
	return -ENOMEM;
}

void triggers_free(struct triggers *t)
{
	free(t->slot);
	free(t->fifo);
	free(t->worker);
	t->slot = NULL;
	t->fifo = NULL;
	t->worker = NULL;
}

void triggers_signal(struct triggers *t, uint64_t now)
{
	struct trigger_hit h = { .ts = now, .due_ns = now, .opcode = TRIGGER_ANY_OPCODE };

	for (size_t i = 0; i < t->n; i++)
		if (t->specs[i].kind == TRIG_SIGNAL)
			h.spec = &t->specs[i];
	if (t->fired)
		return;
	t->fired = true;
	t->hit = h;
}

void triggers_rearm(struct triggers *t)
{
	t->fired = false;
	memset(&t->hit, 0, sizeof(t->hit));
}

static size_t slot_hash(uint64_t ring, uint64_t req)
{
	uint64_t h = (ring * 0x9e3779b97f4a7c15ull) ^ (req * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29)) & (TRIGGER_INFLIGHT_SLOTS - 1);
}

static bool slot_free(const struct inflight_slot *s)
{
	return !s->ring && !s->req;
}

/* The slot of (ring, req), or the free slot where it would go. */
static struct inflight_slot *slot_find(struct triggers *t, uint64_t ring, uint64_t req)
{
	size_t i = slot_hash(ring, req);

	for (;;) {
		struct inflight_slot *s = &t->slot[i];

		if (slot_free(s) || (s->ring == ring && s->req == req))
			return s;
		i = (i + 1) & (TRIGGER_INFLIGHT_SLOTS - 1);
	}
}

/*
 * Linear probing's deletion moves later entries of the run back into the
 * hole at i: the entry at j may fill it unless its home lies in (i, j],
 * cyclically.
 */
static bool may_fill(size_t i, size_t j, size_t home)
{
	return (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j);
}

/* Linear probing's deletion: move later entries of the run back. */
static void slot_remove(struct triggers *t, struct inflight_slot *s)
{
	size_t i = (size_t)(s - t->slot), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & (TRIGGER_INFLIGHT_SLOTS - 1);
		if (slot_free(&t->slot[j]))
			break;
		home = slot_hash(t->slot[j].ring, t->slot[j].req);
		if (may_fill(i, j, home)) {
			t->slot[i] = t->slot[j];
			i = j;
		}
	}
	memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->used--;
}

static void fire(struct triggers *t, const struct trigger_spec *spec, const struct trigger_hit *h)
{
	if (t->fired)
		return;
	t->fired = true;
	t->hit = *h;
	t->hit.spec = spec;
}

static bool opcode_ok(const struct trigger_spec *spec, int opcode)
{
	return spec->opcode == TRIGGER_ANY_OPCODE || spec->opcode == opcode;
}

static void on_submit(struct triggers *t, const struct ev_submit *e)
{
	struct inflight_slot *s;
	struct inflight_fifo *q;

	if (!t->track)
		return;
	s = slot_find(t, e->ring, e->req);
	if (slot_free(s)) {
		/* keep an eighth free: probes stay short */
		if (t->used >= TRIGGER_INFLIGHT_SLOTS - TRIGGER_INFLIGHT_SLOTS / 8 ||
		    t->fifo_len == TRIGGER_INFLIGHT_SLOTS) {
			t->untracked++;
			return;
		}
		t->used++;
	}
	*s = (struct inflight_slot){
		.ring = e->ring, .req = e->req, .submit_ts = e->ts, .user_data = e->user_data,
		.tid = e->tid, .opcode = e->opcode,
	};
	if (t->fifo_len == TRIGGER_INFLIGHT_SLOTS)
		return;		/* tracked for completions only */
	q = &t->fifo[(t->fifo_head + t->fifo_len++) & (TRIGGER_INFLIGHT_SLOTS - 1)];
	*q = (struct inflight_fifo){ .ring = e->ring, .req = e->req, .submit_ts = e->ts };
}

static void on_complete(struct triggers *t, unsigned cpu, const struct ev_complete *e)
{
	struct inflight_slot *s = t->track ? slot_find(t, e->ring, e->req) : NULL;
	bool known = s && !slot_free(s);
	int opcode = known ? s->opcode : TRIGGER_ANY_OPCODE;
	struct trigger_hit h = {
		.ts = e->ts, .due_ns = e->ts, .cpu = cpu, .tid = e->tid, .ring = e->ring,
		.req = e->req, .user_data = e->user_data, .opcode = opcode, .res = e->res,
	};

	for (size_t i = 0; i < t->n && !t->fired; i++) {
		const struct trigger_spec *spec = &t->specs[i];

		if (spec->kind == TRIG_ERRNO && e->res == -spec->err &&
		    (spec->opcode == TRIGGER_ANY_OPCODE || (known && opcode == spec->opcode)))
			fire(t, spec, &h);
		if (spec->kind == TRIG_LATENCY && known && !s->reported &&
		    e->ts - s->submit_ts > spec->latency_ns && opcode_ok(spec, opcode)) {
			h.latency_ns = e->ts - s->submit_ts;
			h.due_ns = s->submit_ts + spec->latency_ns;
			fire(t, spec, &h);
		}
	}
	if (known && !(e->cflags & CQE_F_MORE))
		slot_remove(t, s);
}

static size_t worker_hash(uint32_t tid)
{
	return (size_t)((tid * 0x9e3779b97f4a7c15ull) >> 40) & (TRIGGER_WORKER_SLOTS - 1);
}

/* The slot of worker tid, or the free slot where it would go (NULL: full). */
static struct worker_slot *worker_find(struct triggers *t, uint32_t tid)
{
	size_t i = worker_hash(tid);

	for (size_t n = 0; n < TRIGGER_WORKER_SLOTS; n++) {
		struct worker_slot *w = &t->worker[i];

		if (!w->tid || w->tid == tid)
			return w;
		i = (i + 1) & (TRIGGER_WORKER_SLOTS - 1);
	}
	return NULL;
}

/* Linear probing's deletion, as slot_remove(). */
static void worker_remove(struct triggers *t, struct worker_slot *w)
{
	size_t i = (size_t)(w - t->worker), j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & (TRIGGER_WORKER_SLOTS - 1);
		if (!t->worker[j].tid)
			break;
		home = worker_hash(t->worker[j].tid);
		if (may_fill(i, j, home)) {
			t->worker[i] = t->worker[j];
			i = j;
		}
	}
	memset(&t->worker[i], 0, sizeof(t->worker[i]));
	t->workers_used--;
}

/*
 * The owner of an io-wq worker named "iou-wrk-<tid>": io_wq_worker() names
 * each worker after the task whose io-wq it serves (io_uring/io-wq.c, 6.1
 * .. 6.18), 0 if comm is not a worker's.
 */
static uint32_t worker_owner(const char *comm)
{
	unsigned long v = 0;
	size_t i = 8;

	if (strncmp(comm, "iou-wrk-", 8))
		return 0;
	for (; i < EV_COMM_LEN && comm[i] >= '0' && comm[i] <= '9'; i++)
		v = v * 10 + (unsigned long)(comm[i] - '0');
	return i > 8 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/*
 * io-wq is per task, not per ring (one io_wq per io_uring_task since 5.12),
 * so the workers of the io-wq a ring's requests go to are the live threads
 * named after its task.  They are counted from task records, which every
 * kernel gives: a worker names itself when it starts (task_rename) and is
 * gone at its exit; workers alive at the start come from the task listing.
 */
void triggers_task(struct triggers *t, unsigned cpu, const struct ev_task *e)
{
	uint32_t owner = worker_owner(e->comm);
	struct worker_slot *w;
	unsigned n = 0;

	if (!t->workers || !owner)
		return;
	w = worker_find(t, e->subject_tid);
	if (!w || w->tid)
		return;		/* full (counted no further), or known */
	if (t->workers_used >= TRIGGER_WORKER_SLOTS * 3 / 4) {
		t->workers_untracked++;
		return;
	}
	*w = (struct worker_slot){ .tid = e->subject_tid, .owner = owner };
	t->workers_used++;
	for (size_t i = 0; i < TRIGGER_WORKER_SLOTS; i++)
		n += t->worker[i].tid && t->worker[i].owner == owner;
	for (size_t i = 0; i < t->n && !t->fired; i++) {
		const struct trigger_spec *spec = &t->specs[i];
		struct trigger_hit h = {
			.ts = e->ts, .due_ns = e->ts, .cpu = cpu, .tid = owner,
			.worker_tid = e->subject_tid, .opcode = TRIGGER_ANY_OPCODE, .workers = n,
		};

		if (spec->kind == TRIG_IOWQ_WORKERS && n > spec->workers)
			fire(t, spec, &h);
	}
}

static void on_task_exit(struct triggers *t, const struct ev_task_exit *e)
{
	struct worker_slot *w = worker_find(t, e->tid);

	if (w && w->tid)
		worker_remove(t, w);
}

void triggers_record(struct triggers *t, unsigned cpu, const void *rec)
{
	const struct ev_header *h = rec;

	switch (h->type) {
	case EV_SUBMIT:
		on_submit(t, rec);
		return;
	case EV_SUBMIT_COMPLETE: {
		struct ev_submit s;
		struct ev_complete c;

		ev_split_submit(rec, &s);
		on_submit(t, &s);
		if (ev_split_complete(rec, &c))
			on_complete(t, cpu, &c);
		return;
	}
	case EV_COMPLETE:
	case EV_COMPLETE32:
		on_complete(t, cpu, rec);
		return;
	case EV_CQE_OVERFLOW:
		for (size_t i = 0; i < t->n && !t->fired; i++) {
			const struct ev_cqe_overflow *e = rec;
			struct trigger_hit hit = {
				.ts = e->ts, .due_ns = e->ts, .cpu = cpu, .tid = e->tid,
				.ring = e->ring, .user_data = e->user_data,
				.opcode = TRIGGER_ANY_OPCODE, .res = e->res,
			};

			if (t->specs[i].kind == TRIG_CQ_OVERFLOW)
				fire(t, &t->specs[i], &hit);
		}
		return;
	case EV_TASK:
		triggers_task(t, cpu, rec);
		return;
	case EV_TASK_EXIT:
		if (t->workers)
			on_task_exit(t, rec);
		return;
	default:
		return;
	}
}

/*
 * The FIFO's oldest entry that is still in flight as submitted (a req
 * recycled since, or completed, is dropped), or NULL.
 */
static struct inflight_slot *oldest_in_flight(struct triggers *t)
{
	while (t->fifo_len) {
		const struct inflight_fifo *q = &t->fifo[t->fifo_head];
		struct inflight_slot *s = slot_find(t, q->ring, q->req);

		if (!slot_free(s) && s->submit_ts == q->submit_ts && !s->reported)
			return s;
		t->fifo_head = (t->fifo_head + 1) & (TRIGGER_INFLIGHT_SLOTS - 1);
		t->fifo_len--;
	}
	return NULL;
}

bool triggers_overdue(struct triggers *t, uint64_t now, bool fire_it)
{
	if (!t->track || t->min_latency_ns == UINT64_MAX || t->fired)
		return false;
	oldest_in_flight(t);
	/* Submissions arrive in drain order, nearly time order: the first
	 * one young enough for every trigger ends the look. */
	for (size_t k = 0; k < t->fifo_len && k < TRIGGER_LOOKAHEAD; k++) {
		const struct inflight_fifo *q =
			&t->fifo[(t->fifo_head + k) & (TRIGGER_INFLIGHT_SLOTS - 1)];
		struct inflight_slot *s = slot_find(t, q->ring, q->req);
		bool matched = false;

		if (slot_free(s) || s->submit_ts != q->submit_ts || s->reported)
			continue;
		if (now <= s->submit_ts || now - s->submit_ts <= t->min_latency_ns)
			return false;
		for (size_t i = 0; i < t->n; i++) {
			const struct trigger_spec *spec = &t->specs[i];
			struct trigger_hit h = {
				.ts = s->submit_ts, .due_ns = s->submit_ts + spec->latency_ns,
				.tid = s->tid, .ring = s->ring, .req = s->req,
				.user_data = s->user_data, .opcode = s->opcode,
				.latency_ns = now - s->submit_ts, .in_flight = true,
			};

			if (spec->kind != TRIG_LATENCY || !opcode_ok(spec, s->opcode))
				continue;
			matched = true;
			if (now - s->submit_ts <= spec->latency_ns)
				continue;
			if (!fire_it)
				return true;
			s->reported = true;
			fire(t, spec, &h);
			return true;
		}
		/* no latency trigger for its opcode: it can never fire one */
		if (!matched)
			s->reported = true;
	}
	return false;
}

void trigger_hit_describe(const struct trigger_hit *h, char *buf, size_t len)
{
	const char *op = h->opcode >= 0 ? uring_opcode_name((unsigned)h->opcode) : NULL;
	int n = snprintf(buf, len, "%s", h->spec ? h->spec->text : "?");

	if (n < 0 || (size_t)n >= len)
		return;
	switch (h->spec ? h->spec->kind : TRIG_SIGNAL) {
	case TRIG_SIGNAL:
		snprintf(buf + n, len - (size_t)n, ": SIGUSR1");
		return;
	case TRIG_ERRNO:
	case TRIG_LATENCY:
		snprintf(buf + n, len - (size_t)n,
			 ": %s ring %" PRIu64 " req %" PRIu64 " user_data %" PRIu64 "%s%s",
			 op ? op : "request", h->ring, h->req, h->user_data,
			 h->spec->kind == TRIG_LATENCY && h->in_flight ? ", still in flight" : "",
			 h->spec->kind == TRIG_ERRNO ? ", failed" : "");
		return;
	case TRIG_CQ_OVERFLOW:
		snprintf(buf + n, len - (size_t)n, ": ring %" PRIu64 " user_data %" PRIu64,
			 h->ring, h->user_data);
		return;
	case TRIG_IOWQ_WORKERS:
		snprintf(buf + n, len - (size_t)n,
			 ": the io-wq of task %" PRIu32 " has %u workers (worker %" PRIu32
			 " started)", h->tid, h->workers, h->worker_tid);
		return;
	}
}

void trigger_hit_json(struct json_out *o, const struct trigger_hit *h, uint64_t fired_boot_ns)
{
	const char *op = h->opcode >= 0 ? uring_opcode_name((unsigned)h->opcode) : NULL;
	enum trigger_kind kind = h->spec ? h->spec->kind : TRIG_SIGNAL;
	char text[256];

	trigger_hit_describe(h, text, sizeof(text));
	json_obj_begin(o);
	json_kv_str(o, "spec", h->spec ? h->spec->text : "signal");
	json_kv_str(o, "description", text);
	json_kv_u64(o, "fired_boot_ns", fired_boot_ns);
	json_kv_u64(o, "condition_boot_ns", h->due_ns ? h->due_ns : fired_boot_ns);
	if (kind != TRIG_SIGNAL) {
		json_kv_u64(o, "event_boot_ns", h->ts);
		json_kv_u64(o, "cpu", h->cpu);
		json_kv_u64(o, "tid", h->tid);
		if (kind != TRIG_IOWQ_WORKERS)
			json_kv_u64(o, "ring", h->ring);
	}
	if (kind == TRIG_ERRNO || kind == TRIG_LATENCY) {
		json_kv_u64(o, "req", h->req);
		json_kv_u64(o, "user_data", h->user_data);
		if (op)
			json_kv_str(o, "opcode", op);
	}
	if (kind == TRIG_ERRNO || kind == TRIG_CQ_OVERFLOW)
		json_kv_i64(o, "res", h->res);
	if (kind == TRIG_LATENCY) {
		json_kv_u64(o, "latency_ns", h->latency_ns);
		json_kv_bool(o, "in_flight", h->in_flight);
	}
	if (kind == TRIG_IOWQ_WORKERS) {
		json_kv_u64(o, "workers", h->workers);
		json_kv_u64(o, "worker_tid", h->worker_tid);
	}
	json_obj_end(o);
}
