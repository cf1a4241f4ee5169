/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Small helpers shared by the Check test programs. */
#ifndef RINGSIDE_TEST_UTIL_H
#define RINGSIDE_TEST_UTIL_H

#include <check.h>
#include <stdbool.h>
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

/*
 * The rows of a CSV file as uring-convert writes it (CRLF rows, RFC 4180
 * quoting), one at a time, cells by column name.  A quoted cell with a
 * line break in it is not supported (no test reads one this way).
 */
#define TEST_CSV_MAX_CELLS 128
struct test_csv {
	char *path, *text, *save;
	char *names[TEST_CSV_MAX_CELLS];
	size_t ncells;
	char *cells[TEST_CSV_MAX_CELLS];	/* of the current row */
};

/* Reads path and its header row; aborts the test without one. */
void test_csv_open(struct test_csv *t, const char *path);
/* The next row into t->cells, or false at the end; a row must have as
 * many cells as the header. */
bool test_csv_next(struct test_csv *t);
/* The current row's cell of column name; aborts the test without one. */
const char *test_csv_cell(const struct test_csv *t, const char *name);
void test_csv_close(struct test_csv *t);

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
