/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A heap buffer that only grows, for the log's one reader and one writer
 * (payloads, compressed frames, columns): both keep their buffers across
 * frames and need at most one realloc() per new largest frame.
 */
#ifndef RINGSIDE_BUFFER_H
#define RINGSIDE_BUFFER_H

#include <stdlib.h>

/* Make *buf (of *cap bytes) hold at least need bytes; -1 when out of memory. */
static inline int buffer_reserve(void **buf, size_t *cap, size_t need)
{
	void *p;

	if (need <= *cap)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -1;
	*buf = p;
	*cap = need;
	return 0;
}

#endif
