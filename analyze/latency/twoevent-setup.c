/* SPDX-License-Identifier: MIT */
/*
 * twoevent-setup.c - building a two-event engine: events, keys, roles, pairs.
 *
 * Each selector match of an owned -e position becomes an event (te_tp) with
 * its attributes: key= (else -k, else the instance), role=, printkey=,
 * size=, untraced, trigger, stack, alias.  Pairs (two-event objects) are
 * made in perf-prof's order, which is also the order of the reports: for
 * each position k and each traced event A of k, (A, none) then (A, B) for
 * each traced B of position k+1 (the first position after the last with
 * --cycle); nested-trace has one (entry, exit) pair per -e.
 * Not here: what happens per event (twoevent.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

/* --- pairs ------------------------------------------------------------------- */

struct te_pair *ana_te_pair_find(struct ana_te *te, struct te_tp *tp1, struct te_tp *tp2)
{
	if (!tp1)
		return NULL;
	if (te->impl->call_based)
		tp2 = NULL;
	return te->pair_tab[tp1->idx * (te->nr_tps + 1) + (tp2 ? tp2->idx + 1 : 0)];
}

static void pair_new(struct ana_te *te, struct te_tp *tp1, struct te_tp *tp2)
{
	size_t ix = tp1->idx * (te->nr_tps + 1) + (tp2 ? tp2->idx + 1 : 0);
	struct te_pair **slot = &te->pair_tab[ix];
	struct te_pair *p;
	int l1 = (int)strlen(tp1->name);

	if (*slot)
		return;
	p = pp_xcalloc(1, sizeof(*p));
	p->id = te->nr_pairs;
	p->tp1 = tp1;
	p->tp2 = tp2;
	*slot = p;
	te->pairs = pp_xrealloc(te->pairs, (te->nr_pairs + 1) * sizeof(*te->pairs));
	te->pairs[te->nr_pairs++] = p;
	if (tp2) {
		int l2 = (int)strlen(tp2->name);
		if (l1 > te->max_len1)
			te->max_len1 = l1;
		if (l2 > te->max_len2)
			te->max_len2 = l2;
	}
}

/* The (tp1, NULL) slots of call-based impls are the call objects: nested pairs go there. */
static void pairs_build(struct ana_te *te)
{
	unsigned last = te->nr_pos - (te->cfg.cycle ? 0 : 1);

	te->pair_tab = pp_xcalloc((size_t)te->nr_tps * (te->nr_tps + 1), sizeof(*te->pair_tab));
	te->max_len1 = 5;	/* "start" */
	te->max_len2 = 3;	/* "end" */
	if (te->cfg.nested) {
		for (unsigned i = 0; i < te->nr_tps; i++) {
			struct te_tp *exit = &te->tps[i];
			if (!exit->entry)
				continue;
			pair_new(te, exit->entry, te->impl->call_based ? NULL : exit);
			if (te->impl->call_based) {
				struct te_pair *p = ana_te_pair_find(te, exit->entry, NULL);
				p->tp2 = exit;
				if ((int)strlen(exit->entry->name) > te->max_len1)
					te->max_len1 = (int)strlen(exit->entry->name);
			}
		}
		return;
	}
	for (unsigned k = 0; k < last; k++) {
		unsigned n = (k + 1) % te->nr_pos;
		for (unsigned i = 0; i < te->nr_tps; i++) {
			struct te_tp *tp1 = &te->tps[i];
			if (tp1->pos != k || tp1->untraced)
				continue;
			pair_new(te, tp1, NULL);
			for (unsigned j = 0; j < te->nr_tps; j++) {
				struct te_tp *tp2 = &te->tps[j];
				if (tp2->pos == n && !tp2->untraced)
					pair_new(te, tp1, tp2);
			}
		}
	}
}

/* --- setup ------------------------------------------------------------------- */

int ana_te_impl_parse(const char *name, enum ana_te_impl *out)
{
	static const char *const names[] = {
		[ANA_TE_DELAY] = "delay", [ANA_TE_PAIR] = "pair", [ANA_TE_KMEMPROF] = "kmemprof",
		[ANA_TE_SYSCALLS] = "syscalls", [ANA_TE_CALL] = "call",
		[ANA_TE_CALL_DELAY] = "call-delay",
	};

	for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum ana_te_impl)i;
			return 0;
		}
	return PP_EUSAGE;
}

static const struct te_impl_ops *impl_ops(enum ana_te_impl id)
{
	switch (id) {
	case ANA_TE_PAIR: return &ana_te_pair_ops;
	case ANA_TE_KMEMPROF: return &ana_te_kmemprof_ops;
	case ANA_TE_SYSCALLS: return &ana_te_syscalls_ops;
	case ANA_TE_CALL: return &ana_te_call_ops;
	case ANA_TE_CALL_DELAY: return &ana_te_call_delay_ops;
	default: return &ana_te_delay_ops;
	}
}

int ana_te_new(struct pp_az *az, const struct ana_te_config *cfg, struct ana_te **out)
{
	struct ana_te *te = pp_xcalloc(1, sizeof(*te));
	const char *name = az->name;
	char err[256];
	int rc;

	*out = te;
	az->engine = te;	/* for the ready-made callbacks (ana_te_az_*) */
	te->az = az;
	te->s = az->s;
	te->cfg = *cfg;
	te->fp = az->out.fp;
	te->text = az->out.format == ANA_FMT_TEXT;
	te->impl_id = cfg->impl;
	if (cfg->impl_name && ana_te_impl_parse(cfg->impl_name, &te->impl_id)) {
		pp_err("%s: --impl %s not implemented (delay, pair, kmemprof, syscalls, call, "
		       "call-delay)", name, cfg->impl_name);
		return PP_EUSAGE;
	}
	if ((te->impl_id == ANA_TE_CALL || te->impl_id == ANA_TE_CALL_DELAY) && !cfg->nested) {
		pp_err("%s: only nested-trace can use --impl %s", name, cfg->impl_name);
		return PP_EUSAGE;
	}
	if (cfg->cycle && te->impl_id != ANA_TE_DELAY)
		te->cfg.cycle = false;	/* perf-prof: --cycle is for delay only */
	te->impl = impl_ops(te->impl_id);
	rc = pp_detail_parse(az->opt.detail, &te->detail, err, sizeof(err));
	if (rc) {
		pp_err("%s: %s", name, err);
		return rc;
	}
	te->than_ns = az->opt.than_ns;
	if (az->opt.only_than_ns) {
		te->than_ns = az->opt.only_than_ns;
		te->only_than = true;
	}
	te->lower_ns = az->opt.lower_ns;
	te->perins = az->opt.perins;
	te->thread_mode = !cfg->cpu_mode && (az->nr_pids || az->nr_tids);
	te->nr_pos = (unsigned)az->opt.events.nr;
	if (cfg->nr_positions && cfg->nr_positions < te->nr_pos)
		te->nr_pos = cfg->nr_positions;
	te->tp_of_sel = pp_xmalloc((az->nr_sels + 1) * sizeof(int));
	te->tps = pp_xcalloc(az->nr_sels + 1, sizeof(*te->tps));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *sel = &az->sels[i];
		struct te_tp *tp;
		const char *key;

		te->tp_of_sel[i] = -1;
		if (sel->pos >= te->nr_pos)
			continue;
		te->tp_of_sel[i] = (int)te->nr_tps;
		tp = &te->tps[te->nr_tps];
		tp->idx = te->nr_tps++;
		tp->sel = sel;
		tp->pos = sel->pos;
		tp->name = sel->alias;
		tp->untraced = sel->sel->untraced;
		tp->trigger = sel->sel->trigger;
		tp->stack = sel->sel->stack || az->opt.callchain;
		key = pp_selector_attr(sel->sel, "key");
		if (!key || !*key)
			key = az->opt.key;
		tp->key_text = key && *key ? pp_xstrdup(key) : NULL;
	}
	return 0;
}

unsigned ana_te_nr_tps(const struct ana_te *te)
{
	return te->nr_tps;
}

const struct ana_sel *ana_te_tp_sel(const struct ana_te *te, unsigned i)
{
	return te->tps[i].sel;
}

const char *ana_te_tp_key(const struct ana_te *te, unsigned i)
{
	return te->tps[i].key_text;
}

void ana_te_tp_set_key(struct ana_te *te, unsigned i, const char *expr)
{
	free(te->tps[i].key_text);
	te->tps[i].key_text = expr ? pp_xstrdup(expr) : NULL;
}

void ana_te_tp_set_filter(struct ana_te *te, unsigned i, const char *expr)
{
	free(te->tps[i].extra_filter_text);
	te->tps[i].extra_filter_text = expr ? pp_xstrdup(expr) : NULL;
}

void ana_te_tp_set_targets(struct ana_te *te, unsigned i, const char *field, const int *pids,
			   size_t nr_pids, const int *tids, size_t nr_tids, bool forks)
{
	struct te_tp *tp = &te->tps[i];

	free(tp->t_pids);
	free(tp->t_tids);
	free(tp->target_field);
	tp->t_pids = pp_xmalloc((nr_pids + 1) * sizeof(int));
	tp->t_tids = pp_xmalloc((nr_tids + 1) * sizeof(int));
	if (nr_pids)
		memcpy(tp->t_pids, pids, nr_pids * sizeof(int));
	if (nr_tids)
		memcpy(tp->t_tids, tids, nr_tids * sizeof(int));
	tp->nr_t_pids = nr_pids;
	tp->nr_t_tids = nr_tids;
	tp->t_forks = forks;
	tp->target_field = pp_xstrdup(field);
}

static bool is_event(const struct ana_evtype *t, const char *sys, const char *name)
{
	return t->sys && !strcmp(t->sys, sys) && !strcmp(t->event, name);
}

static void tp_matcher(struct ana_te *te, struct te_tp *tp)
{
	const struct ana_evtype *t = tp->sel->type;

	tp->match = TE_M_DEFAULT;
	if (is_event(t, "sched", "sched_wakeup") || is_event(t, "sched", "sched_waking") ||
	    is_event(t, "sched", "sched_wakeup_new")) {
		tp->match = TE_M_WAKEUP;
		tp->f_pid = ana_field_find(t, "pid");
		tp->f_cpu = ana_field_find(t, "target_cpu");
		tp->is_wakeup = is_event(t, "sched", "sched_wakeup");
	} else if (is_event(t, "sched", "sched_switch")) {
		tp->match = TE_M_SWITCH;
		tp->f_pid = ana_field_find(t, "prev_pid");
		tp->f_pid2 = ana_field_find(t, "next_pid");
		tp->f_prev_state = ana_field_find(t, "prev_state");
		tp->f_prev_comm = ana_field_find(t, "prev_comm");
		tp->is_switch = true;
	} else if (is_event(t, "sched", "sched_migrate_task")) {
		tp->match = TE_M_MIGRATE;
		tp->f_pid = ana_field_find(t, "pid");
		tp->f_cpu = ana_field_find(t, "orig_cpu");
		tp->f_pid2 = ana_field_find(t, "dest_cpu");	/* a CPU, despite the name */
	} else if (is_event(t, "sched", "sched_process_fork")) {
		tp->match = TE_M_FORK;
		tp->f_pid = ana_field_find(t, "parent_pid");
		tp->f_pid2 = ana_field_find(t, "child_pid");
	} else if (t->sys && !strcmp(t->sys, "sched") &&
		   (!strcmp(t->event, "sched_stat_runtime") ||
		    !strcmp(t->event, "sched_process_free") ||
		    !strcmp(t->event, "sched_process_exit") ||
		    !strcmp(t->event, "sched_process_exec"))) {
		tp->match = TE_M_PID;
		tp->f_pid = ana_field_find(t, "pid");
	} else {
		tp->f_cpu = ana_field_find(t, "cpu");
		tp->f_pid = ana_field_find(t, "pid");
	}
	if (tp->f_cpu && (tp->f_cpu->is_array || tp->f_cpu->is_string))
		tp->f_cpu = NULL;
	if (tp->f_pid && (tp->f_pid->is_array || tp->f_pid->is_string))
		tp->f_pid = NULL;
}

static int compile(struct ana_te *te, struct te_tp *tp, const char *what, const char *text,
		   struct pp_expr **out)
{
	if (!text || !*text)
		return 0;
	return ana_expr_compile(te->az, tp->sel->type, what, text, out);
}

/* perf-prof's sched_init(): how far sched_wakeup events can be judged unnecessary. */
static void sched_setup(struct ana_te *te)
{
	bool wakeup = false, free_switch = false;
	const struct ana_evtype *sw = NULL;
	struct ana_prev_state ps;

	for (unsigned i = 0; i < te->nr_tps; i++) {
		wakeup |= te->tps[i].is_wakeup;
		free_switch |= te->tps[i].is_switch && !te->tps[i].filtered;
		if (te->tps[i].is_switch && !sw)
			sw = te->tps[i].sel->type;
	}
	te->sched_level = wakeup ? (free_switch ? 2 : 1) : 0;
	/* the preempted mark of the capture's kernel, read from its stored format */
	ana_prev_state_init(te->s, sw, &ps);
	te->preempt_state = ps.preempt;
}

static int check_positions(struct ana_te *te)
{
	const char *name = te->az->name;
	unsigned min = te->cfg.nested || te->cfg.cycle ? 1 : 2;

	if (te->nr_pos < min) {
		pp_err("%s: needs %s -e positions (-e A -e B%s)", name,
		       min == 1 ? "one or more" : "two or more",
		       te->cfg.nested ? "" : ", or one with --cycle");
		return PP_EUSAGE;
	}
	for (unsigned k = 0; k < te->nr_pos; k++) {
		unsigned traced = 0;
		struct te_tp *first = NULL;
		for (unsigned i = 0; i < te->nr_tps; i++) {
			struct te_tp *tp = &te->tps[i];
			if (tp->pos != k || tp->untraced)
				continue;
			traced++;
			if (te->cfg.nested && first)
				tp->entry = first;
			if (!first)
				first = tp;
		}
		if (!traced) {
			pp_err("%s: -e %s: every event is untraced; each -e needs one traced event",
			       name, te->az->opt.events.v[k]);
			return PP_EUSAGE;
		}
		if (te->cfg.nested && traced != 2) {
			pp_err("%s: -e %s: nested-trace needs an entry and an exit event "
			       "(-e f,f_ret)", name, te->az->opt.events.v[k]);
			return PP_EUSAGE;
		}
	}
	return 0;
}

int ana_te_start(struct ana_te *te)
{
	struct pp_az *az = te->az;
	const char *name = az->name;
	bool untraced = false;
	int rc;

	rc = check_positions(te);
	if (!rc)
		rc = ana_te_state_check(te);
	if (rc)
		return rc;
	if (ana_state_recording(az))
		te->rec = ana_te_edge_new();	/* its heads, for a join */
	for (unsigned i = 0; i < te->nr_tps; i++) {
		struct te_tp *tp = &te->tps[i];
		const struct pp_selector *sel = tp->sel->sel;
		const char *text;

		if ((rc = compile(te, tp, "key", tp->key_text, &tp->key)))
			return rc;
		if (tp->key && !te->keyname)
			te->keyname = tp->key_text;
		if ((rc = compile(te, tp, "role", pp_selector_attr(sel, "role"), &tp->role)))
			return rc;
		if ((rc = compile(te, tp, "filter", tp->extra_filter_text, &tp->extra_filter)))
			return rc;
		text = pp_selector_attr(sel, "size");
		if ((!text || !*text) && ana_field_find(tp->sel->type, "bytes_alloc"))
			text = "bytes_alloc";
		if ((rc = compile(te, tp, "size", text, &tp->size)))
			return rc;
		text = pp_selector_attr(sel, "printkey");
		if (text && *text) {
			static const char *const vars[] = { "key" };
			rc = ana_expr_compile_vars(az, NULL, "printkey", text, vars, 1,
						   &tp->printkey);
			if (rc)
				return rc;
			if (!te->printkey)
				te->printkey = tp->printkey;
		}
		if (tp->target_field) {
			tp->f_target = ana_field_find(tp->sel->type, tp->target_field);
			if (!tp->f_target) {
				pp_err("%s: %s has no field '%s'", name, tp->sel->type->name,
				       tp->target_field);
				return PP_EUNKNOWN_FIELD;
			}
		}
		tp->filtered = tp->f_target || (sel->filter && *sel->filter) ||
			       (tp->sel->type->filter && *tp->sel->type->filter) ||
			       tp->extra_filter;
		if (tp->untraced && !tp->trigger)
			untraced = true;
		tp_matcher(te, tp);
	}
	te->keyed = te->keyname != NULL;
	if (te->keyed) {
		te->keylen = (int)strlen(te->keyname);
		if (te->keylen < 6)
			te->keylen = 6;
	} else {
		te->keyname = te->thread_mode ? "THREAD" : "CPU";
		te->keylen = te->thread_mode ? 6 : 3;
		te->comm = te->thread_mode;
	}
	if (te->cfg.pid_key)
		te->comm = true;
	sched_setup(te);
	pairs_build(te);
	if (te->impl->init && (rc = te->impl->init(te)))
		return rc;
	/* with -v: perf-prof says nothing of either */
	if (az->opt.verbose && untraced && !te->detail.enabled)
		pp_note("%s: --detail is not enabled: untraced events are not needed", name);
	if (az->opt.verbose && !te->than_ns && !te->lower_ns && te->detail.enabled)
		pp_note("%s: --than is not enabled: --detail has nothing to print", name);
	return 0;
}

