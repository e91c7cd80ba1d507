/* SPDX-License-Identifier: MIT */
/*
 * hrtimer.c - high-resolution conditional sampling (perf-prof's hrtimer).
 *
 * A cpu-clock leader fires every period on each CPU and reads its group, the
 * -e events counted, in one instant: the capture holds the leader's sample
 * (the interrupted task, its stack with -g) followed by a COUNTER record at
 * the same time with every counter of the group, the leader's cpu-clock too.
 * Per CPU we keep the last leader sample and fill in the counts of its period
 * as the readings arrive; once the group is complete the {expression} is
 * evaluated with each event's name (or alias=) bound to its count in the
 * period and `period` to the cpu-clock delta (the real timer interval, ns).
 * When it is true, perf-prof's lines are printed:
 *   <wall time>     pid <pid> tid <tid> [cpu] sec.usec: hrtimer: cpu-clock N ns
 *       <event> <count>          (one per event)
 *       <kernel stack with -g>
 * A group left incomplete (a loss, a cut capture) is dropped, as perf-prof
 * drops a read that lacks a member.  -v prints every period.
 * Not here: recording the group (record/perf/counters.c), or irq-off's check of
 * the timer alone (analyzers/irq-off.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/csv.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/percpu.h"

/* What the expression sees: one variable per event match, then "period". */
struct ht_cpu {
	struct pp_event ev;		/* the leader's sample (stack copied into @stack) */
	uint64_t *stack;
	uint32_t cap_stack;
	uint64_t *counts;		/* by variable; the last one is the period */
	bool *got;			/* by match index */
	size_t nr_got;
	bool open;			/* a sample waits for its counts */
};

struct ht_priv {
	struct pp_expr *expr;
	const char **vars;		/* variable names: the events' aliases, then "period" */
	size_t nr_vars;			/* events + 1 */
	int *var_of;			/* match index -> variable, -1 for the leader */
	struct ht_cpu *cpus;
	size_t nr_cpus;
	bool *read_any;			/* by match index: a reading arrived */
	uint64_t samples;		/* leader samples */
	struct pp_buf line;
	bool csv_head;
	uint64_t periods, printed;
};

static int ht_set_events(struct pp_az *az, struct pp_strlist *events)
{
	/* the leader last: every -e position keeps its index */
	pp_strlist_push(events, "cpu-clock");
	return 0;
}

static bool is_leader(const struct ana_sel *m)
{
	return !m->type->sys && !strcmp(m->type->name, "cpu-clock");
}

static int ht_init(struct pp_az *az)
{
	struct ht_priv *p = az->priv;
	const char *mode = ana_host(az->s, "record.count_mode");
	size_t n = 0;

	if (az->nr_args < 1) {
		pp_err("hrtimer: {expression} needs to be specified "
		       "(event names or alias= and 'period', e.g. 'sched_switch==0')");
		return PP_EUSAGE;
	}
	if (!mode || strcmp(mode, "leader")) {
		pp_err("hrtimer: the capture has no cpu-clock leader reading counters: record with "
		       "pp-record --for 'hrtimer -e EVENTS --period T EXPR' (or hrcount's)");
		return PP_EUSAGE;
	}
	p->var_of = pp_xcalloc(az->nr_sels, sizeof(*p->var_of));
	p->read_any = pp_xcalloc(az->nr_sels, sizeof(*p->read_any));
	p->vars = pp_xcalloc(az->nr_sels + 1, sizeof(*p->vars));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];

		if (is_leader(m)) {
			p->var_of[i] = -1;
			continue;
		}
		p->var_of[i] = (int)n;
		p->vars[n++] = m->alias;
	}
	p->vars[n++] = "period";
	p->nr_vars = n;
	return ana_expr_compile_vars(az, NULL, "expression", az->args[0], p->vars, p->nr_vars,
				     &p->expr);
}

static struct ht_cpu *ht_cpu_get(struct pp_az *az, uint32_t cpu)
{
	struct ht_priv *p = az->priv;

	if (cpu == UINT32_MAX)
		return NULL;
	if (cpu >= p->nr_cpus) {
		size_t old = p->nr_cpus;

		p->cpus = pp_percpu_grow(p->cpus, &p->nr_cpus, cpu, sizeof(*p->cpus));
		for (size_t i = old; i < p->nr_cpus; i++) {
			p->cpus[i].counts = pp_xcalloc(p->nr_vars, sizeof(uint64_t));
			p->cpus[i].got = pp_xcalloc(az->nr_sels, sizeof(bool));
		}
	}
	return &p->cpus[cpu];
}

static void ht_print(struct pp_az *az, struct ht_cpu *c)
{
	struct ht_priv *p = az->priv;
	const struct pp_event *ev = &c->ev;
	uint64_t period = c->counts[p->nr_vars - 1];
	size_t nr_ev = p->nr_vars - 1;
	char wall[48], ts[32];

	pp_buf_reset(&p->line);
	switch (az->out.format) {
	case ANA_FMT_JSON:
		ana_json_head(az->s, ev->time_ns, ev->cpu, ev->pid, ev->tid, ANA_JSON_TASK, &p->line);
		pp_buf_addf(&p->line, ",\"period_ns\":%llu,\"counts\":{", (unsigned long long)period);
		for (size_t i = 0; i < nr_ev; i++) {
			pp_buf_adds(&p->line, i ? "," : "");
			pp_buf_add_json_str(&p->line, p->vars[i]);
			pp_buf_addf(&p->line, ":%llu", (unsigned long long)c->counts[i]);
		}
		pp_buf_addch(&p->line, '}');
		if (az->opt.callchain)
			ana_json_stack(az->s, ev, &p->line);
		pp_buf_adds(&p->line, "}\n");
		break;
	case ANA_FMT_CSV:
		if (!p->csv_head) {
			p->csv_head = true;
			pp_buf_adds(&p->line, "time,cpu,pid,tid,period_ns");
			for (size_t i = 0; i < nr_ev; i++) {
				pp_buf_addch(&p->line, ',');
				pp_csv_add(&p->line, p->vars[i]);
			}
			pp_buf_addch(&p->line, '\n');
		}
		pp_buf_addf(&p->line, "%s,%u,%u,%u,%llu", ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			    ev->cpu, ev->pid, ev->tid, (unsigned long long)period);
		for (size_t i = 0; i < nr_ev; i++)
			pp_buf_addf(&p->line, ",%llu", (unsigned long long)c->counts[i]);
		pp_buf_addch(&p->line, '\n');
		break;
	case ANA_FMT_TEXT:
		pp_buf_addf(&p->line, "%s     pid %6u tid %6u [%03u] %s: hrtimer: cpu-clock %llu ns\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)), ev->pid, ev->tid,
			    ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			    (unsigned long long)period);
		for (size_t i = 0; i < nr_ev; i++)
			pp_buf_addf(&p->line, "    %s %llu\n", p->vars[i],
				    (unsigned long long)c->counts[i]);
		if (az->opt.callchain && ev->nr_stack)
			ana_stack_print(az->s, ev, &p->line);
		break;
	}
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

/* The group of @c is complete: evaluate, print when true. */
static void ht_period(struct pp_az *az, struct ht_cpu *c)
{
	struct ht_priv *p = az->priv;

	c->open = false;
	p->periods++;
	if (!ana_expr_eval_vars(az, p->expr, &c->ev, c->counts) && !az->opt.verbose)
		return;
	p->printed++;
	ht_print(az, c);
}

static void ht_sample(struct ht_cpu *c, const struct pp_event *ev, size_t nr_sels)
{
	c->ev = *ev;
	c->ev.raw = NULL;
	c->ev.raw_sz = 0;
	c->ev.extra = NULL;
	c->ev.extra_sz = 0;
	if (ev->nr_stack > c->cap_stack) {
		c->cap_stack = ev->nr_stack;
		c->stack = pp_xrealloc(c->stack, c->cap_stack * sizeof(*c->stack));
	}
	if (ev->nr_stack)
		memcpy(c->stack, ev->stack, ev->nr_stack * sizeof(*c->stack));
	c->ev.stack = c->stack;
	memset(c->got, 0, nr_sels * sizeof(*c->got));
	c->nr_got = 0;
	c->open = true;
}

static void ht_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ht_priv *p = az->priv;
	struct ht_cpu *c = ht_cpu_get(az, ev->cpu);
	unsigned idx = ev->sel->index;
	int var = p->var_of[idx];

	if (!c)
		return;
	if (!ev->count) {
		if (var < 0) {	/* a leader sample opens its period; an event sample means nothing */
			p->samples++;
			ht_sample(c, ev, az->nr_sels);
		}
		return;
	}
	p->read_any[idx] = true;
	/* a reading belongs to the sample of the same instant on its CPU */
	if (!c->open || ev->time_ns != c->ev.time_ns || c->got[idx])
		return;
	c->got[idx] = true;
	c->nr_got++;
	c->counts[var < 0 ? p->nr_vars - 1 : (size_t)var] = ev->count->d_value;
	if (c->nr_got == az->nr_sels)
		ht_period(az, c);
}

static int ht_finish(struct pp_az *az)
{
	struct ht_priv *p = az->priv;

	/* an event the capture holds as samples, not counts: say why nothing was printed */
	for (size_t i = 0; p->samples && i < az->nr_sels; i++)
		if (!p->read_any[i])
			pp_warn("hrtimer: %s has no counter readings in this capture: record it with "
				"pp-record --for 'hrtimer -e %s ...'", az->sels[i].type->name,
				az->sels[i].type->name);
	if (az->opt.verbose && az->out.format == ANA_FMT_TEXT)
		fprintf(az->out.fp, "hrtimer: %llu periods, %llu printed\n",
			(unsigned long long)p->periods, (unsigned long long)p->printed);
	return 0;
}

static void ht_release(struct pp_az *az)
{
	struct ht_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_cpus; i++) {
		free(p->cpus[i].stack);
		free(p->cpus[i].counts);
		free(p->cpus[i].got);
	}
	free(p->cpus);
	free(p->vars);
	free(p->var_of);
	free(p->read_any);
	pp_expr_free(p->expr);
	pp_buf_release(&p->line);
}

/*
 * `hrtimer -e EVENT help`: the formats of the -e events and perf-prof's command template,
 * without the cpu-clock leader the analyzer adds itself.
 */
static int ht_help(struct pp_az *az)
{
	struct pp_buf b = PP_BUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];
		const char *fmt = ana_evtype_format(m->type);
		bool dup = false;

		for (size_t k = 0; k < i; k++)
			dup |= az->sels[k].type == m->type;
		if (dup || is_leader(m))
			continue;
		printf("# %s, recorded as '%s'\n", m->type->name, m->type->selector);
		fputs(*fmt ? fmt : "(no format: not a tracepoint)\n", stdout);
		printf("\n");
		pp_buf_addf(&b, "%s%s/%s/%s%s%s", n++ ? "," : "", m->type->name,
			    m->sel->filter ? m->sel->filter : ".", m->sel->alias ? "alias=" : "",
			    m->sel->alias ? m->sel->alias : "", m->sel->alias ? "/" : "");
	}
	printf("pp hrtimer -e \"%s\"", pp_buf_str(&b));
	if (az->opt.period_ns)
		printf(" --period %llu", (unsigned long long)az->opt.period_ns);
	else if (az->opt.freq)
		printf(" -F %llu", (unsigned long long)az->opt.freq);
	else
		printf(" [--period ns] [-F freq]");
	printf("%s [-C .] [-m .] [-o .] '%s'\n", az->opt.callchain ? " -g" : " [-g]",
	       az->nr_args ? az->args[0] : "EXPRESSION");
	pp_buf_release(&b);
	return 0;
}

const struct pp_analyzer_ops az_hrtimer_ops = {
	.summary = "periods of a per-CPU timer whose event counts meet an expression (conditional sampling)",
	.usage = "pp-analyze FILE hrtimer -e EVENT[,...] [-g] [-C CPUS] 'EXPRESSION'\n"
		 "       pp hrtimer -e EVENT[,...] --period T|-F HZ [-g] [-C CPUS] 'EXPRESSION'",
	.examples = "  pp hrtimer -e sched:sched_switch -C 0 --period 50ms 'sched_switch==0'\n"
		    "      every 50 ms on CPU 0: print the periods without a context switch\n"
		    "  pp hrtimer -e sched:sched_switch,sched:sched_wakeup -C 0-5 --period 50ms -g \\\n"
		    "      'sched_switch==0 && sched_wakeup==0 && period > 50000000'\n"
		    "      and with the kernel stack, when the timer itself came late\n"
		    "  pp hrtimer -e 'raw_syscalls:sys_enter//alias=sc/' -C 1 -F 200 'sc > 1000'\n"
		    "  pp-record --for \"hrtimer -e sched:sched_switch --period 10ms -g 'sched_switch==0'\" -a --duration 10\n"
		    "  pp-analyze pp.capture hrtimer -e sched:sched_switch 'sched_switch > 20'\n"
		    "  pp-analyze pp.capture hrtimer -e sched:sched_switch --format json 1   # every period\n"
		    "  The expression sees each event's name (or alias=) as its count in the period and\n"
		    "  'period' as the cpu-clock delta in ns; -v prints every period.\n",
	.help_attrs = "alias=./",
	.priv_size = sizeof(struct ht_priv),
	.flags = PP_AZ_NEED_EVENTS | PP_AZ_EXTRA_EVENTS | PP_AZ_COUNTERS,
	.help = ht_help,
	.set_events = ht_set_events,
	.init = ht_init,
	.event = ht_event,
	.finish = ht_finish,
	.release = ht_release,
};
