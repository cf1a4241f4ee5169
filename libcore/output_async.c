// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The model's calls, copied into messages on the model's thread and
 * replayed to the inner output on a thread of its own (output_async.h).
 * Pointers in a message point to mirrors (tasks, rings, files) or into
 * the message itself (a CQE's request, a raw event's record, a loss's
 * detail): blocks do not move, so the model's thread sets them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "block_queue.h"
#include "hmap.h"
#include "output_async.h"

/* Large enough that the lock is taken once every few hundred calls; a
 * raw record (< 64 KiB) always fits an empty block. */
#define ASYNC_BLOCK_BYTES (256u << 10)
#define ASYNC_BLOCKS 8

enum msg_kind {
	MSG_TASK, MSG_RING, MSG_REQUEST, MSG_SYSCALL, MSG_CQE, MSG_RAW, MSG_LOSS,
	MSG_MARKER, MSG_COUNTER,
};

/* Each message starts 8-byte aligned; size includes the header. */
struct msg {
	uint32_t kind;
	uint32_t size;
};

#define MSG_ALIGN(n) (((n) + 7) & ~(size_t)7)

struct msg_task {
	struct msg h;
	struct model_task *mirror;
	struct model_task t;
};

struct msg_ring {
	struct msg h;
	struct model_ring *mirror;
	struct model_ring r;
};

struct msg_request {
	struct msg h;
	struct model_request r;
};

struct msg_syscall {
	struct msg h;
	struct model_syscall s;
};

/* Without a request, the message ends before req. */
struct msg_cqe {
	struct msg h;
	struct model_cqe c;
	struct model_request req;
};

/* Followed by the record, e.type->size bytes. */
struct msg_raw {
	struct msg h;
	struct raw_event e;
};

/* Followed by the detail, NUL-terminated, when there is one. */
struct msg_loss {
	struct msg h;
	struct model_loss l;
};

struct msg_marker {
	struct msg h;
	struct model_marker m;
};

struct msg_counter {
	struct msg h;
	struct model_counter c;
};

struct async_out {
	struct output base;
	struct output_ops ops;
	struct output *in;
	struct block_queue q;
	/* model object -> its mirror; on the model's thread only.  The
	 * model's objects live until destroy() (output.h): an address is
	 * never another object's. */
	struct hmap tasks, rings, files;
	const struct model_ring *ring_key;	/* the last ring looked up */
	struct model_ring *ring_val;		/* its mirror (NULL for NULL) */
	bool oom;			/* a mirror could not be made: calls dropped */
	/* end()'s totals: the mirrors, as the totals order them */
	struct model_task **end_tasks;
	struct model_ring **end_rings;
};

#define A(o) ((struct async_out *)(void *)(o))

/* ------------------------------------------------------- model's thread */

/* The mirror of obj in map, made (zeroed) the first time. */
static void *mirror_of(struct async_out *a, struct hmap *map, const void *obj, size_t size)
{
	void *m = hmap_get(map, (uintptr_t)obj, 0);

	if (m)
		return m;
	m = calloc(1, size);
	if (!m || hmap_put(map, (uintptr_t)obj, 0, m)) {
		free(m);
		a->oom = true;
		return NULL;
	}
	return m;
}

static __attribute__((noinline)) struct model_ring *ring_mirror_slow(struct async_out *a,
								    const struct model_ring *r)
{
	struct model_ring *m = r ? mirror_of(a, &a->rings, r, sizeof(*r)) : NULL;

	if (m) {
		a->ring_key = r;
		a->ring_val = m;
	}
	return m;
}

/* Once per call or more: the ring of the last call is nearly always the
 * next one's. */
static inline struct model_ring *ring_mirror(struct async_out *a, const struct model_ring *r)
{
	if (r == a->ring_key)
		return a->ring_val;
	return ring_mirror_slow(a, r);
}

/* A file never changes once named (model_files.c): copied once, with its
 * path, in one allocation. */
static const struct model_file *file_mirror(struct async_out *a, const struct model_file *f)
{
	struct model_file *m;
	size_t n;

	if (!f)
		return NULL;
	m = hmap_get(&a->files, (uintptr_t)f, 0);
	if (m)
		return m;
	n = strlen(f->path) + 1;
	m = malloc(sizeof(*m) + n);
	if (!m || hmap_put(&a->files, (uintptr_t)f, 0, m)) {
		free(m);
		a->oom = true;
		return NULL;
	}
	*m = *f;
	m->path = memcpy(m + 1, f->path, n);
	return m;
}

static void *msg_add(struct async_out *a, enum msg_kind kind, size_t size)
{
	struct msg *h;

	size = MSG_ALIGN(size);
	h = block_queue_room(&a->q, size);
	block_queue_commit(&a->q, size);
	h->kind = kind;
	h->size = (uint32_t)size;
	return h;
}

/* The mirrors of r's ring and file; false: no memory. */
static bool request_mirrors(struct async_out *a, const struct model_request *r,
			    const struct model_ring **ring, const struct model_file **file)
{
	*ring = ring_mirror(a, r->ring);
	*file = r->file ? file_mirror(a, r->file) : NULL;
	return *ring && (!r->file || *file);
}

/* r into the message, with its mirrors: copied once, where it goes. */
static void request_put(struct model_request *dst, const struct model_request *r,
			const struct model_ring *ring, const struct model_file *file)
{
	*dst = *r;
	dst->ring = ring;
	dst->file = file;
}

static int a_begin(struct output *o, const struct output_meta *meta, char *err, size_t errlen)
{
	return A(o)->in->ops->begin(A(o)->in, meta, err, errlen);
}

static void a_task(struct output *o, const struct model_task *t)
{
	struct async_out *a = A(o);
	struct model_task *mirror = a->oom ? NULL : mirror_of(a, &a->tasks, t, sizeof(*t));
	struct msg_task *m;

	if (!mirror)
		return;
	m = msg_add(a, MSG_TASK, sizeof(*m));
	m->mirror = mirror;
	m->t = *t;
}

static void a_ring(struct output *o, const struct model_ring *r)
{
	struct async_out *a = A(o);
	struct model_ring *mirror = a->oom ? NULL : ring_mirror(a, r);
	struct msg_ring *m;

	if (!mirror)
		return;
	m = msg_add(a, MSG_RING, sizeof(*m));
	m->mirror = mirror;
	m->r = *r;
}

static void a_request(struct output *o, const struct model_request *r)
{
	struct async_out *a = A(o);
	const struct model_ring *ring;
	const struct model_file *file;
	struct msg_request *m;

	if (a->oom || !request_mirrors(a, r, &ring, &file))
		return;
	m = msg_add(a, MSG_REQUEST, sizeof(*m));
	request_put(&m->r, r, ring, file);
}

static void a_syscall(struct output *o, const struct model_syscall *s)
{
	struct async_out *a = A(o);
	const struct model_ring *ring = a->oom ? NULL : ring_mirror(a, s->ring);
	struct msg_syscall *m;

	if (a->oom || (s->ring && !ring))
		return;
	m = msg_add(a, MSG_SYSCALL, sizeof(*m));
	m->s = *s;
	m->s.ring = ring;
}

static void a_cqe(struct output *o, const struct model_cqe *c)
{
	struct async_out *a = A(o);
	const struct model_ring *ring = a->oom ? NULL : ring_mirror(a, c->ring);
	const struct model_ring *req_ring = NULL;
	const struct model_file *req_file = NULL;
	struct msg_cqe *m;

	if (a->oom || (c->ring && !ring) ||
	    (c->request && !request_mirrors(a, c->request, &req_ring, &req_file)))
		return;
	m = msg_add(a, MSG_CQE, c->request ? sizeof(*m) : offsetof(struct msg_cqe, req));
	m->c = *c;
	m->c.ring = ring;
	if (c->request) {
		request_put(&m->req, c->request, req_ring, req_file);
		m->c.request = &m->req;
	}
}

static void a_raw(struct output *o, const struct raw_event *e)
{
	struct async_out *a = A(o);
	struct model_task *task = a->oom ? NULL : mirror_of(a, &a->tasks, e->task, sizeof(*e->task));
	const struct model_ring *ring = task ? ring_mirror(a, e->ring) : NULL;
	struct msg_raw *m;

	if (!task || (e->ring && !ring))
		return;
	m = msg_add(a, MSG_RAW, sizeof(*m) + e->type->size);
	m->e = *e;
	m->e.task = task;
	m->e.ring = ring;
	m->e.rec = memcpy(m + 1, e->rec, e->type->size);
}

static void a_loss(struct output *o, const struct model_loss *l)
{
	struct async_out *a = A(o);
	size_t n = l->detail ? strlen(l->detail) + 1 : 0;
	struct msg_loss *m;

	if (a->oom)
		return;
	m = msg_add(a, MSG_LOSS, sizeof(*m) + n);
	m->l = *l;
	if (l->detail)
		m->l.detail = memcpy(m + 1, l->detail, n);
}

static void a_marker(struct output *o, const struct model_marker *mk)
{
	struct async_out *a = A(o);
	const struct model_ring *ring = a->oom ? NULL : ring_mirror(a, mk->ring);
	struct msg_marker *m;

	if (a->oom || (mk->ring && !ring))
		return;
	m = msg_add(a, MSG_MARKER, sizeof(*m));
	m->m = *mk;
	m->m.ring = ring;
}

static void a_counter(struct output *o, const struct model_counter *c)
{
	struct async_out *a = A(o);
	const struct model_ring *ring = a->oom ? NULL : ring_mirror(a, c->ring);
	struct msg_counter *m;

	if (a->oom || (c->ring && !ring))
		return;
	m = msg_add(a, MSG_COUNTER, sizeof(*m));
	m->c = *c;
	m->c.ring = ring;
}

/* ------------------------------------------------------- output's thread */

static void replay(void *arg, unsigned lane, unsigned char *p, size_t len)
{
	struct async_out *a = arg;
	struct output *in = a->in;
	const struct output_ops *ops = in->ops;

	(void)lane;
	for (size_t off = 0; off < len;) {
		struct msg *h = (void *)(p + off);

		off += h->size;
		switch ((enum msg_kind)h->kind) {
		case MSG_TASK: {
			struct msg_task *m = (void *)h;

			*m->mirror = m->t;
			if (ops->task)
				ops->task(in, m->mirror);
			break;
		}
		case MSG_RING: {
			struct msg_ring *m = (void *)h;

			*m->mirror = m->r;
			if (ops->ring)
				ops->ring(in, m->mirror);
			break;
		}
		case MSG_REQUEST:
			ops->request(in, &((struct msg_request *)(void *)h)->r);
			break;
		case MSG_SYSCALL:
			ops->syscall(in, &((struct msg_syscall *)(void *)h)->s);
			break;
		case MSG_CQE:
			ops->cqe(in, &((struct msg_cqe *)(void *)h)->c);
			break;
		case MSG_RAW:
			ops->raw_event(in, &((struct msg_raw *)(void *)h)->e);
			break;
		case MSG_LOSS:
			ops->loss(in, &((struct msg_loss *)(void *)h)->l);
			break;
		case MSG_MARKER:
			ops->marker(in, &((struct msg_marker *)(void *)h)->m);
			break;
		case MSG_COUNTER:
			ops->counter(in, &((struct msg_counter *)(void *)h)->c);
			break;
		}
	}
}

/* ------------------------------------------------------------ end */

/*
 * Everything replayed and the thread gone: the mirrors take the final
 * state of every task and ring, and the totals point to them.
 */
static int a_end(struct output *o, const struct output_totals *t, char *err, size_t errlen)
{
	struct async_out *a = A(o);
	struct output_totals mt = *t;

	block_queue_stop(&a->q, false);
	a->end_tasks = calloc(t->ntasks + 1, sizeof(*a->end_tasks));
	a->end_rings = calloc(t->nrings + 1, sizeof(*a->end_rings));
	if (!a->end_tasks || !a->end_rings)
		a->oom = true;
	for (size_t i = 0; i < t->ntasks && !a->oom; i++) {
		a->end_tasks[i] = mirror_of(a, &a->tasks, t->tasks[i], sizeof(**t->tasks));
		if (a->end_tasks[i])
			*a->end_tasks[i] = *t->tasks[i];
	}
	for (size_t i = 0; i < t->nrings && !a->oom; i++) {
		a->end_rings[i] = ring_mirror(a, t->rings[i]);
		if (a->end_rings[i])
			*a->end_rings[i] = *t->rings[i];
	}
	if (a->oom) {
		snprintf(err, errlen, "out of memory while converting");
		return -1;
	}
	mt.tasks = (const struct model_task *const *)a->end_tasks;
	mt.rings = (const struct model_ring *const *)a->end_rings;
	return a->in->ops->end(a->in, &mt, err, errlen);
}

static void mirrors_free(struct hmap *map)
{
	struct hmap_slot *s;

	hmap_for_each(map, s)
		free(s->val);
	hmap_free(map);
}

static void a_destroy(struct output *o)
{
	struct async_out *a = A(o);

	block_queue_stop(&a->q, true);
	/* The inner output may hold mirrors until its destroy(). */
	a->in->ops->destroy(a->in);
	mirrors_free(&a->tasks);
	mirrors_free(&a->rings);
	mirrors_free(&a->files);
	free(a->end_tasks);
	free(a->end_rings);
	free(a);
}

struct output *output_async_new(struct output *inner)
{
	struct async_out *a = calloc(1, sizeof(*a));
	const struct output_ops *in = inner->ops;

	if (!a)
		return NULL;
	/* task() and ring() always: they keep the mirrors.  The others only
	 * when the inner output has them, so the model skips the rest. */
	a->ops = (struct output_ops){
		.name = in->name,
		.begin = a_begin,
		.task = a_task,
		.ring = a_ring,
		.request = in->request ? a_request : NULL,
		.syscall = in->syscall ? a_syscall : NULL,
		.cqe = in->cqe ? a_cqe : NULL,
		.raw_event = in->raw_event ? a_raw : NULL,
		.loss = in->loss ? a_loss : NULL,
		.marker = in->marker ? a_marker : NULL,
		.counter = in->counter ? a_counter : NULL,
		.end = a_end,
		.destroy = a_destroy,
	};
	a->base.ops = &a->ops;
	a->in = inner;
	hmap_init(&a->tasks);
	hmap_init(&a->rings);
	hmap_init(&a->files);
	if (block_queue_start(&a->q, ASYNC_BLOCKS, ASYNC_BLOCK_BYTES, 1, replay, NULL, a,
			      "rs-output")) {
		free(a);
		return NULL;
	}
	return &a->base;
}
