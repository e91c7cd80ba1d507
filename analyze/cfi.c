/* SPDX-License-Identifier: MIT */
/*
 * cfi.c - the capture's unwind tables (UNWIND records) by binary, and the look-up of the
 * rule at a process's address (cfi.h).
 *
 * A table belongs to a struct pp_dso (the symtab's, so the binary mapped at an address is
 * the symbol look-up's): its rows' starts in one dense array for the binary search, their
 * ends and rules in another.  Rows of a later record must start at or after the table's
 * last end (each record is checked by the reader; across records it is checked here), so
 * the table stays sorted without a sort.  Memory counts in the side-band budget.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/cfi.h"
#include "analyze/internal.h"
#include "common/symbolize.h"

struct cfi_row {
	uint64_t end;
	struct ana_cfi_rule r;		/* r.cfa == 0: a row the recorder could not express */
};

struct cfi_tab {
	const struct pp_dso *dso;
	uint64_t *starts;
	struct cfi_row *rows;
	size_t nr, cap;
	size_t hint;			/* the row found last */
};

struct ana_cfi {
	struct pp_u64map by_dso;	/* (uintptr_t)struct pp_dso * -> struct cfi_tab * */
	struct cfi_tab **tabs;		/* the same, in the order they came */
	uint64_t nr_tables, nr_rows;
	struct cfi_tab *last;		/* the table found last */
	struct ppf_unwind_row *scratch;	/* one record's rows */
};

static struct cfi_tab *tab_get(struct ana_session *s, const struct pp_dso *d)
{
	struct ana_cfi *c = s->cfi;
	struct cfi_tab *t;

	if (!c)
		c = s->cfi = pp_xcalloc(1, sizeof(*c));
	t = pp_u64map_get(&c->by_dso, (uintptr_t)d);
	if (!t) {
		t = pp_xcalloc(1, sizeof(*t));
		t->dso = d;
		pp_u64map_put(&c->by_dso, (uintptr_t)d, t);
		c->tabs = pp_xrealloc(c->tabs, (c->nr_tables + 1) * sizeof(*c->tabs));
		c->tabs[c->nr_tables++] = t;
		s->sb_bytes += sizeof(*t) + 2 * sizeof(struct pp_u64map_slot);
	}
	return t;
}

static void tab_append(struct ana_session *s, struct cfi_tab *t, const struct ppf_unwind_row *v,
		       size_t n)
{
	if (t->nr && v[0].start < t->rows[t->nr - 1].end)
		return;		/* the same table again, or rows out of order: keep the first */
	if (t->nr + n > t->cap) {
		size_t cap = t->cap ? t->cap : 256;

		while (cap < t->nr + n)
			cap *= 2;
		s->sb_bytes += (cap - t->cap) * (sizeof(*t->starts) + sizeof(*t->rows));
		t->starts = pp_xrealloc(t->starts, cap * sizeof(*t->starts));
		t->rows = pp_xrealloc(t->rows, cap * sizeof(*t->rows));
		t->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		struct cfi_row *r = &t->rows[t->nr];

		t->starts[t->nr++] = v[i].start;
		r->end = v[i].end;
		r->r = (struct ana_cfi_rule){
			.cfa = v[i].cfa, .ra = v[i].ra, .fp = v[i].fp,
			.cfa_off = v[i].cfa_off, .ra_off = v[i].ra_off, .fp_off = v[i].fp_off,
		};
	}
	s->cfi->nr_rows += n;
}

void ana_cfi_meta(struct ana_session *s, const struct ppf_record *rec)
{
	const struct ppf_unwind *u = &rec->u.unwind;
	struct pp_dso *d = pp_u64map_get(&s->dsos, 0);
	struct cfi_tab *t;

	if (rec->type != PPF_REC_UNWIND || !d || !ana_sb_room(s))
		return;
	t = tab_get(s, d);
	if (!s->cfi->scratch)
		s->cfi->scratch = pp_xmalloc(PPF_UNWIND_MAX_ROWS * sizeof(*s->cfi->scratch));
	if (u->nr_rows <= PPF_UNWIND_MAX_ROWS && !ppf_unwind_rows(u, s->cfi->scratch))
		tab_append(s, t, s->cfi->scratch, u->nr_rows);
}

/* The row of @t covering @va, or SIZE_MAX. */
static size_t tab_find(struct cfi_tab *t, uint64_t va)
{
	size_t lo = 0, hi = t->nr;

	if (t->hint < t->nr && t->starts[t->hint] <= va && va < t->rows[t->hint].end)
		return t->hint;
	while (lo < hi) {	/* the first row starting after va */
		size_t mid = lo + (hi - lo) / 2;

		if (t->starts[mid] <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || va >= t->rows[lo - 1].end)
		return SIZE_MAX;
	return t->hint = lo - 1;
}

int ana_cfi_find_at(struct ana_session *s, uint32_t pid, uint64_t time_ns, uint64_t addr,
		    struct ana_cfi_rule *out)
{
	struct ana_cfi *c = s->cfi;
	struct pp_dso *d;
	struct cfi_tab *t;
	uint64_t va;
	size_t i;

	if (!c || !c->nr_rows || addr >> 63)
		return 0;
	d = pp_symtab_user_dso(s->syms, pid, time_ns, addr, &va);
	if (!d)
		return 0;
	t = c->last;
	if (!t || t->dso != d) {
		t = pp_u64map_get(&c->by_dso, (uintptr_t)d);
		if (!t)
			return 0;
		c->last = t;
	}
	i = tab_find(t, va);
	if (i == SIZE_MAX || !t->rows[i].r.cfa)
		return 0;
	*out = t->rows[i].r;
	return 1;
}

int ana_cfi_find(struct ana_session *s, uint32_t pid, uint64_t addr, struct ana_cfi_rule *out)
{
	return ana_cfi_find_at(s, pid, s->last_ns ? s->last_ns : UINT64_MAX, addr, out);
}

void ana_cfi_stats(const struct ana_session *s, uint64_t *nr_tables, uint64_t *nr_rows)
{
	*nr_tables = s->cfi ? s->cfi->nr_tables : 0;
	*nr_rows = s->cfi ? s->cfi->nr_rows : 0;
}

static void tab_free(struct cfi_tab *t)
{
	free(t->starts);
	free(t->rows);
	free(t);
}

void ana_cfi_free(struct ana_session *s)
{
	struct ana_cfi *c = s->cfi;

	if (!c)
		return;
	while (c->nr_tables)
		tab_free(c->tabs[--c->nr_tables]);
	free(c->tabs);
	pp_u64map_release(&c->by_dso);
	free(c->scratch);
	free(c);
	s->cfi = NULL;
}
