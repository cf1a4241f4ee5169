/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The few kernel types the BPF programs read, declared by hand with
 * preserve_access_index instead of a generated vmlinux.h (see the README,
 * "Kernel types").  Only the members used are declared; libbpf relocates
 * every access against the running kernel's BTF at load time, so member
 * order and the other members do not matter.
 *
 * Where kernels differ, a ___flavor struct names the other layout and the
 * code picks one with bpf_core_field_size()/bpf_core_field_exists(); each
 * flavor cites the kernel version that forces it; the accessors that pick
 * are in kernel_reads.bpf.h.  The tracepoints' prototypes per kernel are
 * in recorder/probes.c.
 */
#ifndef RINGSIDE_KERNEL_TYPES_BPF_H
#define RINGSIDE_KERNEL_TYPES_BPF_H

/*
 * bpf_tracing.h uses the kernel's pt_regs member names (di, si, ...) only
 * when it believes it is built against vmlinux.h; ours below are those names.
 */
#define __VMLINUX_H__ 1

#include <linux/types.h>
#include <linux/bpf.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

#define __ur_core __attribute__((preserve_access_index))

typedef struct {
	int counter;
} atomic_t;

struct signal_struct {
	atomic_t live;			/* threads not yet exited */
} __ur_core;

/*
 * A file's identity and path (files.bpf.h).  struct mount is fs/mount.h's,
 * private to the VFS but in BTF: its mnt member is the vfsmount a path
 * points to.  i_nlink and d_name sit in anonymous unions on some kernels
 * (d_name since 6.15); CO-RE finds members through those.
 */
struct file_system_type {
	const char *name;
} __ur_core;

struct super_block {
	u32 s_dev;			/* dev_t */
	struct file_system_type *s_type;
} __ur_core;

struct inode {
	u16 i_mode;			/* umode_t */
	unsigned int i_nlink;
	unsigned long i_ino;
	u32 i_generation;
	struct super_block *i_sb;
} __ur_core;

struct qstr {
	u32 len;
	const unsigned char *name;
} __ur_core;

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
} __ur_core;

struct vfsmount {
	struct dentry *mnt_root;
} __ur_core;

struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
} __ur_core;

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
} __ur_core;

struct file {
	const void *f_op;
	void *private_data;
	struct path f_path;
	struct inode *f_inode;
	unsigned int f_flags;
} __ur_core;

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} __ur_core;

struct files_struct {
	struct fdtable *fdt;
} __ur_core;

/* io_uring/tctx.c: per-task io_uring state (CONFIG_IO_URING). */
struct io_uring_task {
	struct file *registered_rings[16];	/* IO_RINGFD_REG_MAX, 5.18+ */
} __ur_core;

/* kernfs_node.id: the cgroup id (bpf_get_current_cgroup_id(), 5.5+). */
struct kernfs_node {
	u64 id;
} __ur_core;

struct cgroup;

/* include/linux/cgroup-defs.h: a cgroup's own state is its member "self". */
struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys_state *parent;
} __ur_core;

struct cgroup {
	struct cgroup_subsys_state self;
	struct kernfs_node *kn;
} __ur_core;

struct css_set {
	struct cgroup *dfl_cgrp;	/* the task's cgroup v2 */
} __ur_core;

/* include/linux/fs_struct.h: a task's root, which chroot(2) moves. */
struct fs_struct {
	struct path root;
} __ur_core;

struct task_struct {
	unsigned int flags;		/* PF_* */
	pid_t pid;
	pid_t tgid;
	int exit_code;
	char comm[16];
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	struct files_struct *files;
	struct fs_struct *fs;
	struct signal_struct *signal;
	struct io_uring_task *io_uring;
	struct css_set *cgroups;
	unsigned long nvcsw;		/* context switches, voluntary */
	unsigned long nivcsw;		/* and involuntary */
	u64 start_time;			/* CLOCK_MONOTONIC ns; kept by exec's de_thread() */
} __ur_core;

/*
 * include/linux/io_uring_types.h.  On 6.1 head and tail are each
 * ____cacheline_aligned_in_smp; later they are packed: read them only
 * through relocated field accesses, never by copying the struct.
 */
struct io_uring {
	u32 head;
	u32 tail;
} __ur_core;

struct io_rings {
	struct io_uring sq;
	struct io_uring cq;
	u32 sq_ring_mask;
	u32 cq_ring_mask;
	u32 sq_ring_entries;		/* = ctx->sq_entries, set at setup and resize */
	u32 cq_ring_entries;
} __ur_core;

/*
 * UAPI struct io_uring_sqe, the fields the submit record takes, for loads
 * through bpf_rdonly_cast() (uring_record.bpf.c, UR_DIRECT_LOADS): the
 * verifier checks each load against a member of the kernel's type, so they
 * are named as there (off, rw_flags and buf_index sit in anonymous unions).
 */
struct io_uring_sqe {
	u8 opcode;
	u8 flags;
	u16 ioprio;
	s32 fd;
	u64 off;
	u32 len;
	u32 rw_flags;
	u64 user_data;
	u16 buf_index;
	u16 personality;
} __ur_core;

/* Only its offset inside io_ring_ctx is used (tp_ring_exit). */
struct work_struct {
	unsigned long data;
} __ur_core;

struct io_kiocb;

/* The link io_submit_sqe() is assembling (--sample: members follow the head). */
struct io_submit_link {
	struct io_kiocb *head;
} __ur_core;

struct io_submit_state {
	struct io_submit_link link;
} __ur_core;

struct io_ring_ctx {
	unsigned int flags;		/* IORING_SETUP_* */
	struct io_submit_state submit_state;
	struct io_rings *rings;
	u32 *sq_array;			/* NULL with IORING_SETUP_NO_SQARRAY (6.6) */
	struct io_uring_sqe *sq_sqes;
	unsigned int cached_sq_head;
	unsigned int sq_entries;
	unsigned int cq_entries;
	struct work_struct exit_work;	/* only its offset: container_of */
} __ur_core;

struct io_cqe {
	u64 user_data;
	s32 res;
	u32 flags;
} __ur_core;

/* Only its offset inside io_kiocb is used (container_of in io-wq probes). */
struct io_wq_work {
	int cancel_seq;
} __ur_core;

/*
 * io_wq_work.flags: an unsigned int until it became an atomic_t (6.1.0-56
 * BTF: unsigned int; 6.12 and 6.18: atomic_t); CO-RE finds the flavour
 * whose type matches.
 */
struct io_wq_work___plain {
	unsigned int flags;
} __ur_core;

struct io_wq_work___atomic {
	atomic_t flags;
} __ur_core;

struct io_kiocb {
	u8 opcode;
	u16 buf_index;
	u64 flags;			/* io_req_flags_t: u64 since 6.10 (see below) */
	struct file *file;		/* plain or fixed; set at issue (io_assign_file) */
	struct io_cqe cqe;
	struct io_ring_ctx *ctx;
	struct io_wq_work work;
} __ur_core;

/*
 * io_kiocb.flags was "unsigned int" until the io_req_flags_t type made it
 * 64 bits wide (6.10; BTF: u32 on 6.1.0-56, u64 on 6.12.117 and 6.18).
 */
struct io_kiocb___flags32 {
	u32 flags;
} __ur_core;

/* UAPI struct io_uring_cqe; 6.18's io_uring_complete passes a pointer. */
struct io_uring_cqe {
	u64 user_data;
	s32 res;
	u32 flags;
} __ur_core;

/*
 * The SQE as the application wrote it (include/uapi/linux/io_uring.h).  It
 * is UAPI, so its layout is fixed: read whole with bpf_probe_read_kernel,
 * no relocation needed (or field by field through struct io_uring_sqe).
 */
struct ur_sqe {
	u8 opcode;
	u8 flags;
	u16 ioprio;
	s32 fd;
	u64 off;
	u64 addr;
	u32 len;
	u32 op_flags;			/* rw_flags, fsync_flags, poll32_events, ... */
	u64 user_data;
	u16 buf_index;
	u16 personality;
	u32 file_index;			/* also splice_fd_in */
	u64 addr3;
	u64 pad2;
};
_Static_assert(sizeof(struct ur_sqe) == 64, "io_uring_sqe is 64 bytes");

/* UAPI struct io_uring_params (prefix). */
struct ur_uring_params {
	u32 sq_entries;
	u32 cq_entries;
	u32 flags;
	u32 sq_thread_cpu;
	u32 sq_thread_idle;
};

/*
 * Every pt_regs a program gets is a BTF pointer (a tp_btf or fentry
 * argument, bpf_task_pt_regs()), so its fields are plain loads: the
 * syscall number here, the arguments through libbpf's PT_REGS_PARM*_SYSCALL,
 * not the _CORE_ forms, which are one bpf_probe_read_kernel() call each.
 */
#if defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long sp;
	unsigned long bp;
} __ur_core;
#define UR_REGS_SYSCALL_NR(regs) ((regs)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
struct user_pt_regs {
	u64 regs[31];
	u64 sp;
	u64 pc;
	u64 pstate;
};
struct pt_regs {
	u64 regs[31];
	u64 sp;
	u64 pc;
	u64 pstate;
	u64 orig_x0;
	s32 syscallno;
} __ur_core;
#define UR_REGS_SYSCALL_NR(regs) ((regs)->syscallno)
#else
#error "ringside: declare struct pt_regs for this architecture in bpf/kernel_types.bpf.h"
#endif

#endif /* RINGSIDE_KERNEL_TYPES_BPF_H */
