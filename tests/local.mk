# tests/: Check unit tests on synthetic logs (no root needed), the
# ground-truth workload program and the live tests (root + BPF).

# Every test is bounded: timeout(1) sends SIGTERM to the process group of
# a test still running after TEST_TIME_LIMIT seconds (the live tests then
# stop what they started, tests/live/lib.sh), and SIGKILL 30 s later.
TEST_TIME_LIMIT = 900
LOG_COMPILER = timeout -k 30 $(TEST_TIME_LIMIT)

if HAVE_CHECK
noinst_LIBRARIES += tests/libtestutil.a
tests_libtestutil_a_SOURCES = \
	tests/test_util.c tests/test_util.h \
	tests/synth_log.c tests/synth_log.h
tests_libtestutil_a_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)

TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = tests/libtestutil.a $(COMMON_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/check_common tests/check_log
tests_check_common_SOURCES = tests/check_common.c
tests_check_common_CFLAGS = $(TEST_CFLAGS)
tests_check_common_LDADD = $(TEST_LIBS)
tests_check_log_SOURCES = tests/check_log.c
tests_check_log_CFLAGS = $(TEST_CFLAGS)
tests_check_log_LDADD = $(TEST_LIBS)
TESTS += tests/check_common tests/check_log
else
check-local: check-needs-check
check-needs-check:
	@echo "make check: the Check unit-test library was not found at configure time" >&2
	@echo "  (Debian: apt-get install check; then re-run configure)" >&2
	@exit 1
endif

# --- FXT writer and reader ------------------------------------------------
# tests/libfxtreader.a: an FXT reader independent of converter/fxt_writer,
# for any test that checks FXT output.  tests/check_fxt: writer round trips,
# interning, limits, the golden file (regenerate on purpose with
# RINGSIDE_REGENERATE_GOLDEN=1 make check TESTS=tests/check_fxt).
if HAVE_CHECK
noinst_LIBRARIES += tests/libfxtreader.a
tests_libfxtreader_a_SOURCES = tests/fxt_reader.c tests/fxt_reader.h
check_PROGRAMS += tests/check_fxt
tests_check_fxt_SOURCES = tests/check_fxt.c
tests_check_fxt_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter
tests_check_fxt_CFLAGS = $(TEST_CFLAGS)
tests_check_fxt_LDADD = tests/libfxtreader.a converter/libfxt.a $(TEST_LIBS)
TESTS += tests/check_fxt
endif
EXTRA_DIST += tests/golden/fxt_writer_basic.fxt
# --- end FXT --------------------------------------------------------------

# --- tests/workload: the ground-truth io_uring workload -------------------
# One JSON document per run saying exactly what it did (schema and scenarios
# at the top of tests/workload.c).  tests/check_workload runs every scenario
# unprivileged, validates the JSON and, when strace is installed, compares
# its system-call lists with strace -f.
if HAVE_LIBURING
noinst_PROGRAMS += tests/workload
tests_workload_SOURCES = \
	tests/workload.c tests/workload.h \
	tests/workload_ring.c tests/workload_json.c \
	tests/workload_scenarios.c tests/workload_more.c \
	tests/workload_streams.c
tests_workload_CFLAGS = $(AM_CFLAGS) $(LIBURING_CFLAGS)
tests_workload_LDADD = $(COMMON_LIBS) $(LIBURING_LIBS)
if STATIC_RECORDER
# Static too, so that make check-kernels can run it in a busybox guest.
tests_workload_LDFLAGS = $(AM_LDFLAGS) -static
endif
if HAVE_CHECK
check_PROGRAMS += tests/check_workload
tests_check_workload_SOURCES = tests/check_workload.c
tests_check_workload_CFLAGS = $(TEST_CFLAGS) \
	-DWORKLOAD_BIN='"$(abs_top_builddir)/tests/workload"'
tests_check_workload_LDADD = $(TEST_LIBS)
TESTS += tests/check_workload
endif
endif
# --- end workload ---------------------------------------------------------

# --- uring-convert --------------------------------------------------------
# tests/check_convert: the request model on synthetic logs (paths, reuse,
# losses, links, overflow, syscalls, selection).  tests/check_convert_output:
# CSV/JSON/summary, the command line, golden outputs under tests/golden/
# (regenerate on purpose: RINGSIDE_REGENERATE_GOLDEN=1 make check
# TESTS=tests/check_convert_output, then review the diff), bounded memory,
# and the pandas dtype check (tests/convert_pandas.py; skipped without
# python3-pandas, except on CI).  tests/check_convert_async: every format of
# every golden log and of busy synthetic logs, the same bytes with the
# model and the output on one thread and on two (libcore/output_async.c).
if HAVE_CHECK
noinst_LIBRARIES += tests/libconverttest.a
tests_libconverttest_a_SOURCES = tests/convert_test.c tests/convert_test.h
tests_libconverttest_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_libconverttest_a_CFLAGS = $(TEST_CFLAGS)
CONVERT_TEST_LIBS = tests/libconverttest.a converter/libconvert.a converter/libfxt.a libcore/libcore.a $(TEST_LIBS)
check_PROGRAMS += tests/check_convert
tests_check_convert_SOURCES = tests/check_convert.c
tests_check_convert_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_convert_CFLAGS = $(TEST_CFLAGS)
tests_check_convert_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_convert
check_PROGRAMS += tests/check_convert_flight
tests_check_convert_flight_SOURCES = tests/check_convert_flight.c
tests_check_convert_flight_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_convert_flight_CFLAGS = $(TEST_CFLAGS)
tests_check_convert_flight_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_convert_flight
check_PROGRAMS += tests/check_convert_output
tests_check_convert_output_SOURCES = tests/check_convert_output.c
tests_check_convert_output_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_convert_output_CFLAGS = $(TEST_CFLAGS)
tests_check_convert_output_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_convert_output
check_PROGRAMS += tests/check_convert_fio
tests_check_convert_fio_SOURCES = tests/check_convert_fio.c
tests_check_convert_fio_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_convert_fio_CFLAGS = $(TEST_CFLAGS)
tests_check_convert_fio_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_convert_fio
check_PROGRAMS += tests/check_convert_async
tests_check_convert_async_SOURCES = tests/check_convert_async.c
tests_check_convert_async_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_convert_async_CFLAGS = $(TEST_CFLAGS)
tests_check_convert_async_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_convert_async
# tests/check_replay: uring-replay's plan (replay/plan.c) from synthetic logs.
check_PROGRAMS += tests/check_replay
tests_check_replay_SOURCES = tests/check_replay.c replay/plan.c replay/plan.h \
	replay/streams.c
tests_check_replay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/replay -I$(top_srcdir)/tests
tests_check_replay_CFLAGS = $(TEST_CFLAGS)
tests_check_replay_LDADD = $(CONVERT_TEST_LIBS)
TESTS += tests/check_replay
endif
TESTS += tests/convert_pandas.sh
# uring-convert against real recordings of the ground-truth workload: the
# end-to-end suite, tests/e2e/ (below).
EXTRA_DIST += tests/convert_pandas.sh tests/convert_pandas.py \
	tests/golden/convert_v1.log tests/golden/convert_v1/summary.txt \
	tests/golden/convert_v1/summary.json tests/golden/convert_v1/requests.csv \
	tests/golden/convert_v1/syscalls.csv tests/golden/convert_v1/events.csv \
	tests/golden/convert_v1/losses.csv tests/golden/convert_v1/loss_counters.csv \
	tests/golden/convert_v1/tasks.csv tests/golden/convert_v1/rings.csv \
	tests/golden/convert_v1/counters.csv tests/golden/convert_v1/files.csv
# --- end uring-convert ----------------------------------------------------

# --- uring-convert --format=fxt -------------------------------------------
# tests/check_fxt_output: the FXT output on synthetic logs, read back with
# tests/fxt_reader (Perfetto's slice stacks and flow binding replayed), the
# lane allocator, the command line and a byte-exact golden file
# (regenerate on purpose: RINGSIDE_REGENERATE_GOLDEN=1 make check
# TESTS=tests/check_fxt_output, then check it with fxtcheck.py --werror).
# tests/fxtstat: what Perfetto would show for an FXT file, as JSON; the
# end-to-end suite (tests/e2e/, below) compares it with the workload's
# ground truth for every recorded scenario.
if HAVE_CHECK
check_PROGRAMS += tests/check_fxt_output
tests_check_fxt_output_SOURCES = tests/check_fxt_output.c
tests_check_fxt_output_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_check_fxt_output_CFLAGS = $(TEST_CFLAGS)
tests_check_fxt_output_LDADD = tests/libfxtreader.a $(CONVERT_TEST_LIBS)
TESTS += tests/check_fxt_output
check_PROGRAMS += tests/fxtstat
tests_fxtstat_SOURCES = tests/fxtstat.c
tests_fxtstat_LDADD = tests/libfxtreader.a $(COMMON_LIBS)
endif
EXTRA_DIST += tests/golden/convert_fxt.fxt
# --- end fxt output -------------------------------------------------------

# --- uring-record ---------------------------------------------------------
# tests/logstat: a log's contents as JSON (records per type and thread,
# submissions and completions per opcode, syscalls, tasks, losses, ids that
# look like kernel addresses), read
# with common/log_reader only; the live tests assert on it.
# tests/check_recorder: unit tests of the recorder's pure parts (options,
# pointer scrubbing, frames and queue, metadata, /proc parsing).
# tests/live/*.sh: record real io_uring work with uring-record (root + BPF,
# or sudo -n for the recorder alone); they skip without it, and fail
# instead when CI=true.
check_PROGRAMS += tests/logstat
tests_logstat_SOURCES = tests/logstat.c
tests_logstat_LDADD = $(COMMON_LIBS)
# tests/log_fill: the log writer fills a filesystem to its last byte and
# must still end the log with its END frame (tests/hardening/tmpfs_full.sh).
check_PROGRAMS += tests/log_fill
tests_log_fill_SOURCES = tests/log_fill.c
tests_log_fill_LDADD = $(COMMON_LIBS)
if BUILD_RECORDER
# tests/exit_storm: processes whose threads exit together, and a process
# that takes a selected process's pid (tests/live/exits.sh).
check_PROGRAMS += tests/exit_storm
tests_exit_storm_SOURCES = tests/exit_storm.c
# tests/iowq_block: a known number of io-wq workers (tests/live/flight.sh).
check_PROGRAMS += tests/iowq_block
tests_iowq_block_SOURCES = tests/iowq_block.c
if HAVE_CHECK
check_PROGRAMS += tests/check_recorder
tests_check_recorder_SOURCES = tests/check_recorder.c
tests_check_recorder_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/recorder -I$(top_srcdir)/bpf
tests_check_recorder_CFLAGS = $(TEST_CFLAGS) $(ZSTD_CFLAGS)
tests_check_recorder_LDADD = recorder/librecorder.a $(TEST_LIBS) $(LIBBPF_LIBS)
TESTS += tests/check_recorder
check_PROGRAMS += tests/check_flight
tests_check_flight_SOURCES = tests/check_flight.c
tests_check_flight_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/recorder -I$(top_srcdir)/bpf
tests_check_flight_CFLAGS = $(TEST_CFLAGS) $(ZSTD_CFLAGS)
tests_check_flight_LDADD = recorder/librecorder.a $(TEST_LIBS) $(LIBBPF_LIBS)
TESTS += tests/check_flight
endif
LIVE_RECORDER_TESTS = \
	tests/live/basic.sh \
	tests/live/rw_async.sh \
	tests/live/storm_loss.sh \
	tests/live/sigkill.sh \
	tests/live/filters.sh \
	tests/live/stop_signal.sh \
	tests/live/disk_full.sh \
	tests/live/fallbacks.sh \
	tests/live/command_user.sh \
	tests/live/staged.sh \
	tests/live/exits.sh \
	tests/live/selection_end.sh \
	tests/live/self_cost.sh \
	tests/live/replay.sh \
	tests/live/fio_roundtrip.sh \
	tests/live/sample.sh \
	tests/live/flight.sh
TESTS += $(LIVE_RECORDER_TESTS)
endif
EXTRA_DIST += tests/live/lib.sh tests/live/check.py \
	tests/live/basic.sh tests/live/rw_async.sh tests/live/storm_loss.sh \
	tests/live/sigkill.sh tests/live/filters.sh tests/live/stop_signal.sh \
	tests/live/disk_full.sh tests/live/fallbacks.sh tests/live/command_user.sh \
	tests/live/staged.sh tests/live/exits.sh tests/live/selection_end.sh \
	tests/live/self_cost.sh tests/live/replay.sh tests/live/replay_compare.py \
	tests/live/fio_roundtrip.sh tests/live/sample.sh tests/live/flight.sh
# --- end uring-record -----------------------------------------------------

# --- fuzzing and hardening: see tests/fuzz/local.mk ------------------------
include tests/fuzz/local.mk

# --- end-to-end suite and kernel matrix -----------------------------------
# tests/e2e/e2e.sh: every run of tests/e2e/plan, and the --cgroup cases
# (tests/e2e/cgroup.sh), recorded with uring-record
# next to an unrelated io_uring process (tests/e2e/bystander), converted
# to summary JSON, CSV and FXT and compared with the workload's ground
# truth: RECORD step tests/e2e/record.sh (POSIX sh, runs in a busybox
# guest too), CHECK step tests/e2e/check.py (no root).  Root + BPF: skipped
# without, a failure on CI.  tests/e2e/static.sh: with
# --enable-static-recorder, the recorder and the guests' programs are
# static and the recorder runs in an empty chroot.
# make check-kernels: the same suite in Debian's 6.1 and 6.12 kernels
# under QEMU and on this kernel, with the kernel x hook table
# (tests/kernels/matrix.sh; KERNELS="6.1 6.12 host" to choose, needs
# --enable-static-recorder, qemu-system-x86 and busybox-static).
if HAVE_LIBURING
check_PROGRAMS += tests/e2e/bystander
tests_e2e_bystander_SOURCES = tests/e2e/bystander.c
tests_e2e_bystander_CFLAGS = $(AM_CFLAGS) $(LIBURING_CFLAGS)
tests_e2e_bystander_LDADD = $(LIBURING_LIBS)
if STATIC_RECORDER
tests_e2e_bystander_LDFLAGS = $(AM_LDFLAGS) -static
endif
if BUILD_RECORDER
if HAVE_CHECK
TESTS += tests/e2e/e2e.sh
endif
endif
if STATIC_RECORDER
TESTS += tests/e2e/static.sh
endif
endif
KERNELS = 6.1 6.12 host
check-kernels: $(check_PROGRAMS) $(sbin_PROGRAMS) $(noinst_PROGRAMS)
	@top_builddir='$(abs_top_builddir)' srcdir='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/kernels/matrix.sh -k '$(KERNELS)'
.PHONY: check-kernels
clean-local: clean-e2e
clean-e2e:
	-rm -rf tests/e2e/out tests/kernels/out
.PHONY: clean-e2e
EXTRA_DIST += tests/e2e/plan tests/e2e/record.sh tests/e2e/cgroup.sh tests/e2e/check.py \
	tests/e2e/e2e_asserts.py tests/e2e/e2e_hooks.py tests/e2e/e2e.sh \
	tests/e2e/static.sh tests/kernels/kernel-cache.sh \
	tests/kernels/run-in-kernel.sh tests/kernels/matrix.sh
# --- end end-to-end suite and kernel matrix -------------------------------

# --- liburing's test programs, recorded and counted (make check-liburing) --
include tests/liburing/local.mk
