/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The raw event ABI shared by the BPF programs (bpf/), the recorder
 * (recorder/) and every reader of a log (common/log_reader.c, converter/).
 *
 * Every record is a fixed-size, little-endian struct: a 20-byte header
 * (EV_HEADER_FIELDS) followed by the fields of its type.  The record types
 * and their fields are declared once, below, as X-macros; the same lists
 * generate
 *   - the C structs (user space and BPF),
 *   - the layout table written into each log's metadata (event_layout.c),
 *     so that a future converter can read an old layout by field name,
 *   - the list of kernel-pointer fields the recorder turns into opaque ids,
 *   - the columns of the converter's events.csv.
 *
 * Rules (see uring-log(5), "EVENT RECORDS"):
 *   - Type numbers are explicit and append-only; a retired number is never
 *     reused.
 *   - A record type only ever grows at its end.  A field added after format
 *     1.0 must come with an EVF_* validity bit, so that a record written by an
 *     older recorder (field absent, read as zero) is "unknown", never a wrong
 *     value.
 *   - Sizes are multiples of 8 and every byte is a declared field (padding is
 *     declared as pad* fields), so the layout table describes the whole
 *     record; tests/check_common.c (test_abi_table) verifies this.
 *   - Kernel pointers (kind "id") never reach a log as addresses unless the
 *     user asks for --raw-pointers; see recorder/pointer_scrub.c.
 */
#ifndef RINGSIDE_URING_EVENT_H
#define RINGSIDE_URING_EVENT_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define EV_COMM_LEN 16
/* A file's path in an EV_FILE record (format 3.1): see EV_FIELDS_file. */
#define EV_PATH_LEN 256
/* A file system type name (struct file_system_type.name) in EV_FILE. */
#define EV_FS_LEN 16

/*
 * Field kinds.  "id" is a kernel object pointer (ring context, request,
 * task context, file) that the recorder maps to an opaque identifier; 0
 * stays 0.  fsname and path are NUL-padded byte strings (layout kind
 * "str", format 3.1).
 */
#define EV_DECL_u8(name)	__u8 name;
#define EV_DECL_u16(name)	__u16 name;
#define EV_DECL_u32(name)	__u32 name;
#define EV_DECL_s32(name)	__s32 name;
#define EV_DECL_u64(name)	__u64 name;
#define EV_DECL_s64(name)	__s64 name;
#define EV_DECL_id(name)	__u64 name;
#define EV_DECL_comm(name)	char name[EV_COMM_LEN];
#define EV_DECL_fsname(name)	char name[EV_FS_LEN];
#define EV_DECL_path(name)	char name[EV_PATH_LEN];
#define EV_DECL_pad8(name)	__u8 name;
#define EV_DECL_pad16(name)	__u16 name;
#define EV_DECL_pad32(name)	__u32 name;
#define EV_DECL(kind, name)	EV_DECL_##kind(name)

#define EV_KIND_SIZE_u8		1
#define EV_KIND_SIZE_u16	2
#define EV_KIND_SIZE_u32	4
#define EV_KIND_SIZE_s32	4
#define EV_KIND_SIZE_u64	8
#define EV_KIND_SIZE_s64	8
#define EV_KIND_SIZE_id		8
#define EV_KIND_SIZE_comm	EV_COMM_LEN
#define EV_KIND_SIZE_fsname	EV_FS_LEN
#define EV_KIND_SIZE_path	EV_PATH_LEN
#define EV_KIND_SIZE_pad8	1
#define EV_KIND_SIZE_pad16	2
#define EV_KIND_SIZE_pad32	4
#define EV_KIND_SIZE(kind, name) + EV_KIND_SIZE_##kind

/* The common header, at offset 0 of every record. */
#define EV_HEADER_FIELDS(F)						\
	F(u64, ts)	/* CLOCK_BOOTTIME, ns */			\
	F(u32, tid)	/* task the probe ran in */			\
	F(u32, tgid)	/* its thread group (process) */		\
	F(u16, type)	/* enum ev_type */				\
	F(u16, flags)	/* EVF_* */

#define EV_HEADER_SIZE 20

/*
 * T(NAME, number, lower-case name, size in bytes)
 *
 * The number is the on-disk type; the lower-case name is used in the layout
 * table, in events.csv and in the converter's messages.
 */
#define EV_TYPES(T)							\
	T(LOST,			 1, lost,		32)		\
	T(TASK,			 2, task,		56)		\
	T(TASK_EXIT,		 3, task_exit,		24)		\
	T(ENTER_BEGIN,		10, enter_begin,	64)		\
	T(ENTER_END,		11, enter_end,		56)		\
	T(SETUP_BEGIN,		12, setup_begin,	40)		\
	T(SETUP_END,		13, setup_end,		32)		\
	T(REGISTER_BEGIN,	14, register_begin,	40)		\
	T(REGISTER_END,		15, register_end,	32)		\
	T(CREATE,		20, create,		48)		\
	T(REGISTER,		21, register,		48)		\
	T(FILE_GET,		22, file_get,		48)		\
	T(SUBMIT,		23, submit,		80)		\
	T(QUEUE_ASYNC_WORK,	24, queue_async_work,	64)		\
	T(DEFER,		25, defer,		48)		\
	T(LINK,			26, link,		48)		\
	T(FAIL_LINK,		27, fail_link,		56)		\
	T(CQRING_WAIT,		28, cqring_wait,	32)		\
	T(REQ_FAILED,		29, req_failed,		80)		\
	T(CQE_OVERFLOW,		30, cqe_overflow,	48)		\
	T(POLL_ARM,		31, poll_arm,		56)		\
	T(TASK_ADD,		32, task_add,		56)		\
	T(TASK_WORK_RUN,	33, task_work_run,	40)		\
	T(LOCAL_WORK_RUN,	34, local_work_run,	40)		\
	T(SHORT_WRITE,		35, short_write,	56)		\
	T(COMPLETE,		36, complete,		64)		\
	T(COMPLETE32,		37, complete32,		80)		\
	T(WORK_BEGIN,		40, work_begin,		48)		\
	T(WORK_END,		41, work_end,		32)		\
	T(SCHED_SWITCH,		42, sched_switch,	32)		\
	T(FILE,			43, file,		328)		\
	T(SUBMIT_COMPLETE,	44, submit_complete,	104)

/* One past the largest type number; sizes per-type counter arrays. */
#define EV_TYPE_LIMIT 64

/*
 * Events dropped on this CPU before this record was written: ts (header) is
 * the first drop, last_ts the last one, count how many.  Written by the BPF
 * side just before the next record it manages to reserve, by the recorder
 * for records it had to drop itself (EVF_LOSS_USER) and at stop for drops
 * that no later record reported (EVF_LOSS_AT_STOP).
 */
#define EV_FIELDS_lost(F)	F(u32, count) F(u64, last_ts)

/*
 * Identity of a task (subject_*), written when recording starts (existing
 * tasks), at fork, at rename (io-wq workers and SQPOLL threads name
 * themselves iou-wrk-<pid> / iou-sqp-<pid> this way) and at exec.  The
 * header's tid/tgid are the task the probe ran in, which for a fork is the
 * parent.
 */
#define EV_FIELDS_task(F)						\
	F(u32, subject_tid) F(u32, subject_tgid) F(u32, parent_tgid)	\
	F(comm, comm) F(u32, task_flags) F(u16, reason) F(pad16, pad0)

/* The task in the header exits. */
#define EV_FIELDS_task_exit(F)	F(s32, exit_code)

/*
 * io_uring_enter(2).  ring is resolved from fd (or the registered-ring index)
 * when EVF_RING_VALID; the exit's is the entry's when the task stayed on its
 * CPU, else resolved again.  The SQ/CQ head and tail are a snapshot of the
 * shared rings when EVF_RING_STATE_VALID.  sq_order/cq_order are log2 of the
 * ring sizes, as the shared ring header states them (sq/cq_ring_entries).
 */
#define EV_FIELDS_enter_begin(F)					\
	F(s32, fd) F(id, ring) F(u32, to_submit) F(u32, min_complete)	\
	F(u32, enter_flags) F(u32, sq_head) F(u32, sq_tail)		\
	F(u32, cq_head) F(u32, cq_tail) F(u8, sq_order) F(u8, cq_order)	\
	F(pad16, pad0)
#define EV_FIELDS_enter_end(F)						\
	F(s32, fd) F(s64, ret) F(id, ring) F(u32, sq_head)		\
	F(u32, sq_tail) F(u32, cq_head) F(u32, cq_tail)

/* io_uring_setup(2); the params are read from user memory (EVF_PARAMS_VALID). */
#define EV_FIELDS_setup_begin(F)					\
	F(u32, entries) F(u32, setup_flags) F(u32, sq_thread_cpu)	\
	F(u32, sq_thread_idle) F(u32, cq_entries)
#define EV_FIELDS_setup_end(F)		F(pad32, pad0) F(s64, ret)

/* io_uring_register(2). */
#define EV_FIELDS_register_begin(F)					\
	F(s32, fd) F(id, ring) F(u32, opcode) F(u32, nr_args)
#define EV_FIELDS_register_end(F)	F(s32, fd) F(s64, ret)

/* Tracepoint io_uring:io_uring_create. */
#define EV_FIELDS_create(F)						\
	F(s32, fd) F(id, ring) F(u32, sq_entries) F(u32, cq_entries)	\
	F(u32, setup_flags) F(pad32, pad0)

/* Tracepoint io_uring:io_uring_register. */
#define EV_FIELDS_register(F)						\
	F(u32, opcode) F(id, ring) F(u32, nr_files) F(u32, nr_bufs)	\
	F(s64, ret)

/* Tracepoint io_uring:io_uring_file_get. */
#define EV_FIELDS_file_get(F)						\
	F(s32, fd) F(id, ring) F(id, req) F(u64, user_data)

/*
 * Tracepoint io_uring:io_uring_submit_req (io_uring_submit_sqe before 6.4).
 * req_flags are the kernel's REQ_F_* flags (32 bits wide before 6.10, 64
 * after).  The SQE fields (sqe_flags .. personality) are read from the SQ
 * ring and are valid only with EVF_SQE_VALID; without it sqe_flags holds the
 * low byte of req_flags, which mirrors the IOSQE_* bits.
 */
#define EV_FIELDS_submit(F)						\
	F(u8, opcode) F(u8, sqe_flags) F(u16, buf_index) F(id, ring)	\
	F(id, req) F(u64, user_data) F(u64, req_flags) F(u64, off)	\
	F(s32, fd) F(u32, len) F(u32, op_flags) F(u16, ioprio)		\
	F(u16, personality)

/*
 * A submit record with room for the request's completion (format 4.0),
 * which the BPF side writes instead of submit: when the completion comes
 * on the same CPU, in the same task, soon after, while the submit record
 * is still staged there (bpf/stage.h) -- a request completed inline, the
 * common case of buffered I/O -- the completion program fills it in here
 * instead of writing a complete record, and sets EVF_COMPLETED.  Without
 * it the recorder logs the submit record alone (recorder/ringbufs.c);
 * readers accept both.  Readers never
 * yield this type: they yield the submit record and, with EVF_COMPLETED,
 * the complete record it stands for (common/event_split.h), whose ts is
 * ts + complete_dts, whose tid, tgid, ring, req and user_data are the
 * submit's, and whose header flags are complete_flags.
 */
#define EV_FIELDS_submit_complete(F)					\
	EV_FIELDS_submit(F) F(u32, complete_dts) F(s32, res)		\
	F(u32, cflags) F(u16, complete_flags) F(pad16, pad0) F(id, file)

/*
 * Tracepoint io_uring:io_uring_queue_async_work (EVF_HASHED: hashed work).
 * work_flags (format 3.1, EVF_WORK_FLAGS_VALID) are the io-wq work's flags
 * as io_prep_async_work() left them: IO_WQ_WORK_UNBOUND (bit 2) picks the
 * unbounded worker pool, and the hash key (bits 24..31) the bucket whose
 * work io-wq runs one at a time.
 */
#define EV_FIELDS_queue_async_work(F)					\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data) F(u64, req_flags) F(u32, work_flags) F(pad32, pad2)

/* Tracepoint io_uring:io_uring_defer. */
#define EV_FIELDS_defer(F)						\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data)

/* Tracepoint io_uring:io_uring_link: req is linked after target_req. */
#define EV_FIELDS_link(F)						\
	F(pad32, pad0) F(id, ring) F(id, req) F(id, target_req)

/* Tracepoint io_uring:io_uring_fail_link: link fails because req failed. */
#define EV_FIELDS_fail_link(F)						\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data) F(id, link)

/* Tracepoint io_uring:io_uring_cqring_wait. */
#define EV_FIELDS_cqring_wait(F)	F(s32, min_events) F(id, ring)

/*
 * Tracepoint io_uring:io_uring_req_failed: the SQE could not be turned into
 * a request.  The SQE fields are valid with EVF_SQE_VALID.
 */
#define EV_FIELDS_req_failed(F)						\
	F(u8, opcode) F(u8, sqe_flags) F(u16, buf_index) F(id, ring)	\
	F(id, req) F(u64, user_data) F(u64, off) F(s32, fd) F(u32, len)	\
	F(u32, op_flags) F(u16, ioprio) F(u16, personality)		\
	F(s32, error) F(u32, file_index)

/*
 * Tracepoint io_uring:io_uring_cqe_overflow: a CQE did not fit in the CQ
 * ring.  EVF_CQE_DROPPED: the kernel could not even queue it (ocqe == NULL),
 * so the completion is lost to the application.
 */
#define EV_FIELDS_cqe_overflow(F)					\
	F(s32, res) F(id, ring) F(u64, user_data) F(u32, cflags)	\
	F(pad32, pad0)

/* Tracepoint io_uring:io_uring_poll_arm. */
#define EV_FIELDS_poll_arm(F)						\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data) F(s32, mask) F(s32, events)

/* Tracepoint io_uring:io_uring_task_add. */
#define EV_FIELDS_task_add(F)						\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data) F(s32, mask) F(pad32, pad2)

/* Tracepoint io_uring:io_uring_task_work_run (loops: EVF_LOOPS_VALID, <= 6.8). */
#define EV_FIELDS_task_work_run(F)					\
	F(u32, count) F(id, tctx) F(u32, loops) F(pad32, pad0)

/* Tracepoint io_uring:io_uring_local_work_run. */
#define EV_FIELDS_local_work_run(F)					\
	F(s32, count) F(id, ring) F(u32, loops) F(pad32, pad0)

/* Tracepoint io_uring:io_uring_short_write. */
#define EV_FIELDS_short_write(F)					\
	F(pad32, pad0) F(id, ring) F(u64, fpos) F(u64, wanted) F(u64, got)

/*
 * Tracepoint io_uring:io_uring_complete.  req is 0 for CQEs that belong to
 * no request (e.g. IORING_OP_MSG_RING posting into a target ring).
 * COMPLETE32 carries the two extra words of a 32-byte CQE when non-zero.
 * file (format 3.1, EVF_FILE_VALID): the request's struct file at its
 * completion (req->file, plain or fixed), 0 when it has none; an EV_FILE
 * record describes it, written before the first completion naming it.
 */
#define EV_FIELDS_complete_v1(F)					\
	F(s32, res) F(id, ring) F(id, req) F(u64, user_data)		\
	F(u32, cflags) F(pad32, pad0)
#define EV_FIELDS_complete(F)						\
	EV_FIELDS_complete_v1(F) F(id, file)
#define EV_FIELDS_complete32(F)						\
	EV_FIELDS_complete_v1(F) F(u64, extra1) F(u64, extra2) F(id, file)

/* An io-wq worker (the header's task) starts / finishes running req. */
#define EV_FIELDS_work_begin(F)						\
	F(u8, opcode) F(pad8, pad0) F(pad16, pad1) F(id, ring) F(id, req)	\
	F(u64, user_data)
#define EV_FIELDS_work_end(F)		F(pad32, pad0) F(id, req)

/*
 * A context switch on a CPU where the outgoing (header) or incoming task is
 * an io_uring kernel thread (io-wq worker or SQPOLL thread).  Used to place
 * io-wq work in time when the kernel cannot be probed with fentry/kprobe.
 */
#define EV_FIELDS_sched_switch(F)					\
	F(u32, next_tid) F(u32, next_tgid) F(u32, prev_state)

/*
 * The identity of a file (format 3.1), written the first time a completion
 * names it (and again if its address comes to hold another file): dev is
 * the kernel's dev_t of its file system (major << 20 | minor, as
 * sb->s_dev), ino, nlink and mode (S_IF* and permissions) its inode's,
 * f_flags its open flags (O_*), fs the file system type's name.  path
 * holds the dentry names from the file up, leaf first, each NUL-terminated
 * (ncomp of them), crossing mounts up to the task's root (its chroot,
 * else its mount namespace's root), as /proc/PID/fd shows paths: "/tmp/a"
 * is "a\0tmp\0".  path_flags (enum
 * ev_path_flag, in the record: the header's flag bits are few): EV_PATH_TRUNCATED, the walk stopped before that root
 * (path full, or too deep); EV_PATH_DETACHED, it reached a root that is no
 * mount's (pseudo files such as pipes, sockets and anonymous inodes, whose
 * one name is then their dentry's).
 */
#define EV_FIELDS_file(F)						\
	F(u32, dev) F(id, file) F(u64, ino) F(u32, f_flags)		\
	F(u32, nlink) F(u16, mode) F(u8, ncomp) F(u8, path_flags)	\
	F(fsname, fs) F(path, path) F(pad32, pad1)

enum ev_type {
#define EV_ENUM(NAME, num, name, size) EV_##NAME = num,
	EV_TYPES(EV_ENUM)
#undef EV_ENUM
};

#define EV_STRUCT(NAME, num, name, size)				\
	struct ev_##name {						\
		EV_HEADER_FIELDS(EV_DECL)				\
		EV_FIELDS_##name(EV_DECL)				\
	};
EV_TYPES(EV_STRUCT)
#undef EV_STRUCT

struct ev_header {
	EV_HEADER_FIELDS(EV_DECL)
};

#define EV_SIZE_CHECK(NAME, num, name, size)				\
	_Static_assert(sizeof(struct ev_##name) == (size),		\
		       "struct ev_" #name " changed size");		\
	_Static_assert((size) % 8 == 0, "ev_" #name " not 8-aligned");	\
	_Static_assert((num) > 0 && (num) < EV_TYPE_LIMIT, "bad type");	\
	/* No hidden padding: offsets are the running sum of field sizes. */ \
	_Static_assert((0 EV_HEADER_FIELDS(EV_KIND_SIZE)			\
			EV_FIELDS_##name(EV_KIND_SIZE)) == (size),		\
		       "ev_" #name ": declared fields do not fill the record");
EV_TYPES(EV_SIZE_CHECK)
#undef EV_SIZE_CHECK
_Static_assert(__builtin_offsetof(struct ev_lost, count) == EV_HEADER_SIZE,
	       "header size");

/*
 * Per-record flags (header field "flags").  Each bit has one meaning across
 * all types; which types use it is noted.
 */
enum ev_flag {
	EVF_SQ_THREAD		= 1 << 0,  /* submit: by the SQPOLL thread */
	EVF_SQE_VALID		= 1 << 1,  /* submit, req_failed: SQE fields read */
	EVF_FORCE_NONBLOCK	= 1 << 2,  /* submit (6.1-6.3 submit_sqe): force_nonblock */
	EVF_RING_VALID		= 1 << 3,  /* enter_*, register_begin: ring resolved */
	EVF_RING_STATE_VALID	= 1 << 4,  /* enter_*: SQ/CQ head and tail read */
	EVF_HASHED		= 1 << 5,  /* queue_async_work: hashed (serialised) work */
	EVF_LOOPS_VALID		= 1 << 6,  /* task_work_run: loops present (<= 6.8) */
	EVF_CQE_DROPPED		= 1 << 7,  /* cqe_overflow: CQE could not be queued */
	EVF_LOSS_USER		= 1 << 8,  /* lost: dropped by the recorder, not the kernel */
	EVF_LOSS_AT_STOP	= 1 << 9,  /* lost: kernel drops reported only at stop */
	EVF_PARAMS_VALID	= 1 << 10, /* setup_begin: params read from user memory */
	EVF_REGISTERED_RING	= 1 << 11, /* enter_*, register_*: fd is a registered-ring index */
	EVF_WORK_REQ_UNKNOWN	= 1 << 12, /* work_end: probe could not tell the request */
	EVF_FILE_VALID		= 1 << 13, /* complete*: file read (format 3.1) */
	EVF_WORK_FLAGS_VALID	= 1 << 14, /* queue_async_work: work_flags read (3.1) */
	EVF_COMPLETED		= 1 << 15, /* submit_complete: completion filled in (4.0) */
};

/* EV_FILE path_flags: how the path walk ended. */
enum ev_path_flag {
	EV_PATH_TRUNCATED	= 1 << 0,  /* stopped short of the root */
	EV_PATH_DETACHED	= 1 << 1,  /* ended at a root no mount holds */
};

/* Why an EV_TASK record was written. */
enum ev_task_reason {
	EV_TASK_EXISTING	= 1,	/* alive when recording started */
	EV_TASK_FORK		= 2,
	EV_TASK_RENAME		= 3,
	EV_TASK_EXEC		= 4,
};

/* io-wq work flags (io_uring/io-wq.h, 6.1 .. 6.18). */
#define EV_IO_WQ_WORK_UNBOUND	0x4u
#define EV_IO_WQ_HASH_SHIFT	24

/* task_flags bits the converter relies on (include/linux/sched.h). */
#define EV_PF_EXITING		0x00000004
#define EV_PF_IO_WORKER		0x00000010	/* io-wq worker or SQPOLL thread */
#define EV_PF_KTHREAD		0x00200000

/*
 * Kinds of lost events in LOSS frames (cumulative counters per CPU, per
 * kind, per event type); see uring-log(5), "LOSS FRAMES".
 */
enum ev_loss_kind {
	EV_LOSS_RING_FULL	= 1,	/* BPF ring buffer of the CPU was full */
	EV_LOSS_NO_RING		= 2,	/* no ring buffer for the CPU (offline at start) */
	EV_LOSS_USER_QUEUE	= 3,	/* recorder's writer queue was full */
};

#endif /* RINGSIDE_URING_EVENT_H */
