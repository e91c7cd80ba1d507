/* SPDX-License-Identifier: MIT */
/*
 * kmemleak-internal.h - what kmemleak.c (the replay and the report) and
 * kmemleak-merge.c (its mergeable state) share: the analyzer's types, its object
 * pool and how it prints a stack.  Not for the plan part (kmemleak.h is).
 */
#ifndef PP_AZ_KMEMLEAK_INTERNAL_H
#define PP_AZ_KMEMLEAK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/stackmap.h"
#include "common/u64map.h"

struct ana_sel;
struct pp_az;
struct pp_expr;
struct pp_flame;
struct pp_wire;

enum { KM_ALLOC = 0, KM_FREE = 1 };	/* -e positions made from --alloc and --free */

/* Per selector match: how to read the pointer and the size. */
struct km_sel {
	struct pp_expr *ptr, *size;
	bool free;
};

/* A distinct (task, stack) seen on allocations; aggregated at report time. */
struct km_stack {
	const uint64_t *frames;		/* owned */
	uint32_t nr;
	uint32_t pid;			/* for user symbols */
	uint64_t time_ns;		/* first seen: symbols as mapped then */
	uint32_t key;			/* its stackmap key: pid for a user stack, else 0 */
	char *text, *folded;		/* read from a state: as the range printed them */
	size_t idx;			/* state_write scratch */
	uint64_t bytes, objects;	/* report scratch */
	struct pp_u64map comms;		/* report scratch: tid -> struct km_comm * */
};

struct km_comm {
	char comm[32];
	uint64_t bytes, objects;
};

/* A live allocation. */
struct km_obj {
	uint64_t ptr, size, time_ns;
	uint32_t cpu, pid, tid;
	const struct ana_sel *sel;
	struct km_stack *stack;
	uint8_t *raw;			/* a copy of the event, for the per-event report */
	uint32_t raw_sz, raw_cap;
	struct km_obj *next_free;
};

/* Per thread, how a range used the pending size of an entry probe (a state's). */
#define KT_HEAD 1u		/* an allocation looked for a size before the range set one */
#define KT_TAIL 2u		/* the range ended with a size pending */
struct km_tid {
	uint8_t flags;
	uint64_t head_ptr, head_ns;	/* KT_HEAD: that allocation */
	uint64_t tail;			/* KT_TAIL: the size + 1, as p->pending holds it */
};

#define KP_FREE_FIRST 1u	/* the range's first event of the pointer was a free */
#define KP_ALLOC_FIRST 2u

/* One capture range of a state (or the range being replayed with --state-out). */
struct km_src {
	struct pp_u64map live;		/* ptr -> struct km_obj * (a state's; a replay's is p->live) */
	struct pp_u64map touched;	/* ptr -> KP_* */
	struct pp_u64map tids;		/* tid -> struct km_tid *, every thread that set or took a size */
};

struct km_chunk {
	struct km_chunk *next;
	struct km_obj objs[512];
};

struct km_priv {
	struct km_sel *sels;		/* by ana_sel.index */
	struct pp_u64map live;		/* ptr -> struct km_obj * */
	struct pp_u64map pending;	/* tid -> size + 1 from a size-only entry event */
	struct pp_stackmap stackmap;	/* (pid or 0, frames) -> struct km_stack * */
	struct km_stack **stacks;
	size_t nr_stacks;
	struct km_chunk *chunks;
	struct km_obj *free_objs;
	bool own_events;		/* set_events() ran: no -e was given */
	bool have_size;			/* some allocation event gives a size */
	bool keep_raw;			/* the per-event report is wanted */
	bool bytes_report;		/* sizes and stacks: leaks by stack, not one by one */
	uint64_t nr_alloc, nr_free, nr_unmatched_free;
	struct km_src *rec;		/* --state-out: what the range touched */
	struct km_src **srcs;		/* states read: per source id, or NULL */
	size_t nr_srcs;
	bool lost;			/* --state-out: a loss reported early at lost_ns */
	uint64_t lost_ns;
	struct pp_flame *flame;
	struct pp_buf line;
};

/* kmemleak.c */
/** az_kmemleak_obj_get() - a zeroed object from the pool. Return: owned by the pool. */
struct km_obj *az_kmemleak_obj_get(struct km_priv *p);
/**
 * az_kmemleak_obj_set_raw() - @o's copy of the event: @raw_sz bytes of @raw (none for 0)
 *
 * The copy reuses @o's buffer, grown when it is too small.
 */
void az_kmemleak_obj_set_raw(struct km_obj *o, const void *raw, uint32_t raw_sz);
/** az_kmemleak_obj_put() - @o back to the pool (its raw copy kept for reuse). */
void az_kmemleak_obj_put(struct km_priv *p, struct km_obj *o);
/** az_kmemleak_stack_text() - @st as the report prints it, appended to @out. */
void az_kmemleak_stack_text(struct pp_az *az, const struct km_stack *st, struct pp_buf *out);
/** az_kmemleak_stack_folded() - @st folded (flame graph form), appended to @out. */
void az_kmemleak_stack_folded(struct pp_az *az, const struct km_stack *st, struct pp_buf *out);

/* kmemleak-merge.c: the state hooks (struct pp_analyzer_ops), and */
int az_kmemleak_state_write(struct pp_az *az, struct pp_buf *out);
int az_kmemleak_state_read(struct pp_az *az, struct pp_wire *r);
void az_kmemleak_state_join(struct pp_az *az, unsigned before, unsigned after);
/** az_kmemleak_src_free() - free range @r of a state (NULL: nothing), its objects to the pool. */
void az_kmemleak_src_free(struct km_priv *p, struct km_src *r);

#endif
