// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd_io.h"
#include "tracefs.h"

#define TRACEFS_MAGIC_NUMBER 0x74726163	/* include/uapi/linux/magic.h */
#define FORMAT_MAX (64 * 1024)
#define PRIVATE_MOUNTPOINT "/sys/kernel/tracing"

static const char *const mounted_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool is_tracefs(const char *dir)
{
	struct statfs sfs;
	char events[256];

	if (statfs(dir, &sfs) || (uint32_t)sfs.f_type != TRACEFS_MAGIC_NUMBER)
		return false;
	snprintf(events, sizeof(events), "%s/events", dir);
	return access(events, R_OK | X_OK) == 0;
}

/* Whole file into a malloc'd string; NULL on error (errno set). */
static char *read_text(const char *path)
{
	char *buf = malloc(FORMAT_MAX + 1);
	size_t len = 0;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while (len < FORMAT_MAX) {
		ssize_t n = read(fd, buf + len, FORMAT_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static int parse_id(const char *text)
{
	const char *p = text ? strstr(text, "\nID: ") : NULL;

	if (!p)
		return -1;
	return atoi(p + 5);
}

static void read_all(struct tracefs_info *ti, const char *dir)
{
	for (size_t i = 0; i < ti->n; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/events/%s/format", dir, ti->tps[i].name);
		ti->tps[i].text = read_text(path);
		ti->tps[i].id = parse_id(ti->tps[i].text);
	}
}

/*
 * In the child: a private mount namespace, tracefs mounted there, every
 * format file sent up the pipe as (int32 length or -errno, bytes).  The
 * first message is the setup status.
 */
static void __attribute__((noreturn)) child_read(struct tracefs_info *ti, int fd)
{
	int32_t status = 0;

	if (unshare(CLONE_NEWNS))
		status = -errno;
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		status = -errno;
	else if (mount("tracefs", PRIVATE_MOUNTPOINT, "tracefs",
		       MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL))
		status = -errno - 1000;
	if (fd_write_all(fd, &status, sizeof(status)) || status)
		_exit(1);
	for (size_t i = 0; i < ti->n; i++) {
		char path[512];
		char *text;
		int32_t len;

		snprintf(path, sizeof(path), PRIVATE_MOUNTPOINT "/events/%s/format",
			 ti->tps[i].name);
		text = read_text(path);
		len = text ? (int32_t)strlen(text) : -errno;
		if (fd_write_all(fd, &len, sizeof(len)) ||
		    (len > 0 && fd_write_all(fd, text, (size_t)len)))
			_exit(1);
		free(text);
	}
	_exit(0);
}

static void read_private(struct tracefs_info *ti)
{
	int pipefd[2], wstatus;
	int32_t status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		snprintf(ti->unavailable, sizeof(ti->unavailable), "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(ti->unavailable, sizeof(ti->unavailable), "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child_read(ti, pipefd[1]);
	}
	close(pipefd[1]);
	if (fd_read_all(pipefd[0], &status, sizeof(status))) {
		snprintf(ti->unavailable, sizeof(ti->unavailable),
			 "private tracefs mount: reader failed");
	} else if (status <= -1000) {
		snprintf(ti->unavailable, sizeof(ti->unavailable),
			 "tracefs is not mounted and mounting it privately failed: %s",
			 strerror(-(status + 1000)));
	} else if (status) {
		snprintf(ti->unavailable, sizeof(ti->unavailable),
			 "tracefs is not mounted and a private mount namespace failed: %s",
			 strerror(-status));
	} else {
		snprintf(ti->source, sizeof(ti->source), "private tracefs mount");
		for (size_t i = 0; i < ti->n; i++) {
			int32_t len;

			if (fd_read_all(pipefd[0], &len, sizeof(len)))
				break;
			if (len < 0 || len > FORMAT_MAX)
				continue;
			ti->tps[i].text = malloc((size_t)len + 1);
			if (!ti->tps[i].text || fd_read_all(pipefd[0], ti->tps[i].text, (size_t)len)) {
				free(ti->tps[i].text);
				ti->tps[i].text = NULL;
				break;
			}
			ti->tps[i].text[len] = '\0';
			ti->tps[i].id = parse_id(ti->tps[i].text);
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
}

void tracefs_read(struct tracefs_info *ti, const char *const *names, size_t n)
{
	memset(ti, 0, sizeof(*ti));
	ti->tps = calloc(n ? n : 1, sizeof(*ti->tps));
	if (!ti->tps) {
		snprintf(ti->unavailable, sizeof(ti->unavailable), "out of memory");
		return;
	}
	ti->n = n;
	for (size_t i = 0; i < n; i++) {
		ti->tps[i].name = names[i];
		ti->tps[i].id = -1;
	}
	for (size_t i = 0; i < sizeof(mounted_dirs) / sizeof(mounted_dirs[0]); i++) {
		if (is_tracefs(mounted_dirs[i])) {
			snprintf(ti->source, sizeof(ti->source), "%s", mounted_dirs[i]);
			read_all(ti, mounted_dirs[i]);
			return;
		}
	}
	if (access(PRIVATE_MOUNTPOINT, F_OK)) {
		snprintf(ti->unavailable, sizeof(ti->unavailable),
			 "the kernel has no tracefs (" PRIVATE_MOUNTPOINT " missing)");
		return;
	}
	read_private(ti);
}

void tracefs_free(struct tracefs_info *ti)
{
	for (size_t i = 0; i < ti->n; i++)
		free(ti->tps[i].text);
	free(ti->tps);
	ti->tps = NULL;
	ti->n = 0;
}

const struct tp_format *tracefs_find(const struct tracefs_info *ti, const char *name)
{
	for (size_t i = 0; i < ti->n; i++)
		if (!strcmp(ti->tps[i].name, name))
			return &ti->tps[i];
	return NULL;
}
