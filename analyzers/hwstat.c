/* SPDX-License-Identifier: MIT */
/*
 * hwstat.c - cycles, instructions and IPC per CPU (perf-prof's hwstat).
 *
 * pp-record counts cycles and instructions on every CPU and reads them each
 * -i; each round prints one row per CPU: the counts of the round, IPC =
 * instructions / cycles, and RUN% = time_running / time_enabled of cycles
 * (below 100% when the kernel multiplexed the PMU).  The table is the count
 * engine's (analyze/count/hwtab.c).
 */
#include "analyze/analyzer.h"
#include "analyze/count/count.h"

static const char *const hwstat_events[] = { "cycles", "instructions", NULL };

static void hwstat_head(struct pp_buf *b)
{
	pp_buf_addf(b, " %10s %10s   %4s  %7s\n", "CYCLES", "INSNS", "IPC", "RUN%");
}

static size_t hwstat_row(const struct ana_hwtab_counts *c, struct pp_buf *b,
			 struct ana_hwtab_val *v)
{
	uint64_t cycles = c->d[0], insns = c->d[1];
	double ipc = cycles ? (double)insns / (double)cycles : 0.0;

	pp_buf_addf(b, " %10llu %10llu   %4.2f  %6.2f%%\n", (unsigned long long)cycles,
		    (unsigned long long)insns, ipc, c->run_pct);
	v[0] = (struct ana_hwtab_val){ .key = "cycles", .u = cycles };
	v[1] = (struct ana_hwtab_val){ .key = "instructions", .u = insns };
	v[2] = (struct ana_hwtab_val){ .key = "ipc", .real = true, .f = ipc };
	v[3] = (struct ana_hwtab_val){ .key = "run_pct", .real = true, .f = c->run_pct };
	return 4;
}

static const struct ana_hwtab_ops hwstat_table = {
	.nr_events = 2,
	.head = hwstat_head,
	.row = hwstat_row,
};

static int hwstat_init(struct pp_az *az)
{
	return ana_hwtab_init(az, &hwstat_table);
}

const struct pp_analyzer_ops az_hwstat_ops = {
	.summary = "cycles, instructions and IPC per CPU each -i, with RUN% (hardware PMU counters)",
	.usage = "pp-analyze FILE hwstat [-C CPUS] [-i MS] [--exclude-host]",
	.examples = "  pp hwstat -i 1000\n"
		    "  pp hwstat -C 0-3 -i 1000\n"
		    "  pp-record --for 'hwstat -i 500' -a --duration 10 -o hw.pp\n"
		    "  pp-analyze hw.pp hwstat -i 2000 --format json\n",
	.priv_size = sizeof(void *),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,
	.builtin_events = hwstat_events,
	.init = hwstat_init,
	.event = ana_hwtab_event,
	.finish = ana_hwtab_finish,
	.release = ana_hwtab_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = ana_cnt_az_state_write,
	.state_read = ana_cnt_az_state_read,
	.state_join = ana_cnt_az_state_join,
};
