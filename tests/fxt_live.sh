#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# End to end for --format=fxt: record the ground-truth workload
# (tests/workload demo, then all) with uring-record, convert it to FXT, read
# it back with tests/fxtstat (the independent FXT reader, replaying
# Perfetto's slice stacks and flow binding) and compare the slices, flows
# and named threads with what the workload says it did (tests/fxt_live.py).
# Needs root and BPF; skipped without them, and a failure instead of a skip
# on CI (CI=true).
set -u
: "${srcdir:=.}"
rec=${URING_RECORD:-recorder/uring-record}
conv=${URING_CONVERT:-converter/uring-convert}
work=${WORKLOAD:-tests/workload}
fxtstat=${FXTSTAT:-tests/fxtstat}

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: cannot run the live FXT test on CI: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (BPF)"
[ -x "$rec" ] || skip "$rec was not built (configure --enable-recorder)"
[ -x "$work" ] || skip "$work was not built (needs liburing)"
[ -x "$fxtstat" ] || skip "$fxtstat was not built (needs Check)"
py=$(command -v python3) || skip "needs python3"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for scen in demo all; do
	"$rec" -f -o "$tmp/$scen.log" -- "$work" --compact "$scen" >"$tmp/$scen.json" 2>"$tmp/$scen.rec.err"
	st=$?
	# The workload exits 3 when a scenario is unavailable (SQPOLL refused).
	if [ $st -ne 0 ] && [ $st -ne 3 ]; then
		echo "FAIL: uring-record -- workload $scen exited $st"
		cat "$tmp/$scen.rec.err"
		exit 1
	fi
	# Not quiet: a conversion of this workload must print nothing (no
	# warnings, no "lanes busy" line).
	"$conv" --format=fxt -o "$tmp/$scen.fxt" "$tmp/$scen.log" 2>"$tmp/$scen.conv.err" ||
		{ echo "FAIL: $scen: fxt conversion"; cat "$tmp/$scen.conv.err"; exit 1; }
	if [ -s "$tmp/$scen.conv.err" ]; then
		echo "FAIL: $scen: uring-convert --format=fxt printed:"
		cat "$tmp/$scen.conv.err"
		exit 1
	fi
	"$conv" -q --format=csv -o "$tmp/$scen.csv" "$tmp/$scen.log" || { echo "FAIL: $scen: csv conversion"; exit 1; }
	"$conv" -q --format=json -o "$tmp/$scen.summary.json" "$tmp/$scen.log" || { echo "FAIL: $scen: json conversion"; exit 1; }
	"$fxtstat" "$tmp/$scen.fxt" >"$tmp/$scen.stat.json" || { echo "FAIL: $scen: fxtstat cannot read the FXT"; exit 1; }
	printf '%s: ' "$scen"
	"$py" "$srcdir/tests/fxt_live.py" "$tmp/$scen.json" "$tmp/$scen.stat.json" "$tmp/$scen.csv" \
		"$tmp/$scen.summary.json" || { echo "FAIL: $scen (kept in $tmp.kept)"; cp -r "$tmp" "$tmp.kept"; exit 1; }
done
