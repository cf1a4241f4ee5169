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
 * per-request event consults.  An entry is deleted at the request's final
 * CQE (no IORING_CQE_F_MORE), and every submit decides again, so an entry
 * left behind (IOSQE_CQE_SKIP_SUCCESS, a CQE that overflowed) never makes a
 * later request at that address look chosen.  Requests the kernel makes
 * without a submit (zero-copy notifications, MSG_RING's target requests)
 * might still find a stale entry: the converter ignores events of requests
 * it never saw submitted in a sampled log.
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

/* req (io_kiocb address) -> 1: chosen requests, from submit to final CQE. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UR_MAX_SAMPLED_REQS);
	__type(key, u64);
	__type(value, u8);
} sampled_reqs SEC(".maps");

/* tid -> 1: threads inside a chosen io_uring_enter (--sample-syscalls). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UR_MAX_SAMPLED_ENTERS);
	__type(key, u32);
	__type(value, u8);
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
 * Decide for a request being submitted (submit or req_failed): a link
 * member inherits its head's choice, anything else is drawn.  Every
 * submit writes its decision, which is what keeps stale entries harmless.
 */
static __always_inline bool sample_submit(struct io_kiocb *req)
{
	struct io_kiocb *head;
	u64 key = (u64)req;
	bool chosen;
	u8 one = 1;

	if (!sampling())
		return true;
	head = req->ctx->submit_state.link.head;
	if (head && head != req) {
		u64 hkey = (u64)head;

		chosen = bpf_map_lookup_elem(&sampled_reqs, &hkey) != NULL;
	} else {
		chosen = sample_roll();
	}
	if (chosen)
		bpf_map_update_elem(&sampled_reqs, &key, &one, BPF_ANY);
	else
		bpf_map_delete_elem(&sampled_reqs, &key);
	return chosen;
}

/* An event of request req (after its submit): was it chosen? */
static __always_inline bool req_sampled(u64 req)
{
	if (!sampling())
		return true;
	return bpf_map_lookup_elem(&sampled_reqs, &req) != NULL;
}

/*
 * A CQE: kept when its request was chosen, or when it names no request of
 * its own (see above).  The final CQE ends the request's entry, except in
 * an io-wq worker, where work_end still follows (io_wq_submit_work() issues
 * and may complete the request before it returns): that entry is left to
 * the next submit at its address.
 */
static __always_inline bool cqe_sampled(u64 req, u32 cflags)
{
	struct task_struct *task;

	if (!sampling() || !req || (cflags & UR_IORING_CQE_F_NOTIF))
		return true;
	if (!bpf_map_lookup_elem(&sampled_reqs, &req))
		return false;
	if (cflags & UR_IORING_CQE_F_MORE)
		return true;
	task = bpf_get_current_task_btf();
	if (!(task->flags & EV_PF_IO_WORKER))
		bpf_map_delete_elem(&sampled_reqs, &req);
	return true;
}

/*
 * --sample-syscalls: an io_uring_enter call is chosen at its entry; its
 * exit is recorded when its entry was.  Setup and register are always
 * recorded (rare, and they give rings and resources their identity).
 */
static __always_inline bool enter_begin_sampled(u64 pid_tgid)
{
	u32 tid = (u32)pid_tgid;
	u8 one = 1;

	if (!sampling() || !sample_syscalls)
		return true;
	if (sample_roll()) {
		bpf_map_update_elem(&sampled_enters, &tid, &one, BPF_ANY);
		return true;
	}
	bpf_map_delete_elem(&sampled_enters, &tid);
	return false;
}

static __always_inline bool enter_end_sampled(u64 pid_tgid)
{
	u32 tid = (u32)pid_tgid;

	if (!sampling() || !sample_syscalls)
		return true;
	return bpf_map_delete_elem(&sampled_enters, &tid) == 0;
}

#endif /* RINGSIDE_SAMPLE_BPF_H */
