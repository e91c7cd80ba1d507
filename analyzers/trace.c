/* SPDX-License-Identifier: MIT */
/*
 * trace.c - print events in perf-prof's trace layout.
 *
 * One line per event: wall time, comm, tid, latency flags, [cpu], capture
 * time, event name and its print_fmt output; with -g (or the per-event
 * `stack` attribute) the call stack follows, one frame per line.
 * --format json prints one JSON object per event instead.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/trace.h"
#include "common/buf.h"

struct trace_priv {
	struct pp_buf line;
};

static int trace_init(struct pp_az *az)
{
	const struct trace_opts *o = az->opts;

	if (o->generic_print)
		ana_print_generic(az->s, true);
	return 0;
}

static void trace_event(struct pp_az *az, const struct pp_event *ev)
{
	struct trace_priv *p = az->priv;
	struct ana_session *s = az->s;

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		char ts[32];
		struct pp_buf f = PP_BUF_INIT;
		ana_event_fields(s, ev, &f);
		pp_buf_addf(&p->line, "{\"time\":%s,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), ev->cpu, ev->pid, ev->tid);
		pp_buf_add_json_str(&p->line, ana_comm(s, ev->tid));
		pp_buf_adds(&p->line, ",\"event\":");
		pp_buf_add_json_str(&p->line, ev->type->name);
		pp_buf_adds(&p->line, ",\"fields\":");
		pp_buf_add_json_str(&p->line, pp_buf_str(&f));
		pp_buf_adds(&p->line, "}\n");
		pp_buf_release(&f);
	} else {
		ana_event_print(s, ev, &p->line);
		pp_buf_addch(&p->line, '\n');
		if (ev->nr_stack && (az->opt.callchain || (ev->sel && ev->sel->sel->stack)))
			ana_stack_print(s, ev, &p->line);
	}
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static int trace_finish(struct pp_az *az)
{
	return 0;
}

static void trace_release(struct pp_az *az)
{
	struct trace_priv *p = az->priv;

	pp_buf_release(&p->line);
}

extern const struct pp_plan_ops azp_trace_plan;

const struct pp_analyzer_ops az_trace_ops = {
	.name = "trace",
	.summary = "print events, with their fields and call stacks",
	.usage = "pp-analyze FILE trace [-e EVENT[,EVENT...]] [-g] [--format json]",
	.examples = "  pp-analyze pp.capture trace -e sched:sched_wakeup\n"
		    "  pp-analyze pp.capture trace -e 'sched:sched_switch/prev_state==2/' -g\n",
	.plan = &azp_trace_plan,
	.priv_size = sizeof(struct trace_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = trace_init,
	.event = trace_event,
	.finish = trace_finish,
	.release = trace_release,
};
