// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "env.h"
#include "log_writer.h"
#include "msg.h"

#define VERSION_TEXT "uring-record (ringside) " PACKAGE_VERSION

static const char doc[] =
"Record what io_uring does on this host into a log for uring-convert(1).\n"
"\n"
"uring-record attaches BPF programs to the io_uring tracepoints, the\n"
"io_uring syscalls and the task lifecycle, and copies their raw events from\n"
"per-CPU ring buffers into a compressed log (uring-log(5)), with exact\n"
"counts of anything it could not keep.  It needs CAP_BPF and CAP_PERFMON\n"
"(or root) and stops on SIGINT, SIGTERM or SIGHUP, when --duration or\n"
"--max-size is reached, when COMMAND exits, or when every process selected\n"
"with -p (and with --follow, its descendants) has exited.  Then it waits\n"
"up to 2 s for the kernel to tear down their rings, to record the CQEs\n"
"that posts, and for processes COMMAND started to end.\n"
"\n"
"With --flight-recorder it keeps only the last SIZE of events in memory and\n"
"writes them to FILE (a complete log) when a trigger fires, --post after it.\n"
"\n"
"Without a selection, every process on the host is recorded.  With\n"
"-- COMMAND, uring-record runs COMMAND as the invoking user (SUDO_UID) and\n"
"records it and its descendants.  All selections given must match; several\n"
"-p and COMMAND are alternatives.\n"
"\v"
"SIZE takes K, M, G, T suffixes (powers of 1024); TIME takes ns, us, ms, s,\n"
"m, h (a bare number is seconds).\n"
"\n"
"Examples:\n"
"  sudo uring-record -- ./my-server --port 8080\n"
"  sudo uring-record -p 1234 -d 30s -o db.log\n"
"  sudo uring-record --comm postgres -s 2G --ring-size 32M\n"
"  sudo uring-record --flight-recorder=256M --trigger='latency>500ms:READ'\n"
"  uring-convert --format=summary uring.log\n"
"\n"
"Exit status: that of COMMAND when one was run and recorded to its end;\n"
"otherwise 0 after a clean stop, 1 on error, 2 on bad usage, 126 or 127\n"
"when COMMAND cannot be run.  Lost events do not change the exit status,\n"
"but are always reported.\n"
"\n"
"See uring-record(8) for details.";

static const char args_doc[] = "[-- COMMAND [ARG...]]";

enum {
	OPT_RING_SIZE = 1000,
	OPT_DRAIN,
	OPT_FLUSH,
	OPT_QUEUE,
	OPT_ZSTD,
	OPT_IO_WQ,
	OPT_SYSCALLS,
	OPT_RAW_POINTERS,
	OPT_RUN_AS_ROOT,
	OPT_KEEP_RECORDING,
	OPT_NO_SELF_COST,
	OPT_USAGE,
	OPT_FLIGHT,
	OPT_POST,
	OPT_SNAPSHOTS,
	OPT_TRIGGER,
	OPT_SAMPLE,
	OPT_SAMPLE_SYSCALLS,
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Output:", 1 },
	{ "output", 'o', "FILE", 0, "Write the log to FILE (default: " ENV_DEFAULT_OUTPUT ")", 1 },
	{ "force", 'f', NULL, 0, "Overwrite FILE if it exists", 1 },

	{ NULL, 0, NULL, 0, "Selection (default: every process):", 2 },
	{ "pid", 'p', "PID", 0, "Record process PID, its threads, io-wq workers and SQPOLL "
	  "threads (repeatable)", 2 },
	{ "follow", 'F', NULL, 0, "Also record processes forked by selected ones "
	  "(implied by COMMAND)", 2 },
	{ "comm", 'c', "NAME", 0, "Record processes whose main thread is named NAME", 2 },
	{ "cgroup", 'G', "PATH", 0, "Record tasks in cgroup v2 directory PATH and below", 2 },
	{ "run-as-root", OPT_RUN_AS_ROOT, NULL, 0, "Run COMMAND as root even when started "
	  "through sudo", 2 },

	{ NULL, 0, NULL, 0, "Stopping:", 3 },
	{ "duration", 'd', "TIME", 0, "Stop after TIME", 3 },
	{ "max-size", 's', "SIZE", 0, "Stop when the log reaches SIZE", 3 },
	{ "keep-recording", OPT_KEEP_RECORDING, NULL, 0, "With -p: record on after every "
	  "selected process has exited, until stopped", 3 },

	{ NULL, 0, NULL, 0, "Flight recorder:", 3 },
	{ "flight-recorder", OPT_FLIGHT, "SIZE", OPTION_ARG_OPTIONAL, "Record continuously but "
	  "keep only the last SIZE of compressed events in memory (default: 64M); write them "
	  "to FILE when a trigger fires", 3 },
	{ "trigger", OPT_TRIGGER, "SPEC", 0, "When to write a snapshot (repeatable): signal "
	  "(SIGUSR1, always on), errno=NAME[:OPCODE], cq-overflow, latency>TIME[:OPCODE], "
	  "io-wq-workers>N", 3 },
	{ "post", OPT_POST, "TIME", 0, "Keep recording this long after a trigger before "
	  "writing the snapshot (default: 1s)", 3 },
	{ "snapshots", OPT_SNAPSHOTS, "N", 0, "Write up to N snapshots, FILE.1 to FILE.N, then "
	  "stop (default: 1, to FILE)", 3 },

	{ NULL, 0, NULL, 0, "Tuning:", 4 },
	{ "ring-size", OPT_RING_SIZE, "SIZE", 0, "BPF ring buffer per CPU, a power of two "
	  "(default: 128M shared by the online CPUs, 4M to 32M each)", 4 },
	{ "drain-interval", OPT_DRAIN, "TIME", 0, "Empty the ring buffers this often "
	  "(default: 50ms, or the flush interval if shorter)", 4 },
	{ "flush-interval", OPT_FLUSH, "TIME", 0, "Write buffered events at least this "
	  "often, at most 1s (default: 1s)", 4 },
	{ "queue-size", OPT_QUEUE, "SIZE", 0, "Memory for events waiting to be compressed "
	  "and written by the rs-log-writer thread (default: 64M)", 4 },
	{ "zstd-level", OPT_ZSTD, "N", 0, "zstd compression level; negative is faster "
	  "(default: 1)", 4 },
	{ "io-wq", OPT_IO_WQ, "MODE", 0, "How io-wq work is tracked: auto, fentry, kprobe, "
	  "sched_switch or none (default: auto, the first that works)", 4 },
	{ "syscalls", OPT_SYSCALLS, "MODE", 0, "How io_uring syscalls are hooked: auto, "
	  "fentry, tracepoint, raw or none (default: auto)", 4 },
	{ "raw-pointers", OPT_RAW_POINTERS, NULL, 0, "Keep kernel addresses in the log "
	  "instead of opaque identifiers", 4 },
	{ "no-self-cost", OPT_NO_SELF_COST, NULL, 0, "Do not measure the BPF programs' "
	  "run time (the tracing cost in the log; measured for the first 2 s, then 10 % of "
	  "the time, at two clock reads per event)", 4 },

	{ NULL, 0, NULL, 0, "Sampling (default: every request):", 6 },
	{ "sample", OPT_SAMPLE, "N", 0, "Record 1 request in N, chosen at random at "
	  "submission, with all its events and its whole link", 6 },
	{ "sample-syscalls", OPT_SAMPLE_SYSCALLS, NULL, 0, "With --sample: record 1 "
	  "io_uring_enter call in N too (default: every syscall)", 6 },

	{ NULL, 0, NULL, 0, "Messages:", 5 },
	{ "quiet", 'q', NULL, 0, "No status line, warnings or summary (losses are still "
	  "reported)", 5 },
	{ "verbose", 'v', NULL, 0, "More messages; twice: libbpf's debug output", 5 },
	{ "help", '?', NULL, 0, "Give this help list", -1 },
	{ "usage", OPT_USAGE, NULL, 0, "Give a short usage message", -1 },
	{ "version", 'V', NULL, 0, "Print the program version", -1 },
	{ NULL, 0, NULL, 0, NULL, 0 },
};

static int bad(const char *opt, const char *arg, const char *why)
{
	msg_error("%s %s: %s", opt, arg, why);
	return EINVAL;
}

static int size_opt(const char *opt, const char *arg, uint64_t *out)
{
	char err[128];

	if (parse_size(arg, out, err, sizeof(err)))
		return bad(opt, arg, err);
	return 0;
}

static int duration_opt(const char *opt, const char *arg, uint64_t *out)
{
	char err[128];

	if (parse_duration(arg, out, err, sizeof(err)))
		return bad(opt, arg, err);
	return 0;
}

static int add_pid(struct env *env, const char *arg)
{
	char *end;
	long v;
	pid_t *pids;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT_MAX)
		return bad("--pid", arg, "not a process id");
	if (env->npids >= ENV_MAX_PIDS)
		return bad("--pid", arg, "too many -p options");
	pids = realloc(env->pids, (env->npids + 1) * sizeof(*pids));
	if (!pids)
		return ENOMEM;
	env->pids = pids;
	env->pids[env->npids++] = (pid_t)v;
	return 0;
}

static int parse_mode(const char *opt, const char *arg, const char *const *names,
		      int count, int *out)
{
	for (int i = 0; i < count; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	}
	return bad(opt, arg, "unknown mode (see --help)");
}

static const char *const io_wq_names[] = {
	[IO_WQ_AUTO] = "auto", [IO_WQ_FENTRY] = "fentry", [IO_WQ_KPROBE] = "kprobe",
	[IO_WQ_SCHED_SWITCH] = "sched_switch", [IO_WQ_NONE] = "none",
};

static const char *const syscall_names[] = {
	[SYSCALLS_AUTO] = "auto", [SYSCALLS_FENTRY] = "fentry",
	[SYSCALLS_TRACEPOINT] = "tracepoint", [SYSCALLS_RAW] = "raw",
	[SYSCALLS_NONE] = "none",
};

uint64_t env_default_ring_size(unsigned online_cpus)
{
	uint64_t share = ENV_RING_BUDGET / (online_cpus ? online_cpus : 1);
	uint64_t size = ENV_RING_MAX_DEFAULT;

	while (size > ENV_RING_MIN_DEFAULT && size > share)
		size >>= 1;
	return size;
}

const char *io_wq_mode_name(enum io_wq_mode mode)
{
	return (unsigned)mode < sizeof(io_wq_names) / sizeof(io_wq_names[0]) ?
	       io_wq_names[mode] : "?";
}

const char *syscall_mode_name(enum syscall_mode mode)
{
	return (unsigned)mode < sizeof(syscall_names) / sizeof(syscall_names[0]) ?
	       syscall_names[mode] : "?";
}

/* --flight-recorder's companions; signal is always a trigger. */
static int check_flight(struct env *env)
{
	bool have_signal = false;

	if (!env->flight_size) {
		if (env->ntriggers || env->post_ns != ENV_DEFAULT_POST_NS || env->snapshots) {
			msg_error("--trigger, --post and --snapshots need --flight-recorder");
			return EINVAL;
		}
		return 0;
	}
	if (env->max_size) {
		msg_error("--max-size: a flight recorder keeps --flight-recorder=SIZE in memory "
			  "and writes snapshots of it; give one or the other");
		return EINVAL;
	}
	if (!env->snapshots)
		env->snapshots = 1;
	for (size_t i = 0; i < env->ntriggers; i++)
		have_signal |= env->triggers[i].kind == TRIG_SIGNAL;
	if (!have_signal) {
		char err[128];

		if (env->ntriggers == ENV_MAX_TRIGGERS)
			return bad("--trigger", "signal", "too many triggers");
		trigger_parse("signal", &env->triggers[env->ntriggers++], err, sizeof(err));
	}
	return 0;
}

static int flight_opt(struct env *env, int key, const char *arg)
{
	char err[160], *end;
	unsigned long v;

	switch (key) {
	case OPT_FLIGHT:
		env->flight_size = ENV_DEFAULT_FLIGHT_SIZE;
		if (arg && size_opt("--flight-recorder", arg, &env->flight_size))
			return EINVAL;
		if (env->flight_size < ENV_MIN_FLIGHT_SIZE)
			return bad("--flight-recorder", arg, "must be at least 1M");
		return 0;
	case OPT_POST:
		return duration_opt("--post", arg, &env->post_ns);
	case OPT_SNAPSHOTS:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !v || v > ENV_MAX_SNAPSHOTS)
			return bad("--snapshots", arg, "must be from 1 to 1000000");
		env->snapshots = (unsigned)v;
		return 0;
	default:
		if (env->ntriggers == ENV_MAX_TRIGGERS)
			return bad("--trigger", arg, "too many triggers (at most 16)");
		if (trigger_parse(arg, &env->triggers[env->ntriggers], err, sizeof(err)))
			return bad("--trigger", arg, err);
		env->ntriggers++;
		return 0;
	}
}

/* Checks that need all options. */
static int check_env(struct env *env)
{
	char buf[32];

	if (env->ring_size && (env->ring_size < 4096 || (env->ring_size & (env->ring_size - 1)) ||
			       env->ring_size > (1ull << 30))) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)env->ring_size);
		return bad("--ring-size", buf,
			   "must be a power of two from 4K to 1G (e.g. 4M, 8M, 16M)");
	}
	/* a flush interval shorter than the default drain takes it along */
	if (!env->drain_given && env->flush_ns < env->drain_ns)
		env->drain_ns = env->flush_ns > ENV_MIN_DRAIN_NS ? env->flush_ns : ENV_MIN_DRAIN_NS;
	if (env->drain_ns < ENV_MIN_DRAIN_NS || env->drain_ns > ENV_MAX_DRAIN_NS) {
		snprintf(buf, sizeof(buf), "%lluns", (unsigned long long)env->drain_ns);
		return bad("--drain-interval", buf, "must be from 100us to 1s");
	}
	if (env->flush_ns < env->drain_ns || env->flush_ns > ENV_MAX_FLUSH_NS) {
		snprintf(buf, sizeof(buf), "%lluns", (unsigned long long)env->flush_ns);
		return bad("--flush-interval", buf,
			   "must be from the drain interval to 1s (a killed recorder "
			   "loses at most one flush interval)");
	}
	if (env->queue_size < 2 * env->frame_size) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)env->queue_size);
		return bad("--queue-size", buf, "must be at least 2M");
	}
	if (env->follow && !env->npids && !env->command) {
		msg_error("--follow: nothing to follow; give -p PID or a COMMAND");
		return EINVAL;
	}
	if (env->keep_recording && !env->npids) {
		msg_error("--keep-recording: give -p PID (a COMMAND's recording ends with it)");
		return EINVAL;
	}
	if (env->run_as_root && !env->command) {
		msg_error("--run-as-root: there is no COMMAND to run");
		return EINVAL;
	}
	if (env->sample_syscalls && env->sample <= 1) {
		msg_error("--sample-syscalls: give --sample=N with N of 2 or more");
		return EINVAL;
	}
	if (env->command)
		env->follow = true;
	return check_flight(env);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct env *env = state->input;
	long v;
	char *end;
	int mode;

	switch (key) {
	case 'o':
		if (!*arg)
			return bad("--output", "''", "empty file name");
		env->output = arg;
		return 0;
	case 'f':
		env->force = true;
		return 0;
	case 'p':
		return add_pid(env, arg);
	case 'F':
		env->follow = true;
		return 0;
	case OPT_KEEP_RECORDING:
		env->keep_recording = true;
		return 0;
	case 'c':
		if (!*arg || strlen(arg) >= EV_COMM_LEN)
			return bad("--comm", arg, "must be 1 to 15 characters (a task name)");
		memset(env->comm, 0, sizeof(env->comm));
		memcpy(env->comm, arg, strlen(arg));
		env->have_comm = true;
		return 0;
	case 'G':
		if (!*arg)
			return bad("--cgroup", "''", "empty path");
		env->cgroup = arg;
		return 0;
	case 'd':
		if (duration_opt("--duration", arg, &env->duration_ns))
			return EINVAL;
		if (!env->duration_ns)
			return bad("--duration", arg, "must be more than 0");
		return 0;
	case 's':
		if (size_opt("--max-size", arg, &env->max_size))
			return EINVAL;
		if (env->max_size < (1u << 20))
			return bad("--max-size", arg, "must be at least 1M");
		return 0;
	case OPT_RING_SIZE:
		return size_opt("--ring-size", arg, &env->ring_size);
	case OPT_DRAIN:
		env->drain_given = true;
		return duration_opt("--drain-interval", arg, &env->drain_ns);
	case OPT_FLUSH:
		return duration_opt("--flush-interval", arg, &env->flush_ns);
	case OPT_QUEUE:
		return size_opt("--queue-size", arg, &env->queue_size);
	case OPT_ZSTD:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v == 0 || v < ZSTD_minCLevel() ||
		    v > ZSTD_maxCLevel()) {
			char why[96];

			snprintf(why, sizeof(why), "not a zstd level (%d..-1 or 1..%d)",
				 ZSTD_minCLevel(), ZSTD_maxCLevel());
			return bad("--zstd-level", arg, why);
		}
		env->zstd_level = (int)v;
		return 0;
	case OPT_IO_WQ:
		if (parse_mode("--io-wq", arg, io_wq_names, 5, &mode))
			return EINVAL;
		env->io_wq = mode;
		return 0;
	case OPT_SYSCALLS:
		if (parse_mode("--syscalls", arg, syscall_names, 5, &mode))
			return EINVAL;
		env->syscalls = mode;
		return 0;
	case OPT_RAW_POINTERS:
		env->raw_pointers = true;
		return 0;
	case OPT_NO_SELF_COST:
		env->no_self_cost = true;
		return 0;
	case OPT_RUN_AS_ROOT:
		env->run_as_root = true;
		return 0;
	case OPT_FLIGHT:
	case OPT_POST:
	case OPT_SNAPSHOTS:
	case OPT_TRIGGER:
		return flight_opt(env, key, arg);
	case OPT_SAMPLE:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 1 || v > ENV_MAX_SAMPLE)
			return bad("--sample", arg, "must be a whole number from 1 to 1048576");
		env->sample = (uint32_t)v;
		return 0;
	case OPT_SAMPLE_SYSCALLS:
		env->sample_syscalls = true;
		return 0;
	case 'q':
		env->verbosity = -1;
		return 0;
	case 'v':
		if (env->verbosity >= 0)
			env->verbosity++;
		return 0;
	case '?':
	case OPT_USAGE:
		argp_state_help(state, stdout, key == '?' ? ARGP_HELP_STD_HELP : ARGP_HELP_USAGE);
		env->exit_now = true;
		state->next = state->argc;
		return 0;
	case 'V':
		puts(VERSION_TEXT);
		env->exit_now = true;
		state->next = state->argc;
		return 0;
	case ARGP_KEY_INIT:
		/* getopt already said what is wrong with an unknown option or a
		 * missing argument, in one line: no second "Try --help" line. */
		state->err_stream = NULL;
		return 0;
	case ARGP_KEY_ARG:
		/* The first non-option starts COMMAND: everything after it is its. */
		env->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		return env->exit_now ? 0 : check_env(env);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int env_parse(struct env *env, int argc, char **argv)
{
	static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };
	int ret;

	memset(env, 0, sizeof(*env));
	env->output = ENV_DEFAULT_OUTPUT;
	env->drain_ns = ENV_DEFAULT_DRAIN_NS;
	env->flush_ns = ENV_DEFAULT_FLUSH_NS;
	env->queue_size = ENV_DEFAULT_QUEUE_SIZE;
	env->frame_size = ENV_DEFAULT_FRAME_SIZE;
	env->zstd_level = LOG_DEFAULT_ZSTD_LEVEL;
	env->post_ns = ENV_DEFAULT_POST_NS;
	env->argc = argc;
	env->argv = argv;

	/*
	 * ARGP_NO_EXIT so that a library caller (the unit tests) keeps control;
	 * hence our own --help, --usage and --version, which end the parse.
	 */
	ret = argp_parse(&argp, argc, argv, ARGP_IN_ORDER | ARGP_NO_EXIT | ARGP_NO_HELP,
			 NULL, env);
	if (ret)
		return -1;
	return env->exit_now ? 1 : 0;
}

void env_free(struct env *env)
{
	free(env->pids);
	env->pids = NULL;
	env->npids = 0;
}

/* Parse "123" or "1.5" into an integer and a fraction in 10^-9 units. */
static int parse_decimal(const char **sp, uint64_t *whole, uint64_t *frac_e9)
{
	const char *s = *sp;
	uint64_t w = 0, f = 0, scale = 100000000;
	bool digits = false;

	while (*s >= '0' && *s <= '9') {
		if (w > (UINT64_MAX - 9) / 10)
			return -1;
		w = w * 10 + (uint64_t)(*s++ - '0');
		digits = true;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			f += (uint64_t)(*s++ - '0') * scale;
			scale /= 10;
			digits = true;
		}
	}
	if (!digits)
		return -1;
	*sp = s;
	*whole = w;
	*frac_e9 = f;
	return 0;
}

/* whole.frac * unit, exactly, refusing overflow */
static int scale_value(uint64_t whole, uint64_t frac_e9, uint64_t unit, uint64_t *out)
{
	__uint128_t v = (__uint128_t)whole * unit + ((__uint128_t)frac_e9 * unit) / 1000000000u;

	if (v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

int parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	static const char units[] = "KMGT";
	uint64_t whole, frac, unit = 1;
	const char *p = s, *u;

	if (!s || parse_decimal(&p, &whole, &frac)) {
		snprintf(err, errlen, "not a size (e.g. 512K, 8M, 1G)");
		return -1;
	}
	if (*p && (u = strchr(units, *p >= 'a' ? *p - 32 : *p)) != NULL) {
		unit = 1ull << (10 * (u - units + 1));
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
	} else if (!strcmp(p, "B")) {
		p++;
	}
	if (*p) {
		snprintf(err, errlen, "unknown unit '%s' (use K, M, G or T)", p);
		return -1;
	}
	if (scale_value(whole, frac, unit, out)) {
		snprintf(err, errlen, "too large");
		return -1;
	}
	return 0;
}

int parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull }, { "h", 3600000000000ull },
		{ "", 1000000000ull },
	};
	uint64_t whole, frac;
	const char *p = s;

	if (!s || parse_decimal(&p, &whole, &frac)) {
		snprintf(err, errlen, "not a duration (e.g. 500ms, 30s, 5m)");
		return -1;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		if (scale_value(whole, frac, units[i].ns, ns)) {
			snprintf(err, errlen, "too long");
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown unit '%s' (use ns, us, ms, s, m or h)", p);
	return -1;
}
