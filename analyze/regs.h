/* SPDX-License-Identifier: MIT */
/*
 * regs.h - the interrupted registers a sample carries (perf's REGS_INTR layout in the
 * sample's extra bytes: the ABI word, then one u64 per bit set in the event's mask),
 * and perf-prof's x86_64 text layout of them.  Shared by breakpoint and page-faults.
 */
#ifndef PP_ANALYZE_REGS_H
#define PP_ANALYZE_REGS_H

#include <stdbool.h>
#include <stdint.h>

struct pp_event;
struct pp_buf;

/* The registers of one sample, by perf_regs bit. */
struct ana_regs {
	uint64_t abi;
	uint64_t v[64];
	uint64_t have;			/* bit i: v[i] recorded */
};

/**
 * ana_regs_get() - unpack @ev's registers recorded with @mask
 * Return: false when it has none (no mask, no extra bytes, ABI none); a record cut short
 * keeps the registers before the cut (r->have says which).
 */
bool ana_regs_get(const struct pp_event *ev, uint64_t mask, struct ana_regs *r);

/**
 * ana_regs_print_x86() - RIP/RSP/RFLAGS, the general registers three a line, CS/SS, as
 * perf-prof prints them (perf_regs numbering AX=0 ... SS=11, R8=16 ... R15=23)
 */
void ana_regs_print_x86(const struct ana_regs *r, struct pp_buf *out);

#endif
