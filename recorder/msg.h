/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Messages on stderr, all prefixed "uring-record: ".  Errors and loss
 * warnings always print; warnings and information are silenced by -q;
 * verbose messages need -v.  A live status line (status.c) is erased before
 * any message so the two never mix.
 */
#ifndef RINGSIDE_RECORDER_MSG_H
#define RINGSIDE_RECORDER_MSG_H

#include <stdbool.h>

/* -1 with -q, 0 by default, +1 per -v. */
extern int msg_verbosity;
/* Set while a status line is on the terminal (status.c). */
extern bool msg_status_line;

void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed even with -q: data was lost. */
void msg_loud(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
