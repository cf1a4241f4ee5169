#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Filters keep exactly what they select.  Two shells keep starting short
# io_uring workloads; recordings with -p (with and without --follow), with
# -- COMMAND, with --comm and with --cgroup must hold events of their
# selection only, and a system-wide recording sees both.  With --cgroup,
# context switches into io_uring threads are selected by the thread's own
# cgroup, not by the cgroup of the task that ran before it.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

cp "$WORKLOAD" "$T/wl-comm-test"
loop() {	# loop BINARY: run "BINARY nop" over and over
	sh -c 'while :; do "$1" --compact nop >/dev/null || exit 1; sleep 0.02; done' loop "$1" &
}
loop "$WORKLOAD"
other=$!
loop "$WORKLOAD"
target=$!
loop "$T/wl-comm-test"
named=$!
stop_loops() {
	kill "$other" "$target" "$named" ${cg_loop:-} ${switch_pids:-} 2>/dev/null || true
	wait 2>/dev/null || true
	[ -n "${cg_dir:-}" ] || return 0
	# the loop's last child may outlive it for a moment: empty the cgroup
	i=0
	while [ -n "$(cat "$cg_dir/cgroup.procs")" ] && [ "$i" -lt 50 ]; do
		kill $(cat "$cg_dir/cgroup.procs") 2>/dev/null || true
		sleep 0.1
		i=$((i + 1))
	done
	rmdir "$cg_dir" 2>/dev/null || echo "$test_name: could not remove $cg_dir" >&2
}
cleanup_hooks="stop_loops"
sleep 0.3

check() {	# check NAME EXPECTATION [ARG]
	stat_log "$T/$1.log" "$T/$1.stat"
	"$LOGSTAT" --dump "$T/$1.log" >"$T/$1.dump" || fail "logstat --dump $1"
	pycheck - "$T/$1.stat" "$T/$1.dump" "$2" "${3:-0}" "$other" "$target" "$named" <<'PY'
import sys
from check import *
stat, recs, want = load(sys.argv[1]), dump(sys.argv[2]), sys.argv[3]
args = [int(x) for x in sys.argv[4].split()]
arg = args[0]
other, target, named = (int(x) for x in sys.argv[5:8])
tasks = {t["tid"]: t for t in stat["tasks"]}
def io_thread(tid):
    return tasks.get(tid, {}).get("kind") in ("io_worker", "sqpoll", "io_thread")
def procs(kind):
    """tgids of the records of a kind.  A context switch is recorded for
    its io_uring thread side(s), named in the log; the other side is
    whatever ran before or after it.  A switch with no named io_uring
    thread counts for both sides."""
    out = set()
    for r in recs:
        if r["type"] == "lost":
            continue
        if kind == "io" and r["type"] in ("task", "task_exit"):
            continue
        if r["type"] == "sched_switch":
            sides = ((r["tid"], r["tgid"]), (r["next_tid"], r["next_tgid"]))
            out |= {g for t, g in sides if io_thread(t)} or {g for t, g in sides}
            continue
        out.add(r["tgid"])
    out.discard(0)
    return out
def explain(bad):
    """what the log holds about processes a check did not expect"""
    for p in sorted(bad):
        print("process %d: %s; records %s" % (p, tasks.get(p),
              sorted({r["type"] for r in recs if p in (r["tgid"], r.get("next_tgid"))})), file=sys.stderr)
def parent(tgid):
    t = tasks.get(tgid)
    return t["parent_tgid"] if t else None
io = procs("io")
submits = sum(stat["submits_by_opcode"].values())
if want == "follow":       # -p target --follow: target's children only
    true("submits recorded", submits > 0)
    bad = {p for p in io if parent(p) != target}
    eq("processes outside the followed tree", bad, set())
    explain(bad)
elif want == "nofollow":   # -p target: the shell itself does no io_uring
    eq("submits", submits, 0)
    eq("processes", {p for p in procs("all")} - {target}, set())
elif want == "command":    # -- COMMAND
    eq("processes", io, {arg})
    eq("submits", submits, 32)
elif want == "comm":       # --comm wl-comm-test
    true("submits recorded", submits > 0)
    bad = {p for p in io if p not in tasks or tasks[p]["comm"] != "wl-comm-test"}
    eq("processes without the name", bad, set())
    explain(bad)
elif want == "late":       # --comm wl-late, one process named by exec alone
    eq("processes", io, {arg})
    eq("its name", tasks.get(arg, {}).get("comm"), "wl-late")
    eq("submits", submits, 32)
elif want in ("cgroup", "cgroup-switch"):
    # --cgroup: the loop in the cgroup and its children, and the processes
    # put there besides (switch: the SQPOLL workload and the busy loop)
    def in_cgroup(p):
        return p in args or parent(p) == arg
    true("submits recorded", submits > 0)
    bad = {p for p in io if not in_cgroup(p)}
    eq("processes outside the cgroup", bad, set())
    explain(bad)
if want == "cgroup-switch":
    sq = {t for t, v in tasks.items() if v["tgid"] == args[1] and v["kind"] == "sqpoll"}
    true("the cgroup's SQ thread named", len(sq) == 1, sq)
    sw = [r for r in recs if r["type"] == "sched_switch"]
    true("switches out of the cgroup's SQ thread", any(r["tid"] in sq for r in sw))
    # the ones testing the cgroup of current (the task before) missed
    true("switches into the cgroup's SQ thread from a task outside",
         any(r["next_tid"] in sq and not in_cgroup(r["tgid"]) for r in sw))
elif want == "all":        # no filter
    parents = {parent(p) for p in io}
    true("the other loop's workloads", other in parents, parents)
    true("the target loop's workloads", target in parents, parents)
    true("the named loop's workloads", named in parents, parents)
done()
PY
	note "$1: ok"
}

record -q -p "$target" --follow -d 1.5s -o "$T/follow.log"
[ "$record_status" = 0 ] || fail "-p --follow: exit $record_status"
check follow follow

record -q -p "$target" -d 1s -o "$T/nofollow.log"
[ "$record_status" = 0 ] || fail "-p: exit $record_status"
check nofollow nofollow

record -q -o "$T/command.log" -- "$WORKLOAD" --compact nop >"$T/command.json"
[ "$record_status" = 0 ] || fail "COMMAND: exit $record_status"
check command command "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$T/command.json")"

record -q --comm wl-comm-test -d 1s -o "$T/comm.log"
[ "$record_status" = 0 ] || fail "--comm: exit $record_status"
check comm comm

# A process that execs after the listing of existing tasks passed its pid
# but before the start, then uses io_uring and exits before the second
# listing, is named by its exec record alone (recorded from the first
# listing on).  The test hook stretches both gaps to a second; the process
# execs in the first, waits 1.5 s and does its work in the second.
cp "$WORKLOAD" "$T/wl-late"
$SUDO env URING_RECORD_TEST_START_PAUSE_MS=1000 "$RECORDER" --comm wl-late -d 2.5s \
	-o "$T/late.log" 2>"$T/late.err" &
late_recorder=$!
i=0
until grep -q "test hook: pausing" "$T/late.err" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 300 ] || { cat "$T/late.err" >&2; fail "late: the recorder never paused"; }
	sleep 0.1
done
"$T/wl-late" --wait-ms 1500 --compact nop >"$T/late.json" || fail "late: workload failed"
late_status=0
wait "$late_recorder" || late_status=$?
cat "$T/late.err" >&2
[ "$late_status" = 0 ] || fail "late exec: exit $late_status"
check late late "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$T/late.json")"

record -q -d 1s -o "$T/all.log"
[ "$record_status" = 0 ] || fail "system-wide: exit $record_status"
check all all

# --cgroup needs a cgroup v2 hierarchy we may create a directory in (root).
cg_root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ "$AS_ROOT" = true ] && [ -n "$cg_root" ] && mkdir "$cg_root/ringside-test-$$" 2>/dev/null; then
	cg_dir="$cg_root/ringside-test-$$"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec sh -c "while :; do \"\$0\" --compact nop >/dev/null || exit 1; sleep 0.02; done" "$2"' \
		cg "$cg_dir" "$WORKLOAD" &
	cg_loop=$!
	sleep 0.3
	record -q --cgroup "$cg_dir" -d 1s -o "$T/cgroup.log"
	[ "$record_status" = 0 ] || fail "--cgroup: exit $record_status"
	check cgroup cgroup "$cg_loop"

	# Context switches (the io-wq fallback, forced): SQPOLL threads that
	# poll through the recording share a CPU each with a busy loop, the
	# cgroup's own thread with a loop outside it, another process's with a
	# loop inside.  Only the first pair's switches may be recorded, in both
	# directions.
	if command -v taskset >/dev/null 2>&1; then
		cpus=$(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[-1])')
		cpu_in=${cpus% *} cpu_out=${cpus#* }
		sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" --compact --sq-cpu "$3" --spin-ms 20000 sqpoll' \
			cg "$cg_dir" "$WORKLOAD" "$cpu_in" >/dev/null &
		sq_in=$!
		sh -c 'echo $$ > "$1/cgroup.procs" && exec taskset -c "$2" sh -c "while :; do :; done"' \
			cg "$cg_dir" "$cpu_out" &
		busy_in=$!
		"$WORKLOAD" --compact --sq-cpu "$cpu_out" --spin-ms 20000 sqpoll >/dev/null &
		sq_out=$!
		taskset -c "$cpu_in" sh -c 'while :; do :; done' &
		busy_out=$!
		switch_pids="$sq_in $busy_in $sq_out $busy_out"
		sleep 0.3
		sq_status=0
		for p in "$sq_in" "$sq_out"; do
			kill -0 "$p" 2>/dev/null || wait "$p" || sq_status=$?
		done
		if [ "$sq_status" = 3 ]; then
			note "--cgroup context switches not tested: SQPOLL refused"
		else
			[ "$sq_status" = 0 ] || fail "the sqpoll workloads failed: exit $sq_status"
			record -q --io-wq=sched_switch --cgroup "$cg_dir" -d 1s -o "$T/cgroup-switch.log"
			# shellcheck disable=SC2086
			kill $switch_pids 2>/dev/null || true
			[ "$record_status" = 0 ] || fail "--cgroup, context switches: exit $record_status"
			check cgroup-switch cgroup-switch "$cg_loop $sq_in $busy_in"
		fi
	else
		note "--cgroup context switches not tested: no taskset"
	fi
else
	note "--cgroup not tested: no writable cgroup v2 hierarchy (or not root)"
fi
note "ok"
