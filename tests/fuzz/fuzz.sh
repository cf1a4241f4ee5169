#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make fuzz: build the libFuzzer targets (clang, ASan, UBSan; see fuzz.mk)
# in the build tree, replay the seed corpus and every regression input
# through each, and then, with FUZZ_SECONDS=N, fuzz each target for N
# seconds, one at a time.
#
# Environment (make passes them through):
#   FUZZ_SECONDS  seconds of fuzzing per target (default 0: replay only)
#   FUZZ_TARGETS  targets to run (default: all of them)
#   FUZZ_CC       the clang to use (default clang)
#   FUZZ_ARGS     more libFuzzer options (e.g. -max_len=65536)
#   FUZZ_JOBS     make -j for the build (default 2)
#
# Per target, in the build tree (kept between runs, so fuzzing resumes):
#   tests/fuzz/work/TARGET/     the corpus the fuzzer grew
#   tests/fuzz/crashes/         crash-*, timeout-*, oom-* inputs it found
# A crash makes the script fail.  To keep one as a regression test, copy it
# to tests/fuzz/regressions/ in the source tree with a name saying what it
# broke; make check replays it (tests/fuzz/check_fuzz).
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
FUZZ_SECONDS=${FUZZ_SECONDS:-0}
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_ARGS=${FUZZ_ARGS:-}
FUZZ_JOBS=${FUZZ_JOBS:-2}
ALL_TARGETS="fuzz_reader fuzz_convert_summary fuzz_convert_json fuzz_convert_csv fuzz_convert_fxt"
FUZZ_TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

fuzzdir="$top_builddir/tests/fuzz"
bin="$fuzzdir/bin"
seeds="$top_srcdir/tests/fuzz/corpus"
regressions="$top_srcdir/tests/fuzz/regressions"
dict="$top_srcdir/tests/fuzz/ringside.dict"

die() { echo "fuzz.sh: $*" >&2; exit 1; }

command -v "$FUZZ_CC" >/dev/null 2>&1 ||
	die "$FUZZ_CC not found: make fuzz needs clang with libFuzzer (Debian: clang, libclang-rt-dev)"
[ -f "$top_builddir/config.h" ] || die "$top_builddir is not a configured build tree (no config.h)"
case $FUZZ_SECONDS in
''|*[!0-9]*) die "FUZZ_SECONDS must be a whole number of seconds, not '$FUZZ_SECONDS'" ;;
esac

echo "fuzz.sh: building the fuzz targets with $FUZZ_CC in $bin"
make -s -f "$top_srcdir/tests/fuzz/fuzz.mk" -j"$FUZZ_JOBS" SRCDIR="$top_srcdir" \
	BUILDDIR="$top_builddir" OUT="$bin" FUZZ_CC="$FUZZ_CC" ||
	die "building the fuzz targets failed"

mkdir -p "$fuzzdir/crashes"
# Sanitizer reports are fatal; a huge allocation is a bug, not an OOM.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Limits that turn resource bugs into findings: 10 s per input, 2 GiB.
LIMITS="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048"

status=0
inputs=$(find "$seeds" "$regressions" -type f ! -name 'README*' 2>/dev/null | sort)
[ -n "$inputs" ] || die "no seed corpus in $seeds"
for t in $FUZZ_TARGETS; do
	[ -x "$bin/$t" ] || die "unknown target $t (known: $ALL_TARGETS)"
	n=$(echo "$inputs" | wc -l)
	# shellcheck disable=SC2086
	if "$bin/$t" $LIMITS $inputs >"$fuzzdir/$t.replay.log" 2>&1; then
		echo "fuzz.sh: $t: $n seed and regression inputs replayed, no failure"
	else
		echo "fuzz.sh: $t: FAILED replaying the corpus and regressions; see $fuzzdir/$t.replay.log" >&2
		grep -E "ORACLE|ERROR|SUMMARY|Running:" "$fuzzdir/$t.replay.log" | tail -n 4 >&2
		status=1
	fi
done

[ "$FUZZ_SECONDS" -gt 0 ] || exit $status

printf '\n%-22s %8s %10s %8s %6s %7s %7s  %s\n' target seconds execs exec/s cov features corpus result
for t in $FUZZ_TARGETS; do
	work="$fuzzdir/work/$t"
	log="$fuzzdir/$t.fuzz.log"
	mkdir -p "$work"
	result=ok
	began=$(date +%s)
	# shellcheck disable=SC2086
	"$bin/$t" $LIMITS -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
		-dict="$dict" -artifact_prefix="$fuzzdir/crashes/$t-" $FUZZ_ARGS \
		"$work" "$seeds" "$regressions" >"$log" 2>&1 || result=FAILED
	elapsed=$(( $(date +%s) - began ))	# less than asked when it found something
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	printf '%-22s %8s %10s %8s %6s %7s %7s  %s\n' "$t" "$elapsed" "${execs:-?}" \
		"${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
	if [ "$result" != ok ]; then
		status=1
		grep -E "ORACLE|ERROR:|SUMMARY|Test unit written" "$log" | head -n 4 >&2
		echo "  (full output: $log)" >&2
	fi
done
exit $status
