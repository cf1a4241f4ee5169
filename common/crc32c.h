/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef RINGSIDE_CRC32C_H
#define RINGSIDE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32C (Castagnoli, reflected, init and final xor 0xffffffff), the
 * checksum of every header and payload in a log.  crc32c(0, "123456789", 9)
 * is 0xe3069283.  Pass the previous result as crc to checksum in pieces.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* The table-driven implementation, whatever the CPU (for tests). */
uint32_t crc32c_portable(uint32_t crc, const void *buf, size_t len);

#endif
