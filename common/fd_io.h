/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Whole buffers through a file descriptor: write(2) and read(2) may move
 * fewer bytes than asked (pipes, signals), so both loop until done.
 */
#ifndef RINGSIDE_FD_IO_H
#define RINGSIDE_FD_IO_H

#include <stddef.h>

/* Write len bytes of buf to fd, retrying after EINTR.  0, or the errno
 * (EIO when write() wrote nothing). */
int fd_write_all(int fd, const void *buf, size_t len);

/* Read exactly len bytes into buf, retrying after EINTR.  0, or the errno
 * (EIO at end of file). */
int fd_read_all(int fd, void *buf, size_t len);

#endif
