/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Reading the kernel where a plain CO-RE load does not do: memory behind an
 * untyped pointer or a variable index, and fields whose type changed
 * between kernels.  Each accessor is headed by the kernel version (and
 * commit) that forced it; the layouts are in kernel_types.bpf.h.  Part of
 * uring_record.bpf.c.
 */
#ifndef RINGSIDE_KERNEL_READS_BPF_H
#define RINGSIDE_KERNEL_READS_BPF_H

/*
 * Memory reached through an untyped pointer or a variable index cannot be
 * loaded directly by a tracing program.  This file is built twice
 * (bpf/local.mk): the plain build reads it with bpf_probe_read_kernel(), a
 * helper call (its cost: bench/RESULTS.md); the UR_DIRECT_LOADS build makes a typed pointer of the address with the
 * bpf_rdonly_cast() kfunc (6.2, commit a35b9af4ec2c), which the verifier
 * rewrites into a register move, and loads through it: one instruction
 * each, with an exception-table fixup (BPF_PROBE_MEM) that reads 0 where
 * the helper would fail.  recorder/probes.c opens the direct build when the
 * kernel's BTF has the kfunc (not 6.1).
 */
#ifdef UR_DIRECT_LOADS
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

#define ur_cast(type, addr) \
	((type *)bpf_rdonly_cast((void *)(u64)(addr), bpf_core_type_id_kernel(type)))
#endif

/*
 * One u32 or u64 of kernel memory.  bpf_rdonly_cast() casts only to
 * structs: the loads go through the first member of a kernel struct that
 * starts with one (struct io_uring's head, struct io_uring_cqe's user_data).
 */
static __always_inline int read_kernel_u32(u32 *dst, u64 addr)
{
#ifdef UR_DIRECT_LOADS
	*dst = ur_cast(struct io_uring, addr)->head;
	return 0;
#else
	return bpf_probe_read_kernel(dst, sizeof(*dst), (void *)addr);
#endif
}

static __always_inline int read_kernel_u64(u64 *dst, u64 addr)
{
#ifdef UR_DIRECT_LOADS
	*dst = ur_cast(struct io_uring_cqe, addr)->user_data;
	return 0;
#else
	return bpf_probe_read_kernel(dst, sizeof(*dst), (void *)addr);
#endif
}

/*
 * REQ_F_* flags of a request.  6.10 made io_kiocb.flags 64 bits wide (the
 * io_req_flags_t type); before, it is an unsigned int (io_kiocb___flags32).
 */
static __always_inline u64 req_flags(struct io_kiocb *req)
{
	if (bpf_core_field_size(req->flags) == 4)
		return ((struct io_kiocb___flags32 *)req)->flags;
	return req->flags;
}

/*
 * The io-wq work flags of a request, as io_prep_async_work() set them before
 * io_uring_queue_async_work fires.  Returns false when neither flavour of
 * io_wq_work.flags exists in this kernel's BTF.
 */
static __always_inline bool req_work_flags(struct io_kiocb *req, u32 *flags)
{
	void *work = &req->work;

	if (bpf_core_field_exists(((struct io_wq_work___atomic *)work)->flags))
		return !bpf_core_read(flags, sizeof(*flags),
				      &((struct io_wq_work___atomic *)work)->flags.counter);
	if (bpf_core_field_exists(((struct io_wq_work___plain *)work)->flags))
		return !bpf_core_read(flags, sizeof(*flags),
				      &((struct io_wq_work___plain *)work)->flags);
	return false;
}

#endif /* RINGSIDE_KERNEL_READS_BPF_H */
