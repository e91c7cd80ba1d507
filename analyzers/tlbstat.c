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

static const char *const tlbstat_events[] = { "dTLB-load-misses", "dTLB-loads",
					       "dTLB-store-misses", "dTLB-stores", NULL };

static double hit_pct(uint64_t access, uint64_t miss)
{
	return access > miss ? (double)(access - miss) * 100.0 / (double)access : 0.0;
}

static void tlbstat_head(struct pp_buf *b)
{
	pp_buf_addf(b, " %9s %9s  %7s %9s %9s  %7s %7s\n", "LOADS", "MISSES", "HIT%", "STORES",
		    "MISSES", "HIT%", "RUN%");
}

static size_t tlbstat_row(const struct ana_hwtab_counts *c, struct pp_buf *b,
			  struct ana_hwtab_val *v)
{
	uint64_t load_misses = c->d[0], loads = c->d[1], store_misses = c->d[2], stores = c->d[3];
	double load_hit = hit_pct(loads, load_misses), store_hit = hit_pct(stores, store_misses);

	pp_buf_addf(b, " %9llu %9llu  %6.2f%% %9llu %9llu  %6.2f%% %6.2f%%\n",
		    (unsigned long long)loads, (unsigned long long)load_misses, load_hit,
		    (unsigned long long)stores, (unsigned long long)store_misses, store_hit,
		    c->run_pct);
	v[0] = (struct ana_hwtab_val){ .key = "loads", .u = loads };
	v[1] = (struct ana_hwtab_val){ .key = "load_misses", .u = load_misses };
	v[2] = (struct ana_hwtab_val){ .key = "load_hit_pct", .real = true, .f = load_hit };
	v[3] = (struct ana_hwtab_val){ .key = "stores", .u = stores };
	v[4] = (struct ana_hwtab_val){ .key = "store_misses", .u = store_misses };
	v[5] = (struct ana_hwtab_val){ .key = "store_hit_pct", .real = true, .f = store_hit };
	v[6] = (struct ana_hwtab_val){ .key = "run_pct", .real = true, .f = c->run_pct };
	return 7;
}

static const struct ana_hwtab_ops tlbstat_table = {
	.nr_events = 4,
	.head = tlbstat_head,
	.row = tlbstat_row,
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
	.priv_size = sizeof(void *),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,
	.builtin_events = tlbstat_events,
	.init = tlbstat_init,
	.event = ana_hwtab_event,
	.finish = ana_hwtab_finish,
	.release = ana_hwtab_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = ana_cnt_az_state_write,
	.state_read = ana_cnt_az_state_read,
	.state_join = ana_cnt_az_state_join,
};
