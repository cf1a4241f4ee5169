// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "fd_io.h"

/* One loop for both directions: write(2) or read(2) until len bytes moved. */
static int fd_all(int fd, char *p, size_t len, bool out)
{
	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (!n)
			return EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fd_write_all(int fd, const void *buf, size_t len)
{
	/* fd_all() only reads the bytes when out is true */
	return fd_all(fd, (char *)(uintptr_t)buf, len, true);
}

int fd_read_all(int fd, void *buf, size_t len)
{
	return fd_all(fd, buf, len, false);
}
