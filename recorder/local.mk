# recorder/: uring-record, the program that runs on the host (root or
# CAP_BPF + CAP_PERFMON).  The parts that need no BPF programs and no root
# (option parsing, pointer scrubbing, frames and their queue, LOSS frames,
# metadata, /proc task scan, host facts, the end of a selection) form recorder/librecorder.a so the
# unit tests can link them.

if BUILD_RECORDER
noinst_LIBRARIES += recorder/librecorder.a
recorder_librecorder_a_SOURCES = \
	recorder/clock.c recorder/clock.h \
	recorder/env.c recorder/env.h \
	recorder/flight.c recorder/flight.h \
	recorder/frames.c recorder/frames.h \
	recorder/host.c recorder/host.h \
	recorder/losses.c recorder/losses.h \
	recorder/metadata.c recorder/metadata.h \
	recorder/msg.c recorder/msg.h \
	recorder/pointer_scrub.c recorder/pointer_scrub.h \
	recorder/selection.c recorder/selection.h \
	recorder/tasks.c recorder/tasks.h \
	recorder/trigger.c recorder/trigger.h
recorder_librecorder_a_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bpf
recorder_librecorder_a_CFLAGS = $(AM_CFLAGS) $(ZSTD_CFLAGS) $(LIBBPF_CFLAGS)

sbin_PROGRAMS += recorder/uring-record
recorder_uring_record_SOURCES = \
	recorder/main.c \
	recorder/btf_info.c recorder/btf_info.h \
	recorder/command.c recorder/command.h \
	recorder/probes.c recorder/probes.h \
	recorder/ringbufs.c recorder/ringbufs.h \
	recorder/self_cost.c recorder/self_cost.h \
	recorder/status.c recorder/status.h \
	recorder/tracefs.c recorder/tracefs.h \
	recorder/writer.c recorder/writer.h
nodist_recorder_uring_record_SOURCES = bpf/uring_record.skel.h bpf/uring_record_direct.skel.h
# BUILT_SOURCES covers "make all"; this covers "make recorder/uring-record".
recorder/uring_record-main.$(OBJEXT) recorder/uring_record-probes.$(OBJEXT): \
	bpf/uring_record.skel.h bpf/uring_record_direct.skel.h
recorder_uring_record_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bpf -I$(top_builddir)/bpf
recorder_uring_record_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS) $(ZSTD_CFLAGS)
RECORDER_LIBS = recorder/librecorder.a $(COMMON_LIBS)
if STATIC_RECORDER
recorder_uring_record_LDFLAGS = $(AM_LDFLAGS) -static
recorder_uring_record_LDADD = $(RECORDER_LIBS) $(RECORDER_STATIC_LIBS)
else
recorder_uring_record_LDADD = $(RECORDER_LIBS) $(LIBBPF_LIBS) $(LIBELF_LIBS) $(ZLIB_LIBS)
endif
endif
