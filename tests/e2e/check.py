#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""tests/e2e/check.py: the CHECK step of the end-to-end suite.

  check.py [--kernel-label LABEL] [--hooks-json FILE] OUTDIR [RUN...]

OUTDIR is what tests/e2e/record.sh wrote (on this machine or in a guest).
For each run (all of OUTDIR/runs, or the RUN names given) it converts
NAME.log with uring-convert to summary JSON, CSV and FXT, reads the FXT
back with tests/fxtstat and the log with tests/logstat, and compares
everything with the workload's own account (NAME.json): requests per
opcode, every request's result, flags, ring and submitting thread, the
paths the scenario forces, link chains, completion order, every
io_uring_enter/setup/register with its arguments and return value, thread
and io-wq worker names, rings, FXT slices, flows and named threads -- and
nothing from any other process (the bystander).  It also converts with
--end at the median submission, which reads only as far as the window
needs, and compares its requests, syscalls and events with the whole
log's.  Where the kernel may choose (kernel_may_choose in the workload's
JSON), only what it guarantees is asserted.  A lossy run (the storm) must
account for every event: recorded + lost == generated, per event type.

It also checks that every hook this kernel offers (kernel.facts, read from
the kernel by record.sh) attached, with the right variant, and writes the
kernel's column of the hook table (--hooks-json).  Without RUN names it
checks the --cgroup cases too (tests/e2e/cgroup.sh, judged by
tests/live/check.py's check_cgroup(); a case skipped for a reason the
machine gives fails under CI=true).

Tools: $URING_CONVERT, $LOGSTAT, $FXTSTAT (default: the build tree's, from
$top_builddir or the current directory).  Needs no root.
Exit status: 0 every run passed, 1 a run failed, 2 bad usage.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
import e2e_asserts                  # noqa: E402
import e2e_hooks                    # noqa: E402


def tool(env, rel):
    top = os.environ.get("top_builddir", ".")
    return os.environ.get(env) or os.path.join(top, rel)


TOOLS = {
    "convert": tool("URING_CONVERT", "converter/uring-convert"),
    "logstat": tool("LOGSTAT", "tests/logstat"),
    "fxtstat": tool("FXTSTAT", "tests/fxtstat"),
}


class RunError(Exception):
    pass


def run_tool(argv, what, allow_stderr=True):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode(errors="replace").strip()
    if p.returncode != 0:
        raise RunError(f"{what} exited {p.returncode}: {err.splitlines()[0] if err else ''}")
    if err and not allow_stderr:
        raise RunError(f"{what} printed: {err[:300]}")
    return p.stdout


def read_run(outdir, name):
    with open(os.path.join(outdir, name + ".run")) as f:
        fields = f.read().rstrip("\n").split("|")
    if len(fields) != 5:
        raise RunError(f"{name}.run: expected 5 fields, got {fields}")
    return {"name": fields[0], "options": fields[1].split(), "args": fields[2].split(),
            "status": int(fields[3]), "seconds": float(fields[4])}


def convert(outdir, name, lossy):
    """Every output format of NAME.log, under OUTDIR/NAME.out/."""
    log = os.path.join(outdir, name + ".log")
    d = os.path.join(outdir, name + ".out")
    os.makedirs(d, exist_ok=True)
    conv = TOOLS["convert"]
    # Not quiet: converting a clean recording must print nothing at all.
    run_tool([conv, "--force", "--format=json", "-o", f"{d}/summary.json", log],
             "uring-convert --format=json", allow_stderr=lossy)
    run_tool([conv, "--force", "--format=csv", "-o", f"{d}/csv", log],
             "uring-convert --format=csv", allow_stderr=lossy)
    if not lossy:
        end_window(conv, log, d)
    run_tool([conv, "--force", "--format=fxt", "-o", f"{d}/trace.fxt", log],
             "uring-convert --format=fxt", allow_stderr=lossy)
    run_tool([conv, "--force", "--format=summary", "-o", f"{d}/summary.txt", log],
             "uring-convert --format=summary", allow_stderr=lossy)
    with open(f"{d}/fxtstat.json", "wb") as f:
        f.write(run_tool([TOOLS["fxtstat"], f"{d}/trace.fxt"], "fxtstat"))
    with open(f"{d}/logstat.json", "wb") as f:
        f.write(run_tool([TOOLS["logstat"], log], "logstat"))
    return d


# The tables --end selects from; each is compared with the whole log's.
END_TABLES = ("requests", "syscalls", "events")


def end_window(conv, log, d):
    """The same tables with --end at the median submission: under d/csv_end,
    the end (ns after the recording start) in d/csv_end/end_ns.  What began
    by the end must come out as from the whole log, although uring-convert
    stops reading once nothing of the window is still open
    (e2e_asserts.check_end_window)."""
    subs = sorted(int(r["submit_ns"]) for r in e2e_asserts.read_table(f"{d}/csv", "requests")
                  if r["submit_ns"] not in ("", "-1"))
    if not subs:
        return
    end = subs[len(subs) // 2]
    run_tool([conv, "--force", "--format=csv", f"--end={end}ns",
              "--tables=" + ",".join(END_TABLES), "-o", f"{d}/csv_end", log],
             "uring-convert --format=csv --end", allow_stderr=False)
    with open(f"{d}/csv_end/end_ns", "w") as f:
        f.write(f"{end}\n")


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise RunError(f"{what}: {e}")


def check_run(outdir, name, facts, bystander):
    run = read_run(outdir, name)
    truth = load_json(os.path.join(outdir, name + ".json"), f"{name}.json (the workload's JSON)")
    if truth.get("status") == "unavailable":
        return "unavailable", [f"the workload says: {truth.get('errors')}"], None, run
    d = convert(outdir, name, e2e_asserts.expects_losses(run))
    ctx = e2e_asserts.Context(run, truth, d, facts, bystander,
                              os.path.join(outdir, name + ".err"))
    e2e_asserts.check_all(ctx)
    return ("fail" if ctx.failures else "pass"), ctx.failures, ctx, run


def live_check():
    """tests/live/check.py (its name is this file's: load it under another)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live", "check.py")
    spec = importlib.util.spec_from_file_location("live_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CGROUP_CASES = ("cgroup", "cgroup-switch")


def check_cgroup_case(outdir, name):
    """A --cgroup recording of tests/e2e/cgroup.sh, judged by
    tests/live/check.py's check_cgroup(): (verdict, failures)."""
    skip = os.path.join(outdir, name + ".skip")
    if os.path.exists(skip):
        with open(skip) as f:
            return "skip", [f.read().strip()]
    try:
        with open(os.path.join(outdir, name + ".args")) as f:
            args = [int(x) for x in f.read().split()]
    except (OSError, ValueError) as e:
        return "fail", [f"not recorded: {e}"]
    log = os.path.join(outdir, name + ".log")
    for what, opts in (("stat", []), ("dump", ["--dump"])):
        with open(os.path.join(outdir, f"{name}.{what}"), "wb") as f:
            f.write(run_tool([TOOLS["logstat"]] + opts + [log], " ".join(["logstat"] + opts)))
    live = live_check()
    live.check_cgroup(live.load(os.path.join(outdir, name + ".stat")),
                      live.dump(os.path.join(outdir, name + ".dump")), args,
                      name == "cgroup-switch")
    return ("fail" if live.failures else "pass"), list(live.failures)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("runs", nargs="*")
    ap.add_argument("--kernel-label", help="column title in the hook table")
    ap.add_argument("--hooks-json", help="write this kernel's hook table column here")
    ap.add_argument("-v", "--verbose", action="store_true", help="every failure, not the first 25")
    a = ap.parse_args()

    for k, path in TOOLS.items():
        if not os.access(path, os.X_OK):
            print(f"check.py: {path} not found (set top_builddir or the tool's variable)",
                  file=sys.stderr)
            return 2
    try:
        with open(os.path.join(a.outdir, "runs")) as f:
            names = [l.strip() for l in f if l.strip()]
    except OSError as e:
        print(f"check.py: {a.outdir}: no runs recorded here ({e})", file=sys.stderr)
        return 2
    if a.runs:
        unknown = [r for r in a.runs if r not in names]
        if unknown:
            print(f"check.py: not recorded in {a.outdir}: {' '.join(unknown)}", file=sys.stderr)
            return 2
        names = a.runs
    facts = e2e_hooks.read_facts(os.path.join(a.outdir, "kernel.facts"))
    bystander = None
    try:
        bystander = load_json(os.path.join(a.outdir, "bystander.json"), "bystander.json")
    except RunError as e:
        print(f"check.py: {e}", file=sys.stderr)

    passed = failed = 0
    metas = {}
    ci = os.environ.get("CI") == "true"
    for name in names:
        t0 = time.monotonic()
        try:
            verdict, fails, ctx, run = check_run(a.outdir, name, facts, bystander)
        except (RunError, OSError) as e:
            verdict, fails, ctx, run = "fail", [str(e)], None, None
        if ctx is not None:
            metas[name] = (run, ctx.logstat["meta"])
        took = time.monotonic() - t0
        if verdict == "unavailable" and not ci:
            print(f"SKIP  {name}: {fails[0]}")
            continue
        if verdict == "pass":
            passed += 1
            print(f"PASS  {name}: {ctx.summary_line()} (check {took:.1f}s)")
        else:
            failed += 1
            print(f"FAIL  {name}: {len(fails)} failures")
            for f in fails if a.verbose else fails[:25]:
                print(f"      {f}")
            if len(fails) > 25 and not a.verbose:
                print(f"      ... {len(fails) - 25} more (-v)")

    # The --cgroup cases come with the whole plan (record.sh).
    for name in CGROUP_CASES if not a.runs else ():
        try:
            verdict, fails = check_cgroup_case(a.outdir, name)
        except (RunError, OSError, ValueError) as e:
            verdict, fails = "fail", [str(e)]
        if verdict == "skip" and not ci:
            print(f"SKIP  {name}: {fails[0]}")
        elif verdict == "pass":
            passed += 1
            print(f"PASS  {name}: only the cgroup's processes" +
                  ("; context switches into and out of its SQ thread" if name != "cgroup" else ""))
        else:
            failed += 1
            print(f"FAIL  {name}: " + ("skipped under CI=true: " if verdict == "skip" else "") +
                  "; ".join(fails[:10]))

    hook_fails, column = e2e_hooks.check_hooks(facts, metas)
    if hook_fails:
        failed += 1
        print(f"FAIL  hooks: {len(hook_fails)} failures")
        for f in hook_fails:
            print(f"      {f}")
    elif metas:
        passed += 1
        print(f"PASS  hooks: every hook {facts.get('release', 'this kernel')} offers attached "
              f"({sum(1 for c in column.values() if c.startswith('attached'))} attached, "
              f"{sum(1 for c in column.values() if c.startswith('absent'))} absent)")
    if a.hooks_json:
        with open(a.hooks_json, "w") as f:
            json.dump({"label": a.kernel_label or facts.get("release", "?"),
                       "release": facts.get("release"), "hooks": column}, f, indent=1)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
