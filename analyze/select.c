/* SPDX-License-Identifier: MIT */
/*
 * select.c - an analyzer's -e selectors matched against the capture's events.
 *
 * Each -e is a position (multi-trace); each item of its comma list is a
 * selector; each selector may match several event types (globs).  A
 * selector that matches nothing is an error that lists what the capture
 * has and how to record the missing event.  Filters are compiled here,
 * once per match, against the stored format of the matched type; cpus=LIST
 * joins the filter as a test of the event's CPU (perf-prof opens such an
 * event on those CPUs only, a capture has it on all).  Attributes of
 * perf-prof's live pipes (push= pull= vm=) and analyzers as event sources
 * are refused here, in one line naming what pp does instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/units.h"

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "";
}

/*
 * A probe selector matches a recorded probe of the same kind (entry or
 * return) on the same function and offset of a binary with the same base
 * name ("libc.so.6" matches "/lib/x86_64-linux-gnu/libc.so.6"), whatever
 * attributes either has.  Captures whose recorded selector cannot be parsed
 * fall back to the event name: the function, "__return" for return probes.
 */
static bool probe_matches(const struct ana_evtype *t, const struct pp_selector *sel)
{
	bool ret = sel->kind == PP_SEL_URETPROBE || sel->kind == PP_SEL_KRETPROBE;
	struct pp_parse_error err = { .pos = -1 };
	struct pp_selector *rec = NULL;
	const char *fn = sel->func ? sel->func : sel->name;
	size_t nr = 0;
	bool ok;

	if ((t->kind != PPF_EV_UPROBE && t->kind != PPF_EV_KPROBE) ||
	    !!(t->desc_flags & PPF_EVF_RETPROBE) != ret)
		return false;
	if (t->selector && !pp_selector_parse(t->selector, &rec, &nr, &err) && nr == 1) {
		const char *rfn = rec->func ? rec->func : rec->name;

		ok = rec->kind == sel->kind && rec->offset == sel->offset &&
		     !strcmp(fn ? fn : "", rfn ? rfn : "") &&
		     !strcmp(base_name(rec->binary), base_name(sel->binary));
		pp_selector_free_array(rec, nr);
		return ok;
	}
	pp_selector_free_array(rec, nr);
	if (!fn || !t->event)
		return false;
	if (!ret)
		return !strcmp(t->event, fn);
	return !strncmp(t->event, fn, strlen(fn)) && !strcmp(t->event + strlen(fn), "__return");
}

bool ana_type_matches(const struct ana_evtype *t, const struct pp_selector *sel)
{
	switch (sel->kind) {
	case PP_SEL_TRACEPOINT:
		return t->sys && pp_glob_match(sel->sys, t->sys) && pp_glob_match(sel->name, t->event);
	case PP_SEL_PLAIN:
		return !t->sys ? pp_glob_match(sel->name, t->name) : false;
	default:
		return probe_matches(t, sel);
	}
}

static void missing_event(struct ana_session *s, const struct pp_az *az, const struct pp_selector *sel)
{
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < s->nr_types; i++) {	/* names from the capture: as fields */
		const char *n = s->type_list[i]->name;
		pp_buf_adds(&b, i ? ", " : "");
		pp_buf_add_quoted(&b, n, strlen(n), PP_QUOTE_FIELD);
	}
	pp_err("%s: event '%s' is not in the capture '%s'", az->name, sel->text, s->path);
	fprintf(stderr, "  the capture has: %s\n", b.len ? pp_buf_str(&b) : "(no events)");
	fprintf(stderr, "  to record it: pp-record -e '%s' ...   (or: pp-record --for '%s ...')\n",
		sel->text, az->name);
	pp_buf_release(&b);
}

/*
 * The filter of a match of @sel: its own and, for cpus=LIST, a test of _cpu
 * with each run of CPUs as one range ("(F)&&(_cpu==0||_cpu>=4&&_cpu<=7)").
 * NULL when there is neither.  CPUs the capture was not recorded on are left
 * out, as perf-prof leaves out CPUs the machine lacks; a list of none of them
 * is an error, as for -C.
 */
static int sel_filter_dup(struct ana_session *s, const struct pp_az *az,
			  const struct pp_selector *sel, char **out)
{
	const char *list = pp_selector_attr(sel, "cpus");
	const char *v = ana_host(s, "nr_cpus_possible");
	unsigned long nr_cpus = v ? strtoul(v, NULL, 10) : 0;
	struct pp_buf b = PP_BUF_INIT;
	int *cpus = NULL;
	size_t nr = 0;

	*out = NULL;
	if (!list) {
		if (sel->filter && *sel->filter)
			*out = pp_xstrdup(sel->filter);
		return 0;
	}
	if (pp_parse_list(list, 0, &cpus, &nr) || !nr) {
		free(cpus);
		pp_err("%s: -e '%s': cpus=%s is not a CPU list", az->name, sel->text, list);
		return PP_ESYNTAX;
	}
	/* as perf-prof: the list meets the CPUs there are; none of them is an error */
	while (nr_cpus && nr && (unsigned long)cpus[nr - 1] >= nr_cpus)
		nr--;
	if (!nr) {
		pp_err("%s: -e '%s': cpus=%s: the capture was recorded on %lu CPUs (0-%lu)",
		       az->name, sel->text, list, nr_cpus, nr_cpus - 1);
		free(cpus);
		return PP_EUSAGE;
	}
	if (sel->filter && *sel->filter)
		pp_buf_addf(&b, "(%s)&&(", sel->filter);
	for (size_t i = 0, j; i < nr; i = j) {
		for (j = i + 1; j < nr && cpus[j] == cpus[j - 1] + 1; j++)
			;
		if (j - i == 1)
			pp_buf_addf(&b, "%s_cpu==%d", i ? "||" : "", cpus[i]);
		else
			pp_buf_addf(&b, "%s_cpu>=%d&&_cpu<=%d", i ? "||" : "", cpus[i],
				    cpus[j - 1]);
	}
	if (sel->filter && *sel->filter)
		pp_buf_adds(&b, ")");
	free(cpus);
	*out = pp_buf_detach(&b);
	return 0;
}

static struct ana_sel *sel_push(struct pp_az *az);

/*
 * An analyzer named as an event (-e 'profile/-F 99/', 'task-state'): perf-prof
 * opens that analyzer and forwards its events.  Here its plan (built from the
 * options between the slashes, as pp-record built it) names the events it
 * records, and each of the capture's events they match is a match of @sel: the
 * outer selector keeps its attributes (untraced, key= ...), the inner one gives
 * the filter.  Return: 0 with *@any set when something matched, 1 when @sel is
 * no analyzer, or an error (printed).
 */
static int source_matches(struct ana_session *s, struct pp_az *az, const struct pp_selector *sel,
			  unsigned pos, bool *any)
{
	/* no registry (the pp module): an analyzer is no event there */
	const struct pp_analyzer *an = s->registry && sel->kind == PP_SEL_PLAIN ?
				       s->registry->find(sel->name) : NULL;
	struct pp_plan p = { 0 };
	char **argv = NULL, err[512] = "";
	int argc = 0, rc;

	if (!an)
		return 1;
	if (pp_argv_split(sel->options ? sel->options : "", &argv, &argc)) {
		pp_err("%s: -e '%s': unbalanced quotes", az->name, sel->text);
		return PP_ESYNTAX;
	}
	const char **args = pp_xcalloc((size_t)argc + 1, sizeof(*args));

	memcpy(args, argv, (size_t)argc * sizeof(*args));
	rc = pp_plan_build(an->name, an->plan, argc, args, &p, err, sizeof(err));
	free(args);
	if (rc) {
		pp_err("%s: -e '%s': %s", az->name, sel->text,
		       rc == PP_OPT_HELP ? "help is not an event source" : err);
		pp_argv_free(argv);
		pp_plan_release(&p);
		return rc == PP_OPT_HELP ? PP_EUSAGE : rc;
	}
	pp_argv_free(argv);
	for (size_t i = 0; i < p.nr_events && !rc; i++) {
		struct pp_selector *inner = NULL;
		size_t nr = 0;
		struct pp_parse_error perr = { .pos = -1 };

		if (pp_selector_parse(p.events[i], &inner, &nr, &perr))
			continue;	/* the plan's own text: pp-record took it */
		for (size_t k = 0; k < nr && !rc; k++) {
			char *filter = NULL;

			rc = sel_filter_dup(s, az, &inner[k], &filter);
			for (size_t t = 0; t < s->nr_types && !rc; t++) {
				const struct ana_evtype *ty = s->type_list[t];
				if (!ana_type_matches(ty, &inner[k]))
					continue;
				*any = true;
				struct ana_sel *m = sel_push(az);
				m->type = ty;
				m->sel = sel;
				m->pos = pos;
				/* named after its analyzer, as perf-prof names a source's events */
				m->alias = sel->alias ? sel->alias : sel->name;
				m->source = true;
				if (filter)
					rc = ana_filter_compile(ty, filter, &m->filter);
			}
			free(filter);
		}
		pp_selector_free_array(inner, nr);
	}
	pp_plan_release(&p);
	return rc;
}

/*
 * An analyzer named as an event where no registry is linked: one line naming
 * pp's way.  Return: true when @sel names an analyzer.
 */
static bool analyzer_source(const struct pp_az *az, const struct pp_selector *sel)
{
	/* the names alone: the python module links this file without the registry */
	static const char *const analyzers[] = {
#define PP_ANALYZER(n, name, plan, caps) name,
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
	};
	bool found = false;

	for (size_t i = 0; i < PP_ARRAY_SIZE(analyzers) && sel->kind == PP_SEL_PLAIN; i++)
		found |= !strcmp(analyzers[i], sel->name);
	if (!found)
		return false;
	pp_err("%s: -e '%s': '%s' is an analyzer, not an event: pp has no analyzer sources; "
	       "record for it with pp-record --for '%s ...' and name its events here "
	       "(pp-analyze FILE list)", az->name, sel->text, sel->name, sel->name);
	return true;
}

static struct ana_sel *sel_push(struct pp_az *az)
{
	az->sels = pp_xrealloc(az->sels, (az->nr_sels + 1) * sizeof(*az->sels));
	memset(&az->sels[az->nr_sels], 0, sizeof(az->sels[0]));
	az->sels[az->nr_sels].index = (unsigned)az->nr_sels;
	return &az->sels[az->nr_sels++];
}

/*
 * PP_AZ_ALL_EVENTS without -e: one match per event type of the capture,
 * each with a selector parsed from the type's name (so sel->sel is never
 * NULL for the analyzer).
 */
static int select_all(struct pp_az *az)
{
	struct ana_session *s = az->s;
	struct ana_sel_store *store = pp_xcalloc(s->nr_types + 1, sizeof(*store));

	az->sel_store = store;
	az->nr_sel_store = s->nr_types;
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *t = s->type_list[i];
		struct pp_parse_error err = { .pos = -1 };
		if (pp_selector_parse(t->name, &store[i].v, &store[i].nr, &err) &&
		    pp_selector_parse("all", &store[i].v, &store[i].nr, &err))
			return PP_ESYNTAX;
		struct ana_sel *m = sel_push(az);
		m->type = t;
		m->sel = &store[i].v[0];
		m->pos = 0;
		m->alias = t->event ? t->event : t->name;
	}
	return 0;
}

int ana_az_select(struct pp_az *az)
{
	struct ana_session *s = az->s;
	const struct pp_strlist *ev = &az->opt.events;
	struct ana_sel_store *store;
	int rc = 0;

	pp_common_opts_note(az->name, &az->opt, PP_NOTE_ANALYZE);
	if (!ev->nr && (az->ops->flags & PP_AZ_ALL_EVENTS))
		return select_all(az);
	store = pp_xcalloc(ev->nr + 1, sizeof(*store));

	az->sel_store = store;
	az->nr_sel_store = ev->nr;
	if ((!ev->nr || (az->ops->flags & PP_AZ_EXTRA_EVENTS)) &&
	    (az->ops->set_events || az->ops->builtin_events)) {
		/* built-in events: the analyzer's own, or computed from its options */
		if (az->ops->set_events) {
			rc = az->ops->set_events(az, &az->opt.events);
			if (rc)
				return rc;
		} else {
			for (const char *const *e = az->ops->builtin_events; *e; e++)
				pp_strlist_push(&az->opt.events, *e);
		}
		store = pp_xrealloc(store, (ev->nr + 1) * sizeof(*store));
		memset(store, 0, (ev->nr + 1) * sizeof(*store));
		az->sel_store = store;
		az->nr_sel_store = ev->nr;
	}
	for (size_t pos = 0; pos < ev->nr; pos++) {
		struct pp_parse_error err = { .pos = -1 };
		rc = pp_selector_parse(ev->v[pos], &store[pos].v, &store[pos].nr, &err);
		if (rc) {
			pp_parse_error_print("-e", ev->v[pos], &err);
			return rc;
		}
		for (size_t k = 0; k < store[pos].nr; k++) {
			const struct pp_selector *sel = &store[pos].v[k];
			const char *why = pp_selector_unsupported(sel);
			char *filter = NULL;
			bool any = false;

			if (why) {	/* perf-prof's pipes between instances: push= pull= vm= */
				pp_err("%s: -e '%s': %s", az->name, sel->text, why);
				return PP_ENOTSUP;
			}
			/* an analyzer as an event source: its events ('page-faults' is both) */
			if (sel->kind == PP_SEL_PLAIN && (sel->options || !ana_evtype_find(s, sel->name))) {
				rc = source_matches(s, az, sel, (unsigned)pos, &any);
				if (rc <= 0) {
					if (rc)
						return rc;
					if (!any) {
						missing_event(s, az, sel);
						return PP_EUNKNOWN_EVENT;
					}
					continue;
				}
			}
			rc = sel_filter_dup(s, az, sel, &filter);
			if (rc)
				return rc;
			for (size_t i = 0; i < s->nr_types; i++) {
				const struct ana_evtype *t = s->type_list[i];
				if (!ana_type_matches(t, sel))
					continue;
				any = true;
				struct ana_sel *m = sel_push(az);
				m->type = t;
				m->sel = sel;
				m->pos = (unsigned)pos;
				m->alias = sel->alias ? sel->alias : t->event ? t->event : t->name;
				if (pp_selector_attr(sel, "cpus") &&
				    pp_parse_list(pp_selector_attr(sel, "cpus"), 0, &m->cpus,
						  &m->nr_cpus)) {
					free(m->cpus);
					m->cpus = NULL;
					m->nr_cpus = 0;
				}
				if (filter) {
					rc = ana_filter_compile(t, filter, &m->filter);
					if (rc) {
						free(filter);
						return rc;
					}
				}
			}
			free(filter);
			if (!any && analyzer_source(az, sel))
				return PP_ENOTSUP;
			if (!any) {
				missing_event(s, az, sel);
				return PP_EUNKNOWN_EVENT;
			}
		}
	}
	return 0;
}

void ana_az_release_sels(struct pp_az *az)
{
	struct ana_sel_store *store = az->sel_store;

	for (size_t i = 0; i < az->nr_sels; i++) {
		pp_expr_free(az->sels[i].filter);
		free(az->sels[i].cpus);
	}
	free(az->sels);
	az->sels = NULL;
	az->nr_sels = 0;
	for (size_t i = 0; store && i < az->nr_sel_store; i++)
		pp_selector_free_array(store[i].v, store[i].nr);
	free(store);
	az->sel_store = NULL;
}
