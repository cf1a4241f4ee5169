# make check-liburing: liburing's own test programs, built from the source
# tree LIBURING_SRC (Debian's "apt-get source liburing" or a git checkout;
# nothing is fetched), each recorded with uring-record -- TEST under
# tests/liburing/tree_cnt, an independent BPF count of the same tracepoints
# for the test's process tree and rings.  tests/liburing/run.py compares the
# conversion of every log with that count (see tests/liburing/README).
# Root + BPF; not part of make check.
EXTRA_DIST += tests/liburing/README tests/liburing/run.py tests/liburing/expected \
	tests/liburing/tree_cnt.bpf.c tests/liburing/tree_cnt.h
if BUILD_RECORDER
tests/liburing/tree_cnt.bpf.o: $(top_srcdir)/tests/liburing/tree_cnt.bpf.c \
		$(top_srcdir)/tests/liburing/tree_cnt.h $(top_srcdir)/bpf/kernel_types.bpf.h
	@$(MKDIR_P) tests/liburing
	$(AM_V_GEN)$(CLANG) $(BPF_BUILD_CFLAGS) -I$(top_srcdir)/tests/liburing \
		-c $(top_srcdir)/tests/liburing/tree_cnt.bpf.c -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv -f $@.tmp $@

tests/liburing/tree_cnt.skel.h: tests/liburing/tree_cnt.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name tree_cnt_bpf > $@.tmp && mv -f $@.tmp $@

EXTRA_PROGRAMS += tests/liburing/tree_cnt
tests_liburing_tree_cnt_SOURCES = tests/liburing/tree_cnt.c tests/liburing/tree_cnt.h
nodist_tests_liburing_tree_cnt_SOURCES = tests/liburing/tree_cnt.skel.h
tests/liburing/tree_cnt-tree_cnt.$(OBJEXT): tests/liburing/tree_cnt.skel.h
tests_liburing_tree_cnt_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/liburing \
	-I$(top_builddir)/tests/liburing
tests_liburing_tree_cnt_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS)
tests_liburing_tree_cnt_LDADD = $(LIBBPF_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS)
CLEANFILES += tests/liburing/tree_cnt$(EXEEXT) tests/liburing/tree_cnt.bpf.o \
	tests/liburing/tree_cnt.skel.h

# LIBURING_ARGS: more options of run.py (--only, --timeout, ...).
check-liburing: tests/liburing/tree_cnt$(EXEEXT) recorder/uring-record$(EXEEXT) \
		converter/uring-convert$(EXEEXT)
	@if test -z '$(LIBURING_SRC)'; then \
		echo "make check-liburing: give LIBURING_SRC=DIR, a liburing source tree" >&2; \
		echo "  (apt-get source liburing, or a git checkout)" >&2; exit 2; fi
	$(PYTHON3) $(top_srcdir)/tests/liburing/run.py --src '$(LIBURING_SRC)' \
		--work tests/liburing/out --bin . \
		--expected $(top_srcdir)/tests/liburing/expected $(LIBURING_ARGS)
else
check-liburing:
	@echo "make check-liburing: configure with --enable-recorder" >&2; exit 2
endif
.PHONY: check-liburing
clean-local: clean-liburing
clean-liburing:
	-rm -rf tests/liburing/out
.PHONY: clean-liburing
