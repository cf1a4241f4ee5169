/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Facts about the running kernel read from its BTF (/sys/kernel/btf/vmlinux):
 * tracepoint prototypes (which program variant fits), functions that exist,
 * and the enumerations the converter needs to name numbers (opcodes, REQ_F_*
 * bits), which move between kernels.
 */
#ifndef RINGSIDE_RECORDER_BTF_INFO_H
#define RINGSIDE_RECORDER_BTF_INFO_H

#include <stdbool.h>

#include "json.h"

struct btf;

/*
 * Parameters of tracepoint tp's raw prototype, the leading "void *__data"
 * included (btf_trace_<tp> typedef); -1 when the kernel has no such
 * tracepoint.
 */
int btf_tp_nargs(const struct btf *btf, const char *tp);
bool btf_has_func(const struct btf *btf, const char *func);
/* Does some enum define a constant of this name? */
bool btf_has_enum_value(const struct btf *btf, const char *name);

/*
 * "opcodes" metadata: the names of enum io_uring_op without IORING_OP_
 * (IORING_OP_LAST excluded), indexed by value.  False when the kernel's BTF
 * lacks the enum.
 */
bool btf_opcode_names_json(const struct btf *btf, struct json_out *o);

/*
 * "kernel_enums" members: "req_flag_bits" (the anonymous enum of
 * REQ_F_*_BIT in io_uring_types.h) and "io_uring_register_op".  Writes only
 * those found; returns how many.
 */
int btf_kernel_enums_json(const struct btf *btf, struct json_out *o);

#endif
