#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# SIGKILL the recorder in the middle of a NOP storm: the log must still
# read, up to its last flush (at most a second before the kill), with no
# damaged frame, and convert.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

# In its own session, so the storm (which outlives the recorder) can be
# stopped afterwards by process group.
setsid $SUDO "$RECORDER" -q -o "$T/killed.log" -- "$WORKLOAD" --compact storm --seconds 6 \
	>"$T/storm.json" 2>"$T/record.err" &
launcher=$!
stop_storm() {
	[ -z "${pgid:-}" ] || $SUDO kill -KILL -- "-$pgid" 2>/dev/null || true
	wait "$launcher" 2>/dev/null || true
	return 0
}
cleanup_hooks="stop_storm"
# Wait for the recorder to be recording (the log grows past its metadata).
i=0
while [ "$i" -lt 100 ]; do
	size=$(stat -c %s "$T/killed.log" 2>/dev/null || echo 0)
	[ "$size" -gt 20000 ] && break
	sleep 0.1
	i=$((i + 1))
done
pid=$(pgrep -n -f "^$RECORDER -q -o $T/killed.log" || true)
[ -n "$pid" ] || fail "the recorder is not running: $(cat "$T/record.err")"
pgid=$(ps -o pgid= -p "$pid" | tr -d ' ')
sleep 2.5
$SUDO kill -KILL "$pid"
sleep 0.2
stop_storm
cleanup_hooks=""

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
