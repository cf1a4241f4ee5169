#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A system-wide recording stopped by SIGINT, and one stopped by --duration,
# end cleanly: exit status 0, END frame with the reason, final LOSS and
# CLOCK frames, and the work done meanwhile recorded in full.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

$SUDO "$RECORDER" -q -d 60s -o "$T/sigint.log" 2>"$T/record.err" &
rec=$!
# Wait until it records (the log has its metadata), then do some work.
i=0
while [ "$i" -lt 100 ] && [ "$(stat -c %s "$T/sigint.log" 2>/dev/null || echo 0)" -lt 4096 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$WORKLOAD" --compact nop >"$T/nop.json"
sleep 0.2
# sudo relays signals to the recorder it runs
kill -INT "$rec"
status=0
wait "$rec" || status=$?
cat "$T/record.err" >&2
[ "$status" = 0 ] || fail "SIGINT: exit status $status"
stat_log "$T/sigint.log" "$T/sigint.stat"
"$LOGSTAT" --dump "$T/sigint.log" >"$T/sigint.dump"
pycheck - "$T/sigint.stat" "$T/nop.json" "$T/sigint.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
common_log_checks(stat, reason="signal")
eq("exit status in END", stat["stop"]["end"]["exit_status"], None)
pid = wl["pid"]
eq("the nop workload's submits", sum(1 for r in recs if r["type"] == "submit" and r["tgid"] == pid), 32)
eq("the nop workload's completes", sum(1 for r in recs if r["type"] == "complete" and r["tgid"] == pid), 32)
true("recorded at least two CLOCK frames (start is in META)", stat["frames"]["CLOCK"] >= 1)
done()
PY
note "SIGINT: ok"

record -q -d 1s -o "$T/duration.log"
[ "$record_status" = 0 ] || fail "--duration: exit status $record_status"
stat_log "$T/duration.log" "$T/duration.stat"
pycheck - "$T/duration.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
common_log_checks(stat, reason="duration")
done()
PY
note "--duration: ok"

# --max-size: a NOP storm fills 1M quickly; the recording stops by itself.
"$WORKLOAD" --compact storm --seconds 8 >/dev/null &
storm=$!
stop_storm() { kill "$storm" 2>/dev/null || true; wait "$storm" 2>/dev/null || true; }
cleanup_hooks="stop_storm"
record -q -s 1M -d 30s -o "$T/maxsize.log"
stop_storm
cleanup_hooks=""
[ "$record_status" = 0 ] || fail "--max-size: exit status $record_status"
size=$(stat -c %s "$T/maxsize.log")
[ "$size" -ge 1048576 ] && [ "$size" -lt 3145728 ] || fail "--max-size 1M: the log has $size bytes"
stat_log "$T/maxsize.log" "$T/maxsize.stat"
pycheck - "$T/maxsize.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
common_log_checks(stat, reason="max-size")
done()
PY
note "--max-size: ok ($size bytes)"
