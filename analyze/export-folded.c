/* SPDX-License-Identifier: MIT */
/*
 * export-folded.c - folded stacks, "comm;outer;...;inner VALUE" per distinct stack, for
 * flamegraph.pl, speedscope and inferno.
 *
 * The same lines as the profile analyzer's --flame-graph: the command name first, then
 * the frames from the outermost in (ana_stack_folded()); an event without a call stack
 * counts as "comm;<symbol of its ip>".  VALUE is the --value sum: the number of samples
 * by default, or the period of clock events (nanoseconds on CPU), or an expression.
 * Lines are sorted by stack, so the output is deterministic.  Memory grows with the
 * number of distinct stacks, not with the number of events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/export-internal.h"
#include "common/intern.h"
#include "common/log.h"

struct folded_priv {
	struct ana_export_value value;
	struct pp_intern *stacks;
	uint64_t *sums;
	size_t alloc;
	struct pp_buf line;
};

static int folded_begin(struct ana_export *x)
{
	struct folded_priv *p = x->priv;

	p->stacks = pp_intern_new();
	return ana_export_value_init(x, &p->value, ANA_VAL_COUNT);
}

static void folded_event(struct ana_export *x, const struct pp_event *ev)
{
	struct folded_priv *p = x->priv;
	uint32_t idx;
	char name[256];

	pp_buf_reset(&p->line);
	if (ev->nr_stack) {
		ana_stack_folded(x->s, ev, &p->line);
	} else {
		pp_buf_adds(&p->line, ana_comm(x->s, ev->tid));
		if (ev->ip) {
			ana_frame_name(x->s, ev, ev->ip, ev->ip >= 0xffff000000000000ull, name,
				       sizeof(name));
			pp_buf_addch(&p->line, ';');
			for (const char *c = name; *c; c++)
				pp_buf_addch(&p->line, *c == ';' || *c == ' ' ? '_' : *c);
		}
	}
	idx = pp_intern_put(p->stacks, p->line.data, p->line.len, NULL);
	if (idx >= p->alloc) {
		size_t n = p->alloc ? 2 * p->alloc : 1024;
		p->sums = pp_xrealloc(p->sums, n * sizeof(*p->sums));
		memset(p->sums + p->alloc, 0, (n - p->alloc) * sizeof(*p->sums));
		p->alloc = n;
	}
	p->sums[idx] += ana_export_value_get(x, &p->value, ev);
}

struct line_ref {
	const char *key;
	size_t len;
	uint64_t sum;
};

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct line_ref *)a)->key, ((const struct line_ref *)b)->key);
}

static int folded_end(struct ana_export *x)
{
	struct folded_priv *p = x->priv;
	size_t n = pp_intern_count(p->stacks);
	struct line_ref *lines = pp_xmalloc((n + 1) * sizeof(*lines));
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		lines[i].key = pp_intern_key(p->stacks, (uint32_t)i, &lines[i].len);
		lines[i].sum = p->sums[i];
	}
	qsort(lines, n, sizeof(*lines), by_stack);
	pp_buf_reset(&p->line);
	for (size_t i = 0; i < n && ok; i++) {
		if (!lines[i].sum)
			continue;
		pp_buf_add(&p->line, lines[i].key, lines[i].len);
		pp_buf_addch(&p->line, ' ');
		ana_buf_add_u64(&p->line, lines[i].sum);
		pp_buf_addch(&p->line, '\n');
		if (p->line.len >= (64u << 10))
			ok = ana_export_write(x, &p->line);
	}
	free(lines);
	if (ok)
		ok = ana_export_write(x, &p->line);
	return ok ? 0 : -EIO;
}

static void folded_release(struct ana_export *x)
{
	struct folded_priv *p = x->priv;

	ana_export_value_release(&p->value);
	pp_intern_free(p->stacks);
	free(p->sums);
	pp_buf_release(&p->line);
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
