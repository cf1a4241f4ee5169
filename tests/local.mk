# tests/: Check unit tests on synthetic logs (no root needed), the
# ground-truth workload program and the live tests (root + BPF).

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
