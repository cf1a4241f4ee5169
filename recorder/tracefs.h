/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading tracepoint format files (their text goes into the log's metadata;
 * their "ID:" line is what perf_event_open needs to attach the classic
 * syscalls tracepoints).  Only reads: nothing is ever written to tracefs.
 *
 * When tracefs is not mounted, it is mounted in a private mount namespace
 * of a short-lived child process (unshare(CLONE_NEWNS), "/" made rprivate),
 * which reads the files and exits, so no mount is left behind and the
 * host's mount table never changes.
 */
#ifndef RINGSIDE_RECORDER_TRACEFS_H
#define RINGSIDE_RECORDER_TRACEFS_H

#include <stddef.h>

struct tp_format {
	const char *name;		/* "io_uring/io_uring_submit_req" (not owned) */
	int id;				/* -1 when unknown */
	char *text;			/* format file, NULL when unreadable */
};

struct tracefs_info {
	struct tp_format *tps;
	size_t n;
	char source[64];		/* where they came from, for the metadata */
	char unavailable[256];		/* why none could be read, or "" */
};

/* Read the format files of names[0..n).  Never fails the recording. */
void tracefs_read(struct tracefs_info *ti, const char *const *names, size_t n);
void tracefs_free(struct tracefs_info *ti);
const struct tp_format *tracefs_find(const struct tracefs_info *ti, const char *name);

#endif
