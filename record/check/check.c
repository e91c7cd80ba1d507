/* SPDX-License-Identifier: MIT */
/*
 * check.c - a check's lines and its verdict (check.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/vec.h"
#include "record/check/check.h"

void rec_check_add(struct rec_check *c, const char *name, enum rec_check_answer answer,
		   const char *fix, const char *fmt, ...)
{
	struct rec_check_line l = { .name = name, .answer = answer };
	va_list ap;

	va_start(ap, fmt);
	l.value = pp_xvasprintf(fmt, ap);
	va_end(ap);
	l.fix = fix ? pp_xstrdup(fix) : NULL;
	PP_VEC_PUSH(c->v, c->nr, c->cap, l);
}

void rec_check_fail(struct rec_check *c, const char *reason, const char *fix)
{
	if (!c->run && c->reason)
		return;		/* the first reason stays */
	c->run = false;
	c->reason = pp_xstrdup(reason);
	c->reason_fix = fix ? pp_xstrdup(fix) : NULL;
}

/* A line's strings freed.  Return: @l's next, for the walk. */
static struct rec_check_line *line_release(struct rec_check_line *l)
{
	free(l->value);
	free(l->fix);
	return l + 1;
}

void rec_check_release(struct rec_check *c)
{
	char *owned[] = { c->command, c->reason, c->reason_fix };

	for (struct rec_check_line *l = c->v; l < c->v + c->nr;)
		l = line_release(l);
	free(c->v);
	for (size_t i = 0; i < PP_ARRAY_SIZE(owned); i++)
		free(owned[i]);
	*c = (struct rec_check){ 0 };
}
