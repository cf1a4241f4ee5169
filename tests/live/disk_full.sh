#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A full disk stops the recording cleanly: one clear message, exit status
# 1, and a log that reads to its end (cut back to its last whole frame,
# then an END frame saying why).  The small disk is a tmpfs mounted in a
# private mount namespace, so the host sees nothing.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

[ "$AS_ROOT" = true ] || skip "mounting a small tmpfs needs root"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1)"

mkdir "$T/small"
status=0
unshare -m sh -c '
	set -e
	mount -t tmpfs -o size=1m tmpfs "$1/small"
	rc=0
	"$2" -q -o "$1/small/full.log" -- "$3" --compact storm --seconds 20 >/dev/null 2>"$1/record.err" || rc=$?
	cp "$1/small/full.log" "$1/full.log"
	exit $rc' sh "$T" "$RECORDER" "$WORKLOAD" || status=$?
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
