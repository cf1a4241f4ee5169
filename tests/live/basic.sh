#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Record "workload nop" and "workload registered" through -- COMMAND and
# check everything exactly against the workload's ground truth: requests
# per opcode, every io_uring_enter/setup call with its arguments and return
# value, SQ/CQ ring positions, the task, no losses, opaque ids.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

for scenario in nop registered; do
	record -o "$T/$scenario.log" -- "$WORKLOAD" --compact "$scenario" >"$T/$scenario.json"
	[ "$record_status" = 0 ] || fail "$scenario: uring-record exited with $record_status"
	grep -q "lost 0 events" "$T/record.err" || fail "$scenario: no 'lost 0 events' line"
	stat_log "$T/$scenario.log" "$T/$scenario.stat"
	"$LOGSTAT" --dump "$T/$scenario.log" >"$T/$scenario.dump" || fail "logstat --dump"
	pycheck - "$T/$scenario.stat" "$T/$scenario.json" "$T/$scenario.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
common_log_checks(stat)
eq("exit status in END", stat["stop"]["end"]["exit_status"], 0)
eq("submits per opcode", submitted(stat), workload_counts(wl, "submitted"))
eq("completes per opcode", stat["completes_by_opcode"], workload_counts(wl, "completed"))
eq("completions without a request", stat["completes_unmatched"], wl["cqes"]["more"] + wl["cqes"]["aux"])
eq("submits with their SQE read", stat["submits_sqe_valid"], sum(stat["submits_by_opcode"].values()))
eq("lost", stat["losses"]["total"], 0)
eq("rings resolved", stat["meta"]["rings_resolved"], True)

# Every record comes from the workload or a process it forked (the filter;
# e.g. LeakSanitizer's tracer under ASan), and it is named.
pid = wl["pid"]
tasks = {t["tid"]: t for t in stat["tasks"]}
tgids = {r["tgid"] for r in recs if r["type"] not in ("lost", "sched_switch")}
eq("processes recorded", {t for t in tgids if t == pid or tasks.get(t, {}).get("parent_tgid") != pid}, {pid})
io_tgids = {r["tgid"] for r in recs if r["type"] not in ("lost", "sched_switch", "task", "task_exit")}
eq("processes doing io_uring", io_tgids, {pid})
# a context switch is recorded for its io_uring thread, in or out
for r in recs:
    if r["type"] == "sched_switch":
        true("switch involves the workload", pid in (r["tgid"], r["next_tgid"]), r)
true("workload task recorded", pid in tasks)
if pid in tasks:
    eq("workload comm", tasks[pid]["comm"], "workload")
    true("exec seen", "exec" in tasks[pid]["reasons"], tasks[pid]["reasons"])
    eq("workload exit code", tasks[pid]["exit_code"], 0)

# io_uring_enter: every call, in order, with its arguments and result.
want = [(c["fd"], c["to_submit"], c["min_complete"], c["flags"], c["ret"])
        for c in wl["enter_calls"]["calls"]]
got = [(c["fd"], c["to_submit"], c["min_complete"], c["enter_flags"], c["ret"])
       for c in stat["syscalls"]["enter"]]
eq("io_uring_enter calls", got, want)
eq("io_uring_enter unpaired", stat["syscalls"]["enter_unpaired"], 0)
sqpoll = any(r["sqpoll"] for r in wl["rings"])
for i, c in enumerate(stat["syscalls"]["enter"]):
    registered = bool(c["enter_flags"] & 16)
    true("enter %d: ring resolved" % i, c["ring_valid"], c)
    true("enter %d: SQ/CQ read" % i, c["state_valid"], c)
    if not sqpoll and c["ret"] >= 0:
        eq("enter %d: SQ head moved by the submitted count" % i,
           (c["end_sq_head"] - c["sq_head"]) & 0xffffffff, min(c["ret"], c["to_submit"]))
want = [(c["entries"], c["flags"], c["ret"]) for c in wl["setup_calls"]["calls"]]
got = [(c["entries"], c["setup_flags"], c["ret"]) for c in stat["syscalls"]["setup"]]
eq("io_uring_setup calls", got, want)
true("setup params read", all(c["params_valid"] for c in stat["syscalls"]["setup"]))
want = [(c["opcode"], c["nr_args"], c["ret"]) for c in wl["register_calls"]["calls"]]
got = [(c["opcode"], c["nr_args"], c["ret"]) for c in stat["syscalls"]["register"]]
eq("io_uring_register calls", got, want)
# the tracepoint io_uring_register fires for each successful registration
eq("register tracepoints", stat["records"].get("register", 0),
   sum(1 for c in wl["register_calls"]["calls"] if c["ret"] >= 0))
eq("create tracepoints", stat["records"].get("create", 0),
   sum(1 for c in wl["setup_calls"]["calls"] if c["ret"] >= 0))

# Ring ids: io_uring_enter resolves the same ring as the requests' events.
rings = {r["ring"] for r in recs if r["type"] == "submit"}
enter_rings = {c["ring"] for c in stat["syscalls"]["enter"]}
true("enter rings are request rings", enter_rings <= rings, (enter_rings, rings))
done()
PY
	note "$scenario: ok"
done
