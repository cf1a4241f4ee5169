// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>

#include "block_queue.h"

/*
 * A lane takes the oldest block no lane has taken, consumes it, waits
 * until every block before it is published, publishes, and frees it.
 * Blocks head .. head + nclaimed - 1 are taken; head is published first.
 */
static void *lane_main(void *arg)
{
	struct block_queue_lane *l = arg;
	struct block_queue *q = l->q;

	pthread_mutex_lock(&q->wk.lock);
	for (;;) {
		unsigned i;

		while (q->nclaimed == q->nfull && !q->wk.stop)
			pthread_cond_wait(&q->wk.cond, &q->wk.lock);
		if (q->nclaimed == q->nfull || q->discard)
			break;
		i = (q->head + q->nclaimed) % q->nblocks;
		q->nclaimed++;
		pthread_mutex_unlock(&q->wk.lock);
		q->consume(q->arg, l->lane, q->buf[i], q->len[i]);
		pthread_mutex_lock(&q->wk.lock);
		while (q->head != i)
			pthread_cond_wait(&q->wk.cond, &q->wk.lock);
		if (q->publish) {
			pthread_mutex_unlock(&q->wk.lock);
			q->publish(q->arg, l->lane);
			pthread_mutex_lock(&q->wk.lock);
		}
		q->len[i] = 0;
		q->head = (q->head + 1) % q->nblocks;
		q->nfull--;
		q->nclaimed--;
		pthread_cond_broadcast(&q->wk.cond);
	}
	pthread_mutex_unlock(&q->wk.lock);
	return NULL;
}

/* Tell the lanes to stop once the blocks handed over are done, and wait
 * for those of lane 1 on (worker_stop() waits for lane 0). */
static void stop_lanes(struct block_queue *q)
{
	pthread_mutex_lock(&q->wk.lock);
	q->wk.stop = true;
	pthread_cond_broadcast(&q->wk.cond);
	pthread_mutex_unlock(&q->wk.lock);
	for (unsigned l = 1; l < q->nlanes; l++)
		pthread_join(q->lanes[l].thread, NULL);
}

/* Lane l's thread name: name itself when it is the only lane. */
static const char *lane_name(char *buf, size_t len, const char *name, unsigned l, unsigned nlanes)
{
	if (nlanes == 1)
		return name;
	snprintf(buf, len, "%s/%u", name, l);
	return buf;
}

int block_queue_start(struct block_queue *q, unsigned nblocks, size_t bytes, unsigned nlanes,
		      block_queue_fn consume, block_queue_publish_fn publish, void *arg,
		      const char *name)
{
	char nb[THREAD_NAME_MAX + 1];
	unsigned i;

	*q = (struct block_queue){ .consume = consume, .publish = publish, .arg = arg,
				   .bytes = bytes, .nblocks = nblocks };
	if (nblocks < 2 || nblocks > BLOCK_QUEUE_MAX || !nlanes || nlanes > BLOCK_QUEUE_LANES ||
	    nlanes >= nblocks)
		return -1;
	for (i = 0; i < nblocks; i++) {
		q->buf[i] = malloc(bytes);
		if (!q->buf[i])
			goto fail;
	}
	for (unsigned l = 0; l < nlanes; l++)
		q->lanes[l] = (struct block_queue_lane){ .q = q, .lane = l };
	if (worker_start(&q->wk, lane_main, &q->lanes[0],
			 lane_name(nb, sizeof(nb), name, 0, nlanes)))
		goto fail;
	/* a lane that cannot start leaves the work to the others */
	for (q->nlanes = 1; q->nlanes < nlanes; q->nlanes++) {
		if (pthread_create(&q->lanes[q->nlanes].thread, NULL, lane_main,
				   &q->lanes[q->nlanes]))
			break;
		thread_name(q->lanes[q->nlanes].thread,
			    lane_name(nb, sizeof(nb), name, q->nlanes, nlanes));
	}
	q->running = true;
	return 0;

fail:
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
	stop_lanes(q);
	worker_stop(&q->wk);
	for (unsigned i = 0; i < q->nblocks; i++)
		free(q->buf[i]);
	*q = (struct block_queue){ 0 };
}
