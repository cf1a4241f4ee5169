#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The BPF side stages records per CPU and hands them to the ring buffer in
# batches.  A CPU that goes quiet with a few records staged must not keep
# them: the recorder runs flush_stage there every flush interval, so a
# recorder killed (SIGKILL: no final drain) well after a small burst of
# work has every event of it in its log.  And at a clean stop the records
# still staged are read from the map: a burst far smaller than a batch,
# recorded with a flush interval longer than the recording, is complete.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

check_nop() {
	pycheck - "$1" "$2" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
nops = wl["requests"]["NOP"]["submitted"]
eq("NOPs done", nops, 32)
by_tid = stat["records_by_tid"]
pid = str(wl["pid"])
eq("submits recorded", by_tid.get("submit", {}).get(pid, 0), nops)
eq("completes recorded", by_tid.get("complete", {}).get(pid, 0), nops)
eq("enter_begin recorded", by_tid.get("enter_begin", {}).get(pid, 0), wl["enter_calls"]["count"])
eq("lost", stat["losses"]["total"], 0)
done()
PY
}

# 1. Killed 1.5 s after a 32-NOP burst, with a 200 ms flush interval.
record_detached "$T/killed.log" --flush-interval 200ms -- \
	sh -c "\"$WORKLOAD\" --compact nop >\"$T/nop.json\"; exec sleep 30"
i=0
while [ "$i" -lt 100 ] && ! [ -s "$T/nop.json" ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$T/nop.json" ] || fail "the workload did not run: $(cat "$T/record.err")"
recorder_pid
sleep 1.5
root_kill -KILL "$recorder_pid"
sleep 0.2
stop_detached
stat_log "$T/killed.log" "$T/killed.stat"
check_nop "$T/killed.stat" "$T/nop.json"
note "killed after a burst: every event flushed in time"

# 2. A clean stop with everything still staged (flush interval 1 s, the
# recording lasts a few milliseconds).
record -q --flush-interval 1s -o "$T/stop.log" -- "$WORKLOAD" --compact nop >"$T/nop2.json"
[ "$record_status" = 0 ] || fail "exit status $record_status"
stat_log "$T/stop.log" "$T/stop.stat"
check_nop "$T/stop.stat" "$T/nop2.json"
note "clean stop: the staged records collected"
