/* SPDX-License-Identifier: MIT */
/*
 * expr.c - try an expression on real events (perf-prof's expr).
 *
 * `expr -e EVENT 'EXPRESSION'` compiles the expression once per event type
 * and prints the compiled program, then for each event the event line and
 * "result: 0x..." (a char * result prints the string instead).  With -v each
 * executed instruction is listed with the top of the stack after it, so a
 * surprising result can be followed step by step.  Nothing is aggregated.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/log.h"
#include "common/err.h"
#include "common/expr.h"

struct expr_priv {
	const char *text;
	struct pp_expr **prog;	/* per match */
	struct pp_buf line, trace;
};

static int expr_init(struct pp_az *az)
{
	struct expr_priv *p = az->priv;
	int rc;

	if (az->nr_args != 1) {
		fprintf(stderr, "expr: give one expression after the options, e.g. "
			"expr -e sched:sched_wakeup 'pid > 100 && prio < 120'\n");
		return PP_EUSAGE;
	}
	if (az->out.format != ANA_FMT_TEXT) {
		pp_err("expr: --format %s is not available: expr prints a program listing and its "
		       "results as text (trace --format %s prints events)",
		       az->out.format == ANA_FMT_JSON ? "json" : "csv",
		       az->out.format == ANA_FMT_JSON ? "json" : "csv");
		return PP_EUSAGE;
	}
	p->text = az->args[0];
	p->prog = calloc(az->nr_sels + 1, sizeof(*p->prog));
	if (!p->prog)
		return -ENOMEM;
	for (size_t i = 0; i < az->nr_sels; i++) {
		rc = ana_expr_compile(az, az->sels[i].type, "expression", p->text, &p->prog[i]);
		if (rc)
			return rc;
		pp_buf_reset(&p->line);
		pp_buf_addf(&p->line, "%s:\n", az->sels[i].type->name);
		pp_expr_dump(p->prog[i], &p->line);
		fputs(pp_buf_str(&p->line), az->out.fp);
	}
	return 0;
}

static void expr_event(struct pp_az *az, const struct pp_event *ev)
{
	struct expr_priv *p = az->priv;
	const struct pp_expr *e = p->prog[ev->sel->index];
	FILE *fp = az->out.fp;
	int64_t r;

	pp_buf_reset(&p->line);
	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	fputs(pp_buf_str(&p->line), fp);
	fflush(fp);	/* printf() in the expression writes after the line */
	if (az->opt.verbose) {
		pp_buf_reset(&p->trace);
		r = ana_expr_eval_trace(az, e, ev, &p->trace);
		fflush(fp);
		fputs("program running:\n", fp);
		fputs(pp_buf_str(&p->trace), fp);
	} else {
		r = ana_expr_eval(az, e, ev);
		fflush(fp);
	}
	if (pp_expr_is_string(e))	/* the address would differ from run to run */
		fprintf(fp, "result: \"%s\"\n", ana_expr_eval_str(az, e, ev));
	else
		fprintf(fp, "result: 0x%" PRIx64 "\n", (uint64_t)r);
}

static int pp_expr_finish(struct pp_az *az)
{
	fflush(az->out.fp);
	return 0;
}

static void expr_release(struct pp_az *az)
{
	struct expr_priv *p = az->priv;

	for (size_t i = 0; p->prog && i < az->nr_sels; i++)
		pp_expr_free(p->prog[i]);
	free(p->prog);
	pp_buf_release(&p->line);
	pp_buf_release(&p->trace);
}


const struct pp_analyzer_ops az_expr_ops = {
	.summary = "compile an expression and evaluate it on each event (-v: step by step)",
	.usage = "pp-analyze FILE expr -e EVENT [-v] 'EXPRESSION'",
	.examples =
		"  pp-analyze pp.capture expr -e sched:sched_wakeup 'pid > 100 && prio < 120'\n"
		"  pp-analyze pp.capture expr -e sched:sched_switch -N 3 -v "
		"'prev_state & 2 ? 1 : 0'\n"
		"  pp-analyze pp.capture expr -e sched:sched_process_exec 'filename ~ \"*bash\"'\n"
		"  pp-analyze pp.capture expr -e irq:irq_handler_entry "
		"'printf(\"%s %d\\n\", name, irq)'\n",
	.priv_size = sizeof(struct expr_priv),
	.flags = PP_AZ_NEED_EVENTS,
	.init = expr_init,
	.event = expr_event,
	.finish = pp_expr_finish,
	.release = expr_release,
};
