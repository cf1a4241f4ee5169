/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-CPU BPF ring buffers and their consumer.
 *
 * The BPF side stages records per CPU and writes them to the CPU's ring in
 * batches (bpf/stage.h, UR_STAGE_BYTES): a ring-buffer entry holds
 * one or more whole records, split here by type size.  What a CPU has
 * staged reaches its ring when the stage fills, when ringbufs_flush_stages()
 * runs the BPF program flush_stage on that CPU, and at stop
 * ringbufs_collect_stages() reads what is left straight from the map.
 *
 * One BPF_MAP_TYPE_RINGBUF per online CPU, created here at the chosen size
 * and placed in the BPF side's array of maps.  The consumer reads the rings
 * through its own mmap()s (like libbpf's, but publishing the consumer
 * position once per batch instead of once per record, and bounding each
 * drain so a busy CPU cannot starve the others or the flush timer).  It
 * only copies: each record is checked against the layout table, its kernel
 * addresses are replaced by opaque ids, and it is appended to its CPU's
 * staging EVENTS frame; full frames go to the writer queue.
 */
#ifndef RINGSIDE_RECORDER_RINGBUFS_H
#define RINGSIDE_RECORDER_RINGBUFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "pointer_scrub.h"

struct rb_cpu {
	int fd;				/* -1: no ring (CPU offline at start) */
	void *cons_map;
	void *prod_map;
	unsigned long *consumer_pos;
	const unsigned long *producer_pos;
	const unsigned char *data;
	uint64_t mask;
	struct frame *stage;
	bool stage_busy;		/* flush_stage found the CPU in a program */
};

struct ringbufs {
	unsigned ncpus;			/* possible CPUs */
	struct rb_cpu *cpu;
	int epfd;
	size_t page_size;
	uint64_t ring_size;
	size_t frame_size;
	struct frame_queue *q;
	struct pointer_scrub *scrub;
	struct user_losses ul;
	uint16_t type_size[EV_TYPE_LIMIT];
	int flush_prog_fd;		/* BPF flush_stage, -1 until set */
	int cpu_state_fd;		/* BPF cpu_states (PERCPU_ARRAY of ur_cpu_state) */
	/* --trigger: sees every record copied, ids scrubbed; NULL: none asked */
	void (*on_record)(void *arg, unsigned cpu, const void *rec);
	void *on_record_arg;
	/* Counters (consumer thread only). */
	uint64_t records;		/* event records copied (not "lost" markers) */
	uint64_t bytes;
	uint64_t kernel_lost_reported;	/* sum of in-band kernel "lost" counts */
	uint64_t malformed;		/* records that did not match the layout table */
	uint64_t frames_dropped;
	uint64_t drains;
	uint64_t stage_flushes;		/* flush_stage runs that found the CPU free */
	uint64_t stage_flush_busy;	/* ... that found it busy (retried) */
	uint64_t stage_flush_errors;	/* ... that could not run (CPU offline) */
	uint64_t staged_at_stop;	/* records read from the stages at stop */
};

/*
 * Create a ring of ring_size bytes for each online CPU.  Returns 0 or a
 * negative errno (with a message).
 */
int ringbufs_create(struct ringbufs *r, unsigned ncpus, const bool *online,
		    uint64_t ring_size, size_t frame_size, struct frame_queue *q,
		    struct pointer_scrub *scrub);
/*
 * One of the rings, as the inner-map template of the BPF array of maps
 * (libbpf 1.1 cannot resize its own template: bpf_map__set_max_entries()
 * on an inner map dereferences a NULL object).
 */
int ringbufs_template_fd(const struct ringbufs *r);
/* Store the rings in the loaded BPF array of maps. */
int ringbufs_install(struct ringbufs *r, int outer_fd);
void ringbufs_destroy(struct ringbufs *r);
/* Add another fd (signalfd, eventfd) to the wait set; its events return tag. */
int ringbufs_watch(struct ringbufs *r, int fd, uint32_t tag);
/*
 * Wait up to timeout_ms for a ring's forced wakeup or a watched fd.
 * Returns a bit mask of the watched tags that are ready (1 << tag).
 */
unsigned ringbufs_wait(struct ringbufs *r, int timeout_ms);
/* Copy what every ring holds (bounded per ring unless all is set). */
void ringbufs_drain(struct ringbufs *r, bool all);
/*
 * Hand every non-empty staging frame to the writer queue; final: at stop,
 * past the queue's limit (the writer is then waited for, so nothing is
 * dropped, and drop markers already in the frames reach the log).
 */
void ringbufs_flush(struct ringbufs *r, bool final);
/* The BPF program flush_stage and the map cpu_states, once loaded. */
void ringbufs_set_stage(struct ringbufs *r, int flush_prog_fd, int cpu_state_fd);
/*
 * Make every CPU with a ring write what it has staged to its ring (run
 * flush_stage there); a CPU found inside a program is retried by the next
 * ringbufs_drain().  Drain afterwards to have it all.
 */
void ringbufs_flush_stages(struct ringbufs *r);
/*
 * At stop, when no program can run any more: append the records still
 * staged on every CPU, online or not, after what its ring held.
 */
void ringbufs_collect_stages(struct ringbufs *r);
/* Append a record the recorder made (at-stop "lost" records). */
void ringbufs_add(struct ringbufs *r, unsigned cpu, const void *rec, size_t size);

#endif
