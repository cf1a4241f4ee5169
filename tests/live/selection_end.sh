#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A recording of selected processes ends with them.  uring-record -p stops
# by itself when every selected process has exited, and with --follow only
# when their descendants have too; --keep-recording records on.  After the
# selection's end it waits for the kernel to tear down the rings the
# processes used, in a kworker, so that the CQEs the teardown posts (here:
# the tags of registered files) are in the log.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

EXIT_STORM="$top_builddir/tests/exit_storm"
[ -x "$EXIT_STORM" ] || skip "no $EXIT_STORM"
RECORD_LIMIT=30

# reason_is LOG REASON
reason_is() {
	stat_log "$1" "$1.stat"
	pycheck - "$1.stat" "$2" <<'PY'
import sys
from check import *
common_log_checks(load(sys.argv[1]), reason=sys.argv[2])
done()
PY
}

# wait_for FILE: a process that runs until FILE exists (at most 60 s).
WAIT_FOR='i=0; while [ ! -e "$1" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done'

# -p: the recorder stops by itself when the process exits.
sh -c "$WAIT_FOR" sh "$T/go.p" &
waiter=$!
record_detached "$T/p.log" -p "$waiter"
recorder_pid 4096
touch "$T/go.p"
wait_detached 10 || fail "-p: the recorder still runs 10 s after the process exited"
reap_detached || fail "-p: uring-record exited with $?: $(cat "$T/record.err")"
reason_is "$T/p.log" "selection exited"
note "-p stops when the process exits: ok"

# -p --follow: the parent exits first, the recording goes on until its
# child (forked before the recording: found by the start's scan) exits.
sh -c 'sh -c "$1" sh "$3" & echo $! >"$4"; sh -c "$1" sh "$2"' sh "$WAIT_FOR" \
	"$T/go.parent" "$T/go.child" "$T/child.pid" &
parent=$!
record_detached "$T/follow.log" -F -p "$parent"
recorder_pid 4096
touch "$T/go.parent"
i=0
while proc_running "$parent"; do
	[ "$i" -lt 100 ] || fail "--follow: the parent did not exit"
	sleep 0.1
	i=$((i + 1))
done
sleep 0.5
proc_running "$recorder_pid" || fail "--follow: the recorder stopped when the parent exited"
touch "$T/go.child"
wait_detached 10 || fail "--follow: the recorder still runs 10 s after the child exited"
reap_detached || fail "--follow: uring-record exited with $?: $(cat "$T/record.err")"
reason_is "$T/follow.log" "selection exited"
"$LOGSTAT" --dump "$T/follow.log" >"$T/follow.dump" || fail "logstat --dump"
pycheck - "$T/follow.dump" "$parent" "$(cat "$T/child.pid")" <<'PY'
import sys
from check import *
recs = dump(sys.argv[1])
exits = [r["tgid"] for r in recs if r["type"] == "task_exit" and r["tid"] == r["tgid"]]
true("the parent's exit, then the child's, recorded",
     [t for t in exits if t in (int(sys.argv[2]), int(sys.argv[3]))] ==
     [int(sys.argv[2]), int(sys.argv[3])], exits)
done()
PY
note "--follow stops when the last descendant exits: ok"

# --keep-recording: on after the exit, until --duration.
sh -c "$WAIT_FOR" sh "$T/go.keep" &
waiter=$!
record_detached "$T/keep.log" --keep-recording -d 3s -p "$waiter"
recorder_pid 4096
touch "$T/go.keep"
wait_detached 15 || fail "--keep-recording: the recorder still runs after --duration"
reap_detached || fail "--keep-recording: uring-record exited with $?"
reason_is "$T/keep.log" "duration"
note "--keep-recording records on: ok"

# The ring's teardown after the command exited: one CQE per file tag,
# posted by a kworker, after the command's exit.
record -q -o "$T/teardown.log" -- "$EXIT_STORM" teardown 8 >"$T/teardown.json"
[ "$record_status" = 0 ] || fail "teardown: uring-record exited with $record_status"
stat_log "$T/teardown.log" "$T/teardown.stat"
"$LOGSTAT" --dump "$T/teardown.log" >"$T/teardown.dump" || fail "logstat --dump"
pycheck - "$T/teardown.stat" "$T/teardown.dump" "$T/teardown.json" <<'PY'
import sys
from check import *
stat, recs, wl = load(sys.argv[1]), dump(sys.argv[2]), load(sys.argv[3])
common_log_checks(stat)
eq("lost", stat["losses"]["total"], 0)
pid = wl["pid"]
exit_ts = [r["ts"] for r in recs if r["type"] == "task_exit" and r["tgid"] == pid]
eq("the command's exit", len(exit_ts), 1)
tags = [r for r in recs if r["type"] == "complete" and r["req"] == 0]
eq("tag CQEs (user_data)", sorted(r["user_data"] for r in tags), list(range(1, wl["tags"] + 1)))
eq("tag CQEs posted by the command", [r["tid"] for r in tags if r["tgid"] == pid], [])
eq("tag CQEs before the exit", [r["ts"] for r in tags if r["ts"] < exit_ts[0]], [])
done()
PY
"$CONVERT" --format=summary "$T/teardown.log" >"$T/teardown.txt" 2>"$T/convert.err" ||
	fail "uring-convert: $(head -n 1 "$T/convert.err")"
note "CQEs of the ring's teardown after the exit: ok"

# A COMMAND that does not wait for its child: the child's io_uring work,
# after the COMMAND's exit, is recorded whole.
record -q -o "$T/orphan.log" -- sh -c 'sleep 0.2; "$1" --compact nop >"$2" &' sh \
	"$WORKLOAD" "$T/orphan.json"
[ "$record_status" = 0 ] || fail "orphan: uring-record exited with $record_status"
i=0
while [ ! -s "$T/orphan.json" ] && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
stat_log "$T/orphan.log" "$T/orphan.stat"
pycheck - "$T/orphan.stat" "$T/orphan.json" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
eq("the child's NOPs recorded", stat["submits_by_opcode"].get("NOP", 0),
   wl["requests"]["NOP"]["submitted"])
done()
PY
note "the work of a COMMAND's child that outlives it: ok"
