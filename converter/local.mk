# converter/: uring-convert, on the shared core (libcore/libcore.a): its
# command line, --info, and one file per output format.  Runs anywhere:
# links only libcommon, zstd and libm (no libbpf).  Everything but main.c
# is in libconvert.a so that the unit tests (tests/check_convert*) drive
# the real code in-process.
noinst_LIBRARIES += converter/libconvert.a
converter_libconvert_a_SOURCES = \
	converter/convert.c converter/convert.h converter/info.c \
	converter/options.c converter/options.h \
	converter/file_stats.c converter/file_stats.h \
	converter/output_util.c converter/output_util.h converter/csv_tables.h \
	converter/out_buf.c converter/out_buf.h \
	converter/output_summary.c converter/output_json.c converter/output_csv.c \
	converter/output_fio.c \
	converter/output_fxt.c converter/fxt_layout.c converter/fxt_layout.h \
	converter/fxt_plan.c converter/fxt_plan.h \
	converter/report.c converter/report.h \
	converter/stats.c converter/stats.h
CONVERT_LIBS = converter/libconvert.a converter/libfxt.a $(CORE_LIBS)

bin_PROGRAMS += converter/uring-convert
converter_uring_convert_SOURCES = converter/main.c
converter_uring_convert_LDADD = $(CONVERT_LIBS)

# --- FXT writer -----------------------------------------------------------
# converter/libfxt.a: the Fuchsia Trace Format encoder, linked by
# uring-convert, tests/check_fxt and bench/fxt_bench.  Needs only libc.
noinst_LIBRARIES += converter/libfxt.a
converter_libfxt_a_SOURCES = converter/fxt_writer.c converter/fxt_writer.h \
	converter/fxt_proto.h
# --- end FXT writer -------------------------------------------------------
