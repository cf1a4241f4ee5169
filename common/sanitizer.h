/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * RINGSIDE_ASAN: 1 when built with AddressSanitizer, else 0.  GCC defines
 * __SANITIZE_ADDRESS__; clang (before 17) only answers __has_feature().
 */
#ifndef RINGSIDE_SANITIZER_H
#define RINGSIDE_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define RINGSIDE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RINGSIDE_ASAN 1
#endif
#endif
#ifndef RINGSIDE_ASAN
#define RINGSIDE_ASAN 0
#endif

#endif
