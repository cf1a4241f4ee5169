// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "worker.h"

void thread_name(pthread_t t, const char *name)
{
	char buf[THREAD_NAME_MAX + 1];

	if (!name)
		return;
	strncpy(buf, name, THREAD_NAME_MAX);
	buf[THREAD_NAME_MAX] = '\0';
	pthread_setname_np(t, buf);
}

int worker_start(struct worker *w, void *(*fn)(void *), void *arg, const char *name)
{
	w->stop = false;
	if (pthread_mutex_init(&w->lock, NULL))
		return -1;
	if (pthread_cond_init(&w->cond, NULL))
		goto fail_cond;
	if (pthread_create(&w->thread, NULL, fn, arg))
		goto fail_thread;
	thread_name(w->thread, name);
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
