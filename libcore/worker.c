// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "worker.h"

int worker_start(struct worker *w, void *(*fn)(void *), void *arg)
{
	w->stop = false;
	if (pthread_mutex_init(&w->lock, NULL))
		return -1;
	if (pthread_cond_init(&w->cond, NULL))
		goto fail_cond;
	if (pthread_create(&w->thread, NULL, fn, arg))
		goto fail_thread;
	return 0;

fail_thread:
	pthread_cond_destroy(&w->cond);
fail_cond:
	pthread_mutex_destroy(&w->lock);
	return -1;
}

void worker_stop(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}
