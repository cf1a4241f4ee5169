// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Fuzz target: the whole conversion (merge, model, one output format). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "csv_tables.h"
#include "fuzz_input.h"
#include "fxt_layout.h"
#include "fxt_reader.h"
#include "fuzz_targets.h"
#include "json.h"
#include "output.h"

static char outdir[256];

static void remove_outputs(void)
{
	static const char *const names[] = { "out", "csv", "trace.fxt" };
	char p[320];

	snprintf(p, sizeof(p), "%s/csv", outdir);
	for (int i = 0; i < CSV_NTABLES; i++) {
		char *t = csv_table_path(p, i);

		if (t)
			remove(t);
		free(t);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", outdir, names[i]);
		remove(p);
	}
	rmdir(outdir);
}

const char *fuzz_output_dir(void)
{
	const char *base;

	if (outdir[0])
		return outdir;
	/* tmpfs when there is one: the targets write every output. */
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(outdir, sizeof(outdir), "%s/ringside-fuzz-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(outdir))
		fuzz_fail("cannot create %s", outdir);
	atexit(remove_outputs);
	return outdir;
}

/* The option byte of a packed input: a selection for the conversion. */
static void apply_options(struct options *o, uint8_t bits)
{
	static const char *const starts[] = { NULL, "1ms", "+0.5s", "2023-11-14T22:13:20Z" };
	static const char *const ends[] = { NULL, "2ms", "10s", "2030-01-01T00:00:00Z" };
	static const uint32_t pids[] = { 0, 1, 100, 1000 };

	if (starts[bits & 3] && !parse_time_arg(starts[bits & 3], &o->start))
		o->start.set = true;
	if (ends[(bits >> 2) & 3] && !parse_time_arg(ends[(bits >> 2) & 3], &o->end))
		o->end.set = true;
	if ((bits >> 4) & 3)
		o->pids[o->npids++] = pids[(bits >> 4) & 3];
	switch (bits >> 6) {
	case 1:
		o->rings[o->nrings++] = 1;
		break;
	case 2:
		o->rings[o->nrings++] = 2;
		break;
	case 3:
		o->rings[o->nrings++] = 1;
		o->rings[o->nrings++] = 2;
		break;
	}
}

/*
 * stderr: every line "uring-convert: ..."; besides warnings, a failure
 * prints exactly one line and a success none.
 */
static void check_stderr(const char *text, size_t len, int ret)
{
	static const char prefix[] = "uring-convert: ";
	static const char warning[] = "uring-convert: warning: ";
	size_t lines = 0;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		if (!nl)
			fuzz_fail("stderr does not end with a newline: %s", text + i);
		if (end - i < sizeof(prefix) - 1 || memcmp(text + i, prefix, sizeof(prefix) - 1))
			fuzz_fail("stderr line without the program name: %.*s", (int)(end - i),
				  text + i);
		for (size_t k = i; k < end; k++)
			if ((unsigned char)text[k] < 0x20 || text[k] == 0x7f)
				fuzz_fail("control character 0x%02x in stderr line: %.*s",
					  (unsigned char)text[k], (int)(end - i), text + i);
		if (end - i < sizeof(warning) - 1 || memcmp(text + i, warning, sizeof(warning) - 1))
			lines++;
		i = end + 1;
	}
	/* The converter's own invariants never break, whatever the log. */
	if (len && memmem(text, len, "internal error", 14))
		fuzz_fail("conversion hit an internal error:\n%.*s", (int)len, text);
	/* Fuzz inputs are small: running out of memory on one means an
	 * allocation sized by the file, not by what it holds. */
	if (len && memmem(text, len, "out of memory", 13))
		fuzz_fail("conversion ran out of memory on a small input:\n%.*s", (int)len, text);
	if (lines != (ret ? 1u : 0u))
		fuzz_fail("%s conversion printed %zu error lines, want %u:\n%.*s",
			  ret ? "failed" : "successful", lines, ret ? 1u : 0u, (int)len, text);
}

static void check_json(const char *path)
{
	struct json_doc doc;
	char err[256];
	size_t len;
	unsigned char *text = fuzz_slurp(path, &len);

	if (!text)
		fuzz_fail("%s: cannot read the output", path);
	if (json_parse((const char *)text, len, &doc, err, sizeof(err)))
		fuzz_fail("%s: output is not valid JSON: %s", path, err);
	if (doc.root.type != JSON_OBJECT)
		fuzz_fail("%s: output is not a JSON object", path);
	json_doc_free(&doc);
	free(text);
}

static void check_text(const char *path)
{
	size_t len;
	unsigned char *text = fuzz_slurp(path, &len);

	if (!text)
		fuzz_fail("%s: cannot read the output", path);
	for (size_t i = 0; i < len; i++)
		if ((text[i] < 0x20 && text[i] != '\n') || text[i] == 0x7f)
			fuzz_fail("%s: control character 0x%02x at byte %zu", path, text[i], i);
	free(text);
}

/*
 * FXT: well-formed for an independent reader (tests/fxt_reader), and none
 * of the issues that mean the converter, not the log, is wrong: strings
 * that are not UTF-8, slices that do not nest on a lane, flows or async
 * tracks that do not pair up.  (A hostile log may still give odd times.)
 */
static void check_fxt(const char *path)
{
	static const enum fxtr_issue_kind never[] = {
		FXTR_ISSUE_BAD_UTF8, FXTR_ISSUE_MISPLACED_END, FXTR_ISSUE_UNMATCHED_END,
		FXTR_ISSUE_ASYNC_UNMATCHED_END, FXTR_ISSUE_ASYNC_NAME_MISMATCH,
		FXTR_ISSUE_FLOW_NO_ENCLOSING, FXTR_ISSUE_FLOW_DUPLICATE,
	};
	struct fxtr_model *m;
	char err[256];

	if (fxtr_read_file(path, &m, err, sizeof(err)))
		fuzz_fail("FXT output is malformed: %s", err);
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (fxtr_issue_count(m, never[i])) {
			fxtr_print_issues(m, stderr);
			fuzz_fail("FXT output: %zu issues of kind %s", fxtr_issue_count(m, never[i]),
				  fxtr_issue_name(never[i]));
		}
	fxtr_free(m);
}

/* RFC 4180: CRLF rows, every one with as many fields as the header. */
static void check_csv(const char *path)
{
	size_t len, header = 0, fields = 1, row = 0;
	unsigned char *t = fuzz_slurp(path, &len);
	bool quoted = false, at_start = true;

	if (!t)
		fuzz_fail("%s: missing after a successful conversion", path);
	if (len < 2 || t[len - 2] != '\r' || t[len - 1] != '\n')
		fuzz_fail("%s: does not end with CRLF", path);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = t[i];

		if (!c)
			fuzz_fail("%s: NUL byte at %zu", path, i);
		if (quoted) {
			if (c == '"') {
				if (i + 1 < len && t[i + 1] == '"')
					i++;
				else
					quoted = false;
			}
			continue;
		}
		if (c == '"') {
			if (!at_start)
				fuzz_fail("%s: row %zu: quote inside an unquoted field at %zu", path,
					  row, i);
			quoted = true;
			at_start = false;
		} else if (c == ',') {
			fields++;
			at_start = true;
		} else if (c == '\r' && i + 1 < len && t[i + 1] == '\n') {
			i++;
			if (row == 0)
				header = fields;
			else if (fields != header)
				fuzz_fail("%s: row %zu has %zu fields, the header %zu", path, row,
					  fields, header);
			row++;
			fields = 1;
			at_start = true;
		} else {
			/* Other control characters are data (a task may name
			 * itself anything); a lone CR or LF would end the row. */
			if (c == '\r' || c == '\n')
				fuzz_fail("%s: row %zu: unquoted line break at %zu", path, row, i);
			at_start = false;
		}
	}
	if (quoted)
		fuzz_fail("%s: ends inside a quoted field", path);
	free(t);
}

int fuzz_convert_one(const uint8_t *data, size_t size, enum out_format format)
{
	struct fuzz_log l;
	struct options o;
	struct output_config cfg = { .force = true, .quiet = true };
	struct output *out = NULL;
	char logpath[64], outpath[320], err[LOG_MSG_LEN];
	char *errtext = NULL;
	size_t errlen = 0;
	FILE *errf;
	int fd, ret;

	if (fuzz_make_log(data, size, &l))
		return 0;
	fd = fuzz_memfd("fuzz.log", l.bytes, l.len, logpath, sizeof(logpath));
	if (fd < 0)
		fuzz_fail("memfd: cannot create the log file");
	memset(&o, 0, sizeof(o));
	o.log_path = logpath;
	o.format = format;
	o.force = true;
	apply_options(&o, l.options);
	/* The model and the output on one thread or on two, from the size. */
	o.threads = size & 4 ? 2 : 1;
	snprintf(outpath, sizeof(outpath), "%s/%s", fuzz_output_dir(),
		 format == FORMAT_CSV ? "csv" : format == FORMAT_FXT ? "trace.fxt" : "out");
	cfg.path = outpath;
	switch (format) {
	case FORMAT_SUMMARY:
		out = output_summary_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_JSON:
		out = output_json_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_CSV:
		/* --tables from the size too: some tables, or all (0) */
		cfg.csv_tables = (size >> 1) & CSV_ALL_TABLES;
		out = output_csv_new(&cfg, err, sizeof(err));
		break;
	case FORMAT_FXT:
		/* Few lanes on odd sizes: the lane allocator runs out too. */
		out = output_fxt_new(&cfg, size & 1 ? 2 : FXT_LANES_DEFAULT, err, sizeof(err));
		break;
	default:
		fuzz_fail("format %d has no fuzz target", (int)format);
	}
	if (!out)
		fuzz_fail("cannot create the output: %s", err);
	errf = open_memstream(&errtext, &errlen);
	if (!errf)
		fuzz_fail("open_memstream failed");
	ret = convert_into(&o, out, errf);
	fclose(errf);
	if (ret != 0 && ret != 1)
		fuzz_fail("convert_into returned %d", ret);
	check_stderr(errtext, errlen, ret);
	if (!ret) {
		switch (format) {
		case FORMAT_SUMMARY:
			check_text(outpath);
			break;
		case FORMAT_JSON:
			check_json(outpath);
			break;
		case FORMAT_FXT:
			check_fxt(outpath);
			break;
		case FORMAT_CSV:
			for (int i = 0; i < CSV_NTABLES; i++) {
				char *p;

				if (cfg.csv_tables && !(cfg.csv_tables & (1u << i)))
					continue;
				p = csv_table_path(outpath, i);
				if (!p)
					fuzz_fail("out of memory");
				check_csv(p);
				free(p);
			}
			break;
		default:
			break;
		}
	}
	free(errtext);
	close(fd);
	fuzz_log_free(&l);
	return 0;
}
