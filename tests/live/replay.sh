#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# uring-replay of ground-truth workload recordings, recorded again with
# --record: the replay's recording has the same requests in the same order
# (opcode, SQE flags, offset, length, ioprio, op flags: reads, writes,
# fsync, links with failures and cancellations, registered files
# and buffers, an SQPOLL ring; a pipe and a socket pair fed only through
# io_uring, replayed over the replayer's own pipe and socketpair, with
# every read, recv and poll getting its recorded result) and the same
# requests per io_uring_enter (tests/live/replay_compare.py).  Nothing is
# written outside the scratch directory.  A pipe or socket fed from
# outside io_uring (the poll scenario's writer thread) is not replayed,
# with its reason.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

REPLAY="$top_builddir/replay/uring-replay"
[ -x "$REPLAY" ] || skip "no $REPLAY"
probe_recorder

for sc in nop rw link registered sqpoll streams; do
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
	if [ "$sc" = streams ]; then
		grep -q '^file ' "$T/$sc.plan" && fail "streams: a pipe or socket taken for a file"
		[ "$(grep -c '^pipe ' "$T/$sc.plan")" = 2 ] || fail "streams: not 2 pipes"
		[ "$(grep -c '^socket .*, paired with socket-' "$T/$sc.plan")" = 2 ] ||
			fail "streams: the socket pair not found"
		grep -q '^pipes and sockets: 13 requests on 2 pipes and 1 socket pairs, 13 with the recorded result$' \
			"$T/$sc.report" || fail "streams: results differ from the recording"
	fi
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

# The poll and drain scenarios' pipes and socket are fed by write(2) from
# a thread: their reads cannot be replayed, and say why.
for sc in poll drain; do
	record -q -o "$T/$sc.log" -- "$WORKLOAD" --compact "$sc" >"$T/$sc.json"
	[ "$record_status" = 0 ] || fail "$sc: uring-record exited with $record_status"
	"$REPLAY" --dry-run "$T/$sc.log" >"$T/$sc.plan" || fail "$sc: uring-replay --dry-run"
done
for why in 'poll:  2 READ: pipe: its writer is not in the recording' \
	   'poll:  1 RECV: socket: its peer is not in the recording' \
	   'poll:  1 POLL_ADD: pipe: no data through io_uring' \
	   'drain:  1 READ: pipe: its writer is not in the recording'; do
	grep -q "^${why#*:}" "$T/${why%%:*}.plan" ||
		fail "${why%%:*}: no '${why#*: }': $(cat "$T/${why%%:*}.plan")"
done
note "ok"
