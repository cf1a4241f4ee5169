/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A thread with a lock, a condition and a stop flag: the converter's
 * helper threads (out_buf's writer, the log's read-ahead, the block_queue
 * threads: the CSV formatters' lanes and the output's thread) start and
 * stop the same way, each named for what it does.  The thread's function
 * waits on cond under lock and returns once stop is set and its work is
 * done.
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

/* Start fn(arg) in a thread named name (see thread_name()); 0, or -1
 * with nothing left to undo. */
int worker_start(struct worker *w, void *(*fn)(void *), void *arg, const char *name);

/*
 * Name thread t, as top -H, ps -L and perf show it: at most
 * THREAD_NAME_MAX bytes, a longer name is cut.  The main thread keeps the
 * program's name, which pidof and pkill match.  A name that cannot be set
 * is left as it was: it is only for people and profilers.
 */
#define THREAD_NAME_MAX 15
void thread_name(pthread_t t, const char *name);

/* Set stop, wake the thread, wait for it to return, free the lock and
 * the condition. */
void worker_stop(struct worker *w);

#endif
