# tests/fuzz/: fuzz targets for the log reader and the whole
# conversion, their seed corpus, and every crash they found.
#
# make check  builds the targets' code with the ordinary compiler and
#             replays tests/fuzz/corpus/ and tests/fuzz/regressions/
#             through all of them (tests/fuzz/check_fuzz).
# make fuzz   builds the libFuzzer binaries with clang, ASan and UBSan
#             (tests/fuzz/fuzz.mk, in tests/fuzz/bin/ of the build tree),
#             replays the same inputs, and with FUZZ_SECONDS=N fuzzes each
#             target for N seconds (tests/fuzz/fuzz.sh; README there).
if HAVE_CHECK
check_PROGRAMS += tests/fuzz/check_fuzz
tests_fuzz_check_fuzz_SOURCES = tests/fuzz/check_fuzz.c \
	tests/fuzz/fuzz_input.c tests/fuzz/fuzz_input.h \
	tests/fuzz/fuzz_reader.c tests/fuzz/fuzz_convert.c tests/fuzz/fuzz_targets.h
tests_fuzz_check_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter \
	-I$(top_srcdir)/tests -I$(top_srcdir)/tests/fuzz
tests_fuzz_check_fuzz_CFLAGS = $(TEST_CFLAGS) $(ZSTD_CFLAGS)
tests_fuzz_check_fuzz_LDADD = converter/libconvert.a converter/libfxt.a libcore/libcore.a tests/libfxtreader.a \
	$(TEST_LIBS) -lm
TESTS += tests/fuzz/check_fuzz
# Hostile logs with valid checksums: one test per bug the fuzzers found,
# and the worst cases of the bounds audit under RLIMIT_AS/RLIMIT_CPU.
check_PROGRAMS += tests/fuzz/check_hostile
tests_fuzz_check_hostile_SOURCES = tests/fuzz/check_hostile.c
tests_fuzz_check_hostile_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_fuzz_check_hostile_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_check_hostile_LDADD = $(CONVERT_TEST_LIBS) -lm
TESTS += tests/fuzz/check_hostile

# Corpus tools (built with the tests so that they never rot):
# mkseeds writes the synthetic seed logs, fuzz_unpack packs a log into a
# fuzz input; tests/fuzz/mkcorpus.sh uses both.
check_PROGRAMS += tests/fuzz/mkseeds tests/fuzz/fuzz_unpack
tests_fuzz_mkseeds_SOURCES = tests/fuzz/mkseeds.c
tests_fuzz_mkseeds_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter -I$(top_srcdir)/tests
tests_fuzz_mkseeds_CFLAGS = $(TEST_CFLAGS)
tests_fuzz_mkseeds_LDADD = $(CONVERT_TEST_LIBS) -lm
tests_fuzz_fuzz_unpack_SOURCES = tests/fuzz/fuzz_unpack.c tests/fuzz/fuzz_input.h
tests_fuzz_fuzz_unpack_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/fuzz
tests_fuzz_fuzz_unpack_LDADD = $(COMMON_LIBS)
endif

fuzz: all
	@top_srcdir="$(abs_top_srcdir)" top_builddir="$(abs_top_builddir)" \
	FUZZ_SECONDS="$(FUZZ_SECONDS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" \
	FUZZ_CC="$(FUZZ_CC)" FUZZ_ARGS="$(FUZZ_ARGS)" \
	$(SHELL) $(abs_top_srcdir)/tests/fuzz/fuzz.sh
.PHONY: fuzz

EXTRA_DIST += tests/fuzz/README tests/fuzz/fuzz.sh tests/fuzz/fuzz.mk \
	tests/fuzz/fuzz_main.c tests/fuzz/ringside.dict tests/fuzz/mkcorpus.sh \
	tests/fuzz/corpus tests/fuzz/regressions tests/fuzz/pending

# tests/hardening/: live tests of the recorder under stress (root + BPF;
# they skip without, and fail instead on CI): SIGKILL at random moments
# (kill_random), tiny full filesystems (tmpfs_full), every CPU saturated
# with tiny ring buffers (saturate).
if BUILD_RECORDER
if HAVE_LIBURING
HARDENING_LIVE_TESTS = \
	tests/hardening/kill_random.sh \
	tests/hardening/tmpfs_full.sh \
	tests/hardening/saturate.sh
TESTS += $(HARDENING_LIVE_TESTS)
endif
endif
# Old recordings convert forever: the golden log of every format version,
# written by the real recorder, converts to exactly the kept outputs.
TESTS += tests/hardening/golden_logs.sh
# Bad command lines and files, both programs: one line, the right status.
TESTS += tests/hardening/cli_errors.sh
EXTRA_DIST += tests/hardening/golden_logs.sh tests/hardening/cli_errors.sh tests/golden/README \
	tests/golden/real_v1.0.log tests/golden/real_v1.0.txt tests/golden/real_v1.0 \
	tests/golden/real_v2.0.log tests/golden/real_v2.0.txt tests/golden/real_v2.0 \
	tests/golden/real_v3.0.log tests/golden/real_v3.0.txt tests/golden/real_v3.0 \
	tests/golden/real_v3.1.log tests/golden/real_v3.1.txt tests/golden/real_v3.1 \
	tests/golden/real_v3.2.log tests/golden/real_v3.2.txt tests/golden/real_v3.2 \
	tests/golden/real_v4.0.log tests/golden/real_v4.0.txt tests/golden/real_v4.0
EXTRA_DIST += tests/hardening/kill_random.sh tests/hardening/kill_random.py \
	tests/hardening/tmpfs_full.sh tests/hardening/saturate.sh \
	tests/hardening/saturate.py
