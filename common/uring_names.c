// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "uring_names.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct flag_name iosqe_flag_names[] = {
	{ 1u << 0, "FIXED_FILE" },
	{ 1u << 1, "IO_DRAIN" },
	{ 1u << 2, "IO_LINK" },
	{ 1u << 3, "IO_HARDLINK" },
	{ 1u << 4, "ASYNC" },
	{ 1u << 5, "BUFFER_SELECT" },
	{ 1u << 6, "CQE_SKIP_SUCCESS" },
	{ 0, NULL },
};

const struct flag_name setup_flag_names[] = {
	{ 1u << 0, "IOPOLL" },
	{ 1u << 1, "SQPOLL" },
	{ 1u << 2, "SQ_AFF" },
	{ 1u << 3, "CQSIZE" },
	{ 1u << 4, "CLAMP" },
	{ 1u << 5, "ATTACH_WQ" },
	{ 1u << 6, "R_DISABLED" },
	{ 1u << 7, "SUBMIT_ALL" },
	{ 1u << 8, "COOP_TASKRUN" },
	{ 1u << 9, "TASKRUN_FLAG" },
	{ 1u << 10, "SQE128" },
	{ 1u << 11, "CQE32" },
	{ 1u << 12, "SINGLE_ISSUER" },
	{ 1u << 13, "DEFER_TASKRUN" },
	{ 1u << 14, "NO_MMAP" },		/* 6.5 */
	{ 1u << 15, "REGISTERED_FD_ONLY" },	/* 6.5 */
	{ 1u << 16, "NO_SQARRAY" },		/* 6.6 */
	{ 1u << 17, "HYBRID_IOPOLL" },		/* 6.13 */
	{ 1u << 18, "CQE_MIXED" },		/* 6.18 */
	{ 0, NULL },
};

const struct flag_name enter_flag_names[] = {
	{ 1u << 0, "GETEVENTS" },
	{ 1u << 1, "SQ_WAKEUP" },
	{ 1u << 2, "SQ_WAIT" },
	{ 1u << 3, "EXT_ARG" },
	{ 1u << 4, "REGISTERED_RING" },
	{ 1u << 5, "ABS_TIMER" },		/* 6.12 */
	{ 1u << 6, "EXT_ARG_REG" },		/* 6.13 */
	{ 1u << 7, "NO_IOWAIT" },		/* 6.15 */
	{ 0, NULL },
};

const struct flag_name cqe_flag_names[] = {
	{ 1u << 0, "BUFFER" },
	{ 1u << 1, "MORE" },
	{ 1u << 2, "SOCK_NONEMPTY" },
	{ 1u << 3, "NOTIF" },
	{ 1u << 4, "BUF_MORE" },		/* 6.12 */
	{ 1u << 5, "SKIP" },			/* 6.18 */
	{ 1u << 15, "32" },			/* 6.18 */
	{ 0, NULL },
};

const struct flag_name poll_mask_names[] = {
	{ 0x0001, "POLLIN" },
	{ 0x0002, "POLLPRI" },
	{ 0x0004, "POLLOUT" },
	{ 0x0008, "POLLERR" },
	{ 0x0010, "POLLHUP" },
	{ 0x0020, "POLLNVAL" },
	{ 0x0040, "POLLRDNORM" },
	{ 0x0080, "POLLRDBAND" },
	{ 0x0100, "POLLWRNORM" },
	{ 0x0200, "POLLWRBAND" },
	{ 0x0400, "POLLMSG" },
	{ 0x2000, "POLLRDHUP" },
	{ 1u << 28, "EPOLLEXCLUSIVE" },
	{ 1u << 29, "EPOLLWAKEUP" },
	{ 1u << 30, "EPOLLONESHOT" },
	{ 1u << 31, "EPOLLET" },
	{ 0, NULL },
};

bool flag_name_append(char *buf, size_t len, size_t *off, const char *name)
{
	size_t n = strlen(name), sep = *off ? 1 : 0;

	if (*off + sep + n >= len) {
		buf[*off] = '\0';	/* never a partial name */
		return false;
	}
	if (sep)
		buf[(*off)++] = '|';
	memcpy(buf + *off, name, n + 1);
	*off += n;
	return true;
}

char *format_flags(char *buf, size_t len, uint64_t flags, const struct flag_name *table)
{
	size_t off = 0;
	uint64_t rest = flags;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (const struct flag_name *f = table; f->name; f++) {
		if (!(flags & f->bit))
			continue;
		if (!flag_name_append(buf, len, &off, f->name))
			return buf;
		rest &= ~f->bit;
	}
	if (rest) {
		int n = snprintf(buf + off, len - off, "%s0x%llx", off ? "|" : "",
				 (unsigned long long)rest);

		if (n < 0 || (size_t)n >= len - off)
			buf[off] = '\0';
	}
	return buf;
}

/* Linux include/uapi/linux/io_uring.h, enum io_uring_op, as of 6.18. */
static const char *const opcode_names[] = {
	"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED",
	"POLL_ADD", "POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG",
	"TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT",
	"CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX",
	"READ", "WRITE", "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2",
	"EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS", "REMOVE_BUFFERS", "TEE",
	"SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT",
	"MSG_RING", "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET",
	"URING_CMD", "SEND_ZC", "SENDMSG_ZC", "READ_MULTISHOT", "WAITID",
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL",
	"FTRUNCATE", "BIND", "LISTEN", "RECV_ZC", "EPOLL_WAIT", "READV_FIXED",
	"WRITEV_FIXED", "PIPE",
};

const char *uring_opcode_name(unsigned op)
{
	return op < ARRAY_SIZE(opcode_names) ? opcode_names[op] : NULL;
}

unsigned uring_opcode_count(void)
{
	return ARRAY_SIZE(opcode_names);
}

/* enum io_uring_register_op, as of 6.18. */
static const char *const register_names[] = {
	"REGISTER_BUFFERS", "UNREGISTER_BUFFERS", "REGISTER_FILES",
	"UNREGISTER_FILES", "REGISTER_EVENTFD", "UNREGISTER_EVENTFD",
	"REGISTER_FILES_UPDATE", "REGISTER_EVENTFD_ASYNC", "REGISTER_PROBE",
	"REGISTER_PERSONALITY", "UNREGISTER_PERSONALITY",
	"REGISTER_RESTRICTIONS", "REGISTER_ENABLE_RINGS", "REGISTER_FILES2",
	"REGISTER_FILES_UPDATE2", "REGISTER_BUFFERS2",
	"REGISTER_BUFFERS_UPDATE", "REGISTER_IOWQ_AFF", "UNREGISTER_IOWQ_AFF",
	"REGISTER_IOWQ_MAX_WORKERS", "REGISTER_RING_FDS",
	"UNREGISTER_RING_FDS", "REGISTER_PBUF_RING", "UNREGISTER_PBUF_RING",
	"REGISTER_SYNC_CANCEL", "REGISTER_FILE_ALLOC_RANGE",
	"REGISTER_PBUF_STATUS", "REGISTER_NAPI", "UNREGISTER_NAPI",
	"REGISTER_CLOCK", "REGISTER_CLONE_BUFFERS", "REGISTER_SEND_MSG_RING",
	"REGISTER_ZCRX_IFQ", "REGISTER_RESIZE_RINGS", "REGISTER_MEM_REGION",
	"REGISTER_QUERY",
};

const char *uring_register_opcode_name(unsigned op)
{
	/* IORING_REGISTER_USE_REGISTERED_RING (bit 31) is a modifier. */
	op &= ~(1u << 31);
	return op < ARRAY_SIZE(register_names) ? register_names[op] : NULL;
}

/* include/uapi/asm-generic/errno-base.h and errno.h (x86, arm64, ...). */
static const char *const errno_names[] = {
	[1] = "EPERM", [2] = "ENOENT", [3] = "ESRCH", [4] = "EINTR", [5] = "EIO",
	[6] = "ENXIO", [7] = "E2BIG", [8] = "ENOEXEC", [9] = "EBADF",
	[10] = "ECHILD", [11] = "EAGAIN", [12] = "ENOMEM", [13] = "EACCES",
	[14] = "EFAULT", [15] = "ENOTBLK", [16] = "EBUSY", [17] = "EEXIST",
	[18] = "EXDEV", [19] = "ENODEV", [20] = "ENOTDIR", [21] = "EISDIR",
	[22] = "EINVAL", [23] = "ENFILE", [24] = "EMFILE", [25] = "ENOTTY",
	[26] = "ETXTBSY", [27] = "EFBIG", [28] = "ENOSPC", [29] = "ESPIPE",
	[30] = "EROFS", [31] = "EMLINK", [32] = "EPIPE", [33] = "EDOM",
	[34] = "ERANGE", [35] = "EDEADLK", [36] = "ENAMETOOLONG", [37] = "ENOLCK",
	[38] = "ENOSYS", [39] = "ENOTEMPTY", [40] = "ELOOP", [42] = "ENOMSG",
	[43] = "EIDRM", [44] = "ECHRNG", [45] = "EL2NSYNC", [46] = "EL3HLT",
	[47] = "EL3RST", [48] = "ELNRNG", [49] = "EUNATCH", [50] = "ENOCSI",
	[51] = "EL2HLT", [52] = "EBADE", [53] = "EBADR", [54] = "EXFULL",
	[55] = "ENOANO", [56] = "EBADRQC", [57] = "EBADSLT", [59] = "EBFONT",
	[60] = "ENOSTR", [61] = "ENODATA", [62] = "ETIME", [63] = "ENOSR",
	[64] = "ENONET", [65] = "ENOPKG", [66] = "EREMOTE", [67] = "ENOLINK",
	[68] = "EADV", [69] = "ESRMNT", [70] = "ECOMM", [71] = "EPROTO",
	[72] = "EMULTIHOP", [73] = "EDOTDOT", [74] = "EBADMSG", [75] = "EOVERFLOW",
	[76] = "ENOTUNIQ", [77] = "EBADFD", [78] = "EREMCHG", [79] = "ELIBACC",
	[80] = "ELIBBAD", [81] = "ELIBSCN", [82] = "ELIBMAX", [83] = "ELIBEXEC",
	[84] = "EILSEQ", [85] = "ERESTART", [86] = "ESTRPIPE", [87] = "EUSERS",
	[88] = "ENOTSOCK", [89] = "EDESTADDRREQ", [90] = "EMSGSIZE",
	[91] = "EPROTOTYPE", [92] = "ENOPROTOOPT", [93] = "EPROTONOSUPPORT",
	[94] = "ESOCKTNOSUPPORT", [95] = "EOPNOTSUPP", [96] = "EPFNOSUPPORT",
	[97] = "EAFNOSUPPORT", [98] = "EADDRINUSE", [99] = "EADDRNOTAVAIL",
	[100] = "ENETDOWN", [101] = "ENETUNREACH", [102] = "ENETRESET",
	[103] = "ECONNABORTED", [104] = "ECONNRESET", [105] = "ENOBUFS",
	[106] = "EISCONN", [107] = "ENOTCONN", [108] = "ESHUTDOWN",
	[109] = "ETOOMANYREFS", [110] = "ETIMEDOUT", [111] = "ECONNREFUSED",
	[112] = "EHOSTDOWN", [113] = "EHOSTUNREACH", [114] = "EALREADY",
	[115] = "EINPROGRESS", [116] = "ESTALE", [117] = "EUCLEAN",
	[118] = "ENOTNAM", [119] = "ENAVAIL", [120] = "EISNAM",
	[121] = "EREMOTEIO", [122] = "EDQUOT", [123] = "ENOMEDIUM",
	[124] = "EMEDIUMTYPE", [125] = "ECANCELED", [126] = "ENOKEY",
	[127] = "EKEYEXPIRED", [128] = "EKEYREVOKED", [129] = "EKEYREJECTED",
	[130] = "EOWNERDEAD", [131] = "ENOTRECOVERABLE", [132] = "ERFKILL",
	[133] = "EHWPOISON",
	/* Kernel-internal values that can leak into a CQE res. */
	[512] = "ERESTARTSYS", [513] = "ERESTARTNOINTR",
	[514] = "ERESTARTNOHAND", [515] = "ENOIOCTLCMD",
	[516] = "ERESTART_RESTARTBLOCK", [517] = "EPROBE_DEFER",
	[518] = "EOPENSTALE", [519] = "ENOPARAM", [521] = "EBADHANDLE",
	[522] = "ENOTSYNC", [523] = "EBADCOOKIE", [524] = "ENOTSUPP",
	[525] = "ETOOSMALL", [526] = "ESERVERFAULT", [527] = "EBADTYPE",
	[528] = "EJUKEBOX", [529] = "EIOCBQUEUED", [530] = "ERECALLCONFLICT",
	[531] = "ENOGRACE",
};

const char *errno_name(int err)
{
	if (err <= 0 || (size_t)err >= ARRAY_SIZE(errno_names))
		return NULL;
	return errno_names[err];
}
