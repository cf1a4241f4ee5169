/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An output that runs another output on a thread of its own, so that the
 * model (on the caller's thread) and the formatting (on this one) run on
 * two CPUs.  Every call the model makes is copied into a message, the
 * messages go through a block_queue (a fixed number of blocks in flight:
 * memory stays flat), and the thread replays them to the inner output in
 * the same order, with the same arguments: its output is byte for byte
 * the one it would write on the model's thread.
 *
 * The inner output never sees the model's objects, which the model keeps
 * changing on its own thread.  It sees mirrors instead: one per task,
 * ring and file, at a stable address, owned by this output until
 * destroy().  A task's or ring's mirror is updated, on the thread, from
 * the copy each task() or ring() call carries, so it holds at each call
 * what the model's object held at that call, for every field the model
 * changes with a call (output.h).  The fields that move without one
 * (first_ts/last_ts, model_ring.requests, the io-wq counts that do not
 * announce the ring) are the mirror's as of the last task() or ring()
 * until end(): outputs read them in end() only.  end() copies every
 * task's and ring's final state into its mirror and hands the inner
 * output totals whose tasks and rings are the mirrors, so that pointers
 * kept from task() and ring() and the totals' agree.  A file is copied
 * (path too) when a request first names it; files never change.
 *
 * begin() runs the inner begin() on the caller's thread; end() waits
 * until everything is replayed, joins the thread and runs the inner end()
 * on the caller's thread, returning its result; destroy() stops the
 * thread (dropping what was not replayed) before destroying the inner
 * output.
 */
#ifndef RINGSIDE_OUTPUT_ASYNC_H
#define RINGSIDE_OUTPUT_ASYNC_H

#include "output.h"

/*
 * Wraps inner, starting the thread.  NULL when out of memory or the
 * thread cannot start: inner is then left as it was, for the caller to
 * use directly.  On success destroy() destroys both.
 */
struct output *output_async_new(struct output *inner);

#endif
