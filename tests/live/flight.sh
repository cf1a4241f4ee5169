#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# --flight-recorder: snapshots on SIGUSR1, on a latency trigger (a read
# still in flight; a read that completes after 200 ms) and on an errno
# trigger are complete logs that convert, hold exactly the workload's
# requests of their window, and say what fired and when; the recorder's
# memory stays flat while a NOP storm evicts frames.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

# The commands below signal the recorder, their parent: as root only.
[ "$AS_ROOT" = true ] || skip "the command must signal the recorder (needs root)"
probe_recorder

# 1. SIGUSR1 after a storm of 1.5 million NOPs, which evicts frames from a
# 1M window, then the 32 NOPs of the nop scenario: the snapshot has them
# all, exactly, and converts with no frame gap although its frames were
# cut; no complete request has a submission from before the window.
record -q --flight-recorder=1M --post=300ms -o "$T/usr1.log" -- sh -c '
	"$1" --compact storm --count 1500000 >/dev/null
	sleep 2	# a slow (sanitized) recorder catches up with the storm
	"$1" --compact nop >"$2"
	kill -USR1 $PPID
	sleep 2' sh "$WORKLOAD" "$T/nop.json"
[ "$record_status" = 0 ] || fail "SIGUSR1: exit status $record_status"
stat_log "$T/usr1.log" "$T/usr1.stat"
"$LOGSTAT" --dump "$T/usr1.log" >"$T/usr1.dump"
"$CONVERT" -q --format=json -o "$T/usr1.json" "$T/usr1.log" || fail "SIGUSR1: the snapshot does not convert"
"$CONVERT" -q --format=csv -o "$T/usr1.csv" "$T/usr1.log" || fail "SIGUSR1: no CSV"
pycheck - "$T/usr1.stat" "$T/nop.json" "$T/usr1.dump" "$T/usr1.json" "$T/usr1.csv/requests.csv" <<'PY'
import csv, sys
from check import *
stat, wl, recs, conv = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3]), load(sys.argv[4])
with open(sys.argv[5]) as f:
    reqs = list(csv.DictReader(f))
eq("reader stop", stat["stop"]["reader"], "end frame")
end = stat["stop"]["end"]
eq("END reason", end["reason"], "flight-recorder snapshot")
fr = end["flight_recorder"]
eq("trigger", fr["trigger"]["spec"], "signal")
true("frames were evicted (the window was cut)", fr["frames_evicted"] > 0, fr)
pid = wl["pid"]
ws = fr["window_start_boot_ns"]
subs = [r for r in recs if r["type"] == "submit" and r["tgid"] == pid]
comps = [r for r in recs if r["type"] == "complete" and r["tgid"] == pid]
eq("the nop workload's submits", len(subs), 32)
eq("the nop workload's completes", len(comps), 32)
true("the nop workload is inside the window", all(r["ts"] >= ws for r in subs), ws)
eq("frame gaps", conv["losses"].get("frame_gaps", 0), 0)
rec = conv["recording"]
eq("converted stop reason", rec["stop_reason"], "flight-recorder snapshot")
true("converter shows the trigger", rec.get("flight_recorder", {}).get("trigger", "").startswith("signal"), rec)
eq("converter window start", rec["flight_recorder"]["window_start_boot_ns"], ws)
mine = [q for q in reqs if q["pid"] and int(q["pid"]) == pid]
eq("the nop workload's requests, converted", len(mine), 32)
eq("... all complete", sorted(set(q["status"] for q in mine)), ["complete"])
early = [q for q in reqs if q["status"] == "complete" and q["submit_boot_ns"] and
         int(q["submit_boot_ns"]) < ws]
true("complete requests have a submission", all(q["submit_boot_ns"] for q in reqs
                                                 if q["status"] == "complete"))
eq("complete requests submitted before the window", len(early), 0)
# Completions in the window whose submission is not: requests the cut
# found in flight.  A cut that falls between two batches of the storm
# leaves none, so the converter is held to what the log has.
inflight, orphans = set(), 0
for r in sorted((r for r in recs if r["ts"] >= ws), key=lambda r: r["ts"]):
    key = (r.get("ring"), r.get("req"))
    if r["type"] == "submit":
        inflight.add(key)
    elif r["type"] == "complete" and r.get("req"):
        if key in inflight:
            inflight.discard(key)
        else:
            orphans += 1
if orphans:
    true("requests in flight at the window start",
         any(q["status"] == "in_flight_at_start" for q in reqs), orphans)
else:
    print("the cut fell between two batches: no request was in flight at the window start")
done()
PY
note "SIGUSR1: ok"

# 1b. --snapshots=2: two SIGUSR1, two files, FILE.1 and FILE.2, each a
# complete log of what was kept then (the second has both workloads), and
# the recording stops after the second.
record -q --flight-recorder=2M --snapshots=2 --post=100ms -o "$T/multi.log" -- sh -c '
	"$1" --compact nop >/dev/null
	kill -USR1 $PPID
	sleep 0.5
	"$1" --compact nop --batches 2 >/dev/null
	kill -USR1 $PPID
	sleep 1' sh "$WORKLOAD"
[ "$record_status" = 0 ] || fail "--snapshots=2: exit status $record_status"
[ ! -e "$T/multi.log" ] || fail "--snapshots=2: wrote $T/multi.log"
for n in 1 2; do
	"$CONVERT" -q --format=json -o "$T/multi.$n.json" "$T/multi.log.$n" ||
		fail "--snapshots=2: snapshot $n does not convert"
done
pycheck - "$T/multi.1.json" "$T/multi.2.json" <<'PY'
import sys
from check import *
one, two = load(sys.argv[1]), load(sys.argv[2])
eq("snapshot numbers", (one["recording"]["flight_recorder"]["snapshot"],
                        two["recording"]["flight_recorder"]["snapshot"]), (1, 2))
eq("requests in snapshot 1", one["requests"]["total"], 32)
eq("requests in snapshot 2", two["requests"]["total"], 48)
done()
PY
note "--snapshots: ok"

# 2. latency>500ms:READ on a pipe read that stays in flight for 3 s: it
# fires while the read is in flight, and the snapshot (100 ms later) has
# the read submitted and not completed.
record -q --flight-recorder=8M --post=100ms --trigger='latency>500ms:READ' \
	-o "$T/hang.log" -- "$WORKLOAD" --compact poll --delay-ms 3000 >"$T/hang.json"
[ "$record_status" = 0 ] || fail "latency (in flight): exit status $record_status"
# The recorder stopped after its snapshot; the workload ends 3 s after its
# submit, and only then prints what it did.
i=0
while [ "$i" -lt 100 ] && ! grep -q '"status"' "$T/hang.json"; do
	sleep 0.1
	i=$((i + 1))
done
stat_log "$T/hang.log" "$T/hang.stat"
"$LOGSTAT" --dump "$T/hang.log" >"$T/hang.dump"
"$CONVERT" -q --format=summary -o "$T/hang.txt" "$T/hang.log" || fail "latency: no conversion"
pycheck - "$T/hang.stat" "$T/hang.json" "$T/hang.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
t = stat["stop"]["end"]["flight_recorder"]["trigger"]
read = [q for q in wl["request_list"] if q["what"] == "read of an empty pipe"][0]
eq("trigger", t["spec"], "latency>500ms:READ")
eq("the request that fired it", t["user_data"], read["user_data"])
eq("still in flight", t["in_flight"], True)
true("fired after 500 ms in flight", t["latency_ns"] > 500000000, t)
delay = t["fired_boot_ns"] - t["condition_boot_ns"]
true("fired within 100 ms of its condition", 0 <= delay < 100000000, delay)
print("latency trigger (in flight): fired %.1f ms after the request became overdue" % (delay / 1e6))
subs = [r for r in recs if r["type"] == "submit" and r["user_data"] == read["user_data"]]
comps = [r for r in recs if r["type"] == "complete" and r["user_data"] == read["user_data"]]
eq("the read's submit", len(subs), 1)
eq("the read's completion (none yet)", len(comps), 0)
done()
PY
grep -q "in flight at end [1-9]" "$T/hang.txt" || fail "latency: the read is not in flight at the end: $(grep Requests "$T/hang.txt")"
note "latency (in flight): ok"

# 3. The same trigger at 100 ms on a read that completes after 200 ms:
# it fires at 100 ms, and the snapshot, 1 s later, has the completion.
record -q --flight-recorder=8M --post=1s --trigger='latency>100ms:READ' \
	-o "$T/late.log" -- "$WORKLOAD" --compact poll --delay-ms 200 >"$T/late.json"
[ "$record_status" = 0 ] || fail "latency (late): exit status $record_status"
stat_log "$T/late.log" "$T/late.stat"
"$LOGSTAT" --dump "$T/late.log" >"$T/late.dump"
pycheck - "$T/late.stat" "$T/late.json" "$T/late.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
t = stat["stop"]["end"]["flight_recorder"]["trigger"]
read = [q for q in wl["request_list"] if q["what"] == "read of an empty pipe"][0]
eq("the request that fired it", t["user_data"], read["user_data"])
subs = [r for r in recs if r["type"] == "submit" and r["user_data"] == read["user_data"]]
comps = [r for r in recs if r["type"] == "complete" and r["user_data"] == read["user_data"]]
eq("the read's submit", len(subs), 1)
eq("the read's completion", len(comps), 1)
if subs and comps:
    lat = comps[0]["ts"] - subs[0]["ts"]
    true("it completed after 200 ms", lat >= 200000000, lat)
    true("the trigger fired before it completed", t["fired_boot_ns"] < comps[0]["ts"], t)
done()
PY
note "latency (200 ms): ok"

# 4. errno=EBADF: fires on the first EBADF completion of the timeout
# scenario (a READ on fd -1), not before it.
record -q --flight-recorder=8M --post=500ms --trigger=errno=EBADF \
	-o "$T/errno.log" -- "$WORKLOAD" --compact timeout >"$T/errno.json"
[ "$record_status" = 0 ] || fail "errno: exit status $record_status"
stat_log "$T/errno.log" "$T/errno.stat"
"$LOGSTAT" --dump "$T/errno.log" >"$T/errno.dump"
pycheck - "$T/errno.stat" "$T/errno.json" "$T/errno.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
t = stat["stop"]["end"]["flight_recorder"]["trigger"]
bad = [r for r in recs if r["type"] == "complete" and r["res"] == -9]
true("EBADF completions recorded", bad)
eq("trigger", t["spec"], "errno=EBADF")
eq("res", t["res"], -9)
if bad:
    first = bad[0]
    eq("the first EBADF completion fired it", (t["event_boot_ns"], t["user_data"]),
       (first["ts"], first["user_data"]))
    true("not before it", t["fired_boot_ns"] >= first["ts"], t)
    delay = t["fired_boot_ns"] - first["ts"]
    true("fired within 200 ms of the completion", delay < 200000000, delay)
    print("errno trigger: fired %.1f ms after the completion" % (delay / 1e6))
done()
PY
note "errno: ok"

# 4b. io-wq-workers>3: six FIFO opens hold six io-wq workers of one task;
# the trigger fires when the fourth starts, on any kernel (task records
# name the io-wq a worker serves, no fentry or kprobe needed).
IOWQ_BLOCK="$top_builddir/tests/iowq_block"
record -q --flight-recorder=8M --post=500ms --trigger='io-wq-workers>3' \
	-o "$T/iowq.log" -- "$IOWQ_BLOCK" 6 300 >"$T/iowq.json"
[ "$record_status" = 0 ] || fail "io-wq-workers: exit status $record_status"
stat_log "$T/iowq.log" "$T/iowq.stat"
"$LOGSTAT" --dump "$T/iowq.log" >"$T/iowq.dump"
pycheck - "$T/iowq.stat" "$T/iowq.json" "$T/iowq.dump" <<'PY'
import sys
from check import *
stat, wl, recs = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3])
t = stat["stop"]["end"]["flight_recorder"]["trigger"]
eq("opens", wl["ok"], 6)
eq("trigger", t["spec"], "io-wq-workers>3")
eq("the io-wq's task", t["tid"], wl["tid"])
eq("workers when it fired", t["workers"], 4)
named = [r for r in recs if r["type"] == "task" and r["comm"] == "iou-wrk-%d" % wl["tid"]]
tids = []
for r in named:
    if r["subject_tid"] not in tids:
        tids.append(r["subject_tid"])
eq("workers named in the snapshot", len(tids), 6)
# the fourth the recorder saw (it drains CPU by CPU, not in time order)
started = [r["ts"] for r in named if r["subject_tid"] == t["worker_tid"]]
true("a worker's start fired it", t["event_boot_ns"] in started, t)
delay = t["fired_boot_ns"] - t["event_boot_ns"]
true("fired within 200 ms of the worker's start", 0 <= delay < 200000000, t)
print("io-wq-workers trigger: fired %.1f ms after the worker started" % (delay / 1e6))
done()
PY
note "io-wq-workers: ok"

# 5. Memory: a 4M flight recorder (and a 4M queue) over a NOP storm evicts
# frames all the time.  Its RSS grows while the BPF rings' pages and the
# queue's frames are first touched (about 4 s here), then stays: after
# 12 s it is that after 6 s, within 8 MiB (a leak of the evicted frames
# would be tens of MiB).  No snapshot is written without a trigger.
"$WORKLOAD" --compact storm --seconds 16 >/dev/null &
storm=$!
stop_storm() { kill "$storm" 2>/dev/null || true; wait "$storm" 2>/dev/null || true; }
cleanup_hooks="stop_storm"
# Under AddressSanitizer (CI), freed frames wait in its quarantine, which
# grows to 256 MiB: keep it small, so that RSS is the recorder's own.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1" \
	record_detached "$T/mem.log" --flight-recorder=4M --queue-size=4M -d 14s
sleep 1
recorder_pid=$(pid_of_cmdline "$RECORDER -q -o $T/mem.log ")
[ -n "$recorder_pid" ] || fail "memory: the recorder is not running: $(cat "$T/record.err")"
sleep 5
rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$recorder_pid/status")
sleep 6
rss2=$(awk '/^VmRSS/ { print $2 }' "/proc/$recorder_pid/status")
wait "$detached_launcher" || fail "memory: exit status $?: $(cat "$T/record.err")"
detached_launcher=""
stop_storm
cleanup_hooks=""
note "memory: RSS ${rss1} KiB after 6 s, ${rss2} KiB after 12 s"
[ "$rss2" -le $((rss1 + 8192)) ] || fail "memory: RSS grew from $rss1 KiB to $rss2 KiB"
[ ! -e "$T/mem.log" ] || fail "memory: a snapshot was written without a trigger"
note "memory: ok"
