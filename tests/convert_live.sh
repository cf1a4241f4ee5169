#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# End to end: record the ground-truth workload (tests/workload all) with
# uring-record, convert it with uring-convert, and check every count, result,
# CQE, path, chain and syscall against what the workload says it did
# (tests/convert_live.py).  Needs root and BPF; skipped without them, and a
# failure instead of a skip on CI (CI=true).
set -u
: "${srcdir:=.}"
rec=${URING_RECORD:-recorder/uring-record}
conv=${URING_CONVERT:-converter/uring-convert}
work=${WORKLOAD:-tests/workload}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: cannot run the live conversion test on CI: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (BPF)"
[ -x "$rec" ] || skip "$rec was not built (configure --enable-recorder)"
[ -x "$work" ] || skip "$work was not built (needs liburing)"
py=$(command -v python3) || skip "needs python3"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$rec" -f -o "$tmp/all.log" -- "$work" --compact all >"$tmp/truth.json" 2>"$tmp/record.err"
st=$?
# The workload exits 3 when a scenario is unavailable (SQPOLL refused).
if [ $st -ne 0 ] && [ $st -ne 3 ]; then
	echo "FAIL: uring-record -- workload all exited $st"
	cat "$tmp/record.err"
	exit 1
fi
"$conv" -q --format=csv -o "$tmp/csv" "$tmp/all.log" || { echo "FAIL: csv conversion"; exit 1; }
"$conv" -q --format=json -o "$tmp/summary.json" "$tmp/all.log" || { echo "FAIL: json conversion"; exit 1; }
"$conv" -q --format=summary -o "$tmp/summary.txt" "$tmp/all.log" || { echo "FAIL: summary"; exit 1; }
"$py" "$srcdir/tests/convert_live.py" "$tmp/truth.json" "$tmp/csv" "$tmp/summary.json"
