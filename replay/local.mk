# replay/: uring-replay, the third program on the shared core: it reads
# logs through libcore/libcore.a (reader, merge, request model, as
# uring-convert does) and runs the recorded requests again over raw
# io_uring system calls.
bin_PROGRAMS += replay/uring-replay
replay_uring_replay_SOURCES = replay/main.c replay/plan.c replay/plan.h replay/streams.c \
	replay/run.c replay/run.h replay/targets.c replay/report.c \
	replay/report_replay.h replay/uring.c replay/uring.h
replay_uring_replay_LDADD = $(CORE_LIBS)
