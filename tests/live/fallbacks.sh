#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The fallback paths a kernel may force, taken on purpose: io_uring
# syscalls through raw_syscalls (same exact calls as the preferred
# method) or not at all, no io-wq tracking, tracefs mounted privately
# because it is not mounted, and --raw-pointers.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

nop_check() {	# nop_check NAME SYSCALL_TRACKING: exact nop results
	stat_log "$T/$1.log" "$T/$1.stat"
	pycheck - "$T/$1.stat" "$T/$1.json" "$2" <<'PY'
import sys
from check import *
stat, wl, mode = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
common_log_checks(stat)
eq("syscall tracking", stat["meta"]["syscall_tracking"], mode)
eq("submits per opcode", submitted(stat), workload_counts(wl, "submitted"))
if mode == "none":
    eq("enter events", stat["syscalls"]["enter_count"], 0)
    eq("setup events", stat["syscalls"]["setup_count"], 0)
else:
    want = [(c["fd"], c["to_submit"], c["min_complete"], c["flags"], c["ret"])
            for c in wl["enter_calls"]["calls"]]
    got = [(c["fd"], c["to_submit"], c["min_complete"], c["enter_flags"], c["ret"])
           for c in stat["syscalls"]["enter"]]
    eq("io_uring_enter calls", got, want)
    true("rings resolved", all(c["ring_valid"] for c in stat["syscalls"]["enter"]))
    want = [(c["entries"], c["flags"], c["ret"]) for c in wl["setup_calls"]["calls"]]
    got = [(c["entries"], c["setup_flags"], c["ret"]) for c in stat["syscalls"]["setup"]]
    eq("io_uring_setup calls", got, want)
done()
PY
	note "$1: ok"
}

record -q --syscalls=raw -o "$T/raw.log" -- "$WORKLOAD" --compact nop >"$T/raw.json"
[ "$record_status" = 0 ] || fail "--syscalls=raw: exit $record_status"
nop_check raw raw_syscalls

record -q --syscalls=none -o "$T/none.log" -- "$WORKLOAD" --compact nop >"$T/none.json"
[ "$record_status" = 0 ] || fail "--syscalls=none: exit $record_status"
nop_check none none

record -q --io-wq=none -o "$T/nowq.log" -- "$WORKLOAD" --compact rw >"$T/nowq.json"
[ "$record_status" = 0 ] || fail "--io-wq=none: exit $record_status"
stat_log "$T/nowq.log" "$T/nowq.stat"
pycheck - "$T/nowq.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
common_log_checks(stat)
eq("io-wq tracking", stat["meta"]["io_wq_tracking"], "none")
for t in ("sched_switch", "work_begin", "work_end"):
    eq(t + " records", stat["records"].get(t, 0), 0)
done()
PY
note "--io-wq=none: ok"

record -q --raw-pointers -o "$T/rawptr.log" -- "$WORKLOAD" --compact nop >"$T/rawptr.json"
[ "$record_status" = 0 ] || fail "--raw-pointers: exit $record_status"
stat_log "$T/rawptr.log" "$T/rawptr.stat"
pycheck - "$T/rawptr.stat" <<'PY'
import sys
from check import *
stat = load(sys.argv[1])
eq("pointers", stat["meta"]["pointers"], "raw")
if __import__("platform").machine() == "x86_64":
    eq("ring and request addresses kept (%s)" % ids_detail(stat["ids"]),
       stat["ids"]["kernel_like"], stat["ids"]["nonzero"])
done()
PY
note "--raw-pointers: ok"

# tracefs not mounted: formats and syscall tracepoint ids through a private
# mount (in a private mount namespace of ours, so the host keeps its mounts).
if [ "$AS_ROOT" = true ] && command -v unshare >/dev/null 2>&1; then
	status=0
	unshare -m sh -c '
		for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug; do
			umount "$m" 2>/dev/null || true
		done
		if grep -q " tracefs " /proc/mounts; then exit 99; fi
		"$1" -q --syscalls=tracepoint -o "$2/private.log" -- "$3" --compact nop >"$2/private.json"' \
		sh "$RECORDER" "$T" "$WORKLOAD" || status=$?
	if [ "$status" = 99 ]; then
		note "cannot unmount tracefs here: private mount not tested"
	else
		[ "$status" = 0 ] || fail "private tracefs: exit $status"
		nop_check private tracepoint
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "io_uring:io_uring_complete" in d["meta"]["tracepoints"] else 1)' "$T/private.stat" ||
			fail "no tracepoint formats from the private mount"
		grep -q " tracefs " /proc/mounts || true
	fi
else
	note "private tracefs mount not tested (needs root and unshare)"
fi
note "ok"
