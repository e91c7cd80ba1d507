/* SPDX-License-Identifier: MIT */
/*
 * ident.c - what a state is of: the analyzer's options in a canonical form, and
 * the identity and order of the capture ranges (sources) it covers.
 *
 * Two states merge only when their options mean the same: the options are
 * compared as parsed, not as typed (`--than 1ms` is `--than 1000us`, the order
 * of different options does not matter, the order of -e does), and only those
 * that change the aggregate (not -o, --format, --state-out or --time).
 * A capture is known by its file header's creation time, its host name and a
 * fingerprint of what every reader of it sees first (stable host keys and the
 * event types): two ranges of one capture may be joined or may overlap, ranges
 * of different captures never do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/state/internal.h"
#include "common/argv.h"
#include "common/log.h"
#include "common/plan.h"

/*
 * Options that change what is printed or where, what is read, or the side files a replay
 * writes (not written again by merge or report), not the aggregate.
 */
static const char *const not_identity[] = {
	"output", "format", "state-out", "time", "quiet", "order", "heatmap", "flame-graph", NULL,
};

static bool excluded(const char *name)
{
	for (size_t i = 0; name && not_identity[i]; i++)
		if (!strcmp(name, not_identity[i]))
			return true;
	return !name;
}

/* @s as one shell word: as is when plain, else in '' with ' as '\'' */
static void quote(struct pp_buf *b, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			 "_-+=.,:/%@") == strlen(s)) {
		pp_buf_adds(b, s);
		return;
	}
	pp_argv_squote(b, s);
}

struct tokens {
	char **v;
	int n;
};

static void token_add(struct tokens *t, char *s)
{
	t->v = pp_xrealloc(t->v, ((size_t)t->n + 2) * sizeof(*t->v));
	t->v[t->n++] = s;
	t->v[t->n] = NULL;
}

/* "--NAME=VALUE", or "--NAME" (@v NULL), or "--no-NAME" (@no) */
static void token_opt(struct tokens *t, const char *name, const char *v, bool no)
{
	struct pp_buf b = PP_BUF_INIT;

	pp_buf_addf(&b, "--%s%s", no ? "no-" : "", name);
	if (v) {
		pp_buf_addch(&b, '=');
		pp_buf_adds(&b, v);
	}
	token_add(t, pp_buf_detach(&b));
}

/* The tokens that set @o to its value, when it differs from @d's (the same option). */
static void option_tokens(const struct pp_option *o, const struct pp_option *d, struct tokens *t)
{
	char num[32];

	switch (o->type) {
	case PP_OPT_T_BOOL:
		if (!o->long_name) {	/* a short option only (-g): set, it is said */
			if (*(const bool *)o->value && !*(const bool *)d->value) {
				snprintf(num, sizeof(num), "-%c", o->short_name);
				token_add(t, pp_xstrdup(num));
			}
			break;
		}
		if (*(const bool *)o->value != *(const bool *)d->value)
			token_opt(t, o->long_name, NULL, !*(const bool *)o->value);
		break;
	case PP_OPT_T_COUNT:
		for (int i = *(const int *)d->value; i < *(const int *)o->value; i++)
			token_opt(t, o->long_name, NULL, false);
		break;
	case PP_OPT_T_INT:
		if (*(const int *)o->value != *(const int *)d->value) {
			snprintf(num, sizeof(num), "%d", *(const int *)o->value);
			token_opt(t, o->long_name, num, false);
		}
		break;
	case PP_OPT_T_U64:
	case PP_OPT_T_TIME:
	case PP_OPT_T_SIZE:
		if (*(const uint64_t *)o->value != *(const uint64_t *)d->value) {
			snprintf(num, sizeof(num), "%" PRIu64 "%s", *(const uint64_t *)o->value,
				 o->type == PP_OPT_T_TIME ? "ns" : "");
			token_opt(t, o->long_name, num, false);
		}
		break;
	case PP_OPT_T_STRING: {
		const char *v = *(const char *const *)o->value, *dv = *(const char *const *)d->value;
		if (v && (!dv || strcmp(v, dv)))
			token_opt(t, o->long_name, v, false);
		break;
	}
	case PP_OPT_T_STRLIST: {
		const struct pp_strlist *l = o->value;
		for (size_t i = 0; i < l->nr; i++)
			token_opt(t, o->long_name, l->v[i], false);
		break;
	}
	default:
		break;
	}
}

static void table_tokens(const struct pp_option *o, const struct pp_option *d, struct tokens *t)
{
	for (size_t i = 0; o[i].type != PP_OPT_T_END; i++)
		if (o[i].type != PP_OPT_T_GROUP && o[i].type != PP_OPT_T_INCLUDE &&
		    o[i].type != PP_OPT_T_CALLBACK &&
		    ((!o[i].long_name && o[i].short_name) || !excluded(o[i].long_name)))
			option_tokens(&o[i], &d[i], t);
}

char **ana_state_argv_canon(const struct pp_az *az, int *argc)
{
	/* the defaults: what ana_az_parse() starts an instance with */
	struct pp_common_opts dc = { .user_callchain = true, .kernel_callchain = true };
	void *dopts = pp_xcalloc(1, az->plan->opts_size ? az->plan->opts_size : 1);
	struct pp_option *own = pp_opts_rebase(az->plan->options, az->opts, 0);
	struct pp_option *down = pp_opts_rebase(az->plan->options, dopts, 0);
	struct pp_option *com = pp_opts_rebase(pp_common_options, (void *)&az->opt, 0);
	struct pp_option *dcom = pp_opts_rebase(pp_common_options, &dc, 0);
	struct tokens t = { 0 };

	token_add(&t, pp_xstrdup(az->name));
	table_tokens(own, down, &t);
	table_tokens(com, dcom, &t);
	if (az->nr_args)
		token_add(&t, pp_xstrdup("--"));
	for (int i = 0; i < az->nr_args; i++)
		token_add(&t, pp_xstrdup(az->args[i]));
	free(own);
	free(down);
	free(com);
	free(dcom);
	free(dopts);
	*argc = t.n;
	return t.v;
}

char *ana_state_argv_str(const char *const *argv, int argc)
{
	struct pp_buf b = PP_BUF_INIT;

	for (int i = 1; i < argc; i++) {
		if (i > 1)
			pp_buf_addch(&b, ' ');
		quote(&b, argv[i]);
	}
	return pp_buf_detach(&b);
}

char *ana_state_options(const struct pp_az *az)
{
	int argc;
	char **argv = ana_state_argv_canon(az, &argc);
	char *s = ana_state_argv_str((const char *const *)argv, argc);

	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return s;
}

/* --- sources --------------------------------------------------------------- */

/* What every reader of the capture sees, whatever range it replays. */
static uint32_t fingerprint(struct ana_session *s)
{
	static const char *const keys[] = { "hostname", "release", "cmdline", "start_realtime_ns",
					    "pp_version", NULL };
	uint32_t crc = 0;

	for (size_t i = 0; keys[i]; i++) {
		const char *v = ana_host(s, keys[i]);
		crc = ppf_crc32c(crc, keys[i], strlen(keys[i]) + 1);
		crc = ppf_crc32c(crc, v ? v : "", v ? strlen(v) + 1 : 1);
	}
	for (size_t i = 0; i < s->nr_types; i++)
		crc = ppf_crc32c(crc, s->type_list[i]->name, strlen(s->type_list[i]->name) + 1);
	return crc;
}

void ana_ssrc_from_session(struct ana_session *s, struct ana_ssrc *out)
{
	const char *host = ana_host(s, "hostname");

	memset(out, 0, sizeof(*out));
	out->created_ns = s->r ? ppf_reader_info(s->r)->created_ns : 0;
	out->fingerprint = fingerprint(s);
	out->host = pp_xstrdup(host ? host : "");
	out->path = pp_xstrdup(s->path ? s->path : "");
	out->range_start_ns = s->range_start_ns;
	out->range_end_ns = s->range_end_ns;
	out->first_ns = s->first_ns;
	out->last_ns = s->last_ns;
	out->have_sync = s->have_sync;
	out->sync_perf_ns = s->have_sync ? s->sync_perf_ns : 0;
	out->sync_real_ns = s->have_sync ? s->sync_real_ns : 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int ana_ssrc_cmp(const struct ana_ssrc *a, const struct ana_ssrc *b)
{
	int c = cmp_u64(a->created_ns, b->created_ns);

	if (!c)
		c = cmp_u64(a->fingerprint, b->fingerprint);
	if (!c)
		c = strcmp(a->host, b->host);
	if (!c)
		c = cmp_u64(a->range_start_ns, b->range_start_ns);
	if (!c)	/* an open end is the latest */
		c = cmp_u64(a->range_end_ns ? a->range_end_ns : UINT64_MAX,
			    b->range_end_ns ? b->range_end_ns : UINT64_MAX);
	return c;
}

bool ana_ssrc_same_capture(const struct ana_ssrc *a, const struct ana_ssrc *b)
{
	return a->created_ns == b->created_ns && a->fingerprint == b->fingerprint &&
	       !strcmp(a->host, b->host);
}

bool ana_ssrc_overlap(const struct ana_ssrc *a, const struct ana_ssrc *b)
{
	uint64_t ae = a->range_end_ns ? a->range_end_ns : UINT64_MAX;
	uint64_t be = b->range_end_ns ? b->range_end_ns : UINT64_MAX;

	return ana_ssrc_same_capture(a, b) && a->range_start_ns <= be && b->range_start_ns <= ae;
}

bool ana_ssrc_adjacent(const struct ana_ssrc *a, const struct ana_ssrc *b)
{
	return ana_ssrc_same_capture(a, b) && a->range_end_ns &&
	       a->range_end_ns != UINT64_MAX && b->range_start_ns == a->range_end_ns + 1;
}

static void when(struct pp_buf *b, uint64_t ns)
{
	pp_buf_addf(b, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

void ana_ssrc_describe(const struct ana_ssrc *s, struct pp_buf *b)
{
	pp_buf_addf(b, "capture of %s created ", *s->host ? s->host : "(no host name)");
	when(b, s->created_ns);
	pp_buf_adds(b, ", time ");
	if (s->range_start_ns)
		when(b, s->range_start_ns);
	else
		pp_buf_adds(b, "start");
	pp_buf_adds(b, " to ");
	if (s->range_end_ns)
		when(b, s->range_end_ns);
	else
		pp_buf_adds(b, "end");
}

void ana_ssrc_copy(struct ana_ssrc *dst, const struct ana_ssrc *src)
{
	*dst = *src;
	dst->host = pp_xstrdup(src->host);
	dst->path = pp_xstrdup(src->path);
}

void ana_ssrc_release(struct ana_ssrc *s)
{
	free(s->host);
	free(s->path);
	s->host = s->path = NULL;
}
