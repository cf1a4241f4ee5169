/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The end of a selection: when every process selected by -p (and, with
 * --follow, every descendant) has exited, and when the rings those
 * processes used are torn down.  It reads the BPF maps pid_filter and
 * ring_owner and asks /proc which of their processes still run, so a pid
 * reused by another process cannot keep a finished selection alive: the
 * BPF side drops a reused pid from pid_filter before the new process runs.
 */
#ifndef RINGSIDE_RECORDER_SELECTION_H
#define RINGSIDE_RECORDER_SELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Whether process tgid has a thread that has not exited.  A process whose
 * main thread exited (a zombie leader) runs on while another thread does.
 */
bool selection_process_alive(pid_t tgid);

/* Whether any process of pid_filter (tgid -> start time) is alive. */
bool selection_any_alive(int pid_filter_fd);

/*
 * How many rings of ring_owner (ring -> owner tgid) belong to a process that
 * is no longer alive: rings whose teardown is still to come.
 */
size_t selection_rings_closing(int ring_owner_fd);

#endif
