/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A thread with a lock, a condition and a stop flag: the converter's
 * helper threads (out_buf's writer, the block_queue threads: events.csv's
 * formatter and the output's thread) start and stop the same way.  The thread's function waits on cond under lock and
 * returns once stop is set and its work is done.
 */
#ifndef RINGSIDE_WORKER_H
#define RINGSIDE_WORKER_H

#include <pthread.h>
#include <stdbool.h>

struct worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* work handed over, done, or stop */
	bool stop;
};

/* Start fn(arg); 0, or -1 with nothing left to undo. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg);

/* Set stop, wake the thread, wait for it to return, free the lock and
 * the condition. */
void worker_stop(struct worker *w);

#endif
