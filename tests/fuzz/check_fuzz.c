// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * make check: every input of the fuzz seed corpus (tests/fuzz/corpus/) and
 * every crash the fuzzers ever found (tests/fuzz/regressions/) through
 * every fuzz target, in the ordinary build, so that the sanitizer build of
 * CI catches a regression without clang or libFuzzer.  The targets check
 * their own oracles (tests/fuzz/fuzz_targets.h) and abort on a broken
 * promise; the name of the input being replayed is printed first.
 */
#include <check.h>
#include <dirent.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_targets.h"
#include "test_util.h"

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every file of srcdir/tests/fuzz/SUB; returns how many. */
static size_t replay_dir(const char *sub)
{
	char *dir = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d;

	if (asprintf(&dir, "%s/tests/fuzz/%s", test_srcdir(), sub) < 0)
		abort();
	d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "README", 6))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			ck_assert_ptr_nonnull(names);
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *path = test_path(dir, names[i]);
		size_t size;
		unsigned char *data = test_read_file(path, &size);

		fprintf(stderr, "check_fuzz: replaying %s\n", path);
		fuzz_reader_one(data, size);
		fuzz_convert_one(data, size, FORMAT_SUMMARY);
		fuzz_convert_one(data, size, FORMAT_JSON);
		fuzz_convert_one(data, size, FORMAT_CSV);
		fuzz_convert_one(data, size, FORMAT_FXT);
		free(data);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
	return n;
}

START_TEST(test_corpus)
{
	ck_assert_uint_gt(replay_dir("corpus"), 10);
}
END_TEST

START_TEST(test_regressions)
{
	ck_assert_uint_gt(replay_dir("regressions"), 0);
}
END_TEST

static Suite *fuzz_suite(void)
{
	Suite *s = suite_create("fuzz_replay");
	TCase *tc = tcase_create("replay");

	setlocale(LC_ALL, "C");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_corpus);
	tcase_add_test(tc, test_regressions);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(fuzz_suite)
