// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of uring-record's parts that need no BPF and no root: option
 * parsing (sizes, durations, bad input), pointer scrubbing, frames and the
 * writer queue (including dropping a frame's events with exact
 * accounting), LOSS frames, the metadata JSON, /proc parsing and the CPU
 * list parser.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "event_layout.h"
#include "frames.h"
#include "host.h"
#include "log_writer.h"
#include "json.h"
#include "log_format.h"
#include "losses.h"
#include "metadata.h"
#include "msg.h"
#include "pointer_scrub.h"
#include "tasks.h"
#include "test_util.h"

/* ----------------------------------------------------------- sizes */

START_TEST(test_parse_size)
{
	static const struct {
		const char *in;
		uint64_t out;
	} ok[] = {
		{ "4096", 4096 }, { "8M", 8ull << 20 }, { "8m", 8ull << 20 },
		{ "8MiB", 8ull << 20 }, { "8MB", 8ull << 20 }, { "512K", 512ull << 10 },
		{ "1G", 1ull << 30 }, { "2T", 2ull << 40 }, { "1.5M", 3ull << 19 },
		{ "0", 0 }, { "10B", 10 },
	};
	static const char *const bad[] = {
		"", "M", "abc", "8X", "-1", "8 M", "1.2.3", "8MiBx", "99999999999999999999999",
		"20000000T",
	};
	char err[128];
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(parse_size(ok[i].in, &v, err, sizeof(err)) == 0, "%s: %s",
			      ok[i].in, err);
		ck_assert_msg(v == ok[i].out, "%s gave %llu", ok[i].in, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(parse_size(bad[i], &v, err, sizeof(err)) == -1, "%s accepted",
			      bad[i]);
		ck_assert_msg(err[0], "%s: no message", bad[i]);
	}
}
END_TEST

START_TEST(test_parse_duration)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} ok[] = {
		{ "30s", 30000000000ull }, { "1.5s", 1500000000ull }, { "500ms", 500000000ull },
		{ "2m", 120000000000ull }, { "2min", 120000000000ull }, { "1h", 3600000000000ull },
		{ "250us", 250000ull }, { "100ns", 100ull }, { "10", 10000000000ull },
		{ "0.001s", 1000000ull },
	};
	static const char *const bad[] = { "", "s", "10x", "1.5.s", "-5s", "5 s", "1e3s" };
	char err[128];
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(parse_duration(ok[i].in, &v, err, sizeof(err)) == 0, "%s: %s",
			      ok[i].in, err);
		ck_assert_msg(v == ok[i].ns, "%s gave %llu", ok[i].in, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse_duration(bad[i], &v, err, sizeof(err)) == -1, "%s accepted",
			      bad[i]);
}
END_TEST

/* ------------------------------------------------------------- env */

static int parse(struct env *env, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return env_parse(env, argc, argv);
}

START_TEST(test_env_defaults)
{
	char *argv[] = { "uring-record", NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, argv), 0);
	ck_assert_str_eq(env.output, "uring.log");
	ck_assert_uint_eq(env.ring_size, 0);	/* chosen from the CPU count */
	ck_assert_uint_eq(env.flush_ns, 1000000000ull);
	ck_assert_uint_eq(env.drain_ns, 50000000ull);
	ck_assert_int_eq(env.zstd_level, LOG_DEFAULT_ZSTD_LEVEL);
	ck_assert(!env.command);
	ck_assert(!env.follow);
	ck_assert_int_eq(env.io_wq, IO_WQ_AUTO);
	env_free(&env);
}
END_TEST

/* A flush interval shorter than the default drain takes the drain along,
 * unless the drain interval was given. */
START_TEST(test_env_drain_follows_flush)
{
	char *short_flush[] = { "uring-record", "--flush-interval", "20ms", NULL };
	char *tiny_flush[] = { "uring-record", "--flush-interval", "100us", NULL };
	char *both[] = { "uring-record", "--flush-interval", "20ms", "--drain-interval", "30ms",
			 NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, short_flush), 0);
	ck_assert_uint_eq(env.drain_ns, 20000000ull);
	ck_assert_uint_eq(env.flush_ns, 20000000ull);
	env_free(&env);
	ck_assert_int_eq(parse(&env, tiny_flush), 0);
	ck_assert_uint_eq(env.drain_ns, 100000ull);
	env_free(&env);
	ck_assert_int_ne(parse(&env, both), 0);
	env_free(&env);
}
END_TEST

START_TEST(test_default_ring_size)
{
	ck_assert_uint_eq(env_default_ring_size(1), 32ull << 20);
	ck_assert_uint_eq(env_default_ring_size(2), 32ull << 20);
	ck_assert_uint_eq(env_default_ring_size(4), 32ull << 20);
	ck_assert_uint_eq(env_default_ring_size(6), 16ull << 20);
	ck_assert_uint_eq(env_default_ring_size(8), 16ull << 20);
	ck_assert_uint_eq(env_default_ring_size(16), 8ull << 20);
	ck_assert_uint_eq(env_default_ring_size(32), 4ull << 20);
	ck_assert_uint_eq(env_default_ring_size(512), 4ull << 20);
	ck_assert_uint_eq(env_default_ring_size(0), 32ull << 20);
}
END_TEST

START_TEST(test_env_options)
{
	char *argv[] = { "uring-record", "-o", "x.log", "-f", "-p", "12", "--pid=34", "-F",
			 "--comm", "postgres", "-d", "1.5s", "--max-size", "2G",
			 "--ring-size", "16M", "--drain-interval", "2ms", "--zstd-level=-3",
			 "--io-wq", "sched_switch", "--syscalls=raw", "--raw-pointers", "-v", "-v",
			 NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, argv), 0);
	ck_assert_str_eq(env.output, "x.log");
	ck_assert(env.force);
	ck_assert_uint_eq(env.npids, 2);
	ck_assert_int_eq(env.pids[0], 12);
	ck_assert_int_eq(env.pids[1], 34);
	ck_assert(env.follow);
	ck_assert(env.have_comm);
	ck_assert_str_eq(env.comm, "postgres");
	ck_assert_uint_eq(env.duration_ns, 1500000000ull);
	ck_assert_uint_eq(env.max_size, 2ull << 30);
	ck_assert_uint_eq(env.ring_size, 16ull << 20);
	ck_assert_uint_eq(env.drain_ns, 2000000ull);
	ck_assert_int_eq(env.zstd_level, -3);
	ck_assert_int_eq(env.io_wq, IO_WQ_SCHED_SWITCH);
	ck_assert_int_eq(env.syscalls, SYSCALLS_RAW);
	ck_assert(env.raw_pointers);
	ck_assert_int_eq(env.verbosity, 2);
	env_free(&env);
}
END_TEST

START_TEST(test_env_command)
{
	char *argv1[] = { "uring-record", "-q", "--", "./server", "-p", "80", NULL };
	char *argv2[] = { "uring-record", "-o", "a.log", "ls", "-l", "--", "x", NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, argv1), 0);
	ck_assert_ptr_nonnull(env.command);
	ck_assert_str_eq(env.command[0], "./server");
	ck_assert_str_eq(env.command[1], "-p");
	ck_assert_str_eq(env.command[2], "80");
	ck_assert_ptr_null(env.command[3]);
	ck_assert_uint_eq(env.npids, 0);	/* "-p" belongs to the command */
	ck_assert(env.follow);			/* implied */
	ck_assert_int_eq(env.verbosity, -1);
	env_free(&env);

	/* The first non-option starts COMMAND: its options stay its own. */
	ck_assert_int_eq(parse(&env, argv2), 0);
	ck_assert_str_eq(env.command[0], "ls");
	ck_assert_str_eq(env.command[1], "-l");
	ck_assert_str_eq(env.command[2], "--");
	env_free(&env);
}
END_TEST

START_TEST(test_env_bad)
{
	static char *bad[][6] = {
		{ "uring-record", "--ring-size", "3M", NULL },
		{ "uring-record", "--ring-size", "1K", NULL },
		{ "uring-record", "--ring-size", "2G", NULL },
		{ "uring-record", "--ring-size", "lots", NULL },
		{ "uring-record", "-p", "0", NULL },
		{ "uring-record", "-p", "12x", NULL },
		{ "uring-record", "-p", "99999999999", NULL },
		{ "uring-record", "--comm", "a-name-that-is-too-long", NULL },
		{ "uring-record", "--comm", "", NULL },
		{ "uring-record", "--follow", NULL },
		{ "uring-record", "--run-as-root", NULL },
		{ "uring-record", "--zstd-level", "0", NULL },
		{ "uring-record", "--zstd-level", "99", NULL },
		{ "uring-record", "--drain-interval", "10us", NULL },
		{ "uring-record", "--flush-interval", "2s", NULL },
		{ "uring-record", "--duration", "0", NULL },
		{ "uring-record", "--max-size", "100K", NULL },
		{ "uring-record", "--io-wq", "magic", NULL },
		{ "uring-record", "--syscalls", "ebpf", NULL },
		{ "uring-record", "--queue-size", "1M", NULL },
		{ "uring-record", "--no-such-option", NULL },
		{ "uring-record", "-o", "", NULL },
		{ "uring-record", "--sample", "0", NULL },
		{ "uring-record", "--sample", "1048577", NULL },
		{ "uring-record", "--sample", "1.5", NULL },
		{ "uring-record", "--sample", "-3", NULL },
		{ "uring-record", "--sample-syscalls", NULL },
		{ "uring-record", "--sample=1", "--sample-syscalls", NULL },
	};
	struct env env;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(&env, bad[i]) == -1, "accepted: %s %s %s", bad[i][1],
			      bad[i][2] ? bad[i][2] : "", bad[i][2] && bad[i][3] ? bad[i][3] : "");
		env_free(&env);
	}
}
END_TEST

START_TEST(test_env_help)
{
	char *help[] = { "uring-record", "--help", NULL };
	char *version[] = { "uring-record", "-V", NULL };
	char *late[] = { "uring-record", "-p", "0", "--version", NULL };
	struct env env;

	ck_assert_int_eq(parse(&env, help), 1);
	env_free(&env);
	ck_assert_int_eq(parse(&env, version), 1);
	env_free(&env);
	/* A bad option before --version is still an error. */
	ck_assert_int_eq(parse(&env, late), -1);
	env_free(&env);
}
END_TEST

/* ---------------------------------------------------- pointer scrub */

static const uint64_t key_a[SCRUB_ROUNDS] = { 1, 2, 3, 4 };
static const uint64_t key_b[SCRUB_ROUNDS] = { 1, 2, 3, 5 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

START_TEST(test_scrub_bijective)
{
	enum { N = 200000 };
	uint64_t *ids = malloc(N * sizeof(*ids));
	struct pointer_scrub s;
	uint64_t x = 0xffff888100000000ull;

	ck_assert_ptr_nonnull(ids);
	scrub_init(&s, key_a, false);
	/* Slab-like addresses: dense, aligned, the worst case for a weak mix. */
	for (size_t i = 0; i < N; i++) {
		uint64_t addr = x + i * 64;

		ids[i] = scrub_id(&s, addr);
		ck_assert_uint_eq(scrub_unid(&s, ids[i]), addr);
		ck_assert_uint_ne(ids[i], 0);
	}
	/* the cache gives the same ids, whatever the order */
	for (size_t i = 0; i < N; i++) {
		uint64_t addr = x + ((i * 7919) % N) * 64;

		ck_assert_uint_eq(scrub_id_cached(&s, addr), scrub_id(&s, addr));
		ck_assert_uint_eq(scrub_id_cached(&s, 0), 0);
	}
	qsort(ids, N, sizeof(*ids), cmp_u64);
	for (size_t i = 1; i < N; i++)
		ck_assert_uint_ne(ids[i - 1], ids[i]);
	free(ids);
}
END_TEST

/*
 * Whether an id looks like an x86-64 kernel address: the top byte 0xff
 * covers 5-level paging and includes the top 17 bits of 4-level paging
 * that tests/logstat.c counts as "kernel_like".
 */
static bool looks_kernel(uint64_t id)
{
	return (id >> 56) == 0xff || (id >> 47) == 0x1ffff;
}

#define LOW56_MASK ((1ull << 56) - 1)

static uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Sort v[0..n) and fail on the first value that occurs twice. */
static void assert_distinct(uint64_t *v, size_t n, const char *what)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] == v[i])
			ck_abort_msg("%s: %#llx twice", what, (unsigned long long)v[i]);
}

static const uint64_t scrub_test_keys[][SCRUB_ROUNDS] = {
	{ 1, 2, 3, 4 },
	{ 0, 0, 0, 0 },
	{ ~0ull, ~0ull, ~0ull, ~0ull },
	{ 0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
	  0x082efa98ec4e6c89ull },
	{ 0xff00000000000000ull, 0x8000000000000000ull, 0x00ffffffffffffffull, 7 },
};

/*
 * Kernel addresses, as the recorder sees them: runs of consecutive ones
 * (byte by byte and slab-object by object, 4- and 5-level paging), ones
 * that differ only in their top bits, and random ones.
 */
static size_t kernel_inputs(uint64_t *in, size_t cap)
{
	static const uint64_t bases[] = {
		0xffff888100000000ull,	/* 4-level direct map */
		0xffffc90000000000ull,	/* 4-level vmalloc */
		0xffffffff81000000ull,	/* kernel text and data */
		0xff11000100000000ull,	/* 5-level direct map */
		0xffa0000000000000ull,	/* 5-level vmalloc */
		0xff00000000000000ull,	/* the lowest kernel-half address */
		0xfffffffffffbf000ull,	/* near the highest */
	};
	static const uint64_t edges[] = {
		0xffffffffffffffffull, 0xffff800000000000ull, 0xffff7fffffffffffull,
		0xff7fffffffffffffull, 0xff80000000000000ull,
	};
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t n = 0;

	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++)
		for (uint64_t i = 0; i < 4096; i++) {
			in[n++] = bases[b] + i;
			in[n++] = bases[b] + 4096 + i * 64;
		}
	for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
		in[n++] = edges[e];
	/* the same low 47 bits under every setting of bits 47..55 */
	for (uint64_t hi = 0; hi < 512; hi++)
		for (uint64_t low = 0; low < 64; low++)
			in[n++] = 0xff00000000000000ull | hi << 47 | (0x088123456740ull + low * 8);
	while (n < cap) {
		uint64_t v = xorshift64(&rng);

		/* half with the top 17 bits set, half with only the top byte */
		in[n] = n & 1 ? v | 0xffff800000000000ull : v | 0xff00000000000000ull;
		n++;
	}
	return n;
}

/*
 * One input and its id: not kernel-looking (unless the input is in the 0x80
 * class, whose ids are all kernel-half), not 0, and invertible.  Plain ifs:
 * a passing ck_assert costs a write to the parent, and these run millions
 * of times.
 */
static void check_id(struct pointer_scrub *s, uint64_t in, uint64_t id)
{
	bool spare = (in >> 56) == 0x80;

	if (looks_kernel(id) != spare)
		ck_abort_msg("%#llx -> %#llx %s like a kernel address", (unsigned long long)in,
			     (unsigned long long)id, spare ? "does not look" : "looks");
	if (!id)
		ck_abort_msg("%#llx -> 0", (unsigned long long)in);
	if (scrub_unid(s, id) != in)
		ck_abort_msg("%#llx -> %#llx -> %#llx", (unsigned long long)in,
			     (unsigned long long)id, (unsigned long long)scrub_unid(s, id));
}

START_TEST(test_scrub_kernel_addresses)
{
	enum { N = 150000 };
	uint64_t *in = malloc(N * sizeof(*in)), *ids = malloc(N * sizeof(*ids));
	struct pointer_scrub s;
	size_t n;

	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(ids);
	n = kernel_inputs(in, N);
	ck_assert_uint_eq(n, N);
	scrub_init(&s, scrub_test_keys[_i], false);
	for (size_t i = 0; i < n; i++) {
		ids[i] = scrub_id(&s, in[i]);
		check_id(&s, in[i], ids[i]);
		if (scrub_id_cached(&s, in[i]) != ids[i])
			ck_abort_msg("%#llx: cached id differs", (unsigned long long)in[i]);
	}
	assert_distinct(in, n, "inputs");
	assert_distinct(ids, n, "ids of distinct inputs");
	/* the kernel address whose image 0 is taken by address 0 */
	ck_assert_uint_eq(s.zero_preimage >> 56, 0xff);
	check_id(&s, s.zero_preimage, scrub_id(&s, s.zero_preimage));
	free(in);
	free(ids);
}
END_TEST

/*
 * What no kernel pointer is -- user-half values (small numbers, user
 * addresses) and non-canonical ones -- gives no kernel-looking id either,
 * nor the id of a kernel address (top byte 0).  Bijectivity forces some
 * inputs onto the kernel half: only the top byte 0x80, which no pointer has
 * under either paging mode.
 */
START_TEST(test_scrub_other_inputs)
{
	enum { N = 40000, SPARE = 2000, KERNEL = 40000 };
	uint64_t *ids = malloc((3 * N + SPARE + KERNEL) * sizeof(*ids));
	uint64_t rng = 0x2545f4914f6cdd1dull;
	struct pointer_scrub s;
	size_t n = 0;

	ck_assert_ptr_nonnull(ids);
	scrub_init(&s, scrub_test_keys[_i], false);
	for (uint64_t i = 1; i <= 3 * N; i++) {
		uint64_t v = xorshift64(&rng), in;

		if (i <= N)		/* small numbers, consecutive */
			in = i;
		else if (i <= 2 * N)	/* user-half addresses */
			in = i & 1 ? v >> 8 : 0x00007f0000000000ull + (i - N) * 64;
		else			/* non-canonical: any top byte but 0, 0x80, 0xff */
			in = (uint64_t)(1 + (v >> 56) % 0xfe) << 56 | (v & LOW56_MASK);
		if ((in >> 56) == 0x80)
			in ^= 1ull << 56;
		ids[n] = scrub_id(&s, in);
		check_id(&s, in, ids[n]);
		if (!(ids[n] >> 56))
			ck_abort_msg("%#llx -> %#llx: an id kernel addresses have",
				     (unsigned long long)in, (unsigned long long)ids[n]);
		n++;
	}
	for (uint64_t i = 0; i < SPARE; i++) {
		uint64_t in = 0x8000000000000000ull | (xorshift64(&rng) & LOW56_MASK);

		ids[n] = scrub_id(&s, in);
		check_id(&s, in, ids[n++]);
	}
	/* and none of them the id of a kernel address */
	for (uint64_t i = 0; i < KERNEL; i++)
		ids[n++] = scrub_id(&s, 0xffff888100000000ull + i * 64);
	assert_distinct(ids, n, "ids of distinct inputs");
	free(ids);
	/*
	 * Each class has its own permutation: the id of a user value must not
	 * give away the id of the kernel address with the same low bits.
	 */
	for (uint64_t low = 1; low < 1000; low++) {
		uint64_t k = scrub_id(&s, 0xff00000000000000ull | low) & LOW56_MASK;

		ck_assert_uint_ne(k, scrub_id(&s, low) & LOW56_MASK);
		ck_assert_uint_ne(k, scrub_id(&s, 0x8000000000000000ull | low) & LOW56_MASK);
	}
}
END_TEST

START_TEST(test_scrub_zero_and_keys)
{
	struct pointer_scrub a, b, raw;
	uint64_t addr = 0xffff888123456740ull;

	scrub_init(&a, key_a, false);
	scrub_init(&b, key_b, false);
	scrub_init(&raw, key_a, true);
	ck_assert_uint_eq(scrub_id(&a, 0), 0);
	ck_assert_uint_eq(scrub_unid(&a, 0), 0);
	/* the one address that would map to 0 still gets a non-zero id */
	ck_assert_uint_ne(scrub_id(&a, a.zero_preimage), 0);
	ck_assert_uint_eq(scrub_unid(&a, scrub_id(&a, a.zero_preimage)), a.zero_preimage);
	ck_assert_uint_ne(scrub_id(&a, addr), scrub_id(&b, addr));
	ck_assert_uint_eq(scrub_id(&a, addr), scrub_id(&a, addr));

	/* scrub_record: exactly the id fields, from the layout table */
	{
		struct ev_submit e = { .type = EV_SUBMIT, .ring = addr, .req = addr + 64,
				       .user_data = addr, .off = addr, .ts = addr };
		struct ev_submit copy = e;

		scrub_record(&a, EV_SUBMIT, &e);
		ck_assert_uint_eq(e.ring, scrub_id(&a, addr));
		ck_assert_uint_eq(e.req, scrub_id(&a, addr + 64));
		ck_assert_uint_eq(e.user_data, addr);
		ck_assert_uint_eq(e.off, addr);
		ck_assert_uint_eq(e.ts, addr);
		scrub_record(&raw, EV_SUBMIT, &copy);
		ck_assert_uint_eq(copy.ring, addr);
	}
	{
		struct ev_link l = { .type = EV_LINK, .ring = 1, .req = 2, .target_req = 3 };

		scrub_record(&a, EV_LINK, &l);
		ck_assert_uint_eq(l.target_req, scrub_id(&a, 3));
	}
	{
		struct pointer_scrub r1, r2;

		ck_assert_int_eq(scrub_init_random(&r1, false), 0);
		ck_assert_int_eq(scrub_init_random(&r2, false), 0);
		ck_assert_uint_ne(scrub_id(&r1, addr), scrub_id(&r2, addr));
	}
}
END_TEST

/* ----------------------------------------------------------- frames */

static void put_submit(struct frame *f, uint64_t ts)
{
	struct ev_submit e = { .ts = ts, .type = EV_SUBMIT, .tid = 7 };

	ck_assert(frame_add_record(f, &e, sizeof(e)));
}

static void put_complete(struct frame *f, uint64_t ts)
{
	struct ev_complete e = { .ts = ts, .type = EV_COMPLETE, .tid = 7 };

	ck_assert(frame_add_record(f, &e, sizeof(e)));
}

static void put_lost(struct frame *f, uint64_t ts, uint32_t count, uint16_t flags)
{
	struct ev_lost e = { .ts = ts, .type = EV_LOST, .flags = flags, .count = count,
			     .last_ts = ts + 1 };

	ck_assert(frame_add_record(f, &e, sizeof(e)));
}

START_TEST(test_frame_drop_events)
{
	struct frame *f = frame_new(LOG_FRAME_EVENTS, 1, 4096);
	struct user_losses ul;
	const struct ev_lost *l;

	ck_assert_int_eq(user_losses_init(&ul, 2), 0);
	put_lost(f, 100, 5, 0);			/* a kernel drop report: must stay */
	put_submit(f, 200);
	put_complete(f, 150);
	put_lost(f, 300, 2, EVF_LOSS_USER);	/* an earlier recorder drop: stays */
	put_submit(f, 400);
	ck_assert_uint_eq(f->count, 5);
	ck_assert_uint_eq(f->events, 3);
	ck_assert_uint_eq(f->first_ts, 100);
	ck_assert_uint_eq(f->last_ts, 400);

	ck_assert_uint_eq(frame_drop_events(f, &ul), 3);
	ck_assert_uint_eq(ul.total, 3);
	ck_assert_uint_eq(user_loss(&ul, 1, EV_SUBMIT), 2);
	ck_assert_uint_eq(user_loss(&ul, 1, EV_COMPLETE), 1);
	ck_assert_uint_eq(user_loss(&ul, 0, EV_SUBMIT), 0);
	ck_assert_uint_eq(f->count, 3);
	ck_assert_uint_eq(f->events, 0);
	ck_assert_uint_eq(f->len, 3 * sizeof(struct ev_lost));
	l = (const void *)f->data;
	ck_assert_uint_eq(l[0].count, 5);
	ck_assert_uint_eq(l[0].flags, 0);
	ck_assert_uint_eq(l[1].count, 2);
	ck_assert_uint_eq(l[2].count, 3);
	ck_assert_uint_eq(l[2].flags, EVF_LOSS_USER);
	ck_assert_uint_eq(l[2].ts, 150);	/* first dropped */
	ck_assert_uint_eq(l[2].last_ts, 400);	/* last dropped */
	ck_assert_uint_eq(f->first_ts, 100);
	ck_assert_uint_eq(f->last_ts, 300);

	/* Nothing left to drop: no new marker. */
	ck_assert_uint_eq(frame_drop_events(f, &ul), 0);
	ck_assert_uint_eq(f->count, 3);
	user_losses_free(&ul);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_queue)
{
	struct frame_queue q;
	struct frame *a, *b, *c, *ctl, *f;

	ck_assert_int_eq(fq_init(&q, 2 * 1024), 0);
	a = fq_get_events_frame(&q, 0, 1024);
	b = fq_get_events_frame(&q, 1, 1024);
	c = fq_get_events_frame(&q, 0, 1024);
	put_submit(a, 1);
	put_submit(b, 2);
	put_submit(c, 3);
	ck_assert(fq_push_events(&q, a));
	ck_assert(fq_push_events(&q, b));
	ck_assert(!fq_push_events(&q, c));	/* over the limit */
	ctl = frame_new(LOG_FRAME_CLOCK, LOG_STREAM_GLOBAL, 40);
	fq_push(&q, ctl);			/* control frames always fit */
	ck_assert_uint_eq(q.peak_bytes, 2048);
	f = fq_pop(&q);
	ck_assert_ptr_eq(f, a);
	fq_recycle(&q, f);
	ck_assert(fq_push_events(&q, c));	/* room again */
	ck_assert_ptr_eq(fq_pop(&q), b);
	fq_recycle(&q, b);
	ck_assert_ptr_eq(fq_pop(&q), ctl);
	frame_free(ctl);
	ck_assert_ptr_eq(fq_pop(&q), c);
	fq_recycle(&q, c);
	/* recycled frames come back empty */
	f = fq_get_events_frame(&q, 5, 1024);
	ck_assert_uint_eq(f->count, 0);
	ck_assert_uint_eq(f->len, 0);
	ck_assert_uint_eq(f->stream, 5);
	frame_free(f);
	fq_close(&q);
	ck_assert_ptr_null(fq_pop(&q));
	fq_destroy(&q);
}
END_TEST

START_TEST(test_loss_frame)
{
	struct losses l;
	struct frame *f;
	const struct log_loss_row *rows;

	ck_assert_int_eq(losses_init(&l, 3), 0);
	*losses_at(&l, EV_LOSS_RING_FULL, 1, EV_SUBMIT) = 7;
	*losses_at(&l, EV_LOSS_RING_FULL, 1, EV_COMPLETE) = 2;
	*losses_at(&l, EV_LOSS_USER_QUEUE, 2, EV_TASK) = 1;
	f = losses_frame(&l);
	ck_assert_ptr_nonnull(f);
	/* 3 CPUs x 3 kinds of totals + 3 per-type rows */
	ck_assert_uint_eq(f->count, 12);
	ck_assert_uint_eq(f->len, 12 * sizeof(struct log_loss_row));
	rows = (const void *)f->data;
	ck_assert_uint_eq(rows[0].cpu, 0);
	ck_assert_uint_eq(rows[0].kind, EV_LOSS_RING_FULL);
	ck_assert_uint_eq(rows[0].count, 0);
	ck_assert_uint_eq(rows[3].cpu, 1);
	ck_assert_uint_eq(rows[3].kind, EV_LOSS_RING_FULL);
	ck_assert_uint_eq(rows[3].event_type, 0);
	ck_assert_uint_eq(rows[3].count, 9);
	ck_assert_uint_eq(rows[4].event_type, EV_SUBMIT);
	ck_assert_uint_eq(rows[4].count, 7);
	ck_assert_uint_eq(rows[5].event_type, EV_COMPLETE);
	ck_assert_uint_eq(rows[5].count, 2);
	ck_assert_uint_eq(rows[11].cpu, 2);
	ck_assert_uint_eq(rows[11].kind, EV_LOSS_USER_QUEUE);
	ck_assert_uint_eq(rows[11].event_type, EV_TASK);
	frame_free(f);
	losses_free(&l);
}
END_TEST

/* --------------------------------------------------------- metadata */

static void fake_probes(struct json_out *o, void *arg)
{
	(void)arg;
	json_arr_begin(o);
	json_obj_begin(o);
	json_kv_str(o, "hook", "io_uring:io_uring_submit_req");
	json_kv_str(o, "status", "attached");
	json_obj_end(o);
	json_arr_end(o);
}

START_TEST(test_metadata_json)
{
	char *argv[] = { "uring-record", "-p", "42", "--comm", "db\"x", "--", "cmd", "a\nb", NULL };
	struct log_clock_snapshot clk = { .boot_ns = 5, .real_ns = 6, .uncertainty_ns = 1 };
	bool rings[2] = { true, false };
	struct meta_input in = {
		.start = &clk, .ncpus = 2, .online_cpus = "0", .ring_cpus = rings,
		.io_wq_tracking = "sched_switch", .syscall_tracking = "tracepoint",
		.initial_pid_ns = true, .command_pid = 99, .probes = fake_probes,
	};
	struct json_doc doc;
	struct env env;
	char err[256];
	const struct json_value *v;
	uint64_t u;
	size_t len;
	char *text;

	ck_assert_int_eq(parse(&env, argv), 0);
	in.env = &env;
	text = metadata_build(&in, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(json_parse(text, len, &doc, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(json_get_str(&doc.root, "format", ""), "ringside-log");
	ck_assert_ptr_nonnull(json_get(&doc.root, "records"));
	ck_assert_str_eq(json_get_str(json_get(&doc.root, "opcodes"), "source", ""), "built-in");
	ck_assert_str_eq(json_get_str(json_at(json_get(json_get(&doc.root, "opcodes"), "names"), 0),
				      "x", "NOP"), "NOP");
	ck_assert_str_eq(json_get_str(&doc.root, "io_wq_tracking", ""), "sched_switch");
	ck_assert_str_eq(json_get_str(&doc.root, "pointers", ""), "opaque");
	v = json_get(json_get(&doc.root, "filters"), "pids");
	ck_assert_uint_eq(v->len, 2);
	ck_assert(json_value_u64(json_at(v, 0), &u) && u == 42);
	ck_assert(json_value_u64(json_at(v, 1), &u) && u == 99);
	ck_assert_str_eq(json_get_str(json_get(&doc.root, "filters"), "comm", ""), "db\"x");
	v = json_get(json_get(&doc.root, "filters"), "command");
	ck_assert_str_eq(json_at(v, 1)->string, "a\nb");
	v = json_get(json_get(&doc.root, "options"), "ring_buffer_cpus");
	ck_assert_uint_eq(v->len, 1);
	ck_assert(json_get_u64(json_get(json_get(&doc.root, "clock"), "start"), "boot_ns", &u) &&
		  u == 5);
	ck_assert_str_eq(json_get_str(json_at(json_get(&doc.root, "probes"), 0), "status", ""),
			 "attached");
	json_doc_free(&doc);
	free(text);
	env_free(&env);
}
END_TEST

/*
 * --sample=N and --sample-syscalls reach the environment, and the metadata
 * names the rates ("sampling"); without --sample it has no such key.
 */
START_TEST(test_sample_options)
{
	char *argv[] = { "uring-record", "--sample=16", "--sample-syscalls", NULL };
	char *plain[] = { "uring-record", "--sample", "1", NULL };
	struct log_clock_snapshot clk = { .boot_ns = 5 };
	bool rings[1] = { true };
	struct meta_input in = {
		.start = &clk, .ncpus = 1, .online_cpus = "0", .ring_cpus = rings,
	};
	struct json_doc doc;
	struct env env;
	char err[256];
	const struct json_value *v;
	uint64_t u;
	size_t len;
	char *text;

	ck_assert_int_eq(parse(&env, argv), 0);
	ck_assert_uint_eq(env.sample, 16);
	ck_assert(env.sample_syscalls);
	in.env = &env;
	text = metadata_build(&in, &len);
	ck_assert_msg(json_parse(text, len, &doc, err, sizeof(err)) == 0, "%s", err);
	v = json_get(&doc.root, "sampling");
	ck_assert(json_get_u64(v, "requests_one_in", &u) && u == 16);
	ck_assert(json_get_u64(v, "syscalls_one_in", &u) && u == 16);
	json_doc_free(&doc);
	free(text);
	env_free(&env);

	ck_assert_int_eq(parse(&env, plain), 0);
	ck_assert_uint_eq(env.sample, 1);
	in.env = &env;
	text = metadata_build(&in, &len);
	ck_assert_msg(json_parse(text, len, &doc, err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_null(json_get(&doc.root, "sampling"));
	json_doc_free(&doc);
	free(text);
	env_free(&env);
}
END_TEST

/* ------------------------------------------------------------ /proc */

START_TEST(test_parse_stat)
{
	char comm[EV_COMM_LEN];
	unsigned flags;
	pid_t ppid;

	ck_assert_int_eq(tasks_parse_stat("42 (bash) S 1 42 42 34816 -1 4194560 0 0", comm,
					  &ppid, &flags), 0);
	ck_assert_str_eq(comm, "bash");
	ck_assert_int_eq(ppid, 1);
	ck_assert_uint_eq(flags, 4194560);
	/* names may hold spaces and parentheses */
	ck_assert_int_eq(tasks_parse_stat("7 (a) (b c)) R 3 7 7 0 -1 16 5", comm, &ppid, &flags), 0);
	ck_assert_str_eq(comm, "a) (b c)");
	ck_assert_int_eq(ppid, 3);
	ck_assert_uint_eq(flags, 16);
	ck_assert_int_eq(tasks_parse_stat("7 (x", comm, &ppid, &flags), -1);
	ck_assert_int_eq(tasks_parse_stat("7 (x) S 1 2", comm, &ppid, &flags), -1);
	ck_assert_int_eq(tasks_parse_stat("", comm, &ppid, &flags), -1);
	/* the state letter, for the end of a -p selection */
	ck_assert_int_eq(tasks_stat_state("42 (bash) S 1 42 42 34816"), 'S');
	ck_assert_int_eq(tasks_stat_state("7 (a) (b c)) Z 3 7 7 0"), 'Z');
	ck_assert_int_eq(tasks_stat_state("7 (x) (y"), 0);
	ck_assert_int_eq(tasks_stat_state("7 (x) RS 1"), 0);
	ck_assert_int_eq(tasks_stat_state("7 (x)"), 0);
	ck_assert_int_eq(tasks_stat_state(NULL), 0);
}
END_TEST

static void fake_task(const char *root, int tgid, int tid, int ppid, const char *comm,
		      unsigned flags, const char *cgroup)
{
	char path[512], line[256];

	snprintf(path, sizeof(path), "%s/%d", root, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task", root, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d", root, tgid, tid);
	mkdir(path, 0755);
	snprintf(line, sizeof(line), "%d (%s) S %d %d %d 0 -1 %u 0 0 0", tid, comm, ppid, tgid,
		 tgid, flags);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, tgid, tid);
	test_write_file(path, line, strlen(line));
	if (tid == tgid) {
		snprintf(path, sizeof(path), "%s/%d/stat", root, tgid);
		test_write_file(path, line, strlen(line));
		snprintf(path, sizeof(path), "%s/%d/cgroup", root, tgid);
		snprintf(line, sizeof(line), "1:name=systemd:/x\n0::%s\n", cgroup);
		test_write_file(path, line, strlen(line));
	}
}

static bool has_task(const struct task_scan *s, uint32_t tid)
{
	for (size_t i = 0; i < s->ntasks; i++)
		if (s->tasks[i].subject_tid == tid)
			return true;
	return false;
}

START_TEST(test_tasks_scan)
{
	char *root = test_tmpdir();
	pid_t srv = 100;
	struct task_filter flt = { .active = true, .pids = &srv, .npids = 1, .self = 999 };
	struct task_scan scan;

	fake_task(root, 1, 1, 0, "init", 0x400100, "/");
	fake_task(root, 100, 100, 1, "srv", 0x400000, "/db");
	fake_task(root, 100, 101, 1, "iou-wrk-100", 0x10, "/db");
	fake_task(root, 102, 102, 100, "child", 0, "/db/sub");
	fake_task(root, 103, 103, 102, "grandchild", 0, "/db2");
	fake_task(root, 200, 200, 1, "srv", 0, "/other");
	fake_task(root, 999, 999, 1, "uring-record", 0, "/db");

	ck_assert_int_eq(tasks_scan(&scan, &flt, root, 1234), 0);
	ck_assert_uint_eq(scan.ntasks, 2);
	ck_assert(has_task(&scan, 100) && has_task(&scan, 101));
	ck_assert_uint_eq(scan.tasks[0].ts, 1234);
	ck_assert_uint_eq(scan.tasks[0].reason, EV_TASK_EXISTING);
	for (size_t i = 0; i < scan.ntasks; i++) {
		ck_assert_uint_eq(scan.tasks[i].subject_tgid, 100);
		ck_assert_uint_eq(scan.tasks[i].parent_tgid, 1);
		if (scan.tasks[i].subject_tid == 101) {
			ck_assert_str_eq(scan.tasks[i].comm, "iou-wrk-100");
			ck_assert_uint_eq(scan.tasks[i].task_flags, 0x10);
		}
	}
	ck_assert_uint_eq(scan.nfollowed, 0);
	tasks_scan_free(&scan);

	/* --follow: existing descendants too, and they join the filter */
	flt.follow = true;
	ck_assert_int_eq(tasks_scan(&scan, &flt, root, 1), 0);
	ck_assert_uint_eq(scan.ntasks, 4);
	ck_assert(has_task(&scan, 102) && has_task(&scan, 103));
	ck_assert_uint_eq(scan.nfollowed, 2);
	tasks_scan_free(&scan);

	/* --comm matches the main thread's name; the recorder never */
	flt = (struct task_filter){ .active = true, .comm = "srv", .self = 999 };
	ck_assert_int_eq(tasks_scan(&scan, &flt, root, 1), 0);
	ck_assert_uint_eq(scan.ntasks, 3);	/* 100, its worker 101, and 200 */
	ck_assert(has_task(&scan, 200) && has_task(&scan, 101));
	tasks_scan_free(&scan);

	/* --cgroup /db: /db and /db/sub, not /db2 */
	flt = (struct task_filter){ .active = true, .cgroup = "/db", .self = 999 };
	ck_assert_int_eq(tasks_scan(&scan, &flt, root, 1), 0);
	ck_assert_uint_eq(scan.ntasks, 3);
	ck_assert(has_task(&scan, 102) && !has_task(&scan, 103) && !has_task(&scan, 999));
	tasks_scan_free(&scan);

	/* no filter: everything but the recorder */
	flt = (struct task_filter){ .self = 999 };
	ck_assert_int_eq(tasks_scan(&scan, &flt, root, 1), 0);
	ck_assert_uint_eq(scan.ntasks, 6);
	tasks_scan_free(&scan);

	ck_assert_int_lt(tasks_scan(&scan, &flt, "/nonexistent-proc", 1), 0);
	test_rmtree(root);
	free(root);
}
END_TEST

START_TEST(test_cpulist)
{
	bool on[16];

	ck_assert_int_eq(cpulist_parse("0-3,8,10-11\n", on, 16), 0);
	ck_assert(on[0] && on[3] && !on[4] && on[8] && !on[9] && on[10] && on[11] && !on[12]);
	ck_assert_int_eq(cpulist_parse("0", on, 16), 0);
	ck_assert(on[0] && !on[1]);
	ck_assert_int_eq(cpulist_parse("0-40", on, 16), 0);
	ck_assert(on[15]);
	ck_assert_int_eq(cpulist_parse("3-1", on, 16), -1);
	ck_assert_int_eq(cpulist_parse("a", on, 16), -1);
	ck_assert_int_eq(cpulist_parse("1,,2", on, 16), -1);
}
END_TEST

static Suite *recorder_suite(void)
{
	Suite *s = suite_create("recorder");
	TCase *tc = tcase_create("core");

	msg_verbosity = 0;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_size);
	tcase_add_test(tc, test_parse_duration);
	tcase_add_test(tc, test_env_defaults);
	tcase_add_test(tc, test_env_drain_follows_flush);
	tcase_add_test(tc, test_default_ring_size);
	tcase_add_test(tc, test_env_options);
	tcase_add_test(tc, test_env_command);
	tcase_add_test(tc, test_env_bad);
	tcase_add_test(tc, test_env_help);
	tcase_add_test(tc, test_scrub_bijective);
	tcase_add_test(tc, test_scrub_zero_and_keys);
	tcase_add_loop_test(tc, test_scrub_kernel_addresses, 0,
			    sizeof(scrub_test_keys) / sizeof(scrub_test_keys[0]));
	tcase_add_loop_test(tc, test_scrub_other_inputs, 0,
			    sizeof(scrub_test_keys) / sizeof(scrub_test_keys[0]));
	tcase_add_test(tc, test_frame_drop_events);
	tcase_add_test(tc, test_frame_queue);
	tcase_add_test(tc, test_loss_frame);
	tcase_add_test(tc, test_metadata_json);
	tcase_add_test(tc, test_sample_options);
	tcase_add_test(tc, test_parse_stat);
	tcase_add_test(tc, test_tasks_scan);
	tcase_add_test(tc, test_cpulist);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(recorder_suite)
