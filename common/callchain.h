/* SPDX-License-Identifier: MIT */
/*
 * callchain.h - perf callchain context markers and trimming a chain to kernel or user frames.
 *
 * A perf callchain is innermost first, with marker words (PERF_CONTEXT_KERNEL,
 * PERF_CONTEXT_USER ...) telling which context the following frames belong to.
 * The values are the kernel's ABI (include/uapi/linux/perf_event.h).
 */
#ifndef PP_COMMON_CALLCHAIN_H
#define PP_COMMON_CALLCHAIN_H

#include <stdbool.h>
#include <stdint.h>

#define PP_CONTEXT_HV ((uint64_t)-32)
#define PP_CONTEXT_KERNEL ((uint64_t)-128)
#define PP_CONTEXT_USER ((uint64_t)-512)
#define PP_CONTEXT_GUEST ((uint64_t)-2048)
#define PP_CONTEXT_MAX ((uint64_t)-4095)
/*
 * pp's own marker, not the kernel's: the user frames before it are all that an unwind of a
 * stack copy could find (analyze/unwind.c); printed as [truncated], never an address.
 */
#define PP_CONTEXT_TRUNCATED ((uint64_t)-3072)

/* Addresses at or above this are kernel text on 64-bit Linux (x86_64 and arm64 alike). */
#define PP_KERNEL_ADDR_MIN 0xffff000000000000ull

/** pp_addr_is_kernel() - whether @addr is a kernel address. */
static inline bool pp_addr_is_kernel(uint64_t addr)
{
	return addr >= PP_KERNEL_ADDR_MIN && addr < PP_CONTEXT_MAX;
}

/**
 * pp_callchain_trim() - copy @in to @out keeping the kernel and/or the user frames
 * @in, @nr: the callchain as recorded, markers included
 * @out: room for @nr words
 * @kernel, @user: which parts to keep
 * Markers are kept for the parts kept; zero addresses (end of a broken unwind) are
 * dropped.  Return: the number of words written to @out.
 */
static inline uint32_t pp_callchain_trim(const uint64_t *in, uint32_t nr, uint64_t *out,
					 bool kernel, bool user)
{
	bool keep = true;
	uint32_t n = 0;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t a = in[i];
		if (a == PP_CONTEXT_TRUNCATED) {	/* ends the part it is in */
			if (keep)
				out[n++] = a;
			continue;
		}
		if (a >= PP_CONTEXT_MAX) {
			keep = a == PP_CONTEXT_USER ? user : kernel;
			if (keep)
				out[n++] = a;
			continue;
		}
		if (!a || !(keep && (pp_addr_is_kernel(a) ? kernel : user)))
			continue;
		out[n++] = a;
	}
	return n;
}

#endif
