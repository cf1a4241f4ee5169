// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iou_cnt: the count-only BPF floor of bench/run.  Attaches
 * bench/iou_cnt.bpf.c's programs to the hooks uring-record uses on this
 * kernel (see that file), prints "ready" on stderr, counts until SIGINT or
 * SIGTERM (or until COMMAND exits), and writes one JSON object: the count
 * of every hook summed over the CPUs, and "events", the sum of those
 * uring-record would have written a record for.
 *
 *   iou_cnt [--syscalls=tracepoint|raw|none] [--io-wq=sched_switch|none]
 *           [--clock] [--thread] [-o FILE] [-- COMMAND...]
 *
 * --clock also reads the clock uring-record stamps its records with, once
 * per event: the floor of a recorder that places events in time.  --thread
 * also asks, once per event, which thread it is (bpf_get_current_pid_tgid):
 * both together, the floor of a recorder that says when and where.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iou_cnt.h"
#include "iou_cnt.skel.h"

#define CNT_NAME(slot, name) [slot] = name,
static const char *const slot_names[CNT_SLOTS] = { CNT_SLOT_LIST(CNT_NAME) };
#undef CNT_NAME

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: iou_cnt [--syscalls=tracepoint|raw|none] "
		"[--io-wq=sched_switch|none] [--clock] [--thread] [-o FILE] [-- COMMAND...]\n");
	return 2;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/* tp_btf programs whose tracepoint the kernel lacks are not loaded. */
static void select_programs(struct iou_cnt_bpf *skel, const struct btf *vmlinux,
			    const char *syscalls, bool sched_switch)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool load = false;
		char name[128];

		/* libbpf drops the '?' of SEC("?...") from the name */
		if (*sec == '?')
			sec++;
		if (!strncmp(sec, "tp_btf/", 7)) {
			const char *tp = sec + 7;

			snprintf(name, sizeof(name), "btf_trace_%s", tp);
			load = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
			if (!strcmp(tp, "sys_enter") || !strcmp(tp, "sys_exit"))
				load = load && !strcmp(syscalls, "raw");
			if (!strcmp(tp, "sched_switch"))
				load = load && sched_switch;
		} else if (!strncmp(sec, "tracepoint/syscalls/", 20)) {
			load = !strcmp(syscalls, "tracepoint");
		}
		bpf_program__set_autoload(prog, load);
	}
}

static int write_counts(struct iou_cnt_bpf *skel, const char *path, int ncpus,
			const char *syscalls, bool sched_switch)
{
	int fd = bpf_map__fd(skel->maps.counts);
	unsigned long long total[CNT_SLOTS] = { 0 }, events = 0;
	struct cnt_slot *vals = calloc((size_t)ncpus, sizeof(*vals));
	FILE *f = path ? fopen(path, "we") : stdout;

	if (!vals || !f) {
		fprintf(stderr, "iou_cnt: %s: %s\n", path ? path : "stdout", strerror(errno));
		free(vals);
		return 1;
	}
	for (unsigned slot = 0; slot < CNT_SLOTS; slot++) {
		if (bpf_map_lookup_elem(fd, &slot, vals))
			continue;
		for (int c = 0; c < ncpus; c++)
			total[slot] += vals[c].hits;
		if (slot < CNT_RECORDED_SLOTS)
			events += total[slot];
	}
	fprintf(f, "{\"tool\":\"iou_cnt\",\"syscalls\":\"%s\",\"io_wq\":\"%s\","
		"\"clock\":%s,\"thread\":%s,\"events\":%llu,\"hooks\":{", syscalls,
		sched_switch ? "sched_switch" : "none",
		skel->rodata->read_clock ? "true" : "false",
		skel->rodata->read_thread ? "true" : "false", events);
	for (unsigned slot = 0; slot < CNT_SLOTS; slot++)
		fprintf(f, "%s\"%s\":%llu", slot ? "," : "", slot_names[slot], total[slot]);
	fprintf(f, "}}\n");
	free(vals);
	if (path && fclose(f)) {
		fprintf(stderr, "iou_cnt: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "syscalls", required_argument, NULL, 's' },
		{ "io-wq", required_argument, NULL, 'w' },
		{ "clock", no_argument, NULL, 'c' },
		{ "thread", no_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *syscalls = "tracepoint", *output = NULL;
	bool sched_switch = true, read_clock = false, read_thread = false;
	struct iou_cnt_bpf *skel = NULL;
	struct btf *vmlinux = NULL;
	sigset_t block, old;
	pid_t child = -1;
	int ncpus, opt, ret = 1, status = 0;

	while ((opt = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (strcmp(optarg, "tracepoint") && strcmp(optarg, "raw") &&
			    strcmp(optarg, "none"))
				return usage();
			syscalls = optarg;
			break;
		case 'w':
			if (strcmp(optarg, "sched_switch") && strcmp(optarg, "none"))
				return usage();
			sched_switch = !strcmp(optarg, "sched_switch");
			break;
		case 'c':
			read_clock = true;
			break;
		case 't':
			read_thread = true;
			break;
		case 'o':
			output = optarg;
			break;
		default:
			return usage();
		}
	}
	libbpf_set_print(libbpf_quiet);
	ncpus = libbpf_num_possible_cpus();
	vmlinux = btf__load_vmlinux_btf();
	if (ncpus <= 0 || !vmlinux) {
		fprintf(stderr, "iou_cnt: cannot read the CPU count or the kernel's BTF\n");
		goto cleanup;
	}
	skel = iou_cnt_bpf__open();
	if (!skel) {
		fprintf(stderr, "iou_cnt: cannot open the BPF object: %s\n", strerror(errno));
		goto cleanup;
	}
	skel->rodata->read_clock = read_clock;
	skel->rodata->read_thread = read_thread;
	select_programs(skel, vmlinux, syscalls, sched_switch);
	if (iou_cnt_bpf__load(skel) || iou_cnt_bpf__attach(skel)) {
		fprintf(stderr, "iou_cnt: cannot load or attach: %s\n", strerror(errno));
		goto cleanup;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "iou_cnt: ready\n");
	if (optind < argc) {
		child = fork();
		if (child == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "iou_cnt: %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	} else {
		/* blocked until sigsuspend(): a signal cannot slip in between */
		while (!stop_now)
			sigsuspend(&old);
	}
	ret = write_counts(skel, output, ncpus, syscalls, sched_switch);
	if (!ret && child > 0)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
cleanup:
	iou_cnt_bpf__destroy(skel);
	btf__free(vmlinux);
	return ret;
}
