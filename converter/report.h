/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Aggregates behind the summary (--format=summary) and its JSON form
 * (--format=json): per opcode, per process and ring, io-wq, errors,
 * overflows and losses.  Bounded memory: fixed-size histograms per opcode
 * and per ring, counters per ring, process and (opcode, errno).
 */
#ifndef RINGSIDE_REPORT_H
#define RINGSIDE_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "file_stats.h"
#include "hmap.h"
#include "output.h"
#include "stats.h"

#define REPORT_BATCH_BUCKETS 8	/* 0, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ */

struct op_stats {
	uint64_t count;			/* requests delivered */
	uint64_t by_status[REQ_STATUS_COUNT];
	uint64_t errors;		/* final res < 0 (complete requests) */
	uint64_t paths[PATH_COUNT];	/* complete requests only */
	uint64_t reasons[PR_COUNT];	/* why not inline, all requests */
	struct hist latency;		/* submit -> completion, complete requests */
};

struct ring_stats {
	const struct model_ring *ring;
	uint64_t requests, complete;
	uint64_t enters, submitted, cqes_in_enters;
	uint64_t sqpoll_submitted;	/* submissions by the SQPOLL thread */
	uint64_t enters_lossy;		/* overlapped a loss window: not in batching */
	uint64_t enter_ns, submit_ns, wait_ns;
	uint64_t batch[REPORT_BATCH_BUCKETS];
	uint64_t overflows, dropped, aux_cqes, multishot_cqes;
	uint64_t iowq_requests, iowq_busy_ns;
	uint64_t iowq_placed;		/* of them, with a worker and a time on it */
	bool iowq_busy_approx;
	struct hist latency;
};

struct proc_stats {
	uint32_t pid;
	char comm[EV_COMM_LEN + 1];
	uint64_t requests, enters, submitted, enters_lossy;
	uint64_t sqpoll_submitted;	/* submissions by its SQPOLL threads */
	uint64_t enter_ns, submit_ns, wait_ns;
	uint64_t syscalls[SYS_KIND_COUNT];
};

struct err_stats {
	uint8_t opcode;
	int64_t err;			/* positive errno (-res: up to 2^31) */
	uint64_t count;
};

struct cpu_loss {
	unsigned cpu;
	uint64_t windows, events;
	uint64_t unknown_windows;	/* windows of unknown size (gaps, log cut) */
	uint64_t by_source[LOSS_SOURCE_COUNT];
	uint64_t first_ts, last_ts;
};

struct report {
	const struct output_meta *meta;
	struct op_stats ops[256];
	struct hist path_latency[PATH_COUNT];	/* complete requests, by path */
	/* Complete requests whose final CQE's reaping is known: completion
	 * to reaped_ts (an upper bound, reap.h); of them, bounded by the ring
	 * size rather than a snapshot of the CQ head. */
	struct hist cq_wait;
	uint64_t cq_wait_by_capacity;
	struct ring_stats **rings;	/* by ring number - 1 */
	size_t nrings;
	struct hmap procs;		/* pid -> proc_stats */
	struct hmap errs;		/* (opcode, errno) -> err_stats */
	struct hmap comms;		/* pid -> char[17] (the process's comm) */
	uint64_t requests, by_status[REQ_STATUS_COUNT], by_reason[4];
	uint64_t syscalls[SYS_KIND_COUNT];
	uint64_t overflows, dropped, short_writes, failed_links, failed_requests;
	uint64_t aux_cqes, multishot_cqes, cancelled_links, unpaired_markers;
	struct cpu_loss *losses;	/* sorted by cpu */
	size_t nlosses;
	uint64_t loss_windows, loss_events, unknown_windows;
	/* What uring-record selected, as its options ("" every process);
	 * recorded_known false when the log does not say. */
	char recorded[512];
	bool recorded_known;
	struct file_stats files;	/* per file (file_stats.c) */
	bool oom;
};

/*
 * The output plumbing shared by the formats rendered from a report
 * (summary and json): begin() opens the destination, every object goes into
 * the report, and end() calls the format's render() and checks the write.
 * A format supplies only render() and an ops table from REPORT_OUTPUT_OPS().
 */
struct report_output;
typedef int (*report_render_fn)(struct report_output *ro, const struct output_totals *t,
				char *err, size_t errlen);

struct report_output {
	struct output base;
	struct output_config cfg;
	FILE *f;
	bool is_stdout;
	struct output_meta meta;
	struct report rep;
	report_render_fn render;
};

#define REPORT_OUTPUT(o) ((struct report_output *)(void *)(o))

int report_output_begin(struct output *o, const struct output_meta *meta,
			char *err, size_t errlen);
void report_output_task(struct output *o, const struct model_task *t);
void report_output_request(struct output *o, const struct model_request *r);
void report_output_syscall(struct output *o, const struct model_syscall *c);
void report_output_cqe(struct output *o, const struct model_cqe *c);
void report_output_loss(struct output *o, const struct model_loss *l);
void report_output_marker(struct output *o, const struct model_marker *m);
int report_output_end(struct output *o, const struct output_totals *t,
		      char *err, size_t errlen);
void report_output_destroy(struct output *o);

#define REPORT_OUTPUT_OPS(NAME) {					\
	.name = NAME,							\
	.begin = report_output_begin,					\
	.task = report_output_task,					\
	.request = report_output_request,				\
	.syscall = report_output_syscall,				\
	.cqe = report_output_cqe,					\
	.loss = report_output_loss,					\
	.marker = report_output_marker,					\
	.end = report_output_end,					\
	.destroy = report_output_destroy,				\
}

struct output *report_output_new(const struct output_config *cfg,
				 const struct output_ops *ops, report_render_fn render,
				 char *err, size_t errlen);

/* What uring-record selected, as its options ("" for every process); false
 * when the log does not say. */
bool report_recorded_selection(const struct json_value *meta, char *buf, size_t len);
void report_init(struct report *r, const struct output_meta *meta);
void report_free(struct report *r);
void report_task(struct report *r, const struct model_task *t);
void report_request(struct report *r, const struct model_request *q);
void report_syscall(struct report *r, const struct model_syscall *s);
void report_cqe(struct report *r, const struct model_cqe *c);
void report_loss(struct report *r, const struct model_loss *l);
void report_marker(struct report *r, const struct model_marker *m);

/* Sorted views for printing (malloc'd arrays of pointers; free()). */
struct proc_stats **report_procs(const struct report *r, size_t *n);	/* by pid */
struct err_stats **report_errors(const struct report *r, size_t *n);	/* by count desc */
const char *report_comm(const struct report *r, uint32_t pid);	/* "" unknown */

/* Total lost events: LOSS-frame totals when present (exact), else the sum
 * of the loss windows. */
uint64_t report_lost_events(const struct report *r, const struct output_totals *t);
/*
 * Whether lost / (records + lost) is a share of the events: not when the
 * loss counters are the whole recording's and the records only those read
 * (--end stopped reading early).
 */
bool report_lost_share_known(const struct output_totals *t);
/*
 * The tracing cost in words ("355 ns of BPF per request in the traced
 * threads, ..., 2.1 % of one CPU for the recorder"), per request when
 * requests is not 0; false (buf "") when the log does not say.
 */
bool report_cost_text(const struct tracing_cost *c, uint64_t requests, char *buf, size_t len);
/*
 * The requests the recorder's programs ran for (scale: the sampling rate,
 * as they ran for the requests not sampled too), for the cost per
 * request: 0, not known, when the log was read only in part (--end).
 */
uint64_t report_cost_requests(const struct output_totals *t, uint64_t scale);

#endif
