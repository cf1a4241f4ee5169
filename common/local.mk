# common/: what both stages share.  libcommon.a is linked into uring-record,
# uring-convert and the tests; it needs only libzstd.
noinst_LIBRARIES += common/libcommon.a
common_libcommon_a_SOURCES = \
	common/uring_event.h common/event_split.h \
	common/event_layout.c common/event_layout.h \
	common/log_format.h common/buffer.h common/sanitizer.h \
	common/log_writer.c common/log_writer.h \
	common/log_reader.c common/log_reader.h \
	common/crc32c.c common/crc32c.h \
	common/fd_io.c common/fd_io.h \
	common/json.c common/json.h \
	common/uring_names.c common/uring_names.h
common_libcommon_a_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS)
COMMON_LIBS = common/libcommon.a $(ZSTD_LIBS) -lm
