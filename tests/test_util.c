// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

char *test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&dir, "%s/ringside-test-XXXXXX", base) < 0 || !mkdtemp(dir)) {
		perror("test_tmpdir");
		abort();
	}
	return dir;
}

char *test_path(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		abort();
	return p;
}

unsigned char *test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		abort();
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		abort();
	}
	buf[n] = '\0';
	fclose(f);
	*size = (size_t)n;
	return buf;
}

void test_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void test_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *test_srcdir(void)
{
	const char *d = getenv("srcdir");

	return d && *d ? d : ".";
}

/* The cells of one row (RFC 4180 quoting), unquoted in place, into cells[];
 * returns how many. */
static size_t csv_split(char *line, char **cells, size_t max)
{
	size_t n = 0;
	char *r = line, *w = line;

	while (n < max) {
		bool quoted = *r == '"';
		char end;

		cells[n++] = w;
		if (quoted)
			r++;
		for (;;) {
			if (quoted && *r == '"' && r[1] == '"') {
				*w++ = '"';
				r += 2;
			} else if (quoted && *r == '"') {
				r++;
				quoted = false;
			} else if (!quoted && (*r == ',' || !*r)) {
				break;
			} else {
				*w++ = *r++;
			}
		}
		end = *r;	/* w may have caught up with r: read it first */
		*w++ = '\0';
		if (!end)
			break;
		r++;
	}
	return n;
}

void test_csv_open(struct test_csv *t, const char *path)
{
	char *hdr;
	size_t size;

	t->path = strdup(path);
	t->text = (char *)test_read_file(path, &size);
	hdr = strtok_r(t->text, "\r\n", &t->save);
	ck_assert_msg(hdr != NULL, "%s: no header row", path);
	t->ncells = csv_split(hdr, t->names, TEST_CSV_MAX_CELLS);
	ck_assert_msg(t->ncells < TEST_CSV_MAX_CELLS, "%s: too many columns", path);
}

bool test_csv_next(struct test_csv *t)
{
	char *line = strtok_r(NULL, "\r\n", &t->save);

	if (!line)
		return false;
	ck_assert_msg(csv_split(line, t->cells, TEST_CSV_MAX_CELLS) == t->ncells,
		      "%s: a row without %zu cells", t->path, t->ncells);
	return true;
}

const char *test_csv_cell(const struct test_csv *t, const char *name)
{
	for (size_t i = 0; i < t->ncells; i++)
		if (!strcmp(t->names[i], name))
			return t->cells[i];
	ck_abort_msg("%s: no column %s", t->path, name);
	return NULL;
}

void test_csv_close(struct test_csv *t)
{
	free(t->text);
	free(t->path);
}
