# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare a recording with the recording of its replay (uring-replay
--record), both converted with --format=csv: the same requests in the same
order (opcode, SQE flags, offset, length, ioprio, op flags) and, unless
the ring is SQPOLL, the same number of requests per io_uring_enter, each
enter naming its ring by a registered index where the recorded one did.
With --threads N (one ring per thread, threads running at once): the
same per ring instead of over all rings, whose interleaving is the
scheduler's, and both recordings have N rings, each submitted to by one
thread, N distinct threads.
Usage: replay_compare.py ORIG_CSV_DIR REPLAY_CSV_DIR [--sqpoll] [--threads N]"""
import csv
import sys

FIELDS = ("opcode", "sqe_flags", "offset", "length", "ioprio", "op_flags")


def request_rows(d):
    with open(d + "/requests.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["submit_ns"]) >= 0]
    rows.sort(key=lambda r: (int(r["submit_ns"]), int(r["req_id"])))
    return rows


def requests(d, ring=None):
    return [tuple(r[k] for k in FIELDS) for r in request_rows(d)
            if ring is None or r["ring"] == ring]


def batches(d, ring=None):
    with open(d + "/syscalls.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f)
                if r["syscall"] == "io_uring_enter" and int(r["submitted"] or 0) > 0 and
                (ring is None or r["ring"] == ring)]
    rows.sort(key=lambda r: int(r["enter_ns"]))
    return [(int(r["submitted"]), r["registered_ring"]) for r in rows]


def ring_threads(d, name, n, failures):
    """{ring: tid} of d's requests; a failure unless n rings, each
    submitted to by one thread, n threads in all."""
    tids = {}
    for r in request_rows(d):
        tids.setdefault(r["ring"], set()).add(r["tid"])
    if len(tids) != n:
        failures.append("%s: %d rings, not %d" % (name, len(tids), n))
    for ring, t in sorted(tids.items()):
        if len(t) != 1:
            failures.append("%s: ring %s submitted to by threads %s" % (name, ring, sorted(t)))
    distinct = set().union(*tids.values()) if tids else set()
    if len(distinct) != n:
        failures.append("%s: requests submitted by %d threads, not %d: %r"
                        % (name, len(distinct), n, tids))
    return tids


def compare(a, b, what, failures):
    if a == b:
        return
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            failures.append("%srequest %d: recorded %r, replayed %r" % (what, i, x, y))
            break
    if len(a) != len(b):
        failures.append("%s%d requests recorded, %d replayed" % (what, len(a), len(b)))


def main():
    orig, again = sys.argv[1], sys.argv[2]
    failures = []
    a, b = requests(orig), requests(again)
    if not a:
        failures.append("the recording has no requests")
    if "--threads" in sys.argv:
        n = int(sys.argv[sys.argv.index("--threads") + 1])
        rings = ring_threads(orig, "recording", n, failures)
        ring_threads(again, "replay", n, failures)
        for ring in sorted(rings):
            compare(requests(orig, ring), requests(again, ring), "ring %s: " % ring, failures)
            ba, bb = batches(orig, ring), batches(again, ring)
            if ba != bb:
                failures.append("ring %s: (requests, registered ring) per io_uring_enter: "
                                "recorded %r, replayed %r" % (ring, ba, bb))
    else:
        compare(a, b, "", failures)
    if "--sqpoll" not in sys.argv and "--threads" not in sys.argv:
        ba, bb = batches(orig), batches(again)
        if ba != bb:
            failures.append("(requests, registered ring) per io_uring_enter: recorded %r, "
                            "replayed %r" % (ba, bb))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("%d requests, %d submitting enters compared" % (len(a), len(batches(orig))))
    sys.exit(1 if failures else 0)


main()
