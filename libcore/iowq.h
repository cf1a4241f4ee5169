/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * io-wq accounting per ring: hashed work by hash key, and the bounded and
 * unbounded workers that served the ring.  The rules are in
 * uring-convert(1), MODEL, "io-wq workers and hashed work".
 */
#ifndef RINGSIDE_IOWQ_H
#define RINGSIDE_IOWQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

/* Which of io-wq's two worker pools (struct io_wq_acct) a worker is in. */
enum iowq_acct { IOWQ_ACCT_UNKNOWN = 0, IOWQ_ACCT_BOUND, IOWQ_ACCT_UNBOUND };

#define IOWQ_HASH_KEYS 256		/* the 8 bits above IO_WQ_HASH_SHIFT */

struct iowq_member {
	uint32_t tid;
	enum iowq_acct acct;
};

struct iowq_ring {
	uint32_t key_queued[IOWQ_HASH_KEYS];	/* hashed requests queued or running */
	unsigned alive[3];		/* by enum iowq_acct: workers counted, not exited */
	struct iowq_member *members;	/* workers counted in alive[] */
	size_t nmembers;
};

/* The acct and hash key (0 none, else key + 1) of work with these flags. */
enum iowq_acct iowq_work_acct(uint32_t work_flags);
unsigned iowq_work_key(bool hashed, uint32_t work_flags);

/* A request entered io-wq as hashed work of key (key + 1, 0 none): counts
 * it and updates r's hashed totals. */
void iowq_queued(struct iowq_ring *w, struct model_ring *r, bool hashed, unsigned key);
/* ... and left it (completed or work_end). */
void iowq_left(struct iowq_ring *w, unsigned key);
/*
 * Worker tid, of pool acct, served the ring: returns true when it is newly
 * counted (its pool's count changed; r's peaks are updated), false when it
 * was already, or acct is unknown.  -1 on allocation failure.
 */
int iowq_worker_served(struct iowq_ring *w, struct model_ring *r, uint32_t tid,
		       enum iowq_acct acct);
/* Worker tid exited: returns its pool when it was counted, else UNKNOWN. */
enum iowq_acct iowq_worker_exited(struct iowq_ring *w, uint32_t tid);
void iowq_free(struct iowq_ring *w);

#endif
