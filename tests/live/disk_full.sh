#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A full disk stops the recording cleanly: one clear message, exit status
# 1, and a log that reads to its end (cut back to its last whole frame,
# then an END frame saying why).  The small disk is a tmpfs mounted in a
# private mount namespace, so the host sees nothing.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

[ "$AS_ROOT" = true ] || skip "mounting a small tmpfs needs root"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1)"

status=0
on_small_tmpfs 1m "$T/small" full.log "$T/full.log" \
	"$RECORDER" -q -o "$T/small/full.log" -- "$WORKLOAD" --compact storm --seconds 20 \
	>/dev/null 2>"$T/record.err" || status=$?
cat "$T/record.err" >&2
[ "$status" = 1 ] || fail "exit status $status, want 1"
grep -q "disk is full" "$T/record.err" || fail "no 'disk is full' message"
stat_log "$T/full.log" "$T/full.stat"
pycheck - "$T/full.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
eq("payload errors", stat["payload_errors"], 0)
eq("reader stop", stat["stop"]["reader"], "end frame")
eq("END reason", (stat["stop"]["end"] or {}).get("reason"), "disk full")
true("events made it before the disk filled", stat["submits_by_opcode"].get("NOP", 0) > 1000,
     stat["submits_by_opcode"])
done()
PY
note "ok"
