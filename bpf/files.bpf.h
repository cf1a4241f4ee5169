/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * File identity: the file a request worked on, named once per file.
 *
 * A completion carries req->file, which io_assign_file() set at issue for a
 * plain fd (io_file_get_normal) and a fixed file (io_file_get_fixed, from
 * the ring's table) alike, and which holds the file until the request is
 * freed, after its CQE (6.1 .. 6.18).  So one load names the file of any
 * request, without the fixed-file table, whose layout changed in 6.13
 * (io_rsrc_node), and without the fd table.  The submit tracepoint is too
 * early (req->file is still NULL); io_uring_file_get fires only for plain
 * fds and passes the request and the fd, not the file fget() returned,
 * which is not in req->file yet (io_file_get_normal(), 6.1 .. 6.18).
 *
 * The first completion naming a file writes an EV_FILE record: identity,
 * open flags, file system and the dentry path, walked here with d_parent
 * and the mount tree (bpf_d_path() is not allowed in tracepoints).  After
 * that, a completion costs six loads (req->file, f_inode, i_ino,
 * i_generation, f_op, f_flags) and a look in this CPU's memo, or one map
 * lookup.  Part of uring_record.bpf.c, included after emit.bpf.h and
 * kernel_reads.bpf.h.
 */
#ifndef RINGSIDE_FILES_BPF_H
#define RINGSIDE_FILES_BPF_H

/*
 * struct file address -> what it held when its EV_FILE record was written.
 * A struct file, its inode and the inode number are all reused once
 * freed, together: ext4 hands a deleted file's number to the next file
 * it creates, and the slabs hand back the same objects.  i_generation
 * tells those apart: ext4, xfs and shmem draw it at random for every new
 * inode.  Every anonymous inode file (eventfd, timerfd, signalfd, ...)
 * shares one inode, number and generation (anon_inode_getfile()): f_op
 * tells those apart.  An address that comes to hold another file is
 * described again unless all five match, and a file reopened with other
 * flags is another file.  LRU: a file evicted is described again too,
 * which the converter takes as the same file.
 */
struct file_seen {
	u64 inode;			/* f_inode */
	u64 ino;			/* its i_ino */
	u64 f_op;
	u32 f_flags;
	u32 generation;			/* its i_generation */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UR_MAX_FILES);
	__type(key, u64);
	__type(value, struct file_seen);
} files_seen SEC(".maps");

/*
 * In front of files_seen, the last files this CPU's completions named, by
 * address (direct-mapped): a hit spares the hash lookup.  An entry is
 * written only after its file was found in files_seen or described, so
 * whatever mix of entries a program interrupting another leaves, it names
 * a file address with the identity of a file already described.
 */
#define UR_FILES_MEMO 16		/* power of two */

struct file_memo {
	u64 file;
	struct file_seen seen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct file_memo[UR_FILES_MEMO]);
} files_memo SEC(".maps");

/*
 * The path is built here, then copied into the record: a name read at a
 * variable offset needs room for a whole name past the last offset the
 * verifier allows.  The walk's position lives here too, not on the stack:
 * bpf_loop()'s callback is then verified once, whatever the path (see
 * drop_staged_one() in emit.bpf.h for why).  One per nesting depth
 * (emit.bpf.h).
 */
struct path_scratch {
	char buf[2 * EV_PATH_LEN];
	u64 dentry, mnt, mnt_root;	/* where the walk is */
	u64 root_dentry, root_mnt;	/* the task's root: where it ends */
	u32 off;			/* bytes of buf written */
	u32 ncomp;			/* names written */
	u32 flags;			/* EV_PATH_* when the walk ends */
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UR_NEST_SLOTS * 2);	/* depth 0 .. UR_NEST_SLOTS, masked */
	__type(key, u32);
	__type(value, struct path_scratch);
} path_scratch SEC(".maps");

/* Steps of the walk: names plus mount crossings. */
#define UR_PATH_STEPS 48

struct walk_ctx {
	u32 slot;
};

/*
 * One step up from the dentry ps->dentry, as the kernel's d_path() walks
 * (without its locks: a rename racing the walk may give a mixed path):
 * its name, or from a mount's root to where it is mounted.  Stops (1) at
 * the task's root, as /proc/PID/fd shows paths (a chroot's, else the
 * mount namespace's), or at the root of the mount namespace (flags 0; a
 * kworker's root is not the recorded task's), at a root no mount holds
 * (EV_PATH_DETACHED), or when buf is full; a walk stopped by the step
 * count keeps EV_PATH_TRUNCATED.
 */
static long walk_step(u32 i, void *ctx)
{
	struct walk_ctx *w = ctx;
	u32 slot = w->slot & (UR_NEST_SLOTS * 2 - 1);
	struct path_scratch *ps = bpf_map_lookup_elem(&path_scratch, &slot);
	struct dentry *d, *parent;
	const unsigned char *name;
	u32 off;
	long len;

	if (!ps)
		return 1;
	d = (struct dentry *)ps->dentry;
	if (ps->dentry == ps->root_dentry && ps->mnt == ps->root_mnt) {
		ps->flags = 0;
		return 1;
	}
	if (ps->dentry == ps->mnt_root) {
		struct mount *mnt = (struct mount *)ps->mnt;
		struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

		if (!up || up == mnt) {	/* the namespace's root mount */
			ps->flags = 0;
			return 1;
		}
		ps->dentry = (u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		ps->mnt = (u64)up;
		ps->mnt_root = (u64)BPF_CORE_READ(up, mnt.mnt_root);
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	name = BPF_CORE_READ(d, d_name.name);
	off = ps->off & (EV_PATH_LEN - 1);
	len = bpf_probe_read_kernel_str(ps->buf + off, EV_PATH_LEN - off, name);
	if (len <= 0)
		return 1;
	ps->off = off + (u32)len;
	ps->ncomp++;
	if (ps->off >= EV_PATH_LEN)
		return 1;	/* the name may be cut: truncated */
	if (!parent || parent == d) {	/* a root, but not its mount's */
		ps->flags = EV_PATH_DETACHED;
		return 1;
	}
	ps->dentry = (u64)parent;
	return 0;
}

/*
 * Dentry names from the file up to the task's root, leaf first, each
 * NUL-terminated, into ps->buf (ps->ncomp of them).  Returns the
 * EV_PATH_* flags.
 */
static __always_inline u16 walk_path(struct file *file, struct path_scratch *ps, u32 slot)
{
	struct vfsmount *vmnt = BPF_CORE_READ(file, f_path.mnt);
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fs_struct *fs = BPF_CORE_READ(task, fs);
	struct walk_ctx w = { .slot = slot };

	ps->root_dentry = ps->root_mnt = 0;
	if (fs) {
		struct vfsmount *rmnt = BPF_CORE_READ(fs, root.mnt);

		ps->root_dentry = (u64)BPF_CORE_READ(fs, root.dentry);
		ps->root_mnt = rmnt ? (u64)rmnt - bpf_core_field_offset(struct mount, mnt) : 0;
	}

	__builtin_memset(ps->buf, 0, EV_PATH_LEN);
	ps->dentry = (u64)BPF_CORE_READ(file, f_path.dentry);
	ps->mnt = (u64)vmnt - bpf_core_field_offset(struct mount, mnt);
	ps->mnt_root = (u64)BPF_CORE_READ(vmnt, mnt_root);
	ps->off = 0;
	ps->ncomp = 0;
	ps->flags = EV_PATH_TRUNCATED;
	bpf_loop(UR_PATH_STEPS, walk_step, &w, 0);
	return (u16)ps->flags;
}

/* The EV_FILE record of file (its f_inode: inode); false when dropped. */
static __always_inline bool emit_file(struct file *file, u64 inode, u64 ts, u64 pid_tgid)
{
	struct inode *ino = (struct inode *)inode;
	struct super_block *sb = BPF_CORE_READ(ino, i_sb);
	struct path_scratch *scratch;
	struct ev_file *e;
	struct emit em;
	u32 slot;
	u8 ncomp = 0;
	u16 flags;

	e = EV_RESERVE(&em, file, EV_FILE, 0, ts, pid_tgid);
	if (!e)
		return false;
	e->dev = BPF_CORE_READ(sb, s_dev);
	e->file = (u64)file;
	e->ino = BPF_CORE_READ(ino, i_ino);
	e->f_flags = BPF_CORE_READ(file, f_flags);
	e->nlink = BPF_CORE_READ(ino, i_nlink);
	e->mode = BPF_CORE_READ(ino, i_mode);
	bpf_probe_read_kernel_str(e->fs, EV_FS_LEN, BPF_CORE_READ(sb, s_type, name));
	slot = em.depth & (UR_NEST_SLOTS * 2 - 1);
	scratch = bpf_map_lookup_elem(&path_scratch, &slot);
	if (scratch) {
		flags = walk_path(file, scratch, slot);
		ncomp = (u8)scratch->ncomp;
		__builtin_memcpy(e->path, scratch->buf, EV_PATH_LEN);
	} else {
		flags = EV_PATH_TRUNCATED;
	}
	e->ncomp = ncomp;
	e->path_flags = (u8)flags;
	ev_submit(&em, e);
	return true;
}

static __always_inline bool same_file(const struct file_seen *a, const struct file_seen *b)
{
	return a->inode == b->inode && a->ino == b->ino && a->f_op == b->f_op &&
	       a->f_flags == b->f_flags && a->generation == b->generation;
}

/*
 * The file of the request at req (an untyped pointer, as the completion
 * tracepoint passes it), its EV_FILE record written if this is the first
 * completion naming it.  0 when the request has no file.
 */
static __always_inline u64 note_request_file(u64 req, u64 ts, u64 pid_tgid)
{
	struct file_seen now = {}, *seen;
	struct file_memo *memo, *m = NULL;
	u64 file = 0;
	u32 zero = 0;

	if (!req || read_kernel_u64(&file, req + bpf_core_field_offset(struct io_kiocb, file)) ||
	    !file)
		return 0;
	if (read_kernel_u64(&now.inode, file + bpf_core_field_offset(struct file, f_inode)) ||
	    !now.inode ||
	    read_kernel_u64(&now.ino, now.inode + bpf_core_field_offset(struct inode, i_ino)) ||
	    read_kernel_u32(&now.generation,
			    now.inode + bpf_core_field_offset(struct inode, i_generation)) ||
	    read_kernel_u64(&now.f_op, file + bpf_core_field_offset(struct file, f_op)) ||
	    read_kernel_u32(&now.f_flags, file + bpf_core_field_offset(struct file, f_flags)))
		return file;
	memo = bpf_map_lookup_elem(&files_memo, &zero);
	if (memo) {
		/* struct file is cacheline-aligned (its slab): skip the zero bits */
		m = &memo[(file >> 6) & (UR_FILES_MEMO - 1)];
		if (m->file == file && same_file(&m->seen, &now))
			return file;
	}
	seen = bpf_map_lookup_elem(&files_seen, &file);
	if (!seen || !same_file(seen, &now)) {
		if (!emit_file((struct file *)file, now.inode, ts, pid_tgid))
			return file;
		bpf_map_update_elem(&files_seen, &file, &now, BPF_ANY);
	}
	if (m) {
		m->file = file;
		m->seen = now;
	}
	return file;
}

#endif /* RINGSIDE_FILES_BPF_H */
