#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ./configure --enable-static-recorder: uring-record (and the test
# programs the kernel matrix runs in its guests) must be fully static --
# no program interpreter, no shared library -- and must run where nothing
# is installed: as root, in a chroot holding nothing but the binary.
# (make check-kernels then runs it in busybox guests on other kernels.)
set -u
top_builddir=${top_builddir:-$(pwd)}
fail=0

bad() {
	echo "FAIL (static): $*" >&2
	fail=1
}

for prog in recorder/uring-record tests/workload tests/e2e/bystander; do
	bin=$top_builddir/$prog
	if [ ! -x "$bin" ]; then
		bad "$prog was not built"
		continue
	fi
	if readelf -lW "$bin" | grep -q 'Requesting program interpreter'; then
		bad "$prog has a program interpreter: $(readelf -lW "$bin" | grep interpreter)"
	fi
	if readelf -dW "$bin" 2>/dev/null | grep -q '(NEEDED)'; then
		bad "$prog needs shared libraries: $(readelf -dW "$bin" | grep '(NEEDED)' | tr -s ' ' | tr '\n' ' ')"
	fi
	if command -v file >/dev/null 2>&1; then
		file -L "$bin" | grep -q 'statically linked' || bad "file(1) says: $(file -L "$bin")"
	fi
	# ldd says "not a dynamic executable" (glibc) or "statically linked" (musl)
	if command -v ldd >/dev/null 2>&1; then
		ldd "$bin" >/dev/null 2>&1 && ! ldd "$bin" 2>&1 | grep -q 'statically linked' &&
			bad "ldd lists libraries: $(ldd "$bin" | tr -s ' \t' ' ' | tr '\n' ';')"
	fi
done
[ $fail = 0 ] || exit 1

# The BPF object is inside: the binary carries the programs' ELF, whose
# section names are the attach points.
grep -q 'tp_btf/io_uring_submit_req' "$top_builddir/recorder/uring-record" ||
	bad "no embedded BPF object in recorder/uring-record"

# Runs with nothing installed: an empty root with only the binary.
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null 2>&1; then
	root=$(mktemp -d "${TMPDIR:-/tmp}/ringside-static.XXXXXX") || exit 1
	cp "$top_builddir/recorder/uring-record" "$root/uring-record"
	out=$(env -i "$(command -v chroot)" "$root" /uring-record --version 2>&1)
	st=$?
	rm -rf "$root"
	[ $st = 0 ] || bad "uring-record --version in an empty chroot exited $st: $out"
	case $out in *ringside*) ;; *) bad "uring-record --version in an empty chroot said: $out" ;; esac
else
	echo "static: not root: the empty-chroot run is left out"
fi
[ $fail = 0 ] || exit 1
size=$(wc -c <"$top_builddir/recorder/uring-record")
echo "static: recorder/uring-record, tests/workload and tests/e2e/bystander are static" \
	"(uring-record: $((size / 1024)) KiB)"
