#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Record "workload rw" (buffered reads and writes, half of them with
# IOSQE_ASYNC, and an FSYNC, which io_uring always punts) and check that
# every forced-async request reaches io-wq (one io_uring_queue_async_work
# each), that the io-wq workers are named and that their activity is
# placed in time by whatever method this kernel allows.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

record -o "$T/rw.log" -- "$WORKLOAD" --compact rw >"$T/rw.json"
[ "$record_status" = 0 ] || fail "uring-record exited with $record_status"
stat_log "$T/rw.log" "$T/rw.stat"
"$LOGSTAT" --dump "$T/rw.log" >"$T/rw.dump" || fail "logstat --dump"
pycheck - "$T/rw.stat" "$T/rw.json" "$T/rw.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
common_log_checks(stat)
eq("submits per opcode", submitted(stat), workload_counts(wl, "submitted"))
eq("completes per opcode", stat["completes_by_opcode"], workload_counts(wl, "completed"))
eq("lost", stat["losses"]["total"], 0)

forced = set(wl["paths"]["async_forced"])
always = set(wl["paths"]["always_async"])
true("the workload forced some requests async", len(forced) >= 4, forced)
queued = {}
for r in recs:
    if r["type"] == "queue_async_work":
        queued[r["user_data"]] = queued.get(r["user_data"], 0) + 1
for ud in sorted(forced | always):
    eq("queue_async_work for %d" % ud, queued.get(ud, 0), 1)
may = set(wl["kernel_may_choose"]["may_io_wq"])
extra = set(queued) - forced - always - may
eq("queued requests the workload did not expect", extra, set())

# The submit events say IOSQE_ASYNC for exactly the forced ones.
for r in recs:
    if r["type"] == "submit":
        true("SQE read for %d" % r["user_data"], r["flags"] & 2, r)
        eq("IOSQE_ASYNC of %d" % r["user_data"], bool(r["sqe_flags"] & 16),
           r["user_data"] in forced)

# io-wq workers: named iou-wrk-<pid>, marked PF_IO_WORKER, in the process.
workers = {t["tid"]: t for t in stat["tasks"] if t["kind"] == "io_worker"}
for w in wl["kernel_may_choose"]["io_threads_seen"]:
    true("worker %d recorded" % w["tid"], w["tid"] in workers, sorted(workers))
    if w["tid"] in workers:
        eq("worker %d comm" % w["tid"], workers[w["tid"]]["comm"], w["comm"])
        eq("worker %d process" % w["tid"], workers[w["tid"]]["tgid"], wl["pid"])
true("at least one io-wq worker", workers)

mode = stat["meta"]["io_wq_tracking"]
if mode in ("fentry", "kprobe"):
    begun = {r["user_data"] for r in recs if r["type"] == "work_begin"}
    true("every forced request ran in io-wq", forced <= begun, forced - begun)
    eq("work begin/end pairs", stat["records"].get("work_begin", 0),
       stat["records"].get("work_end", 0))
elif mode == "sched_switch":
    ran = {r["next_tid"] for r in recs if r["type"] == "sched_switch"}
    true("io-wq workers seen running", set(workers) & ran, (sorted(workers), sorted(ran)))
else:
    failures.append("io-wq tracking is %r on this kernel" % mode)
# each forced request completes once (on a worker, or through task work:
# which one is the kernel's choice)
done_ud = [r["user_data"] for r in recs if r["type"] == "complete" and r["user_data"] in forced]
eq("completions of forced requests", sorted(done_ud), sorted(forced))
done()
PY
note "ok ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["io_wq_tracking"])' "$T/rw.stat") io-wq tracking)"
