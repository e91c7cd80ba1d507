/* SPDX-License-Identifier: MIT */
/*
 * crc32c.c - CRC32C (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * Slicing-by-8 tables built on first use; on x86-64 the SSE4.2 crc32
 * instruction (8 bytes an instruction, vs ~20 instructions per 8 bytes for
 * the tables) when the CPU has it, checked once at run time
 * (PP_CRC32C_NO_HW=1 in the environment forces the tables, for tests).
 * crc32c("123456789") == 0xE3069283.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_HW_CRC 1
#endif

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

#ifdef HAVE_HW_CRC
static bool hw_crc;

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const uint8_t *p,
							    size_t len)
{
	uint64_t c = ~crc;

	while (len >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return ~(uint32_t)c;
}
#endif

static void table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
#ifdef HAVE_HW_CRC
	__builtin_cpu_init();
	hw_crc = __builtin_cpu_supports("sse4.2") && !getenv("PP_CRC32C_NO_HW");
#endif
}

static uint32_t crc32c_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
			      (uint32_t)p[7] << 24;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

uint32_t ppf_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&table_once, table_init);
#ifdef HAVE_HW_CRC
	if (hw_crc)
		return crc32c_hw(crc, buf, len);
#endif
	return crc32c_sw(crc, buf, len);
}
