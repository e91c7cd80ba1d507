/* SPDX-License-Identifier: MIT */
/*
 * ldlat-stores.c - retired stores per data source (perf-prof's ldlat-stores).
 *
 * ldlat-loads' tables (analyze/mem/ldlat.c) over the capture's mem-stores
 * samples (Intel PEBS: every -T-th retired store, with its latency and data
 * source); the header says "Mem Load Latency", as perf-prof's does.
 */
#include "analyze/analyzer.h"
#include "analyze/mem/mem.h"

static const char *const ldlat_stores_events[] = { "mem-stores", NULL };

const struct pp_analyzer_ops az_ldlat_stores_ops = {
	.summary = "retired store latency per data source: samples total min avg max in cycles (Intel PEBS)",
	.usage = "pp-analyze FILE ldlat-stores [--perins] [--than CYCLES] [-v] [-i MS]   "
		 "(record: [-T N])",
	.examples = "  pp ldlat-stores -C 0 -i 1000\n"
		    "  pp ldlat-stores -p 2347 -v -i 1000\n"
		    "  pp-record --for 'ldlat-stores -T 100' -a --duration 5 -o st.pp\n"
		    "  pp-analyze st.pp ldlat-stores --perins\n",
	.priv_size = sizeof(struct ana_ldlat),
	.flags = PP_AZ_NO_EVENTS,
	.builtin_events = ldlat_stores_events,
	.init = ana_ldlat_init,
	.event = ana_ldlat_event,
	.interval = ana_ldlat_interval,
	.finish = ana_ldlat_finish,
	.release = ana_ldlat_release,
};
