/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-CPU staging protocol between the BPF programs (bpf/emit.bpf.h)
 * and the recorder (recorder/ringbufs.c).
 *
 * Records are not written to the ring buffer one by one: each CPU stages
 * them back to back in its ur_cpu_state and hands UR_STAGE_BYTES or so to
 * its ring in one bpf_ringbuf_output(), which takes the ring buffer's lock,
 * its header and the first write to a cold ring line off the per-event
 * path.  A ring-buffer entry therefore holds one or more whole records;
 * the recorder splits them by type size.
 *
 * The outermost program running on a CPU appends its record to the CPU's
 * stage, and the stage goes to the CPU's ring buffer once it is nearly
 * full -- or when the recorder runs the flush_stage program on that CPU
 * (every flush interval, so that a CPU that went quiet does not keep old
 * records), or, at stop, reads what is left (stage_len bytes of stage)
 * from the cpu_states map.  A program that interrupts another on the same
 * CPU (depth > 0) must not touch the stage the interrupted one is filling:
 * it builds its record in a nest slot and writes it to the ring buffer at
 * once.  Readers sort records by time (uring-log(5)), so a nested record
 * that reaches the ring before older staged ones is in its place in the log.
 */
#ifndef RINGSIDE_STAGE_H
#define RINGSIDE_STAGE_H

#include <linux/types.h>

/* UR_RECORD_MAX is the largest record (bytes): EV_FILE, with its path. */
#define UR_STAGE_BYTES		8192		/* power of two */
#define UR_RECORD_MAX		328
/*
 * Programs nest on a CPU (an interrupt's program inside a task's): only the
 * outermost one stages; nested ones build their record in one of these
 * slots and write it to the ring buffer directly.  Deeper nesting drops.
 */
#define UR_NEST_SLOTS		4		/* power of two */

/*
 * Submit records still in the stage, by request: where a completion on
 * the same CPU finds the record to fill in (submit_complete records,
 * common/uring_event.h).  A request may take one of two slots, by two
 * hashes of its address (pending_place, emit.bpf.h): a batch of SQEs is
 * submitted before any of its inline completions is posted, and with a
 * single hash two slab pages of requests could take the same 16 slots,
 * each submission evicting one of the other page's.
 */
#define UR_PENDING_SLOTS	256		/* power of two */
/*
 * Only a completion this soon after its submission is folded into it: an
 * inline one.  A later one (an interrupt's, task work's, an io-wq
 * worker's) packs smaller as a record of its own, whose time is coded
 * from the CPU's previous record, than as a time since its submission.
 */
#define UR_FOLD_MAX_NS		65536

struct ur_pending {
	__u64 req;
	__u32 off;			/* the record's offset in the stage */
	__u32 epoch;			/* the stage's epoch when it was staged */
};

/*
 * Per-CPU state of the BPF side (PERCPU_ARRAY "cpu_states", one slot).
 * pending counts events dropped on this CPU that no "lost" record has
 * reported yet; first_ts/last_ts place them in time.  The recorder reads it
 * at stop to write "lost" records with EVF_LOSS_AT_STOP, and to collect the
 * records still staged (stage_len bytes of stage).
 */
struct ur_cpu_state {
	__u64 pending;
	__u64 first_ts;
	__u64 last_ts;
	__u32 woken;			/* a wakeup was forced for this fill */
	__u32 depth;			/* programs running on this CPU */
	__u32 stage_len;		/* bytes staged */
	__u32 drop_off;		/* drop_staged() walk */
	/* what io_uring_enter's entry found, for its exit (enter_cache_put) */
	__u64 enter_ring;
	__u64 enter_fd;			/* its arguments fd and flags */
	__u64 enter_flags;
	__u64 enter_switches;		/* the task's nvcsw + nivcsw at the entry */
	__u32 enter_tid;
	__u32 enter_off;		/* the entry's record in the stage (~0: not there) */
	__u32 enter_epoch;		/* ... in this fill of it */
	__u32 epoch;			/* stage flushes so far: see ur_pending */
	/* the run of submissions being staged (submit_run_step, emit.bpf.h) */
	__u32 run_tid;
	__u32 run_bytes;		/* its records' bytes so far; 0: none */
	__u32 run_hint;			/* the longest recent run's, decaying */
	__u32 run_pad;
	struct ur_pending pending_submits[UR_PENDING_SLOTS];
	__u8 stage[UR_STAGE_BYTES + UR_RECORD_MAX];
	__u8 nest[UR_NEST_SLOTS][UR_RECORD_MAX];
};

#endif /* RINGSIDE_STAGE_H */
