/* SPDX-License-Identifier: MIT */
/*
 * evtype.c - event types of a capture: parsed from the stored descriptions.
 *
 * A tracepoint's format text comes from the capture, never from the local
 * tracefs, and is parsed with libtraceevent; its fields are also described
 * as struct pp_field for the expression engine.  A format libtraceevent
 * cannot parse leaves the type usable without fields (a warning says so).
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"
#include "common/expr.h"
#include "common/log.h"

void ana_evtype_free(struct ana_evtype *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_fields; i++)
		free((char *)t->fields[i].name);
	free(t->fields);
	free(t->name);
	free(t->sys);
	free(t->event);
	free(t->selector);
	free(t->filter);
	free((void *)t->attr);
	pp_expr_free(t->rec_filter);
	ana_fastfmt_free(ana_evtype_priv(t)->fmt);
	free(ana_evtype_priv(t)->format);
	free(ana_evtype_priv(t));
}

static void add_field(struct ana_evtype *t, const struct tep_format_field *f)
{
	struct pp_field *p;

	t->fields = pp_xrealloc(t->fields, (t->nr_fields + 1) * sizeof(*t->fields));
	p = &t->fields[t->nr_fields++];
	memset(p, 0, sizeof(*p));
	p->name = pp_xstrdup(f->name);
	p->offset = (uint32_t)f->offset;
	p->size = (uint32_t)f->size;
	p->elem_size = f->elementsize ? f->elementsize : (uint32_t)f->size;
	p->is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	p->is_array = (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC);
	p->is_data_loc = f->flags & TEP_FIELD_IS_DYNAMIC;
	p->is_string = (f->flags & TEP_FIELD_IS_STRING) ||
		       ((f->flags & TEP_FIELD_IS_ARRAY) && strstr(f->type, "char") &&
			p->elem_size == 1);
	p->is_pointer = f->flags & TEP_FIELD_IS_POINTER;
	if (p->is_data_loc && !p->elem_size)
		p->elem_size = 1;
}

/* Fields "Xcomm" (a char array) with a numeric "Xpid": sched_switch's prev_ and next_, "comm". */
static void find_name_pairs(struct ana_evtype_priv *x)
{
	const struct ana_evtype *t = &x->pub;

	for (size_t i = 0; i < t->nr_fields && x->nr_names < PP_ARRAY_SIZE(x->name_comm); i++) {
		const struct pp_field *c = &t->fields[i];
		size_t n = strlen(c->name);
		char pid[64];

		if (n < 4 || n >= sizeof(pid) || strcmp(c->name + n - 4, "comm") || !c->is_string)
			continue;
		snprintf(pid, sizeof(pid), "%.*spid", (int)(n - 4), c->name);
		const struct pp_field *p = ana_field_find(t, pid);
		if (p && !p->is_array && !p->is_string && p->size <= 8) {
			x->name_comm[x->nr_names] = c;
			x->name_pid[x->nr_names++] = p;
		}
	}
}

int ana_evtype_add(struct ana_session *s, const struct ppf_event_desc *d)
{
	struct ana_evtype *t;
	const char *colon;

	if (pp_u64map_get(&s->types, d->id))
		return 0;	/* a repeated description (rotation) */
	struct ana_evtype_priv *x = pp_xcalloc(1, sizeof(*x));
	x->flags_off = x->pc_off = -1;
	x->format = pp_xstrdup(d->format ? d->format : "");
	t = &x->pub;
	t->id = d->id;
	t->kind = d->kind;
	t->desc_flags = d->flags;
	t->name = pp_xstrdup(d->name);
	t->selector = pp_xstrdup(d->selector);
	t->filter = pp_xstrdup(d->filter);
	if (d->attr_sz) {
		void *a = pp_xmalloc(d->attr_sz);
		memcpy(a, d->attr, d->attr_sz);
		t->attr = a;
		t->attr_sz = d->attr_sz;
	}
	colon = strchr(d->name, ':');
	if (colon) {
		t->sys = pp_xstrndup(d->name, (size_t)(colon - d->name));
		t->event = pp_xstrdup(colon + 1);
	} else {
		t->event = pp_xstrdup(d->name);
	}
	char why[128];
	if (d->format && d->format[0] && t->sys && ana_format_unsafe(d->format, why, sizeof(why))) {
		pp_warn("the stored format of %s has %s: its fields are not available", d->name, why);
	} else if (d->format && d->format[0] && t->sys) {
		struct tep_event *ev = NULL;
		size_t len = strlen(d->format);
		char pwhy[128];
		bool kernel;
		if (ana_print_fmt_unsafe(d->format, pwhy, sizeof(pwhy), &kernel)) {
			if (kernel)
				pp_debug(1, "the stored print format of %s %s: its events are printed "
					 "without it", d->name, pwhy);
			else
				pp_warn("the stored print format of %s %s: its events are printed "
					"without it", d->name, pwhy);
			len = (size_t)(strstr(d->format, "\nprint fmt:") - d->format) + 1;
		}
		enum tep_errno e = tep_parse_format(s->tep, &ev, d->format, len, t->sys);
		if (e || !ev) {
			char msg[128];
			tep_strerror(s->tep, e, msg, sizeof(msg));
			pp_warn("cannot parse the stored format of %s: %s; its fields are not available",
				d->name, msg);
		} else {
			t->tep = ev;
			for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next) {
				add_field(t, f);
				if (!strcmp(f->name, "common_flags") && f->size == 1)
					x->flags_off = f->offset;
				if (!strcmp(f->name, "common_preempt_count") && f->size == 1)
					x->pc_off = f->offset;
			}
			for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
				add_field(t, f);
			find_name_pairs(x);
			if (!strcmp(d->name, "sched:sched_switch"))
				x->switch_next = ana_field_find(t, "next_pid");
		}
	}
	if ((d->flags & PPF_EVF_USER_FILTER) && d->filter[0] &&
	    ana_filter_compile(t, d->filter, &t->rec_filter))
		pp_warn("the recorded filter of %s cannot be applied: its events are not filtered",
			t->name);
	pp_u64map_put(&s->types, d->id, t);
	s->type_list = pp_xrealloc(s->type_list, (s->nr_types + 1) * sizeof(*s->type_list));
	s->type_list[s->nr_types++] = t;
	return 0;
}

const char *ana_evtype_format(const struct ana_evtype *t)
{
	return ana_evtype_priv(t)->format;
}
