/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which recorded file a request used, for the outputs and tools that run
 * the recording again (--format=fio, uring-replay): the ONE place that
 * decides it.
 *
 * A log of format 3.1 or later names each request's file by its identity
 * (device and inode, uring-convert(1) "Files"): every fd, fixed file and
 * process that reached the same regular file or block device is one key,
 * named after its path.  Older logs, and requests whose file the log does
 * not name, fall back to the descriptor the SQE named: a process's fd, or
 * with IOSQE_FIXED_FILE an index into the ring's registered files (two
 * opens of one file are then two keys, and an fd number reused for
 * another file is one).  Everything downstream compares and names keys
 * only through the functions below.
 *
 * With streams (uring-replay), a pipe or socket the log names is told by
 * its inode too: both ends of a pipe are one key (one pipefs inode), each
 * end of a socket pair its own.  Without (--format=fio, which cannot
 * stand in for them) they stay descriptors.
 */
#ifndef RINGSIDE_REPLAY_KEY_H
#define RINGSIDE_REPLAY_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

#define REPLAY_KEY_PATH_LEN 128

enum replay_kind {
	RK_FILE = 0,			/* regular file, block device, or unnamed */
	RK_PIPE,			/* pipe or FIFO (identified, with streams) */
	RK_SOCKET,			/* socket (identified, with streams) */
	RK_OTHER,			/* named, but none of those: eventfd, ... */
};

struct replay_key {
	uint32_t pid;			/* fd's process; 0 for a fixed file */
	unsigned ring;			/* fixed file: ring number; else 0 */
	int32_t fd;			/* fd, or registered-file index */
	/* The file's identity, when the log names it (format 3.1). */
	bool identified;
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	char path[REPLAY_KEY_PATH_LEN];	/* as recorded, cut to fit */
	enum replay_kind kind;
};

/* The file r used; false when r names none (SQE not read, fd < 0).
 * streams: identify pipes and sockets by inode too (see above). */
bool replay_key_of(const struct model_request *r, struct replay_key *k, bool streams);

/* Two 64-bit words that identify k (for hmap). */
void replay_key_words(const struct replay_key *k, uint64_t *a, uint64_t *b);

/* A file name for k, safe in a path and in a fio iolog ("data.db-d8.1-i1234",
 * "p42-fd5", "ring2-fixed3"); buf holds REPLAY_KEY_NAME_LEN bytes. */
#define REPLAY_KEY_NAME_LEN 64
const char *replay_key_name(const struct replay_key *k, char *buf);

/* What k was in the recording, for people ("/srv/data.db (device 8:1,
 * inode 1234)", "fd 5 of process 42"). */
void replay_key_describe(const struct replay_key *k, char *buf, size_t len);

#endif
