# bpf/: the BPF programs of uring-record.  uring_record.bpf.c is compiled
# with clang for the BPF target (CO-RE: hand-written kernel types in
# kernel_types.bpf.h, relocated by libbpf at load time), stripped of DWARF
# (BTF stays) and embedded into uring-record through a bpftool skeleton, so
# nothing is installed or looked up at run time.

EXTRA_DIST += \
	bpf/uring_record.bpf.c \
	bpf/kernel_types.bpf.h \
	bpf/kernel_reads.bpf.h \
	bpf/files.bpf.h \
	bpf/emit.bpf.h \
	bpf/filter.bpf.h \
	bpf/sample.bpf.h \
	bpf/syscalls.bpf.h \
	bpf/stage.h \
	bpf/uring_record.h

if BUILD_RECORDER
# -mcpu=v3: atomic fetch-and-add / exchange for the per-CPU loss counters
# (kernel 5.12+; the recorder supports 6.1+).
BPF_BUILD_CFLAGS = $(BPF_CFLAGS) -mcpu=v3 -Wall -Werror $(LIBBPF_CFLAGS) \
	-I$(top_srcdir)/common -I$(top_srcdir)/bpf

BPF_DEPS = $(top_srcdir)/bpf/uring_record.bpf.c $(top_srcdir)/bpf/kernel_types.bpf.h \
	$(top_srcdir)/bpf/kernel_reads.bpf.h $(top_srcdir)/bpf/files.bpf.h \
	$(top_srcdir)/bpf/emit.bpf.h \
	$(top_srcdir)/bpf/filter.bpf.h $(top_srcdir)/bpf/syscalls.bpf.h \
	$(top_srcdir)/bpf/sample.bpf.h \
	$(top_srcdir)/bpf/stage.h $(top_srcdir)/bpf/uring_record.h \
	$(top_srcdir)/common/uring_event.h

# Two builds of one source: kernel memory read with bpf_probe_read_kernel()
# (any kernel), and with direct loads through bpf_rdonly_cast() (6.2+,
# UR_DIRECT_LOADS: "kernel reads" in uring_record.bpf.c).  recorder/probes.c
# opens one of them through the first build's skeleton, so the two must
# declare the same maps, programs and variables: the direct build's
# skeleton, renamed, must equal the first one but for the object's bytes.
bpf/uring_record.bpf.o: $(BPF_DEPS)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(CLANG) $(BPF_BUILD_CFLAGS) -c $(top_srcdir)/bpf/uring_record.bpf.c -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv -f $@.tmp $@

bpf/uring_record_direct.bpf.o: $(BPF_DEPS)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(CLANG) $(BPF_BUILD_CFLAGS) -DUR_DIRECT_LOADS \
		-c $(top_srcdir)/bpf/uring_record.bpf.c -o $@.tmp && \
		$(LLVM_STRIP) -g $@.tmp && mv -f $@.tmp $@

bpf/uring_record.skel.h: bpf/uring_record.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name uring_record_bpf > $@.tmp && mv -f $@.tmp $@

# The elf_bytes() definitions (the object's bytes, laid out differently by
# each bpftool version) are dropped before comparing.
SKEL_SHAPE = sed -e 's/uring_record_direct_bpf/uring_record_bpf/g' \
	-e 's/URING_RECORD_DIRECT_BPF/URING_RECORD_BPF/g' \
	-e '/^static inline const void \*uring_record_bpf__elf_bytes(size_t \*sz)$$/,/^}$$/d'

bpf/uring_record_direct.skel.h: bpf/uring_record_direct.bpf.o bpf/uring_record.skel.h
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name uring_record_direct_bpf > $@.tmp && \
	$(SKEL_SHAPE) $@.tmp > $@.shape && $(SKEL_SHAPE) bpf/uring_record.skel.h > $@.shape0 && \
	if ! cmp -s $@.shape $@.shape0; then \
		echo "bpf/: the two builds of uring_record.bpf.c differ in maps, programs or variables:" >&2; \
		diff $@.shape0 $@.shape | head -20 >&2; rm -f $@.tmp $@.shape $@.shape0; exit 1; \
	fi && rm -f $@.shape $@.shape0 && mv -f $@.tmp $@

BUILT_SOURCES += bpf/uring_record.skel.h bpf/uring_record_direct.skel.h
CLEANFILES += bpf/uring_record.bpf.o bpf/uring_record.skel.h \
	bpf/uring_record_direct.bpf.o bpf/uring_record_direct.skel.h
endif
