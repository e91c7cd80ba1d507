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

/* BP, SP, IP (uapi asm/perf_regs.h: PERF_REG_X86_BP 6, SP 7, IP 8): what unwinding reads */
#define USER_REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8))

void rec_regs_user_attr(struct perf_event_attr *a, uint32_t stack_sz)
{
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = USER_REGS_MASK;
	a->sample_stack_user = stack_sz;
	a->exclude_callchain_user = 1;	/* the user frames come from the copy */
}

int rec_regs_user_take(const uint8_t **p, const uint8_t *end, const struct perf_event_attr *a,
		       struct ppf_sample *smp)
{
	uint64_t abi, sz, dyn = 0;
	size_t nr = 0;

	if (a->sample_type & PERF_SAMPLE_REGS_USER) {
		if (end - *p < 8)
			return -1;
		memcpy(&abi, *p, 8);
		*p += 8;
		if (abi != PERF_SAMPLE_REGS_ABI_NONE)
			nr = (size_t)__builtin_popcountll(a->sample_regs_user);
		if ((size_t)(end - *p) / 8 < nr || nr > 64)
			return -1;
		smp->uregs_abi = abi;
		smp->uregs = (const uint64_t *)*p;	/* 8-aligned: the queue keeps alignment */
		smp->nr_uregs = (uint32_t)nr;
		*p += nr * 8;
	}
	if (a->sample_type & PERF_SAMPLE_STACK_USER) {
		if (end - *p < 8)
			return -1;
		memcpy(&sz, *p, 8);
		*p += 8;
		if (sz > (uint64_t)(end - *p))
			return -1;
		smp->ustack = *p;
		*p += sz;
		if (sz) {	/* dyn_size follows a copy: how much of it is the stack */
			if (end - *p < 8)
				return -1;
			memcpy(&dyn, *p, 8);
			*p += 8;
		}
		smp->ustack_sz = (uint32_t)(dyn < sz ? dyn : sz);
	}
	/* no user context (a kernel thread): nothing to unwind */
	if (smp->uregs_abi != PERF_SAMPLE_REGS_ABI_NONE && smp->nr_uregs == 3) {
		smp->ustack_addr = smp->uregs[1];	/* SP: the copy starts there */
		smp->flags |= PPF_SF_USTACK;
	}
	return 0;
}
