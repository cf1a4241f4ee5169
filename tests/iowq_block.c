// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * iowq_block: a known number of io-wq workers, for the io-wq-workers
 * trigger (tests/live/flight.sh).
 *
 *   iowq_block N MS
 *	Makes a FIFO in a temporary directory and submits N IORING_OP_OPENAT
 *	of it for reading in one io_uring_enter.  O_CREAT keeps io_uring from
 *	trying the open without blocking (which succeeds at once on a FIFO's
 *	read end), so each goes to io-wq, where opening the read end waits
 *	for a writer and holds one worker: io-wq starts a new one each
 *	time all its workers block with work queued, up to N.  After MS ms it
 *	opens the FIFO for writing, which releases them, and reaps the N
 *	CQEs.  Prints {"pid": P, "tid": T, "opens": N, "ok": K} (T names the
 *	io-wq's workers, "iou-wrk-T"); exit status 0 if every open succeeded.
 */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_OPENS 32

static int ring_enter(int fd, unsigned submit, unsigned wait)
{
	return (int)syscall(__NR_io_uring_enter, fd, submit, wait, IORING_ENTER_GETEVENTS,
			    NULL, 0);
}

int main(int argc, char **argv)
{
	struct io_uring_params p = { 0 };
	char dir[] = "/tmp/iowq_block.XXXXXX", fifo[64];
	unsigned n, ms, ok = 0, *sq_tail, *sq_array, *cq_head, *cq_tail, cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq, *cq;
	int fd, wfd, ret = 1;

	if (argc != 3 || (n = (unsigned)atoi(argv[1])) == 0 || n > MAX_OPENS) {
		fprintf(stderr, "usage: iowq_block N(1..%d) MS\n", MAX_OPENS);
		return 2;
	}
	ms = (unsigned)atoi(argv[2]);
	if (!mkdtemp(dir))
		return 1;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	if (mkfifo(fifo, 0600))
		goto out_dir;
	fd = (int)syscall(__NR_io_uring_setup, MAX_OPENS, &p);
	if (fd < 0) {
		perror("iowq_block: io_uring_setup");
		goto out_fifo;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		perror("iowq_block: mmap");
		goto out_ring;
	}
	sq_tail = (unsigned *)((char *)sq + p.sq_off.tail);
	sq_array = (unsigned *)((char *)sq + p.sq_off.array);
	cq_head = (unsigned *)((char *)cq + p.cq_off.head);
	cq_tail = (unsigned *)((char *)cq + p.cq_off.tail);
	cq_mask = *(unsigned *)((char *)cq + p.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = &sqes[i];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_OPENAT;
		sqe->fd = AT_FDCWD;
		sqe->addr = (uint64_t)(uintptr_t)fifo;
		sqe->open_flags = O_RDONLY | O_CREAT;
		sqe->len = 0600;
		sqe->user_data = i + 1;
		sq_array[i] = i;
	}
	__atomic_store_n(sq_tail, n, __ATOMIC_RELEASE);
	if (ring_enter(fd, n, 0) != (int)n) {
		perror("iowq_block: io_uring_enter");
		goto out_ring;
	}
	usleep(ms * 1000u);
	wfd = open(fifo, O_WRONLY);
	if (wfd < 0)
		goto out_ring;
	for (unsigned seen = 0; seen < n;) {
		unsigned head = *cq_head;

		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
			if (ring_enter(fd, 0, 1) < 0)
				break;
			continue;
		}
		if (cqes[head & cq_mask].res >= 0) {
			close(cqes[head & cq_mask].res);
			ok++;
		}
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
		seen++;
	}
	close(wfd);
	printf("{\"pid\": %d, \"tid\": %d, \"opens\": %u, \"ok\": %u}\n", (int)getpid(),
	       (int)syscall(SYS_gettid), n, ok);
	ret = ok == n ? 0 : 1;
out_ring:
	close(fd);
out_fifo:
	unlink(fifo);
out_dir:
	rmdir(dir);
	return ret;
}
