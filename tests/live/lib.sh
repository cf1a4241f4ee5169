# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Shared by the live tests of uring-record (sourced).  They run from the
# top of the build tree (make check) or from anywhere with top_builddir
# set, record real io_uring work and assert exact counts with
# tests/logstat and tests/live/check.py.
#
# Privileges: as root they run everything directly.  As a user who may
# "sudo -n", only the recorder is elevated.  Otherwise they skip (exit 77),
# except on CI (CI=true), where a test that would skip fails.

set -eu

top_builddir=${top_builddir:-$(pwd)}
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
RECORDER="$top_builddir/recorder/uring-record"
WORKLOAD="$top_builddir/tests/workload"
LOGSTAT="$top_builddir/tests/logstat"
CONVERT="$top_builddir/converter/uring-convert"
CHECK="$srcdir/tests/live/check.py"
test_name=$(basename "$0" .sh)

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL ($test_name): CI=true and this test would skip: $*" >&2
		exit 1
	fi
	echo "SKIP ($test_name): $*"
	exit 77
}

fail() {
	echo "FAIL ($test_name): $*" >&2
	exit 1
}

note() {
	echo "$test_name: $*"
}

[ -x "$RECORDER" ] || skip "no $RECORDER (configured without the recorder?)"
[ -x "$WORKLOAD" ] || skip "no $WORKLOAD (liburing-dev missing at configure time)"
[ -x "$LOGSTAT" ] || skip "no $LOGSTAT"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to check the results"

if [ "$(id -u)" = 0 ]; then
	SUDO=
	AS_ROOT=true
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	SUDO="sudo -n"
	AS_ROOT=false
else
	skip "needs root, or sudo without a password for the recorder"
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/ringside-live.XXXXXX")
chmod 755 "$T"
cleanup_hooks=""
cleanup() {
	for h in $cleanup_hooks; do
		"$h" || true
	done
	rm -rf "$T"
}
trap cleanup EXIT
# make check runs each test under timeout(1) (tests/local.mk), which sends
# SIGTERM to the test's process group: end through the EXIT trap, so that
# recorders detached into sessions of their own are stopped too.
trap 'fail "stopped by SIGTERM (the time limit of make check?)"' TERM
trap 'fail "stopped by SIGINT"' INT

# pid_of_cmdline PREFIX: the newest process whose command line (arguments
# joined by spaces) starts with PREFIX, from /proc (no procps needed).
pid_of_cmdline() {
	poc_found=""
	for poc_dir in /proc/[0-9]*; do
		poc_cmd=$({ tr '\0' ' ' <"$poc_dir/cmdline"; } 2>/dev/null) || continue
		case "$poc_cmd" in
		"$1"*)	poc_pid=${poc_dir#/proc/}
			[ -n "$poc_found" ] && [ "$poc_found" -gt "$poc_pid" ] || poc_found=$poc_pid ;;
		esac
	done
	echo "$poc_found"
}

# proc_field PID N: field N of /proc/PID/stat counted from the state (1),
# after the comm, which may hold spaces: 2 ppid, 3 pgrp, 4 session.
proc_field() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f"$2"
}

# proc_running PID: PID is a process that has not exited (a zombie has).
proc_running() {
	pr_state=$(proc_field "$1" 1)
	[ -n "$pr_state" ] && [ "$pr_state" != Z ] && [ "$pr_state" != X ]
}

# root_kill ARGS...: kill(1) as root, for the recorder.  kill is the
# shell's own: without procps there is no kill program for sudo to run.
root_kill() {
	if [ -z "$SUDO" ]; then
		kill "$@"
	else
		$SUDO sh -c 'kill "$@"' sh "$@"
	fi
}

# record [uring-record options...]: runs the recorder (elevated if needed),
# with its stderr in $T/record.err; sets $record_status.  A recorder still
# running after RECORD_LIMIT seconds (default 120) is stopped: status 124.
record() {
	record_status=0
	timeout -k 10 "${RECORD_LIMIT:-120}" $SUDO "$RECORDER" "$@" 2>"$T/record.err" ||
		record_status=$?
	cat "$T/record.err" >&2
}

# record_detached LOG [uring-record options...]: uring-record -q -o LOG in
# the background, in a session of its own (the command it runs may outlive
# a killed recorder: stop_detached kills the whole session), stderr in
# $T/record.err.  recorder_pid waits until LOG has grown past MIN_BYTES
# (default 0) and sets $recorder_pid; sudo may have started the recorder
# in a session of its own (use_pty), so it is found by its command line.
record_detached() {
	detached_log=$1
	shift
	# shellcheck disable=SC2086
	setsid $SUDO "$RECORDER" -q -o "$detached_log" "$@" 2>"$T/record.err" &
	detached_launcher=$!
	recorder_pid=""
	detached_pgid=""
	cleanup_hooks="$cleanup_hooks stop_detached"
}
recorder_pid() {
	i=0
	while [ "$i" -lt 100 ]; do
		size=$(stat -c %s "$detached_log" 2>/dev/null || echo 0)
		[ "$size" -gt "${1:-0}" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	recorder_pid=$(pid_of_cmdline "$RECORDER -q -o $detached_log ")
	[ -n "$recorder_pid" ] || fail "the recorder is not running: $(cat "$T/record.err")"
	detached_pgid=$(proc_field "$recorder_pid" 3)
}

# wait_detached SECONDS: wait until the detached recorder ($recorder_pid)
# has exited by itself; false if it still runs after SECONDS.
wait_detached() {
	i=0
	while proc_running "$recorder_pid"; do
		[ "$i" -lt $(($1 * 10)) ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# reap_detached: the exit status of the detached recorder, which has
# stopped; forgets it, so that stop_detached kills nothing.
reap_detached() {
	rd_status=0
	wait "$detached_launcher" || rd_status=$?
	detached_launcher=""
	detached_pgid=""
	return $rd_status
}

# Kills the detached recorder's process group and the launcher's session
# (setsid does not fork here: a background job of a shell without job
# control leads no process group, so its pid is the session's id), then
# reaps the launcher.
stop_detached() {
	for sd_group in ${detached_pgid:-} ${detached_launcher:-}; do
		root_kill -KILL -- "-$sd_group" 2>/dev/null || true
	done
	[ -z "${detached_launcher:-}" ] || wait "$detached_launcher" 2>/dev/null || true
	detached_launcher=""
	detached_pgid=""
	return 0
}

# on_small_tmpfs SIZE DIR LOG COPY CMD...: run CMD (root) in a private mount
# namespace with a tmpfs of SIZE mounted on DIR, which the host never sees
# and which is gone with the namespace.  CMD runs in a session of its own,
# killed when CMD returns (a recorder stopped by the full disk leaves its
# COMMAND running); then DIR/LOG, if CMD left one, is copied to COPY.
# Returns CMD's exit status; redirect the call for CMD's output.
on_small_tmpfs() {
	mkdir -p "$2"
	unshare -m sh -c '
		set -e
		mount -t tmpfs -o "size=$1" tmpfs "$2"
		dir=$2 log=$3 copy=$4
		shift 4
		rc=0
		setsid -w sh -c '\''echo $$ >"$1"; shift; exec "$@"'\'' sh "$copy.sid" "$@" ||
			rc=$?
		kill -9 "-$(cat "$copy.sid")" 2>/dev/null || true	# dash: no "--"
		[ ! -e "$dir/$log" ] || cp "$dir/$log" "$copy"
		umount "$dir"
		exit $rc' sh "$@"
}

# stat LOG OUT: logstat's JSON into OUT; fails the test if the log does not read.
stat_log() {
	"$LOGSTAT" "$1" >"$2" || fail "logstat cannot read $1"
}

# The recorder itself must work here (BPF allowed): a 100 ms system-wide run.
probe_recorder() {
	if ! $SUDO "$RECORDER" -q -d 100ms --syscalls=none -o "$T/probe.log" 2>"$T/probe.err"; then
		cat "$T/probe.err" >&2
		if grep -q -e "CAP_BPF" -e "cannot load" -e "BTF" "$T/probe.err"; then
			skip "BPF is not usable here: $(head -n 1 "$T/probe.err")"
		fi
		fail "the recorder does not start: $(head -n 1 "$T/probe.err")"
	fi
	$SUDO rm -f "$T/probe.log"
}
probe_recorder

pycheck() {
	PYTHONPATH="$srcdir/tests/live${PYTHONPATH:+:$PYTHONPATH}" python3 "$@"
}
