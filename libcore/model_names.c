// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The model's words as the outputs print them (model_names.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model_names.h"

const char *path_name(enum req_path p)
{
	static const char *const names[PATH_COUNT] = {
		[PATH_UNKNOWN] = "unknown", [PATH_INLINE] = "inline", [PATH_POLL] = "poll",
		[PATH_IOWQ] = "io-wq", [PATH_TASK_WORK] = "task-work",
		[PATH_IOPOLL] = "iopoll", [PATH_FAILED] = "failed",
	};

	return (unsigned)p < PATH_COUNT ? names[p] : "?";
}

const char *path_reason_name(enum req_path_reason r)
{
	static const char *const names[PR_COUNT] = {
		[PR_NONE] = "", [PR_SQE_ASYNC] = "sqe_async", [PR_POLL_ARMED] = "poll_armed",
		[PR_IOWQ_AFTER_EAGAIN] = "iowq_after_eagain",
		[PR_IOWQ_NO_NOWAIT] = "iowq_no_nowait", [PR_DRAIN] = "drain", [PR_LINK] = "link",
		[PR_TW_AFTER_POLL] = "task_work_after_poll",
		[PR_TW_AFTER_COMPLETION] = "task_work_after_completion",
		[PR_UNKNOWN] = "unknown",
	};

	return (unsigned)r < PR_COUNT ? names[r] : "?";
}

const char *status_name(enum req_status s)
{
	static const char *const names[REQ_STATUS_COUNT] = {
		[REQ_COMPLETE] = "complete", [REQ_IN_FLIGHT_AT_END] = "in_flight_at_end",
		[REQ_IN_FLIGHT_AT_START] = "in_flight_at_start", [REQ_INCOMPLETE] = "incomplete",
	};

	return (unsigned)s < REQ_STATUS_COUNT ? names[s] : "?";
}

const char *incomplete_reason_name(enum req_incomplete_reason r)
{
	switch (r) {
	case INCOMPLETE_NONE: return "";
	case INCOMPLETE_LOSS: return "loss";
	case INCOMPLETE_POINTER_REUSED: return "pointer_reused";
	case INCOMPLETE_RING_RECREATED: return "ring_recreated";
	}
	return "?";
}

const char *task_kind_name(enum task_kind k)
{
	switch (k) {
	case TASK_THREAD: return "thread";
	case TASK_IOWQ_WORKER: return "io-wq-worker";
	case TASK_SQPOLL: return "sqpoll";
	case TASK_KERNEL: return "kernel";
	}
	return "?";
}

const char *syscall_kind_name(enum syscall_kind k)
{
	switch (k) {
	case SYS_ENTER: return "io_uring_enter";
	case SYS_SETUP: return "io_uring_setup";
	case SYS_REGISTER: return "io_uring_register";
	case SYS_KIND_COUNT: break;
	}
	return "?";
}

const char *loss_source_name(enum loss_source s)
{
	switch (s) {
	case LOSS_KERNEL: return "kernel";
	case LOSS_RECORDER: return "recorder";
	case LOSS_AT_STOP: return "at_stop";
	case LOSS_DAMAGED_FRAME: return "damaged_frame";
	case LOSS_FRAME_GAP: return "frame_gap";
	case LOSS_LOG_CUT: return "log_cut";
	case LOSS_SOURCE_COUNT: break;
	}
	return "?";
}

const char *marker_kind_name(enum marker_kind k)
{
	switch (k) {
	case MARK_CQE_OVERFLOW: return "cqe_overflow";
	case MARK_CQE_DROPPED: return "cqe_dropped";
	case MARK_SHORT_WRITE: return "short_write";
	case MARK_REQ_FAILED: return "req_failed";
	case MARK_LINK_FAILED: return "link_failed";
	case MARK_UNPAIRED_SYSCALL: return "unpaired_syscall";
	case MARK_UNMATCHED_EVENT: return "unmatched_event";
	case MARK_KIND_COUNT: break;
	}
	return "?";
}

const char *counter_kind_name(enum counter_kind k)
{
	switch (k) {
	case COUNTER_INFLIGHT: return "inflight";
	case COUNTER_SQ_PENDING: return "sq_pending";
	case COUNTER_CQ_PENDING: return "cq_pending";
	case COUNTER_IOWQ: return "io_wq";
	case COUNTER_IOWQ_BOUND_WORKERS: return "io_wq_bound_workers";
	case COUNTER_IOWQ_UNBOUND_WORKERS: return "io_wq_unbound_workers";
	case COUNTER_KIND_COUNT: break;
	}
	return "?";
}

const char *loss_kind_name(unsigned kind)
{
	switch (kind) {
	case EV_LOSS_RING_FULL: return "ring_full";
	case EV_LOSS_NO_RING: return "no_ring";
	case EV_LOSS_USER_QUEUE: return "recorder_queue_full";
	}
	return "unknown";
}

char *format_modifiers(char *buf, size_t len, uint32_t modifiers)
{
	static const char *const names[REQM_COUNT_BITS] = {
		"drained", "linked", "link_cancelled", "link_failed", "multishot",
		"cq_overflow", "cqe_dropped", "sqpoll", "hashed", "worker_approx",
		"cqe_skipped", "poll_and_io-wq",
	};
	size_t off = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned i = 0; i < REQM_COUNT_BITS; i++) {
		int n;

		if (!(modifiers & (1u << i)))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? "|" : "", names[i]);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)n;
	}
	return buf;
}

/* IORING_CQE_F_NOTIF (6.0): the CQE of a zero-copy send's notification. */
#define CQE_F_NOTIF (1u << 3)

const char cqe_poster_teardown[] = "kworker: ring teardown after the owner exited";

/*
 * io_uring posts a CQE from the submitter, its io-wq workers or SQPOLL
 * thread, all of the owner's process, or else from a kworker:
 * io_ring_exit_work() once the ring is closed (its teardown, after the
 * process exited), the network stack's zero-copy notification,
 * io_fallback_req_func() once the task is gone; or from another process
 * sharing the ring.
 */
const char *cqe_outside_poster(const struct model_task *poster, const struct model_task *owner,
			       uint32_t owner_pid, uint32_t cflags, uint64_t ts)
{
	if (!owner_pid || !poster || !poster->pid || poster->pid == owner_pid)
		return NULL;
	if (cflags & CQE_F_NOTIF)
		return "kworker: zero-copy notification";
	if (owner && owner->exit_ts && owner->exit_ts <= ts)
		return cqe_poster_teardown;
	if (poster->kind == TASK_KERNEL)
		return "kworker";
	return "kworker or another process";
}

const char *file_type_name(enum file_type t)
{
	static const char *const names[FILE_TYPE_COUNT] = {
		[FILE_TYPE_UNKNOWN] = "", [FILE_REGULAR] = "regular", [FILE_BLOCK] = "block",
		[FILE_SOCKET] = "socket", [FILE_PIPE] = "pipe", [FILE_EVENTFD] = "eventfd",
		[FILE_CHAR] = "char", [FILE_IO_URING] = "io_uring", [FILE_OTHER] = "other",
	};

	return (unsigned)t < FILE_TYPE_COUNT ? names[t] : "";
}

char *format_file_flags(char *buf, size_t len, uint32_t f_flags, const char *machine)
{
	/* include/uapi/asm-generic/fcntl.h; arch/arm64/include/uapi/asm/fcntl.h */
	bool arm = machine && (!strncmp(machine, "aarch64", 7) || !strncmp(machine, "arm", 3));
	const struct { uint32_t bit; const char *name; } flags[] = {
		{ arm ? 0200000u : 040000u, "O_DIRECT" },
		{ 04000u, "O_NONBLOCK" },
		{ 02000u, "O_APPEND" },
	};
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		int n;

		if (!(f_flags & flags[i].bit) || off >= len)
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? "|" : "", flags[i].name);
		if (n > 0)
			off += (size_t)n;
	}
	return buf;
}
