// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/e2e/bystander: an unrelated io_uring user for the end-to-end suite.
 *
 *   bystander [--interval-ms N] [--seconds S]
 *
 * Submits one NOP every N ms (default 2) on its own ring, from a thread
 * named "e2e-bystander", until SIGTERM or SIGINT (or S seconds), then
 * prints one JSON line on stdout:
 *
 *   {"pid": P, "comm": "e2e-bystander", "nops": N, "enters": N,
 *    "start_ns": T0, "end_ns": T1}     (CLOCK_BOOTTIME, the recorder's clock)
 *
 * The suite runs it alongside every recording of `uring-record -- workload
 * SCENARIO` and checks that none of its events reach the log, and that it
 * was busy for the whole recording (start_ns..end_ns covers the log's
 * time span).  It costs next to nothing: a few hundred system calls a
 * second.  Exit status 0, 1 if io_uring cannot be used, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool parse_num(const char *arg, const char *opt, double min, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !(*out >= min && *out <= max)) {
		fprintf(stderr, "bystander: %s: '%s' is not a number in %g..%g\n", opt, arg, min, max);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double interval_ms = 2, seconds = 3600;
	uint64_t nops = 0, enters = 0, start, deadline;
	struct sigaction sa;
	struct io_uring ring;
	struct timespec pause;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (!parse_num(optarg, "--interval-ms", 0.1, 10000, &interval_ms))
				return 2;
			break;
		case 's':
			if (!parse_num(optarg, "--seconds", 0.001, 86400, &seconds))
				return 2;
			break;
		case 'h':
			printf("usage: bystander [--interval-ms N (2)] [--seconds S (3600)]\n"
			       "One NOP every N ms on its own ring until SIGTERM/SIGINT or S seconds;\n"
			       "then one JSON line: pid, comm, nops, enters, start_ns, end_ns.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "bystander: no arguments expected (--help)\n");
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	prctl(PR_SET_NAME, "e2e-bystander", 0, 0, 0);

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "bystander: io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	pause.tv_sec = (time_t)(interval_ms / 1000);
	pause.tv_nsec = (long)((interval_ms - (double)pause.tv_sec * 1000) * 1e6);
	start = now_ns();
	deadline = start + (uint64_t)(seconds * 1e9);
	while (!stop_requested && now_ns() < deadline) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		if (!sqe)
			break;
		io_uring_prep_nop(sqe);
		ret = io_uring_submit_and_wait(&ring, 1);
		enters++;
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			fprintf(stderr, "bystander: io_uring_enter: %s\n", strerror(-ret));
			break;
		}
		nops++;
		while (io_uring_peek_cqe(&ring, &cqe) == 0)
			io_uring_cqe_seen(&ring, cqe);
		nanosleep(&pause, NULL);
	}
	io_uring_queue_exit(&ring);
	printf("{\"pid\": %d, \"comm\": \"e2e-bystander\", \"nops\": %" PRIu64
	       ", \"enters\": %" PRIu64 ", \"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64 "}\n",
	       (int)getpid(), nops, enters, start, now_ns());
	return fflush(stdout) ? 1 : 0;
}
