/* SPDX-License-Identifier: MIT */
/*
 * list.c - the events of a capture with their counts; -v adds their fields.
 *
 * perf-prof's list shows what tracefs offers; a capture's list is what
 * was recorded, counted over the analysed range (after -C/-p/-t and
 * --time).  An argument keeps the events whose name contains it.  The
 * fields come from the format text stored in the capture: type, name,
 * offset, size and signedness, as the kernel described them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/quote.h"
#include "common/table.h"

struct list_priv {
	uint64_t *count;	/* per match */
};

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = { "", "tracepoint", "software", "hardware", "uprobe",
					     "kprobe", "breakpoint", "other" };

	return kind < PP_ARRAY_SIZE(names) ? names[kind] : "other";
}

static int list_init(struct pp_az *az)
{
	struct list_priv *p = az->priv;

	if (az->nr_args > 1) {
		fprintf(stderr, "list: at most one argument (a part of the event names)\n");
		return PP_EUSAGE;
	}
	p->count = calloc(az->nr_sels + 1, sizeof(*p->count));
	return p->count ? 0 : -ENOMEM;
}

static void list_event(struct pp_az *az, const struct pp_event *ev)
{
	struct list_priv *p = az->priv;

	p->count[ev->sel->index]++;
}

/* "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;" -> one aligned line */
static void print_fields(FILE *fp, const char *format)
{
	const char *line = format;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = strndup(line, len), *f = l ? strstr(l, "field:") : NULL;
		if (f) {
			char *decl = f + 6, *semi = strchr(decl, ';');
			char *off = strstr(f, "offset:"), *sz = strstr(f, "size:");
			char *sg = strstr(f, "signed:");
			if (semi) {
				*semi = '\0';
				struct pp_buf q = PP_BUF_INIT;

				fprintf(fp, "    %-44s offset:%-5d size:%-4d %s\n", pp_quote_str(&q, decl),
					off ? atoi(off + 7) : 0, sz ? atoi(sz + 5) : 0,
					sg && atoi(sg + 7) ? "signed" : "unsigned");
				pp_buf_release(&q);
			}
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
}

static int list_finish(struct pp_az *az)
{
	struct list_priv *p = az->priv;
	const char *part = az->nr_args ? az->args[0] : NULL;
	FILE *fp = az->out.fp;
	struct pp_table *t = NULL;

	if (az->out.format != ANA_FMT_TEXT) {
		t = pp_table_new();
		pp_table_col(t, "event", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "kind", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "count", NULL, 0, 0);
	}
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_evtype *type = az->sels[i].type;
		if (part && !strstr(type->name, part))
			continue;
		if (t) {
			pp_table_row(t);
			pp_table_str(t, type->name);
			pp_table_str(t, kind_name(type->kind));
			pp_table_u64(t, p->count[i]);
			continue;
		}
		struct pp_buf q = PP_BUF_INIT;	/* a name from the capture: one field */

		fprintf(fp, "%-48s %12llu%s%s\n", pp_quote_str(&q, type->name),
			(unsigned long long)p->count[i], type->kind != 1 ? "  " : "",
			type->kind != 1 ? kind_name(type->kind) : "");
		pp_buf_release(&q);
		if (az->opt.verbose)
			print_fields(fp, ana_evtype_format(type));
	}
	if (t) {
		pp_table_print(t, fp, (enum pp_table_format)az->out.format, "events");
		pp_table_free(t);
	}
	return 0;
}

static void list_release(struct pp_az *az)
{
	struct list_priv *p = az->priv;

	free(p->count);
}


const struct pp_analyzer_ops az_list_ops = {
	.summary = "the events of a capture with their counts (-v: with their fields)",
	.usage = "pp-analyze FILE list [-v] [PART-OF-NAME]",
	.examples = "  pp-analyze pp.capture list\n"
		    "  pp-analyze pp.capture list -v sched_switch\n"
		    "  pp-analyze pp.capture list -C 0 --format json\n",
	.priv_size = sizeof(struct list_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = list_init,
	.event = list_event,
	.finish = list_finish,
	.release = list_release,
};
