// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The log format (uring-log(5)): writer -> reader round trips, logs cut at
 * every byte, every byte damaged, unknown frames, newer versions, old and
 * new record layouts, and the writer's refusal to clobber files.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "log_reader.h"
#include "log_writer.h"
#include "synth_log.h"
#include "test_util.h"

#define EMPTY_META "{\"records\":{\"byte_order\":\"little\",\"types\":[]}}"

/* What a reader got out of a log. */
struct walk {
	int open_ret;
	char open_msg[LOG_MSG_LEN];
	enum log_stop stop;
	char stop_msg[LOG_MSG_LEN];
	unsigned frames;		/* after META */
	unsigned events_frames;
	unsigned payload_errors;
	unsigned record_errors;
	unsigned records;
	uint32_t records_crc;		/* CRC32C over all normalised records */
	unsigned unknown_frames;
};

static void walk_log(const char *path, struct walk *w)
{
	struct log_reader *r;
	struct log_frame f;
	const char *msg;

	memset(w, 0, sizeof(*w));
	w->open_ret = log_reader_open(&r, path, w->open_msg, sizeof(w->open_msg));
	if (w->open_ret)
		return;
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len, pos = 0;
		char err[LOG_MSG_LEN];
		const struct ev_header *rec;
		unsigned char scratch[EV_RECORD_MAX];
		bool known;
		int ret;

		w->frames++;
		if (f.h.type > LOG_FRAME_INDEX) {
			w->unknown_frames++;
			continue;
		}
		if (log_reader_payload(r, &f, 0, &buf, &len, err, sizeof(err))) {
			w->payload_errors++;
			continue;
		}
		if (f.h.type != LOG_FRAME_EVENTS)
			continue;
		w->events_frames++;
		while ((ret = log_next_record(log_reader_layout(r), buf, len, &pos, &rec,
					      &known, scratch, err, sizeof(err))) > 0) {
			const struct ev_type_info *t = ev_type_info(rec->type);

			w->records++;
			if (known && t)
				w->records_crc = crc32c(w->records_crc, rec, t->size);
		}
		if (ret < 0)
			w->record_errors++;
	}
	w->stop = log_reader_stop(r, &msg, NULL);
	snprintf(w->stop_msg, sizeof(w->stop_msg), "%s", msg);
	log_reader_close(r);
}

/* A small log: 3 CPUs, two flush rounds, loss, tasks, an END frame. */
static void make_small_log(const char *path, unsigned *nrecords)
{
	struct synth_options opt = { .ncpus = 3 };
	struct synth_log *s = synth_log_create(path, &opt);
	unsigned n = 0;

	for (unsigned round = 0; round < 2; round++) {
		for (unsigned cpu = 0; cpu < 3; cpu++) {
			uint64_t ts = 2000000000ull + round * 1000000 + cpu * 1000;
			struct ev_submit sub = {
				SYNTH_HDR(EV_SUBMIT, ts, 100 + cpu, 100),
				.opcode = 22, .ring = 0x1111, .req = 0x2000 + cpu,
				.user_data = 42 + cpu, .fd = 3, .len = 4096,
			};
			struct ev_complete comp = {
				SYNTH_HDR(EV_COMPLETE, ts + 500, 100 + cpu, 100),
				.res = 4096, .ring = 0x1111, .req = 0x2000 + cpu,
				.user_data = 42 + cpu,
			};

			SYNTH_EMIT(s, cpu, sub);
			SYNTH_EMIT(s, cpu, comp);
			n += 2;
		}
		synth_flush(s);
		struct log_loss_row row = { .cpu = 1, .kind = EV_LOSS_RING_FULL,
					    .event_type = EV_SUBMIT, .count = round };
		synth_loss(s, &row, 1, 2000000000ull + round * 1000000);
	}
	struct ev_task task = {
		SYNTH_HDR(EV_TASK, 1999999999ull, 100, 100),
		.subject_tid = 100, .subject_tgid = 100, .comm = "app",
		.reason = EV_TASK_EXISTING,
	};
	synth_tasks(s, &task, 1);
	synth_finish(s, "test");
	*nrecords = n;
}

START_TEST(test_roundtrip)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "small.log");
	struct walk w;
	unsigned n;

	make_small_log(path, &n);
	walk_log(path, &w);
	ck_assert_msg(w.open_ret == 0, "open: %s", w.open_msg);
	ck_assert_int_eq(w.stop, LOG_STOP_END);
	ck_assert_uint_eq(w.records, n);
	ck_assert_uint_eq(w.events_frames, 6);
	ck_assert_uint_eq(w.payload_errors, 0);
	ck_assert_uint_eq(w.record_errors, 0);

	/* Field values survive. */
	struct log_reader *r;
	struct log_frame f;
	char msg[LOG_MSG_LEN];
	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(log_reader_info(r)->ncpus, 3);
	ck_assert(log_reader_info(r)->have_start_clock);
	ck_assert_str_eq(json_get_str(json_get(log_reader_info(r)->meta, "host"),
				      "hostname", ""), "synthetic");
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len, pos = 0;
		const struct ev_header *rec;
		unsigned char scratch[EV_RECORD_MAX];
		bool known;

		if (f.h.type != LOG_FRAME_EVENTS)
			continue;
		ck_assert_int_eq(log_reader_payload(r, &f, 1, &buf, &len, msg, sizeof(msg)), 0);
		ck_assert_int_eq(log_next_record(log_reader_layout(r), buf, len, &pos, &rec,
						 &known, scratch, msg, sizeof(msg)), 1);
		ck_assert(known);
		ck_assert_uint_eq(rec->type, EV_SUBMIT);
		const struct ev_submit *sub = (const void *)rec;
		ck_assert_uint_eq(sub->req, 0x2000 + f.h.stream);
		ck_assert_uint_eq(sub->tid, 100 + f.h.stream);
		ck_assert_uint_eq(sub->len, 4096);
		ck_assert_uint_eq(f.h.count, 2);
		ck_assert_uint_le(f.h.first_ts, f.h.last_ts);
	}
	log_reader_close(r);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

static void set_major(const char *path, uint16_t major);

/* Frames of this on-disk type (the reader reports EVENTS_COLUMNS and _PACKED as EVENTS). */
static unsigned count_disk_frames(const char *path, uint16_t type)
{
	size_t size, pos = 0;
	unsigned char *b = test_read_file(path, &size);
	unsigned n = 0;

	while (pos + LOG_SKIPPABLE_HDR_SIZE <= size) {
		uint32_t magic, hsize;
		struct log_frame_header h;

		memcpy(&magic, b + pos, 4);
		memcpy(&hsize, b + pos + 4, 4);
		pos += LOG_SKIPPABLE_HDR_SIZE;
		if (magic != LOG_SKIPPABLE_FRAME) {
			pos += hsize;
			continue;
		}
		memcpy(&h, b + pos, sizeof(h));
		n += h.type == type;
		pos += hsize + h.stored_size;
	}
	free(b);
	return n;
}

enum { ENC_PACKED, ENC_COLUMNS, ENC_ROWS, ENC_N };

/*
 * Formats 3.0 and 2.0: records written by log_write_events() as
 * EVENTS_PACKED frames (3.0, the default) and as EVENTS_COLUMNS frames
 * (2.0) come back from the reader exactly as the same records written as
 * 1.0 EVENTS frames: several types interleaved, more records of a type
 * than the writer packs at a time, timestamps that go backwards, jump by
 * more than 2^63 or repeat, ring positions that wrap, 4- and 8-byte
 * fields whose differences take every varint length up to 5 and 10
 * bytes; the frames on disk are of the asked type and must-understand; a
 * regular stream of events takes less than half the bytes of rows, and
 * packed no more than columns.
 */
/* Values at the edges of each column's encoding. */
static const uint64_t odd_ts[] = {
	5, 3, 3, UINT64_MAX - 7, 0, 1ull << 63, 2000000000ull,
};
static const uint64_t odd_u64[] = {
	0, UINT64_MAX, 1ull << 63, 1, (1ull << 63) - 1, 127, 128, 1ull << 56,
};
static const int32_t odd_s32[] = {
	INT32_MIN, INT32_MAX, 0, -1, 64, -65, INT32_MIN + 1, 1 << 27,
};
#define NODD (sizeof(odd_ts) / sizeof(odd_ts[0]))
#define NEXTREME (sizeof(odd_u64) / sizeof(odd_u64[0]))

/* The odd values on CPU 0, then a regular stream of reads on CPU 1, in
 * encoding e. */
static void write_encoded_log(const char *path, int e)
{
	struct synth_options opt = {
		.ncpus = 2, .plain_events = e == ENC_ROWS, .fixed_columns = e == ENC_COLUMNS,
	};
	struct synth_log *s = synth_log_create(path, &opt);

	for (size_t i = 0; i < NODD; i++) {
		struct ev_complete c = {
			SYNTH_HDR(EV_COMPLETE, odd_ts[i], 7, 7), .res = (int32_t)i,
			.ring = 0x1111, .req = 0x2000 + i,
		};

		SYNTH_EMIT(s, 0, c);
	}
	for (size_t i = 0; i < NEXTREME; i++) {
		struct ev_complete c = {
			SYNTH_HDR(EV_COMPLETE, 2000000000ull + i, (uint32_t)odd_s32[i], 7),
			.res = odd_s32[i], .ring = odd_u64[i], .req = ~odd_u64[i],
			.user_data = odd_u64[NEXTREME - 1 - i], .cflags = (uint32_t)odd_s32[i],
		};

		SYNTH_EMIT(s, 0, c);
	}
	synth_flush(s);
	for (unsigned i = 0; i < 20000; i++) {
		uint64_t ts = 3000000000ull + i * 211 + (i * 7919) % 97;
		struct ev_submit sub = {
			SYNTH_HDR(EV_SUBMIT, ts, 8, 8),
			.opcode = 22, .ring = 0x1111, .req = 0x2000 + i % 32,
			.off = (i * 2654435761u) % 262144 * 4096,
		};
		struct ev_complete comp = {
			SYNTH_HDR(EV_COMPLETE, ts + 50, 8, 8), .res = 4096,
			.ring = 0x1111, .req = 0x2000 + (i + 7) % 32,
		};
		struct ev_enter_begin eb = {
			SYNTH_HDR(EV_ENTER_BEGIN, ts - 20, 8, 8), .fd = 3,
			.ring = 0x1111, .to_submit = 1,
			.sq_head = i - 3, .sq_tail = i, .cq_head = 0xfffffff0u + i,
			.cq_tail = 0xfffffff4u + i,
		};

		SYNTH_EMIT(s, 1, eb);
		SYNTH_EMIT(s, 1, sub);
		if (i % 3)
			SYNTH_EMIT(s, 1, comp);
	}
	synth_flush(s);
	synth_finish(s, "test");
}

/* The odd values read back from CPU 0's frames, and the flags the
 * reader sets. */
static void check_odd_values(const char *path, int e)
{
	struct log_reader *r;
	struct log_frame f;
	char msg[LOG_MSG_LEN];
	size_t i = 0;

	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len, pos = 0;
		const struct ev_header *rec;
		unsigned char scratch[EV_RECORD_MAX];
		bool known;

		if (f.h.type != LOG_FRAME_EVENTS || f.h.stream != 0)
			continue;
		ck_assert(f.columns);
		ck_assert(f.packed == (e == ENC_PACKED));
		ck_assert_uint_eq(f.h.first_ts, 0);
		ck_assert_uint_eq(f.h.last_ts, UINT64_MAX - 7);
		ck_assert_int_eq(log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg)), 0);
		while (log_next_record(log_reader_layout(r), buf, len, &pos, &rec, &known,
				       scratch, msg, sizeof(msg)) > 0) {
			const struct ev_complete *c = (const void *)rec;
			size_t x = i - NODD;

			if (i++ < NODD) {
				ck_assert_uint_eq(rec->ts, odd_ts[i - 1]);
				continue;
			}
			ck_assert_uint_eq(c->tid, (uint32_t)odd_s32[x]);
			ck_assert_int_eq(c->res, odd_s32[x]);
			ck_assert_uint_eq(c->cflags, (uint32_t)odd_s32[x]);
			ck_assert_uint_eq(c->ring, odd_u64[x]);
			ck_assert_uint_eq(c->req, ~odd_u64[x]);
			ck_assert_uint_eq(c->user_data, odd_u64[NEXTREME - 1 - x]);
		}
	}
	ck_assert_uint_eq(i, NODD + NEXTREME);
	log_reader_close(r);
}

/* Not whole known records: refused, and the log at path stays intact. */
static void check_refused_records(const char *path)
{
	struct log_writer *lw;
	struct log_writer_options ow = { .overwrite = true };
	struct log_frame_desc d = { .type = LOG_FRAME_EVENTS };
	struct ev_submit sub = { SYNTH_HDR(EV_SUBMIT, 1, 1, 1) };
	struct ev_submit bad = { SYNTH_HDR(63, 1, 1, 1) };
	struct walk w;
	char err[256];

	ck_assert_int_eq(log_writer_create(&lw, path, &ow, err, sizeof(err)), 0);
	ck_assert_int_eq(log_write_meta(lw, EMPTY_META, strlen(EMPTY_META)), 0);
	ck_assert_int_eq(log_write_events(lw, &d, &sub, sizeof(sub) - 8), -EINVAL);
	ck_assert_int_eq(log_write_events(lw, &d, &bad, sizeof(bad)), -EINVAL);
	d.type = LOG_FRAME_TASKS;
	ck_assert_int_eq(log_write_events(lw, &d, &sub, sizeof(sub)), -EINVAL);
	ck_assert_int_eq(log_writer_error(lw), 0);
	ck_assert_int_eq(log_writer_finish(lw, "{}", err, sizeof(err)), 0);
	walk_log(path, &w);
	ck_assert_int_eq(w.stop, LOG_STOP_END);
	ck_assert_uint_eq(w.events_frames, 0);
}

START_TEST(test_events_columns)
{
	static const char *const names[ENC_N] = { "packed.log", "columns.log", "rows.log" };
	static const uint16_t disk_type[ENC_N] = {
		LOG_FRAME_EVENTS_PACKED, LOG_FRAME_EVENTS_COLUMNS, LOG_FRAME_EVENTS,
	};
	char *dir = test_tmpdir();
	char *paths[ENC_N];
	struct walk w[ENC_N];
	struct stat st[ENC_N];

	for (int e = 0; e < ENC_N; e++) {
		paths[e] = test_path(dir, names[e]);
		write_encoded_log(paths[e], e);
		walk_log(paths[e], &w[e]);
		ck_assert_msg(w[e].open_ret == 0, "open: %s", w[e].open_msg);
		ck_assert_int_eq(w[e].stop, LOG_STOP_END);
		ck_assert_uint_eq(w[e].records, 20000 * 2 + 13333 + NODD + NEXTREME);
		ck_assert_uint_eq(w[e].payload_errors + w[e].record_errors, 0);
		ck_assert_int_eq(stat(paths[e], &st[e]), 0);
		for (int t = 0; t < ENC_N; t++)
			ck_assert_uint_eq(count_disk_frames(paths[e], disk_type[t]), t == e ? 2 : 0);
	}
	ck_assert_uint_eq(w[ENC_PACKED].records_crc, w[ENC_ROWS].records_crc);
	ck_assert_uint_eq(w[ENC_COLUMNS].records_crc, w[ENC_ROWS].records_crc);
	ck_assert_msg(st[ENC_COLUMNS].st_size * 2 < st[ENC_ROWS].st_size,
		      "columns %lld bytes, rows %lld", (long long)st[ENC_COLUMNS].st_size,
		      (long long)st[ENC_ROWS].st_size);
	ck_assert_msg(st[ENC_PACKED].st_size <= st[ENC_COLUMNS].st_size,
		      "packed %lld bytes, columns %lld", (long long)st[ENC_PACKED].st_size,
		      (long long)st[ENC_COLUMNS].st_size);
	for (int e = ENC_PACKED; e <= ENC_COLUMNS; e++)
		check_odd_values(paths[e], e);

	/*
	 * EVENTS_PACKED does not exist in 2.x, EVENTS_COLUMNS not in 1.x:
	 * such logs stop there, loudly.
	 */
	set_major(paths[ENC_PACKED], 2);
	set_major(paths[ENC_COLUMNS], 1);
	for (int e = ENC_PACKED; e <= ENC_COLUMNS; e++) {
		walk_log(paths[e], &w[e]);
		ck_assert_int_eq(w[e].stop, LOG_STOP_UNSUPPORTED);
		ck_assert_uint_eq(w[e].events_frames, 0);
		ck_assert_msg(strstr(w[e].stop_msg, "must be understood"), "%s", w[e].stop_msg);
	}
	check_refused_records(paths[0]);
	test_rmtree(dir);
	for (int e = 0; e < ENC_N; e++)
		free(paths[e]);
	free(dir);
}
END_TEST

/*
 * Damaged EVENTS_PACKED payloads (one task_exit record: type byte, then
 * the varints of ts, tid and tgid, flags as 2 bytes, exit_code's varint):
 * every one refused with a message that names the problem, never read as
 * records; the largest values each varint can hold are read exactly.
 */
START_TEST(test_packed_damaged)
{
	static const struct {
		const char *what;
		unsigned char p[24];
		size_t len;
		const char *want;	/* NULL: reads */
	} cases[] = {
		{ "valid", { 3, 0xd0, 0x0f, 14, 14, 0x34, 0x12, 1 }, 8, NULL },
		{ "largest", { 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
			       0xff, 0xff, 0xff, 0xff, 0x0f, 14, 0x34, 0x12, 1 }, 20, NULL },
		{ "cut value", { 3, 0xd0, 0x0f, 14, 14, 0x34, 0x12, 0x81 }, 8, "runs past" },
		{ "cut record", { 3, 0xd0, 0x0f, 14, 14, 0x34, 0x12 }, 7, "runs past" },
		{ "cut fixed", { 3, 0xd0, 0x0f, 14, 14, 0x34 }, 6, "runs past" },
		{ "33 bits", { 3, 0xd0, 0x0f, 0xff, 0xff, 0xff, 0xff, 0x1f, 14, 0x34, 0x12, 1 },
		  12, "does not fit" },
		{ "6 bytes", { 3, 0xd0, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 14, 0x34, 0x12,
			       1 }, 13, "does not fit" },
		{ "65 bits", { 3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02,
			       14, 14, 0x34, 0x12, 1 }, 15, "does not fit" },
		{ "11 bytes", { 3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				0x00, 14, 14, 0x34, 0x12, 1 }, 16, "does not fit" },
		{ "trailing", { 3, 0xd0, 0x0f, 14, 14, 0x34, 0x12, 1, 0 }, 9, "1 bytes are left" },
	};
	char *dir = test_tmpdir();
	char *path = test_path(dir, "packed.log");

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct synth_log *s = synth_log_create(path, NULL);
		struct log_reader *r;
		struct log_frame f;
		char msg[LOG_MSG_LEN];
		const void *buf;
		size_t len;
		int ret = 1;

		synth_frame(s, LOG_FRAME_EVENTS_PACKED, LOG_FRAME_F_MUST_UNDERSTAND, 0, 1,
			    cases[c].p, cases[c].len);
		synth_finish(s, "test");
		ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
		while (log_reader_next(r, &f) > 0) {
			if (f.h.type != LOG_FRAME_EVENTS)
				continue;
			ck_assert(f.packed);
			ret = log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg));
			break;
		}
		if (cases[c].want) {
			ck_assert_msg(ret == -1, "%s: read", cases[c].what);
			ck_assert_msg(strstr(msg, cases[c].want) && strstr(msg, path) &&
				      strstr(msg, "damaged"), "%s: %s", cases[c].what, msg);
		} else {
			struct ev_task_exit e;

			ck_assert_msg(ret == 0, "%s: %s", cases[c].what, msg);
			ck_assert_uint_eq(len, sizeof(e));
			memcpy(&e, buf, sizeof(e));
			ck_assert_uint_eq(e.ts, c ? 1ull << 63 : 1000);
			ck_assert_uint_eq(e.tid, c ? 1u << 31 : 7);
			ck_assert_uint_eq(e.tgid, 7);
			ck_assert_uint_eq(e.type, EV_TASK_EXIT);
			ck_assert_uint_eq(e.flags, 0x1234);
			ck_assert_int_eq(e.exit_code, -1);
		}
		log_reader_close(r);
	}
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

/* Frame boundaries of a log, from a clean walk of the header chain. */
static size_t frame_ends(const char *path, uint64_t *ends, size_t max, uint64_t *meta_end)
{
	struct log_reader *r;
	struct log_frame f;
	char msg[LOG_MSG_LEN];
	size_t n = 0;

	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	*meta_end = 0;
	while (log_reader_next(r, &f)) {
		if (!*meta_end)
			*meta_end = f.offset;
		ck_assert(n < max);
		ends[n++] = f.payload_offset + f.h.stored_size;
	}
	log_reader_close(r);
	return n;
}

START_TEST(test_truncate_every_byte)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "full.log");
	char *cut = test_path(dir, "cut.log");
	uint64_t ends[64], meta_end;
	size_t nframes, size;
	unsigned char *data;
	unsigned n;

	make_small_log(path, &n);
	nframes = frame_ends(path, ends, 64, &meta_end);
	data = test_read_file(path, &size);
	ck_assert_uint_eq(ends[nframes - 1], size);

	for (size_t len = 0; len <= size; len++) {
		struct walk w;
		size_t complete = 0;

		test_write_file(cut, data, len);
		walk_log(cut, &w);
		if (len < meta_end) {
			/* Preamble or metadata incomplete: a clear refusal. */
			ck_assert_msg(w.open_ret < 0, "cut at %zu opened", len);
			ck_assert_msg(strstr(w.open_msg, cut) != NULL,
				      "message does not name the file: %s", w.open_msg);
			continue;
		}
		ck_assert_msg(w.open_ret == 0, "cut at %zu: %s", len, w.open_msg);
		while (complete < nframes && ends[complete] <= len)
			complete++;
		ck_assert_uint_eq(w.frames, complete);
		ck_assert_uint_eq(w.payload_errors, 0);
		ck_assert_uint_eq(w.record_errors, 0);
		if (len == size)
			ck_assert_int_eq(w.stop, LOG_STOP_END);
		else if (len == meta_end || (complete && ends[complete - 1] == len))
			ck_assert_msg(w.stop == LOG_STOP_EOF || w.stop == LOG_STOP_END,
				      "cut at boundary %zu: %s", len, w.stop_msg);
		else
			ck_assert_msg(w.stop == LOG_STOP_TRUNCATED, "cut at %zu: stop %d (%s)",
				      len, w.stop, w.stop_msg);
		if (w.stop == LOG_STOP_TRUNCATED) {
			char off[32];

			snprintf(off, sizeof(off), "offset %llu",
				 (unsigned long long)(complete ? ends[complete - 1] : meta_end));
			ck_assert_msg(strstr(w.stop_msg, off) && strstr(w.stop_msg, "truncated"),
				      "message for cut at %zu lacks where/why: %s", len,
				      w.stop_msg);
		}
	}
	free(data);
	test_rmtree(dir);
	free(cut);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_flip_every_byte)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "full.log");
	char *bad = test_path(dir, "bad.log");
	struct walk good;
	size_t size;
	unsigned char *data;
	unsigned n;

	make_small_log(path, &n);
	walk_log(path, &good);
	data = test_read_file(path, &size);

	for (size_t i = 0; i < size; i++) {
		struct walk w;

		data[i] ^= (unsigned char)(1u << (i % 8));
		test_write_file(bad, data, size);
		data[i] ^= (unsigned char)(1u << (i % 8));
		walk_log(bad, &w);
		/*
		 * Every single-bit error must be noticed: the open fails, the
		 * walk stops on a damaged header, or a payload fails its
		 * checksum.  A walk that reports nothing wrong must have read
		 * exactly the original data.
		 */
		if (w.open_ret)
			continue;
		if (w.stop != LOG_STOP_END || w.payload_errors || w.record_errors)
			continue;
		ck_assert_msg(w.records == good.records && w.records_crc == good.records_crc &&
			      w.frames == good.frames,
			      "bit flip at offset %zu went unnoticed", i);
	}
	free(data);
	test_rmtree(dir);
	free(bad);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_unknown_frames)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "unknown.log");
	struct synth_log *s = synth_log_create(path, NULL);
	struct ev_complete c = { SYNTH_HDR(EV_COMPLETE, 5000, 1, 1), .res = 1 };
	struct walk w;

	SYNTH_EMIT(s, 0, c);
	synth_flush(s);
	synth_frame(s, 100, 0, LOG_STREAM_GLOBAL, 1, "future", 6);
	SYNTH_EMIT(s, 1, c);
	synth_finish(s, "test");
	walk_log(path, &w);
	ck_assert_int_eq(w.open_ret, 0);
	ck_assert_int_eq(w.stop, LOG_STOP_END);
	ck_assert_uint_eq(w.unknown_frames, 1);
	ck_assert_uint_eq(w.records, 2);	/* the frame after it is read */

	/* The same frame marked must-understand stops the walk, clearly. */
	s = synth_log_create(path, NULL);
	SYNTH_EMIT(s, 0, c);
	synth_flush(s);
	synth_frame(s, 100, LOG_FRAME_F_MUST_UNDERSTAND, LOG_STREAM_GLOBAL, 1, "future", 6);
	SYNTH_EMIT(s, 1, c);
	synth_finish(s, "test");
	walk_log(path, &w);
	ck_assert_int_eq(w.stop, LOG_STOP_UNSUPPORTED);
	ck_assert_uint_eq(w.records, 1);
	ck_assert_msg(strstr(w.stop_msg, "must be understood"), "%s", w.stop_msg);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

/* Rewrite the preamble's major version (and its checksum). */
static void set_major(const char *path, uint16_t major)
{
	size_t size;
	unsigned char *d = test_read_file(path, &size);
	uint32_t crc;

	memcpy(d + 8 + 8, &major, 2);
	crc = crc32c(0, d + 8, 44);
	memcpy(d + 8 + 44, &crc, 4);
	test_write_file(path, d, size);
	free(d);
}

START_TEST(test_newer_major_refused)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "v2.log");
	struct walk w;
	unsigned n;

	make_small_log(path, &n);
	set_major(path, LOG_FORMAT_MAJOR + 1);
	walk_log(path, &w);
	ck_assert_int_eq(w.open_ret, -EPROTONOSUPPORT);
	ck_assert_msg(strstr(w.open_msg, "newer") && strstr(w.open_msg, path),
		      "%s", w.open_msg);
	set_major(path, LOG_FORMAT_MAJOR);
	walk_log(path, &w);
	ck_assert_int_eq(w.open_ret, 0);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_bad_inputs)
{
	char *dir = test_tmpdir();
	char *missing = test_path(dir, "missing.log");
	char *empty = test_path(dir, "empty.log");
	char *text = test_path(dir, "text.log");
	struct walk w;

	walk_log(dir, &w);
	ck_assert_int_eq(w.open_ret, -EISDIR);
	ck_assert_msg(strstr(w.open_msg, "directory"), "%s", w.open_msg);
	walk_log(missing, &w);
	ck_assert_int_eq(w.open_ret, -ENOENT);
	ck_assert_msg(strstr(w.open_msg, missing), "%s", w.open_msg);
	test_write_file(empty, "", 0);
	walk_log(empty, &w);
	ck_assert_int_lt(w.open_ret, 0);
	ck_assert_msg(strstr(w.open_msg, "empty"), "%s", w.open_msg);
	test_write_file(text, "this is not a ringside log, it is text\n" \
			"padded to be longer than a preamble.......\n", 82);
	walk_log(text, &w);
	ck_assert_int_lt(w.open_ret, 0);
	ck_assert_msg(strstr(w.open_msg, "not a ringside log"), "%s", w.open_msg);
	walk_log("/dev/null", &w);
	ck_assert_int_lt(w.open_ret, 0);
	test_rmtree(dir);
	free(text);
	free(empty);
	free(missing);
	free(dir);
}
END_TEST

/*
 * Layout evolution: an older recorder's submit record lacked "personality"
 * and was 72 bytes; a newer one has an extra trailing field and a new record
 * type.  Both must read into today's struct by field name.
 */
static const char old_new_layout[] =
	"{\"header_size\":20,\"byte_order\":\"little\",\"types\":["
	"{\"type\":23,\"name\":\"submit\",\"size\":72,\"fields\":["
	"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
	"[\"type\",16,2,\"u16\"],[\"flags\",18,2,\"u16\"],[\"opcode\",20,1,\"u8\"],"
	"[\"sqe_flags\",21,1,\"u8\"],[\"buf_index\",22,2,\"u16\"],[\"ring\",24,8,\"id\"],"
	"[\"req\",32,8,\"id\"],[\"user_data\",40,8,\"u64\"],[\"req_flags\",48,4,\"u32\"],"
	"[\"fd\",52,4,\"s32\"],[\"off\",56,8,\"u64\"],[\"len\",64,4,\"u32\"],"
	"[\"future_field\",68,4,\"quaternion\"]]},"
	"{\"type\":63,\"name\":\"from_the_future\",\"size\":24,\"fields\":["
	"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
	"[\"type\",16,2,\"u16\"],[\"flags\",18,2,\"u16\"],[\"x\",20,4,\"u32\"]]}]}";

START_TEST(test_layout_evolution)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "layout.log");
	struct synth_options opt = { .records_json = old_new_layout };
	struct synth_log *s = synth_log_create(path, &opt);
	unsigned char rec[72] = { 0 };
	unsigned char future[24] = { 0 };
	uint64_t ts = 7777, ring = 0xabc, req = 0xdef, ud = 99, off = 1ull << 40;
	uint32_t tid = 5, req_flags = 0x10, len = 512;
	int32_t fd = -9;
	uint16_t type = EV_SUBMIT, ftype = 63;

	memcpy(rec + 0, &ts, 8);
	memcpy(rec + 8, &tid, 4);
	memcpy(rec + 12, &tid, 4);
	memcpy(rec + 16, &type, 2);
	rec[20] = 23;
	memcpy(rec + 24, &ring, 8);
	memcpy(rec + 32, &req, 8);
	memcpy(rec + 40, &ud, 8);
	memcpy(rec + 48, &req_flags, 4);
	memcpy(rec + 52, &fd, 4);
	memcpy(rec + 56, &off, 8);
	memcpy(rec + 64, &len, 4);
	synth_emit(s, 0, rec, sizeof(rec));
	memcpy(future + 0, &ts, 8);
	memcpy(future + 16, &ftype, 2);
	synth_emit(s, 0, future, sizeof(future));
	synth_finish(s, "test");

	struct log_reader *r;
	struct log_frame f;
	char msg[LOG_MSG_LEN];
	const void *buf;
	size_t plen, pos = 0;
	const struct ev_header *h;
	unsigned char scratch[EV_RECORD_MAX];
	bool known;

	ck_assert_int_eq(log_reader_open(&r, path, msg, sizeof(msg)), 0);
	ck_assert(log_reader_next(r, &f));
	ck_assert_int_eq(log_reader_payload(r, &f, 0, &buf, &plen, msg, sizeof(msg)), 0);
	ck_assert_int_eq(log_next_record(log_reader_layout(r), buf, plen, &pos, &h, &known,
					 scratch, msg, sizeof(msg)), 1);
	ck_assert(known);
	const struct ev_submit *sub = (const void *)h;
	ck_assert_uint_eq(sub->ts, 7777);
	ck_assert_uint_eq(sub->opcode, 23);
	ck_assert_uint_eq(sub->ring, 0xabc);
	ck_assert_uint_eq(sub->req, 0xdef);
	ck_assert_uint_eq(sub->user_data, 99);
	ck_assert_uint_eq(sub->req_flags, 0x10);
	ck_assert_int_eq(sub->fd, -9);		/* sign-extended, moved */
	ck_assert_uint_eq(sub->off, 1ull << 40);
	ck_assert_uint_eq(sub->len, 512);
	ck_assert_uint_eq(sub->personality, 0);	/* absent: zero */
	const struct ev_type_map *m = &log_reader_layout(r)->types[EV_SUBMIT];
	const struct ev_field *pf = ev_find_field(ev_type_info(EV_SUBMIT), "personality");
	ck_assert(m->missing_fields & (1ull << (pf - ev_type_info(EV_SUBMIT)->fields)));
	ck_assert(!m->identity);

	ck_assert_int_eq(log_next_record(log_reader_layout(r), buf, plen, &pos, &h, &known,
					 scratch, msg, sizeof(msg)), 1);
	ck_assert(!known);
	ck_assert_uint_eq(h->type, 63);
	ck_assert_int_eq(log_next_record(log_reader_layout(r), buf, plen, &pos, &h, &known,
					 scratch, msg, sizeof(msg)), 0);
	log_reader_close(r);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_layout_rejects_malformed)
{
	static const char *const bad[] = {
		/* header field moved */
		"{\"byte_order\":\"little\",\"types\":[{\"type\":36,\"name\":\"c\",\"size\":24,\"fields\":["
		"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
		"[\"type\",18,2,\"u16\"],[\"flags\",16,2,\"u16\"]]}]}",
		/* field beyond the record */
		"{\"byte_order\":\"little\",\"types\":[{\"type\":36,\"name\":\"c\",\"size\":24,\"fields\":["
		"[\"ts\",0,8,\"u64\"],[\"tid\",8,4,\"u32\"],[\"tgid\",12,4,\"u32\"],"
		"[\"type\",16,2,\"u16\"],[\"flags\",18,2,\"u16\"],[\"res\",20,8,\"s64\"]]}]}",
		/* size not a multiple of 8 */
		"{\"byte_order\":\"little\",\"types\":[{\"type\":36,\"name\":\"c\",\"size\":21,\"fields\":[]}]}",
		/* big endian */
		"{\"byte_order\":\"big\",\"types\":[]}",
		/* type number out of range */
		"{\"byte_order\":\"little\",\"types\":[{\"type\":70000,\"name\":\"c\",\"size\":24,\"fields\":[]}]}",
	};
	char *dir = test_tmpdir();
	char *path = test_path(dir, "badlayout.log");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct synth_options opt = { .records_json = bad[i] };
		struct walk w;

		synth_finish(synth_log_create(path, &opt), NULL);
		walk_log(path, &w);
		ck_assert_msg(w.open_ret < 0, "layout %zu accepted", i);
		ck_assert_msg(strstr(w.open_msg, "metadata"), "%s", w.open_msg);
	}
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_writer_safety)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "a.log");
	char *link = test_path(dir, "link.log");
	struct log_writer *w;
	struct log_writer_options ow = { .overwrite = true };
	char err[256];
	struct stat st;

	ck_assert_int_eq(log_writer_create(&w, path, NULL, err, sizeof(err)), 0);
	log_writer_abort(w);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	/* Existing file: refused without overwrite. */
	ck_assert_int_eq(log_writer_create(&w, path, NULL, err, sizeof(err)), -EEXIST);
	ck_assert_msg(strstr(err, "--force"), "%s", err);
	/* Symlink: refused, even with overwrite. */
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_lt(log_writer_create(&w, link, &ow, err, sizeof(err)), 0);
	ck_assert_int_lt(log_writer_create(&w, link, NULL, err, sizeof(err)), 0);
	/* Directory: refused with overwrite. */
	ck_assert_int_lt(log_writer_create(&w, dir, &ow, err, sizeof(err)), 0);
	/* Overwrite of a regular file works and resets the mode. */
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(log_writer_create(&w, path, &ow, err, sizeof(err)), 0);
	ck_assert_int_eq(log_write_frame(w, &(struct log_frame_desc){ .type = LOG_FRAME_EVENTS },
					 "x", 1), -EINVAL);	/* META must come first */
	log_writer_abort(w);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	test_rmtree(dir);
	free(link);
	free(path);
	free(dir);
}
END_TEST

/*
 * A file that cannot grow (disk full; here RLIMIT_FSIZE) leaves a log that
 * ends on a frame boundary and reads cleanly.
 */
START_TEST(test_writer_full_disk)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "full.log");
	struct log_writer *w;
	struct rlimit rl = { 4000, 4000 };
	unsigned char payload[1024];
	char err[256];
	struct walk wk;
	int ret = 0, frames = 0;

	signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)(i * 2654435761u >> 13);	/* incompressible-ish */
	ck_assert_int_eq(log_writer_create(&w, path, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(log_write_meta(w, EMPTY_META, strlen(EMPTY_META)), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	while (frames < 100) {
		struct log_frame_desc d = { .type = LOG_FRAME_STATS, .stream = LOG_STREAM_GLOBAL };

		ret = log_write_frame(w, &d, payload, sizeof(payload));
		if (ret)
			break;
		frames++;
	}
	ck_assert_int_eq(ret, -EFBIG);
	ck_assert_int_eq(log_writer_error(w), -EFBIG);
	ck_assert_uint_le(log_writer_bytes(w), 4000);
	log_writer_finish(w, "{\"reason\":\"disk full\"}", err, sizeof(err));
	walk_log(path, &wk);
	ck_assert_int_eq(wk.open_ret, 0);
	ck_assert_msg(wk.stop == LOG_STOP_END || wk.stop == LOG_STOP_EOF, "%s", wk.stop_msg);
	ck_assert_uint_ge(wk.frames, (unsigned)frames);
	ck_assert_uint_eq(wk.payload_errors, 0);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_index_frames)
{
	char *dir = test_tmpdir();
	char *path = test_path(dir, "idx.log");
	struct log_writer *w;
	struct log_writer_options o = { .index_every = 3 };
	struct log_reader *r;
	struct log_frame f;
	char err[256];
	unsigned index_frames = 0, indexed = 0;

	ck_assert_int_eq(log_writer_create(&w, path, &o, err, sizeof(err)), 0);
	ck_assert_int_eq(log_write_meta(w, EMPTY_META, strlen(EMPTY_META)), 0);
	for (int i = 0; i < 7; i++) {
		struct log_frame_desc d = { .type = LOG_FRAME_STATS, .stream = LOG_STREAM_GLOBAL,
					    .first_ts = 10 + i, .last_ts = 10 + i };

		ck_assert_int_eq(log_write_frame(w, &d, "{}", 2), 0);
	}
	ck_assert_int_eq(log_writer_finish(w, "{}", err, sizeof(err)), 0);
	ck_assert_int_eq(log_reader_open(&r, path, err, sizeof(err)), 0);
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len;

		if (f.h.type != LOG_FRAME_INDEX)
			continue;
		index_frames++;
		ck_assert_int_eq(log_reader_payload(r, &f, 0, &buf, &len, err, sizeof(err)), 0);
		ck_assert_uint_eq(len, f.h.count * sizeof(struct log_index_entry));
		indexed += f.h.count;
	}
	/* META, 7 STATS and END are indexed; three index frames hold them. */
	ck_assert_uint_eq(indexed, 9);
	ck_assert_uint_eq(index_frames, 3);
	log_reader_close(r);
	test_rmtree(dir);
	free(path);
	free(dir);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("format");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_events_columns);
	tcase_add_test(tc, test_packed_damaged);
	tcase_add_test(tc, test_truncate_every_byte);
	tcase_add_test(tc, test_flip_every_byte);
	tcase_add_test(tc, test_unknown_frames);
	tcase_add_test(tc, test_newer_major_refused);
	tcase_add_test(tc, test_bad_inputs);
	tcase_add_test(tc, test_layout_evolution);
	tcase_add_test(tc, test_layout_rejects_malformed);
	tcase_add_test(tc, test_writer_safety);
	tcase_add_test(tc, test_writer_full_disk);
	tcase_add_test(tc, test_index_frames);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(log_suite)
