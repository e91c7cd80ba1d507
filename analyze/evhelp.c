/* SPDX-License-Identifier: MIT */
/*
 * evhelp.c - the positional `help`: `pp-analyze FILE ANALYZER -e EVENTS help` (perf-prof's help).
 *
 * For any analyzer: the format text the capture stored for each selected
 * event (what fields an expression or filter can use), then a command line
 * template with what was given filled in and the rest in [brackets], '.'
 * standing for a value to choose.  The analyzer only contributes the
 * attributes worth offering (ops->help_attrs).  Nothing is replayed.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/log.h"

/* One selector of the template: sys:name/filter/given attrs/[offered attrs] */
static void template_event(struct pp_buf *b, const struct pp_az *az, const struct pp_selector *sel)
{
	const char *offer = az->ops->help_attrs ? az->ops->help_attrs : "stack/";

	if (sel->kind == PP_SEL_TRACEPOINT)
		pp_buf_addf(b, "%s:%s", sel->sys, sel->name);
	else
		pp_buf_adds(b, sel->name ? sel->name : sel->text);
	pp_buf_addf(b, "/%s/", sel->filter && *sel->filter ? sel->filter : ".");
	for (size_t i = 0; i < sel->nr_attrs; i++) {
		const struct pp_sel_attr *a = &sel->attrs[i];
		pp_buf_addf(b, a->value ? "%s=%s/" : "%s/", a->name, a->value ? a->value : "");
	}
	/* offer what was not given */
	struct pp_buf missing = PP_BUF_INIT;
	for (const char *p = offer; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		char *eq = strchr(name, '=');
		if (eq)
			*eq = '\0';
		if (!pp_selector_attr(sel, name) && !(sel->stack && !strcmp(name, "stack")))
			pp_buf_addf(&missing, "%.*s/", (int)len, p);
		p += len + (slash ? 1 : 0);
	}
	if (missing.len)
		pp_buf_addf(b, "[%s]", pp_buf_str(&missing));
	pp_buf_release(&missing);
}

static void template_print(struct ana_session *s, const struct pp_az *az)
{
	const struct ana_sel_store *store = az->sel_store;
	struct pp_buf b = PP_BUF_INIT;
	const struct pp_option *own = az->plan->options;

	if (!strcmp(s->path, "-"))	/* live: `pp ANALYZER ... help` */
		pp_buf_addf(&b, "pp %s", az->name);
	else
		pp_buf_addf(&b, "pp-analyze %s %s", s->path, az->name);
	const char *const *sel_opts = az->plan->sel_opts;
	size_t nr_sel_opts = 0;

	while (sel_opts && sel_opts[nr_sel_opts])
		nr_sel_opts++;
	for (size_t pos = 0; store && pos < az->nr_sel_store; pos++) {
		if (pos < nr_sel_opts)
			pp_buf_addf(&b, " --%s \"", sel_opts[pos]);
		else
			pp_buf_adds(&b, " -e \"");
		for (size_t k = 0; k < store[pos].nr; k++) {
			if (k)
				pp_buf_addch(&b, ',');
			template_event(&b, az, &store[pos].v[k]);
		}
		pp_buf_addch(&b, '"');
	}
	for (size_t i = 0; i < (size_t)az->nr_args; i++)
		pp_buf_addf(&b, " '%s'", az->args[i]);
	for (size_t i = 0; own && own[i].type != PP_OPT_T_END; i++) {
		const struct pp_option *o = &own[i];
		bool given = false;

		if (o->type == PP_OPT_T_GROUP || !o->long_name || (o->flags & PP_OPT_HIDDEN))
			continue;
		for (size_t k = 0; k < nr_sel_opts && k < az->nr_sel_store; k++)
			given |= !strcmp(sel_opts[k], o->long_name);
		if (given)
			continue;
		pp_buf_addf(&b, o->type == PP_OPT_T_BOOL || o->type == PP_OPT_T_COUNT
				? " [--%s]" : " [--%s .]", o->long_name);
	}
	pp_buf_adds(&b, " [-C .] [-p .] [-t .] [-i .] [--time .] [--format .] [-o .]");
	fprintf(az->out.fp, "%s\n", pp_buf_str(&b));	/* the net: names from the capture */
	pp_buf_release(&b);
}

int ana_event_help(struct ana_session *s, struct pp_az *az)
{
	FILE *fp = az->out.fp;
	int rc = ana_az_select(az);

	if (rc)
		return rc;
	if (az->ops->help)
		return az->ops->help(az);
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_evtype *t = az->sels[i].type;
		const char *fmt = ana_evtype_format(t);
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= az->sels[k].type == t;
		if (dup)
			continue;
		/* through the analyzer's output, the net: the format text is the capture's */
		fprintf(fp, "# %s, recorded as '%s'%s%s\n", t->name, t->selector,
			t->filter && *t->filter ? " with filter " : "", t->filter ? t->filter : "");
		if (*fmt)
			fputs(fmt, fp);
		else
			fprintf(fp, "(no format: not a tracepoint; samples have time, cpu, pid, tid, "
				"period%s)\n", t->desc_flags & PPF_EVF_STACK ? ", stack" : "");
		fputc('\n', fp);
	}
	template_print(s, az);
	return 0;
}
