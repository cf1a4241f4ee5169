// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where each recorded file is replayed: a scratch file of the recorded
 * extent in the scratch directory (created here, removed at the end), or
 * the path --map NAME=PATH gives; a recorded pipe or socket pair, a pipe
 * or socketpair made here.  Nothing else is ever opened for writing: this
 * is what keeps the replay inside its targets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

static const char *mapped(const struct run_options *o, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < o->nmaps; i++)
		if (!strncmp(o->maps[i], name, len) && o->maps[i][len] == '=')
			return o->maps[i] + len + 1;
	return NULL;
}

static int fill_zeros(int fd, uint64_t size)
{
	static const char zeros[65536];

	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < sizeof(zeros) ? (size_t)(size - off) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, (off_t)off);

		if (w <= 0)
			return -1;
		off += (uint64_t)w;
	}
	return 0;
}

static int open_mapped(struct plan_target *t, const char *path, const struct run_options *o)
{
	struct stat st;

	t->path = path;
	t->fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		fprintf(stderr, "uring-replay: --map %s=%s: %s\n", t->name, path, strerror(errno));
		return 1;
	}
	if (S_ISBLK(st.st_mode) && !o->force) {
		fprintf(stderr, "uring-replay: --map %s=%s: a block device: its data would be overwritten; add --force to replay on it\n",
			t->name, path);
		return 1;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "uring-replay: --map %s=%s: not a regular file or block device\n",
			t->name, path);
		return 1;
	}
	return 0;
}

static bool is_stream(const struct plan_target *t)
{
	return t->key.kind == RK_PIPE || t->key.kind == RK_SOCKET;
}

static int set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 || !on ? fl : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * A recorded pipe becomes a pipe, a recorded socket pair a socketpair
 * (SOCK_STREAM: the log does not hold a socket's type), with O_NONBLOCK
 * where the recorded end had it.
 */
static int open_stream(struct plan *p, struct plan_target *t)
{
	int fds[2];

	if (t->fd >= 0 || !t->used)
		return 0;
	if (t->key.kind == RK_PIPE) {
		if (pipe2(fds, O_CLOEXEC))
			goto fail;
		t->fd = fds[0];
		t->fd2 = fds[1];
		if (set_nonblock(t->fd, t->nonblock[0]) < 0 ||
		    set_nonblock(t->fd2, t->nonblock[1]) < 0)
			goto fail;
		return 0;
	}
	if (t->peer == UINT32_MAX || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		goto fail;
	t->fd = fds[0];
	p->targets[t->peer].fd = fds[1];
	if (set_nonblock(t->fd, t->nonblock[0]) < 0 ||
	    set_nonblock(fds[1], p->targets[t->peer].nonblock[0]) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "uring-replay: %s: cannot make its %s: %s\n", t->name,
		t->key.kind == RK_PIPE ? "pipe" : "socketpair", strerror(errno));
	return 1;
}

/*
 * A second descriptor of the file, with the open flags its recorded fds
 * had: O_DIRECT bypasses the page cache and O_DSYNC/O_SYNC make each write
 * wait for the device, which is most of a request's latency.  A file
 * system that refuses O_DIRECT (tmpfs before Linux 6.6) gets the requests
 * through the page cache, and the user is told.
 */
static int open_oflags(struct plan_target *t, const char *path, const struct run_options *o)
{
	int rest = t->oflags & ~O_DIRECT;

	if (!t->oflags)
		return 0;
	t->fd_oflags = open(path, O_RDWR | O_CLOEXEC | t->oflags);
	if (t->fd_oflags >= 0)
		return 0;
	if (errno != EINVAL || !(t->oflags & O_DIRECT))
		goto fail;
	if (!o->quiet)
		fprintf(stderr, "uring-replay: %s: recorded with O_DIRECT, which %s's file system "
			"refuses: its requests go through the page cache\n", t->name, path);
	if (!rest)
		return 0;
	t->fd_oflags = open(path, O_RDWR | O_CLOEXEC | rest);
	if (t->fd_oflags >= 0)
		return 0;
fail:
	fprintf(stderr, "uring-replay: %s: %s\n", path, strerror(errno));
	return 1;
}

int targets_open(struct plan *p, const struct run_options *o)
{
	for (size_t i = 0; i < o->nmaps; i++) {
		const char *eq = strchr(o->maps[i], '=');
		bool used = false;

		for (size_t j = 0; j < p->ntargets && eq; j++)
			used |= !strncmp(p->targets[j].name, o->maps[i], (size_t)(eq - o->maps[i])) &&
				!p->targets[j].name[eq - o->maps[i]];
		if (!used) {
			fprintf(stderr, "uring-replay: --map %s: the recording has no file of that name (see --dry-run)\n",
				o->maps[i]);
			return 1;
		}
	}
	if (mkdir(o->scratch, 0755) && errno != EEXIST) {
		fprintf(stderr, "uring-replay: %s: cannot create the scratch directory: %s\n",
			o->scratch, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < p->ntargets; i++) {
		struct plan_target *t = &p->targets[i];
		const char *path = mapped(o, t->name);
		char *scratch;

		if (is_stream(t)) {
			if (path) {
				fprintf(stderr, "uring-replay: --map %s=%s: a pipe or socket is replayed over its own, not on a file\n",
					t->name, path);
				return 1;
			}
			if (open_stream(p, t))
				return 1;
			continue;
		}
		if (path) {
			if (open_mapped(t, path, o) || open_oflags(t, path, o))
				return 1;
			continue;
		}
		if (asprintf(&scratch, "%s/%s", o->scratch, t->name) < 0)
			return 1;
		/* O_EXCL: never write into a file that was there before. */
		t->fd = open(scratch, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (t->fd < 0 || ftruncate(t->fd, (off_t)t->extent) ||
		    (o->filled && fill_zeros(t->fd, t->extent))) {
			fprintf(stderr, "uring-replay: %s: %s\n", scratch, strerror(errno));
			free(scratch);
			return 1;
		}
		if (open_oflags(t, scratch, o)) {
			free(scratch);
			return 1;
		}
		free(scratch);
	}
	return 0;
}

void targets_close(struct plan *p, const struct run_options *o)
{
	for (size_t i = 0; i < p->ntargets; i++) {
		struct plan_target *t = &p->targets[i];
		char *scratch;

		if (t->fd >= 0)
			close(t->fd);
		if (t->fd2 >= 0)
			close(t->fd2);
		if (t->fd_oflags >= 0)
			close(t->fd_oflags);
		t->fd2 = -1;
		t->fd_oflags = -1;
		if (!t->path && t->fd >= 0 && !o->keep && !is_stream(t) &&
		    asprintf(&scratch, "%s/%s", o->scratch, t->name) >= 0) {
			unlink(scratch);
			free(scratch);
		}
		t->fd = -1;
	}
	if (!o->keep)
		rmdir(o->scratch);
}
