#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A NOP storm into deliberately tiny ring buffers (one page per CPU,
# drained once a second): events must be lost, and every one of them must
# be accounted for -- recorded + lost == generated, exactly, per type --
# and placed in time by "lost" records.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

record --ring-size 4K --drain-interval 1s -o "$T/storm.log" -- \
	"$WORKLOAD" --compact storm --count 200000 --batch-size 64 >"$T/storm.json"
[ "$record_status" = 0 ] || fail "uring-record exited with $record_status"
grep -q "LOST" "$T/record.err" || fail "the summary does not shout about the loss"
stat_log "$T/storm.log" "$T/storm.stat"
pycheck - "$T/storm.stat" "$T/storm.json" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
nops = wl["requests"]["NOP"]["submitted"]
eq("NOPs generated", nops, 200000)
lost = stat["losses"]["by_type"]
true("events were lost", stat["losses"]["total"] > 0, stat["losses"])
eq("submit: recorded + lost", stat["records"].get("submit", 0) + lost.get("submit", 0), nops)
eq("complete: recorded + lost", stat["records"].get("complete", 0) + lost.get("complete", 0),
   wl["requests"]["NOP"]["completed"])
enters = wl["enter_calls"]["count"]
eq("enter_begin: recorded + lost",
   stat["records"].get("enter_begin", 0) + lost.get("enter_begin", 0), enters)
eq("enter_end: recorded + lost",
   stat["records"].get("enter_end", 0) + lost.get("enter_end", 0), enters)
eq("only ring-full losses", stat["losses"]["by_kind"]["no_ring"] + stat["losses"]["by_kind"]["user_queue"], 0)
eq("END lost", stat["stop"]["end"]["lost"], stat["losses"]["total"])
done()
PY
note "ok ($(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["losses"]["total"], "lost,", d["records"].get("submit", 0), "submits kept")' "$T/storm.stat"))"

# A writer that cannot keep up (zstd at level 19, a 2M queue): the recorder
# drops whole frames of events itself, and they add up the same way, each
# drop placed in time by a "lost" record marked as the recorder's.
record --ring-size 64M --queue-size 2M --zstd-level 19 -o "$T/queue.log" -- \
	"$WORKLOAD" --compact storm --count 400000 >"$T/queue.json"
[ "$record_status" = 0 ] || fail "queue overflow: exit status $record_status"
grep -q "writer queue full" "$T/record.err" || fail "queue overflow: the summary does not say why"
stat_log "$T/queue.log" "$T/queue.stat"
pycheck - "$T/queue.stat" "$T/queue.json" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
nops = wl["requests"]["NOP"]["submitted"]
lost = stat["losses"]["by_type"]
true("the recorder dropped events", stat["losses"]["by_kind"]["user_queue"] > 0, stat["losses"])
eq("submit: recorded + lost", stat["records"].get("submit", 0) + lost.get("submit", 0), nops)
eq("complete: recorded + lost", stat["records"].get("complete", 0) + lost.get("complete", 0), nops)
done()
PY
note "writer queue overflow: ok"

# A CPU without a ring buffer (as if it came online after the start): every
# event of a storm pinned there is lost as "no ring", counted, and reported
# at stop by "lost" records -- and the other CPU's records are all there.
command -v taskset >/dev/null 2>&1 || { note "no taskset: no-ring case not tested"; exit 0; }
[ "$(nproc)" -ge 2 ] || { note "one CPU: no-ring case not tested"; exit 0; }
$SUDO env URING_RECORD_TEST_NO_RING_CPUS=1 "$RECORDER" -q -o "$T/noring.log" -- \
	taskset -c 1 "$WORKLOAD" --compact storm --count 5000 >"$T/noring.json" 2>"$T/record.err" ||
	fail "no-ring: exit status $?: $(cat "$T/record.err")"
grep -q "CPU without a ring buffer" "$T/record.err" || fail "no-ring: the summary does not say why"
stat_log "$T/noring.log" "$T/noring.stat"
pycheck - "$T/noring.stat" "$T/noring.json" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
nops = wl["requests"]["NOP"]["submitted"]
lost = stat["losses"]["by_type"]
eq("submit: recorded + lost", stat["records"].get("submit", 0) + lost.get("submit", 0), nops)
eq("all lost as no ring", stat["losses"]["by_kind"]["no_ring"], stat["losses"]["total"])
true("the pinned storm lost its NOPs", lost.get("submit", 0) >= nops - 64, lost)
eq("reported at stop", stat["losses"]["lost_records"]["at_stop"], stat["losses"]["total"])
eq("the ring-less CPU's total", stat["losses"]["by_cpu"].get("1"), stat["losses"]["total"])
done()
PY
note "no ring: ok"
