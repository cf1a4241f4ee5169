# ringside.m4 - configure checks specific to ringside.

# RINGSIDE_CHECK_CFLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
# Does $CC accept FLAG (as an error, not a warning)?
AC_DEFUN([RINGSIDE_CHECK_CFLAG], [
	AS_VAR_PUSHDEF([cache], [ringside_cv_cflag_$1])
	AC_CACHE_CHECK([whether $CC accepts $1], [cache], [
		ringside_save_CFLAGS="$CFLAGS"
		CFLAGS="$CFLAGS -Werror $1"
		AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
			[AS_VAR_SET([cache], [yes])], [AS_VAR_SET([cache], [no])])
		CFLAGS="$ringside_save_CFLAGS"
	])
	AS_VAR_IF([cache], [yes], [$2], [$3])
	AS_VAR_POPDEF([cache])
])

# RINGSIDE_BPF_TARGET
# Work out the flags to compile bpf/*.bpf.c with $CLANG: the __TARGET_ARCH
# libbpf's bpf_tracing.h needs, and the multiarch directory holding
# <asm/types.h> (clang -target bpf does not search it).  Sets BPF_CFLAGS,
# ringside_bpf_ok and ringside_bpf_why.
AC_DEFUN([RINGSIDE_BPF_TARGET], [
	ringside_bpf_ok=no
	ringside_bpf_why=""
	case "$host_cpu" in
	x86_64) bpf_arch=x86 ;;
	aarch64) bpf_arch=arm64 ;;
	s390x) bpf_arch=s390 ;;
	powerpc64*|ppc64*) bpf_arch=powerpc ;;
	riscv64) bpf_arch=riscv ;;
	loongarch64) bpf_arch=loongarch ;;
	*) bpf_arch="" ;;
	esac
	multiarch=$($CC -print-multiarch 2>/dev/null)
	BPF_CFLAGS="-g -O2 -target bpf -D__TARGET_ARCH_$bpf_arch"
	AS_IF([test -n "$multiarch" && test -d "/usr/include/$multiarch"],
		[BPF_CFLAGS="$BPF_CFLAGS -idirafter /usr/include/$multiarch"])
	AS_IF([test -z "$bpf_arch"], [ringside_bpf_why="unsupported CPU $host_cpu"],
	      [test -n "$CLANG"], [
		AC_MSG_CHECKING([whether $CLANG compiles BPF programs])
		cat > conftest.bpf.c <<_EOF
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 4096); } rb SEC(".maps");
SEC("tp_btf/sched_switch") int prog(void *ctx) { return 0; }
char LICENSE[[]] SEC("license") = "GPL";
_EOF
		AS_IF([$CLANG $BPF_CFLAGS $LIBBPF_CFLAGS -c conftest.bpf.c -o conftest.bpf.o >&AS_MESSAGE_LOG_FD 2>&1],
			[ringside_bpf_ok=yes], [ringside_bpf_why="cannot compile a BPF program; see config.log"])
		rm -f conftest.bpf.c conftest.bpf.o
		AC_MSG_RESULT([$ringside_bpf_ok])
	])
	AC_SUBST([BPF_CFLAGS])
])

# RINGSIDE_STATIC_RECORDER_LIBS
# Static link line for uring-record: libbpf needs libelf, which needs zlib
# (and on Debian zstd); pkg-config --static lists them in the right order.
AC_DEFUN([RINGSIDE_STATIC_RECORDER_LIBS], [
	RECORDER_STATIC_LIBS=$($PKG_CONFIG --static --libs libbpf libelf libzstd zlib)
	ringside_save_LIBS="$LIBS"
	ringside_save_LDFLAGS="$LDFLAGS"
	LIBS="$RECORDER_STATIC_LIBS -pthread $LIBS"
	LDFLAGS="$LDFLAGS -static"
	AC_MSG_CHECKING([whether uring-record can be linked statically])
	AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <bpf/libbpf.h>
#include <zstd.h>]], [[return libbpf_major_version() + (int)ZSTD_versionNumber();]])],
		[AC_MSG_RESULT([yes])],
		[AC_MSG_RESULT([no])
		 AC_MSG_ERROR([static libbpf/libelf/zlib/libzstd archives are missing (Debian ships them in libbpf-dev libelf-dev zlib1g-dev libzstd-dev)])])
	LIBS="$ringside_save_LIBS"
	LDFLAGS="$ringside_save_LDFLAGS"
	AC_SUBST([RECORDER_STATIC_LIBS])
])
