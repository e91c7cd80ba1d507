/* SPDX-License-Identifier: MIT */
/*
 * irq-off.c - windows where a CPU's timer interrupts were held off (perf-prof's irq-off).
 *
 * cpu-clock samples come from an hrtimer interrupt every --period on each
 * CPU.  While a CPU runs with interrupts disabled the timer cannot fire, so
 * the next sample arrives late: every gap longer than --than between two
 * samples of one CPU is printed, perf-prof's layout,
 *   <wall time> <pid>/<tid> [cpu] sec.usec: cpu-clock: <gap> ns
 * with the kernel stack of the late sample (-g): where interrupts came back
 * on.  A gap can also be time the hypervisor took the vCPU away (steal); the
 * capture cannot tell the two apart.  --than defaults to twice the period.
 * After a loss the CPU's next gap is not measured.  The end shows, per CPU,
 * the samples, the windows over --than and the longest gap.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/callchain.h"
#include "common/log.h"
#include "common/percpu.h"
#include "common/table.h"

struct io_cpu {
	uint64_t last_ns;		/* 0: no sample yet (or after a loss) */
	uint64_t samples, windows, max_ns, over_ns;
};

struct io_priv {
	struct io_cpu *cpus;
	size_t nr_cpus;
	uint64_t than_ns;
	struct pp_buf line;
	uint64_t *trim;
	uint32_t cap_trim;
};

static const char *const io_events[] = { "cpu-clock", NULL };

static int io_init(struct pp_az *az)
{
	struct io_priv *p = az->priv;

	p->than_ns = az->opt.than_ns ? az->opt.than_ns : 2 * az->opt.period_ns;
	return 0;
}

static struct io_cpu *io_cpu_get(struct io_priv *p, uint32_t cpu)
{
	p->cpus = pp_percpu_grow(p->cpus, &p->nr_cpus, cpu, sizeof(*p->cpus));
	return &p->cpus[cpu];
}

static void io_print(struct pp_az *az, const struct pp_event *ev, uint64_t gap)
{
	struct io_priv *p = az->priv;
	char wall[48], ts[32];
	struct pp_event e = *ev;

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_head(az->s, ev->time_ns, ev->cpu, ev->pid, ev->tid, ANA_JSON_TASK, &p->line);
		pp_buf_addf(&p->line, ",\"gap_ns\":%llu}\n", (unsigned long long)gap);
	} else if (az->out.format == ANA_FMT_TEXT) {
		pp_buf_addf(&p->line, "%s %7u/%-7u [%03u] %s: %s: %llu ns\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)), ev->pid, ev->tid,
			    ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)), ev->type->name,
			    (unsigned long long)gap);
		if (az->opt.callchain && ev->nr_stack) {
			if (ev->nr_stack > p->cap_trim) {
				p->cap_trim = ev->nr_stack;
				p->trim = pp_xrealloc(p->trim, p->cap_trim * sizeof(*p->trim));
			}
			e.stack = p->trim;
			e.nr_stack =
				pp_callchain_trim(ev->stack, ev->nr_stack, p->trim, true, false);
			ana_stack_print(az->s, &e, &p->line);
		}
	}
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static void io_event(struct pp_az *az, const struct pp_event *ev)
{
	struct io_priv *p = az->priv;
	struct io_cpu *c = io_cpu_get(p, ev->cpu);

	if (!p->than_ns)	/* neither --than nor --period: twice the recorded period */
		p->than_ns = 2 * (ev->period ? ev->period : 10000000);
	c->samples++;
	if (c->last_ns && ev->time_ns > c->last_ns) {
		uint64_t gap = ev->time_ns - c->last_ns;
		if (gap > c->max_ns)
			c->max_ns = gap;
		if (gap > p->than_ns) {
			c->windows++;
			c->over_ns += gap;
			io_print(az, ev, gap);
		}
	}
	c->last_ns = ev->time_ns;
}

static void io_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct io_priv *p = az->priv;

	/* which CPU lost what is not always known: restart every CPU */
	for (size_t i = 0; i < p->nr_cpus; i++)
		p->cpus[i].last_ns = 0;
}

static int io_finish(struct pp_az *az)
{
	struct io_priv *p = az->priv;
	struct pp_table *t = pp_table_new();
	bool text = az->out.format == ANA_FMT_TEXT;

	if (text) {
		ana_report_header(az);
		fprintf(az->out.fp, "irq-off: gaps over %.3f ms between timer samples\n",
			p->than_ns / 1e6);
	}
	pp_table_col(t, "CPU", "cpu", 0, 3);
	pp_table_col(t, "samples", "samples", 0, 8);
	pp_table_col(t, "windows", "windows", 0, 8);
	pp_table_col(t, "total(ms)", "total_ms", 0, 10);
	pp_table_col(t, "max(ms)", "max_ms", 0, 10);
	for (size_t i = 0; i < p->nr_cpus; i++) {
		const struct io_cpu *c = &p->cpus[i];
		if (!c->samples)
			continue;
		pp_table_row(t);
		pp_table_u64(t, i);
		pp_table_u64(t, c->samples);
		pp_table_u64(t, c->windows);
		pp_table_num(t, "%.3f", c->over_ns / 1e6);
		pp_table_num(t, "%.3f", c->max_ns / 1e6);
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "irq-off");
	pp_table_free(t);
	return 0;
}

static void io_release(struct pp_az *az)
{
	struct io_priv *p = az->priv;

	free(p->cpus);
	free(p->trim);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_irq_off_ops = {
	.summary = "windows where a CPU's timer samples came late: interrupts off (or steal)",
	.usage = "pp-analyze FILE irq-off [--than T] [--period P] [-g] [-C CPUS]",
	.examples = "  pp-record --for 'irq-off --period 10ms --than 20ms -g' -a --duration 60\n"
		    "  pp-analyze pp.capture irq-off --than 20ms -g\n"
		    "  pp-analyze pp.capture irq-off --than 50ms -C 3\n",
	.priv_size = sizeof(struct io_priv),
	.flags = PP_AZ_NO_EVENTS,
	.builtin_events = io_events,
	.init = io_init,
	.event = io_event,
	.lost = io_lost,
	.finish = io_finish,
	.release = io_release,
};
