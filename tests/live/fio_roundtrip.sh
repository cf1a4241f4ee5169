#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Ground truth from fio itself: a fio job (ioengine=io_uring, fixed
# randseed) writes its own iolog while uring-record records it; uring-convert
# --format=fio of the recording gives the same multiset of (operation,
# offset, length).  Then fio replays our iolog (read_iolog, the job file we
# wrote) under uring-record, and that recording gives the same multiset
# again.  fsync offsets are compared as 0 (fio logs the file's last offset).
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

command -v fio >/dev/null 2>&1 || skip "fio is not installed (apt-get install fio)"
mkdir "$T/wd"
record -q -o "$T/fio.log" -- fio --name=rt --ioengine=io_uring --filename="$T/wd/data" \
	--size=4m --rw=randrw --bs=4k --iodepth=8 --number_ios=400 --randseed=42 \
	--fsync=16 --write_iolog="$T/fio.iolog" --output=/dev/null
[ "$record_status" = 0 ] || fail "uring-record -- fio exited with $record_status"
"$CONVERT" -q --format=fio -o "$T/out1" "$T/fio.log" || fail "uring-convert --format=fio"

record -q -o "$T/again.log" -- sh -c 'cd "$1" && sh make-targets.sh && exec fio --output=/dev/null replay.fio' \
	sh "$T/out1"
[ "$record_status" = 0 ] || fail "fio replay.fio under uring-record exited with $record_status"
"$CONVERT" -q --format=fio -o "$T/out2" "$T/again.log" || fail "uring-convert --format=fio (replay)"

pycheck - "$T/fio.iolog" "$T/out1" "$T/out2" <<'PY'
import collections, glob, os, sys
from check import *

def ops(paths):
    """(action, offset, length) of every I/O line of fio iologs (version 3)."""
    got = collections.Counter()
    for path in paths:
        with open(path) as f:
            eq(path + ": header", f.readline().strip(), "fio version 3 iolog")
            for line in f:
                w = line.split()
                if len(w) < 3 or w[2] in ("add", "open", "close"):
                    continue
                off, length = (int(w[3]), int(w[4])) if len(w) >= 5 else (0, 0)
                if w[2] in ("sync", "datasync"):
                    off = length = 0
                got[(w[2], off, length)] += 1
    return got

truth = ops([sys.argv[1]])
first = ops(glob.glob(os.path.join(sys.argv[2], "*.iolog")))
again = ops(glob.glob(os.path.join(sys.argv[3], "*.iolog")))
true("fio did I/O", sum(truth.values()) >= 400, sum(truth.values()))
true("fio did fsyncs", truth[("sync", 0, 0)] + truth[("datasync", 0, 0)] > 0, truth)
eq("--format=fio against fio's own iolog", first, truth)
eq("the replay's recording against fio's own iolog", again, truth)
done()
PY
note "ok: $(wc -l <"$T/fio.iolog") iolog lines"
