#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Saturate every CPU -- the NOP storm plus one busy loop per CPU -- and
# record with tiny ring buffers (16 KiB per CPU, the default 5 ms drain):
# events are lost, and every one is counted (recorded + lost == generated,
# per record type), the same total shows in the summary, the JSON, the CSV
# (losses.csv, loss_counters.csv) and the FXT trace, and no request is
# mis-joined across a loss (tests/hardening/saturate.py).  Extends
# tests/live/storm_loss.sh (the same storm on an idle machine, checked in
# the log only).
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

[ -x "$CONVERT" ] || skip "no $CONVERT"
FXTSTAT="$top_builddir/tests/fxtstat"
[ -x "$FXTSTAT" ] || skip "no $FXTSTAT (make check builds it)"

ncpu=$(nproc)
# The hogs: a session of their own, killed by process group.
setsid sh -c 'echo $$ >"$1"; i=0; while [ "$i" -lt "$2" ]; do
	(while :; do :; done) & i=$((i + 1)); done; wait' sh "$T/hogs.sid" "$ncpu" &
stop_hogs() {
	[ ! -s "$T/hogs.sid" ] || kill -9 "-$(cat "$T/hogs.sid")" 2>/dev/null || true
	return 0
}
cleanup_hooks="stop_hogs"
sleep 0.2
record --ring-size 16K -o "$T/sat.log" -- \
	"$WORKLOAD" --compact storm --count 200000 --batch-size 64 >"$T/sat.json"
stop_hogs
[ "$record_status" = 0 ] || fail "uring-record exited with $record_status"
grep -q "LOST" "$T/record.err" || fail "the recorder does not shout about the loss"
stat_log "$T/sat.log" "$T/sat.stat"
"$CONVERT" --format=summary -o "$T/sat.txt" "$T/sat.log" 2>"$T/c.err" &&
"$CONVERT" -q --format=json -o "$T/sat.out.json" "$T/sat.log" 2>>"$T/c.err" &&
"$CONVERT" -q --format=csv -o "$T/csv" "$T/sat.log" 2>>"$T/c.err" &&
"$CONVERT" -q --format=fxt -o "$T/sat.fxt" "$T/sat.log" 2>>"$T/c.err" ||
	fail "uring-convert: $(cat "$T/c.err")"
"$FXTSTAT" "$T/sat.fxt" >"$T/fxt.json" || fail "fxtstat cannot read the trace"
pycheck "$srcdir/tests/hardening/saturate.py" "$T/sat.stat" "$T/sat.json" "$T/sat.txt" \
	"$T/sat.out.json" "$T/csv" "$T/fxt.json" || fail "see above"
note "ok"
