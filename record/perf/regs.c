/* SPDX-License-Identifier: MIT */
/*
 * regs.c - the register set recorded with breakpoint samples, and reading it back.
 *
 * The mask is the perf_regs numbering of the architecture (uapi
 * asm/perf_regs.h): on x86_64 AX..SS (0-11) and R8..R15 (16-23), the
 * segment registers DS..GS being zero in 64-bit mode; on arm64 X0..X30, SP
 * and PC (0-32).  Other architectures record no registers.
 */
#include <string.h>

#include "record/perf/regs.h"

#if defined(__x86_64__)
#define REGS_MASK (0xfffull | (0xffull << 16))
#elif defined(__aarch64__)
#define REGS_MASK ((1ull << 33) - 1)
#else
#define REGS_MASK 0ull
#endif

void rec_regs_attr(struct perf_event_attr *a)
{
	if (!REGS_MASK)
		return;
	a->sample_type |= PERF_SAMPLE_REGS_INTR;
	a->sample_regs_intr = REGS_MASK;
}

int rec_regs_take(const uint8_t **p, const uint8_t *end, uint64_t mask, struct ppf_sample *smp)
{
	uint64_t abi;
	size_t sz = 8;

	if (end - *p < 8)
		return -1;
	memcpy(&abi, *p, 8);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE)
		sz += 8 * (size_t)__builtin_popcountll(mask);
	if ((size_t)(end - *p) < sz)
		return -1;
	smp->extra = *p;
	smp->extra_sz = (uint32_t)sz;
	*p += sz;
	return 0;
}
