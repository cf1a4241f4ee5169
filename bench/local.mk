# bench/: benchmarks.  Built on demand with "make bench", never by
# "make all" or "make check" (no timed assertions anywhere).

# fxt_bench: records/s of converter/fxt_writer (issue 5).
EXTRA_PROGRAMS += bench/fxt_bench
bench_fxt_bench_SOURCES = bench/fxt_bench.c
bench_fxt_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/converter
bench_fxt_bench_LDADD = converter/libfxt.a
CLEANFILES += bench/fxt_bench$(EXEEXT)

bench: bench/fxt_bench$(EXEEXT)
.PHONY: bench
