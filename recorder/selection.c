// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The end of a selection (selection.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "selection.h"
#include "tasks.h"

/* The state of /proc/<path>/stat, 0 if it is gone. */
static char stat_state(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "re");
	char state = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		state = tasks_stat_state(line);
	fclose(f);
	return state;
}

static bool running_state(char state)
{
	return state && state != 'Z' && state != 'X' && state != 'x';
}

bool selection_process_alive(pid_t tgid)
{
	char path[64];
	struct dirent *de;
	bool alive = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tgid);
	if (running_state(stat_state(path)))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	d = opendir(path);
	if (!d)
		return false;
	while (!alive && (de = readdir(d))) {
		char tpath[300];

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%s/stat", (int)tgid, de->d_name);
		alive = running_state(stat_state(tpath));
	}
	closedir(d);
	return alive;
}

bool selection_any_alive(int pid_filter_fd)
{
	__u32 key, next;
	const __u32 *prev = NULL;

	while (!bpf_map_get_next_key(pid_filter_fd, prev, &next)) {
		if (selection_process_alive((pid_t)next))
			return true;
		key = next;
		prev = &key;
	}
	return false;
}

size_t selection_rings_closing(int ring_owner_fd)
{
	__u64 key, next;
	const __u64 *prev = NULL;
	size_t n = 0;

	while (!bpf_map_get_next_key(ring_owner_fd, prev, &next)) {
		__u32 owner;

		if (!bpf_map_lookup_elem(ring_owner_fd, &next, &owner) &&
		    !selection_process_alive((pid_t)owner))
			n++;
		key = next;
		prev = &key;
	}
	return n;
}
