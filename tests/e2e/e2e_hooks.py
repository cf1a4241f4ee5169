# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Every hook the kernel offers attaches, with the right variant.

What the kernel offers comes from kernel.facts, which tests/e2e/record.sh
reads from the kernel itself (tracefs events and formats, the kprobe PMU,
ftrace-able functions, kallsyms), never from the recorder.  What attached
comes from the "probes" of each log's metadata.  The result is also one
column of the kernel x hook table that tests/kernels/matrix.sh prints and
man/uring-record.8 (KERNELS) keeps:

  attached[: variant]    the recorder uses it
  absent[: why]          the kernel has no such thing, or refuses it
"""
import re

# io-wq tracking and syscall hooking methods, as the runs of tests/e2e/plan
# force them (--io-wq=..., --syscalls=...), in the order "auto" tries them.
IO_WQ_METHODS = ("fentry", "kprobe", "sched_switch")
SYSCALL_METHODS = (("fentry", "fentry"), ("tracepoint", "tracepoint"), ("raw", "raw_syscalls"))
SYSCALL_HOOKS = ("io_uring_setup", "io_uring_enter", "io_uring_register", "io_uring syscalls",
                 "raw_syscalls:sys_enter", "raw_syscalls:sys_exit")


# io_uring tracepoints the recorder leaves alone on purpose, and why.
NOT_HOOKED = {
    "io_uring_file_get": "its fd is the submission's (a program run per request for nothing)",
}

def read_facts(path):
    facts = {}
    try:
        with open(path) as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    facts[k] = v
    except OSError:
        pass
    return facts


def version(release):
    m = re.match(r"(\d+)\.(\d+)", release or "")
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def yes(facts, key):
    """True, False, or None when the fact could not be read."""
    v = facts.get(key)
    return None if v is None else v == "yes"


def offered_io_wq(facts, method):
    """Does the kernel offer this io-wq tracking method?  None: cannot tell."""
    if method == "kprobe":
        pmu, sym = yes(facts, "kprobe_pmu"), yes(facts, "io_wq_submit_work_symbol")
        return None if pmu is None or sym is None else pmu and sym
    if method == "fentry":
        # fentry needs BTF and an ftrace-able function; a kernel that hides
        # available_filter_functions (lockdown) may still refuse the load,
        # so "unreadable" means: cannot tell.
        if facts.get("ftrace_functions") != "readable":
            return None
        return yes(facts, "btf") and yes(facts, "io_wq_submit_work_ftrace")
    if method == "sched_switch":
        return yes(facts, "sched_switch_event") if facts.get("tracefs") else True
    return None


def offered_syscalls(facts, method):
    if method == "fentry":
        if facts.get("ftrace_functions") != "readable":
            return None
        return yes(facts, "btf") and yes(facts, "sys_io_uring_enter_ftrace")
    if not facts.get("tracefs"):
        return None
    if method == "tracepoint":
        return yes(facts, "syscalls_events")
    return yes(facts, "raw_syscalls_events")


def expected_variant(facts, event):
    """The variant of a tracepoint with several, as the kernel dictates."""
    rel = version(facts.get("release"))
    if event == "io_uring_complete":
        # 6.18 passes the io_uring_cqe to the tracepoint instead of its fields
        return "io_uring_cqe (6.18+)" if rel >= (6, 18) else "7 arguments (before 6.18)"
    if event == "io_uring_task_work_run":
        loops = yes(facts, "task_work_run_loops")
        if loops is None:
            return None
        return "with loops (before 6.9)" if loops else "without loops (6.9+)"
    if event in ("io_uring_submit_sqe", "io_uring_submit_req"):
        return "submit_sqe (6.1-6.3)" if event == "io_uring_submit_sqe" else "submit_req (6.4+)"
    return ""


def cell(entry):
    if entry is None:
        return "not tried"
    if entry["status"] == "attached":
        return "attached" + (f": {entry['variant']}" if entry["variant"] else "")
    return f"{entry['status']}: {entry['reason']}" if entry["reason"] else entry["status"]


def check_hooks(facts, metas):
    """metas: run name -> (run, metadata).  Returns (failures, column)."""
    fails, column = [], {}
    auto = [(run, m) for run, m in metas.values()
            if not any(o.startswith(("--io-wq", "--syscalls")) for o in run["options"])]
    if not metas:
        return fails, column
    # --- tracepoints: every run without forced methods has the same probes
    if auto:
        run, meta = auto[0]
        probes = {p["hook"]: p for p in meta["probes"]}
        for r2, m2 in auto[1:]:
            other = {p["hook"]: (p["status"], p["variant"]) for p in m2["probes"]}
            if other != {h: (p["status"], p["variant"]) for h, p in probes.items()}:
                fails.append(f"runs {run['name']} and {r2['name']} attached different hooks")
        events = facts.get("io_uring_events")
        offered = set(events.split()) if events is not None else None
        for hook, p in probes.items():
            system, _, event = hook.partition(":")
            if not event or system == "raw_syscalls" or system == "syscalls":
                continue
            if hook == "sched:sched_switch":
                continue            # an io-wq method, below
            # one row for the submission tracepoint, whichever the kernel has
            row = "io_uring: submission" if event.startswith("io_uring_submit_") else hook
            column[row] = cell(p)
            if system != "io_uring":
                want_here = True
            elif offered is None:
                want_here = None
            else:
                want_here = event in offered
            if want_here and p["status"] != "attached":
                fails.append(f"{hook}: the kernel offers it, the recorder says {cell(p)}")
            if want_here is False and p["status"] == "attached":
                fails.append(f"{hook}: attached, but the kernel has no such tracepoint")
            if p["status"] == "attached":
                want = expected_variant(facts, event)
                if want is not None and p["variant"] != want:
                    fails.append(f"{hook}: variant {p['variant']!r}, this kernel needs {want!r}")
        if offered is not None:
            for event in sorted(offered):
                if event in NOT_HOOKED:
                    if f"io_uring:{event}" in probes:
                        fails.append(f"io_uring:{event}: hooked, but {NOT_HOOKED[event]}")
                    continue
                if f"io_uring:{event}" not in probes:
                    sub = event in ("io_uring_submit_sqe", "io_uring_submit_req")
                    if not sub or not any(h.startswith("io_uring:io_uring_submit_") for h in probes):
                        fails.append(f"io_uring:{event}: the kernel has it, the recorder does not know it")
                        column[f"io_uring:{event}"] = "unknown to the recorder"
        column["io-wq tracking (auto)"] = meta["io_wq_tracking"]
        column["syscalls (auto)"] = meta["syscall_tracking"]
        # auto picks the first method the kernel offers
        for kind, methods, offered_fn, key in (
                ("io-wq", IO_WQ_METHODS, offered_io_wq, "io_wq_tracking"),
                ("syscalls", [m for _, m in SYSCALL_METHODS],
                 lambda f, m: offered_syscalls(f, "raw" if m == "raw_syscalls" else m),
                 "syscall_tracking")):
            for m in methods:
                o = offered_fn(facts, m)
                if meta[key] == m:
                    if o is False:
                        fails.append(f"{kind} (auto): {m}, which the kernel does not offer")
                    break
                if o:
                    fails.append(f"{kind} (auto): {meta[key]}, but the kernel offers {m} first")
                    break
                # not offered, or cannot tell (e.g. fentry refused): next

    # --- forced methods
    for run, meta in metas.values():
        for opt in run["options"]:
            if opt.startswith("--io-wq="):
                m = opt.split("=", 1)[1]
                got = meta["io_wq_tracking"]
                entry = next((p for p in meta["probes"] if p["variant"] == m and
                              p["hook"] in ("io_wq_submit_work", "sched:sched_switch")), None)
                column[f"io-wq: {m}"] = cell(entry) if got == m or entry else f"not used ({got})"
                o = offered_io_wq(facts, m)
                if o and got != m:
                    fails.append(f"{run['name']}: --io-wq={m} on a kernel that offers it, "
                                 f"tracking is {got} ({cell(entry)})")
                if o is False and got == m:
                    fails.append(f"{run['name']}: --io-wq={m} attached where the kernel lacks it")
                if got not in (m, "none"):
                    fails.append(f"{run['name']}: --io-wq={m} fell back to {got}")
            elif opt.startswith("--syscalls="):
                m = opt.split("=", 1)[1]
                name = dict(SYSCALL_METHODS)[m]
                got = meta["syscall_tracking"]
                entries = [p for p in meta["probes"] if p["hook"] in SYSCALL_HOOKS and
                           p["variant"].startswith({"fentry": "fentry", "tracepoint": "syscalls",
                                                    "raw": "raw_syscalls"}[m])]
                att = [p for p in entries if p["status"] == "attached"]
                if att:
                    column[f"syscalls: {name}"] = f"attached: {len(att)} programs"
                else:
                    column[f"syscalls: {name}"] = cell(entries[0]) if entries else f"not used ({got})"
                o = offered_syscalls(facts, m)
                if o and got != name:
                    fails.append(f"{run['name']}: --syscalls={m} on a kernel that offers it, "
                                 f"tracking is {got}")
                if got not in (name, "none"):
                    fails.append(f"{run['name']}: --syscalls={m} fell back to {got}")
                if got == name and entries and len(att) != len(entries):
                    fails.append(f"{run['name']}: --syscalls={m}: {len(entries) - len(att)} "
                                 f"programs did not attach")
    return fails, column
