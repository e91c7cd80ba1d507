/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - per system call: calls, total, min, avg, max latency and errors.
 *
 * perf-prof's syscalls: -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit
 * (the default) over the two-event engine with its syscalls implementation,
 * keyed by the thread (common_pid); rows are named from the capture's
 * syscall table, per thread with --perins.  A thread that exits inside a
 * system call (exit, exit_group) leaves a sys_enter without sys_exit: the
 * sched:sched_process_free event of that thread (recorded by the plan)
 * closes it, counting the call up to the free; captures without that event,
 * or restricted with -p/-t, use the task's exit record instead.
 */
#include "analyze/analyzer.h"
#include "analyze/latency/latency.h"
#include "common/err.h"
#include "common/log.h"

struct syscalls_priv {
	struct ana_te *te;	/* also az->engine, for the ready-made callbacks */
	bool have_free;		/* -e position 2 is sched:sched_process_free */
};

static int syscalls_set_events(struct pp_az *az, struct pp_strlist *events)
{
	struct syscalls_priv *p = az->priv;

	if (!events->nr) {
		pp_strlist_push(events, "raw_syscalls:sys_enter");
		pp_strlist_push(events, "raw_syscalls:sys_exit");
	}
	if (events->nr == 2 && ana_evtype_find(az->s, "sched:sched_process_free")) {
		pp_strlist_push(events, "sched:sched_process_free");
		p->have_free = true;
	}
	return 0;
}

static int syscalls_init(struct pp_az *az)
{
	struct syscalls_priv *p = az->priv;
	struct ana_te_config cfg = {
		.impl = ANA_TE_SYSCALLS,
		.pid_key = true,
		.nr_positions = 2,
	};
	int rc;

	if (az->opt.detail) {
		pp_err("syscalls: --detail is not supported (use multi-trace -k common_pid)");
		return PP_EUSAGE;
	}
	rc = ana_te_new(az, &cfg, &p->te);
	if (rc)
		return rc;
	for (unsigned i = 0; i < ana_te_nr_tps(p->te); i++)
		if (!ana_te_tp_key(p->te, i))
			ana_te_tp_set_key(p->te, i, "common_pid");
	return ana_te_start(p->te);
}

static void syscalls_event(struct pp_az *az, const struct pp_event *ev)
{
	struct syscalls_priv *p = az->priv;
	uint64_t pid;

	if (ev->sel->pos == 2) {
		if (ana_field_u64(ev, "pid", &pid))
			ana_te_reclaim(p->te, (uint32_t)pid, ev->time_ns);
		return;
	}
	ana_te_feed(p->te, ev);
}

static void syscalls_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct syscalls_priv *p = az->priv;

	if (!p->have_free || az->nr_pids || az->nr_tids)
		ana_te_reclaim(p->te, tid, time_ns);
}


const struct pp_analyzer_ops az_syscalls_ops = {
	.summary = "system call latency and errors per syscall (and per thread with --perins)",
	.usage = "pp-analyze FILE syscalls [-e raw_syscalls:sys_enter[/filter/] -e raw_syscalls:sys_exit] "
		 "[-p PID] [--perins] [--than T] [--heatmap FILE] [-i MS]",
	.examples =
		"  pp-analyze pp.capture syscalls\n"
		"  pp-analyze pp.capture syscalls -p 1234 --perins -i 1000\n"
		"  pp-analyze pp.capture syscalls --perins --than 1ms\n"
		"  pp-analyze pp.capture syscalls -e 'raw_syscalls:sys_enter/id==0/' -e 'raw_syscalls:sys_exit/id==0/'\n"
		"  pp-record --for 'syscalls' --duration 5 -o sc.capture && pp-analyze sc.capture syscalls --perins\n",
	.priv_size = sizeof(struct syscalls_priv),
	.set_events = syscalls_set_events,
	.init = syscalls_init,
	.event = syscalls_event,
	.lost = ana_te_az_lost,
	.task_exit = syscalls_task_exit,
	.interval = ana_te_az_interval,
	.finish = ana_te_az_finish,
	.release = ana_te_az_release,
	.state_version = 3,
	.state_write = ana_te_az_state_write,
	.state_read = ana_te_az_state_read,
	.state_join = ana_te_az_state_join,
};
