/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers for the uring-convert unit tests: write synthetic logs event by
 * event (through tests/synth_log), run the real conversion in-process into
 * a capturing output, and look at what the model delivered.
 */
#ifndef RINGSIDE_CONVERT_TEST_H
#define RINGSIDE_CONVERT_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "convert.h"
#include "output.h"
#include "synth_log.h"

/* ---- writing logs ---- */

#define T0 2000000000ull		/* a boot time after the start snapshot */

struct scen {
	struct synth_log *s;
	char *dir, *path;
	unsigned cpu;			/* CPU the next events go to */
};

void scen_open(struct scen *sc, const char *name);
void scen_open_opts(struct scen *sc, const char *name, const struct synth_options *opt);
void scen_finish(struct scen *sc);	/* END frame, close */
void scen_free(struct scen *sc);	/* remove the files */

void ev_task(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, const char *comm,
	     uint32_t flags, uint16_t reason);
void ev_enter_begin(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    int fd, uint32_t to_submit, uint32_t min_complete, uint32_t flags);
void ev_enter_end(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		  int64_t ret);
/* An enter begin or end with the shared CQ head and tail (cq_order: log2
 * of the CQ size, begin only; 0 unknown). */
void ev_enter_cq(struct scen *sc, bool begin, uint64_t ts, uint32_t tid, uint32_t pid,
		 uint64_t ring, uint8_t cq_order, uint32_t cq_head, uint32_t cq_tail);
void ev_create(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring, int fd,
	       uint32_t setup_flags);
void ev_submit(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
	       uint64_t req, uint8_t opcode, uint64_t user_data, uint8_t sqe_flags,
	       uint16_t evflags);
void ev_complete(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		 uint64_t req, uint64_t user_data, int32_t res, uint32_t cflags);
void ev_req(struct scen *sc, uint16_t type, uint64_t ts, uint32_t tid, uint32_t pid,
	    uint64_t ring, uint64_t req, uint64_t user_data);	/* queue_async, defer, poll_arm, task_add */
void ev_link(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
	     uint64_t req, uint64_t target);
void ev_fail_link(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		  uint64_t failed, uint64_t member);
void ev_cqring_wait(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    int min_events);
void ev_tw_run(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint32_t count);
void ev_overflow(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		 uint64_t user_data, int32_t res, bool dropped);
void ev_lost(struct scen *sc, uint64_t ts, uint64_t last_ts, uint32_t count);
void ev_req_failed(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		   uint64_t req, uint8_t opcode, uint64_t user_data, int32_t error);
/* queue_async_work with the io-wq work flags (format 3.1). */
void ev_queue_async(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		    uint64_t req, uint64_t user_data, bool hashed, uint32_t work_flags);
void ev_task_exit(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid);
void ev_work(struct scen *sc, bool begin, uint64_t ts, uint32_t tid, uint32_t pid,
	     uint64_t ring, uint64_t req);
/* A completion naming a file (format 3.1: EVF_FILE_VALID). */
void ev_complete_file(struct scen *sc, uint64_t ts, uint32_t tid, uint32_t pid, uint64_t ring,
		      uint64_t req, uint64_t user_data, int32_t res, uint64_t file);
/* A file record; path holds the names leaf first, NUL-separated (len bytes). */
void ev_file(struct scen *sc, uint64_t ts, uint64_t file, uint32_t dev, uint64_t ino,
	     uint32_t f_flags, uint32_t nlink, uint16_t mode, const char *fs,
	     const char *path, size_t len, unsigned ncomp, uint8_t path_flags);

/* ---- converting ---- */

struct capture {
	struct output base;
	struct model_request *req;	/* ->ring is NULL: use req_ring();
					 * ->file points into req_file */
	unsigned *req_ring_no;
	size_t nreq, reqcap, ringnocap;
	struct model_file *req_file;	/* copy of each request's file, number 0
					 * when none; path malloc'd */
	size_t filecap;
	struct model_syscall *sys;
	size_t nsys, syscap;
	struct model_marker *mark;
	size_t nmark, markcap;
	struct model_loss *loss;
	size_t nloss, losscap;
	struct model_cqe *cqe;
	size_t ncqe, cqecap;
	uint64_t counters, raw_events;
	int64_t counter_last[COUNTER_KIND_COUNT], counter_max[COUNTER_KIND_COUNT];
	/* copies of the final tasks and rings */
	struct model_task *tasks;
	size_t ntasks;
	struct model_ring *rings;
	size_t nrings;
	char *warnings;			/* all warning lines, '\n'-separated */
	uint64_t records, unknown_records, lost_events;
	uint64_t read_to_ns;		/* output_totals.read_to_ns */
	bool store;			/* false: count only (memory test) */
	bool want_raw;
};

struct capture *capture_new(bool store);
void capture_free(struct capture *c);
/* Convert path into a new capture; aborts the test when conversion fails. */
struct capture *convert_capture(const char *path, const struct options *extra);

/* Request by user_data (the first one delivered); fails the test if absent. */
const struct model_request *req_by_ud(const struct capture *c, uint64_t user_data);
size_t count_markers(const struct capture *c, enum marker_kind kind);
/* A delivered request's file (a copy), NULL when it had none. */
const struct model_file *req_file(const struct capture *c, const struct model_request *r);
/* The final state of a delivered request's ring. */
const struct model_ring *req_ring(const struct capture *c, const struct model_request *r);

#endif
