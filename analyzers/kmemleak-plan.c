/* SPDX-License-Identifier: MIT */
/*
 * kmemleak-plan.c - what kmemleak records: the --alloc and --free events,
 * with call stacks on the allocations when -g is given (perf-prof takes the
 * stacks of allocations only: a release's stack says nothing about a leak).
 */
#include <stdio.h>
#include <string.h>

#include "analyzers/kmemleak.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/plan.h"
#include "common/selector.h"

#define O(f) PP_AZOPT(struct kmemleak_opts, f)

static const struct pp_option kmemleak_options[] = {
	PP_OPT_GROUP("kmemleak options:"),
	PP_OPT_STRING(0, "alloc", O(alloc), "EVENT,...",
		      "allocation events: sys:name//ptr=EXPR/size=EXPR/[stack/]"),
	PP_OPT_STRING(0, "free", O(free), "EVENT,...", "release events: sys:name//ptr=EXPR/"),
	PP_OPT_BOOL(0, "comm", O(comm), "list the commands behind each leaking stack"),
	PP_OPT_END(),
};

/* @text with a "stack" attribute: "a:b" -> "a:b//stack/", "a:b/f/x=1/" -> "a:b/f/x=1/stack/" */
static void add_with_stack(struct pp_plan *p, const struct pp_selector *sel)
{
	const char *t = sel->text;
	size_t len = strlen(t);

	if (sel->stack)
		pp_plan_add_event(p, t);
	else if (!strchr(t, '/'))
		pp_plan_add_eventf(p, "%s//stack/", t);
	else if (t[len - 1] == '/')
		pp_plan_add_eventf(p, "%sstack/", t);
	else
		pp_plan_add_eventf(p, "%s/stack/", t);
}

static int add_list(struct pp_plan *p, const char *what, const char *list, bool stack, char *err,
		    size_t errsz)
{
	struct pp_parse_error perr = { .pos = -1 };
	struct pp_selector *v = NULL;
	size_t nr = 0;

	if (pp_selector_parse(list, &v, &nr, &perr)) {
		snprintf(err, errsz, "kmemleak: bad %s '%s': %s", what, list, perr.msg);
		return PP_ESYNTAX;
	}
	for (size_t i = 0; i < nr; i++) {
		if (stack)
			add_with_stack(p, &v[i]);
		else
			pp_plan_add_event(p, v[i].text);
	}
	pp_selector_free_array(v, nr);
	return 0;
}

static int kmemleak_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct kmemleak_opts *o = a->opts;
	int rc;

	if (a->common->events.nr) {
		snprintf(err, errsz, "kmemleak: give the events with --alloc and --free, not -e");
		return PP_EUSAGE;
	}
	if (!o->alloc || !o->free) {
		snprintf(err, errsz, "kmemleak: needs --alloc EVENTS and --free EVENTS");
		return PP_EUSAGE;
	}
	/* -g: stacks on the allocations only */
	p->callchain = false;
	rc = add_list(p, "--alloc", o->alloc, a->common->callchain, err, errsz);
	if (!rc)
		rc = add_list(p, "--free", o->free, false, err, errsz);
	return rc;
}

const struct pp_plan_ops azp_kmemleak_plan = {
	.options = kmemleak_options,
	.opts_size = sizeof(struct kmemleak_opts),
	.plan = kmemleak_plan,
	.sel_opts = (const char *const[]){ "alloc", "free", NULL },
};
