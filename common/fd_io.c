// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

#include "fd_io.h"

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

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

int fd_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

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
