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

static const char *const llcstat_events[] = { "cache-references", "cache-misses", NULL };

static void llcstat_head(struct pp_buf *b)
{
	pp_buf_addf(b, " L3 %9s %9s  %6s %7s  %12s\n", "REFERENCE", "MISSES", "HIT%", "RUN%",
		    "MISS-LATENCY");
}

static size_t llcstat_row(const struct ana_hwtab_counts *c, struct pp_buf *b,
			  struct ana_hwtab_val *v)
{
	uint64_t refs = c->d[0], misses = c->d[1];
	double hit = refs > misses ? (double)(refs - misses) * 100.0 / (double)refs : 0.0;

	pp_buf_addf(b, "    %9llu %9llu  %5.2f%% %6.2f%%  <not supported>\n",
		    (unsigned long long)refs, (unsigned long long)misses, hit, c->run_pct);
	v[0] = (struct ana_hwtab_val){ .key = "references", .u = refs };
	v[1] = (struct ana_hwtab_val){ .key = "misses", .u = misses };
	v[2] = (struct ana_hwtab_val){ .key = "hit_pct", .real = true, .f = hit };
	v[3] = (struct ana_hwtab_val){ .key = "run_pct", .real = true, .f = c->run_pct };
	return 4;
}

static const struct ana_hwtab_ops llcstat_table = {
	.nr_events = 2,
	.head = llcstat_head,
	.row = llcstat_row,
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
	.priv_size = sizeof(void *),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,
	.builtin_events = llcstat_events,
	.init = llcstat_init,
	.event = ana_hwtab_event,
	.finish = ana_hwtab_finish,
	.release = ana_hwtab_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = ana_cnt_az_state_write,
	.state_read = ana_cnt_az_state_read,
	.state_join = ana_cnt_az_state_join,
};
