/* SPDX-License-Identifier: MIT */
/*
 * exit-stat.c - VM exit latency rows per (instance, ISA, exit reason).
 *
 * A row is found through a hash of its key in a u64map; rows whose keys
 * hash alike are chained, so the key needs no packing limits (an instance
 * may be "tgid << 32 | tid").  Rows are also mergeable state: written by key,
 * read by adding.  Not here: the exit reason names
 * (exit-reasons.c).
 */
#include <stdlib.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/exit-stat.h"
#include "common/log.h"
#include "common/wire.h"

void pp_exit_stat_init(struct pp_exit_stat *st)
{
	*st = (struct pp_exit_stat){ .rows = PP_U64MAP_INIT };
}

void pp_exit_stat_release(struct pp_exit_stat *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		pp_hist_release(&st->list[i]->h);
		free(st->list[i]);
	}
	free(st->list);
	pp_u64map_release(&st->rows);
	pp_exit_stat_init(st);
}

static uint64_t row_hash(uint64_t ins, uint32_t isa, uint32_t reason)
{
	uint64_t h = ins * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)isa << 32 | reason) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
	return h;
}

struct pp_exit_row *pp_exit_stat_row(struct pp_exit_stat *st, uint64_t ins, uint32_t isa,
				     uint32_t reason)
{
	void **slot = pp_u64map_slot(&st->rows, row_hash(ins, isa, reason));
	struct pp_exit_row *r;

	for (r = *slot; r; r = r->next)
		if (r->ins == ins && r->isa == isa && r->reason == reason)
			return r;
	r = pp_xcalloc(1, sizeof(*r));
	r->ins = ins;
	r->isa = isa;
	r->reason = reason;
	pp_hist_init(&r->h);
	r->next = *slot;
	*slot = r;
	st->list = pp_xrealloc(st->list, (st->nr + 1) * sizeof(*st->list));
	st->list[st->nr++] = r;
	return r;
}

static int cmp_row(const void *a, const void *b)
{
	const struct pp_exit_row *x = *(struct pp_exit_row *const *)a;
	const struct pp_exit_row *y = *(struct pp_exit_row *const *)b;
	uint64_t sx = pp_hist_sum(&x->h), sy = pp_hist_sum(&y->h);

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

size_t pp_exit_stat_sorted(const struct pp_exit_stat *st, struct pp_exit_row ***out,
			   bool *all_vmx)
{
	struct pp_exit_row **v = pp_xmalloc((st->nr + 1) * sizeof(*v));
	size_t n = 0;

	*all_vmx = true;
	for (size_t i = 0; i < st->nr; i++) {
		if (!pp_hist_count(&st->list[i]->h))
			continue;
		v[n++] = st->list[i];
		*all_vmx &= st->list[i]->isa == PP_KVM_ISA_VMX;
	}
	qsort(v, n, sizeof(*v), cmp_row);
	*out = v;
	return n;
}

void pp_exit_stat_reset(struct pp_exit_stat *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		pp_hist_reset(&st->list[i]->h);
		for (size_t k = 0; k < PP_EXIT_ROW_EXTRA; k++)
			st->list[i]->extra[k] = 0;
	}
}

void pp_exit_table_cols(struct pp_table *t, bool all_vmx)
{
	pp_table_col(t, "exit_reason", NULL, PP_COL_LEFT, all_vmx ? 20 : 32);
	pp_table_col(t, "calls", NULL, 0, 8);
	pp_table_col(t, "total(us)", "total_us", 0, 16);
	pp_table_col(t, "min(us)", "min_us", 0, 12);
	pp_table_col(t, "avg(us)", "avg_us", 0, 12);
	pp_table_col(t, "p99(us)", "p99_us", 0, 12);
	pp_table_col(t, "max(us)", "max_us", 0, 12);
}

void pp_exit_table_cells(struct pp_table *t, const struct pp_exit_row *r)
{
	char name[64];

	pp_table_str(t, pp_exit_reason_name(r->isa, r->reason, name, sizeof(name)));
	pp_table_u64(t, pp_hist_count(&r->h));
	pp_table_num(t, "%.3f", pp_hist_sum(&r->h) / 1000.0);
	pp_table_num(t, "%.3f", pp_hist_min(&r->h) / 1000.0);
	pp_table_num(t, "%.3f", pp_hist_mean(&r->h) / 1000.0);
	pp_table_num(t, "%.3f", pp_hist_percentile(&r->h, 99) / 1000.0);
	pp_table_num(t, "%.3f", pp_hist_max(&r->h) / 1000.0);
}

static int cmp_key(const void *a, const void *b)
{
	const struct pp_exit_row *x = *(struct pp_exit_row *const *)a;
	const struct pp_exit_row *y = *(struct pp_exit_row *const *)b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

void pp_exit_stat_put(struct pp_buf *b, const struct pp_exit_stat *st, unsigned nr_extra)
{
	struct pp_exit_row **v = pp_xmalloc((st->nr + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < st->nr; i++)
		if (st->list[i]->h.count)	/* a row -i emptied */
			v[n++] = st->list[i];
	qsort(v, n, sizeof(*v), cmp_key);
	pp_wire_put_varint(b, n);
	for (size_t i = 0; i < n; i++) {
		pp_wire_put_varint(b, v[i]->ins);
		pp_wire_put_varint(b, v[i]->isa);
		pp_wire_put_varint(b, v[i]->reason);
		pp_wire_put_hist(b, &v[i]->h);
		for (unsigned k = 0; k < nr_extra && k < PP_EXIT_ROW_EXTRA; k++)
			pp_wire_put_varint(b, v[i]->extra[k]);
	}
	free(v);
}

int pp_exit_stat_read(struct pp_wire *r, struct pp_exit_stat *st, unsigned nr_extra)
{
	size_t n = pp_wire_count(r, 4, SIZE_MAX, "exit rows");
	struct pp_exit_row prev = { 0 }, *pp = NULL;
	struct pp_hist h;
	int rc;

	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		struct pp_exit_row key = { .ins = pp_wire_varint(r) }, *row;
		const struct pp_exit_row *kp = &key;
		key.isa = pp_wire_u32(r, "isa");
		key.reason = pp_wire_u32(r, "exit reason");
		if (pp_wire_ok(r) && pp && cmp_key(&pp, &kp) >= 0)
			return pp_wire_fail(r, PP_EBAD_RECORD, "exit row %zu: rows not in key order", i);
		prev = key;
		pp = &prev;
		pp_hist_init(&h);
		rc = pp_wire_hist(r, &h);
		if (!rc && !h.count)
			rc = pp_wire_fail(r, PP_EBAD_RECORD, "exit row %zu: no exits", i);
		if (rc) {
			pp_hist_release(&h);
			return rc;
		}
		row = pp_exit_stat_row(st, key.ins, key.isa, key.reason);
		pp_hist_merge(&row->h, &h);
		pp_hist_release(&h);
		for (unsigned k = 0; k < nr_extra && k < PP_EXIT_ROW_EXTRA; k++) {
			uint64_t x = pp_wire_varint(r);
			if (row->extra[k] + x < x)
				return pp_wire_fail(r, PP_EBAD_RECORD, "exit row %zu: a sum overflows", i);
			row->extra[k] += x;
		}
	}
	return pp_wire_ok(r) ? 0 : r->err;
}
