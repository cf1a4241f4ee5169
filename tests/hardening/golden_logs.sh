#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Old recordings convert forever (uring-log(5), COMPATIBILITY): every
# golden log written by the real recorder, tests/golden/real_vMAJOR.MINOR.log
# (one per log format version; provenance in the .txt beside it), must
# convert to exactly the outputs kept in tests/golden/real_vMAJOR.MINOR/:
# summary.txt, summary.json, the CSV files and trace.fxt, byte for byte.
# The conversion runs in an unusual time zone and locale, so that an
# output depending on them fails here, not on a user's laptop.
#
# To change an expected output on purpose (a deliberate change of an
# output format), regenerate and review the diff:
#   RINGSIDE_REGENERATE_GOLDEN=1 make check TESTS=tests/hardening/golden_logs.sh
# To add the golden log of a new format version, see tests/golden/README.
# (Needs no root: the logs were recorded once, by the real recorder.)
set -eu

top_builddir=${top_builddir:-$(pwd)}
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CONVERT="$top_builddir/converter/uring-convert"
golden="$srcdir/tests/golden"
regen=${RINGSIDE_REGENERATE_GOLDEN:-}

fail() { echo "FAIL (golden_logs): $*" >&2; exit 1; }

[ -x "$CONVERT" ] || fail "no $CONVERT"
T=$(mktemp -d "${TMPDIR:-/tmp}/ringside-golden.XXXXXX")
trap 'rm -rf "$T"' EXIT

# Not UTC, not C, not English: a locale's decimal comma or a local time
# zone must not leak into any output.
locale=C
for l in de_DE.UTF-8 de_DE.utf8 fr_FR.UTF-8 fr_FR.utf8 C.UTF-8; do
	if locale -a 2>/dev/null | grep -qix "$(echo "$l" | sed 's/UTF-8/utf8/')"; then
		locale=$l
		break
	fi
done

n=0
for log in "$golden"/real_v*.log; do
	[ -e "$log" ] || fail "no golden log of the real recorder in $golden"
	name=$(basename "$log" .log)
	exp="$golden/$name"
	[ -f "$golden/$name.txt" ] || fail "$name: no $name.txt saying which recorder wrote it"
	out="$T/$name"
	mkdir -p "$out"
	# By a relative name: outputs quote the log's path.
	(
		cd "$golden"
		export TZ=Asia/Kolkata LC_ALL="$locale" LANG="$locale"
		"$CONVERT" -q --format=summary -o "$out/summary.txt" "$name.log"
		"$CONVERT" -q --format=json -o "$out/summary.json" "$name.log"
		"$CONVERT" -q --format=csv -o "$out" "$name.log"
		"$CONVERT" -q --format=fxt -o "$out/trace.fxt" "$name.log"
	) 2>"$T/err" || fail "$name: uring-convert failed: $(cat "$T/err")"
	if [ -n "$regen" ]; then
		mkdir -p "$exp"
		cp "$out"/* "$exp/"
		echo "golden_logs: regenerated $exp (review the diff before committing)"
		continue
	fi
	for f in "$out"/*; do
		b=$(basename "$f")
		[ -f "$exp/$b" ] || fail "$name: $b is new: no $exp/$b"
		cmp -s "$f" "$exp/$b" ||
			fail "$name: $b differs from $exp/$b ($(cmp "$f" "$exp/$b" 2>&1 | head -n 1)); an old recording must convert exactly as before (a deliberate output change: RINGSIDE_REGENERATE_GOLDEN=1 make check TESTS=tests/hardening/golden_logs.sh, and review the diff)"
	done
	for f in "$exp"/*; do
		[ -f "$out/$(basename "$f")" ] || fail "$name: $(basename "$f") is no longer written"
	done
	n=$((n + 1))
done
[ -n "$regen" ] ||
	echo "golden_logs: $n golden log(s) converted exactly as expected (TZ=Asia/Kolkata, LC_ALL=$locale)"
