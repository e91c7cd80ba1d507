/* SPDX-License-Identifier: MIT */
/*
 * evexpr.c - expressions and filters bound to a capture.
 *
 * The expression engine (common/expr.h) knows nothing of captures; here its
 * built-ins that need the system (ksymbol, comm_get, syscall_name) are
 * answered from the capture, and compile errors are printed with a caret
 * under the bad token.  Evaluation allocates nothing.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/expr.h"
#include "common/log.h"

static const char *cb_ksymbol(void *priv, uint64_t addr)
{
	return ana_ksym(priv, addr, NULL);
}

static const char *cb_comm(void *priv, int pid)
{
	return ana_comm(priv, (uint32_t)pid);
}

static const char *cb_syscall(void *priv, int id)
{
	return ana_syscall_name(priv, (uint64_t)(uint32_t)id);
}

static const struct pp_expr_ops session_ops = {
	.ksymbol = cb_ksymbol,
	.comm_get = cb_comm,
	.syscall_name = cb_syscall,
};

static int compile_env(const struct ana_evtype *t, const char *what, const char *text, bool filter,
		       const char *const *vars, size_t nr_vars, unsigned flags, struct pp_expr **out)
{
	struct pp_expr_env env = { .fields = t ? t->fields : NULL,
				   .nr_fields = t ? t->nr_fields : 0,
				   .vars = vars, .nr_vars = nr_vars,
				   .flags = flags | (t && !t->nr_fields ? PP_EXPR_SAMPLE_NAMES : 0) };
	struct pp_parse_error err = { .pos = -1 };
	char where[256];
	int rc;

	rc = filter ? pp_filter_compile(text, &env, out, &err) : pp_expr_compile(text, &env, out, &err);
	if (rc) {
		snprintf(where, sizeof(where), "%s of %s", what, t ? t->name : "event");
		pp_parse_error_print(where, text, &err);
	}
	return rc;
}

static int compile(const struct ana_evtype *t, const char *what, const char *text, bool filter,
		   struct pp_expr **out)
{
	return compile_env(t, what, text, filter, NULL, 0, 0, out);
}

/*
 * system() runs live only (pp ANALYZER, pp-record -o - | pp-analyze -), where
 * the events are this machine's now, as perf-prof runs it; replaying a capture
 * (maybe another machine's, years old) it is refused.  Either way what events
 * carry reaches the shell quoted (common/expr-vm.c).
 */
static unsigned user_flags(const struct pp_az *az)
{
	return az && az->s && az->s->live ? PP_EXPR_ALLOW_SYSTEM : 0;
}

int ana_expr_compile(struct pp_az *az, const struct ana_evtype *t, const char *what,
		     const char *text, struct pp_expr **out)
{
	return compile_env(t, what, text, false, NULL, 0, user_flags(az), out);
}

int ana_expr_compile_vars(struct pp_az *az, const struct ana_evtype *t, const char *what,
			  const char *text, const char *const *vars, size_t nr_vars,
			  struct pp_expr **out)
{
	return compile_env(t, what, text, false, vars, nr_vars, user_flags(az), out);
}

int ana_filter_compile(const struct ana_evtype *t, const char *text, struct pp_expr **out)
{
	return compile(t, "filter", text, true, out);
}

static void fill_ctx(struct pp_expr_ctx *c, struct ana_session *s, FILE *fp, const struct pp_event *ev)
{
	memset(c, 0, sizeof(*c));
	c->raw = ev->raw;
	c->raw_sz = ev->raw_sz;
	c->cpu = (int)ev->cpu;
	c->pid = (int)ev->pid;
	c->tid = (int)ev->tid;
	c->time_ns = ev->time_ns;
	c->out = fp;
	c->ops = &session_ops;
	c->priv = s;
}

int64_t ana_expr_eval(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev)
{
	struct pp_expr_ctx c;

	fill_ctx(&c, az->s, az->out.fp, ev);
	return pp_expr_eval(e, &c);
}

int64_t ana_expr_eval_vars(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev,
			   const uint64_t *vars)
{
	struct pp_expr_ctx c;

	fill_ctx(&c, az->s, az->out.fp, ev);
	c.vars = vars;
	return pp_expr_eval(e, &c);
}

int64_t ana_expr_eval_trace(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev,
			    struct pp_buf *trace)
{
	struct pp_expr_ctx c;

	fill_ctx(&c, az->s, az->out.fp, ev);
	return pp_expr_eval_trace(e, &c, trace);
}

const char *ana_expr_eval_str(struct pp_az *az, const struct pp_expr *e, const struct pp_event *ev)
{
	struct pp_expr_ctx c;
	static const char empty[] = "";

	fill_ctx(&c, az->s, az->out.fp, ev);
	if (!az->s->str_scratch)
		az->s->str_scratch = pp_xmalloc(4096);
	if (pp_expr_eval_str(e, &c, az->s->str_scratch, 4096) < 0)
		return empty;
	return az->s->str_scratch;
}

bool ana_filter_pass(struct ana_session *s, const struct pp_expr *f, const struct pp_event *ev)
{
	struct pp_expr_ctx c;

	fill_ctx(&c, s, stdout, ev);
	return pp_expr_eval(f, &c) != 0;
}
