/* SPDX-License-Identifier: MIT */
/*
 * ldlat-loads.c - retired load latency per data source (perf-prof's ldlat-loads).
 *
 * The capture's mem-loads samples (Intel PEBS load latency: loads at least
 * --ldlat cycles slow, one sample every -T of them) carry each load's latency
 * and data source; per data source ("L1 hit|SNP None|TLB L1 or L2 hit|LCK
 * No", and per CPU or thread with --perins) the samples and their latency
 * total, min, avg and max are printed each -i and at the end.  --than N
 * prints the samples slower than N cycles, -v all of them.  The tables are
 * the mem engine's (analyze/mem/ldlat.c).
 */
#include "analyze/analyzer.h"
#include "analyze/mem/mem.h"

static const char *const ldlat_loads_events[] = { "mem-loads", NULL };

const struct pp_analyzer_ops az_ldlat_loads_ops = {
	.summary = "retired load latency per data source: samples total min avg max in cycles (Intel PEBS)",
	.usage = "pp-analyze FILE ldlat-loads [--perins] [--than CYCLES] [-v] [-i MS]   "
		 "(record: [--ldlat CYCLES] [-T N])",
	.examples = "  pp ldlat-loads -C 0 -i 1000\n"
		    "  pp ldlat-loads -p 2347 --ldlat 10 --than 100 -i 1000\n"
		    "  pp-record --for 'ldlat-loads --ldlat 30 -T 100' -a --duration 5 -o ld.pp\n"
		    "  pp-analyze ld.pp ldlat-loads --perins --format json\n",
	.priv_size = sizeof(struct ana_ldlat),
	.flags = PP_AZ_NO_EVENTS,
	.builtin_events = ldlat_loads_events,
	.init = ana_ldlat_init,
	.event = ana_ldlat_event,
	.interval = ana_ldlat_interval,
	.finish = ana_ldlat_finish,
	.release = ana_ldlat_release,
};
