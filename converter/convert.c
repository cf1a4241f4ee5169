// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-convert's run: the output its options ask for, fed by the
 * pipeline (libcore/pipeline.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "csv_tables.h"
#include "fxt_layout.h"
#include "output_util.h"

static bool is_the_log(const char *log, const char *path)
{
	struct stat a, b;

	return path && stat(log, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool output_is_log(const struct options *o, enum out_format fmt)
{
	if (!o->output)
		return false;
	if (fmt == FORMAT_FIO)
		return false;	/* writes only NAME.iolog/.fio/.sh/.txt into a directory */
	if (fmt != FORMAT_CSV)
		return is_the_log(o->log_path, o->output);
	for (int i = 0; i < CSV_NTABLES; i++) {
		char *path = csv_table_path(o->output, i);
		bool same = is_the_log(o->log_path, path);

		free(path);
		if (same)
			return true;
	}
	return false;
}

int convert_run(const struct options *o)
{
	struct options run = *o;	/* with the format decided */
	struct output_config cfg = { .path = o->output, .force = o->force, .quiet = o->quiet,
				     .csv_tables = o->csv_tables };
	enum out_format fmt = o->format;
	struct output *out = NULL;
	char err[LOG_MSG_LEN];

	if (o->info) {
		FILE *f = stdout;
		bool is_stdout;
		int ret;

		if (o->output) {
			f = output_open_file(o->output, o->force, &is_stdout, err, sizeof(err));
			if (!f) {
				fprintf(stderr, "uring-convert: %s\n", err);
				return 1;
			}
		}
		ret = convert_info(o, f, stderr);
		if (f != stdout)
			fclose(f);
		return ret;
	}
	if (fmt == FORMAT_DEFAULT)
		fmt = isatty(STDOUT_FILENO) && (!o->output || !strcmp(o->output, "-")) ?
		      FORMAT_SUMMARY : FORMAT_JSON;
	if (output_is_log(o, fmt)) {
		fprintf(stderr, "uring-convert: %s: refusing to write over the log being converted\n",
			o->output);
		return 1;
	}
	run.format = fmt;
	cfg.threads = convert_threads(&run);
	switch (fmt) {
	case FORMAT_SUMMARY:
		out = output_summary_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_JSON:
		out = output_json_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_CSV:
		if (!o->output) {
			fprintf(stderr, "uring-convert: --format=csv writes several files: give a directory with -o DIR\n");
			return 2;
		}
		out = output_csv_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_FIO:
		if (!o->output) {
			fprintf(stderr, "uring-convert: --format=fio writes several files: give a directory with -o DIR\n");
			return 2;
		}
		out = output_fio_new(&cfg, o->nrings > 0, err, sizeof(err));
		break;
	case FORMAT_FXT:
		out = output_fxt_new(&cfg, o->lanes ? o->lanes : FXT_LANES_DEFAULT, err, sizeof(err));
		break;
	default:
		break;
	}
	if (!out) {
		fprintf(stderr, "uring-convert: %s\n", err);
		return 1;
	}
	return convert_into(&run, out, stderr);
}
