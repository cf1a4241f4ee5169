// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/workload, checked without root: every scenario runs, prints one
 * well-formed, self-consistent JSON document (schema at the top of
 * tests/workload.c) and exits 0; each scenario did what its documentation
 * says; and, when strace is installed, every io_uring_setup/enter/register
 * call strace saw is in the JSON, in the same order per thread, with the
 * same arguments and results, and nothing else is.
 *
 * SQPOLL may be refused to unprivileged users on some kernels: the sqpoll
 * scenario may then exit 3 with status "unavailable" (accepted, reported).
 * Without strace the comparison is skipped with a message, except on CI
 * (CI=true), where it is mandatory.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "uring_names.h"
#include "test_util.h"

#ifndef WORKLOAD_BIN
#error "WORKLOAD_BIN must name the workload binary"
#endif

#define ENTER_GETEVENTS		1u
#define ENTER_SQ_WAKEUP		2u
#define ENTER_REGISTERED_RING	16u

/* ---------------------------------------------------------------- running */

struct result {
	char *out;		/* stdout, NUL-terminated */
	size_t len;
	int status;		/* exit status, or 128 + signal */
};

/* Run argv (argv[0] a path), capturing stdout; seccomp_eperm: make
 * io_uring_setup fail with EPERM in the child; traced: argv is strace. */
static struct result run(char *const argv[], bool seccomp_eperm, bool traced)
{
	struct result r = { NULL, 0, -1 };
	size_t cap = 0;
	int fds[2], st;
	pid_t pid;

	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if (traced) {
			/* LeakSanitizer cannot work under ptrace; the untraced
			 * run of the same scenario checks for leaks. */
			const char *o = getenv("ASAN_OPTIONS");
			char opts[1024];

			snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", o ? o : "",
				 o && *o ? ":" : "");
			setenv("ASAN_OPTIONS", opts, 1);
		}
		if (seccomp_eperm) {
			struct sock_filter filter[] = {
				BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
				BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
				BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			};
			struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
			    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
				_exit(120);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (cap - r.len < 4096) {
			cap = cap ? 2 * cap : 65536;
			r.out = realloc(r.out, cap + 1);
			ck_assert_ptr_nonnull(r.out);
		}
		n = read(fds[0], r.out + r.len, cap - r.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r.len += (size_t)n;
	}
	r.out[r.len] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

static void parse(const struct result *r, struct json_doc *doc)
{
	char err[256];

	ck_assert_msg(json_parse(r->out, r->len, doc, err, sizeof(err)) == 0,
		      "workload printed invalid JSON: %s", err);
	ck_assert_int_eq(doc->root.type, JSON_OBJECT);
}

/* ---------------------------------------------------------------- JSON helpers */

static const struct json_value *get(const struct json_value *o, const char *k, enum json_type t)
{
	const struct json_value *v = json_get(o, k);

	ck_assert_msg(v, "key \"%s\" missing", k);
	ck_assert_msg(v->type == t, "key \"%s\" has the wrong type", k);
	return v;
}

static uint64_t u64(const struct json_value *o, const char *k)
{
	uint64_t v;

	ck_assert_msg(json_get_u64(o, k, &v), "key \"%s\" missing or not an unsigned integer", k);
	return v;
}

static int64_t i64(const struct json_value *o, const char *k)
{
	int64_t v;

	ck_assert_msg(json_get_i64(o, k, &v), "key \"%s\" missing or not an integer", k);
	return v;
}

static const char *str(const struct json_value *o, const char *k)
{
	return get(o, k, JSON_STRING)->string;
}

static uint64_t item_u64(const struct json_value *v)
{
	uint64_t u;

	ck_assert_msg(json_value_u64(v, &u), "not an unsigned integer");
	return u;
}

/* ---------------------------------------------------------------- shape */

struct totals {
	uint64_t submitted, completed, cqes, more;
};

static struct totals check_requests(const struct json_value *reqs)
{
	struct totals t = { 0, 0, 0, 0 };
	size_t i, j;

	ck_assert_int_eq(reqs->type, JSON_OBJECT);
	for (i = 0; i < reqs->len; i++) {
		const struct json_value *op = &reqs->items[i], *res;
		uint64_t sum = 0;

		ck_assert_msg(strcmp(reqs->keys[i], "?"), "unnamed opcode");
		res = get(op, "res", JSON_OBJECT);
		for (j = 0; j < res->len; j++)
			sum += item_u64(&res->items[j]);
		/* Every request ended, and every CQE is counted once. */
		ck_assert_uint_eq(u64(op, "completed"), u64(op, "submitted"));
		ck_assert_uint_eq(u64(op, "cqes"), u64(op, "completed") + u64(op, "cqes_more"));
		ck_assert_uint_eq(sum, u64(op, "cqes"));
		t.submitted += u64(op, "submitted");
		t.completed += u64(op, "completed");
		t.cqes += u64(op, "cqes");
		t.more += u64(op, "cqes_more");
	}
	return t;
}

static const struct json_value *find_request(const struct json_value *doc, uint64_t ud)
{
	const struct json_value *list = get(doc, "request_list", JSON_ARRAY);
	size_t i;

	for (i = 0; i < list->len; i++)
		if (u64(&list->items[i], "user_data") == ud)
			return &list->items[i];
	return NULL;
}

static const struct json_value *find_ring(const struct json_value *doc, const char *name)
{
	const struct json_value *rings = get(doc, "rings", JSON_ARRAY);
	size_t i;

	for (i = 0; i < rings->len; i++)
		if (!strcmp(str(&rings->items[i], "name"), name))
			return &rings->items[i];
	return NULL;
}

/* A scenario's rings, and what they add up to. */
struct ring_sums {
	uint64_t cqes, enters, regs, sqpoll_submitted;
};

static struct ring_sums check_doc_rings(const struct json_value *d)
{
	const struct json_value *rings = get(d, "rings", JSON_ARRAY);
	struct ring_sums sum = { 0 };

	for (size_t i = 0; i < rings->len; i++) {
		const struct json_value *r = &rings->items[i];
		struct totals rt = check_requests(get(r, "requests", JSON_OBJECT));
		char comm[32];

		ck_assert_int_ge(i64(r, "fd"), 0);
		ck_assert_uint_gt(u64(r, "setup_seq"), 0);
		ck_assert_uint_gt(u64(r, "sq_entries"), 0);
		ck_assert_uint_ge(u64(r, "cq_entries"), u64(r, "sq_entries"));
		ck_assert_uint_eq(u64(r, "cqes"), rt.cqes + u64(r, "cqes_aux"));
		snprintf(comm, sizeof(comm), "iou-wrk-%lld", (long long)i64(r, "submitter_tid"));
		ck_assert_str_eq(str(r, "io_wq_worker_comm"), comm);
		if (get(r, "sqpoll", JSON_BOOL)->boolean) {
			ck_assert_int_eq(i64(r, "submitter_tid"), i64(r, "sq_thread_tid"));
			ck_assert(!strncmp(str(r, "sq_thread_comm"), "iou-sqp-", 8));
			sum.sqpoll_submitted += rt.submitted;
		} else {
			ck_assert_int_eq(i64(r, "submitter_tid"), i64(r, "tid"));
		}
		/* user_data encodes the ring's position */
		ck_assert_uint_eq(u64(r, "user_data_base") % 1000000000ULL / 1000000ULL, i);
		sum.cqes += u64(r, "cqes");
		sum.enters += u64(r, "enter_calls");
		sum.regs += u64(r, "register_calls");
	}
	return sum;
}

/*
 * io_uring_enter calls: counts add up; seq grows; enter returns add up to
 * what the requests say was submitted (SQPOLL rings submit without enter).
 */
static void check_doc_enters(const struct json_value *d, uint64_t count, uint64_t submitted)
{
	const struct json_value *v = get(d, "enter_calls", JSON_OBJECT), *calls;
	uint64_t seq_prev = 0, to_submit = 0, submitted_by_enter = 0, sum_tid = 0;
	size_t i;

	ck_assert_uint_eq(u64(v, "count"), count);
	for (i = 0; i < get(v, "by_tid", JSON_OBJECT)->len; i++)
		sum_tid += item_u64(&get(v, "by_tid", JSON_OBJECT)->items[i]);
	ck_assert_uint_eq(sum_tid, u64(v, "count"));
	ck_assert_uint_eq(u64(v, "submitted"), submitted);
	if (!get(v, "calls_listed", JSON_BOOL)->boolean) {
		const struct json_value *h = get(v, "to_submit_hist", JSON_OBJECT);
		uint64_t n = 0, sub = 0;

		for (i = 0; i < h->len; i++) {
			n += item_u64(&h->items[i]);
			sub += item_u64(&h->items[i]) * strtoull(h->keys[i], NULL, 10);
		}
		ck_assert_uint_eq(n, u64(v, "count"));
		ck_assert_uint_eq(sub, u64(v, "to_submit"));
		return;
	}
	calls = get(v, "calls", JSON_ARRAY);
	ck_assert_uint_eq(calls->len, u64(v, "count"));
	for (i = 0; i < calls->len; i++) {
		const struct json_value *c = &calls->items[i];
		int64_t ret = i64(c, "ret");

		ck_assert_uint_gt(u64(c, "seq"), seq_prev);
		seq_prev = u64(c, "seq");
		ck_assert_ptr_nonnull(find_ring(d, str(c, "ring")));
		to_submit += u64(c, "to_submit");
		if (u64(c, "to_submit"))
			submitted_by_enter += (uint64_t)ret;
		ck_assert_int_ge(ret, 0);
		if (u64(c, "flags") & ENTER_REGISTERED_RING)
			ck_assert_int_eq(i64(c, "fd"),
					 i64(find_ring(d, str(c, "ring")), "registered_index"));
	}
	ck_assert_uint_eq(to_submit, u64(v, "to_submit"));
	ck_assert_uint_eq(submitted_by_enter, u64(v, "submitted"));
}

/* Every promised path, link and order names a listed request. */
static void check_doc_promises(const struct json_value *d, uint64_t submitted)
{
	const struct json_value *paths, *links, *list;
	size_t i, j;

	if (!json_get(d, "request_list")) {
		get(d, "storm", JSON_OBJECT);
		return;
	}
	list = get(d, "request_list", JSON_ARRAY);
	ck_assert_uint_eq(list->len, submitted);
	for (i = 0; i < list->len; i++) {
		const struct json_value *q = &list->items[i];
		const struct json_value *r = find_ring(d, str(q, "ring"));
		uint64_t ud = u64(q, "user_data");

		ck_assert_ptr_nonnull(r);
		ck_assert_uint_gt(ud, u64(r, "user_data_base"));
		ck_assert_uint_lt(ud, u64(r, "user_data_base") + 1000000ULL);
		ck_assert_ptr_nonnull(json_get(get(d, "requests", JSON_OBJECT), str(q, "opcode")));
		if (json_get(q, "more_res"))
			ck_assert_uint_ge(get(q, "more_res", JSON_ARRAY)->len, 1);
	}
	paths = get(d, "paths", JSON_OBJECT);
	for (i = 0; i < paths->len; i++) {
		ck_assert_int_eq(paths->items[i].type, JSON_ARRAY);
		for (j = 0; j < paths->items[i].len; j++) {
			const struct json_value *q = find_request(d, item_u64(&paths->items[i].items[j]));
			const struct json_value *qp;
			bool found = false;
			size_t k;

			ck_assert_ptr_nonnull(q);
			qp = get(q, "paths", JSON_ARRAY);
			for (k = 0; k < qp->len; k++)
				found |= !strcmp(qp->items[k].string, paths->keys[i]);
			ck_assert_msg(found, "request not marked %s", paths->keys[i]);
		}
	}
	for (i = 0; i < get(paths, "async_forced", JSON_ARRAY)->len; i++) {
		const struct json_value *q =
			find_request(d, item_u64(&get(paths, "async_forced", JSON_ARRAY)->items[i]));

		ck_assert(strstr(str(q, "sqe_flags_names"), "ASYNC"));
	}
	for (i = 0; i < get(paths, "init_failed", JSON_ARRAY)->len; i++)
		ck_assert_int_lt(i64(find_request(d, item_u64(&get(paths, "init_failed",
								   JSON_ARRAY)->items[i])), "res"), 0);
	links = get(d, "links", JSON_ARRAY);
	for (i = 0; i < links->len; i++) {
		const struct json_value *l = &links->items[i];
		const struct json_value *uds = get(l, "user_data", JSON_ARRAY);

		ck_assert_uint_ge(uds->len, 2);
		ck_assert_uint_eq(get(l, "res", JSON_ARRAY)->len, uds->len);
		for (j = 0; j < uds->len; j++) {
			const struct json_value *q = find_request(d, item_u64(&uds->items[j]));

			ck_assert_ptr_nonnull(q);
			ck_assert_int_eq(i64(q, "chain"), i64(find_request(d, item_u64(&uds->items[0])), "chain"));
			/* consecutive SQEs of one ring */
			if (j)
				ck_assert_uint_eq(item_u64(&uds->items[j]), item_u64(&uds->items[j - 1]) + 1);
		}
	}
	for (i = 0; i < get(d, "order", JSON_ARRAY)->len; i++)
		ck_assert_ptr_nonnull(find_request(d, u64(&get(d, "order", JSON_ARRAY)->items[i],
							  "user_data")));
}

/* Everything a scenario document promises about itself. */
static void check_scenario_doc(const struct json_value *d, const char *name)
{
	const struct json_value *tids, *v;
	struct ring_sums rs;
	struct totals t;
	size_t i;

	ck_assert_str_eq(str(d, "scenario"), name);
	ck_assert_str_eq(str(d, "status"), "ok");
	ck_assert_int_eq(i64(d, "exit_status"), 0);
	ck_assert_uint_eq(get(d, "errors", JSON_ARRAY)->len, 0);
	get(d, "params", JSON_OBJECT);
	v = get(d, "time", JSON_OBJECT);
	ck_assert_str_eq(str(v, "clock"), "CLOCK_BOOTTIME");
	ck_assert_uint_ge(u64(v, "end_ns"), u64(v, "start_ns"));

	tids = get(d, "tids", JSON_ARRAY);
	ck_assert_uint_ge(tids->len, 1);
	ck_assert_str_eq(str(&tids->items[0], "role"), "main");
	for (i = 0; i < tids->len; i++) {
		ck_assert_int_gt(i64(&tids->items[i], "tid"), 0);
		str(&tids->items[i], "comm");
	}

	t = check_requests(get(d, "requests", JSON_OBJECT));
	rs = check_doc_rings(d);
	v = get(d, "cqes", JSON_OBJECT);
	ck_assert_uint_eq(u64(v, "total"), rs.cqes);
	ck_assert_uint_eq(u64(v, "total"), t.cqes + u64(v, "aux"));
	ck_assert_uint_eq(u64(v, "more"), t.more);
	ck_assert_uint_eq(get(d, "aux_cqes", JSON_ARRAY)->len, u64(v, "aux"));
	check_doc_enters(d, rs.enters, t.submitted - rs.sqpoll_submitted);
	v = get(d, "register_calls", JSON_OBJECT);
	ck_assert_uint_eq(u64(v, "count"), rs.regs);
	ck_assert_uint_eq(get(v, "calls", JSON_ARRAY)->len, rs.regs);
	v = get(d, "setup_calls", JSON_OBJECT);
	ck_assert_uint_eq(u64(v, "count"), get(d, "rings", JSON_ARRAY)->len + u64(v, "failed"));
	check_doc_promises(d, t.submitted);
	v = get(d, "kernel_may_choose", JSON_OBJECT);
	get(v, "notes", JSON_ARRAY);
	get(v, "io_threads_seen", JSON_ARRAY);
}

/* ---------------------------------------------------------------- per scenario */

static const struct json_value *op(const struct json_value *d, const char *name)
{
	const struct json_value *v = json_get(get(d, "requests", JSON_OBJECT), name);

	ck_assert_msg(v, "no %s requests", name);
	return v;
}

static uint64_t res_count(const struct json_value *opv, const char *res)
{
	uint64_t n = 0;

	json_get_u64(get(opv, "res", JSON_OBJECT), res, &n);
	return n;
}

static uint64_t path_len(const struct json_value *d, const char *path)
{
	return get(get(d, "paths", JSON_OBJECT), path, JSON_ARRAY)->len;
}

static const struct json_value *enter_call(const struct json_value *d, size_t i)
{
	const struct json_value *calls = get(get(d, "enter_calls", JSON_OBJECT), "calls", JSON_ARRAY);

	ck_assert_uint_lt(i, calls->len);
	return &calls->items[i];
}

/* What the documentation at the top of workload.c says each one does. */
static void check_promises(const struct json_value *d, const char *name)
{
	const struct json_value *v;
	uint64_t n;
	size_t i;

	if (!strcmp(name, "nop")) {
		ck_assert_uint_eq(u64(op(d, "NOP"), "submitted"), 32);
		ck_assert_uint_eq(res_count(op(d, "NOP"), "0"), 32);
		ck_assert_uint_eq(u64(get(d, "enter_calls", JSON_OBJECT), "count"), 4);
		for (i = 0; i < 4; i++) {
			ck_assert_uint_eq(u64(enter_call(d, i), "to_submit"), 8);
			ck_assert_uint_eq(u64(enter_call(d, i), "min_complete"), 8);
			ck_assert_uint_eq(u64(enter_call(d, i), "flags"), ENTER_GETEVENTS);
			ck_assert_int_eq(i64(enter_call(d, i), "ret"), 8);
		}
	} else if (!strcmp(name, "rw")) {
		ck_assert_uint_eq(res_count(op(d, "WRITE"), "4096"), 8);
		ck_assert_uint_eq(res_count(op(d, "READ"), "4096"), 8);
		ck_assert_uint_eq(path_len(d, "async_forced"), 8);
		ck_assert_uint_eq(path_len(d, "always_async"), 1);
		ck_assert_uint_eq(u64(op(d, "FSYNC"), "submitted"), 1);
		ck_assert_uint_eq(get(d, "links", JSON_ARRAY)->len, 1);
	} else if (!strcmp(name, "link")) {
		v = get(d, "links", JSON_ARRAY);
		ck_assert_uint_eq(v->len, 5);
		ck_assert(get(&v->items[2], "hard", JSON_BOOL)->boolean);
		ck_assert_uint_eq(res_count(op(d, "NOP"), "-ECANCELED"), 5);
		ck_assert_uint_eq(res_count(op(d, "READ"), "-EBADF"), 3);
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT"), "-EINVAL"), 1);
		ck_assert_uint_eq(path_len(d, "init_failed"), 1);
		ck_assert_uint_eq(u64(get(d, "enter_calls", JSON_OBJECT), "count"), 1);
	} else if (!strcmp(name, "poll")) {
		ck_assert_uint_eq(path_len(d, "poll_armed"), 2);
		ck_assert_uint_eq(path_len(d, "async_forced"), 1);
		ck_assert_uint_eq(res_count(op(d, "POLL_ADD"), "1"), 1);
		ck_assert_uint_eq(res_count(op(d, "RECV"), "32"), 1);
		ck_assert_uint_eq(u64(enter_call(d, 1), "min_complete"), 4);
	} else if (!strcmp(name, "timeout")) {
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT"), "-ETIME"), 2);
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT"), "-ECANCELED"), 1);
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT"), "-EINVAL"), 1);
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT"), "0"), 1);
		ck_assert_uint_eq(res_count(op(d, "TIMEOUT_REMOVE"), "0"), 1);
		ck_assert_uint_eq(res_count(op(d, "ASYNC_CANCEL"), "0"), 1);
		ck_assert_uint_eq(res_count(op(d, "LINK_TIMEOUT"), "-ETIME"), 1);
		ck_assert_uint_eq(res_count(op(d, "READ"), "-EBADF"), 1);
		ck_assert_uint_eq(res_count(op(d, "WRITE"), "-EBADF"), 1);
		ck_assert_uint_eq(res_count(op(d, "READ"), "-ECANCELED"), 2);
	} else if (!strcmp(name, "drain")) {
		ck_assert_uint_eq(path_len(d, "deferred"), 1);
		ck_assert_uint_eq(get(d, "order", JSON_ARRAY)->len, 2);
		ck_assert_uint_eq(u64(op(d, "NOP"), "submitted"), 3);
	} else if (!strcmp(name, "recreate")) {
		/* alone it runs 12 rounds; inside "all --count 3", 3 */
		n = u64(get(d, "params", JSON_OBJECT), "count");
		v = get(d, "files", JSON_ARRAY);
		ck_assert_uint_eq(v->len, n + 2);
		ck_assert_uint_eq(res_count(op(d, "READ"), "4096"), n);
		ck_assert_uint_eq(res_count(op(d, "READ"), "8"), 2);
		ck_assert_uint_eq(u64(get(d, "enter_calls", JSON_OBJECT), "count"), n + 2);
		for (i = 1; i < v->len; i++)
			ck_assert_str_ne(str(&v->items[i], "path"), str(&v->items[i - 1], "path"));
		ck_assert_str_eq(str(&v->items[n], "type"), "eventfd");
		ck_assert_str_eq(str(&v->items[n + 1], "path"), "anon_inode:[timerfd]");
	} else if (!strcmp(name, "streams")) {
		ck_assert_uint_eq(path_len(d, "poll_armed"), 2);
		ck_assert_uint_eq(path_len(d, "always_async"), 1);
		ck_assert_uint_eq(res_count(op(d, "READ"), "10"), 1);
		ck_assert_uint_eq(res_count(op(d, "RECV"), "0"), 1);
		ck_assert_uint_eq(res_count(op(d, "RECVMSG"), "16"), 1);
		ck_assert_uint_eq(res_count(op(d, "SHUTDOWN"), "0"), 1);
	} else if (!strcmp(name, "multishot")) {
		ck_assert_uint_eq(u64(op(d, "POLL_ADD"), "cqes_more"), 3);
		ck_assert_uint_eq(res_count(op(d, "POLL_ADD"), "-ECANCELED"), 1);
		ck_assert_uint_eq(u64(op(d, "RECV"), "cqes_more"), 3);
		ck_assert_uint_eq(res_count(op(d, "RECV"), "0"), 1);
		ck_assert_uint_eq(u64(get(d, "cqes", JSON_OBJECT), "more"), 6);
	} else if (!strcmp(name, "rings")) {
		ck_assert_uint_eq(get(d, "rings", JSON_ARRAY)->len, 3);
		ck_assert_uint_eq(u64(get(d, "cqes", JSON_OBJECT), "aux"), 1);
		ck_assert_uint_eq(u64(find_ring(d, "ring1"), "cq_entries"), 64);
		ck_assert_uint_eq(u64(find_ring(d, "ring1"), "cqes_aux"), 1);
		ck_assert_uint_eq(u64(op(d, "MSG_RING"), "submitted"), 1);
	} else if (!strcmp(name, "threads")) {
		v = get(d, "rings", JSON_ARRAY);
		ck_assert_uint_eq(v->len, 3);
		for (i = 0; i < v->len; i++) {
			ck_assert_int_ne(i64(&v->items[i], "tid"), i64(d, "pid"));
			if (i)
				ck_assert_int_ne(i64(&v->items[i], "tid"), i64(&v->items[i - 1], "tid"));
			ck_assert_uint_eq(u64(&v->items[i], "enter_calls"), 2);
		}
		ck_assert_uint_eq(path_len(d, "async_forced"), 3);
	} else if (!strcmp(name, "sqpoll")) {
		v = get(get(d, "enter_calls", JSON_OBJECT), "calls", JSON_ARRAY);
		for (i = 0; i < v->len; i++)
			ck_assert_uint_eq(u64(&v->items[i], "to_submit"), 0);
		ck_assert_uint_eq(u64(enter_call(d, 0), "flags"), ENTER_SQ_WAKEUP);
		ck_assert_uint_eq(u64(op(d, "NOP"), "submitted"), 8);
		ck_assert_uint_eq(u64(op(d, "READ"), "submitted"), 4);
	} else if (!strcmp(name, "registered")) {
		v = get(get(d, "register_calls", JSON_OBJECT), "by_opcode", JSON_OBJECT);
		ck_assert_uint_eq(u64(v, "REGISTER_BUFFERS"), 1);
		ck_assert_uint_eq(u64(v, "REGISTER_FILES"), 1);
		ck_assert_uint_eq(u64(v, "REGISTER_FILES_UPDATE"), 1);
		ck_assert_uint_eq(u64(v, "REGISTER_RING_FDS"), 1);
		ck_assert_uint_eq(u64(v, "UNREGISTER_RING_FDS"), 1);
		ck_assert_uint_eq(u64(enter_call(d, 0), "flags"),
				  ENTER_GETEVENTS | ENTER_REGISTERED_RING);
		ck_assert_uint_eq(u64(enter_call(d, 2), "flags"), ENTER_GETEVENTS);
		ck_assert_uint_eq(res_count(op(d, "READ"), "-EBADF"), 1);
	} else if (!strcmp(name, "storm")) {
		ck_assert_uint_eq(u64(op(d, "NOP"), "submitted"), 2000);
		ck_assert_uint_eq(u64(get(d, "storm", JSON_OBJECT), "nops"), 2000);
		ck_assert_uint_eq(u64(get(d, "enter_calls", JSON_OBJECT), "count"), 63);
	} else if (!strcmp(name, "demo")) {
		v = get(d, "time", JSON_OBJECT);
		ck_assert_uint_ge(u64(v, "end_ns") - u64(v, "start_ns"), 300000000ULL);
		ck_assert_uint_ge(get(d, "request_list", JSON_ARRAY)->len, 200);
		ck_assert_uint_ge(path_len(d, "poll_armed"), 8);
		ck_assert_uint_ge(get(d, "links", JSON_ARRAY)->len, 8);
	}
}

/* ---------------------------------------------------------------- strace */

struct call {
	uint64_t seq;
	long tid;
	char kind;		/* s, e, r */
	long a[4];
	long ret;
};

struct calls {
	struct call *c;
	size_t n, cap;
};

static void add_call(struct calls *cs, const struct call *c)
{
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 64;
		cs->c = realloc(cs->c, cs->cap * sizeof(*cs->c));
		ck_assert_ptr_nonnull(cs->c);
	}
	cs->c[cs->n++] = *c;
}

static int errno_by_name(const char *name)
{
	int e;

	for (e = 1; e < 200; e++)
		if (errno_name(e) && !strcmp(errno_name(e), name))
			return e;
	return 0;
}

/* One line of strace -X raw output for an io_uring call. */
static bool parse_strace_line(const char *line, long tid, struct call *c)
{
	const char *args, *eq;
	char *end;
	int i;

	memset(c, 0, sizeof(*c));
	c->tid = tid;
	if (!strncmp(line, "io_uring_enter(", 15))
		c->kind = 'e';
	else if (!strncmp(line, "io_uring_register(", 18))
		c->kind = 'r';
	else if (!strncmp(line, "io_uring_setup(", 15))
		c->kind = 's';
	else
		return false;
	args = strchr(line, '(') + 1;
	/* "...) = 3", padded with spaces before '=' by strace -ff */
	eq = strrchr(line, '=');
	ck_assert_msg(eq && eq > args, "strace line without a result: %s", line);
	c->ret = strtol(eq + 1, &end, 10);
	while (eq > args && eq[-1] != ')')
		eq--;
	eq--;		/* at the ')' closing the arguments */
	if (c->ret == -1) {
		char name[32] = "";

		sscanf(end, " %31[A-Z0-9]", name);
		c->ret = -errno_by_name(name);
	}
	switch (c->kind) {
	case 'e':	/* fd, to_submit, min_complete, flags, sig, sigsz */
		for (i = 0; i < 4; i++) {
			c->a[i] = strtol(args, &end, 0);
			args = end + 2;
		}
		break;
	case 'r':	/* fd, opcode, arg..., nr_args */
		c->a[0] = strtol(args, &end, 0);
		c->a[1] = strtol(end + 2, NULL, 0);
		while (eq > args && eq[-1] != ' ')
			eq--;
		c->a[2] = strtol(eq, NULL, 0);
		break;
	case 's':	/* entries, {flags=..., ...} */
		c->a[0] = strtol(args, NULL, 0);
		ck_assert_ptr_nonnull(strstr(args, "flags="));
		c->a[1] = strtol(strstr(args, "flags=") + 6, NULL, 0);
		break;
	}
	return true;
}

static int cmp_tid_seq(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void strace_calls(const char *dir, struct calls *cs)
{
	struct dirent *de;
	uint64_t seq = 0;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char *path, line[4096];
		long tid;
		FILE *f;

		if (strncmp(de->d_name, "st.", 3))
			continue;
		tid = atol(de->d_name + 3);
		path = test_path(dir, de->d_name);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		while (fgets(line, sizeof(line), f)) {
			struct call c;

			if (!parse_strace_line(line, tid, &c))
				continue;
			c.seq = ++seq;	/* file order is the thread's order */
			add_call(cs, &c);
		}
		fclose(f);
		free(path);
	}
	closedir(d);
	qsort(cs->c, cs->n, sizeof(*cs->c), cmp_tid_seq);
}

static void json_calls(const struct json_value *d, struct calls *cs)
{
	static const char *const lists[] = { "setup_calls", "enter_calls", "register_calls" };
	size_t l, i;

	for (l = 0; l < 3; l++) {
		const struct json_value *calls = json_get(get(d, lists[l], JSON_OBJECT), "calls");

		for (i = 0; calls && i < calls->len; i++) {
			const struct json_value *j = &calls->items[i];
			struct call c;

			memset(&c, 0, sizeof(c));
			c.seq = u64(j, "seq");
			c.tid = (long)i64(j, "tid");
			c.ret = (long)i64(j, "ret");
			c.kind = "ser"[l];
			if (c.kind == 's') {
				c.a[0] = (long)u64(j, "entries");
				c.a[1] = (long)u64(j, "flags");
			} else if (c.kind == 'e') {
				c.a[0] = (long)i64(j, "fd");
				c.a[1] = (long)u64(j, "to_submit");
				c.a[2] = (long)u64(j, "min_complete");
				c.a[3] = (long)u64(j, "flags");
			} else {
				c.a[0] = (long)i64(j, "fd");
				c.a[1] = (long)u64(j, "opcode");
				c.a[2] = (long)u64(j, "nr_args");
			}
			add_call(cs, &c);
		}
	}
	qsort(cs->c, cs->n, sizeof(*cs->c), cmp_tid_seq);
}

static const char *find_strace(void)
{
	static char path[4096];
	const char *p = getenv("PATH");

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(path, sizeof(path), "%.*s/strace", (int)n, p);
		if (n && access(path, X_OK) == 0)
			return path;
		p += n + (p[n] == ':');
	}
	return NULL;
}

static void compare_with_strace(const char *name, char **extra, const struct json_value *ref_doc)
{
	const char *strace = find_strace();
	struct calls st = { NULL, 0, 0 }, js = { NULL, 0, 0 };
	char *dir, *prefix, *argv[24];
	struct json_doc doc;
	struct result r;
	size_t i, n = 0;

	(void)ref_doc;
	if (!strace) {
		const char *ci = getenv("CI");

		/* On CI the comparison is mandatory (.ci/quickstart installs strace). */
		ck_assert_msg(!ci || strcmp(ci, "true"),
			      "CI=true but strace is not installed: cannot compare %s with strace",
			      name);
		fprintf(stderr, "check_workload: strace not installed: %s not compared with strace\n",
			name);
		return;
	}
	dir = test_tmpdir();
	prefix = test_path(dir, "st");
	argv[n++] = (char *)strace;
	argv[n++] = "-ff";
	argv[n++] = "-qq";
	argv[n++] = "-X";
	argv[n++] = "raw";
	argv[n++] = "-e";
	argv[n++] = "trace=io_uring_setup,io_uring_enter,io_uring_register";
	argv[n++] = "-e";
	argv[n++] = "signal=none";
	argv[n++] = "-o";
	argv[n++] = prefix;
	argv[n++] = WORKLOAD_BIN;
	argv[n++] = "--compact";
	for (i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n++] = (char *)name;
	argv[n] = NULL;
	r = run(argv, false, true);
	if (r.status == 3 && strstr(r.out, "\"unavailable\"")) {
		fprintf(stderr, "check_workload: %s unavailable under strace, not compared\n", name);
		goto out;
	}
	ck_assert_msg(r.status == 0, "strace ... workload %s exited %d", name, r.status);
	parse(&r, &doc);
	strace_calls(dir, &st);
	json_calls(&doc.root, &js);
	if (!get(get(&doc.root, "enter_calls", JSON_OBJECT), "calls_listed", JSON_BOOL)->boolean) {
		/* storm: enter calls are counted, not listed */
		size_t enters = 0;

		for (i = 0; i < st.n; i++)
			enters += st.c[i].kind == 'e';
		ck_assert_uint_eq(enters, u64(get(&doc.root, "enter_calls", JSON_OBJECT), "count"));
	} else {
		ck_assert_msg(st.n == js.n, "%s: strace saw %zu io_uring calls, the JSON lists %zu",
			      name, st.n, js.n);
		for (i = 0; i < st.n; i++) {
			const struct call *a = &st.c[i], *b = &js.c[i];

			ck_assert_msg(a->tid == b->tid && a->kind == b->kind &&
				      !memcmp(a->a, b->a, sizeof(a->a)) && a->ret == b->ret,
				      "%s: call %zu differs: strace tid %ld %c(%ld, %ld, %ld, %ld) = %ld, "
				      "JSON tid %ld %c(%ld, %ld, %ld, %ld) = %ld", name, i,
				      a->tid, a->kind, a->a[0], a->a[1], a->a[2], a->a[3], a->ret,
				      b->tid, b->kind, b->a[0], b->a[1], b->a[2], b->a[3], b->ret);
		}
	}
	json_doc_free(&doc);
out:
	free(r.out);
	free(st.c);
	free(js.c);
	free(prefix);
	test_rmtree(dir);
	free(dir);
}

/* ---------------------------------------------------------------- tests */

static const char *const scenario_names[] = {
	"nop", "rw", "link", "poll", "timeout", "drain", "multishot", "rings",
	"threads", "registered", "sqpoll", "storm", "demo", "streams", "recreate",
};
#define N_NAMES (sizeof(scenario_names) / sizeof(scenario_names[0]))

START_TEST(test_scenario)
{
	const char *name = scenario_names[_i];
	char *storm_args[] = { "--count", "2000", NULL };
	char **extra = !strcmp(name, "storm") ? storm_args : NULL;
	char *argv[8];
	struct json_doc doc;
	struct result r;
	size_t n = 0, i;

	argv[n++] = WORKLOAD_BIN;
	argv[n++] = "--compact";
	for (i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n++] = (char *)name;
	argv[n] = NULL;
	r = run(argv, false, false);
	if (r.status == 3 && !strcmp(name, "sqpoll")) {
		parse(&r, &doc);
		ck_assert_str_eq(str(&doc.root, "status"), "unavailable");
		fprintf(stderr, "check_workload: SQPOLL refused here; sqpoll not checked\n");
		json_doc_free(&doc);
		free(r.out);
		return;
	}
	ck_assert_msg(r.status == 0, "workload %s exited %d", name, r.status);
	parse(&r, &doc);
	ck_assert_str_eq(str(&doc.root, "schema"), "ringside-workload/1");
	ck_assert_int_gt(i64(&doc.root, "pid"), 0);
	ck_assert_int_eq(i64(&get(&doc.root, "tids", JSON_ARRAY)->items[0], "tid"),
			 i64(&doc.root, "pid"));
	str(&doc.root, "kernel");
	check_scenario_doc(&doc.root, name);
	check_promises(&doc.root, name);
	compare_with_strace(name, extra, &doc.root);
	json_doc_free(&doc);
	free(r.out);
}
END_TEST

START_TEST(test_all)
{
	char *argv[] = { WORKLOAD_BIN, "--compact", "--count", "3", "all", NULL };
	const struct json_value *scen, *top;
	uint64_t enters = 0, cqes = 0, setups = 0, regs = 0;
	struct json_doc doc;
	struct result r;
	size_t i;

	r = run(argv, false, false);
	ck_assert_msg(r.status == 0 || r.status == 3, "workload all exited %d", r.status);
	parse(&r, &doc);
	top = &doc.root;
	ck_assert_str_eq(str(top, "scenario"), "all");
	scen = get(top, "scenarios", JSON_ARRAY);
	ck_assert_uint_eq(scen->len, N_NAMES);
	for (i = 0; i < scen->len; i++) {
		const struct json_value *d = &scen->items[i];

		ck_assert_str_eq(str(d, "scenario"), scenario_names[i]);
		ck_assert_ptr_null(json_get(d, "schema"));
		if (!strcmp(str(d, "status"), "unavailable")) {
			ck_assert_str_eq(scenario_names[i], "sqpoll");
			ck_assert_int_eq(r.status, 3);
		} else {
			check_scenario_doc(d, scenario_names[i]);
		}
		enters += u64(get(d, "enter_calls", JSON_OBJECT), "count");
		regs += u64(get(d, "register_calls", JSON_OBJECT), "count");
		setups += u64(get(d, "setup_calls", JSON_OBJECT), "count");
		cqes += u64(get(d, "cqes", JSON_OBJECT), "total");
		/* user_data scenario ids are fixed, from 1 */
		if (get(d, "rings", JSON_ARRAY)->len)
			ck_assert_uint_eq(u64(&get(d, "rings", JSON_ARRAY)->items[0], "user_data_base") /
					  1000000000ULL, i + 1);
	}
	ck_assert_uint_eq(u64(get(top, "enter_calls", JSON_OBJECT), "count"), enters);
	ck_assert_uint_eq(u64(get(top, "register_calls", JSON_OBJECT), "count"), regs);
	ck_assert_uint_eq(u64(get(top, "setup_calls", JSON_OBJECT), "count"), setups);
	ck_assert_uint_eq(u64(get(top, "cqes", JSON_OBJECT), "total"), cqes);
	check_requests(get(top, "requests", JSON_OBJECT));
	/* --count 3 reached the scenarios that take it */
	ck_assert_uint_eq(u64(get(&scen->items[11], "params", JSON_OBJECT), "count"), 3);
	ck_assert_uint_eq(u64(get(&scen->items[6], "params", JSON_OBJECT), "shots"), 3);
	json_doc_free(&doc);
	free(r.out);
}
END_TEST

START_TEST(test_usage)
{
	char *none[] = { WORKLOAD_BIN, NULL };
	char *unknown[] = { WORKLOAD_BIN, "nosuch", NULL };
	char *bad_num[] = { WORKLOAD_BIN, "--batches", "0", "nop", NULL };
	char *two[] = { WORKLOAD_BIN, "nop", "rw", NULL };
	char *both[] = { WORKLOAD_BIN, "--count", "5", "--seconds", "1", "storm", NULL };
	char *big[] = { WORKLOAD_BIN, "--count", "17", "multishot", NULL };
	char *help[] = { WORKLOAD_BIN, "--help", NULL };
	char *list[] = { WORKLOAD_BIN, "--list", NULL };
	struct result r;
	size_t i;

	r = run(none, false, false);
	ck_assert_int_eq(r.status, 2);
	ck_assert_uint_eq(r.len, 0);
	free(r.out);
	r = run(unknown, false, false);
	ck_assert_int_eq(r.status, 2);
	free(r.out);
	r = run(bad_num, false, false);
	ck_assert_int_eq(r.status, 2);
	free(r.out);
	r = run(two, false, false);
	ck_assert_int_eq(r.status, 2);
	free(r.out);
	r = run(both, false, false);
	ck_assert_int_eq(r.status, 2);
	free(r.out);
	r = run(big, false, false);
	ck_assert_int_eq(r.status, 2);
	free(r.out);
	r = run(help, false, false);
	ck_assert_int_eq(r.status, 0);
	for (i = 0; i < N_NAMES; i++)
		ck_assert_msg(strstr(r.out, scenario_names[i]), "--help misses %s", scenario_names[i]);
	ck_assert(strstr(r.out, "Exit status"));
	free(r.out);
	/* --list is exactly the scenarios this test knows, then "all" */
	r = run(list, false, false);
	ck_assert_int_eq(r.status, 0);
	{
		char *p = r.out;

		for (i = 0; i < N_NAMES; i++) {
			size_t n = strlen(scenario_names[i]);

			ck_assert_msg(!strncmp(p, scenario_names[i], n) && p[n] == '\n',
				      "--list: expected %s at \"%.20s\"", scenario_names[i], p);
			p += n + 1;
		}
		ck_assert_str_eq(p, "all\n");
	}
	free(r.out);
}
END_TEST

/* io_uring refused (as with kernel.io_uring_disabled): status 3, the failed
 * io_uring_setup is reported. */
START_TEST(test_unavailable)
{
	char *argv[] = { WORKLOAD_BIN, "--compact", "nop", NULL };
	const struct json_value *calls;
	struct json_doc doc;
	struct result r;

	r = run(argv, true, false);
	ck_assert_int_eq(r.status, 3);
	parse(&r, &doc);
	ck_assert_str_eq(str(&doc.root, "status"), "unavailable");
	ck_assert_int_eq(i64(&doc.root, "exit_status"), 3);
	ck_assert_uint_eq(get(&doc.root, "errors", JSON_ARRAY)->len, 1);
	ck_assert_uint_eq(u64(get(&doc.root, "setup_calls", JSON_OBJECT), "failed"), 1);
	calls = get(get(&doc.root, "setup_calls", JSON_OBJECT), "calls", JSON_ARRAY);
	ck_assert_int_eq(i64(&calls->items[0], "ret"), -EPERM);
	ck_assert_str_eq(str(&calls->items[0], "errno"), "EPERM");
	ck_assert_int_eq(get(&calls->items[0], "ring", JSON_NULL)->type, JSON_NULL);
	ck_assert_uint_eq(get(&doc.root, "rings", JSON_ARRAY)->len, 0);
	json_doc_free(&doc);
	free(r.out);
}
END_TEST

static Suite *workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *tc = tcase_create("scenarios");

	/* Scenarios take up to ~1 s, more under strace and sanitizers. */
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_scenario, 0, (int)N_NAMES);
	tcase_add_test(tc, test_all);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_unavailable);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(workload_suite)
