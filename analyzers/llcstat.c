/* SPDX-License-Identifier: MIT */
/*
 * llcstat.c - last-level cache references, misses and hit rate per CPU
 * (perf-prof's llcstat).
 *
 * pp-record counts cache-references and cache-misses on every CPU and reads
 * them each -i; each round prints one row per CPU: the round's references and
 * misses, HIT% = (references - misses) / references (0 when misses are not
 * fewer), RUN% of the references counter.  MISS-LATENCY is what perf-prof
 * reads from AMD's amd_l3 PMU; pp does not record it: "<not supported>", as
 * perf-prof prints on Intel.  The table is the count engine's (hwtab.c).
 */
#include "analyze/analyzer.h"
#include "analyze/count/count.h"
#include "common/log.h"

static const char *const llcstat_events[] = { "cache-references", "cache-misses", NULL };

static const struct ana_hwtab_col llcstat_cols[] = {
	{ " ", "REFERENCE", 9, ANA_HWTAB_COUNT, 0, 0, "references", NULL },
	{ " ", "MISSES", 9, ANA_HWTAB_COUNT, 1, 0, "misses", NULL },
	{ "  ", "HIT%", 6, ANA_HWTAB_HIT, 0, 1, "hit_pct", NULL },
	{ " ", "RUN%", 7, ANA_HWTAB_RUN, 0, 0, "run_pct", NULL },
	{ "  ", "MISS-LATENCY", 12, ANA_HWTAB_TEXT, 0, 0, NULL, "<not supported>" },
};

static const struct ana_hwtab_ops llcstat_table = {
	.events = llcstat_events,
	.head_lead = " L3",
	.row_lead = "   ",
	.cols = llcstat_cols,
	.nr_cols = PP_ARRAY_SIZE(llcstat_cols),
};

static int llcstat_init(struct pp_az *az)
{
	return ana_hwtab_init(az, &llcstat_table);
}

const struct pp_analyzer_ops az_llcstat_ops = {
	.summary = "last-level cache references, misses and HIT% per CPU each -i, with RUN% (hardware PMU counters)",
	.usage = "pp-analyze FILE llcstat [-C CPUS] [-i MS] [--exclude-host]",
	.examples = "  pp llcstat -i 1000\n"
		    "  pp llcstat -C 0-3 -i 1000\n"
		    "  pp-record --for llcstat -a --duration 10 -o llc.pp\n"
		    "  pp-analyze llc.pp llcstat --format csv\n",
	ANA_HWTAB_OPS(llcstat_events, llcstat_init),
};
