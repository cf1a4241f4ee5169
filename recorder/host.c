// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"

int cpulist_parse(const char *text, bool *online, unsigned ncpus)
{
	const char *p = text;

	memset(online, 0, ncpus * sizeof(*online));
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*p))
			return -1;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (hi < lo)
			return -1;
		for (unsigned long c = lo; c <= hi && c < ncpus; c++)
			online[c] = true;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return 0;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void host_online_cpus(char *text, size_t len)
{
	read_line("/sys/devices/system/cpu/online", text, len);
}

void host_json(struct json_out *o, unsigned possible_cpus, const char *online_text)
{
	struct utsname u;
	char boot_id[64];

	json_obj_begin(o);
	if (uname(&u) == 0) {
		json_kv_str(o, "hostname", u.nodename);
		json_kv_str(o, "sysname", u.sysname);
		json_kv_str(o, "release", u.release);
		json_kv_str(o, "version", u.version);
		json_kv_str(o, "machine", u.machine);
	}
	read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
	json_kv_str(o, "boot_id", boot_id);
	json_kv_u64(o, "cpus", possible_cpus);
	json_kv_str(o, "online_cpus", online_text);
	json_kv_i64(o, "page_size", sysconf(_SC_PAGESIZE));
	json_obj_end(o);
}

bool host_in_initial_pid_ns(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool initial = true;

	if (!f)
		return true;
	while (fgets(line, sizeof(line), f)) {
		int levels = 0;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (char *t = strtok(line + 6, " \t\n"); t; t = strtok(NULL, " \t\n"))
			levels++;
		initial = levels <= 1;
		break;
	}
	fclose(f);
	return initial;
}
