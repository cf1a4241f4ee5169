/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The BPF side of the per-CPU staging protocol (bpf/stage.h): reserve room
 * for a record (ev_reserve/EV_RESERVE), hand it over (ev_submit), flush a
 * stage to the CPU's ring buffer, and count what could not be written.
 * Part of uring_record.bpf.c, included after its maps (rings, cpu_states,
 * loss_counts) and settings (wakeup_bytes, stage_flush_bytes).
 */
#ifndef RINGSIDE_EMIT_BPF_H
#define RINGSIDE_EMIT_BPF_H

/*
 * depth is changed without atomics: only programs interrupting each other on
 * one CPU share it, and each puts back the value it found before the one
 * it interrupted resumes.  The stage is read only after depth is raised.
 */
#define barrier() asm volatile("" ::: "memory")

/* Record sizes by type, in 8-byte words: how a stage is walked. */
static const u8 type_words[EV_TYPE_LIMIT] = {
#define EV_WORDS(NAME, num, name, size) [num] = (size) / 8,
	EV_TYPES(EV_WORDS)
#undef EV_WORDS
};

struct emit {
	struct ur_cpu_state *st;
	u64 ts;
	u64 pending_req;		/* a submit record that may take its completion */
	u32 off;			/* depth 0: where the record is in the stage */
	u32 size;
	u32 depth;			/* st->depth when this program started */
	u16 type;
	bool flush;			/* hand the stage over after this record */
};

/*
 * Two slots a request may take.  io_kiocbs are 256-byte slab objects, 16
 * to a page, and a ring recycles a few pages of them.  The first slot
 * keeps a page's objects apart, but the 16 slots of one page fall on
 * another page's 16 in one ring of 16: a Fibonacci hash of the address
 * gives the second.
 */
static __always_inline struct ur_pending *pending_slot(struct ur_cpu_state *st, u64 req)
{
	return &st->pending_submits[((req >> 8) ^ (req >> 14)) & (UR_PENDING_SLOTS - 1)];
}

static __always_inline struct ur_pending *pending_slot2(struct ur_cpu_state *st, u64 req)
{
	/* (u32) first: req may be a pointer to the verifier, which allows no shift */
	return &st->pending_submits[((u32)req >> 8) * 0x9e3779b1u >> 24 & (UR_PENDING_SLOTS - 1)];
}

/* Where a submit record just staged is found: its first slot, unless another's is there. */
static __always_inline struct ur_pending *pending_place(struct ur_cpu_state *st, u64 req)
{
	struct ur_pending *p = pending_slot(st, req);

	if (p->req && p->req != req && p->epoch == st->epoch)
		return pending_slot2(st, req);
	return p;
}

/*
 * The slot of req's submit record in this fill of the stage, or NULL.  The
 * first slot is tried first: an address staged again after its first try
 * had been taken lands there (pending_place), so the newer is found.
 */
static __always_inline struct ur_pending *pending_find(struct ur_cpu_state *st, u64 req)
{
	struct ur_pending *p = pending_slot(st, req);

	if (p->req == req && p->epoch == st->epoch)
		return p;
	p = pending_slot2(st, req);
	if (p->req == req && p->epoch == st->epoch)
		return p;
	return NULL;
}

/*
 * A record of this type could not be written on this CPU.  Atomics: programs
 * nest on a CPU (an interrupt's completion inside a submission), so two of
 * them may count at once.
 */
static __always_inline void count_drop(struct ur_cpu_state *st, u32 kind, u32 type,
				       u64 ts)
{
	u32 slot;
	u64 *count;

	/* what readers would have yielded (common/event_split.h) */
	if (type == EV_SUBMIT_COMPLETE)
		type = EV_SUBMIT;
	slot = kind * EV_TYPE_LIMIT + (type & (EV_TYPE_LIMIT - 1));

	if (__sync_fetch_and_add(&st->pending, 1) == 0)
		st->first_ts = ts;
	st->last_ts = ts;
	count = bpf_map_lookup_elem(&loss_counts, &slot);
	if (count)
		__sync_fetch_and_add(count, 1);
}

/*
 * Write the "lost" record for drops not reported yet.  Returns false when
 * the ring is still full (the drops stay pending).
 */
static __always_inline bool report_pending(void *rb, struct ur_cpu_state *st)
{
	u64 n = __sync_lock_test_and_set(&st->pending, 0);
	u64 first = st->first_ts, last = st->last_ts;
	struct ev_lost *l;

	if (!n)
		return true;
	l = bpf_ringbuf_reserve(rb, sizeof(*l), 0);
	if (!l) {
		if (__sync_fetch_and_add(&st->pending, n) == 0)
			st->first_ts = first;
		return false;
	}
	if (n > 0xffffffffULL) {
		/* count is 32 bits: the rest goes into the next record */
		__sync_fetch_and_add(&st->pending, n - 0xffffffffULL);
		n = 0xffffffffULL;
	}
	l->ts = first;
	l->tid = 0;
	l->tgid = 0;
	l->type = EV_LOST;
	l->flags = 0;
	l->count = (u32)n;
	l->last_ts = last;
	bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
	return true;
}

/*
 * No wakeup per write (the recorder drains on a timer), but wake it early
 * when the ring is filling up -- once per fill: a forced wakeup is an IPI
 * (a VM exit under virtualisation), and repeating it while the recorder is
 * already on its way costs the traced CPU dearly and helps nobody.
 */
static __always_inline u64 wakeup_flags(struct ur_cpu_state *st, void *rb, u32 len)
{
	if (bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) + len < wakeup_bytes) {
		st->woken = 0;
		return BPF_RB_NO_WAKEUP;
	}
	if (st->woken)
		return BPF_RB_NO_WAKEUP;
	st->woken = 1;
	return BPF_RB_FORCE_WAKEUP;
}

struct drop_walk {
	u32 len, kind;
};

/*
 * The walk's position lives in the map value (st->drop_off), not in ctx: the
 * verifier tracks a stack value exactly, and since Linux 6.7 (ab5cfac139ab,
 * "bpf: verify callbacks as if they are called unknown number of times") it
 * re-verifies the callback until its states repeat -- with the offset on the
 * stack, once per possible offset, which made loading slow (figures:
 * bench/RESULTS.md).  A map value is an unknown scalar to the verifier, so
 * the second pass matches the first.
 */
static long drop_staged_one(u32 i, void *ctx)
{
	struct drop_walk *w = ctx;
	u32 zero = 0, off, words;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);
	struct ev_header *h;

	if (!st)
		return 1;
	off = st->drop_off;
	if (off >= w->len)
		return 1;
	h = (void *)&st->stage[off & (UR_STAGE_BYTES - 1)];
	words = type_words[h->type & (EV_TYPE_LIMIT - 1)];
	if (!words)
		return 1;
	count_drop(st, w->kind, h->type, h->ts);
	/* counted as what readers would have yielded: a submit and a completion */
	if (h->type == EV_SUBMIT_COMPLETE && (h->flags & EVF_COMPLETED))
		count_drop(st, w->kind, EV_COMPLETE, h->ts);
	st->drop_off = off + words * 8;
	return 0;
}

/* The stage could not be written: count each record in it as lost. */
static __always_inline void drop_staged(struct ur_cpu_state *st, u32 len, u32 kind)
{
	struct drop_walk w = { .len = len, .kind = kind };

	st->drop_off = 0;
	bpf_loop(UR_STAGE_BYTES / sizeof(struct ev_header) + 1, drop_staged_one, &w, 0);
}

/* Hand the stage to the CPU's ring buffer (st->depth is held). */
static __always_inline void stage_flush(struct ur_cpu_state *st)
{
	u32 cpu = bpf_get_smp_processor_id();
	u32 len = st->stage_len;
	void *rb;

	if (!len)
		return;
	if (len > UR_STAGE_BYTES)
		len = UR_STAGE_BYTES;
	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb)
		drop_staged(st, len, EV_LOSS_NO_RING);
	else if ((st->pending && !report_pending(rb, st)) ||
		 bpf_ringbuf_output(rb, st->stage, len, wakeup_flags(st, rb, len)))
		drop_staged(st, len, EV_LOSS_RING_FULL);
	st->stage_len = 0;
	st->epoch++;
}

/*
 * A run of submissions by one task (an SQPOLL thread's batch, the SQEs of
 * an io_uring_enter) has the inline completions of its requests posted
 * after its last submission (io_submit_flush_completions()).  When the
 * stage is handed over in the midst of a run, the submit records before
 * that point are gone when their completions come, and cannot take them
 * (complete_in_stage).  So when a run begins and one as long as the
 * longest of late would not fit, the stage is handed over first.  The
 * longest, not the last: an SQPOLL thread's batches vary in length, and a
 * hint from the last run split the next whenever it was longer and met a
 * nearly full stage.  The hint decays by a sixteenth per run, so one long
 * batch costs earlier hand-overs for a few dozen runs.  io_uring_enter's
 * exit does the same for the next call (stage_short_for_next_call);
 * SQPOLL batches have no call around them.
 * Called from ev_reserve() at depth 0, with st->depth held.
 */
static __always_inline void submit_run_step(struct ur_cpu_state *st, u32 tid, u32 size)
{
	if (st->run_bytes && st->run_tid == tid) {
		st->run_bytes += size;
		return;
	}
	st->run_tid = tid;
	st->run_bytes = size;
	if (st->stage_len + st->run_hint > stage_flush_bytes)
		stage_flush(st);
}

/* Any other record, or a completion folded: the run of submissions ended. */
static __always_inline void submit_run_end(struct ur_cpu_state *st)
{
	u32 hint;

	if (!st->run_bytes)
		return;
	hint = st->run_hint - st->run_hint / 16;
	/* a run longer than the stage is split whatever is done */
	if (st->run_bytes > hint && st->run_bytes <= stage_flush_bytes)
		hint = st->run_bytes;
	st->run_hint = hint;
	st->run_bytes = 0;
}

/*
 * Room for a record of this type on this CPU: in the stage, or in a nest
 * slot when this program interrupted another.  NULL when the record is
 * dropped (and counted).  The record is zeroed and its header filled in;
 * ev_submit() must follow.
 */
static __always_inline void *ev_reserve(struct emit *em, u32 size, u16 type, u16 flags,
					u64 ts, u64 pid_tgid)
{
	u32 zero = 0, depth;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);
	struct ev_header *h;

	if (!st)
		return NULL;
	depth = st->depth;
	st->depth = depth + 1;
	barrier();
	if (depth == 0) {
		if (type == EV_SUBMIT_COMPLETE)
			submit_run_step(st, (u32)pid_tgid, size);
		else
			submit_run_end(st);
		/* stage_len <= stage_flush_bytes: the mask changes nothing */
		em->off = st->stage_len & (UR_STAGE_BYTES - 1);
		h = (void *)&st->stage[em->off];
	} else if (depth <= UR_NEST_SLOTS) {
		h = (void *)st->nest[(depth - 1) & (UR_NEST_SLOTS - 1)];
	} else {
		/* task, softirq, hardirq: cannot happen with these hooks */
		count_drop(st, EV_LOSS_RING_FULL, type, ts);
		barrier();
		st->depth = depth;
		return NULL;
	}
	em->st = st;
	em->ts = ts;
	em->pending_req = 0;
	em->flush = false;
	em->size = size;
	em->depth = depth;
	em->type = type;
	__builtin_memset(h, 0, size);
	h->ts = ts;
	h->tid = (u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->type = type;
	h->flags = flags;
	return h;
}

/* The record ev_reserve() returned is filled in. */
static __always_inline void ev_submit(struct emit *em, void *rec)
{
	struct ur_cpu_state *st = em->st;
	u32 size = em->size, cpu;
	void *rb;

	if (em->depth == 0) {
		if (em->pending_req) {
			struct ur_pending *p = pending_place(st, em->pending_req);

			p->req = em->pending_req;
			p->off = em->off;
			p->epoch = st->epoch;
		}
		st->stage_len = em->off + size;
		if (st->stage_len > stage_flush_bytes || em->flush)
			stage_flush(st);
	} else {
		cpu = bpf_get_smp_processor_id();
		rb = bpf_map_lookup_elem(&rings, &cpu);
		if (size > UR_RECORD_MAX)
			size = UR_RECORD_MAX;
		if (!rb)
			count_drop(st, EV_LOSS_NO_RING, em->type, em->ts);
		else if ((st->pending && !report_pending(rb, st)) ||
			 bpf_ringbuf_output(rb, rec, size, wakeup_flags(st, rb, size)))
			count_drop(st, EV_LOSS_RING_FULL, em->type, em->ts);
	}
	barrier();
	st->depth = em->depth;
}

/*
 * A completion that the submit record of its request, still staged on
 * this CPU by the same task, can take (EVF_COMPLETED): true when it was
 * filled in there, so that no complete record is needed.  The stage is
 * held (depth) while it is written, as by ev_reserve().
 */
static __always_inline bool complete_in_stage(u64 ring, u64 req, u64 user_data, s32 res,
					      u32 cflags, u64 file, u64 ts, u64 pid_tgid)
{
	u32 zero = 0;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);
	struct ev_submit_complete *e;
	struct ur_pending *p;
	bool done = false;

	if (!st || st->depth)
		return false;
	st->depth = 1;
	barrier();
	p = pending_find(st, req);
	if (!p)
		goto out;
	/* the slot says where; the record itself says whether it still is */
	e = (void *)&st->stage[p->off & (UR_STAGE_BYTES - 1)];
	if (e->type != EV_SUBMIT_COMPLETE || e->req != req || e->ring != ring ||
	    e->user_data != user_data || e->tid != (u32)pid_tgid ||
	    (e->flags & EVF_COMPLETED) || ts - e->ts >= UR_FOLD_MAX_NS)
		goto out;
	e->complete_dts = (u32)(ts - e->ts);
	e->res = res;
	e->cflags = cflags;
	e->complete_flags = EVF_FILE_VALID;
	e->file = file;
	e->flags |= EVF_COMPLETED;
	p->req = 0;
	submit_run_end(st);
	done = true;
out:
	barrier();
	st->depth = 0;
	return done;
}

#define EV_RESERVE(em, name, TYPE, flags, ts, pid_tgid)			\
	((struct ev_##name *)ev_reserve((em), sizeof(struct ev_##name), (TYPE), \
					(flags), (ts), (pid_tgid)))

/*
 * Run by the recorder on each CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU:
 * in an IPI, or directly when it runs there) every flush interval, so that
 * the log holds every record older than that even from a CPU that went
 * quiet.  Returns 1 when the CPU was inside a program (try again later).
 */
SEC("?raw_tp")
int flush_stage(void *ctx)
{
	u32 zero = 0;
	struct ur_cpu_state *st = bpf_map_lookup_elem(&cpu_states, &zero);

	if (!st)
		return 0;
	if (st->depth)
		return 1;
	st->depth = 1;
	barrier();
	stage_flush(st);
	barrier();
	st->depth = 0;
	return 0;
}

#endif /* RINGSIDE_EMIT_BPF_H */
