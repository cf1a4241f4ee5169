// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload: rings, system calls and CQE accounting.
 *
 * Every io_uring_enter and io_uring_register is made here with syscall(2),
 * never by liburing, so the program knows exactly which calls it made: in
 * liburing 2.3, io_uring_submit() may skip the system call (SQPOLL) and
 * io_uring_wait_cqe()/peek may enter the kernel on their own (CQ overflow,
 * IORING_SQ_TASKRUN), and io_uring_register_files() retries after raising
 * RLIMIT_NOFILE.  liburing is used for io_uring_queue_init_params() (one
 * io_uring_setup plus mmap), io_uring_queue_exit() (munmap and close; we
 * never let liburing register the ring fd, so it makes no register call) and
 * the io_uring_prep_*() helpers.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "uring_names.h"
#include "workload.h"

/* Process-wide order of the io_uring system calls the program makes. */
static atomic_uint_fast64_t call_seq;

/* io_uring_setup calls are serialised so that setup_seq order is the order
 * the kernel saw them in, even when several threads create rings. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- basics */

void *wl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "workload: out of memory\n");
		exit(WL_EXIT_FAILED);
	}
	return p;
}

void *wl_xrealloc(void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size) {
		fprintf(stderr, "workload: allocation too large\n");
		exit(WL_EXIT_FAILED);
	}
	q = realloc(p, n && size ? n * size : 1);
	if (!q) {
		fprintf(stderr, "workload: out of memory\n");
		exit(WL_EXIT_FAILED);
	}
	return q;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		fprintf(stderr, "workload: out of memory\n");
		exit(WL_EXIT_FAILED);
	}
	return s;
}

static void push_str(struct wl_run *run, char ***list, size_t *n, char *s)
{
	pthread_mutex_lock(&run->lock);
	*list = wl_xrealloc(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = s;
	pthread_mutex_unlock(&run->lock);
}

void wl_fail(struct wl_run *run, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "workload: %s: %s\n", run->scenario, msg);
	push_str(run, &run->errors, &run->n_errors, msg);
	pthread_mutex_lock(&run->lock);
	run->status = WL_FAILED;
	pthread_mutex_unlock(&run->lock);
}

void wl_unavailable(struct wl_run *run, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(stderr, "workload: %s: unavailable: %s\n", run->scenario, msg);
	push_str(run, &run->errors, &run->n_errors, msg);
	pthread_mutex_lock(&run->lock);
	if (run->status == WL_OK)
		run->status = WL_UNAVAILABLE;
	pthread_mutex_unlock(&run->lock);
}

void wl_note(struct wl_run *run, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	push_str(run, &run->notes, &run->n_notes, msg);
}

bool wl_ok(const struct wl_run *run)
{
	return run->status == WL_OK;
}

static struct wl_param *new_param(struct wl_run *run, const char *key)
{
	struct wl_param *p;

	if (run->n_params >= sizeof(run->params) / sizeof(run->params[0])) {
		wl_fail(run, "too many parameters (internal)");
		return NULL;
	}
	p = &run->params[run->n_params++];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", key);
	return p;
}

void wl_param_num(struct wl_run *run, const char *key, int64_t v)
{
	struct wl_param *p = new_param(run, key);

	if (p)
		p->num = v;
}

void wl_param_double(struct wl_run *run, const char *key, double v)
{
	struct wl_param *p = new_param(run, key);

	if (!p)
		return;
	p->is_double = true;
	p->dbl = v;
}

void wl_param_str(struct wl_run *run, const char *key, const char *v)
{
	struct wl_param *p = new_param(run, key);

	if (!p)
		return;
	p->is_str = true;
	snprintf(p->str, sizeof(p->str), "%s", v);
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int wl_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

void wl_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void wl_hist_add(struct wl_hist *h, int64_t value, uint64_t count)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (h->ent[i].value == value) {
			h->ent[i].count += count;
			return;
		}
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 4;
		h->ent = wl_xrealloc(h->ent, h->cap, sizeof(*h->ent));
	}
	h->ent[h->n].value = value;
	h->ent[h->n].count = count;
	h->n++;
}

void wl_hist_free(struct wl_hist *h)
{
	free(h->ent);
	memset(h, 0, sizeof(*h));
}

/* ---------------------------------------------------------------- threads */

static void read_comm(int tid, char *comm, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(comm, len, "?");
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(comm, len, "?");
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static void add_tid(struct wl_run *run, int tid, const char *role, const char *comm)
{
	struct wl_tid *t;

	pthread_mutex_lock(&run->lock);
	run->tids = wl_xrealloc(run->tids, run->n_tids + 1, sizeof(*run->tids));
	t = &run->tids[run->n_tids++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	snprintf(t->role, sizeof(t->role), "%s", role);
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	pthread_mutex_unlock(&run->lock);
}

void wl_register_thread(struct wl_run *run, const char *role)
{
	char comm[17] = "";

	if (prctl(PR_GET_NAME, comm) < 0)
		snprintf(comm, sizeof(comm), "?");
	add_tid(run, wl_gettid(), role, comm);
}

/* Thread ids of this process, sorted ascending; returns the count. */
static size_t list_tasks(int *tids, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	d = opendir("/proc/self/task");
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		int tid = atoi(de->d_name);

		if (tid > 0)
			tids[n++] = tid;
	}
	closedir(d);
	return n;
}

static bool in_list(const int *list, size_t n, int v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return true;
	return false;
}

void wl_scan_io_threads(struct wl_run *run)
{
	int tids[512];
	size_t n = list_tasks(tids, 512), i;

	for (i = 0; i < n; i++) {
		char comm[17];

		read_comm(tids[i], comm, sizeof(comm));
		if (strncmp(comm, "iou-", 4))
			continue;
		run->io_threads = wl_xrealloc(run->io_threads, run->n_io_threads + 1,
					      sizeof(*run->io_threads));
		memset(&run->io_threads[run->n_io_threads], 0, sizeof(struct wl_tid));
		run->io_threads[run->n_io_threads].tid = tids[i];
		snprintf(run->io_threads[run->n_io_threads].role,
			 sizeof(run->io_threads[0].role), "io-thread");
		snprintf(run->io_threads[run->n_io_threads].comm,
			 sizeof(run->io_threads[0].comm), "%s", comm);
		run->n_io_threads++;
	}
}

/* ---------------------------------------------------------------- files */

const char *wl_scratch_dir(struct wl_run *run)
{
	const char *tmp;

	if (run->dir[0])
		return run->dir;
	if (run->opts->dir) {
		struct stat st;

		if (stat(run->opts->dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			wl_fail(run, "--dir %s: not a directory", run->opts->dir);
			return NULL;
		}
		snprintf(run->dir, sizeof(run->dir), "%s", run->opts->dir);
		wl_param_str(run, "dir", run->dir);
		return run->dir;
	}
	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if ((size_t)snprintf(run->dir, sizeof(run->dir), "%s/ringside-workload-XXXXXX",
			     tmp) >= sizeof(run->dir) || !mkdtemp(run->dir)) {
		wl_fail(run, "cannot create a directory under %s: %s", tmp, strerror(errno));
		run->dir[0] = '\0';
		return NULL;
	}
	run->dir_created = true;
	wl_param_str(run, "dir", run->dir);
	return run->dir;
}

void wl_path(struct wl_run *run, char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s-%d", run->dir, name, (int)getpid());
}

void wl_fill_pattern(void *buf, size_t len, uint64_t seed, uint64_t salt)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + salt + 1;
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		/* xorshift64: cheap, and a wrong offset shows as wrong data */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

int wl_open_scratch_file(struct wl_run *run, const char *name, size_t size)
{
	char path[700];
	int fd;

	if (!wl_scratch_dir(run))
		return -1;
	wl_path(run, path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		wl_fail(run, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The open fd keeps the file; nothing to clean up later. */
	if (!run->opts->keep)
		unlink(path);
	if (size) {
		unsigned char *buf = wl_xcalloc(1, size);

		wl_fill_pattern(buf, size, run->opts->seed, 0xf11e);
		if (pwrite(fd, buf, size, 0) != (ssize_t)size) {
			wl_fail(run, "%s: cannot write %zu bytes", path, size);
			free(buf);
			close(fd);
			return -1;
		}
		free(buf);
	}
	return fd;
}

bool wl_nonblocking_pipe(struct wl_run *run, int fds[2])
{
	/*
	 * O_NONBLOCK matters: before 6.2 (no FMODE_NOWAIT on pipes) io_uring
	 * punts a READ of a blocking pipe to io-wq instead of arming a poll
	 * (io_file_supports_nowait() in 6.1 io_uring/rw.c).
	 */
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
		wl_fail(run, "pipe2: %s", strerror(errno));
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- rings */

static void record_setup(struct wl_run *run, struct wl_ring *r, unsigned entries,
			 const struct io_uring_params *p, long ret)
{
	struct wl_call *c;

	pthread_mutex_lock(&run->lock);
	run->setups = wl_xrealloc(run->setups, run->n_setups + 1, sizeof(*run->setups));
	c = &run->setups[run->n_setups++];
	memset(c, 0, sizeof(*c));
	c->seq = atomic_fetch_add(&call_seq, 1) + 1;
	c->kind = WL_CALL_SETUP;
	c->tid = wl_gettid();
	c->fd = -1;
	c->a1 = entries;
	c->a2 = (p->flags & IORING_SETUP_CQSIZE) ? p->cq_entries : 0;
	c->flags = p->flags;
	c->ret = ret;
	c->ring = r ? r->name : NULL;
	if (r)
		r->setup_seq = c->seq;
	pthread_mutex_unlock(&run->lock);
}

/* Find the SQPOLL thread the last setup created and wait until it has
 * named itself (it does so when it first runs: io_sq_thread()). */
static void find_sq_thread(struct wl_ring *r, const int *before, size_t n_before)
{
	int after[512];
	size_t n, i;
	int tries;

	for (tries = 0; tries < 400; tries++) {
		n = list_tasks(after, 512);
		for (i = 0; i < n; i++) {
			char comm[17];

			if (in_list(before, n_before, after[i]))
				continue;
			read_comm(after[i], comm, sizeof(comm));
			if (!strncmp(comm, "iou-sqp-", 8)) {
				r->sq_thread_tid = after[i];
				snprintf(r->sq_thread_comm, sizeof(r->sq_thread_comm), "%s", comm);
				return;
			}
		}
		wl_sleep_ms(5);
	}
}

/*
 * A new SQ thread has no work and io_sq_thread() starts with timeout 0, so
 * it goes to sleep (setting IORING_SQ_NEED_WAKEUP) at once (6.1..6.18).
 * Waiting for that makes the first submission need exactly one
 * io_uring_enter(IORING_ENTER_SQ_WAKEUP), instead of zero or one depending
 * on which thread runs first.
 */
static void wait_sq_thread_idle(struct wl_ring *r)
{
	int tries;

	for (tries = 0; tries < 400; tries++) {
		io_uring_smp_mb();
		if (IO_URING_READ_ONCE(*r->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP)
			return;
		wl_sleep_ms(5);
	}
	wl_note(r->run, "ring %s: the SQ thread did not go idle within 2 s", r->name);
}

struct wl_ring *wl_ring_new(struct wl_run *run, const char *name,
			    unsigned entries, struct io_uring_params *params,
			    int *err)
{
	struct io_uring_params p;
	struct wl_ring *r;
	int before[512];
	size_t n_before = 0;
	int ret;

	memset(&p, 0, sizeof(p));
	if (params)
		p = *params;
	r = wl_xcalloc(1, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->run = run;
	r->tid = wl_gettid();
	r->reg_index = -1;
	r->reg_index_used = -1;
	r->open_chain = -1;
	r->track = true;
	r->log_calls = true;
	r->tally = wl_xcalloc(1, sizeof(*r->tally));
	r->sq_thread_idle_ms = p.sq_thread_idle;

	pthread_mutex_lock(&setup_lock);
	if (p.flags & IORING_SETUP_SQPOLL)
		n_before = list_tasks(before, 512);
	ret = io_uring_queue_init_params(entries, &r->ring, &p);
	/* liburing 2.3 returns -errno; older builds returned -1 and errno */
	if (ret == -1 && errno > 1)
		ret = -errno;
	/* as the kernel got them: liburing may add flags (NO_SQARRAY) */
	r->setup_flags = p.flags;
	record_setup(run, ret < 0 ? NULL : r, entries, &p, ret < 0 ? ret : r->ring.ring_fd);
	pthread_mutex_unlock(&setup_lock);
	if (ret < 0) {
		if (err)
			*err = ret;
		free(r->tally);
		free(r);
		return NULL;
	}
	r->fd = r->ring.ring_fd;
	r->sq_entries = p.sq_entries;
	r->cq_entries = p.cq_entries;

	pthread_mutex_lock(&run->lock);
	r->index = (unsigned)run->n_rings;
	run->rings = wl_xrealloc(run->rings, run->n_rings + 1, sizeof(*run->rings));
	run->rings[run->n_rings++] = r;
	pthread_mutex_unlock(&run->lock);
	r->ud_base = run->scen_id * WL_UD_SCENARIO + r->index * WL_UD_RING;

	if (p.flags & IORING_SETUP_SQPOLL) {
		find_sq_thread(r, before, n_before);
		if (!r->sq_thread_tid)
			wl_fail(run, "ring %s: no iou-sqp thread appeared after setup", name);
		else
			add_tid(run, r->sq_thread_tid, "sqpoll", r->sq_thread_comm);
		wait_sq_thread_idle(r);
	}
	return r;
}

void wl_ring_close(struct wl_ring *r)
{
	struct wl_run *run = r->run;
	unsigned head, tail;
	size_t i;

	if (r->closed)
		return;
	r->closed = true;
	for (i = 0; r->track && i < r->n_reqs; i++) {
		struct wl_req *q = &r->reqs[i];

		if (!q->done)
			wl_fail(run, "ring %s: request %llu (%s) got %u of %u CQEs",
				r->name, (unsigned long long)q->user_data, q->what,
				q->n_cqes, q->n_expect);
	}
	for (i = 0; i < r->n_aux; i++)
		if (!r->aux[i].seen)
			wl_fail(run, "ring %s: no CQE with user_data %llu (posted by %llu)",
				r->name, (unsigned long long)r->aux[i].user_data,
				(unsigned long long)r->aux[i].posted_by);
	if (r->prepared)
		wl_fail(run, "ring %s: %u SQEs prepared but never submitted (internal)",
			r->name, r->prepared);
	head = *r->ring.cq.khead;
	tail = io_uring_smp_load_acquire(r->ring.cq.ktail);
	if (tail != head)
		wl_fail(run, "ring %s: %u unexpected CQEs left in the CQ ring",
			r->name, tail - head);
	if (*r->ring.cq.koverflow)
		wl_fail(run, "ring %s: %u CQEs overflowed", r->name, *r->ring.cq.koverflow);
	if (*r->ring.sq.kdropped)
		wl_fail(run, "ring %s: kernel dropped %u invalid SQEs", r->name,
			*r->ring.sq.kdropped);
	io_uring_queue_exit(&r->ring);
}

void wl_ring_free(struct wl_ring *r)
{
	unsigned i;

	if (!r)
		return;
	if (!r->closed)
		wl_ring_close(r);
	for (i = 0; i < 256; i++) {
		wl_hist_free(&r->tally->op[i].res);
		wl_hist_free(&r->tally->op[i].cflags);
	}
	free(r->tally);
	wl_hist_free(&r->enter_shape);
	free(r->reqs);
	free(r->calls);
	free(r);
}

void wl_setup_failed(struct wl_run *run, const char *ring, int err)
{
	/*
	 * EPERM: io_uring disabled by the kernel.io_uring_disabled sysctl
	 * (6.6+), or SQPOLL refused to an unprivileged user; ENOSYS: no
	 * io_uring at all.  The scenario cannot run here: exit status 3.
	 */
	if (err == -EPERM || err == -EACCES || err == -ENOSYS)
		wl_unavailable(run, "io_uring_setup for ring %s refused: %s",
			       ring, strerror(-err));
	else
		wl_fail(run, "io_uring_setup for ring %s failed: %s", ring,
			strerror(-err));
}

/* ---------------------------------------------------------------- SQEs */

struct io_uring_sqe *wl_get_sqe(struct wl_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe) {
		wl_fail(r->run, "ring %s: SQ ring full after %u SQEs (scenario bug)",
			r->name, r->prepared);
		return NULL;
	}
	memset(sqe, 0, sizeof(*sqe));
	r->prepared++;
	return sqe;
}

uint64_t wl_next_user_data(const struct wl_ring *r)
{
	return r->ud_base + r->n_reqs + 1;
}

static struct wl_req *new_req(struct wl_ring *r, struct io_uring_sqe *sqe,
			      const char *what)
{
	struct wl_req *q;

	if (!r->track) {
		wl_fail(r->run, "ring %s: tracked request on an untracked ring (internal)",
			r->name);
		return NULL;
	}
	if (r->n_reqs + 1 >= WL_UD_RING) {
		wl_fail(r->run, "ring %s: too many requests", r->name);
		return NULL;
	}
	if (r->n_reqs == r->cap_reqs) {
		r->cap_reqs = r->cap_reqs ? 2 * r->cap_reqs : 64;
		r->reqs = wl_xrealloc(r->reqs, r->cap_reqs, sizeof(*r->reqs));
	}
	q = &r->reqs[r->n_reqs++];
	memset(q, 0, sizeof(*q));
	q->file = -1;
	q->user_data = r->ud_base + r->n_reqs;
	q->opcode = sqe->opcode;
	q->sqe_flags = sqe->flags;
	snprintf(q->what, sizeof(q->what), "%s", what);
	sqe->user_data = q->user_data;
	if (sqe->flags & IOSQE_ASYNC)
		q->paths |= WL_PATH_ASYNC_FORCED;

	/* Link chains: a chain runs up to the first member without a link flag. */
	q->chain = r->open_chain;
	if (sqe->flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)) {
		if (q->chain < 0)
			q->chain = r->open_chain = r->n_chains++;
	} else {
		r->open_chain = -1;
	}
	return q;
}

struct wl_req *wl_expect(struct wl_ring *r, struct io_uring_sqe *sqe,
			 int32_t res, const char *what)
{
	struct wl_req *q;

	if (!sqe)
		return NULL;
	q = new_req(r, sqe, what);
	if (!q)
		return NULL;
	q->n_expect = 1;
	q->expect[0] = res;
	return q;
}

struct wl_req *wl_expect_multi(struct wl_ring *r, struct io_uring_sqe *sqe,
			       const int32_t *more_res, unsigned n_more,
			       int32_t final_res, const char *what)
{
	struct wl_req *q;
	unsigned i;

	if (!sqe)
		return NULL;
	if (n_more + 1 > WL_MAX_CQES) {
		wl_fail(r->run, "%s: at most %d CQEs per request", what, WL_MAX_CQES);
		return NULL;
	}
	q = new_req(r, sqe, what);
	if (!q)
		return NULL;
	for (i = 0; i < n_more; i++)
		q->expect[i] = more_res[i];
	q->expect[n_more] = final_res;
	q->n_expect = (uint8_t)(n_more + 1);
	return q;
}

void wl_expect_aux(struct wl_ring *r, uint64_t user_data, int32_t res,
		   uint64_t posted_by)
{
	if (r->n_aux >= sizeof(r->aux) / sizeof(r->aux[0])) {
		wl_fail(r->run, "ring %s: too many aux CQEs (internal)", r->name);
		return;
	}
	r->aux[r->n_aux].user_data = user_data;
	r->aux[r->n_aux].res = res;
	r->aux[r->n_aux].posted_by = posted_by;
	r->aux[r->n_aux].seen = false;
	r->n_aux++;
}

void wl_mark(struct wl_req *q, unsigned paths)
{
	if (q)
		q->paths |= (uint16_t)paths;
}

int wl_file_add(struct wl_run *run, const char *name, int fd)
{
	struct wl_file *f;
	char link[64];
	struct stat st;
	ssize_t n;
	int fl;

	if (run->n_files == WL_MAX_FILES) {
		wl_fail(run, "more than %d files described", WL_MAX_FILES);
		return -1;
	}
	f = &run->files[run->n_files];
	memset(f, 0, sizeof(*f));
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, f->path, sizeof(f->path) - 1);
	fl = fcntl(fd, F_GETFL);
	if (n < 0 || fstat(fd, &st) < 0 || fl < 0) {
		wl_fail(run, "%s: cannot describe fd %d: %s", name, fd, strerror(errno));
		return -1;
	}
	f->path[n] = '\0';
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->dev_major = major(st.st_dev);
	f->dev_minor = minor(st.st_dev);
	f->ino = st.st_ino;
	snprintf(f->type, sizeof(f->type), "%s",
		 !strcmp(f->path, "anon_inode:[eventfd]") ? "eventfd" :
		 !strcmp(f->path, "anon_inode:[io_uring]") ? "io_uring" :
		 S_ISREG(st.st_mode) ? "regular" : S_ISFIFO(st.st_mode) ? "pipe" :
		 S_ISSOCK(st.st_mode) ? "socket" : S_ISBLK(st.st_mode) ? "block" :
		 S_ISCHR(st.st_mode) ? "char" : "other");
	snprintf(f->flags, sizeof(f->flags), "%s%s%s%s%s",
		 fl & O_DIRECT ? "O_DIRECT" : "",
		 (fl & O_DIRECT) && (fl & O_NONBLOCK) ? "|" : "",
		 fl & O_NONBLOCK ? "O_NONBLOCK" : "",
		 (fl & (O_DIRECT | O_NONBLOCK)) && (fl & O_APPEND) ? "|" : "",
		 fl & O_APPEND ? "O_APPEND" : "");
	return (int)run->n_files++;
}

struct wl_req *wl_file_tag(struct wl_req *q, int file)
{
	if (q)
		q->file = file;
	return q;
}

void wl_prep_nops_untracked(struct wl_ring *r, unsigned n)
{
	unsigned i;

	r->track = false;
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = wl_get_sqe(r);

		if (!sqe)
			return;
		io_uring_prep_nop(sqe);
		sqe->user_data = r->ud_base + ++r->next_seq;
	}
}

/* ---------------------------------------------------------------- calls */

static void log_call(struct wl_ring *r, enum wl_call_kind kind, int fd,
		     unsigned a1, unsigned a2, unsigned flags, long ret)
{
	struct wl_call *c;
	uint64_t seq = atomic_fetch_add(&call_seq, 1) + 1;

	if (!r->log_calls)
		return;
	if (r->n_calls == r->cap_calls) {
		r->cap_calls = r->cap_calls ? 2 * r->cap_calls : 32;
		r->calls = wl_xrealloc(r->calls, r->cap_calls, sizeof(*r->calls));
	}
	c = &r->calls[r->n_calls++];
	c->seq = seq;
	c->kind = kind;
	c->tid = wl_gettid();
	c->fd = fd;
	c->a1 = a1;
	c->a2 = a2;
	c->flags = flags;
	c->ret = ret;
	c->ring = r->name;
}

long wl_enter(struct wl_ring *r, unsigned to_submit, unsigned min_complete,
	      unsigned flags)
{
	int fd = r->fd;
	long ret;

	if (r->reg_index >= 0) {
		fd = r->reg_index;
		flags |= IORING_ENTER_REGISTERED_RING;
		r->reg_index_used = r->reg_index;
	}
	/* The last argument is the sigset size, as liburing passes it. */
	ret = syscall(__NR_io_uring_enter, fd, to_submit, min_complete, flags,
		      NULL, _NSIG / 8);
	if (ret < 0)
		ret = -errno;
	r->enter_calls++;
	r->enter_to_submit += to_submit;
	if (ret > 0 && to_submit)
		r->enter_submitted += (uint64_t)ret;
	if (!r->log_calls)
		wl_hist_add(&r->enter_shape, to_submit, 1);
	log_call(r, WL_CALL_ENTER, fd, to_submit, min_complete, flags, ret);
	return ret;
}

long wl_register(struct wl_ring *r, unsigned opcode, const void *arg,
		 unsigned nr_args)
{
	long ret;

	ret = syscall(__NR_io_uring_register, r->fd, opcode, arg, nr_args);
	if (ret < 0)
		ret = -errno;
	r->register_calls++;
	log_call(r, WL_CALL_REGISTER, r->fd, opcode, nr_args, 0, ret);
	return ret;
}

static const char *res_name(int64_t res, char *buf, size_t len)
{
	const char *e = res < 0 ? errno_name((int)-res) : NULL;

	if (e)
		snprintf(buf, len, "-%s", e);
	else
		snprintf(buf, len, "%lld", (long long)res);
	return buf;
}

static const char *op_name(unsigned op, char *buf, size_t len)
{
	const char *n = uring_opcode_name(op);

	if (n)
		return n;
	snprintf(buf, len, "OP_%u", op);
	return buf;
}

static void tally_cqe(struct wl_ring *r, unsigned opcode, int32_t res,
		      uint32_t flags, bool final)
{
	struct wl_op_tally *t = &r->tally->op[opcode & 0xff];

	t->cqes++;
	wl_hist_add(&t->res, res, 1);
	wl_hist_add(&t->cflags, flags & 0xffff, 1);
	if (final) {
		t->completed++;
	} else {
		t->cqes_more++;
		r->cqes_more++;
	}
	r->cqes++;
}

static void handle_cqe(struct wl_ring *r, const struct io_uring_cqe *cqe)
{
	struct wl_run *run = r->run;
	bool more = cqe->flags & IORING_CQE_F_MORE;
	uint64_t ud = cqe->user_data;
	char b1[32], b2[32], b3[32];
	struct wl_req *q;
	size_t i;
	unsigned k;

	if (!r->track) {
		if (ud <= r->ud_base || ud > r->ud_base + r->next_seq || cqe->res != 0 || more)
			wl_fail(run, "ring %s: unexpected CQE user_data %llu res %s flags 0x%x",
				r->name, (unsigned long long)ud,
				res_name(cqe->res, b1, sizeof(b1)), cqe->flags);
		tally_cqe(r, IORING_OP_NOP, cqe->res, cqe->flags, !more);
		return;
	}
	if (ud > r->ud_base && ud <= r->ud_base + r->n_reqs) {
		q = &r->reqs[ud - r->ud_base - 1];
		tally_cqe(r, q->opcode, cqe->res, cqe->flags, !more);
		if (!q->submitted || q->done || q->n_cqes >= q->n_expect) {
			wl_fail(run, "ring %s: request %llu (%s): unexpected extra CQE res %s",
				r->name, (unsigned long long)ud, q->what,
				res_name(cqe->res, b1, sizeof(b1)));
			return;
		}
		k = q->n_cqes++;
		q->got[k] = cqe->res;
		q->cflags_or |= cqe->flags;
		if (!more)
			q->done = true;
		q->done_order = q->done ? ++r->done_order : 0;
		if (cqe->res != q->expect[k])
			wl_fail(run, "ring %s: request %llu (%s %s) CQE %u: res %s, expected %s",
				r->name, (unsigned long long)ud,
				op_name(q->opcode, b3, sizeof(b3)), q->what, k + 1,
				res_name(cqe->res, b1, sizeof(b1)),
				res_name(q->expect[k], b2, sizeof(b2)));
		if (more != (k + 1u < q->n_expect))
			wl_fail(run, "ring %s: request %llu (%s) CQE %u: IORING_CQE_F_MORE %s, expected %s",
				r->name, (unsigned long long)ud, q->what, k + 1,
				more ? "set" : "clear", more ? "the final CQE" : "more CQEs");
		return;
	}
	for (i = 0; i < r->n_aux; i++) {
		struct wl_aux *a = &r->aux[i];

		if (a->user_data != ud || a->seen)
			continue;
		a->seen = true;
		r->cqes++;
		r->cqes_aux++;
		if (cqe->res != a->res || more)
			wl_fail(run, "ring %s: CQE %llu posted by %llu: res %s flags 0x%x, expected %s",
				r->name, (unsigned long long)ud,
				(unsigned long long)a->posted_by,
				res_name(cqe->res, b1, sizeof(b1)), cqe->flags,
				res_name(a->res, b2, sizeof(b2)));
		return;
	}
	r->cqes++;
	wl_fail(run, "ring %s: CQE with unknown user_data %llu res %s",
		r->name, (unsigned long long)ud, res_name(cqe->res, b1, sizeof(b1)));
}

bool wl_reap(struct wl_ring *r, unsigned n)
{
	struct io_uring_cq *cq = &r->ring.cq;
	unsigned head = *cq->khead;
	unsigned tail = io_uring_smp_load_acquire(cq->ktail);
	uint64_t done_before = r->done_order, now;
	unsigned i;

	if (tail - head < n) {
		wl_fail(r->run, "ring %s: %u CQEs ready after waiting for %u",
			r->name, tail - head, n);
		n = tail - head;
	}
	for (i = 0; i < n; i++)
		handle_cqe(r, &cq->cqes[(head + i) & cq->ring_mask]);
	io_uring_smp_store_release(cq->khead, head + n);
	/* Ground truth for reaped_by_ns: the requests finished by this
	 * window were consumed at the latest now. */
	now = wl_now_ns();
	for (size_t j = 0; r->track && r->done_order > done_before && j < r->n_reqs; j++)
		if (r->reqs[j].done_order > done_before)
			r->reqs[j].reaped_ns = now;
	return wl_ok(r->run);
}

/* Make the prepared SQEs visible to the kernel (what liburing's
 * __io_uring_flush_sq does); returns how many. */
static unsigned publish_sqes(struct wl_ring *r)
{
	struct io_uring_sq *sq = &r->ring.sq;
	unsigned ktail = *sq->ktail;
	unsigned n = sq->sqe_tail - sq->sqe_head;
	unsigned i;

	/* liburing 2.6+ asks for IORING_SETUP_NO_SQARRAY (Linux 6.6+) where
	 * the kernel has it: no array, the kernel takes SQEs in ring order. */
	for (i = 0; i < n; i++) {
		if (sq->array)
			sq->array[ktail & sq->ring_mask] = sq->sqe_head & sq->ring_mask;
		ktail++;
		sq->sqe_head++;
	}
	io_uring_smp_store_release(sq->ktail, ktail);

	if (r->track) {
		for (; r->n_published < r->n_reqs; r->n_published++) {
			struct wl_req *q = &r->reqs[r->n_published];

			q->submitted = true;
			r->tally->op[q->opcode].submitted++;
		}
	} else {
		r->tally->op[IORING_OP_NOP].submitted += n;
	}
	r->prepared = 0;
	return n;
}

static bool enter_expect(struct wl_ring *r, unsigned to_submit, unsigned wait_nr,
			 unsigned flags, long want)
{
	long ret;
	char b[32];

	do {
		ret = wl_enter(r, to_submit, wait_nr, flags);
		/* A signal (none expected) makes the kernel return -EINTR;
		 * both calls are recorded, so the account stays exact. */
	} while (ret == -EINTR);
	if (ret != want) {
		wl_fail(r->run, "ring %s: io_uring_enter(to_submit %u, min_complete %u, flags 0x%x) = %s, expected %ld",
			r->name, to_submit, wait_nr, flags,
			res_name(ret, b, sizeof(b)), want);
		return false;
	}
	return true;
}

static unsigned cq_ready(const struct wl_ring *r)
{
	return io_uring_smp_load_acquire(r->ring.cq.ktail) - *r->ring.cq.khead;
}

/*
 * A waiting io_uring_enter also returns early when a TIMEOUT request fires
 * (io_should_wake() compares ctx->cq_timeouts, 6.1..6.18), possibly before
 * min_complete CQEs are there.  Scenarios are built so that a timer ends
 * a wait only as its last expected CQE, but the timer and the CQE it posts
 * through task work can race: then enter again, recorded like any call.
 */
static bool rewait_and_reap(struct wl_ring *r, unsigned wait_nr)
{
	unsigned tries = 0;

	while (cq_ready(r) < wait_nr && tries++ < 100) {
		if (!enter_expect(r, 0, wait_nr, IORING_ENTER_GETEVENTS, 0))
			return false;
	}
	return wl_reap(r, wait_nr);
}

bool wl_submit(struct wl_ring *r, unsigned wait_nr)
{
	unsigned n;

	n = publish_sqes(r);
	if (r->ring.flags & IORING_SETUP_SQPOLL) {
		/* The SQ thread submits; enter only to wake it up. */
		io_uring_smp_mb();
		if (n && (IO_URING_READ_ONCE(*r->ring.sq.kflags) & IORING_SQ_NEED_WAKEUP)) {
			if (!enter_expect(r, 0, 0, IORING_ENTER_SQ_WAKEUP, 0))
				return false;
		}
		return wl_wait(r, wait_nr);
	}
	if (!n && !wait_nr)
		return true;
	if (!enter_expect(r, n, wait_nr, wait_nr ? IORING_ENTER_GETEVENTS : 0, n))
		return false;
	return rewait_and_reap(r, wait_nr);
}

bool wl_wait(struct wl_ring *r, unsigned wait_nr)
{
	if (r->prepared) {
		wl_fail(r->run, "ring %s: wait with %u unsubmitted SQEs (internal)",
			r->name, r->prepared);
		return false;
	}
	if (!wait_nr)
		return true;
	if (!enter_expect(r, 0, wait_nr, IORING_ENTER_GETEVENTS, 0))
		return false;
	return rewait_and_reap(r, wait_nr);
}

/* ---------------------------------------------------------------- order */

void wl_order(struct wl_run *run, uint64_t user_data, const uint64_t *after,
	      size_t n_after, const uint64_t *before, size_t n_before)
{
	struct wl_order *o;

	if (n_after > 8 || n_before > 8) {
		wl_fail(run, "order: too many requests (internal)");
		return;
	}
	pthread_mutex_lock(&run->lock);
	run->orders = wl_xrealloc(run->orders, run->n_orders + 1, sizeof(*run->orders));
	o = &run->orders[run->n_orders++];
	memset(o, 0, sizeof(*o));
	o->user_data = user_data;
	if (n_after)
		memcpy(o->after, after, n_after * sizeof(*after));
	o->n_after = n_after;
	if (n_before)
		memcpy(o->before, before, n_before * sizeof(*before));
	o->n_before = n_before;
	pthread_mutex_unlock(&run->lock);
}

static const struct wl_req *find_req(struct wl_run *run, uint64_t ud)
{
	uint64_t ring = (ud % WL_UD_SCENARIO) / WL_UD_RING;
	uint64_t seq = ud % WL_UD_RING;
	struct wl_ring *r;

	if (ring >= run->n_rings)
		return NULL;
	r = run->rings[ring];
	if (!r->track || seq == 0 || seq > r->n_reqs)
		return NULL;
	return &r->reqs[seq - 1];
}

void wl_check_orders(struct wl_run *run)
{
	size_t i, j;

	for (i = 0; i < run->n_orders; i++) {
		const struct wl_order *o = &run->orders[i];
		const struct wl_req *q = find_req(run, o->user_data), *p;

		if (!q || !q->done)
			continue;	/* already reported as not completed */
		for (j = 0; j < o->n_after; j++) {
			p = find_req(run, o->after[j]);
			if (p && p->done && p->done_order > q->done_order)
				wl_fail(run, "request %llu (%s) completed before %llu (%s)",
					(unsigned long long)q->user_data, q->what,
					(unsigned long long)p->user_data, p->what);
		}
		for (j = 0; j < o->n_before; j++) {
			p = find_req(run, o->before[j]);
			if (p && p->done && p->done_order < q->done_order)
				wl_fail(run, "request %llu (%s) completed before %llu (%s)",
					(unsigned long long)p->user_data, p->what,
					(unsigned long long)q->user_data, q->what);
		}
	}
}

/* ---------------------------------------------------------------- writer */

struct wl_writer {
	struct wl_run *run;
	pthread_t thread;
	char name[16];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct wl_write_job jobs[16];
	size_t n_jobs;
	bool pending, stop, started;
};

static void *writer_main(void *arg)
{
	struct wl_writer *w = arg;
	struct wl_write_job jobs[16];
	size_t n, i;

	pthread_setname_np(pthread_self(), w->name);
	wl_register_thread(w->run, "writer");
	pthread_mutex_lock(&w->lock);
	w->started = true;
	pthread_cond_broadcast(&w->cond);
	for (;;) {
		while (!w->pending && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->pending && w->stop)
			break;
		n = w->n_jobs;
		memcpy(jobs, w->jobs, n * sizeof(jobs[0]));
		pthread_mutex_unlock(&w->lock);
		for (i = 0; i < n; i++) {
			const struct wl_write_job *j = &jobs[i];

			if (j->delay_ms)
				wl_sleep_ms(j->delay_ms);
			if (j->shutdown_how >= 0) {
				if (shutdown(j->fd, j->shutdown_how) < 0)
					wl_fail(w->run, "writer: shutdown: %s", strerror(errno));
			} else if (write(j->fd, j->buf, j->len) != (ssize_t)j->len) {
				wl_fail(w->run, "writer: write of %zu bytes: %s", j->len,
					strerror(errno));
			}
		}
		pthread_mutex_lock(&w->lock);
		w->pending = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct wl_writer *wl_writer_start(struct wl_run *run, const char *name)
{
	struct wl_writer *w = wl_xcalloc(1, sizeof(*w));

	w->run = run;
	snprintf(w->name, sizeof(w->name), "%s", name);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		wl_fail(run, "cannot start the writer thread");
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
		return NULL;
	}
	/* Registered (tid, comm) before the scenario goes on. */
	pthread_mutex_lock(&w->lock);
	while (!w->started)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return w;
}

void wl_writer_kick(struct wl_writer *w, const struct wl_write_job *jobs, size_t n)
{
	if (!w)
		return;
	if (n > 16)
		n = 16;
	pthread_mutex_lock(&w->lock);
	while (w->pending)
		pthread_cond_wait(&w->cond, &w->lock);
	memcpy(w->jobs, jobs, n * sizeof(*jobs));
	w->n_jobs = n;
	w->pending = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void wl_writer_stop(struct wl_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->pending)
		pthread_cond_wait(&w->cond, &w->lock);
	w->stop = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}
