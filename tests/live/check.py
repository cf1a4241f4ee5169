# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Helpers for the live tests: load logstat / workload JSON, compare
exactly, and say precisely what differs."""
import json
import sys

failures = []


def load(path):
    with open(path) as f:
        return json.load(f)


def dump(path):
    """Records of `logstat --dump`, in time order."""
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    recs.sort(key=lambda r: r["ts"])
    return recs


def eq(what, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


def true(what, cond, detail=""):
    if not cond:
        failures.append("%s%s" % (what, (": " + str(detail)) if detail else ""))


def submitted(stat):
    """Requests per opcode as the workload counts them: submit events plus
    io_uring_req_failed (requests refused before they were submitted)."""
    out = dict(stat["submits_by_opcode"])
    for op, n in stat.get("req_failed_by_opcode", {}).items():
        out[op] = out.get(op, 0) + n
    return out


def workload_counts(wl, key):
    return {op: v[key] for op, v in wl["requests"].items() if v[key]}


def ids_detail(ids):
    """Where logstat found ids that look like kernel addresses: how many
    distinct values and in which record fields -- one recycled request id
    repeated is chance, many values in every field a scrubbing leak."""
    return "%d distinct, by field %s, e.g. %s; nonzero ids by field %s" % (
        ids.get("kernel_like_distinct", -1), ids.get("kernel_like_fields"),
        ", ".join(ids.get("kernel_like_sample", [])) or "-", ids.get("nonzero_fields"))


def common_log_checks(stat, reason="command exited"):
    """What every clean recording must satisfy."""
    eq("reader stop", stat["stop"]["reader"], "end frame")
    end = stat["stop"]["end"] or {}
    eq("END reason", end.get("reason"), reason)
    eq("payload errors", stat["payload_errors"], 0)
    eq("unknown records", stat["unknown_records"], 0)
    true("a LOSS frame", stat["frames"].get("LOSS", 0) >= 1)
    true("a CLOCK frame", stat["frames"].get("CLOCK", 0) >= 1)
    true("a TASKS frame", stat["frames"].get("TASKS", 0) == 1, stat["frames"])
    eq("END lost == LOSS total", end.get("lost"), stat["losses"]["total"])
    # every drop counted in the LOSS frame is placed in time by a lost record
    lr = stat["losses"]["lost_records"]
    kernel = stat["losses"]["by_kind"]["ring_full"] + stat["losses"]["by_kind"]["no_ring"]
    eq("kernel drops placed in time", lr["kernel"], kernel)
    eq("recorder drops placed in time", lr["user"], stat["losses"]["by_kind"]["user_queue"])
    probes = {p["hook"]: p for p in stat["meta"]["probes"]}
    for hook in ("io_uring:io_uring_complete",):
        eq(hook, probes.get(hook, {}).get("status"), "attached")
    true("a submit probe attached",
         any(p["status"] == "attached" for h, p in probes.items()
             if h.startswith("io_uring:io_uring_submit_")))
    if stat["meta"]["pointers"] == "opaque":
        eq("ids that look like kernel addresses (%s)" % ids_detail(stat["ids"]),
           stat["ids"]["kernel_like"], 0)


def done():
    if failures:
        for f in failures:
            print("FAIL: " + f, file=sys.stderr)
        sys.exit(1)


# ------------------------------------------------ processes in a recording

def task_table(stat):
    """logstat's task list by tid."""
    return {t["tid"]: t for t in stat["tasks"]}


def parent_of(tasks, tgid):
    t = tasks.get(tgid)
    return t["parent_tgid"] if t else None


def record_procs(recs, tasks, kind):
    """tgids of the records ("io": not counting task records).  A context
    switch is recorded for its io_uring thread side(s), named in the log;
    the other side is whatever ran before or after it.  A switch with no
    named io_uring thread counts for both sides."""
    def io_thread(tid):
        return tasks.get(tid, {}).get("kind") in ("io_worker", "sqpoll", "io_thread")
    out = set()
    for r in recs:
        if r["type"] == "lost":
            continue
        if kind == "io" and r["type"] in ("task", "task_exit"):
            continue
        if r["type"] == "sched_switch":
            sides = ((r["tid"], r["tgid"]), (r["next_tid"], r["next_tgid"]))
            out |= {g for t, g in sides if io_thread(t)} or {g for t, g in sides}
            continue
        out.add(r["tgid"])
    out.discard(0)
    return out


def explain_procs(bad, tasks, recs):
    """What a recording holds about processes a check did not expect."""
    for p in sorted(bad):
        print("process %d: %s; records %s" % (p, tasks.get(p),
              sorted({r["type"] for r in recs if p in (r["tgid"], r.get("next_tgid"))})),
              file=sys.stderr)


def check_cgroup(stat, recs, args, switch):
    """A --cgroup recording of tests/e2e/cgroup.sh: the loop in the cgroup
    (args[0]) and its children, and the processes put there besides
    (switch: args[1] the SQPOLL workload, args[2] the busy loop); with
    switch, the context switches out of the cgroup's SQ thread and into it
    from a task outside the cgroup (a filter on the cgroup of the task that
    ran before would miss those)."""
    tasks = task_table(stat)

    def in_cgroup(p):
        return p in args or parent_of(tasks, p) == args[0]
    true("submits recorded", sum(stat["submits_by_opcode"].values()) > 0)
    bad = {p for p in record_procs(recs, tasks, "io") if not in_cgroup(p)}
    eq("processes outside the cgroup", bad, set())
    explain_procs(bad, tasks, recs)
    if not switch:
        return
    sq = {t for t, v in tasks.items() if v["tgid"] == args[1] and v["kind"] == "sqpoll"}
    true("the cgroup's SQ thread named", len(sq) == 1, sq)
    sw = [r for r in recs if r["type"] == "sched_switch"]
    true("switches out of the cgroup's SQ thread", any(r["tid"] in sq for r in sw))
    true("switches into the cgroup's SQ thread from a task outside",
         any(r["next_tid"] in sq and not in_cgroup(r["tgid"]) for r in sw))
