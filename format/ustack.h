/* SPDX-License-Identifier: MIT */
/*
 * ustack.h - format/'s private codec of a SAMPLE's USTACK field (user registers and a copy of
 * the user stack), shared by the writer and the decoder.
 *
 * Both sides keep the same per-segment table: for each thread, its last copy (address, bytes,
 * registers).  A copy is coded against it: the registers as deltas, the bytes XORed with the
 * bytes the last copy had at the same addresses.  The table starts empty at each segment, so a
 * segment decodes alone.  docs/capture-format.md, SAMPLE, bit 8.
 */
#ifndef PP_FORMAT_USTACK_H
#define PP_FORMAT_USTACK_H

#include <stdbool.h>
#include <stdint.h>

#include "format/internal.h"

#define PPF_USTACK_MAX_TIDS 1024	/* threads with a base in one segment; later ones: none */
#define PPF_USTACK_MAX_REGS 64

struct ppf_ustk_slot {
	uint32_t tid, gen;
	uint32_t sz, nr_regs;
	uint64_t addr;
	const uint8_t *bytes;		/* decoder: the segment's, or in @own; writer: @own */
	const uint64_t *regs;		/* decoder: the arena's; writer: @own_regs */
	uint8_t *own;			/* writer: the last copy; decoder: the stack's image */
	uint64_t *own_regs;
	uint32_t cap;
	uint64_t own_addr;		/* decoder: the user address of own[0] */
};

/* Open addressing on 2 * PPF_USTACK_MAX_TIDS slots; a slot of another gen is empty. */
struct ppf_ustk_tab {
	struct ppf_ustk_slot *slot;	/* NULL until the first copy */
	uint32_t gen, nr;
	bool owns;			/* the writer's: slots keep copies */
};

/** ppf_ustk_reset() - a new segment: forget every base (O(1)). */
void ppf_ustk_reset(struct ppf_ustk_tab *t);

/** ppf_ustk_release() - free the table; zeroed. */
void ppf_ustk_release(struct ppf_ustk_tab *t);

/** ppf_ustk_max() - the most bytes ppf_ustk_encode() writes for @s. */
size_t ppf_ustk_max(const struct ppf_sample *s);

/**
 * ppf_ustk_encode() - @s's USTACK field at @out, @s remembered as its thread's base
 * @runs: the XORed part as runs (a segment flagged PPF_SEGF_USTACK_RUNS)
 * Return: the bytes written, or -ENOMEM (nothing remembered).
 */
long ppf_ustk_encode(struct ppf_ustk_tab *t, const struct ppf_sample *s, bool runs, uint8_t *out);

/**
 * ppf_ustk_decode() - the USTACK field at *@pp (moved on) into @s (tid set)
 * @t: the decoder's table
 * @arena: room for the registers (and the bytes when not @in_place)
 * @in_place: the stored bytes may be rewritten (the XOR undone in them)
 * @runs: the segment is flagged PPF_SEGF_USTACK_RUNS: the bytes of a copy with a base are
 *	decoded into its thread's image of the stack (ustack.c), where the base is already:
 *	@s->ustack is then valid until the next copy of the thread, not the segment's end
 * Return: 0, or PP_EBAD_RECORD (malformed: a size over the limit, an XOR without a base ...).
 */
int ppf_ustk_decode(struct ppf_ustk_tab *t, struct ppf_arena *arena, bool in_place, bool runs,
		    const uint8_t **pp, const uint8_t *end, struct ppf_sample *s);

#endif
