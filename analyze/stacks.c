/* SPDX-License-Identifier: MIT */
/*
 * stacks.c - call stacks of events as flame-graph paths, for analyzers.
 *
 * Symbolizing a stack is the expensive part of stack analysis; analyzers
 * resolve each distinct (task, stack) once through ana_stack_node() and cache
 * the node in a struct pp_stackmap under ana_stack_key().  The path is the
 * folded form of print.c (comm first, innermost frame last).
 */
#include <string.h>

#include "analyze/internal.h"
#include "common/callchain.h"
#include "common/flamegraph.h"

uint64_t ana_stack_key(struct ana_session *s, const struct pp_event *ev)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *c = ana_comm(s, ev->tid); *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	return (((uint64_t)ev->pid << 32) | ev->tid) ^ (h * 0x9e3779b97f4a7c15ull);
}

struct pp_flame_node *ana_stack_node(struct pp_az *az, struct pp_flame *fg,
				     const struct pp_event *ev)
{
	struct pp_event e = *ev;
	uint64_t one[1] = { ev->ip };
	uint64_t *trimmed = NULL;
	struct pp_flame_node *n;

	if (ev->nr_stack) {
		trimmed = pp_xmalloc(ev->nr_stack * sizeof(*trimmed));
		e.stack = trimmed;
		e.nr_stack = pp_callchain_trim(ev->stack, ev->nr_stack, trimmed,
					       az->opt.kernel_callchain, az->opt.user_callchain);
	} else {
		e.stack = one;
		e.nr_stack = ev->ip ? 1 : 0;
	}
	n = ana_stack_flame(az->s, &e, az->inl, az->frame_key, fg);
	free(trimmed);
	return n;
}
