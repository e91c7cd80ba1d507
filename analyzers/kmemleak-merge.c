/* SPDX-License-Identifier: MIT */
/*
 * kmemleak-merge.c - kmemleak's mergeable state (docs/state-format.md "kmemleak").
 *
 * The counts, every stack with its text, and per capture range (source) its
 * live allocations, the pointers it touched (freed first or allocated first)
 * and, per thread, the pending size it ended with and the first allocation
 * that looked for one before the range set its own.  Joining two adjacent
 * ranges drops the earlier range's allocations that the later one freed or
 * reallocated (an unmatched free that found its allocation is no longer
 * unmatched) and hands the earlier range's pending sizes to the later one's
 * first allocations.
 *
 * Not here: the replay and the report (kmemleak.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/kmemleak-internal.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/wire.h"

#define KM_MAX_FRAMES 4096
#define KM_MAX_RAW (1u << 20)

void az_kmemleak_src_free(struct km_priv *p, struct km_src *r)
{
	uint64_t k;
	void *v;

	if (!r)
		return;
	for (size_t it = 0; pp_u64map_next(&r->live, &it, &k, &v);)
		az_kmemleak_obj_put(p, v);
	for (size_t it = 0; pp_u64map_next(&r->tids, &it, &k, &v);)
		free(v);
	pp_u64map_release(&r->live);
	pp_u64map_release(&r->touched);
	pp_u64map_release(&r->tids);
	free(r);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* @m's keys, ascending: malloc'ed. */
static uint64_t *keys_sorted(const struct pp_u64map *m, size_t *nr)
{
	uint64_t *v = pp_xmalloc((m->nr + 1) * sizeof(*v)), k;
	void *val;

	*nr = 0;
	for (size_t it = 0; pp_u64map_next(m, &it, &k, &val);)
		v[(*nr)++] = k;
	qsort(v, *nr, sizeof(*v), cmp_u64);
	return v;
}

/* Stacks in a state's order: by key, then fewer frames, then the first frame that differs. */
static int cmp_stack_key(const void *a, const void *b)
{
	const struct km_stack *x = *(struct km_stack *const *)a, *y = *(struct km_stack *const *)b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	for (uint32_t i = 0; i < x->nr; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return 0;
}

static void put_stacks(struct pp_az *az, struct pp_buf *out)
{
	struct km_priv *p = az->priv;
	struct km_stack **v = pp_xmalloc((p->nr_stacks + 1) * sizeof(*v));
	struct pp_buf b = PP_BUF_INIT;

	memcpy(v, p->stacks, p->nr_stacks * sizeof(*v));
	qsort(v, p->nr_stacks, sizeof(*v), cmp_stack_key);
	pp_wire_put_varint(out, p->nr_stacks);
	for (size_t i = 0; i < p->nr_stacks; i++) {
		v[i]->idx = i;
		pp_wire_put_varint(out, v[i]->key);
		pp_wire_put_varint(out, v[i]->pid);
		pp_wire_put_varint(out, v[i]->time_ns);
		pp_wire_put_varint(out, v[i]->nr);
		for (uint32_t j = 0; j < v[i]->nr; j++)
			pp_wire_put_varint(out, v[i]->frames[j]);
		pp_buf_reset(&b);
		az_kmemleak_stack_text(az, v[i], &b);
		pp_wire_put_str(out, pp_buf_str(&b));
		pp_buf_reset(&b);
		az_kmemleak_stack_folded(az, v[i], &b);
		pp_wire_put_str(out, pp_buf_str(&b));
	}
	pp_buf_release(&b);
	free(v);
}

/* One source: @live, @r's pointers and threads, and the sizes @pending holds at its end. */
static void put_src(struct pp_az *az, struct pp_buf *out, const struct pp_u64map *live,
		    const struct km_src *r, const struct pp_u64map *pending)
{
	size_t nr;
	uint64_t *keys = keys_sorted(live, &nr);

	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct km_obj *o = pp_u64map_get(live, keys[i]);
		size_t sel = (size_t)(o->sel - az->sels);

		pp_wire_put_varint(out, o->ptr);
		pp_wire_put_varint(out, o->size);
		pp_wire_put_varint(out, o->time_ns);
		pp_wire_put_varint(out, o->cpu);
		pp_wire_put_varint(out, o->pid);
		pp_wire_put_varint(out, o->tid);
		pp_wire_put_varint(out, sel);
		pp_wire_put_varint(out, o->stack ? o->stack->idx + 1 : 0);
		pp_wire_put_bytes(out, o->raw, o->raw_sz);
	}
	free(keys);
	keys = keys_sorted(&r->touched, &nr);
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++) {
		pp_wire_put_varint(out, keys[i]);
		pp_wire_put_u8(out, (uint8_t)(uintptr_t)pp_u64map_get(&r->touched, keys[i]));
	}
	free(keys);
	keys = keys_sorted(&r->tids, &nr);
	pp_wire_put_varint(out, nr);
	for (size_t i = 0; i < nr; i++) {
		const struct km_tid *t = pp_u64map_get(&r->tids, keys[i]);
		uint64_t tail = pending ? (uint64_t)(uintptr_t)pp_u64map_get(pending, keys[i])
					: (t->flags & KT_TAIL ? t->tail : 0);
		uint8_t flags = (uint8_t)((t->flags & KT_HEAD) | (tail ? KT_TAIL : 0));

		pp_wire_put_varint(out, keys[i]);
		pp_wire_put_u8(out, flags);
		if (flags & KT_HEAD) {
			pp_wire_put_varint(out, t->head_ptr);
			pp_wire_put_varint(out, t->head_ns);
		}
		if (flags & KT_TAIL)
			pp_wire_put_varint(out, tail);
	}
	free(keys);
}

int az_kmemleak_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct km_priv *p = az->priv;
	const unsigned *ids;
	size_t n;
	char ts[32];

	if (p->lost) {
		pp_err("kmemleak: events lost at %s: the replay reports early there and starts "
		       "over, which a state cannot hold (make states of the ranges before and after "
		       "the loss)", ana_ts_str(p->lost_ns, ts, sizeof(ts)));
		return PP_EUSAGE;
	}
	pp_wire_put_varint(out, p->nr_alloc);
	pp_wire_put_varint(out, p->nr_free);
	pp_wire_put_varint(out, p->nr_unmatched_free);
	put_stacks(az, out);
	if (p->rec) {
		pp_wire_put_varint(out, 1);
		put_src(az, out, &p->live, p->rec, &p->pending);
		return 0;
	}
	n = ana_state_sources(az, &ids);
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		static const struct km_src none;
		const struct km_src *r = ids[i] < p->nr_srcs && p->srcs[ids[i]] ? p->srcs[ids[i]]
										 : &none;
		put_src(az, out, &r->live, r, NULL);
	}
	return 0;
}

/* The stacks of a state, interned: the earliest first sight keeps its text. */
static int read_stacks(struct pp_az *az, struct pp_wire *r, struct km_stack ***out, size_t *nr)
{
	struct km_priv *p = az->priv;
	size_t n = pp_wire_count(r, 6, SIZE_MAX, "stacks");
	struct km_stack **v = pp_xcalloc(n + 1, sizeof(*v));
	uint64_t *f = pp_xmalloc(KM_MAX_FRAMES * sizeof(*f));

	*out = v;
	*nr = 0;
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint32_t key = pp_wire_u32(r, "stack key"), pid = pp_wire_u32(r, "pid");
		uint64_t time_ns = pp_wire_varint(r);
		size_t nf = pp_wire_count(r, 1, KM_MAX_FRAMES, "frames");
		const char *text, *folded;
		struct km_stack *st, cur = { .frames = f, .nr = (uint32_t)nf, .key = key };
		void **slot;

		for (size_t j = 0; j < nf; j++)
			f[j] = pp_wire_varint(r);
		text = pp_wire_str(r);
		folded = pp_wire_str(r);
		if (!pp_wire_ok(r))
			break;
		if (!nf || (key && key != pid) ||
		    (i && cmp_stack_key(&(struct km_stack *){ v[i - 1] }, &(struct km_stack *){ &cur }) >= 0)) {
			pp_wire_fail(r, PP_EBAD_RECORD, "stack %zu: %zu frames, key %u, pid %u, or not "
				     "after the one before", i, nf, key, pid);
			break;
		}
		slot = pp_stackmap_slot(&p->stackmap, key, f, (uint32_t)nf);
		st = *slot;
		if (!st) {
			uint64_t *fr = pp_xmalloc(nf * sizeof(*fr));
			memcpy(fr, f, nf * sizeof(*fr));
			st = *slot = pp_xcalloc(1, sizeof(*st));
			st->frames = fr;
			st->nr = (uint32_t)nf;
			st->key = key;
			st->time_ns = UINT64_MAX;
			p->stacks = pp_xrealloc(p->stacks, (p->nr_stacks + 1) * sizeof(*p->stacks));
			p->stacks[p->nr_stacks++] = st;
		}
		if (time_ns < st->time_ns) {
			st->time_ns = time_ns;
			st->pid = pid;
			free(st->text);
			free(st->folded);
			st->text = pp_xstrdup(text);
			st->folded = pp_xstrdup(folded);
		}
		v[i] = st;
		*nr = i + 1;
	}
	free(f);
	return pp_wire_ok(r) ? 0 : r->err;
}

static int read_live(struct pp_az *az, struct pp_wire *r, struct km_src *src,
		     struct km_stack **stacks, size_t nr_stacks)
{
	struct km_priv *p = az->priv;
	size_t n = pp_wire_count(r, 10, SIZE_MAX, "live allocations");
	uint64_t prev = 0;

	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint64_t ptr = pp_wire_varint(r), size = pp_wire_varint(r), t = pp_wire_varint(r);
		uint32_t cpu = pp_wire_u32(r, "cpu"), pid = pp_wire_u32(r, "pid");
		uint32_t tid = pp_wire_u32(r, "tid");
		uint64_t sel = pp_wire_varint(r), stack = pp_wire_varint(r);
		size_t raw_sz;
		const uint8_t *raw = pp_wire_bytes(r, &raw_sz);
		struct km_obj *o;

		if (!pp_wire_ok(r))
			break;
		if (!ptr || (i && ptr <= prev) || sel >= az->nr_sels || p->sels[az->sels[sel].index].free ||
		    !p->sels[az->sels[sel].index].ptr || stack > nr_stacks || raw_sz > KM_MAX_RAW)
			return pp_wire_fail(r, PP_EBAD_RECORD, "live allocation %zu: pointer %#llx, "
					    "event %llu of %zu, stack %llu of %zu, %zu raw bytes", i,
					    (unsigned long long)ptr, (unsigned long long)sel,
					    az->nr_sels, (unsigned long long)stack, nr_stacks, raw_sz);
		prev = ptr;
		o = az_kmemleak_obj_get(p);
		*o = (struct km_obj){ .ptr = ptr, .size = size, .time_ns = t,
				      .cpu = cpu, .pid = pid, .tid = tid,
				      .sel = &az->sels[sel],
				      .stack = stack ? stacks[stack - 1] : NULL,
				      .raw = o->raw, .raw_cap = o->raw_cap };
		az_kmemleak_obj_set_raw(o, raw, (uint32_t)raw_sz);
		pp_u64map_put(&src->live, ptr, o);
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

static int read_src(struct pp_az *az, struct pp_wire *r, struct km_src *src,
		    struct km_stack **stacks, size_t nr_stacks)
{
	int rc = read_live(az, r, src, stacks, nr_stacks);
	size_t n = rc ? 0 : pp_wire_count(r, 2, SIZE_MAX, "pointers touched");
	uint64_t prev = 0;

	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint64_t ptr = pp_wire_varint(r);
		uint8_t first = pp_wire_u8(r);

		if (pp_wire_ok(r) && ((i && ptr <= prev) ||
				      (first != KP_FREE_FIRST && first != KP_ALLOC_FIRST)))
			return pp_wire_fail(r, PP_EBAD_RECORD, "pointer %zu touched: %#llx, first "
					    "event kind %u", i, (unsigned long long)ptr, first);
		prev = ptr;
		pp_u64map_put(&src->touched, ptr, (void *)(uintptr_t)first);
	}
	n = rc || !pp_wire_ok(r) ? 0 : pp_wire_count(r, 2, SIZE_MAX, "threads");
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint64_t tid = pp_wire_u32(r, "tid");
		uint8_t flags = pp_wire_u8(r);
		struct km_tid t = { .flags = flags };

		if (flags & KT_HEAD) {
			t.head_ptr = pp_wire_varint(r);
			t.head_ns = pp_wire_varint(r);
		}
		if (flags & KT_TAIL)
			t.tail = pp_wire_varint(r);
		if (!pp_wire_ok(r))
			break;
		if ((i && tid <= prev) || flags > (KT_HEAD | KT_TAIL) || ((flags & KT_TAIL) && !t.tail))
			return pp_wire_fail(r, PP_EBAD_RECORD, "thread %zu: tid %llu, flags %u", i,
					    (unsigned long long)tid, flags);
		prev = tid;
		pp_u64map_put(&src->tids, tid, memcpy(pp_xmalloc(sizeof(t)), &t, sizeof(t)));
	}
	if (!rc && !pp_wire_ok(r))
		rc = r->err;
	return rc;
}

int az_kmemleak_state_read(struct pp_az *az, struct pp_wire *r)
{
	struct km_priv *p = az->priv;
	uint64_t na = pp_wire_varint(r), nf = pp_wire_varint(r), nu = pp_wire_varint(r);
	struct km_stack **stacks = NULL;
	size_t nr_stacks = 0, n = 0;
	int rc;

	if (!pp_wire_ok(r))
		return r->err;
	if (nu > nf || p->nr_alloc + na < na || p->nr_free + nf < nf)
		return pp_wire_fail(r, PP_EBAD_RECORD, "%llu releases, %llu of them unmatched",
				    (unsigned long long)nf, (unsigned long long)nu);
	p->nr_alloc += na;
	p->nr_free += nf;
	p->nr_unmatched_free += nu;
	rc = read_stacks(az, r, &stacks, &nr_stacks);
	if (!rc)
		n = pp_wire_count(r, 3, SIZE_MAX, "sources");
	for (size_t i = 0; !rc && i < n && pp_wire_ok(r); i++) {
		unsigned id;

		if (!ana_state_source_in(az, r, i, &id)) {
			rc = r->err;
			break;
		}
		p->srcs = pp_xgrow(p->srcs, &p->nr_srcs, (size_t)id + 1, sizeof(*p->srcs));
		if (p->srcs[id]) {
			rc = pp_wire_fail(r, PP_EBAD_RECORD, "source %zu twice", i);
			break;
		}
		p->srcs[id] = pp_xcalloc(1, sizeof(struct km_src));
		rc = read_src(az, r, p->srcs[id], stacks, nr_stacks);
	}
	free(stacks);
	if (!rc && !pp_wire_ok(r))
		rc = r->err;
	return rc;
}

/*
 * Adjacent ranges @before and @after: what @after touched ends @before's allocations of
 * it (a free found one: not unmatched after all); @after's first allocations per thread
 * take the size @before left pending; @after's tables go on as the joined range's.
 */
void az_kmemleak_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct km_priv *p = az->priv;
	struct km_src *a, *b;
	uint64_t k;
	void *v;

	if (before >= p->nr_srcs || after >= p->nr_srcs || !p->srcs[after])
		return;
	if (!p->srcs[before])
		p->srcs[before] = pp_xcalloc(1, sizeof(struct km_src));
	a = p->srcs[before];
	b = p->srcs[after];
	p->srcs[after] = NULL;
	for (size_t it = 0; pp_u64map_next(&b->touched, &it, &k, &v);) {
		struct km_obj *o = pp_u64map_del(&a->live, k);
		void **slot = pp_u64map_slot(&a->touched, k);

		if (o) {
			if ((uintptr_t)v == KP_FREE_FIRST && p->nr_unmatched_free)
				p->nr_unmatched_free--;
			az_kmemleak_obj_put(p, o);
		}
		if (!*slot)
			*slot = v;
	}
	for (size_t it = 0; pp_u64map_next(&b->tids, &it, &k, &v);) {
		struct km_tid *tb = v, **slot = (struct km_tid **)pp_u64map_slot(&a->tids, k);
		struct km_tid *ta = *slot;

		if (ta && (ta->flags & KT_TAIL) && (tb->flags & KT_HEAD)) {
			struct km_obj *o = pp_u64map_get(&b->live, tb->head_ptr);
			if (o && o->time_ns == tb->head_ns && o->tid == k)
				o->size = ta->tail - 1;
		}
		if (!ta) {
			*slot = tb;
			continue;
		}
		ta->flags = (uint8_t)((ta->flags & KT_HEAD) | (tb->flags & KT_TAIL));
		ta->tail = tb->tail;
		free(tb);
	}
	pp_u64map_release(&b->tids);
	for (size_t it = 0; pp_u64map_next(&b->live, &it, &k, &v);)
		pp_u64map_put(&a->live, k, v);
	pp_u64map_release(&b->live);
	az_kmemleak_src_free(p, b);
}
