// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "block_queue.h"

static void *queue_main(void *arg)
{
	struct block_queue *q = arg;

	pthread_mutex_lock(&q->wk.lock);
	for (;;) {
		unsigned i;

		while (!q->nfull && !q->wk.stop)
			pthread_cond_wait(&q->wk.cond, &q->wk.lock);
		if (!q->nfull || q->discard)
			break;
		i = q->head;
		pthread_mutex_unlock(&q->wk.lock);
		q->consume(q->arg, q->buf[i], q->len[i]);
		pthread_mutex_lock(&q->wk.lock);
		q->len[i] = 0;
		q->head = (q->head + 1) % q->nblocks;
		q->nfull--;
		pthread_cond_broadcast(&q->wk.cond);
	}
	pthread_mutex_unlock(&q->wk.lock);
	return NULL;
}

int block_queue_start(struct block_queue *q, unsigned nblocks, size_t bytes,
		      block_queue_fn consume, void *arg)
{
	unsigned i;

	*q = (struct block_queue){ .consume = consume, .arg = arg, .bytes = bytes,
				   .nblocks = nblocks };
	if (nblocks < 2 || nblocks > BLOCK_QUEUE_MAX)
		return -1;
	for (i = 0; i < nblocks; i++) {
		q->buf[i] = malloc(bytes);
		if (!q->buf[i])
			break;
	}
	if (i == nblocks && !worker_start(&q->wk, queue_main, q)) {
		q->running = true;
		return 0;
	}
	while (i--)
		free(q->buf[i]);
	*q = (struct block_queue){ 0 };
	return -1;
}

void block_queue_hand_over(struct block_queue *q)
{
	pthread_mutex_lock(&q->wk.lock);
	q->nfull++;
	q->fill = (q->fill + 1) % q->nblocks;
	pthread_cond_broadcast(&q->wk.cond);
	while (q->nfull == q->nblocks)
		pthread_cond_wait(&q->wk.cond, &q->wk.lock);
	pthread_mutex_unlock(&q->wk.lock);
}

void block_queue_stop(struct block_queue *q, bool discard)
{
	if (!q->running)
		return;
	if (discard) {
		pthread_mutex_lock(&q->wk.lock);
		q->discard = true;
		pthread_mutex_unlock(&q->wk.lock);
	} else if (q->len[q->fill]) {
		block_queue_hand_over(q);
	}
	worker_stop(&q->wk);
	for (unsigned i = 0; i < q->nblocks; i++)
		free(q->buf[i]);
	*q = (struct block_queue){ 0 };
}
