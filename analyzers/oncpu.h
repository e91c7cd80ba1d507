/* SPDX-License-Identifier: MIT */
/*
 * oncpu.h - the options of the oncpu analyzer and its --prio filter, shared by
 * oncpu.c and oncpu-plan.c (which pp-record links).
 */
#ifndef PP_AZ_ONCPU_H
#define PP_AZ_ONCPU_H

#include <stdbool.h>
#include <stdlib.h>

#include "common/buf.h"
#include "common/units.h"

struct oncpu_opts {
	const char *prio;	/* --prio LIST: only switches from or to these priorities */
	bool only_comm;		/* --only-comm: rows by command name, not by thread */
};

/**
 * oncpu_prio_filter() - the sched_switch filter of --prio @list ("1-99"):
 * "(prev_prio>=1&&prev_prio<=99)||(next_prio>=1&&next_prio<=99)"
 * Return: a string the caller frees, or NULL when @list does not parse.
 */
static inline char *oncpu_prio_filter(const char *list)
{
	struct pp_buf b = PP_BUF_INIT;
	int *v = NULL;
	size_t nr = 0;

	if (pp_parse_list(list, 0, &v, &nr) || !nr) {
		free(v);
		return NULL;
	}
	for (const char *side = "prev"; side; side = side[0] == 'p' ? "next" : NULL) {
		for (size_t i = 0; i < nr;) {
			size_t j = i;
			while (j + 1 < nr && v[j + 1] == v[j] + 1)
				j++;
			pp_buf_addf(&b, "%s(%s_prio>=%d&&%s_prio<=%d)", b.len ? "||" : "", side,
				    v[i], side, v[j]);
			i = j + 1;
		}
	}
	free(v);
	return pp_buf_detach(&b);
}

#endif
