/* SPDX-License-Identifier: MIT */
/*
 * plan.c - `--for 'ANALYZER ARGS'`: an analyzer's plan turned into session settings.
 *
 * The string is split like a shell would, the analyzer is looked up among
 * the plans linked into pp-record (plans.c, from analyzers.def), and its
 * plan is built with the analyzer's own option table.  Its events are added
 * like -e arguments (an event another --for already asked for in the same
 * words is opened once); -g, sampling, exclude bits, ring size and targets
 * are merged into the options.  Two sources asking for different targets
 * or rates is an error naming both.
 */
#include <stdlib.h>
#include <string.h>

#include "common/argv.h"
#include "common/err.h"
#include "common/log.h"
#include "common/plan.h"
#include "record/err.h"
#include "record/perf/counters.h"
#include "record/plan.h"
#include "record/plans.h"
#include "record/session.h"

/* Keep a string for the session's lifetime (the options borrow it). */
static const char *keep(struct rec_session *s, const char *v)
{
	s->owned = pp_xrealloc(s->owned, (s->nr_owned + 1) * sizeof(*s->owned));
	s->owned[s->nr_owned] = pp_xstrdup(v);
	return s->owned[s->nr_owned++];
}

static int merge_str(struct rec_session *s, const char *what, const char **have,
		     const char *want, const char *args, char *msg, size_t msg_sz)
{
	if (!want)
		return 0;
	if (*have && strcmp(*have, want))
		return rec_errf(msg, msg_sz, PP_EUSAGE, "--for '%s' needs %s %s, but %s %s is given",
					args, what, want, what, *have);
	if (!*have)
		*have = keep(s, want);
	return 0;
}

static int merge_u64(struct rec_session *s, const char *what, uint64_t *have, uint64_t want,
		     const char *args, char *msg, size_t msg_sz)
{
	if (!want)
		return 0;
	if (*have && *have != want)
		return rec_errf(msg, msg_sz, PP_EUSAGE,
					"--for '%s' needs %s %llu, but %s %llu is given", args, what,
					(unsigned long long)want, what, (unsigned long long)*have);
	*have = want;
	return 0;
}

static bool already_added(const struct rec_session *s, const char *sel)
{
	for (size_t i = 0; i < s->nr_added; i++)
		if (!strcmp(s->added[i], sel))
			return true;
	return false;
}

int rec_plan_apply(struct rec_session *s, const char *analyzer_args, char *msg, size_t msg_sz)
{
	struct rec_opts *o = &s->opts;
	const struct pp_plan_ops *ops;
	struct pp_plan p = { 0 };
	char **argv = NULL, err[512] = "";
	int argc = 0, rc;

	rc = pp_argv_split(analyzer_args, &argv, &argc);
	if (rc)
		return rec_errf(msg, msg_sz, rc, "--for '%s': unbalanced quotes", analyzer_args);
	if (argc < 1) {
		pp_argv_free(argv);
		return rec_errf(msg, msg_sz, PP_EUSAGE, "--for needs an analyzer: --for 'trace -e EVENTS'");
	}
	ops = rec_plan_find(argv[0]);
	if (!ops) {
		rc = rec_errf(msg, msg_sz, PP_EUNKNOWN_EVENT,
				      "--for '%s': no analyzer '%s' (see pp-analyze help)",
				      analyzer_args, argv[0]);
		pp_argv_free(argv);
		return rc;
	}
	/* option parsing may reorder the vector: give it a copy, free the strings from ours */
	const char **args = pp_xcalloc((size_t)argc, sizeof(*args));
	memcpy(args, argv + 1, (size_t)(argc - 1) * sizeof(*args));
	rc = pp_plan_build(argv[0], ops, argc - 1, args, &p, err, sizeof(err));
	if (rc == PP_OPT_HELP)
		rc = rec_errf(msg, msg_sz, PP_EUSAGE, "--for '%s': help is not a recording",
				      analyzer_args);
	else if (rc)
		rc = rec_errf(msg, msg_sz, rc, "--for '%s': %s", analyzer_args, err);
	const struct { const char *what, **have, *want; } strs[] = {
		{ "-C", &o->cpus, p.cpus },
		{ "-p", &o->pids, p.pids },
		{ "-t", &o->tids, p.tids },
		{ "--cgroups", &o->cgroups, p.cgroups },
	};
	for (size_t i = 0; !rc && i < PP_ARRAY_SIZE(strs); i++)
		rc = merge_str(s, strs[i].what, strs[i].have, strs[i].want, analyzer_args, msg,
			       msg_sz);
	if (!rc)
		rc = merge_u64(s, "-F", &o->freq, p.freq, analyzer_args, msg, msg_sz);
	if (!rc)
		rc = merge_u64(s, "--period", &o->period, p.period, analyzer_args, msg, msg_sz);
	if (!rc && p.nr_counters)
		rc = merge_u64(s, "--count-period", &o->count_period, p.count_period, analyzer_args, msg, msg_sz);
	if (!rc && p.nr_counters && o->count_leader != p.count_leader && s->nr_counted)
		rc = rec_errf(msg, msg_sz, PP_EUSAGE,
				      "--for '%s': counters read by a sampling leader and by the timer cannot mix",
				      analyzer_args);
	if (!rc) {
		/* a stack wanted by one analyzer is a stack recorded: analyzers may ignore it */
		o->callgraph |= p.callchain;
		if (p.dwarf_sz > o->dwarf_sz)	/* the biggest copy any of them asks for */
			o->dwarf_sz = p.dwarf_sz;
		o->user_callchain &= p.user_callchain || !p.callchain;
		o->kernel_callchain &= p.kernel_callchain || !p.callchain;
		o->exclude_user |= p.exclude_user;
		o->exclude_kernel |= p.exclude_kernel;
		o->exclude_host |= p.exclude_host;
		o->exclude_guest |= p.exclude_guest;
		if (p.watermark)	/* the analyzer's --watermark, as perf-prof's */
			o->watermark = p.watermark;
		o->sideband |= p.sideband;
		o->regs |= p.regs;
		if (p.all_cpus && !o->cpus && !o->pids && !o->tids && !o->cgroups)
			o->all_cpus = true;
		if (p.mmap_pages > 0 && p.mmap_pages > o->mmap_pages)
			o->mmap_pages = p.mmap_pages;
	}
	if (!rc && p.nr_counters) {
		o->count_leader = p.count_leader;
		o->count_no_samples = p.count_no_samples;
	}
	for (size_t i = 0; !rc && i < p.nr_counters; i++) {
		rc = rec_counters_add(s, p.counters[i], msg, msg_sz);
		s->nr_counted++;
	}
	for (size_t i = 0; !rc && i < p.nr_events; i++) {
		if (already_added(s, p.events[i]))
			continue;
		rc = rec_evsels_add(s, p.events[i], msg, msg_sz);
		s->added = pp_xrealloc(s->added, (s->nr_added + 1) * sizeof(*s->added));
		s->added[s->nr_added++] = pp_xstrdup(p.events[i]);
	}
	pp_plan_release(&p);
	free(args);
	pp_argv_free(argv);
	return rc;
}
