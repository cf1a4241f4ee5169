// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

const char *path_name(enum req_path p)
{
	static const char *const names[PATH_COUNT] = {
		[PATH_UNKNOWN] = "unknown", [PATH_INLINE] = "inline", [PATH_POLL] = "poll",
		[PATH_IOWQ] = "io-wq", [PATH_TASK_WORK] = "task-work",
		[PATH_IOPOLL] = "iopoll", [PATH_FAILED] = "failed",
	};

	return (unsigned)p < PATH_COUNT ? names[p] : "?";
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

static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* Exactly 8 digits of v < 10^8, leading zeros kept: four independent
 * 32-bit pairs instead of a chain of 64-bit divisions. */
static char *dec_8(char *end, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(end - 2, dec_pairs + 2 * (lo % 100), 2);
	memcpy(end - 4, dec_pairs + 2 * (lo / 100), 2);
	memcpy(end - 6, dec_pairs + 2 * (hi % 100), 2);
	memcpy(end - 8, dec_pairs + 2 * (hi / 100), 2);
	return end - 8;
}

char *dec_u64(char *end, uint64_t v)
{
	uint32_t w;

	while (v >= 100000000) {
		end = dec_8(end, (uint32_t)(v % 100000000));
		v /= 100000000;
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		end -= 2;
		memcpy(end, dec_pairs + 2 * (w % 100), 2);
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, dec_pairs + 2 * w, 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
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

int output_open_fd(const char *path, bool force, bool *is_stdout, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	*is_stdout = false;
	if (!path || !strcmp(path, "-")) {
		*is_stdout = true;
		return STDOUT_FILENO;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: is a directory (give a file name)", path);
			return -1;
		}
		if (!force) {
			snprintf(err, errlen, "%s: already exists (use --force to overwrite)", path);
			return -1;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (force ? 0 : O_EXCL), 0644);
	if (fd < 0)
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
	return fd;
}

FILE *output_open_file(const char *path, bool force, bool *is_stdout, char *err, size_t errlen)
{
	FILE *f;
	int fd = output_open_fd(path, force, is_stdout, err, errlen);

	if (fd < 0)
		return NULL;
	if (*is_stdout)
		return stdout;
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}
