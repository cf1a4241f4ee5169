// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_test.h"
#include "test_util.h"

void scen_open_opts(struct scen *sc, const char *name, const struct synth_options *opt)
{
	memset(sc, 0, sizeof(*sc));
	sc->dir = test_tmpdir();
	sc->path = test_path(sc->dir, name);
	sc->s = synth_log_create(sc->path, opt);
}

void scen_open(struct scen *sc, const char *name)
{
	scen_open_opts(sc, name, NULL);
}

void scen_finish(struct scen *sc)
{
	synth_finish(sc->s, "signal");
	sc->s = NULL;
}

void scen_free(struct scen *sc)
{
	test_rmtree(sc->dir);
	free(sc->dir);
	free(sc->path);
}

#define EMIT(sc, ev) synth_emit((sc)->s, (sc)->cpu, &(ev), sizeof(ev))

void ev_task(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, const char *comm,
	     uint32_t flags, uint16_t reason)
{
	struct ev_task e = {
		SYNTH_HDR(EV_TASK, ts, tid, pid),
		.subject_tid = tid, .subject_tgid = pid, .task_flags = flags, .reason = reason,
	};

	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm)));
	EMIT(sc, e);
}

void ev_enter_begin(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    int fd, uint32_t to_submit, uint32_t min_complete, uint32_t flags)
{
	struct ev_enter_begin e = {
		SYNTH_HDR(EV_ENTER_BEGIN, ts, tid, pid),
		.fd = fd, .ring = ring, .to_submit = to_submit, .min_complete = min_complete,
		.enter_flags = flags, .sq_head = 0, .sq_tail = to_submit, .cq_head = 0, .cq_tail = 0,
	};

	e.flags = EVF_RING_VALID | EVF_RING_STATE_VALID;
	EMIT(sc, e);
}

void ev_enter_end(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		  int64_t ret)
{
	struct ev_enter_end e = {
		SYNTH_HDR(EV_ENTER_END, ts, tid, pid),
		.fd = 3, .ret = ret, .ring = ring,
	};

	e.flags = EVF_RING_VALID;
	EMIT(sc, e);
}

void ev_enter_cq(struct scen *sc, bool begin, uint64_t ts, uint32_t tid, uint32_t pid,
		 uint64_t ring, uint8_t cq_order, uint32_t cq_head, uint32_t cq_tail)
{
	if (begin) {
		struct ev_enter_begin e = {
			SYNTH_HDR(EV_ENTER_BEGIN, ts, tid, pid),
			.fd = 3, .ring = ring, .cq_head = cq_head, .cq_tail = cq_tail,
			.cq_order = cq_order,
		};

		e.flags = EVF_RING_VALID | EVF_RING_STATE_VALID;
		EMIT(sc, e);
		return;
	}
	struct ev_enter_end e = {
		SYNTH_HDR(EV_ENTER_END, ts, tid, pid),
		.fd = 3, .ring = ring, .cq_head = cq_head, .cq_tail = cq_tail,
	};

	e.flags = EVF_RING_VALID | EVF_RING_STATE_VALID;
	EMIT(sc, e);
}

void ev_create(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring, int fd,
	       uint32_t setup_flags)
{
	struct ev_create e = {
		SYNTH_HDR(EV_CREATE, ts, tid, pid),
		.fd = fd, .ring = ring, .sq_entries = 64, .cq_entries = 128,
		.setup_flags = setup_flags,
	};

	EMIT(sc, e);
}

void ev_submit(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
	       uint64_t req, uint8_t opcode, uint64_t user_data, uint8_t sqe_flags,
	       uint16_t evflags)
{
	struct ev_submit e = {
		SYNTH_HDR(EV_SUBMIT, ts, tid, pid),
		.opcode = opcode, .sqe_flags = sqe_flags, .ring = ring, .req = req,
		.user_data = user_data, .req_flags = sqe_flags, .off = 4096, .fd = 5,
		.len = 512,
	};

	e.flags = EVF_SQE_VALID | evflags;
	EMIT(sc, e);
}

void ev_complete(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		 uint64_t req, uint64_t user_data, int32_t res, uint32_t cflags)
{
	struct ev_complete e = {
		SYNTH_HDR(EV_COMPLETE, ts, tid, pid),
		.res = res, .ring = ring, .req = req, .user_data = user_data, .cflags = cflags,
	};

	EMIT(sc, e);
}

void ev_complete_file(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		      uint64_t req, uint64_t user_data, int32_t res, uint64_t file)
{
	struct ev_complete e = {
		SYNTH_HDR(EV_COMPLETE, ts, tid, pid),
		.res = res, .ring = ring, .req = req, .user_data = user_data, .file = file,
	};

	e.flags = EVF_FILE_VALID;
	EMIT(sc, e);
}

void ev_file(struct scen *sc, uint64_t ts, uint64_t file, uint32_t dev, uint64_t ino,
	     uint32_t f_flags, uint32_t nlink, uint16_t mode, const char *fs,
	     const char *path, size_t len, unsigned ncomp, uint8_t path_flags)
{
	struct ev_file e = {
		SYNTH_HDR(EV_FILE, ts, 0, 0),
		.dev = dev, .file = file, .ino = ino, .f_flags = f_flags, .nlink = nlink,
		.mode = mode, .ncomp = (uint8_t)ncomp, .path_flags = path_flags,
	};

	memcpy(e.fs, fs, strnlen(fs, sizeof(e.fs)));
	memcpy(e.path, path, len < sizeof(e.path) ? len : sizeof(e.path));
	EMIT(sc, e);
}

void ev_req(struct scen *sc, uint16_t type, uint64_t ts, uint32_t tid, uint32_t pid,
	    uint64_t ring, uint64_t req, uint64_t user_data)
{
	switch (type) {
	case EV_QUEUE_ASYNC_WORK: {
		struct ev_queue_async_work e = {
			SYNTH_HDR(EV_QUEUE_ASYNC_WORK, ts, tid, pid),
			.opcode = 22, .ring = ring, .req = req, .user_data = user_data,
		};
		EMIT(sc, e);
		break;
	}
	case EV_DEFER: {
		struct ev_defer e = {
			SYNTH_HDR(EV_DEFER, ts, tid, pid),
			.opcode = 22, .ring = ring, .req = req, .user_data = user_data,
		};
		EMIT(sc, e);
		break;
	}
	case EV_POLL_ARM: {
		struct ev_poll_arm e = {
			SYNTH_HDR(EV_POLL_ARM, ts, tid, pid),
			.opcode = 27, .ring = ring, .req = req, .user_data = user_data,
			.mask = 1, .events = 1,
		};
		EMIT(sc, e);
		break;
	}
	case EV_TASK_ADD: {
		struct ev_task_add e = {
			SYNTH_HDR(EV_TASK_ADD, ts, tid, pid),
			.opcode = 27, .ring = ring, .req = req, .user_data = user_data, .mask = 1,
		};
		EMIT(sc, e);
		break;
	}
	default:
		ck_abort_msg("ev_req: type %u", type);
	}
}

void ev_link(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
	     uint64_t req, uint64_t target)
{
	struct ev_link e = {
		SYNTH_HDR(EV_LINK, ts, tid, pid), .ring = ring, .req = req, .target_req = target,
	};

	EMIT(sc, e);
}

void ev_fail_link(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		  uint64_t failed, uint64_t member)
{
	struct ev_fail_link e = {
		SYNTH_HDR(EV_FAIL_LINK, ts, tid, pid), .opcode = 22, .ring = ring, .req = failed,
		.link = member,
	};

	EMIT(sc, e);
}

void ev_cqring_wait(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    int min_events)
{
	struct ev_cqring_wait e = {
		SYNTH_HDR(EV_CQRING_WAIT, ts, tid, pid), .min_events = min_events, .ring = ring,
	};

	EMIT(sc, e);
}

void ev_tw_run(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint32_t count)
{
	struct ev_task_work_run e = {
		SYNTH_HDR(EV_TASK_WORK_RUN, ts, tid, pid), .count = count, .tctx = 0x77,
	};

	EMIT(sc, e);
}

void ev_overflow(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		 uint64_t user_data, int32_t res, bool dropped)
{
	struct ev_cqe_overflow e = {
		SYNTH_HDR(EV_CQE_OVERFLOW, ts, tid, pid), .res = res, .ring = ring,
		.user_data = user_data,
	};

	if (dropped)
		e.flags = EVF_CQE_DROPPED;
	EMIT(sc, e);
}

void ev_lost(struct scen *sc, uint64_t ts, uint64_t last_ts, uint32_t count)
{
	struct ev_lost e = {
		SYNTH_HDR(EV_LOST, ts, 0, 0), .count = count, .last_ts = last_ts,
	};

	EMIT(sc, e);
}

void ev_req_failed(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		   uint64_t req, uint8_t opcode, uint64_t user_data, int32_t error)
{
	struct ev_req_failed e = {
		SYNTH_HDR(EV_REQ_FAILED, ts, tid, pid), .opcode = opcode, .ring = ring,
		.req = req, .user_data = user_data, .error = error, .fd = -1,
	};

	EMIT(sc, e);
}

void ev_queue_async(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    uint64_t req, uint64_t user_data, bool hashed, uint32_t work_flags)
{
	struct ev_queue_async_work e = {
		SYNTH_HDR(EV_QUEUE_ASYNC_WORK, ts, tid, pid),
		.opcode = 23, .ring = ring, .req = req, .user_data = user_data,
		.work_flags = work_flags,
	};

	e.flags = EVF_WORK_FLAGS_VALID | (hashed ? EVF_HASHED : 0);
	EMIT(sc, e);
}

void ev_task_exit(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid)
{
	struct ev_task_exit e = { SYNTH_HDR(EV_TASK_EXIT, ts, tid, pid) };

	EMIT(sc, e);
}

void ev_work(struct scen *sc, bool begin, uint64_t ts, uint32_t tid, uint32_t pid,
	     uint64_t ring, uint64_t req)
{
	if (begin) {
		struct ev_work_begin e = {
			SYNTH_HDR(EV_WORK_BEGIN, ts, tid, pid), .opcode = 22, .ring = ring,
			.req = req,
		};
		EMIT(sc, e);
	} else {
		struct ev_work_end e = { SYNTH_HDR(EV_WORK_END, ts, tid, pid), .req = req };
		EMIT(sc, e);
	}
}

/* ------------------------------------------------------------ capture */

#define CAP(o) ((struct capture *)(void *)(o))

static void *push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*arr = realloc(*arr, *cap * elem);
		ck_assert(*arr);
	}
	return (char *)*arr + (*n)++ * elem;
}

static int cap_begin(struct output *o, const struct output_meta *m, char *e, size_t l)
{
	(void)o; (void)m; (void)e; (void)l;
	return 0;
}

static void cap_request(struct output *o, const struct model_request *r)
{
	struct capture *c = CAP(o);

	if (!c->store) {
		c->nreq++;
		return;
	}
	*(unsigned *)push((void **)&c->req_ring_no, &(size_t){ c->nreq }, &c->ringnocap,
			  sizeof(unsigned)) = r->ring->number;
	{
		size_t n = c->nreq;
		struct model_file *f = push((void **)&c->req_file, &n, &c->filecap, sizeof(*f));

		memset(f, 0, sizeof(*f));
		if (r->file) {
			*f = *r->file;
			f->path = strdup(r->file->path);
			ck_assert(f->path);
		}
	}
	*(struct model_request *)push((void **)&c->req, &c->nreq, &c->reqcap, sizeof(*r)) = *r;
	c->req[c->nreq - 1].ring = NULL;	/* owned by the model: gone after convert */
	c->req[c->nreq - 1].file = NULL;	/* likewise: see req_file */
}

static void cap_syscall(struct output *o, const struct model_syscall *s)
{
	struct capture *c = CAP(o);

	if (!c->store) {
		c->nsys++;
		return;
	}
	*(struct model_syscall *)push((void **)&c->sys, &c->nsys, &c->syscap, sizeof(*s)) = *s;
}

static void cap_marker(struct output *o, const struct model_marker *m)
{
	struct capture *c = CAP(o);

	*(struct model_marker *)push((void **)&c->mark, &c->nmark, &c->markcap, sizeof(*m)) = *m;
}

static void cap_loss(struct output *o, const struct model_loss *l)
{
	struct capture *c = CAP(o);
	struct model_loss *d = push((void **)&c->loss, &c->nloss, &c->losscap, sizeof(*l));

	*d = *l;
	d->detail = NULL;
}

static void cap_cqe(struct output *o, const struct model_cqe *q)
{
	struct capture *c = CAP(o);

	*(struct model_cqe *)push((void **)&c->cqe, &c->ncqe, &c->cqecap, sizeof(*q)) = *q;
}

static void cap_counter(struct output *o, const struct model_counter *k)
{
	struct capture *c = CAP(o);

	c->counters += k->n;
	for (unsigned i = 0; i < k->n; i++) {
		c->counter_last[k->kind[i]] = k->value[i];
		if (k->value[i] > c->counter_max[k->kind[i]])
			c->counter_max[k->kind[i]] = k->value[i];
	}
}

static void cap_raw(struct output *o, const struct raw_event *e)
{
	(void)e;
	CAP(o)->raw_events++;
}

static int cap_end(struct output *o, const struct output_totals *t, char *e, size_t l)
{
	struct capture *c = CAP(o);
	size_t len = 0;

	(void)e; (void)l;
	c->tasks = calloc(t->ntasks + 1, sizeof(*c->tasks));
	c->rings = calloc(t->nrings + 1, sizeof(*c->rings));
	for (size_t i = 0; i < t->ntasks; i++)
		c->tasks[i] = *t->tasks[i];
	for (size_t i = 0; i < t->nrings; i++)
		c->rings[i] = *t->rings[i];
	c->ntasks = t->ntasks;
	c->nrings = t->nrings;
	for (size_t i = 0; i < t->nwarnings; i++)
		len += strlen(t->warnings[i]) + 1;
	c->warnings = calloc(1, len + 1);
	for (size_t i = 0; i < t->nwarnings; i++) {
		strcat(c->warnings, t->warnings[i]);
		strcat(c->warnings, "\n");
	}
	c->records = t->records;
	c->unknown_records = t->unknown_records;
	c->lost_events = t->lost_events;
	c->read_to_ns = t->read_to_ns;
	return 0;
}

static void cap_destroy(struct output *o)
{
	(void)o;	/* freed by capture_free(): the test still reads it */
}

static const struct output_ops cap_ops = {
	.name = "capture", .begin = cap_begin, .request = cap_request,
	.syscall = cap_syscall, .marker = cap_marker, .loss = cap_loss, .cqe = cap_cqe,
	.counter = cap_counter, .end = cap_end, .destroy = cap_destroy,
};

static const struct output_ops cap_raw_ops = {
	.name = "capture", .begin = cap_begin, .request = cap_request,
	.syscall = cap_syscall, .marker = cap_marker, .loss = cap_loss, .cqe = cap_cqe,
	.counter = cap_counter, .raw_event = cap_raw, .end = cap_end, .destroy = cap_destroy,
};

struct capture *capture_new(bool store)
{
	struct capture *c = calloc(1, sizeof(*c));

	ck_assert(c);
	c->base.ops = &cap_ops;
	c->store = store;
	return c;
}

void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->nreq && c->req_file; i++)
		free((char *)c->req_file[i].path);
	free(c->req_file);
	free(c->req);
	free(c->req_ring_no);
	free(c->sys);
	free(c->mark);
	free(c->loss);
	free(c->cqe);
	free(c->tasks);
	free(c->rings);
	free(c->warnings);
	free(c);
}

const struct model_file *req_file(const struct capture *c, const struct model_request *r)
{
	const struct model_file *f = &c->req_file[r - c->req];

	return f->number ? f : NULL;
}

struct capture *convert_capture(const char *path, const struct options *extra)
{
	struct options o = { 0 };
	struct capture *c = capture_new(true);
	int ret;

	if (extra)
		o = *extra;
	o.log_path = path;
	o.quiet = true;
	if (c->want_raw)
		c->base.ops = &cap_raw_ops;
	ret = convert_into(&o, &c->base, stderr);
	ck_assert_int_eq(ret, 0);
	return c;
}

const struct model_request *req_by_ud(const struct capture *c, uint64_t user_data)
{
	for (size_t i = 0; i < c->nreq; i++)
		if (c->req[i].user_data == user_data)
			return &c->req[i];
	ck_abort_msg("no request with user_data %llu", (unsigned long long)user_data);
	return NULL;
}

size_t count_markers(const struct capture *c, enum marker_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nmark; i++)
		n += c->mark[i].kind == kind;
	return n;
}

const struct model_ring *req_ring(const struct capture *c, const struct model_request *r)
{
	size_t i = (size_t)(r - c->req);
	unsigned no;

	ck_assert(i < c->nreq);
	no = c->req_ring_no[i];
	ck_assert(no >= 1 && no <= c->nrings);
	return &c->rings[no - 1];
}
