#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/e2e/cgroup.sh: record the --cgroup cases.
#
#   cgroup.sh [-r RECORDER] [-w WORKLOAD] OUTDIR
#
# In a cgroup v2 directory of its own, it records into OUTDIR:
#
#   cgroup.log          uring-record --cgroup DIR -d 1s while a loop of
#                       "workload nop" runs in the cgroup and another
#                       outside it.  cgroup.args: the inside loop's pid.
#   cgroup-switch.log   uring-record --io-wq=sched_switch --cgroup DIR
#                       while two SQPOLL threads poll, each on a CPU shared
#                       with a busy loop: the cgroup's own SQ thread with a
#                       loop outside the cgroup, another process's SQ
#                       thread with a loop inside.  Only the first pair's
#                       context switches may be recorded, in both
#                       directions, because a switch is selected by the
#                       io_uring thread's cgroup, not by the task before
#                       it.  cgroup-switch.args: the inside loop's pid, the
#                       inside SQPOLL workload's and the inside busy
#                       loop's.
#
# When a case cannot be recorded here (not root, also with RECORD_SUDO; no
# writable cgroup v2 hierarchy, one CPU, no taskset, SQPOLL refused),
# OUTDIR/NAME.skip holds the reason instead.  tests/live/check.py's check_cgroup() judges the
# recordings; tests/live/filters.sh and tests/e2e/check.py (the kernel
# matrix, where this runs in a busybox guest) call it.
#
# Exit status: 0 when every case was recorded or skipped, 1 when a
# recording failed, 2 on bad usage.  RECORD_SUDO (e.g. "sudo -n")
# prefixes the recorder.
set -u

recorder=${URING_RECORD:-uring-record}
workload=${WORKLOAD:-workload}
sudo_cmd=${RECORD_SUDO:-}
while getopts r:w: opt; do
	case $opt in
	r) recorder=$OPTARG ;;
	w) workload=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { echo "usage: cgroup.sh [-r RECORDER] [-w WORKLOAD] OUTDIR" >&2; exit 2; }
out=$1
rm -f "$out"/cgroup.* "$out"/cgroup-switch.*

pids=
cg=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill $pids 2>/dev/null
	wait 2>/dev/null
	[ -n "$cg" ] || return 0
	# a loop's last child may outlive it for a moment: empty the cgroup
	i=0
	while [ -n "$(cat "$cg/cgroup.procs" 2>/dev/null)" ] && [ "$i" -lt 50 ]; do
		# shellcheck disable=SC2046
		kill $(cat "$cg/cgroup.procs") 2>/dev/null
		sleep 0.1
		i=$((i + 1))
	done
	rmdir "$cg" 2>/dev/null || echo "cgroup.sh: could not remove $cg" >&2
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

skip() {	# skip NAME REASON
	echo "$2" >"$out/$1.skip"
	echo "cgroup.sh: $1 not recorded: $2"
}

# COMMAND in the background, moved into the cgroup before it starts;
# $spawned is its pid (not a subshell's: the checks need the pid).
spawn_in_cgroup() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@" &
	spawned=$!
}

cg_root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
# Even with RECORD_SUDO: making a cgroup and moving processes into it
# are this script's own doing.
if [ "$(id -u)" != 0 ]; then
	skip cgroup "not root (making a cgroup needs it)"
	skip cgroup-switch "not root (making a cgroup needs it)"
	exit 0
fi
if [ -z "$cg_root" ] || ! mkdir "$cg_root/ringside-cgroup-$$" 2>/dev/null; then
	skip cgroup "no writable cgroup v2 hierarchy"
	skip cgroup-switch "no writable cgroup v2 hierarchy"
	exit 0
fi
cg=$cg_root/ringside-cgroup-$$

# shellcheck disable=SC2016 # "$0" is the loop shell's
loop='while :; do "$0" --compact nop >/dev/null || exit 1; sleep 0.02; done'
spawn_in_cgroup sh -c "$loop" "$workload"
cg_loop=$spawned
sh -c "$loop" "$workload" &
pids="$cg_loop $!"
sleep 0.3
# shellcheck disable=SC2086
$sudo_cmd "$recorder" -q --cgroup "$cg" -d 1s -o "$out/cgroup.log" 2>"$out/cgroup.err"
status=$?
[ $status = 0 ] || { cat "$out/cgroup.err" >&2; echo "cgroup.sh: --cgroup: exit $status" >&2; exit 1; }
echo "$cg_loop" >"$out/cgroup.args"

ncpus=$(grep -c '^processor' /proc/cpuinfo)
if [ "$ncpus" -lt 2 ]; then
	skip cgroup-switch "one CPU"
	exit 0
fi
if ! command -v taskset >/dev/null 2>&1; then
	skip cgroup-switch "no taskset"
	exit 0
fi
cpu_in=0 cpu_out=$((ncpus - 1))
# The recorder starts first: under emulation (the kernel matrix's TCG
# guests) starting takes longer than a workload may spin.
# shellcheck disable=SC2086
$sudo_cmd "$recorder" --io-wq=sched_switch --cgroup "$cg" -d 60s -o "$out/cgroup-switch.log" \
	2>"$out/cgroup-switch.err" &
rec=$!
i=0
until grep -q "recording io_uring events" "$out/cgroup-switch.err" 2>/dev/null; do
	if ! kill -0 "$rec" 2>/dev/null || [ "$i" -ge 1200 ]; then
		kill -INT "$rec" 2>/dev/null
		cat "$out/cgroup-switch.err" >&2
		echo "cgroup.sh: --cgroup, context switches: the recorder did not start" >&2
		exit 1
	fi
	i=$((i + 1))
	sleep 0.1
done
spawn_in_cgroup "$workload" --compact --sq-cpu "$cpu_in" --spin-ms 20000 sqpoll \
	>"$out/cgroup-switch.sq-in.json"
sq_in=$spawned
spawn_in_cgroup taskset -c "$cpu_out" sh -c 'while :; do :; done'
busy_in=$spawned
"$workload" --compact --sq-cpu "$cpu_out" --spin-ms 20000 sqpoll >"$out/cgroup-switch.sq-out.json" &
sq_out=$!
taskset -c "$cpu_in" sh -c 'while :; do :; done' &
pids="$pids $sq_in $busy_in $sq_out $!"
sleep 3
kill -INT "$rec"
wait "$rec"
status=$?
# Spinning still, or gone with a status: 3 is "SQPOLL refused".
sq_status=0
for p in $sq_in $sq_out; do
	kill -0 "$p" 2>/dev/null || wait "$p" || sq_status=$?
done
if [ $sq_status = 3 ]; then
	skip cgroup-switch "SQPOLL refused"
	exit 0
fi
[ $status = 0 ] || { cat "$out/cgroup-switch.err" >&2; echo "cgroup.sh: --cgroup, context switches: exit $status" >&2; exit 1; }
[ $sq_status = 0 ] || { echo "cgroup.sh: the SQPOLL workloads failed: exit $sq_status" >&2; exit 1; }
echo "$cg_loop $sq_in $busy_in" >"$out/cgroup-switch.args"
exit 0
