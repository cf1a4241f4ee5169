// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * uring-replay: run a recording's io_uring requests again, with io_uring's
 * semantics (rings, SQE flags, links, drains, batching, timing), against
 * scratch files or the targets given, and report how faithful it was.
 * Reads the log through the converter's library (plan.c).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "run.h"

const char *argp_program_version = "uring-replay (ringside) " PACKAGE_VERSION;

static const char doc[] =
	"Replay the io_uring requests of a ringside log (recorded by uring-record): "
	"each recorded ring is set up again, each recorded io_uring_enter submits "
	"the same requests (opcode, SQE flags, links, drains, offsets, lengths, "
	"ioprio) at the same time relative to the start, against a scratch file "
	"per recorded file; then it reports the fidelity."
	"\v"
	"Replayed: NOP, READ, WRITE, READV, WRITEV, READ_FIXED, WRITE_FIXED, FSYNC,\n"
	"SYNC_FILE_RANGE, TIMEOUT, LINK_TIMEOUT; on pipes and sockets whose data\n"
	"flow the recording holds whole (format 3.1 logs) also SEND, RECV, SENDMSG,\n"
	"RECVMSG, one-shot POLL_ADD and SHUTDOWN, over a pipe or socketpair of its\n"
	"own: a pipe when its io_uring reads got exactly what its io_uring writes\n"
	"put, a socket when exactly one other socket received what it sent and\n"
	"sent what it received.  Everything else is counted as not replayed, with\n"
	"the reason, and so is a whole link chain with such a member.  Files are\n"
	"named as the log identifies them: NAME-dMAJ.MIN-iINO, pipe-d..-i..,\n"
	"socket-d..-i.., p<PID>-fd<FD>, ring<N>-fixed<I> (--dry-run lists them).\n"
	"Nothing is written outside the scratch directory, the --map targets and\n"
	"its own pipes and sockets; the log holds no data, so writes write zeros.\n"
	"What is still in flight 5 s after the recording's span is cancelled.\n"
	"Each recorded thread's rings are replayed by a thread of its own, from\n"
	"one common start; when a ring was entered by several threads, all rings\n"
	"are replayed by one thread in recorded order.\n"
	"\n"
	"Exit status: 0 replayed, 1 the log or a target could not be used, 2 bad\n"
	"command line.";

static const char args_doc[] = "LOG";

enum { OPT_KEEP = 0x100, OPT_FILLED, OPT_MAP, OPT_FORCE, OPT_SPEED, OPT_NO_STALL,
       OPT_DRY_RUN, OPT_RECORD };

static const struct argp_option argp_options[] = {
	{ "scratch", 'C', "DIR", 0, "scratch files go in DIR (default: a new uring-replay.XXXXXX here)", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "keep the scratch files", 0 },
	{ "filled", OPT_FILLED, NULL, 0, "write the scratch files with zeros first (default sparse)", 0 },
	{ "map", OPT_MAP, "NAME=PATH", 0, "replay file NAME on PATH, an existing file (repeatable)", 0 },
	{ "force", OPT_FORCE, NULL, 0, "allow a block device as a --map PATH (its data is overwritten)", 0 },
	{ "speed", OPT_SPEED, "X", 0, "replay X times as fast (default 1)", 1 },
	{ "no-stall", OPT_NO_STALL, NULL, 0, "submit as fast as possible, ignoring the recorded times", 1 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "list the rings, threads, files and what would not be replayed; run nothing", 2 },
	{ "record", OPT_RECORD, "FILE", 0, "record the replay with uring-record -o FILE (root)", 2 },
	{ "quiet", 'q', NULL, 0, "no warnings on stderr", 2 },
	{ 0 }
};

struct args {
	struct run_options run;
	const char *record;
	bool dry_run;
};

/* One error line (argp_error would add a second, "Try --help"). */
static error_t bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static error_t bad(const char *fmt, ...)
{
	va_list ap;

	fputs("uring-replay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see uring-replay --help)\n", stderr);
	return EINVAL;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct args *a = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->err_stream = NULL;
		break;
	case 'C':
		a->run.scratch = arg;
		break;
	case OPT_KEEP:
		a->run.keep = true;
		break;
	case OPT_FILLED:
		a->run.filled = true;
		break;
	case OPT_MAP: {
		char **m;

		if (!strchr(arg, '=') || *arg == '=' || !strchr(arg, '=')[1])
			return bad("--map %s: give NAME=PATH", arg);
		m = realloc(a->run.maps, (a->run.nmaps + 1) * sizeof(*m));
		if (!m)
			return bad("--map: out of memory");
		a->run.maps = m;
		a->run.maps[a->run.nmaps++] = arg;
		break;
	}
	case OPT_FORCE:
		a->run.force = true;
		break;
	case OPT_SPEED:
		errno = 0;
		a->run.speed = strtod(arg, &end);
		if (errno || *end || !(a->run.speed > 0) || a->run.speed > 1e6)
			return bad("--speed %s: give a factor above 0", arg);
		break;
	case OPT_NO_STALL:
		a->run.no_stall = true;
		break;
	case OPT_DRY_RUN:
		a->dry_run = true;
		break;
	case OPT_RECORD:
		a->record = arg;
		break;
	case 'q':
		a->run.quiet = true;
		break;
	case ARGP_KEY_ARG:
		if (a->run.log)
			return bad("one LOG at a time (got '%s' and '%s')", a->run.log, arg);
		a->run.log = arg;
		break;
	case ARGP_KEY_END:
		if (!a->run.log)
			return bad("no LOG given");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The recorder: $URING_RECORD, the build tree's, or uring-record on PATH. */
static const char *recorder(char *buf, size_t len)
{
	const char *env = getenv("URING_RECORD");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(buf, len, "%s/../recorder/uring-record", self);
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "uring-record";
}

/* --record FILE: run this same command again under uring-record. */
static int exec_recorded(const char *file, int argc, char **argv)
{
	char **nargv = calloc((size_t)argc + 6, sizeof(*nargv)), buf[PATH_MAX + 32];
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t n = 0;

	if (!nargv || len <= 0) {
		fprintf(stderr, "uring-replay: --record: cannot find this program: %s\n",
			strerror(errno));
		free(nargv);
		return 1;
	}
	/* Resolved here: under the recorder, /proc/self/exe is the recorder. */
	self[len] = '\0';
	nargv[n++] = (char *)recorder(buf, sizeof(buf));
	nargv[n++] = "-o";
	nargv[n++] = (char *)file;
	nargv[n++] = "--";
	nargv[n++] = self;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--record")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--record=", 9))
			continue;
		nargv[n++] = argv[i];
	}
	nargv[n] = NULL;
	execvp(nargv[0], nargv);
	fprintf(stderr, "uring-replay: --record: cannot run %s: %s (set URING_RECORD)\n", nargv[0],
		strerror(errno));
	free(nargv);
	return 1;
}

/* Which replay thread replays which rings, standing for which thread. */
static void dry_run_threads(const struct plan *p)
{
	if (p->shared_ring)
		printf("ring %u was entered by threads %u and %u: every ring is replayed on one thread, in recorded order\n",
		       p->shared_ring, p->shared_tid[0], p->shared_tid[1]);
	for (unsigned t = 0; t < p->nthreads; t++) {
		const char *sep = "";

		printf("thread %u", t + 1);
		if (!p->shared_ring && p->thread_tid[t])
			printf(" (recorded thread %u)", p->thread_tid[t]);
		printf(": rings ");
		for (size_t i = 0; i < p->nrings; i++) {
			if (p->rings[i].thread != t)
				continue;
			printf("%s%u", sep, p->rings[i].number);
			sep = ", ";
		}
		printf("\n");
	}
}

static void dry_run(const struct plan *p)
{
	char desc[96];

	for (size_t i = 0; i < p->nrings; i++)
		if (p->rings[i].known)
			printf("ring %u: %s, setup flags 0x%x, %u SQ entries\n", p->rings[i].number,
			       p->rings[i].created ? "created in the recording" : "open before it",
			       p->rings[i].setup_flags, p->rings[i].sq_entries);
	dry_run_threads(p);
	for (size_t i = 0; i < p->ntargets; i++) {
		const struct plan_target *t = &p->targets[i];

		replay_key_describe(&t->key, desc, sizeof(desc));
		if (t->key.kind == RK_FILE)
			printf("file %s: %s, extent %llu bytes\n", t->name, desc,
			       (unsigned long long)t->extent);
		else if (t->used && t->key.kind == RK_PIPE)
			printf("pipe %s: %s\n", t->name, desc);
		else if (t->used && t->peer != UINT32_MAX)
			printf("socket %s: %s, paired with %s\n", t->name, desc,
			       p->targets[t->peer].name);
	}
	printf("%llu requests in %zu submissions would be replayed, %llu not:\n",
	       (unsigned long long)p->replayed, p->nsteps, (unsigned long long)p->skipped);
	for (size_t i = 0; i < p->nskips; i++)
		printf("  %llu %s: %s\n", (unsigned long long)p->skips[i].n,
		       p->opnames[p->skips[i].opcode], p->skips[i].reason);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { argp_options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	struct args a = { .run.speed = 1.0 };
	char scratch[] = "uring-replay.XXXXXX";
	struct plan p;
	int ret;

	setlocale(LC_ALL, "C");
	argp_err_exit_status = 2;
	if (argp_parse(&argp, argc, argv, 0, NULL, &a))
		return 2;
	if (a.record)
		return exec_recorded(a.record, argc, argv);
	if (plan_read(&p, a.run.log, a.run.quiet)) {
		free(a.run.maps);
		return 1;
	}
	if (a.dry_run) {
		dry_run(&p);
		plan_free(&p);
		free(a.run.maps);
		return 0;
	}
	if (!a.run.scratch) {
		if (!mkdtemp(scratch)) {
			fprintf(stderr, "uring-replay: %s: %s\n", scratch, strerror(errno));
			plan_free(&p);
			free(a.run.maps);
			return 1;
		}
		a.run.scratch = scratch;
	}
	ret = targets_open(&p, &a.run);
	if (!ret)
		ret = run_plan(&p, &a.run);
	targets_close(&p, &a.run);
	plan_free(&p);
	free(a.run.maps);
	return ret;
}
