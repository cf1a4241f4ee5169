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
