#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# uring-convert's CSV as pandas sees it: pandas.read_csv with default
# options must give int64 for every *_ns column (never float: boot-time
# nanoseconds do not fit a double).  Needs python3-pandas (Debian); skipped
# without it, except on CI (CI=true), where .ci/run installs it.
set -u
: "${srcdir:=.}"
bin=${URING_CONVERT:-converter/uring-convert}
py=""
# Debian's pandas lives in /usr/bin/python3, which another python3 on PATH
# (pyenv, venv) may hide.
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import pandas' 2>/dev/null; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: python3-pandas is not installed (apt-get install python3-pandas)"
		exit 1
	fi
	echo "SKIP: python3-pandas is not installed"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$bin" -q --format=csv -o "$tmp/csv" "$srcdir/tests/golden/convert_v1.log" || exit 1
"$bin" -q --format=csv -o "$tmp/csv31" "$srcdir/tests/golden/real_v3.1.log" || exit 1
"$py" "$srcdir/tests/convert_pandas.py" "$tmp/csv" "$tmp/csv31"
