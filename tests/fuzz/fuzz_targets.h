/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fuzz targets, as plain functions: tests/fuzz/fuzz_main.c wraps one
 * of them for libFuzzer (make fuzz, built with clang), and
 * tests/fuzz/check_fuzz.c replays the corpus and every regression input
 * through all of them in the ordinary build (make check).
 *
 * Each takes one fuzz input (see fuzz_input.h: a raw log, or a packed one
 * whose checksums are fixed up), turns it into a log file in memory and
 * runs the real code on it.  Besides the sanitizers, each checks what the
 * project promises about bad input, and aborts when a promise is broken:
 *
 *   reader    log_reader_open/next/payload and log_next_record on every
 *             frame and record: messages are one line naming the file,
 *             sizes and offsets stay inside the payload, the walk always
 *             ends with a reason.
 *   convert   convert_into() to one format: exit status 0 or 1; on 1
 *             exactly one stderr line; every stderr line starts with
 *             "uring-convert: "; the output is valid (JSON parses with the
 *             strict parser, every CSV row has the header's column count,
 *             the summary holds no control characters).
 */
#ifndef RINGSIDE_FUZZ_TARGETS_H
#define RINGSIDE_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

int fuzz_reader_one(const uint8_t *data, size_t size);
/* format: FORMAT_SUMMARY, FORMAT_JSON, FORMAT_CSV (FORMAT_FXT when built). */
int fuzz_convert_one(const uint8_t *data, size_t size, enum out_format format);

/* Where the convert target writes (created on first use, removed at exit). */
const char *fuzz_output_dir(void);

#endif
