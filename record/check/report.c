/* SPDX-License-Identifier: MIT */
/*
 * report.c - a check printed: one line each as text, or one JSON object
 * (schema "pp-check/1", docs/production.md; fields are only ever added).
 */
#include <stdio.h>

#include "common/buf.h"
#include "record/check/check.h"

static const char *const answers[] = {
	[REC_CHECK_YES] = "yes", [REC_CHECK_NO] = "no", [REC_CHECK_WARN] = "warn",
	[REC_CHECK_INFO] = "info",
};

static void text_lines(const struct rec_check *c, bool event, FILE *out)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct rec_check_line *l = &c->v[i];

		if (l->event != event)
			continue;
		fprintf(out, "  %-27s %-4s  %s\n", l->name, answers[l->answer], l->value);
		if (l->fix)
			fprintf(out, "  %-27s       fix: %s\n", "", l->fix);
	}
}

static void print_text(const struct rec_check *c, FILE *out)
{
	fputs("This machine:\n", out);
	text_lines(c, false, out);
	fprintf(out, "%s:\n  %s\n", c->analyzer ? c->analyzer : "The recording", c->command);
	text_lines(c, true, out);
	if (c->run)
		fprintf(out, "verdict: yes, it records here\n");
	else
		fprintf(out, "verdict: no: %s\n%s%s%s", c->reason, c->reason_fix ? "fix: " : "",
			c->reason_fix ? c->reason_fix : "", c->reason_fix ? "\n" : "");
}

static void json_str(struct pp_buf *b, const char *key, const char *v, bool comma)
{
	pp_buf_addf(b, "%s\"%s\": ", comma ? ", " : "", key);
	if (v)
		pp_buf_add_json_str(b, v);
	else
		pp_buf_adds(b, "null");
}

static void json_lines(const struct rec_check *c, bool event, struct pp_buf *b)
{
	bool first = true;

	pp_buf_adds(b, "[");
	for (size_t i = 0; i < c->nr; i++) {
		const struct rec_check_line *l = &c->v[i];

		if (l->event != event)
			continue;
		pp_buf_adds(b, first ? "\n    {" : ",\n    {");
		json_str(b, "name", l->name, false);
		json_str(b, "answer", answers[l->answer], true);
		json_str(b, "value", l->value, true);
		json_str(b, "fix", l->fix, true);
		pp_buf_adds(b, "}");
		first = false;
	}
	pp_buf_adds(b, first ? "]" : "\n  ]");
}

static void print_json(const struct rec_check *c, FILE *out)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_adds(&b, "{\n  ");
	json_str(&b, "schema", "pp-check/1", false);
	pp_buf_adds(&b, ",\n  \"machine\": ");
	json_lines(c, false, &b);
	pp_buf_adds(&b, ",\n  ");
	json_str(&b, "analyzer", c->analyzer, false);
	pp_buf_adds(&b, ",\n  ");
	json_str(&b, "command", c->command, false);
	pp_buf_adds(&b, ",\n  \"events\": ");
	json_lines(c, true, &b);
	pp_buf_addf(&b, ",\n  \"verdict\": {\"run\": %s", c->run ? "true" : "false");
	json_str(&b, "reason", c->run ? NULL : c->reason, true);
	json_str(&b, "fix", c->run ? NULL : c->reason_fix, true);
	pp_buf_adds(&b, "}\n}\n");
	fputs(pp_buf_str(&b), out);
	pp_buf_release(&b);
}

void rec_check_print(const struct rec_check *c, bool json, FILE *out)
{
	if (json)
		print_json(c, out);
	else
		print_text(c, out);
}
