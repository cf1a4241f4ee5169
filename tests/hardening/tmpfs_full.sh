#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Record a NOP storm onto tiny filesystems until they are full: tmpfs of
# 4 KiB (not even the metadata fits), 12 KiB, 64 KiB, 256 KiB and 1 MiB,
# each mounted in a private mount namespace and gone with it.  Every time
# the recorder stops by itself with exit status 1 and one clear "disk is
# full" (or "cannot write") message; every log that holds its metadata
# ends with an END frame saying "disk full", converts to every format
# (exit 0), and shows the events it could not write as a loss window on
# each CPU, so that no request open at the end is reported "in flight".
# Extends tests/live/disk_full.sh (one 1 MiB run, checked with logstat).
# First, tests/log_fill fills a 64 KiB tmpfs to its last byte with log
# frames, which leaves nothing to cut back: the END frame must still fit
# (the writer keeps room for it), where the recorder's runs above fill the
# disk at whatever byte their last frame reaches.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

[ "$AS_ROOT" = true ] || skip "mounting small tmpfs needs root"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1)"
[ -x "$CONVERT" ] || skip "no $CONVERT"

LOG_FILL="$top_builddir/tests/log_fill"
[ -x "$LOG_FILL" ] || fail "no $LOG_FILL"
status=0
on_small_tmpfs 64k "$T/mnt-exact" fill.log "$T/exact.log" \
	"$LOG_FILL" "$T/mnt-exact/fill.log" >"$T/exact.json" 2>"$T/exact.err" || status=$?
[ "$status" = 0 ] || fail "exact fill: log_fill exited with $status: $(cat "$T/exact.err")"
stat_log "$T/exact.log" "$T/exact.stat"
pycheck - "$T/exact.json" "$T/exact.stat" <<'PY'
import sys
from check import *
fill, stat = load(sys.argv[1]), load(sys.argv[2])
eq("exact fill: the filesystem was full to the byte", fill["exact"], True)
eq("exact fill: the frame after it", fill["refused"], "No space left on device")
eq("exact fill: reader stop", stat["stop"]["reader"], "end frame")
eq("exact fill: END reason", (stat["stop"]["end"] or {}).get("reason"), "disk full")
done()
PY
note "exact fill: $(cat "$T/exact.json")"

for size in 4k 12k 64k 256k 1m; do
	status=0
	on_small_tmpfs "$size" "$T/mnt-$size" full.log "$T/full-$size.log" \
		"$RECORDER" -q -o "$T/mnt-$size/full.log" -- "$WORKLOAD" --compact storm \
		--seconds 20 >/dev/null 2>"$T/full-$size.err" || status=$?
	err=$(cat "$T/full-$size.err")
	[ "$status" = 1 ] || fail "$size: recorder exit status $status, want 1: $err"
	n=$(grep -c -e "disk is full" -e "cannot write" "$T/full-$size.err" || true)
	[ "$n" = 1 ] || fail "$size: want one 'disk is full' message, got $n: $err"
	if [ "$size" = 4k ]; then
		# Not even the metadata fits: no log, or one that says why.
		if [ -e "$T/full-$size.log" ] &&
		   "$CONVERT" --format=json "$T/full-$size.log" >/dev/null 2>"$T/c.err"; then
			fail "$size: a log without its metadata converts?"
		fi
		note "$size: $(head -n 1 "$T/full-$size.err")"
		continue
	fi
	[ -e "$T/full-$size.log" ] || fail "$size: no log left"
	stat_log "$T/full-$size.log" "$T/full-$size.stat"
	for fmt in json summary csv fxt; do
		out="$T/full-$size.$fmt"
		"$CONVERT" -q --format=$fmt -o "$out" "$T/full-$size.log" 2>"$T/c.err" ||
			fail "$size: uring-convert --format=$fmt: $(cat "$T/c.err")"
	done
	pycheck - "$T/full-$size.stat" "$T/full-$size.json" "$size" <<'PY'
import sys
from check import *
stat, conv, size = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
eq(size + ": payload errors", stat["payload_errors"], 0)
eq(size + ": reader stop", stat["stop"]["reader"], "end frame")
eq(size + ": END reason", (stat["stop"]["end"] or {}).get("reason"), "disk full")
rec = conv["recording"]
eq(size + ": converter stop reason", rec["stop_reason"], "disk full")
# The unwritten events: a window of unknown size per CPU that recorded.
true(size + ": loss windows", conv["losses"]["windows"] >= 1, conv["losses"])
eq(size + ": requests in flight at the end", conv["requests"]["in_flight_at_end"], 0)
done()
PY
	note "$size: full at $(stat -c %s "$T/full-$size.log") bytes; the log converts to every format"
done
note "ok"
