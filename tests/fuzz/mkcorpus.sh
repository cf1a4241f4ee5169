#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Rebuild the fuzz seed corpus, tests/fuzz/corpus/:
#
#   real-SCENARIO.rsfz  tests/workload SCENARIO recorded by uring-record,
#                       packed (fuzz_unpack --small): payloads uncompressed,
#                       checksums fixed up by the targets
#   real-SCENARIO.rlog  the same recording as it is (a few): raw bytes
#   synth-NAME.rsfz     tests/fuzz/mkseeds logs (every record and frame type,
#   synth-NAME.rlog     losses, old and new layouts, a log cut short), packed
#                       and raw
#   golden-v1.rsfz      tests/golden/convert_v1.log, packed
#
# Run from a configured build tree after make check (it needs
# tests/fuzz/mkseeds, tests/fuzz/fuzz_unpack, tests/workload and
# recorder/uring-record), as root for the real recordings:
#
#   sudo sh /path/to/src/tests/fuzz/mkcorpus.sh [OUTDIR]
#
# Real recordings differ from run to run (times, pointers): regenerate only
# when the format or the recorder changes, and review the size (a few
# hundred KiB in all).
set -eu

top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
top_builddir=$(pwd)
out=${1:-$top_srcdir/tests/fuzz/corpus}
unpack="$top_builddir/tests/fuzz/fuzz_unpack"
mkseeds="$top_builddir/tests/fuzz/mkseeds"
recorder="$top_builddir/recorder/uring-record"
workload="$top_builddir/tests/workload"

for p in "$unpack" "$mkseeds"; do
	[ -x "$p" ] || { echo "mkcorpus.sh: $p missing: run make check first" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ringside-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

"$mkseeds" "$tmp"
for f in "$tmp"/*.log; do
	name=$(basename "$f" .log)
	cp "$f" "$out/synth-$name.rlog"
	"$unpack" --small "$f" "$out/synth-$name.rsfz"
done
# The selection options (option byte) on one seed: --start, --end, --pid, --ring.
"$unpack" --small --options 0x6d "$tmp/paths.log" "$out/synth-paths-selected.rsfz"
"$unpack" --small "$top_srcdir/tests/golden/convert_v1.log" "$out/golden-v1.rsfz"

if [ "$(id -u)" != 0 ] || [ ! -x "$recorder" ] || [ ! -x "$workload" ]; then
	echo "mkcorpus.sh: not root or no recorder/workload: synthetic seeds only" >&2
	exit 0
fi
for s in nop rw link poll timeout drain multishot rings threads registered sqpoll storm; do
	opts=""
	wopts=""
	if [ "$s" = storm ]; then
		# Tiny rings: a real log with losses (lost records, LOSS rows).
		opts="--ring-size 4K --drain-interval 200ms"
		wopts="--count 3000 --batch-size 64"
	fi
	# shellcheck disable=SC2086
	if ! "$recorder" -q -f $opts -o "$tmp/$s.log" -- "$workload" --compact $s $wopts \
		>/dev/null 2>"$tmp/$s.err"; then
		echo "mkcorpus.sh: recording $s failed: $(head -n 1 "$tmp/$s.err")" >&2
		continue
	fi
	"$unpack" --small "$tmp/$s.log" "$out/real-$s.rsfz"
	case $s in
	nop|link|storm) cp "$tmp/$s.log" "$out/real-$s.rlog" ;;
	esac
done
du -sh "$out"
