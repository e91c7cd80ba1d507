/* SPDX-License-Identifier: MIT */
/*
 * report.c - one self-contained HTML page of what a capture holds, in one pass.
 *
 * The sections a capture gets follow from its events; each is another analyzer
 * run inside this one's pass by the report engine (analyze/report/report.h), so
 * its numbers are that analyzer's, and the page names the command that prints them:
 *   always                      the capture (pp-analyze FILE info)
 *   samples with call stacks    a flame graph and top symbols (profile -e EV -g
 *                               --flame-graph), at most MAX_FLAMES events
 *   samples without stacks      top symbols (profile -e EV)
 *   sched_switch + sched_wakeup task states, overall and per thread (task-state,
 *                               task-state --perins); run delay per thread with a
 *                               heatmap (rundelay --perins --heatmap)
 *   raw_syscalls enter + exit   system calls, overall with a heatmap and per thread
 *                               (syscalls --heatmap, syscalls --perins)
 *   any sampled events          events per thread (top -e A,B,...)
 * and a last section says what the capture lacks for the others, and how to record it.
 * Not here: running the children, tables, graphs, the page (analyze/report/).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/report/report.h"
#include "analyzers/report.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"

#define MAX_FLAMES 3		/* flame graphs: events with call stacks */
#define MAX_PLAIN 2		/* symbol tables of sample events without stacks */
#define MAX_TOP 8		/* event types in the events-per-thread table */

struct report_flame {
	const struct ana_evtype *type;
	struct ana_rpt_child *profile;
	char *folded;		/* where profile writes the stacks */
};

struct report_priv {
	struct ana_rpt *r;
	struct report_flame flames[MAX_FLAMES];
	size_t nr_flames;
	struct ana_rpt_child *plain[MAX_PLAIN];
	const struct ana_evtype *plain_type[MAX_PLAIN];
	size_t nr_plain;
	struct ana_rpt_child *states, *states_perins, *rundelay;
	struct ana_rpt_child *syscalls, *syscalls_perins;
	struct ana_rpt_child *top;
	bool have_sched, have_syscalls;
	struct pp_buf failed;	/* commands that could not start */
	size_t max_rows;
	size_t max_frames;
	double flame_min;
};

/*
 * Whether -e can name @t: a capture may hold any bytes in an event's name, and a
 * child given one it cannot parse would refuse to start.
 */
static bool selectable(const struct ana_evtype *t)
{
	return t->name[0] && strspn(t->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789_-.:") == strlen(t->name);
}

/* Start a child; a failure is noted for the page (the child said why on stderr). */
static struct ana_rpt_child *child(struct pp_az *az, const char *const *argv,
				   const char *const *shown)
{
	struct report_priv *p = az->priv;
	struct ana_rpt_child *c;

	if (ana_rpt_child_add(p->r, argv, shown, &c)) {
		pp_buf_addf(&p->failed, "%s%s", p->failed.len ? "; " : "", argv[0]);
		return NULL;
	}
	return c;
}

static void add_flame(struct pp_az *az, const struct ana_evtype *t)
{
	struct report_priv *p = az->priv;
	struct report_flame *f = &p->flames[p->nr_flames];
	char name[32], svg[256];

	snprintf(name, sizeof(name), "flame-%zu.folded", p->nr_flames);
	snprintf(svg, sizeof(svg), "%s.svg", t->event ? t->event : t->name);
	f->type = t;
	f->folded = pp_xstrdup(ana_rpt_tmp_path(p->r, name));
	f->profile = child(az, (const char *const[]){ "profile", "-e", t->name, "-g",
						      "--flame-graph", f->folded, NULL },
			   (const char *const[]){ "profile", "-e", t->name, "-g",
						  "--flame-graph", svg, NULL });
	if (f->profile)
		p->nr_flames++;
	else
		free(f->folded);
}

static void add_sched(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	p->have_sched = true;
	p->states = child(az, (const char *const[]){ "task-state", NULL }, NULL);
	p->states_perins = child(az, (const char *const[]){ "task-state", "--perins", NULL }, NULL);
	p->rundelay = child(az, (const char *const[]){ "rundelay", "--perins", "--heatmap",
						       ana_rpt_tmp_path(p->r, "rundelay"), NULL },
			    (const char *const[]){ "rundelay", "--perins", "--heatmap", "rundelay",
						   NULL });
}

static void add_syscalls(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	p->have_syscalls = true;
	p->syscalls = child(az, (const char *const[]){ "syscalls", "--heatmap",
						       ana_rpt_tmp_path(p->r, "syscalls"), NULL },
			    (const char *const[]){ "syscalls", "--heatmap", "syscalls", NULL });
	p->syscalls_perins = child(az, (const char *const[]){ "syscalls", "--perins", NULL }, NULL);
}

static void add_plain(struct pp_az *az, const struct ana_evtype *t)
{
	struct report_priv *p = az->priv;
	struct ana_rpt_child *c = child(az, (const char *const[]){ "profile", "-e", t->name, NULL },
					NULL);

	if (c) {
		p->plain_type[p->nr_plain] = t;
		p->plain[p->nr_plain++] = c;
	}
}

/* top -e 'A,B,...': one row per thread, a column per event type. */
static void add_top(struct pp_az *az)
{
	struct report_priv *p = az->priv;
	struct pp_buf list = PP_BUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < az->nr_sels && n < MAX_TOP; i++) {
		if (!ana_rpt_type_sampled(az->sels[i].type) || !selectable(az->sels[i].type))
			continue;
		pp_buf_addf(&list, "%s%s", n++ ? "," : "", az->sels[i].type->name);
	}
	/* top reports every -i (1 s by default): the shown command's covers a day */
	if (n)
		p->top = child(az, (const char *const[]){ "top", "-e", pp_buf_str(&list), NULL },
			       (const char *const[]){ "top", "-e", pp_buf_str(&list),
						      "-i", "86400000", NULL });
	pp_buf_release(&list);
}

static int report_init(struct pp_az *az)
{
	struct report_priv *p = az->priv;
	const struct report_opts *o = az->opts;
	char *end = NULL;
	int rc;

	if (az->opt.events.nr || az->opt.format || az->nr_cpus || az->nr_pids || az->nr_tids ||
	    az->opt.interval_ns) {
		pp_err("report: takes no -e, --format, -C, -p, -t or -i: the page has every event "
		       "of the capture, and each section names the command that takes them");
		return PP_EUSAGE;
	}
	p->max_rows = o->max_rows > 0 ? (size_t)o->max_rows : 100;
	p->max_frames = o->max_frames > 0 ? (size_t)o->max_frames : 20000;
	p->flame_min = o->flame_min ? strtod(o->flame_min, &end) : 0.01;
	if (o->flame_min &&
	    (end == o->flame_min || *end || p->flame_min < 0 || p->flame_min > 100)) {
		pp_err("report: --flame-min %s: a percentage, 0 to 100", o->flame_min);
		return PP_EUSAGE;
	}
	rc = ana_rpt_new(az, &p->r);
	if (rc)
		return rc;
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_evtype *t = az->sels[i].type;

		if (!ana_rpt_type_sampled(t) || !selectable(t))
			continue;
		if (ana_evtype_has_stack(t) && p->nr_flames < MAX_FLAMES)
			add_flame(az, t);
		else if (!t->sys && !ana_evtype_has_stack(t) && p->nr_plain < MAX_PLAIN)
			add_plain(az, t);
	}
	if (ana_evtype_find(az->s, "sched:sched_switch") &&
	    ana_evtype_find(az->s, "sched:sched_wakeup"))
		add_sched(az);
	if (ana_evtype_find(az->s, "raw_syscalls:sys_enter") &&
	    ana_evtype_find(az->s, "raw_syscalls:sys_exit"))
		add_syscalls(az);
	add_top(az);
	return 0;
}

static void flame_sections(struct pp_az *az)
{
	struct report_priv *p = az->priv;
	struct ana_rpt_flame_opts fo = { .min_pct = p->flame_min, .max_frames = p->max_frames };

	for (size_t i = 0; i < p->nr_flames; i++) {
		struct report_flame *f = &p->flames[i];
		char id[32], title[256];

		snprintf(id, sizeof(id), "flame-%zu", i);
		snprintf(title, sizeof(title), "%s: %s", f->type->sys ? "Call stacks" : "Profile",
			 f->type->name);
		ana_rpt_section(p->r, id, title);
		ana_rpt_command(p->r, ana_rpt_child_cmd(f->profile));
		ana_rpt_flame(p->r, f->folded, &fo);
		ana_rpt_table(p->r, f->profile, &(struct ana_rpt_table_opts){
			.caption = "Symbols: self and children (callers) shares",
			.max_rows = p->max_rows });
		ana_rpt_table(p->r, f->profile, &(struct ana_rpt_table_opts){
			.table = "pid", .caption = "Processes", .max_rows = p->max_rows });
	}
	for (size_t i = 0; i < p->nr_plain; i++) {
		char id[32], title[256];

		snprintf(id, sizeof(id), "symbols-%zu", i);
		snprintf(title, sizeof(title), "Symbols: %s", p->plain_type[i]->name);
		ana_rpt_section(p->r, id, title);
		ana_rpt_text(p->r, "These samples have no call stacks (recorded without -g): "
			     "the sampled instruction's symbol only.");
		ana_rpt_table(p->r, p->plain[i], &(struct ana_rpt_table_opts){
			.max_rows = p->max_rows, .show_cmd = true });
	}
}

static const char *const drop_time[] = { "time", NULL };

static void sched_sections(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	ana_rpt_section(p->r, "task-state", "Task states");
	if (p->states)
		ana_rpt_table(p->r, p->states, &(struct ana_rpt_table_opts){
			.caption = "Every task: time in each state (R running, S sleeping, "
				   "D blocked, RD runnable, waiting for a CPU ...)",
			.max_rows = p->max_rows, .show_cmd = true });
	if (p->states_perins)
		ana_rpt_table(p->r, p->states_perins, &(struct ana_rpt_table_opts){
			.caption = "Per thread", .rank_by = "total_us",
			.max_rows = p->max_rows, .show_cmd = true });
	if (!p->rundelay)
		return;
	ana_rpt_section(p->r, "rundelay", "Run delay");
	ana_rpt_command(p->r, ana_rpt_child_cmd(p->rundelay));
	ana_rpt_text(p->r, "From a wakeup (or a preemption) to running again.");
	ana_rpt_heatmap(p->r, "rundelay", "run delays");
	ana_rpt_table(p->r, p->rundelay, &(struct ana_rpt_table_opts){
		.caption = "Per thread", .rank_by = "total_us", .drop = drop_time,
		.max_rows = p->max_rows });
}

static void syscall_sections(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	ana_rpt_section(p->r, "syscalls", "System calls");
	if (p->syscalls) {
		ana_rpt_command(p->r, ana_rpt_child_cmd(p->syscalls));
		ana_rpt_heatmap(p->r, "syscalls", "system call latencies");
		ana_rpt_table(p->r, p->syscalls, &(struct ana_rpt_table_opts){
			.caption = "Per system call", .rank_by = "total_us", .drop = drop_time,
			.max_rows = p->max_rows });
	}
	if (p->syscalls_perins)
		ana_rpt_table(p->r, p->syscalls_perins, &(struct ana_rpt_table_opts){
			.caption = "Per thread and system call", .rank_by = "total_us",
			.drop = drop_time, .max_rows = p->max_rows, .show_cmd = true });
}

/* What the capture lacks for the sections it did not get, and how to record it. */
static void missing_section(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	if (p->nr_flames && p->have_sched && p->have_syscalls && !p->failed.len)
		return;
	ana_rpt_section(p->r, "missing", "Not in this capture");
	if (!p->nr_flames)
		ana_rpt_text(p->r, "No samples with call stacks, so no flame graph: "
			     "pp-record -F 997 -g -a ... (or pp-record --for report).");
	if (!p->have_sched)
		ana_rpt_text(p->r, "No sched:sched_switch and sched:sched_wakeup, so no task "
			     "states or run delays: pp-record --for task-state -a ...");
	if (!p->have_syscalls)
		ana_rpt_text(p->r, "No raw_syscalls:sys_enter and sys_exit, so no system calls: "
			     "pp-record --for syscalls ... (or --for 'report --syscalls').");
	if (p->failed.len)
		ana_rpt_text(p->r, "Could not run (pp-analyze said why on stderr): %s.",
			     pp_buf_str(&p->failed));
}

static int report_finish(struct pp_az *az)
{
	struct report_priv *p = az->priv;
	const struct report_opts *o = az->opts;
	int rc;

	ana_rpt_children_finish(p->r);
	ana_rpt_summary(p->r, p->max_rows);
	flame_sections(az);
	if (p->have_sched)
		sched_sections(az);
	if (p->have_syscalls)
		syscall_sections(az);
	if (p->top) {
		ana_rpt_section(p->r, "top", "Events per thread");
		ana_rpt_table(p->r, p->top, &(struct ana_rpt_table_opts){
			.max_rows = p->max_rows, .show_cmd = true });
	}
	missing_section(az);
	rc = ana_rpt_write(p->r, az->out.fp, o->title);
	if (rc)
		pp_err("report: writing the page: %s", pp_strerror(rc));
	return rc ? 1 : 0;
}

static void report_release(struct pp_az *az)
{
	struct report_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_flames; i++)
		free(p->flames[i].folded);
	pp_buf_release(&p->failed);
	ana_rpt_az_release(az);
}

const struct pp_analyzer_ops az_report_ops = {
	.summary = "one self-contained HTML page: flame graphs, task states, syscalls, tables",
	.usage = "pp-analyze FILE report [-o report.html] [--max-rows N] [--max-frames N] "
		 "[--flame-min PCT] [--title TEXT]",
	.examples =
		"  pp-analyze pp.capture report -o report.html\n"
		"  pp-analyze pp.capture report -o report.html --max-rows 500 --flame-min 0.001\n"
		"  pp-analyze pp.capture report -o report.html , task-state --perins\n"
		"  pp report -o report.html -- ./my-program          # record and report\n"
		"  pp-record --for 'report --syscalls' -a --duration 10 -o sys.capture\n",
	.priv_size = sizeof(struct report_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = report_init,
	.event = ana_rpt_az_event,
	.lost = ana_rpt_az_lost,
	.task_exit = ana_rpt_az_task_exit,
	.sideband = ana_rpt_az_sideband,
	.finish = report_finish,
	.release = report_release,
};
