/* SPDX-License-Identifier: MIT */
/*
 * cmd-check.c - `pp-analyze FILE check [--format json] ANALYZER [OPTIONS]`: can this
 * capture give this analyzer, with these options, a complete answer?
 *
 * Parses the analyzer's command line as a replay would, reads the whole capture once
 * (its span, LOST records, damage), and prints one line per need (check.c decides
 * them), the verdict and the recording that has everything.  Exit status 0 when
 * complete, 1 when a need is unmet, 2 for a bad command line or capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/check.h"
#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/man.h"

static const char check_help[] =
	"\nThe analyzer's needs are what its plan records for the same options (pp-record --for):\n"
	"events, filters, stacks (-g), every CPU or only the followed tasks (scope, cpus), then\n"
	"what a read of the whole capture finds: the time --time and --duration asked, losses\n"
	"(LOST records) and damage.  One line each: ok, no (unmet), n/a (not needed) or\n"
	"unknown (the capture does not say).  Exit status 0 when the answer is complete, 1 when\n"
	"a need is unmet, 2 for a bad command line or capture.  A replay of an incomplete\n"
	"capture prints the first unmet need as one warning line on stderr.\n"
	"\nEXAMPLES\n"
	"  pp-analyze a.ppcap check task-state\n"
	"  pp-analyze a.ppcap check --format json profile -g\n";

static const char *const check_usage[] = {
	"pp-analyze FILE check [--format text|json] ANALYZER [OPTIONS]", NULL,
};

/* Read the rest of the capture: the span of its events, its losses, its STAT duration. */
static int scan(struct ana_session *s, struct ana_check_scan *sc)
{
	struct ppf_record rec;
	int rc;

	while ((rc = ppf_reader_next(s->r, &rec, NULL)) == 0) {
		switch (rec.type) {
		case PPF_REC_SAMPLE:
		case PPF_REC_COUNTER:
			if (!sc->first_ns)
				sc->first_ns = rec.time_ns;
			sc->last_ns = rec.time_ns;
			break;
		case PPF_REC_LOST:	/* the session counts them, per CPU */
			ana_session_meta(s, &rec);
			break;
		case PPF_REC_STAT:
			if (!strcmp(rec.u.stat.key, "duration_ns"))
				sc->duration_ns = rec.u.stat.value;
			break;
		default:
			break;
		}
	}
	if (rc < 0)
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
	return rc < 0 ? rc : 0;
}

static void print_text(const char *analyzer, const struct ana_check *c)
{
	bool complete = ana_check_complete(c);

	printf("analyzer  %s\n", analyzer);
	for (size_t k = 0; k < ANA_NR_NEEDS; k++)
		printf("%-9s %-7s %s\n", ana_need_name(k), ana_need_state_name(c->need[k].state),
		       c->need[k].detail ? c->need[k].detail : "");
	printf("verdict   %s\n", complete ? "complete" : "incomplete");
	if (!complete)
		printf("record    %s\n", c->record);
}

static void print_json(const char *path, const char *analyzer, const struct ana_check *c)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_adds(&b, "{\"capture\":");
	pp_buf_add_json_str(&b, path);
	pp_buf_adds(&b, ",\"analyzer\":");
	pp_buf_add_json_str(&b, analyzer);
	pp_buf_addf(&b, ",\"complete\":%s,\"needs\":[",
		    ana_check_complete(c) ? "true" : "false");
	for (size_t k = 0; k < ANA_NR_NEEDS; k++) {
		pp_buf_addf(&b, "%s{\"need\":\"%s\",\"state\":\"%s\",\"detail\":", k ? "," : "",
			    ana_need_name(k), ana_need_state_name(c->need[k].state));
		pp_buf_add_json_str(&b, c->need[k].detail ? c->need[k].detail : "");
		pp_buf_addch(&b, '}');
	}
	pp_buf_adds(&b, "],\"record\":");
	pp_buf_add_json_str(&b, c->record);
	pp_buf_adds(&b, "}\n");
	fputs(pp_buf_str(&b), stdout);
	pp_buf_release(&b);
}

/* check's own options, before the analyzer's name.  Return: argv's index of the name, or -1. */
static int own_options(int argc, const char **argv, const char **format)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			*format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			*format = argv[i] + 9;
		else
			return -1;
	}
	return i < argc ? i : -1;
}

int cmd_check(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	const char *format = NULL;
	struct ana_check c = { 0 };
	struct ana_check_scan sc = { 0 };
	struct ppf_record first;
	struct pp_az *az;
	char err[512];
	bool help = false;
	int at, rc;

	if (pp_help_man(stdout, argc - 1, argv + 1, check_usage, NULL, check_help + 1))
		return 0;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		pp_usage_print(stdout, check_usage, NULL);
		fputs(check_help, stdout);
		return 0;
	}
	at = own_options(argc, argv, &format);
	if (at < 0) {
		pp_err("check: %s", argc > 1 && argv[argc - 1][0] != '-' ? "bad option before the analyzer"
			: "which analyzer? usage: pp-analyze FILE check [--format json] ANALYZER [OPTIONS]");
		return 2;
	}
	az = ana_az_try_parse(argc - at, argv + at, &help, err, sizeof(err));
	if (!az) {
		pp_err("check: %s", err);
		return 2;
	}
	if (!format && az->opt.format && !strcmp(az->opt.format, "json"))
		format = "json";
	if (format && strcmp(format, "json") && strcmp(format, "text")) {
		pp_err("check: --format is text or json");
		ana_az_free(az);
		return 2;
	}
	rc = ana_session_load_meta(s, &first);
	if (rc < 0) {
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
		ana_az_free(az);
		return 2;
	}
	if (rc == 0 && (first.type == PPF_REC_SAMPLE || first.type == PPF_REC_COUNTER))
		sc.first_ns = sc.last_ns = first.time_ns;
	rc = ana_check_meta(s, az, argc - at, argv + at, &c, err, sizeof(err));
	if (rc) {
		pp_err("check: %s", err);
		ana_az_free(az);
		return 2;
	}
	if (scan(s, &sc) == 0)
		ana_check_scanned(s, az, &sc, &c);
	if (format && !strcmp(format, "json"))
		print_json(s->path, az->name, &c);
	else
		print_text(az->name, &c);
	rc = ana_check_complete(&c) ? 0 : 1;
	ana_check_release(&c);
	ana_az_free(az);
	return rc;
}
