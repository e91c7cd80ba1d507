/* SPDX-License-Identifier: MIT */
/*
 * evsym.c - what a tracepoint's print format says about its fields.
 *
 * libtraceevent parses "print fmt" into an argument tree; the symbol tables
 * of __print_symbolic(REC->field, { value, "name" }, ...) are in it, possibly
 * nested in ?: operators or casts.  Analyzers that want to name values (the
 * sql analyzer's symbolic()) get the tables here without seeing libtraceevent.
 * Symbol values the kernel left as enum names (HRTIMER_MODE_ABS) are skipped.
 */
#include <stdlib.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"

bool ana_evtype_has_stack(const struct ana_evtype *t)
{
	return t && (t->desc_flags & PPF_EVF_STACK);
}

const char *ana_evtype_print_fmt(const struct ana_evtype *t)
{
	return t && t->tep && t->tep->print_fmt.format ? t->tep->print_fmt.format : "";
}

static const char *arg_field_name(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD ? a->field.name : NULL;
}

static int walk(const struct tep_print_arg *a, ana_symbolic_fn fn, void *arg, int depth)
{
	int n = 0;

	if (depth > 32)
		return 0;	/* a hostile format: deep nesting */
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_SYMBOL: {
			const char *field = arg_field_name(a->symbol.field);
			n++;
			for (const struct tep_print_flag_sym *f = a->symbol.symbols; f && field && fn;
			     f = f->next) {
				char *end;
				unsigned long long v;
				if (!f->value || !f->str)
					continue;
				v = strtoull(f->value, &end, 0);
				if (end != f->value && !*end)
					fn(arg, field, v, f->str);
				else if (f->value[0] == '-' && (v = (unsigned long long)strtoll(f->value, &end, 0),
							       !*end))
					fn(arg, field, v, f->str);
			}
			break;
		}
		case TEP_PRINT_OP:
			n += walk(a->op.left, fn, arg, depth + 1);
			n += walk(a->op.right, fn, arg, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			n += walk(a->typecast.item, fn, arg, depth + 1);
			break;
		case TEP_PRINT_FUNC:
			n += walk(a->func.args, fn, arg, depth + 1);
			break;
		default:
			break;
		}
	}
	return n;
}

/* walk() recurses through ->next of nested items too; nested lists are short. */
int ana_evtype_symbolic(const struct ana_evtype *t, ana_symbolic_fn fn, void *arg)
{
	if (!t || !t->tep)
		return 0;
	return walk(t->tep->print_fmt.args, fn, arg, 0);
}
