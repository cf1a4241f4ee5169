// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * log_fill LOG: fill the filesystem LOG is on exactly to its last byte with
 * frames of the log writer, then write one more frame (which must fail)
 * and finish the log with an END frame saying "disk full", as uring-record
 * does when the disk fills (tests/hardening/tmpfs_full.sh mounts a small
 * tmpfs for it).
 *
 * A recording that fills the disk at a frame's end leaves nothing to cut
 * back, so the END frame only fits if the writer kept room for it.  The
 * frames hold random bytes, which zstd stores as they are: after the first
 * frame the writer's overhead per frame is known, and the last frame is
 * sized to end exactly where the filesystem's free space does.  Frames are
 * of a type no reader knows and need not understand (skipped).
 *
 * Prints {"bytes": B, "frames": F, "exact": true|false, "refused": "..."}
 * and exits 0 if the END frame was written, 1 if not (said on stderr), 2 on
 * other errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/statvfs.h>

#include "log_writer.h"

#define FILL_FRAME_TYPE	200		/* unknown to readers, skippable */
#define PAYLOAD_MAX	8192
/* zstd's frame header stores the content size in 2 bytes from 256 to 65791 */
#define PAYLOAD_MIN	256
#define MAX_FRAMES	100000

static const char meta[] = "{\"records\":{\"byte_order\":\"little\",\"types\":[]}}";
static const char end[] = "{\"reason\":\"disk full\",\"message\":\"log_fill\"}";

/* Bytes the next frame can take: free blocks and the rest of the file's last one. */
static int room_left(const char *path, uint64_t size, uint64_t *room)
{
	struct statvfs sv;
	uint64_t block;

	if (statvfs(path, &sv))
		return -errno;
	block = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
	*room = (uint64_t)sv.f_bavail * block + (block - size % block) % block;
	return 0;
}

static int write_fill(struct log_writer *w, const unsigned char *payload, size_t n)
{
	struct log_frame_desc d = { .type = FILL_FRAME_TYPE, .stream = LOG_STREAM_GLOBAL };

	return log_write_frame(w, &d, payload, n);
}

int main(int argc, char **argv)
{
	struct log_writer_options opt = { .index_every = MAX_FRAMES + 1 };
	static unsigned char payload[PAYLOAD_MAX];
	uint64_t overhead = 0, room = 0, before;
	struct log_writer *w = NULL;
	bool exact = false;
	int ret, frames = 0;
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: log_fill LOG\n");
		return 2;
	}
	if (getrandom(payload, sizeof(payload), 0) != (ssize_t)sizeof(payload)) {
		fprintf(stderr, "log_fill: getrandom: %s\n", strerror(errno));
		return 2;
	}
	if (log_writer_create(&w, argv[1], &opt, err, sizeof(err))) {
		fprintf(stderr, "log_fill: %s\n", err);
		return 2;
	}
	ret = log_write_meta(w, meta, strlen(meta));
	if (ret) {
		fprintf(stderr, "log_fill: %s: cannot write the metadata: %s\n", argv[1],
			strerror(-ret));
		return 2;
	}
	while (!ret && frames < MAX_FRAMES) {
		size_t n = PAYLOAD_MAX;

		before = log_writer_bytes(w);
		if (room_left(argv[1], before, &room)) {
			fprintf(stderr, "log_fill: statvfs %s: %s\n", argv[1], strerror(errno));
			return 2;
		}
		if (!room) {
			/* full to the byte: this one cannot be written */
			exact = true;
			ret = write_fill(w, payload, PAYLOAD_MIN);
			if (!ret) {
				fprintf(stderr, "log_fill: a frame was written to a full disk\n");
				return 2;
			}
			break;
		}
		if (overhead) {
			if (room < overhead + PAYLOAD_MIN)
				break;		/* cannot end exactly: the test cannot tell */
			if (room - overhead <= PAYLOAD_MAX)
				n = room - overhead;
			else if (room - overhead - PAYLOAD_MAX < overhead + PAYLOAD_MIN)
				n = room - 2 * overhead - PAYLOAD_MIN;
		}
		ret = write_fill(w, payload, n);
		if (!ret) {
			overhead = log_writer_bytes(w) - before - n;
			frames++;
		}
	}
	printf("{\"bytes\": %llu, \"frames\": %d, \"exact\": %s, \"refused\": \"%s\"}\n",
	       (unsigned long long)log_writer_bytes(w), frames, exact ? "true" : "false",
	       ret ? strerror(-ret) : "");
	if (log_writer_finish(w, end, err, sizeof(err))) {
		fprintf(stderr, "log_fill: %s: %s\n", argv[1], err);
		return 1;
	}
	return 0;
}
