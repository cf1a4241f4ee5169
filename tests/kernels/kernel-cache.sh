#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/kernels/kernel-cache.sh: a Debian kernel for the kernel matrix,
# fetched once with apt-get download and kept in a cache.
#
#   kernel-cache.sh KERNEL
#
# KERNEL is a series ("6.1", "6.12": the newest linux-image-<X.Y>...-amd64
# already cached, else the newest apt knows) or an exact Debian release
# ("6.1.0-56-amd64", "6.12.117+deb12-amd64").  Prints the kernel's cache
# directory, which holds
#
#   vmlinuz   the bzImage          config   its kernel configuration
#   vmlinux   the uncompressed ELF kernel, for QEMU's PVH direct boot
#             (skips the real-mode setup and the decompressor: 2-4 s less
#             per boot under TCG; absent when it cannot be extracted)
#   release   the release name     package  the .deb it came from
#
# Nothing else of the package is kept and nothing is installed.  Debian's
# 6.1 and 6.12 kernels build in everything the matrix needs (io_uring, BPF,
# BTF, tracepoints, kprobes, ftrace direct calls, 8250 console, devtmpfs,
# initramfs, PVH), so no module is ever loaded.
#
# Environment: RINGSIDE_KERNEL_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/ringside-kernels), RINGSIDE_KERNEL_REFRESH=1
# (ask apt for a newer release of a series even when one is cached).
# Exit status 0, or 1 with one line on stderr.
set -euo pipefail

cache=${RINGSIDE_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ringside-kernels}
die() {
	echo "kernel-cache.sh: $*" >&2
	exit 1
}
[ $# = 1 ] || die "usage: kernel-cache.sh KERNEL (6.1, 6.12 or a Debian release like 6.1.0-56-amd64)"
arg=${1#linux-image-}
mkdir -p "$cache" || die "cannot create the cache $cache"

# apt-get download into $1; when it fails and we are root, update the
# package lists once and retry (a fresh machine has none).
apt_download() {
	local dir=$1 pkg=$2
	(cd "$dir" && apt-get download -q "$pkg") >"$dir/apt.log" 2>&1 && return 0
	if [ "$(id -u)" = 0 ]; then
		apt-get update -q >>"$dir/apt.log" 2>&1 || true
		(cd "$dir" && apt-get download -q "$pkg") >>"$dir/apt.log" 2>&1 && return 0
	fi
	sed 's/^/  apt: /' "$dir/apt.log" | tail -n 5 >&2
	return 1
}

# bzImage -> ELF vmlinux, from the setup header's payload_offset and
# payload_length (Documentation/arch/x86/boot.rst); the payload's last 4
# bytes are the uncompressed size, not data.
extract_vmlinux() {
	local in=$1 out=$2 setup_sects offset length start magic
	u32() { od -An -tu4 -j "$1" -N4 "$in" | tr -d ' '; }
	setup_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$in" | tr -d ' ')
	[ "$setup_sects" = 0 ] && setup_sects=4
	offset=$(u32 $((0x248)))
	length=$(u32 $((0x24c)))
	start=$(((setup_sects + 1) * 512 + offset))
	magic=$(od -An -tx1 -j "$start" -N4 "$in" | tr -d ' ')
	local -a unpack
	case $magic in
	fd377a58) unpack=(xz -dc --single-stream) ;;
	28b52ffd) unpack=(zstd -dcq) ;;
	1f8b*) unpack=(gzip -dc) ;;
	*) return 1 ;;
	esac
	command -v "${unpack[0]}" >/dev/null || return 1
	dd if="$in" iflag=skip_bytes,count_bytes skip="$start" count=$((length - 4)) bs=1M status=none |
		"${unpack[@]}" >"$out" 2>/dev/null || return 1
	[ "$(head -c 4 "$out" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]
}

if [[ $arg =~ ^([0-9]+)\.([0-9]+)$ ]]; then
	# Debian names: 6.1.0-56-amd64 (bookworm's 6.1), 6.12.117+deb12-amd64
	re="${BASH_REMATCH[1]}\\.${BASH_REMATCH[2]}(\\.0-[0-9]+|\\.[0-9]+\\+deb[0-9]+)-amd64"
	release=$(find "$cache" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null |
		grep -E "^$re\$" | sort -V | tail -n 1 || true)
	if [ -z "$release" ] || [ "${RINGSIDE_KERNEL_REFRESH:-0}" = 1 ]; then
		newest=$(apt-cache search --names-only "^linux-image-$re\$" 2>/dev/null |
			awk '{print $1}' | sed 's/^linux-image-//' | sort -V | tail -n 1)
		[ -n "$newest" ] && release=$newest
	fi
	[ -n "$release" ] || die "no linux-image-$arg package is known to apt (apt-get update?) and none is cached in $cache"
else
	release=$arg
	case $release in *-amd64) ;; *) release=$release-amd64 ;; esac
fi

dir=$cache/$release
if [ ! -s "$dir/vmlinuz" ]; then
	exec 9>"$cache/.lock"
	flock 9
	if [ ! -s "$dir/vmlinuz" ]; then
		echo "kernel-cache.sh: fetching linux-image-$release (once)" >&2
		dl=$(mktemp -d "$cache/.download.XXXXXX")
		trap 'rm -rf "$dl"' EXIT
		apt_download "$dl" "linux-image-$release" ||
			die "apt-get download linux-image-$release failed"
		debs=("$dl"/*.deb)
		deb=${debs[0]}
		mkdir -p "$dl/x" "$dl/k"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$dl/x" --wildcards './boot/vmlinuz-*' './boot/config-*' ||
			die "cannot unpack $deb"
		cp "$dl/x/boot/vmlinuz-$release" "$dl/k/vmlinuz"
		cp "$dl/x/boot/config-$release" "$dl/k/config"
		echo "$release" >"$dl/k/release"
		basename "$deb" >"$dl/k/package"
		if grep -q '^CONFIG_PVH=y' "$dl/k/config"; then
			extract_vmlinux "$dl/k/vmlinuz" "$dl/k/vmlinux" || rm -f "$dl/k/vmlinux"
		fi
		rm -rf "$dir"
		mv "$dl/k" "$dir"
	fi
	flock -u 9
fi
for c in IO_URING BPF_SYSCALL DEBUG_INFO_BTF SERIAL_8250_CONSOLE DEVTMPFS BLK_DEV_INITRD; do
	grep -q "^CONFIG_$c=y" "$dir/config" ||
		echo "kernel-cache.sh: warning: CONFIG_$c is not built into $release" >&2
done
echo "$dir"
