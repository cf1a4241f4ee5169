# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Checks of tests/hardening/saturate.sh: a NOP storm recorded with tiny
ring buffers while CPU hogs keep every CPU busy.

  saturate.py STAT WORKLOAD SUMMARY JSON CSVDIR FXTSTAT

Losses are counted exactly (recorded + lost == generated, per record type)
and every output shows the same total; no request is mis-joined because
of them: every complete request's completion carries its submission's
user_data, no NOP completes twice, and no complete request overlaps a loss
window (those are incomplete).
"""
import csv
import re
import sys

from check import *

stat, wl = load(sys.argv[1]), load(sys.argv[2])
summary = open(sys.argv[3]).read()
conv = load(sys.argv[4])
csvdir = sys.argv[5]
fxt = load(sys.argv[6])


def rows(name):
    with open("%s/%s" % (csvdir, name), newline="") as f:
        return list(csv.DictReader(f))


# --- exact accounting (the log itself) ----------------------------------
common_log_checks(stat)
lost = stat["losses"]["by_type"]
total = stat["losses"]["total"]
nops = wl["requests"]["NOP"]["submitted"]
true("events were lost", total > 0, stat["losses"])
eq("submit: recorded + lost", stat["records"].get("submit", 0) + lost.get("submit", 0), nops)
eq("complete: recorded + lost", stat["records"].get("complete", 0) + lost.get("complete", 0),
   wl["requests"]["NOP"]["completed"])
enters = wl["enter_calls"]["count"]
eq("enter_begin: recorded + lost",
   stat["records"].get("enter_begin", 0) + lost.get("enter_begin", 0), enters)
eq("enter_end: recorded + lost",
   stat["records"].get("enter_end", 0) + lost.get("enter_end", 0), enters)
eq("END lost", stat["stop"]["end"]["lost"], total)

# --- every output shows the same total ----------------------------------
m = re.search(r"^!!! (\d+)(?: counted)? events lost", summary, re.M)
true("summary shouts about the loss", m is not None, summary[:400])
if m:
    eq("summary: events lost", int(m.group(1)), total)
eq("JSON: losses.events_lost", conv["losses"]["events_lost"], total)
counters = rows("loss_counters.csv")
eq("loss_counters.csv: total rows",
   sum(int(r["count"]) for r in counters if r["event"] == "total"), total)
windows = rows("losses.csv")
eq("losses.csv: counts of the windows",
   sum(int(r["count"] or 0) for r in windows if r["source"] in ("kernel", "recorder", "at_stop")),
   total)
fxt_lost = [c for c in fxt["counters"] if c["name"].startswith("lost events")]
true("FXT: a lost-events counter", len(fxt_lost) == 1, fxt["counters"])
if fxt_lost:
    eq("FXT: lost events counter, last value", fxt_lost[0]["last"], total)
eq("FXT: reader issues", fxt["issues"], 0)

# --- no request mis-joined ----------------------------------------------
reqs = rows("requests.csv")
complete = {r["req_id"]: r for r in reqs if r["status"] == "complete"}
true("some requests complete", len(complete) > 0, len(reqs))
seen = {}
for r in complete.values():
    ud = r["user_data"]
    if ud in seen:
        failures.append("NOP user_data %s completes twice (requests %s and %s)"
                        % (ud, seen[ud], r["req_id"]))
    seen[ud] = r["req_id"]
mismatched = 0
for e in rows("events.csv"):
    r = complete.get(e["req_id"])
    if r is not None and e["user_data"] and e["user_data"] != r["user_data"]:
        mismatched += 1
        if mismatched <= 5:
            failures.append("request %s (user_data %s): %s event with user_data %s"
                            % (r["req_id"], r["user_data"], e["event"], e["user_data"]))
eq("events of complete requests with another user_data", mismatched, 0)
spans = [(int(w["first_boot_ns"]), int(w["first_boot_ns"]) + int(w["duration_ns"]))
         for w in windows]
overlapping = 0
for r in complete.values():
    a, b = int(r["submit_boot_ns"]), int(r["complete_boot_ns"])
    for lo, hi in spans:
        if lo <= b and hi >= a:
            overlapping += 1
            if overlapping <= 5:
                failures.append("complete request %s [%d, %d] overlaps loss window [%d, %d]"
                                % (r["req_id"], a, b, lo, hi))
            break
eq("complete requests overlapping a loss window", overlapping, 0)
incomplete = sum(1 for r in reqs if r["status"] == "incomplete")
print("saturate: %d NOPs, %d events lost, %d requests complete, %d incomplete (loss)"
      % (nops, total, len(complete), incomplete))
done()
