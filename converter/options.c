// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_tables.h"
#include "options.h"
#include "output.h"
#include "timebase.h"

const char *argp_program_version = "uring-convert (ringside) " PACKAGE_VERSION;

static const char doc[] =
	"Convert a ringside log (recorded by uring-record) into a summary, JSON, "
	"CSV, an FXT trace for Perfetto, or fio iologs to replay it.  Runs anywhere: no root, no BPF."
	"\v"
	"Formats:\n"
	"  summary  tables for a person (default when stdout is a terminal), among\n"
	"           them why requests did not complete inline (also the CSV's\n"
	"           path_reason; uring-convert(1), \"Why not inline\"), and how long\n"
	"           CQEs waited in the CQ ring before the application reaped them\n"
	"           (also requests.csv reaped_by_ns, an upper bound), and per ring\n"
	"           io-wq's hashed work and bounded/unbounded workers (format 3.1)\n"
	"  json     the summary for scripts (default otherwise; see uring-convert(1))\n"
	"  csv      one CSV file per table in the directory given with -o DIR:\n"
	"           requests, syscalls, events, losses, loss_counters, tasks, rings,\n"
	"           counters, files (for pandas: every *_ns column is an int64);\n"
	"           requests carry their file (file_path ... file_fs), files has one\n"
	"           row per file (logs of format 3.1 and later)\n"
	"  fxt      Fuchsia trace for ui.perfetto.dev (binary: give -o FILE.fxt):\n"
	"           io_uring_enter/setup/register slices on each thread, request\n"
	"           lifetimes on \"ring N (fd F) lane NN\" tracks under their process,\n"
	"           io-wq work on the iou-wrk threads, arrows from submission to\n"
	"           completion, per-ring counters, lost-event and error markers\n"
	"           (layout: uring-convert(1), FXT OUTPUT); past 512 MiB, more than\n"
	"           the UI may hold in a browser, a warning gives the --end that\n"
	"           keeps it under that size\n"
	"  fio      fio iologs (version 3) and a job file replaying the recorded reads,\n"
	"           writes and fsyncs with ioengine=io_uring, in the directory given\n"
	"           with -o DIR: one iolog per process, or per ring when rings are\n"
	"           chosen with --ring; what fio cannot express is counted on stderr\n"
	"           and in DIR/README.txt (uring-convert(1), FIO OUTPUT)"
	"\n"
	"TIME is relative to the recording start (+1.5s, 2s, 500ms, 750us, 10ns, 2min;\n"
	"a bare number is seconds) or an absolute wall-clock time in ISO 8601\n"
	"(2024-05-01T12:00:00.5Z; UTC when no zone is given).\n"
	"\n"
	"Exit status: 0 converted (warnings about a damaged or cut log go to stderr),\n"
	"1 the log or the output could not be used, 2 bad command line.";

static const char args_doc[] = "LOG";

enum { OPT_START = 0x100, OPT_END, OPT_PID, OPT_RING, OPT_INFO, OPT_FORCE, OPT_LANES, OPT_TABLES,
       OPT_THREADS };

/* csv_table_names[], for people */
#define TABLE_NAMES "requests, syscalls, events, losses, loss_counters, tasks, rings, counters, files"

static const struct argp_option argp_options[] = {
	{ "format", 'f', "FORMAT", 0, "summary, json, csv, fxt or fio (default: summary on a terminal, json otherwise)", 0 },
	{ "output", 'o', "PATH", 0, "output file (summary, json, fxt), or directory (csv, fio); default stdout", 0 },
	{ "force", OPT_FORCE, NULL, 0, "overwrite existing output files", 0 },
	{ "start", OPT_START, "TIME", 0, "only what happened at or after TIME", 1 },
	{ "end", OPT_END, "TIME", 0, "only what happened at or before TIME; the log is read only as far as the requests and syscalls begun by then need (the summary's \"read\" line says where)", 1 },
	{ "pid", OPT_PID, "PID", 0, "only this process (repeatable)", 1 },
	{ "ring", OPT_RING, "N", 0, "only ring number N as numbered in the summary (repeatable); fio: one iolog per ring", 1 },
	{ "lanes", OPT_LANES, "N", 0, "fxt: at most N lane tracks per ring (1-4096, default 64); requests finding all busy are counted and marked, not drawn", 1 },
	{ "tables", OPT_TABLES, "LIST", 0, "csv: write only these tables (comma-separated, repeatable; default all): " TABLE_NAMES, 1 },
	{ "info", OPT_INFO, NULL, 0, "describe the log (metadata, probes, frames per CPU, losses, time span, stop reason) without converting", 2 },
	{ "quiet", 'q', NULL, 0, "no warnings or progress bar on stderr", 2 },
	{ "threads", OPT_THREADS, "N", 0, "1: follow the requests and write the output on one thread, to compare or debug; 2 or more: the output on a thread of its own, and CSV's requests.csv on another; 4 or more: CSV's requests.csv and events.csv each on N/2 threads, up to 8 (default: fxt and csv on the CPUs uring-convert may run on, the others on 1); the output is the same; the threads are named rs-*, as top -H shows", 2 },
	{ 0 }
};

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_time_arg(const char *s, struct time_arg *t)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "min", 60e9 },
		{ "h", 3600e9 }, { "", 1e9 },
	};
	const char *p = s;
	char *end;
	double v;

	memset(t, 0, sizeof(*t));
	t->text = s;
	if (strchr(s, ':')) {
		if (parse_iso_ns(s, &t->real_ns))
			return -1;
		t->set = t->absolute = true;
		return 0;
	}
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p) && *p != '.')
		return -1;
	errno = 0;
	v = strtod(p, &end);
	if (errno || end == p || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			double ns = v * units[i].mult;

			if (ns >= 9.2e18)
				return -1;
			t->rel_ns = (int64_t)(ns + 0.5);
			t->set = true;
			return 0;
		}
	}
	return -1;
}

/* One error line (argp_error would add a second, "Try --help"). */
static error_t bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static error_t bad(const char *fmt, ...)
{
	va_list ap;

	fputs("uring-convert: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see uring-convert --help)\n", stderr);
	return EINVAL;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct options *o = state->input;
	unsigned long long v;

	switch (key) {
	case ARGP_KEY_INIT:
		/* getopt already said what is wrong with an unknown option or a
		 * missing argument, in one line: no second "Try --help" line. */
		state->err_stream = NULL;
		break;
	case 'f':
		if (!strcmp(arg, "summary"))
			o->format = FORMAT_SUMMARY;
		else if (!strcmp(arg, "json"))
			o->format = FORMAT_JSON;
		else if (!strcmp(arg, "csv"))
			o->format = FORMAT_CSV;
		else if (!strcmp(arg, "fxt"))
			o->format = FORMAT_FXT;
		else if (!strcmp(arg, "fio"))
			o->format = FORMAT_FIO;
		else
			return bad("--format: unknown format '%s' (summary, json, csv, fxt or fio)", arg);
		break;
	case 'o':
		if (!*arg)
			return bad("-o: empty path");
		o->output = arg;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	case OPT_START:
	case OPT_END: {
		struct time_arg *t = key == OPT_START ? &o->start : &o->end;

		if (parse_time_arg(arg, t))
			return bad("--%s: '%s' is not a time (use +1.5s, 500ms, or 2024-05-01T12:00:00Z)",
				   key == OPT_START ? "start" : "end", arg);
		break;
	}
	case OPT_PID:
		if (parse_uint(arg, INT32_MAX, &v) || !v)
			return bad("--pid: '%s' is not a process id", arg);
		if (o->npids == OPT_MAX_SELECT)
			return bad("--pid: at most %d", OPT_MAX_SELECT);
		o->pids[o->npids++] = (uint32_t)v;
		break;
	case OPT_RING:
		if (parse_uint(arg, UINT32_MAX, &v) || !v)
			return bad("--ring: '%s' is not a ring number (1, 2, ... as in the summary)", arg);
		if (o->nrings == OPT_MAX_SELECT)
			return bad("--ring: at most %d", OPT_MAX_SELECT);
		o->rings[o->nrings++] = (unsigned)v;
		break;
	case OPT_LANES:
		if (parse_uint(arg, 4096, &v) || !v)
			return bad("--lanes: '%s' is not a number of lanes from 1 to 4096", arg);
		o->lanes = (unsigned)v;
		break;
	case OPT_TABLES: {
		const char *name;
		size_t len;

		if (!csv_tables_parse(arg, &o->csv_tables, &name, &len))
			break;
		if (!len)
			return bad("--tables: empty name in '%s' (" TABLE_NAMES ")", arg);
		return bad("--tables: unknown table '%.*s' (" TABLE_NAMES ")", (int)len, name);
	}
	case OPT_THREADS:
		if (parse_uint(arg, 1024, &v) || !v)
			return bad("--threads: '%s' is not a number of threads from 1 to 1024", arg);
		o->threads = (unsigned)v;
		break;
	case OPT_INFO:
		o->info = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (o->log_path)
			return bad("one LOG at a time (got '%s' and '%s')", o->log_path, arg);
		o->log_path = arg;
		break;
	case ARGP_KEY_END:
		if (!o->log_path)
			return bad("no LOG given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, bool *exit_now)
{
	static const struct argp argp = { argp_options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	int idx;

	memset(o, 0, sizeof(*o));
	*exit_now = false;
	/* argp_error() exits with argp_err_exit_status (64 by default). */
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, &idx, o)) {
		*exit_now = true;
		return 2;
	}
	if (o->csv_tables && o->format != FORMAT_CSV) {
		fprintf(stderr, "uring-convert: --tables needs --format=csv\n");
		*exit_now = true;
		return 2;
	}
	if (o->start.set && o->end.set && o->start.absolute == o->end.absolute &&
	    (o->start.absolute ? o->start.real_ns > o->end.real_ns : o->start.rel_ns > o->end.rel_ns)) {
		fprintf(stderr, "uring-convert: --start %s is after --end %s\n", o->start.text,
			o->end.text);
		*exit_now = true;
		return 2;
	}
	return 0;
}
