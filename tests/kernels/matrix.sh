#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# tests/kernels/matrix.sh: the end-to-end suite on several kernels
# (make check-kernels).
#
#   matrix.sh [-k KERNELS] [-o OUTDIR] [-t SECONDS] [RUN...]
#
# For each kernel of KERNELS (default "6.1 6.12 host"):
#   6.1, 6.12, or a Debian release: boot it in QEMU (tests/kernels/
#       run-in-kernel.sh; fetched once with apt-get download and cached),
#       run the RECORD step of the suite (tests/e2e/record.sh) inside as
#       root with the static uring-record, tests/workload and
#       tests/e2e/bystander, and copy the recordings out;
#   host: run the RECORD step here, with the same static binaries (root,
#       or sudo -n for the recorder);
# then run the CHECK step (tests/e2e/check.py) on this machine: the same
# assertions as make check, plus "every hook this kernel offers attached";
# and a guest's kernel log must hold no warning, BUG or oops.
# RUN names runs of tests/e2e/plan (default: all of them: every scenario,
# the storm, and each io-wq and syscall method forced in turn, and then
# the --cgroup cases of tests/e2e/cgroup.sh).
#
# Prints one PASS/FAIL line per kernel and run, the kernel x hook table,
# the time each kernel took, and last a line "N passed, N failed" (N
# counts kernel x run checks; a guest that does not boot is one failure).
# Recordings, conversions and logs stay in OUTDIR (default
# tests/kernels/out in the build tree).  Exit status 0 when all passed.
#
# Needs: ./configure --enable-static-recorder (the guests have no
# libraries), qemu-system-x86, busybox-static, python3; apt-get download
# for the first run of each kernel (about 180 MB for both).  Under TCG a
# guest takes a few seconds to boot; -t bounds each guest (default 1200).
# Guests get two CPUs (GUEST_CPUS), emulated on one host thread.
# CI=true: a kernel that cannot be run (no root for the host) fails.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
kernels=${KERNELS:-"6.1 6.12 host"}
out=$top_builddir/tests/kernels/out
timeout=1200
cpus=${GUEST_CPUS:-2}

while getopts "k:o:t:h" opt; do
	case $opt in
	k) kernels=$OPTARG ;;
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	h) sed -n '5,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
runs=("$@")

die() {
	echo "matrix.sh: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

rec=$top_builddir/recorder/uring-record
work=$top_builddir/tests/workload
bys=$top_builddir/tests/e2e/bystander
for p in "$rec" "$work" "$bys" "$top_builddir/converter/uring-convert" \
	"$top_builddir/tests/logstat" "$top_builddir/tests/fxtstat"; do
	[ -x "$p" ] || die "$p was not built (make check-kernels builds it; configure found liburing and Check?)"
done
for p in "$rec" "$work" "$bys"; do
	if readelf -lW "$p" | grep -q 'program interpreter'; then
		die "${p#"$top_builddir"/} is not static: configure with --enable-static-recorder for make check-kernels"
	fi
done
command -v python3 >/dev/null || die "python3 is needed for the CHECK step"
export top_builddir

mkdir -p "$out" || die "cannot create $out"
passed=0 failed=0
declare -a labels=() timings=()

run_check() {	# DIR LABEL -> adds to passed/failed, prints the check's lines
	local dir=$1 label=$2 log=$1.check.log p f
	python3 "$srcdir/tests/e2e/check.py" --kernel-label "$label" --hooks-json "$dir/hooks.json" \
		"$dir" "${runs[@]+"${runs[@]}"}" >"$log" 2>&1
	grep -E '^(PASS|FAIL|SKIP)|^      ' "$log" | sed "s/^/  /"
	read -r p f < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$log" | tail -n 1)
	if [ -z "${p:-}" ]; then
		sed 's/^/  | /' "$log" | tail -n 20
		p=0 f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

for k in $kernels; do
	dir=$out/$k
	rm -rf "$dir" "$dir".*.log
	mkdir -p "$dir"
	t0=$(date +%s)
	echo "=== $k"
	if [ "$k" = host ]; then
		label="host $(uname -r)"
		sudo_cmd=
		if [ "$(id -u)" != 0 ]; then
			if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
				sudo_cmd="sudo -n"
			elif [ "${CI:-}" = true ]; then
				echo "  FAIL  host: needs root or sudo -n (CI=true)"
				failed=$((failed + 1))
				continue
			else
				echo "  SKIP  host: needs root or sudo -n"
				continue
			fi
		fi
		RECORD_SUDO=$sudo_cmd sh "$srcdir/tests/e2e/record.sh" -r "$rec" -w "$work" -b "$bys" \
			"$dir" "${runs[@]+"${runs[@]}"}" >"$dir.record.log" 2>&1
		status=$?
		[ -z "$sudo_cmd" ] || $sudo_cmd chown -R "$(id -u):$(id -g)" "$dir"
	else
		kdir=$("$here/kernel-cache.sh" "$k" 2>"$dir.fetch.log")
		if [ -z "$kdir" ]; then
			echo "  FAIL  $k: no kernel: $(tail -n 1 "$dir.fetch.log")"
			failed=$((failed + 1))
			continue
		fi
		label=$(cat "$kdir/release")
		t0=$(date +%s)
		"$here/run-in-kernel.sh" -t "$timeout" -c "$cpus" -o "$dir" -l "$dir.console.log" \
			-i "$rec:/bin/uring-record" -i "$work:/bin/workload" -i "$bys:/bin/bystander" \
			-i "$srcdir/tests/e2e/record.sh:/e2e/record.sh" -i "$srcdir/tests/e2e/plan:/e2e/plan" \
			-i "$srcdir/tests/e2e/cgroup.sh:/e2e/cgroup.sh" \
			"$kdir" /bin/sh /e2e/record.sh /out "${runs[@]+"${runs[@]}"}" >"$dir.record.log" 2>&1
		status=$?
	fi
	t1=$(date +%s)
	if [ $status != 0 ]; then
		echo "  FAIL  $k: the RECORD step exited $status"
		sed 's/^/  | /' "$dir.record.log" | tail -n 30
		failed=$((failed + 1))
		timings+=("$k: RECORD failed after $((t1 - t0)) s")
		continue
	fi
	run_check "$dir" "$label"
	if [ "$k" != host ]; then
		# The guest's kernel must not have warned (WARN_ON, BUG, oops)
		# while BPF programs were attached to it.
		if grep -qE 'Call Trace|BUG:|Oops|WARNING: CPU|general protection' "$dir.console.log"; then
			echo "  FAIL  kernel log: the kernel complained (in $dir.console.log):"
			grep -E -m 5 'Call Trace|BUG:|Oops|WARNING: CPU|general protection' "$dir.console.log" |
				sed 's/^/        /'
			failed=$((failed + 1))
		else
			echo "  PASS  kernel log: no warning, BUG or oops"
			passed=$((passed + 1))
		fi
	fi
	t2=$(date +%s)
	labels+=("$k")
	timings+=("$label: record $((t1 - t0)) s$([ "$k" = host ] || echo ' (boot included)'), check $((t2 - t1)) s")
done

if [ ${#labels[@]} -gt 0 ]; then
	echo
	echo "=== kernel x hook (attached[: variant] | absent[: why])"
	python3 - "$out" "${labels[@]}" <<'PY'
import json, os, sys
out, kernels = sys.argv[1], sys.argv[2:]
cols = []
for k in kernels:
    try:
        with open(os.path.join(out, k, "hooks.json")) as f:
            cols.append(json.load(f))
    except (OSError, ValueError):
        pass
rows = []
for c in cols:
    for h in c["hooks"]:
        if h not in rows:
            rows.append(h)
def short(s):
    return s if len(s) <= 60 else s[:57] + "..."
width = max([len(r) for r in rows] + [4])
cw = [max([len(short(c["hooks"].get(r, "-"))) for r in rows] + [len(c["label"])]) for c in cols]
print(f"{'hook':<{width}}  " + "  ".join(f"{c['label']:<{w}}" for c, w in zip(cols, cw)))
for r in rows:
    print(f"{r:<{width}}  " + "  ".join(f"{short(c['hooks'].get(r, '-')):<{w}}" for c, w in zip(cols, cw)))
PY
fi
echo
echo "=== time"
for t in "${timings[@]+"${timings[@]}"}"; do
	echo "  $t"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
