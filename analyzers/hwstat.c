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
#include "common/log.h"

static const char *const hwstat_events[] = { "cycles", "instructions", NULL };

static const struct ana_hwtab_col hwstat_cols[] = {
	{ " ", "CYCLES", 10, ANA_HWTAB_COUNT, 0, 0, "cycles", NULL },
	{ " ", "INSNS", 10, ANA_HWTAB_COUNT, 1, 0, "instructions", NULL },
	{ "   ", "IPC", 4, ANA_HWTAB_RATIO, 1, 0, "ipc", NULL },		/* instructions / cycles */
	{ "  ", "RUN%", 7, ANA_HWTAB_RUN, 0, 0, "run_pct", NULL },
};

static const struct ana_hwtab_ops hwstat_table = {
	.events = hwstat_events,
			.cols = hwstat_cols,
	.nr_cols = PP_ARRAY_SIZE(hwstat_cols),
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
	ANA_HWTAB_OPS(hwstat_events, hwstat_init),
};
