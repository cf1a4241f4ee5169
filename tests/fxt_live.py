# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare uring-convert --format=fxt of a recorded tests/workload run with
the workload's own account of what it did (its JSON on stdout), through
tests/fxtstat (what Perfetto would show, read with the independent
tests/fxt_reader).  Exact where the workload's JSON is exact: lifetimes per
opcode, io_uring_enter/setup/register slices per thread, named threads,
request and link arrows, multishot and aux CQEs.  What the kernel decides
(which requests reach io-wq, how many workers it starts) is compared with
uring-convert's own CSV of the same log, and checked against what the
workload guarantees (IOSQE_ASYNC and FSYNC requests run on a worker named
iou-wrk-<submitter>).

usage: fxt_live.py TRUTH.json FXTSTAT.json CSVDIR SUMMARY.json"""
import csv
import json
import re
import sys
from collections import Counter

truth = json.load(open(sys.argv[1]))
stat = json.load(open(sys.argv[2]))
csvdir = sys.argv[3]
summary = json.load(open(sys.argv[4]))
failures = []
SYNTHETIC = 0x40000000


def check(cond, what):
    if not cond:
        failures.append(what)


def table(name):
    with open(f"{csvdir}/{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


pid = truth["pid"]
docs = truth.get("scenarios", [truth])
check(summary["losses"]["events_lost"] == 0,
      f"events were lost ({summary['losses']['events_lost']}): counts cannot be exact")
check(stat["issues"] == 0,
      f"{stat['issues']} things Perfetto would drop or misplace: {stat['issue_messages'][:5]}")

threads = [t for t in stat["threads"] if t["pid"] == pid]
real = {t["tid"]: t for t in threads if t["tid"] < SYNTHETIC}
lanes = [t for t in threads if t["tid"] >= SYNTHETIC and " lane " in (t["name"] or "")]
procs = {p["pid"]: p["name"] for p in stat["processes"]}
comm = {t["tid"]: t["comm"] for t in truth["tids"]}
main_comm = next(t["comm"] for t in truth["tids"] if t["role"] == "main")
check(procs.get(pid) == main_comm, f"process {pid} named {procs.get(pid)!r}, want {main_comm!r}")

# --- system calls: exactly one slice per call, per thread ---------------
def calls(kind):
    per = Counter()
    for d in docs:
        for c in d.get(kind, {}).get("calls", []):
            per[c["tid"]] += 1
    return per


enters = Counter({int(t): n for t, n in truth["enter_calls"]["by_tid"].items()})
setups = calls("setup_calls")
registers = calls("register_calls")
check(sum(setups.values()) == truth["setup_calls"]["count"], "setup call lists incomplete")
check(sum(registers.values()) == truth["register_calls"]["count"], "register call lists incomplete")
for name, want in (("io_uring_enter", enters), ("io_uring_setup", setups),
                   ("io_uring_register", registers)):
    got = Counter({tid: t["top"].get(name, 0) for tid, t in real.items() if t["top"].get(name)})
    check(got == +want, f"{name} slices per thread {dict(got)}, workload made {dict(+want)}")

# --- named threads ------------------------------------------------------
# The threads that made io_uring calls or submitted (SQPOLL) appear, named
# by their comm; writers (no io_uring calls) do not; every other thread of
# the process is an io-wq worker named iou-wrk-<a submitting thread>.
sqpoll = {r["sq_thread_tid"] for r in truth["rings"] if r.get("sqpoll") and r.get("sq_thread_tid")}
callers = set(enters) | set(setups) | set(registers) | sqpoll
for tid in sorted(callers):
    t = real.get(tid)
    check(t is not None and t["name"] == comm.get(tid),
          f"thread {tid} ({comm.get(tid)}): {'missing' if t is None else repr(t['name'])}")
submitters = {r.get("submitter_tid") for r in truth["rings"]} | set(callers)
worker_names = {f"iou-wrk-{s}" for s in submitters if s}
workers = {tid: t for tid, t in real.items() if tid not in callers}
for tid, t in workers.items():
    check(t["name"] in worker_names,
          f"thread {tid} named {t['name']!r}: not a workload thread nor iou-wrk-<submitter>")
check(not any(t["tid"] in real for t in truth["tids"] if t["role"] == "writer"),
      "writer threads should not appear (they make no io_uring call)")

# --- requests: one lifetime per request, named by opcode ----------------
lifetimes = Counter()
for t in lanes:
    lifetimes.update(t["top"])
want = Counter({op: v["submitted"] for op, v in truth["requests"].items()})
check(lifetimes == want, f"lifetimes per opcode {dict(lifetimes)}, workload submitted {dict(want)}")
allnames = Counter()
for t in threads:
    allnames.update(t["all"])
check(allnames["lanes full"] == 0, f"{allnames['lanes full']} requests found no lane")
nreq = sum(want.values())
check(sum(v for k, v in allnames.items() if k.startswith("submit ")) == nreq,
      "submission instants != requests")
flows = stat["flows"]
check(flows["request"]["count"] == nreq and flows["request"]["ended"] == nreq,
      f"{flows['request']} request flows for {nreq} requests")
nlinks = sum(len(l["user_data"]) - 1 for d in docs for l in d.get("links", []))
check(flows["link"]["count"] == nlinks and flows["link"]["ended"] == nlinks,
      f"{flows['link']} link arrows, workload chained {nlinks} pairs")
check(flows["request"]["points"].get("2", 0) + flows["request"]["points"].get("3", 0) +
      sum(n for p, n in flows["request"]["points"].items() if int(p) > 3) == nreq,
      "request flows with fewer than 2 points")

# --- CQEs -----------------------------------------------------------------
more = sum(v for k, v in allnames.items() if k.startswith("CQE ") and k.endswith(" (more)"))
check(more == truth["cqes"]["more"], f"{more} multishot CQE instants, workload {truth['cqes']['more']}")
check(allnames["CQE (no request)"] == truth["cqes"]["aux"],
      f"{allnames['CQE (no request)']} CQEs of no request, workload {truth['cqes']['aux']}")
reqs = [r for r in table("requests") if r["pid"] == str(pid)]
finals = sum(1 for r in reqs if r["complete_tid"])
anchors = sum(v for k, v in allnames.items()
              if k.startswith("CQE ") and not k.endswith(" (more)") and k != "CQE (no request)")
check(anchors == finals, f"{anchors} completion instants, {finals} completions with a thread")

# --- io-wq ----------------------------------------------------------------
wslices = Counter()
for tid, t in workers.items():
    for k, v in t["top"].items():
        if not k.startswith("CQE "):	# completions posted there (also by linked requests)
            wslices[re.sub(r" \(approx\)$", "", k)] += v
ran = Counter(r["opcode"] for r in reqs if r["worker_tid"] and r["work_begin_ns"] != "-1")
check(wslices == ran, f"worker slices {dict(wslices)}, requests that ran on io-wq {dict(ran)}")
by_ud = {int(r["user_data"]): r for r in reqs}
for d in docs:
    if d.get("status") != "ok":
        continue
    for kind in ("async_forced", "always_async"):
        for ud in d.get("paths", {}).get(kind, []):
            r = by_ud.get(ud)
            check(r is not None and r["worker_tid"] and int(r["worker_tid"]) in workers,
                  f"{kind} request {ud}: no worker slice")
csv_workers = {int(r["worker_tid"]) for r in reqs if r["worker_tid"]}
check(set(workers) == csv_workers | {int(r["complete_tid"]) for r in reqs
                                     if r["complete_tid"] and int(r["complete_tid"]) not in callers},
      f"worker threads {sorted(workers)} vs the CSV's {sorted(csv_workers)}")

# --- counters -------------------------------------------------------------
counters = {c["name"]: c for c in stat["counters"] if c["pid"] == pid}
ring_numbers = sorted({int(r["ring"]) for r in reqs})
for n in ring_numbers:
    c = counters.get(f"ring {n}:inflight:0")
    check(c is not None and c["last"] == 0 and c["max"] >= 1,
          f"ring {n}: inflight counter {c}")

if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print(f"ok: {nreq} lifetimes, {sum(enters.values())} enter slices, "
      f"{len(callers)} threads + {len(workers)} io-wq workers named, "
      f"{flows['request']['count']} request flows, {nlinks} link arrows, "
      f"{sum(wslices.values())} io-wq work slices")
