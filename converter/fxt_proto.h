/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fxt_proto: the numbers of the Fuchsia Trace Format that appear on the
 * wire (Fuchsia's docs/reference/tracing/trace-format.md), in one place for
 * the encoder (fxt_writer.c) and its users (output_fxt.c, fxt_plan.c), so
 * that nobody writes a bare 8 for "flow begin".
 */
#ifndef RINGSIDE_FXT_PROTO_H
#define RINGSIDE_FXT_PROTO_H

#define FXT_MAGIC		0x0016547846040010ull
#define FXT_TICKS_PER_SECOND	1000000000ull

/* Record types: bits 0..3 of every record header. */
enum fxt_record_type {
	FXT_REC_METADATA = 0,
	FXT_REC_INITIALIZATION = 1,
	FXT_REC_STRING = 2,
	FXT_REC_THREAD = 3,
	FXT_REC_EVENT = 4,
	FXT_REC_KERNEL_OBJECT = 7,
	FXT_REC_SCHEDULING = 8,
};

/* Event types of an event record (bits 16..19). */
enum fxt_event_type {
	FXT_EVT_INSTANT = 0,
	FXT_EVT_COUNTER = 1,
	FXT_EVT_DURATION_BEGIN = 2,
	FXT_EVT_DURATION_END = 3,
	FXT_EVT_DURATION_COMPLETE = 4,
	FXT_EVT_ASYNC_BEGIN = 5,
	FXT_EVT_ASYNC_INSTANT = 6,
	FXT_EVT_ASYNC_END = 7,
	FXT_EVT_FLOW_BEGIN = 8,
	FXT_EVT_FLOW_STEP = 9,
	FXT_EVT_FLOW_END = 10,
};

/* The three points of a flow (arrow) are event types too; 0 is "none". */
enum fxt_flow_kind {
	FXT_FLOW_NONE = 0,
	FXT_FLOW_BEGIN = FXT_EVT_FLOW_BEGIN,
	FXT_FLOW_STEP = FXT_EVT_FLOW_STEP,
	FXT_FLOW_END = FXT_EVT_FLOW_END,
};

/* Kernel object types (Zircon's ZX_OBJ_TYPE_*). */
enum fxt_kobj_type {
	FXT_KOBJ_PROCESS = 1,
	FXT_KOBJ_THREAD = 2,
};

/* Scheduling record types (bits 60..63). */
enum fxt_sched_type {
	FXT_SCHED_CONTEXT_SWITCH = 1,
	FXT_SCHED_THREAD_WAKEUP = 2,
};

/* Argument types. */
enum fxt_arg_type {
	FXT_ARG_NULL = 0,
	FXT_ARG_INT32 = 1,
	FXT_ARG_UINT32 = 2,
	FXT_ARG_INT64 = 3,
	FXT_ARG_UINT64 = 4,
	FXT_ARG_DOUBLE = 5,
	FXT_ARG_STRING = 6,
	FXT_ARG_POINTER = 7,
	FXT_ARG_KOID = 8,
	FXT_ARG_BOOL = 9,
};

/* Thread states of a context switch. */
enum fxt_thread_state {
	FXT_THREAD_NEW = 0,
	FXT_THREAD_RUNNING = 1,
	FXT_THREAD_SUSPENDED = 2,
	FXT_THREAD_BLOCKED = 3,
	FXT_THREAD_DYING = 4,
	FXT_THREAD_DEAD = 5,
};

#endif
