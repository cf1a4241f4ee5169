// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * io-wq accounting (iowq.h).  Kernel facts (io_uring/io-wq.c, io-wq.h,
 * io_uring.c, 6.1 .. 6.18):
 *
 *  - io_prep_async_work() sets the work's flags before
 *    io_uring_queue_async_work fires: IO_WQ_WORK_UNBOUND for an opcode with
 *    unbound_nonreg_file on a file that is neither regular nor a block
 *    device, or not assigned yet (6.18 punts IOSQE_ASYNC requests before
 *    assigning their file; 6.1 and 6.12 after), and a hash key
 *    (hash_ptr(inode, IO_WQ_HASH_ORDER) << IO_WQ_HASH_SHIFT, with
 *    IO_WQ_WORK_HASHED) for a regular file whose opcode hashes writes.
 *  - io_wq_enqueue() queues the work on the acct (pool) its UNBOUND bit
 *    picks, and creates a worker for that acct when none is free; a worker
 *    stays in the acct it was created for and only takes work from it.
 *  - Hashed work of one key runs one at a time, whatever the number of
 *    workers (io_get_next_work() skips a key that is running); the hash
 *    map is the ring's (ctx->hash_map), shared by its tasks' io-wqs.
 */
#include <stdlib.h>

#include "iowq.h"
#include "uring_event.h"

enum iowq_acct iowq_work_acct(uint32_t work_flags)
{
	return work_flags & EV_IO_WQ_WORK_UNBOUND ? IOWQ_ACCT_UNBOUND : IOWQ_ACCT_BOUND;
}

unsigned iowq_work_key(bool hashed, uint32_t work_flags)
{
	return hashed ? (work_flags >> EV_IO_WQ_HASH_SHIFT) + 1 : 0;
}

void iowq_queued(struct iowq_ring *w, struct model_ring *r, bool hashed, unsigned key)
{
	if (hashed)
		r->iowq_hashed++;
	if (!key || key > IOWQ_HASH_KEYS)
		return;
	if (++w->key_queued[key - 1] > r->iowq_hashed_key_peak)
		r->iowq_hashed_key_peak = w->key_queued[key - 1];
}

void iowq_left(struct iowq_ring *w, unsigned key)
{
	if (key && key <= IOWQ_HASH_KEYS && w->key_queued[key - 1])
		w->key_queued[key - 1]--;
}

int iowq_worker_served(struct iowq_ring *w, struct model_ring *r, uint32_t tid,
		       enum iowq_acct acct)
{
	struct iowq_member *p;
	unsigned *peak;

	if (acct == IOWQ_ACCT_UNKNOWN)
		return 0;
	for (size_t i = 0; i < w->nmembers; i++)
		if (w->members[i].tid == tid)
			return 0;
	p = realloc(w->members, (w->nmembers + 1) * sizeof(*p));
	if (!p)
		return -1;
	w->members = p;
	w->members[w->nmembers++] = (struct iowq_member){ .tid = tid, .acct = acct };
	peak = acct == IOWQ_ACCT_BOUND ? &r->iowq_bound_peak : &r->iowq_unbound_peak;
	if (++w->alive[acct] > *peak)
		*peak = w->alive[acct];
	return 1;
}

enum iowq_acct iowq_worker_exited(struct iowq_ring *w, uint32_t tid)
{
	for (size_t i = 0; i < w->nmembers; i++) {
		enum iowq_acct acct = w->members[i].acct;

		if (w->members[i].tid != tid)
			continue;
		w->members[i] = w->members[--w->nmembers];
		w->alive[acct]--;
		return acct;
	}
	return IOWQ_ACCT_UNKNOWN;
}

void iowq_free(struct iowq_ring *w)
{
	free(w->members);
	w->members = NULL;
	w->nmembers = 0;
}
