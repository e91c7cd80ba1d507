/* SPDX-License-Identifier: MIT */
/*
 * export-folded.c - folded stacks, "comm;outer;...;inner VALUE" per distinct stack, for
 * flamegraph.pl, speedscope and inferno.
 *
 * The same tree and lines as the profile analyzer's --flame-graph: each distinct (task,
 * stack) is resolved once by ana_stack_node() into a struct pp_flame (cached in a
 * pp_stackmap under ana_stack_key()), with the command name first and the frames from
 * the outermost in; an event without a call stack counts as "comm;<symbol of its ip>".
 * VALUE is the --value sum: the number of events by default, the period (CPU nanoseconds
 * of clock events), or an expression.  pp_flame_write_folded() writes the lines in name
 * order, so the output is deterministic.  Memory grows with the number of distinct
 * stacks, not with the number of events.
 */
#include "analyze/export/internal.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/stackmap.h"

struct folded_priv {
	struct ana_export_value value;
	struct pp_flame *flame;
	struct pp_stackmap stacks;	/* (task, stack) -> struct pp_flame_node * */
};

static int folded_begin(struct ana_export *x)
{
	struct folded_priv *p = x->priv;

	p->flame = pp_flame_new();
	return ana_export_value_init(x, &p->value, ANA_VAL_COUNT);
}

static void folded_event(struct ana_export *x, const struct pp_event *ev)
{
	struct folded_priv *p = x->priv;
	const uint64_t *words = ev->nr_stack ? ev->stack : &ev->ip;
	void **slot = pp_stackmap_slot(&p->stacks, ana_stack_key(x->s, ev), words,
				       ev->nr_stack ? ev->nr_stack : 1);

	if (!*slot)
		*slot = ana_stack_node(x->az, p->flame, ev);
	pp_flame_add(*slot, ana_export_value_get(x, &p->value, ev));
}

static int folded_end(struct ana_export *x)
{
	struct folded_priv *p = x->priv;

	pp_flame_write_folded(p->flame, x->fp, NULL);
	return 0;	/* write errors: ana_export_finish() checks the stream */
}

static void folded_release(struct ana_export *x)
{
	struct folded_priv *p = x->priv;

	ana_export_value_release(&p->value);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->flame);
}

const struct ana_export_ops ana_export_folded = {
	.name = "folded",
	.summary = "folded stacks \"comm;outer;...;inner VALUE\" for flame graphs",
	.profile = true,
	.priv_size = sizeof(struct folded_priv),
	.begin = folded_begin,
	.event = folded_event,
	.end = folded_end,
	.release = folded_release,
};
