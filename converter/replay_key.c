// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>

#include "replay_key.h"

#define IOSQE_FIXED_FILE_BIT	(1u << 0)	/* uapi IOSQE_FIXED_FILE */

bool replay_key_of(const struct model_request *r, struct replay_key *k)
{
	if (!r->sqe_fields_valid || r->fd < 0)
		return false;
	k->fd = r->fd;
	if (r->sqe_flags & IOSQE_FIXED_FILE_BIT) {
		k->pid = 0;
		k->ring = r->ring->number;
		return true;
	}
	/* The submitter's fd table (an SQPOLL thread shares its owner's). */
	k->pid = r->submit_pid ? r->submit_pid : r->ring->pid;
	k->ring = 0;
	return true;
}

void replay_key_words(const struct replay_key *k, uint64_t *a, uint64_t *b)
{
	*a = (uint64_t)k->pid << 32 | k->ring;
	*b = (uint32_t)k->fd;
}

const char *replay_key_name(const struct replay_key *k, char *buf)
{
	if (k->ring)
		snprintf(buf, REPLAY_KEY_NAME_LEN, "ring%u-fixed%d", k->ring, k->fd);
	else
		snprintf(buf, REPLAY_KEY_NAME_LEN, "p%u-fd%d", k->pid, k->fd);
	return buf;
}

void replay_key_describe(const struct replay_key *k, char *buf, size_t len)
{
	if (k->ring)
		snprintf(buf, len, "registered file %d of ring %u", k->fd, k->ring);
	else
		snprintf(buf, len, "fd %d of process %u", k->fd, k->pid);
}
