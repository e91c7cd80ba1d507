/* SPDX-License-Identifier: MIT */
/*
 * select.c - an analyzer's -e selectors matched against the capture's events.
 *
 * Each -e is a position (multi-trace); each item of its comma list is a
 * selector; each selector may match several event types (globs).  A
 * selector that matches nothing is an error that lists what the capture
 * has and how to record the missing event.  Filters are compiled here,
 * once per match, against the stored format of the matched type.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

static bool type_matches(const struct ana_evtype *t, const struct pp_selector *sel)
{
	switch (sel->kind) {
	case PP_SEL_TRACEPOINT:
		return t->sys && pp_glob_match(sel->sys, t->sys) && pp_glob_match(sel->name, t->event);
	case PP_SEL_PLAIN:
		return !t->sys ? pp_glob_match(sel->name, t->name) : false;
	default:
		/* probes: the recorded selector, or an event named after the function */
		if (t->selector && !strncmp(t->selector, sel->text, strlen(sel->text)))
			return true;
		return (sel->func || sel->name) && t->event &&
		       !strcmp(t->event, sel->func ? sel->func : sel->name) &&
		       (t->kind == 4 || t->kind == 5);
	}
}

static void missing_event(struct ana_session *s, const struct pp_az *az, const struct pp_selector *sel)
{
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < s->nr_types; i++)
		pp_buf_addf(&b, "%s%s", i ? ", " : "", s->type_list[i]->name);
	pp_err("%s: event '%s' is not in the capture '%s'", az->ops->name, sel->text, s->path);
	fprintf(stderr, "  the capture has: %s\n", b.len ? pp_buf_str(&b) : "(no events)");
	fprintf(stderr, "  to record it: pp-record -e '%s' ...   (or: pp-record --for '%s ...')\n",
		sel->text, az->ops->name);
	pp_buf_release(&b);
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

	if (!ev->nr && (az->ops->flags & PP_AZ_ALL_EVENTS))
		return select_all(az);
	store = pp_xcalloc(ev->nr + 1, sizeof(*store));

	az->sel_store = store;
	az->nr_sel_store = ev->nr;
	if (!ev->nr && (az->ops->set_events || az->ops->builtin_events)) {
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
			bool any = false;
			for (size_t i = 0; i < s->nr_types; i++) {
				const struct ana_evtype *t = s->type_list[i];
				if (!type_matches(t, sel))
					continue;
				any = true;
				struct ana_sel *m = sel_push(az);
				m->type = t;
				m->sel = sel;
				m->pos = (unsigned)pos;
				m->alias = sel->alias ? sel->alias : t->event ? t->event : t->name;
				if (sel->filter && *sel->filter) {
					rc = ana_filter_compile(t, sel->filter, &m->filter);
					if (rc)
						return rc;
				}
			}
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

	for (size_t i = 0; i < az->nr_sels; i++)
		pp_expr_free(az->sels[i].filter);
	free(az->sels);
	az->sels = NULL;
	az->nr_sels = 0;
	for (size_t i = 0; store && i < az->nr_sel_store; i++)
		pp_selector_free_array(store[i].v, store[i].nr);
	free(store);
	az->sel_store = NULL;
}
