/* SPDX-License-Identifier: MIT */
/*
 * rundelay.c - scheduling delay: from a wakeup or a preemption to running again.
 *
 * perf-prof's rundelay: multi-trace over
 *   -e sched:sched_wakeup*,sched:sched_switch -e sched:sched_switch
 * (the default when no -e is given) with its keys and filters set here:
 *   sched_wakeup, sched_wakeup_new   key=pid        (the wakee)
 *   sched_switch, first position     key=prev_pid   prev_state 0 or TASK_REPORT_MAX
 *                                                   (0x100 from 4.14): runnable
 *                                                   && prev_pid>0 (no idle)
 *   sched_switch, second position    key=next_pid
 * --filter COMM[,COMM*] restricts every event to those commands (comm,
 * prev_comm, next_comm), else -p/-t to those threads (pid, prev_pid,
 * next_pid): the events are taken on every CPU since a thread's wakeup and
 * switch-in are emitted by other threads.  Keys are pids, so --perins rows
 * show the thread and its comm.  Untraced extras (-e ...,EVENT//untraced/)
 * keep their own filter and key and show in --detail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/latency/latency.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

struct rundelay_priv {
	struct ana_te *te;	/* also az->engine, for the ready-made callbacks */
};

static int rundelay_set_events(struct pp_az *az, struct pp_strlist *events)
{
	if (!events->nr) {
		pp_strlist_push(events, "sched:sched_wakeup*,sched:sched_switch");
		pp_strlist_push(events, "sched:sched_switch");
	}
	return 0;
}

/*
 * Set event @i's key and filter for its role; the comm field and the pid
 * field the filters test are @comm_field and @pid_field.  Return whether the
 * event plays a rundelay role (perf-prof counts them: 4 expected).
 */
static bool setup_role(struct pp_az *az, struct ana_te *te, unsigned i, const char *key,
		       const char *comm_field, const char *pid_field, const char *prefix)
{
	const char *k = ana_te_tp_key(te, i);
	struct pp_buf f = PP_BUF_INIT;

	if (!pp_selector_attr(ana_te_tp_sel(te, i)->sel, "key"))
		ana_te_tp_set_key(te, i, key);	/* the role's key, whatever -k says */
	k = ana_te_tp_key(te, i);
	if (!k || strcmp(k, key))
		return false;
	if (az->opt.filter) {
		if (prefix)
			pp_buf_addf(&f, "%s && (", prefix);
		pp_filter_from_comm_list(&f, comm_field, az->opt.filter);
		if (prefix)
			pp_buf_addch(&f, ')');
	} else {
		if (prefix)
			pp_buf_addf(&f, "%s&&%s>0", prefix, pid_field);
		if (az->nr_pids || az->nr_tids)
			ana_te_tp_set_targets(te, i, pid_field, az->pids, az->nr_pids, az->tids,
					      az->nr_tids, az->opt.inherit);
	}
	if (f.len)
		ana_te_tp_set_filter(te, i, pp_buf_str(&f));
	pp_buf_release(&f);
	return true;
}

static int rundelay_init(struct pp_az *az)
{
	struct rundelay_priv *p = az->priv;
	struct ana_te_config cfg = {
		.impl = ANA_TE_DELAY,
		.pid_key = true,
		.rundelay = true,
		.cpu_mode = true,
	};
	int wakeups = 0, outs = 0, ins = 0, rc;
	char prefix[64];

	rc = ana_te_new(az, &cfg, &p->te);
	if (rc)
		return rc;
	for (unsigned i = 0; i < ana_te_nr_tps(p->te); i++) {
		const struct ana_sel *sel = ana_te_tp_sel(p->te, i);
		const char *name = sel->type->name;
		struct ana_prev_state ps;

		if (sel->sel->untraced)
			continue;
		/*
		 * Runnable when switched out: 0 ("R") when rescheduled on the way back to
		 * user space, the preempted mark ("R+") when preempted in the kernel:
		 * TASK_REPORT_MAX (0x100) since 4.14, TASK_STATE_MAX before, as the
		 * capture's stored format of this sched_switch says.
		 */
		ana_prev_state_init(az->s, sel->type, &ps);
		snprintf(prefix, sizeof(prefix), "(prev_state==0||prev_state==0x%llx)",
			 (unsigned long long)ps.preempt);
		if (sel->pos == 0 && (!strcmp(name, "sched:sched_wakeup") ||
				      !strcmp(name, "sched:sched_wakeup_new")))
			wakeups += setup_role(az, p->te, i, "pid", "comm", "pid", NULL);
		else if (sel->pos == 0 && !strcmp(name, "sched:sched_switch"))
			outs += setup_role(az, p->te, i, "prev_pid", "prev_comm", "prev_pid",
					   prefix);
		else if (sel->pos == 1 && !strcmp(name, "sched:sched_switch"))
			ins += setup_role(az, p->te, i, "next_pid", "next_comm", "next_pid", NULL);
	}
	if (!wakeups || !outs || !ins) {
		pp_err("rundelay: filter failed, found %d matching events: needs "
		       "sched:sched_wakeup (key=pid) and sched:sched_switch (key=prev_pid) in the "
		       "first -e, sched:sched_switch (key=next_pid) in the second",
		       wakeups + outs + ins);
		return PP_EUSAGE;
	}
	return ana_te_start(p->te);
}


const struct pp_analyzer_ops az_rundelay_ops = {
	.summary = "scheduling delay: wakeup or preemption to running again (per task: --perins)",
	.usage = "pp-analyze FILE rundelay [-e sched:sched_wakeup*,sched:sched_switch -e sched:sched_switch]\n"
		 "       [--filter COMM,...] [-p PID] [-t TID] [--than T] [--detail[=samekey|samecpu...]]\n"
		 "       [--perins] [--heatmap FILE] [-i MS]",
	.examples =
		"  pp-analyze pp.capture rundelay -i 1000\n"
		"  pp-analyze pp.capture rundelay --perins\n"
		"  pp-analyze pp.capture rundelay -p 1 --than 4ms\n"
		"  pp-analyze pp.capture rundelay --filter 'java,pyth*' --than 4ms --detail=samekey\n"
		"  pp-analyze pp.capture rundelay -e 'sched:sched_wakeup*,sched:sched_switch' \\\n"
		"      -e 'sched:sched_switch,sched:sched_migrate_task//untraced/key=pid/' --than 4ms --detail=samecpu\n"
		"  pp-record --for 'rundelay --filter java' --duration 10 -o rd.capture\n",
	.priv_size = sizeof(struct rundelay_priv),
	.flags = PP_AZ_OWN_TASK_FILTER,
	.set_events = rundelay_set_events,
	.init = rundelay_init,
	ANA_TE_HOOKS,
};
