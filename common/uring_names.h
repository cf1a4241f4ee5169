/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Names for the numbers io_uring puts in events: opcodes, flag bits, errno
 * values.  The tables are fixed (not libc's strerrorname_np) so that a log
 * converts to the same text on every machine, forever.  A log also carries
 * the opcode table of the kernel it was recorded on (from BTF); the
 * converter prefers that one and falls back to these.  They are here, in
 * common/, because the recorder and the tests name these numbers too; the
 * converter's other names are in libcore/names.h and libcore/model_names.h.
 */
#ifndef RINGSIDE_URING_NAMES_H
#define RINGSIDE_URING_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flag_name {
	uint64_t bit;
	const char *name;
};

/* Tables end with { 0, NULL }. */
extern const struct flag_name iosqe_flag_names[];	/* IOSQE_* (SQE flags) */
extern const struct flag_name setup_flag_names[];	/* IORING_SETUP_* */
extern const struct flag_name enter_flag_names[];	/* IORING_ENTER_* */
extern const struct flag_name cqe_flag_names[];	/* IORING_CQE_F_* (low 16 bits) */
extern const struct flag_name poll_mask_names[];	/* POLLIN, ... */

/*
 * Names of set bits joined by '|', unknown bits as one hex value, "" (empty
 * string) when flags is 0.  Always NUL-terminates and never writes a partial
 * name: output that does not fit is cut at the last whole name.  Returns buf.
 */
char *format_flags(char *buf, size_t len, uint64_t flags, const struct flag_name *table);

/*
 * Append name to the '|'-joined list of *off bytes in buf (len bytes, NUL
 * terminated), moving *off.  When it does not fit whole, buf is left at the
 * last whole name and false returned.  For format_flags() and its kin,
 * instead of a snprintf() per flag.
 */
bool flag_name_append(char *buf, size_t len, size_t *off, const char *name);

/* IORING_OP_* without the prefix ("READ"), NULL if unknown. */
const char *uring_opcode_name(unsigned op);
unsigned uring_opcode_count(void);
/* IORING_REGISTER_* / IORING_UNREGISTER_* without "IORING_", NULL if unknown. */
const char *uring_register_opcode_name(unsigned op);
/* Linux errno name ("EBADF") for a positive errno, NULL if unknown. */
const char *errno_name(int err);

#endif
