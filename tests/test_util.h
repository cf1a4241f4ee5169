/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small helpers shared by the Check test programs. */
#ifndef RINGSIDE_TEST_UTIL_H
#define RINGSIDE_TEST_UTIL_H

#include <check.h>
#include <stddef.h>

/* A fresh directory under $TMPDIR (or /tmp); aborts on failure. */
char *test_tmpdir(void);
/* dir/name, malloc'd. */
char *test_path(const char *dir, const char *name);
/* Whole file, malloc'd (NUL-terminated for convenience). */
unsigned char *test_read_file(const char *path, size_t *size);
void test_write_file(const char *path, const void *data, size_t size);
void test_rmtree(const char *dir);
/* Directory of the source tree's tests/ (for golden files). */
const char *test_srcdir(void);

/* main() for a test program with one suite; exit status for make check. */
#define TEST_MAIN(suite_fn)						\
	int main(void)							\
	{								\
		SRunner *sr = srunner_create(suite_fn());		\
		int failed;						\
									\
		srunner_run_all(sr, CK_NORMAL);				\
		failed = srunner_ntests_failed(sr);			\
		srunner_free(sr);					\
		return failed ? 1 : 0;					\
	}

#endif
