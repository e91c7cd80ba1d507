/* SPDX-License-Identifier: MIT */
/*
 * perfeval.c - perf-prof's performance evaluation: --perfeval-cpus, --perfeval-pids.
 *
 * How many of an analyzer's events happened on some CPUs (or in some
 * threads): every -i, per second, "sampled" events in all and "matched" on
 * the listed instances, on how many of them.  With --sampling-limit N an
 * interval where the listed instances had more than N events a second each on
 * average ends the analysis, as perf-prof closes its device, after a line per
 * instance.  perf-prof's layout:
 *   2026-01-01 00:00:01.000000 trace: perfeval cpus(0): sampled 812 events matched 407 on 1 instances
 * In a capture it measures what was recorded; live, what is happening now.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/err.h"
#include "common/log.h"
#include "common/units.h"

struct ana_perfeval_side {
	int *list;			/* sorted CPUs or tids */
	size_t nr;
	uint64_t *count;		/* per list entry, this interval */
	uint64_t sampled, matched;
	const char *text;		/* as given */
};

struct ana_perfeval {
	struct ana_perfeval_side side[2];	/* 0: cpus, 1: pids */
	uint64_t interval_ns, next_ns;
	bool stopped;
};

static int side_init(struct ana_perfeval_side *sd, const char *text, const char *opt,
		     const char *name)
{
	if (!text)
		return 0;
	if (pp_parse_list(text, 0, &sd->list, &sd->nr) || !sd->nr) {
		pp_err("%s: --%s %s is not a list (0,2-5)", name, opt, text);
		return PP_EUSAGE;
	}
	sd->count = pp_xcalloc(sd->nr, sizeof(*sd->count));
	sd->text = text;
	return 0;
}

int ana_perfeval_init(struct pp_az *az)
{
	const struct pp_common_opts *c = &az->opt;
	struct ana_perfeval *pe;
	int rc;

	if (!c->perfeval_cpus && !c->perfeval_pids)
		return 0;
	if (!c->interval_ns) {
		pp_err("%s: --perfeval-%s reports every -i: give -i MS", az->name,
		       c->perfeval_cpus ? "cpus" : "pids");
		return PP_EUSAGE;
	}
	pe = pp_xcalloc(1, sizeof(*pe));
	pe->interval_ns = c->interval_ns;
	rc = side_init(&pe->side[0], c->perfeval_cpus, "perfeval-cpus", az->name);
	if (!rc)
		rc = side_init(&pe->side[1], c->perfeval_pids, "perfeval-pids", az->name);
	az->perfeval = pe;
	return rc;
}

bool ana_perfeval_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ana_perfeval *pe = az->perfeval;

	if (!pe->next_ns)
		pe->next_ns = ev->time_ns + pe->interval_ns;
	if (ev->time_ns >= pe->next_ns)
		ana_perfeval_tick(az, ev->time_ns);
	if (pe->stopped)
		return false;
	for (int i = 0; i < 2; i++) {
		struct ana_perfeval_side *sd = &pe->side[i];
		int64_t key = i ? (int64_t)ev->tid : (int64_t)ev->cpu;
		size_t lo = 0, hi = sd->nr;

		if (!sd->nr)
			continue;
		sd->sampled++;
		while (lo < hi) {	/* the list is sorted */
			size_t mid = (lo + hi) / 2;

			if (sd->list[mid] < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < sd->nr && sd->list[lo] == key) {
			sd->count[lo]++;
			sd->matched++;
		}
	}
	return true;
}

static void report(struct pp_az *az, struct ana_perfeval_side *sd, int i, uint64_t t)
{
	struct ana_perfeval *pe = az->perfeval;
	uint64_t ms = pe->interval_ns / 1000000 ? pe->interval_ns / 1000000 : 1;
	uint64_t sampled = sd->sampled * 1000 / ms, matched = sd->matched * 1000 / ms;
	size_t nr_ins = 0;
	bool over;
	char when[48];

	for (size_t k = 0; k < sd->nr; k++)
		nr_ins += sd->count[k] != 0;
	over = az->opt.sampling_limit > 0 && nr_ins &&
	       matched / nr_ins > (uint64_t)az->opt.sampling_limit;
	ana_time_str(az->s, t, when, sizeof(when));
	az->ops->flush(az);	/* the analyzer's lines so far come first */
	fprintf(az->out.fp, "%s %s: perfeval %s(%s): sampled %llu events matched %llu on %zu instances%s\n",
		when, az->name, i ? "pids" : "cpus", sd->text, (unsigned long long)sampled,
		(unsigned long long)matched, nr_ins, over ? ", exceeds the limit, exit" : "");
	for (size_t k = 0; k < sd->nr; k++) {
		if (over && sd->count[k])
			fprintf(az->out.fp, "%s %s: perfeval: %s %d sampled %llu events\n", when,
				az->name, i ? "tid" : "cpu", sd->list[k],
				(unsigned long long)sd->count[k]);
		sd->count[k] = 0;
	}
	sd->sampled = sd->matched = 0;
	if (over)
		pe->stopped = true;
}

void ana_perfeval_tick(struct pp_az *az, uint64_t t)
{
	struct ana_perfeval *pe = az->perfeval;

	while (pe->next_ns && t >= pe->next_ns && !pe->stopped) {
		for (int i = 0; i < 2; i++)
			if (pe->side[i].nr && pe->side[i].sampled)	/* as perf-prof: quiet intervals say nothing */
				report(az, &pe->side[i], i, pe->next_ns);
		pe->next_ns += pe->interval_ns;
		if (t >= pe->next_ns + 1000 * pe->interval_ns)	/* a long gap: no empty reports */
			pe->next_ns = t - (t - pe->next_ns) % pe->interval_ns;
	}
	if (pe->stopped)
		ana_session_stop(az->s);	/* perf-prof closes the device: the run ends */
}

void ana_perfeval_free(struct pp_az *az)
{
	struct ana_perfeval *pe = az->perfeval;

	if (!pe)
		return;
	for (int i = 0; i < 2; i++) {
		free(pe->side[i].list);
		free(pe->side[i].count);
	}
	free(pe);
	az->perfeval = NULL;
}
