// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "msg.h"

int msg_verbosity;
bool msg_status_line;

static void vmsg(const char *fmt, va_list ap)
{
	if (msg_status_line) {
		fputs("\r\033[K", stderr);
		msg_status_line = false;
	}
	fputs("uring-record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void msg_loud(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	if (msg_verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void msg_info(const char *fmt, ...)
{
	va_list ap;

	if (msg_verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void msg_verbose(const char *fmt, ...)
{
	va_list ap;

	if (msg_verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}
