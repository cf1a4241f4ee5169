# converter/: uring-convert.  Runs anywhere: links only libcommon, zstd and
# libm (no libbpf).  Everything but main.c is in libconvert.a so that the
# unit tests (tests/check_convert*) drive the real code in-process.
noinst_LIBRARIES += converter/libconvert.a
converter_libconvert_a_SOURCES = \
	converter/convert.c converter/convert.h \
	converter/convert_log.c converter/convert_log.h converter/info.c \
	converter/options.c converter/options.h \
	converter/merge.c converter/merge.h \
	converter/model.c converter/model.h converter/reap.c converter/reap.h \
	converter/iowq.c converter/iowq.h \
	converter/model_files.c converter/model_files.h \
	converter/file_stats.c converter/file_stats.h \
	converter/output.h converter/output_util.c converter/output_util.h \
	converter/model_names.c converter/model_names.h converter/csv_tables.h \
	converter/out_buf.c converter/out_buf.h \
	converter/worker.c converter/worker.h \
	converter/output_summary.c converter/output_json.c converter/output_csv.c \
	converter/output_fio.c converter/replay_key.c converter/replay_key.h \
	converter/output_fxt.c converter/fxt_layout.c converter/fxt_layout.h \
	converter/fxt_plan.c converter/fxt_plan.h \
	converter/filter.c converter/filter.h \
	converter/report.c converter/report.h \
	converter/stats.c converter/stats.h \
	converter/names.c converter/names.h \
	converter/timebase.c converter/timebase.h \
	converter/hmap.c converter/hmap.h
CONVERT_LIBS = converter/libconvert.a converter/libfxt.a $(COMMON_LIBS)

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
