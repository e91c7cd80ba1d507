/* SPDX-License-Identifier: MIT */
/*
 * profile.c - CPU sampling profile: top symbols (self and children), per-process
 * split, folded stacks and SVG flame graphs.
 *
 * Every distinct (task, stack) is symbolized once (ana_stack_node) into a node
 * of one flame tree; a sample then costs a hash of its frames and three
 * counter increments.  Self share of a symbol = samples whose innermost frame
 * is it; children (inclusive) share = samples with it anywhere on the stack,
 * counted once per sample however often it recurses.  Without -g a sample is
 * its ip alone, so self == children.  --than P prints, as perf-prof does, the
 * samples of an instance (CPU, or thread with -p/-t) from the moment it has
 * taken F*P/100 samples in the current 1 s window; --detail prints every sample.
 * Inline frames: unless --no-inline, az->inl (common/dwinline.c) expands user frames
 * whose binary has DWARF here, in the flame tree and in printed stacks.
 * State (--state-out): the flame tree as resolved names (a report of a state
 * needs no capture, no binary, no symbol table) with each path's samples, and
 * the samples per process; both add by name and pid.
 * Not here: the flame graph writer (common/flamegraph.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/profile.h"
#include "common/callchain.h"
#include "common/dwinline.h"
#include "common/err.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/units.h"
#include "common/stackmap.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "common/wire.h"

#define NSEC_PER_SEC 1000000000ull

struct prof_proc {
	uint32_t pid;
	uint64_t count, icount;
};

/* One path of the flame tree that samples ended on. */
struct prof_leaf {
	struct pp_flame_node *node;
	uint64_t count, icount;
};

/* One distinct (task, stack). */
struct prof_stack {
	struct prof_leaf *leaf;
	struct prof_proc *proc;
};

struct prof_win {
	uint64_t start_ns, num;
};

struct prof_sym {
	const char *name;
	uint64_t self, children;
	size_t stamp;
};

struct profile_priv {
	struct pp_flame *flame;
	struct pp_stackmap stacks;	/* -> struct prof_stack */
	struct prof_stack **stack_list;	/* to free them */
	size_t nr_stacks, cap_stacks;
	struct pp_u64map leaf_map;	/* flame node -> struct prof_leaf */
	struct prof_leaf **leaves;	/* in order of first sample */
	size_t nr_leaves, cap_leaves;
	struct pp_u64map procs;		/* pid -> struct prof_proc */
	struct prof_proc **proc_list;
	size_t nr_procs, cap_procs;
	struct pp_u64map wins;		/* instance -> struct prof_win (--than) */
	uint64_t nr_samples, nr_isamples;
	uint64_t than_samples;		/* samples per window from which --than prints */
	const char *event_name;
	bool by_children;
	bool stacks_used;
	struct pp_buf line;
	FILE *fold_fp;			/* --flame-graph with -i: folded per interval */
	/* --prio: the priorities kept; each task's, as its last switch gave it (value: prio + 1) */
	int *prio;
	size_t nr_prio;
	const struct ana_evtype *switch_type;
	const struct pp_field *next_prio, *next_pid, *prev_prio, *prev_pid;
	struct pp_u64map task_prio;
	uint64_t nr_prio_unknown;
};

/*
 * The sampling event the plan records: cpu-clock where there is no PMU, cycles
 * where there is one.  Without -e, the first of them the capture holds (cpu-clock
 * when it holds none: the error then names it).
 */
static const char *const profile_events[] = {
	"cpu-clock", "cycles", "cpu-cycles", "ref-cycles", NULL
};

static int profile_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const char *ev = profile_events[0];

	for (const char *const *e = profile_events; *e; e++) {
		if (ana_evtype_find(az->s, *e)) {
			ev = *e;
			break;
		}
	}
	pp_strlist_push(events, ev);
	if (((const struct profile_opts *)az->opts)->prio)
		pp_strlist_push(events, "sched:sched_switch");
	return 0;
}

/*
 * --sort KEY[,KEY...]: self or children orders the symbol table (self by default); dso, sym
 * or both (perf's keys) say what a row is: a symbol (sym, the default), a binary (dso), a
 * symbol in a binary (dso,sym).  The binary goes into the frame names of the flame tree
 * ("BINARY`SYMBOL", ana_stack_folded_key()), so folded stacks, SVG and states carry it too.
 */
static int parse_sort(struct pp_az *az, const char *sort)
{
	struct profile_priv *p = az->priv;
	bool dso = false, sym = false;
	char *copy = pp_xstrdup(sort ? sort : "self"), *save = NULL;
	int rc = 0;

	for (char *k = strtok_r(copy, ",", &save); k && !rc; k = strtok_r(NULL, ",", &save)) {
		if (!strcmp(k, "children") || !strcmp(k, "self")) {
			p->by_children = !strcmp(k, "children");
		} else if (!strcmp(k, "dso")) {
			dso = true;
		} else if (!strcmp(k, "sym")) {
			sym = true;
		} else {
			pp_err("profile: --sort takes self, children, dso or sym (comma-separated), "
			       "not '%s'", k);
			rc = PP_EUSAGE;
		}
	}
	free(copy);
	az->frame_key = !dso ? ANA_FRAME_SYM : sym ? ANA_FRAME_DSO_SYM : ANA_FRAME_DSO;
	return rc;
}

static int profile_init(struct pp_az *az)
{
	struct profile_priv *p = az->priv;
	const struct profile_opts *o = az->opts;
	uint64_t freq = az->opt.freq ? az->opt.freq : 997;

	if (parse_sort(az, o->sort))
		return PP_EUSAGE;
	if (ana_state_recording(az) && (o->prio || az->opt.detail || az->opt.than_ns ||
					az->opt.flame_graph)) {
		pp_err("profile: %s with --state-out: %s", o->prio ? "--prio" :
		       az->opt.detail ? "--detail" : az->opt.than_ns ? "--than" : "--flame-graph",
		       o->prio ? "a CPU's priority at a range's start is not in a state (replay the "
				 "capture)" :
		       az->opt.flame_graph ? "a state holds the tables only (replay the capture, or "
					     "make the flame graph from the folded stacks)" :
		       "it prints samples as they come, which stays single-stream (replay the "
		       "capture)");
		return PP_EUSAGE;
	}
	if (o->prio) {
		if (pp_parse_list(o->prio, 140, &p->prio, &p->nr_prio) || !p->nr_prio) {
			pp_err("profile: --prio %s: priorities 0-139 (0,100-120)", o->prio);
			return PP_EUSAGE;
		}
		for (size_t i = 0; i < az->nr_sels; i++)
			if (!strcmp(az->sels[i].type->name, "sched:sched_switch"))
				p->switch_type = az->sels[i].type;
		p->next_prio = p->switch_type ? ana_field_find(p->switch_type, "next_prio") : NULL;
		if (p->next_prio) {	/* without the pids (another layout): the CPU's priority */
			p->next_pid = ana_field_find(p->switch_type, "next_pid");
			p->prev_pid = ana_field_find(p->switch_type, "prev_pid");
			p->prev_prio = ana_field_find(p->switch_type, "prev_prio");
		}
		if (!p->next_prio) {
			pp_err("profile: --prio needs sched:sched_switch in the capture "
			       "(pp-record --for 'profile --prio ...' records it)");
			return PP_EUNKNOWN_EVENT;
		}
	}
	p->flame = pp_flame_new();
	if (!o->no_inline)
		az->inl = ana_session_inl(az->s, o->debug_dir);
	ana_session_debug_syms(az->s, o->debug_dir, o->debuginfod);
	p->event_name = az->nr_sels ? az->sels[0].type->name : "cpu-clock";
	if (az->opt.than_ns)
		p->than_samples = (freq * az->opt.than_ns + 99) / 100;
	if (az->opt.flame_graph && az->opt.interval_ns &&
	    !pp_flame_path_is_svg(az->opt.flame_graph)) {
		const char *f = az->opt.flame_graph;
		p->fold_fp = !strcmp(f, "-") || !*f ? stdout : fopen(f, "w");
		if (!p->fold_fp) {
			pp_err("profile: cannot write '%s': %m", f);
			return -1;
		}
	}
	return 0;
}

static struct prof_proc *proc_get(struct profile_priv *p, uint32_t pid)
{
	void **slot = pp_u64map_slot(&p->procs, pid);
	struct prof_proc *pr = *slot;

	if (!pr) {
		pr = *slot = pp_xcalloc(1, sizeof(*pr));
		pr->pid = pid;
		PP_VEC_PUSH(p->proc_list, p->nr_procs, p->cap_procs, pr);
	}
	return pr;
}

static struct prof_stack *stack_new(struct pp_az *az, const struct pp_event *ev)
{
	struct profile_priv *p = az->priv;
	struct prof_stack *st = pp_xcalloc(1, sizeof(*st));
	struct pp_flame_node *node = ana_stack_node(az, p->flame, ev);
	void **slot = pp_u64map_slot(&p->leaf_map, (uint64_t)(uintptr_t)node);

	if (!*slot) {
		struct prof_leaf *l = pp_xcalloc(1, sizeof(*l));
		l->node = node;
		PP_VEC_PUSH(p->leaves, p->nr_leaves, p->cap_leaves, l);
		*slot = l;
	}
	st->leaf = *slot;
	st->proc = proc_get(p, ev->pid);
	PP_VEC_PUSH(p->stack_list, p->nr_stacks, p->cap_stacks, st);
	return st;
}

static void print_sample(struct pp_az *az, const struct pp_event *ev)
{
	struct profile_priv *p = az->priv;
	struct ana_session *s = az->s;
	char wall[48], ts[32];

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(s, ev, &p->line);
		pp_buf_addf(&p->line,
			    ",\"period\":%llu,\"event\":", (unsigned long long)ev->period);
		pp_buf_add_json_str(&p->line, ev->type->name);
		pp_buf_adds(&p->line, "}\n");
	} else {
		pp_buf_addf(&p->line, "%s %16s %6u [%03u] %s: profile: %llu %s\n",
			    ana_time_str(s, ev->time_ns, wall, sizeof(wall)), ana_comm(s, ev->tid),
			    ev->tid, ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			    (unsigned long long)ev->period, ev->type->name);
		if (az->opt.callchain && ev->nr_stack)
			ana_stack_print_inl(s, ev, az->inl, &p->line);
	}
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

/* perf-prof's --than: count the instance's samples in a 1 s window. */
static bool over_than(struct pp_az *az, const struct pp_event *ev)
{
	struct profile_priv *p = az->priv;
	uint32_t ins = az->nr_pids || az->nr_tids ? ev->tid : ev->cpu;
	void **slot = pp_u64map_slot(&p->wins, ins);
	struct prof_win *w = *slot;

	if (!w) {
		w = *slot = pp_xcalloc(1, sizeof(*w));
		w->start_ns = ev->time_ns;
		w->num = 1;
		return false;
	}
	w->num++;
	if (ev->time_ns - w->start_ns >= NSEC_PER_SEC) {
		w->start_ns = ev->time_ns;
		w->num = 1;
		return false;
	}
	return w->num >= p->than_samples;
}

/* the key of --prio's table: a tid, or a CPU where the switch layout has no pids */
static uint64_t prio_key(const struct profile_priv *p, uint64_t tid, uint32_t cpu)
{
	return p->next_pid ? tid : (1ull << 63) | cpu;
}

static void prio_set(struct profile_priv *p, uint64_t key, int prio)
{
	pp_u64map_put(&p->task_prio, key, (void *)(uintptr_t)(prio + 1));
}

/*
 * --prio: whether the sample @ev is of a task whose priority is kept (a switch
 * only updates the table).  A priority belongs to the task, as the eBPF filter of
 * perf-prof reads it from the task sampled: each switch says the priorities of
 * the task it takes off (prev_prio) and the one it puts on (next_prio).  Switches
 * come through tracefs and samples through perf, on clocks mapped to about a
 * microsecond, so the CPU's last switch need not be the sampled task's: a sample
 * sorted just after the switch that took its task off is still that task's.
 * Without the pid fields (another layout), the CPU's current priority.
 */
static bool prio_kept(struct profile_priv *p, const struct pp_event *ev)
{
	uint32_t cpu = ev->cpu < 65536 ? ev->cpu : 65535;
	void *v;

	if (ev->type == p->switch_type) {
		if (p->next_pid && p->prev_pid && p->prev_prio)
			prio_set(p, ana_field_read(ev, p->prev_pid),
				 (int)ana_field_read(ev, p->prev_prio));
		prio_set(p, prio_key(p, p->next_pid ? ana_field_read(ev, p->next_pid) : 0, cpu),
			 (int)ana_field_read(ev, p->next_prio));
		return false;
	}
	v = pp_u64map_get(&p->task_prio, prio_key(p, ev->tid, cpu));
	if (!v) {
		p->nr_prio_unknown++;	/* before the task's (the CPU's) first switch */
		return false;
	}
	return pp_list_has(p->prio, p->nr_prio, (int)((uintptr_t)v - 1));
}

static void profile_event(struct pp_az *az, const struct pp_event *ev)
{
	struct profile_priv *p = az->priv;
	bool kernel = pp_addr_is_kernel(ev->ip);
	bool with_stack = az->opt.callchain && ev->nr_stack;
	struct pp_event e;
	struct prof_stack *st;
	void **slot;

	if (p->switch_type && !prio_kept(p, ev))
		return;
	if ((az->opt.exclude_user && !kernel) || (az->opt.exclude_kernel && kernel))
		return;
	slot = pp_stackmap_slot(&p->stacks, ana_stack_key(az->s, ev),
				with_stack ? ev->stack : &ev->ip, with_stack ? ev->nr_stack : 1);
	if (!*slot) {
		e = *ev;
		if (!with_stack) {
			e.stack = NULL;
			e.nr_stack = 0;
		}
		*slot = stack_new(az, &e);
	}
	st = *slot;
	pp_flame_add(st->leaf->node, 1);
	st->leaf->count++;
	st->leaf->icount++;
	st->proc->count++;
	st->proc->icount++;
	p->nr_samples++;
	p->nr_isamples++;
	if (with_stack)
		p->stacks_used = true;
	if (az->opt.detail || (p->than_samples && over_than(az, ev)))
		print_sample(az, ev);
}

static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct prof_sym *x = *(struct prof_sym *const *)a, *y = *(struct prof_sym *const *)b;
	bool by_children = *(bool *)arg;
	uint64_t kx = by_children ? x->children : x->self, ky = by_children ? y->children : y->self;
	uint64_t lx = by_children ? x->self : x->children, ly = by_children ? y->self : y->children;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_proc(const void *a, const void *b, void *arg)
{
	const struct prof_proc *x = *(struct prof_proc *const *)a,
			       *y = *(struct prof_proc *const *)b;
	bool interval = *(bool *)arg;
	uint64_t cx = interval ? x->icount : x->count, cy = interval ? y->icount : y->count;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/*
 * The frame an unwind that could not go on ends in (PP_CONTEXT_TRUNCATED, analyze/print.c puts
 * it under the comm): its row is the stacks cut short, so it is shown however far down the
 * table it sorts.
 */
static const char truncated_frame[] = "[truncated]";

/* Samples (of the interval when @interval) whose stack was cut short: under [truncated]. */
static uint64_t truncated_samples(const struct profile_priv *p, bool interval)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nr_leaves; i++) {
		const struct prof_leaf *l = p->leaves[i];
		const struct pp_flame_node *top = l->node;
		uint64_t c = interval ? l->icount : l->count;

		if (!c)
			continue;
		while (top && top->depth > 2)
			top = top->parent;
		if (top && top->depth == 2 && !strcmp(top->name, truncated_frame))
			n += c;
	}
	return n;
}

static void sym_row(struct pp_az *az, struct pp_table *t, const struct prof_sym *sy,
		    uint64_t total)
{
	bool json = az->out.format == ANA_FMT_JSON;
	const char *tick = strchr(sy->name, '`');

	pp_table_row(t);
	/* JSON gets plain numbers, text the perf-report look */
	pp_table_num(t, json ? "%.4f" : "%.2f%%", pct(sy->children, total));
	pp_table_num(t, json ? "%.4f" : "%.2f%%", pct(sy->self, total));
	pp_table_u64(t, sy->self);
	if (az->frame_key == ANA_FRAME_DSO_SYM && tick) {	/* "BINARY`SYMBOL" */
		char *bin = pp_xstrndup(sy->name, (size_t)(tick - sy->name));
		pp_table_str(t, bin);
		pp_table_str(t, tick + 1);
		free(bin);
	} else if (az->frame_key == ANA_FRAME_DSO_SYM) {	/* a state of --sort sym */
		pp_table_str(t, "");
		pp_table_str(t, sy->name);
	} else {
		pp_table_str(t, sy->name);
	}
}

static void sym_table(struct pp_az *az, struct prof_sym **syms, size_t nr, uint64_t total)
{
	const struct profile_opts *o = az->opts;
	size_t limit = o->all ? (size_t)-1 : o->top ? o->top : 40;
	struct pp_table *t = pp_table_new();

	pp_table_col(t, "Children", "children_pct", 0, 9);
	pp_table_col(t, "Self", "self_pct", 0, 8);
	pp_table_col(t, "Samples", "samples", 0, 8);
	if (az->frame_key != ANA_FRAME_SYM)
		pp_table_col(t, "Shared Object", "dso", PP_COL_LEFT, 0);
	if (az->frame_key != ANA_FRAME_DSO)
		pp_table_col(t, "Symbol", "symbol", PP_COL_LEFT, 0);
	const struct prof_sym *cut = NULL;	/* [truncated], until it is shown */

	for (size_t i = 0; i < nr; i++)
		if (syms[i]->children && !strcmp(syms[i]->name, truncated_frame))
			cut = syms[i];
	for (size_t i = 0, shown = 0; i < nr && shown < limit; i++) {
		const struct prof_sym *sy = syms[i];
		if (!o->all && pct(sy->self, total) < 0.1 && pct(sy->children, total) < 0.1)
			continue;
		sym_row(az, t, sy, total);
		if (sy == cut)
			cut = NULL;
		shown++;
	}
	if (cut)
		sym_row(az, t, cut, total);
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "symbols");
	pp_table_free(t);
}

static void report_symbols(struct pp_az *az, bool interval, uint64_t total)
{
	struct profile_priv *p = az->priv;
	struct pp_u64map map = PP_U64MAP_INIT;
	struct prof_sym **syms = NULL;
	size_t nr = 0, cap = 0;

	for (size_t i = 0; i < p->nr_leaves; i++) {
		const struct prof_leaf *l = p->leaves[i];
		uint64_t c = interval ? l->icount : l->count;
		if (!c)
			continue;
		/* depth 1 is the comm */
		for (const struct pp_flame_node *n = l->node; n && n->depth >= 2; n = n->parent) {
			void **slot = pp_u64map_slot(&map, (uint64_t)(uintptr_t)n->name);
			struct prof_sym *sy = *slot;
			if (!sy) {
				sy = *slot = pp_xcalloc(1, sizeof(*sy));
				sy->name = n->name;
				PP_VEC_PUSH(syms, nr, cap, sy);
			}
			if (n == l->node)
				sy->self += c;
			if (sy->stamp != i + 1) {	/* once per path: recursion */
				sy->children += c;
				sy->stamp = i + 1;
			}
		}
	}
	if (nr)	/* qsort_r(NULL, 0, ...) is undefined */
		qsort_r(syms, nr, sizeof(*syms), cmp_sym, &p->by_children);
	sym_table(az, syms, nr, total);
	for (size_t i = 0; i < nr; i++)
		free(syms[i]);
	free(syms);
	pp_u64map_release(&map);
}

static void report_procs(struct pp_az *az, bool interval, uint64_t total)
{
	struct profile_priv *p = az->priv;
	bool json = az->out.format == ANA_FMT_JSON;
	struct prof_proc **v = pp_xmalloc((p->nr_procs + 1) * sizeof(*v));
	struct pp_table *t = pp_table_new();

	if (p->nr_procs) {	/* proc_list is NULL until the first */
		memcpy(v, p->proc_list, p->nr_procs * sizeof(*v));
		qsort_r(v, p->nr_procs, sizeof(*v), cmp_proc, &interval);
	}
	pp_table_col(t, "PID", "pid", 0, 6);
	pp_table_col(t, "COMM", "comm", PP_COL_LEFT, 16);
	pp_table_col(t, "Samples", "samples", 0, 8);
	pp_table_col(t, "Share", "pct", 0, 8);
	for (size_t i = 0; i < p->nr_procs; i++) {
		uint64_t c = interval ? v[i]->icount : v[i]->count;
		if (!c)
			continue;
		pp_table_row(t);
		pp_table_u64(t, v[i]->pid);
		pp_table_str(t, ana_comm(az->s, v[i]->pid));
		pp_table_u64(t, c);
		pp_table_num(t, json ? "%.4f" : "%.2f%%", pct(c, total));
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "processes");
	pp_table_free(t);
	free(v);
}

static void write_interval_folded(struct pp_az *az, uint64_t now_ns)
{
	struct profile_priv *p = az->priv;
	struct pp_buf b = PP_BUF_INIT;
	char when[48];

	/* perf-prof's "YYYY-MM-DD;HH:MM:SS;" prefix, from capture time */
	ana_time_str(az->s, now_ns, when, sizeof(when));
	when[10] = ';';
	when[19] = '\0';
	for (size_t i = 0; i < p->nr_leaves; i++) {
		const struct prof_leaf *l = p->leaves[i];
		if (!l->icount)
			continue;
		pp_buf_reset(&b);
		pp_flame_node_path(l->node, &b);
		fprintf(p->fold_fp, "%s;%s %llu\n", when, pp_buf_str(&b),
			(unsigned long long)l->icount);
	}
	pp_buf_release(&b);
}

static void report(struct pp_az *az, bool interval, uint64_t now_ns)
{
	struct profile_priv *p = az->priv;
	uint64_t total = interval ? p->nr_isamples : p->nr_samples;
	FILE *fp = az->out.fp;
	char when[48];

	if (az->out.format == ANA_FMT_TEXT) {
		if (interval)
			fprintf(fp, "%s\n", ana_time_str(az->s, now_ns, when, sizeof(when)));
		uint64_t cut = p->stacks_used ? truncated_samples(p, interval) : 0;

		fprintf(fp, "profile: %llu samples of %s%s", (unsigned long long)total,
			p->event_name, p->stacks_used ? ", with call stacks" : "");
		if (cut)	/* DWARF stacks whose unwind stopped (analyze/unwind.c) */
			fprintf(fp, "; %llu of %llu stacks truncated", (unsigned long long)cut,
				(unsigned long long)total);
		fputc('\n', fp);
	}
	report_symbols(az, interval, total);
	if (az->out.format == ANA_FMT_TEXT)
		fputc('\n', fp);
	report_procs(az, interval, total);
	if (p->fold_fp)
		write_interval_folded(az, now_ns);
	for (size_t i = 0; i < p->nr_leaves; i++)
		p->leaves[i]->icount = 0;
	for (size_t i = 0; i < p->nr_procs; i++)
		p->proc_list[i]->icount = 0;
	p->nr_isamples = 0;
}

static void profile_interval(struct pp_az *az, uint64_t now_ns)
{
	struct profile_priv *p = az->priv;

	if (!p->nr_isamples)
		return;
	if (az->out.format == ANA_FMT_TEXT)
		ana_report_header(az);
	report(az, true, now_ns);
	if (az->out.format == ANA_FMT_TEXT)
		fputc('\n', az->out.fp);
}

static int profile_finish(struct pp_az *az)
{
	struct profile_priv *p = az->priv;
	char err[256], sub[128];
	int rc = 0;

	ana_report_header(az);
	if (az->opt.interval_ns) {
		/* the last, partial interval */
		if (p->nr_isamples)
			report(az, true, ana_capture_end_ns(az->s));
	} else {
		report(az, false, ana_capture_end_ns(az->s));
	}
	if (az->opt.flame_graph && !p->fold_fp) {
		const char *host = ana_host(az->s, "hostname");
		struct pp_flame_svg_opts so = { .title = "profile", .subtitle = sub };

		snprintf(sub, sizeof(sub), "%llu samples of %s%s%s",
			 (unsigned long long)p->nr_samples, p->event_name, host ? " on " : "",
			 host ? host : "");
		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("profile: %s", err);
	}
	return rc;
}

static void profile_release(struct pp_az *az)
{
	struct profile_priv *p = az->priv;
	uint64_t k;
	void *v;

	free(p->prio);
	pp_u64map_release(&p->task_prio);
	for (size_t i = 0; pp_u64map_next(&p->wins, &i, &k, &v);)
		free(v);
	pp_u64map_release(&p->wins);
	for (size_t i = 0; i < p->nr_stacks; i++)
		free(p->stack_list[i]);
	free(p->stack_list);
	for (size_t i = 0; i < p->nr_leaves; i++)
		free(p->leaves[i]);
	free(p->leaves);
	for (size_t i = 0; i < p->nr_procs; i++)
		free(p->proc_list[i]);
	free(p->proc_list);
	pp_u64map_release(&p->procs);
	pp_u64map_release(&p->leaf_map);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->flame);
	az->inl = NULL;	/* the session's */
	pp_buf_release(&p->line);
	if (p->fold_fp && p->fold_fp != stdout)
		fclose(p->fold_fp);
}

/* --- mergeable state (docs/state-format.md "profile") ------------------------- */

static int cmp_node_name(const void *a, const void *b)
{
	return strcmp((*(struct pp_flame_node *const *)a)->name,
		      (*(struct pp_flame_node *const *)b)->name);
}

/* @n's children, by name. Return: a new array (*@nr entries). */
static struct pp_flame_node **children_sorted(const struct pp_flame_node *n, size_t *nr)
{
	struct pp_flame_node **v = NULL;
	size_t cap = 0;

	*nr = 0;
	for (struct pp_flame_node *c = n->child; c; c = c->next)
		PP_VEC_PUSH(v, *nr, cap, c);
	if (*nr)
		qsort(v, *nr, sizeof(*v), cmp_node_name);
	return v;
}

/* A level of the tree being walked: its children by name, and the next one. */
struct walk_level {
	struct pp_flame_node **kids;
	size_t nr, next;
};

static int cmp_proc_pid(const void *a, const void *b)
{
	const struct prof_proc *x = *(struct prof_proc *const *)a, *y = *(struct prof_proc *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int profile_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct profile_priv *p = az->priv;
	struct walk_level *lv = NULL;
	size_t nr_lv = 0, cap_lv = 0, n = 0;
	struct prof_proc **procs;
	struct walk_level top;

	pp_wire_put_varint(out, p->nr_samples);
	pp_wire_put_u8(out, p->stacks_used);
	/* the tree in preorder, children by name, without recursion: a stack may be deep */
	top.kids = children_sorted(pp_flame_root(p->flame), &top.nr);
	top.next = 0;
	pp_wire_put_varint(out, top.nr);
	PP_VEC_PUSH(lv, nr_lv, cap_lv, top);
	while (nr_lv) {
		struct walk_level *l = &lv[nr_lv - 1], down;
		struct pp_flame_node *c;

		if (l->next == l->nr) {
			free(l->kids);
			nr_lv--;
			continue;
		}
		c = l->kids[l->next++];
		pp_wire_put_str(out, c->name);
		pp_wire_put_varint(out, c->self);
		down.kids = children_sorted(c, &down.nr);
		down.next = 0;
		pp_wire_put_varint(out, down.nr);
		PP_VEC_PUSH(lv, nr_lv, cap_lv, down);
	}
	free(lv);
	procs = pp_xmalloc((p->nr_procs + 1) * sizeof(*procs));
	for (size_t i = 0; i < p->nr_procs; i++)
		if (p->proc_list[i]->count)
			procs[n++] = p->proc_list[i];
	if (n)
		qsort(procs, n, sizeof(*procs), cmp_proc_pid);
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		pp_wire_put_varint(out, procs[i]->pid);
		pp_wire_put_varint(out, procs[i]->count);
	}
	free(procs);
	return 0;
}

/* Samples ending at @node: its leaf (made as a sample would make it) counts them too. */
static void leaf_add(struct profile_priv *p, struct pp_flame_node *node, uint64_t n)
{
	void **slot = pp_u64map_slot(&p->leaf_map, (uint64_t)(uintptr_t)node);
	struct prof_leaf *l = *slot;

	if (!l) {
		l = *slot = pp_xcalloc(1, sizeof(*l));
		l->node = node;
		PP_VEC_PUSH(p->leaves, p->nr_leaves, p->cap_leaves, l);
	}
	pp_flame_add(node, n);
	l->count += n;
}

/* Add @b to *@sum, failing the read on overflow (the counts are a state's, not a replay's). */
static bool add_count(struct pp_wire *in, uint64_t *sum, uint64_t b, const char *what)
{
	if (*sum + b < *sum) {
		pp_wire_fail(in, PP_EBAD_RECORD, "%s: the counts overflow", what);
		return false;
	}
	*sum += b;
	return true;
}

/* One level being read: its node and how many children are still to come. */
struct read_level {
	struct pp_flame_node *node;
	uint64_t left;
	const char *prev;		/* the previous child's name: names ascend */
};

static int profile_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct profile_priv *p = az->priv;
	uint64_t samples = pp_wire_varint(in), in_tree = 0, in_procs = 0;
	uint8_t stacks = pp_wire_u8(in);
	struct read_level *lv = NULL, top;
	size_t nr_lv = 0, cap_lv = 0, nr_procs;
	uint32_t prev_pid = 0;

	if (pp_wire_ok(in) && stacks > 1)
		return pp_wire_fail(in, PP_EBAD_RECORD, "stacks flag %u", stacks);
	/* every node takes 3 bytes at least: the count bounds the levels too */
	top = (struct read_level){ pp_flame_root(p->flame),
				   pp_wire_count(in, 3, SIZE_MAX, "root's children"), NULL };
	PP_VEC_PUSH(lv, nr_lv, cap_lv, top);
	while (nr_lv && pp_wire_ok(in)) {
		struct read_level *l = &lv[nr_lv - 1], down;
		const char *name;
		uint64_t self;
		struct pp_flame_node *c;

		if (!l->left) {
			nr_lv--;
			continue;
		}
		l->left--;
		name = pp_wire_str(in);
		self = pp_wire_varint(in);
		down.left = pp_wire_count(in, 3, SIZE_MAX, "children");
		if (!pp_wire_ok(in))
			break;
		if (!*name || (l->prev && strcmp(l->prev, name) >= 0)) {
			pp_wire_fail(in, PP_EBAD_RECORD, "frame '%s': %s", name,
				     *name ? "names out of order" : "an empty name");
			break;
		}
		l->prev = name;		/* borrowed from the input, which outlives the read */
		c = pp_flame_child(p->flame, l->node, name, strlen(name));
		if (self && (!add_count(in, &in_tree, self, "paths") ||
			     !add_count(in, &p->nr_samples, self, "samples")))
			break;
		if (self)
			leaf_add(p, c, self);
		down.node = c;
		down.prev = NULL;
		PP_VEC_PUSH(lv, nr_lv, cap_lv, down);
	}
	free(lv);
	nr_procs = pp_wire_count(in, 2, SIZE_MAX, "processes");
	for (size_t i = 0; i < nr_procs && pp_wire_ok(in); i++) {
		uint32_t pid = pp_wire_u32(in, "pid");
		uint64_t c = pp_wire_varint(in);

		if (!pp_wire_ok(in))
			break;
		if (!c || (i && pid <= prev_pid)) {
			pp_wire_fail(in, PP_EBAD_RECORD, "process %u: %s", pid,
				     c ? "pids out of order" : "no samples");
			break;
		}
		prev_pid = pid;
		if (!add_count(in, &in_procs, c, "processes"))
			break;
		proc_get(p, pid)->count += c;
	}
	if (pp_wire_ok(in) && (in_tree != samples || in_procs != samples))
		return pp_wire_fail(in, PP_EBAD_RECORD, "%llu samples, %llu in the paths, %llu in "
				    "the processes", (unsigned long long)samples,
				    (unsigned long long)in_tree, (unsigned long long)in_procs);
	p->stacks_used |= stacks;
	return in->err;
}

static const char *profile_inline_dir(const struct pp_az *az)
{
	const struct profile_opts *o = az->opts;

	if (!az->opt.callchain || o->no_inline)
		return NULL;
	return o->debug_dir ? o->debug_dir : "";
}

const struct pp_analyzer_ops az_profile_ops = {
	.summary = "CPU sampling: top symbols (self, children), per process, flame graphs",
	.usage = "pp-analyze FILE profile [-g] [--flame-graph FILE[.svg]] [--than PCT] [-i MS] "
		 "[--top N] [--sort self|children,dso,sym] [--no-inline] [--debug-dir DIR] "
		 "[--debuginfod]",
	.examples = "  pp-record --for 'profile -F 997 -g' -a --duration 10\n"
		    "  pp-analyze pp.capture profile -g\n"
		    "  pp-analyze pp.capture profile -g --flame-graph cpu.svg\n"
		    "  pp-analyze pp.capture profile -g --flame-graph cpu.folded -p 1234\n"
		    "  pp-analyze pp.capture profile -g --sort children --top 20\n"
		    "  pp-analyze pp.capture profile -F 997 --than 50 -g   (CPUs over 50% busy)\n"
		    "  pp-analyze pp.capture profile -g --sort dso,sym   (perf's keys: by binary)\n"
		    "  pp-analyze pp.capture profile -g --debug-dir ~/build   (unstripped copies)\n"
		    "  DEBUGINFOD_URLS=https://debuginfod.debian.net pp-analyze pp.capture profile -g "
		    "--debuginfod\n"
		    "\nInline frames: a user frame whose binary has DWARF here (same build id) in\n"
		    "DIR/.build-id/xx/yyyy.debug, DIR/BUILDID/debuginfo or DIR/NAME for DIR in\n"
		    "--debug-dir, $PP_DEBUGINFO_PATH, /usr/lib/debug, or in the binary at its\n"
		    "recorded path, shows the functions inlined there as 'func (inlined)' frames\n"
		    "above it; --no-inline turns that off.\n"
		    "\nA user frame without a symbol is BINARY+0xOFFSET (its file name, the file\n"
		    "offset); binaries the capture has no symbols for are named from their debug\n"
		    "files by build id (DIR/.build-id/xx/yyyy.debug in the same directories, and\n"
		    "with --debuginfod from the servers of $DEBUGINFOD_URLS, cached).\n",
	.inline_dir = profile_inline_dir,
	.priv_size = sizeof(struct profile_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_STATE_CUT,
	.set_events = profile_set_events,
	.init = profile_init,
	.event = profile_event,
	.interval = profile_interval,
	.finish = profile_finish,
	.release = profile_release,
	.state_version = 1,
	.state_write = profile_state_write,
	.state_read = profile_state_read,
};
