/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Work handed to threads in blocks: one thread fills a block with
 * records of its own making, hands it over when the next record does not
 * fit, and one or more lanes (worker threads) consume the blocks.  With
 * one lane the blocks are consumed in order; with several, each lane
 * consumes the next block not taken, in parallel, then the lanes publish
 * what they made in the order of the blocks, one at a time, so that the
 * output is the one lane's.  A fixed number of blocks of a fixed size:
 * memory stays flat however much goes through, and the filler waits when
 * all are full.  The lock is taken once a block, not once a record.
 * Used by the events.csv and requests.csv formatters (output_csv.c) and
 * the model's output thread (output_async.c).
 */
#ifndef RINGSIDE_BLOCK_QUEUE_H
#define RINGSIDE_BLOCK_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "worker.h"

#define BLOCK_QUEUE_MAX 16
#define BLOCK_QUEUE_LANES 8

/* Consumes len bytes of records at p, on lane's thread. */
typedef void (*block_queue_fn)(void *arg, unsigned lane, unsigned char *p, size_t len);
/* Publishes what lane made of its last block: one lane at a time, in the
 * order of the blocks. */
typedef void (*block_queue_publish_fn)(void *arg, unsigned lane);

struct block_queue;

struct block_queue_lane {
	struct block_queue *q;
	unsigned lane;
	pthread_t thread;		/* lanes other than 0 (wk.thread) */
};

struct block_queue {
	bool running;			/* the threads are there */
	struct worker wk;		/* lane 0; cond: a block handed over, claimed, published, or stop */
	block_queue_fn consume;
	block_queue_publish_fn publish;
	void *arg;
	size_t bytes;			/* of each block */
	unsigned nblocks;
	unsigned nlanes;
	struct block_queue_lane lanes[BLOCK_QUEUE_LANES];
	unsigned char *buf[BLOCK_QUEUE_MAX];
	size_t len[BLOCK_QUEUE_MAX];
	unsigned fill;			/* the block being filled */
	unsigned head;			/* the next block to publish (and free) */
	unsigned nfull;			/* handed over, not yet published */
	unsigned nclaimed;		/* of those, taken by a lane */
	bool discard;			/* stopping: leave the rest unconsumed */
};

/*
 * nblocks (2..BLOCK_QUEUE_MAX) blocks of bytes each, and nlanes
 * (1..BLOCK_QUEUE_LANES, fewer than nblocks) threads that consume them,
 * named name, or name/0 .. name/N-1 when there are several (thread_name());
 * publish may be NULL.  0, or -1 with nothing to undo (no memory, no
 * thread): the caller then does the work itself.
 */
int block_queue_start(struct block_queue *q, unsigned nblocks, size_t bytes, unsigned nlanes,
		      block_queue_fn consume, block_queue_publish_fn publish, void *arg,
		      const char *name);

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
 * Consume and publish everything handed over and what the block being
 * filled holds (unless discard: then only the blocks the lanes are on are
 * finished), stop the threads and free the blocks.  Safe when it never
 * started or was stopped already.
 */
void block_queue_stop(struct block_queue *q, bool discard);

#endif
