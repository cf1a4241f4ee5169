# bench/: benchmarks.  Built on demand with "make bench", never by
# "make all" or "make check" (no timed assertions anywhere).

# fxt_bench: records/s of converter/fxt_writer.
EXTRA_PROGRAMS += bench/fxt_bench
bench_fxt_bench_SOURCES = bench/fxt_bench.c
bench_fxt_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter
bench_fxt_bench_LDADD = converter/libfxt.a
CLEANFILES += bench/fxt_bench$(EXEEXT)

# pack_bench: ns per record of common/log_writer (packing, zstd, write) on a real log:
# the recorder's writer thread per event, without BPF or root.
EXTRA_PROGRAMS += bench/pack_bench
bench_pack_bench_SOURCES = bench/pack_bench.c
bench_pack_bench_LDADD = $(COMMON_LIBS)
CLEANFILES += bench/pack_bench$(EXEEXT)

# The programs bench/run measures are rebuilt too: a uring-record left
# linked with an older libcommon.a was once measured as the new one.
bench: bench/fxt_bench$(EXEEXT) bench/pack_bench$(EXEEXT) converter/uring-convert$(EXEEXT) \
	$(BENCH_RECORDER_TOOLS)
.PHONY: bench

# iou_cnt: the count-only BPF floor bench/run compares uring-record with:
# the same hooks and attach types, nothing but a per-CPU counter.
EXTRA_DIST += bench/iou_cnt.bpf.c bench/iou_cnt.h bench/run bench/replay-fidelity \
	bench/RESULTS.md bench/NOTEBOOK.md
if BUILD_RECORDER
bench/iou_cnt.bpf.o: $(top_srcdir)/bench/iou_cnt.bpf.c $(top_srcdir)/bench/iou_cnt.h \
		$(top_srcdir)/bpf/kernel_types.bpf.h $(top_srcdir)/common/uring_event.h
	@$(MKDIR_P) bench
	$(AM_V_GEN)$(CLANG) $(BPF_BUILD_CFLAGS) -I$(top_srcdir)/bench \
		-c $(top_srcdir)/bench/iou_cnt.bpf.c -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv -f $@.tmp $@

bench/iou_cnt.skel.h: bench/iou_cnt.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name iou_cnt_bpf > $@.tmp && mv -f $@.tmp $@

EXTRA_PROGRAMS += bench/iou_cnt
bench_iou_cnt_SOURCES = bench/iou_cnt.c bench/iou_cnt.h
nodist_bench_iou_cnt_SOURCES = bench/iou_cnt.skel.h
bench/iou_cnt-iou_cnt.$(OBJEXT): bench/iou_cnt.skel.h
bench_iou_cnt_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench -I$(top_builddir)/bench
bench_iou_cnt_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS)
bench_iou_cnt_LDADD = $(LIBBPF_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS)
CLEANFILES += bench/iou_cnt$(EXEEXT) bench/iou_cnt.bpf.o bench/iou_cnt.skel.h

# scrub_bench: ns per id of recorder/pointer_scrub, with and without its cache.
EXTRA_PROGRAMS += bench/scrub_bench
bench_scrub_bench_SOURCES = bench/scrub_bench.c
bench_scrub_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/recorder
bench_scrub_bench_LDADD = recorder/librecorder.a $(COMMON_LIBS)
CLEANFILES += bench/scrub_bench$(EXEEXT)
BENCH_RECORDER_TOOLS = bench/iou_cnt$(EXEEXT) bench/scrub_bench$(EXEEXT) recorder/uring-record$(EXEEXT)
endif
