/* SPDX-License-Identifier: MIT */
/*
 * rundelay-plan.c - what rundelay records: sched_wakeup, sched_wakeup_new
 * and sched_switch on every CPU (or the -e given).
 *
 * A wakeup or a switch-in of a task is emitted by another task, so -p/-t
 * never restrict the recording to threads: they become the analyzer's
 * filters.  --filter COMM[,COMM*] and -t TIDS become kernel filters that
 * keep the capture small (wakeups of those tasks, switches from or to them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/expr.h"
#include "common/plan.h"
#include "common/units.h"

static void add_filtered(struct pp_plan *p, const char *event, const char *f1, const char *f2,
			 const char *comms, const int *tids, size_t nr_tids, bool str)
{
	struct pp_buf b = PP_BUF_INIT;

	if (str) {
		pp_filter_from_comm_list(&b, f1, comms);
		if (f2) {
			pp_buf_adds(&b, "||");
			pp_filter_from_comm_list(&b, f2, comms);
		}
	} else {
		pp_filter_from_pids(&b, f1, tids, nr_tids);
		if (f2) {
			pp_buf_adds(&b, "||");
			pp_filter_from_pids(&b, f2, tids, nr_tids);
		}
	}
	pp_plan_add_eventf(p, "%s/%s/", event, pp_buf_str(&b));
	pp_buf_release(&b);
}

static int rundelay_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct pp_common_opts *c = a->common;
	int *tids = NULL;
	size_t nr_tids = 0;

	/* every CPU: the events of a thread are emitted by other threads too */
	p->all_cpus = true;
	p->all_cpus_why = "wakeups and switches into the followed tasks";
	free(p->pids);
	free(p->tids);
	p->pids = p->tids = NULL;
	if (c->events.nr) {
		for (size_t i = 0; i < c->events.nr; i++)
			pp_plan_add_event(p, c->events.v[i]);
		return 0;
	}
	if (!c->filter && c->tids && pp_parse_list(c->tids, 0, &tids, &nr_tids)) {
		snprintf(err, errsz, "rundelay: bad -t list '%s'", c->tids);
		return PP_EUSAGE;
	}
	if (c->filter || nr_tids) {
		bool str = c->filter != NULL;
		add_filtered(p, "sched:sched_wakeup", str ? "comm" : "pid", NULL, c->filter, tids,
			     nr_tids, str);
		add_filtered(p, "sched:sched_wakeup_new", str ? "comm" : "pid", NULL, c->filter,
			     tids, nr_tids, str);
		add_filtered(p, "sched:sched_switch", str ? "prev_comm" : "prev_pid",
			     str ? "next_comm" : "next_pid", c->filter, tids, nr_tids, str);
	} else {
		pp_plan_add_event(p, "sched:sched_wakeup");
		pp_plan_add_event(p, "sched:sched_wakeup_new");
		pp_plan_add_event(p, "sched:sched_switch");
	}
	free(tids);
	return 0;
}

const struct pp_plan_ops azp_rundelay_plan = {
	.plan = rundelay_plan,
};
