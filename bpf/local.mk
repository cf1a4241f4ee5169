# bpf/: the BPF programs of uring-record.  uring_record.bpf.c is compiled
# with clang for the BPF target (CO-RE: hand-written kernel types in
# kernel_types.bpf.h, relocated by libbpf at load time), stripped of DWARF
# (BTF stays) and embedded into uring-record through a bpftool skeleton, so
# nothing is installed or looked up at run time.

EXTRA_DIST += \
	bpf/uring_record.bpf.c \
	bpf/kernel_types.bpf.h \
	bpf/uring_record.h

if BUILD_RECORDER
# -mcpu=v3: atomic fetch-and-add / exchange for the per-CPU loss counters
# (kernel 5.12+; the recorder supports 6.1+).
BPF_BUILD_CFLAGS = $(BPF_CFLAGS) -mcpu=v3 -Wall -Werror $(LIBBPF_CFLAGS) \
	-I$(top_srcdir)/common -I$(top_srcdir)/bpf

bpf/uring_record.bpf.o: $(top_srcdir)/bpf/uring_record.bpf.c \
		$(top_srcdir)/bpf/kernel_types.bpf.h $(top_srcdir)/bpf/uring_record.h \
		$(top_srcdir)/common/uring_event.h
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(CLANG) $(BPF_BUILD_CFLAGS) -c $(top_srcdir)/bpf/uring_record.bpf.c -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv -f $@.tmp $@

bpf/uring_record.skel.h: bpf/uring_record.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name uring_record_bpf > $@.tmp && mv -f $@.tmp $@

BUILT_SOURCES += bpf/uring_record.skel.h
CLEANFILES += bpf/uring_record.bpf.o bpf/uring_record.skel.h
endif
