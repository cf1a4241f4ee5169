#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Filters keep exactly what they select.  Two shells keep starting short
# io_uring workloads; recordings with -p (with and without --follow), with
# -- COMMAND and with --comm must hold events of their selection only, and
# a system-wide recording sees both.  --cgroup is tested by the end-to-end
# suite on every kernel of the matrix (tests/e2e/cgroup.sh).
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
	kill "$other" "$target" "$named" 2>/dev/null || true
	wait 2>/dev/null || true
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
tasks = task_table(stat)
def procs(kind):
    return record_procs(recs, tasks, kind)
def explain(bad):
    explain_procs(bad, tasks, recs)
def parent(tgid):
    return parent_of(tasks, tgid)
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

note "ok"
