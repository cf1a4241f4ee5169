# libcore/: what the programs that read logs share: the conversion pipeline
# (pipeline.c: the log's records merged across CPUs, selected, followed
# request by request by the model) and the model's contract with its
# consumers (output.h).  uring-convert's formats and uring-replay's plan
# are such consumers; the unit tests drive it in-process.  Needs only
# libcommon, zstd and libm.
noinst_LIBRARIES += libcore/libcore.a
libcore_libcore_a_SOURCES = \
	libcore/pipeline.c libcore/pipeline.h libcore/convert_opts.h \
	libcore/convert_log.c libcore/convert_log.h \
	libcore/merge.c libcore/merge.h libcore/worker.c libcore/worker.h \
	libcore/block_queue.c libcore/block_queue.h \
	libcore/filter.c libcore/filter.h \
	libcore/output_async.c libcore/output_async.h \
	libcore/output.h \
	libcore/model.c libcore/model.h libcore/reap.c libcore/reap.h \
	libcore/iowq.c libcore/iowq.h libcore/model_files.c libcore/model_files.h \
	libcore/model_names.c libcore/model_names.h \
	libcore/names.c libcore/names.h libcore/timebase.c libcore/timebase.h \
	libcore/hmap.c libcore/hmap.h \
	libcore/replay_key.c libcore/replay_key.h
CORE_LIBS = libcore/libcore.a $(COMMON_LIBS)
