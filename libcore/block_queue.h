/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Work handed to a thread in blocks: one thread fills a block with
 * records of its own making, hands it over when the next record does not
 * fit, and a worker thread consumes the blocks in order.  A fixed number
 * of blocks of a fixed size: memory stays flat however much goes
 * through, and the filler waits when all are full.  The lock is taken
 * once a block, not once a record.  Used by the events.csv and
 * requests.csv formatters (output_csv.c) and the model's output thread
 * (output_async.c).
 */
#ifndef RINGSIDE_BLOCK_QUEUE_H
#define RINGSIDE_BLOCK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "worker.h"

#define BLOCK_QUEUE_MAX 16

/* Consumes len bytes of records at p, on the worker thread. */
typedef void (*block_queue_fn)(void *arg, unsigned char *p, size_t len);

struct block_queue {
	bool running;			/* the thread is there */
	struct worker wk;		/* cond: a block handed over, consumed, or stop */
	block_queue_fn consume;
	void *arg;
	size_t bytes;			/* of each block */
	unsigned nblocks;
	unsigned char *buf[BLOCK_QUEUE_MAX];
	size_t len[BLOCK_QUEUE_MAX];
	unsigned fill;			/* the block being filled */
	unsigned head;			/* the next block to consume */
	unsigned nfull;			/* handed over, not yet consumed */
	bool discard;			/* stopping: leave the rest unconsumed */
};

/*
 * nblocks (2..BLOCK_QUEUE_MAX) blocks of bytes each, and the thread
 * that consumes them.  0, or -1 with nothing to undo (no memory, no
 * thread): the caller then does the work itself.
 */
int block_queue_start(struct block_queue *q, unsigned nblocks, size_t bytes,
		      block_queue_fn consume, void *arg);

/* Hand the block being filled over; wait for a free one. */
void block_queue_hand_over(struct block_queue *q);

/* Where to put n (<= q->bytes) bytes: the block being filled, or the
 * next one once it is full; block_queue_commit() them. */
static inline void *block_queue_room(struct block_queue *q, size_t n)
{
	if (q->bytes - q->len[q->fill] < n)
		block_queue_hand_over(q);
	return q->buf[q->fill] + q->len[q->fill];
}

static inline void block_queue_commit(struct block_queue *q, size_t n)
{
	q->len[q->fill] += n;
}

/*
 * Consume everything handed over and what the block being filled holds
 * (unless discard: then only the block the thread is on is finished),
 * stop the thread and free the blocks.  Safe when it never started or was
 * stopped already.
 */
void block_queue_stop(struct block_queue *q, bool discard);

#endif
