/* SPDX-License-Identifier: MIT */
/*
 * kvmmmu.c - KVM's shadow pages (kvm_mmu_page) per MMU generation and level.
 *
 * perf-prof's kvmmmu: kvm_mmu_get_page with created=1 adds a shadow page
 * (gfn, role) to its generation (mmu_valid_gen) at its level (role bits
 * 0-3); kvm_mmu_prepare_zap_page removes it, or, for a root still in use
 * (root_count > 0), marks it invalid (role bit 11) as the kernel does; a
 * generation whose last page goes is reported "obsoleted" and forgotten.
 * The same (gfn, role) created twice is counted (ref N).  With --spte each
 * kvm_mmu_set_spte marks the entry of its level-L page that maps the gfn,
 * with --mmio each mark_mmio_spte an entry of a level-1 page, in the
 * generation of the last page created.  Each -i interval, and at the end,
 * a line per generation with activity: get_page, created, zap_page and
 * set_spte counts (then reset), the number of pages per level, and with
 * --detail the page tables: roots, then the pages under them (same role
 * but the level, gfn inside the parent's range), and the ranges of set
 * entries.  Extra -e events are printed as they come; -v prints the
 * events that could not be followed, -vv every event.
 *
 * Pages of a level are kept sorted by (gfn, role) in an array: lookups are
 * binary searches, and the ranges of --detail are scans.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/kvmmmu.h"
#include "common/err.h"
#include "common/log.h"
#include "common/table.h"

#define MMU_LEVELS 5
#define ROLE_LEVEL(r) ((r) & 0xfu)
#define ROLE_INVALID (1u << 11)
#define SPTE_SET 1
#define SPTE_MMIO 2

enum mmu_kind { K_GET_PAGE, K_ZAP, K_SET_SPTE, K_MMIO, K_EXTRA };

struct mmu_page {
	uint64_t gfn;
	uint32_t role, root_count, refcount;
	uint8_t *spte;			/* 512 entry flags, or NULL */
};

struct mmu_level {
	struct mmu_page *v;
	size_t nr, cap;
};

struct mmu_gen {
	struct mmu_gen *next;		/* newest first */
	uint64_t gen;
	struct mmu_level lv[MMU_LEVELS];
	uint64_t get_page, created, zap, set_spte;
};

struct mmu_priv {
	enum mmu_kind *kinds;		/* by -e position */
	size_t nr_kinds;
	const struct pp_field *f_gen[2], *f_gfn[4], *f_role[2], *f_root[2], *f_created, *f_level;
	struct mmu_gen *gens;
	struct mmu_gen *obsoleted;	/* JSON/CSV: generations gone since the last report */
	uint64_t current_gen;
	struct pp_buf line;
};

static int mmu_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const struct kvmmmu_opts *o = az->opts;
	struct mmu_priv *p = az->priv;
	struct pp_strlist extra = *events;
	size_t n = 0;

	memset(events, 0, sizeof(*events));
	p->kinds = pp_xcalloc(extra.nr + 4, sizeof(*p->kinds));
	pp_strlist_push(events, "kvmmmu:kvm_mmu_get_page");
	p->kinds[n++] = K_GET_PAGE;
	pp_strlist_push(events, "kvmmmu:kvm_mmu_prepare_zap_page");
	p->kinds[n++] = K_ZAP;
	if (o->spte) {
		pp_strlist_push(events, "kvmmmu:kvm_mmu_set_spte");
		p->kinds[n++] = K_SET_SPTE;
	}
	if (o->mmio) {
		pp_strlist_push(events, "kvmmmu:mark_mmio_spte");
		p->kinds[n++] = K_MMIO;
	}
	for (size_t i = 0; i < extra.nr; i++) {
		pp_strlist_push(events, extra.v[i]);
		p->kinds[n++] = K_EXTRA;
	}
	p->nr_kinds = n;
	pp_strlist_release(&extra);
	return 0;
}

static int need_field(const struct ana_evtype *t, const char *name, const struct pp_field **f)
{
	if ((*f = ana_field_find(t, name)))
		return 0;
	pp_err("kvmmmu: %s has no field '%s'", t->name, name);
	return PP_EUNKNOWN_FIELD;
}

static int mmu_init(struct pp_az *az)
{
	struct mmu_priv *p = az->priv;
	int rc = 0;

	for (size_t i = 0; i < az->nr_sels && !rc; i++) {
		const struct ana_sel *m = &az->sels[i];
		const struct ana_evtype *t = m->type;
		enum mmu_kind k = m->pos < p->nr_kinds ? p->kinds[m->pos] : K_EXTRA;

		switch (k) {
		case K_GET_PAGE:
		case K_ZAP:
			rc = need_field(t, "mmu_valid_gen", &p->f_gen[k]);
			if (!rc)
				rc = need_field(t, "gfn", &p->f_gfn[k]);
			if (!rc)
				rc = need_field(t, "role", &p->f_role[k]);
			if (!rc)
				rc = need_field(t, "root_count", &p->f_root[k]);
			if (!rc && k == K_GET_PAGE)
				rc = need_field(t, "created", &p->f_created);
			break;
		case K_SET_SPTE:
			rc = need_field(t, "gfn", &p->f_gfn[k]);
			if (!rc)
				rc = need_field(t, "level", &p->f_level);
			break;
		case K_MMIO:
			rc = need_field(t, "gfn", &p->f_gfn[k]);
			break;
		case K_EXTRA:
			break;
		}
	}
	return rc;
}

/* --- the page sets --------------------------------------------------------- */

static uint64_t span(unsigned level)
{
	return 1ull << (level * 9);
}

/* First index whose (gfn, role) >= (@gfn, @role). */
static size_t lower_bound(const struct mmu_level *l, uint64_t gfn, uint32_t role)
{
	size_t lo = 0, hi = l->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct mmu_page *m = &l->v[mid];

		if (m->gfn < gfn || (m->gfn == gfn && m->role < role))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct mmu_page *page_find(struct mmu_level *l, uint64_t gfn, uint32_t role)
{
	size_t i = lower_bound(l, gfn, role);

	return i < l->nr && l->v[i].gfn == gfn && l->v[i].role == role ? &l->v[i] : NULL;
}

static struct mmu_page *page_insert(struct mmu_level *l, uint64_t gfn, uint32_t role,
				    uint32_t root_count)
{
	size_t i = lower_bound(l, gfn, role);

	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = pp_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	memmove(&l->v[i + 1], &l->v[i], (l->nr - i) * sizeof(*l->v));
	l->nr++;
	l->v[i] = (struct mmu_page){ .gfn = gfn, .role = role, .root_count = root_count,
				     .refcount = 1 };
	return &l->v[i];
}

static void page_remove(struct mmu_level *l, struct mmu_page *pg)
{
	size_t i = (size_t)(pg - l->v);

	free(pg->spte);
	memmove(&l->v[i], &l->v[i + 1], (l->nr - i - 1) * sizeof(*l->v));
	l->nr--;
}

static struct mmu_gen *gen_find(struct mmu_priv *p, uint64_t gen, bool create)
{
	struct mmu_gen *g;

	for (g = p->gens; g; g = g->next)
		if (g->gen == gen)
			return g;
	if (!create)
		return NULL;
	g = pp_xcalloc(1, sizeof(*g));
	g->gen = gen;
	g->next = p->gens;
	p->gens = g;
	return g;
}

static void gen_free(struct mmu_gen *g)
{
	for (int l = 0; l < MMU_LEVELS; l++) {
		for (size_t i = 0; i < g->lv[l].nr; i++)
			free(g->lv[l].v[i].spte);
		free(g->lv[l].v);
	}
	free(g);
}

static bool gen_empty(const struct mmu_gen *g)
{
	for (int l = 0; l < MMU_LEVELS; l++)
		if (g->lv[l].nr)
			return false;
	return true;
}

/* --- output ------------------------------------------------------------------ */

static void out_line(struct pp_az *az, uint64_t t_ns, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void out_line(struct pp_az *az, uint64_t t_ns, const char *fmt, ...)
{
	char when[64];
	va_list ap;

	if (az->out.format != ANA_FMT_TEXT)
		return;
	fprintf(az->out.fp, "%s ", ana_time_str(az->s, t_ns, when, sizeof(when)));
	va_start(ap, fmt);
	vfprintf(az->out.fp, fmt, ap);
	va_end(ap);
}

static void print_event(struct pp_az *az, const struct pp_event *ev)
{
	struct mmu_priv *p = az->priv;

	if (az->out.format != ANA_FMT_TEXT)
		return;
	pp_buf_reset(&p->line);
	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static void role_str(uint32_t r, struct pp_buf *b)
{
	static const char *const access[] = {
		"---", "--x", "w--", "w-x", "-u-", "-ux", "wu-", "wux",
	};

	pp_buf_addf(b, " ; l%u q%u%s %s%s %snxe %swp%s%s%s%s", ROLE_LEVEL(r), (r >> 5) & 3,
		    (r & (1u << 7)) ? " direct" : "", access[(r >> 8) & 7],
		    (r & ROLE_INVALID) ? " invalid" : "", (r & (1u << 12)) ? "" : "!",
		    (r & (1u << 13)) ? "" : "!", (r & (1u << 14)) ? " smep" : "",
		    (r & (1u << 15)) ? " smap" : "", (r & (1u << 16)) ? " !ad" : "",
		    (r >> 24) ? " smm" : "");
}

static void indent(struct pp_buf *b, unsigned level)
{
	for (unsigned l = level; l < MMU_LEVELS; l++)
		pp_buf_adds(b, "    ");
}

/*
 * The pages of @level inside [@start, @end]: all of them for the roots,
 * else those of the parent's role (@mask is the root's role without its
 * level), each followed by its children and its set entries.
 */
static void dump(struct mmu_gen *g, unsigned level, bool root, uint32_t mask, uint64_t start,
		 uint64_t end, struct pp_buf *b)
{
	const struct mmu_level *l = &g->lv[level - 1];
	uint64_t sp = span(level);
	size_t i = lower_bound(l, start >= sp ? start - sp + 1 : 0, 0);

	for (; i < l->nr; i++) {
		const struct mmu_page *pg = &l->v[i];
		uint64_t pend = pg->gfn + sp - 1;
		uint32_t child_mask = mask;

		if (!root && (pg->role ^ mask) != level)
			continue;
		if (pend > end)
			return;
		indent(b, level);
		pp_buf_addf(b, "sp%u 0x%08llx-0x%08llx role 0x%04x", level,
			    (unsigned long long)pg->gfn, (unsigned long long)pend, pg->role);
		if (pg->root_count)
			pp_buf_addf(b, " root_count %u", pg->root_count);
		if (pg->refcount > 1)
			pp_buf_addf(b, " ref %u", pg->refcount);
		role_str(pg->role, b);
		pp_buf_addch(b, '\n');
		if (level > 1) {
			if (root)
				child_mask = pg->role ^ level;
			dump(g, level - 1, false, child_mask, pg->gfn, pend, b);
		}
		for (unsigned k = 0; pg->spte && k < 512; k++) {
			unsigned e = k;
			uint8_t f = pg->spte[k];

			if (!f)
				continue;
			while (e + 1 < 512 && pg->spte[e + 1] == f)
				e++;
			indent(b, level);
			pp_buf_addf(b, "    spte 0x%08llx-0x%08llx%s\n",
				    (unsigned long long)(pg->gfn + k * span(level - 1)),
				    (unsigned long long)(pg->gfn + (e + 1) * span(level - 1) - 1),
				    (f & SPTE_MMIO) ? " mmio" : "");
			k = e;
		}
	}
}

static void gen_line(struct pp_az *az, uint64_t t_ns, const struct mmu_gen *g, const char *what)
{
	out_line(az, t_ns,
		 "kvm_mmu_gen %llu%s get_page %llu created %llu zap_page %llu set_spte %llu\n",
		 (unsigned long long)g->gen, what, (unsigned long long)g->get_page,
		 (unsigned long long)g->created, (unsigned long long)g->zap,
		 (unsigned long long)g->set_spte);
}

static void table_row(struct pp_table *t, const struct mmu_gen *g, bool obsoleted)
{
	pp_table_row(t);
	pp_table_u64(t, g->gen);
	pp_table_u64(t, g->get_page);
	pp_table_u64(t, g->created);
	pp_table_u64(t, g->zap);
	pp_table_u64(t, g->set_spte);
	pp_table_u64(t, obsoleted);
	for (int l = 0; l < MMU_LEVELS; l++)
		pp_table_u64(t, g->lv[l].nr);
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct mmu_priv *p = az->priv;
	struct pp_table *t = NULL;

	if (az->out.format != ANA_FMT_TEXT) {
		t = pp_table_new();
		pp_table_col(t, "gen", NULL, 0, 0);
		pp_table_col(t, "get_page", NULL, 0, 0);
		pp_table_col(t, "created", NULL, 0, 0);
		pp_table_col(t, "zap_page", NULL, 0, 0);
		pp_table_col(t, "set_spte", NULL, 0, 0);
		pp_table_col(t, "obsoleted", NULL, 0, 0);
		for (int l = 1; l <= MMU_LEVELS; l++) {
			char name[16];
			snprintf(name, sizeof(name), "level%d", l);
			pp_table_col(t, name, NULL, 0, 0);
		}
	}
	while (t && p->obsoleted) {
		struct mmu_gen *g = p->obsoleted;

		p->obsoleted = g->next;
		table_row(t, g, true);
		gen_free(g);
	}
	for (struct mmu_gen *g = p->gens; g; g = g->next) {
		unsigned top = 0;

		if (!g->get_page && !g->created && !g->zap && !g->set_spte)
			continue;
		if (t) {
			table_row(t, g, false);
		} else {
			gen_line(az, now_ns, g, "");
			for (int l = 0; l < MMU_LEVELS; l++) {
				if (!g->lv[l].nr)
					continue;
				top = (unsigned)l + 1;
				fprintf(az->out.fp, "    level %d nr %zu\n", l + 1, g->lv[l].nr);
			}
			if (az->opt.detail && top) {
				pp_buf_reset(&p->line);
				dump(g, top, true, 0, 0, UINT64_MAX, &p->line);
				fwrite(p->line.data, 1, p->line.len, az->out.fp);
			}
		}
		g->get_page = g->created = g->zap = g->set_spte = 0;
	}
	if (t) {
		pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "kvmmmu");
		pp_table_free(t);
	}
}

/* --- events ------------------------------------------------------------------ */

/* What kvm_mmu_get_page and kvm_mmu_prepare_zap_page both tell of a shadow page. */
struct mmu_sp {
	uint64_t gen, gfn;
	uint32_t role, root;
	unsigned level;
};

static struct mmu_sp sp_read(const struct mmu_priv *p, const struct pp_event *ev,
			     enum mmu_kind k)
{
	uint32_t role = (uint32_t)ana_field_read(ev, p->f_role[k]);

	return (struct mmu_sp){
		.gen = ana_field_read(ev, p->f_gen[k]),
		.gfn = ana_field_read(ev, p->f_gfn[k]),
		.role = role,
		.root = (uint32_t)ana_field_read(ev, p->f_root[k]),
		.level = ROLE_LEVEL(role),
	};
}

static int on_get_page(struct pp_az *az, const struct pp_event *ev)
{
	struct mmu_priv *p = az->priv;
	const struct mmu_sp sp = sp_read(p, ev, K_GET_PAGE);
	bool created = ana_field_read(ev, p->f_created) != 0;
	struct mmu_gen *g = gen_find(p, sp.gen, true);
	struct mmu_level *l;
	struct mmu_page *pg;
	int rc = 0;

	g->get_page++;
	if (created) {
		g->created++;
		p->current_gen = sp.gen;
	}
	if (sp.level < 1 || sp.level > MMU_LEVELS)
		return -1;
	l = &g->lv[sp.level - 1];
	pg = page_find(l, sp.gfn, sp.role);
	if (created) {
		if (!pg) {
			page_insert(l, sp.gfn, sp.role, sp.root);
		} else {
			pg->refcount++;
			if (az->opt.verbose)
				out_line(az, ev->time_ns,
					 "kvm_mmu_get_page EXIST gen %llu gfn 0x%llx "
					 "role 0x%x root_count %u refcount %u\n",
					 (unsigned long long)sp.gen, (unsigned long long)sp.gfn,
					 sp.role, pg->root_count, pg->refcount);
		}
	} else if (sp.gfn || !pg) {
		rc = -1;	/* an existing page that is not a root: not followed */
	} else if (sp.root > pg->root_count) {
		pg->root_count = sp.root;
	}
	return rc;
}

static int on_zap(struct pp_az *az, const struct pp_event *ev)
{
	struct mmu_priv *p = az->priv;
	const struct mmu_sp sp = sp_read(p, ev, K_ZAP);
	struct mmu_gen *g = gen_find(p, sp.gen, false), **pp;
	struct mmu_level *l;
	struct mmu_page *pg;

	if (!g || sp.level < 1 || sp.level > MMU_LEVELS)
		return -1;
	l = &g->lv[sp.level - 1];
	pg = page_find(l, sp.gfn, sp.role);
	if (!pg) {
		if (az->opt.verbose)
			out_line(az, ev->time_ns, "kvm_mmu_prepare_zap_page not EXIST gfn 0x%llx\n",
				 (unsigned long long)sp.gfn);
		return -1;
	}
	if (sp.root) {
		/* a root in use is only marked invalid until its users drop it */
		uint32_t rcount = pg->root_count;
		uint8_t *spte = NULL;
		struct mmu_page *inv;

		if (--pg->refcount == 0) {
			spte = pg->spte;
			pg->spte = NULL;
			page_remove(l, pg);
		}
		inv = page_find(l, sp.gfn, sp.role | ROLE_INVALID);
		if (inv) {
			inv->refcount++;
			free(spte);
		} else {
			page_insert(l, sp.gfn, sp.role | ROLE_INVALID, rcount)->spte = spte;
		}
		return 0;
	}
	if (--pg->refcount == 0)
		page_remove(l, pg);
	g->zap++;
	if (l->nr || !gen_empty(g))
		return 0;
	gen_line(az, ev->time_ns, g, " obsoleted");
	for (pp = &p->gens; *pp != g; pp = &(*pp)->next)
		;
	*pp = g->next;
	if (az->out.format == ANA_FMT_TEXT) {
		gen_free(g);
	} else {
		g->next = p->obsoleted;
		p->obsoleted = g;
	}
	return 0;
}

static int on_spte(struct pp_az *az, const struct pp_event *ev, enum mmu_kind k)
{
	struct mmu_priv *p = az->priv;
	uint64_t gfn = ana_field_read(ev, p->f_gfn[k]);
	unsigned level = k == K_SET_SPTE ? (unsigned)ana_field_read(ev, p->f_level) : 1;
	struct mmu_gen *g = gen_find(p, p->current_gen, false);
	struct mmu_level *l;
	uint64_t sp;
	size_t i;

	if (!g || level < 1 || level > MMU_LEVELS)
		return -1;
	l = &g->lv[level - 1];
	sp = span(level);
	/* the first page (gfn order) whose range holds gfn */
	i = lower_bound(l, gfn >= sp ? gfn - sp + 1 : 0, 0);
	for (; i < l->nr && l->v[i].gfn <= gfn; i++) {
		struct mmu_page *pg = &l->v[i];
		uint64_t idx = (gfn - pg->gfn) >> ((level - 1) * 9);

		if (idx >= 512)
			continue;
		if (!pg->spte)
			pg->spte = pp_xcalloc(512, 1);
		pg->spte[idx] |= k == K_MMIO ? SPTE_SET | SPTE_MMIO : SPTE_SET;
		g->set_spte++;
		return 0;
	}
	return -1;
}

static void mmu_event(struct pp_az *az, const struct pp_event *ev)
{
	struct mmu_priv *p = az->priv;
	enum mmu_kind k = ev->sel->pos < p->nr_kinds ? p->kinds[ev->sel->pos] : K_EXTRA;
	int rc;

	switch (k) {
	case K_GET_PAGE:
		rc = on_get_page(az, ev);
		break;
	case K_ZAP:
		rc = on_zap(az, ev);
		break;
	case K_SET_SPTE:
	case K_MMIO:
		rc = on_spte(az, ev, k);
		break;
	default:
		print_event(az, ev);
		return;
	}
	if ((rc < 0 && az->opt.verbose) || az->opt.verbose >= 2)
		print_event(az, ev);
}

static void mmu_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
}

static int mmu_finish(struct pp_az *az)
{
	ana_report_header(az);
	report(az, ana_capture_end_ns(az->s));
	return 0;
}

static void mmu_release(struct pp_az *az)
{
	struct mmu_priv *p = az->priv;

	while (p->gens) {
		struct mmu_gen *g = p->gens;
		p->gens = g->next;
		gen_free(g);
	}
	while (p->obsoleted) {
		struct mmu_gen *g = p->obsoleted;
		p->obsoleted = g->next;
		gen_free(g);
	}
	free(p->kinds);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_kvmmmu_ops = {
	.summary = "KVM shadow pages per MMU generation and level (x86)",
	.usage = "pp-analyze FILE kvmmmu [--spte] [--mmio] [--detail] [-e EVENT] [-i MS]",
	.examples = "  pp-record --for 'kvmmmu --spte --mmio' -p $(pidof qemu-system-x86_64) \\\n"
		    "     --duration 10\n"
		    "  pp-analyze pp.capture kvmmmu -i 5000\n"
		    "  pp-analyze pp.capture kvmmmu --spte --mmio --detail\n"
		    "  pp-analyze pp.capture kvmmmu -e kvm:kvm_page_fault\n",
	.priv_size = sizeof(struct mmu_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_EXTRA_EVENTS,
	.set_events = mmu_set_events,
	.init = mmu_init,
	.event = mmu_event,
	.interval = mmu_interval,
	.finish = mmu_finish,
	.release = mmu_release,
};
