/* SPDX-License-Identifier: MIT */
/*
 * page-faults.c - every page fault, and where they come from (perf-prof's
 * page-faults plus a summary).
 *
 * One line per fault, perf-prof's layout:
 *   <wall time> <comm> <tid> [cpu] sec.usec: page-fault: addr ADDR ip IP
 * followed by the call stack with -g.  At the end (and every -i) two tables
 * perf-prof lacks: faults by symbol of the faulting instruction and by
 * process.  The symbol of each distinct (task, ip) is resolved once.
 * --flame-graph collects the fault stacks.  With -g, the registers at the
 * fault where the capture has them (pp-record --for 'page-faults -g' records
 * them: perf's REGS_INTR, the user's registers for a fault in user space),
 * printed before the stack in perf-prof's layout.
 * State (--state-out, with --summary): the faults by symbol name and by pid.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/page-faults.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/stackmap.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "common/wire.h"

struct pf_proc {
	uint32_t pid;
	uint64_t count;
};

struct pf_priv {
	struct pp_flame *syms;		/* root children: symbols, self = faults */
	struct pp_stackmap sym_cache;	/* (task, ip) -> node of @syms */
	struct pp_u64map proc_map;
	struct pf_proc **procs;
	size_t nr_procs, cap_procs;
	uint64_t nr_faults;
	struct pp_flame *flame;		/* --flame-graph */
	struct pp_stackmap stacks;
	struct pp_buf line;
};

static const char *const pf_events[] = { "page-faults", NULL };

static int pf_init(struct pp_az *az)
{
	struct pf_priv *p = az->priv;
	const struct page_faults_opts *o = az->opts;

	if (ana_state_recording(az) && (!o->summary || az->opt.flame_graph)) {
		pp_err("page-faults: %s", az->opt.flame_graph ?
		       "--flame-graph with --state-out: a state holds the tables only (replay the "
		       "capture for the flame graph)" :
		       "--state-out without --summary: the listing of every fault stays "
		       "single-stream (give --summary for a state of the tables)");
		return PP_EUSAGE;
	}
	p->syms = pp_flame_new();
	if (az->opt.flame_graph)
		p->flame = pp_flame_new();
	return 0;
}

#define ATTR_SAMPLE_TYPE_OFF 24
#define ATTR_SAMPLE_REGS_INTR_OFF 96
#define PERF_SAMPLE_REGS_INTR_BIT (1ull << 18)

/* The register mask of @ev's samples (perf's REGS_INTR), 0 when they have none. */
static uint64_t pf_regs_mask(const struct ana_evtype *t)
{
	uint64_t st = 0, mask = 0;

	if (!t || !t->attr || t->attr_sz < ATTR_SAMPLE_REGS_INTR_OFF + 8)
		return 0;
	memcpy(&st, (const uint8_t *)t->attr + ATTR_SAMPLE_TYPE_OFF, 8);
	memcpy(&mask, (const uint8_t *)t->attr + ATTR_SAMPLE_REGS_INTR_OFF, 8);
	return (st & PERF_SAMPLE_REGS_INTR_BIT) ? mask : 0;
}

/* x86_64 registers of @ev in perf-prof's page-faults layout (all of them, or nothing). */
static void pf_regs_print(const struct pp_event *ev, uint64_t mask, struct pp_buf *out)
{
	struct ana_regs r;

	if (!ana_regs_get(ev, mask, &r))
		return;
#if defined(__x86_64__)
	if ((r.have & 0xff0fffull) != 0xff0fffull)
		return;
	ana_regs_print_x86(&r, out);
#else
	(void)out;
#endif
}

static void pf_print(struct pp_az *az, const struct pp_event *ev)
{
	struct pf_priv *p = az->priv;
	struct ana_session *s = az->s;
	char wall[48], ts[32];

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(s, ev, &p->line);
		pp_buf_addf(&p->line, ",\"addr\":\"%016llx\",\"ip\":\"%016llx\"}\n",
			    (unsigned long long)ev->addr, (unsigned long long)ev->ip);
	} else if (az->out.format == ANA_FMT_TEXT) {
		pp_buf_addf(&p->line,
			    "%s %16s %6u [%03u] %s: page-fault: addr %016llx ip %016llx\n",
			    ana_time_str(s, ev->time_ns, wall, sizeof(wall)), ana_comm(s, ev->tid),
			    ev->tid, ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			    (unsigned long long)ev->addr, (unsigned long long)ev->ip);
		if (az->opt.callchain && ev->sel)
			pf_regs_print(ev, pf_regs_mask(ev->sel->type), &p->line);
		if (az->opt.callchain && ev->nr_stack)
			ana_stack_print(s, ev, &p->line);
	}
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static struct pf_proc *pf_proc_get(struct pf_priv *p, uint32_t pid)
{
	void **ps = pp_u64map_slot(&p->proc_map, pid);

	if (!*ps) {
		struct pf_proc *pr = pp_xcalloc(1, sizeof(*pr));
		pr->pid = pid;
		*ps = pr;
		PP_VEC_PUSH(p->procs, p->nr_procs, p->cap_procs, pr);
	}
	return *ps;
}

static void pf_event(struct pp_az *az, const struct pp_event *ev)
{
	struct pf_priv *p = az->priv;
	const struct page_faults_opts *o = az->opts;
	void **slot = pp_stackmap_slot(&p->sym_cache, ana_stack_key(az->s, ev), &ev->ip, 1);

	if (!*slot) {
		char name[256];
		ana_frame_name(az->s, ev, ev->ip, pp_addr_is_kernel(ev->ip), name, sizeof(name));
		*slot = pp_flame_child(p->syms, pp_flame_root(p->syms), name, strlen(name));
	}
	pp_flame_add(*slot, 1);
	pf_proc_get(p, ev->pid)->count++;
	p->nr_faults++;
	if (p->flame) {
		slot = pp_stackmap_slot(&p->stacks, ana_stack_key(az->s, ev), ev->stack,
					ev->nr_stack);
		if (!*slot)
			*slot = ana_stack_node(az, p->flame, ev);
		pp_flame_add(*slot, 1);
	}
	if (!o->summary && az->out.format != ANA_FMT_CSV)
		pf_print(az, ev);
}

struct pf_sym_list {
	struct pp_flame_node **v;
	size_t nr, cap;
};

static int pf_collect(struct pp_flame_node *n, void *arg)
{
	struct pf_sym_list *l = arg;

	if (n->depth == 1 && n->self)
		PP_VEC_PUSH(l->v, l->nr, l->cap, n);
	return 0;
}

static int pf_cmp_sym(const void *a, const void *b)
{
	const struct pp_flame_node *x = *(struct pp_flame_node *const *)a;
	const struct pp_flame_node *y = *(struct pp_flame_node *const *)b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int pf_cmp_proc(const void *a, const void *b)
{
	const struct pf_proc *x = *(struct pf_proc *const *)a, *y = *(struct pf_proc *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static double pf_pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void pf_report(struct pp_az *az, uint64_t now_ns)
{
	struct pf_priv *p = az->priv;
	const struct page_faults_opts *o = az->opts;
	enum pp_table_format f = (enum pp_table_format)az->out.format;
	bool json = az->out.format == ANA_FMT_JSON, text = az->out.format == ANA_FMT_TEXT;
	struct pf_sym_list l = { 0 };
	size_t limit = o->top ? o->top : 30;
	struct pp_table *t;
	char when[48];

	if (!p->nr_faults)
		return;
	pp_flame_walk(p->syms, pf_collect, &l);
	qsort(l.v, l.nr, sizeof(*l.v), pf_cmp_sym);
	if (text) {
		ana_report_header(az);
		fprintf(az->out.fp, "%s page-faults: %llu faults\n",
			ana_time_str(az->s, now_ns, when, sizeof(when)),
			(unsigned long long)p->nr_faults);
	}
	t = pp_table_new();
	pp_table_col(t, "Faults", "faults", 0, 8);
	pp_table_col(t, "Share", "pct", 0, 8);
	pp_table_col(t, "Symbol", "symbol", PP_COL_LEFT, 0);
	for (size_t i = 0; i < l.nr && i < limit; i++) {
		pp_table_row(t);
		pp_table_u64(t, l.v[i]->self);
		pp_table_num(t, json ? "%.4f" : "%.2f%%", pf_pct(l.v[i]->self, p->nr_faults));
		pp_table_str(t, l.v[i]->name);
	}
	pp_table_print(t, az->out.fp, f, "by_symbol");
	pp_table_free(t);
	if (text)
		fputc('\n', az->out.fp);

	qsort(p->procs, p->nr_procs, sizeof(*p->procs), pf_cmp_proc);
	t = pp_table_new();
	pp_table_col(t, "PID", "pid", 0, 6);
	pp_table_col(t, "COMM", "comm", PP_COL_LEFT, 16);
	pp_table_col(t, "Faults", "faults", 0, 8);
	pp_table_col(t, "Share", "pct", 0, 8);
	for (size_t i = 0; i < p->nr_procs; i++) {
		pp_table_row(t);
		pp_table_u64(t, p->procs[i]->pid);
		pp_table_str(t, ana_comm(az->s, p->procs[i]->pid));
		pp_table_u64(t, p->procs[i]->count);
		pp_table_num(t, json ? "%.4f" : "%.2f%%", pf_pct(p->procs[i]->count, p->nr_faults));
	}
	pp_table_print(t, az->out.fp, f, "by_process");
	pp_table_free(t);
	free(l.v);

	/* next interval: counts start again (symbols are resolved again too) */
	for (size_t i = 0; i < p->nr_procs; i++)
		free(p->procs[i]);
	p->nr_procs = 0;
	pp_u64map_release(&p->proc_map);
	pp_stackmap_release(&p->sym_cache);
	pp_flame_reset(p->syms);
	p->nr_faults = 0;
}

static void pf_interval(struct pp_az *az, uint64_t now_ns)
{
	pf_report(az, now_ns);
}

static int pf_finish(struct pp_az *az)
{
	struct pf_priv *p = az->priv;
	char err[256];
	int rc = 0;

	pf_report(az, ana_capture_end_ns(az->s));
	if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "Page faults", .unit = "faults" };
		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("page-faults: %s", err);
	}
	return rc;
}

static void pf_release(struct pp_az *az)
{
	struct pf_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_procs; i++)
		free(p->procs[i]);
	free(p->procs);
	pp_u64map_release(&p->proc_map);
	pp_stackmap_release(&p->sym_cache);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->syms);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}

/* --- mergeable state (docs/state-format.md "page-faults") --------------------- */

static int pf_cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct pp_flame_node *const *)a)->name,
		      (*(struct pp_flame_node *const *)b)->name);
}

static int pf_cmp_pid(const void *a, const void *b)
{
	const struct pf_proc *x = *(struct pf_proc *const *)a, *y = *(struct pf_proc *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int pf_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct pf_priv *p = az->priv;
	struct pf_sym_list l = { 0 };

	pp_flame_walk(p->syms, pf_collect, &l);
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), pf_cmp_name);
	pp_wire_put_varint(out, p->nr_faults);
	pp_wire_put_varint(out, l.nr);
	for (size_t i = 0; i < l.nr; i++) {
		pp_wire_put_str(out, l.v[i]->name);
		pp_wire_put_varint(out, l.v[i]->self);
	}
	free(l.v);
	if (p->nr_procs)
		qsort(p->procs, p->nr_procs, sizeof(*p->procs), pf_cmp_pid);
	pp_wire_put_varint(out, p->nr_procs);
	for (size_t i = 0; i < p->nr_procs; i++) {
		pp_wire_put_varint(out, p->procs[i]->pid);
		pp_wire_put_varint(out, p->procs[i]->count);
	}
	return 0;
}

static int pf_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct pf_priv *p = az->priv;
	uint64_t faults = pp_wire_varint(in), by_sym = 0, by_proc = 0;
	size_t nr = pp_wire_count(in, 3, SIZE_MAX, "symbols");
	const char *prev = NULL;
	uint32_t prev_pid = 0;

	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		const char *name = pp_wire_str(in);
		uint64_t n = pp_wire_varint(in);

		if (!pp_wire_ok(in))
			break;
		if (!*name || !n || (prev && strcmp(prev, name) >= 0) || by_sym + n < by_sym)
			return pp_wire_fail(in, PP_EBAD_RECORD, "symbol %zu ('%s', %llu faults): "
					    "out of order, empty or too many", i, name,
					    (unsigned long long)n);
		prev = name;
		by_sym += n;
		pp_flame_add(pp_flame_child(p->syms, pp_flame_root(p->syms), name, strlen(name)), n);
	}
	nr = pp_wire_count(in, 2, SIZE_MAX, "processes");
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t pid = pp_wire_u32(in, "pid");
		uint64_t n = pp_wire_varint(in);

		if (!pp_wire_ok(in))
			break;
		if (!n || (i && pid <= prev_pid) || by_proc + n < by_proc)
			return pp_wire_fail(in, PP_EBAD_RECORD, "process %u (%llu faults): out of "
					    "order, empty or too many", pid, (unsigned long long)n);
		prev_pid = pid;
		by_proc += n;
		pf_proc_get(p, pid)->count += n;
	}
	if (pp_wire_ok(in) && (by_sym != faults || by_proc != faults || p->nr_faults + faults < faults))
		return pp_wire_fail(in, PP_EBAD_RECORD, "%llu faults, %llu by symbol, %llu by "
				    "process", (unsigned long long)faults, (unsigned long long)by_sym,
				    (unsigned long long)by_proc);
	p->nr_faults += faults;
	return in->err;
}

const struct pp_analyzer_ops az_page_faults_ops = {
	.summary = "every page fault with address, ip and stack; summary by symbol and by process",
	.usage = "pp-analyze FILE page-faults [-g] [--summary] [--top N] [-p PIDS] [-i MS] "
		 "[--flame-graph FILE]",
	.examples = "  pp-record --for 'page-faults -g' -- ./myprog\n"
		    "  pp-analyze pp.capture page-faults -g\n"
		    "  pp-analyze pp.capture page-faults --summary -p 1234\n"
		    "  pp-analyze pp.capture page-faults -g --flame-graph faults.svg --summary\n",
	.priv_size = sizeof(struct pf_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_STATE_CUT,
	.builtin_events = pf_events,
	.init = pf_init,
	.event = pf_event,
	.interval = pf_interval,
	.finish = pf_finish,
	.release = pf_release,
	.state_version = 1,
	.state_write = pf_state_write,
	.state_read = pf_state_read,
};
