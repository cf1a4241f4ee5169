// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tree_cnt: the independent count of make check-liburing.  Attaches
 * tests/liburing/tree_cnt.bpf.c, runs COMMAND (uring-record recording a
 * liburing test), counts the io_uring events of every process forked below
 * COMMAND and of the rings they created, and writes one JSON object:
 *
 *   {"enters": N, "submit_req": N, "req_failed": N, "complete": N,
 *    "cqe_overflow": N, "rings": [[submissions, cqes], ...],
 *    "creators": [[tgid, "comm"], ...], "rings_created": N, "unowned": N}
 *
 * rings are in creation order; "unowned" counts events of the tree's tasks
 * on rings it did not create (none expected).  After COMMAND exits it
 * keeps counting until nothing has been counted for --settle: a ring's
 * teardown posts CQEs from a kworker after its last process is gone.
 *
 *   tree_cnt [-o FILE] [--settle=MS] -- COMMAND...
 *
 * Exit status: COMMAND's, or 1 when counting failed.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tree_cnt.h"
#include "tree_cnt.skel.h"

#define TC_NAME(slot, name) [slot] = name,
static const char *const slot_names[TC_SLOTS] = { TC_SLOT_LIST(TC_NAME) };
#undef TC_NAME

/* Longest wait for the tree's rings to go quiet after COMMAND exits. */
#define SETTLE_MAX_MS 3000

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Reads the per-ring counts; returns the sum of every slot of every ring. */
static unsigned long long read_rings(struct tree_cnt_bpf *skel, struct tc_ring *r, unsigned n)
{
	int fd = bpf_map__fd(skel->maps.counts);
	unsigned long long sum = skel->bss->unowned;

	for (unsigned i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		if (bpf_map_lookup_elem(fd, &i, &r[i]))
			continue;
		for (unsigned s = 0; s < TC_SLOTS; s++)
			sum += r[i].n[s];
	}
	return sum;
}

static void settle(struct tree_cnt_bpf *skel, struct tc_ring *r, unsigned n, long quiet_ms)
{
	unsigned long long last = read_rings(skel, r, n);
	long quiet = 0, waited = 0;

	while (quiet < quiet_ms && waited < SETTLE_MAX_MS) {
		unsigned long long now;

		sleep_ms(10);
		waited += 10;
		now = read_rings(skel, r, n);
		quiet = now == last ? quiet + 10 : 0;
		last = now;
	}
}

static int write_counts(struct tree_cnt_bpf *skel, const struct tc_ring *r, unsigned n,
			const char *path)
{
	unsigned long long total[TC_SLOTS] = { 0 };
	unsigned created = skel->bss->nr_rings;
	FILE *f = path ? fopen(path, "we") : stdout;

	if (!f) {
		fprintf(stderr, "tree_cnt: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned s = 0; s < TC_SLOTS; s++)
			total[s] += r[i].n[s];
	fputc('{', f);
	for (unsigned s = 0; s < TC_SLOTS; s++)
		fprintf(f, "\"%s\":%llu,", slot_names[s], total[s]);
	fprintf(f, "\"rings\":[");
	for (unsigned i = 0; i < n && i < created; i++)
		fprintf(f, "%s[%llu,%llu]", i ? "," : "",
			r[i].n[TC_SUBMIT] + r[i].n[TC_REQ_FAILED],
			r[i].n[TC_COMPLETE] + r[i].n[TC_CQE_OVERFLOW]);
	/* who created each ring: the first thing to look at when they differ */
	fprintf(f, "],\"creators\":[");
	for (unsigned i = 0; i < n && i < created; i++) {
		char comm[17] = "";

		/* JSON-safe: a task may name itself anything */
		for (unsigned k = 0; k < 16 && r[i].comm[k]; k++)
			comm[k] = isalnum((unsigned char)r[i].comm[k]) ||
				  strchr("-_.:/ ", r[i].comm[k]) ? r[i].comm[k] : '?';
		fprintf(f, "%s[%u,\"%s\"]", i ? "," : "", r[i].creator, comm);
	}
	fprintf(f, "],\"rings_created\":%u,\"unowned\":%llu}\n", created,
		(unsigned long long)skel->bss->unowned);
	if (path && fclose(f)) {
		fprintf(stderr, "tree_cnt: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: tree_cnt [-o FILE] [--settle=MS] -- COMMAND...\n");
	return 2;
}

/* Forks COMMAND stopped on a pipe, so that it is selected before it runs. */
static pid_t start_command(char **argv, int *go_fd)
{
	int go[2];
	pid_t pid;
	char c;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "tree_cnt: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "settle", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	static struct tc_ring r[TC_MAX_RINGS + 1];
	const unsigned n = TC_MAX_RINGS + 1;
	struct tree_cnt_bpf *skel = NULL;
	const char *output = NULL;
	long quiet_ms = 100;
	int opt, ret = 1, status = 0, go_fd = -1;
	uint32_t root = TC_ROOT;
	pid_t child;

	while ((opt = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 's':
			quiet_ms = atol(optarg);
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc || quiet_ms < 0)
		return usage();
	libbpf_set_print(libbpf_quiet);
	skel = tree_cnt_bpf__open_and_load();
	if (!skel || tree_cnt_bpf__attach(skel)) {
		fprintf(stderr, "tree_cnt: cannot load or attach the BPF programs: %s\n",
			strerror(errno));
		goto cleanup;
	}
	child = start_command(argv + optind, &go_fd);
	if (child < 0) {
		fprintf(stderr, "tree_cnt: cannot start %s: %s\n", argv[optind], strerror(errno));
		goto cleanup;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.sel), &child, &root, BPF_ANY) ||
	    write(go_fd, "g", 1) != 1) {
		fprintf(stderr, "tree_cnt: cannot select %d: %s\n", (int)child, strerror(errno));
		kill(child, SIGKILL);
		ret = -1;
	}
	close(go_fd);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (ret < 0) {
		ret = 1;
		goto cleanup;
	}
	settle(skel, r, n, quiet_ms);
	ret = write_counts(skel, r, n, output);
	if (!ret)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
cleanup:
	tree_cnt_bpf__destroy(skel);
	return ret;
}
