// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * exit_storm: processes that end in ways uring-record's process selection
 * must survive (tests/live/exits.sh).
 *
 *   exit_storm exits PROCESSES THREADS
 *	Forks PROCESSES children one after the other.  Each starts THREADS
 *	threads; then all of its threads, the main one included, leave with
 *	SYS_exit at the same moment, so that their do_exit() calls overlap.
 *	The main thread's status is 1 + child index % 100.  Prints one JSON
 *	line per child: {"pid": P, "status": S, "tids": [main, threads...]}.
 *	Then waits a second: the kernel frees the children's task structs
 *	from an RCU callback, which can lag (lazy RCU batches them).
 *
 *   exit_storm reuse PID
 *	Forks until a child gets pid PID (through
 *	/proc/sys/kernel/ns_last_pid: root only) and has it create and close
 *	an io_uring instance.  Prints {"pid": PID, "attempts": N}; exit status
 *	3 if PID could not be had, 1 on other errors.
 *
 *   exit_storm reuse-own
 *	Forks a child that exits at once and, as soon as it is reaped, another
 *	that takes its pid (root only), waits 2 s and creates and closes an
 *	io_uring instance.  Prints {"pid": PID, "attempts": N}; exit status as
 *	for reuse.
 *
 *   exit_storm reuse-selected
 *	Forks a child that sleeps and prints {"victim": PID}; on SIGUSR1 kills
 *	and reaps it and at once forks another child that takes its pid (root
 *	only) and creates and closes an io_uring instance right away: before
 *	the kernel's RCU callback frees the first child.  Prints {"pid": PID,
 *	"attempts": N}; exit status as for reuse.
 *
 *   exit_storm teardown FILES
 *	Creates a ring, registers FILES files (/dev/null) with the tags 1 to
 *	FILES (IORING_REGISTER_FILES2), prints {"pid": P, "ring_fd": FD,
 *	"tags": FILES} and exits with the ring still open.  The kernel tears
 *	the ring down in a kworker after the exit, and posts one CQE per tag
 *	from there (user_data = the tag, res 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 64

struct child_shared {
	atomic_int ready;		/* threads that stored their tid */
	atomic_int go;
	pid_t tids[MAX_THREADS + 1];
};

static struct child_shared *shared;

static void *thread_main(void *arg)
{
	int idx = (int)(long)arg;

	shared->tids[idx] = gettid();
	atomic_fetch_add(&shared->ready, 1);
	while (!atomic_load(&shared->go))
		sched_yield();
	syscall(SYS_exit, 0);
	return NULL;
}

/* The child: never returns. */
static void exit_together(int nthreads, int status)
{
	pthread_t thread;

	shared->tids[0] = gettid();
	for (int i = 1; i <= nthreads; i++)
		if (pthread_create(&thread, NULL, thread_main, (void *)(long)i))
			_exit(125);
	while (atomic_load(&shared->ready) < nthreads)
		sched_yield();
	atomic_store(&shared->go, 1);
	_exit(status);
}

static int run_exits(int nprocs, int nthreads)
{
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("exit_storm: mmap");
		return 1;
	}
	for (int i = 0; i < nprocs; i++) {
		int wstatus;
		pid_t pid;

		memset(shared, 0, sizeof(*shared));
		pid = fork();
		if (pid < 0) {
			perror("exit_storm: fork");
			return 1;
		}
		if (!pid)
			exit_together(nthreads, 1 + i % 100);
		if (waitpid(pid, &wstatus, 0) != pid) {
			perror("exit_storm: waitpid");
			return 1;
		}
		if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 1 + i % 100) {
			fprintf(stderr, "exit_storm: child %d: wait status %#x\n", (int)pid, wstatus);
			return 1;
		}
		printf("{\"pid\": %d, \"status\": %d, \"tids\": [", (int)pid, WEXITSTATUS(wstatus));
		for (int t = 0; t <= nthreads; t++)
			printf("%s%d", t ? ", " : "", (int)shared->tids[t]);
		printf("]}\n");
	}
	sleep(1);
	return 0;
}

static int set_last_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (!f)
		return -errno;
	ok = fprintf(f, "%d", (int)pid) > 0;
	ok = !fclose(f) && ok;
	return ok ? 0 : -EIO;
}

/*
 * Forks until a child gets pid want; that child waits delay_ms, then
 * creates and closes an io_uring instance.  Returns the attempts it took,
 * 0 if no child got the pid, -1 on errors (said on stderr).
 */
static int fork_with_pid(pid_t want, unsigned delay_ms)
{
	enum { ATTEMPTS = 200 };

	for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
		struct io_uring_params params;
		int err = set_last_pid(want - 1), wstatus, fd;
		pid_t pid;

		if (err) {
			fprintf(stderr, "exit_storm: /proc/sys/kernel/ns_last_pid: %s\n", strerror(-err));
			return -1;
		}
		pid = fork();
		if (pid < 0) {
			perror("exit_storm: fork");
			return -1;
		}
		if (!pid) {
			if (getpid() != want)
				_exit(0);
			usleep(delay_ms * 1000);
			memset(&params, 0, sizeof(params));
			fd = (int)syscall(__NR_io_uring_setup, 4, &params);
			_exit(fd < 0 ? 1 : close(fd) ? 1 : 0);
		}
		if (waitpid(pid, &wstatus, 0) != pid) {
			perror("exit_storm: waitpid");
			return -1;
		}
		if (pid != want)
			continue;
		if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
			fprintf(stderr, "exit_storm: pid %d: io_uring_setup failed\n", (int)pid);
			return -1;
		}
		return attempt;
	}
	return 0;
}

static int run_reuse(pid_t want)
{
	int attempts = fork_with_pid(want, 0);

	if (attempts < 0)
		return 1;
	if (!attempts) {
		fprintf(stderr, "exit_storm: no child got pid %d\n", (int)want);
		return 3;
	}
	printf("{\"pid\": %d, \"attempts\": %d}\n", (int)want, attempts);
	return 0;
}

/*
 * A child that exits at once, then a second child with its pid, forked as
 * soon as the first is reaped: before the kernel's RCU callback frees the
 * first one's task (tp_proc_free runs then).  The second waits 2 s, past
 * that callback, before it uses io_uring.
 */
static int run_reuse_own(void)
{
	for (int round = 0; round < 10; round++) {
		pid_t first = fork();
		int wstatus, attempts;

		if (first < 0) {
			perror("exit_storm: fork");
			return 1;
		}
		if (!first)
			_exit(0);
		if (waitpid(first, &wstatus, 0) != first) {
			perror("exit_storm: waitpid");
			return 1;
		}
		attempts = fork_with_pid(first, 2000);
		if (attempts < 0)
			return 1;
		if (attempts) {
			printf("{\"pid\": %d, \"attempts\": %d}\n", (int)first, attempts);
			return 0;
		}
	}
	fprintf(stderr, "exit_storm: no child got its sibling's pid in 10 rounds\n");
	return 3;
}

/*
 * The victim is selected with -p by the test while it sleeps.  Its pid is
 * taken within microseconds of its reaping, long before the RCU callback
 * behind sched_process_free (tp_proc_free) runs, so only tp_task_newtask
 * can keep the new process out of the recording.
 */
static int run_reuse_selected(void)
{
	pid_t parent = getpid(), victim;
	sigset_t usr1;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &usr1, NULL)) {
		perror("exit_storm: sigprocmask");
		return 1;
	}
	victim = fork();
	if (victim < 0) {
		perror("exit_storm: fork");
		return 1;
	}
	if (!victim) {
		/* not left behind when a failing test kills exit_storm */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		for (;;)
			pause();
	}
	printf("{\"victim\": %d}\n", (int)victim);
	fflush(stdout);
	if (sigwait(&usr1, &sig)) {
		perror("exit_storm: sigwait");
		return 1;
	}
	if (kill(victim, SIGKILL) || waitpid(victim, NULL, 0) != victim) {
		perror("exit_storm: kill or reap the victim");
		return 1;
	}
	return run_reuse(victim);
}

static int run_teardown(unsigned nfiles)
{
	struct io_uring_rsrc_register reg;
	struct io_uring_params params;
	__u64 tags[64];
	int fds[64], fd;

	memset(&params, 0, sizeof(params));
	fd = (int)syscall(__NR_io_uring_setup, 64, &params);
	if (fd < 0) {
		perror("exit_storm: io_uring_setup");
		return 1;
	}
	for (unsigned i = 0; i < nfiles; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			perror("exit_storm: /dev/null");
			return 1;
		}
		tags[i] = i + 1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.nr = nfiles;
	reg.data = (__u64)(uintptr_t)fds;
	reg.tags = (__u64)(uintptr_t)tags;
	if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_FILES2, &reg, sizeof(reg)) < 0) {
		perror("exit_storm: IORING_REGISTER_FILES2");
		return 1;
	}
	printf("{\"pid\": %d, \"ring_fd\": %d, \"tags\": %u}\n", (int)getpid(), fd, nfiles);
	fflush(stdout);
	_exit(0);	/* the ring stays open: the kernel closes it */
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "exits")) {
		int nprocs = atoi(argv[2]), nthreads = atoi(argv[3]);

		if (nprocs < 1 || nthreads < 1 || nthreads > MAX_THREADS) {
			fprintf(stderr, "exit_storm: exits: PROCESSES >= 1, THREADS 1..%d\n",
				MAX_THREADS);
			return 2;
		}
		setvbuf(stdout, NULL, _IOLBF, 0);
		return run_exits(nprocs, nthreads);
	}
	if (argc == 3 && !strcmp(argv[1], "reuse") && atoi(argv[2]) > 1)
		return run_reuse(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "reuse-own"))
		return run_reuse_own();
	if (argc == 2 && !strcmp(argv[1], "reuse-selected"))
		return run_reuse_selected();
	if (argc == 3 && !strcmp(argv[1], "teardown") && atoi(argv[2]) >= 1 &&
	    atoi(argv[2]) <= 64)
		return run_teardown((unsigned)atoi(argv[2]));
	fprintf(stderr, "usage: exit_storm exits PROCESSES THREADS | exit_storm reuse PID |\n"
		"       exit_storm reuse-own | exit_storm reuse-selected |\n"
		"       exit_storm teardown FILES (1..64)\n");
	return 2;
}
