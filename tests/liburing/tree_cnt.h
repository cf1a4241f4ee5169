/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What tests/liburing/tree_cnt.bpf.c and tree_cnt.c agree on. */
#ifndef RINGSIDE_TREE_CNT_H
#define RINGSIDE_TREE_CNT_H

/* X(slot, name printed) */
#define TC_SLOT_LIST(X)				\
	X(TC_ENTER, "enters")			\
	X(TC_SUBMIT, "submit_req")		\
	X(TC_REQ_FAILED, "req_failed")		\
	X(TC_COMPLETE, "complete")		\
	X(TC_CQE_OVERFLOW, "cqe_overflow")

#define TC_ENUM(slot, name) slot,
enum { TC_SLOT_LIST(TC_ENUM) TC_SLOTS };
#undef TC_ENUM

/* Rings counted one by one; any further ring goes to TC_OTHER_RING. */
#define TC_MAX_RINGS 1024
#define TC_OTHER_RING TC_MAX_RINGS

/* sel map values: the root (uring-record) is not counted, its descendants are. */
#define TC_ROOT 2
#define TC_COUNTED 1

struct tc_ring {
	__u64 n[TC_SLOTS];
	__u32 creator;		/* tgid that created the ring */
	char comm[16];		/* its name then */
};

#endif
