// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uring.h"

static unsigned load_acquire(const unsigned *p)
{
	return atomic_load_explicit((const _Atomic unsigned *)p, memory_order_acquire);
}

static void store_release(unsigned *p, unsigned v)
{
	atomic_store_explicit((_Atomic unsigned *)p, v, memory_order_release);
}

static void *map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

int uring_init(struct uring *u, unsigned entries, struct io_uring_params *p)
{
	char *sq, *cq;
	long fd;

	memset(u, 0, sizeof(*u));
	fd = syscall(__NR_io_uring_setup, entries, p);
	if (fd < 0)
		return -errno;
	u->fd = (int)fd;
	u->ring_index = -1;
	u->p = *p;
	u->sq_map_len = p->sq_off.array + p->sq_entries * sizeof(unsigned);
	u->cq_map_len = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);
	/* One mapping for both rings since 5.4 (IORING_FEAT_SINGLE_MMAP). */
	if (p->features & IORING_FEAT_SINGLE_MMAP) {
		if (u->cq_map_len > u->sq_map_len)
			u->sq_map_len = u->cq_map_len;
		u->cq_map_len = 0;
	}
	u->sq_map = map(u->fd, u->sq_map_len, IORING_OFF_SQ_RING);
	u->cq_map = u->cq_map_len ? map(u->fd, u->cq_map_len, IORING_OFF_CQ_RING) : u->sq_map;
	u->sqes_len = p->sq_entries * sizeof(struct io_uring_sqe);
	u->sqes = map(u->fd, u->sqes_len, IORING_OFF_SQES);
	if (!u->sq_map || !u->cq_map || !u->sqes) {
		int err = -errno;

		uring_exit(u);
		return err;
	}
	sq = u->sq_map;
	cq = u->cq_map;
	u->sq_head = (unsigned *)(sq + p->sq_off.head);
	u->sq_tail = (unsigned *)(sq + p->sq_off.tail);
	u->sq_mask = (unsigned *)(sq + p->sq_off.ring_mask);
	u->sq_flags = (unsigned *)(sq + p->sq_off.flags);
	u->sq_array = (unsigned *)(sq + p->sq_off.array);
	u->cq_head = (unsigned *)(cq + p->cq_off.head);
	u->cq_tail = (unsigned *)(cq + p->cq_off.tail);
	u->cq_mask = (unsigned *)(cq + p->cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(cq + p->cq_off.cqes);
	/* The SQ array maps slot i to SQE i, once and for all. */
	for (unsigned i = 0; i < p->sq_entries; i++)
		u->sq_array[i] = i;
	u->sq_local_tail = *u->sq_tail;
	return 0;
}

void uring_exit(struct uring *u)
{
	if (u->sqes)
		munmap(u->sqes, u->sqes_len);
	if (u->cq_map && u->cq_map != u->sq_map)
		munmap(u->cq_map, u->cq_map_len);
	if (u->sq_map)
		munmap(u->sq_map, u->sq_map_len);
	if (u->fd > 0)
		close(u->fd);
	memset(u, 0, sizeof(*u));
}

struct io_uring_sqe *uring_get_sqe(struct uring *u)
{
	struct io_uring_sqe *sqe;

	if (u->sq_local_tail - load_acquire(u->sq_head) >= u->p.sq_entries)
		return NULL;
	sqe = &u->sqes[u->sq_local_tail++ & *u->sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	return sqe;
}

void uring_publish(struct uring *u)
{
	store_release(u->sq_tail, u->sq_local_tail);
}

static int enter_fd(const struct uring *u, unsigned *flags)
{
	if (!(*flags & IORING_ENTER_REGISTERED_RING))
		return u->fd;
	if (u->ring_index >= 0)
		return u->ring_index;
	*flags &= ~IORING_ENTER_REGISTERED_RING;
	return u->fd;
}

int uring_enter(struct uring *u, unsigned to_submit, unsigned min_complete, unsigned flags)
{
	int fd = enter_fd(u, &flags);
	long r = syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags, NULL, 0);

	return r < 0 ? -errno : (int)r;
}

int uring_enter_timeout(struct uring *u, unsigned to_submit, unsigned min_complete,
			unsigned flags, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = { (long long)(timeout_ns / 1000000000ull),
					(long long)(timeout_ns % 1000000000ull) };
	struct io_uring_getevents_arg arg = { .ts = (uintptr_t)&ts };
	long r;
	int fd;

	if (!(u->p.features & IORING_FEAT_EXT_ARG) || !min_complete)
		return uring_enter(u, to_submit, min_complete, flags);
	fd = enter_fd(u, &flags);
	r = syscall(__NR_io_uring_enter, fd, to_submit, min_complete,
		    flags | IORING_ENTER_EXT_ARG, &arg, sizeof(arg));
	return r < 0 ? -errno : (int)r;
}

struct io_uring_cqe *uring_peek_cqe(struct uring *u)
{
	unsigned head = *u->cq_head;

	if (head == load_acquire(u->cq_tail))
		return NULL;
	return &u->cqes[head & *u->cq_mask];
}

void uring_cqe_seen(struct uring *u)
{
	store_release(u->cq_head, *u->cq_head + 1);
}

int uring_register(struct uring *u, unsigned opcode, const void *arg, unsigned nr)
{
	long r = syscall(__NR_io_uring_register, u->fd, opcode, arg, nr);

	return r < 0 ? -errno : (int)r;
}

int uring_register_ring_fd(struct uring *u)
{
	struct io_uring_rsrc_update up = { .offset = -1U, .data = (uint64_t)u->fd };
	int ret = uring_register(u, URING_REGISTER_RING_FDS, &up, 1);

	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	u->ring_index = (int)up.offset;
	return 0;
}

bool uring_sq_needs_wakeup(const struct uring *u)
{
	return atomic_load_explicit((const _Atomic unsigned *)u->sq_flags,
				    memory_order_acquire) & IORING_SQ_NEED_WAKEUP;
}
