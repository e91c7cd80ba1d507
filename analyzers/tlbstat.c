/* SPDX-License-Identifier: MIT */
/*
 * tlbstat.c - data TLB loads, stores, misses and hit rates per CPU
 * (perf-prof's tlbstat).
 *
 * pp-record counts dTLB-load-misses, dTLB-loads, dTLB-store-misses and
 * dTLB-stores on every CPU and reads them each -i; each round prints one row
 * per CPU: loads, load misses, load HIT%, stores, store misses, store HIT%
 * (HIT% = (accesses - misses) / accesses, 0 when misses are not fewer) and
 * RUN% of the load misses, the counter perf-prof leads with.  The table is
 * the count engine's (analyze/count/hwtab.c).
 */
#include "analyze/analyzer.h"
#include "analyze/count/count.h"
#include "common/log.h"

static const char *const tlbstat_events[] = { "dTLB-load-misses", "dTLB-loads",
					       "dTLB-store-misses", "dTLB-stores", NULL };

static const struct ana_hwtab_col tlbstat_cols[] = {
	{ " ", "LOADS", 9, ANA_HWTAB_COUNT, 1, 0, "loads", NULL },
	{ " ", "MISSES", 9, ANA_HWTAB_COUNT, 0, 0, "load_misses", NULL },
	{ "  ", "HIT%", 7, ANA_HWTAB_HIT, 1, 0, "load_hit_pct", NULL },
	{ " ", "STORES", 9, ANA_HWTAB_COUNT, 3, 0, "stores", NULL },
	{ " ", "MISSES", 9, ANA_HWTAB_COUNT, 2, 0, "store_misses", NULL },
	{ "  ", "HIT%", 7, ANA_HWTAB_HIT, 3, 2, "store_hit_pct", NULL },
	{ " ", "RUN%", 7, ANA_HWTAB_RUN, 0, 0, "run_pct", NULL },
};

static const struct ana_hwtab_ops tlbstat_table = {
	.events = tlbstat_events,
			.cols = tlbstat_cols,
	.nr_cols = PP_ARRAY_SIZE(tlbstat_cols),
};

static int tlbstat_init(struct pp_az *az)
{
	return ana_hwtab_init(az, &tlbstat_table);
}

const struct pp_analyzer_ops az_tlbstat_ops = {
	.summary = "data TLB loads, stores, misses and HIT% per CPU each -i, with RUN% (hardware PMU counters)",
	.usage = "pp-analyze FILE tlbstat [-C CPUS] [-i MS] [--exclude-host]",
	.examples = "  pp tlbstat -i 1000\n"
		    "  pp tlbstat -C 0-3 -i 1000\n"
		    "  pp-record --for 'tlbstat -C 0-3' --duration 10 -o tlb.pp\n"
		    "  pp-analyze tlb.pp tlbstat -i 5000\n",
	ANA_HWTAB_OPS(tlbstat_events, tlbstat_init),
};
