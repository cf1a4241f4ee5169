// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "model_files.h"

/* include/uapi/linux/stat.h */
#define UR_S_IFMT	0170000
#define UR_S_IFSOCK	0140000
#define UR_S_IFREG	0100000
#define UR_S_IFBLK	0060000
#define UR_S_IFCHR	0020000
#define UR_S_IFIFO	0010000

/* Path, prefixes and the " (deleted)" suffix. */
#define PATH_TEXT_MAX (EV_PATH_LEN + 64)

struct model_files {
	struct hmap by_id;		/* file id -> the model_file it names now */
	struct model_file **all;	/* every one, by number - 1 */
	size_t n, cap;
};

struct model_files *model_files_new(void)
{
	struct model_files *fs = calloc(1, sizeof(*fs));

	if (fs)
		hmap_init(&fs->by_id);
	return fs;
}

void model_files_free(struct model_files *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++) {
		free((char *)fs->all[i]->path);
		free(fs->all[i]);
	}
	free(fs->all);
	hmap_free(&fs->by_id);
	free(fs);
}

const struct model_file *model_files_get(struct model_files *fs, uint64_t file_id)
{
	return file_id ? hmap_get(&fs->by_id, file_id, 0) : NULL;
}

size_t file_path_join(char *buf, size_t len, const char *raw, size_t rawlen,
		      unsigned ncomp, uint16_t flags)
{
	const char *comp[EV_PATH_LEN];
	size_t clen[EV_PATH_LEN], n = 0, pos = 0, off = 0;

	if (!len)
		return 0;
	while (n < ncomp && n < EV_PATH_LEN && off < rawlen) {
		comp[n] = raw + off;
		clen[n] = strnlen(raw + off, rawlen - off);
		off += clen[n] + 1;
		n++;
	}
	buf[0] = '\0';
#define PUT(s, l) do {							\
		size_t l_ = (l);					\
		if (pos + l_ >= len)					\
			l_ = len - 1 - pos;				\
		memcpy(buf + pos, (s), l_);				\
		pos += l_;						\
		buf[pos] = '\0';					\
	} while (0)
	if (flags & EV_PATH_TRUNCATED)
		PUT("...", 3);
	if (!n && !(flags & (EV_PATH_TRUNCATED | EV_PATH_DETACHED)))
		PUT("/", 1);
	for (size_t i = n; i-- > 0;) {
		if (i != n - 1 || !(flags & EV_PATH_DETACHED) || (flags & EV_PATH_TRUNCATED))
			PUT("/", 1);
		PUT(comp[i], clen[i]);
	}
#undef PUT
	return pos;
}

static enum file_type type_of(uint16_t mode, const char *fs, const char *leaf)
{
	if (!strcmp(fs, "anon_inodefs")) {
		if (!strcmp(leaf, "[eventfd]"))
			return FILE_EVENTFD;
		if (!strcmp(leaf, "[io_uring]"))
			return FILE_IO_URING;
		return FILE_OTHER;
	}
	switch (mode & UR_S_IFMT) {
	case UR_S_IFREG: return FILE_REGULAR;
	case UR_S_IFBLK: return FILE_BLOCK;
	case UR_S_IFSOCK: return FILE_SOCKET;
	case UR_S_IFIFO: return FILE_PIPE;
	case UR_S_IFCHR: return FILE_CHAR;
	default: return FILE_OTHER;
	}
}

/*
 * What the record says, in a model_file not yet numbered (path
 * allocated).  Pipes, sockets and anonymous inodes are named the way
 * /proc/PID/fd names them: their dentry names are made up on the fly
 * (pipefs_dname(), sockfs_dname(), anon_inode names) and say nothing.
 */
static int describe(struct model_file *f, const struct ev_file *e)
{
	char path[PATH_TEXT_MAX], leaf[EV_PATH_LEN + 1];
	size_t n;

	memcpy(f->fs, e->fs, EV_FS_LEN);
	f->fs[EV_FS_LEN] = '\0';
	f->file_id = e->file;
	f->dev_major = e->dev >> 20;		/* the kernel's dev_t: MAJOR(dev) */
	f->dev_minor = e->dev & 0xfffff;
	f->ino = e->ino;
	f->f_flags = e->f_flags;
	f->nlink = e->nlink;
	f->mode = e->mode;
	f->first_ts = e->ts;
	n = e->ncomp ? strnlen(e->path, EV_PATH_LEN) : 0;
	memcpy(leaf, e->path, n);
	leaf[n] = '\0';
	f->type = type_of(e->mode, f->fs, leaf);
	f->anonymous = !strcmp(f->fs, "pipefs") || !strcmp(f->fs, "sockfs") ||
		       !strcmp(f->fs, "anon_inodefs");
	f->path_truncated = !f->anonymous && (e->path_flags & EV_PATH_TRUNCATED);
	f->deleted = !f->anonymous && !e->nlink;
	if (!strcmp(f->fs, "pipefs"))
		snprintf(path, sizeof(path), "pipe:[%" PRIu64 "]", (uint64_t)e->ino);
	else if (!strcmp(f->fs, "sockfs"))
		snprintf(path, sizeof(path), "socket:[%" PRIu64 "]", (uint64_t)e->ino);
	else if (f->anonymous)
		snprintf(path, sizeof(path), "anon_inode:%s", leaf);
	else
		file_path_join(path, sizeof(path), e->path, EV_PATH_LEN, e->ncomp, e->path_flags);
	if (f->deleted)
		strcat(path, " (deleted)");	/* PATH_TEXT_MAX leaves room */
	f->path = strdup(path);
	return f->path ? 0 : -1;
}

static bool same_file(const struct model_file *a, const struct model_file *b)
{
	return a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->ino == b->ino && a->f_flags == b->f_flags && a->mode == b->mode &&
	       a->deleted == b->deleted && !strcmp(a->fs, b->fs) && !strcmp(a->path, b->path);
}

const struct model_file *model_files_record(struct model_files *fs, const struct ev_file *e)
{
	struct model_file *f = calloc(1, sizeof(*f)), *old;

	if (!f || describe(f, e)) {
		free(f);
		return NULL;
	}
	old = hmap_get(&fs->by_id, e->file, 0);
	if (old && same_file(old, f)) {
		free((char *)f->path);
		free(f);
		return old;
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct model_file **all = realloc(fs->all, cap * sizeof(*all));

		if (!all)
			goto fail;
		fs->all = all;
		fs->cap = cap;
	}
	if (hmap_put(&fs->by_id, e->file, 0, f))
		goto fail;
	f->number = (unsigned)fs->n + 1;
	fs->all[fs->n++] = f;
	return f;
fail:
	free((char *)f->path);
	free(f);
	return NULL;
}
