// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer entry point of one target, chosen at compile time
 * (tests/fuzz/fuzz.mk builds this file once per target):
 *
 *   FUZZ_TARGET_READER    fuzz_reader           the log reader
 *   FUZZ_TARGET_FORMAT=F  fuzz_convert_<fmt>    the whole conversion to F
 */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_targets.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* As uring-convert's main(): output never depends on the locale. */
	setlocale(LC_ALL, "C");
#ifndef FUZZ_TARGET_READER
	fuzz_output_dir();
#endif
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef FUZZ_TARGET_READER
	return fuzz_reader_one(data, size);
#else
	return fuzz_convert_one(data, size, FUZZ_TARGET_FORMAT);
#endif
}
