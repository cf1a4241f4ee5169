#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The recorder measures what it cost while it recorded: its BPF programs'
# runs and run time (held BPF_ENABLE_STATS), and its own CPU time.  The
# figures reach the summary, JSON and --info; --no-self-cost leaves the
# BPF part out and says so.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

record -o "$T/on.log" -- "$WORKLOAD" --compact storm --count 20000 >"$T/on.json"
[ "$record_status" = 0 ] || fail "uring-record exited with $record_status"
grep -q "tracing cost: .* ms of BPF in the traced threads (.* hook runs" "$T/record.err" ||
	fail "no tracing cost line: $(cat "$T/record.err")"
# The recorder's CPU split between its two threads, which add up.
grep "tracing cost: " "$T/record.err" | sed -n 's/.*, \([0-9.]*\) % of one CPU for the recorder (\([0-9.]*\) % packing and compressing in rs-log-writer, \([0-9.]*\) % draining the rings)$/\1 \2 \3/p' >"$T/split"
read -r total writer drain <"$T/split" || fail "no CPU split by thread: $(cat "$T/record.err")"
awk -v t="$total" -v w="$writer" -v d="$drain" 'BEGIN { e = t - w - d; exit !(w > 0 && d >= 0 && e < 0.15 && e > -0.15) }' ||
	fail "split $writer + $drain is not $total"
"$CONVERT" -q --format=json -o "$T/on.summary.json" "$T/on.log" || fail "convert on.log"
"$CONVERT" --info "$T/on.log" >"$T/on.info" || fail "--info on.log"
grep -q "^cost: .* ns per hook run" "$T/on.info" || fail "--info: no cost line"

# Past its first 2 s the statistics are held in windows: the figures are
# estimates from them, and say so.
record -o "$T/long.log" -- "$WORKLOAD" --compact storm --seconds 5 >"$T/long.json"
[ "$record_status" = 0 ] || fail "storm --seconds 5: exit $record_status"
grep -q "tracing cost: .* each, estimated from [0-9]* % of the time)" "$T/record.err" ||
	fail "no estimated tracing cost line: $(cat "$T/record.err")"
"$CONVERT" -q --format=json -o "$T/long.summary.json" "$T/long.log" || fail "convert long.log"

record -q --no-self-cost -o "$T/off.log" -- "$WORKLOAD" --compact storm --count 2000 >"$T/off.json"
[ "$record_status" = 0 ] || fail "--no-self-cost: exit $record_status"
"$CONVERT" -q --format=json -o "$T/off.summary.json" "$T/off.log" || fail "convert off.log"

pycheck - "$T/on.summary.json" "$T/on.json" "$T/off.summary.json" "$T/long.summary.json" <<'PY'
import sys
from check import *
on, wl, off, long = (load(a) for a in sys.argv[1:5])
c = long["tracing_cost"]
true("long: measured in windows", 0.05 < c["bpf_measured_share"] < 0.9, c)
# Scaled from windows, under a load that varies: within a factor of 2 of
# the two runs (submit, complete) each request takes at least.
true("long: the estimate is of the requests' order",
     long["requests"]["total"] <= c["bpf_runs"] <= 8 * long["requests"]["total"],
     (c["bpf_runs"], long["requests"]["total"]))
true("long: text says it is an estimate", "estimated from" in c["text"], c["text"])
c = on["tracing_cost"]
eq("short: measured whole", c["bpf_measured_share"], 1)
reqs = on["requests"]["total"]
eq("requests", reqs, sum(workload_counts(wl, "submitted").values()))
eq("bpf stats", c["bpf_stats"], "run_time")
# At least io_uring_submit_req and io_uring_complete ran for each request.
true("hook runs cover the requests", c["bpf_runs"] >= 2 * reqs, (c["bpf_runs"], reqs))
true("run time measured", c["bpf_run_time_ns"] > 0, c)
eq("per request", c["bpf_ns_per_request"], c["bpf_run_time_ns"] / reqs)
true("recorder CPU", 0 < c["recorder_cpu_percent"] < 400, c)
true("text", c["text"].endswith("% of one CPU for the recorder"), c["text"])
c = off["tracing_cost"]
eq("--no-self-cost", c["bpf_stats"], "off (--no-self-cost)")
eq("--no-self-cost: no run time", c["bpf_run_time_ns"], None)
done()
PY
note "ok"
