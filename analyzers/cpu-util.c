/* SPDX-License-Identifier: MIT */
/*
 * cpu-util.c - CPU utilisation per CPU, per -i (perf-prof's cpu-util).
 *
 * Two sources, whichever the capture holds (cpu-util-plan.c records the one
 * this machine has):
 *  - cycles counted per CPU (a hardware PMU): each reading is printed as it
 *    comes, perf-prof's line without the percentage (that needs the TSC rate,
 *    which the capture does not keep): "cpu N [host,guest] [all] C cycles";
 *  - the software fallback, cpu-clock samples every period on each CPU: a
 *    sample stands for its period of whatever the CPU was doing when the
 *    timer fired: idle (the idle task, tid 0), kernel (an IP in the kernel
 *    half) or user.  Each round of -i the busy share of the sampled time is
 *    printed, in ns where perf-prof prints cycles:
 *      "cpu N [host,guest] 12.34% [all] 123000000 ns"
 *    [usr] and [sys] are the user and kernel shares (--exclude-kernel,
 *    --exclude-user, or both under [all] with --split).  Dividing by the
 *    sampled time rather than the round's length keeps a partial round (the
 *    first, the last) and lost samples exact; time the hypervisor took from a
 *    vCPU is not sampled, so it counts for neither.
 * perf-prof prints nothing for a zero count; neither does this.
 * Not here: choosing the source (the plan), reading counters (record/perf/counters.c).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "analyze/analyzer.h"
#include "analyzers/cpu-util.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/log.h"
#include "common/percpu.h"

enum cu_mode { CU_ALL, CU_USR, CU_SYS };

static const char *const cu_mode_str[] = { "all", "usr", "sys" };
static const char *const cu_in_str[] = { "host,guest", "host", "guest" };

struct cu_cpu {
	uint64_t sampled_ns;		/* every sample of the round, idle ones too */
	uint64_t busy_ns[3];		/* by enum cu_mode */
};

struct cu_priv {
	bool cycles;			/* the source: cycles counters, else cpu-clock samples */
	enum cu_mode mode;		/* the line printed (perf-prof's exclude bits) */
	bool split;			/* all, usr and sys lines */
	const char *in;			/* host,guest | host | guest */
	struct cu_cpu *cpus;
	size_t nr_cpus;
	uint64_t last_ns;		/* the last sample (the end of a partial round) */
	bool csv_head;
	struct pp_buf line;
};

/* The sources a capture may hold, counted cycles first. */
static const char *const cu_cycles[] = { "cycles", "cpu-cycles", "ref-cycles", NULL };

static bool is_cycles(const char *name)
{
	for (const char *const *c = cu_cycles; *c; c++)
		if (!strcmp(*c, name))
			return true;
	return false;
}

static int cu_set_events(struct pp_az *az, struct pp_strlist *events)
{
	for (const char *const *c = cu_cycles; *c; c++) {
		if (ana_evtype_find(az->s, *c)) {
			pp_strlist_push(events, *c);
			return 0;
		}
	}
	pp_strlist_push(events, "cpu-clock");
	return 0;
}

/* The attr the event was opened with (zeroes where the capture has none). */
static struct perf_event_attr cu_attr(const struct ana_evtype *t)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	if (t->attr)
		memcpy(&a, t->attr, t->attr_sz < sizeof(a) ? t->attr_sz : sizeof(a));
	return a;
}

static int cu_init(struct pp_az *az)
{
	struct cu_priv *p = az->priv;
	const struct cpu_util_opts *o = az->opts;
	bool ex_user = az->opt.exclude_user, ex_kernel = az->opt.exclude_kernel;
	bool ex_host = az->opt.exclude_host, ex_guest = az->opt.exclude_guest;
	const struct ana_evtype *t;
	struct perf_event_attr a;

	if (!az->opt.interval_ns)
		az->opt.interval_ns = 1000000000ull;	/* perf-prof's examples: -i 1000 */
	if (az->nr_sels != 1) {
		pp_err("cpu-util: does not take -e: it reads cycles or cpu-clock from the capture");
		return PP_EUSAGE;
	}
	t = az->sels[0].type;
	p->cycles = is_cycles(t->name);
	if (!p->cycles && (t->sys || strcmp(t->name, "cpu-clock"))) {
		pp_err("cpu-util: does not take -e: it reads cycles or cpu-clock, not %s", t->name);
		return PP_EUSAGE;
	}
	a = cu_attr(t);
	if (p->cycles) {
		/* perf-prof's counter: its exclude bits were chosen when recording */
		ex_user = a.exclude_user;
		ex_kernel = a.exclude_kernel;
		ex_host = a.exclude_host;
		ex_guest = a.exclude_guest;
	} else {
		if (a.exclude_user || a.exclude_kernel || a.exclude_idle) {
			pp_err("cpu-util: this capture's cpu-clock was recorded with exclude bits: "
			       "it lacks the samples utilisation is measured against (record with "
			       "pp-record --for 'cpu-util')");
			return PP_EUSAGE;
		}
		if (ex_host || ex_guest) {
			pp_err("cpu-util: -G/--exclude-host and --exclude-guest need cycles counters: "
			       "cpu-clock samples cannot tell guest time apart");
			return PP_EUSAGE;
		}
	}
	if (ex_user && ex_kernel) {
		pp_err("cpu-util: --exclude-user and --exclude-kernel leave nothing to count");
		return PP_EUSAGE;
	}
	p->mode = ex_user ? CU_SYS : ex_kernel ? CU_USR : CU_ALL;
	p->in = cu_in_str[ex_host ? 2 : ex_guest ? 1 : 0];
	p->split = o->split && !p->cycles && p->mode == CU_ALL;
	return 0;
}

static struct cu_cpu *cu_cpu_get(struct cu_priv *p, uint32_t cpu)
{
	if (cpu == UINT32_MAX)
		return NULL;
	p->cpus = pp_percpu_grow(p->cpus, &p->nr_cpus, cpu, sizeof(*p->cpus));
	return &p->cpus[cpu];
}

/* One line: @pct < 0 for none (cycles). */
static void cu_line(struct pp_az *az, uint64_t time_ns, uint32_t cpu, enum cu_mode mode,
		    double pct, uint64_t count)
{
	struct cu_priv *p = az->priv;
	const char *unit = p->cycles ? "cycles" : "ns";
	char wall[48], ts[32];

	if (!count)
		return;
	switch (az->out.format) {
	case ANA_FMT_JSON:
		ana_json_head(az->s, time_ns, cpu, 0, 0, 0, &p->line);
		pp_buf_addf(&p->line, ",\"in\":\"%s\",\"mode\":\"%s\",", p->in, cu_mode_str[mode]);
		if (pct < 0)
			pp_buf_adds(&p->line, "\"util_pct\":null");
		else
			pp_buf_addf(&p->line, "\"util_pct\":%.2f", pct);
		pp_buf_addf(&p->line, ",\"count\":%llu,\"unit\":\"%s\"}\n",
			    (unsigned long long)count, unit);
		break;
	case ANA_FMT_CSV:
		if (!p->csv_head) {
			p->csv_head = true;
			pp_buf_adds(&p->line, "time,cpu,in,mode,util_pct,count,unit\n");
		}
		pp_buf_addf(&p->line, "%s,%u,\"%s\",%s,", ana_ts_str(time_ns, ts, sizeof(ts)), cpu,
			    p->in, cu_mode_str[mode]);
		if (pct >= 0)
			pp_buf_addf(&p->line, "%.2f", pct);
		pp_buf_addf(&p->line, ",%llu,%s\n", (unsigned long long)count, unit);
		break;
	case ANA_FMT_TEXT:
		pp_buf_addf(&p->line, "%s cpu %u [%s] ",
			    ana_time_str(az->s, time_ns, wall, sizeof(wall)), cpu, p->in);
		if (pct >= 0)
			pp_buf_addf(&p->line, "%.2f%% ", pct);
		pp_buf_addf(&p->line, "[%s] %llu %s\n", cu_mode_str[mode],
			    (unsigned long long)count, unit);
		break;
	}
}

static void cu_flush(struct pp_az *az)
{
	struct cu_priv *p = az->priv;

	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
	pp_buf_reset(&p->line);
}

static void cu_event(struct pp_az *az, const struct pp_event *ev)
{
	struct cu_priv *p = az->priv;
	struct cu_cpu *c = cu_cpu_get(p, ev->cpu);
	uint64_t period = ev->period ? ev->period : CPU_UTIL_CLOCK_PERIOD_NS;

	if (!c)
		return;
	if (p->cycles) {
		/* a reading: perf-prof prints each as it reads it */
		if (ev->count) {
			cu_line(az, ev->time_ns, ev->cpu, p->mode, -1, ev->count->d_value);
			cu_flush(az);
		}
		return;
	}
	if (ev->count)		/* a counted cpu-clock is wall time: nothing to learn */
		return;
	p->last_ns = ev->time_ns;
	c->sampled_ns += period;
	if (!ev->tid)		/* the idle task, interrupts taken in it included */
		return;
	c->busy_ns[CU_ALL] += period;
	if (ev->ip)		/* a leader's sample has no IP: busy, side unknown */
		c->busy_ns[pp_addr_is_kernel(ev->ip) ? CU_SYS : CU_USR] += period;
}

/* The round ending at @end_ns: a line per CPU (three with --split). */
static void cu_round(struct pp_az *az, uint64_t end_ns)
{
	struct cu_priv *p = az->priv;

	for (size_t i = 0; i < p->nr_cpus; i++) {
		struct cu_cpu *c = &p->cpus[i];

		if (!c->sampled_ns)
			continue;
		for (int m = p->split ? CU_ALL : (int)p->mode; m <= (p->split ? CU_SYS : (int)p->mode);
		     m++)
			cu_line(az, end_ns, (uint32_t)i, (enum cu_mode)m,
				100.0 * (double)c->busy_ns[m] / (double)c->sampled_ns, c->busy_ns[m]);
		memset(c, 0, sizeof(*c));
	}
	cu_flush(az);
}

static void cu_interval(struct pp_az *az, uint64_t now_ns)
{
	struct cu_priv *p = az->priv;

	if (!p->cycles)
		cu_round(az, now_ns);
}

static int cu_finish(struct pp_az *az)
{
	struct cu_priv *p = az->priv;

	if (!p->cycles)
		cu_round(az, p->last_ns);
	return 0;
}

static void cu_release(struct pp_az *az)
{
	struct cu_priv *p = az->priv;

	free(p->cpus);
	pp_buf_release(&p->line);
}

const struct pp_analyzer_ops az_cpu_util_ops = {
	.summary = "CPU utilisation per CPU each -i, user and kernel (cycles, or cpu-clock samples)",
	.usage = "pp-analyze FILE cpu-util [-i MS] [-C CPUS] [--exclude-user|--exclude-kernel] [--split]\n"
		 "       pp cpu-util [-i MS] [-C CPUS] [--period T|-F HZ] [--exclude-*] [-G] [--split]",
	.examples = "  pp cpu-util -C 1-4 -i 1000\n"
		    "  pp cpu-util -C 1-4 -G -i 1000                  # guest time only (needs a PMU)\n"
		    "  pp cpu-util -C 0 -i 500 --split                # [all], then [usr] and [sys]\n"
		    "  pp-record --for 'cpu-util -i 1000' -a --duration 60\n"
		    "  pp-analyze pp.capture cpu-util -i 1000 --exclude-user   # kernel time: [sys]\n"
		    "  pp-analyze pp.capture cpu-util -i 5000 --format json\n"
		    "  Source: with a hardware PMU, perf-prof's: cycles counted per CPU, read every -i,\n"
		    "  printed as '... [all] N cycles' (no percentage: the TSC rate is not recorded).\n"
		    "  Without one (virtual machines), the software fallback: cpu-clock sampled every\n"
		    "  --period (1 ms) on each CPU; a sample is a period of user, kernel or idle time,\n"
		    "  utilisation = busy / sampled time, printed in ns where perf-prof prints cycles.\n"
		    "  A capture of profile's cpu-clock samples gives the same report.\n",
	.priv_size = sizeof(struct cu_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS,
	.set_events = cu_set_events,
	.init = cu_init,
	.event = cu_event,
	.interval = cu_interval,
	.finish = cu_finish,
	.release = cu_release,
};
