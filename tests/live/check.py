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
