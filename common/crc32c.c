// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CRC-32C with the SSE4.2 instruction where the CPU has it (x86-64), else
 * slicing-by-8 tables: the converter checks every payload it reads, so this
 * sits on its hot path.
 */
#include <pthread.h>
#include <string.h>

#include "crc32c.h"

#define CRC32C_POLY 0x82f63b78u	/* reflected Castagnoli polynomial */

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		crc_table[0][n] = c;
	}
	for (uint32_t n = 0; n < 256; n++)
		for (int t = 1; t < 8; t++)
			crc_table[t][n] = (crc_table[t - 1][n] >> 8) ^
					  crc_table[0][crc_table[t - 1][n] & 0xff];
}

static uint32_t crc32c_soft(uint32_t crc, const unsigned char *p, size_t len)
{
	pthread_once(&crc_table_once, crc_table_init);
	while (len && ((uintptr_t)p & 7)) {
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		/* Little-endian word order, as the reflected CRC wants. */
		uint32_t lo = (uint32_t)w ^ crc;
		uint32_t hi = (uint32_t)(w >> 32);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const unsigned char *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

static int have_sse42(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	return cached;
}
#endif

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (have_sse42())
		return ~crc32c_sse42(crc, p, len);
#endif
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		pthread_once(&crc_table_once, crc_table_init);
		while (len--)
			crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		return ~crc;
	}
	return ~crc32c_soft(crc, p, len);
}

uint32_t crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) {
		const unsigned char *p = buf;

		pthread_once(&crc_table_once, crc_table_init);
		crc = ~crc;
		while (len--)
			crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		return ~crc;
	}
	return ~crc32c_soft(~crc, buf, len);
}
