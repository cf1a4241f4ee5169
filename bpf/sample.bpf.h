/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * --sample=N: record 1 request in N, with every event it has.  Part of
 * uring_record.bpf.c, included after filter.bpf.h.
 *
 * A request is chosen when it is submitted (submit, or req_failed when
 * io_init_req() refused it), by bpf_get_prandom_u32(): not by its address,
 * since the kernel recycles io_kiocb structs from a per-ring cache, and
 * choosing by address would pick the same few slots over and over.  A link
 * member is chosen with its head, so that a sampled link is whole: its
 * submit fires while io_submit_sqe() still holds the link being assembled
 * in ctx->submit_state.link.head (6.1 .. 6.18).
 *
 * The chosen requests' addresses are kept in sampled_reqs, which every
 * per-request event consults: an array of buckets of UR_SAMPLE_WAYS keys
 * (one cache line), the bucket found by hashing the address.  An array
 * lookup is inlined by the verifier and needs no lock, so the N - 1
 * requests in N that are not chosen cost a roll, one load of a line and a
 * few compares per event; a hash map cost a bucket lock at every submit.
 * A chosen request takes a free key of its bucket with a compare-and-swap
 * (BPF atomics on map values: 5.12); when all are taken it is not
 * recorded, and counted (STATS "sample_requests_declined": a link member
 * so declined leaves its link partly recorded).
 *
 * A key is given back at the request's final CQE (no IORING_CQE_F_MORE),
 * and every submit decides again -- one not chosen clears a key holding
 * its address -- so a key left behind (IOSQE_CQE_SKIP_SUCCESS, a CQE that
 * overflowed) never makes a later request at that address look chosen, and
 * is freed when the address is reused, which the per-ring request cache
 * makes soon.  Requests the kernel makes without a submit (zero-copy
 * notifications, MSG_RING's target requests) might still find a stale key:
 * the converter ignores events of requests it never saw submitted in a
 * sampled log.
 *
 * The decision comes first in the submit programs, before the ring filter
 * and any read of the request: a request not chosen is done with there.
 *
 * Events that carry no request are all kept: the CQEs of io_fill_cqe_aux()
 * (multishot CQEs with IORING_CQE_F_MORE, MSG_RING), notifications
 * (IORING_CQE_F_NOTIF: a request of their own), overflows (ring and
 * user_data only), and ring and task events.  The converter matches them to
 * the sampled requests by user_data and drops the rest.
 *
 * sample_every is read-only data: without --sample the verifier removes
 * every branch below, and the recording costs what it did.
 */
#ifndef RINGSIDE_SAMPLE_BPF_H
#define RINGSIDE_SAMPLE_BPF_H

/* Set by the recorder before load: --sample=N (0 or 1: every request). */
const volatile __u32 sample_every = 0;
/* --sample-syscalls: io_uring_enter calls are sampled 1 in sample_every too. */
const volatile bool sample_syscalls = false;
/* sampled_reqs' buckets - 1, set with its size (a live test shrinks it). */
const volatile __u32 sample_req_mask = UR_SAMPLE_REQ_BUCKETS - 1;

/* Keys (io_kiocb addresses) of the chosen requests, from submit to final CQE. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UR_SAMPLE_REQ_BUCKETS);	/* 1 without --sample */
	__type(key, u32);
	__type(value, struct ur_sample_bucket);
} sampled_reqs SEC(".maps");

/* Keys (tid, bit 32 set) of threads inside a chosen io_uring_enter. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UR_SAMPLE_ENTER_BUCKETS);	/* 1 without --sample-syscalls */
	__type(key, u32);
	__type(value, struct ur_sample_bucket);
} sampled_enters SEC(".maps");

static __always_inline bool sampling(void)
{
	return sample_every > 1;
}

static __always_inline bool sample_roll(void)
{
	return bpf_get_prandom_u32() % sample_every == 0;
}

/*
 * key's bucket: Fibonacci hashing of its low 32 bits (the top 16 of the
 * product: up to 65536 buckets), which spreads the io_kiocb addresses of a
 * slab (aligned, a few middle bits vary) and consecutive tids alike.  key
 * may be a kernel pointer, on which the verifier allows no arithmetic but
 * a 32-bit move, which makes it a number (privileged programs): done in
 * assembly, as clang would fold it into the multiplication.
 */
static __always_inline struct ur_sample_bucket *sample_bucket(void *table, u32 mask, u64 key)
{
	u32 low = (u32)key, i;

	asm volatile("%[low] = %[low]" : [low] "+w"(low));
	i = (low * 0x9e3779b9U) >> 16 & mask;
	return bpf_map_lookup_elem(table, &i);
}

static __always_inline bool bucket_has(const struct ur_sample_bucket *b, u64 key)
{
#pragma unroll
	for (int i = 0; i < UR_SAMPLE_WAYS; i++)
		if (b->key[i] == key)
			return true;
	return false;
}

/* Keep key in b: false when b is full.  Only key's own events write key. */
static __always_inline bool bucket_claim(struct ur_sample_bucket *b, u64 key)
{
	if (bucket_has(b, key))
		return true;
#pragma unroll
	for (int i = 0; i < UR_SAMPLE_WAYS; i++)
		if (!b->key[i] && !__sync_val_compare_and_swap(&b->key[i], 0, key))
			return true;
	return false;
}

/* Give key's place back; was it there? */
static __always_inline bool bucket_release(struct ur_sample_bucket *b, u64 key)
{
	bool found = false;

#pragma unroll
	for (int i = 0; i < UR_SAMPLE_WAYS; i++) {
		if (b->key[i] == key) {
			__sync_val_compare_and_swap(&b->key[i], key, 0);
			found = true;
		}
	}
	return found;
}

static __always_inline struct ur_sample_bucket *req_bucket(u64 req)
{
	return sample_bucket(&sampled_reqs, sample_req_mask, req);
}

/* An event of request req (after its submit): was it chosen? */
static __always_inline bool req_sampled(u64 req)
{
	struct ur_sample_bucket *b;

	if (!sampling())
		return true;
	b = req_bucket(req);
	return b && bucket_has(b, req);
}

/*
 * An event of request req in ring: kept when req was chosen and the ring is
 * selected, tested in that order, and the task fetched only then.
 */
static __always_inline bool req_selected(u64 req, u64 ring, u64 *pid_tgid)
{
	if (!req_sampled(req))
		return false;
	*pid_tgid = bpf_get_current_pid_tgid();
	return ring_selected(ring, *pid_tgid);
}

/*
 * First step for a request being submitted (submit or req_failed): is it
 * drawn?  A link member inherits its head's choice, anything else is
 * rolled.  One not drawn clears any key left at its address, which is
 * what keeps stale keys harmless, and is done with.
 */
static __always_inline bool sample_submit_drawn(struct io_kiocb *req)
{
	struct ur_sample_bucket *b;
	struct io_kiocb *head;

	if (!sampling())
		return true;
	head = req->ctx->submit_state.link.head;
	if (head && head != req ? req_sampled((u64)head) : sample_roll())
		return true;
	b = req_bucket((u64)req);
	if (b)
		bucket_release(b, (u64)req);
	return false;
}

/* Second step, for a drawn request of a selected ring: keep its key. */
static __always_inline bool sample_submit_kept(struct io_kiocb *req)
{
	struct ur_sample_bucket *b;

	if (!sampling())
		return true;
	b = req_bucket((u64)req);
	if (b && bucket_claim(b, (u64)req))
		return true;
	__sync_fetch_and_add(&stats.sample_req_declined, 1);
	return false;
}

/*
 * A request being submitted (submit, req_failed) in ring: recorded when
 * drawn, in a selected ring, and kept; a request not drawn is done with
 * before anything else is read, the task included.
 */
static __always_inline bool submit_selected(struct io_kiocb *req, u64 *pid_tgid)
{
	if (!sample_submit_drawn(req))
		return false;
	*pid_tgid = bpf_get_current_pid_tgid();
	return ring_selected((u64)req->ctx, *pid_tgid) && sample_submit_kept(req);
}

/*
 * A CQE: kept when its request was chosen, or when it names no request of
 * its own (see above).  The final CQE gives the request's key back, except
 * in an io-wq worker, where work_end still follows (io_wq_submit_work()
 * issues and may complete the request before it returns): that key is left
 * to the next submit at its address.
 */
static __always_inline bool cqe_sampled(u64 req, u32 cflags)
{
	struct ur_sample_bucket *b;
	struct task_struct *task;

	if (!sampling() || !req || (cflags & UR_IORING_CQE_F_NOTIF))
		return true;
	b = req_bucket(req);
	if (!b || !bucket_has(b, req))
		return false;
	if (cflags & UR_IORING_CQE_F_MORE)
		return true;
	task = bpf_get_current_task_btf();
	if (!(task->flags & EV_PF_IO_WORKER))
		bucket_release(b, req);
	return true;
}

/*
 * --sample-syscalls: an io_uring_enter call is chosen at its entry; its
 * exit is recorded when its entry was.  Setup and register are always
 * recorded (rare, and they give rings and resources their identity).  The
 * thread's key is set in bit 32, so that no tid is the free key 0.
 */
static __always_inline struct ur_sample_bucket *enter_bucket(u64 key)
{
	return sample_bucket(&sampled_enters, UR_SAMPLE_ENTER_BUCKETS - 1, key);
}

static __always_inline bool enter_begin_sampled(u64 pid_tgid)
{
	u64 key = (u32)pid_tgid | 1ULL << 32;
	struct ur_sample_bucket *b;

	if (!sampling() || !sample_syscalls)
		return true;
	b = enter_bucket(key);
	if (!b)
		return false;
	if (!sample_roll()) {
		bucket_release(b, key);
		return false;
	}
	if (bucket_claim(b, key))
		return true;
	__sync_fetch_and_add(&stats.sample_enter_declined, 1);
	return false;
}

static __always_inline bool enter_end_sampled(u64 pid_tgid)
{
	u64 key = (u32)pid_tgid | 1ULL << 32;
	struct ur_sample_bucket *b;

	if (!sampling() || !sample_syscalls)
		return true;
	b = enter_bucket(key);
	return b && bucket_release(b, key);
}

#endif /* RINGSIDE_SAMPLE_BPF_H */
