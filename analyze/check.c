/* SPDX-License-Identifier: MIT */
/*
 * check.c - what a capture gives an analyzer: the needs its plan declares, checked
 * against what the capture says of its recording.
 *
 * The plan of an instance (analyzers/<name>-plan.c, built from its parsed options) is
 * what `pp-record --for` would record for it; it is the one declaration of an
 * analyzer's needs.  Each of its selectors must name an event type of the capture,
 * recorded with no narrower filter and, with -g or `stack`, with call stacks; all_cpus
 * wants pp-record's record.target "system" (a per-task recording keeps only what the
 * followed tasks emit: a sched_switch into them is emitted by the task that leaves)
 * over every online CPU.  A scan adds the span against --time and --duration, LOST
 * records and damage.  A capture that does not say (record.target is newer than the
 * format) leaves the need unknown, never unmet: the warning must not cry wolf.
 * Not here: printing the verdicts (cmd-check.c), the machine's side (`pp check`).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/check.h"
#include "analyze/internal.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/plan.h"
#include "common/selector.h"
#include "common/units.h"

static const char *const need_names[ANA_NR_NEEDS] = {
	[ANA_NEED_EVENTS] = "events", [ANA_NEED_FILTERS] = "filters",
	[ANA_NEED_STACKS] = "stacks", [ANA_NEED_SCOPE] = "scope",
	[ANA_NEED_CPUS] = "cpus", [ANA_NEED_TIME] = "time",
	[ANA_NEED_LOSSES] = "losses", [ANA_NEED_DAMAGE] = "damage",
};

const char *ana_need_name(enum ana_need_kind k)
{
	return k < ANA_NR_NEEDS ? need_names[k] : "?";
}

const char *ana_need_state_name(enum ana_need_state st)
{
	switch (st) {
	case ANA_NEED_MET: return "ok";
	case ANA_NEED_UNMET: return "no";
	case ANA_NEED_NONE: return "n/a";
	default: return "unknown";
	}
}

static void need_set(struct ana_check *c, enum ana_need_kind k, enum ana_need_state st,
		     const char *fmt, ...) PP_PRINTF(4, 5);
static void need_set(struct ana_check *c, enum ana_need_kind k, enum ana_need_state st,
		     const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	free(c->need[k].detail);
	c->need[k].state = st;
	c->need[k].detail = pp_xstrdup(line);
}

/* The sampling clocks stand for each other: a plan picks cycles where the analysing
 * machine has a PMU, pp-record picked by the recording machine's. */
static bool is_clock(const char *name)
{
	return !strcmp(name, "cycles") || !strcmp(name, "cpu-cycles") || !strcmp(name, "cpu-clock");
}

/* What the plan's selectors found in the capture, in three lists of names. */
struct ev_scan {
	struct pp_buf found, missing, narrowed, nostack;
	size_t nr_found;
	bool stacks;			/* some selector asks for call stacks */
};

static void list_add(struct pp_buf *b, const char *what)
{
	if (strstr(pp_buf_str(b), what))
		return;	/* a name once (rundelay names sched_switch twice) */
	pp_buf_addf(b, "%s%s", b->len ? ", " : "", what);
}

/* One selector of the plan against the capture's types. */
static void scan_selector(struct ana_session *s, const struct pp_selector *sel, bool stacks,
			  struct ev_scan *e)
{
	bool any = false;

	e->stacks |= stacks;
	for (int pass = 0; pass < 2 && !any; pass++) {
		for (size_t t = 0; t < s->nr_types; t++) {
			const struct ana_evtype *ty = s->type_list[t];

			if (pass ? !(sel->kind == PP_SEL_PLAIN && is_clock(sel->name) &&
				     is_clock(ty->name))
				 : !ana_type_matches(ty, sel))
				continue;
			any = true;
			list_add(&e->found, ty->name);
			/* a recorded filter keeps what the analyzer asks only when it is its own */
			if (ty->filter && *ty->filter &&
			    (!sel->filter || strcmp(sel->filter, ty->filter)))
				list_add(&e->narrowed, ty->name);
			if (stacks && !(ty->desc_flags & PPF_EVF_STACK))
				list_add(&e->nostack, ty->name);
		}
	}
	if (any)
		e->nr_found++;
	else
		list_add(&e->missing, sel->text);
}

/* @text: a plan's event or counter (a leading '?': optional, skipped when absent). */
static void scan_plan_event(struct ana_session *s, const char *text, bool stacks,
			    struct ev_scan *e)
{
	struct pp_selector *v = NULL;
	struct pp_parse_error perr = { .pos = -1 };
	bool optional = *text == '?';
	size_t nr = 0;

	if (pp_selector_parse(text + optional, &v, &nr, &perr))
		return;	/* the plan's own text: pp-record took it */
	for (size_t i = 0; i < nr; i++) {
		const struct pp_selector *sel = &v[i];

		if (sel->kind == PP_SEL_PLAIN && sel->options && s->registry &&
		    s->registry->find(sel->name))
			continue;	/* an analyzer as an event source: select.c's */
		if (optional) {
			struct ev_scan tmp = { 0 };

			scan_selector(s, sel, false, &tmp);
			if (tmp.nr_found)
				scan_selector(s, sel, stacks || sel->stack, e);
			pp_buf_release(&tmp.found);
			pp_buf_release(&tmp.missing);
			pp_buf_release(&tmp.narrowed);
			pp_buf_release(&tmp.nostack);
			continue;
		}
		scan_selector(s, sel, stacks || sel->stack, e);
	}
	pp_selector_free_array(v, nr);
}

static void check_events(struct ana_session *s, const struct pp_plan *p, struct ana_check *c)
{
	struct ev_scan e = { 0 };

	for (size_t i = 0; i < p->nr_events; i++)
		scan_plan_event(s, p->events[i], p->callchain, &e);
	for (size_t i = 0; i < p->nr_counters; i++)
		scan_plan_event(s, p->counters[i], false, &e);
	c->no_events = !e.nr_found;
	if (e.missing.len)
		need_set(c, ANA_NEED_EVENTS, ANA_NEED_UNMET, "not in this capture: %s",
			 pp_buf_str(&e.missing));
	else
		need_set(c, ANA_NEED_EVENTS, ANA_NEED_MET, "%s", pp_buf_str(&e.found));
	if (e.narrowed.len)
		need_set(c, ANA_NEED_FILTERS, ANA_NEED_UNMET,
			 "recorded with a filter that keeps fewer events than asked: %s",
			 pp_buf_str(&e.narrowed));
	else
		need_set(c, ANA_NEED_FILTERS, ANA_NEED_MET, "none narrower than asked");
	if (!e.stacks)
		need_set(c, ANA_NEED_STACKS, ANA_NEED_NONE, "not asked (-g)");
	else if (!e.found.len)
		need_set(c, ANA_NEED_STACKS, ANA_NEED_UNMET, "asked, and none of its events recorded");
	else if (e.nostack.len)
		need_set(c, ANA_NEED_STACKS, ANA_NEED_UNMET, "no call stacks recorded for %s",
			 pp_buf_str(&e.nostack));
	else
		need_set(c, ANA_NEED_STACKS, ANA_NEED_MET, "recorded");
	pp_buf_release(&e.found);
	pp_buf_release(&e.missing);
	pp_buf_release(&e.narrowed);
	pp_buf_release(&e.nostack);
}

/* The CPUs of a list key ("0-3\n"), or false when absent or unreadable. */
static bool key_cpus(struct ana_session *s, const char *key, int **v, size_t *nr)
{
	const char *text = ana_host(s, key);
	char *t;
	bool ok;

	if (!text)
		return false;
	t = pp_xstrdup(text);
	t[strcspn(t, "\n")] = '\0';
	ok = !pp_parse_list(t, 65536, v, nr);
	free(t);
	return ok;
}

static void check_cpus(struct ana_session *s, const struct pp_plan *p, struct ana_check *c)
{
	int *want = NULL, *have = NULL;
	size_t nr_want = 0, nr_have = 0;
	struct pp_buf miss = PP_BUF_INIT;

	if (!key_cpus(s, "record.cpus", &have, &nr_have) ||
	    !(p->cpus ? !pp_parse_list(p->cpus, 65536, &want, &nr_want)
		      : key_cpus(s, "cpus_online", &want, &nr_want))) {
		need_set(c, ANA_NEED_CPUS, ANA_NEED_UNKNOWN, "the capture does not list its CPUs");
		goto out;
	}
	for (size_t i = 0; i < nr_want; i++) {
		bool in = false;

		for (size_t k = 0; k < nr_have && !in; k++)
			in = have[k] == want[i];
		if (!in)
			pp_buf_addf(&miss, "%s%d", miss.len ? "," : "", want[i]);
	}
	if (miss.len) {
		bool many = strchr(pp_buf_str(&miss), ',') != NULL;

		need_set(c, ANA_NEED_CPUS, ANA_NEED_UNMET, "CPU%s %s %s not recorded (pp-record -C)",
			 many ? "s" : "", pp_buf_str(&miss), many ? "were" : "was");
	}
	else
		need_set(c, ANA_NEED_CPUS, ANA_NEED_MET, "%s", p->cpus ? "those of -C" : "every online CPU");
out:
	free(want);
	free(have);
	pp_buf_release(&miss);
}

static void check_scope(struct ana_session *s, const struct pp_az *az, const struct pp_plan *p,
			struct ana_check *c)
{
	const char *target = ana_host(s, "record.target");
	const char *how = NULL;

	if (!p->all_cpus) {
		need_set(c, ANA_NEED_SCOPE, ANA_NEED_NONE, "the followed tasks' own events suffice");
		need_set(c, ANA_NEED_CPUS, ANA_NEED_NONE, "any");
		return;
	}
	if (!target) {
		need_set(c, ANA_NEED_SCOPE, ANA_NEED_UNKNOWN,
			 "the capture does not say whether it recorded CPUs or tasks");
	} else if (!strcmp(target, "system")) {
		need_set(c, ANA_NEED_SCOPE, ANA_NEED_MET, "recorded system-wide");
		check_cpus(s, p, c);
		return;
	} else if (!strcmp(target, "workload")) {
		how = "the tasks of its COMMAND";
	} else if (!strcmp(target, "threads")) {
		how = "the tasks of -p/-t";
	} else if (!strcmp(target, "cgroup")) {
		how = "the tasks of --cgroups";
	} else {
		need_set(c, ANA_NEED_SCOPE, ANA_NEED_UNKNOWN, "record.target '%s' is not known here",
			 target);
	}
	if (how)
		need_set(c, ANA_NEED_SCOPE, ANA_NEED_UNMET,
			 "%s are not in this capture: it followed %s, not every CPU",
			 p->all_cpus_why ? p->all_cpus_why : "the other tasks' events", how);
	(void)az;
	need_set(c, ANA_NEED_CPUS, ANA_NEED_UNKNOWN, "per task");
}

/* "pp-record --for 'NAME ARGS' ...", the instance's words quoted for a shell. */
static char *record_line(int argc, const char *const *argv)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_adds(&b, "pp-record --for '");
	for (int i = 0; i < argc; i++) {
		bool q = strpbrk(argv[i], " \t\"'|&;<>()$`\\*?") != NULL;

		if (i)
			pp_buf_addch(&b, ' ');
		if (q)
			pp_buf_addch(&b, '"');
		for (const char *p = argv[i]; *p; p++) {
			if (*p == '\'')
				pp_buf_adds(&b, "'\\''");
			else if (q && (*p == '"' || *p == '\\' || *p == '$' || *p == '`'))
				pp_buf_addf(&b, "\\%c", *p);
			else
				pp_buf_addch(&b, *p);
		}
		if (q)
			pp_buf_addch(&b, '"');
	}
	pp_buf_adds(&b, "' ...");
	return pp_buf_detach(&b);
}

int ana_check_meta(struct ana_session *s, struct pp_az *az, int argc, const char *const *argv,
		   struct ana_check *c, char *err, size_t errsz)
{
	struct pp_plan p = { 0 };
	struct pp_plan_args a = { az->opts, &az->opt, az->nr_args, az->args };
	int rc = pp_plan_fill(az->plan, &a, &p, err, errsz);

	if (!rc && !p.nr_events && !p.nr_counters) {
		/* list, event-care, trace without -e: whatever the capture holds */
		need_set(c, ANA_NEED_EVENTS, ANA_NEED_NONE, "none named: the capture's as they are");
		need_set(c, ANA_NEED_FILTERS, ANA_NEED_NONE, "none named");
		need_set(c, ANA_NEED_STACKS, ANA_NEED_NONE, "none named");
		check_scope(s, az, &p, c);
		c->record = record_line(argc, argv);
	} else if (!rc) {
		check_events(s, &p, c);
		check_scope(s, az, &p, c);
		c->record = record_line(argc, argv);
	}
	pp_plan_release(&p);
	return rc;
}

static void check_time(struct ana_session *s, const struct pp_az *az,
		       const struct ana_check_scan *sc, struct ana_check *c)
{
	const char *asked = ana_host(s, "record.duration_ns");
	const char *target = ana_host(s, "record.target");
	uint64_t dur = asked ? strtoull(asked, NULL, 10) : 0, start = 0, end = 0;
	char a[64], b[64], f[32], l[32];
	int rc = az->opt.time_range ? ana_time_range_parse(az->opt.time_range, sc->first_ns,
							    &start, &end) : 0;

	if (rc) {
		need_set(c, ANA_NEED_TIME, ANA_NEED_UNKNOWN, "--time '%s' is not a range",
			 az->opt.time_range);
		return;
	}
	if (sc->first_ns && ((start && start < sc->first_ns) || (end && end > sc->last_ns))) {
		need_set(c, ANA_NEED_TIME, ANA_NEED_UNMET,
			 "--time asks %s..%s, the capture's events cover %s..%s",
			 ana_ts_str(start ? start : sc->first_ns, a, sizeof(a)),
			 end ? ana_ts_str(end, b, sizeof(b)) : "its end",
			 ana_ts_str(sc->first_ns, f, sizeof(f)), ana_ts_str(sc->last_ns, l, sizeof(l)));
		return;
	}
	/* a COMMAND's end stops a recording before --duration: that is no early stop */
	if (dur && sc->duration_ns && sc->duration_ns < dur - dur / 20 &&
	    !(target && !strcmp(target, "workload"))) {
		need_set(c, ANA_NEED_TIME, ANA_NEED_UNMET,
			 "recorded for %s of the %s --duration asked (stopped early)",
			 pp_format_ns(sc->duration_ns, a, sizeof(a)), pp_format_ns(dur, b, sizeof(b)));
		return;
	}
	if (!sc->first_ns)
		need_set(c, ANA_NEED_TIME, ANA_NEED_UNKNOWN, "no events");
	else
		need_set(c, ANA_NEED_TIME, ANA_NEED_MET, "%s of events%s",
			 pp_format_ns(sc->last_ns - sc->first_ns, a, sizeof(a)),
			 az->opt.time_range ? ", --time inside them" : "");
}

void ana_check_scanned(struct ana_session *s, const struct pp_az *az,
		       const struct ana_check_scan *sc, struct ana_check *c)
{
	const struct ppf_read_stats *st = ppf_reader_stats(s->r);
	struct pp_buf where = PP_BUF_INIT;

	check_time(s, az, sc, c);
	for (size_t i = 0; i < s->nr_lost_cpus && where.len < 200; i++)
		pp_buf_addf(&where, " cpu%u=%llu", s->lost_cpus[i].cpu,
			    (unsigned long long)s->lost_cpus[i].count);
	if (s->lost_total)
		need_set(c, ANA_NEED_LOSSES, ANA_NEED_UNMET,
			 "%llu%s events lost:%s (a larger -m, or fewer events)",
			 (unsigned long long)s->lost_total, s->lost_saturated ? " or more" : "",
			 pp_buf_str(&where));
	else
		need_set(c, ANA_NEED_LOSSES, ANA_NEED_MET, "none lost");
	if (st->truncated || st->nr_corrupt)
		need_set(c, ANA_NEED_DAMAGE, ANA_NEED_UNMET,
			 "%s%s%llu corrupt segments skipped (%llu records lost)",
			 st->truncated ? "the file is cut" : "", st->truncated ? ", " : "",
			 (unsigned long long)st->nr_corrupt, (unsigned long long)st->records_lost);
	else
		need_set(c, ANA_NEED_DAMAGE, ANA_NEED_MET, "the file is whole");
	pp_buf_release(&where);
}

bool ana_check_complete(const struct ana_check *c)
{
	for (size_t k = 0; k < ANA_NR_NEEDS; k++)
		if (c->need[k].state == ANA_NEED_UNMET)
			return false;
	return true;
}

/*
 * The needs a warning tells, in the order of its choice: what changes most of an answer
 * first.  Events some of which are absent are check's alone: an analyzer uses some only
 * when present (task-state's sched_wakeup_new), and one none of whose events is there
 * stops with its own error.
 */
static const enum ana_need_kind warn_order[] = {
	ANA_NEED_SCOPE, ANA_NEED_FILTERS, ANA_NEED_STACKS, ANA_NEED_CPUS,
};

char *ana_check_warning_dup(struct ana_session *s, struct pp_az *az, int argc,
			    const char *const *argv)
{
	struct ana_check c = { 0 };
	const struct ana_need *first = NULL;
	size_t more = 0;
	char err[512], *line = NULL;

	/* its init says what is wrong with its options, its selection that no event is there */
	if (ana_check_meta(s, az, argc, argv, &c, err, sizeof(err)) || c.no_events)
		goto out;
	for (size_t i = 0; i < PP_ARRAY_SIZE(warn_order); i++) {
		const struct ana_need *n = &c.need[warn_order[i]];

		if (n->state != ANA_NEED_UNMET)
			continue;
		if (first)
			more++;
		else
			first = n;
	}
	if (first && more)
		line = pp_xasprintf("%s: incomplete answer: %s; %s records what it needs (%zu more: "
				    "pp-analyze %s check %s)", az->name, first->detail, c.record,
				    more, s->path, az->name);
	else if (first)
		line = pp_xasprintf("%s: incomplete answer: %s; %s records what it needs", az->name,
				    first->detail, c.record);
out:
	ana_check_release(&c);
	return line;
}

void ana_check_release(struct ana_check *c)
{
	for (size_t k = 0; k < ANA_NR_NEEDS; k++)
		free(c->need[k].detail);
	free(c->record);
	memset(c, 0, sizeof(*c));
}
