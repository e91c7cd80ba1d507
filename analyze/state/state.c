/* SPDX-License-Identifier: MIT */
/*
 * state.c - mergeable state: written after a replay, merged, printed.
 *
 * A merge never adds numbers itself: it builds one instance of the analyzer
 * on a session made from the states' merged CONTEXT, and lets the analyzer's
 * state_read add each state's section into it - the same arithmetic as the
 * replay, so the result is the replay's, whatever the order of the inputs.
 * Inputs are read in a canonical order (by their latest source) and sources
 * are kept sorted, so A+B and B+A write the same bytes.  Two sources of one
 * capture whose --time ranges touch (the second starts 1 ns after the first
 * ends) are joined: the analyzer's state_join hook completes what crossed
 * the boundary (task-state: a sleep begun before it, ended after it), and
 * the two become one source.
 * Not here: the bytes (file.c, context.c), the command lines (cmd-state.c), the
 * instance built on a merge (analyze/merge.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/state/internal.h"
#include "common/log.h"

struct ana_merge {
	struct ana_state **in;		/* ordered by their latest source */
	size_t nr_in;
	struct ana_ssrc *srcs;		/* every input's sources, ordered; id = index */
	size_t nr_srcs;
	bool *gone;			/* joined into the source before it */
	unsigned **in_ids;		/* per input: the ids of its sources */
	struct ana_sctx ctx;
	struct ana_session *s;
	const struct ana_registry *registry;	/* for s: ana_merge_new()'s */
	struct pp_az *az;
};

/* --- services for analyzers (analyzer.h) ------------------------------------ */

bool ana_state_recording(const struct pp_az *az)
{
	return az->state && az->state->recording;
}

size_t ana_state_sources(const struct pp_az *az, const unsigned **ids)
{
	static const unsigned first;

	if (!az->state || !az->state->nr_ids) {
		*ids = &first;
		return 1;
	}
	*ids = az->state->ids;
	return az->state->nr_ids;
}

bool ana_state_source_in(const struct pp_az *az, struct pp_wire *in, uint64_t i, unsigned *id)
{
	if (!az->state || i >= az->state->nr_in) {
		pp_wire_fail(in, PP_EBAD_RECORD, "source %llu: the state has %zu",
			     (unsigned long long)i, az->state ? az->state->nr_in : 0);
		*id = 0;
		return false;
	}
	*id = az->state->in_ids[i];
	return true;
}

size_t ana_state_nr_sources_in(const struct pp_az *az)
{
	return az->state ? az->state->nr_in : 0;
}

bool ana_state_same_capture(const struct pp_az *az, unsigned a, unsigned b)
{
	const struct ana_az_state *as = az->state;

	return as && a < as->nr_srcs && b < as->nr_srcs &&
	       ana_ssrc_same_capture(&as->srcs[a], &as->srcs[b]);
}

/* --- the replay's side: --state-out ------------------------------------------- */

static char **argv_dup(int argc, const char *const *argv)
{
	char **v = pp_xcalloc((size_t)argc + 1, sizeof(*v));

	for (int i = 0; i < argc; i++)
		v[i] = pp_xstrdup(argv[i]);
	return v;
}

static void argv_free(char **v, int argc)
{
	for (int i = 0; v && i < argc; i++)
		free(v[i]);
	free(v);
}

/* The analyzers that have a state, for messages: "top, num-dist, ..." */
static void with_state(const struct ana_registry *reg, struct pp_buf *b)
{
	for (size_t i = 0; reg && i < reg->count(); i++) {
		const struct pp_analyzer *an = reg->at(i);
		if (an->ops->state_write)
			pp_buf_addf(b, "%s%s", b->len ? ", " : "", an->name);
	}
}

static void attach(struct pp_az *az)
{
	struct ana_az_state *st = pp_xcalloc(1, sizeof(*st));

	st->recording = true;
	st->argv = ana_state_argv_canon(az, &st->argc);
	st->options = ana_state_argv_str((const char *const *)st->argv, st->argc);
	st->ids = pp_xcalloc(1, sizeof(*st->ids));
	st->nr_ids = 1;
	az->state = st;
}

int ana_state_az_new(struct pp_az *az, const struct ana_registry *reg, char *err, size_t errsz)
{
	const struct pp_analyzer_ops *ops = az->an->ops;

	if (!ops->state_write && (az->an->caps & PP_AZC_STREAM)) {
		snprintf(err, errsz, "--state-out: %s prints a sequence in time order, which stays "
			 "single-stream (replay the capture)", az->name);
		return PP_ENOTSUP;
	}
	if (!ops->state_write) {
		struct pp_buf b = PP_BUF_INIT;
		with_state(reg, &b);
		snprintf(err, errsz, "--state-out: %s has no mergeable state (yet); these have: %s",
			 az->name, pp_buf_str(&b));
		pp_buf_release(&b);
		return PP_ENOTSUP;
	}
	if (az->opt.interval_ns && ops->interval) {
		snprintf(err, errsz, "-i with --state-out: a state holds the whole range, printed "
			 "as one report by 'pp-analyze report'; leave -i out");
		return PP_EUSAGE;
	}
	if (az->opt.perfeval_cpus || az->opt.perfeval_pids) {
		snprintf(err, errsz, "--perfeval-* with --state-out: their counts are a listing "
			 "per interval, not part of a state");
		return PP_EUSAGE;
	}
	attach(az);
	return 0;
}

void ana_state_az_new_mem(struct pp_az *az, struct pp_buf *sink)
{
	attach(az);
	az->state->sink = sink;
}

int ana_state_from_mem(const void *data, size_t size, const char *name, struct ana_state **out,
		       char *err, size_t errsz)
{
	struct ana_state *st = pp_xcalloc(1, sizeof(*st));
	char why[320];
	int rc = ana_state_decode(data, size, st, why, sizeof(why));

	*out = NULL;
	if (rc) {
		snprintf(err, errsz, "%s: %s", name, why);
		ana_state_free(st);
		return rc;
	}
	st->path = pp_xstrdup(name);
	*out = st;
	return 0;
}

void ana_state_az_free(struct pp_az *az)
{
	struct ana_az_state *st = az->state;

	if (!st)
		return;
	argv_free(st->argv, st->argc);
	free(st->options);
	free(st->ids);
	free(st);
	az->state = NULL;
}

/* IDENT's events: what the instance's selectors matched, by position and name. */
static void matches_of(const struct pp_az *az, struct ana_state *st)
{
	st->matches = pp_xcalloc(az->nr_sels + 1, sizeof(*st->matches));
	for (size_t i = 0; i < az->nr_sels; i++)
		st->matches[i] = (struct ana_smatch){ az->sels[i].pos,
						      pp_xstrdup(az->sels[i].type->name) };
	st->nr_matches = az->nr_sels;
}

static int write_state(struct ana_state *st, struct pp_az *az, const char *path)
{
	struct pp_buf sec = PP_BUF_INIT, file = PP_BUF_INIT;
	char err[512];
	int rc = az->ops->state_write(az, &sec);

	if (rc) {	/* PP_EUSAGE: the analyzer said why, in its own line */
		if (rc != PP_EUSAGE)
			pp_err("%s: cannot make its state: %s", az->name, pp_strerror(rc));
		pp_buf_release(&sec);
		return 1;
	}
	ana_state_encode(st, sec.data ? sec.data : "", sec.len, &file);
	if (az->state && az->state->sink) {
		pp_buf_add(az->state->sink, file.data, file.len);	/* a worker's (parallel.c) */
		pp_buf_release(&sec);
		pp_buf_release(&file);
		return 0;
	}
	rc = ana_state_write_file(path, &file, err, sizeof(err));
	if (rc)
		pp_err("%s: %s", az->name, err);
	pp_buf_release(&sec);
	pp_buf_release(&file);
	return rc ? 1 : 0;
}

int ana_state_save(struct pp_az *az)
{
	struct ana_az_state *as = az->state;
	struct ana_state st = { 0 };
	int rc;

	st.analyzer = pp_xstrdup(az->name);
	st.version = az->an->ops->state_version;
	st.argv = argv_dup(as->argc, (const char *const *)as->argv);
	st.argc = as->argc;
	st.options = pp_xstrdup(as->options);
	matches_of(az, &st);
	st.srcs = pp_xcalloc(1, sizeof(*st.srcs));
	ana_ssrc_from_session(az->s, &st.srcs[0]);
	st.nr_srcs = 1;
	ana_sctx_from_session(az->s, az, &st.ctx);
	rc = write_state(&st, az, az->opt.state_out);
	ana_state_release(&st);
	return rc;
}

const char *ana_state_path(const struct ana_state *st)
{
	return st->path ? st->path : "(state)";
}

const char *const *ana_state_argv(const struct ana_state *st, int *argc)
{
	struct ana_state *w = (struct ana_state *)st;	/* the view is a cache */

	*argc = st->argc;
	/*
	 * A copy of the pointers: the parser reorders them and take_help() compacts them
	 * in place, which left st->argv with one string twice (a double free, fuzz-state)
	 */
	free(w->argv_view);
	w->argv_view = pp_xcalloc((size_t)st->argc + 1, sizeof(*w->argv_view));
	for (int i = 0; i < st->argc; i++)
		w->argv_view[i] = st->argv[i];
	return w->argv_view;
}

/* --- merging -------------------------------------------------------------------- */

static const struct ana_ssrc *latest(const struct ana_state *st)
{
	return &st->srcs[st->nr_srcs - 1];
}

static int cmp_inputs(const void *a, const void *b)
{
	return ana_ssrc_cmp(latest(*(struct ana_state *const *)a),
			    latest(*(struct ana_state *const *)b));
}

/* Why two states cannot be merged, or NULL. */
static const char *incompatible(const struct ana_state *a, const struct ana_state *b,
				struct pp_buf *why)
{
	if (strcmp(a->analyzer, b->analyzer)) {
		pp_buf_addf(why, "states of different analyzers (%s, %s)", a->analyzer, b->analyzer);
		return why->data;
	}
	if (a->version != b->version) {
		pp_buf_addf(why, "%s states of different versions (%u, %u): made by different pp "
			    "releases", a->analyzer, a->version, b->version);
		return why->data;
	}
	if (strcmp(a->options, b->options)) {
		pp_buf_addf(why, "different options: %s %s | %s %s", a->analyzer,
			    *a->options ? a->options : "(none)", b->analyzer,
			    *b->options ? b->options : "(none)");
		return why->data;
	}
	bool same = a->nr_matches == b->nr_matches;
	for (size_t i = 0; same && i < a->nr_matches; i++)
		same = a->matches[i].pos == b->matches[i].pos &&
		       !strcmp(a->matches[i].name, b->matches[i].name);
	if (!same) {
		pp_buf_adds(why, "their options matched different events (");
		for (size_t i = 0; i < a->nr_matches; i++)
			pp_buf_addf(why, "%s%s", i ? "," : "", a->matches[i].name);
		pp_buf_adds(why, " | ");
		for (size_t i = 0; i < b->nr_matches; i++)
			pp_buf_addf(why, "%s%s", i ? "," : "", b->matches[i].name);
		pp_buf_adds(why, ")");
		return why->data;
	}
	return NULL;
}

/* Sources sort with the index of their state, to name it in messages. */
struct src_ref {
	const struct ana_ssrc *s;
	size_t in, local;
};

static int cmp_refs(const void *a, const void *b)
{
	const struct src_ref *x = a, *y = b;

	return ana_ssrc_cmp(x->s, y->s);
}

int ana_merge_new(const struct ana_registry *reg, struct ana_state **v, size_t nr,
		  struct ana_merge **out, char *err, size_t errsz)
{
	struct ana_merge *m = pp_xcalloc(1, sizeof(*m));
	struct pp_buf why = PP_BUF_INIT;
	struct src_ref *refs;
	size_t n = 0;

	*out = m;
	m->in = v;
	m->registry = reg;
	m->nr_in = nr;
	for (size_t i = 1; i < nr; i++) {
		if (incompatible(v[0], v[i], &why)) {
			snprintf(err, errsz, "cannot merge '%s' and '%s': %s", v[0]->path, v[i]->path,
				 pp_buf_str(&why));
			pp_buf_release(&why);
			return PP_EUSAGE;
		}
	}
	/* a state names its analyzer: one with a state here, of the same layout */
	const struct pp_analyzer *an = reg ? reg->find(v[0]->analyzer) : NULL;
	if (!an || !an->ops->state_read || an->ops->state_version != v[0]->version) {
		if (!an || !an->ops->state_read)
			snprintf(err, errsz, "'%s': a state of '%s', which has no state in this "
				 "pp-analyze", v[0]->path, v[0]->analyzer);
		else
			snprintf(err, errsz, "'%s': a %s state of version %u; this pp-analyze reads "
				 "version %u", v[0]->path, v[0]->analyzer, v[0]->version,
				 an->ops->state_version);
		pp_buf_release(&why);
		return PP_EUSAGE;
	}
	for (size_t i = 0; i < nr; i++)
		n += v[i]->nr_srcs;
	refs = pp_xcalloc(n, sizeof(*refs));
	n = 0;
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < v[i]->nr_srcs; j++)
			refs[n++] = (struct src_ref){ &v[i]->srcs[j], i, j };
	qsort(refs, n, sizeof(*refs), cmp_refs);
	for (size_t k = 1; k < n; k++) {
		if (!ana_ssrc_overlap(refs[k - 1].s, refs[k].s))
			continue;
		ana_ssrc_describe(refs[k].s, &why);
		snprintf(err, errsz, "cannot merge '%s' and '%s': both hold time of the %s; merging "
			 "would count it twice (split a capture with --time ,T and --time T+1ns,)",
			 v[refs[k - 1].in]->path, v[refs[k].in]->path, pp_buf_str(&why));
		pp_buf_release(&why);
		free(refs);
		return PP_EUSAGE;
	}
	m->srcs = pp_xcalloc(n, sizeof(*m->srcs));
	m->gone = pp_xcalloc(n, sizeof(*m->gone));
	m->in_ids = pp_xcalloc(nr, sizeof(*m->in_ids));
	for (size_t i = 0; i < nr; i++)
		m->in_ids[i] = pp_xcalloc(v[i]->nr_srcs, sizeof(**m->in_ids));
	for (size_t k = 0; k < n; k++) {
		ana_ssrc_copy(&m->srcs[k], refs[k].s);
		m->srcs[k].id = (unsigned)k;
		m->in_ids[refs[k].in][refs[k].local] = (unsigned)k;
	}
	m->nr_srcs = n;
	free(refs);
	/* a canonical order of the inputs: their contexts merge with the later winning */
	unsigned **ids = pp_xcalloc(nr, sizeof(*ids));
	struct ana_state **sorted = pp_xcalloc(nr, sizeof(*sorted));
	memcpy(sorted, v, nr * sizeof(*v));
	qsort(sorted, nr, sizeof(*sorted), cmp_inputs);
	for (size_t i = 0; i < nr; i++)
		for (size_t j = 0; j < nr; j++)
			if (sorted[i] == v[j])
				ids[i] = m->in_ids[j];
	memcpy(v, sorted, nr * sizeof(*v));
	memcpy(m->in_ids, ids, nr * sizeof(*ids));
	free(sorted);
	free(ids);
	for (size_t i = 0; i < nr; i++)
		ana_sctx_merge(&m->ctx, &v[i]->ctx, true);
	pp_buf_release(&why);
	return 0;
}

void ana_merge_free(struct ana_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_in; i++) {
		ana_state_free(m->in[i]);
		free(m->in_ids ? m->in_ids[i] : NULL);
	}
	free(m->in);
	free(m->in_ids);
	for (size_t i = 0; i < m->nr_srcs; i++)
		ana_ssrc_release(&m->srcs[i]);
	free(m->srcs);
	free(m->gone);
	ana_sctx_release(&m->ctx);
	if (m->s)
		m->s->azs = NULL;
	ana_session_free(m->s);
	free(m);
}

struct ana_session *ana_merge_session(struct ana_merge *m)
{
	if (!m->s && ana_sctx_session(&m->ctx, m->srcs, m->nr_srcs, &m->s))
		pp_err("%s", m->s->errmsg);
	if (m->s)
		m->s->registry = m->registry;
	return m->s;
}

/* Join sources of one capture whose ranges touch: the analyzer first, then the ranges. */
static void join_adjacent(struct ana_merge *m, struct pp_az *az)
{
	size_t prev = 0;

	for (size_t k = 1; k < m->nr_srcs; k++) {
		struct ana_ssrc *a = &m->srcs[prev], *b = &m->srcs[k];

		if (!ana_ssrc_adjacent(a, b)) {
			prev = k;
			continue;
		}
		az->ops->state_join(az, a->id, b->id);
		a->range_end_ns = b->range_end_ns;
		if (b->first_ns && (!a->first_ns || b->first_ns < a->first_ns))
			a->first_ns = b->first_ns;
		if (b->last_ns > a->last_ns)
			a->last_ns = b->last_ns;
		a->have_sync = b->have_sync;
		a->sync_perf_ns = b->sync_perf_ns;
		a->sync_real_ns = b->sync_real_ns;
		m->gone[k] = true;
	}
}

static bool same_events(const struct pp_az *az, const struct ana_state *st)
{
	if (az->nr_sels != st->nr_matches)
		return false;
	for (size_t i = 0; i < az->nr_sels; i++)
		if (az->sels[i].pos != st->matches[i].pos ||
		    strcmp(az->sels[i].type->name, st->matches[i].name))
			return false;
	return true;
}

int ana_merge_load(struct ana_merge *m, struct pp_az *az)
{
	struct ana_az_state *as;
	int rc;

	/* before ->init(): analyzers add their own events to -e, top sets -i */
	char *canon = ana_state_options(az);
	bool same = !strcmp(canon, m->in[0]->options);
	free(canon);
	if (!same) {
		pp_err("'%s': its options read differently here (%s): a state made by another pp "
		       "release", m->in[0]->path, m->in[0]->options);
		return 1;
	}
	m->az = az;
	az->s = m->s;
	m->s->azs = &m->az;
	m->s->nr_azs = 1;
	rc = ana_az_select(az);
	if (!rc)
		rc = az->ops->init(az);
	if (rc)
		return rc == PP_EUNKNOWN_EVENT || rc == PP_ESYNTAX || rc == PP_EUNKNOWN_FIELD ||
		       rc == PP_ETYPE || rc == PP_EUSAGE || rc == PP_ENOTSUP ? 2 : 1;
	m->s->inited = true;
	if (!same_events(az, m->in[0])) {
		pp_err("'%s': its options match other events in its own context than it lists: a "
		       "damaged state, or one made by another pp release", m->in[0]->path);
		return 1;
	}
	as = pp_xcalloc(1, sizeof(*as));
	as->ids = pp_xcalloc(m->nr_srcs, sizeof(*as->ids));
	as->srcs = m->srcs;
	as->nr_srcs = m->nr_srcs;
	az->state = as;
	for (size_t i = 0; i < m->nr_in; i++) {
		struct pp_wire r;

		pp_wire_init(&r, m->in[i]->az_data, m->in[i]->az_size);
		as->in_ids = m->in_ids[i];
		as->nr_in = m->in[i]->nr_srcs;
		rc = az->ops->state_read(az, &r);
		if (!rc && pp_wire_left(&r))
			rc = pp_wire_fail(&r, PP_EBAD_LENGTH, "%zu bytes after its end", pp_wire_left(&r));
		if (rc) {
			pp_err("'%s': the %s section: %s", m->in[i]->path, az->name,
			       r.msg[0] ? r.msg : pp_strerror(rc));
			return 1;
		}
	}
	as->in_ids = NULL;
	as->nr_in = 0;
	join_adjacent(m, az);
	for (size_t k = 0; k < m->nr_srcs; k++)
		if (!m->gone[k])
			as->ids[as->nr_ids++] = m->srcs[k].id;
	return 0;
}

int ana_merge_write(struct ana_merge *m, struct pp_az *az, const char *path)
{
	const struct ana_state *first = m->in[0];
	struct ana_state st = { 0 };
	int rc;

	st.analyzer = pp_xstrdup(first->analyzer);
	st.version = first->version;
	st.argv = argv_dup(first->argc, (const char *const *)first->argv);
	st.argc = first->argc;
	st.options = pp_xstrdup(first->options);
	matches_of(az, &st);
	st.srcs = pp_xcalloc(m->nr_srcs, sizeof(*st.srcs));
	for (size_t k = 0; k < m->nr_srcs; k++)
		if (!m->gone[k])
			ana_ssrc_copy(&st.srcs[st.nr_srcs++], &m->srcs[k]);
	st.ctx = m->ctx;
	rc = write_state(&st, az, path);
	memset(&st.ctx, 0, sizeof(st.ctx));	/* the merge's */
	ana_state_release(&st);
	return rc;
}

int ana_merge_report(struct ana_merge *m, struct pp_az *az)
{
	int rc = az->ops->finish(az);

	if (rc && !az->exit_status)
		az->exit_status = rc < 0 ? 1 : rc;
	return az->exit_status;
}
