// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: the ground-truth io_uring workload.
 *
 *   workload [OPTIONS] SCENARIO
 *
 * Each scenario does a known amount of io_uring work and prints ONE JSON
 * document on stdout saying exactly what it did, so that the end-to-end
 * tests can run `uring-record -- tests/workload SCENARIO` and compare every
 * number uring-convert reports with this ground truth.  The program runs
 * unprivileged and needs liburing >= 2.1 (built against Debian's 2.3).
 *
 * EXIT STATUS
 *   0  the scenario ran and every CQE was the one expected
 *   1  failure: the kernel did something the scenario did not expect (a
 *      result, a flag, a missing or extra CQE, a call's return value), or a
 *      system call the scenario needs failed; the reasons are on stderr
 *      and in "errors"; the JSON is still printed
 *   2  usage error (nothing printed on stdout)
 *   3  unavailable: the kernel refused something the scenario needs
 *      (io_uring_setup EPERM/EACCES/ENOSYS: io_uring disabled by
 *      kernel.io_uring_disabled, or SQPOLL refused); "status" says
 *      "unavailable".  For "all": 1 if any scenario failed, else 3 if any
 *      was unavailable, else 0.
 *
 * HOW THE COUNTS ARE KEPT EXACT
 *   Every io_uring_enter and io_uring_register is made by this program with
 *   syscall(2) (workload_ring.c), never by liburing: liburing's submit/wait
 *   helpers may skip or add system calls on their own.  liburing is used
 *   for io_uring_queue_init_params (exactly one io_uring_setup), for
 *   io_uring_queue_exit (munmap and close only) and the prep helpers.
 *   CQEs are reaped from the shared ring only right after a waiting enter,
 *   exactly as many as waited for, so min_complete values do not depend on
 *   timing.  A waiting enter also returns when a TIMEOUT request fires
 *   (io_should_wake() watches ctx->cq_timeouts), so a TIMEOUT is only ever
 *   the last CQE a wait needs; should its CQE still be in flight (a narrow
 *   race), the program enters again, and that call is listed like any
 *   other.  No scenario overflows the CQ ring or fills the SQ ring (both
 *   checked when a ring is closed).  Verified with
 *   `strace -f -e trace=io_uring_setup,io_uring_enter,io_uring_register`
 *   (tests/check_workload.c does that comparison when strace is installed).
 *
 * USER_DATA
 *   scenario_id * 10^9 + ring_index * 10^6 + n   (n from 1, per ring)
 *   e.g. 8001000003 is scenario 8 (rings), ring 1, request 3.  Scenario
 *   ids are fixed (the order of the list below, from 1), so a request has
 *   the same user_data alone and inside "all".  The ring index is the
 *   ring's position in "rings".  Exceptions: storm's one ring counts n up
 *   to --count (past 10^6); the CQE MSG_RING posts into ring1 of "rings"
 *   has user_data ring1 base + 999999 (listed in "aux_cqes").
 *
 * SCENARIOS (CLI word, id)
 *   nop (1)        --batches B (4) --batch-size N (8): B io_uring_enter
 *                  calls, each to_submit=N min_complete=N GETEVENTS, N NOPs
 *                  each, res 0.
 *   rw (2)         --count N (8) --size S (4096), file in --dir: N WRITEs
 *                  (odd ones IOSQE_ASYNC) in one enter; one FSYNC (always
 *                  io-wq: io_fsync() never runs non-blocking); N READs (even
 *                  ones IOSQE_ASYNC); a WRITEV linked to a READV.  Data is
 *                  verified.
 *   link (3)       16 SQEs, one enter, five chains: A nop->read(fd -1,
 *                  EBADF)->nop->nop (ECANCELED x2); B read(fd -1)->write->
 *                  nop (head fails); C hard links, the member after the
 *                  failure runs (res 0); D write(IOSQE_ASYNC head)->read->
 *                  nop, all succeed; E nop->TIMEOUT with len 2 (EINVAL at
 *                  submission: io_uring_req_failed)->nop, both ECANCELED.
 *   poll (4)       --delay-ms D (20): a READ of an empty O_NONBLOCK pipe and
 *                  a RECV on an empty socket arm a poll during the enter that
 *                  submits them; a one-shot POLL_ADD; a pipe READ with
 *                  IOSQE_ASYNC.  A writer thread ("wl-writer") writes D ms
 *                  after that enter returned; one waiting enter for all 4.
 *   timeout (5)    a TIMEOUT with count 1 completed (res 0) by a NOP;
 *                  TIMEOUTs of 10 and 20 ms (ETIME); a 10 s TIMEOUT removed
 *                  by TIMEOUT_REMOVE (ECANCELED / 0); a poll-armed pipe read
 *                  cancelled by ASYNC_CANCEL (ECANCELED / 0); READ and WRITE
 *                  on fd -1 (EBADF); a pipe read with a LINK_TIMEOUT of
 *                  10 ms (ECANCELED / ETIME); a TIMEOUT with len 2 (EINVAL,
 *                  rejected at submission).
 *   drain (6)      --delay-ms D: a poll-armed pipe read, then a NOP with
 *                  IOSQE_IO_DRAIN (deferred: io_uring_defer) and a NOP after
 *                  it; both NOPs complete after the read ("order"; their own
 *                  order is not kept by 6.1); then a drain with nothing in
 *                  flight.
 *   multishot (7)  --count K (3, max 16): a multishot POLL_ADD on a pipe
 *                  gets K CQEs with IORING_CQE_F_MORE (res POLLIN), one per
 *                  write (writes from the main thread, each waited for), then
 *                  POLL_REMOVE ends it (ECANCELED); PROVIDE_BUFFERS, then a
 *                  multishot RECV gets K CQEs (8, 16, .. bytes) with MORE and
 *                  a final res 0 when the peer shuts down.
 *   rings (8)      --rings R (3, 3..8) in one thread: ring1 IORING_SETUP_
 *                  CQSIZE, ring2 SINGLE_ISSUER|DEFER_TASKRUN; ring i gets i+2
 *                  NOPs; submitted on every ring, then waited for in reverse
 *                  order; a MSG_RING from ring0 posts a CQE (res 42) into
 *                  ring1 ("aux_cqes": it belongs to no request of ring1); a
 *                  poll-armed pipe read on ring2 completes inside its enter.
 *   threads (9)    --threads T (3, 1..16): thread i ("wl-ring-<i>") sets up
 *                  ring "thread<i>" (one after the other), then all run at
 *                  once: i+2 NOPs and a NOP with IOSQE_ASYNC in one enter,
 *                  then 2 NOPs.  The main thread makes no io_uring call.
 *   registered (10) REGISTER_BUFFERS (2), REGISTER_FILES (slot 1 sparse),
 *                  REGISTER_FILES_UPDATE (slot 1), REGISTER_RING_FDS; then
 *                  enters use the registered index with IORING_ENTER_
 *                  REGISTERED_RING: WRITE_FIXED x2 (one IOSQE_ASYNC), a WRITE
 *                  to slot 1, READ_FIXED, a READ with IOSQE_FIXED_FILE, a
 *                  READ of empty slot 5 (EBADF); UNREGISTER_RING_FDS, 2 NOPs
 *                  on the plain fd, UNREGISTER_FILES, UNREGISTER_BUFFERS.
 *   sqpoll (11)    an IORING_SETUP_SQPOLL ring (sq_thread_idle 2000 ms): 8
 *                  NOPs, then 4 file READs (the last IOSQE_ASYNC), submitted
 *                  by the SQ thread ("sq_thread_tid", comm iou-sqp-<tid>);
 *                  this thread enters once with IORING_ENTER_SQ_WAKEUP (a new
 *                  SQ thread goes to sleep at once: io_sq_thread() starts with
 *                  timeout 0; the program waits for IORING_SQ_NEED_WAKEUP
 *                  before submitting) and otherwise only to wait
 *                  (to_submit 0).  Exit 3 if SQPOLL is refused.
 *                  --sq-cpu C: the SQ thread is bound to CPU C
 *                  (IORING_SETUP_SQ_AFF); --spin-ms S: the ring stays open
 *                  S ms after the work, its SQ thread polling all along
 *                  (sq_thread_idle 2000 + S): an io_uring thread always
 *                  runnable, for tests/live/filters.sh.
 *   storm (12)     --seconds S (1) or --count N, --batch-size B (32): NOPs
 *                  as fast as possible, B per enter (to_submit = min_complete
 *                  = B, the last batch may be smaller).  Requests are counted,
 *                  not listed; enter calls are summarised ("to_submit_hist").
 *                  Inside "all" it runs --count 10000 unless told otherwise.
 *   demo (13)      --count W (8 waves, max 16), ~0.5 s: per wave 16 NOPs,
 *                  4 writes and 4 reads (one of each IOSQE_ASYNC), an
 *                  fdatasync every other wave, a poll-armed pipe read and
 *                  socket recv fed by the writer thread, a failing link chain
 *                  or a fixed-file write->read chain, a pipe read cut by a
 *                  15 ms LINK_TIMEOUT, and a shot of a multishot poll (one
 *                  multishot POLL_ADD for the run); registered file and buffer; a
 *                  background thread ("wl-demo-bg") with its own ring reads
 *                  the file (2 of 6 reads IOSQE_ASYNC) at the same time.
 *   streams (14)   a pipe and a socket pair fed only by io_uring (what
 *                  uring-replay replays): pipe and socket reads that arm a
 *                  poll, and a POLL_ADD, waiting; pipe writes of 64 + 10 bytes, a SEND,
 *                  a 1-byte pipe write (all 7 complete); a pipe READ of 64
 *                  that gets the 10 left, the polled byte, a SENDMSG; its
 *                  RECVMSG and SHUTDOWN(SHUT_WR) (always io-wq); a RECV
 *                  that gets 0.
 *   recreate (15)  --count N (12, max 14): N times, a 4096-byte file created
 *                  in --dir and unlinked, one READ of it, the file closed
 *                  and an RCU grace period waited for; all on one CPU, so
 *                  that an ext4 --dir hands the next file the same inode
 *                  number, struct file and struct inode.  Then an eventfd
 *                  (counter 7) read and closed, and a timerfd (fired) read:
 *                  the same struct file, and the one inode of every
 *                  anonymous inode file.  Each READ is tagged with its own
 *                  file ("files").
 *   all            every scenario above in this order, one document.
 *
 * THE JSON (schema "ringside-workload/1"; keys are added, never changed)
 *   Everything under "kernel_may_choose" is NOT guaranteed: checkers must
 *   never assert on it.  Everything else is exact for this run.
 *
 *   schema, pid, kernel (uname -r)        top level only
 *   scenario          CLI word
 *   status            "ok" | "failed" | "unavailable"; exit_status 0|1|3
 *   errors            [string]: why status is not ok
 *   params            {"seed": n, per-scenario knobs actually used}
 *   time              {"clock": "CLOCK_BOOTTIME", "start_ns", "end_ns"}:
 *                     the recorder's clock; brackets the scenario's events
 *   tids              [{"tid", "role", "comm"}]: roles "main", "writer",
 *                     "ring-thread", "background", "sqpoll" (the kernel's SQ
 *                     thread, comm iou-sqp-<tid>)
 *   rings             [{"name", "fd", "setup_seq" (seq of its io_uring_setup
 *                     call), "tid" (thread that set it up and enters it),
 *                     "setup_flags" (+ "_names"), "sq_entries", "cq_entries"
 *                     (as the kernel sized them), "sqpoll", "sq_thread_tid",
 *                     "sq_thread_comm", "submitter_tid" (who runs the
 *                     submissions: the SQ thread for SQPOLL, else "tid"),
 *                     "io_wq_worker_comm" ("iou-wrk-<submitter_tid>": the
 *                     comm of the io-wq workers that run its IOSQE_ASYNC
 *                     requests), "registered_index" (null or the index
 *                     enter was called with), "user_data_base", "enter_calls",
 *                     "register_calls", "cqes" (incl. aux), "cqes_aux",
 *                     "requests" (per opcode, as below)}]
 *   requests          {"OPCODE": {"submitted", "completed" (final CQEs),
 *                     "cqes" (all CQEs, incl. IORING_CQE_F_MORE ones),
 *                     "cqes_more", "res": {"4096": n, "0": n, "-EBADF": n}}}
 *                     opcode names as common/uring_names.c spells them; res
 *                     keys are values, negative errnos by name ("-ECANCELED")
 *                     and counted over every CQE.  "submitted" counts SQEs
 *                     handed to the kernel, including ones it rejected at
 *                     submission (paths.init_failed).
 *   cqes              {"total", "more", "aux"}: CQEs reaped; aux = CQEs that
 *                     belong to no request (MSG_RING targets)
 *   paths             guaranteed paths, lists of user_data:
 *                       async_forced  IOSQE_ASYNC: queued to io-wq
 *                                     (io_uring_queue_async_work) and run by
 *                                     an iou-wrk-<submitter_tid> thread
 *                       always_async  opcode that cannot complete without
 *                                     blocking (FSYNC): reaches io-wq
 *                       poll_armed    fails its non-blocking attempt and arms
 *                                     a poll (io_uring_poll_arm), completes
 *                                     after a wakeup
 *                       deferred      held back by IOSQE_IO_DRAIN
 *                                     (io_uring_defer)
 *                       init_failed   rejected while the kernel read the SQE
 *                                     (io_uring_req_failed); still one CQE
 *   links             [{"ring", "hard", "user_data": [..in order], "res": [..]}]
 *   order             [{"user_data", "after": [..], "before": [..]}]: this
 *                     request's CQE comes after/before those (drain)
 *   aux_cqes          [{"ring", "user_data", "res", "posted_by"}]
 *   enter_calls       {"count", "to_submit" (sum), "submitted" (sum of
 *                     returns when to_submit > 0), "by_tid": {"tid": n},
 *                     "calls_listed", "calls": [{"seq", "tid", "ring", "fd"
 *                     (as passed: the registered index with
 *                     REGISTERED_RING), "to_submit", "min_complete", "flags",
 *                     "flags_names", "ret" (or -errno, with "errno")}]};
 *                     storm: no "calls" but "to_submit_hist": {"32": n, ..}
 *   register_calls    {"count", "by_opcode": {"REGISTER_FILES": n}, "calls":
 *                     [{"seq", "tid", "ring", "fd", "opcode", "opcode_name",
 *                     "nr_args", "ret"}]}
 *   setup_calls       {"count", "failed", "calls": [{"seq", "tid", "ring"
 *                     (null if it failed), "entries", "cq_entries" (asked,
 *                     with CQSIZE), "flags", "flags_names", "ret" (the fd or
 *                     -errno, with "errno")}]}
 *                     "seq" orders all three kinds of call process-wide; per
 *                     tid it is the order strace -f shows them in.
 *   request_list      every request: {"user_data", "ring", "opcode",
 *                     "sqe_flags" (+ "_names"), "what", "res" (final CQE),
 *                     "more_res" (multishot: the F_MORE CQEs), "chain" (index
 *                     of its link chain in the ring), "paths" (incl. may_*),
 *                     "reaped_ns" (CLOCK_BOOTTIME just after the CQ head
 *                     moved past its final CQE; absent if never reaped)}
 *                     (storm: absent; "storm": {"nops"} instead)
 *   kernel_may_choose {"notes": [..], "may_io_wq" (buffered file I/O the
 *                     kernel may punt to io-wq; requests read while a
 *                     drain is active), "may_poll_arm", "may_defer",
 *                     "cqe_flags" (per opcode, observed cqe->flags),
 *                     "io_threads_seen" (iou-* threads alive at the end),
 *                     storm: "storm_elapsed_ns", "storm_nops_per_s"}
 *
 *   "all" prints {"schema", "pid", "kernel", "scenario": "all", "status",
 *   "exit_status", "errors" (prefixed "scenario: "), "params", "time",
 *   "tids" (each thread once), "rings" (each with "scenario"), "requests",
 *   "cqes", "enter_calls", "register_calls", "setup_calls" (totals without
 *   call lists), "scenarios": [one document per scenario, as above, without
 *   schema/pid/kernel]}.
 *
 * WHAT DIFFERS BETWEEN KERNELS (6.1, 6.12, 6.18)
 *   - Buffered reads and writes without IOSQE_ASYNC: inline or io-wq, by
 *     kernel and filesystem (cross-kernel.md: on tmpfs 6.1 punts the writes,
 *     6.12 punts everything) -> only in kernel_may_choose.may_io_wq.
 *   - Pipes are O_NONBLOCK: 6.1 has no FMODE_NOWAIT on pipes and would punt a
 *     READ of a blocking pipe to io-wq instead of arming a poll.
 *   - IOSQE_IO_DRAIN: io_drain_req() was reworked in 6.16; the drained
 *     request behind a pending one is deferred everywhere, but whether the
 *     request after it and an idle drain emit io_uring_defer differs ->
 *     may_defer.  6.1 completes the request after a drained one before the
 *     drained one when both are released together (task work LIFO), so only
 *     "after the pending read" is promised for either.
 *   - Verified on 6.1.0-56 and 6.12.117 (QEMU guests, tracefs) and on
 *     6.18.44 (host): every scenario ok, every promised path present.
 *   - The flags of multishot RECV CQEs (F_BUFFER on the final one,
 *     F_SOCK_NONEMPTY) -> kernel_may_choose.cqe_flags.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "workload.h"

static const struct wl_scenario scenarios[] = {
	{ "nop", wl_scen_nop, "NOPs in batches (--batches, --batch-size)" },
	{ "rw", wl_scen_rw, "file reads and writes, some IOSQE_ASYNC (--count, --size, --dir)" },
	{ "link", wl_scen_link, "linked chains with failures, hard links" },
	{ "poll", wl_scen_poll, "pipe/socket reads that arm a poll (--delay-ms)" },
	{ "timeout", wl_scen_timeout, "timeouts, cancellations, EBADF, EINVAL" },
	{ "drain", wl_scen_drain, "IOSQE_IO_DRAIN behind a pending read (--delay-ms)" },
	{ "multishot", wl_scen_multishot, "multishot poll and recv (--count shots)" },
	{ "rings", wl_scen_rings, "several rings in one thread, MSG_RING (--rings)" },
	{ "threads", wl_scen_threads, "one ring per thread (--threads)" },
	{ "registered", wl_scen_registered, "registered files, buffers and ring fd" },
	{ "sqpoll", wl_scen_sqpoll, "an SQPOLL ring (exit 3 if refused)" },
	{ "storm", wl_scen_storm, "NOPs as fast as possible (--seconds or --count, --batch-size)" },
	{ "demo", wl_scen_demo, "a ~0.5 s mix of everything, for the quick start (--count waves)" },
	{ "streams", wl_scen_streams, "pipe and socketpair I/O all through io_uring (uring-replay)" },
	{ "recreate", wl_scen_recreate, "files closed and others opened, a read each (--count <= 14)" },
};

#define N_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

/* Scenario ids are part of user_data: fixed, from 1, in this order. */
static unsigned scenario_id(const struct wl_scenario *s)
{
	return (unsigned)(s - scenarios) + 1;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
"usage: workload [OPTIONS] SCENARIO\n"
"\n"
"Do a known amount of io_uring work and print, as one JSON document on\n"
"stdout, exactly what was done: the ground truth for ringside's tests\n"
"(uring-record -- workload SCENARIO).\n"
"\n"
"Scenarios:\n");
	for (i = 0; i < N_SCENARIOS; i++)
		fprintf(f, "  %-11s %s\n", scenarios[i].name, scenarios[i].help);
	fprintf(f,
"  %-11s every scenario in turn, one document\n"
"(Scenario ids, used in user_data, are positions in this list, from 1.)\n"
"\n"
"Options:\n"
"  --dir DIR         directory for scratch files (default: a new directory\n"
"                    under $TMPDIR, removed at the end); files are unlinked\n"
"                    as soon as they are open, unless --keep\n"
"  --seed N          seed of the data patterns (default 1)\n"
"  --batches N       nop: batches (4)\n"
"  --batch-size N    nop: NOPs per enter (8); storm: NOPs per enter (32)\n"
"  --count N         rw: reads and writes (8); multishot: shots (3);\n"
"                    storm: total NOPs instead of --seconds; demo: waves (8)\n"
"  --size N          rw: bytes per read/write (4096)\n"
"  --rings N         rings: rings in the thread (3, 3..8)\n"
"  --threads N       threads: threads with a ring each (3, 1..16)\n"
"  --seconds S       storm: run time (1)\n"
"  --delay-ms N      poll, drain: writer delay after the submit (20)\n"
"  --wait-ms N       sleep N ms before the first io_uring call (0): named\n"
"                    by its exec but not yet using io_uring\n"
"  --sq-cpu N        sqpoll: bind the SQ thread to CPU N (IORING_SETUP_SQ_AFF)\n"
"  --spin-ms N       sqpoll: keep the ring open N ms after the work, its SQ\n"
"                    thread polling (0)\n"
"  --keep            keep the scratch files\n"
"  --compact         print the JSON on one line\n"
"  --list            print the scenario names and exit\n"
"  -h, --help        this help\n"
"\n"
"JSON (schema \"" WL_SCHEMA "\"; full description at the top of\n"
"tests/workload.c): scenario, status, exit_status, errors, pid, kernel,\n"
"params, time (CLOCK_BOOTTIME), tids [{tid, role, comm}], rings [{name, fd,\n"
"setup_seq, tid, setup_flags, sq/cq_entries, sqpoll, sq_thread_tid,\n"
"submitter_tid, io_wq_worker_comm, registered_index, requests, ...}],\n"
"requests {OPCODE: {submitted, completed, cqes, cqes_more, res {value|-ERRNO:\n"
"n}}}, cqes {total, more, aux}, paths {async_forced, always_async,\n"
"poll_armed, deferred, init_failed: [user_data]}, links, order, aux_cqes,\n"
"enter_calls / register_calls / setup_calls {count, ..., calls [{seq, tid,\n"
"ring, fd, args, ret}]}, request_list, and kernel_may_choose {...}: the only\n"
"part that is NOT guaranteed.  user_data = scenario id * 1e9 + ring * 1e6 + n.\n"
"\n"
"Exit status: 0 as expected; 1 the kernel did something unexpected (or a\n"
"call failed); 2 usage; 3 a needed feature was refused (e.g. SQPOLL, or\n"
"io_uring disabled).\n", "all");
}

static bool parse_uint(const char *arg, const char *opt, unsigned long min,
		       unsigned long max, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "workload: %s: '%s' is not a number in %lu..%lu\n",
			opt, arg, min, max);
		return false;
	}
	*out = (unsigned)v;
	return true;
}

enum {
	OPT_DIR = 256, OPT_SEED, OPT_BATCHES, OPT_BATCH_SIZE, OPT_COUNT, OPT_SIZE,
	OPT_RINGS, OPT_THREADS, OPT_SECONDS, OPT_DELAY, OPT_WAIT, OPT_SQ_CPU, OPT_SPIN,
	OPT_KEEP, OPT_COMPACT, OPT_LIST,
};

static int parse_args(int argc, char **argv, struct wl_opts *o, const char **scenario)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "batches", required_argument, NULL, OPT_BATCHES },
		{ "batch-size", required_argument, NULL, OPT_BATCH_SIZE },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "rings", required_argument, NULL, OPT_RINGS },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "delay-ms", required_argument, NULL, OPT_DELAY },
		{ "wait-ms", required_argument, NULL, OPT_WAIT },
		{ "sq-cpu", required_argument, NULL, OPT_SQ_CPU },
		{ "spin-ms", required_argument, NULL, OPT_SPIN },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned seed32;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->delay_ms = 20;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIR:
			o->dir = optarg;
			break;
		case OPT_SEED:
			if (!parse_uint(optarg, "--seed", 0, UINT_MAX, &seed32))
				return -1;
			o->seed = seed32;
			break;
		case OPT_BATCHES:
			if (!parse_uint(optarg, "--batches", 1, 100000, &o->batches))
				return -1;
			o->batches_set = true;
			break;
		case OPT_BATCH_SIZE:
			if (!parse_uint(optarg, "--batch-size", 1, 4096, &o->batch_size))
				return -1;
			o->batch_size_set = true;
			break;
		case OPT_COUNT:
			if (!parse_uint(optarg, "--count", 1, 100000000, &o->count))
				return -1;
			o->count_set = true;
			break;
		case OPT_SIZE:
			if (!parse_uint(optarg, "--size", 2, 1 << 20, &o->size))
				return -1;
			o->size_set = true;
			break;
		case OPT_RINGS:
			if (!parse_uint(optarg, "--rings", 3, 8, &o->rings))
				return -1;
			break;
		case OPT_THREADS:
			if (!parse_uint(optarg, "--threads", 1, 16, &o->threads))
				return -1;
			break;
		case OPT_SECONDS:
			errno = 0;
			o->seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->seconds > 0) ||
			    o->seconds > 3600) {
				fprintf(stderr, "workload: --seconds: '%s' is not a number of seconds in (0, 3600]\n",
					optarg);
				return -1;
			}
			o->seconds_set = true;
			break;
		case OPT_DELAY:
			if (!parse_uint(optarg, "--delay-ms", 0, 10000, &o->delay_ms))
				return -1;
			break;
		case OPT_WAIT:
			if (!parse_uint(optarg, "--wait-ms", 0, 60000, &o->wait_ms))
				return -1;
			break;
		case OPT_SQ_CPU:
			if (!parse_uint(optarg, "--sq-cpu", 0, 65535, &o->sq_cpu))
				return -1;
			o->sq_cpu_set = true;
			break;
		case OPT_SPIN:
			if (!parse_uint(optarg, "--spin-ms", 0, 60000, &o->spin_ms))
				return -1;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_COMPACT:
			o->compact = true;
			break;
		case OPT_LIST:
			return 2;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "workload: %s\n", optind >= argc ?
			"which scenario? (workload --help lists them)" :
			"one scenario only");
		return -1;
	}
	*scenario = argv[optind];
	return 0;
}

/* Knobs whose range depends on the scenario. */
static bool check_knobs(const struct wl_opts *o, const char *name)
{
	bool all = !strcmp(name, "all");

	if (o->count_set && (all || !strcmp(name, "rw")) && o->count > 1024) {
		fprintf(stderr, "workload: --count for rw must be 1..1024\n");
		return false;
	}
	if ((all || !strcmp(name, "rw")) &&
	    (uint64_t)(o->count_set ? o->count : 8) * (o->size_set ? o->size : 4096) > (64u << 20)) {
		fprintf(stderr, "workload: rw: --count times --size must stay within 64 MiB\n");
		return false;
	}
	if (o->count_set && (all || !strcmp(name, "multishot") || !strcmp(name, "demo")) &&
	    o->count > WL_MAX_CQES - 1) {
		fprintf(stderr, "workload: --count for multishot and demo must be 1..%d\n",
			WL_MAX_CQES - 1);
		return false;
	}
	if (o->count_set && (all || !strcmp(name, "recreate")) && o->count > WL_MAX_FILES - 2) {
		fprintf(stderr, "workload: --count for recreate must be 1..%d\n", WL_MAX_FILES - 2);
		return false;
	}
	if (o->count_set && o->seconds_set && (all || !strcmp(name, "storm"))) {
		fprintf(stderr, "workload: storm takes --count or --seconds, not both\n");
		return false;
	}
	return true;
}

static void run_free(struct wl_run *run)
{
	size_t i;

	for (i = 0; i < run->n_rings; i++)
		wl_ring_free(run->rings[i]);
	free(run->rings);
	for (i = 0; i < run->n_errors; i++)
		free(run->errors[i]);
	free(run->errors);
	for (i = 0; i < run->n_notes; i++)
		free(run->notes[i]);
	free(run->notes);
	free(run->tids);
	free(run->setups);
	free(run->orders);
	free(run->io_threads);
	pthread_mutex_destroy(&run->lock);
	free(run);
}

static struct wl_run *run_scenario(const struct wl_scenario *s, const struct wl_opts *o)
{
	struct wl_run *run = wl_xcalloc(1, sizeof(*run));

	pthread_mutex_init(&run->lock, NULL);
	run->scenario = s->name;
	run->scen_id = scenario_id(s);
	run->opts = o;
	wl_register_thread(run, "main");
	run->start_ns = wl_now_ns();
	s->fn(run);
	run->end_ns = wl_now_ns();
	wl_scan_io_threads(run);
	if (run->dir_created && !o->keep && rmdir(run->dir) < 0)
		fprintf(stderr, "workload: cannot remove %s: %s\n", run->dir, strerror(errno));
	return run;
}

static int print_json(struct json_out *out)
{
	size_t len;
	char *text = json_out_steal(out, &len);

	if (!text) {
		fprintf(stderr, "workload: cannot build the JSON document\n");
		return -1;
	}
	fwrite(text, 1, len, stdout);
	fputc('\n', stdout);
	free(text);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "workload: cannot write the JSON: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int status_exit(enum wl_status s)
{
	return s == WL_FAILED ? WL_EXIT_FAILED :
	       s == WL_UNAVAILABLE ? WL_EXIT_UNAVAILABLE : WL_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct wl_run *runs[N_SCENARIOS];
	const char *name = NULL;
	struct json_out out;
	struct wl_opts opts;
	enum wl_status status = WL_OK;
	uint64_t start, end;
	size_t i, n = 0;
	int ret;

	ret = parse_args(argc, argv, &opts, &name);
	if (ret == 1) {
		usage(stdout);
		return WL_EXIT_OK;
	}
	if (ret == 2) {
		for (i = 0; i < N_SCENARIOS; i++)
			printf("%s\n", scenarios[i].name);
		printf("all\n");
		return WL_EXIT_OK;
	}
	if (ret < 0)
		return WL_EXIT_USAGE;
	if (!check_knobs(&opts, name))
		return WL_EXIT_USAGE;

	if (opts.wait_ms)
		wl_sleep_ms(opts.wait_ms);
	json_out_init(&out, !opts.compact);
	if (!strcmp(name, "all")) {
		opts.in_all = true;
		start = wl_now_ns();
		for (i = 0; i < N_SCENARIOS; i++) {
			runs[n] = run_scenario(&scenarios[i], &opts);
			if (runs[n]->status == WL_FAILED)
				status = WL_FAILED;
			else if (runs[n]->status == WL_UNAVAILABLE && status == WL_OK)
				status = WL_UNAVAILABLE;
			n++;
		}
		end = wl_now_ns();
		wl_json_all(&out, runs, n, &opts, start, end);
	} else {
		for (i = 0; i < N_SCENARIOS; i++)
			if (!strcmp(scenarios[i].name, name))
				break;
		if (i == N_SCENARIOS) {
			fprintf(stderr, "workload: unknown scenario '%s' (workload --list)\n", name);
			json_out_free(&out);
			return WL_EXIT_USAGE;
		}
		runs[n] = run_scenario(&scenarios[i], &opts);
		status = runs[n]->status;
		n++;
		wl_json_run(&out, runs[0], true);
	}
	if (print_json(&out) < 0)
		status = WL_FAILED;
	json_out_free(&out);
	for (i = 0; i < n; i++)
		run_free(runs[i]);
	return status_exit(status);
}
