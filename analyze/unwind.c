/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - the user frames of a --call-graph dwarf sample, from its registers and stack copy.
 *
 * Each step finds the rule of the frame's pc (the ip for the first frame, the return address
 * - 1 for the others: a call's return address may be the first byte of the next function),
 * computes the CFA (the caller's stack pointer) and reads the return address and the
 * caller's frame pointer where the rule says.  Without a rule it takes one frame-pointer
 * step.  The copy and the rules come from strangers: every read is bounds-checked against
 * the copy, the stack pointer must grow at each step (no cycle), and the walk ends after
 * ANA_UNWIND_MAX_FRAMES; a walk that cannot go on is marked truncated, never guessed.
 * Rules are cached per (pid, pc), as a profile's samples hit the same few hundred pcs.
 * Not here: the tables (cfi.c), naming the frames (symbols.c).
 */
#include <stddef.h>
#include <stdlib.h>

#include <linux/perf_event.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/unwind.h"
#include "common/callchain.h"
#include "common/log.h"

#define CACHE_SZ 4096		/* a power of 2 */

struct rule_slot {
	uint64_t pc;
	uint32_t pid;
	uint32_t gen;			/* valid when the unwinder's */
	bool found;
	struct ana_cfi_rule rule;
};

struct ana_unwind {
	struct rule_slot cache[CACHE_SZ];
	uint64_t buf[PPF_MAX_STACK + 3 + ANA_UNWIND_MAX_FRAMES];
	uint64_t nr_stacks, nr_truncated;
	uint32_t gen;			/* starts at 1: a zeroed slot is empty */
};

/* The 8 bytes at user address @addr, if the copy holds them all. */
static inline bool read8(const struct ana_unwind_in *in, uint64_t addr, uint64_t *v)
{
	uint64_t off = addr - in->stack_addr;

	if (addr < in->stack_addr || in->stack_sz < 8 || off > in->stack_sz - 8)
		return false;
	memcpy(v, in->stack + off, 8);
	return true;
}

/* One step by rule @r from (pc, sp, bp): the CFA, the return address, the caller's bp. */
static bool step_rule(const struct ana_unwind_in *in, const struct ana_cfi_rule *r, uint64_t pc,
		      uint64_t sp, uint64_t bp, uint64_t *cfa, uint64_t *ra, uint64_t *nbp)
{
	switch (r->cfa) {
	case ANA_CFA_SP:
		*cfa = sp + (uint64_t)(int64_t)r->cfa_off;
		break;
	case ANA_CFA_FP:
		*cfa = bp + (uint64_t)(int64_t)r->cfa_off;
		break;
	case ANA_CFA_PLT:	/* the PLT's CFA expression: one push more in its second half */
		*cfa = sp + (r->cfa_off ? (uint64_t)(int64_t)r->cfa_off : 8) +
		       ((pc & 15) >= 11 ? 8 : 0);
		break;
	default:
		return false;
	}
	if (r->ra != ANA_REG_AT_CFA || !read8(in, *cfa + (uint64_t)(int64_t)r->ra_off, ra))
		return false;
	*nbp = bp;
	/*
	 * A slot below the stack pointer was popped already (an epilogue: CFI keeps the
	 * save's rule to the end of the function) and rbp holds the caller's value again.
	 */
	if (r->fp == ANA_REG_AT_CFA && *cfa + (uint64_t)(int64_t)r->fp_off >= sp)
		return read8(in, *cfa + (uint64_t)(int64_t)r->fp_off, nbp);
	if (r->fp == ANA_REG_UNDEF)
		*nbp = 0;
	return true;
}

uint32_t ana_unwind_user(const struct ana_unwind_in *in, ana_unwind_find_fn find, void *arg,
			 uint64_t *out, uint32_t max, bool *truncated)
{
	uint64_t pc = in->ip, sp = in->sp, bp = in->bp;
	uint32_t n = 0;

	*truncated = false;
	if (!max)
		return 0;
	out[n++] = pc;
	while (n < max) {
		struct ana_cfi_rule r;
		uint64_t cfa, ra, nbp;
		bool ok;

		if (find(arg, in->pid, n == 1 ? pc : pc - 1, &r) == 1) {
			if (r.ra == ANA_REG_UNDEF)
				return n;	/* the outermost frame (_start, a thread's start) */
			ok = step_rule(in, &r, pc, sp, bp, &cfa, &ra, &nbp);
		} else if (!bp) {	/* the psABI's mark of the outermost frame (_start's) */
			return n;
		} else {	/* no table: one frame-pointer step, if bp points into the copy */
			ok = bp >= sp && read8(in, bp, &nbp) && read8(in, bp + 8, &ra);
			cfa = bp + 16;
		}
		if (ok && !ra)
			return n;		/* a zero return address ends a chain */
		if (!ok || cfa <= sp || ra >= PP_CONTEXT_MAX ||
		    pp_addr_is_kernel(ra))
			break;
		out[n++] = ra;
		pc = ra;
		sp = cfa;
		bp = nbp;
	}
	*truncated = true;
	return n;
}

struct ana_unwind *ana_unwind_new(void)
{
	struct ana_unwind *u = pp_xcalloc(1, sizeof(*u));

	u->gen = 1;
	return u;
}

void ana_unwind_free(struct ana_unwind *u)
{
	free(u);
}

bool ana_unwind_meta_type(uint32_t type)
{
	return type == PPF_REC_TASK || type == PPF_REC_COMM || type == PPF_REC_FORK ||
	       type == PPF_REC_EXIT || type == PPF_REC_MMAP || type == PPF_REC_DSO ||
	       type == PPF_REC_SYM || type == PPF_REC_UNWIND;
}

void ana_unwind_forget(struct ana_unwind *u)
{
	if (!u)
		return;
	if (++u->gen == 0) {	/* wrapped: no slot may look current */
		memset(u->cache, 0, sizeof(u->cache));
		u->gen = 1;
	}
}

void ana_unwind_counts(const struct ana_unwind *u, uint64_t *nr_stacks, uint64_t *nr_truncated)
{
	*nr_stacks = u ? u->nr_stacks : 0;
	*nr_truncated = u ? u->nr_truncated : 0;
}

struct find_ctx {
	struct ana_session *s;
	struct ana_unwind *u;
	uint64_t time_ns;		/* the sample's: the maps as they were when it was taken */
};

static int cached_find(void *arg, uint32_t pid, uint64_t pc, struct ana_cfi_rule *out)
{
	struct find_ctx *c = arg;
	struct rule_slot *sl = &c->u->cache[((pc * 0x9e3779b97f4a7c15ull) >> 52 ^ pid) &
					    (CACHE_SZ - 1)];

	if (sl->gen != c->u->gen || sl->pc != pc || sl->pid != pid) {
		sl->gen = c->u->gen;
		sl->pc = pc;
		sl->pid = pid;
		memset(&sl->rule, 0, sizeof(sl->rule));
		sl->found = ana_cfi_find_at(c->s, pid, c->time_ns, pc, &sl->rule) == 1;
	}
	*out = sl->rule;
	return sl->found;
}

/* The index in the sample's registers of perf register @bit, or -1 when not recorded. */
static int reg_index(uint64_t mask, unsigned bit)
{
	if (!(mask & (1ull << bit)))
		return -1;
	return __builtin_popcountll(mask & ((1ull << bit) - 1));
}

const uint64_t *ana_unwind_sample(struct ana_session *s, struct ana_unwind *u,
				  const struct ppf_sample *smp, uint64_t regs_mask, uint32_t *nr)
{
	int ibp = reg_index(regs_mask, 6), isp = reg_index(regs_mask, 7),
	    iip = reg_index(regs_mask, 8);	/* PERF_REG_X86_BP, SP, IP */
	struct find_ctx c = { s, u, smp->time_ns ? smp->time_ns : UINT64_MAX };
	uint32_t n = 0, got;
	bool truncated;

	if (ibp < 0 || isp < 0 || iip < 0 || !smp->nr_uregs ||
	    smp->nr_uregs != (uint32_t)__builtin_popcountll(regs_mask))
		return NULL;
	struct ana_unwind_in in = {
		.pid = smp->pid, .ip = smp->uregs[iip], .sp = smp->uregs[isp],
		.bp = smp->uregs[ibp], .stack_addr = smp->ustack_addr, .stack = smp->ustack,
		.stack_sz = smp->ustack_sz,
	};
	/* the stored part: the kernel's frames (the user part was left to the copy) */
	for (uint32_t i = 0; i < smp->nr_stack && i < PPF_MAX_STACK; i++) {
		if (smp->stack[i] == PP_CONTEXT_USER)
			break;
		u->buf[n++] = smp->stack[i];
	}
	u->buf[n++] = PP_CONTEXT_USER;
	got = ana_unwind_user(&in, cached_find, &c, u->buf + n, ANA_UNWIND_MAX_FRAMES,
			      &truncated);
	n += got;
	u->nr_stacks++;
	if (truncated) {
		u->buf[n++] = PP_CONTEXT_TRUNCATED;
		u->nr_truncated++;
	}
	*nr = n;
	return u->buf;
}

void ana_unwind_event(struct ana_session *s, const struct ana_evtype *t,
		      const struct ppf_sample *smp, struct pp_event *ev)
{
	const struct perf_event_attr *a = t->attr;
	const uint64_t *chain;
	uint32_t nr;

	if (!a || t->attr_sz < offsetof(struct perf_event_attr, sample_regs_user) + 8)
		return;
	if (!s->unwind)
		s->unwind = ana_unwind_new();
	chain = ana_unwind_sample(s, s->unwind, smp, a->sample_regs_user, &nr);
	if (chain) {
		ev->stack = chain;
		ev->nr_stack = nr;
	}
}
