/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * tests/workload: the ground-truth io_uring workload (see workload.c for the
 * scenarios and the JSON it prints).
 *
 * Everything the program does to io_uring goes through this interface, so
 * that every io_uring_setup/enter/register call it makes is counted and every
 * CQE it reaps is checked against what the scenario expected:
 *
 *   wl_ring_new()      io_uring_setup (through liburing, which makes exactly
 *                      one io_uring_setup call and maps the rings)
 *   wl_get_sqe()+      prepare an SQE with liburing's io_uring_prep_*(), then
 *   wl_expect*()       give it a user_data and say which CQE(s) it must post
 *   wl_submit()        one io_uring_enter, made by us with syscall(2): liburing
 *   wl_wait()          never enters the kernel on our behalf
 *   wl_register()      one io_uring_register, made by us with syscall(2)
 *
 * CQEs are reaped straight from the shared ring (never via liburing helpers
 * that may enter the kernel), and only right after a wait, exactly as many as
 * waited for: that keeps every min_complete the program passes deterministic.
 */
#ifndef RINGSIDE_WORKLOAD_H
#define RINGSIDE_WORKLOAD_H

#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WL_SCHEMA "ringside-workload/1"

/* Exit statuses (documented in workload.c and --help). */
#define WL_EXIT_OK		0
#define WL_EXIT_FAILED		1	/* the kernel did something unexpected, or a call failed */
#define WL_EXIT_USAGE		2
#define WL_EXIT_UNAVAILABLE	3	/* a feature the scenario needs was refused */

/*
 * user_data = scenario * WL_UD_SCENARIO + ring * WL_UD_RING + sequence
 * (sequence from 1).  Decimal on purpose: 3001000005 reads "scenario 3,
 * ring 1, request 5" in a trace.  Below 2^53, so exact in any JSON reader.
 */
#define WL_UD_SCENARIO	1000000000ULL
#define WL_UD_RING	1000000ULL

/* Most CQEs one request may post (multishot: shots + the final one). */
#define WL_MAX_CQES	17

/* Request paths the program can promise (bits in wl_req.paths). */
enum wl_path {
	WL_PATH_ASYNC_FORCED	= 1 << 0, /* IOSQE_ASYNC: queued to io-wq */
	WL_PATH_ALWAYS_ASYNC	= 1 << 1, /* opcode never completes non-blocking (FSYNC) */
	WL_PATH_POLL_ARMED	= 1 << 2, /* must arm an internal poll (io_uring_poll_arm) */
	WL_PATH_DEFERRED	= 1 << 3, /* must be deferred by a drain (io_uring_defer) */
	WL_PATH_INIT_FAILED	= 1 << 4, /* rejected while the SQE was read (io_uring_req_failed) */
	/* Not guaranteed: reported under kernel_may_choose. */
	WL_PATH_MAY_IOWQ	= 1 << 8, /* buffered file I/O: the kernel may punt it */
	WL_PATH_MAY_POLL	= 1 << 9, /* may arm a poll (e.g. from an io-wq worker) */
	WL_PATH_MAY_DEFER	= 1 << 10, /* may or may not emit io_uring_defer */
};

struct wl_hist {		/* value -> count, in insertion order */
	struct wl_hist_ent {
		int64_t value;
		uint64_t count;
	} *ent;
	size_t n, cap;
};

struct wl_op_tally {
	uint64_t submitted;	/* SQEs handed to the kernel */
	uint64_t completed;	/* final CQEs (without IORING_CQE_F_MORE) */
	uint64_t cqes;		/* all CQEs */
	uint64_t cqes_more;	/* CQEs with IORING_CQE_F_MORE */
	struct wl_hist res;	/* res of every CQE */
	struct wl_hist cflags;	/* cqe->flags (low 16 bits) of every CQE */
};

struct wl_tally {
	struct wl_op_tally op[256];
};

struct wl_req {
	uint64_t user_data;
	uint8_t opcode;
	uint8_t sqe_flags;
	bool submitted;
	bool done;
	uint16_t paths;		/* enum wl_path */
	uint8_t n_expect;	/* CQEs expected (1 unless multishot) */
	uint8_t n_cqes;		/* CQEs seen */
	int32_t expect[WL_MAX_CQES];
	int32_t got[WL_MAX_CQES];
	uint32_t cflags_or;	/* OR of the flags of its CQEs */
	int chain;		/* link chain number in its ring, -1 if none */
	uint64_t done_order;	/* ring-wide order of the final CQE, from 1 */
	uint64_t reaped_ns;	/* CLOCK_BOOTTIME just after the CQ head moved
				 * past its final CQE, 0 not reaped */
	int file;		/* index in run->files of its file, -1 none */
	char what[56];
};

/*
 * A file requests work on, as the kernel names it (wl_file_add): the
 * converter must give every request tagged with it exactly this identity,
 * whether it reached the file by fd or as a fixed file.
 */
#define WL_MAX_FILES 16

struct wl_file {
	char name[24];
	char path[720];		/* readlink(/proc/self/fd/N): "... (deleted)", "pipe:[N]" */
	unsigned dev_major, dev_minor;
	uint64_t ino;
	char type[12];		/* regular, pipe, socket, ... (uring-convert(1) Files) */
	char flags[40];		/* O_DIRECT|O_NONBLOCK|O_APPEND subset, "" none */
};

/* A CQE that belongs to no request of its ring (IORING_OP_MSG_RING target). */
struct wl_aux {
	uint64_t user_data;
	int32_t res;
	bool seen;
	uint64_t posted_by;	/* user_data of the MSG_RING request */
};

enum wl_call_kind { WL_CALL_SETUP, WL_CALL_ENTER, WL_CALL_REGISTER };

/* One io_uring system call the program made, in process-wide order. */
struct wl_call {
	uint64_t seq;
	enum wl_call_kind kind;
	int tid;
	int fd;			/* as passed (a registered-ring index with REGISTERED_RING) */
	unsigned a1;		/* enter: to_submit; register: opcode; setup: entries */
	unsigned a2;		/* enter: min_complete; register: nr_args; setup: cq_entries */
	unsigned flags;		/* enter: flags; setup: setup flags */
	long ret;		/* return value, -errno on failure */
	const char *ring;	/* ring name (NULL for a failed setup) */
};

struct wl_run;

struct wl_ring {
	struct io_uring ring;
	struct wl_run *run;
	char name[32];
	unsigned index;		/* in the run; part of user_data */
	int fd;
	int tid;		/* thread that created and drives it */
	uint64_t setup_seq;	/* seq of its io_uring_setup call */
	unsigned setup_flags;
	unsigned sq_entries, cq_entries;
	unsigned sq_thread_idle_ms;
	int sq_thread_tid;	/* SQPOLL thread, 0 if none */
	char sq_thread_comm[17];
	int reg_index;		/* registered ring fd index, -1 if none */
	int reg_index_used;	/* last index enter was called with, -1 if none */
	bool closed;

	/* Requests. */
	bool track;		/* keep a table (false: storm, counts only) */
	uint64_t ud_base;
	struct wl_req *reqs;
	size_t n_reqs, cap_reqs;
	size_t n_published;	/* reqs[0..n_published) handed to the kernel */
	uint64_t next_seq;	/* untracked mode */
	unsigned prepared;	/* SQEs prepared, not yet given to enter */
	int open_chain;		/* chain being built, -1 if none */
	int n_chains;
	uint64_t done_order;
	struct wl_aux aux[8];
	size_t n_aux;

	/* Counters. */
	struct wl_tally *tally;
	uint64_t cqes, cqes_more, cqes_aux;
	uint64_t enter_calls, register_calls;
	uint64_t enter_to_submit, enter_submitted;
	struct wl_hist enter_shape;	/* storm: to_submit histogram */
	bool log_calls;
	struct wl_call *calls;		/* enter and register calls */
	size_t n_calls, cap_calls;
};

struct wl_tid {
	int tid;
	char role[24];
	char comm[17];
};

struct wl_order {		/* drain: completion-order promises */
	uint64_t user_data;
	uint64_t after[8];
	size_t n_after;
	uint64_t before[8];
	size_t n_before;
};

struct wl_opts {
	const char *dir;
	uint64_t seed;
	unsigned batches, batch_size, count, size, rings, threads, delay_ms, wait_ms;
	unsigned sq_cpu, spin_ms;
	double seconds;
	bool batches_set, batch_size_set, count_set, size_set, seconds_set, sq_cpu_set;
	bool keep, compact;
	bool in_all;		/* running as part of "all" */
};

enum wl_status { WL_OK, WL_UNAVAILABLE, WL_FAILED };

struct wl_param {
	char key[24];
	bool is_str, is_double;
	int64_t num;
	double dbl;
	char str[256];
};

struct wl_run {
	const char *scenario;
	unsigned scen_id;
	const struct wl_opts *opts;
	pthread_mutex_t lock;	/* for everything below that threads append to */
	enum wl_status status;
	char **errors;
	size_t n_errors;
	char **notes;		/* kernel_may_choose notes */
	size_t n_notes;
	struct wl_ring **rings;
	size_t n_rings;
	struct wl_tid *tids;
	size_t n_tids;
	struct wl_call *setups;	/* io_uring_setup calls, including failed ones */
	size_t n_setups;
	struct wl_order *orders;
	size_t n_orders;
	struct wl_tid *io_threads;	/* iou-* threads seen at the end */
	size_t n_io_threads;
	struct wl_param params[16];
	size_t n_params;
	uint64_t start_ns, end_ns;
	char dir[512];		/* scratch directory ("" if none) */
	bool dir_created;
	struct wl_file files[WL_MAX_FILES];
	size_t n_files;
	/* storm */
	bool storm;
	uint64_t storm_elapsed_ns;
};

/* ---- workload_ring.c ---- */

void wl_fail(struct wl_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wl_unavailable(struct wl_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void wl_note(struct wl_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool wl_ok(const struct wl_run *run);
void wl_param_num(struct wl_run *run, const char *key, int64_t v);
void wl_param_str(struct wl_run *run, const char *key, const char *v);
void wl_param_double(struct wl_run *run, const char *key, double v);

uint64_t wl_now_ns(void);	/* CLOCK_BOOTTIME, the recorder's clock */
int wl_gettid(void);
void wl_sleep_ms(unsigned ms);
void *wl_xcalloc(size_t n, size_t size);
void *wl_xrealloc(void *p, size_t n, size_t size);

/* The calling thread, with a role; reads its comm. */
void wl_register_thread(struct wl_run *run, const char *role);
void wl_scan_io_threads(struct wl_run *run);
/* A fresh scratch directory (--dir or $TMPDIR); NULL on failure (recorded). */
const char *wl_scratch_dir(struct wl_run *run);
/* dir/name into buf. */
void wl_path(struct wl_run *run, char *buf, size_t len, const char *name);

void wl_hist_add(struct wl_hist *h, int64_t value, uint64_t count);
void wl_hist_free(struct wl_hist *h);

/*
 * Set up a ring with liburing (one io_uring_setup).  params may be NULL.
 * Returns NULL when setup fails; the failed call is recorded, and -errno is
 * stored in *err (if err).  Does not mark the run failed: the caller decides
 * whether a refusal is a failure or "unavailable".
 */
struct wl_ring *wl_ring_new(struct wl_run *run, const char *name,
			    unsigned entries, struct io_uring_params *params,
			    int *err);
/* Record why a ring could not be set up (unavailable or failed). */
void wl_setup_failed(struct wl_run *run, const char *ring, int err);
/* Check the ring is quiet (no request pending, CQ empty, nothing lost) and
 * unmap/close it (no io_uring system call). */
void wl_ring_close(struct wl_ring *r);
void wl_ring_free(struct wl_ring *r);

/* Next SQE; fails the run (returns NULL) if the SQ is full: a scenario bug. */
struct io_uring_sqe *wl_get_sqe(struct wl_ring *r);
/*
 * Give a prepared SQE its user_data and one expected CQE result.  Call it
 * after setting sqe->flags.  Returns the request (stable until the next
 * wl_expect on this ring).
 */
struct wl_req *wl_expect(struct wl_ring *r, struct io_uring_sqe *sqe,
			 int32_t res, const char *what);
/* Multishot: n_more CQEs with IORING_CQE_F_MORE, then final_res. */
struct wl_req *wl_expect_multi(struct wl_ring *r, struct io_uring_sqe *sqe,
			       const int32_t *more_res, unsigned n_more,
			       int32_t final_res, const char *what);
/* An extra CQE the ring must receive from elsewhere (MSG_RING). */
void wl_expect_aux(struct wl_ring *r, uint64_t user_data, int32_t res,
		   uint64_t posted_by);
uint64_t wl_next_user_data(const struct wl_ring *r);
void wl_mark(struct wl_req *q, unsigned paths);
/* Describe fd's file (after any unlink) as files[i]; -1 on failure. */
int wl_file_add(struct wl_run *run, const char *name, int fd);
/* q works on run->files[file]; returns q. */
struct wl_req *wl_file_tag(struct wl_req *q, int file);
/* Storm: n NOPs, counted but not tracked one by one. */
void wl_prep_nops_untracked(struct wl_ring *r, unsigned n);

/*
 * One io_uring_enter: submits every prepared SQE and waits for wait_nr CQEs
 * (IORING_ENTER_GETEVENTS when wait_nr > 0), then reaps exactly wait_nr.
 * The kernel must accept all SQEs.  For an SQPOLL ring it only publishes the
 * SQEs (entering only to wake a sleeping SQ thread) and then waits.
 * Returns false if anything went wrong (recorded).
 */
bool wl_submit(struct wl_ring *r, unsigned wait_nr);
/* Submit without waiting, then one more enter for wait_nr. */
bool wl_wait(struct wl_ring *r, unsigned wait_nr);
/* A raw io_uring_enter, recorded; returns the result or -errno. */
long wl_enter(struct wl_ring *r, unsigned to_submit, unsigned min_complete,
	      unsigned flags);
/* A raw io_uring_register on the ring's fd, recorded. */
long wl_register(struct wl_ring *r, unsigned opcode, const void *arg,
		 unsigned nr_args);
/* Reap exactly n CQEs that are already in the CQ ring. */
bool wl_reap(struct wl_ring *r, unsigned n);
/* Record a completion-order promise (drain). */
void wl_order(struct wl_run *run, uint64_t user_data, const uint64_t *after,
	      size_t n_after, const uint64_t *before, size_t n_before);
/* Check the promises against the rings' done_order. */
void wl_check_orders(struct wl_run *run);

/* A helper thread that writes to fds after delays, on request. */
struct wl_write_job {
	unsigned delay_ms;	/* before this write */
	int fd;
	const void *buf;
	size_t len;
	int shutdown_how;	/* >= 0: shutdown(fd, how) instead of write */
};

struct wl_writer;
struct wl_writer *wl_writer_start(struct wl_run *run, const char *name);
/* Run jobs (copied) in the writer thread; returns at once. */
void wl_writer_kick(struct wl_writer *w, const struct wl_write_job *jobs,
		    size_t n);
void wl_writer_stop(struct wl_writer *w);

/* ---- workload_scenarios.c / workload_more.c ---- */

typedef void (*wl_scenario_fn)(struct wl_run *run);

struct wl_scenario {
	const char *name;
	wl_scenario_fn fn;
	const char *help;
};

void wl_scen_nop(struct wl_run *run);
void wl_scen_rw(struct wl_run *run);
void wl_scen_link(struct wl_run *run);
void wl_scen_poll(struct wl_run *run);
void wl_scen_timeout(struct wl_run *run);
void wl_scen_rings(struct wl_run *run);
void wl_scen_threads(struct wl_run *run);
void wl_scen_sqpoll(struct wl_run *run);
void wl_scen_registered(struct wl_run *run);
void wl_scen_drain(struct wl_run *run);
void wl_scen_multishot(struct wl_run *run);
void wl_scen_storm(struct wl_run *run);
void wl_scen_demo(struct wl_run *run);
void wl_scen_streams(struct wl_run *run);
void wl_scen_recreate(struct wl_run *run);

/* Helpers shared by scenarios. */
int wl_open_scratch_file(struct wl_run *run, const char *name, size_t size);
void wl_fill_pattern(void *buf, size_t len, uint64_t seed, uint64_t salt);
bool wl_nonblocking_pipe(struct wl_run *run, int fds[2]);

/* ---- workload_json.c ---- */

struct json_out;
void wl_json_run(struct json_out *o, struct wl_run *run, bool top);
void wl_json_all(struct json_out *o, struct wl_run **runs, size_t n,
		 const struct wl_opts *opts, uint64_t start_ns, uint64_t end_ns);

#endif
