// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "replay_key.h"

#define IOSQE_FIXED_FILE_BIT	(1u << 0)	/* uapi IOSQE_FIXED_FILE */

/* Words of an identified key carry this bit; a pid stays below 2^22. */
#define KEY_IDENTIFIED		(1ull << 63)

/* Only files whose data a replay can stand in for are told by identity:
 * regular files and block devices, and with streams pipes and sockets
 * (uring-replay makes its own); an eventfd is its descriptor. */
static bool replayable_file(const struct model_file *f, bool streams)
{
	if (!f || !f->ino)
		return false;
	if (f->type == FILE_REGULAR || f->type == FILE_BLOCK)
		return true;
	return streams && (f->type == FILE_PIPE || f->type == FILE_SOCKET);
}

bool replay_key_of(const struct model_request *r, struct replay_key *k, bool streams)
{
	const struct model_file *f = r->file;

	if (!r->sqe_fields_valid || r->fd < 0)
		return false;
	memset(k, 0, sizeof(*k));
	k->fd = r->fd;
	if (r->sqe_flags & IOSQE_FIXED_FILE_BIT) {
		k->ring = r->ring->number;
	} else {
		/* The submitter's fd table (an SQPOLL thread shares its owner's). */
		k->pid = r->submit_pid ? r->submit_pid : r->ring->pid;
	}
	if (f && f->ino && !replayable_file(f, streams))
		k->kind = RK_OTHER;
	if (replayable_file(f, streams)) {
		size_t n = f->path ? strlen(f->path) : 0;

		k->identified = true;
		k->dev_major = f->dev_major;
		k->dev_minor = f->dev_minor;
		k->ino = f->ino;
		k->kind = f->type == FILE_PIPE ? RK_PIPE : f->type == FILE_SOCKET ? RK_SOCKET : RK_FILE;
		/* keep the end of a long path: the name is what tells files apart */
		if (n >= sizeof(k->path))
			snprintf(k->path, sizeof(k->path), "...%s",
				 f->path + n - (sizeof(k->path) - 4));
		else if (n)
			memcpy(k->path, f->path, n + 1);
	}
	return true;
}

void replay_key_words(const struct replay_key *k, uint64_t *a, uint64_t *b)
{
	if (k->identified) {
		*a = KEY_IDENTIFIED | (uint64_t)k->dev_major << 32 | k->dev_minor;
		*b = k->ino;
		return;
	}
	*a = (uint64_t)k->pid << 32 | k->ring;
	*b = (uint32_t)k->fd;
}

/* The last component of path, without " (deleted)", in the bytes a file
 * name and a fio iolog line take: letters, digits, '.', '_' and '-' (any
 * other byte becomes '_'); at most max bytes. */
static size_t safe_basename(const char *path, char *out, size_t max)
{
	static const char deleted[] = " (deleted)";
	const char *base = strrchr(path, '/'), *end = path + strlen(path);
	size_t n = 0;

	base = base ? base + 1 : path;
	if ((size_t)(end - base) >= sizeof(deleted) - 1 &&
	    !strcmp(end - (sizeof(deleted) - 1), deleted))
		end -= sizeof(deleted) - 1;
	for (; base < end && n < max; base++) {
		char c = *base;

		out[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ? c : '_';
	}
	out[n] = '\0';
	return n;
}

const char *replay_key_name(const struct replay_key *k, char *buf)
{
	char base[25];

	if (k->identified && k->kind != RK_FILE) {
		/* "pipe:[123]" says no more than the inode number */
		snprintf(buf, REPLAY_KEY_NAME_LEN, "%s-d%" PRIu32 ".%" PRIu32 "-i%" PRIu64,
			 k->kind == RK_PIPE ? "pipe" : "socket", k->dev_major, k->dev_minor, k->ino);
	} else if (k->identified) {
		size_t n = safe_basename(k->path, base, sizeof(base) - 1);

		snprintf(buf, REPLAY_KEY_NAME_LEN, "%s%sd%" PRIu32 ".%" PRIu32 "-i%" PRIu64,
			 n ? base : "", n ? "-" : "", k->dev_major, k->dev_minor, k->ino);
	} else if (k->ring) {
		snprintf(buf, REPLAY_KEY_NAME_LEN, "ring%u-fixed%d", k->ring, k->fd);
	} else {
		snprintf(buf, REPLAY_KEY_NAME_LEN, "p%u-fd%d", k->pid, k->fd);
	}
	return buf;
}

void replay_key_describe(const struct replay_key *k, char *buf, size_t len)
{
	if (k->identified)
		snprintf(buf, len, "%s (device %" PRIu32 ":%" PRIu32 ", inode %" PRIu64 ")",
			 *k->path ? k->path : "?", k->dev_major, k->dev_minor, k->ino);
	else if (k->ring)
		snprintf(buf, len, "registered file %d of ring %u", k->fd, k->ring);
	else
		snprintf(buf, len, "fd %d of process %u", k->fd, k->pid);
}
