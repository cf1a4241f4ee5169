/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The interface every uring-convert output format implements (summary,
 * JSON, CSV, FXT).  This header is the contract between the request model
 * (model.c) and the outputs: an output sees ONLY what is declared here.
 *
 * Call order, all from one thread:
 *
 *   begin(meta)                              once, before anything else
 *   { task | ring | request | syscall | cqe | raw_event | loss | marker
 *     | counter }*                           in the order described below
 *   end(totals)                              once; writes/flushes output
 *   destroy()                                always (also after a failure)
 *
 * Ordering guarantees (everything a streaming writer such as FXT needs):
 *   - raw_event(), loss(), marker(), counter() and cqe() are called in
 *     global time order (the merge order of the log), interleaved with
 *     each other.  One exception: MARK_UNPAIRED_SYSCALL for a begin whose
 *     end never came is delivered when that becomes known (the next begin
 *     on the thread, its exit, or the end of the log) and carries the
 *     begin's timestamp.
 *   - request() and syscall() are called when the object is FINISHED
 *     (completed, closed, or at the end of the recording), so they arrive
 *     roughly in order of their end time, not their start time.  A request
 *     completed on a thread that uses io_uring is finished at that thread's
 *     next io_uring event (submit, enter, cqring_wait, end of a task-work
 *     batch, io-wq work_begin/work_end): only then are its path and
 *     task-work batch final.  Other completions are finished at once.
 *     Finished requests are then held, in that order, until the reaping of
 *     each one's final CQE is known (a later ring snapshot, reap.h) or can
 *     no longer be: request() may come well after the completion.
 *     Each object is delivered exactly once, and everything still open is
 *     delivered before end().
 *   - task() and ring() are called before the first request(), syscall(),
 *     cqe(), marker(), counter() or raw_event() that refers to them, and
 *     again each time their description changes (name, process, kind,
 *     rings served, exit; ring fd/owner/setup/SQPOLL thread/io-wq workers);
 *     the last call carries the final state.  The pointers are valid until
 *     destroy(); the objects they point to are updated in place.  The
 *     activity counters (first_ts/last_ts, model_ring.requests) keep moving
 *     without a call: read their final values from output_totals in end().
 *   - With a selection (--pid/--ring), task() and ring() are filtered like
 *     everything else, so a consumer never sees a request whose ring was
 *     not announced.
 *   - Pointers passed to request(), syscall(), cqe(), raw_event(), loss(),
 *     marker() and counter() are valid only during the call: copy what you
 *     keep.
 *
 * Timestamps are CLOCK_BOOTTIME nanoseconds as recorded (the clock Perfetto
 * uses), absolute; 0 means "did not happen or not known" (a real boot-time
 * stamp is never 0).  meta->start_ns is the recording start: outputs that
 * print relative times subtract it; timebase_wall() maps to wall-clock time.
 *
 * Identifiers: request ids, syscall ids and ring numbers are small positive
 * integers assigned by the model in order of first appearance in the merged
 * log, unique within one conversion and identical for every conversion of
 * the same log (also with --start/--end/--pid/--ring, which only filter
 * what is delivered).  The log's opaque kernel-object identifiers (ring_id,
 * req_ptr) are carried along for cross-reference only: the kernel reuses
 * them, so they are never unique.
 *
 * Return values: begin() and end() return 0 or -1 after writing ONE error
 * line into err (naming the output file and the problem).  The per-object
 * callbacks return nothing; an output that fails while writing (disk full)
 * remembers it and reports it from end().  Any callback may be NULL: the
 * model skips it (raw_event() is expensive: leave it NULL if you do not
 * need every record).
 */
#ifndef RINGSIDE_OUTPUT_H
#define RINGSIDE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log_reader.h"
#include "names.h"
#include "timebase.h"
#include "uring_event.h"

/* ------------------------------------------------------------------ tasks */

enum task_kind {
	TASK_THREAD = 0,		/* an ordinary user thread */
	TASK_IOWQ_WORKER,		/* io-wq worker, iou-wrk-<pid> (PF_IO_WORKER) */
	TASK_SQPOLL,			/* SQPOLL thread, iou-sqp-<pid> (PF_IO_WORKER) */
	TASK_KERNEL,			/* other kernel thread (PF_KTHREAD) */
};

#define MODEL_TASK_MAX_RINGS 8

struct model_task {
	uint32_t tid;
	uint32_t pid;			/* thread group (process) id; 0 unknown */
	uint32_t ppid;			/* parent process, 0 unknown */
	char comm[EV_COMM_LEN + 1];	/* raw bytes as recorded, NUL-terminated;
					 * "" when never learned (may hold any
					 * non-NUL bytes: escape when printing) */
	enum task_kind kind;
	uint32_t task_flags;		/* PF_* as recorded, 0 unknown */
	bool name_known;		/* comm came from an EV_TASK record */
	uint64_t first_ts, last_ts;	/* first/last event of (or about) it */
	uint64_t exit_ts;		/* 0: not seen exiting */
	int32_t exit_code;
	/* io-wq workers and SQPOLL threads: ring numbers they served (learned
	 * from their events), up to MODEL_TASK_MAX_RINGS, in first-seen order. */
	unsigned rings[MODEL_TASK_MAX_RINGS];
	unsigned nrings;
};

/* ------------------------------------------------------------------ rings */

struct model_ring {
	unsigned number;		/* 1, 2, ... in order of first appearance */
	uint64_t ring_id;		/* the log's opaque id (kernel ctx pointer) */
	unsigned generation;		/* 0; n when the id was re-created n times */
	uint32_t pid;			/* owning process, 0 unknown */
	uint32_t tid;			/* thread that created it / first used it */
	int32_t fd;			/* ring fd in the owner, -1 unknown */
	bool created_seen;		/* io_uring_create seen: the next 3 valid */
	uint32_t setup_flags;		/* IORING_SETUP_* */
	uint32_t sq_entries, cq_entries;
	uint64_t create_ts;		/* 0 when open before the recording */
	uint64_t first_ts, last_ts;
	uint32_t sqpoll_tid;		/* SQPOLL thread serving it, 0 none seen */
	unsigned iowq_workers;		/* distinct io-wq workers seen for it */
	unsigned iowq_peak;		/* peak io-wq requests queued or running */
	/* io-wq pools and hashed work (uring-convert(1), MODEL, "io-wq
	 * workers and hashed work"); the work flags come with format 3.1 logs
	 * (iowq_work_flags_known), without them the last three stay 0. */
	uint64_t iowq_hashed;		/* requests queued to io-wq as hashed work */
	bool iowq_work_flags_known;	/* some queue_async_work had its work flags */
	unsigned iowq_hashed_key_peak;	/* most hashed requests of one hash key
					 * queued or running at once */
	unsigned iowq_bound_peak;	/* most bounded / unbounded workers that */
	unsigned iowq_unbound_peak;	/* had served the ring alive at once */
	uint64_t requests;		/* requests delivered so far */
};

/* ------------------------------------------------------------------ files */

/* What a file is: from its inode's mode, file system and name. */
enum file_type {
	FILE_TYPE_UNKNOWN = 0,
	FILE_REGULAR,
	FILE_BLOCK,
	FILE_SOCKET,
	FILE_PIPE,			/* pipe or FIFO */
	FILE_EVENTFD,
	FILE_CHAR,
	FILE_IO_URING,			/* a ring's own file */
	FILE_OTHER,			/* directory, other anonymous inode, ... */
	FILE_TYPE_COUNT
};

/*
 * A file requests worked on (EV_FILE records, format 3.1), named once per
 * file by model_files.c.  One struct per distinct identity: a struct file
 * address reused for another file is another model_file.  Valid until
 * destroy(), like rings.
 */
struct model_file {
	unsigned number;		/* 1, 2, ... in order of first appearance */
	uint64_t file_id;		/* the log's opaque id (struct file pointer) */
	uint32_t dev_major, dev_minor;	/* of its file system (st_dev) */
	uint64_t ino;
	uint32_t f_flags;		/* O_* as the kernel holds them */
	uint32_t nlink;
	uint16_t mode;			/* S_IF* and permissions */
	enum file_type type;
	char fs[EV_FS_LEN + 1];		/* file system type: "ext4", "pipefs" */
	/* "/tmp/a", "pipe:[123]", "socket:[45]", "anon_inode:[eventfd]";
	 * ".../" first when the walk stopped short, " (deleted)" last when
	 * unlinked, as /proc/PID/fd shows them. */
	const char *path;
	bool path_truncated;		/* the recorder could not walk it all */
	bool deleted;			/* nlink 0: unlinked (or O_TMPFILE) */
	bool anonymous;			/* pipe, socket or anonymous inode: no path */
	uint64_t first_ts;		/* its EV_FILE record */
};

/* --------------------------------------------------------------- requests */

/* Where the request's work happened.  One primary value; see the PATHS
 * section of uring-convert(1) for the exact rules. */
enum req_path {
	PATH_UNKNOWN = 0,		/* not enough events (in flight, lost) */
	PATH_INLINE,			/* completed within its submission pass */
	PATH_POLL,			/* waited for readiness (poll_arm/task_add) */
	PATH_IOWQ,			/* punted to an io-wq worker */
	PATH_TASK_WORK,			/* issued inline, completed later via task work */
	PATH_IOPOLL,			/* IORING_SETUP_IOPOLL ring, completed by polling */
	PATH_FAILED,			/* io_init_req failed (req_failed) */
	PATH_COUNT
};

/* Modifiers (bit set) that qualify the path. */
enum req_modifier {
	REQM_DRAINED		= 1u << 0,  /* deferred by IOSQE_IO_DRAIN (defer) */
	REQM_LINKED		= 1u << 1,  /* member of a link chain */
	REQM_LINK_CANCELLED	= 1u << 2,  /* cancelled because an earlier member failed */
	REQM_LINK_FAILED	= 1u << 3,  /* this member's failure cancelled the rest */
	REQM_MULTISHOT		= 1u << 4,  /* posted CQEs with IORING_CQE_F_MORE */
	REQM_CQ_OVERFLOW	= 1u << 5,  /* a CQE of it overflowed the CQ ring */
	REQM_CQE_DROPPED	= 1u << 6,  /* a CQE of it was lost to the application */
	REQM_SQPOLL		= 1u << 7,  /* submitted by the SQPOLL thread */
	REQM_HASHED		= 1u << 8,  /* io-wq hashed (serialised) work */
	REQM_WORKER_APPROX	= 1u << 9,  /* worker_tid/work_begin are approximations */
	REQM_CQE_SKIPPED	= 1u << 10, /* IOSQE_CQE_SKIP_SUCCESS: finished without a CQE */
	REQM_POLL_AND_IOWQ	= 1u << 11, /* both poll and io-wq steps seen */
	REQM_COUNT_BITS		= 12
};

/*
 * Why a request did not complete inline (its path is not inline): one
 * value, set by the model when the request is delivered.  Which are exact
 * and which inferred, and from what: uring-convert(1), MODEL.
 */
enum req_path_reason {
	PR_NONE = 0,			/* inline or failed at init: no reason */
	PR_SQE_ASYNC,			/* IOSQE_ASYNC */
	PR_POLL_ARMED,			/* -EAGAIN, file pollable: poll armed */
	PR_IOWQ_AFTER_EAGAIN,		/* -EAGAIN, not pollable: punted to io-wq */
	PR_IOWQ_NO_NOWAIT,		/* the operation has no non-blocking path */
	PR_DRAIN,			/* held back by IOSQE_IO_DRAIN */
	PR_LINK,			/* held back by its link predecessor */
	PR_TW_AFTER_POLL,		/* ran from task work after a poll wake-up */
	PR_TW_AFTER_COMPLETION,		/* ran from task work after a completion */
	PR_UNKNOWN,			/* not enough events to tell */
	PR_COUNT
};

enum req_status {
	REQ_COMPLETE = 0,		/* submission and final completion seen */
	REQ_IN_FLIGHT_AT_END,		/* submitted, still open when the log ends */
	REQ_IN_FLIGHT_AT_START,		/* completed, submitted before recording */
	REQ_INCOMPLETE,			/* events may be missing: see incomplete_reason */
	REQ_STATUS_COUNT
};

enum req_incomplete_reason {
	INCOMPLETE_NONE = 0,
	INCOMPLETE_LOSS,		/* a loss window overlaps its lifetime */
	INCOMPLETE_POINTER_REUSED,	/* the kernel reused its pointer before we saw it finish */
	INCOMPLETE_RING_RECREATED,	/* its ring id was re-created while it was open */
};

/*
 * One request, from its first to its last event.  Every step has a
 * timestamp (0: did not happen / not known) and, where it runs on a thread,
 * that thread.  Fields after "SQE" are valid when sqe_valid (submit or
 * req_failed seen; the SQE fields themselves only with sqe_fields_valid).
 */
struct model_request {
	uint64_t id;			/* unique, 1, 2, ... (order of first event) */
	const struct model_ring *ring;	/* never NULL */
	uint64_t req_ptr;		/* the log's opaque request id (reused!) */

	enum req_status status;
	enum req_incomplete_reason incomplete_reason;
	enum req_path path;
	enum req_path_reason path_reason;	/* why not inline */
	uint32_t modifiers;		/* enum req_modifier bits */

	/* SQE / submission */
	bool sqe_valid;			/* submit or req_failed seen */
	bool sqe_fields_valid;		/* EVF_SQE_VALID: fd..personality read from the SQE */
	bool off_valid;			/* off is real: the SQE was read and the
					 * opcode's offset slot is not a user
					 * pointer the recorder zeroed */
	uint8_t opcode;
	uint8_t sqe_flags;		/* IOSQE_* */
	uint16_t ioprio, buf_index, personality;
	uint32_t op_flags;		/* rw_flags / msg_flags / ... union */
	int32_t fd;
	uint64_t off;
	uint32_t len;
	uint64_t user_data;
	uint64_t req_flags;		/* kernel REQ_F_* at submission */
	int32_t init_error;		/* req_failed: io_init_req error (negative) */

	/* steps */
	uint64_t submit_ts;		/* submit (or req_failed) */
	uint32_t submit_tid, submit_pid;
	uint64_t submit_syscall;	/* id of the io_uring_enter slice it was
					 * submitted in; 0 for SQPOLL or unknown */
	uint64_t defer_ts;		/* IOSQE_IO_DRAIN deferral */
	uint64_t queue_async_ts;	/* queued to io-wq */
	uint64_t poll_arm_ts;		/* async poll armed (file not ready) */
	uint64_t task_add_ts;		/* poll fired, task work queued */
	uint32_t worker_tid;		/* io-wq worker that ran it, 0 unknown */
	uint64_t work_begin_ts;		/* worker started it (approx: see modifiers) */
	uint64_t work_end_ts;		/* worker finished it, 0 unknown */
	uint64_t tw_run_ts;		/* end of the task-work batch that posted its
					 * completion (task_work_run/local_work_run) */
	uint32_t tw_run_tid;
	uint64_t fail_link_ts;		/* cancelled by an earlier member's failure */

	/* completion (the final CQE; for multishot the one without F_MORE) */
	uint64_t complete_ts;
	uint32_t complete_tid;
	uint64_t complete_syscall;	/* enter slice open on complete_tid at the
					 * completion, 0 none */
	int32_t res;			/* CQE res (valid when complete_ts or overflow) */
	uint32_t cflags;		/* IORING_CQE_F_* */
	uint64_t first_cqe_ts;		/* multishot: first CQE; else = complete_ts */
	uint32_t ncqes;			/* CQEs posted (incl. overflowed ones) */
	uint64_t overflow_ts;		/* first CQE overflow of this request */

	/* reaping of the final CQE (uring-convert(1), MODEL, "When CQEs were
	 * reaped"): cq_index is the CQ tail value it was written at, counted
	 * from the last ring snapshot (an upper bound when cq_index_upper:
	 * CQEs reached the ring unseen); reaped_ts is the first time the log
	 * shows the CQ head past it, an UPPER BOUND of when the application
	 * consumed it (0 unknown); reaped_by_capacity: bound from the ring
	 * size (a later CQE could only be written once this one was gone). */
	bool cq_index_valid, cq_index_upper;
	uint32_t cq_index;
	uint64_t reaped_ts;
	bool reaped_by_capacity;

	/* io-wq work flags of its last queue_async_work (format 3.1) */
	bool work_flags_valid;
	uint32_t work_flags;		/* IO_WQ_WORK_*, hash key in bits 24..31 */

	/* links (all ids are model_request ids, 0 none) */
	uint64_t chain_id;		/* id of the chain's head; 0 not linked */
	uint32_t chain_pos;		/* 0 = head */
	uint64_t link_prev;		/* predecessor in the chain */
	uint64_t link_next;		/* successor in the chain */

	/* the file it worked on (plain fd or fixed file), as its final
	 * completion named it; NULL: none, or not recorded (logs before 3.1) */
	const struct model_file *file;
};

/* --------------------------------------------------------------- syscalls */

enum syscall_kind { SYS_ENTER = 0, SYS_SETUP, SYS_REGISTER, SYS_KIND_COUNT };

/* One io_uring_enter/setup/register call, begin..end on its thread.
 * Unpaired begins or ends are never delivered as syscalls; they are
 * reported through marker(MARK_UNPAIRED_SYSCALL). */
struct model_syscall {
	uint64_t id;			/* unique, assigned at begin */
	enum syscall_kind kind;
	uint32_t tid, pid;
	uint64_t begin_ts, end_ts;
	int64_t ret;
	const struct model_ring *ring;	/* NULL when not resolved */
	int32_t fd;			/* fd argument (setup: -1) */
	bool registered_ring;		/* fd is a registered-ring index */
	bool events_lost;		/* a loss window overlapped the slice: the
					 * counts below are lower bounds */

	/* SYS_ENTER */
	uint32_t to_submit, min_complete, enter_flags;
	uint32_t submitted;		/* submits on this thread for its ring in the slice */
	uint32_t completed;		/* CQEs posted on its ring during the slice */
	uint64_t wait_ts;		/* first cqring_wait in the slice, 0 none */
	int32_t wait_min_events;
	bool state_begin_valid, state_end_valid;
	uint32_t sq_head[2], sq_tail[2], cq_head[2], cq_tail[2];	/* [0] begin, [1] end */

	/* SYS_SETUP (params valid when params_valid); ret is the ring fd */
	bool params_valid;
	uint32_t entries, setup_flags, sq_thread_cpu, sq_thread_idle, cq_entries;

	/* SYS_REGISTER */
	uint32_t reg_opcode, nr_args;
};

/* Submitting vs waiting split of an enter slice (ns). */
static inline uint64_t syscall_submit_ns(const struct model_syscall *s)
{
	uint64_t until = s->wait_ts ? s->wait_ts : s->end_ts;

	return until > s->begin_ts ? until - s->begin_ts : 0;
}

static inline uint64_t syscall_wait_ns(const struct model_syscall *s)
{
	return s->wait_ts && s->end_ts > s->wait_ts ? s->end_ts - s->wait_ts : 0;
}

/* ------------------------------------------------------------------- CQEs */

/* A CQE that does not finish a request: a multishot CQE with F_MORE
 * (request != NULL), or a CQE belonging to no request (req == 0 in the
 * log, e.g. MSG_RING posting into a target ring; request == NULL). */
struct model_cqe {
	uint64_t ts;
	uint32_t tid;
	const struct model_ring *ring;
	const struct model_request *request;	/* NULL for aux CQEs */
	uint64_t user_data;
	int32_t res;
	uint32_t cflags;
	bool overflowed;		/* seen as cqe_overflow */
	bool dropped;			/* ... and lost to the application */
};

/* ------------------------------------------------------------------ losses */

enum loss_source {
	LOSS_KERNEL = 0,		/* EV_LOST: BPF ring buffer was full */
	LOSS_RECORDER,			/* EV_LOST with EVF_LOSS_USER */
	LOSS_AT_STOP,			/* EV_LOST with EVF_LOSS_AT_STOP */
	LOSS_DAMAGED_FRAME,		/* a frame's payload failed its checksum */
	LOSS_FRAME_GAP,			/* frames of a CPU missing (sequence gap) */
	LOSS_LOG_CUT,			/* the log ends without an END frame: what the
					 * CPU recorded after its last frame is gone */
	LOSS_SOURCE_COUNT
};

/* A window of time on one CPU in which events were lost.  count is exact
 * except for LOSS_FRAME_GAP and LOSS_LOG_CUT (0: unknown). */
struct model_loss {
	unsigned cpu;			/* LOG_STREAM_GLOBAL: not tied to a CPU */
	enum loss_source source;
	uint64_t first_ts, last_ts;
	uint64_t count;
	const char *detail;		/* damaged frames: the reader's message */
};

/* ----------------------------------------------------------------- markers */

enum marker_kind {
	MARK_CQE_OVERFLOW = 0,		/* a CQE did not fit in the CQ ring */
	MARK_CQE_DROPPED,		/* ... and could not be kept: lost to the app */
	MARK_SHORT_WRITE,		/* io_uring_short_write */
	MARK_REQ_FAILED,		/* io_init_req failed (value: error) */
	MARK_LINK_FAILED,		/* a chain member failed, later ones cancelled */
	MARK_UNPAIRED_SYSCALL,		/* begin without end or end without begin */
	MARK_UNMATCHED_EVENT,		/* a request event with no known request */
	MARK_KIND_COUNT
};

struct model_marker {
	enum marker_kind kind;
	uint64_t ts;
	uint32_t tid, pid;
	const struct model_ring *ring;	/* may be NULL */
	uint64_t request_id;		/* 0: not tied to a known request */
	uint64_t user_data;
	int64_t value;			/* res / error / ret */
	uint64_t a, b, c;		/* short write: fpos, wanted, got;
					 * unpaired syscall: kind, begin(1)/end(0);
					 * unmatched event: ev_type */
};

/* ---------------------------------------------------------------- counters */

enum counter_kind {
	COUNTER_INFLIGHT = 0,		/* requests submitted and not yet finished */
	COUNTER_SQ_PENDING,		/* SQ tail - head at an enter begin/end */
	COUNTER_CQ_PENDING,		/* CQ tail - head at an enter begin/end */
	COUNTER_IOWQ,			/* requests queued to or running in io-wq */
	COUNTER_IOWQ_BOUND_WORKERS,	/* bounded workers that served the ring, alive */
	COUNTER_IOWQ_UNBOUND_WORKERS,	/* unbounded ones */
	COUNTER_KIND_COUNT
};

/*
 * Counter samples taken at one time on one ring: one sample, or the SQ and
 * CQ pending counts of an io_uring_enter begin or end (always taken
 * together: the FXT output writes them as one record with two arguments,
 * which Perfetto imports as the same two tracks as two records).
 */
#define MODEL_COUNTER_MAX_SAMPLES 2

struct model_counter {
	const struct model_ring *ring;
	uint64_t ts;
	unsigned n;			/* samples: 1 .. MODEL_COUNTER_MAX_SAMPLES */
	enum counter_kind kind[MODEL_COUNTER_MAX_SAMPLES];
	int64_t value[MODEL_COUNTER_MAX_SAMPLES];
};

/* ------------------------------------------------------------- raw events */

/* One record of the merged log, normalised to the compiled-in layout of
 * common/uring_event.h (fields the log lacked are zero). */
struct raw_event {
	const struct ev_header *rec;	/* cast by rec->type to struct ev_<name> */
	const struct ev_type_info *type;/* compiled-in layout (field table) */
	unsigned cpu;			/* LOG_STREAM_GLOBAL for TASKS frames */
	const struct model_task *task;	/* the header's tid, never NULL */
	const struct model_ring *ring;	/* the record's ring, NULL if none */
	uint64_t request_id;		/* the model_request the record was
					 * attributed to (its id), 0 none */
};

/* --------------------------------------------------------- begin / end */

struct output_meta {
	const char *log_path;
	const struct log_info *info;	/* preamble + metadata JSON (info->meta) */
	const struct names *names;
	const struct timebase *tb;
	uint64_t start_ns;		/* recording start (boot ns) */
	uint64_t end_ns;		/* last record's ts (boot ns) */
	unsigned ncpus;
	const char *hostname, *kernel_release, *machine;	/* "" unknown */
	const char *io_wq_tracking;	/* metadata value, "" unknown */
	/* The selection (--start/--end/--pid/--ring), for headers; outputs do
	 * NOT need to filter: filtering happens before they are called. */
	uint64_t sel_start_ns, sel_end_ns;	/* 0 / UINT64_MAX: unbounded */
	const char *selection;		/* human-readable, "" when everything */
	/* The converter's version, for provenance. */
	const char *converter_version;
	/* metadata "sampling" (uring-record --sample): 1 request (syscall) in
	 * N was recorded; 1 when not sampled. */
	uint32_t sample_requests, sample_syscalls;
};

/* Per (cpu, kind) cumulative loss counter from the last LOSS frame. */
struct loss_counter {
	uint32_t cpu;
	uint16_t kind;			/* enum ev_loss_kind */
	uint16_t event_type;		/* 0 = total row */
	uint64_t count;
};

/*
 * What recording cost, from the recorder's last STATS frame, member "cost"
 * (uring-log(5)): its BPF programs' run time in the threads that hit its
 * hooks, and its own CPU time, both over the recording.
 */
struct tracing_cost {
	bool known;			/* the log says */
	bool bpf_known;			/* the BPF run time was measured */
	char bpf_stats[96];		/* "run_time", or why it was not */
	uint64_t bpf_run_ns, bpf_runs;	/* over the recording (estimates when
					 * bpf_share < 1) */
	double bpf_share;		/* share of the recording measured */
	double recorder_cpu_s, recording_s;
};

struct output_totals {
	/* Final state of every task and ring, sorted by tid / ring number. */
	const struct model_task *const *tasks;
	size_t ntasks;
	const struct model_ring *const *rings;
	size_t nrings;
	/* Records and losses. */
	uint64_t records;		/* records merged (all types) */
	uint64_t records_by_cpu_max;	/* size of the array below */
	const uint64_t *records_by_cpu;	/* indexed by CPU; NULL when none */
	uint64_t unknown_records;	/* records of types this converter does not know */
	const struct loss_counter *loss_counters;	/* from LOSS frames */
	size_t nloss_counters;
	uint64_t lost_events;		/* sum of total rows (kernel + recorder) */
	uint64_t loss_windows, damaged_frames, frame_gaps;
	/*
	 * --end: the log was read only up to this time (boot ns, the first
	 * record not read), all that the window needed; 0: read whole.  Then the
	 * records, the model's totals below, the tasks and rings, and the
	 * damage found are of the part read; the loss counters, how the log
	 * ended and the cost (from the log's closing frames) are the whole
	 * recording's.
	 */
	uint64_t read_to_ns;
	/* How the log ended. */
	enum log_stop stop;
	const char *stop_message;	/* "" when it ended cleanly */
	const char *end_reason;		/* END frame "reason", "" when absent */
	/* A flight-recorder snapshot: what fired, "" when not a snapshot. */
	const char *trigger;
	uint64_t snapshot;		/* its number */
	uint64_t trigger_ns;		/* boot ns */
	uint64_t window_start_ns;	/* records before were dropped */
	bool window_cut;		/* frames were evicted (else: the whole run) */
	uint64_t window_dropped;
	const struct tracing_cost *cost;
	/* Problems found while converting, one line each (already printed to
	 * stderr unless -q).  Outputs should show them: they explain gaps. */
	const char *const *warnings;
	size_t nwarnings;
	/* Model totals (over everything, before selection). */
	uint64_t requests, syscalls, unpaired_syscalls, aux_cqes, unmatched_events;
	/* Sampled recordings: events of requests not sampled, ignored. */
	uint64_t sampled_away_events;
};

/* ----------------------------------------------------------- the interface */

struct output;

struct output_ops {
	const char *name;
	int (*begin)(struct output *o, const struct output_meta *meta,
		     char *err, size_t errlen);
	void (*task)(struct output *o, const struct model_task *t);
	void (*ring)(struct output *o, const struct model_ring *r);
	void (*request)(struct output *o, const struct model_request *r);
	void (*syscall)(struct output *o, const struct model_syscall *s);
	void (*cqe)(struct output *o, const struct model_cqe *c);
	void (*raw_event)(struct output *o, const struct raw_event *e);
	void (*loss)(struct output *o, const struct model_loss *l);
	void (*marker)(struct output *o, const struct model_marker *m);
	void (*counter)(struct output *o, const struct model_counter *c);
	int (*end)(struct output *o, const struct output_totals *t,
		   char *err, size_t errlen);
	void (*destroy)(struct output *o);
};

/* Embed as the first member of each output's private struct. */
struct output {
	const struct output_ops *ops;
};

/* How an output was asked to write (from the command line). */
struct output_config {
	const char *path;		/* NULL or "-": stdout (summary, json, fxt) */
	bool force;			/* overwrite existing files */
	bool quiet;
	unsigned csv_tables;		/* csv: 1u << enum csv_table_id each (csv_tables.h); 0: all */
	unsigned threads;		/* the conversion's (convert_threads()); > 1: an output
					 * may format on threads of its own */
};

/*
 * Constructors.  Each checks its destination (refusing to overwrite
 * without force) and returns NULL with one error line in err.  A new
 * format (output_fxt.c) adds its constructor here and a case in
 * convert_run() (convert.c); nothing else changes.
 */
struct output *output_summary_new(const struct output_config *cfg, char *err, size_t errlen);
struct output *output_json_new(const struct output_config *cfg, char *err, size_t errlen);
struct output *output_csv_new(const struct output_config *cfg, char *err, size_t errlen);
/* FXT for Perfetto (output_fxt.c): at most max_lanes lanes per ring
 * (1..FXT_LANES_MAX, see fxt_layout.h); refuses a terminal as stdout. */
/* Past this size end() warns that Perfetto's UI may not hold the trace
 * (output_fxt.c); tests lower it. */
extern uint64_t output_fxt_large_bytes;
struct output *output_fxt_new(const struct output_config *cfg, unsigned max_lanes,
			      char *err, size_t errlen);
/* fio iologs and a job file in the directory cfg->path (output_fio.c):
 * one iolog per process, or per ring when per_ring. */
struct output *output_fio_new(const struct output_config *cfg, bool per_ring,
			      char *err, size_t errlen);

#endif
