# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""SIGKILL uring-record at random moments while it records a steady
io_uring workload, many times.  Every log must convert (uring-convert exits
0 and says the recording was cut), and at most one flush interval of events
may be missing: the last record must be at most --flush-interval (plus the
drain interval and some scheduling slack) older than the kill.

Usage: kill_random.py RECORDER WORKLOAD LOGSTAT CONVERT TMPDIR ITERATIONS SEED
"""
import json
import os
import random
import signal
import subprocess
import sys
import time

recorder, workload, logstat, convert, tmp = sys.argv[1:6]
iterations, seed = int(sys.argv[6]), int(sys.argv[7])
rng = random.Random(seed)

FLUSH_NS = 1_000_000_000          # --flush-interval 1s (the default, the maximum)
DRAIN_NS = 50_000_000             # --drain-interval 50ms (the default)
SLACK_NS = 250_000_000            # scheduling, compression and write of the last frame

failures = []


def boottime_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


def fail(i, what):
    failures.append("iteration %d: %s" % (i, what))
    print("FAIL iteration %d: %s" % (i, what), file=sys.stderr)


# A steady workload: the NOP scenario again and again (fork, setup, 32
# NOPs, exit), so that events keep coming from new processes until the
# kill, at a rate the recorder keeps up with.
loop = ('end=$(($(date +%%s) + 5)); while [ "$(date +%%s)" -lt "$end" ]; do '
        '"%s" --compact nop >/dev/null || exit 1; sleep 0.005; done' % workload)

gaps = []
for i in range(iterations):
    log = os.path.join(tmp, "kill%02d.log" % i)
    err_path = os.path.join(tmp, "kill%02d.err" % i)
    delay = rng.uniform(0.02, 2.2)
    with open(err_path, "wb") as err:
        # Own session: the workload outlives the recorder and is stopped
        # afterwards by process group.
        proc = subprocess.Popen([recorder, "-o", log, "--", "sh", "-c", loop],
                                stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
    # Recording has started when the recorder says so (then it starts the
    # command); kill at a random moment after that.
    deadline = time.monotonic() + 10
    started = False
    while time.monotonic() < deadline and proc.poll() is None:
        with open(err_path, "rb") as f:
            if b"recording io_uring events" in f.read():
                started = True
                break
        time.sleep(0.01)
    if not started:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        fail(i, "the recorder did not start: %s" % open(err_path).read().strip())
        continue
    time.sleep(delay)
    kill_ns = boottime_ns()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if proc.returncode != -signal.SIGKILL:
        fail(i, "the recorder ended by itself (status %d) before the kill after %.2f s"
             % (proc.returncode, delay))
        continue

    st = subprocess.run([logstat, log], capture_output=True, text=True)
    if st.returncode != 0:
        fail(i, "logstat cannot read the log: %s" % st.stderr.strip())
        continue
    stat = json.loads(st.stdout)
    cv = subprocess.run([convert, "--format=json", log], capture_output=True, text=True)
    if cv.returncode != 0:
        fail(i, "uring-convert exit %d: %s" % (cv.returncode, cv.stderr.strip()))
        continue
    out = json.loads(cv.stdout)
    rec = out["recording"]
    if rec["stopped_cleanly"] is not False:
        fail(i, "uring-convert says a killed recording stopped cleanly")
    if rec["stop_reason"] not in ("end of file without end frame", "truncated frame"):
        fail(i, "uring-convert's stop reason: %r" % rec["stop_reason"])
    if rec["stop_message"] not in cv.stderr:
        fail(i, "uring-convert does not warn that the log was cut: %r" % cv.stderr)
    # What was recorded after the last flush is gone: placed in time.
    if out["losses"]["windows"] < 1:
        fail(i, "no loss window for the cut: %r" % out["losses"])
    if stat["payload_errors"]:
        fail(i, "%d damaged payloads" % stat["payload_errors"])
    last = stat.get("last_ts") or 0
    print("kill_random: kill %2d after %.3f s: %d records, last %s before the kill"
          % (i, delay, sum(stat["records"].values()),
             "%.0f ms" % ((kill_ns - last) / 1e6) if last else "(none)"))
    if not last:
        # Killed before the first flush: nothing recorded is acceptable
        # only if the kill came within one flush interval of the start.
        if delay * 1e9 > FLUSH_NS + DRAIN_NS + SLACK_NS:
            fail(i, "no event recorded although killed %.2f s into the recording" % delay)
        continue
    missing = kill_ns - last
    gaps.append(missing)
    if missing > FLUSH_NS + DRAIN_NS + SLACK_NS:
        fail(i, "the last record is %.3f s older than the kill (killed %.2f s in)"
             % (missing / 1e9, delay))

if gaps:
    gaps.sort()
    print("kill_random: %d kills, time lost before the kill: median %.0f ms, max %.0f ms "
          "(limit %.0f ms)" % (iterations, gaps[len(gaps) // 2] / 1e6, gaps[-1] / 1e6,
                              (FLUSH_NS + DRAIN_NS + SLACK_NS) / 1e6))
if failures:
    print("%d of %d iterations failed" % (len(failures), iterations), file=sys.stderr)
    sys.exit(1)
