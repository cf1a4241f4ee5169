/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which recorded file a request used, for the outputs and tools that run
 * the recording again (--format=fio): the ONE place that decides it.
 *
 * Today the log identifies a file only by the descriptor the SQE named:
 * a process's fd, or with IOSQE_FIXED_FILE an index into the ring's
 * registered files.  Two opens of the same file are two keys, and one fd
 * number reused for another file is one key.  When requests carry the
 * file's own identity (device, inode, path), replay_key_of() is where it
 * takes over; everything downstream compares and names keys only through
 * the functions below.
 */
#ifndef RINGSIDE_REPLAY_KEY_H
#define RINGSIDE_REPLAY_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

struct replay_key {
	uint32_t pid;			/* fd's process; 0 for a fixed file */
	unsigned ring;			/* fixed file: ring number; else 0 */
	int32_t fd;			/* fd, or registered-file index */
};

/* The file r used; false when r names none (SQE not read, fd < 0). */
bool replay_key_of(const struct model_request *r, struct replay_key *k);

/* Two 64-bit words that identify k (for hmap). */
void replay_key_words(const struct replay_key *k, uint64_t *a, uint64_t *b);

/* A file name for k, safe in a path and in a fio iolog ("p42-fd5",
 * "ring2-fixed3"); buf holds REPLAY_KEY_NAME_LEN bytes. */
#define REPLAY_KEY_NAME_LEN 48
const char *replay_key_name(const struct replay_key *k, char *buf);

/* What k was in the recording, for people ("fd 5 of process 42"). */
void replay_key_describe(const struct replay_key *k, char *buf, size_t len);

#endif
