#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/kernels/run-in-kernel.sh: boot a kernel in QEMU with a tiny
# initramfs, run one command in it as root, relay its output and exit
# with its exit status.
#
#   run-in-kernel.sh [OPTIONS] KERNEL COMMAND [ARG...]
#
# KERNEL: a Debian series or release (tests/kernels/kernel-cache.sh fetches
# and caches it: "6.1", "6.12", "6.12.117+deb12-amd64"), or a directory
# holding a vmlinuz (and optionally vmlinux and config).
#
# The guest is a static busybox, an /init and the files given with -i,
# nothing else: static programs only (COMMAND is a path inside the guest,
# e.g. a file put there with -i; #!/bin/sh scripts run under busybox).
# /init mounts proc, sysfs, devtmpfs, tracefs, debugfs, bpffs and cgroup2,
# raises the memlock limit and runs COMMAND with cwd / and TMPDIR=/tmp.
# Serial ports carry everything: ttyS0 the kernel console (-l), ttyS1 and
# ttyS2 the command's stdout and stderr, ttyS3 its exit status followed
# by a gzipped tar of the guest's /out (-o).
#
# Options:
#   -i SRC[:DEST]  put the host file or directory SRC at DEST in the guest
#                  (default /bin/NAME); repeatable
#   -o DIR         unpack the guest's /out into DIR (the command writes
#                  there; it travels gzipped over a serial port at a few
#                  hundred KB a second under TCG: keep it to a few MB)
#   -t SECONDS     time limit for boot and command (default 600)
#   -c CPUS        guest CPUs (default 2)
#   -m MIB         guest memory (default 1024)
#   -e VAR=VALUE   environment of the command; repeatable
#   -l FILE        keep the kernel console log in FILE
#   -a ACCEL       kvm, tcg or auto (default: kvm only where it boots stock
#                  kernels: /dev/kvm usable and the CPU has vmx or svm)
#   -v             print progress and the console as it goes
#
# Exit status: the command's; 124 when the time limit was reached; 125
# when the guest could not be run (no kernel, no QEMU, boot failure,
# kernel panic).
#
# Under TCG (no usable KVM) QEMU runs the guest's CPUs on one host thread
# (thread=single): multi-threaded TCG was seen to run a stale int3 of a
# tracepoint's static key that another vCPU was patching as the recorder
# attached or detached ("Oops: int3" in __io_submit_flush_completions,
# 6.12, 2 vCPUs), and it is no faster for this work on a 2-core host.
# RINGSIDE_TCG_THREAD=multi selects it anyway.
#
# Environment: RINGSIDE_QEMU (qemu-system-x86_64),
# RINGSIDE_BUSYBOX (a static busybox; default /bin/busybox, else
# busybox-static fetched with apt-get download into the kernel cache).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
timeout=600 cpus=2 mem=1024 accel=auto verbose=0 outdir='' console_log=''
declare -a includes=() envs=()

die() {
	echo "run-in-kernel.sh: $*" >&2
	exit 125
}
say() {
	[ "$verbose" = 0 ] || echo "run-in-kernel.sh: $*" >&2
}

while getopts ":i:o:t:c:m:e:l:a:vh" opt; do
	case $opt in
	i) includes+=("$OPTARG") ;;
	o) outdir=$OPTARG ;;
	t) timeout=$OPTARG ;;
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	e) envs+=("$OPTARG") ;;
	l) console_log=$OPTARG ;;
	a) accel=$OPTARG ;;
	v) verbose=1 ;;
	h) sed -n '5,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	:) die "option -$OPTARG needs a value" ;;
	*) die "unknown option -$OPTARG (-h for help)" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || die "usage: run-in-kernel.sh [OPTIONS] KERNEL COMMAND [ARG...] (-h for help)"
kernel=$1
shift
for n in "$timeout" "$cpus" "$mem"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $n"
done

qemu=${RINGSIDE_QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || die "$qemu not found (Debian: apt-get install qemu-system-x86)"

# ------------------------------------------------------------ the kernel
if [ -d "$kernel" ]; then
	kdir=$kernel
else
	kdir=$("$here/kernel-cache.sh" "$kernel") || die "no kernel $kernel"
fi
boot_image=$kdir/vmlinuz
[ -s "$kdir/vmlinux" ] && boot_image=$kdir/vmlinux
[ -s "$boot_image" ] || die "no kernel image in $kdir"
say "kernel $(cat "$kdir/release" 2>/dev/null || echo "$kdir") ($boot_image)"

# ------------------------------------------------------------ busybox
is_static() { ! readelf -lW "$1" 2>/dev/null | grep -q 'program interpreter'; }
busybox=${RINGSIDE_BUSYBOX:-}
if [ -z "$busybox" ]; then
	for b in /bin/busybox /usr/bin/busybox; do
		if [ -x "$b" ] && is_static "$b"; then
			busybox=$b
			break
		fi
	done
fi
if [ -z "$busybox" ]; then
	cache=$(dirname "$kdir")
	busybox=$cache/busybox
	if [ ! -x "$busybox" ]; then
		say "fetching busybox-static (once)"
		dl=$(mktemp -d "$cache/.busybox.XXXXXX")
		(cd "$dl" && apt-get download -q busybox-static) >/dev/null 2>&1 ||
			{ rm -rf "$dl"; die "no static busybox (Debian: apt-get install busybox-static)"; }
		dpkg-deb -x "$dl"/*.deb "$dl/x"
		cp "$dl/x/bin/busybox" "$busybox.tmp" 2>/dev/null || cp "$dl/x/usr/bin/busybox" "$busybox.tmp"
		mv "$busybox.tmp" "$busybox"
		rm -rf "$dl"
	fi
fi

# ------------------------------------------------------------ accelerator
if [ "$accel" = auto ]; then
	accel=tcg
	# A /dev/kvm without vmx/svm (e.g. a nested PVM module) hangs stock
	# kernels right after the real-mode setup: TCG there.
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
		accel=kvm
	fi
fi
# shellcheck disable=SC2054 # commas inside QEMU's arguments
case $accel in
kvm) accel_args=(-accel kvm -cpu host,-arch-capabilities) ;;
tcg) accel_args=(-accel "tcg,thread=${RINGSIDE_TCG_THREAD:-single}" -cpu max) ;;
*) die "accelerator $accel: kvm, tcg or auto" ;;
esac

# ------------------------------------------------------------ initramfs
work=$(mktemp -d "${TMPDIR:-/tmp}/ringside-guest.XXXXXX")
qemu_pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$qemu_pid" ]; then
		kill -TERM "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 125' INT TERM HUP

root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,run,etc,root,out,guest}
cp "$busybox" "$root/bin/busybox"
chmod 1777 "$root/tmp"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
for inc in "${includes[@]+"${includes[@]}"}"; do
	src=${inc%%:*}
	dest=/bin/$(basename "$src")
	[ "$src" != "$inc" ] && dest=${inc#*:}
	[ -e "$src" ] || die "-i $src: no such file"
	if [ -f "$src" ] && [ -x "$src" ] && file -L "$src" 2>/dev/null | grep -q ELF && ! is_static "$src"; then
		die "-i $src: a dynamic executable (the guest has no libraries: link it statically)"
	fi
	mkdir -p "$root$(dirname "$dest")"
	cp -a -L "$src" "$root$dest"
done

quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	printf 'set --'
	for a in "$@"; do printf ' %s' "$(quote "$a")"; done
	echo
	for e in "${envs[@]+"${envs[@]}"}"; do
		[[ $e == *=* ]] || die "-e wants VAR=VALUE, not $e"
		printf 'export %s=%s\n' "${e%%=*}" "$(quote "${e#*=}")"
	done
} >"$root/guest/command"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# ringside guest: ttyS0 console, ttyS1 stdout, ttyS2 stderr,
# ttyS3 "GUEST_EXIT=<status>" and a gzipped tar of /out
/bin/busybox --install -s /bin
export PATH=/bin:/sbin HOME=/root TMPDIR=/tmp TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ln -sf /proc/self/fd /dev/fd
ip link set lo up 2>/dev/null
hostname ringside-guest
ulimit -l unlimited
for t in ttyS1 ttyS2 ttyS3; do stty -F /dev/$t raw -echo 2>/dev/null; done
. /guest/command
echo "guest: up at $(cut -d' ' -f1 /proc/uptime) s: $*" >/dev/console
cd /
"$@" </dev/null >/dev/ttyS1 2>/dev/ttyS2
status=$?
echo "guest: exit status $status at $(cut -d' ' -f1 /proc/uptime) s" >/dev/console
{
	echo "GUEST_EXIT=$status"
	cd /out && tar -c . | gzip -1
} >/dev/ttyS3
sync
poweroff -f
EOF
chmod +x "$root/init"
initrd=$work/initrd.gz
(cd "$root" && find . | "$root/bin/busybox" cpio -o -H newc -R 0:0 2>/dev/null | gzip -1) >"$initrd"
say "initramfs $(du -h "$initrd" | cut -f1)"

# ------------------------------------------------------------ boot
# qboot (qemu-system-data) starts a PVH kernel about a second sooner than
# SeaBIOS under TCG.
bios_args=()
[ -f /usr/share/qemu/qboot.rom ] && bios_args=(-bios /usr/share/qemu/qboot.rom)
: >"$work/console" ; : >"$work/stdout" ; : >"$work/stderr" ; : >"$work/control"
qemu_args=(
	"${accel_args[@]}" -machine pc "${bios_args[@]+"${bios_args[@]}"}"
	-m "$mem" -smp "$cpus" -nodefaults -no-user-config -display none -monitor none
	-no-reboot -kernel "$boot_image" -initrd "$initrd"
	-append "console=ttyS0,115200 panic=-1 loglevel=5 rdinit=/init 8250.nr_uarts=4"
	-serial "file:$work/console" -serial "file:$work/stdout"
	-serial "file:$work/stderr" -serial "file:$work/control"
)
say "qemu: $accel, $cpus CPU, $mem MiB, time limit $timeout s"
started=$(date +%s.%N)
set +e
timeout -k 5 "$timeout" "$qemu" "${qemu_args[@]}" </dev/null >"$work/qemu.log" 2>&1 &
qemu_pid=$!
if [ "$verbose" = 1 ]; then
	tail -n +1 -f "$work/console" --pid=$qemu_pid | sed 's/^/  console: /' >&2 &
fi
wait "$qemu_pid"
qemu_status=$?
qemu_pid=
wait 2>/dev/null
set -e
say "guest ran $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

[ -z "$console_log" ] || cp "$work/console" "$console_log"
cat "$work/stdout"
cat "$work/stderr" >&2
status=
line=$(head -n 1 "$work/control" 2>/dev/null | tr -d '\r' || true)
case $line in GUEST_EXIT=[0-9]*) status=${line#GUEST_EXIT=} ;; esac
if [ -n "$status" ] && [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	tail -c +$((${#line} + 2)) "$work/control" | gzip -dc | tar -x -C "$outdir" ||
		{ echo "run-in-kernel.sh: cannot unpack the guest's /out" >&2; status=125; }
fi
if [ -z "$status" ]; then
	if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then
		echo "run-in-kernel.sh: time limit of $timeout s reached" >&2
		status=124
	else
		echo "run-in-kernel.sh: the guest gave no exit status (qemu exit status $qemu_status)" >&2
		status=125
	fi
	echo "run-in-kernel.sh: last console lines:" >&2
	tail -n 25 "$work/console" | sed 's/^/  console: /' >&2
	sed 's/^/  qemu: /' "$work/qemu.log" >&2
fi
exit "$status"
