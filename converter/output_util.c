// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text formatting and output files shared by the outputs (output_util.h). */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_util.h"
#include "timebase.h"

static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* Exactly 8 digits of v < 10^8, leading zeros kept: four independent
 * 32-bit pairs instead of a chain of 64-bit divisions. */
static char *dec_8(char *end, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(end - 2, dec_pairs + 2 * (lo % 100), 2);
	memcpy(end - 4, dec_pairs + 2 * (lo / 100), 2);
	memcpy(end - 6, dec_pairs + 2 * (hi % 100), 2);
	memcpy(end - 8, dec_pairs + 2 * (hi / 100), 2);
	return end - 8;
}

char *dec_u64(char *end, uint64_t v)
{
	uint32_t w;

	while (v >= 100000000) {
		end = dec_8(end, (uint32_t)(v % 100000000));
		v /= 100000000;
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		end -= 2;
		memcpy(end, dec_pairs + 2 * (w % 100), 2);
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, dec_pairs + 2 * w, 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

int output_open_fd(const char *path, bool force, bool *is_stdout, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	*is_stdout = false;
	if (!path || !strcmp(path, "-")) {
		*is_stdout = true;
		return STDOUT_FILENO;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: is a directory (give a file name)", path);
			return -1;
		}
		if (!force) {
			snprintf(err, errlen, "%s: already exists (use --force to overwrite)", path);
			return -1;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (force ? 0 : O_EXCL), 0644);
	if (fd < 0)
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
	return fd;
}

FILE *output_open_file(const char *path, bool force, bool *is_stdout, char *err, size_t errlen)
{
	FILE *f;
	int fd = output_open_fd(path, force, is_stdout, err, errlen);

	if (fd < 0)
		return NULL;
	if (*is_stdout)
		return stdout;
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void print_snapshot_line(FILE *f, const char *label, uint64_t snapshot, const char *trigger,
			 uint64_t trigger_ns, uint64_t window_start_ns, const struct timebase *tb)
{
	fprintf(f, "%sflight recorder snapshot %" PRIu64 ", trigger %s at %+.6f s; ", label,
		snapshot, trigger, (double)timebase_rel(tb, trigger_ns) / 1e9);
	if (window_start_ns > 1)
		fprintf(f, "window from %+.6f s (earlier events were not kept)\n",
			(double)timebase_rel(tb, window_start_ns) / 1e9);
	else
		fprintf(f, "everything since the recorder started was kept\n");
}
