/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the outputs share besides the model's contract (output.h): text
 * formatting and opening their destination files (output_util.c).
 */
#ifndef RINGSIDE_OUTPUT_UTIL_H
#define RINGSIDE_OUTPUT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if the
 * byte at s does not start one (task names are raw kernel bytes). */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/*
 * v in decimal, its last digit just before end, no NUL (at most
 * DEC_U64_MAX bytes); returns where it starts.  Two digits per division,
 * because printing numbers is most of CSV's own work.
 */
#define DEC_U64_MAX 20
char *dec_u64(char *end, uint64_t v);

/*
 * Open an output file: path NULL or "-" gives stdout.  Refuses (one error
 * line) when it exists and !force, when it is a directory, or when it
 * cannot be created.  *is_stdout tells whether to fclose() it.
 */
FILE *output_open_file(const char *path, bool force, bool *is_stdout,
		       char *err, size_t errlen);
/* The same as a file descriptor (STDOUT_FILENO for stdout), -1 refused. */
int output_open_fd(const char *path, bool force, bool *is_stdout,
		   char *err, size_t errlen);

struct timebase;
/*
 * A flight-recorder snapshot's line (summary and --info): what fired and
 * when, and where its window starts, relative to the recording start
 * (window_start_ns 1 or less: nothing was evicted).
 */
void print_snapshot_line(FILE *f, const char *label, uint64_t snapshot, const char *trigger,
			 uint64_t trigger_ns, uint64_t window_start_ns, const struct timebase *tb);

#endif
