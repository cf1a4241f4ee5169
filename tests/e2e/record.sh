#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/e2e/record.sh: the RECORD step of the end-to-end suite.
#
#   record.sh [-p PLAN] [-r RECORDER] [-w WORKLOAD] [-b BYSTANDER] OUTDIR [RUN...]
#
# Records the runs of PLAN (default: tests/e2e/plan next to this script;
# all of them, or only the RUN names given) with
#
#   uring-record -f -o OUTDIR/NAME.log OPTIONS -- workload --compact ARGS
#
# while an unrelated io_uring process (BYSTANDER, started first and stopped
# last) keeps submitting NOPs, and writes into OUTDIR, per run:
#
#   NAME.log     the recording           NAME.json    the workload's JSON
#   NAME.err     uring-record's stderr (and the workload's)
#   NAME.run     "name|options|arguments|recorder exit status|seconds"
#
# and once: kernel.facts (what this kernel offers, found without the
# recorder: tracefs events, kprobe PMU, ftrace-able functions), bystander.json
# (the bystander's own account) and runs (the names, in order).  Without
# RUN names it also records the --cgroup cases (tests/e2e/cgroup.sh:
# cgroup.log, cgroup-switch.log, or a .skip file saying why not).
#
# It judges nothing (tests/e2e/check.py does, on any machine) and needs
# only a POSIX shell: it runs as /init's child in a busybox guest
# (tests/kernels/) as well as on the build host, as root.  RECORD_SUDO
# (e.g. "sudo -n") prefixes the recorder when not root.
#
# Exit status: 0 when every run was recorded (whatever the workload did),
# 1 when something needed is missing, 2 on bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
plan=$here/plan
recorder=${URING_RECORD:-uring-record}
workload=${WORKLOAD:-workload}
bystander=${BYSTANDER:-bystander}
sudo_cmd=${RECORD_SUDO:-}

# ------------------------------------------------------------ kernel facts
# What the running kernel offers, read from the kernel itself, so that the
# CHECK step can tell "the recorder failed to attach" from "the kernel has
# no such thing".
facts() {
	tracefs=
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -d "$d/events" ]; then
			tracefs=$d
			break
		fi
	done
	echo "release=$(uname -r)"
	echo "machine=$(uname -m)"
	echo "cpus=$(grep -c '^processor' /proc/cpuinfo)"
	[ -r /sys/kernel/btf/vmlinux ] && echo "btf=yes" || echo "btf=no"
	echo "tracefs=$tracefs"
	if [ -n "$tracefs" ]; then
		events=
		for e in "$tracefs"/events/io_uring/io_uring_*; do
			[ -d "$e" ] && events="$events ${e##*/}"
		done
		echo "io_uring_events=${events# }"
		f=$tracefs/events/io_uring/io_uring_task_work_run/format
		if [ -r "$f" ]; then
			grep -q ' loops;' "$f" && echo "task_work_run_loops=yes" || echo "task_work_run_loops=no"
		fi
		[ -d "$tracefs/events/syscalls/sys_enter_io_uring_enter" ] &&
			echo "syscalls_events=yes" || echo "syscalls_events=no"
		[ -d "$tracefs/events/raw_syscalls/sys_enter" ] &&
			echo "raw_syscalls_events=yes" || echo "raw_syscalls_events=no"
		[ -d "$tracefs/events/sched/sched_switch" ] &&
			echo "sched_switch_event=yes" || echo "sched_switch_event=no"
		if cat "$tracefs/available_filter_functions" >/dev/null 2>&1; then
			echo "ftrace_functions=readable"
			grep -q '^io_wq_submit_work\b' "$tracefs/available_filter_functions" &&
				echo "io_wq_submit_work_ftrace=yes" || echo "io_wq_submit_work_ftrace=no"
			grep -q '_sys_io_uring_enter\b' "$tracefs/available_filter_functions" &&
				echo "sys_io_uring_enter_ftrace=yes" || echo "sys_io_uring_enter_ftrace=no"
		else
			echo "ftrace_functions=unreadable"
		fi
	fi
	[ -d /sys/bus/event_source/devices/kprobe ] && echo "kprobe_pmu=yes" || echo "kprobe_pmu=no"
	grep -q ' io_wq_submit_work$' /proc/kallsyms && echo "io_wq_submit_work_symbol=yes" ||
		echo "io_wq_submit_work_symbol=no"
	echo "io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo absent)"
}
# Internal: "record.sh --facts" prints the facts (run in a private mount
# namespace when tracefs must be mounted first).
if [ "${1:-}" = --facts ]; then
	facts
	exit 0
fi

usage() {
	sed -n '6p' "$0" | sed 's/^# *//' >&2
	exit 2
}

while getopts p:r:w:b:h opt; do
	case $opt in
	p) plan=$OPTARG ;;
	r) recorder=$OPTARG ;;
	w) workload=$OPTARG ;;
	b) bystander=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
out=$1
shift

die() {
	echo "record.sh: $*" >&2
	exit 1
}

[ -r "$plan" ] || die "cannot read the plan $plan"
for prog in "$recorder" "$workload" "$bystander"; do
	command -v "$prog" >/dev/null 2>&1 || [ -x "$prog" ] || die "$prog not found"
done
mkdir -p "$out" || die "cannot create $out"

# Centiseconds since boot: busybox date has no %N everywhere.
now_cs() {
	read -r up _ </proc/uptime
	echo "${up%.*}${up#*.}"
}

if [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
	[ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
	facts >"$out/kernel.facts"
else
	# tracefs is not mounted: mount it where only a short-lived child
	# sees it (as uring-record itself does), so nothing changes on the host.
	# shellcheck disable=SC2016 # "$0" is the inner shell's
	unshare -m sh -c 'mount --make-rprivate / 2>/dev/null
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
		exec sh "$0" --facts' "$0" >"$out/kernel.facts" || facts >"$out/kernel.facts"
fi

# ------------------------------------------------------------ bystander
"$bystander" >"$out/bystander.json" 2>"$out/bystander.err" &
bystander_pid=$!
stop_bystander() {
	[ -n "$bystander_pid" ] || return 0
	kill -TERM "$bystander_pid" 2>/dev/null
	wait "$bystander_pid"
	bystander_pid=
}
trap 'stop_bystander' EXIT
trap 'exit 1' INT TERM HUP

# ------------------------------------------------------------ runs
wanted="$*"
: >"$out/runs"
n=0
# Fields are split on blanks, never globbed.
set -f
while IFS='|' read -r name ropts wargs; do
	# shellcheck disable=SC2086 # split and trim the fields
	set -- $name
	case ${1:-#} in \#*) continue ;; esac
	name=$1
	if [ -n "$wanted" ]; then
		found=no
		for want in $wanted; do
			[ "$want" = "$name" ] && found=yes
		done
		[ $found = yes ] || continue
	fi
	# leading NAME=VALUE words of the options go to the recorder's environment
	renv= rargs=
	# shellcheck disable=SC2086
	for word in $ropts; do
		if [ -z "$rargs" ]; then
			case $word in [A-Z]*=*) renv="$renv $word"; continue ;; esac
		fi
		rargs="$rargs $word"
	done
	t0=$(now_cs)
	# shellcheck disable=SC2086
	$sudo_cmd env $renv "$recorder" -f -o "$out/$name.log" $rargs -- \
		"$workload" --compact $wargs >"$out/$name.json" 2>"$out/$name.err" </dev/null
	status=$?
	t1=$(now_cs)
	secs=$(( (t1 - t0) / 100 )).$(( (t1 - t0) % 100 / 10 ))
	# shellcheck disable=SC2086
	set -- $ropts
	ropts_trim="$*"
	# shellcheck disable=SC2086
	set -- $wargs
	echo "$name|$ropts_trim|$*|$status|$secs" >"$out/$name.run"
	echo "$name" >>"$out/runs"
	echo "recorded $name ($secs s, exit status $status)"
	n=$((n + 1))
done <"$plan"
set +f
[ $n -gt 0 ] || die "no run of $plan matches: $wanted"
# The whole plan also records the --cgroup cases (cgroup.sh next to this
# script), the bystander still running outside the cgroup.
if [ -z "$wanted" ]; then
	RECORD_SUDO=$sudo_cmd sh "$here/cgroup.sh" -r "$recorder" -w "$workload" "$out" ||
		die "cgroup.sh failed"
fi
stop_bystander
exit 0
