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

# record [uring-record options...]: runs the recorder (elevated if needed),
# with its stderr in $T/record.err; sets $record_status.
record() {
	record_status=0
	$SUDO "$RECORDER" "$@" 2>"$T/record.err" || record_status=$?
	cat "$T/record.err" >&2
}

# record_detached LOG [uring-record options...]: uring-record -q -o LOG in
# the background, in a session of its own (the command it runs may outlive
# a killed recorder: stop_detached kills the whole session), stderr in
# $T/record.err.  recorder_pid waits until LOG has grown past MIN_BYTES
# (default 0) and sets $recorder_pid.
record_detached() {
	detached_log=$1
	shift
	# shellcheck disable=SC2086
	setsid $SUDO "$RECORDER" -q -o "$detached_log" "$@" 2>"$T/record.err" &
	detached_launcher=$!
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
	recorder_pid=$(pgrep -n -f "^$RECORDER -q -o $detached_log" || true)
	[ -n "$recorder_pid" ] || fail "the recorder is not running: $(cat "$T/record.err")"
	detached_pgid=$(ps -o pgid= -p "$recorder_pid" | tr -d ' ')
}
stop_detached() {
	[ -z "${detached_pgid:-}" ] || $SUDO kill -KILL -- "-$detached_pgid" 2>/dev/null || true
	wait "$detached_launcher" 2>/dev/null || true
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
