/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The model's own words (output.h's enums) as every output prints them:
 * CSV cells, JSON values, summary and FXT text.  They are part of the
 * output formats (uring-convert(1) lists them; the golden files hold
 * them), so they are written once, here.
 *
 * Where names live, one place per kind of number:
 *   common/uring_names.h   io_uring's and Linux's own numbers (opcodes,
 *                          IOSQE_/IORING_ flags, errno): fixed tables,
 *                          shared with the recorder and the tests;
 *   libcore/names.h           the numbers whose names the recording kernel
 *                          gave in the log's metadata (opcodes, REQ_F_*),
 *                          with common/'s tables as the fallback;
 *   libcore/model_names.h     the converter's own vocabulary (this file).
 */
#ifndef RINGSIDE_MODEL_NAMES_H
#define RINGSIDE_MODEL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "output.h"

const char *path_name(enum req_path p);		/* "inline", "io-wq", ... */
/* "sqe_async", "poll_armed", ...; "" for PR_NONE. */
const char *path_reason_name(enum req_path_reason r);
const char *status_name(enum req_status s);	/* "complete", "in_flight_at_end", ... */
const char *incomplete_reason_name(enum req_incomplete_reason r);	/* "" for NONE */
const char *task_kind_name(enum task_kind k);	/* "thread", "io-wq-worker", ... */
const char *syscall_kind_name(enum syscall_kind k);	/* "io_uring_enter", ... */
const char *loss_source_name(enum loss_source s);	/* "kernel", "recorder", ... */
const char *marker_kind_name(enum marker_kind k);	/* "cqe_overflow", ... */
const char *counter_kind_name(enum counter_kind k);	/* "inflight", ... */
const char *loss_kind_name(unsigned kind);	/* enum ev_loss_kind: "ring_full", ... */
/*
 * Why a CQE of a ring owned by process owner_pid, posted at ts by poster,
 * came from outside that process ("kworker: ring teardown after the owner
 * exited", "kworker: zero-copy notification", ...), or NULL when it did
 * not or cannot be told (an owner or poster process unknown).  owner is
 * the owner's leader thread, NULL if never seen.
 */
const char *cqe_outside_poster(const struct model_task *poster, const struct model_task *owner,
			       uint32_t owner_pid, uint32_t cflags, uint64_t ts);
extern const char cqe_poster_teardown[];	/* the teardown's, by address */
const char *file_type_name(enum file_type t);	/* "regular", "pipe", ...; "" unknown */
/*
 * The open flags that decide io_uring's path (O_DIRECT, O_NONBLOCK,
 * O_APPEND) joined by '|', "" when none; their values are those of the
 * recording machine (metadata "machine": O_DIRECT differs on arm64).
 */
char *format_file_flags(char *buf, size_t len, uint32_t f_flags, const char *machine);
/* Modifier names joined by '|' ("drained|linked"); "" when none. */
char *format_modifiers(char *buf, size_t len, uint32_t modifiers);

#endif
