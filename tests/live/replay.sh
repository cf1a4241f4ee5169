#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# uring-replay of ground-truth workload recordings, recorded again with
# --record: the replay's recording has the same requests in the same order
# (opcode, SQE flags, offset, length, ioprio, op flags: reads, writes,
# fsync, links with failures and cancellations, drains, registered files
# and buffers, an SQPOLL ring) and the same requests per io_uring_enter
# (tests/live/replay_compare.py).  Nothing is written outside the scratch
# directory.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

REPLAY="$top_builddir/replay/uring-replay"
[ -x "$REPLAY" ] || skip "no $REPLAY"
probe_recorder

for sc in nop rw link drain registered sqpoll; do
	mkdir "$T/wd-$sc" "$T/scratch-$sc"
	record -q -o "$T/$sc.log" -- "$WORKLOAD" --compact "$sc" --dir "$T/wd-$sc" >"$T/$sc.json"
	if [ "$sc" = sqpoll ] && [ "$record_status" = 3 ]; then
		note "SQPOLL refused here: not replayed"
		continue
	fi
	[ "$record_status" = 0 ] || fail "$sc: uring-record exited with $record_status"
	"$REPLAY" --dry-run "$T/$sc.log" >"$T/$sc.plan" || fail "$sc: uring-replay --dry-run"
	grep -q ' would be replayed, 0 not:$' "$T/$sc.plan" ||
		fail "$sc: not every request is replayable: $(cat "$T/$sc.plan")"
	timeout -k 10 120 $SUDO env URING_RECORD="$RECORDER" "$REPLAY" -q -C "$T/scratch-$sc" \
		--record "$T/$sc.again.log" "$T/$sc.log" >"$T/$sc.report" 2>"$T/$sc.err" ||
		fail "$sc: uring-replay exited with $?: $(cat "$T/$sc.err")"
	cat "$T/$sc.report"
	grep -q '^batching: identical' "$T/$sc.report" || fail "$sc: batching differs"
	[ -z "$(ls -A "$T/scratch-$sc" 2>/dev/null)" ] || fail "$sc: scratch files left behind"
	for l in "$sc" "$sc.again"; do
		"$CONVERT" -q --format=csv --tables=requests,syscalls -o "$T/$l.csv" "$T/$l.log" ||
			fail "uring-convert $l.log"
	done
	sqpoll=""
	[ "$sc" = sqpoll ] && sqpoll=--sqpoll
	pycheck "$srcdir/tests/live/replay_compare.py" "$T/$sc.csv" "$T/$sc.again.csv" $sqpoll ||
		fail "$sc: the replay differs from the recording"
done
note "ok"
