/* SPDX-License-Identifier: MIT */
/*
 * python.c - run a Python script on the events of a capture (perf-prof's python).
 *
 *   pp-analyze FILE python [-e EVENTS] [-i MS] [--strict] script.py|module|- [-- args]
 *
 * The script's callbacks are all optional: __init__(), __exit__(),
 * __interval__() every -i of capture time, __lost__(start, end) for each
 * loss, and for every event its own handler sys__name(event) (or
 * sys__alias with alias=; '-', '.' and ':' become '_'), else
 * __sample__(event).  Events are pp.Event objects (perf-prof's PerfEvent,
 * see analyze/python/pyevent.c) delivered in time order.  An exception is printed
 * with its traceback and the run goes on (--strict stops it); sys.exit()
 * ends the run cleanly.  `python -e EVENTS help` prints a template script.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/python/python.h"
#include "analyzers/python.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

struct py_sel {
	struct ana_py_fn *fn;		/* the handler, or NULL: the event is not delivered */
	struct ana_py_evtype *et;
};

struct python_priv {
	struct ana_py *py;
	struct ana_py_fn *init, *exit, *interval, *lost, *sample, *print_stat;
	struct py_sel *sels;
	uint64_t last_ns;		/* the last event's time: start of a loss window */
	uint64_t nr_raised;
	bool stopped;
};

/* perf-prof's handler name: "sched:sched_switch" -> "sched__sched_switch" */
static char *handler_name(const struct ana_sel *sel)
{
	const struct ana_evtype *t = sel->type;
	const char *alias = sel->sel && sel->sel->alias ? sel->sel->alias : NULL;
	/* an analyzer source's events are its own: profile(event), page_faults(event) */
	char *name = sel->source ? pp_xstrdup(sel->alias)
		   : t->sys ? pp_xasprintf("%s__%s", t->sys, alias ? alias : t->event)
			    : pp_xstrdup(alias ? alias : t->name);

	for (char *c = name; *c; c++)
		if (*c == '-' || *c == '.' || *c == ':')
			*c = '_';
	return name;
}

/* The outcome of a callback: print a traceback, stop on --strict or sys.exit(). */
static void outcome(struct pp_az *az, int rc, const char *what)
{
	struct python_priv *p = az->priv;
	const struct python_opts *o = az->opts;

	if (!rc)
		return;
	if (rc == ANA_PY_EXIT) {
		p->stopped = true;
		ana_session_stop(az->s);
		return;
	}
	p->nr_raised++;
	fprintf(stderr, "python: exception in %s:\n%s", what, ana_py_errmsg(p->py));
	if (o->strict) {
		p->stopped = true;
		az->exit_status = 1;
		ana_session_stop(az->s);
	}
}

static const char *type_hint(const struct pp_field *f)
{
	if (f->is_string)
		return "str";
	if (f->is_array || f->is_data_loc)
		return f->elem_size <= 1 ? "bytes" : "list";
	return "int";
}

static int python_help(struct pp_az *az)
{
	FILE *fp = az->out.fp;
	struct pp_buf ev = PP_BUF_INIT;

	for (size_t k = 0; k < az->nr_sels; k++)
		pp_buf_addf(&ev, "%s%s", k ? "," : "", az->sels[k].sel->text);
	fprintf(fp, "#!/usr/bin/env -S pp-analyze CAPTURE python -e %s --\n"
		    "# A pp python script: every callback is optional.\n"
		    "# Run it: pp-analyze CAPTURE python -e '%s' this.py [-- args]\n"
		    "# Events are pp.Event objects: event.field, event['field'], event.get(),\n"
		    "# keys()/values()/items(), to_dict(), print(); also 'import pp' from python3:\n"
		    "# for event in pp.open('CAPTURE').events('%s'): ...\n"
		    "import sys\n\n"
		    "def __init__():\n    pass\n\n"
		    "def __exit__():\n    pass\n\n"
		    "def __interval__():\n    # every -i MS of capture time\n    pass\n\n"
		    "def __lost__(start, end):\n    # events were lost between these times (ns)\n    pass\n\n",
		pp_buf_str(&ev), pp_buf_str(&ev), pp_buf_str(&ev));
	for (size_t k = 0; k < az->nr_sels; k++) {
		const struct ana_sel *sel = &az->sels[k];
		const struct ana_evtype *t = sel->type;
		char *name = handler_name(sel);
		bool dup = false;

		for (size_t j = 0; j < k; j++) {
			char *other = handler_name(&az->sels[j]);
			dup |= !strcmp(other, name);
			free(other);
		}
		if (dup) {
			free(name);
			continue;
		}
		if (sel->source)
			fprintf(fp, "# Profiler events: %s (its %s samples)\n"
				    "#   pid tid time cpu period ip addr (int), read (dict: value)%s\n",
				sel->alias, t->name,
				ana_evtype_has_stack(t) ? ", callchain (list of dict)" : "");
		fprintf(fp, "# %s\n#   _pid _tid _time _cpu _period _realtime (int)%s%s\n", t->name,
			t->sys ? "" : " _ip _addr (int)",
			ana_evtype_has_stack(t) ? " _callchain (list of dict)" : "");
		for (size_t i = 0; i < t->nr_fields; i++)
			if (strcmp(t->fields[i].name, "common_type"))
				fprintf(fp, "#   %s (%s)\n", t->fields[i].name, type_hint(&t->fields[i]));
		fprintf(fp, "def %s(event):\n    pass\n\n", name);
		free(name);
	}
	fprintf(fp, "def __sample__(event):\n"
		    "    # events without a handler of their own; event._event names them\n"
		    "    pass\n");
	pp_buf_release(&ev);
	return 0;
}

static int python_init(struct pp_az *az)
{
	struct python_priv *p = az->priv;
	const char *script;
	size_t handled = 0;
	int rc;

	if (az->nr_args < 1) {
		pp_err("python: give a script: pp-analyze FILE python [-e EVENTS] script.py [-- ARGS]"
		       " ('-e EVENTS help' prints a template)");
		return PP_EUSAGE;
	}
	script = az->args[0];
	rc = ana_py_open(az->s, script, az->nr_args, az->args, &p->py);
	if (rc) {
		pp_err("python: cannot load '%s'%s%s", script, rc == PP_ENOTSUP ? ": " : ":\n",
		       p->py ? ana_py_errmsg(p->py) : ana_py_errmsg(NULL));
		return rc == PP_ENOTSUP ? PP_EUSAGE : rc;
	}
	/* perf-prof's line, on stdout before any of the script's output: live only, so that
	 * offline stdout stays the script's own */
	if (ana_is_live(az) && ana_py_file(p->py)) {
		printf("Loaded module: %s\n", ana_py_file(p->py));
		fflush(stdout);
	}
	p->init = ana_py_func(p->py, "__init__");
	p->exit = ana_py_func(p->py, "__exit__");
	p->interval = ana_py_func(p->py, "__interval__");
	p->lost = ana_py_func(p->py, "__lost__");
	p->print_stat = ana_py_func(p->py, "__print_stat__");
	p->sample = ana_py_func(p->py, "__sample__");
	p->sels = pp_xcalloc(az->nr_sels + 1, sizeof(*p->sels));
	for (size_t k = 0; k < az->nr_sels; k++) {
		struct ana_sel *sel = &az->sels[k];
		char *name = handler_name(sel);
		p->sels[k].fn = ana_py_func(p->py, name);
		if (!p->sels[k].fn)
			p->sels[k].fn = p->sample;
		if (p->sels[k].fn) {
			p->sels[k].et = ana_py_evtype(p->py, sel->type,
						      sel->sel && sel->sel->alias ? sel->sel->alias : NULL);
			if (!p->sels[k].et) {	/* not delivered */
				pp_warn("python: the events of %s cannot be made:\n%s", sel->type->name,
					ana_py_errmsg(p->py));
				p->sels[k].fn = NULL;
			} else {
				handled++;
			}
		} else if (az->opt.verbose) {
			pp_warn("python: %s has no handler: define %s(event) or __sample__(event)",
				sel->type->name, name);
		}
		sel->priv = &p->sels[k];
		free(name);
	}
	if (!handled && az->nr_sels)
		pp_warn("python: the script handles none of the selected events: define "
			"__sample__(event) or a handler per event ('pp-analyze FILE python -e ... help')");
	if (p->init)
		outcome(az, ana_py_call(p->py, p->init, 0, NULL), "__init__");
	return 0;
}

static void python_event(struct pp_az *az, const struct pp_event *ev)
{
	struct python_priv *p = az->priv;
	const struct py_sel *ps = ev->sel->priv;

	p->last_ns = ev->time_ns;
	if (!ps || !ps->fn || p->stopped)
		return;
	outcome(az, ana_py_call_event(p->py, ps->fn, ps->et, ev), ev->type->name);
}

static void python_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct python_priv *p = az->priv;
	int64_t args[2] = { (int64_t)p->last_ns, (int64_t)l->time_ns };

	if (p->lost && !p->stopped)
		outcome(az, ana_py_call(p->py, p->lost, 2, args), "__lost__");
}

static void python_interval(struct pp_az *az, uint64_t now_ns)
{
	struct python_priv *p = az->priv;

	if (p->interval && !p->stopped)
		outcome(az, ana_py_call(p->py, p->interval, 0, NULL), "__interval__");
}

/* SIGUSR2: the script's __print_stat__(indent), as perf-prof calls it. */
static void python_print_stat(struct pp_az *az, int indent)
{
	struct python_priv *p = az->priv;
	int64_t arg = indent;

	if (p->print_stat && !p->stopped)
		outcome(az, ana_py_call(p->py, p->print_stat, 1, &arg), "__print_stat__");
}

static int python_finish(struct pp_az *az)
{
	struct python_priv *p = az->priv;

	if (!p->py)
		return 0;
	if (p->exit)
		outcome(az, ana_py_call(p->py, p->exit, 0, NULL), "__exit__");
	if (p->nr_raised)
		fprintf(stderr, "python: %llu exception%s raised by the script\n",
			(unsigned long long)p->nr_raised, p->nr_raised == 1 ? "" : "s");
	return 0;
}

static void python_release(struct pp_az *az)
{
	struct python_priv *p = az->priv;

	fflush(az->out.fp);
	ana_py_close(p->py);
	free(p->sels);
}


const struct pp_analyzer_ops az_python_ops = {
	.summary = "run a Python script on the events (callbacks per event, interval, loss)",
	.usage = "pp-analyze FILE python [-e EVENT[/alias=NAME/]...] [-i MS] [--strict] "
		 "script.py|module|-|help [-- ARGS]",
	.examples =
		"  pp-analyze cap python -e sched:sched_switch help > sw.py   # a template\n"
		"  pp-analyze cap python -e sched:sched_switch sw.py\n"
		"  pp-analyze cap python -e sched:sched_wakeup,sched:sched_switch -i 1000 count.py -- -v\n"
		"  python3 -c 'import pp; print(sum(1 for e in pp.open(\"cap\").events()))'\n",
	.help = python_help,
	.priv_size = sizeof(struct python_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = python_init,
	.event = python_event,
	.lost = python_lost,
	.interval = python_interval,
	.print_stat = python_print_stat,
	.finish = python_finish,
	.release = python_release,
};
