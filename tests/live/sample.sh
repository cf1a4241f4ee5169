#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# --sample=N: 1 request in N, each complete, links whole.
#  - A NOP storm of 100000 at --sample=10 keeps 10000 +- 5% of them (5.3
#    standard deviations of the binomial count, so that chance fails a run
#    less than once in ten million; 1 in 9 or 1 in 11 would keep 11111 or
#    9091), every one with its submit and its CQE, and the converter says
#    so: sampled, rate 10, estimates scaled, nothing incomplete, nothing of
#    requests not sampled.
#  - The link scenario run 30 times at --sample=2: each of its 150 chains
#    is in the log whole (every member's submit or req_failed, and its
#    CQE) or not at all, and some of both kinds are there.  Every event
#    naming a request names one whose submission is in the log.
#  - A chosen request whose bucket of the table of sampled requests is full
#    is not recorded, and counted: with the table cut to 1 bucket (8 keys)
#    by a test hook, a storm of batches of 32 NOPs at --sample=2 declines
#    some, the recorder says so, and every request in the log is still
#    complete; recorded and declined add up to 1 in 2.  At the normal size
#    the other runs decline none.
#  - --sample-syscalls: 1 io_uring_enter in 10, each with its exit.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

record --sample=10 -o "$T/storm.log" -- \
	"$WORKLOAD" --compact storm --count 100000 --batch-size 32 >"$T/storm.json"
[ "$record_status" = 0 ] || fail "storm: uring-record exited with $record_status"
stat_log "$T/storm.log" "$T/storm.stat"
"$CONVERT" -q --format=json -o "$T/storm.sum.json" "$T/storm.log" ||
	fail "storm: uring-convert failed"
"$CONVERT" -q --format=summary -o "$T/storm.sum.txt" "$T/storm.log" ||
	fail "storm: uring-convert --format=summary failed"
grep -q "^  sampled    1 request in 10: " "$T/storm.sum.txt" ||
	fail "storm: the summary does not say it is sampled: $(cat "$T/storm.sum.txt")"
"$CONVERT" --info "$T/storm.log" | grep -q "^sampling:     1 request in 10, every syscall" ||
	fail "storm: --info does not show the rate"
pycheck - "$T/storm.stat" "$T/storm.json" "$T/storm.sum.json" <<'PY'
import sys
from check import *
stat, wl, js = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
common_log_checks(stat)
eq("NOPs generated", wl["requests"]["NOP"]["submitted"], 100000)
eq("lost", stat["losses"]["total"], 0)
sub = stat["records"].get("submit", 0)
true("sampled NOPs within 10000 +- 5%", 9500 <= sub <= 10500, sub)
eq("a CQE for each", stat["records"].get("complete", 0), sub)
eq("enters all recorded", stat["records"].get("enter_begin", 0), wl["enter_calls"]["count"])
eq("sampling", js["sampling"]["requests_one_in"], 10)
eq("declined", stat["stats"]["sample_requests_declined"], 0)
eq("syscalls not sampled", js["sampling"]["syscalls_one_in"], 1)
eq("events of requests not sampled", js["sampling"]["events_of_requests_not_sampled"], 0)
r = js["requests"]
eq("requests", r["total"], sub)
eq("complete", r["complete"], sub)
eq("estimated", r["estimated_total"], sub * 10)
done()
PY
note "storm: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"]["submit"])' "$T/storm.stat") of 100000 NOPs kept, all complete"

record --sample=2 -o "$T/link.log" -- sh -c '
	i=0
	while [ $i -lt 30 ]; do
		"$1" --compact link >"$2" || exit 1
		i=$((i + 1))
	done' sh "$WORKLOAD" "$T/link.json"
[ "$record_status" = 0 ] || fail "links: uring-record exited with $record_status"
stat_log "$T/link.log" "$T/link.stat"
"$LOGSTAT" --dump "$T/link.log" >"$T/link.dump" || fail "logstat --dump link"
"$CONVERT" -q --format=json -o "$T/link.sum.json" "$T/link.log" ||
	fail "links: uring-convert failed"
pycheck - "$T/link.stat" "$T/link.json" "$T/link.dump" "$T/link.sum.json" <<'PY'
import sys
from collections import Counter
from check import *
stat, wl, recs, js = load(sys.argv[1]), load(sys.argv[2]), dump(sys.argv[3]), load(sys.argv[4])
common_log_checks(stat)
eq("lost", stat["losses"]["total"], 0)
chains = [c["user_data"] for c in wl["links"]]
eq("chains per run", len(chains), 5)
starts = Counter()          # (tgid, user_data) -> submits + req_faileds
cqes = Counter()            # (ring, user_data) -> CQEs
started = Counter()         # (ring, user_data) -> submits + req_faileds
live = set()                # (ring, req) submitted so far
strays = []
for r in recs:
    t = r["type"]
    if t in ("submit", "req_failed"):
        starts[(r["tgid"], r["user_data"])] += 1
        started[(r["ring"], r["user_data"])] += 1
        live.add((r["ring"], r["req"]))
    elif t in ("complete", "complete32"):
        cqes[(r["ring"], r["user_data"])] += 1
        if r["req"] and (r["ring"], r["req"]) not in live:
            strays.append(r)
    elif t in ("file_get", "queue_async_work", "defer", "link", "fail_link",
               "poll_arm", "task_add", "work_begin"):
        if (r["ring"], r["req"]) not in live:
            strays.append(r)
eq("events of requests not submitted in the log", strays[:3], [])
procs = {tg for tg, _ in starts}
whole = partial = none = 0
for tg in procs:
    for c in chains:
        n = [starts[(tg, ud)] for ud in c]
        if all(n):
            whole += 1
        elif any(n):
            partial += 1
            failures.append("process %d: chain %s partly sampled: %s" % (tg, c, n))
        else:
            none += 1
eq("chains partly sampled", partial, 0)
true("chains kept whole", whole > 0, whole)
true("chains sampled away", none > 0 or len(procs) < 30, none)
eq("processes seen (30 runs, 1 in 2 chains)", len(procs) <= 30, True)
eq("every started request has its CQE", {k: v for k, v in started.items() if cqes[k] != v}, {})
eq("rate", js["sampling"]["requests_one_in"], 2)
eq("declined", stat["stats"]["sample_requests_declined"], 0)
r = js["requests"]
eq("requests all complete", r["complete"], r["total"])
done()
PY
note "links: ok"

timeout -k 10 120 $SUDO env URING_RECORD_TEST_SAMPLE_BUCKETS=1 "$RECORDER" --sample=2 \
	-o "$T/full.log" -- "$WORKLOAD" --compact storm --count 20000 --batch-size 32 \
	>"$T/full.json" 2>"$T/record.err" ||
	fail "full table: exit status $?: $(cat "$T/record.err")"
grep -q "^uring-record: --sample: [1-9][0-9]* chosen requests and 0 chosen io_uring_enter calls not recorded" \
	"$T/record.err" || fail "full table: the recorder does not report the declined requests"
stat_log "$T/full.log" "$T/full.stat"
"$CONVERT" -q --format=json -o "$T/full.sum.json" "$T/full.log" ||
	fail "full table: uring-convert failed"
pycheck - "$T/full.stat" "$T/full.sum.json" <<'PY'
import sys
from check import *
stat, js = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
eq("lost", stat["losses"]["total"], 0)
sub = stat["records"].get("submit", 0)
declined = stat["stats"]["sample_requests_declined"]
true("some declined", declined > 0, declined)
true("some recorded", sub > 0, sub)
# 20000 rolls at 1 in 2: 10000 chosen, 3 standard deviations is 212
true("recorded + declined within 10000 +- 3%", 9700 <= sub + declined <= 10300, (sub, declined))
eq("a CQE for each", stat["records"].get("complete", 0), sub)
eq("events of requests not sampled", js["sampling"]["events_of_requests_not_sampled"], 0)
eq("requests all complete", js["requests"]["complete"], js["requests"]["total"])
done()
PY
note "full table: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"]["sample_requests_declined"])' "$T/full.stat") declined, the others complete"

record --sample=10 --sample-syscalls -o "$T/sys.log" -- \
	"$WORKLOAD" --compact storm --count 64000 --batch-size 8 >"$T/sys.json"
[ "$record_status" = 0 ] || fail "syscalls: uring-record exited with $record_status"
stat_log "$T/sys.log" "$T/sys.stat"
pycheck - "$T/sys.stat" "$T/sys.json" <<'PY'
import sys
from check import *
stat, wl = load(sys.argv[1]), load(sys.argv[2])
common_log_checks(stat)
enters = wl["enter_calls"]["count"]
got = stat["records"].get("enter_begin", 0)
# 8000 enters: 800 expected, 4.5 standard deviations is 120
true("enters within 1 in 10 +- 15%", abs(got - enters / 10) <= enters * 0.015, (got, enters))
eq("each with its exit", stat["records"].get("enter_end", 0), got)
eq("setups all recorded", stat["records"].get("setup_begin", 0), 1)
eq("declined calls", stat["stats"]["sample_enters_declined"], 0)
done()
PY
note "sampled syscalls: ok"
