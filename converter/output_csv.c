// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=csv -o DIR: one RFC 4180 file per table (header row, CRLF line
 * ends, UTF-8), made for pandas.read_csv with default options:
 *
 *   requests.csv syscalls.csv events.csv losses.csv loss_counters.csv
 *   tasks.csv rings.csv counters.csv
 *
 * or those named by --tables; the model skips the work of the others
 * (c->ops).
 *
 * Rules (uring-convert(1), CSV OUTPUT):
 *   - Every *_ns column is an integer, never empty, never floating point:
 *     points in time are ns since the recording start (>= 0), -1 when the
 *     step did not happen or is not known; durations are >= 0.  Absolute
 *     CLOCK_BOOTTIME values are in *_boot_ns columns, wall-clock time in
 *     *_wall columns (ISO 8601, UTC, ns precision).
 *   - Enums are names (READ, EBADF, io-wq); flags are names joined by '|',
 *     "none" when no bit is set.
 *   - An empty cell means the value does not exist for this row or is not
 *     known (errno of a success, worker of an inline request, SQE fields
 *     that were not read).
 *   - Bytes that are not valid UTF-8 (task names are raw kernel bytes) are
 *     written as the four characters \xNN.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block_queue.h"
#include "csv_tables.h"
#include "event_layout.h"
#include "file_stats.h"
#include "hmap.h"
#include "iowq.h"
#include "model_files.h"
#include "model_names.h"
#include "out_buf.h"
#include "output.h"
#include "output_util.h"
#include "uring_names.h"

const char *const csv_table_names[CSV_NTABLES] = {
	[CSV_REQUESTS] = "requests", [CSV_SYSCALLS] = "syscalls", [CSV_EVENTS] = "events",
	[CSV_LOSSES] = "losses", [CSV_LOSS_COUNTERS] = "loss_counters", [CSV_TASKS] = "tasks",
	[CSV_RINGS] = "rings", [CSV_COUNTERS] = "counters", [CSV_FILES] = "files",
};

char *csv_table_path(const char *dir, enum csv_table_id t)
{
	char *p;

	return asprintf(&p, "%s/%s.csv", dir, csv_table_names[t]) < 0 ? NULL : p;
}

int csv_tables_parse(const char *list, unsigned *mask, const char **bad, size_t *bad_len)
{
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ",");
		int i;

		for (i = 0; i < CSV_NTABLES; i++)
			if (strlen(csv_table_names[i]) == len && !strncmp(p, csv_table_names[i], len))
				break;
		if (i == CSV_NTABLES) {
			*bad = p;
			*bad_len = len;
			return -1;
		}
		*mask |= 1u << i;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

#define MAX_EVENT_COLUMNS 128

/* No bit set.  A word, not "0": a column that is "0" in one chunk of rows
 * and names in another makes pandas infer mixed types. */
#define FLAGS_NONE "none"
#define FLAGS_TEXT_MAX 512
#define FLAGS_MEMO_WAYS 8

/* The flag sets printed as names, each with its own memo (field_flags). */
enum flags_set { FLAGS_SQE, FLAGS_ENTER, FLAGS_SETUP, FLAGS_CQE, FLAGS_EVF, FLAGS_REQ, FLAGS_NSETS };

static const struct flag_name evf_names[] = {
	{ EVF_SQ_THREAD, "SQ_THREAD" }, { EVF_SQE_VALID, "SQE_VALID" },
	{ EVF_FORCE_NONBLOCK, "FORCE_NONBLOCK" }, { EVF_RING_VALID, "RING_VALID" },
	{ EVF_RING_STATE_VALID, "RING_STATE_VALID" }, { EVF_HASHED, "HASHED" },
	{ EVF_LOOPS_VALID, "LOOPS_VALID" }, { EVF_CQE_DROPPED, "CQE_DROPPED" },
	{ EVF_LOSS_USER, "LOSS_USER" }, { EVF_LOSS_AT_STOP, "LOSS_AT_STOP" },
	{ EVF_PARAMS_VALID, "PARAMS_VALID" }, { EVF_REGISTERED_RING, "REGISTERED_RING" },
	{ EVF_WORK_REQ_UNKNOWN, "WORK_REQ_UNKNOWN" }, { EVF_FILE_VALID, "FILE_VALID" },
	{ EVF_WORK_FLAGS_VALID, "WORK_FLAGS_VALID" },
	{ 0, NULL },
};

static const struct flag_name *const flags_tables[FLAGS_NSETS] = {
	[FLAGS_SQE] = iosqe_flag_names, [FLAGS_ENTER] = enter_flag_names,
	[FLAGS_SETUP] = setup_flag_names, [FLAGS_CQE] = cqe_flag_names,
	[FLAGS_EVF] = evf_names, [FLAGS_REQ] = NULL,	/* the log's names */
};

/* How a field is printed, decided once per column from its name. */
enum field_fmt {
	FMT_PLAIN = 0, FMT_OPCODE, FMT_SQE_FLAGS, FMT_ENTER_FLAGS, FMT_SETUP_FLAGS,
	FMT_CFLAGS, FMT_REQ_FLAGS, FMT_TASK_REASON, FMT_TASK_FLAGS, FMT_TIME,
};

struct event_column {
	const char *name;		/* field name in the layout */
	const char *header;		/* column name in events.csv */
	enum ev_kind kind;
	enum field_fmt fmt;
	bool is_result;			/* res / error / ret: feeds the errno column */
};

static enum field_fmt field_fmt_of(const char *n)
{
	size_t len = strlen(n);

	if (!strcmp(n, "opcode"))
		return FMT_OPCODE;
	if (!strcmp(n, "sqe_flags"))
		return FMT_SQE_FLAGS;
	if (!strcmp(n, "enter_flags"))
		return FMT_ENTER_FLAGS;
	if (!strcmp(n, "setup_flags"))
		return FMT_SETUP_FLAGS;
	if (!strcmp(n, "cflags"))
		return FMT_CFLAGS;
	if (!strcmp(n, "req_flags"))
		return FMT_REQ_FLAGS;
	if (!strcmp(n, "reason"))
		return FMT_TASK_REASON;
	if (!strcmp(n, "task_flags"))
		return FMT_TASK_FLAGS;
	/* Times inside records (lost.last_ts) print relative like time_ns. */
	if (len > 3 && !strcmp(n + len - 3, "_ts"))
		return FMT_TIME;
	return FMT_PLAIN;
}

/* Record fields whose names collide with the leading columns. */
static const char *column_header(const char *field)
{
	if (!strcmp(field, "ring"))
		return "ring_id";	/* "ring" is the ring number */
	if (!strcmp(field, "comm"))
		return "subject_comm";	/* "comm" is the name of the header's task */
	return field;
}

/* field_flags(): the text of a recent value of a flag set */
struct flags_memo {
	uint64_t v;			/* 0: empty (0 prints "none") */
	uint16_t len;
	bool plain;			/* cell_is_plain(text) */
	char text[FLAGS_TEXT_MAX];
};

/* requests.csv's file cells as last written: a run of rows names the same
 * file, and a numbered file never changes nor moves (model_files.c). */
struct file_cells {
	const struct model_file *file;	/* NULL: none remembered */
	size_t len;
	char text[512];
};

/* One table's file and the state of the row being written to it. */
struct csv_table {
	struct out_buf out;
	bool first;			/* no field written yet on this row */
	bool wall_valid;		/* field_wall(): the cached date and second */
	int64_t wall_sec;
	char wall_prefix[TIMEBASE_ISO_LEN];
	size_t wall_len;
	struct flags_memo flags_memo[FLAGS_NSETS][FLAGS_MEMO_WAYS];
	struct file_cells file_memo;	/* requests.csv: field_request_file() */
};

/*
 * c_raw() -> the events.csv lanes (format_raw_batch), and c_request() ->
 * the requests.csv lanes (format_request_batch): one thread each, or with
 * four threads or more, half as many lanes as threads, each formatting
 * into a table in memory that is moved to the file in block order.  The
 * two tables are most of a CSV conversion's work, and one thread each
 * would bound it however many CPUs there are.
 */
#define FORMAT_BATCH_BYTES (256u << 10)
#define FORMAT_BATCHES 4
#define FORMAT_LANES_MIN_THREADS 4

struct csv {
	struct output base;
	struct output_ops ops;		/* csv_ops without the unwritten tables' */
	struct output_config cfg;
	struct csv_table f[CSV_NTABLES];
	char *path[CSV_NTABLES];
	struct output_meta meta;
	struct hmap tasks;		/* tid -> const struct model_task * */
	struct hmap rings;		/* number -> const struct model_ring * (selected) */
	struct event_column cols[MAX_EVENT_COLUMNS];
	size_t ncols;
	/* per type: its columns in order, with their fields (the others are empty) */
	struct type_column {
		uint8_t col;
		bool is_off;			/* SQE off: unknown for some opcodes */
		struct ev_known_rule known;
		const struct ev_field *fld;
	} type_cols[EV_TYPE_LIMIT][MAX_EVENT_COLUMNS];
	uint8_t ntype_cols[EV_TYPE_LIMIT];
	char commas[MAX_EVENT_COLUMNS];
	struct block_queue rawq;	/* running: lanes format events.csv */
	struct block_queue reqq;	/* running: lanes format requests.csv */
	struct csv_table raw_lane[BLOCK_QUEUE_LANES];	/* rawq.publish: in memory */
	struct csv_table req_lane[BLOCK_QUEUE_LANES];	/* reqq.publish: in memory */
	struct file_stats files;	/* files.csv */
	bool oom;
};

#define C(o) ((struct csv *)(void *)(o))

/* Whether table t is written (--tables). */
static bool writes(const struct csv *c, enum csv_table_id t)
{
	return c->cfg.csv_tables & (1u << t);
}

/* ------------------------------------------------------------- writing */

/* The writers below store straight into the file's out_buf: stdio's
 * per-character calls were a quarter of CSV's own time (out_buf.h). */
static void sep(struct csv_table *f)
{
	if (!f->first)
		out_buf_putc(&f->out, ',');
	f->first = false;
}

static void eol(struct csv_table *f)
{
	out_buf_putc(&f->out, '\r');
	out_buf_putc(&f->out, '\n');
	f->first = true;
}

/* Digits of v: ~log10 from its bit length, then one comparison. */
static unsigned dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	uint64_t u = v | 1;	/* 0 has one digit; no power of ten is odd */
	unsigned t = ((64u - (unsigned)__builtin_clzll(u)) * 1233u) >> 12;

	return t + 1 - (u < pow10[t]);
}

/* Printed in place: a copy per number was a tenth of the run time. */
static void put_u64(struct csv_table *f, uint64_t v)
{
	unsigned n;

	/* ids, counts and the -1 of what did not happen: most cells are
	 * one digit */
	if (v < 10) {
		out_buf_putc(&f->out, (char)('0' + v));
		return;
	}
	n = dec_len(v);

	dec_u64(out_buf_room(&f->out, DEC_U64_MAX) + n, v);
	out_buf_commit(&f->out, n);
}

static void put_i64(struct csv_table *f, int64_t v)
{
	if (v < 0) {
		out_buf_putc(&f->out, '-');
		put_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(f, (uint64_t)v);
	}
}

/* Bytes that make a cell quoted (,"CR LF); bytes >= 0x80 are checked
 * for UTF-8. */
static const unsigned char csv_special[256] = {
	[','] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1,
};

/* Nonzero for a byte that keeps a cell from being copied as it is. */
static inline unsigned byte_needs_care(unsigned char u)
{
	return csv_special[u] | (u & 0x80);
}

static void field_strn(struct csv_table *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	bool quote = false, plain = true;

	sep(f);
	/* Almost every cell is plain ASCII: copy and check in one pass,
	 * and commit it unless a byte needs the careful path below. */
	if (n <= OUT_BUF_BYTES) {
		char *p = out_buf_room(&f->out, n);
		unsigned special = 0;

		for (size_t i = 0; i < n; i++) {
			p[i] = (char)u[i];
			special |= byte_needs_care(u[i]);
		}
		if (!special) {
			out_buf_commit(&f->out, n);
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (csv_special[u[i]])
			quote = true;
		if (u[i] >= 0x80 || u[i] == '"')
			plain = false;
	}
	if (quote)
		out_buf_putc(&f->out, '"');
	if (plain) {
		out_buf_put(&f->out, s, n);
	} else {
		for (size_t i = 0; i < n;) {
			size_t l = utf8_seq_len(u + i, n - i);

			if (!l) {
				static const char hex[] = "0123456789abcdef";

				out_buf_putc(&f->out, '\\');
				out_buf_putc(&f->out, 'x');
				out_buf_putc(&f->out, hex[u[i] >> 4]);
				out_buf_putc(&f->out, hex[u[i] & 15]);
				i++;
				continue;
			}
			if (u[i] == '"')
				out_buf_putc(&f->out, '"');
			out_buf_put(&f->out, u + i, l);
			i += l;
		}
	}
	if (quote)
		out_buf_putc(&f->out, '"');
}

static void field_str(struct csv_table *f, const char *s)
{
	field_strn(f, s, strlen(s));
}

/* True when a cell of these bytes is written as they are: no quotes, no
 * escapes. */
static bool cell_is_plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (byte_needs_care((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * A cell known to be plain, copied without looking at its bytes: this
 * converter's own names (test_names_are_plain_cells checks every one) and
 * memoized texts checked once.  Checking byte by byte was a tenth of a
 * CSV conversion's instructions, for cells that never need it.
 */
static void field_plain(struct csv_table *f, const char *s, size_t n)
{
	sep(f);
	out_buf_put(&f->out, s, n);
}

static void field_name(struct csv_table *f, const char *s)
{
	field_plain(f, s, strlen(s));
}

static void field_empty(struct csv_table *f)
{
	sep(f);
}

/* n empty cells after the first of a row: n separators at once. */
static void empties(struct csv *c, struct csv_table *f, size_t n)
{
	out_buf_put(&f->out, c->commas, n);
}

static void field_u64(struct csv_table *f, uint64_t v)
{
	sep(f);
	put_u64(f, v);
}

static void field_i64(struct csv_table *f, int64_t v)
{
	sep(f);
	put_i64(f, v);
}

/* Two hex digits per byte, "00".."ff": a table lookup per byte, not per
 * nibble (pointers and user_data are a tenth of the events file). */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* 0x and 2 * nbytes digits, leading zeros kept. */
static void field_hex_bytes(struct csv_table *f, uint64_t v, unsigned nbytes)
{
	char *p;

	sep(f);
	p = out_buf_room(&f->out, 2 + 2 * nbytes);
	p[0] = '0';
	p[1] = 'x';
	for (unsigned i = nbytes; i--; v >>= 8)
		memcpy(p + 2 + 2 * i, hex_pairs + 2 * (v & 0xff), 2);
	out_buf_commit(&f->out, 2 + 2 * nbytes);
}

static void field_hex(struct csv_table *f, uint64_t v)
{
	field_hex_bytes(f, v, 8);
}

/* "0x%08x": PF_* task flags, as the kernel prints them. */
static void field_hex32(struct csv_table *f, uint32_t v)
{
	field_hex_bytes(f, v, 4);
}

static void field_bool(struct csv_table *f, bool v)
{
	field_name(f, v ? "true" : "false");
}

/* A point in time: relative ns, -1 when it did not happen. */
static void field_t(struct csv *c, struct csv_table *f, uint64_t ts)
{
	field_i64(f, ts ? timebase_rel(c->meta.tb, ts) : -1);
}

/* Wall-clock ISO 8601; the date-and-seconds prefix is cached, as rows
 * come in time order and gmtime + snprintf per row was the hot spot. */
static void field_wall(struct csv *c, struct csv_table *f, uint64_t ts)
{
	int64_t real, sec, nsec;
	char ns[11];

	sep(f);
	if (!ts || !timebase_wall(c->meta.tb, ts, &real))
		return;
	sec = real / 1000000000;
	nsec = real % 1000000000;
	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	if (!f->wall_valid || sec != f->wall_sec) {
		char iso[TIMEBASE_ISO_LEN];

		const char *dot;

		format_iso_ns(sec * 1000000000, iso);
		dot = strchr(iso, '.');
		if (!dot)
			return;		/* beyond what gmtime can express */
		/* "YYYY-MM-DDTHH:MM:SS." */
		f->wall_len = (size_t)(dot - iso) + 1;
		memcpy(f->wall_prefix, iso, f->wall_len);
		f->wall_sec = sec;
		f->wall_valid = true;
	}
	out_buf_put(&f->out, f->wall_prefix, f->wall_len);
	/* nine digits with leading zeros: a 1 prefixed, then dropped */
	dec_u64(ns + sizeof(ns) - 1, 1000000000u + (uint64_t)nsec);
	ns[sizeof(ns) - 1] = 'Z';
	out_buf_put(&f->out, ns + 1, sizeof(ns) - 1);
}

/*
 * Flags of a set as names joined by '|' ("none" for 0).  The text of each
 * value is remembered per set: rows repeat a few values, and formatting
 * them was a twentieth of CSV's time.
 */
static void field_flags(struct csv *c, struct csv_table *f, uint64_t v, enum flags_set set)
{
	struct flags_memo *m = &f->flags_memo[set][((v * 0x9e3779b97f4a7c15ull) >> 32) % FLAGS_MEMO_WAYS];

	if (!v) {
		field_plain(f, FLAGS_NONE, sizeof(FLAGS_NONE) - 1);
		return;
	}
	if (m->v != v) {
		const char *text = flags_tables[set] ?
			format_flags(m->text, sizeof(m->text), v, flags_tables[set]) :
			names_req_flags(c->meta.names, v, m->text, sizeof(m->text));

		if (text != m->text)
			snprintf(m->text, sizeof(m->text), "%s", text);
		m->len = (uint16_t)strlen(m->text);
		m->plain = cell_is_plain(m->text, m->len);
		m->v = v;
	}
	if (m->plain)
		field_plain(f, m->text, m->len);
	else
		field_strn(f, m->text, m->len);
}

static void field_errno(struct csv_table *f, int64_t res)
{
	char buf[NAMES_MAX_LEN];

	if (res < 0)
		field_str(f, names_errno(res, buf));
	else
		field_empty(f);
}

static void field_opt_u64(struct csv_table *f, bool valid, uint64_t v)
{
	if (valid)
		field_u64(f, v);
	else
		field_empty(f);
}

static void field_opt_str(struct csv_table *f, bool valid, const char *s)
{
	if (valid)
		field_str(f, s);
	else
		field_empty(f);
}

static void header(struct csv_table *f, const char *cols)
{
	for (const char *p = cols; *p; p++)
		out_buf_putc(&f->out, *p == ' ' ? ',' : *p);
	out_buf_put(&f->out, "\r\n", 2);
}

static const struct model_task *task_of(struct csv *c, uint32_t tid)
{
	return tid ? hmap_get(&c->tasks, tid, 0) : NULL;
}

static void field_comm(struct csv *c, struct csv_table *f, uint32_t tid)
{
	const struct model_task *t = task_of(c, tid);

	field_opt_str(f, t && t->name_known, t ? t->comm : NULL);
}

static void field_ring_cells(struct csv_table *f, uint32_t number, uint64_t ring_id, int32_t fd)
{
	field_u64(f, number);
	field_hex(f, ring_id);
	if (fd >= 0)
		field_i64(f, fd);
	else
		field_empty(f);
}

static void field_ring(struct csv_table *f, const struct model_ring *r)
{
	if (r) {
		field_ring_cells(f, r->number, r->ring_id, r->fd);
	} else {
		field_empty(f);
		field_empty(f);
		field_empty(f);
	}
}

/*
 * What a requests.csv row shows of the task and ring objects around its
 * request, as they are when the request is delivered: the model updates
 * them in place (output.h), and the row may be formatted later, on the
 * requests thread.
 */
struct req_view {
	uint64_t ring_id;
	uint32_t ring_number;
	int32_t ring_fd;
	uint32_t ring_pid;
	bool comm_known;
	bool complete_known;
	char comm[EV_COMM_LEN + 1];		/* the submitter's */
	char complete_comm[EV_COMM_LEN + 1];	/* the final CQE's poster's */
	const char *complete_why;		/* else why an unnamed one posted it */
};

/* r's view, from its ring and tasks as they are now. */
static void request_view(struct csv *c, const struct model_request *r, struct req_view *v)
{
	const struct model_task *t = task_of(c, r->submit_tid);
	const struct model_task *p = task_of(c, r->complete_tid);

	v->ring_id = r->ring->ring_id;
	v->ring_number = r->ring->number;
	v->ring_fd = r->ring->fd;
	v->ring_pid = r->ring->pid;
	v->comm_known = t && t->name_known;
	if (v->comm_known)
		memcpy(v->comm, t->comm, sizeof(v->comm));
	v->complete_known = p && p->name_known;
	v->complete_why = NULL;
	if (v->complete_known)
		memcpy(v->complete_comm, p->comm, sizeof(v->complete_comm));
	else
		v->complete_why = cqe_outside_poster(p, task_of(c, r->submit_pid), r->submit_pid,
						     r->cflags, r->complete_ts);
}

/*
 * The name of the thread that posted a request's final CQE; for one never
 * named, of another process than the submitter's, why it posted it
 * (cqe_outside_poster(), a constant string), in parentheses.
 */
static void field_complete_comm(struct csv_table *f, const struct req_view *v)
{
	char b[96];

	if (v->complete_known) {
		field_str(f, v->complete_comm);
		return;
	}
	if (!v->complete_why) {
		field_empty(f);
		return;
	}
	snprintf(b, sizeof(b), "(%s)", v->complete_why);
	field_str(f, b);
}

/* ------------------------------------------------------------- tables */

/* cq_index cq_index_exact reaped_by_ns reaped_bound cq_wait_ns */
static void field_reaping(struct csv *c, struct csv_table *f, const struct model_request *r)
{
	field_opt_u64(f, r->cq_index_valid, r->cq_index);
	if (r->cq_index_valid)
		field_bool(f, !r->cq_index_upper);
	else
		field_empty(f);
	field_t(c, f, r->reaped_ts);
	if (r->reaped_ts)
		field_name(f, r->reaped_by_capacity ? "cq_size" : "cq_head");
	else
		field_empty(f);
	field_i64(f, r->reaped_ts && r->complete_ts && r->reaped_ts >= r->complete_ts ?
		  (int64_t)(r->reaped_ts - r->complete_ts) : -1);
}

#define REQUEST_COLUMNS \
	"req_id ring ring_id ring_fd pid tid comm opcode opcode_number user_data " \
	"fd offset length sqe_flags ioprio buf_index personality op_flags req_flags " \
	"submit_ns submit_boot_ns submit_wall complete_ns complete_boot_ns latency_ns " \
	"result errno cflags path modifiers status incomplete_reason worker_tid " \
	"submit_syscall_id defer_ns queue_async_ns poll_arm_ns task_add_ns " \
	"work_begin_ns work_end_ns tw_run_ns tw_run_tid complete_tid complete_comm " \
	"complete_syscall_id first_cqe_ns cqes overflow_ns chain_id chain_pos " \
	"link_prev link_next fail_link_ns init_error init_errno path_reason " \
	"cq_index cq_index_exact reaped_by_ns reaped_bound cq_wait_ns " \
	"io_wq_pool io_wq_hash_key " \
	"file_path file_type file_dev file_ino file_flags file_fs"

/* The identity of a file in requests.csv and files.csv: path, type, dev,
 * ino, flags, fs; all empty when the file is unknown. */
static void field_file(struct csv *c, struct csv_table *f, const struct model_file *file)
{
	char buf[64];

	if (!file) {
		for (int i = 0; i < 6; i++)
			field_empty(f);
		return;
	}
	field_str(f, file->path);
	field_name(f, file_type_name(file->type));
	snprintf(buf, sizeof(buf), "%" PRIu32 ":%" PRIu32, file->dev_major, file->dev_minor);
	field_plain(f, buf, strlen(buf));
	field_u64(f, file->ino);
	format_file_flags(buf, sizeof(buf), file->f_flags, c->meta.machine);
	field_name(f, buf[0] ? buf : FLAGS_NONE);
	field_str(f, file->fs);
}

/* field_file() of a request, the last file's cells copied as they were. */
static void field_request_file(struct csv *c, struct csv_table *f, const struct model_file *file)
{
	struct file_cells *m = &f->file_memo;
	const char *buf = f->out.cur;
	size_t at = f->out.len;

	if (file && file == m->file) {
		out_buf_put(&f->out, m->text, m->len);
		return;
	}
	field_file(c, f, file);
	m->file = NULL;
	/* not when the cells went out in two buffers */
	if (file && f->out.cur == buf && f->out.len - at <= sizeof(m->text)) {
		m->len = f->out.len - at;
		memcpy(m->text, buf + at, m->len);
		m->file = file;
	}
}

/* A requests.csv row: r's ring, tasks and names from v, never through r. */
static void format_request(struct csv *c, struct csv_table *f, const struct model_request *r,
			   const struct req_view *v)
{
	char buf[512], op[NAMES_MAX_LEN];
	bool sqe = r->sqe_fields_valid;
	bool have_res = r->complete_ts || r->overflow_ts;

	field_u64(f, r->id);
	field_ring_cells(f, v->ring_number, v->ring_id, v->ring_fd);
	field_opt_u64(f, r->submit_pid || v->ring_pid, r->submit_pid ? r->submit_pid : v->ring_pid);
	field_opt_u64(f, r->submit_tid, r->submit_tid);
	field_opt_str(f, v->comm_known, v->comm);
	field_str(f, names_opcode(c->meta.names, r->opcode, op));
	field_u64(f, r->opcode);
	field_u64(f, r->user_data);
	if (sqe)
		field_i64(f, r->fd);
	else
		field_empty(f);
	field_opt_u64(f, r->off_valid, r->off);
	field_opt_u64(f, sqe, r->len);
	if (r->sqe_valid)
		field_flags(c, f, r->sqe_flags, FLAGS_SQE);
	else
		field_empty(f);
	field_opt_u64(f, sqe, r->ioprio);
	field_opt_u64(f, sqe, r->buf_index);
	field_opt_u64(f, sqe, r->personality);
	field_opt_u64(f, sqe, r->op_flags);
	if (r->sqe_valid && r->path != PATH_FAILED)
		field_flags(c, f, r->req_flags, FLAGS_REQ);
	else
		field_empty(f);
	field_t(c, f, r->submit_ts);
	field_u64(f, r->submit_ts);
	field_wall(c, f, r->submit_ts);
	field_t(c, f, r->complete_ts);
	field_u64(f, r->complete_ts);
	field_i64(f, r->submit_ts && r->complete_ts && r->complete_ts >= r->submit_ts ?
		  (int64_t)(r->complete_ts - r->submit_ts) : -1);
	if (have_res)
		field_i64(f, r->res);
	else
		field_empty(f);
	if (have_res)
		field_errno(f, r->res);
	else
		field_empty(f);
	if (have_res)
		field_flags(c, f, r->cflags, FLAGS_CQE);
	else
		field_empty(f);
	field_name(f, path_name(r->path));
	field_name(f, r->modifiers ? format_modifiers(buf, sizeof(buf), r->modifiers) : FLAGS_NONE);
	field_name(f, status_name(r->status));
	field_name(f, incomplete_reason_name(r->incomplete_reason));
	field_opt_u64(f, r->worker_tid, r->worker_tid);
	field_opt_u64(f, r->submit_syscall, r->submit_syscall);
	field_t(c, f, r->defer_ts);
	field_t(c, f, r->queue_async_ts);
	field_t(c, f, r->poll_arm_ts);
	field_t(c, f, r->task_add_ts);
	field_t(c, f, r->work_begin_ts);
	field_t(c, f, r->work_end_ts);
	field_t(c, f, r->tw_run_ts);
	field_opt_u64(f, r->tw_run_tid, r->tw_run_tid);
	field_opt_u64(f, r->complete_tid, r->complete_tid);
	field_complete_comm(f, v);
	field_opt_u64(f, r->complete_syscall, r->complete_syscall);
	field_t(c, f, r->first_cqe_ts);
	field_u64(f, r->ncqes);
	field_t(c, f, r->overflow_ts);
	field_opt_u64(f, r->chain_id, r->chain_id);
	field_opt_u64(f, r->chain_id, r->chain_pos);
	field_opt_u64(f, r->link_prev, r->link_prev);
	field_opt_u64(f, r->link_next, r->link_next);
	field_t(c, f, r->fail_link_ts);
	if (r->path == PATH_FAILED) {
		field_i64(f, r->init_error);
		field_errno(f, r->init_error);
	} else {
		field_empty(f);
		field_empty(f);
	}
	field_name(f, path_reason_name(r->path_reason));
	field_reaping(c, f, r);
	if (r->work_flags_valid)
		field_name(f, iowq_work_acct(r->work_flags) == IOWQ_ACCT_UNBOUND ? "unbound" : "bound");
	else
		field_empty(f);
	field_opt_u64(f, r->work_flags_valid && (r->modifiers & REQM_HASHED),
		      iowq_work_key(true, r->work_flags) - 1);
	field_request_file(c, f, r->file);
	eol(f);
}

/* A request and its view, as c_request() hands them to the requests
 * thread; r.ring is not to be followed there. */
struct req_row {
	struct model_request r;
	struct req_view v;
};

/*
 * requests.csv has lanes of its own when the conversion has threads
 * (output_config.threads): its rows are most of a requests-and-syscalls
 * conversion's formatting.  Only the lanes touch c->f[CSV_REQUESTS]
 * between the start and the stop of the queue, one at a time (one lane,
 * or publish_request()); the files a row names never change once named
 * (model_files.c), and everything else it reads is in the row or set
 * before the start.
 */
static void format_request_batch(void *arg, unsigned lane, unsigned char *p, size_t len)
{
	struct csv *c = arg;
	struct csv_table *f = c->reqq.publish ? &c->req_lane[lane] : &c->f[CSV_REQUESTS];

	for (size_t off = 0; off < len; off += sizeof(struct req_row)) {
		const struct req_row *row = (const void *)(p + off);

		format_request(c, f, &row->r, &row->v);
	}
}

static void publish_request(void *arg, unsigned lane)
{
	struct csv *c = arg;

	out_buf_move(&c->f[CSV_REQUESTS].out, &c->req_lane[lane].out);
}

static void c_request(struct output *o, const struct model_request *r)
{
	struct csv *c = C(o);
	struct req_row *row;
	struct req_view v;

	if (writes(c, CSV_FILES))
		file_stats_add(&c->files, r);
	if (!writes(c, CSV_REQUESTS))
		return;
	if (!c->reqq.running) {
		request_view(c, r, &v);
		format_request(c, &c->f[CSV_REQUESTS], r, &v);
		return;
	}
	row = block_queue_room(&c->reqq, sizeof(*row));
	row->r = *r;
	request_view(c, r, &row->v);
	block_queue_commit(&c->reqq, sizeof(*row));
}

#define SYSCALL_COLUMNS \
	"syscall_id pid tid comm syscall ring ring_id ring_fd fd registered_ring " \
	"enter_ns exit_ns duration_ns enter_boot_ns enter_wall ret errno " \
	"to_submit min_complete flags submitted completed wait_start_ns " \
	"submitting_ns waiting_ns wait_min_events sq_pending_enter cq_pending_enter " \
	"sq_pending_exit cq_pending_exit entries setup_flags sq_thread_cpu " \
	"sq_thread_idle cq_entries register_opcode nr_args events_lost"

static void c_syscall(struct output *o, const struct model_syscall *s)
{
	struct csv *c = C(o);
	struct csv_table *f = &c->f[CSV_SYSCALLS];
	bool enter = s->kind == SYS_ENTER, setup = s->kind == SYS_SETUP;
	bool reg = s->kind == SYS_REGISTER;

	field_u64(f, s->id);
	field_u64(f, s->pid);
	field_u64(f, s->tid);
	field_comm(c, f, s->tid);
	field_name(f, syscall_kind_name(s->kind));
	field_ring(f, s->ring);
	if (setup)
		field_empty(f);
	else
		field_i64(f, s->fd);
	if (setup)
		field_empty(f);
	else
		field_bool(f, s->registered_ring);
	field_t(c, f, s->begin_ts);
	field_t(c, f, s->end_ts);
	field_u64(f, s->end_ts - s->begin_ts);
	field_u64(f, s->begin_ts);
	field_wall(c, f, s->begin_ts);
	field_i64(f, s->ret);
	field_errno(f, s->ret);
	field_opt_u64(f, enter, s->to_submit);
	field_opt_u64(f, enter, s->min_complete);
	if (enter)
		field_flags(c, f, s->enter_flags, FLAGS_ENTER);
	else
		field_empty(f);
	field_opt_u64(f, enter, s->submitted);
	field_opt_u64(f, enter, s->completed);
	field_t(c, f, s->wait_ts);
	field_u64(f, enter ? syscall_submit_ns(s) : 0);
	field_u64(f, enter ? syscall_wait_ns(s) : 0);
	field_opt_u64(f, enter && s->wait_ts, (uint64_t)s->wait_min_events);
	field_opt_u64(f, s->state_begin_valid, (uint32_t)(s->sq_tail[0] - s->sq_head[0]));
	field_opt_u64(f, s->state_begin_valid, (uint32_t)(s->cq_tail[0] - s->cq_head[0]));
	field_opt_u64(f, s->state_end_valid, (uint32_t)(s->sq_tail[1] - s->sq_head[1]));
	field_opt_u64(f, s->state_end_valid, (uint32_t)(s->cq_tail[1] - s->cq_head[1]));
	field_opt_u64(f, setup && s->params_valid, s->entries);
	if (setup && s->params_valid)
		field_flags(c, f, s->setup_flags, FLAGS_SETUP);
	else
		field_empty(f);
	field_opt_u64(f, setup && s->params_valid, s->sq_thread_cpu);
	field_opt_u64(f, setup && s->params_valid, s->sq_thread_idle);
	field_opt_u64(f, setup && s->params_valid, s->cq_entries);
	if (reg) {
		const char *n = uring_register_opcode_name(s->reg_opcode);
		char num[16];

		snprintf(num, sizeof(num), "%u", s->reg_opcode);
		field_str(f, n ? n : num);
	} else {
		field_empty(f);
	}
	field_opt_u64(f, reg, s->nr_args);
	field_bool(f, s->events_lost);
	eol(f);
}

#define LOSS_COLUMNS \
	"cpu source first_ns last_ns duration_ns first_boot_ns first_wall count detail"

static void c_loss(struct output *o, const struct model_loss *l)
{
	struct csv *c = C(o);
	struct csv_table *f = &c->f[CSV_LOSSES];

	field_opt_u64(f, l->cpu != LOG_STREAM_GLOBAL, l->cpu);
	field_name(f, loss_source_name(l->source));
	field_t(c, f, l->first_ts);
	field_t(c, f, l->last_ts);
	field_u64(f, l->last_ts - l->first_ts);
	field_u64(f, l->first_ts);
	field_wall(c, f, l->first_ts);
	if (l->source == LOSS_FRAME_GAP || l->source == LOSS_LOG_CUT)
		field_empty(f);	/* its size is unknown */
	else
		field_u64(f, l->count);
	field_str(f, l->detail ? l->detail : "");
	eol(f);
}

#define COUNTER_COLUMNS "time_ns ring counter value"

static void c_counter(struct output *o, const struct model_counter *k)
{
	struct csv *c = C(o);
	struct csv_table *f = &c->f[CSV_COUNTERS];

	for (unsigned i = 0; i < k->n; i++) {
		field_t(c, f, k->ts);
		field_u64(f, k->ring->number);
		field_name(f, counter_kind_name(k->kind[i]));
		field_i64(f, k->value[i]);
		eol(f);
	}
}

static void c_ring(struct output *o, const struct model_ring *r)
{
	struct csv *c = C(o);

	if (hmap_put(&c->rings, r->number, 0, (void *)r))
		c->oom = true;
}

static void c_task(struct output *o, const struct model_task *t)
{
	struct csv *c = C(o);

	if (hmap_put(&c->tasks, t->tid, 0, (void *)t))
		c->oom = true;
}

/* ------------------------------------------------------------ events.csv */

static bool is_header_field(const char *n)
{
	return !strcmp(n, "ts") || !strcmp(n, "tid") || !strcmp(n, "tgid") ||
	       !strcmp(n, "type") || !strcmp(n, "flags");
}

/* Keeps each type's columns in column order (fields come in any order). */
static void add_type_column(struct csv *c, uint16_t type, size_t col, const struct ev_field *fld)
{
	struct type_column *tc = c->type_cols[type];
	unsigned n = c->ntype_cols[type], at = n;

	while (at > 0 && tc[at - 1].col > col) {
		tc[at] = tc[at - 1];
		at--;
	}
	tc[at] = (struct type_column){
		.col = (uint8_t)col,
		.is_off = !strcmp(fld->name, "off"),
		.known = ev_field_known_rule(type, fld),
		.fld = fld,
	};
	c->ntype_cols[type] = (uint8_t)(n + 1);
}

/* Columns: the union of all fields of all record types, in type order, so
 * that a field added to uring_event.h appears without touching this file. */
static void build_event_columns(struct csv *c)
{
	size_t ntypes;
	const struct ev_type_info *types = ev_types(&ntypes);

	memset(c->commas, ',', sizeof(c->commas));
	for (size_t i = 0; i < ntypes; i++) {
		const struct ev_type_info *t = &types[i];

		if (t->type == EV_SUBMIT_COMPLETE)
			continue;	/* read as submit and complete (event_split.h) */
		for (unsigned k = 0; k < t->nfields; k++) {
			const struct ev_field *fld = &t->fields[k];
			size_t col;

			if (fld->kind == EVK_PAD || is_header_field(fld->name))
				continue;
			for (col = 0; col < c->ncols; col++)
				if (!strcmp(c->cols[col].name, fld->name))
					break;
			if (col == c->ncols) {
				if (c->ncols == MAX_EVENT_COLUMNS)
					continue;
				c->cols[c->ncols].name = fld->name;
				c->cols[c->ncols].header = column_header(fld->name);
				c->cols[c->ncols].kind = fld->kind;
				c->cols[c->ncols].fmt = field_fmt_of(fld->name);
				c->cols[c->ncols].is_result = !strcmp(fld->name, "res") ||
							      !strcmp(fld->name, "error") ||
							      !strcmp(fld->name, "ret");
				c->ncols++;
			}
			if (t->type < EV_TYPE_LIMIT && col < c->ncols)
				add_type_column(c, t->type, col, fld);
		}
	}
}

static uint64_t read_uint(const unsigned char *p, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size);	/* little-endian host (x86, arm64) */
	return v;
}

static int64_t read_sint(const unsigned char *p, unsigned size)
{
	if (size == 4) {
		int32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

static const char *task_reason_name(unsigned r)
{
	switch (r) {
	case EV_TASK_EXISTING: return "existing";
	case EV_TASK_FORK: return "fork";
	case EV_TASK_RENAME: return "rename";
	case EV_TASK_EXEC: return "exec";
	}
	return NULL;
}

static void event_field(struct csv *c, struct csv_table *f, const struct ev_header *h,
			const struct ev_field *fld, const struct event_column *col)
{
	const unsigned char *p = (const unsigned char *)h + fld->offset;
	unsigned type = h->type;
	char buf[512];
	uint64_t v;

	switch (fld->kind) {
	case EVK_COMM:
		field_strn(f, (const char *)p, strnlen((const char *)p, fld->size));
		return;
	case EVK_STR:
		if (type == EV_FILE && !strcmp(fld->name, "path")) {
			const struct ev_file *e = (const void *)h;
			char path[EV_PATH_LEN + 8];

			file_path_join(path, sizeof(path), e->path, EV_PATH_LEN, e->ncomp,
				       e->flags);
			field_str(f, path);
			return;
		}
		field_strn(f, (const char *)p, strnlen((const char *)p, fld->size));
		return;
	case EVK_ID:
		field_hex(f, read_uint(p, fld->size));
		return;
	case EVK_S32:
	case EVK_S64:
		field_i64(f, read_sint(p, fld->size));
		return;
	default:
		break;
	}
	v = read_uint(p, fld->size);
	switch (col->fmt) {
	case FMT_OPCODE:
		if (type == EV_REGISTER_BEGIN || type == EV_REGISTER) {
			const char *r = uring_register_opcode_name((unsigned)v);

			if (r) {
				field_str(f, r);
				return;
			}
			break;
		}
		field_str(f, names_opcode(c->meta.names, (unsigned)v, buf));
		return;
	case FMT_SQE_FLAGS:
		field_flags(c, f, v, FLAGS_SQE);
		return;
	case FMT_ENTER_FLAGS:
		field_flags(c, f, v, FLAGS_ENTER);
		return;
	case FMT_SETUP_FLAGS:
		field_flags(c, f, v, FLAGS_SETUP);
		return;
	case FMT_CFLAGS:
		field_flags(c, f, v, FLAGS_CQE);
		return;
	case FMT_REQ_FLAGS:
		field_flags(c, f, v, FLAGS_REQ);
		return;
	case FMT_TASK_REASON:
		if (type == EV_TASK && task_reason_name((unsigned)v)) {
			field_str(f, task_reason_name((unsigned)v));
			return;
		}
		break;
	case FMT_TASK_FLAGS:
		if (fld->size <= 4)
			field_hex32(f, (uint32_t)v);
		else
			field_hex(f, v);
		return;
	case FMT_TIME:
		field_t(c, f, v);
		return;
	case FMT_PLAIN:
		break;
	}
	field_u64(f, v);
}

/* submit/req_failed offsets the recorder zeroed (the slot is a pointer). */
static bool raw_off_zeroed(const struct csv *c, const struct ev_header *h)
{
	if (h->type == EV_SUBMIT)
		return !names_off_known(c->meta.names, ((const struct ev_submit *)h)->opcode);
	if (h->type == EV_REQ_FAILED)
		return !names_off_known(c->meta.names, ((const struct ev_req_failed *)h)->opcode);
	return false;
}

/*
 * An events.csv row, as c_raw() saw it: the record, and the task's name and
 * the ring's number at that moment (the model updates both in place).
 * Followed by the record, type->size bytes; 8-byte aligned.
 */
struct raw_row {
	const struct ev_type_info *type;
	uint64_t request_id;		/* 0 none */
	unsigned cpu;
	unsigned ring;			/* number, 0 none */
	bool name_known;
	char comm[EV_COMM_LEN + 1];
};

#define RAW_ROW_ALIGN(n) (((n) + 7) & ~(size_t)7)

static void format_raw(struct csv *c, struct csv_table *f, const struct raw_row *r,
		       const struct ev_header *h)
{
	int64_t res = 0;
	bool has_res = false;
	unsigned ntc, col = 0;

	field_t(c, f, h->ts);
	field_u64(f, h->ts);
	field_wall(c, f, h->ts);
	field_opt_u64(f, r->cpu != LOG_STREAM_GLOBAL, r->cpu);
	field_name(f, r->type->name);
	field_u64(f, h->tgid);
	field_u64(f, h->tid);
	field_opt_str(f, r->name_known, r->comm);
	field_opt_u64(f, r->ring, r->ring);
	field_opt_u64(f, r->request_id, r->request_id);
	field_flags(c, f, h->flags, FLAGS_EVF);
	ntc = h->type < EV_TYPE_LIMIT ? c->ntype_cols[h->type] : 0;
	for (unsigned i = 0; i < ntc; i++) {
		const struct type_column *tc = &c->type_cols[h->type][i];

		empties(c, f, tc->col - col);
		col = tc->col + 1u;
		if ((h->flags & tc->known.mask) != tc->known.want ||
		    (tc->is_off && raw_off_zeroed(c, h))) {
			field_empty(f);
			continue;
		}
		event_field(c, f, h, tc->fld, &c->cols[tc->col]);
		if (c->cols[tc->col].is_result) {
			res = read_sint((const unsigned char *)h + tc->fld->offset, tc->fld->size);
			has_res = true;
		}
	}
	empties(c, f, c->ncols - col);
	if (has_res)
		field_errno(f, res);
	else
		field_empty(f);
	eol(f);
}

/*
 * events.csv has lanes of its own: its rows are 44 % of a CSV
 * conversion's instructions, and the conversion's thread is what the
 * whole waits for.  c_raw() copies rows into blocks; the lanes format
 * them, here (len bytes of raw_row + record).  Only the lanes touch
 * c->f[CSV_EVENTS] between the start and the stop of the queue, one at a
 * time (one lane, or publish_raw()); everything else they read is set
 * before (columns, names, the timebase) and not written after.  Without
 * a thread (no memory, no thread), c_raw() formats rows itself.
 */
static void format_raw_batch(void *arg, unsigned lane, unsigned char *p, size_t len)
{
	struct csv *c = arg;
	struct csv_table *f = c->rawq.publish ? &c->raw_lane[lane] : &c->f[CSV_EVENTS];

	for (size_t off = 0; off < len;) {
		const struct raw_row *r = (const void *)(p + off);

		format_raw(c, f, r, (const void *)(r + 1));
		off += RAW_ROW_ALIGN(sizeof(*r) + r->type->size);
	}
}

static void publish_raw(void *arg, unsigned lane)
{
	struct csv *c = arg;

	out_buf_move(&c->f[CSV_EVENTS].out, &c->raw_lane[lane].out);
}

static void c_raw(struct output *o, const struct raw_event *e)
{
	struct csv *c = C(o);
	/* <= 64 KiB + a header: always fits an empty block */
	size_t need = RAW_ROW_ALIGN(sizeof(struct raw_row) + e->type->size);
	struct raw_row one, *r = &one;

	if (c->rawq.running)
		r = block_queue_room(&c->rawq, need);
	*r = (struct raw_row){
		.type = e->type, .request_id = e->request_id, .cpu = e->cpu,
		.ring = e->ring ? e->ring->number : 0, .name_known = e->task->name_known,
	};
	if (r->name_known)
		memcpy(r->comm, e->task->comm, sizeof(r->comm));
	if (!c->rawq.running) {
		format_raw(c, &c->f[CSV_EVENTS], r, e->rec);
		return;
	}
	memcpy(r + 1, e->rec, e->type->size);
	block_queue_commit(&c->rawq, need);
}

/* --------------------------------------------------------- begin / end */

/*
 * Start q: half as many lanes as the conversion has threads (at most
 * BLOCK_QUEUE_LANES; one below FORMAT_LANES_MIN_THREADS), formatting into
 * the tables in memory lanes, published by pub, or one lane formatting
 * into the file when there is one lane or no memory; its threads are
 * named name.  Failing to start leaves the work to the caller.
 */
static void start_lanes(struct csv *c, struct block_queue *q, struct csv_table *lanes,
			block_queue_fn fn, block_queue_publish_fn pub, const char *name)
{
	unsigned n = c->cfg.threads / 2;

	if (c->cfg.threads < FORMAT_LANES_MIN_THREADS)
		n = 1;
	else if (n > BLOCK_QUEUE_LANES)
		n = BLOCK_QUEUE_LANES;

	for (unsigned i = 0; n > 1 && i < n; i++) {
		lanes[i].first = true;
		if (out_buf_open_mem(&lanes[i].out))
			n = 1;
	}
	if (n > 1 && !block_queue_start(q, 2 * n + 2 < BLOCK_QUEUE_MAX ? 2 * n + 2 : BLOCK_QUEUE_MAX,
					FORMAT_BATCH_BYTES, n, fn, pub, c, name))
		return;
	block_queue_start(q, FORMAT_BATCHES, FORMAT_BATCH_BYTES, 1, fn, NULL, c, name);
}

/* Stop q (after its last row) and free its tables in memory. */
static void stop_lanes(struct block_queue *q, struct csv_table *lanes)
{
	block_queue_stop(q, false);
	for (unsigned i = 0; i < BLOCK_QUEUE_LANES; i++)
		out_buf_close(&lanes[i].out);
}

static int open_dir(struct csv *c, char *err, size_t errlen)
{
	const char *dir = c->cfg.path;
	struct stat st;

	if (!dir || !strcmp(dir, "-")) {
		snprintf(err, errlen, "--format=csv writes several files: give a directory with -o DIR");
		return -1;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a directory (--format=csv needs -o DIR)", dir);
			return -1;
		}
	} else if (errno != ENOENT || mkdir(dir, 0755)) {
		snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < CSV_NTABLES; i++) {
		if (!writes(c, i))
			continue;
		c->path[i] = csv_table_path(dir, i);
		if (!c->path[i]) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (!c->cfg.force && stat(c->path[i], &st) == 0) {
			snprintf(err, errlen, "%s: already exists (use --force to overwrite)", c->path[i]);
			return -1;
		}
	}
	for (int i = 0; i < CSV_NTABLES; i++)
		if (writes(c, i) && out_buf_open(&c->f[i].out, c->path[i], c->cfg.force, err, errlen))
			return -1;
	return 0;
}

#define LOSS_COUNTER_COLUMNS "cpu kind event count"
#define FILE_COLUMNS \
	"file file_id path type dev ino flags fs f_flags mode nlink deleted anonymous " \
	"path_truncated first_ns requests complete errors bytes_read bytes_written " \
	"latency_total_ns latency_p50_ns latency_p90_ns latency_p99_ns latency_max_ns " \
	"inline poll io_wq task_work other_path"
#define TASK_COLUMNS \
	"pid tid ppid comm kind first_ns last_ns exit_ns exit_code task_flags rings"
#define RING_COLUMNS \
	"ring ring_id generation pid comm tid fd created_in_recording create_ns " \
	"setup_flags sq_entries cq_entries first_ns last_ns sqpoll_tid " \
	"io_wq_workers io_wq_peak requests owner_from io_wq_hashed " \
	"io_wq_hashed_key_peak io_wq_bound_workers_peak io_wq_unbound_workers_peak"

static int c_begin(struct output *o, const struct output_meta *meta, char *err, size_t errlen)
{
	static const char *const columns[CSV_NTABLES] = {
		[CSV_REQUESTS] = REQUEST_COLUMNS, [CSV_SYSCALLS] = SYSCALL_COLUMNS,
		[CSV_LOSSES] = LOSS_COLUMNS, [CSV_LOSS_COUNTERS] = LOSS_COUNTER_COLUMNS,
		[CSV_TASKS] = TASK_COLUMNS, [CSV_RINGS] = RING_COLUMNS,
		[CSV_COUNTERS] = COUNTER_COLUMNS, [CSV_FILES] = FILE_COLUMNS,
		/* events.csv: from the log's record layouts, below */
	};
	struct csv *c = C(o);
	struct csv_table *f;

	c->meta = *meta;
	for (int i = 0; i < CSV_NTABLES; i++)
		c->f[i].first = true;
	if (open_dir(c, err, errlen))
		return -1;
	for (int i = 0; i < CSV_NTABLES; i++)
		if (writes(c, i) && columns[i])
			header(&c->f[i], columns[i]);
	if (c->cfg.threads > 1 && writes(c, CSV_REQUESTS))
		start_lanes(c, &c->reqq, c->req_lane, format_request_batch, publish_request,
			    "rs-requests");
	if (!writes(c, CSV_EVENTS))
		return 0;
	build_event_columns(c);
	f = &c->f[CSV_EVENTS];
	out_buf_puts(&f->out, "time_ns,boot_ns,wall,cpu,event,pid,tid,comm,ring,req_id,flags");
	for (size_t i = 0; i < c->ncols; i++) {
		out_buf_putc(&f->out, ',');
		out_buf_puts(&f->out, c->cols[i].header);
	}
	out_buf_put(&f->out, ",errno\r\n", 8);
	start_lanes(c, &c->rawq, c->raw_lane, format_raw_batch, publish_raw, "rs-events");
	return 0;
}

static void write_tasks(struct csv *c, const struct output_totals *t)
{
	struct csv_table *f = &c->f[CSV_TASKS];

	for (size_t i = 0; i < t->ntasks; i++) {
		const struct model_task *k = t->tasks[i];
		char rings[MODEL_TASK_MAX_RINGS * 12] = "";
		size_t off = 0;

		if (!hmap_get(&c->tasks, k->tid, 0))
			continue;	/* not selected */
		field_opt_u64(f, k->pid, k->pid);
		field_u64(f, k->tid);
		field_opt_u64(f, k->ppid, k->ppid);
		field_opt_str(f, k->name_known, k->comm);
		field_name(f, task_kind_name(k->kind));
		field_t(c, f, k->first_ts);
		field_t(c, f, k->last_ts);
		field_t(c, f, k->exit_ts);
		field_opt_u64(f, k->exit_ts, (uint64_t)(int64_t)k->exit_code);
		field_hex32(f, k->task_flags);
		for (unsigned r = 0; r < k->nrings; r++)
			off += (size_t)snprintf(rings + off, sizeof(rings) - off, "%s%u",
						r ? "|" : "", k->rings[r]);
		field_str(f, rings);
		eol(f);
	}
}

static void write_rings(struct csv *c, const struct output_totals *t)
{
	struct csv_table *f = &c->f[CSV_RINGS];

	for (size_t i = 0; i < t->nrings; i++) {
		const struct model_ring *r = t->rings[i];
		const struct model_task *owner = NULL;

		if (!hmap_get(&c->rings, r->number, 0))
			continue;	/* not selected */
		for (size_t k = 0; r->pid && k < t->ntasks && !owner; k++)
			if (t->tasks[k]->tid == r->pid)
				owner = t->tasks[k];
		field_u64(f, r->number);
		field_hex(f, r->ring_id);
		field_u64(f, r->generation);
		field_opt_u64(f, r->pid, r->pid);
		field_opt_str(f, owner && owner->name_known, owner ? owner->comm : NULL);
		field_opt_u64(f, r->tid, r->tid);
		if (r->fd >= 0)
			field_i64(f, r->fd);
		else
			field_empty(f);
		field_bool(f, r->created_seen);
		field_t(c, f, r->create_ts);
		if (r->created_seen)
			field_flags(c, f, r->setup_flags, FLAGS_SETUP);
		else
			field_empty(f);
		field_opt_u64(f, r->created_seen, r->sq_entries);
		field_opt_u64(f, r->created_seen, r->cq_entries);
		field_t(c, f, r->first_ts);
		field_t(c, f, r->last_ts);
		field_opt_u64(f, r->sqpoll_tid, r->sqpoll_tid);
		field_u64(f, r->iowq_workers);
		field_u64(f, r->iowq_peak);
		field_u64(f, r->requests);
		/* How pid/tid were learned: the recorded io_uring_create, or
		 * the first user thread seen using a ring opened before. */
		field_str(f, r->created_seen ? "create" : r->pid ? "first_use" : "");
		field_u64(f, r->iowq_hashed);
		field_opt_u64(f, r->iowq_work_flags_known, r->iowq_hashed_key_peak);
		field_opt_u64(f, r->iowq_work_flags_known, r->iowq_bound_peak);
		field_opt_u64(f, r->iowq_work_flags_known, r->iowq_unbound_peak);
		eol(f);
	}
}

static void write_loss_counters(struct csv *c, const struct output_totals *t)
{
	struct csv_table *f = &c->f[CSV_LOSS_COUNTERS];

	for (size_t i = 0; i < t->nloss_counters; i++) {
		const struct loss_counter *k = &t->loss_counters[i];

		field_opt_u64(f, k->cpu != LOG_STREAM_GLOBAL, k->cpu);
		field_name(f, loss_kind_name(k->kind));
		field_name(f, k->event_type ? ev_type_name(k->event_type) : "total");
		field_u64(f, k->count);
		eol(f);
	}
}

/* files.csv: one row per file, first seen first. */
static void write_files(struct csv *c)
{
	struct csv_table *f = &c->f[CSV_FILES];
	size_t n;
	const struct file_agg **v = file_stats_sorted(&c->files, FILE_BY_NUMBER, &n);
	char buf[64];

	for (size_t i = 0; i < n; i++) {
		const struct file_agg *g = v[i];
		const struct model_file *file = g->file;

		field_u64(f, file->number);
		field_hex(f, file->file_id);
		field_file(c, f, file);
		field_hex32(f, file->f_flags);
		snprintf(buf, sizeof(buf), "%06o", (unsigned)file->mode);
		field_plain(f, buf, strlen(buf));
		field_u64(f, file->nlink);
		field_bool(f, file->deleted);
		field_bool(f, file->anonymous);
		field_bool(f, file->path_truncated);
		field_t(c, f, file->first_ts);
		field_u64(f, g->requests);
		field_u64(f, g->complete);
		field_u64(f, g->errors);
		field_u64(f, g->bytes_read);
		field_u64(f, g->bytes_written);
		field_u64(f, g->latency_total_ns);
		field_u64(f, hist_percentile(&g->latency, 50));
		field_u64(f, hist_percentile(&g->latency, 90));
		field_u64(f, hist_percentile(&g->latency, 99));
		field_u64(f, g->latency.count ? g->latency.max : 0);
		field_u64(f, g->paths[PATH_INLINE]);
		field_u64(f, g->paths[PATH_POLL]);
		field_u64(f, g->paths[PATH_IOWQ]);
		field_u64(f, g->paths[PATH_TASK_WORK]);
		field_u64(f, g->complete - g->paths[PATH_INLINE] - g->paths[PATH_POLL] -
			     g->paths[PATH_IOWQ] - g->paths[PATH_TASK_WORK]);
		eol(f);
	}
	free(v);
	if (c->files.oom)
		c->oom = true;
}

static int c_end(struct output *o, const struct output_totals *t, char *err, size_t errlen)
{
	struct csv *c = C(o);
	int ret = 0;

	stop_lanes(&c->rawq, c->raw_lane);
	stop_lanes(&c->reqq, c->req_lane);
	if (writes(c, CSV_TASKS))
		write_tasks(c, t);
	if (writes(c, CSV_RINGS))
		write_rings(c, t);
	if (writes(c, CSV_LOSS_COUNTERS))
		write_loss_counters(c, t);
	if (writes(c, CSV_FILES))
		write_files(c);
	if (c->oom) {
		snprintf(err, errlen, "out of memory while writing CSV");
		return -1;
	}
	/* Close every file, also after a failure: each stops its thread. */
	for (int i = 0; i < CSV_NTABLES; i++) {
		int e = out_buf_close(&c->f[i].out);

		if (e && !ret) {
			snprintf(err, errlen, "%s: write error: %s", c->path[i], strerror(e));
			ret = -1;
		}
	}
	return ret;
}

static void c_destroy(struct output *o)
{
	struct csv *c = C(o);

	stop_lanes(&c->rawq, c->raw_lane);
	stop_lanes(&c->reqq, c->req_lane);
	for (int i = 0; i < CSV_NTABLES; i++) {
		out_buf_close(&c->f[i].out);
		free(c->path[i]);
	}
	hmap_free(&c->tasks);
	hmap_free(&c->rings);
	file_stats_free(&c->files);
	free(c);
}

static const struct output_ops csv_ops = {
	.name = "csv",
	.begin = c_begin,
	.task = c_task,
	.ring = c_ring,
	.request = c_request,
	.syscall = c_syscall,
	.raw_event = c_raw,
	.loss = c_loss,
	.counter = c_counter,
	.end = c_end,
	.destroy = c_destroy,
};

struct output *output_csv_new(const struct output_config *cfg, char *err, size_t errlen)
{
	struct csv *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->cfg = *cfg;
	if (!c->cfg.csv_tables)
		c->cfg.csv_tables = CSV_ALL_TABLES;
	/* The model skips what no table needs: every record for events.csv
	 * (output.h), the counter samples for counters.csv. */
	c->ops = csv_ops;
	if (!writes(c, CSV_REQUESTS) && !writes(c, CSV_FILES))
		c->ops.request = NULL;
	if (!writes(c, CSV_SYSCALLS))
		c->ops.syscall = NULL;
	if (!writes(c, CSV_EVENTS))
		c->ops.raw_event = NULL;
	if (!writes(c, CSV_LOSSES))
		c->ops.loss = NULL;
	if (!writes(c, CSV_COUNTERS))
		c->ops.counter = NULL;
	c->base.ops = &c->ops;
	hmap_init(&c->tasks);
	hmap_init(&c->rings);
	file_stats_init(&c->files);
	return &c->base;
}
