/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fuzz inputs to log files.
 *
 * A ringside log checksums every header and payload (CRC-32C) and
 * compresses every payload (zstd), so random mutations of a real log are
 * almost all caught by the first checksum: useful for the framing code,
 * useless for everything behind it.  A fuzz input is therefore one of two
 * things:
 *
 *   raw      any bytes not starting with "RSFZ": written as they are; this
 *            is a log file (real logs from the recorder are seeds).
 *
 *   packed   "RSFZ", one option byte, then a log whose payloads are stored
 *            UNCOMPRESSED and whose checksums and payload sizes need not be
 *            right.  fuzz_make_log() compresses each payload, sets
 *            raw_size/stored_size to match and recomputes every CRC, so a
 *            mutation of a record, a metadata string, a frame count or a
 *            timestamp reaches the converter as if a buggy or hostile
 *            recorder had written it.  Where the input stops making sense
 *            as frames (bad header size, truncated), the rest is copied
 *            as is.
 *
 * The option byte selects uring-convert options for the conversion
 * targets (--start/--end/--pid/--ring), so the selection filter is fuzzed
 * too.  tests/fuzz/fuzz_unpack turns a real log into a packed input.
 *
 * This is the one place besides common/log_writer.c that writes log bytes
 * by hand: it has to, to write the broken logs the writer never would.
 */
#ifndef RINGSIDE_FUZZ_INPUT_H
#define RINGSIDE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_PACKED_MAGIC "RSFZ"
#define FUZZ_PACKED_MAGIC_LEN 4
#define FUZZ_PACKED_PREFIX_LEN 5	/* magic + option byte */

struct fuzz_log {
	unsigned char *bytes;		/* the log file's bytes (malloc'd) */
	size_t len;
	int packed;			/* input was packed */
	uint8_t options;		/* packed: the option byte; raw: 0 */
};

/* Build the log bytes for an input.  Returns 0 or -1 (out of memory). */
int fuzz_make_log(const uint8_t *data, size_t size, struct fuzz_log *out);
void fuzz_log_free(struct fuzz_log *l);

/*
 * Put bytes in an anonymous in-memory file (memfd) and give a path that
 * opens it (/proc/self/fd/N).  Returns the fd (close it when done) or -1.
 */
int fuzz_memfd(const char *name, const void *buf, size_t len, char *path, size_t pathlen);

/* Read a whole file (an output to validate).  NULL on error; free() it. */
unsigned char *fuzz_slurp(const char *path, size_t *len);

/* Abort with a message: a fuzz oracle failed (libFuzzer records a crash). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
