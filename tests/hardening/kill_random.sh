#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# SIGKILL the recorder at 20 random moments of a steady workload (a loop of
# short io_uring processes, followed by the recorder): every log converts,
# uring-convert says it was cut, and at most one flush interval of events
# is missing before the kill.  Extends tests/live/sigkill.sh (one kill in
# a NOP storm, checked with logstat only).  KILL_ITERATIONS and KILL_SEED
# change the number of kills and the moments (the seed is printed).
. "${srcdir:-$(dirname "$0")/../..}/tests/live/lib.sh"

[ "$AS_ROOT" = true ] || skip "killing the recorder at a precise moment needs root"
[ -x "$CONVERT" ] || skip "no $CONVERT"
seed=${KILL_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
note "seed $seed (KILL_SEED=$seed reproduces the kill moments)"
python3 "$srcdir/tests/hardening/kill_random.py" "$RECORDER" "$WORKLOAD" "$LOGSTAT" \
	"$CONVERT" "$T" "${KILL_ITERATIONS:-20}" "$seed" || fail "see above (seed $seed)"
note "ok"
