#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The end-to-end suite on this machine's kernel (make check): record every
# run of tests/e2e/plan with uring-record while an unrelated io_uring
# process runs alongside (tests/e2e/record.sh), then convert each log to
# summary JSON, CSV and FXT and compare everything with the workload's own
# account of what it did (tests/e2e/check.py).  make check-kernels runs the
# same two steps on other kernels (tests/kernels/matrix.sh).
#
# Needs root (or "sudo -n" for the recorder) and BPF: skipped without them,
# and a failure instead of a skip on CI (CI=true).  The recordings and
# their conversions are left in tests/e2e/out/ of the build tree.
#
#   tests/e2e/e2e.sh [RUN...]      (default: every run of the plan)
set -u
top_builddir=${top_builddir:-$(pwd)}
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
export top_builddir

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL (e2e): CI=true and this test would skip: $*" >&2
		exit 1
	fi
	echo "SKIP (e2e): $*"
	exit 77
}

for prog in recorder/uring-record tests/workload tests/e2e/bystander \
	converter/uring-convert tests/logstat tests/fxtstat; do
	[ -x "$top_builddir/$prog" ] || skip "$prog was not built"
done
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to check the results"
if [ "$(id -u)" = 0 ]; then
	RECORD_SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	RECORD_SUDO="sudo -n"
else
	skip "needs root, or sudo without a password for the recorder"
fi
export RECORD_SUDO

# BPF must be usable here at all: a 100 ms system-wide run.
probe=$(mktemp "${TMPDIR:-/tmp}/ringside-e2e-probe.XXXXXX") || exit 1
if ! $RECORD_SUDO "$top_builddir/recorder/uring-record" -q -f -d 100ms --syscalls=none \
	-o "$probe" 2>"$probe.err"; then
	if grep -q -e "CAP_BPF" -e "cannot load" -e "BTF" "$probe.err"; then
		msg=$(head -n 1 "$probe.err")
		rm -f "$probe" "$probe.err"
		skip "BPF is not usable here: $msg"
	fi
	cat "$probe.err" >&2
	rm -f "$probe" "$probe.err"
	echo "FAIL (e2e): the recorder does not start" >&2
	exit 1
fi
$RECORD_SUDO rm -f "$probe"
rm -f "$probe.err"

out=$top_builddir/tests/e2e/out
rm -rf "$out"
mkdir -p "$out" && chmod 755 "$out" || exit 1
start=$(date +%s)
URING_RECORD=$top_builddir/recorder/uring-record WORKLOAD=$top_builddir/tests/workload \
	BYSTANDER=$top_builddir/tests/e2e/bystander \
	sh "$srcdir/tests/e2e/record.sh" "$out" "$@" || {
	echo "FAIL (e2e): the RECORD step failed" >&2
	exit 1
}
recorded=$(date +%s)
# The logs belong to root when the recorder ran through sudo.
[ -z "$RECORD_SUDO" ] || $RECORD_SUDO chown -R "$(id -u):$(id -g)" "$out"
python3 "$srcdir/tests/e2e/check.py" "$out" "$@"
status=$?
end=$(date +%s)
echo "e2e: recorded in $((recorded - start)) s, checked in $((end - recorded)) s" \
	"($(uname -r)); recordings in $out"
exit $status
