#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""tests/liburing/run.py: make check-liburing.

  run.py --src DIR --work DIR --bin BUILDDIR [--expected FILE]
         [--only TEST,...] [--timeout S] [--keep]

Copies the liburing source tree DIR (nothing is fetched) to WORK/src and
builds its test programs there.  Every test not skipped by --expected runs
under

  tree_cnt -o T.cnt -- uring-record -o T.log -- ./T

(tree_cnt: the independent BPF count of tests/liburing/tree_cnt.bpf.c),
each bounded by --timeout, and the log is converted to JSON, CSV and FXT.
For every test:

  submissions  submit_req + req_failed          == requests in the JSON
  CQEs         complete + cqe_overflow          == CQEs of requests.csv + CQEs of no request
  enters       sys_enter of io_uring_enter      == syscalls.io_uring_enter
  the same three against the raw records of events.csv, the same per ring
  (as multisets: ring numbers may differ in order), no request in flight
  at the start, no request incomplete without a loss, every conversion
  exits 0.

--expected lists tests that are skipped (TEST skip REASON: they hang or
run long without the recorder) and tests that must fail (TEST xfail
REASON); an expected failure that passes is an error too, so that its
entry is removed when the fix lands.  TEST racy REASON: a known bug makes
it fail only when timing says so, by events missing from the log (the
log and its conversion have fewer than the count, never more); that
failure and a pass are both accepted, any other failure is not.  A test that exits 77 (skips itself)
and passes the comparison is reported as skipped.
Exit status: 0 all passed or failed as expected, 1 otherwise (a build
failure too), 2 bad usage.
"""
import argparse
import collections
import concurrent.futures
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SKIP_EXIT = 77  # liburing's T_EXIT_SKIP


def log(msg):
    print(msg, flush=True)


def build(src, work):
    """Copy src to work/src once (the user's tree is never written), build."""
    dst = os.path.join(work, "src")
    stamp = os.path.join(work, "src.from")
    src = os.path.realpath(src)
    if not os.path.isfile(os.path.join(src, "test", "Makefile")):
        sys.exit("check-liburing: %s: not a liburing source tree (no test/Makefile)" % src)
    if not os.path.isfile(stamp) or open(stamp).read() != src:
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        with open(stamp, "w") as f:
            f.write(src)
    out = os.path.join(work, "build.txt")
    jobs = "-j%d" % min(2, os.cpu_count() or 1)
    with open(out, "w") as f:
        for cmd in (["./configure"], ["make", jobs, "-C", "src"], ["make", jobs, "-C", "test"]):
            if cmd[0] == "./configure" and os.path.exists(os.path.join(dst, "config-host.mak")):
                continue
            if subprocess.call(cmd, cwd=dst, stdout=f, stderr=subprocess.STDOUT):
                sys.stderr.write(open(out).read()[-3000:])
                sys.exit("check-liburing: %s failed in %s (full output: %s)"
                         % (" ".join(cmd), dst, out))
    return os.path.join(dst, "test")


def read_expected(path):
    """TEST xfail|racy|skip REASON lines; # comments."""
    out = {}
    if not path:
        return out
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("xfail", "racy", "skip"):
                sys.exit("%s:%d: want TEST xfail|racy|skip REASON" % (path, n))
            out[parts[0]] = (parts[1], parts[2])
    return out


def run_bounded(cmd, cwd, timeout, out):
    """Run cmd in its own process group; kill the group on timeout.
    Returns (exit status or None on timeout, seconds)."""
    t0 = time.monotonic()
    with open(out, "w") as f:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
    return rc, time.monotonic() - t0


def convert(bins, logf, fmt, out, extra=()):
    cmd = [bins["convert"], "-q", "--force", "-f", fmt, "-o", out] + list(extra) + [logf]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stderr.strip()


def model_counts(summary, csvdir):
    """Submissions, CQEs and enters as the conversion gives them, in total
    and per ring created in the recording."""
    per_ring = {}
    for r in summary["rings"]:
        if r["created_in_recording"]:
            per_ring[r["ring"]] = [0, r["aux_cqes"]]
    cqes = summary["anomalies"]["aux_cqes"]
    with open(os.path.join(csvdir, "requests.csv"), newline="") as f:
        for row in csv.DictReader(f):
            n = int(row["cqes"] or 0)
            cqes += n
            ring = per_ring.get(int(row["ring"])) if row["ring"] else None
            if ring:
                ring[0] += 1
                ring[1] += n
    total = {"submissions": summary["requests"]["total"], "cqes": cqes,
             "enters": summary["syscalls"]["io_uring_enter"]}
    return total, sorted(per_ring.values())


def raw_counts(csvdir):
    """The same three from the records themselves (events.csv)."""
    n = {}
    with open(os.path.join(csvdir, "events.csv"), newline="") as f:
        rd = csv.reader(f)
        col = next(rd).index("event")
        for row in rd:
            n[row[col]] = n.get(row[col], 0) + 1
    return {"submissions": n.get("submit", 0) + n.get("req_failed", 0),
            "cqes": n.get("complete", 0) + n.get("complete32", 0) + n.get("cqe_overflow", 0),
            "enters": n.get("enter_begin", 0)}


def record(name, bins, tdir, outdir, timeout):
    """Record one test under the counter: (failures, seconds, test exit)."""
    base = os.path.join(outdir, name)
    logf, cntf = base + ".log", base + ".cnt"
    for p in (logf, cntf):
        if os.path.exists(p):
            os.unlink(p)
    cmd = [bins["cnt"], "-o", cntf, "--", bins["record"], "-q", "-f", "-o", logf,
           "--", "./" + name]
    rc, secs = run_bounded(cmd, tdir, timeout, base + ".out")
    if rc is None:
        return ["timed out after %ds under the recorder" % timeout], secs, rc
    if not os.path.exists(cntf) or not os.path.exists(logf):
        return ["no count or no log (see %s.out)" % base], secs, rc
    return [], secs, rc


def analyse(name, bins, outdir):
    """Convert one recorded test and compare with its count: (failures,
    whether they are all events missing from the log and nothing else)."""
    base = os.path.join(outdir, name)
    logf, cntf = base + ".log", base + ".cnt"
    bad = []
    with open(cntf) as f:
        truth = json.load(f)
    want = {"submissions": truth["submit_req"] + truth["req_failed"],
            "cqes": truth["complete"] + truth["cqe_overflow"], "enters": truth["enters"]}
    if truth["unowned"]:
        bad.append("counter: %d events of the test on rings it did not create"
                   % truth["unowned"])
    shutil.rmtree(base + ".csv", ignore_errors=True)
    for fmt, out, extra in (("json", base + ".json", ()),
                            ("csv", base + ".csv", ("--tables=requests,events",)),
                            ("fxt", base + ".fxt", ())):
        crc, err = convert(bins, logf, fmt, out, extra)
        if crc:
            bad.append("uring-convert -f %s exit %d: %s" % (fmt, crc, err[-300:]))
    if bad and not os.path.exists(base + ".json"):
        return bad, False
    try:
        with open(base + ".json") as f:
            summary = json.load(f)
        got, got_rings = model_counts(summary, base + ".csv")
        raw = raw_counts(base + ".csv")
    except (OSError, ValueError, KeyError) as e:
        return bad + ["cannot read the conversion: %s" % e], False
    rec = summary["recording"]
    if rec["stop_reason"] != "command exited" or not rec["stopped_cleanly"]:
        bad.append("recording stopped by %r (clean: %s)"
                   % (rec["stop_reason"], rec["stopped_cleanly"]))
    lost = summary["losses"]["events_lost"]
    other = bool(bad)
    short = False
    for k in ("submissions", "cqes", "enters"):
        if got[k] != want[k] or raw[k] != want[k]:
            bad.append("%s: counter %d, conversion %d, records %d"
                       % (k, want[k], got[k], raw[k]))
            if max(got[k], raw[k]) <= want[k]:
                short = True
            else:
                other = True
    want_rings = sorted(truth["rings"])
    if got_rings != want_rings and len(want_rings) < 1024:
        want_c = collections.Counter(map(tuple, want_rings))
        got_c = collections.Counter(map(tuple, got_rings))
        diff = sorted((want_c - got_c).elements())
        extra = sorted((got_c - want_c).elements())
        bad.append("rings [submissions, CQEs]: %d counted, %d converted; only counted %s,"
                   " only converted %s; rings created by %s"
                   % (len(want_rings), len(got_rings), diff[:4], extra[:4],
                      sorted(set(map(tuple, truth["creators"])))[:6]))
        other = other or not short
    req = summary["requests"]
    if req["in_flight_at_start"]:
        bad.append("%d requests in flight at the start" % req["in_flight_at_start"])
        other = True
    if req["incomplete"] != req["incomplete_reasons"]["loss"] or (req["incomplete"] and not lost):
        bad.append("%d requests incomplete (%s) with %d events lost"
                   % (req["incomplete"], req["incomplete_reasons"], lost))
        other = True
    return bad, bool(bad) and not other


def judge(name, kind, reason, bad, late_only, secs, trc):
    """The result of one test and the lines saying it.  A racy test may
    only fail by events missing from the log (late ones)."""
    if kind == "xfail":
        res = "XFAIL" if bad else "XPASS"
    elif kind == "racy":
        res = ("XFAIL" if late_only else "FAIL") if bad else "PASS"
    elif not bad and trc == SKIP_EXIT:
        res = "SKIP"
    else:
        res = "FAIL" if bad else "PASS"
    lines = ["%-5s %s %.1fs%s%s" % (res, name, secs,
                                   " (test exit %s)" % trc if trc else "",
                                   " -- expected: " + reason
                                   if kind and res != "PASS" else "")]
    lines += ["        " + b for b in bad]
    return res, lines


def cleanup(outdir, name):
    for ext in (".log", ".fxt", ".json", ".cnt", ".out"):
        try:
            os.unlink(os.path.join(outdir, name + ext))
        except FileNotFoundError:
            pass
    shutil.rmtree(os.path.join(outdir, name + ".csv"), ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--bin", required=True, help="ringside build directory")
    ap.add_argument("--expected")
    ap.add_argument("--only", help="comma-separated test names (poll.t,nop.t)")
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--keep", action="store_true", help="keep logs of passing tests")
    a = ap.parse_args()
    if os.geteuid():
        sys.exit("check-liburing: needs root (BPF)")
    bins = {"cnt": "tests/liburing/tree_cnt", "record": "recorder/uring-record",
            "convert": "converter/uring-convert"}
    bins = {k: os.path.abspath(os.path.join(a.bin, v)) for k, v in bins.items()}
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    outdir = os.path.join(work, "runs")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    expected = read_expected(a.expected)
    t0 = time.monotonic()
    tdir = build(a.src, work)
    log("check-liburing: built %s in %.0fs" % (tdir, time.monotonic() - t0))
    tests = sorted(t for t in os.listdir(tdir)
                   if t.endswith(".t") and os.access(os.path.join(tdir, t), os.X_OK))
    if a.only:
        only = set(a.only.split(","))
        tests = [t for t in tests if t in only]
    counts = {"PASS": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0, "SKIP": 0}
    pending = collections.deque()

    def report(block):
        """Print finished results in test order."""
        while pending and (block or pending[0][1].done()):
            name, fut = pending.popleft()
            res, lines = fut.result()
            counts[res] += 1
            for line in lines:
                log(line)
            if res == "XPASS":
                log("        passes: remove it from %s" % a.expected)
            if res in ("PASS", "XFAIL", "SKIP") and not a.keep:
                cleanup(outdir, name)

    def finish(name, kind, reason, bad, secs, trc):
        late_only = False
        if not bad:
            bad, late_only = analyse(name, bins, outdir)
        return judge(name, kind, reason, bad, late_only, secs, trc)

    # The conversion of one test overlaps the recording of the next: only
    # the counts are compared, and they do not depend on timing.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        for name in tests:
            kind, reason = expected.get(name, (None, None))
            if kind == "skip":
                fut = concurrent.futures.Future()
                fut.set_result(("SKIP", ["SKIP  %s: %s" % (name, reason)]))
            else:
                bad, secs, trc = record(name, bins, tdir, outdir, a.timeout)
                fut = pool.submit(finish, name, kind, reason, bad, secs, trc)
            pending.append((name, fut))
            report(False)
        report(True)
    log("check-liburing: %d tests: %s in %.0fs (logs of failures: %s)"
        % (len(tests), ", ".join("%d %s" % (v, k) for k, v in counts.items()),
           time.monotonic() - t0, outdir))
    return 1 if counts["FAIL"] or counts["XPASS"] else 0


if __name__ == "__main__":
    sys.exit(main())
