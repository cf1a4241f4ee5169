#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# uring-replay of ground-truth workload recordings, recorded again with
# --record: the replay's recording has the same requests in the same order
# (opcode, SQE flags, offset, length, ioprio, op flags: reads, writes,
# fsync, links with failures and cancellations, registered files
# and buffers, an SQPOLL ring; a pipe and a socket pair fed only through
# io_uring, replayed over the replayer's own pipe and socketpair, with
# every read, recv and poll getting its recorded result) and the same
# requests per io_uring_enter (tests/live/replay_compare.py).  The threads
# scenario (3 threads, a ring each, at once) is replayed by 3 threads: the
# replay's recording has each ring's requests submitted by a thread of
# its own, with each ring's requests and batches as recorded.  Nothing is
# written outside the scratch directory.  A pipe or socket fed from
# outside io_uring (the poll scenario's writer thread) is not replayed,
# with its reason.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

REPLAY="$top_builddir/replay/uring-replay"
[ -x "$REPLAY" ] || skip "no $REPLAY"
probe_recorder

for sc in nop rw link registered sqpoll streams threads; do
	mkdir "$T/wd-$sc" "$T/scratch-$sc"
	more=""
	[ "$sc" = threads ] && more="--threads 3"
	record -q -o "$T/$sc.log" -- "$WORKLOAD" --compact "$sc" $more --dir "$T/wd-$sc" \
		>"$T/$sc.json"
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
	if [ "$sc" = threads ]; then
		[ "$(grep -c '^thread [1-3] (recorded thread [0-9]*): rings [1-3]$' "$T/$sc.plan")" = 3 ] ||
			fail "threads: not 3 replay threads of a ring each: $(cat "$T/$sc.plan")"
		grep -q '^threads: 3 replay threads' "$T/$sc.report" ||
			fail "threads: the report does not say 3 replay threads"
	else
		grep -q '^threads: 1 replay thread,' "$T/$sc.report" ||
			fail "$sc: the report does not say 1 replay thread"
	fi
	[ -z "$(ls -A "$T/scratch-$sc" 2>/dev/null)" ] || fail "$sc: scratch files left behind"
	for l in "$sc" "$sc.again"; do
		"$CONVERT" -q --format=csv --tables=requests,syscalls -o "$T/$l.csv" "$T/$l.log" ||
			fail "uring-convert $l.log"
	done
	how=""
	[ "$sc" = sqpoll ] && how=--sqpoll
	[ "$sc" = threads ] && how="--threads 3"
	pycheck "$srcdir/tests/live/replay_compare.py" "$T/$sc.csv" "$T/$sc.again.csv" $how ||
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
# A file recorded through an O_DIRECT fd is replayed through one too
# (fio --direct=1): the replay's recording names the file O_DIRECT, or
# uring-replay says the scratch file system refuses it; --format=fio
# writes direct=1.
if command -v fio >/dev/null 2>&1; then
	mkdir "$T/wd-direct"
	record -q -o "$T/direct.log" -- fio --name=d --ioengine=io_uring \
		--filename="$T/wd-direct/data" --size=1m --rw=randrw --bs=4k --direct=1 \
		--number_ios=64 --iodepth=4 --output=/dev/null
	if [ "$record_status" = 0 ]; then
		timeout -k 10 120 $SUDO env URING_RECORD="$RECORDER" "$REPLAY" \
			-C "$T/scratch-direct" --record "$T/direct.again.log" "$T/direct.log" \
			>"$T/direct.report" 2>"$T/direct.err" ||
			fail "direct: uring-replay exited with $?: $(cat "$T/direct.err")"
		"$LOGSTAT" --dump "$T/direct.again.log" >"$T/direct.dump"
		"$CONVERT" -q --format=fio -o "$T/direct.fio" "$T/direct.log" ||
			fail "direct: uring-convert --format=fio"
		pycheck - "$T/direct.dump" "$T/direct.err" "$T/direct.fio/replay.fio" <<'PY'
import sys
from check import *
O_DIRECT = 0o40000
files = [r for r in dump(sys.argv[1]) if r["type"] == "file" and r["path"].startswith("data-")]
refused = "refuses: its requests go through the page cache" in open(sys.argv[2]).read()
true("the replayed file is in the replay's recording", files, files)
true("replayed through an O_DIRECT fd, or said why not",
     refused or all(f["f_flags"] & O_DIRECT for f in files), files)
true("--format=fio: direct=1", "\ndirect=1\n" in open(sys.argv[3]).read())
done()
PY
		note "direct: ok"
	else
		note "fio --direct=1 refused here (status $record_status): O_DIRECT replay not checked"
	fi
fi
note "ok"
