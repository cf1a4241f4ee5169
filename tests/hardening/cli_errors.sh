#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Bad command lines and bad files, for both programs: every case gets
# exactly one stderr line (uring-record with -q: no status line) that says
# what is wrong, and the documented exit status (2 usage, 1 error).  Also:
# nothing waits forever (a FIFO as the log), a full output device is a
# clear error for every format, and no case leaves an output file behind.
# Complements the uring-convert cases of tests/check_convert_output.c.
# uring-record's usage errors need no privileges; its run-time errors are
# checked as root only (otherwise the missing privilege is the error).
set -eu

top_builddir=${top_builddir:-$(pwd)}
srcdir=${srcdir:-$(dirname "$0")/../..}
# absolute: the cases run from a scratch directory (make distcheck passes ../..)
srcdir=$(cd "$srcdir" && pwd)
RECORDER="$top_builddir/recorder/uring-record"
CONVERT="$top_builddir/converter/uring-convert"
T=$(mktemp -d "${TMPDIR:-/tmp}/ringside-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
cases=0

# expect PROGRAM STATUS NEEDLE ARGS...: one stderr line containing NEEDLE.
expect() {
	prog=$1 want=$2 needle=$3
	shift 3
	cases=$((cases + 1))
	got=0
	(cd "$T/cwd" && timeout 20 "$prog" "$@" </dev/null >"$T/out" 2>"$T/err") || got=$?
	n=$(wc -l <"$T/err")
	if [ "$got" != "$want" ] || [ "$n" != 1 ] || ! grep -qF -- "$needle" "$T/err"; then
		echo "FAIL: $(basename "$prog") $*: exit $got (want $want), $n stderr lines (want 1) with '$needle':" >&2
		sed 's/^/    /' "$T/err" >&2
		failures=$((failures + 1))
	fi
}

mkdir "$T/cwd"
[ -x "$CONVERT" ] || { echo "FAIL: no $CONVERT" >&2; exit 1; }
log="$srcdir/tests/golden/convert_v1.log"
mkfifo "$T/fifo"
: >"$T/empty.log"
head -c 40 "$log" >"$T/short.log"
head -c 4000 "$log" >"$T/cut.log"
printf 'not a log\n%.0s' $(seq 20) >"$T/text.log"
echo '{}' >"$T/exists.json"
mkdir "$T/dir"

# ------------------------------------------------------------ uring-convert
C=$CONVERT
expect "$C" 2 "unrecognized option '--bogus'" --bogus "$log"
expect "$C" 2 "invalid option -- 'z'" -z "$log"
expect "$C" 2 "requires an argument" "$log" -o
expect "$C" 2 "requires an argument" "$log" --pid
expect "$C" 2 "no LOG" --format=json
expect "$C" 2 "one LOG at a time" "$log" "$log"
expect "$C" 2 "unknown format" --format=xml "$log"
expect "$C" 2 "not a time" --start yesterday "$log"
expect "$C" 2 "not a time" --end 2024-13-45T99:00:00Z "$log"
expect "$C" 2 "not a process id" --pid -3 "$log"
expect "$C" 2 "not a ring number" --ring 4294967296 "$log"
expect "$C" 2 "lanes" --lanes 0 --format=fxt -o "$T/x.fxt" "$log"
expect "$C" 2 "after --end" --start 2s --end 1s "$log"
expect "$C" 1 "cannot open: No such file" "$T/missing.log"
expect "$C" 1 "is a directory" "$T/dir"
expect "$C" 1 "not a regular file" "$T/fifo"
expect "$C" 1 "not a regular file" --info "$T/fifo"
expect "$C" 1 "not a regular file" /dev/null
expect "$C" 1 "file is empty" "$T/empty.log"
expect "$C" 1 "file too short" "$T/short.log"
expect "$C" 1 "not a ringside log" "$T/text.log"
expect "$C" 1 "not a ringside log" "$srcdir/tests/hardening/cli_errors.sh"
expect "$C" 1 "already exists" -o "$T/exists.json" "$log"
expect "$C" 1 "already exists" --info -o "$T/exists.json" "$log"
expect "$C" 1 "is a directory" -o "$T/dir" "$log"
expect "$C" 1 "cannot create" -o "$T/missing/x.json" "$log"
expect "$C" 1 "not a directory" --format=csv -o "$T/exists.json" "$log"
expect "$C" 1 "cannot create directory" --format=csv -o "$T/missing/csv" "$log"
expect "$C" 1 "refusing to write over the log" --force -o "$log" "$log"
for fmt in summary json fxt; do
	expect "$C" 1 "write error" --force --format=$fmt -o /dev/full "$log"
done
expect "$C" 1 "write error" --info --force -o /dev/full "$log"
# CSV writes several files: the one that failed is named.
mkdir "$T/csv-full"
ln -s /dev/full "$T/csv-full/events.csv"
expect "$C" 1 "csv-full/events.csv: write error: No space left on device" \
	--force --format=csv -o "$T/csv-full" "$log"
expect "$C" 2 "-o DIR" --format=csv "$log"
# A terminal is no place for FXT.
if command -v script >/dev/null 2>&1; then
	cases=$((cases + 1))
	script -qec "$C --format=fxt $log" /dev/null >"$T/tty" 2>&1 || true
	grep -q "writes a binary file" "$T/tty" ||
		{ echo "FAIL: --format=fxt to a terminal: $(cat "$T/tty")" >&2; failures=$((failures + 1)); }
fi
# Unreadable, for a user the permission bits apply to.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	cp "$log" "$T/secret.log"
	chmod 600 "$T/secret.log"
	chmod 755 "$T" "$T/cwd"
	expect setpriv 1 "Permission denied" --reuid=65534 --regid=65534 --clear-groups \
		"$C" "$T/secret.log"
fi
# A cut log converts (exit 0, warnings only); nothing was left behind above.
cases=$((cases + 1))
"$C" -q --format=json "$T/cut.log" >"$T/out" 2>"$T/err" ||
	{ echo "FAIL: a log cut short does not convert: $(cat "$T/err")" >&2; failures=$((failures + 1)); }
for f in "$T/missing" "$T/cwd/uring.log"; do
	[ ! -e "$f" ] || { echo "FAIL: $f was left behind" >&2; failures=$((failures + 1)); }
done

# ------------------------------------------------------------- uring-record
if [ -x "$RECORDER" ]; then
	R=$RECORDER
	expect "$R" 2 "unrecognized option '--bogus'" --bogus
	expect "$R" 2 "invalid option -- 'z'" -z
	expect "$R" 2 "requires an argument" -o
	expect "$R" 2 "requires an argument" --duration
	expect "$R" 2 "not a duration" -q -d xyz
	expect "$R" 2 "not a duration" -q -d -1s
	expect "$R" 2 "unknown unit" -q -s 12Q
	expect "$R" 2 "power of two" -q --ring-size 3000
	expect "$R" 2 "zstd level" -q --zstd-level 99
	expect "$R" 2 "not a process id" -q -p abc
	expect "$R" 2 "not a process id" -q -p 0
	expect "$R" 2 "unknown mode" -q --io-wq=bogus
	expect "$R" 2 "unknown mode" -q --syscalls=bogus
	expect "$R" 2 "flush-interval" -q --flush-interval 5s
	expect "$R" 2 "drain-interval" -q --drain-interval 0
	expect "$R" 2 "queue-size" -q --queue-size 1
	expect "$R" 2 "1 to 15 characters" -q -c toolongcommnamexxxxx
	if [ "$(id -u)" = 0 ]; then
		expect "$R" 1 "already exists" -q -d 10ms -o "$T/exists.json"
		expect "$R" 1 "not a regular file" -q -f -d 10ms -o "$T/dir"
		expect "$R" 1 "not a regular file" -q -f -d 10ms -o /dev/null
		expect "$R" 1 "cannot create" -q -d 10ms -o "$T/missing/x.log"
		expect "$R" 1 "no such process" -q -d 10ms -o "$T/p.log" -p 999999999
		expect "$R" 1 "No such file" -q -d 10ms -o "$T/g.log" -G "$T/missing"
		expect "$R" 1 "not a cgroup v2 directory" -q -d 10ms -o "$T/g.log" -G "$T/dir"
		expect "$R" 127 "cannot run" -q -o "$T/c.log" -- "$T/missing/cmd"
		expect "$R" 126 "cannot run" -q -o "$T/c2.log" -- "$T/exists.json"
		[ ! -e "$T/missing" ] ||
			{ echo "FAIL: uring-record created $T/missing" >&2; failures=$((failures + 1)); }
	fi
fi

if [ "$failures" != 0 ]; then
	echo "cli_errors: $failures of $cases cases failed" >&2
	exit 1
fi
echo "cli_errors: $cases cases, each one clear line and the right exit status"
