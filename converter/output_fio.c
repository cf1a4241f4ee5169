// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=fio -o DIR: the recording as a workload fio runs again.
 *
 *   DIR/<job>.iolog     fio iolog version 3 (fio 3.31 and later): one per
 *                       process ("p<pid>"), or per ring ("ring<N>") when
 *                       rings were chosen with --ring
 *   DIR/replay.fio      the job file: one job per iolog, ioengine=io_uring,
 *                       read_iolog, iodepth = the recorded peak in flight,
 *                       startdelay = when its first request came
 *   DIR/make-targets.sh creates DIR/targets/<file>, one scratch file of the
 *                       recorded extent per recorded file (sparse, or
 *                       filled with --filled); an existing target (a
 *                       symlink to a device) is left alone
 *   DIR/README.txt      what was written, what was left out and why
 *
 * fio's iolog has read, write, sync, datasync and trim only, one length
 * per request: opcodes with no such action, requests whose offset or byte
 * count the log does not hold, and requests that never ran are left out
 * and counted by opcode and reason.  Which file a request used comes from
 * replay_key.h alone.
 *
 * Timestamps are microseconds since the recording start (fio's own unit:
 * iolog.c, delay_since_ttime()).  fio takes no delay before a line that
 * follows a line stamped 0, so stamps are at least 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hmap.h"
#include "output.h"
#include "output_util.h"
#include "replay_key.h"

/*
 * Files are named targets/<name>, relative to where fio runs: fio 3.33
 * matches iolog lines to files by the name as written, so its directory=
 * option (which prefixes the files it adds) breaks the match.
 */
#define TARGETS "targets/"

#define IORING_FSYNC_DATASYNC_BIT	(1u << 0)	/* uapi IORING_FSYNC_DATASYNC */

enum fio_act { ACT_READ, ACT_WRITE, ACT_SYNC, ACT_DATASYNC };
static const char *const act_names[] = { "read", "write", "sync", "datasync" };

/* How an opcode maps to an iolog action; by name, as the log names them. */
enum fio_kind { KIND_UNSEEN = 0, KIND_RW, KIND_RWV, KIND_FSYNC, KIND_NONE };

struct fio_entry {
	uint64_t ts, done_ts, off, id;
	uint32_t len, file, group;
	uint8_t act;
};

struct fio_file {
	struct replay_key key;
	uint32_t group;
	uint64_t extent, n;
};

struct fio_group {
	uint32_t id;			/* pid, or ring number */
	uint64_t first_ts, last_ts, n;
	unsigned depth;
	uint64_t direct, buffered;	/* requests through an O_DIRECT fd, or not */
	uint64_t dsync, sync;		/* requests through an O_DSYNC / O_SYNC fd */
};

struct fio_skip {
	uint8_t opcode;
	const char *reason;
	uint64_t n;
};

struct fio_out {
	struct output base;
	struct output_config cfg;
	bool per_ring;
	const struct names *names;
	uint64_t start_ns;
	char *log_path;
	struct fio_entry *e;
	size_t n, cap;
	struct fio_file *files;
	size_t nfiles, filecap;
	struct hmap file_map, group_map, comm_map;
	struct fio_group *groups;
	size_t ngroups, groupcap;
	struct fio_skip *skips;
	size_t nskips, skipcap;
	uint64_t skipped;
	bool oom;
	uint8_t is_write[256];
	uint8_t kind[256];		/* enum fio_kind */
};

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void *q;

	if (need <= *cap)
		return true;
	q = realloc(*p, ncap * size);
	if (!q)
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

static enum fio_kind classify(struct fio_out *f, uint8_t op)
{
	static const struct { const char *name; enum fio_kind kind; bool write; } map[] = {
		{ "READ", KIND_RW, false }, { "READ_FIXED", KIND_RW, false },
		{ "WRITE", KIND_RW, true }, { "WRITE_FIXED", KIND_RW, true },
		{ "READV", KIND_RWV, false }, { "READV_FIXED", KIND_RWV, false },
		{ "WRITEV", KIND_RWV, true }, { "WRITEV_FIXED", KIND_RWV, true },
		{ "FSYNC", KIND_FSYNC, false },
	};
	char buf[NAMES_MAX_LEN];
	const char *name;

	if (f->kind[op] != KIND_UNSEEN)
		return f->kind[op];
	f->kind[op] = KIND_NONE;
	name = names_opcode(f->names, op, buf);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strcmp(name, map[i].name))
			continue;
		f->kind[op] = map[i].kind;
		f->is_write[op] = map[i].write;
	}
	return f->kind[op];
}

static void skip(struct fio_out *f, uint8_t opcode, const char *reason)
{
	f->skipped++;
	for (size_t i = 0; i < f->nskips; i++) {
		if (f->skips[i].opcode == opcode && f->skips[i].reason == reason) {
			f->skips[i].n++;
			return;
		}
	}
	if (!grow((void **)&f->skips, &f->skipcap, f->nskips + 1, sizeof(*f->skips))) {
		f->oom = true;
		return;
	}
	f->skips[f->nskips++] = (struct fio_skip){ opcode, reason, 1 };
}

/* Index + 1 of the value in map (a, b), adding one with add() if absent. */
static uint32_t lookup(struct fio_out *f, struct hmap *map, uint64_t a, uint64_t b,
		       void **arr, size_t *len, size_t *cap, size_t size)
{
	uintptr_t v = (uintptr_t)hmap_get(map, a, b);

	if (v)
		return (uint32_t)v;
	if (!grow(arr, cap, *len + 1, size) ||
	    hmap_put(map, a, b, (void *)(uintptr_t)(*len + 1))) {
		f->oom = true;
		return 0;
	}
	memset((char *)*arr + *len * size, 0, size);
	return (uint32_t)++*len;
}

/* The action and byte count of r, or the reason fio cannot express it. */
static const char *fio_action(struct fio_out *f, const struct model_request *r,
			      uint8_t *act, uint64_t *off, uint32_t *len)
{
	enum fio_kind kind = classify(f, r->opcode);

	if (kind == KIND_NONE)
		return "no fio iolog action for this operation";
	if (!r->submit_ts || r->status == REQ_IN_FLIGHT_AT_START)
		return "submitted before the recording started";
	if (r->path == PATH_FAILED)
		return "failed at submission (never ran)";
	if (!r->sqe_fields_valid)
		return "its SQE was not recorded";
	*off = 0;
	*len = 0;
	if (kind == KIND_FSYNC) {
		*act = r->op_flags & IORING_FSYNC_DATASYNC_BIT ? ACT_DATASYNC : ACT_SYNC;
		return NULL;
	}
	if (!r->off_valid)
		return "its offset was not recorded";
	if (r->off == UINT64_MAX)
		return "offset -1 (the file position): fio needs an offset";
	*act = f->is_write[r->opcode] ? ACT_WRITE : ACT_READ;
	*off = r->off;
	*len = r->len;
	if (kind == KIND_RW)
		return *len ? NULL : "zero length";
	/* sqe->len of a vectored request counts iovecs: the bytes are known
	 * only from the result. */
	if (!r->complete_ts || r->res <= 0)
		return "vectored: byte count known only from a successful completion";
	*len = (uint32_t)r->res;
	return NULL;
}

static void fio_request(struct output *o, const struct model_request *r)
{
	struct fio_out *f = (struct fio_out *)o;
	struct replay_key key;
	struct fio_entry *e;
	struct fio_file *file;
	struct fio_group *g;
	const char *why;
	uint64_t a, b, off;
	uint32_t fi, gi, len;
	uint8_t act = 0;

	if (f->oom)
		return;
	why = fio_action(f, r, &act, &off, &len);
	if (!why && !replay_key_of(r, &key, false))
		why = "no file descriptor recorded";
	if (why) {
		skip(f, r->opcode, why);
		return;
	}
	gi = lookup(f, &f->group_map, f->per_ring ? r->ring->number : r->submit_pid, 0,
		    (void **)&f->groups, &f->ngroups, &f->groupcap, sizeof(*f->groups));
	replay_key_words(&key, &a, &b);
	/* The same file in two jobs is two fio files: keyed by group too. */
	fi = lookup(f, &f->file_map, a, b ^ (uint64_t)gi << 32, (void **)&f->files, &f->nfiles,
		    &f->filecap, sizeof(*f->files));
	if (!gi || !fi || !grow((void **)&f->e, &f->cap, f->n + 1, sizeof(*f->e))) {
		f->oom = true;
		return;
	}
	g = &f->groups[gi - 1];
	g->id = f->per_ring ? r->ring->number : r->submit_pid;
	g->n++;
	if (r->file && (r->file->f_flags & O_DIRECT))
		g->direct++;
	else
		g->buffered++;
	if (r->file && (r->file->f_flags & O_SYNC) == O_SYNC)
		g->sync++;
	else if (r->file && (r->file->f_flags & O_DSYNC))
		g->dsync++;
	file = &f->files[fi - 1];
	file->key = key;
	file->group = gi - 1;
	file->n++;
	if (off + len > file->extent)
		file->extent = off + len;
	e = &f->e[f->n++];
	*e = (struct fio_entry){ .ts = r->submit_ts, .done_ts = r->complete_ts, .off = off,
				 .id = r->id, .len = len, .file = fi - 1, .group = gi - 1,
				 .act = act };
}

static void fio_task(struct output *o, const struct model_task *t)
{
	struct fio_out *f = (struct fio_out *)o;

	if (t->tid == t->pid && t->kind == TASK_THREAD &&
	    hmap_put(&f->comm_map, t->pid, 0, (void *)t))
		f->oom = true;
}

static int by_group_time(const void *pa, const void *pb)
{
	const struct fio_entry *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int by_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Peak requests in flight of the group's entries e[0..n) (sorted by
 * submission): the iodepth fio needs to keep as many queued.  A request
 * still open at the end counts as in flight until then.
 */
static unsigned peak_depth(const struct fio_entry *e, size_t n, uint64_t *ends)
{
	unsigned peak = 0;
	size_t j = 0;

	for (size_t i = 0; i < n; i++)
		ends[i] = e[i].done_ts ? e[i].done_ts : UINT64_MAX;
	qsort(ends, n, sizeof(*ends), by_u64);
	for (size_t i = 0; i < n; i++) {
		while (j < n && ends[j] <= e[i].ts)
			j++;
		if (i + 1 - j > peak)
			peak = (unsigned)(i + 1 - j);
	}
	return peak ? peak : 1;
}

static uint64_t stamp(const struct fio_out *f, uint64_t ts)
{
	uint64_t us = ts > f->start_ns ? (ts - f->start_ns) / 1000 : 0;

	return us ? us : 1;
}

static void group_name(const struct fio_out *f, const struct fio_group *g, char *buf,
		       size_t len)
{
	snprintf(buf, len, f->per_ring ? "ring%" PRIu32 : "p%" PRIu32, g->id);
}

static char *dir_path(const struct fio_out *f, const char *name, const char *ext)
{
	char *p;

	return asprintf(&p, "%s/%s%s", f->cfg.path, name, ext) < 0 ? NULL : p;
}

/* Open DIR/name+ext for writing; NULL after one error line in err. */
static FILE *open_in_dir(struct fio_out *f, const char *name, const char *ext,
			 char *err, size_t errlen)
{
	char *path = dir_path(f, name, ext);
	bool is_stdout;
	FILE *fp;

	if (!path) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fp = output_open_file(path, f->cfg.force, &is_stdout, err, errlen);
	free(path);
	return fp;
}

static int close_in_dir(struct fio_out *f, FILE *fp, const char *name, const char *ext,
			char *err, size_t errlen)
{
	bool bad = ferror(fp);

	if (fclose(fp) || bad) {
		snprintf(err, errlen, "%s/%s%s: write error: %s", f->cfg.path, name, ext,
			 strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* One iolog: e[0..n) are the group's entries, by submission time. */
static int write_iolog(struct fio_out *f, const struct fio_group *g, const struct fio_entry *e,
		       size_t n, char *err, size_t errlen)
{
	char name[32], fname[REPLAY_KEY_NAME_LEN];
	const char *what[] = { "add", "open" };
	FILE *fp;

	group_name(f, g, name, sizeof(name));
	fp = open_in_dir(f, name, ".iolog", err, errlen);
	if (!fp)
		return -1;
	fputs("fio version 3 iolog\n", fp);
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < f->nfiles; i++)
			if (&f->groups[f->files[i].group] == g)
				fprintf(fp, "%" PRIu64 " " TARGETS "%s %s\n", stamp(f, g->first_ts),
					replay_key_name(&f->files[i].key, fname), what[w]);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%" PRIu64 " " TARGETS "%s %s %" PRIu64 " %" PRIu32 "\n", stamp(f, e[i].ts),
			replay_key_name(&f->files[e[i].file].key, fname), act_names[e[i].act],
			e[i].off, e[i].len);
	for (size_t i = 0; i < f->nfiles; i++)
		if (&f->groups[f->files[i].group] == g)
			fprintf(fp, "%" PRIu64 " " TARGETS "%s close\n", stamp(f, g->last_ts),
				replay_key_name(&f->files[i].key, fname));
	return close_in_dir(f, fp, name, ".iolog", err, errlen);
}

/* A task name as printable ASCII, for comments. */
static void comm_of(struct fio_out *f, uint32_t pid, char *buf, size_t len)
{
	const struct model_task *t = hmap_get(&f->comm_map, pid, 0);
	size_t i = 0;

	for (const char *s = t ? t->comm : ""; *s && i + 1 < len; s++)
		buf[i++] = *s > ' ' && *s < 127 ? *s : '?';
	buf[i] = '\0';
}

static void write_job_header(struct fio_out *f, FILE *fp)
{
	fprintf(fp, "# fio job file written by uring-convert %s from %s\n"
		"# Run: sh make-targets.sh && fio replay.fio (in this directory); see README.txt\n"
		"#\n"
		"# Each recorded file is targets/<name>: make-targets.sh creates scratch\n"
		"# files of the recorded extent; replace one by a symlink to another file\n"
		"# or a device to replay there.  Or send every file to one target:\n"
		"#   replay_redirect=/path/to/scratch\n"
		"# Scale time with replay_time_scale=PERCENT, or drop it: replay_no_stall=1\n"
		"[global]\n"
		"ioengine=io_uring\n", PACKAGE_VERSION, f->log_path);
}

static void write_job(struct fio_out *f, FILE *fp, const struct fio_group *g, uint64_t t0)
{
	char name[32], comm[EV_COMM_LEN + 1] = "";
	uint64_t delay = g->first_ts > t0 ? (g->first_ts - t0) / 1000 : 0;

	group_name(f, g, name, sizeof(name));
	if (!f->per_ring)
		comm_of(f, g->id, comm, sizeof(comm));
	fprintf(fp, "\n# %s %" PRIu32 "%s%s: %" PRIu64 " requests, peak %u in flight\n"
		"[%s]\nread_iolog=%s.iolog\niodepth=%u\n", f->per_ring ? "ring" : "process",
		g->id, *comm ? " " : "", comm, g->n, g->depth, name, name, g->depth);
	if (delay)
		fprintf(fp, "startdelay=%" PRIu64 "us\n", delay);
	/*
	 * fio opens a job's files one way: as most of the job's requests'
	 * files were (format 3.1 logs name them; older ones say nothing).
	 */
	if (g->direct > g->buffered)
		fprintf(fp, "direct=1\n");
	if (g->sync + g->dsync > g->n / 2)
		fprintf(fp, "sync=%s\n", g->sync >= g->dsync ? "sync" : "dsync");
	if (g->direct && g->buffered)
		fprintf(fp, "# %" PRIu64 " requests went through an O_DIRECT fd, %" PRIu64
			" not: fio opens every file of a job alike\n", g->direct, g->buffered);
}

static void write_skips(const struct fio_out *f, FILE *fp, const char *prefix)
{
	char buf[NAMES_MAX_LEN];

	for (size_t i = 0; i < f->nskips; i++)
		fprintf(fp, "%s%" PRIu64 " %s: %s\n", prefix, f->skips[i].n,
			names_opcode(f->names, f->skips[i].opcode, buf), f->skips[i].reason);
}

static void write_readme(struct fio_out *f, FILE *fp)
{
	char name[32], fname[REPLAY_KEY_NAME_LEN], desc[96];
	uint64_t written = f->n;

	fprintf(fp, "fio replay of %s, written by uring-convert %s\n\n"
		"Run it (fio 3.31 or later, for iolog version 3):\n"
		"  sh make-targets.sh            # sparse scratch files in targets/\n"
		"  sh make-targets.sh --filled   # ... or written with zeros first\n"
		"  fio replay.fio\n\n"
		"%" PRIu64 " requests written in %zu iologs, %" PRIu64 " left out.\n",
		f->log_path, PACKAGE_VERSION, written, f->ngroups, f->skipped);
	if (f->nskips) {
		fputs("\nLeft out (fio's iolog has read, write, sync, datasync and trim only):\n", fp);
		write_skips(f, fp, "  ");
	}
	fputs("\nJobs:\n", fp);
	for (size_t i = 0; i < f->ngroups; i++) {
		group_name(f, &f->groups[i], name, sizeof(name));
		fprintf(fp, "  %-12s %s.iolog, %" PRIu64 " requests, iodepth %u\n", name, name,
			f->groups[i].n, f->groups[i].depth);
	}
	fputs("\nFiles (targets/<name>; recorded as; extent in bytes; requests):\n", fp);
	for (size_t i = 0; i < f->nfiles; i++) {
		replay_key_describe(&f->files[i].key, desc, sizeof(desc));
		fprintf(fp, "  %-20s %s; %" PRIu64 "; %" PRIu64 "\n",
			replay_key_name(&f->files[i].key, fname), desc, f->files[i].extent,
			f->files[i].n);
	}
}

static void write_targets(struct fio_out *f, FILE *fp)
{
	char fname[REPLAY_KEY_NAME_LEN];

	fputs("#!/bin/sh\n"
	      "# Scratch files for replay.fio, in targets/ beside this script, of the\n"
	      "# recorded extent: sparse, or written with zeros with --filled.  An existing\n"
	      "# target (a file, or a symlink to a device) is left alone.\n"
	      "set -e\ncd \"$(dirname \"$0\")\"\nmkdir -p targets\n"
	      "make() {\n"
	      "\t[ -e \"targets/$1\" ] && return 0\n"
	      "\tif [ \"$FILLED\" ]; then head -c \"$2\" /dev/zero > \"targets/$1\"\n"
	      "\telse truncate -s \"$2\" \"targets/$1\"; fi\n"
	      "}\n"
	      "FILLED=\n[ \"$1\" = --filled ] && FILLED=1\n", fp);
	for (size_t i = 0; i < f->nfiles; i++) {
		bool dup = false;

		/* One target per name, however many jobs use it. */
		for (size_t j = 0; j < i && !dup; j++)
			dup = !memcmp(&f->files[j].key, &f->files[i].key, sizeof(f->files[i].key));
		if (!dup)
			fprintf(fp, "make %s %" PRIu64 "\n", replay_key_name(&f->files[i].key, fname),
				f->files[i].extent);
	}
}

static int fio_begin(struct output *o, const struct output_meta *meta, char *err,
		     size_t errlen)
{
	struct fio_out *f = (struct fio_out *)o;
	const char *dir = f->cfg.path;
	struct stat st;

	f->names = meta->names;
	f->start_ns = meta->start_ns;
	f->log_path = strdup(meta->log_path ? meta->log_path : "");
	if (!f->log_path) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: exists and is not a directory (--format=fio needs -o DIR)", dir);
			return -1;
		}
	} else if (errno != ENOENT || mkdir(dir, 0755)) {
		snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_all(struct fio_out *f, char *err, size_t errlen)
{
	uint64_t *ends = malloc((f->n ? f->n : 1) * sizeof(*ends));
	uint64_t t0 = UINT64_MAX;
	FILE *fp;
	size_t i = 0;

	if (!ends) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (f->n)	/* nothing selected: f->e is NULL */
		qsort(f->e, f->n, sizeof(*f->e), by_group_time);
	while (i < f->n) {
		struct fio_group *g = &f->groups[f->e[i].group];
		size_t j = i;

		while (j < f->n && f->e[j].group == f->e[i].group)
			j++;
		g->first_ts = f->e[i].ts;
		g->last_ts = f->e[j - 1].ts;
		g->depth = peak_depth(f->e + i, j - i, ends);
		if (g->first_ts < t0)
			t0 = g->first_ts;
		if (write_iolog(f, g, f->e + i, j - i, err, errlen)) {
			free(ends);
			return -1;
		}
		i = j;
	}
	free(ends);
	fp = open_in_dir(f, "replay", ".fio", err, errlen);
	if (!fp)
		return -1;
	write_job_header(f, fp);
	if (f->nskips) {
		fputs("#\n# Left out, as fio cannot express them:\n", fp);
		write_skips(f, fp, "#   ");
	}
	for (i = 0; i < f->ngroups; i++)
		write_job(f, fp, &f->groups[i], t0);
	if (close_in_dir(f, fp, "replay", ".fio", err, errlen))
		return -1;
	fp = open_in_dir(f, "make-targets", ".sh", err, errlen);
	if (!fp)
		return -1;
	write_targets(f, fp);
	if (close_in_dir(f, fp, "make-targets", ".sh", err, errlen))
		return -1;
	fp = open_in_dir(f, "README", ".txt", err, errlen);
	if (!fp)
		return -1;
	write_readme(f, fp);
	return close_in_dir(f, fp, "README", ".txt", err, errlen);
}

static int fio_end(struct output *o, const struct output_totals *t, char *err, size_t errlen)
{
	struct fio_out *f = (struct fio_out *)o;

	(void)t;
	if (f->oom) {
		snprintf(err, errlen, "%s: out of memory", f->cfg.path);
		return -1;
	}
	if (write_all(f, err, errlen))
		return -1;
	if (f->cfg.quiet)
		return 0;
	fprintf(stderr, "uring-convert: %s: %zu requests in %zu fio iologs, %" PRIu64
		" left out that fio cannot express%s\n", f->cfg.path, f->n, f->ngroups,
		f->skipped, f->nskips ? ":" : "");
	write_skips(f, stderr, "  ");
	return 0;
}

static void fio_destroy(struct output *o)
{
	struct fio_out *f = (struct fio_out *)o;

	hmap_free(&f->file_map);
	hmap_free(&f->group_map);
	hmap_free(&f->comm_map);
	free(f->e);
	free(f->files);
	free(f->groups);
	free(f->skips);
	free(f->log_path);
	free(f);
}

static const struct output_ops fio_ops = {
	.name = "fio",
	.begin = fio_begin,
	.task = fio_task,
	.request = fio_request,
	.end = fio_end,
	.destroy = fio_destroy,
};

struct output *output_fio_new(const struct output_config *cfg, bool per_ring, char *err,
			      size_t errlen)
{
	struct fio_out *f;

	if (!cfg->path || !strcmp(cfg->path, "-")) {
		snprintf(err, errlen, "--format=fio writes several files: give a directory with -o DIR");
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->base.ops = &fio_ops;
	f->cfg = *cfg;
	f->per_ring = per_ring;
	hmap_init(&f->file_map);
	hmap_init(&f->group_map);
	hmap_init(&f->comm_map);
	return &f->base;
}
