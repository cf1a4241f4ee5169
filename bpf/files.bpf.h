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
 * early (req->file is still NULL), io_uring_file_get fires before fget()
 * and only for plain fds.
 *
 * The first completion naming a file writes an EV_FILE record: identity,
 * open flags, file system and the dentry path, walked here with d_parent
 * and the mount tree (bpf_d_path() is not allowed in tracepoints).  After
 * that, a file costs one map lookup per completion.  Part of
 * uring_record.bpf.c, included after emit.bpf.h and kernel_reads.bpf.h.
 */
#ifndef RINGSIDE_FILES_BPF_H
#define RINGSIDE_FILES_BPF_H

/*
 * struct file address -> its f_inode when its EV_FILE record was written:
 * an address that comes to hold another file (closed, reallocated) almost
 * always has another inode, and is described again.  LRU: a file evicted
 * is described again too, which the converter takes as the same file.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UR_MAX_FILES);
	__type(key, u64);
	__type(value, u64);
} files_seen SEC(".maps");

/*
 * The path is built here, then copied into the record: a name read at a
 * variable offset needs room for a whole name past the last offset the
 * verifier allows.  One buffer per nesting depth (emit.bpf.h).
 */
struct path_scratch {
	char buf[2 * EV_PATH_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UR_NEST_SLOTS * 2);	/* depth 0 .. UR_NEST_SLOTS, masked */
	__type(key, u32);
	__type(value, struct path_scratch);
} path_scratch SEC(".maps");

/* Steps of the walk: names plus mount crossings. */
#define UR_PATH_STEPS 48

/*
 * Dentry names from the file up to the root of the mount namespace, leaf
 * first, each NUL-terminated, as the kernel's d_path() would walk them
 * (without its locks: a rename racing the walk may give a mixed path).
 * Returns the EVF_PATH_* flags and the number of names in *ncomp.
 */
static __always_inline u16 walk_path(struct file *file, char *buf, u8 *ncomp)
{
	struct vfsmount *vmnt = BPF_CORE_READ(file, f_path.mnt);
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry);
	struct mount *mnt = (void *)((u64)vmnt - bpf_core_field_offset(struct mount, mnt));
	struct dentry *mnt_root = BPF_CORE_READ(vmnt, mnt_root);
	u32 off = 0;
	u8 n = 0;

	for (int i = 0; i < UR_PATH_STEPS; i++) {
		struct dentry *parent;
		const unsigned char *name;
		long len;

		if (d == mnt_root) {
			struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

			if (up == mnt) {	/* the namespace's root mount */
				*ncomp = n;
				return 0;
			}
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			mnt_root = BPF_CORE_READ(mnt, mnt.mnt_root);
			continue;
		}
		parent = BPF_CORE_READ(d, d_parent);
		name = BPF_CORE_READ(d, d_name.name);
		off &= EV_PATH_LEN - 1;
		len = bpf_probe_read_kernel_str(buf + off, EV_PATH_LEN - off, name);
		if (len <= 0)
			break;
		off += len;
		n++;
		if (off >= EV_PATH_LEN)
			break;		/* the name may be cut: truncated */
		if (parent == d) {	/* a root, but not its mount's */
			*ncomp = n;
			return EVF_PATH_DETACHED;
		}
		d = parent;
	}
	*ncomp = n;
	return EVF_PATH_TRUNCATED;
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
		__builtin_memset(scratch->buf, 0, EV_PATH_LEN);
		flags = walk_path(file, scratch->buf, &ncomp);
		__builtin_memcpy(e->path, scratch->buf, EV_PATH_LEN);
	} else {
		flags = EVF_PATH_TRUNCATED;
	}
	e->ncomp = ncomp;
	e->flags |= flags;
	ev_submit(&em, e);
	return true;
}

/*
 * The file of the request at req (an untyped pointer, as the completion
 * tracepoint passes it), its EV_FILE record written if this is the first
 * completion naming it.  0 when the request has no file.
 */
static __always_inline u64 note_request_file(u64 req, u64 ts, u64 pid_tgid)
{
	u64 file = 0, inode = 0, *seen;

	if (!req || read_kernel_u64(&file, req + bpf_core_field_offset(struct io_kiocb, file)) ||
	    !file)
		return 0;
	if (read_kernel_u64(&inode, file + bpf_core_field_offset(struct file, f_inode)) || !inode)
		return file;
	seen = bpf_map_lookup_elem(&files_seen, &file);
	if (seen && *seen == inode)
		return file;
	if (emit_file((struct file *)file, inode, ts, pid_tgid))
		bpf_map_update_elem(&files_seen, &file, &inode, BPF_ANY);
	return file;
}

#endif /* RINGSIDE_FILES_BPF_H */
