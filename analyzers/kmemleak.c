/* SPDX-License-Identifier: MIT */
/*
 * kmemleak.c - allocations never released before the end of the capture.
 *
 * perf-prof's kmemleak: --alloc events give a pointer (ptr=EXPR, default the
 * field "ptr") and optionally a size (size=EXPR, default "bytes_alloc");
 * --free events give the pointer they release.  A live table maps each
 * pointer to its allocation (a newer allocation of the same pointer replaces
 * the older one); a release removes it.  What is left at the end is reported:
 * with sizes and stacks, grouped by stack ("Leak of B bytes in N objects
 * allocated from:", largest first), otherwise (or with -v) allocation by
 * allocation ("KMEMLEAK REPORT: N").  --than AGE keeps only allocations made
 * at least AGE before the end of the capture.  A loss reports early and
 * starts over, as a lost release would otherwise look like a leak.
 *
 * User-space allocators: a return probe gives the pointer (ptr=ret) but not
 * the size, which the entry probe has (size=arg1).  An --alloc event with a
 * size and no pointer is such an entry: its size waits, per thread, for the
 * next allocation event of that thread that has a pointer and no size.
 *
 * The hot path allocates nothing once the object pool has grown: objects are
 * recycled through a free list, stacks are interned (pp_stackmap) and
 * symbolized only when reported.  Not here: what to record (kmemleak-plan.c).
 *
 * Its mergeable state is kmemleak-merge.c's; the types both share, kmemleak-internal.h.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/kmemleak.h"
#include "analyzers/kmemleak-internal.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/stackmap.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/wire.h"

struct km_obj *az_kmemleak_obj_get(struct km_priv *p)
{
	struct km_obj *o = p->free_objs;

	if (!o) {
		struct km_chunk *c = pp_xcalloc(1, sizeof(*c));
		c->next = p->chunks;
		p->chunks = c;
		for (size_t i = PP_ARRAY_SIZE(c->objs); i-- > 0;) {
			c->objs[i].next_free = p->free_objs;
			p->free_objs = &c->objs[i];
		}
		o = p->free_objs;
	}
	p->free_objs = o->next_free;
	return o;
}

void az_kmemleak_obj_set_raw(struct km_obj *o, const void *raw, uint32_t raw_sz)
{
	if (o->raw_cap < raw_sz) {
		o->raw = pp_xrealloc(o->raw, raw_sz);
		o->raw_cap = raw_sz;
	}
	if (raw_sz)
		memcpy(o->raw, raw, raw_sz);
	o->raw_sz = raw_sz;
}

void az_kmemleak_obj_put(struct km_priv *p, struct km_obj *o)
{
	o->next_free = p->free_objs;
	p->free_objs = o;
}

static int km_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const struct kmemleak_opts *o = az->opts;

	if (!o->alloc || !o->free) {
		pp_err("kmemleak: needs --alloc EVENTS and --free EVENTS "
		       "(see 'pp-analyze help kmemleak')");
		return PP_EUSAGE;
	}
	pp_strlist_push(events, o->alloc);
	pp_strlist_push(events, o->free);
	((struct km_priv *)az->priv)->own_events = true;
	return 0;
}

/* The expression of attribute @attr, else field @field when the event has it. */
static int compile_attr(struct pp_az *az, const struct ana_sel *m, const char *attr,
			const char *field, struct pp_expr **out)
{
	const char *text = pp_selector_attr(m->sel, attr);

	*out = NULL;
	if (text && !*text) {
		pp_err("kmemleak: %s: %s= needs an expression", m->sel->text, attr);
		return PP_ESYNTAX;
	}
	if (!text && field && ana_field_find(m->type, field))
		text = field;
	return text ? ana_expr_compile(az, m->type, attr, text, out) : 0;
}

static int km_init(struct pp_az *az)
{
	struct km_priv *p = az->priv;
	bool stacks = false;
	int rc;

	if (!p->own_events) {
		pp_err("kmemleak: give the events with --alloc and --free, not -e");
		return PP_EUSAGE;
	}
	p->sels = pp_xcalloc(az->nr_sels + 1, sizeof(*p->sels));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];
		struct km_sel *k = &p->sels[m->index];

		k->free = m->pos == KM_FREE;
		rc = compile_attr(az, m, "ptr", "ptr", &k->ptr);
		if (!rc && !k->free)
			rc = compile_attr(az, m, "size", "bytes_alloc", &k->size);
		if (rc)
			return rc;
		if (!k->ptr && (k->free || !k->size)) {
			pp_err("kmemleak: %s: needs ptr=EXPR (the event has no field 'ptr')",
			       m->sel->text);
			return PP_EUSAGE;
		}
		if (k->size)
			p->have_size = true;
		if (!k->free && (m->type->desc_flags & 4 /* PPF_EVF_STACK */))
			stacks = true;
	}
	p->bytes_report = p->have_size && stacks && !az->opt.verbose;
	p->keep_raw = !p->bytes_report;
	if (ana_state_recording(az)) {
		if (az->opt.flame_graph) {
			pp_err("kmemleak: --flame-graph with --state-out: a state holds the leaks "
			       "only (replay the capture for the flame graph)");
			return PP_EUSAGE;
		}
		p->rec = pp_xcalloc(1, sizeof(*p->rec));
	}
	if (az->opt.flame_graph)
		p->flame = pp_flame_new();
	return 0;
}

static struct km_stack *stack_intern(struct km_priv *p, const struct pp_event *ev)
{
	bool user = false;
	void **slot;

	for (uint32_t i = 0; i < ev->nr_stack && !user; i++)
		user = ev->stack[i] && ev->stack[i] < PP_KERNEL_ADDR_MIN;
	slot = pp_stackmap_slot(&p->stackmap, user ? ev->pid : 0, ev->stack, ev->nr_stack);
	if (!*slot) {
		struct km_stack *st = pp_xcalloc(1, sizeof(*st));
		uint64_t *f = pp_xmalloc(ev->nr_stack * sizeof(*f));

		memcpy(f, ev->stack, ev->nr_stack * sizeof(*f));
		st->frames = f;
		st->nr = ev->nr_stack;
		st->pid = ev->pid;
		st->key = user ? ev->pid : 0;
		st->time_ns = ev->time_ns;
		p->stacks = pp_xrealloc(p->stacks, (p->nr_stacks + 1) * sizeof(*p->stacks));
		p->stacks[p->nr_stacks++] = st;
		*slot = st;
	}
	return *slot;
}

/* --state-out: thread @tid's entry in the range; *@fresh when the range had none. */
static struct km_tid *rec_tid(struct km_src *r, uint32_t tid, bool *fresh)
{
	void **slot = pp_u64map_slot(&r->tids, tid);

	*fresh = !*slot;
	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct km_tid));
	return *slot;
}

/* --state-out: the range's first event of @ptr was of kind @first (KP_*). */
static void rec_ptr(struct km_src *r, uint64_t ptr, uintptr_t first)
{
	void **slot = pp_u64map_slot(&r->touched, ptr);

	if (!*slot)
		*slot = (void *)first;
}

static void km_alloc(struct pp_az *az, const struct km_sel *k, const struct pp_event *ev)
{
	struct km_priv *p = az->priv;
	uint64_t ptr, size = 0;
	struct km_obj *o;
	void **slot;
	bool fresh;

	if (!k->ptr) {	/* an entry probe: its size waits for the pointer */
		pp_u64map_put(&p->pending, ev->tid,
			      (void *)(uintptr_t)((uint64_t)ana_expr_eval(az, k->size, ev) + 1));
		if (p->rec)
			rec_tid(p->rec, ev->tid, &fresh);
		return;
	}
	ptr = (uint64_t)ana_expr_eval(az, k->ptr, ev);
	if (k->size) {
		size = (uint64_t)ana_expr_eval(az, k->size, ev);
	} else {
		void *v = pp_u64map_del(&p->pending, ev->tid);
		if (v)
			size = (uint64_t)(uintptr_t)v - 1;
		if (p->rec) {
			struct km_tid *t = rec_tid(p->rec, ev->tid, &fresh);
			if (fresh) {	/* its size, if any, is the range before's */
				t->flags = KT_HEAD;
				t->head_ptr = ptr;
				t->head_ns = ev->time_ns;
			}
		}
	}
	if (!ptr)	/* a failed allocation */
		return;
	if (p->rec)
		rec_ptr(p->rec, ptr, KP_ALLOC_FIRST);
	p->nr_alloc++;
	slot = pp_u64map_slot(&p->live, ptr);
	o = *slot ? *slot : az_kmemleak_obj_get(p);
	*slot = o;
	o->ptr = ptr;
	o->size = size;
	o->time_ns = ev->time_ns;
	o->cpu = ev->cpu;
	o->pid = ev->pid;
	o->tid = ev->tid;
	o->sel = ev->sel;
	o->stack = ev->nr_stack ? stack_intern(p, ev) : NULL;
	az_kmemleak_obj_set_raw(o, ev->raw, p->keep_raw ? ev->raw_sz : 0);
}

static void km_event(struct pp_az *az, const struct pp_event *ev)
{
	struct km_priv *p = az->priv;
	const struct km_sel *k = &p->sels[ev->sel->index];
	struct km_obj *o;
	uint64_t ptr;

	if (!k->free) {
		km_alloc(az, k, ev);
		return;
	}
	p->nr_free++;
	ptr = (uint64_t)ana_expr_eval(az, k->ptr, ev);
	if (p->rec)
		rec_ptr(p->rec, ptr, KP_FREE_FIRST);
	o = pp_u64map_del(&p->live, ptr);
	if (o)
		az_kmemleak_obj_put(p, o);
	else
		p->nr_unmatched_free++;	/* allocated before the capture began */
}

/* The allocation as an event again (for printing and symbolization). */
static void obj_event(const struct km_obj *o, struct pp_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time_ns = o->time_ns;
	ev->cpu = o->cpu;
	ev->pid = o->pid;
	ev->tid = o->tid;
	ev->type = o->sel->type;
	ev->sel = o->sel;
	ev->raw = o->raw;
	ev->raw_sz = o->raw_sz;
	if (o->stack) {
		ev->stack = o->stack->frames;
		ev->nr_stack = o->stack->nr;
	}
}

static int cmp_obj_time(const void *a, const void *b)
{
	const struct km_obj *x = *(struct km_obj *const *)a, *y = *(struct km_obj *const *)b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->ptr < y->ptr ? -1 : x->ptr > y->ptr;
}

static int cmp_stack_bytes(const void *a, const void *b)
{
	const struct km_stack *x = *(struct km_stack *const *)a, *y = *(struct km_stack *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->objects != y->objects)
		return x->objects > y->objects ? -1 : 1;
	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* The live allocations old enough to be leaks, oldest first.  Return: malloc'ed array. */
/* Live table @i: 0 the replay's, i > 0 state source i - 1's (NULL when it has none). */
static const struct pp_u64map *live_at(const struct km_priv *p, size_t i)
{
	if (!i)
		return &p->live;
	return p->srcs[i - 1] ? &p->srcs[i - 1]->live : NULL;
}

/* The live allocations, of the replay and of every state source: their number and bytes. */
static size_t live_nr(const struct km_priv *p, uint64_t *bytes)
{
	const struct pp_u64map *m;
	size_t n = 0;
	uint64_t k;
	void *v;

	*bytes = 0;
	for (size_t i = 0; i <= p->nr_srcs; i++)
		for (size_t it = 0; (m = live_at(p, i)) && pp_u64map_next(m, &it, &k, &v);) {
			*bytes += ((struct km_obj *)v)->size;
			n++;
		}
	return n;
}

static struct km_obj **candidates(struct pp_az *az, uint64_t end_ns, size_t *nr)
{
	struct km_priv *p = az->priv;
	uint64_t bytes;
	struct km_obj **v = pp_xmalloc((live_nr(p, &bytes) + 1) * sizeof(*v));
	const struct pp_u64map *m;
	uint64_t k;
	void *val;

	*nr = 0;
	for (size_t i = 0; i <= p->nr_srcs; i++)
		for (size_t it = 0; (m = live_at(p, i)) && pp_u64map_next(m, &it, &k, &val);) {
			struct km_obj *o = val;
			uint64_t age = end_ns > o->time_ns ? end_ns - o->time_ns : 0;

			if (az->opt.than_ns && age < az->opt.than_ns)
				continue;
			v[(*nr)++] = o;
		}
	qsort(v, *nr, sizeof(*v), cmp_obj_time);
	return v;
}

void az_kmemleak_stack_text(struct pp_az *az, const struct km_stack *st, struct pp_buf *out)
{
	struct pp_event ev = { .pid = st->pid, .tid = st->pid, .time_ns = st->time_ns,
			       .stack = st->frames, .nr_stack = st->nr };

	if (st->text)
		pp_buf_adds(out, st->text);
	else
		ana_stack_print(az->s, &ev, out);
}

/* "outer;...;inner" without the command, for JSON and CSV */
void az_kmemleak_stack_folded(struct pp_az *az, const struct km_stack *st, struct pp_buf *out)
{
	struct pp_event ev = { .pid = st->pid, .tid = st->pid, .time_ns = st->time_ns,
			       .stack = st->frames, .nr_stack = st->nr };
	struct pp_buf b = PP_BUF_INIT;
	const char *semi;

	if (st->folded) {
		pp_buf_adds(out, st->folded);
		return;
	}
	ana_stack_folded(az->s, &ev, &b);
	semi = strchr(pp_buf_str(&b), ';');
	pp_buf_adds(out, semi ? semi + 1 : "");
	pp_buf_release(&b);
}

static void report_events(struct pp_az *az, struct km_obj **v, size_t nr)
{
	struct km_priv *p = az->priv;
	struct pp_table *t = NULL;
	struct pp_buf b = PP_BUF_INIT;
	char ts[32];

	if (az->out.format == ANA_FMT_TEXT) {
		fprintf(az->out.fp, "KMEMLEAK REPORT: %zu\n", nr);
	} else {
		t = pp_table_new();
		pp_table_col(t, "time", NULL, 0, 0);
		pp_table_col(t, "cpu", NULL, 0, 0);
		pp_table_col(t, "pid", NULL, 0, 0);
		pp_table_col(t, "tid", NULL, 0, 0);
		pp_table_col(t, "comm", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "event", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "ptr", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "size", NULL, 0, 0);
		pp_table_col(t, "stack", NULL, PP_COL_LEFT, 0);
	}
	for (size_t i = 0; i < nr; i++) {
		struct pp_event ev;

		obj_event(v[i], &ev);
		pp_buf_reset(&p->line);
		if (!t) {
			if (ev.raw_sz)
				ana_event_print(az->s, &ev, &p->line);
			else
				pp_buf_addf(&p->line, "%s %16s %6u [%03u] %s: %s: ptr=0x%llx",
					    ana_time_str(az->s, ev.time_ns, ts, sizeof(ts)),
					    ana_comm(az->s, ev.tid), ev.tid, ev.cpu,
					    ana_ts_str(ev.time_ns, ts, sizeof(ts)), ev.type->name,
					    (unsigned long long)v[i]->ptr);
			pp_buf_addch(&p->line, '\n');
			if (v[i]->stack)
				az_kmemleak_stack_text(az, v[i]->stack, &p->line);
			fwrite(p->line.data, 1, p->line.len, az->out.fp);
			continue;
		}
		pp_table_row(t);
		pp_table_str(t, ana_ts_str(ev.time_ns, ts, sizeof(ts)));
		pp_table_u64(t, ev.cpu);
		pp_table_u64(t, ev.pid);
		pp_table_u64(t, ev.tid);
		pp_table_str(t, ana_comm(az->s, ev.tid));
		pp_table_str(t, ev.type->name);
		pp_table_strf(t, "0x%llx", (unsigned long long)v[i]->ptr);
		pp_table_u64(t, v[i]->size);
		pp_buf_reset(&b);
		if (v[i]->stack)
			az_kmemleak_stack_folded(az, v[i]->stack, &b);
		pp_table_str(t, pp_buf_str(&b));
	}
	if (t) {
		pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "leaks");
		pp_table_free(t);
	}
	pp_buf_release(&b);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct km_comm *x = *(struct km_comm *const *)a, *y = *(struct km_comm *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->comm, y->comm);
}

/* "comm(bytes/n) ..." of one stack, largest first; frees the scratch entries. */
static void comm_list(struct km_stack *st, struct pp_buf *out)
{
	struct km_comm **v = pp_xmalloc((st->comms.nr + 1) * sizeof(*v));
	size_t n = 0;
	uint64_t k;
	void *val;

	for (size_t it = 0; pp_u64map_next(&st->comms, &it, &k, &val);)
		v[n++] = val;
	qsort(v, n, sizeof(*v), cmp_comm);
	for (size_t i = 0; i < n; i++) {
		pp_buf_addf(out, "%s%s(%llu/%llu)", i ? " " : "", v[i]->comm,
			    (unsigned long long)v[i]->bytes, (unsigned long long)v[i]->objects);
		free(v[i]);
	}
	free(v);
	pp_u64map_release(&st->comms);
}

static void add_comm(struct pp_az *az, struct km_stack *st, const struct km_obj *o)
{
	const char *comm = ana_comm(az->s, o->tid);
	uint64_t h = 1469598103934665603ull;
	struct km_comm *c;
	void **slot;

	for (const char *s = comm; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	slot = pp_u64map_slot(&st->comms, h);
	c = *slot;
	if (!c) {
		c = *slot = pp_xcalloc(1, sizeof(*c));
		snprintf(c->comm, sizeof(c->comm), "%s", comm);
	}
	c->bytes += o->size;
	c->objects++;
}

static void report_bytes(struct pp_az *az, struct km_obj **v, size_t nr)
{
	const struct kmemleak_opts *opts = az->opts;
	struct km_priv *p = az->priv;
	struct km_stack **sv = pp_xmalloc((p->nr_stacks + 1) * sizeof(*sv));
	struct pp_table *t = NULL;
	struct pp_buf b = PP_BUF_INIT;
	uint64_t unstacked = 0, unstacked_n = 0;
	size_t ns = 0;

	for (size_t i = 0; i < p->nr_stacks; i++)
		p->stacks[i]->bytes = p->stacks[i]->objects = 0;
	for (size_t i = 0; i < nr; i++) {
		struct km_stack *st = v[i]->stack;
		if (!st) {
			unstacked += v[i]->size;
			unstacked_n++;
			continue;
		}
		if (!st->objects)
			sv[ns++] = st;
		st->bytes += v[i]->size;
		st->objects++;
		if (opts->comm)
			add_comm(az, st, v[i]);
	}
	qsort(sv, ns, sizeof(*sv), cmp_stack_bytes);
	if (az->out.format == ANA_FMT_TEXT) {
		fprintf(az->out.fp, "LEAKED BYTES REPORT:\n");
	} else {
		t = pp_table_new();
		pp_table_col(t, "bytes", NULL, 0, 0);
		pp_table_col(t, "objects", NULL, 0, 0);
		if (opts->comm)
			pp_table_col(t, "comms", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "stack", NULL, PP_COL_LEFT, 0);
	}
	for (size_t i = 0; i < ns; i++) {
		struct km_stack *st = sv[i];

		pp_buf_reset(&b);
		if (opts->comm)
			comm_list(st, &b);
		if (t) {
			pp_table_row(t);
			pp_table_u64(t, st->bytes);
			pp_table_u64(t, st->objects);
			if (opts->comm)
				pp_table_str(t, pp_buf_str(&b));
			pp_buf_reset(&b);
			az_kmemleak_stack_folded(az, st, &b);
			pp_table_str(t, pp_buf_str(&b));
			continue;
		}
		pp_buf_reset(&p->line);
		pp_buf_addf(&p->line, "Leak of %llu bytes in %llu objects allocated from:\n",
			    (unsigned long long)st->bytes, (unsigned long long)st->objects);
		if (opts->comm)
			pp_buf_addf(&p->line, "    comms: %s\n", pp_buf_str(&b));
		az_kmemleak_stack_text(az, st, &p->line);
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	}
	if (unstacked_n && !t)
		fprintf(az->out.fp,
			"Leak of %llu bytes in %llu objects allocated without a stack\n",
			(unsigned long long)unstacked, (unsigned long long)unstacked_n);
	if (t) {
		if (unstacked_n) {
			pp_table_row(t);
			pp_table_u64(t, unstacked);
			pp_table_u64(t, unstacked_n);
			if (opts->comm)
				pp_table_str(t, "");
			pp_table_str(t, "");
		}
		pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "leaks");
		pp_table_free(t);
	}
	pp_buf_release(&b);
	free(sv);
}

static void report_stats(struct pp_az *az)
{
	struct km_priv *p = az->priv;
	uint64_t bytes;
	size_t nr = live_nr(p, &bytes);

	if (az->out.format == ANA_FMT_TEXT) {
		fprintf(az->out.fp, "KMEMLEAK STATS:\n");
		fprintf(az->out.fp, "ALLOC LIST num %zu mem %llu\n", nr,
			(unsigned long long)bytes);
		fprintf(az->out.fp, "TOTAL alloc %llu free %llu\n", (unsigned long long)p->nr_alloc,
			(unsigned long long)p->nr_free);
		return;
	}
	struct pp_table *t = pp_table_new();

	pp_table_col(t, "live", NULL, 0, 0);
	pp_table_col(t, "live_bytes", NULL, 0, 0);
	pp_table_col(t, "alloc", NULL, 0, 0);
	pp_table_col(t, "free", NULL, 0, 0);
	pp_table_col(t, "unmatched_free", NULL, 0, 0);
	pp_table_row(t);
	pp_table_u64(t, nr);
	pp_table_u64(t, bytes);
	pp_table_u64(t, p->nr_alloc);
	pp_table_u64(t, p->nr_free);
	pp_table_u64(t, p->nr_unmatched_free);
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "stats");
	pp_table_free(t);
}

static void flame_add(struct pp_az *az, struct km_obj **v, size_t nr)
{
	struct km_priv *p = az->priv;

	for (size_t i = 0; i < nr; i++) {
		struct pp_event ev;

		obj_event(v[i], &ev);
		pp_flame_add(ana_stack_node(az, p->flame, &ev), p->have_size ? v[i]->size : 1);
	}
}

/*
 * Report what is live at @end_ns; @lost: early, because of a loss (then
 * nothing at all when there is nothing to report).
 */
static void report(struct pp_az *az, uint64_t end_ns, const struct pp_lost_ev *lost)
{
	struct km_priv *p = az->priv;
	size_t nr;
	struct km_obj **v = candidates(az, end_ns, &nr);
	char ts[32];

	if (lost && !nr) {
		free(v);
		return;
	}
	if (lost && az->out.format == ANA_FMT_TEXT)
		fprintf(az->out.fp,
			"Report memory leaks in advance due to lost (%llu events at %s)\n",
			(unsigned long long)lost->count, ana_ts_str(lost->time_ns, ts, sizeof(ts)));
	if (p->bytes_report)
		report_bytes(az, v, nr);
	else
		report_events(az, v, nr);
	if (p->flame)
		flame_add(az, v, nr);
	free(v);
}

static void live_reset(struct km_priv *p)
{
	uint64_t k;
	void *v;

	for (size_t it = 0; pp_u64map_next(&p->live, &it, &k, &v);)
		az_kmemleak_obj_put(p, v);
	pp_u64map_release(&p->live);
	pp_u64map_release(&p->pending);
}

static void km_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct km_priv *p = az->priv;

	if (p->rec && p->live.nr && !p->lost) {	/* state_write refuses: see there */
		p->lost = true;
		p->lost_ns = l->time_ns;
		return;
	}

	if (!p->live.nr)
		return;
	report(az, l->time_ns, l);
	live_reset(p);
}

static int km_finish(struct pp_az *az)
{
	struct km_priv *p = az->priv;
	int rc = 0;

	ana_report_header(az);
	report(az, ana_capture_end_ns(az->s), NULL);
	report_stats(az);
	if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "kmemleak",
						.unit = p->have_size ? "bytes" : "objects" };
		char err[256];

		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("kmemleak: %s", err);
	}
	return rc;
}

static void km_release(struct pp_az *az)
{
	struct km_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_srcs; i++)
		az_kmemleak_src_free(p, p->srcs[i]);
	free(p->srcs);
	az_kmemleak_src_free(p, p->rec);

	for (size_t i = 0; p->sels && i < az->nr_sels; i++) {
		pp_expr_free(p->sels[i].ptr);
		pp_expr_free(p->sels[i].size);
	}
	free(p->sels);
	pp_u64map_release(&p->live);
	pp_u64map_release(&p->pending);
	while (p->chunks) {
		struct km_chunk *c = p->chunks;
		p->chunks = c->next;
		for (size_t i = 0; i < PP_ARRAY_SIZE(c->objs); i++)
			free(c->objs[i].raw);
		free(c);
	}
	for (size_t i = 0; i < p->nr_stacks; i++) {
		free((void *)p->stacks[i]->frames);
		free(p->stacks[i]->text);
		free(p->stacks[i]->folded);
		free(p->stacks[i]);
	}
	free(p->stacks);
	pp_stackmap_release(&p->stackmap);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}

const struct pp_analyzer_ops az_kmemleak_ops = {
	.summary = "allocations not released by the end of the capture, by stack",
	.usage = "pp-analyze FILE kmemleak --alloc EVENT[,...] --free EVENT[,...] [-g]\n"
		 "       [--than AGE] [--comm]",
	.examples =
		"  pp-record --for 'kmemleak --alloc kmem:kmalloc//ptr=ptr/size=bytes_alloc/ \\\n"
		"     --free kmem:kfree//ptr=ptr/ -g' -a --duration 10\n"
		"  pp-analyze pp.capture kmemleak \\\n"
		"     --alloc kmem:kmalloc//ptr=ptr/size=bytes_alloc/ \\\n"
		"     --free kmem:kfree//ptr=ptr/ --than 5s\n"
		"  pp-analyze pp.capture kmemleak \\\n"
		"     --alloc 'kmem:mm_page_alloc//ptr=pfn/size=(4096<<order)/' \\\n"
		"     --free kmem:mm_page_free//ptr=pfn/\n"
		"  pp kmemleak \\\n"
		"     --alloc 'uprobe:libc.so.6:malloc//size=arg1/,"
		"uretprobe:libc.so.6:malloc//ptr=ret/' \\\n"
		"     --free 'uprobe:libc.so.6:free//ptr=arg1/' -g --comm -- ./myprog\n",
	.priv_size = sizeof(struct km_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_STATE_MAY_REFUSE,
	.set_events = km_set_events,
	.init = km_init,
	.event = km_event,
	.lost = km_lost,
	.finish = km_finish,
	.release = km_release,
	.state_version = 1,
	.state_write = az_kmemleak_state_write,
	.state_read = az_kmemleak_state_read,
	.state_join = az_kmemleak_state_join,
};
