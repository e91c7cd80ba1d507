/* SPDX-License-Identifier: MIT */
/*
 * unwind.h - whole user call stacks from a sample's user registers and stack copy
 * (--call-graph dwarf), with the rules of analyze/cfi.h.
 *
 * ana_unwind_user() is the walker alone: registers, a copy and a rule lookup in, frames out;
 * it reads nothing outside the copy and stops after ANA_UNWIND_MAX_FRAMES.  The session
 * (ana_unwind_sample()) joins the sample's kernel frames, PERF_CONTEXT_USER and the walk, so
 * every consumer of pp_event.stack gets the whole stack.
 */
#ifndef PP_ANALYZE_UNWIND_H
#define PP_ANALYZE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/cfi.h"
#include "format/format.h"

#define ANA_UNWIND_MAX_FRAMES 256

/* The user state at the sample: x86-64's IP, SP, BP, and the copy of the stack at SP. */
struct ana_unwind_in {
	uint32_t pid;
	uint64_t ip, sp, bp;
	uint64_t stack_addr;		/* the address of stack[0] */
	const uint8_t *stack;
	uint32_t stack_sz;
};

/* The rule lookup: ana_cfi_find(), or a test's (return 1 with *out, 0 for none). */
typedef int (*ana_unwind_find_fn)(void *arg, uint32_t pid, uint64_t addr,
				  struct ana_cfi_rule *out);

/**
 * ana_unwind_user() - walk the user stack of @in
 * @find, @arg: the rules
 * @out: room for @max frames (ip first, then each return address)
 * @truncated: set when the walk stopped before the outermost frame (a read outside the copy,
 *	no rule and no frame pointer to follow, a stack pointer going back, @max reached)
 * Return: the number of frames in @out (at least 1 when @max is).
 */
uint32_t ana_unwind_user(const struct ana_unwind_in *in, ana_unwind_find_fn find, void *arg,
			 uint64_t *out, uint32_t max, bool *truncated);

struct ana_session;
struct ana_unwind;

/** ana_unwind_new() - a session's unwinder: its rule cache and output room. */
struct ana_unwind *ana_unwind_new(void);
/** ana_unwind_free() - NULL is a no-op. */
void ana_unwind_free(struct ana_unwind *u);

/**
 * ana_unwind_sample() - @smp's whole callchain: its stored (kernel) part, PERF_CONTEXT_USER,
 * the unwound user frames, and PP_CONTEXT_TRUNCATED when the walk was cut short
 * @regs_mask: the event's attr.sample_regs_user (which of @smp->uregs are BP, SP, IP)
 * @nr: the number of words
 * Return: the chain, borrowed until the next call; NULL when @smp cannot be unwound (no
 * USTACK, registers that do not match @regs_mask): its stored chain stands.
 */
const uint64_t *ana_unwind_sample(struct ana_session *s, struct ana_unwind *u,
				  const struct ppf_sample *smp, uint64_t regs_mask, uint32_t *nr);

struct ana_evtype;
struct pp_event;

/**
 * ana_unwind_event() - @ev's stack: ana_unwind_sample() with the session's unwinder (made on
 * the first call) and @t's registers; @ev keeps the stored chain when it cannot be unwound
 */
void ana_unwind_event(struct ana_session *s, const struct ana_evtype *t,
		      const struct ppf_sample *smp, struct pp_event *ev);

/** ana_unwind_forget() - drop the cached rules (maps or tables changed); NULL is a no-op. */
void ana_unwind_forget(struct ana_unwind *u);

/** ana_unwind_counts() - how many stacks ana_unwind_sample() returned cut short, of how many. */
void ana_unwind_counts(const struct ana_unwind *u, uint64_t *nr_stacks, uint64_t *nr_truncated);

#endif
