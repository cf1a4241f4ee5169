// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tasks.h"

struct proc_entry {
	pid_t tgid, ppid;
	char comm[EV_COMM_LEN];		/* main thread */
	bool selected;
	bool followed;
};

char tasks_stat_state(const char *line)
{
	const char *p = line ? strrchr(line, ')') : NULL;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return 0;
	return p[2];
}

int tasks_parse_stat(const char *line, char comm[EV_COMM_LEN], pid_t *ppid, unsigned *flags)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	unsigned long fields[7];
	const char *p;
	size_t n;

	if (!open || !close || close < open)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= EV_COMM_LEN)
		n = EV_COMM_LEN - 1;
	memset(comm, 0, EV_COMM_LEN);
	memcpy(comm, open + 1, n);
	/* after ") ": state ppid pgrp session tty_nr tpgid flags */
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p || isspace((unsigned char)p[1]) == 0)
		return -1;
	p += 1;		/* state */
	for (int i = 0; i < 6; i++) {
		char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		fields[i] = strtoul(p, &end, 10);
		if (end == p && *p != '-')
			return -1;
		if (*p == '-') {	/* tty_nr/tpgid may be -1 */
			strtol(p, &end, 10);
			fields[i] = 0;
		}
		p = end;
	}
	*ppid = (pid_t)fields[0];
	*flags = (unsigned)fields[5];
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? 0 : -1;
}

static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool cgroup_matches(const char *proc_root, pid_t tgid, const char *want)
{
	char path[PATH_MAX], buf[4096];

	if (!strcmp(want, "/"))
		return true;
	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int)tgid);
	if (read_small(path, buf, sizeof(buf)))
		return false;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		size_t n = strlen(want);

		if (strncmp(line, "0::", 3))
			continue;
		line += 3;
		return !strncmp(line, want, n) && (line[n] == '\0' || line[n] == '/');
	}
	return false;
}

static int cmp_tgid(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

static struct proc_entry *find(struct proc_entry *procs, size_t n, pid_t tgid)
{
	struct proc_entry key = { .tgid = tgid };

	return bsearch(&key, procs, n, sizeof(*procs), cmp_tgid);
}

static bool in_pids(const struct task_filter *flt, pid_t tgid)
{
	for (size_t i = 0; i < flt->npids; i++)
		if (flt->pids[i] == tgid)
			return true;
	return false;
}

/* Mark the processes the filter selects (follow: with their descendants). */
static void select_procs(struct proc_entry *procs, size_t n, const struct task_filter *flt,
			 const char *proc_root)
{
	for (size_t i = 0; i < n; i++) {
		struct proc_entry *pe = &procs[i];

		pe->selected = pe->tgid != flt->self;
		if (!flt->active || !pe->selected)
			continue;
		if (flt->pids && !in_pids(flt, pe->tgid)) {
			bool found = false;

			/* --follow: a descendant of a selected process (bounded walk) */
			if (flt->follow) {
				struct proc_entry *up = pe;

				for (int depth = 0; depth < 256 && up && up->ppid > 0; depth++) {
					if (in_pids(flt, up->ppid)) {
						found = true;
						break;
					}
					up = find(procs, n, up->ppid);
				}
			}
			if (!found) {
				pe->selected = false;
				continue;
			}
			pe->followed = true;
		}
		if (flt->comm && strncmp(pe->comm, flt->comm, EV_COMM_LEN))
			pe->selected = false;
		else if (flt->cgroup && !cgroup_matches(proc_root, pe->tgid, flt->cgroup))
			pe->selected = false;
		if (!pe->selected)
			pe->followed = false;
	}
}

static int add_task(struct task_scan *scan, size_t *cap, const struct ev_task *t)
{
	if (scan->ntasks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct ev_task *n = realloc(scan->tasks, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		scan->tasks = n;
		*cap = ncap;
	}
	scan->tasks[scan->ntasks++] = *t;
	return 0;
}

static int scan_threads(struct task_scan *scan, size_t *cap, const char *proc_root,
			const struct proc_entry *pe, uint64_t ts)
{
	char path[PATH_MAX], line[1024];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pe->tgid);
	dir = opendir(path);
	if (!dir)
		return 0;	/* exited meanwhile */
	while (!err && (de = readdir(dir))) {
		struct ev_task t = { .type = EV_TASK, .reason = EV_TASK_EXISTING };
		char comm[EV_COMM_LEN];
		unsigned flags;
		pid_t ppid;

		if (!numeric(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%s/stat", proc_root, (int)pe->tgid,
			 de->d_name);
		if (read_small(path, line, sizeof(line)) ||
		    tasks_parse_stat(line, comm, &ppid, &flags))
			continue;
		t.ts = ts;
		t.tid = (uint32_t)atoi(de->d_name);
		t.tgid = (uint32_t)pe->tgid;
		t.subject_tid = t.tid;
		t.subject_tgid = t.tgid;
		t.parent_tgid = (uint32_t)ppid;
		memcpy(t.comm, comm, EV_COMM_LEN);
		t.task_flags = flags;
		err = add_task(scan, cap, &t);
	}
	closedir(dir);
	return err;
}

int tasks_scan(struct task_scan *scan, const struct task_filter *flt, const char *proc_root,
	       uint64_t ts)
{
	struct proc_entry *procs = NULL;
	size_t nprocs = 0, pcap = 0, tcap = 0;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	memset(scan, 0, sizeof(*scan));
	dir = opendir(proc_root);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char path[PATH_MAX], line[1024];
		struct proc_entry pe = { 0 };
		unsigned flags;

		if (!numeric(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", proc_root, de->d_name);
		if (read_small(path, line, sizeof(line)) ||
		    tasks_parse_stat(line, pe.comm, &pe.ppid, &flags))
			continue;
		pe.tgid = (pid_t)atoi(de->d_name);
		if (nprocs == pcap) {
			size_t ncap = pcap ? pcap * 2 : 512;
			struct proc_entry *n = realloc(procs, ncap * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			procs = n;
			pcap = ncap;
		}
		procs[nprocs++] = pe;
	}
	closedir(dir);
	if (err)
		goto cleanup;
	qsort(procs, nprocs, sizeof(*procs), cmp_tgid);
	select_procs(procs, nprocs, flt, proc_root);
	for (size_t i = 0; i < nprocs && !err; i++) {
		if (!procs[i].selected)
			continue;
		err = scan_threads(scan, &tcap, proc_root, &procs[i], ts);
		if (!err && procs[i].followed) {
			pid_t *n = realloc(scan->followed, (scan->nfollowed + 1) * sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			scan->followed = n;
			scan->followed[scan->nfollowed++] = procs[i].tgid;
		}
	}
cleanup:
	free(procs);
	if (err)
		tasks_scan_free(scan);
	return err;
}

void tasks_scan_free(struct task_scan *scan)
{
	free(scan->tasks);
	free(scan->followed);
	memset(scan, 0, sizeof(*scan));
}
