# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compare a recording with the recording of its replay (uring-replay
--record), both converted with --format=csv: the same requests in the same
order (opcode, SQE flags, offset, length, ioprio, op flags) and, unless
the ring is SQPOLL, the same number of requests per io_uring_enter, each
enter naming its ring by a registered index where the recorded one did.
Usage: replay_compare.py ORIG_CSV_DIR REPLAY_CSV_DIR [--sqpoll]"""
import csv
import sys

FIELDS = ("opcode", "sqe_flags", "offset", "length", "ioprio", "op_flags")


def requests(d):
    with open(d + "/requests.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["submit_ns"]) >= 0]
    rows.sort(key=lambda r: (int(r["submit_ns"]), int(r["req_id"])))
    return [tuple(r[k] for k in FIELDS) for r in rows]


def batches(d):
    with open(d + "/syscalls.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f)
                if r["syscall"] == "io_uring_enter" and int(r["submitted"] or 0) > 0]
    rows.sort(key=lambda r: int(r["enter_ns"]))
    return [(int(r["submitted"]), r["registered_ring"]) for r in rows]


def main():
    orig, again = sys.argv[1], sys.argv[2]
    failures = []
    a, b = requests(orig), requests(again)
    if not a:
        failures.append("the recording has no requests")
    if a != b:
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                failures.append("request %d: recorded %r, replayed %r" % (i, x, y))
                break
        if len(a) != len(b):
            failures.append("%d requests recorded, %d replayed" % (len(a), len(b)))
    if "--sqpoll" not in sys.argv:
        ba, bb = batches(orig), batches(again)
        if ba != bb:
            failures.append("(requests, registered ring) per io_uring_enter: recorded %r, "
                            "replayed %r" % (ba, bb))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    print("%d requests, %d submitting enters compared" % (len(a), len(batches(orig))))
    sys.exit(1 if failures else 0)


main()
