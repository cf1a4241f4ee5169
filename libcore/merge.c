// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_split.h"
#include "json.h"
#include "merge.h"
#include "worker.h"

enum src_kind { SRC_FRAME = 1, SRC_GAP, SRC_CUT };

/* One entry of the merge plan. */
struct src {
	enum src_kind kind;
	struct log_frame f;		/* SRC_FRAME */
	unsigned stream;
	uint64_t first_ts, last_ts;
	uint32_t order;			/* position in the sorted plan */
};

struct rec_ref {
	uint64_t ts;
	uint32_t off;			/* payload offset, and the REF_ bits */
	uint32_t idx;
};

/*
 * A record the walk found usable in place (its layout is this converter's,
 * or its type is unknown) is not read again when the merge yields it: the
 * loading thread (read-ahead) did that work.  Payloads are at most 64 MiB, so an
 * offset leaves the top bits free.
 */
#define REF_IN_PLACE	(1u << 31)	/* the record is at off, as it is */
#define REF_KNOWN	(1u << 30)	/* and of a type this converter knows */
/* the completion the submit_complete record at off holds (event_split.h) */
#define REF_COMPLETION	(1u << 29)
#define REF_OFF_MASK	(REF_COMPLETION - 1)
/*
 * A completion's idx: after every record of its frame, so that among
 * records of the same time it comes last, as the complete record it
 * stands for was written last (after the file record that names its
 * file, which has its time).
 */
#define IDX_COMPLETION	(1u << 31)
_Static_assert(LOG_MAX_RAW_SIZE - 1 <= REF_OFF_MASK, "payload offsets fit below the REF_ bits");

/* A frame being merged. */
struct active {
	const struct src *src;
	void *buf;
	size_t cap, len;
	struct rec_ref *refs;		/* the records and their completions */
	size_t nrefs, refcap, pos;
	struct rec_ref *comp;		/* completions, before they join refs */
	size_t compcap;
	size_t nstored;			/* records in the payload */
	uint64_t bytes;			/* counted in merge.active_bytes while merging */
	struct active *next_free;
};

uint64_t merge_max_active_bytes = MERGE_MAX_ACTIVE_BYTES;

/* What loading a frame found (decode_frame()). */
enum load_status {
	LOAD_OK = 0,
	LOAD_DAMAGED_PAYLOAD,		/* msg: nothing of it can be read */
	LOAD_DAMAGED_RECORDS,		/* msg: the records before the damage are indexed */
	LOAD_NO_MEMORY,
};

struct load_result {
	enum load_status status;
	char msg[LOG_MSG_LEN];
};

/*
 * Read-ahead.  Loading a frame (fetch, checksum, decompress, index, sort)
 * depends on the frame alone and is a large part of a conversion: a
 * second thread loads the plan's frames in
 * plan order, up to READ_AHEAD_FRAMES ahead, and the merge takes them in
 * the same order.  Everything that depends on the merge's state (the
 * memory limit, warnings, loss items, the heap) stays on the merging
 * thread, so the output is the same with or without it
 * (check_convert_output compares the two on damaged logs).
 */
/* 2: as fast as 4 or 8, with less peak memory (a 1 MiB payload and its
 * index per frame). */
#define READ_AHEAD_FRAMES 2
/* Larger frames are loaded by the merge itself, after its memory check:
 * only a damaged or hostile log has them (uring-record's are 1 MiB), and
 * the read-ahead must not hold READ_AHEAD_FRAMES of 64 MiB. */
#define READ_AHEAD_MAX_RAW (8u << 20)

bool merge_read_ahead = true;
/*
 * Smaller frames too: a frame handed over costs both threads a wake-up
 * (a futex, and an interrupt to the other CPU), about what loading a
 * small frame takes.  A quiet CPU writes a small frame every flush
 * interval, and tests/fuzz/check_hostile's 65536-CPU logs hold 65536
 * frames of one record, which the hand-over made slow.
 */
uint32_t merge_read_ahead_min_raw = MERGE_READ_AHEAD_MIN_RAW;

/* The frames the read-ahead loads; the merge loads the others itself.
 * Both sides walk the plan with this test, so they agree on the order. */
static bool read_ahead_loads(const struct src *s)
{
	return s->kind == SRC_FRAME && s->f.h.raw_size >= merge_read_ahead_min_raw &&
	       s->f.h.raw_size <= READ_AHEAD_MAX_RAW;
}

struct loaded {
	const struct src *src;
	struct active *a;		/* NULL: out of memory */
	struct load_result res;
};

struct read_ahead {
	struct worker w;		/* lock also guards merge.free_list */
	const struct log_reader *r;
	const struct ev_layout_map *layout;
	const struct src *plan;
	size_t nplan, next;		/* the thread's place in the plan */
	struct log_decoder *dec;
	struct merge *m;
	struct loaded ring[READ_AHEAD_FRAMES];
	uint64_t filled, taken;		/* ring positions, under w.lock */
	unsigned char scratch[EV_RECORD_MAX];
};

struct merge {
	struct log_reader *r;
	struct read_ahead *ra;		/* NULL: none (yet) */
	bool ra_tried;
	const struct ev_layout_map *layout;
	struct src *plan;
	size_t nplan, plancap, next;
	struct active **heap;
	size_t nheap, heapcap;
	struct active *free_list;
	struct active *to_release;	/* exhausted by the previous call */
	struct merge_stats st;
	char **warnings;
	size_t nwarnings, warncap;
	unsigned char scratch[EV_RECORD_MAX];
	/* what a submit_complete record yields, one at a time */
	union {
		struct ev_header h;
		struct ev_submit submit;
		struct ev_complete complete;
	} split;
	char lossmsg[LOG_MSG_LEN];
	bool oom;
	uint32_t *cpu_slot;		/* during the walk: cpu -> index + 1 in st.cpus */
	uint64_t active_bytes;		/* payloads and indexes of frames being merged */
	uint64_t warnings_dropped;	/* beyond MERGE_MAX_WARNINGS */
	size_t cpucap;
};

static void warnf(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * At most MERGE_MAX_WARNINGS lines: a damaged or hostile log can hold
 * millions of bad frames, and one line each would bury the first ones
 * (and stderr).  The last line then counts the ones not shown.
 */
static void warnf(struct merge *m, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (m->nwarnings == MERGE_MAX_WARNINGS) {
		m->warnings_dropped++;
		free(m->warnings[MERGE_MAX_WARNINGS - 1]);
		if (asprintf(&m->warnings[MERGE_MAX_WARNINGS - 1],
			     "%s: %" PRIu64 " more problems like the ones above are not listed",
			     log_reader_path(m->r), m->warnings_dropped + 1) < 0) {
			m->warnings[MERGE_MAX_WARNINGS - 1] = NULL;
			m->nwarnings--;
			m->oom = true;
		}
		return;
	}
	if (m->nwarnings == m->warncap) {
		size_t cap = m->warncap ? m->warncap * 2 : 16;
		char **p = realloc(m->warnings, cap * sizeof(*p));

		if (!p) {
			m->oom = true;
			return;
		}
		m->warnings = p;
		m->warncap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		m->oom = true;
		return;
	}
	m->warnings[m->nwarnings++] = s;
}

/*
 * The statistics of a CPU (cpu < MERGE_MAX_CPUS), created on first use.
 * Appended in order of appearance through a direct index, and sorted by
 * CPU once the walk is done (sort_cpu_stats): inserting in place would
 * move the whole array for every new CPU of a log that lists them from
 * the highest down.
 */
static struct merge_cpu_stats *cpu_stats(struct merge *m, unsigned cpu)
{
	struct merge_cpu_stats *p;

	if (!m->cpu_slot) {
		m->cpu_slot = calloc(MERGE_MAX_CPUS, sizeof(*m->cpu_slot));
		if (!m->cpu_slot) {
			m->oom = true;
			return NULL;
		}
	}
	if (m->cpu_slot[cpu])
		return &m->st.cpus[m->cpu_slot[cpu] - 1];
	if (m->st.ncpus == m->cpucap) {
		size_t cap = m->cpucap ? m->cpucap * 2 : 16;

		p = realloc(m->st.cpus, cap * sizeof(*p));
		if (!p) {
			m->oom = true;
			return NULL;
		}
		m->st.cpus = p;
		m->cpucap = cap;
	}
	p = &m->st.cpus[m->st.ncpus++];
	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	m->cpu_slot[cpu] = (uint32_t)m->st.ncpus;
	return p;
}

static int cmp_cpu_stats(const void *a, const void *b)
{
	const struct merge_cpu_stats *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void sort_cpu_stats(struct merge *m)
{
	if (m->st.ncpus > 1)
		qsort(m->st.cpus, m->st.ncpus, sizeof(*m->st.cpus), cmp_cpu_stats);
	free(m->cpu_slot);
	m->cpu_slot = NULL;
}

static int plan_add(struct merge *m, const struct src *s)
{
	if (m->nplan == m->plancap) {
		size_t cap = m->plancap ? m->plancap * 2 : 256;
		struct src *p = realloc(m->plan, cap * sizeof(*p));

		if (!p) {
			m->oom = true;
			return -1;
		}
		m->plan = p;
		m->plancap = cap;
	}
	m->plan[m->nplan++] = *s;
	return 0;
}

static void read_loss_frame(struct merge *m, const struct log_frame *f)
{
	const void *buf;
	size_t len;
	char msg[LOG_MSG_LEN];
	struct loss_counter *rows;
	uint64_t total = 0;

	if (log_reader_payload(m->r, f, 0, &buf, &len, msg, sizeof(msg))) {
		warnf(m, "%s (an earlier LOSS frame's counters are used)", msg);
		return;
	}
	if (len != (size_t)f->h.count * sizeof(struct log_loss_row)) {
		warnf(m, "%s: offset %" PRIu64 ": LOSS frame holds %zu bytes for %u rows; ignored",
		      log_reader_path(m->r), f->offset, len, f->h.count);
		return;
	}
	rows = calloc(f->h.count ? f->h.count : 1, sizeof(*rows));
	if (!rows) {
		m->oom = true;
		return;
	}
	for (uint32_t i = 0; i < f->h.count; i++) {
		struct log_loss_row row;

		memcpy(&row, (const char *)buf + i * sizeof(row), sizeof(row));
		rows[i].cpu = row.cpu;
		rows[i].kind = row.kind;
		rows[i].event_type = row.event_type;
		rows[i].count = row.count;
		if (row.event_type == 0)
			total += row.count;
	}
	free(m->st.loss_counters);
	m->st.loss_counters = rows;
	m->st.nloss_counters = f->h.count;
	m->st.lost_total = total;
}

static void copy_clean(char *dst, size_t dstlen, const char *src)
{
	size_t i;

	for (i = 0; src && src[i] && i + 1 < dstlen; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[i] = '\0';
}

/* The END frame of a flight-recorder snapshot (uring-log(5), END FRAME). */
static void read_flight(struct merge *m, const struct json_value *fr)
{
	const struct json_value *trig = json_get(fr, "trigger");

	if (!fr || !json_get_u64(fr, "window_start_boot_ns", &m->st.window_start_ns))
		return;
	json_get_u64(fr, "snapshot", &m->st.snapshot);
	copy_clean(m->st.trigger, sizeof(m->st.trigger), json_get_str(trig, "description", "?"));
	if (!json_get_u64(trig, "condition_boot_ns", &m->st.trigger_ns))
		json_get_u64(trig, "fired_boot_ns", &m->st.trigger_ns);
	/* 0 means nothing was evicted: the window is the whole recording */
	if (!m->st.window_start_ns)
		m->st.window_start_ns = 1;
}

static void read_end_frame(struct merge *m, const struct log_frame *f)
{
	const void *buf;
	size_t len;
	char msg[LOG_MSG_LEN];
	struct json_doc doc;

	m->st.have_end = true;
	if (log_reader_payload(m->r, f, 0, &buf, &len, msg, sizeof(msg))) {
		warnf(m, "%s (the stop reason is unknown)", msg);
		return;
	}
	if (json_parse(buf, len, &doc, msg, sizeof(msg))) {
		warnf(m, "%s: offset %" PRIu64 ": END frame is not valid JSON: %s",
		      log_reader_path(m->r), f->payload_offset, msg);
		return;
	}
	copy_clean(m->st.end_reason, sizeof(m->st.end_reason),
		   json_get_str(&doc.root, "reason", ""));
	copy_clean(m->st.end_message, sizeof(m->st.end_message),
		   json_get_str(&doc.root, "message", ""));
	json_get_u64(&doc.root, "stop_boot_ns", &m->st.end_boot_ns);
	read_flight(m, json_get(&doc.root, "flight_recorder"));
	json_doc_free(&doc);
}

/* The recorder's cost, in the last STATS frame that says it. */
static void read_stats_frame(struct merge *m, const struct log_frame *f)
{
	struct tracing_cost *c = &m->st.cost;
	const struct json_value *cost;
	const void *buf;
	size_t len;
	char msg[LOG_MSG_LEN];
	struct json_doc doc;

	/* Informational: a damaged one only leaves the cost unknown. */
	if (log_reader_payload(m->r, f, 0, &buf, &len, msg, sizeof(msg)) ||
	    json_parse(buf, len, &doc, msg, sizeof(msg)))
		return;
	cost = json_get(&doc.root, "cost");
	if (cost && cost->type == JSON_OBJECT) {
		memset(c, 0, sizeof(*c));
		c->known = true;
		copy_clean(c->bpf_stats, sizeof(c->bpf_stats),
			   json_get_str(cost, "bpf_stats", ""));
		c->bpf_known = json_get_u64(cost, "bpf_run_time_ns", &c->bpf_run_ns) &&
			       json_get_u64(cost, "bpf_runs", &c->bpf_runs);
		json_get_double(cost, "recorder_cpu_s", &c->recorder_cpu_s);
		c->bpf_share = 1.0;
		json_get_double(cost, "bpf_measured_share", &c->bpf_share);
		json_get_double(cost, "recording_s", &c->recording_s);
	}
	json_doc_free(&doc);
}

static void read_clock_frame(struct merge *m, struct timebase *tb, const struct log_frame *f)
{
	const void *buf;
	size_t len;
	char msg[LOG_MSG_LEN];
	struct log_clock_snapshot s;

	if (log_reader_payload(m->r, f, 0, &buf, &len, msg, sizeof(msg))) {
		warnf(m, "%s (wall-clock times use the other snapshots)", msg);
		return;
	}
	if (len < sizeof(s)) {
		warnf(m, "%s: offset %" PRIu64 ": CLOCK frame too short (%zu bytes); ignored",
		      log_reader_path(m->r), f->offset, len);
		return;
	}
	memcpy(&s, buf, sizeof(s));
	if (!s.boot_ns || !s.real_ns)
		return;
	if (timebase_add(tb, &s))
		m->oom = true;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct src *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->f.h.seq != y->f.h.seq)
		return x->f.h.seq < y->f.h.seq ? -1 : 1;
	return x->f.index < y->f.index ? -1 : x->f.index > y->f.index;
}

static int cmp_plan(const void *a, const void *b)
{
	const struct src *x = a, *y = b;

	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	/* Loss windows first: known before the records after them. */
	if (x->kind != y->kind)
		return x->kind != SRC_FRAME ? (y->kind != SRC_FRAME ? (int)x->kind - (int)y->kind : -1) : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->f.h.seq != y->f.h.seq)
		return x->f.h.seq < y->f.h.seq ? -1 : 1;
	return x->f.index < y->f.index ? -1 : x->f.index > y->f.index;
}

/* Per-CPU frame sequences: report gaps and plan them as loss windows. */
static void find_gaps(struct merge *m)
{
	size_t n = m->nplan;

	if (n)
		qsort(m->plan, n, sizeof(*m->plan), cmp_seq);
	for (size_t i = 1; i < n; i++) {
		const struct src *a = &m->plan[i - 1], *b = &m->plan[i];
		struct src gap;

		if (a->stream != b->stream || a->f.h.type != LOG_FRAME_EVENTS ||
		    b->f.h.type != LOG_FRAME_EVENTS)
			continue;
		if (b->f.h.seq == a->f.h.seq) {
			warnf(m, "%s: offset %" PRIu64 ": frame %" PRIu64 " (EVENTS, CPU %u) repeats sequence number %" PRIu64,
			      log_reader_path(m->r), b->f.offset, b->f.index, b->stream,
			      (uint64_t)b->f.h.seq);
			continue;
		}
		if (b->f.h.seq == a->f.h.seq + 1)
			continue;
		m->st.frame_gaps++;
		warnf(m, "%s: offset %" PRIu64 ": CPU %u frames %" PRIu64 "..%" PRIu64
		      " are missing (sequence gap before frame %" PRIu64 "); events between them were lost",
		      log_reader_path(m->r), b->f.offset, b->stream, (uint64_t)a->f.h.seq + 1,
		      (uint64_t)b->f.h.seq - 1, b->f.index);
		memset(&gap, 0, sizeof(gap));
		gap.kind = SRC_GAP;
		gap.stream = b->stream;
		/* The missing frames' records came after a's last record and
		 * before b's first: the window is the open interval. */
		gap.first_ts = a->last_ts + 1;
		gap.last_ts = b->first_ts > gap.first_ts ? b->first_ts - 1 : gap.first_ts;
		if (plan_add(m, &gap))
			return;
	}
}

int merge_open(struct merge **mp, struct log_reader *r, struct timebase *tb,
	       char *err, size_t errlen)
{
	struct merge *m = calloc(1, sizeof(*m));
	struct log_frame f;
	const char *stopmsg;
	bool lost_tail;

	*mp = NULL;
	if (!m) {
		snprintf(err, errlen, "%s: out of memory", log_reader_path(r));
		return -1;
	}
	m->r = r;
	m->layout = log_reader_layout(r);
	m->st.bytes_total = log_reader_info(r)->file_size;
	while (!m->oom && log_reader_next(r, &f)) {
		struct src s;

		m->st.frames_by_type[f.h.type < 16 ? f.h.type : 0]++;
		switch (f.h.type) {
		case LOG_FRAME_EVENTS:
		case LOG_FRAME_TASKS:
			if (f.h.type == LOG_FRAME_EVENTS && f.h.stream >= MERGE_MAX_CPUS) {
				warnf(m, "%s: offset %" PRIu64 ": frame %" PRIu64
				      " claims CPU %u, which is implausible; its %u records are skipped",
				      log_reader_path(r), f.offset, f.index, f.h.stream, f.h.count);
				break;
			}
			if (!f.h.count)
				break;
			if (f.h.first_ts > f.h.last_ts) {
				warnf(m, "%s: offset %" PRIu64 ": frame %" PRIu64
				      " has first_ts after last_ts; its records are skipped",
				      log_reader_path(r), f.offset, f.index);
				break;
			}
			memset(&s, 0, sizeof(s));
			s.kind = SRC_FRAME;
			s.f = f;
			s.stream = f.h.type == LOG_FRAME_EVENTS ? f.h.stream : LOG_STREAM_GLOBAL;
			s.first_ts = f.h.first_ts;
			s.last_ts = f.h.last_ts;
			if (plan_add(m, &s))
				break;
			m->st.planned_records += f.h.count;
			if (!m->st.first_ts || f.h.first_ts < m->st.first_ts)
				m->st.first_ts = f.h.first_ts;
			if (f.h.last_ts > m->st.last_ts)
				m->st.last_ts = f.h.last_ts;
			if (f.h.type == LOG_FRAME_EVENTS) {
				struct merge_cpu_stats *c = cpu_stats(m, f.h.stream);

				if (!c)
					break;
				c->frames++;
				c->records += f.h.count;
				c->stored_bytes += f.h.stored_size;
				c->raw_bytes += f.h.raw_size;
				if (!c->first_ts || f.h.first_ts < c->first_ts)
					c->first_ts = f.h.first_ts;
				if (f.h.last_ts > c->last_ts)
					c->last_ts = f.h.last_ts;
			}
			break;
		case LOG_FRAME_LOSS:
			read_loss_frame(m, &f);
			break;
		case LOG_FRAME_CLOCK:
			read_clock_frame(m, tb, &f);
			break;
		case LOG_FRAME_END:
			read_end_frame(m, &f);
			break;
		case LOG_FRAME_STATS:
			read_stats_frame(m, &f);
			break;
		case LOG_FRAME_META:
		case LOG_FRAME_INDEX:
			break;
		default:
			m->st.unknown_frames++;
			break;
		}
	}
	sort_cpu_stats(m);
	m->st.stop = log_reader_stop(r, &stopmsg, NULL);
	copy_clean(m->st.stop_message, sizeof(m->st.stop_message), stopmsg);
	if (m->st.stop != LOG_STOP_END)
		warnf(m, "%s; converting everything before it", m->st.stop_message);
	find_gaps(m);
	/*
	 * A log without an END frame lost what each CPU recorded after its
	 * last frame (recorder killed, power cut): a window of unknown size
	 * per CPU, placed in time so that requests open across it are
	 * incomplete rather than joined wrongly.  So did a recording stopped
	 * by a write error (END reason "disk full" or "error": the recorder
	 * discards what it cannot write, recorder/writer.c), although its END
	 * frame made it.
	 */
	lost_tail = !m->st.have_end;
	if (m->st.have_end && (!strcmp(m->st.end_reason, "disk full") ||
			       !strcmp(m->st.end_reason, "error"))) {
		lost_tail = true;
		warnf(m, "%s: the recording stopped on a write error (%s%s%s): what each CPU recorded after its last frame is not in the log",
		      log_reader_path(r), m->st.end_reason, *m->st.end_message ? ": " : "",
		      m->st.end_message);
	}
	for (size_t i = 0; lost_tail && i < m->st.ncpus; i++) {
		const struct merge_cpu_stats *c = &m->st.cpus[i];
		struct src cut;

		memset(&cut, 0, sizeof(cut));
		cut.kind = SRC_CUT;
		cut.stream = c->cpu;
		cut.first_ts = c->last_ts + 1;
		cut.last_ts = m->st.last_ts > cut.first_ts ? m->st.last_ts : cut.first_ts;
		/* A write error: the recorder said when it stopped. */
		if (m->st.have_end && m->st.end_boot_ns > cut.last_ts)
			cut.last_ts = m->st.end_boot_ns;
		if (plan_add(m, &cut))
			break;
	}
	if (lost_tail && !m->st.ncpus) {
		/* Not one EVENTS frame made it (killed or disk full before the
		 * first flush): everything recorded is gone, on no known CPU,
		 * from the start to the last known time. */
		const struct log_info *info = log_reader_info(r);
		struct src cut;

		memset(&cut, 0, sizeof(cut));
		cut.kind = SRC_CUT;
		cut.stream = LOG_STREAM_GLOBAL;
		cut.first_ts = info->have_start_clock && info->start_clock.boot_ns ?
			       info->start_clock.boot_ns : 1;
		cut.last_ts = m->st.end_boot_ns > m->st.last_ts ? m->st.end_boot_ns : m->st.last_ts;
		if (cut.last_ts < cut.first_ts)
			cut.last_ts = cut.first_ts;
		plan_add(m, &cut);
	}
	if (m->oom) {
		snprintf(err, errlen, "%s: out of memory while indexing the log", log_reader_path(r));
		merge_close(m);
		return -1;
	}
	if (m->nplan)
		qsort(m->plan, m->nplan, sizeof(*m->plan), cmp_plan);
	for (size_t i = 0; i < m->nplan; i++)
		m->plan[i].order = (uint32_t)i;
	*mp = m;
	return 0;
}

/* ---------------------------------------------------------------- the heap */

static bool before(const struct active *a, const struct active *b)
{
	const struct rec_ref *x = &a->refs[a->pos], *y = &b->refs[b->pos];

	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (a->src->stream != b->src->stream)
		return a->src->stream < b->src->stream;
	/*
	 * A completion after the records of its time in later frames too: the
	 * recorder may cut a frame between a submit_complete record and the
	 * file record of its completion, which came after it in the stage.
	 */
	if ((x->idx ^ y->idx) & IDX_COMPLETION)
		return !(x->idx & IDX_COMPLETION);
	if (a->src->order != b->src->order)
		return a->src->order < b->src->order;
	return x->idx < y->idx;
}

static void heap_up(struct merge *m, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct active *t;

		if (!before(m->heap[i], m->heap[p]))
			break;
		t = m->heap[i];
		m->heap[i] = m->heap[p];
		m->heap[p] = t;
		i = p;
	}
}

static void heap_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;
		struct active *t;

		if (l < m->nheap && before(m->heap[l], m->heap[s]))
			s = l;
		if (r < m->nheap && before(m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static int cmp_ref(const void *a, const void *b)
{
	const struct rec_ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Room for n refs in *p (capacity *cap): false when out of memory. */
static bool refs_reserve(struct rec_ref **p, size_t *cap, size_t n)
{
	struct rec_ref *q;

	if (*cap >= n)
		return true;
	q = realloc(*p, n * sizeof(*q));
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/*
 * The sorted completions c[0..nc) into the sorted records refs[0..n),
 * which has room for them: merged from the back, so that nothing is
 * overwritten before it is read.
 */
static void merge_completions(struct rec_ref *refs, size_t n, const struct rec_ref *c,
			      size_t nc)
{
	size_t i = n, j = nc;

	while (j > 0) {
		if (i > 0 && cmp_ref(&refs[i - 1], &c[j - 1]) > 0) {
			refs[i + j - 1] = refs[i - 1];
			i--;
		} else {
			refs[i + j - 1] = c[j - 1];
			j--;
		}
	}
}

/* The free list's first frame, or NULL.  The free list is shared with the
 * read-ahead thread while it runs: callers hold its lock then. */
static struct active *pop_free(struct merge *m)
{
	struct active *a = m->free_list;

	if (a)
		m->free_list = a->next_free;
	return a;
}

static struct active *get_active(struct merge *m)
{
	struct active *a;

	if (m->ra)
		pthread_mutex_lock(&m->ra->w.lock);
	a = pop_free(m);
	if (m->ra)
		pthread_mutex_unlock(&m->ra->w.lock);
	return a ? a : calloc(1, sizeof(*a));
}

static void release(struct merge *m, struct active *a)
{
	m->active_bytes -= a->bytes;
	a->bytes = 0;
	a->src = NULL;
	if (m->ra)
		pthread_mutex_lock(&m->ra->w.lock);
	a->next_free = m->free_list;
	m->free_list = a;
	if (m->ra)
		pthread_mutex_unlock(&m->ra->w.lock);
}

static void damaged_item(struct merge *m, const struct src *s, uint64_t lost,
			 const char *why, struct merge_item *it)
{
	memset(it, 0, sizeof(*it));
	it->kind = MERGE_LOSS;
	it->loss.cpu = s->stream;
	it->loss.source = LOSS_DAMAGED_FRAME;
	it->loss.first_ts = s->first_ts;
	it->loss.last_ts = s->last_ts;
	it->loss.count = lost;
	snprintf(m->lossmsg, sizeof(m->lossmsg), "%s", why);
	it->loss.detail = m->lossmsg;
	m->st.damaged_frames++;
	m->st.damaged_records += lost;
}

/*
 * Fetch, check and decompress a frame's payload into a, then index and
 * sort its records.  Depends on the frame alone, not on the merge, so the
 * read-ahead thread runs it too: it writes nothing but a, res, d and
 * scratch.  d NULL: the reader's own decoder (the merging thread's).
 */
static void decode_frame(const struct log_reader *r, struct log_decoder *d,
			 const struct ev_layout_map *layout, void *scratch,
			 const struct src *s, struct active *a, struct load_result *res)
{
	bool sorted = true, csorted = true;
	size_t pos = 0, want, nc = 0;
	int ret;

	a->src = s;
	a->nrefs = a->nstored = a->pos = 0;
	a->bytes = 0;
	res->status = LOAD_OK;
	if (log_reader_payload_into(r, d, &s->f, &a->buf, &a->cap, &a->len, res->msg,
				    sizeof(res->msg))) {
		res->status = LOAD_DAMAGED_PAYLOAD;
		return;
	}
	/* The header's count comes from the file: never allocate for more
	 * records than the payload can hold (uring-log(5): a record has a
	 * 20-byte header and a size that is a multiple of 8, so >= 24). */
	want = s->f.h.count < a->len / 24 ? s->f.h.count : a->len / 24;
	if (!refs_reserve(&a->refs, &a->refcap, want)) {
		res->status = LOAD_NO_MEMORY;
		return;
	}
	for (;;) {
		const struct ev_header *rec;
		size_t at = pos;
		bool known;
		uint32_t off;

		ret = log_next_record(layout, a->buf, a->len, &pos, &rec, &known,
				      scratch, res->msg, sizeof(res->msg));
		if (ret <= 0)
			break;
		if (a->nstored == s->f.h.count || a->nstored == want) {
			snprintf(res->msg, sizeof(res->msg),
				 "payload offset %zu: more records than the %u the header declares",
				 at, s->f.h.count);
			ret = -1;
			break;
		}
		off = (uint32_t)at |
			((const unsigned char *)rec == (const unsigned char *)a->buf + at ?
			 REF_IN_PLACE : 0) | (known ? REF_KNOWN : 0);
		a->refs[a->nstored].ts = rec->ts;
		a->refs[a->nstored].off = off;
		a->refs[a->nstored].idx = (uint32_t)a->nstored;
		if (a->nstored && rec->ts < a->refs[a->nstored - 1].ts)
			sorted = false;
		if (known && ev_holds_completion(rec)) {
			struct rec_ref *c;

			if (!refs_reserve(&a->comp, &a->compcap, want)) {
				res->status = LOAD_NO_MEMORY;
				return;
			}
			c = a->comp;
			c[nc].ts = ev_split_complete_ts((const void *)rec);
			c[nc].off = off | REF_COMPLETION;
			c[nc].idx = IDX_COMPLETION | (uint32_t)a->nstored;
			if (nc && c[nc].ts < c[nc - 1].ts)
				csorted = false;
			nc++;
		}
		a->nstored++;
	}
	if (!sorted)
		qsort(a->refs, a->nstored, sizeof(*a->refs), cmp_ref);
	if (nc && !csorted)
		qsort(a->comp, nc, sizeof(*a->comp), cmp_ref);
	if (nc && !refs_reserve(&a->refs, &a->refcap, a->nstored + nc)) {
		res->status = LOAD_NO_MEMORY;
		return;
	}
	merge_completions(a->refs, a->nstored, a->comp, nc);
	a->nrefs = a->nstored + nc;
	if (ret < 0 || a->nstored < s->f.h.count) {
		if (ret >= 0)
			snprintf(res->msg, sizeof(res->msg), "payload ends after %zu of %u records",
				 a->nstored, s->f.h.count);
		res->status = LOAD_DAMAGED_RECORDS;
	}
}

/*
 * Frames are held from their first to their last record's time, so
 * memory is what the frames overlapping in time hold: a few per CPU
 * from uring-record, but a hostile log can make every frame overlap
 * (a 64 MiB payload of one repeated record is 6 KiB of zstd).  Past
 * merge_max_active_bytes, a frame is skipped and counted as lost: true,
 * with *it holding the loss item.
 */
static bool over_memory_limit(struct merge *m, const struct src *s, struct merge_item *it)
{
	size_t want = s->f.h.raw_size / 24 < s->f.h.count ? s->f.h.raw_size / 24 : s->f.h.count;
	char msg[LOG_MSG_LEN];

	if (!m->nheap || m->active_bytes + s->f.h.raw_size + want * sizeof(struct rec_ref) <=
			merge_max_active_bytes)
		return false;
	snprintf(msg, sizeof(msg),
		 "%s: offset %" PRIu64 ": frame %" PRIu64 " (CPU %u) overlaps in time with %zu frames holding %" PRIu64
		 " MiB; merging it too would need more than %" PRIu64 " MiB",
		 log_reader_path(m->r), s->f.offset, s->f.index, s->stream, m->nheap,
		 m->active_bytes >> 20, merge_max_active_bytes >> 20);
	warnf(m, "%s; its %u records are counted as lost", msg, s->f.h.count);
	damaged_item(m, s, s->f.h.count, msg, it);
	return true;
}

/*
 * A decoded frame joins the merge: warnings and loss items for its damage,
 * then the heap.  Returns 1 when the frame joined the heap, 0 when it was
 * (partly) damaged and *it holds the loss item to yield, -1 when out of
 * memory.
 */
static int admit_frame(struct merge *m, const struct src *s, struct active *a,
		       const struct load_result *res, struct merge_item *it)
{
	switch (res->status) {
	case LOAD_OK:
		break;
	case LOAD_NO_MEMORY:
		release(m, a);
		return -1;
	case LOAD_DAMAGED_PAYLOAD:
		warnf(m, "%s; its %u records (%s, time %" PRIu64 "..%" PRIu64
		      " ns) are counted as lost", res->msg, s->f.h.count,
		      s->stream == LOG_STREAM_GLOBAL ? "task list" : "events",
		      s->first_ts, s->last_ts);
		damaged_item(m, s, s->f.h.count, res->msg, it);
		release(m, a);
		return m->oom ? -1 : 0;
	case LOAD_DAMAGED_RECORDS: {
		uint64_t lost = s->f.h.count - a->nstored;

		warnf(m, "%s: offset %" PRIu64 ": frame %" PRIu64 " (CPU %u): %s; %" PRIu64
		      " records after it are counted as lost", log_reader_path(m->r),
		      s->f.offset, s->f.index, s->stream, res->msg, lost);
		damaged_item(m, s, lost, res->msg, it);
		if (a->nrefs)
			break;
		release(m, a);
		return m->oom ? -1 : 0;
	}
	}
	if (!a->nrefs) {
		release(m, a);
		return 1;
	}
	if (m->nheap == m->heapcap) {
		size_t cap = m->heapcap ? m->heapcap * 2 : 16;
		struct active **p = realloc(m->heap, cap * sizeof(*p));

		if (!p) {
			release(m, a);
			return -1;
		}
		m->heap = p;
		m->heapcap = cap;
	}
	m->heap[m->nheap++] = a;
	a->bytes = a->len + a->nrefs * sizeof(*a->refs);
	m->active_bytes += a->bytes;
	heap_up(m, m->nheap - 1);
	/* A partly damaged frame joined the heap and also reports its loss. */
	return res->status == LOAD_OK ? 1 : 0;
}

/* Load a frame on the merging thread: as admit_frame(). */
static int load_frame(struct merge *m, const struct src *s, struct merge_item *it)
{
	struct active *a = get_active(m);
	struct load_result res;

	if (!a)
		return -1;
	m->st.bytes_done = s->f.payload_offset + s->f.h.stored_size;
	if (over_memory_limit(m, s, it)) {
		release(m, a);
		return m->oom ? -1 : 0;
	}
	decode_frame(m->r, NULL, m->layout, m->scratch, s, a, &res);
	return admit_frame(m, s, a, &res, it);
}

static void *read_ahead_main(void *arg)
{
	struct read_ahead *ra = arg;
	struct merge *m = ra->m;

	pthread_mutex_lock(&ra->w.lock);
	for (;;) {
		const struct src *s;
		struct loaded *l;
		struct active *a;

		while (!ra->w.stop && ra->filled - ra->taken == READ_AHEAD_FRAMES)
			pthread_cond_wait(&ra->w.cond, &ra->w.lock);
		while (ra->next < ra->nplan && !read_ahead_loads(&ra->plan[ra->next]))
			ra->next++;
		if (ra->w.stop || ra->next == ra->nplan)
			break;
		s = &ra->plan[ra->next++];
		l = &ra->ring[ra->filled % READ_AHEAD_FRAMES];
		a = pop_free(m);
		pthread_mutex_unlock(&ra->w.lock);
		l->src = s;
		l->res.status = LOAD_OK;
		if (!a && !(a = calloc(1, sizeof(*a))))
			l->res.status = LOAD_NO_MEMORY;
		if (a)
			decode_frame(ra->r, ra->dec, ra->layout, ra->scratch, s, a, &l->res);
		l->a = a;
		pthread_mutex_lock(&ra->w.lock);
		ra->filled++;
		pthread_cond_broadcast(&ra->w.cond);
	}
	pthread_mutex_unlock(&ra->w.lock);
	return NULL;
}

/* Start the read-ahead if the log has frames enough for it; without it
 * (no thread, no memory) the merge loads every frame itself. */
static void read_ahead_start(struct merge *m)
{
	struct read_ahead *ra;
	size_t frames = 0;

	m->ra_tried = true;
	for (size_t i = 0; i < m->nplan && frames < 2; i++)
		frames += read_ahead_loads(&m->plan[i]);
	if (!merge_read_ahead || frames < 2)
		return;
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return;
	ra->r = m->r;
	ra->layout = m->layout;
	ra->plan = m->plan;
	ra->nplan = m->nplan;
	ra->m = m;
	ra->dec = log_decoder_new();
	if (!ra->dec || worker_start(&ra->w, read_ahead_main, ra, "rs-read")) {
		log_decoder_free(ra->dec);
		free(ra);
		return;
	}
	m->ra = ra;
}

static void read_ahead_stop(struct merge *m)
{
	struct read_ahead *ra = m->ra;

	if (!ra)
		return;
	worker_stop(&ra->w);
	m->ra = NULL;
	for (; ra->taken < ra->filled; ra->taken++) {
		struct active *a = ra->ring[ra->taken % READ_AHEAD_FRAMES].a;

		if (a)
			release(m, a);
	}
	log_decoder_free(ra->dec);
	free(ra);
}

/* Take frame s from the read-ahead: as admit_frame(), or -2 when the
 * read-ahead is out of step with the merge (cannot happen: both walk the
 * same plan in the same order). */
static int take_frame(struct merge *m, const struct src *s, struct merge_item *it)
{
	struct read_ahead *ra = m->ra;
	struct loaded *l;
	int ret;

	pthread_mutex_lock(&ra->w.lock);
	while (ra->filled == ra->taken)
		pthread_cond_wait(&ra->w.cond, &ra->w.lock);
	pthread_mutex_unlock(&ra->w.lock);
	/* The slot stays ours until taken moves on. */
	l = &ra->ring[ra->taken % READ_AHEAD_FRAMES];
	if (l->src != s) {
		if (l->a)
			release(m, l->a);
		ret = -2;
	} else if (!l->a) {
		ret = -1;	/* LOAD_NO_MEMORY */
	} else {
		m->st.bytes_done = s->f.payload_offset + s->f.h.stored_size;
		if (over_memory_limit(m, s, it)) {
			release(m, l->a);
			ret = m->oom ? -1 : 0;
		} else {
			ret = admit_frame(m, s, l->a, &l->res, it);
		}
	}
	pthread_mutex_lock(&ra->w.lock);
	ra->taken++;
	pthread_cond_broadcast(&ra->w.cond);
	pthread_mutex_unlock(&ra->w.lock);
	return ret;
}

static int next_item(struct merge *m, struct merge_item *it, char *err, size_t errlen)
{
	struct active *a;
	const struct ev_header *rec;
	size_t pos;
	uint32_t off;
	char msg[LOG_MSG_LEN];
	bool known;

	if (m->to_release) {
		release(m, m->to_release);
		m->to_release = NULL;
	}
	for (;;) {
		uint64_t min_ts = m->nheap ? m->heap[0]->refs[m->heap[0]->pos].ts : UINT64_MAX;
		const struct src *s;
		int ret;

		if (m->next >= m->nplan || m->plan[m->next].first_ts > min_ts)
			break;
		s = &m->plan[m->next++];
		if (s->kind == SRC_GAP || s->kind == SRC_CUT) {
			memset(it, 0, sizeof(*it));
			it->kind = MERGE_LOSS;
			it->loss.cpu = s->stream;
			it->loss.source = s->kind == SRC_GAP ? LOSS_FRAME_GAP : LOSS_LOG_CUT;
			it->loss.first_ts = s->first_ts;
			it->loss.last_ts = s->last_ts;
			return 1;
		}
		if (!m->ra_tried)
			read_ahead_start(m);
		ret = m->ra && read_ahead_loads(s) ? take_frame(m, s, it) : load_frame(m, s, it);
		if (ret == -2) {
			snprintf(err, errlen, "%s: internal error: frames read ahead out of order",
				 log_reader_path(m->r));
			return -1;
		}
		if (ret < 0) {
			snprintf(err, errlen, "%s: out of memory while merging", log_reader_path(m->r));
			return -1;
		}
		if (ret == 0)
			return 1;
	}
	if (!m->nheap)
		return 0;
	a = m->heap[0];
	off = a->refs[a->pos].off;
	pos = off & REF_OFF_MASK;
	if (off & REF_IN_PLACE) {
		rec = (const struct ev_header *)(const void *)((const unsigned char *)a->buf + pos);
		known = off & REF_KNOWN;
	} else if (log_next_record(m->layout, a->buf, a->len, &pos, &rec, &known, m->scratch,
				   msg, sizeof(msg)) <= 0) {
		/* Cannot happen: the record was walked when the frame loaded. */
		snprintf(err, errlen, "%s: internal error re-reading a record: %s",
			 log_reader_path(m->r), msg);
		return -1;
	}
	if (known && rec->type == EV_SUBMIT_COMPLETE) {
		/* the record stands for a submit and, maybe, its completion */
		if (off & REF_COMPLETION)
			ev_split_complete((const void *)rec, &m->split.complete);
		else
			ev_split_submit((const void *)rec, &m->split.submit);
		rec = &m->split.h;
	}
	memset(it, 0, sizeof(*it));
	it->kind = MERGE_RECORD;
	it->rec = rec;
	it->known = known;
	it->cpu = a->src->stream;
	m->st.records++;
	if (!known)
		m->st.unknown_records++;
	if (++a->pos == a->nrefs) {
		m->heap[0] = m->heap[--m->nheap];
		if (m->nheap)
			heap_down(m, 0);
		/* The record may live in this frame's buffer: free it next call. */
		m->to_release = a;
	} else {
		heap_down(m, 0);
	}
	return 1;
}

/*
 * A flight-recorder snapshot's records before its window start are
 * dropped: some CPUs' frames of that time were evicted, and the rest
 * would show requests as submitted and never completed, or the reverse.
 */
int merge_next(struct merge *m, struct merge_item *it, char *err, size_t errlen)
{
	int ret;

	for (;;) {
		ret = next_item(m, it, err, errlen);
		if (ret <= 0 || !m->st.window_start_ns)
			return ret;
		if (it->kind == MERGE_RECORD && it->rec->ts < m->st.window_start_ns) {
			m->st.window_dropped++;
			m->st.records--;
			continue;
		}
		if (it->kind == MERGE_LOSS && it->loss.last_ts < m->st.window_start_ns)
			continue;
		return ret;
	}
}

const struct merge_stats *merge_stats(const struct merge *m)
{
	return &m->st;
}

const char *const *merge_warnings(const struct merge *m, size_t *n)
{
	*n = m->nwarnings;
	return (const char *const *)m->warnings;
}

static void free_active(struct active *a)
{
	free(a->buf);
	free(a->refs);
	free(a->comp);
	free(a);
}

void merge_close(struct merge *m)
{
	if (!m)
		return;
	read_ahead_stop(m);
	if (m->to_release)
		release(m, m->to_release);
	for (size_t i = 0; i < m->nheap; i++)
		free_active(m->heap[i]);
	for (struct active *a; (a = pop_free(m));)
		free_active(a);
	for (size_t i = 0; i < m->nwarnings; i++)
		free(m->warnings[i]);
	free(m->warnings);
	free(m->heap);
	free(m->plan);
	free(m->st.cpus);
	free(m->cpu_slot);
	free(m->st.loss_counters);
	free(m);
}
