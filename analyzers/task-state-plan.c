/* SPDX-License-Identifier: MIT */
/*
 * task-state-plan.c - what task-state records: sched_switch, sched_wakeup and
 * sched_wakeup_new on every CPU.
 *
 * A sched_switch is emitted by the task that leaves the CPU, so a per-thread
 * recording would miss the switch-ins (and the run delays): -p/-t become
 * filters instead (kernel filters for -t and --filter comm, the analyzer's
 * own matching for -p).  With -S/-D only the S/D switch-outs are recorded, as
 * perf-prof's modes 2 and 3 do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzers/task-state.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/units.h"

#define O(f) PP_AZOPT(struct task_state_opts, f)

static const struct pp_option task_state_options[] = {
	PP_OPT_GROUP("task-state options:"),
	{ .type = PP_OPT_T_BOOL, .short_name = 'S', .long_name = "interruptible",
	  .value = O(interruptible), .help = "S (interruptible) sleeps only (with -D: S and D)",
	  .flags = PP_OPT_NONEG },
	{ .type = PP_OPT_T_BOOL, .long_name = "no-interruptible", .value = O(no_interruptible),
	  .help = "every state but S", .flags = PP_OPT_NONEG },
	{ .type = PP_OPT_T_BOOL, .short_name = 'D', .long_name = "uninterruptible",
	  .value = O(uninterruptible), .help = "D (uninterruptible) sleeps only (with -S: S and D)",
	  .flags = PP_OPT_NONEG },
	{ .type = PP_OPT_T_BOOL, .long_name = "ptrace", .value = O(ptrace),
	  .flags = PP_OPT_NONEG | PP_OPT_HIDDEN,	/* perf-prof's; changes nothing here */
	  .help = "accepted: the sched events are recorded on every CPU, new threads included" },
	PP_OPT_END(),
};

/* "F==1||F==2" for a tid list "1,2" (ranges spelled out as >= && <=) */
static int tid_filter(struct pp_buf *b, const char *field, const char *list)
{
	int *v = NULL;
	size_t nr = 0;

	if (pp_parse_list(list, 0, &v, &nr))
		return PP_ESYNTAX;
	for (size_t i = 0; i < nr; i++)
		pp_buf_addf(b, "%s%s==%d", b->len ? "||" : "", field, v[i]);
	free(v);
	return 0;
}

static char *event_filter(const char *what, const char *pid_field, const char *comm_field,
			  const struct pp_common_opts *c, const char *state_filter)
{
	struct pp_buf who = PP_BUF_INIT;
	char *r;

	if (c->tids && tid_filter(&who, pid_field, c->tids))
		pp_buf_reset(&who);
	if (c->filter) {
		if (who.len)
			pp_buf_adds(&who, "||");
		pp_filter_from_comm_list(&who, comm_field, c->filter);
	}
	if (c->pids)	/* threads of processes: matched in the analyzer */
		pp_buf_reset(&who);
	if (state_filter && who.len)
		r = pp_xasprintf("%s/(%s)&&(%s)/", what, state_filter, pp_buf_str(&who));
	else if (state_filter || who.len)
		r = pp_xasprintf("%s/%s/", what, state_filter ? state_filter : pp_buf_str(&who));
	else
		r = pp_xstrdup(what);
	pp_buf_release(&who);
	return r;
}

static int task_state_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct task_state_opts *o = a->opts;
	const struct pp_common_opts *c = a->common;
	bool sd = o->interruptible || o->uninterruptible;
	const char *states = NULL;
	char *e;

	/* scheduling is about the other tasks too: every CPU, even around a COMMAND */
	p->all_cpus = true;
	p->all_cpus_why = "switches into the followed tasks (their run delays and sleeps' ends)";
	if (c->verbose && o->ptrace)
		pp_note("task-state: --ptrace: the sched events are recorded on every CPU, "
			"so the new threads of -p are seen without ptrace");
	if (c->events.nr) {
		snprintf(err, errsz,
			 "task-state: does not take -e: it records the sched events itself");
		return PP_EUSAGE;
	}
	if (o->interruptible && o->uninterruptible)
		states = "prev_state==1||prev_state==2||prev_state==130";
	else if (o->interruptible)
		states = "prev_state==1";
	else if (o->uninterruptible)
		states = "prev_state==2||prev_state==130";
	if (sd) {
		/* only the S/D switch-outs of the selected tasks, and their wakeups */
		e = event_filter("sched:sched_switch", "prev_pid", "prev_comm", c, states);
		pp_plan_add_event(p, e);
		free(e);
	} else {
		/* both sides of the switch concern a selected task: prev or next */
		char *prev = event_filter("", "prev_pid", "prev_comm", c, NULL);
		char *next = event_filter("", "next_pid", "next_comm", c, NULL);
		if (*prev)	/* "/filter/" forms: join them */
			pp_plan_add_eventf(p, "sched:sched_switch/(%.*s)||(%.*s)/",
					   (int)strlen(prev) - 2, prev + 1, (int)strlen(next) - 2,
					   next + 1);
		else
			pp_plan_add_event(p, "sched:sched_switch");
		free(prev);
		free(next);
	}
	e = event_filter("sched:sched_wakeup", "pid", "comm", c, NULL);
	pp_plan_add_event(p, e);
	free(e);
	if (!sd) {
		e = event_filter("sched:sched_wakeup_new", "pid", "comm", c, NULL);
		pp_plan_add_event(p, e);
		free(e);
	}
	/* sched events of a thread come from other tasks too: record every CPU */
	free(p->pids);
	free(p->tids);
	p->pids = p->tids = NULL;
	return 0;
}

const struct pp_plan_ops azp_task_state_plan = {
	.options = task_state_options,
	.opts_size = sizeof(struct task_state_opts),
	.plan = task_state_plan,
};
