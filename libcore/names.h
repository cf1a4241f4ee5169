/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for the numbers in a log, as the recording kernel defined them.
 *
 * Opcode names come from the log's metadata ("opcodes": the recording
 * kernel's enum io_uring_op read from its BTF) and fall back to the fixed
 * table in common/uring_names.c; REQ_F_* request-flag names come from the
 * log's "kernel_enums" (their bit numbers move between kernels, so there is
 * no built-in fallback: unknown bits print as hex).  Everything read from
 * the metadata is validated (printable ASCII identifiers, bounded length),
 * because the metadata comes from a file.  Output never depends on locale,
 * libc version or hash order, so a log converts to the same text forever.
 * (Which names live where, and why: model_names.h.)
 */
#ifndef RINGSIDE_NAMES_H
#define RINGSIDE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

#define NAMES_MAX_OPCODES 256
#define NAMES_MAX_LEN 32

struct names {
	char opcode[NAMES_MAX_OPCODES][NAMES_MAX_LEN];	/* "" when not from the log */
	unsigned nopcodes;
	bool opcodes_from_log;
	char req_flag[64][NAMES_MAX_LEN];		/* by bit number; "" unknown */
	bool req_flags_from_log;
	/* metadata options.sqe_off_zeroed_for: the recorder wrote 0 for the SQE
	 * offset of these opcodes because the slot holds a user pointer */
	bool off_zeroed[NAMES_MAX_OPCODES];
};

/* Fill from the log's metadata root (may be NULL). */
void names_init(struct names *n, const struct json_value *meta);

/* "READ"; unknown opcodes as "OP_<n>".  buf holds NAMES_MAX_LEN bytes. */
const char *names_opcode(const struct names *n, unsigned op, char *buf);

/* "EBADF" for res -9 or err 9 (sign ignored); unknown as "E<n>"; "" for 0. */
const char *names_errno(int64_t err, char *buf);

/* Is the SQE offset recorded for op a real value (not zeroed: a pointer)? */
bool names_off_known(const struct names *n, unsigned op);

/* REQ_F_* names joined by '|'; unknown bits as one hex value. */
char *names_req_flags(const struct names *n, uint64_t flags, char *buf, size_t len);

#endif
