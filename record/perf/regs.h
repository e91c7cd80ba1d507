/* SPDX-License-Identifier: MIT */
/*
 * regs.h - interrupted-context registers (PERF_SAMPLE_REGS_INTR) of breakpoint samples, and
 * the user registers and stack copy of --call-graph dwarf (REGS_USER, STACK_USER).
 *
 * A breakpoint hit is only useful with the registers of the code that hit
 * it.  The registers go into the sample's EXTRA bytes exactly as perf lays
 * them out: u64 abi, then one u64 per bit set in attr.sample_regs_intr, in
 * bit order (docs/capture-format.md: "layout given by the event's attr").
 */
#ifndef PP_RECORD_REGS_H
#define PP_RECORD_REGS_H

#include <stdint.h>

#include <linux/perf_event.h>

#include "format/format.h"

/** rec_regs_attr() - ask for the general-purpose registers of the machine with each sample. */
void rec_regs_attr(struct perf_event_attr *a);

/**
 * rec_regs_take() - the REGS_INTR block of a sample at *@p, kept as @smp's extra bytes
 * @p: the read position, advanced past the block
 * @end: the end of the record
 * @mask: attr.sample_regs_intr
 * Return: 0, or -1 when the record is too short (the sample is then dropped).
 */
int rec_regs_take(const uint8_t **p, const uint8_t *end, uint64_t mask, struct ppf_sample *smp);

/**
 * rec_regs_user_attr() - --call-graph dwarf: the user registers unwinding needs and @stack_sz
 * bytes of the user stack with each sample of @a.
 */
void rec_regs_user_attr(struct perf_event_attr *a, uint32_t stack_sz);

/**
 * rec_regs_user_take() - the REGS_USER and STACK_USER blocks at *@p into @smp's USTACK fields
 * @p: the read position, advanced past them
 * @end: the end of the record
 * @a: the event's attr (which blocks, which registers)
 * Only the valid part of the copy (dyn_size) is kept; a sample without user registers (a
 * kernel thread's) gets no USTACK.
 * Return: 0, or -1 when the record is too short (the sample is then dropped).
 */
int rec_regs_user_take(const uint8_t **p, const uint8_t *end, const struct perf_event_attr *a,
		       struct ppf_sample *smp);

#endif
