// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pack_bench: ns per record of the recorder's log writer on a real log.
 *
 *   bench/pack_bench LOG [-r ROUNDS] [-z LEVEL] [-o OUT]
 *
 * Reads every EVENTS frame of LOG (recorded by this build's uring-record,
 * so its records have the compiled-in layouts), then writes them all
 * again ROUNDS times with log_write_events() -- packing into columns of
 * varints, zstd at LEVEL (default: the recorder's), the write -- to OUT
 * (default /dev/shm/pack_bench.log, removed at the end; an OUT given is
 * kept, holding the last round's log, so that two builds' bytes can be
 * compared), and prints the median, min and max ns of CPU per record over
 * the rounds and the bytes per record.  This is the recorder's writer
 * thread's work per event.  Each frame is first copied, untimed, into one
 * staging buffer, as the recorder's consumer copies records into a
 * recycled frame shortly before the writer takes it: the writer finds
 * them in the cache.  Frames read straight from the whole log in memory
 * would come from DRAM, and a writer whose loads cost more from there
 * than from the cache would be misjudged.  It does not see what a record
 * layout costs the consumer, nor the traffic between the two threads:
 * a change of layout is judged on the live recorder (bench/NOTEBOOK.md,
 * "Records grouped by type in the consumer").
 * Not part of make check: a benchmark, not a test.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log_format.h"
#include "log_reader.h"
#include "log_writer.h"

struct saved_frame {
	struct log_frame_desc d;
	void *records;
	size_t size;
};

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Every EVENTS frame of path into *frames, *n of them; 0 or -1. */
static int load(const char *path, struct saved_frame **frames, long *nframes, uint64_t *records)
{
	struct log_reader *r = NULL;
	struct log_frame f;
	char msg[256];
	long n = 0, cap = 0;
	int ret = 0;

	if (log_reader_open(&r, path, msg, sizeof(msg))) {
		fprintf(stderr, "pack_bench: %s\n", msg);
		return -1;
	}
	while (log_reader_next(r, &f)) {
		const void *buf;
		size_t len;
		struct saved_frame *s;

		if (f.h.type != LOG_FRAME_EVENTS || !f.h.count)
			continue;
		if (log_reader_payload(r, &f, 0, &buf, &len, msg, sizeof(msg))) {
			fprintf(stderr, "pack_bench: %s\n", msg);
			ret = -1;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			s = realloc(*frames, cap * sizeof(*s));
			if (!s) {
				fprintf(stderr, "pack_bench: %s: out of memory\n", path);
				ret = -1;
				break;
			}
			*frames = s;
		}
		s = &(*frames)[n];
		s->d = (struct log_frame_desc){
			.type = LOG_FRAME_EVENTS, .stream = f.h.stream, .count = f.h.count,
			.first_ts = f.h.first_ts, .last_ts = f.h.last_ts,
		};
		s->records = malloc(len);
		if (!s->records) {
			fprintf(stderr, "pack_bench: %s: out of memory\n", path);
			ret = -1;
			break;
		}
		memcpy(s->records, buf, len);
		s->size = len;
		*records += f.h.count;
		n++;
	}
	log_reader_close(r);
	*nframes = n;
	return ret;
}

int main(int argc, char **argv)
{
	const char *out = "/dev/shm/pack_bench.log";
	bool keep = false;
	struct saved_frame *frames = NULL;
	struct log_writer_options opt = { .overwrite = true };
	uint64_t records = 0, bytes = 0;
	double *ns = NULL;
	unsigned char *stage = NULL;
	size_t stage_size = 0;
	int rounds = 5, c, ret = 1;
	long nframes = 0;

	while ((c = getopt(argc, argv, "r:z:o:")) != -1) {
		switch (c) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'z':
			opt.zstd_level = atoi(optarg);
			break;
		case 'o':
			out = optarg;
			keep = true;
			break;
		default:
			goto usage;
		}
	}
	if (optind + 1 != argc || rounds < 1)
		goto usage;
	if (load(argv[optind], &frames, &nframes, &records))
		goto out;
	if (!nframes) {
		fprintf(stderr, "pack_bench: %s: no EVENTS frames\n", argv[optind]);
		goto out;
	}
	for (long k = 0; k < nframes; k++)
		stage_size = frames[k].size > stage_size ? frames[k].size : stage_size;
	ns = calloc(rounds, sizeof(*ns));
	stage = malloc(stage_size);
	if (!ns || !stage) {
		fprintf(stderr, "pack_bench: out of memory\n");
		goto out;
	}
	for (int i = 0; i < rounds; i++) {
		struct log_writer *w;
		char err[256];
		double t = 0;

		if (log_writer_create(&w, out, &opt, err, sizeof(err))) {
			fprintf(stderr, "pack_bench: %s\n", err);
			goto out;
		}
		if (log_write_meta(w, "{}", 2)) {
			fprintf(stderr, "pack_bench: %s: cannot write the metadata frame\n", out);
			log_writer_abort(w);
			goto out;
		}
		for (long k = 0; k < nframes; k++) {
			double t0;
			int werr;

			memcpy(stage, frames[k].records, frames[k].size);
			t0 = cpu_ns();
			werr = log_write_events(w, &frames[k].d, stage, frames[k].size);
			t += cpu_ns() - t0;
			if (werr) {
				fprintf(stderr, "pack_bench: frame %ld: cannot write it (a log of "
					"another build?)\n", k);
				log_writer_abort(w);
				goto out;
			}
		}
		ns[i] = t / (double)records;
		bytes = log_writer_bytes(w);
		if (keep && i == rounds - 1) {
			if (log_writer_finish(w, "{}", err, sizeof(err))) {
				fprintf(stderr, "pack_bench: %s\n", err);
				goto out;
			}
			continue;
		}
		log_writer_abort(w);
	}
	qsort(ns, rounds, sizeof(*ns), cmp_double);
	printf("%" PRIu64 " records in %ld frames: %.1f ns/record median [%.1f-%.1f] "
	       "over %d rounds, %.2f bytes/record\n", records, nframes, ns[rounds / 2], ns[0],
	       ns[rounds - 1], rounds, (double)bytes / (double)records);
	ret = 0;
out:
	if (!keep || ret)
		unlink(out);
	for (long k = 0; k < nframes; k++)
		free(frames[k].records);
	free(frames);
	free(ns);
	free(stage);
	return ret;
usage:
	fprintf(stderr, "usage: %s LOG [-r ROUNDS] [-z LEVEL] [-o OUT]\n", argv[0]);
	return 2;
}
