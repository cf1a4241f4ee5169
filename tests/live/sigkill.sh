#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# SIGKILL the recorder in the middle of a NOP storm: the log must still
# read, up to its last flush (at most a second before the kill), with no
# damaged frame, and convert.  While it runs, its threads carry their
# names.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

record_detached "$T/killed.log" -- "$WORKLOAD" --compact storm --seconds 30 >"$T/storm.json"
# recording: the log has grown past its metadata
recorder_pid 20000
# Its threads are named for what they do (top -H, perf); the main one
# keeps the program's name, which pidof and pkill match.
[ "$(cat "/proc/$recorder_pid/comm")" = uring-record ] ||
	fail "main thread named $(cat "/proc/$recorder_pid/comm")"
grep -qx rs-log-writer "/proc/$recorder_pid"/task/*/comm ||
	fail "no rs-log-writer thread: $(cat "/proc/$recorder_pid"/task/*/comm)"
sleep 2.5
root_kill -KILL "$recorder_pid"
sleep 0.2
stop_detached

stat_log "$T/killed.log" "$T/killed.stat"
pycheck - "$T/killed.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
true("stopped without an END frame",
     stat["stop"]["reader"] in ("end of file without end frame", "truncated frame"),
     stat["stop"]["reader"])
eq("no END", stat["stop"]["end"], None)
eq("payload errors", stat["payload_errors"], 0)
true("several flushes made it", stat["frames"].get("EVENTS", 0) >= 2, stat["frames"])
true("a LOSS frame made it", stat["frames"].get("LOSS", 0) >= 1, stat["frames"])
true("NOPs recorded", stat["submits_by_opcode"].get("NOP", 0) > 1000, stat["submits_by_opcode"])
true("the last events are recent", stat["last_ts"] > stat["first_ts"] + 1500000000,
     (stat["first_ts"], stat["last_ts"]))
done()
PY
if [ -x "$CONVERT" ]; then
	"$CONVERT" --format=summary "$T/killed.log" >"$T/summary.txt" 2>"$T/convert.err" ||
		fail "uring-convert cannot convert the killed log: $(head -n 3 "$T/convert.err")"
	note "uring-convert reads it"
else
	note "uring-convert not built: only logstat checked"
fi
note "ok"
