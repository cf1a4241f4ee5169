#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# -- COMMAND runs as the invoking user (SUDO_UID/SUDO_GID) with the log
# handed to that user, unless --run-as-root; its exit status becomes
# uring-record's; a command that cannot run leaves no log behind.
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

if [ "$AS_ROOT" = true ]; then
	# as if "sudo" had been run by nobody
	want_uid=65534
	want_gid=65534
	as_user() { SUDO_UID=$want_uid SUDO_GID=$want_gid SUDO_USER=nobody "$@"; }
else
	want_uid=$(id -u)
	want_gid=$(id -g)
	as_user() { "$@"; }
fi

status=0
as_user $SUDO "$RECORDER" -q -o "$T/user.log" -- sh -c 'id -u; id -g' >"$T/ids" 2>"$T/record.err" || status=$?
cat "$T/record.err" >&2
[ "$status" = 0 ] || fail "exit status $status"
[ "$(sed -n 1p "$T/ids")" = "$want_uid" ] || fail "COMMAND ran as uid $(sed -n 1p "$T/ids"), want $want_uid"
[ "$(sed -n 2p "$T/ids")" = "$want_gid" ] || fail "COMMAND ran as gid $(sed -n 2p "$T/ids"), want $want_gid"
[ "$(stat -c %u "$T/user.log")" = "$want_uid" ] || fail "the log belongs to uid $(stat -c %u "$T/user.log")"
[ "$(stat -c %a "$T/user.log")" = 600 ] || fail "the log has mode $(stat -c %a "$T/user.log")"
note "runs as uid $want_uid, log handed over: ok"

if [ "$AS_ROOT" = true ]; then
	status=0
	as_user "$RECORDER" -q --run-as-root -o "$T/root.log" -- id -u >"$T/rootid" 2>&1 || status=$?
	[ "$status" = 0 ] && [ "$(cat "$T/rootid")" = 0 ] || fail "--run-as-root: $(cat "$T/rootid")"
	note "--run-as-root: ok"
fi

status=0
$SUDO "$RECORDER" -q -o "$T/exit3.log" -- sh -c 'exit 3' 2>/dev/null || status=$?
[ "$status" = 3 ] || fail "exit status $status, want the command's 3"
stat_log "$T/exit3.log" "$T/exit3.stat"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["stop"]["end"]; sys.exit(0 if e["exit_status"] == 3 and e["reason"] == "command exited" else 1)' "$T/exit3.stat" ||
	fail "END does not say the command exited with 3"
note "exit status 3 passed on: ok"

status=0
$SUDO "$RECORDER" -q -o "$T/missing.log" -- "$T/no-such-program" 2>"$T/missing.err" || status=$?
[ "$status" = 127 ] || fail "missing command: exit status $status, want 127"
grep -q "no-such-program" "$T/missing.err" || fail "the error does not name the command"
[ ! -e "$T/missing.log" ] || fail "a log was left behind for a command that never ran"
note "missing command: ok"

status=0
$SUDO "$RECORDER" -q -o "$T/user.log" -- true 2>"$T/exists.err" || status=$?
[ "$status" != 0 ] || fail "overwrote an existing log without --force"
grep -q "already exists" "$T/exists.err" || fail "no 'already exists' message"
ln -s "$T/user.log" "$T/link.log"
status=0
$SUDO "$RECORDER" -q -f -o "$T/link.log" -- true 2>"$T/link.err" || status=$?
[ "$status" != 0 ] || fail "followed a symbolic link"
note "refuses to overwrite or follow links: ok"

# Without CAP_BPF and CAP_PERFMON: one clear line saying what is missing.
if [ "$AS_ROOT" = true ] && command -v setpriv >/dev/null 2>&1; then
	status=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$RECORDER" -o "$T/nocap.log" -d 1s 2>"$T/nocap.err" || status=$?
	[ "$status" = 1 ] || fail "unprivileged: exit status $status, want 1"
	grep -q "CAP_BPF" "$T/nocap.err" || fail "unprivileged: no word of CAP_BPF: $(cat "$T/nocap.err")"
	[ "$(wc -l <"$T/nocap.err")" = 1 ] || fail "unprivileged: more than one line: $(cat "$T/nocap.err")"
	[ ! -e "$T/nocap.log" ] || fail "unprivileged: a log was created"
	note "unprivileged: ok"
fi
