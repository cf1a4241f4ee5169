/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * uring-record -- COMMAND: the command is forked first and waits, so its
 * pid can join the BPF filter before it runs anything; once recording is
 * live it is released and execs COMMAND as the invoking user (SUDO_UID,
 * SUDO_GID and that user's supplementary groups), unless --run-as-root.
 */
#ifndef RINGSIDE_RECORDER_COMMAND_H
#define RINGSIDE_RECORDER_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int go_fd;			/* write end: one byte releases the child */
	int err_fd;			/* read end: errno of a failed exec */
	bool exited;
	int status;			/* wait status once exited */
	char user[64];			/* who it runs as, for messages */
};

/*
 * Fork the child, which drops privileges and waits.  Call before any
 * thread exists.  Returns 0, or -1 with a message in err.
 */
int command_spawn(struct command *c, char *const argv[], bool as_root, char *err,
		  size_t errlen);
/* Let it exec.  Returns 0, or -errno when exec failed (err filled in). */
int command_release(struct command *c, char *err, size_t errlen);
/* Kill a child that was never released. */
void command_abort(struct command *c);
/* Reap if it exited (non-blocking).  True when it has exited. */
bool command_poll(struct command *c);
/* Exit status as a shell reports it (128 + signal when killed). */
int command_exit_code(const struct command *c);

#endif
