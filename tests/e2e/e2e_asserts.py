# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The assertions of the end-to-end suite (tests/e2e/check.py): one
recording of tests/workload, converted to summary JSON, CSV and FXT, against
the workload's JSON (schema ringside-workload/1, tests/workload.c).

Everything outside kernel_may_choose is exact.  Paths the workload does
not promise are only bounded: a request may take io-wq only if the workload
forced it, the opcode always needs it or the kernel may punt it
(may_io_wq); the same for poll arming (may_poll_arm) and drain deferral
(may_defer)."""
import csv
import json
import os
import re
from collections import Counter, defaultdict

from e2e_hooks import version

ECANCELED = -125
SYNTHETIC_TID = 0x40000000      # fxtstat: lane tracks and other synthetic threads


def names(s):
    """A flag-name column or key ("A|B", "none", "") as a set."""
    return frozenset(x for x in (s or "").split("|") if x and x != "none")


def read_table(csvdir, name):
    """The rows of csvdir/name.csv, as dicts."""
    with open(os.path.join(csvdir, name + ".csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def expects_losses(run):
    """The plan shrinks the ring buffers of a run only to make it lose
    events (tests/e2e/plan)."""
    return any(o.startswith("--ring-size") for o in run["options"])


class Context:
    def __init__(self, run, truth, outdir, facts, bystander, errfile):
        self.run = run
        self.truth = truth
        self.docs = truth.get("scenarios", [truth])
        self.facts = facts
        self.bystander = bystander
        self.pid = truth["pid"]
        self.failures = []
        with open(os.path.join(outdir, "summary.json")) as f:
            self.summary = json.load(f)
        with open(os.path.join(outdir, "fxtstat.json")) as f:
            self.fxt = json.load(f)
        with open(os.path.join(outdir, "logstat.json")) as f:
            self.logstat = json.load(f)
        with open(errfile, errors="replace") as f:
            self.record_err = f.read()
        self.csvdir = os.path.join(outdir, "csv")
        self._tables = {}
        self.meta = self.logstat["meta"]
        self.lossy = expects_losses(run)
        self.ring_of = {}       # workload ring name -> converter ring number
        self.notes = []

    def table(self, name):
        if name not in self._tables:
            self._tables[name] = read_table(self.csvdir, name)
        return self._tables[name]

    def mine(self, name):
        return [r for r in self.table(name) if r["pid"] == str(self.pid)]

    def family(self):
        """The workload and the processes it forked (none, except e.g.
        LeakSanitizer's tracer in a sanitizer build): recorded, since
        uring-record -- COMMAND follows forks, but never using io_uring."""
        pid = str(self.pid)
        return {pid} | {t["pid"] for t in self.table("tasks") if t["ppid"] == pid}

    def fail(self, what):
        self.failures.append(what)

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
        return cond

    def eq(self, what, got, want):
        if got != want:
            self.failures.append(f"{what}: got {got!r}, want {want!r}")
        return got == want

    def summary_line(self):
        s = self.summary
        parts = [f"{s['requests']['total']} requests",
                 f"{sum(v for k, v in s['syscalls'].items() if k != 'unpaired')} syscalls",
                 f"io-wq {self.meta.get('io_wq_tracking')}",
                 f"syscalls {self.meta.get('syscall_tracking')}"]
        if self.lossy:
            parts.append(f"{s['losses']['events_lost']} events lost, all accounted for")
        return ", ".join(parts) + "".join(f"; {n}" for n in self.notes)


# ------------------------------------------------------------------ truth

def check_truth(c):
    """The workload's own document: ok, and "all" adds up."""
    t = c.truth
    c.eq("workload status", t.get("status"), "ok")
    for e in t.get("errors", [])[:5]:
        c.fail(f"workload error: {e}")
    c.eq("uring-record exit status (the command's)", c.run["status"], t.get("exit_status"))
    if "scenarios" not in t:
        return
    total = defaultdict(Counter)
    for d in t["scenarios"]:
        for op, v in d["requests"].items():
            for k in ("submitted", "completed", "cqes", "cqes_more"):
                total[op][k] += v[k]
            for r, n in v["res"].items():
                total[op]["res " + r] += n
    top = {op: Counter({**{k: v[k] for k in ("submitted", "completed", "cqes", "cqes_more")},
                        **{"res " + r: n for r, n in v["res"].items()}})
           for op, v in t["requests"].items()}
    c.eq("all: requests per opcode == the sum of its scenarios'",
         {op: +v for op, v in top.items()}, {op: +v for op, v in total.items()})
    for key in ("enter_calls", "register_calls", "setup_calls"):
        c.eq(f"all: {key} == the sum of its scenarios'", t[key]["count"],
             sum(d[key]["count"] for d in t["scenarios"]))
    for key in ("total", "more", "aux"):
        c.eq(f"all: cqes.{key} == the sum of its scenarios'", t["cqes"][key],
             sum(d["cqes"][key] for d in t["scenarios"]))


# ------------------------------------------------------------------ the log

VERIFIED_INSNS_MAX = 20000


def check_log(c):
    st, s = c.logstat, c.summary
    c.eq("log read to its end frame", st["stop"]["reader"], "end frame")
    end = st["stop"].get("end") or {}
    c.eq("END reason", end.get("reason"), "command exited")
    c.eq("END exit status", end.get("exit_status"), c.truth.get("exit_status"))
    c.eq("payload errors", st["payload_errors"], 0)
    c.eq("unknown records", st["unknown_records"], 0)
    c.eq("summary: stopped cleanly", s["recording"]["stopped_cleanly"], True)
    c.eq("summary: stop reason", s["recording"]["stop_reason"], "command exited")
    c.eq("summary: unknown records", s["anomalies"]["unknown_records"], 0)
    c.eq("summary: damaged frames", s["losses"]["damaged_frames"], 0)
    c.eq("summary: frame gaps", s["losses"]["frame_gaps"], 0)
    # Requests completed inline have their completion folded into their
    # submit record (log format 4.0): NOPs always complete inline, in the
    # task that submits them, on every kernel.  (A small ring's stage is
    # too small to keep a batch's submit records until its completions.)
    if not c.lossy and c.run["args"][:1] in (["nop"], ["demo"], ["all"]):
        c.check(st["folded_completions"] > 0, "no completion folded into its submit record "
                f"({st['records'].get('submit')} submit records)")
    if not c.lossy:
        c.eq("events lost", s["losses"]["events_lost"], 0)
        c.eq("logstat: events lost", st["losses"]["total"], 0)
        c.check("lost 0 events" in c.record_err, "uring-record did not report 'lost 0 events'")
        c.eq("converter warnings", s["warnings"], [])
    # The recorder's start is mostly BPF verification: one bpf_loop callback
    # once cost ~60k verified instructions per call site on 6.7+ (1.1 s of
    # start on 6.18).  No program needs more than a few thousand.
    stats = st["stats"] or {}
    c.check(stats.get("bpf_verified_insns_max", 0) <= VERIFIED_INSNS_MAX,
            f"a BPF program took {stats.get('bpf_verified_insns_max')} verified instructions "
            f"(at most {VERIFIED_INSNS_MAX} expected; bpf_load_s {stats.get('bpf_load_s')})")
    c.check("bpf_verified_insns" in stats, "STATS frame without bpf_verified_insns")
    # Kernels with bpf_rdonly_cast() (6.2+) must load the build with direct
    # kernel loads: the recorder falls back to bpf_probe_read_kernel() when
    # the verifier refuses it, which would otherwise go unseen.  The
    # helper-reads run takes that fallback on purpose.
    release = version(c.meta["host"]["release"])
    refused = "URING_RECORD_TEST_NO_DIRECT_LOADS=1" in c.run["options"]
    c.eq("BPF kernel reads", stats.get("bpf_kernel_reads"),
         "direct" if release >= (6, 2) and not refused else "probe_read")
    # io_uring_enter records carry log2 of the ring sizes, read from the
    # shared ring header: each pair must be one of the workload's rings.
    sizes = {(r["sq_entries"], r["cq_entries"]) for d in c.docs for r in d.get("rings", [])}
    enters = [e for e in st["syscalls"]["enter"] if e["ring_valid"]]
    orders = {(1 << e["sq_order"], 1 << e["cq_order"]) for e in enters if e["state_valid"]}
    c.check(not enters or orders, "no io_uring_enter record with the ring's state")
    c.eq("io_uring_enter ring sizes that are not the workload's", orders - sizes, set())
    # The exit's fd and ring are the entry's (kept per CPU while the task is
    # not switched out, else read from its registers and resolved again):
    # always the same.
    c.eq("io_uring_enter exits naming another ring than their entry",
         [(e["tid"], e["ring"], e["end_ring"]) for e in enters
          if e["ret"] is not None and e["end_ring_valid"] and e["end_ring"] != e["ring"]], [])
    c.eq("io_uring_enter exits naming another fd than their entry",
         [(e["tid"], e["fd"], e["end_fd"]) for e in st["syscalls"]["enter"]
          if e["ret"] is not None and e["end_fd"] != e["fd"]], [])
    failed = [p for p in c.meta["probes"] if p["status"] not in ("attached", "absent")]
    c.eq("probes neither attached nor absent", failed, [])
    c.eq("summary: io-wq tracking", s["recording"]["io_wq_tracking"], c.meta["io_wq_tracking"])
    # BPF_ENABLE_STATS (5.8) works on every supported kernel: the tracing
    # cost is measured, and its programs ran at least once per request.
    cost = s["tracing_cost"]
    if s["recording"]["stopped_cleanly"]:
        c.eq("summary: BPF run time measured", cost and cost["bpf_stats"], "run_time")
    if cost and cost["bpf_runs"] is not None and cost["bpf_measured_share"] == 1:
        c.check(cost["bpf_runs"] >= s["requests"]["total"],
                f"summary: {cost['bpf_runs']} BPF runs for {s['requests']['total']} requests")


# ------------------------------------------------------------------ requests

def final_results(op_truth, more_res):
    """The workload counts the res of every CQE; requests.csv has the final one."""
    res = Counter({k: v for k, v in op_truth["res"].items()})
    res.subtract(more_res)
    return +res


def res_key(row):
    return "-" + row["errno"] if int(row["result"]) < 0 else row["result"]


def check_requests(c):
    t = c.truth
    reqs = c.table("requests")
    mine = c.mine("requests")
    c.eq("requests of other processes", sorted({r["pid"] for r in reqs} - {str(c.pid)}), [])
    c.eq("request status", Counter(r["status"] for r in mine), Counter({"complete": len(mine)}))

    # Per opcode: requests, final results, CQEs, multishot CQEs.
    more_res = defaultdict(Counter)
    for d in c.docs:
        for q in d.get("request_list", []):
            for v in q.get("more_res", []):
                more_res[q["opcode"]][str(v)] += 1
    by_op = defaultdict(list)
    for r in mine:
        by_op[r["opcode"]].append(r)
    c.eq("opcodes", sorted(by_op), sorted(op for op, v in t["requests"].items() if v["submitted"]))
    for op, v in t["requests"].items():
        rows = by_op.get(op, [])
        c.eq(f"{op}: requests", len(rows), v["submitted"])
        c.eq(f"{op}: final results", Counter(res_key(r) for r in rows),
             final_results(v, more_res[op]))
        c.eq(f"{op}: CQEs", sum(int(r["cqes"]) for r in rows), v["cqes"])
        c.eq(f"{op}: multishot CQEs",
             sum(int(r["cqes"]) - 1 for r in rows if "multishot" in names(r["modifiers"])),
             v["cqes_more"])
    ops = {o["opcode"]: o for o in c.summary["opcodes"]}
    for op, v in t["requests"].items():
        c.eq(f"summary: {op} count", ops.get(op, {}).get("count"), v["submitted"])
        c.eq(f"summary: {op} complete", ops.get(op, {}).get("complete"), v["submitted"])
    c.eq("summary: requests", c.summary["requests"]["total"],
         sum(v["submitted"] for v in t["requests"].values()))
    an = c.summary["anomalies"]
    c.eq("summary: aux CQEs", an["aux_cqes"], t["cqes"]["aux"])
    c.eq("summary: multishot CQEs", an["multishot_cqes"], t["cqes"]["more"])
    c.eq("summary: failed at submission", an["failed_at_submission"],
         sum(len(d["paths"].get("init_failed", [])) for d in c.docs))
    for k in ("cq_overflows", "cqes_dropped", "short_writes"):
        c.eq(f"summary: {k}", an[k], 0)

    # Request by request, for scenarios that list them (all but storm).
    by_ud = {int(r["user_data"]): r for r in mine}
    c.check(len(by_ud) == len(mine), "two requests with one user_data")
    ring_map = defaultdict(set)
    for d in c.docs:
        if "request_list" not in d:
            continue
        rings = {r["name"]: r for r in d["rings"]}
        listed = {q["user_data"] for q in d["request_list"]}
        base = {r["user_data_base"] for r in d["rings"]}
        stray = [ud for ud in by_ud if ud - ud % 1000000 in base and ud not in listed]
        c.eq(f"{d['scenario']}: requests the workload did not make", stray, [])
        for q in d["request_list"]:
            r = by_ud.get(q["user_data"])
            what = f"{d['scenario']}: request {q['user_data']} ({q['opcode']} {q['what']})"
            if r is None:
                c.fail(f"{what}: missing")
                continue
            ring = rings[q["ring"]]
            ring_map[q["ring"] if "scenarios" not in c.truth else (d["scenario"], q["ring"])].add(int(r["ring"]))
            c.eq(f"{what}: opcode", r["opcode"], q["opcode"])
            c.eq(f"{what}: SQE flags", names(r["sqe_flags"]), names(q["sqe_flags_names"]))
            c.eq(f"{what}: result", int(r["result"]), q["res"])
            c.eq(f"{what}: CQEs", int(r["cqes"]), 1 + len(q.get("more_res", [])))
            c.eq(f"{what}: submitting thread", int(r["tid"]), ring["submitter_tid"])
            check_path(c, what, q, r, ring)
    # Each workload ring is one converter ring, and no two share one.
    for ring, nums in ring_map.items():
        c.eq(f"ring {ring}: converter rings of its requests", len(nums), 1)
    flat = [n for nums in ring_map.values() for n in nums]
    c.eq("workload rings sharing a converter ring", len(flat), len(set(flat)))
    c.ring_of = {k: next(iter(v)) for k, v in ring_map.items() if len(v) == 1}
    check_links(c, by_ud)
    check_order(c, by_ud)
    check_reaped(c)
    # events.csv req_id joins each event to its request: the same
    # user_data wherever the event carries one (fail_link carries the
    # failed request's).
    ud_of = {r["req_id"]: r["user_data"] for r in reqs}
    joined = 0
    for e in c.table("events"):
        if e["req_id"] and e["user_data"] and e["event"] != "fail_link":
            joined += 1
            if ud_of.get(e["req_id"]) != e["user_data"]:
                c.fail(f"event {e['event']} at {e['time_ns']}: req_id {e['req_id']} is request "
                       f"{ud_of.get(e['req_id'])}, the event says {e['user_data']}")
                break
    c.check(joined >= 2 * len(mine), f"only {joined} events joined to {len(mine)} requests")


def check_files(c):
    """Every request the workload tagged with a file names exactly that
    file in requests.csv: the path /proc/self/fd shows, type, dev and ino
    as fstat() gave them, the open flags, whether the request reached it by
    fd or as a fixed file; files.csv and the JSON count its requests."""
    by_ud = {int(r["user_data"]): r for r in c.mine("requests")}
    files_csv = c.table("files")
    files_json = c.summary.get("files", [])
    checked = both = 0
    for d in c.docs:
        files = d.get("files", [])
        tagged = defaultdict(int)
        ways = defaultdict(set)
        for q in d.get("request_list", []):
            if "file" not in q:
                continue
            f = files[q["file"]]
            r = by_ud.get(q["user_data"])
            if r is None:
                continue        # check_requests reports it
            what = f"{d['scenario']}: request {q['user_data']} ({q['opcode']} {q['what']})"
            c.eq(f"{what}: file_path", r["file_path"], f["path"])
            c.eq(f"{what}: file_type", r["file_type"], f["type"])
            c.eq(f"{what}: file_dev", r["file_dev"], f["dev"])
            c.eq(f"{what}: file_ino", r["file_ino"], str(f["ino"]))
            c.eq(f"{what}: file_flags", r["file_flags"], f["flags"] or "none")
            c.check(r["file_fs"] != "", f"{what}: no file_fs")
            tagged[q["file"]] += 1
            fixed = "FIXED_FILE" in names(q["sqe_flags_names"])
            ways[q["file"]].add(("fixed" if fixed else "fd", r["file_path"]))
            checked += 1
        for i, f in enumerate(files):
            name = f"{d['scenario']}: file {f['name']} ({f['path']})"
            # reached both ways: one path, the same file
            kinds = {k for k, _ in ways[i]}
            if len(kinds) == 2:
                both += 1
                c.eq(f"{name}: paths by fd and as fixed file", len({p for _, p in ways[i]}), 1)
            # by path too: a file system reuses the inode of a file gone
            rows = [x for x in files_csv if x["dev"] == f["dev"] and x["ino"] == str(f["ino"])
                    and x["path"] == f["path"]]
            c.eq(f"{name}: rows in files.csv", len(rows), 1 if tagged[i] else 0)
            if rows:
                c.eq(f"{name}: files.csv type", rows[0]["type"], f["type"])
                c.eq(f"{name}: files.csv requests", int(rows[0]["requests"]), tagged[i])
                j = [x for x in files_json if x["dev"] == f["dev"] and x["ino"] == f["ino"]
                     and x["path"] == f["path"]]
                c.eq(f"{name}: JSON requests", [x["requests"] for x in j], [tagged[i]])
    if any(d.get("files") for d in c.docs):
        c.check(checked > 0, "no request tagged with a file was checked")
        # demo reaches its scratch file both ways
        if any(d["scenario"] == "demo" for d in c.docs):
            c.check(both > 0, "no file was reached both by fd and as a fixed file")
        c.notes.append(f"{checked} file identities checked")


def check_path(c, what, q, r, ring):
    paths = set(q.get("paths", []))
    mods = names(r["modifiers"])
    path = r["path"]
    if "init_failed" in paths:
        c.eq(f"{what}: path", path, "failed")
        return
    c.check(path != "failed", f"{what}: path failed, but the kernel accepted its SQE")
    if paths & {"async_forced", "always_async"}:
        c.eq(f"{what}: path", path, "io-wq")
        if c.meta["io_wq_tracking"] != "none":
            worker = r["worker_tid"]
            if c.check(worker != "", f"{what}: no io-wq worker"):
                comm = c.task_comm.get(int(worker))
                c.eq(f"{what}: its worker's name", comm, ring["io_wq_worker_comm"])
            approx = c.meta["io_wq_tracking"] == "sched_switch"
            c.eq(f"{what}: worker_approx", "worker_approx" in mods, approx)
    elif path == "io-wq":
        c.check("may_io_wq" in paths or "may_poll_arm" in paths,
                f"{what}: took io-wq, which the workload neither forced nor allowed")
    if "poll_armed" in paths:
        c.eq(f"{what}: path", path, "poll")
    elif path == "poll":
        # POLL_ADD is a poll: its path is poll whenever it did not fire at once
        c.check("may_poll_arm" in paths or q["opcode"] == "POLL_ADD",
                f"{what}: armed a poll the workload did not allow")
    if "deferred" in paths:
        c.check("drained" in mods, f"{what}: not marked drained ({r['modifiers']})")
    elif "drained" in mods:
        c.check("may_defer" in paths, f"{what}: drained, which the workload did not allow")
    check_path_reason(c, what, paths, r)
    sqpoll = ring.get("sqpoll", False)
    c.eq(f"{what}: sqpoll modifier", "sqpoll" in mods, bool(sqpoll))
    c.eq(f"{what}: multishot modifier", "multishot" in mods, bool(q.get("more_res")))


def check_path_reason(c, what, paths, r):
    """Why not inline, where the workload knows it by construction (the
    first rule of uring-convert(1), "Why not inline", that applies)."""
    if r["status"] != "complete" or r["chain_pos"] not in ("", "0"):
        return
    if "deferred" in paths:
        want = "drain"
    elif "async_forced" in paths:
        want = "sqe_async"
    elif "always_async" in paths:
        # An opcode that cannot complete without blocking is marked so in
        # its definition, or (SHUTDOWN on 6.1: io_shutdown() returns
        # -EAGAIN under IO_URING_F_NONBLOCK) tries and fails first.
        if r["path_reason"] == "iowq_after_eagain" and what.startswith("streams:") \
                and "SHUTDOWN" in what:
            return
        want = "iowq_no_nowait"
    elif "poll_armed" in paths:
        want = "poll_armed"
    else:
        return
    c.eq(f"{what}: path_reason", r["path_reason"], want)


def check_links(c, by_ud):
    """Chains: one chain id, positions in order, results; which member
    failed the chain and which were cancelled."""
    failed_chains = cancelled = 0
    for d in c.docs:
        for link in d.get("links", []):
            rows = [by_ud.get(ud) for ud in link["user_data"]]
            what = f"{d['scenario']}: chain {link['user_data']}"
            if any(r is None for r in rows):
                c.fail(f"{what}: members missing")
                continue
            ids = {r["chain_id"] for r in rows}
            c.check(len(ids) == 1 and "" not in ids, f"{what}: chain ids {ids}")
            c.eq(f"{what}: head", rows[0]["chain_id"], rows[0]["req_id"])
            c.eq(f"{what}: positions", [r["chain_pos"] for r in rows],
                 [str(i) for i in range(len(rows))])
            c.eq(f"{what}: results", [int(r["result"]) for r in rows], link["res"])
            c.check(all("linked" in names(r["modifiers"]) for r in rows), f"{what}: not all linked")
            for a, b in zip(rows, rows[1:]):
                c.eq(f"{what}: link_next of {a['user_data']}", a["link_next"], b["req_id"])
                c.eq(f"{what}: link_prev of {b['user_data']}", b["link_prev"], a["req_id"])
            # A soft chain fails at its first member that ends in error and
            # has a member after it (a LINK_TIMEOUT belongs to the request
            # before it and cancels it instead: no failed chain).  The kernel
            # (io_fail_links) cancels every member after the failure.
            ops = [r["opcode"] for r in rows]
            fail_at = None
            if not link["hard"] and "LINK_TIMEOUT" not in ops:
                for i, res in enumerate(link["res"][:-1]):
                    if res < 0:
                        fail_at = i
                        break
            want_failed = [i == fail_at for i in range(len(rows))]
            want_cancelled = [fail_at is not None and i > fail_at for i in range(len(rows))]
            c.eq(f"{what}: link_failed members", ["link_failed" in names(r["modifiers"]) for r in rows],
                 want_failed)
            c.eq(f"{what}: link_cancelled members",
                 ["link_cancelled" in names(r["modifiers"]) for r in rows], want_cancelled)
            if fail_at is not None:
                failed_chains += 1
                cancelled += len(rows) - fail_at - 1
                for i in range(fail_at + 1, len(rows)):
                    if "init_failed" not in set(by_ud_paths(d, link["user_data"][i])):
                        c.eq(f"{what}: result of cancelled member {i}", link["res"][i], ECANCELED)
    an = c.summary["anomalies"]
    c.eq("summary: failed links", an["failed_links"], failed_chains)
    c.eq("summary: cancelled link members", an["cancelled_link_members"], cancelled)


def by_ud_paths(doc, ud):
    for q in doc.get("request_list", []):
        if q["user_data"] == ud:
            return q.get("paths", [])
    return []


def check_order(c, by_ud):
    for d in c.docs:
        for o in d.get("order", []):
            r = by_ud.get(o["user_data"])
            if r is None:
                continue
            for ud in o.get("after", []):
                a = by_ud.get(ud)
                if a is not None:
                    c.check(int(r["complete_ns"]) > int(a["complete_ns"]),
                            f"{d['scenario']}: {o['user_data']} completed before {ud}")
            for ud in o.get("before", []):
                b = by_ud.get(ud)
                if b is not None:
                    c.check(int(r["complete_ns"]) < int(b["complete_ns"]),
                            f"{d['scenario']}: {o['user_data']} completed after {ud}")


# ------------------------------------------------------------------ rings

def workload_rings(c):
    """(key, ring, doc) for every ring the workload set up."""
    for d in c.docs:
        for r in d["rings"]:
            yield (r["name"] if "scenarios" not in c.truth else (d["scenario"], r["name"])), r, d


def check_rings(c):
    rows = {int(r["ring"]): r for r in c.mine("rings")}
    others = [r for r in c.table("rings") if r["pid"] != str(c.pid)]
    c.eq("rings of other processes", [r["ring"] for r in others], [])
    want = list(workload_rings(c))
    c.eq("rings", len(rows), len(want))
    sring = {r["ring"]: r for r in c.summary["rings"]}
    procs = c.summary["processes"]
    c.eq("processes in the summary", [p["pid"] for p in procs], [c.pid])
    for key, wr, d in want:
        n = c.ring_of.get(key)
        what = f"ring {key}"
        if n is None:
            # A ring without requests: find it by thread and fd.
            cand = [k for k, r in rows.items() if int(r["tid"]) == wr["tid"] and int(r["fd"]) == wr["fd"]
                    and k not in c.ring_of.values()]
            if not c.check(len(cand) == 1, f"{what}: {len(cand)} converter rings match its thread and fd"):
                continue
            n = cand[0]
            c.ring_of[key] = n
        r = rows.get(n)
        if r is None:
            c.fail(f"{what}: converter ring {n} not in rings.csv")
            continue
        c.eq(f"{what}: fd", int(r["fd"]), wr["fd"])
        c.eq(f"{what}: thread", int(r["tid"]), wr["tid"])
        c.eq(f"{what}: created in the recording", r["created_in_recording"], "true")
        c.eq(f"{what}: setup flags", names(r["setup_flags"]), names(wr["setup_flags_names"]))
        c.eq(f"{what}: SQ entries", int(r["sq_entries"]), wr["sq_entries"])
        c.eq(f"{what}: CQ entries", int(r["cq_entries"]), wr["cq_entries"])
        c.eq(f"{what}: SQPOLL thread", int(r["sqpoll_tid"] or 0), wr.get("sq_thread_tid") or 0)
        nreq = sum(v["submitted"] for v in wr["requests"].values())
        c.eq(f"{what}: requests", int(r["requests"]), nreq)
        s = sring.get(n, {})
        if c.meta["syscall_tracking"] != "none":
            c.eq(f"{what}: summary enters", s.get("enters"), wr["enter_calls"])
        c.eq(f"{what}: summary aux CQEs", s.get("aux_cqes"), wr["cqes_aux"])
        c.eq(f"{what}: summary multishot CQEs", s.get("multishot_cqes"),
             sum(v["cqes_more"] for v in wr["requests"].values()))


RW_OPS = {"READ", "WRITE", "READV", "WRITEV", "READ_FIXED", "WRITE_FIXED"}


def check_iowq(c):
    """io-wq pools and hashed work, from the work flags of format 3.1 logs
    (uring-convert(1), "io-wq workers and hashed work"): the kernel's rules
    where the workload decides (reads never hashed; a write to a regular
    file hashed whenever bounded; a buffered write punted after its inline
    try bounded and hashed), and the tables agree with each other, the
    counters and FXT."""
    v = c.summary["recording"]["format_version"]
    if (v["major"], v["minor"]) < (3, 1):
        return
    reqs = c.mine("requests")
    by_ud = {int(r["user_data"]): r for r in reqs}
    for d in c.docs:
        for q in d.get("request_list", []):
            r = by_ud.get(q["user_data"])
            if r is None or q["opcode"] not in RW_OPS:
                continue
            what = f"{d['scenario']}: request {q['user_data']} ({q['opcode']} {q['what']})"
            if "async_forced" in q.get("paths", []) or "ASYNC" in names(r["sqe_flags"]):
                # Punted at submission: 6.18 has not assigned the file yet
                # (unbounded, never hashed), 6.1 and 6.12 have (a regular
                # file: bounded, and a write hashed by inode).
                c.check(r["io_wq_pool"] in ("bound", "unbound"), f"{what}: io-wq pool {r['io_wq_pool']!r}")
                if q["opcode"].startswith("WRITE"):
                    c.eq(f"{what}: hashed iff bounded", r["io_wq_hash_key"] != "",
                         r["io_wq_pool"] == "bound")
                else:
                    c.eq(f"{what}: hash key of a read", r["io_wq_hash_key"], "")
            elif (q["what"].startswith("file write") and r["path"] == "io-wq"
                  and not names(r["sqe_flags"]) & {"FIXED_FILE", "ASYNC"}):
                # Punted after an inline try, the buffered write to a
                # regular file had its file: bounded, hashed by inode.
                c.eq(f"{what}: io-wq pool", r["io_wq_pool"], "bound")
                c.check(r["io_wq_hash_key"] != "", f"{what}: punted buffered write not hashed")
    keys = defaultdict(set)
    hashed = Counter()
    for r in reqs:
        what = f"request {r['user_data']} ({r['opcode']})"
        if r["queue_async_ns"] != "-1":
            c.check(r["io_wq_pool"] in ("bound", "unbound"), f"{what}: io-wq pool {r['io_wq_pool']!r}")
        is_hashed = "hashed" in names(r["modifiers"])
        c.eq(f"{what}: hash key present iff hashed", r["io_wq_hash_key"] != "", is_hashed)
        if is_hashed:
            hashed[r["ring"]] += 1
            keys[(r["ring"], r["fd"], "FIXED_FILE" in names(r["sqe_flags"]))].add(r["io_wq_hash_key"])
    for k, v in keys.items():
        c.eq(f"ring {k[0]} fd {k[1]}: hash keys of one file", len(v), 1)
    if c.meta["io_wq_tracking"] in ("fentry", "kprobe"):
        # Exact placement: a worker only ever takes work of its own pool.
        pools = defaultdict(set)
        for r in reqs:
            if r["worker_tid"] and r["io_wq_pool"]:
                pools[r["worker_tid"]].add(r["io_wq_pool"])
        for tid, p in pools.items():
            c.eq(f"worker {tid}: pools of the work it ran", len(p), 1)
    ctr = defaultdict(list)
    for x in c.table("counters"):
        ctr[(x["ring"], x["counter"])].append(int(x["value"]))
    tasks = [t for t in c.mine("tasks") if t["kind"] == "io-wq-worker"]
    all_exited = all(t["exit_ns"] != "-1" for t in tasks)
    sring = {r["ring"]: r for r in c.summary["rings"]}
    stat = {x["name"]: x for x in c.fxt["counters"] if x["pid"] == c.pid}
    for n, r in ((r["ring"], r) for r in c.mine("rings")):
        what = f"converter ring {n}"
        c.eq(f"{what}: io_wq_hashed", int(r["io_wq_hashed"]), hashed[n])
        if r["io_wq_hashed_key_peak"] == "":
            # No work flags on this ring: it had no io-wq work.
            c.eq(f"{what}: io-wq requests without work flags",
                 [q["user_data"] for q in reqs if q["ring"] == n and q["queue_async_ns"] != "-1"], [])
            continue
        peak = int(r["io_wq_hashed_key_peak"] or 0)
        c.check((peak == 0) == (hashed[n] == 0) and peak <= hashed[n],
                f"{what}: hashed key peak {peak} of {hashed[n]} hashed")
        bound, unbound = int(r["io_wq_bound_workers_peak"]), int(r["io_wq_unbound_workers_peak"])
        c.check(bound + unbound <= int(r["io_wq_workers"]),
                f"{what}: {bound} bounded + {unbound} unbounded workers, of {r['io_wq_workers']} seen")
        io_wq = sring.get(int(n), {}).get("io_wq", {})
        c.eq(f"{what}: summary io_wq", (io_wq.get("hashed"), io_wq.get("hashed_key_peak"),
                                        io_wq.get("bound_workers_peak"), io_wq.get("unbound_workers_peak")),
             (hashed[n], peak, bound, unbound))
        for name, p in (("io_wq_bound_workers", bound), ("io_wq_unbound_workers", unbound)):
            vals = ctr.get((n, name), [])
            c.eq(f"{what}: {name} counter peak", max(vals, default=0), p)
            if vals and all_exited:
                c.eq(f"{what}: {name} counter at the end", vals[-1], 0)
            x = stat.get(f"ring {n}:{name}:0")
            c.eq(f"{what}: FXT {name} peak", x["max"] if x else 0, p)


# ------------------------------------------------------------------ syscalls

ENTER_KEY = (lambda w: (w["fd"], w["to_submit"], w["min_complete"], names(w["flags_names"]), w["ret"]),
             lambda g: (int(g["fd"]), int(g["to_submit"]), int(g["min_complete"]), names(g["flags"]),
                        int(g["ret"])))
SETUP_KEY = (lambda w: (w["entries"], names(w["flags_names"]), w["ret"]),
             lambda g: (int(g["entries"]), names(g["setup_flags"]), int(g["ret"])))
REGISTER_KEY = (lambda w: (w["fd"], w["opcode_name"], w["nr_args"], w["ret"]),
                lambda g: (int(g["fd"]), g["register_opcode"], int(g["nr_args"]), int(g["ret"])))


def ring_snapshots(c):
    """Boot times at which the log read a ring's CQ head: the begin and the
    end of each io_uring_enter on it (cq_pending_* present), by ring."""
    snaps = defaultdict(list)
    for s in c.mine("syscalls"):
        if s["syscall"] != "io_uring_enter" or not s["ring"]:
            continue
        begin = int(s["enter_boot_ns"])
        if s["cq_pending_enter"] != "":
            snaps[s["ring"]].append(begin)
        if s["cq_pending_exit"] != "":
            snaps[s["ring"]].append(begin + int(s["duration_ns"]))
    return {k: sorted(v) for k, v in snaps.items()}


def check_reaped(c):
    """reaped_by_ns, against the time the workload moved the CQ head past
    each final CQE (request_list reaped_ns, read just after the store): an
    upper bound of it, never before the completion, and with a CQ head
    bound exactly the first ring snapshot after it; a CQE the workload
    never reaped has none."""
    if c.meta["syscall_tracking"] == "none":
        return
    snaps = ring_snapshots(c)
    by_ud = {int(r["user_data"]): r for r in c.mine("requests")}
    checked = 0
    for d in c.docs:
        for q in d.get("request_list", []):
            r = by_ud.get(q["user_data"])
            if r is None:
                continue
            what = f"{d['scenario']}: request {q['user_data']} ({q['opcode']} {q['what']})"
            reaped = int(r["reaped_by_ns"])
            truth = q.get("reaped_ns")
            after = [t for t in snaps.get(r["ring"], []) if truth and t > truth]
            if reaped < 0:
                c.check(not truth or not after or r["cq_index"] == "",
                        f"{what}: no reaped_by_ns, though the workload reaped it at {truth} "
                        f"and the ring was read at {after[:1]}")
                continue
            offset = int(r["complete_boot_ns"]) - int(r["complete_ns"])
            c.check(reaped >= int(r["complete_ns"]),
                    f"{what}: reaped_by_ns {reaped} before its completion {r['complete_ns']}")
            if not c.check(truth is not None, f"{what}: reaped_by_ns {reaped}, never reaped"):
                continue
            c.check(truth <= reaped + offset,
                    f"{what}: reaped_by {reaped + offset} (boot ns) before the workload "
                    f"reaped it at {truth}")
            if r["reaped_bound"] == "cq_head" and r["cq_index_exact"] == "true":
                c.eq(f"{what}: reaped_by = first ring snapshot after the reap",
                     reaped + offset, after[0] if after else None)
            checked += 1
    c.notes.append(f"reaped_by_ns checked on {checked} requests")


def check_syscalls(c):
    """Every io_uring_enter, io_uring_setup and io_uring_register of every
    thread, in order, with its arguments, result and ring."""
    t = c.truth
    sysc = c.table("syscalls")
    mine = c.mine("syscalls")
    c.eq("syscalls of other processes", sorted({s["pid"] for s in sysc} - {str(c.pid)}), [])
    count = Counter(s["syscall"] for s in mine)
    for kind in ("enter", "setup", "register"):
        key = f"{kind}_calls"
        c.eq(f"io_uring_{kind} calls", count[f"io_uring_{kind}"], t[key]["count"])
        c.eq(f"summary: io_uring_{kind}", c.summary["syscalls"][f"io_uring_{kind}"], t[key]["count"])
    c.eq("summary: unpaired syscalls", c.summary["syscalls"]["unpaired"], 0)
    enters = [s for s in mine if s["syscall"] == "io_uring_enter"]
    c.eq("submitted in io_uring_enter", sum(int(s["submitted"]) for s in enters),
         t["enter_calls"]["submitted"])
    c.eq("io_uring_enter calls per thread", Counter(s["tid"] for s in enters),
         Counter({k: v for k, v in t["enter_calls"]["by_tid"].items()}))
    c.check(not any(s["events_lost"] == "true" for s in mine), "syscalls marked events_lost")

    got = defaultdict(list)
    for s in sorted(mine, key=lambda s: int(s["syscall_id"])):
        got[(int(s["tid"]), s["syscall"])].append(s)
    setup_rings = {}
    for syscall, key, (want_key, got_key) in (
            ("io_uring_setup", "setup_calls", SETUP_KEY),
            ("io_uring_enter", "enter_calls", ENTER_KEY),
            ("io_uring_register", "register_calls", REGISTER_KEY)):
        # The workload's calls of each thread, scenario after scenario; a
        # scenario that only counts them (storm) leaves a run of wildcards.
        want = defaultdict(list)
        for d in c.docs:
            calls = d[key].get("calls")
            if calls is not None and d[key].get("calls_listed", True):
                for w in calls:
                    want[w["tid"]].append((d, w))
            else:
                for tid, n in d[key].get("by_tid", {}).items():
                    want[int(tid)].extend([(d, None)] * n)
        for tid in sorted(set(want) | {k[0] for k in got if k[1] == syscall}):
            ws, gs = want.get(tid, []), got.get((tid, syscall), [])
            if not c.eq(f"{syscall} calls of thread {tid}", len(gs), len(ws)):
                continue
            hist = defaultdict(Counter)
            for i, ((d, w), g) in enumerate(zip(ws, gs)):
                sc = d["scenario"]
                if w is None:
                    hist[sc][g["to_submit"]] += 1
                    continue
                what = f"{sc}: {syscall} seq {w['seq']} (thread {tid})"
                if not c.eq(what, got_key(g), want_key(w)):
                    continue
                if w.get("ring") is None:
                    continue
                rkey = w["ring"] if "scenarios" not in c.truth else (sc, w["ring"])
                if syscall == "io_uring_setup":
                    setup_rings[rkey] = int(g["ring"])
                n = c.ring_of.get(rkey, setup_rings.get(rkey))
                if n is not None:
                    c.eq(f"{what}: ring", int(g["ring"]) if g["ring"] else None, n)
                if syscall == "io_uring_enter" and w["to_submit"] > 0 and w["ret"] >= 0:
                    c.eq(f"{what}: submitted", int(g["submitted"]), min(w["ret"], w["to_submit"]))
            for d in c.docs:
                if d["scenario"] in hist or ("to_submit_hist" in d[key] and str(tid) in d[key]["by_tid"]):
                    c.eq(f"{d['scenario']}: {syscall} calls of thread {tid} by to_submit",
                         hist[d["scenario"]], Counter(d[key].get("to_submit_hist", {})))
    # Rings the requests did not name are known from their io_uring_setup.
    for k, n in setup_rings.items():
        c.ring_of.setdefault(k, n)


# ------------------------------------------------------------------ tasks

def check_tasks(c):
    tasks = c.table("tasks")
    c.eq("tasks of other processes", sorted({t["pid"] for t in tasks} - c.family()), [])
    mine = c.mine("tasks")
    c.task_comm = {int(t["tid"]): t["comm"] for t in mine}
    kinds = {int(t["tid"]): t["kind"] for t in mine}
    for d in c.docs:
        for t in d["tids"]:
            c.eq(f"{d['scenario']}: thread {t['tid']} ({t['role']}) name",
                 c.task_comm.get(t["tid"]), t["comm"])
            if t["role"] == "sqpoll":
                c.eq(f"{d['scenario']}: thread {t['tid']} kind", kinds.get(t["tid"]), "sqpoll")
    # Every io-wq worker is named after a thread that submits on one of the
    # process's rings (iou-wrk-<tid>; an SQPOLL ring's submitter is its SQ
    # thread), and nothing else is called a worker.
    submitters = set()
    for d in c.docs:
        for r in d["rings"]:
            submitters.add(r["submitter_tid"])
    worker_names = {f"iou-wrk-{s}" for s in submitters}
    for t in mine:
        if t["kind"] == "io-wq-worker":
            c.check(t["comm"] in worker_names,
                    f"io-wq worker {t['tid']} named {t['comm']!r}, not iou-wrk-<a submitter>")
        elif t["comm"].startswith("iou-wrk-"):
            c.fail(f"thread {t['tid']} named {t['comm']} is of kind {t['kind']}")


# ------------------------------------------------------------------ isolation

def foreign_events(c):
    """Events of other processes.  Not counted: a context switch to one of
    the workload's io_uring threads (the thread switched out may be any
    other), and "lost" records (no process)."""
    pid, family = str(c.pid), c.family()
    return [e for e in c.table("events")
            if e["pid"] not in family and not (e["event"] == "sched_switch" and e["next_tgid"] == pid)
            and not (e["event"] == "lost" and e["pid"] == "0")]


def check_isolation(c):
    """Nothing of any other process: the bystander, busy during the whole
    recording, must not appear anywhere."""
    c.eq("events of other processes", sorted({(e["event"], e["pid"]) for e in foreign_events(c)}), [])
    b = c.bystander
    if not c.check(b is not None, "no bystander ran"):
        return
    rec = c.summary["recording"]
    c.check(b["start_ns"] <= rec["start_boot_ns"] and b["end_ns"] >= rec["end_boot_ns"],
            "the bystander was not running during the whole recording")
    c.check(b["nops"] > 0, "the bystander submitted nothing")
    bp = str(b["pid"])
    for name in ("requests", "syscalls", "tasks", "rings"):
        c.check(not any(r["pid"] == bp for r in c.table(name)), f"{name}.csv has the bystander")
    family = {int(p) for p in c.family()}
    for p in c.fxt["processes"]:
        c.check(p["pid"] in family | {0x40000000}, f"FXT: process {p['pid']} {p['name']!r}")
    c.check("e2e-bystander" not in json.dumps(c.summary), "the summary names the bystander")


# ------------------------------------------------------------------ FXT

def check_fxt(c):
    """What Perfetto shows (tests/fxtstat): exactly one slice per system
    call on its thread, one lifetime per request, named threads, request
    and link flows, CQE instants, io-wq work slices."""
    t, stat, pid = c.truth, c.fxt, c.pid
    c.eq("FXT: issues Perfetto would have", stat["issues"], 0)
    for m in stat["issue_messages"][:3]:
        c.fail(f"FXT: {m}")
    threads = [x for x in stat["threads"] if x["pid"] == pid]
    real = {x["tid"]: x for x in threads if x["tid"] < SYNTHETIC_TID}
    lanes = [x for x in threads if x["tid"] >= SYNTHETIC_TID and " lane " in (x["name"] or "")]
    procs = {p["pid"]: p["name"] for p in stat["processes"]}
    main_comm = next(x["comm"] for x in t["tids"] if x["role"] == "main")
    c.eq("FXT: process name", procs.get(pid), main_comm)
    comm = {x["tid"]: x["comm"] for d in c.docs for x in d["tids"]}

    def per_tid(kind):
        out = Counter()
        for d in c.docs:
            for call in d.get(kind, {}).get("calls", []):
                out[call["tid"]] += 1
        return out

    enters = Counter({int(k): v for k, v in t["enter_calls"]["by_tid"].items()})
    setups, registers = per_tid("setup_calls"), per_tid("register_calls")
    if c.meta["syscall_tracking"] == "none":
        enters, setups, registers = Counter(), Counter(), Counter()
    for name, want in (("io_uring_enter", enters), ("io_uring_setup", setups),
                       ("io_uring_register", registers)):
        got = Counter({tid: x["top"].get(name, 0) for tid, x in real.items() if x["top"].get(name)})
        c.eq(f"FXT: {name} slices per thread", got, +want)
    sqpoll = {r["sq_thread_tid"] for d in c.docs for r in d["rings"] if r.get("sqpoll")}
    callers = set(enters) | set(setups) | set(registers) | sqpoll
    for tid in sorted(callers):
        x = real.get(tid)
        c.check(x is not None and x["name"] == comm.get(tid),
                f"FXT: thread {tid} ({comm.get(tid)}): {'missing' if x is None else repr(x['name'])}")
    known = {x["tid"] for d in c.docs for x in d["tids"]}
    workers = {tid: x for tid, x in real.items() if tid not in callers | known}
    for tid, x in workers.items():
        c.check((x["name"] or "").startswith("iou-wrk-") and c.task_comm.get(tid) == x["name"],
                f"FXT: thread {tid} named {x['name']!r}: neither a caller nor an io-wq worker")
    writers = [x["tid"] for d in c.docs for x in d["tids"] if x["role"] == "writer"]
    c.eq("FXT: writer threads (no io_uring calls) with a track", [w for w in writers if w in real], [])

    lifetimes = Counter()
    for x in lanes:
        lifetimes.update(x["top"])
    want = Counter({op: v["submitted"] for op, v in t["requests"].items() if v["submitted"]})
    c.eq("FXT: request lifetimes per opcode", lifetimes, want)
    allnames = Counter()
    for x in threads:
        allnames.update(x["all"])
    c.eq("FXT: requests that found no lane", allnames["lanes full"], 0)
    nreq = sum(want.values())
    c.eq("FXT: submission instants", sum(v for k, v in allnames.items() if k.startswith("submit ")), nreq)
    flows = stat["flows"]
    c.eq("FXT: request flows", (flows["request"]["count"], flows["request"]["ended"]), (nreq, nreq))
    c.eq("FXT: request flows with fewer than 2 points", flows["request"]["points"].get("1", 0), 0)
    nlinks = sum(len(l["user_data"]) - 1 for d in c.docs for l in d.get("links", []))
    c.eq("FXT: link arrows", (flows["link"]["count"], flows["link"]["ended"]), (nlinks, nlinks))
    more = sum(v for k, v in allnames.items() if k.startswith("CQE ") and k.endswith(" (more)"))
    c.eq("FXT: multishot CQE instants", more, t["cqes"]["more"])
    c.eq("FXT: CQEs of no request", allnames["CQE (no request)"], t["cqes"]["aux"])
    reqs = c.mine("requests")
    finals = sum(1 for r in reqs if r["complete_tid"])
    anchors = sum(v for k, v in allnames.items()
                  if k.startswith("CQE ") and not k.endswith(" (more)") and k != "CQE (no request)")
    c.eq("FXT: completion instants", anchors, finals)
    wslices = Counter()
    for x in workers.values():
        for k, v in x["top"].items():
            if not k.startswith("CQE "):
                wslices[re.sub(r" \(approx\)$", "", k)] += v
    ran = Counter(r["opcode"] for r in reqs if r["worker_tid"] and r["work_begin_ns"] != "-1")
    c.eq("FXT: io-wq work slices per opcode", wslices, ran)
    # The worker tracks are the CSV's workers, and the threads that
    # completed requests for others (linked requests finished by a worker).
    csv_workers = {int(r["worker_tid"]) for r in reqs if r["worker_tid"]}
    completers = {int(r["complete_tid"]) for r in reqs if r["complete_tid"]}
    c.eq("FXT: io-wq worker tracks", sorted(workers),
         sorted(csv_workers | (completers - callers - known)))
    counters = {x["name"]: x for x in stat["counters"] if x["pid"] == pid}
    for n in sorted({int(r["ring"]) for r in reqs}):
        x = counters.get(f"ring {n}:inflight:0")
        c.check(x is not None and x["last"] == 0 and x["max"] >= 1,
                f"FXT: ring {n}: inflight counter {x}")


# ------------------------------------------------------------------ losses

def check_lossy(c):
    """The storm into tiny ring buffers: recorded + lost == generated, per
    event type, through the converter's CSV and JSON."""
    t, s = c.truth, c.summary
    c.check(s["losses"]["events_lost"] > 0, "no event was lost: the storm did not test losses")
    lost = Counter()
    for r in c.table("loss_counters"):
        if r["event"] != "total":
            lost[r["event"]] += int(r["count"])
    total = sum(int(r["count"]) for r in c.table("loss_counters") if r["event"] == "total")
    c.eq("loss counters: sum over event types == total", sum(lost.values()), total)
    c.eq("summary: events lost == the CSV's total", s["losses"]["events_lost"], total)
    jlost = Counter()
    for r in s["losses"]["counters"]:
        if r["event"] is not None:
            jlost[r["event"]] += r["count"]
    c.eq("summary: loss counters per event == the CSV's", jlost, lost)
    c.eq("only ring-full losses", {r["kind"] for r in c.table("loss_counters")
                                   if r["event"] != "total" and int(r["count"])}, {"ring_full"})
    recorded = Counter(e["event"] for e in c.table("events") if e["pid"] == str(c.pid))
    nops = t["requests"]["NOP"]["submitted"]
    enters = t["enter_calls"]["count"]
    for ev, want in (("submit", nops), ("complete", t["requests"]["NOP"]["cqes"]),
                     ("enter_begin", enters), ("enter_end", enters)):
        c.eq(f"{ev}: recorded + lost == generated", recorded[ev] + lost[ev], want)
    # A request per recorded submission, and one per completion whose
    # submission was lost: never complete, always "incomplete: loss".
    reqs = c.mine("requests")
    submitted = [r for r in reqs if r["submit_ns"] not in ("", "-1")]
    orphans = [r for r in reqs if r["submit_ns"] in ("", "-1")]
    c.eq("requests with a submission", len(submitted), recorded["submit"])
    c.eq("requests without a submission", Counter((r["status"], r["incomplete_reason"]) for r in orphans),
         Counter({("incomplete", "loss"): len(orphans)}) if orphans else Counter())
    c.eq("CQEs of the requests", sum(int(r["cqes"]) for r in reqs), recorded["complete"])
    c.eq("summary: requests", s["requests"]["total"], len(reqs))
    inc = s["requests"]["incomplete"] + s["requests"]["complete"]
    c.eq("requests: complete or incomplete", inc, s["requests"]["total"])
    c.eq("summary: incomplete for a reason other than loss",
         s["requests"]["incomplete"] - s["requests"]["incomplete_reasons"]["loss"], 0)
    c.check(len(c.table("losses")) > 0, "losses.csv places no loss in time")
    c.eq("losses.csv counts == the total", sum(int(r["count"]) for r in c.table("losses")), total)
    c.eq("syscalls of other processes", sorted({x["pid"] for x in c.table("syscalls")} - {str(c.pid)}), [])
    c.eq("requests of other processes", sorted({x["pid"] for x in c.table("requests")} - {str(c.pid)}), [])


# ------------------------------------------------------------------ driver

def check_end_window(c):
    """--end at the median submission (check.py's end_window): every request
    that began by the end (submitted, else first CQE), every syscall that
    began by it and every event at or before it, as the whole log gives
    them, in the same order."""
    d = os.path.join(os.path.dirname(c.csvdir), "csv_end")
    if not os.path.exists(os.path.join(d, "end_ns")):
        return
    with open(os.path.join(d, "end_ns")) as f:
        end = int(f.read())

    def began(row, *cols):
        t = next((row[k] for k in cols if row[k] not in ("", "-1")), None)
        return t is None or int(t) <= end

    want = {"requests": [r for r in c.table("requests")
                         if began(r, "submit_ns", "first_cqe_ns")],
            "syscalls": [r for r in c.table("syscalls") if began(r, "enter_ns")],
            "events": [r for r in c.table("events") if int(r["time_ns"]) <= end]}
    for name, rows in want.items():
        got = read_table(d, name)
        if not c.eq(f"--end={end}ns: {name}.csv rows", len(got), len(rows)):
            continue
        bad = next((i for i, (g, w) in enumerate(zip(got, rows)) if g != w), None)
        if bad is not None:
            diff = {k: (v, rows[bad].get(k)) for k, v in got[bad].items() if v != rows[bad].get(k)}
            c.fail(f"--end={end}ns: {name}.csv row {bad} differs from the whole log's "
                   f"(column: got, want): {diff}")


def check_all(c):
    check_truth(c)
    check_log(c)
    if c.lossy:
        check_lossy(c)
        check_isolation(c)
        return
    check_tasks(c)
    check_requests(c)
    check_files(c)
    if c.meta["syscall_tracking"] == "none":
        c.eq("syscalls recorded without syscall hooks", len(c.table("syscalls")), 0)
        c.notes.append("syscalls not recorded")
    else:
        check_syscalls(c)
    check_rings(c)
    check_iowq(c)
    check_isolation(c)
    check_fxt(c)
    check_end_window(c)
