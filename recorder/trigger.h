/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The flight recorder's triggers (--trigger=SPEC): their parser, and their
 * evaluation on the records the consumer drains.  Everything is evaluated
 * here, in the recorder, not in BPF: the BPF programs stay what they are
 * whatever is asked, and a trigger that is not asked for costs nothing (the
 * consumer calls triggers_record() only when one needs records, and the
 * in-flight table exists only for a latency trigger or an OPCODE).
 *
 * The in-flight table maps (ring, req) to the submission's time and opcode,
 * with a FIFO of submissions in drain order that triggers_overdue() walks
 * from its oldest end: a request still in flight after TIME is found
 * without a scan of the table.  Both are fixed in size; submissions that do
 * not fit are counted (untracked) and cannot fire a latency trigger.
 */
#ifndef RINGSIDE_RECORDER_TRIGGER_H
#define RINGSIDE_RECORDER_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trigger_kind {
	TRIG_SIGNAL,
	TRIG_ERRNO,
	TRIG_CQ_OVERFLOW,
	TRIG_LATENCY,
	TRIG_IOWQ_WORKERS,
};

#define TRIGGER_ANY_OPCODE (-1)
#define TRIGGER_TEXT_LEN 64

struct trigger_spec {
	enum trigger_kind kind;
	int err;			/* TRIG_ERRNO: positive errno */
	int opcode;			/* TRIG_ERRNO, TRIG_LATENCY; or TRIGGER_ANY_OPCODE */
	uint64_t latency_ns;		/* TRIG_LATENCY */
	unsigned workers;		/* TRIG_IOWQ_WORKERS */
	char text[TRIGGER_TEXT_LEN];	/* as given */
};

/* Parse one --trigger SPEC; 0, or -1 with a message in err. */
int trigger_parse(const char *s, struct trigger_spec *t, char *err, size_t errlen);

/* Size of the in-flight table and of its FIFO (entries). */
#define TRIGGER_INFLIGHT_SLOTS (1u << 16)
/* In-flight requests looked at past the oldest, for a trigger with a
 * shorter TIME than an older request's (or another opcode). */
#define TRIGGER_LOOKAHEAD 64
/* Live io-wq workers tracked at once (of every selected task; 3/4 of the
 * slots), and the largest N of io-wq-workers>N. */
#define TRIGGER_WORKER_SLOTS 4096u
#define TRIGGER_MAX_WORKERS 1023u

/* What fired, for the snapshot's metadata. */
struct trigger_hit {
	const struct trigger_spec *spec;
	uint64_t ts;			/* the record that fired it, boot ns */
	uint64_t due_ns;		/* when its condition became true (boot ns) */
	unsigned cpu;
	uint32_t tid;
	uint64_t ring, req, user_data;	/* 0 when not about a request */
	int opcode;			/* TRIGGER_ANY_OPCODE when unknown */
	int64_t res;
	uint64_t latency_ns;		/* TRIG_LATENCY: so far, or at completion */
	bool in_flight;			/* TRIG_LATENCY: not completed yet */
	unsigned workers;		/* TRIG_IOWQ_WORKERS: the io-wq's live workers */
	uint32_t worker_tid;		/* TRIG_IOWQ_WORKERS: the one that started */
};

struct inflight_slot;
struct inflight_fifo;
struct worker_slot;

struct triggers {
	const struct trigger_spec *specs;
	size_t n;
	bool track;			/* the in-flight table is kept */
	bool workers;			/* the io-wq worker table is kept */
	uint64_t min_latency_ns;	/* smallest latency trigger, UINT64_MAX: none */
	struct inflight_slot *slot;	/* TRIGGER_INFLIGHT_SLOTS */
	size_t used;
	struct inflight_fifo *fifo;	/* TRIGGER_INFLIGHT_SLOTS */
	size_t fifo_head, fifo_len;
	struct worker_slot *worker;	/* TRIGGER_WORKER_SLOTS */
	size_t workers_used;
	uint64_t workers_untracked;	/* workers the table had no room for */
	uint64_t untracked;		/* submissions the table had no room for */
	bool fired;
	struct trigger_hit hit;
};

/* Does any of these triggers look at records (all but signal)? */
bool triggers_need_records(const struct trigger_spec *specs, size_t n);
int triggers_init(struct triggers *t, const struct trigger_spec *specs, size_t n);
void triggers_free(struct triggers *t);
/* One drained record (scrubbed ids); may set t->fired and t->hit. */
void triggers_record(struct triggers *t, unsigned cpu, const void *rec);
/*
 * Is a request still in flight for longer than a latency trigger's TIME at
 * boot time now?  Only the FIFO's oldest entries are looked at.  With fire
 * false it only tells (a candidate, which a later record may still
 * complete); with fire true it fires on it.
 */
bool triggers_overdue(struct triggers *t, uint64_t now, bool fire);
struct ev_task;
/* A task record (drained, or of the listing at the start). */
void triggers_task(struct triggers *t, unsigned cpu, const struct ev_task *e);
/* SIGUSR1 came at boot time now. */
void triggers_signal(struct triggers *t, uint64_t now);
/* Re-arm after a snapshot (the tables are kept). */
void triggers_rearm(struct triggers *t);
struct json_out;
/* The "trigger" object of a snapshot's metadata and END frame. */
void trigger_hit_json(struct json_out *o, const struct trigger_hit *h, uint64_t fired_boot_ns);
/* A short description of the hit, e.g. "latency>200ms: READ ring 3 req 7". */
void trigger_hit_describe(const struct trigger_hit *h, char *buf, size_t len);

#endif
