# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare uring-convert's CSV/JSON of a recorded `workload all` with the
workload's own account of what it did (its JSON on stdout).  Only what the
kernel makes deterministic is compared exactly; the rest (which buffered
reads the kernel punts to io-wq) is left alone, as cross-kernel.md says."""
import csv
import json
import sys
from collections import Counter, defaultdict

truth = json.load(open(sys.argv[1]))
csvdir = sys.argv[2]
summary = json.load(open(sys.argv[3]))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def table(name):
    with open(f"{csvdir}/{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


reqs = table("requests")
sysc = table("syscalls")
tasks = table("tasks")
pid = str(truth["pid"])

check(summary["losses"]["events_lost"] == 0,
      f"events were lost ({summary['losses']['events_lost']}): counts cannot be exact")
mine = [r for r in reqs if r["pid"] == pid]
check(all(r["status"] == "complete" for r in mine),
      "not every request is complete: " +
      str(Counter(r["status"] for r in mine)))

# Requests, results and CQEs per opcode.  The workload counts the result of
# every CQE; requests.csv has each request's final CQE, so the results of
# multishot CQEs with F_MORE ("more_res") are taken out.
more_res = defaultdict(Counter)
for sc in truth["scenarios"]:
    for r in sc.get("request_list", []):
        for v in r.get("more_res", []):
            more_res[r["opcode"]][str(v)] += 1
by_op = defaultdict(list)
for r in mine:
    by_op[r["opcode"]].append(r)
for op, t in truth["requests"].items():
    rows = by_op.get(op, [])
    check(len(rows) == t["submitted"], f"{op}: {len(rows)} requests, workload submitted {t['submitted']}")
    res = Counter(("-" + r["errno"]) if int(r["result"]) < 0 else r["result"] for r in rows)
    final = Counter(t["res"])
    final.subtract(more_res[op])
    final = +final
    check(res == final, f"{op}: final results {dict(res)}, workload {dict(final)}")
    cqes = sum(int(r["cqes"]) for r in rows)
    check(cqes == t["cqes"], f"{op}: {cqes} CQEs, workload {t['cqes']}")
    more = sum(int(r["cqes"]) - 1 for r in rows if "multishot" in r["modifiers"])
    check(more == t["cqes_more"], f"{op}: {more} multishot CQEs, workload {t['cqes_more']}")
check(len(by_op) == len(truth["requests"]),
      f"opcodes {sorted(by_op)} vs workload {sorted(truth['requests'])}")
check(summary["anomalies"]["aux_cqes"] == truth["cqes"]["aux"],
      f"{summary['anomalies']['aux_cqes']} CQEs of no request, workload {truth['cqes']['aux']}")

# Paths the kernel makes certain.
by_ud = {int(r["user_data"]): r for r in mine}
want = {"init_failed": lambda r: r["path"] == "failed",
        "async_forced": lambda r: r["path"] == "io-wq",
        "always_async": lambda r: r["path"] == "io-wq",
        "poll_armed": lambda r: r["path"] == "poll",
        "deferred": lambda r: "drained" in r["modifiers"].split("|")}
for sc in truth["scenarios"]:
    if sc["status"] != "ok":
        continue
    for kind, uds in sc["paths"].items():
        for ud in uds:
            r = by_ud.get(ud)
            if r is None:
                failures.append(f"{sc['scenario']}: request {ud} ({kind}) missing")
            elif kind in want and not want[kind](r):
                failures.append(f"{sc['scenario']}: request {ud} is {kind} but path "
                                f"{r['path']} modifiers {r['modifiers']}")
    # Chains: one chain id, positions in order.
    for link in sc["links"]:
        rows = [by_ud.get(ud) for ud in link["user_data"]]
        if any(r is None for r in rows):
            failures.append(f"{sc['scenario']}: chain {link['user_data']} has missing members")
            continue
        ids = {r["chain_id"] for r in rows}
        check(len(ids) == 1 and "" not in ids, f"{sc['scenario']}: chain {link['user_data']} ids {ids}")
        check([int(r["chain_pos"] or -1) for r in rows] == list(range(len(rows))),
              f"{sc['scenario']}: chain {link['user_data']} positions "
              f"{[r['chain_pos'] for r in rows]}")
        check([int(r["result"]) for r in rows] == link["res"],
              f"{sc['scenario']}: chain results {[r['result'] for r in rows]} vs {link['res']}")

# events.csv req_id joins requests.csv: same user_data wherever the event
# carries one (aux CQEs have no request; fail_link's user_data is the
# failed request's).
ud_of = {r["req_id"]: r["user_data"] for r in reqs}
joined = 0
for e in table("events"):
    if e["req_id"] and e["user_data"] and e["event"] != "fail_link":
        joined += 1
        if ud_of.get(e["req_id"]) != e["user_data"]:
            failures.append(f"event {e['event']} at {e['time_ns']}: req_id {e['req_id']} "
                            f"has user_data {ud_of.get(e['req_id'])}, event {e['user_data']}")
            break
check(joined > len(mine), f"only {joined} events joined to requests")

# Syscalls.
mysys = [s for s in sysc if s["pid"] == pid]
count = Counter(s["syscall"] for s in mysys)
check(count["io_uring_enter"] == truth["enter_calls"]["count"],
      f"{count['io_uring_enter']} io_uring_enter, workload {truth['enter_calls']['count']}")
check(count["io_uring_setup"] == truth["setup_calls"]["count"],
      f"{count['io_uring_setup']} io_uring_setup, workload {truth['setup_calls']['count']}")
check(count["io_uring_register"] == truth["register_calls"]["count"],
      f"{count['io_uring_register']} io_uring_register, workload {truth['register_calls']['count']}")
enters = [s for s in mysys if s["syscall"] == "io_uring_enter"]
sub = sum(int(s["submitted"]) for s in enters)
check(sub == truth["enter_calls"]["submitted"],
      f"{sub} submitted in io_uring_enter, workload {truth['enter_calls']['submitted']}")
by_tid = Counter(s["tid"] for s in enters)
check(by_tid == Counter({k: v for k, v in truth["enter_calls"]["by_tid"].items()}),
      f"enter calls by thread {dict(by_tid)}, workload {truth['enter_calls']['by_tid']}")
for sc in truth["scenarios"]:
    calls = sc["enter_calls"].get("calls") if sc["enter_calls"].get("calls_listed") else None
    if not calls:
        continue
    # The same calls, in order per thread: arguments and return value.
    for tid in {c["tid"] for c in calls}:
        exp = [(c["to_submit"], c["min_complete"], c["ret"]) for c in calls if c["tid"] == tid]
        got = [(int(s["to_submit"]), int(s["min_complete"]), int(s["ret"]))
               for s in enters if int(s["tid"]) == tid]
        for e in exp:
            if e not in got:
                failures.append(f"{sc['scenario']}: enter {e} of thread {tid} not found")

# Threads named as the workload named them.
names = {int(t["tid"]): t["comm"] for t in tasks}
for sc in truth["scenarios"]:
    for t in sc["tids"]:
        if t.get("comm") and names.get(t["tid"]) != t["comm"]:
            failures.append(f"thread {t['tid']} is '{names.get(t['tid'])}', workload says '{t['comm']}'")

for f in failures[:40]:
    print("FAIL:", f)
print(f"{len(mine)} requests, {len(mysys)} syscalls checked; {len(failures)} failures")
sys.exit(1 if failures else 0)
