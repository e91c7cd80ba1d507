/* SPDX-License-Identifier: MIT */
/*
 * watchdog.c - perf-prof's watchdog: hard and soft lockups foretold, offline.
 *
 * The kernel's lockup detector runs a per-CPU hrtimer (watchdog_timer_fn)
 * every 2 * watchdog_thresh / 5 seconds; each run counts an interrupt and
 * queues work on the CPU's stopper thread (migration/N since 4.19,
 * watchdog/N before) that touches the soft lockup timestamp.  A CPU whose
 * hrtimer stops (interrupts off) is heading for a hard lockup; one whose
 * stopper thread does not get the CPU (preemption off) for a soft one.
 * perf-prof's checks, on the capture's events, per CPU:
 *   hrtimer_expire_entry  interrupts++, hrtimer touched; soft lockup when
 *                         (now >> 30) - touch_ts > 2 * thresh / 5 (2^30 ns units)
 *   hrtimer_start/cancel  the watchdog runs / stops (no check while stopped)
 *   sched_switch to the stopper: touch_ts = now >> 30
 *   cycles sample         hard lockup when no interrupt since the last sample and
 *                         now - hrtimer touched > 2 * thresh * 1e9 / 5 + 0.2 s
 * A "WILL:" line names the CPU; after a soft one the CPU's events and samples
 * (with their kernel stacks) are printed until its stopper thread runs; a
 * hard one prints the sample's stack.  Each CPU is followed from its first
 * watchdog hrtimer (its pointer then tells its hrtimer_cancel from the
 * others); perf-prof's " == collect all N watchdog hrtimer" line says when
 * every watched CPU (recorded, in kernel.watchdog_cpumask, in -C) has one.
 * The thresholds are the capture's sysctl.kernel.* records.  Samples of
 * cpu-clock instead of NMI cycles (no hardware PMU: perf-prof's choice in a
 * VM) cannot fire while interrupts are off, so a hard lockup shows only once
 * they are back on: -v says so (perf-prof says nothing).  Without samples (no -F) only soft
 * lockups are foretold, as perf-prof.  A loss forgets every CPU's times.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/units.h"

#define WD_NSEC 1000000000ull
enum { WD_POS_EXPIRE, WD_POS_START, WD_POS_CANCEL, WD_POS_SWITCH, WD_POS_SAMPLE };

struct wd_cpu {
	bool watched;			/* recorded, in watchdog_cpumask and -C */
	bool known;			/* its watchdog hrtimer was seen: followed from then */
	bool running;			/* the hrtimer runs (started, not cancelled) */
	uint64_t hrtimer;		/* its address */
	uint64_t hrtimer_touch_ns;	/* last expiry or start */
	uint64_t touch_ts;		/* last stopper run, in 2^30 ns */
	uint64_t interrupts, interrupts_saved;
	bool print_sched;		/* a soft lockup is on: print the CPU's events */
};

struct wd_priv {
	const struct pp_field *f_hrtimer[3], *f_function[2], *f_next_comm;
	unsigned long thresh;		/* kernel.watchdog_thresh, s */
	uint64_t soft_period;		/* 2 * thresh / 5, in 2^30 ns */
	uint64_t hard_ns;		/* 2 * thresh * 1e9 / 5 + 0.2 s */
	const char *stopper;		/* "migration/" or "watchdog/" */
	struct wd_cpu *cpus;
	size_t nr_cpus, nr_watched, nr_known;
	uint64_t fn;			/* watchdog_timer_fn, once seen */
	struct pp_u64map not_fn;	/* function addresses that are other timers */
	const char *sample_name;	/* what perf-prof's sample line says */
	bool own_events;		/* set_events() ran: no -e was given */
	bool csv_head;
	struct pp_buf line;
	uint64_t *trim;			/* a sample's kernel frames */
	uint32_t cap_trim;
};

static const char *wd_sample_type(struct ana_session *s)
{
	static const char *const names[] = { "cycles", "cpu-cycles", "cpu-clock" };

	for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++)
		if (ana_evtype_find(s, names[i]))
			return names[i];
	return NULL;
}

static int wd_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const char *sample = wd_sample_type(az->s);

	((struct wd_priv *)az->priv)->own_events = true;
	pp_strlist_push(events, "timer:hrtimer_expire_entry");
	pp_strlist_push(events, "timer:hrtimer_start");
	pp_strlist_push(events, "timer:hrtimer_cancel");
	pp_strlist_push(events, "sched:sched_switch");
	if (sample)	/* no -F: soft lockups only, as perf-prof without samples */
		pp_strlist_push(events, sample);
	return 0;
}

static int wd_field(const struct ana_evtype *t, const char *name, const struct pp_field **f)
{
	*f = ana_field_find(t, name);
	if (*f)
		return 0;
	pp_err("watchdog: %s has no field '%s'", t->name, name);
	return PP_EUNKNOWN_FIELD;
}

/* The CPUs to watch: recorded, in the watchdog's cpumask, and in -C. */
static int wd_cpus(struct pp_az *az)
{
	struct wd_priv *p = az->priv;
	const char *rec = ana_host(az->s, "record.cpus");
	const char *mask = ana_host(az->s, "sysctl.kernel.watchdog_cpumask");
	const char *possible = ana_host(az->s, "nr_cpus_possible");
	int *r = NULL, *m = NULL;
	size_t nr = 0, nm = 0;

	if (!rec)
		rec = ana_host(az->s, "cpus_online");
	p->nr_cpus = possible ? strtoul(possible, NULL, 10) : 0;
	if ((rec && pp_parse_list(rec, 0, &r, &nr)) || (mask && pp_parse_list(mask, 0, &m, &nm))) {
		pp_err("watchdog: the capture's CPU lists are not lists (record.cpus '%s', "
		       "watchdog_cpumask '%s')", rec ? rec : "", mask ? mask : "");
		free(r);
		free(m);
		return PP_ESYNTAX;
	}
	for (size_t i = 0; i < nr; i++)
		if ((size_t)r[i] + 1 > p->nr_cpus)
			p->nr_cpus = (size_t)r[i] + 1;
	if (!p->nr_cpus) {
		pp_err("watchdog: the capture does not say its CPUs (nr_cpus_possible, record.cpus)");
		free(r);
		free(m);
		return PP_EUSAGE;
	}
	p->cpus = pp_xcalloc(p->nr_cpus, sizeof(*p->cpus));
	for (size_t c = 0; c < p->nr_cpus; c++) {
		bool w = !rec || pp_list_has(r, nr, (int)c);

		w = w && (!mask || pp_list_has(m, nm, (int)c));
		w = w && (!az->nr_cpus || pp_list_has(az->cpus, az->nr_cpus, (int)c));
		p->cpus[c].watched = w;
		p->nr_watched += w;
	}
	free(r);
	free(m);
	return 0;
}

static int wd_init(struct pp_az *az)
{
	struct wd_priv *p = az->priv;
	const char *thresh = ana_host(az->s, "sysctl.kernel.watchdog_thresh");
	const char *rel = ana_host(az->s, "release");
	int major = 0, minor = 0, rc = 0;
	unsigned long t;

	if (!p->own_events) {
		pp_err("watchdog: does not take -e: it uses the timer:hrtimer_* and "
		       "sched:sched_switch events and the samples of the capture");
		return PP_EUSAGE;
	}
	if (!thresh) {
		pp_err("watchdog: the capture has no kernel.watchdog_thresh (sysctl.kernel."
		       "watchdog_thresh): record it with pp-record --for watchdog");
		return PP_EUSAGE;
	}
	t = strtoul(thresh, NULL, 10);
	if (!t) {
		pp_err("watchdog: the lockup detector was off when recorded "
		       "(kernel.watchdog_thresh 0)");
		return PP_EUSAGE;
	}
	p->thresh = t;
	p->soft_period = t * 2 / 5;
	p->hard_ns = t * 2 * (WD_NSEC / 5) + WD_NSEC / 5;
	if (rel)
		sscanf(rel, "%d.%d", &major, &minor);
	p->stopper = !major || major > 4 || (major == 4 && minor >= 19) ? "migration/" : "watchdog/";
	for (size_t i = 0; i < az->nr_sels && !rc; i++) {
		const struct ana_sel *m = &az->sels[i];

		if (m->pos <= WD_POS_CANCEL)
			rc = wd_field(m->type, "hrtimer", &p->f_hrtimer[m->pos]);
		if (!rc && m->pos <= WD_POS_START)
			rc = wd_field(m->type, "function", &p->f_function[m->pos]);
		if (!rc && m->pos == WD_POS_SWITCH)
			rc = wd_field(m->type, "next_comm", &p->f_next_comm);
		if (m->pos == WD_POS_SAMPLE) {
			bool clock = !strcmp(m->type->name, "cpu-clock");

			p->sample_name = clock ? "cpu-clock" : "cpu-cycles";
			/* said with -v: perf-prof's watchdog is as silent on such a machine */
			if (clock && az->opt.verbose)
				pp_note("watchdog: the capture samples cpu-clock, not NMI cycles (no "
					"hardware PMU): a hard lockup shows only once interrupts are "
					"back on; soft lockups are foretold as with cycles");
		}
	}
	return rc ? rc : wd_cpus(az);
}

/* Whether @fn is watchdog_timer_fn: by the capture's kernel symbols, once per address. */
static bool wd_is_fn(struct pp_az *az, uint64_t fn)
{
	struct wd_priv *p = az->priv;
	uint64_t off = 1;
	const char *name;

	if (fn == p->fn)
		return fn != 0;
	if (pp_u64map_get(&p->not_fn, fn))
		return false;
	name = ana_ksym(az->s, fn, &off);
	if (name && !off && !strcmp(name, "watchdog_timer_fn")) {
		p->fn = fn;
		return true;
	}
	pp_u64map_put(&p->not_fn, fn, (void *)1);
	return false;
}

/* "2026-01-01 00:00:00.000000 WILL: hard lockup - CPU#1 [A - B > T]", or its JSON/CSV. */
static void wd_say(struct pp_az *az, const struct pp_event *ev, const char *what, bool will,
		   uint64_t now, uint64_t touch, uint64_t thresh)
{
	struct wd_priv *p = az->priv;
	char wall[48], ts[32];

	if (!will && az->out.format != ANA_FMT_TEXT)
		return;
	switch (az->out.format) {
	case ANA_FMT_JSON:
		pp_buf_addf(&p->line, "{\"time\":%s,\"cpu\":%u,\"will\":\"%s\",\"now\":%llu,"
			    "\"touch\":%llu,\"thresh\":%llu}\n", ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			    ev->cpu, what, (unsigned long long)now, (unsigned long long)touch,
			    (unsigned long long)thresh);
		break;
	case ANA_FMT_CSV:
		if (!p->csv_head)
			pp_buf_adds(&p->line, "time,cpu,will,now,touch,thresh\n");
		p->csv_head = true;
		pp_buf_addf(&p->line, "%s,%u,%s,%llu,%llu,%llu\n",
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), ev->cpu, what,
			    (unsigned long long)now, (unsigned long long)touch,
			    (unsigned long long)thresh);
		break;
	default:
		pp_buf_addf(&p->line, "%s %s: %s - CPU#%u [%llu - %llu %s %llu]\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)),
			    will ? "WILL" : "DEBUG", what, ev->cpu, (unsigned long long)now,
			    (unsigned long long)touch, will ? ">" : "<=", (unsigned long long)thresh);
	}
}

/* An event of a CPU under watch: the trace line (a sample: perf-prof's, and its stack). */
static void wd_print(struct pp_az *az, const struct pp_event *ev)
{
	struct wd_priv *p = az->priv;
	struct pp_event k = *ev;
	char wall[48], ts[32];

	k.nr_stack = 0;
	if (ev->nr_stack && az->opt.callchain) {	/* kernel frames only, as perf-prof */
		if (ev->nr_stack > p->cap_trim) {
			p->cap_trim = ev->nr_stack;
			p->trim = pp_xrealloc(p->trim, p->cap_trim * sizeof(*p->trim));
		}
		k.stack = p->trim;
		k.nr_stack = pp_callchain_trim(ev->stack, ev->nr_stack, p->trim, true, false);
	}
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(az->s, ev, &p->line);
		pp_buf_adds(&p->line, ",\"event\":");
		pp_buf_add_json_str(&p->line, ev->sel->pos == WD_POS_SAMPLE ? p->sample_name
									    : ev->type->name);
		if (k.nr_stack) {
			struct pp_buf f = PP_BUF_INIT;

			ana_stack_folded(az->s, &k, &f);
			pp_buf_adds(&p->line, ",\"stack\":");
			pp_buf_add_json_str(&p->line, pp_buf_str(&f));
			pp_buf_release(&f);
		}
		pp_buf_adds(&p->line, "}\n");
		return;
	}
	if (az->out.format != ANA_FMT_TEXT)
		return;
	if (ev->sel->pos == WD_POS_SAMPLE)
		pp_buf_addf(&p->line, "%s %16s %6u [%03u] %s: watchdog: %s\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)),
			    ana_comm(az->s, ev->tid), ev->tid, ev->cpu,
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), p->sample_name);
	else {
		ana_event_print(az->s, ev, &p->line);
		pp_buf_addch(&p->line, '\n');
	}
	if (k.nr_stack)
		ana_stack_print(az->s, &k, &p->line);
}

static bool will_hardlockup(struct pp_az *az, struct wd_cpu *c, const struct pp_event *ev)
{
	struct wd_priv *p = az->priv;
	uint64_t now = ev->time_ns;
	bool will;

	if (!c->running || !c->hrtimer_touch_ns)
		return false;
	will = c->interrupts == c->interrupts_saved && now - c->hrtimer_touch_ns > p->hard_ns;
	if (will || az->opt.verbose)
		wd_say(az, ev, "hard lockup", will, now, c->hrtimer_touch_ns, p->hard_ns);
	return will;
}

static bool will_softlockup(struct pp_az *az, struct wd_cpu *c, const struct pp_event *ev)
{
	struct wd_priv *p = az->priv;
	uint64_t now = ev->time_ns >> 30;
	bool will;

	if (!c->running || !c->touch_ts)
		return false;
	will = now - c->touch_ts > p->soft_period;
	if (will || az->opt.verbose)
		wd_say(az, ev, "soft lockup", will, now, c->touch_ts, p->soft_period);
	return will;
}

/* The CPU's watchdog hrtimer? The first watchdog_timer_fn expiry of a CPU names it. */
static bool wd_hrtimer(struct pp_az *az, struct wd_cpu *c, const struct pp_event *ev,
		       bool *first)
{
	struct wd_priv *p = az->priv;
	unsigned pos = ev->sel->pos;
	uint64_t hr = ana_field_read(ev, p->f_hrtimer[pos]);
	char wall[48];

	*first = false;
	if (pos != WD_POS_CANCEL && !wd_is_fn(az, ana_field_read(ev, p->f_function[pos])))
		return false;
	if (c->known)
		return hr == c->hrtimer;
	if (pos != WD_POS_EXPIRE)
		return false;
	c->known = *first = true;
	c->hrtimer = hr;
	p->nr_known++;
	wd_print(az, ev);
	if (p->nr_known == p->nr_watched && az->out.format == ANA_FMT_TEXT)
		pp_buf_addf(&p->line, "%s  == collect all %zu watchdog hrtimer\n",
			    ana_time_str(az->s, ev->time_ns, wall, sizeof(wall)), p->nr_known);
	return true;
}

static void wd_event(struct pp_az *az, const struct pp_event *ev)
{
	struct wd_priv *p = az->priv;
	struct wd_cpu *c = ev->cpu < p->nr_cpus ? &p->cpus[ev->cpu] : NULL;
	unsigned pos = ev->sel->pos;
	bool first = false;
	char comm[32];

	if (!c || !c->watched)
		return;
	pp_buf_reset(&p->line);
	if (pos == WD_POS_SAMPLE) {
		bool stack = will_hardlockup(az, c, ev);

		c->interrupts_saved = c->interrupts;
		if (stack || c->print_sched || az->opt.verbose >= 2)
			wd_print(az, ev);
		goto out;
	}
	if (pos == WD_POS_SWITCH) {
		const char *n = ana_field_str(ev, "next_comm", comm, sizeof(comm));

		if (!c->known || !n || strncmp(n, p->stopper, strlen(p->stopper)))
			goto out;
	} else if (!wd_hrtimer(az, c, ev, &first)) {
		goto out;
	}
	switch (pos) {
	case WD_POS_EXPIRE:
		c->running = true;
		c->interrupts++;
		c->hrtimer_touch_ns = ev->time_ns;
		c->print_sched = will_softlockup(az, c, ev);
		break;
	case WD_POS_START:
		c->running = true;
		c->hrtimer_touch_ns = ev->time_ns;
		break;
	case WD_POS_CANCEL:
		c->running = false;
		break;
	}
	if (!first && (c->print_sched || az->opt.verbose >= 2))
		wd_print(az, ev);
	if (pos == WD_POS_SWITCH) {
		c->touch_ts = ev->time_ns >> 30;
		c->print_sched = false;	/* the stopper ran: no soft lockup now */
	}
out:
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static void wd_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct wd_priv *p = az->priv;

	/* a lost expiry or stopper run would look like a lockup: start the CPUs afresh */
	for (size_t i = 0; i < p->nr_cpus; i++) {
		p->cpus[i].hrtimer_touch_ns = p->cpus[i].touch_ts = 0;
		p->cpus[i].print_sched = false;
	}
	(void)l;
}

static int wd_finish(struct pp_az *az)
{
	struct wd_priv *p = az->priv;
	uint64_t span = ana_capture_end_ns(az->s) - ana_capture_start_ns(az->s);

	ana_report_header(az);
	if (!p->nr_known && p->nr_watched)
		pp_warn("watchdog: no run of the watchdog hrtimer (watchdog_timer_fn) in the capture: "
			"it runs every %.1f s and the capture spans %.1f s (or it has no kernel "
			"symbols to name it)", p->thresh * 2 / 5.0, span / 1e9);
	return 0;
}

static void wd_release(struct pp_az *az)
{
	struct wd_priv *p = az->priv;

	free(p->cpus);
	free(p->trim);
	pp_u64map_release(&p->not_fn);
	pp_buf_release(&p->line);
}

const struct pp_analyzer_ops az_watchdog_ops = {
	.summary = "hard and soft lockups foretold from the watchdog's hrtimer and stopper thread",
	.usage = "pp-analyze FILE watchdog [-C CPUS] [-g] [-v]       (recorded with -F HZ [-g])\n\n"
		 "perf-prof's watchdog.  Recording (pp watchdog, pp-record --for watchdog) follows\n"
		 "the kernel's watchdog hrtimer (timer:hrtimer_*, function watchdog_timer_fn), the\n"
		 "stopper thread that runs the soft lockup check (sched:sched_switch to migration/N)\n"
		 "and, with -F HZ, cycles samples in NMI (kernel stacks with -g); on a machine with\n"
		 "no hardware PMU, cpu-clock samples instead, which say a hard lockup only once\n"
		 "interrupts are back on (-v says so).  Without -F, soft lockups only.\n"
		 "The thresholds are the recorded kernel.watchdog_thresh; 'WILL: hard lockup' and\n"
		 "'WILL: soft lockup' lines name the CPU, then its events and stacks; -v shows\n"
		 "every check (DEBUG lines), -v -v every event.",
	.examples = "  pp watchdog -F 1 -g\n"
		    "  pp watchdog -C 0 -F 1 -g -v\n"
		    "  pp-record --for 'watchdog -F 10 -g' --duration 600 -o lockup.capture\n"
		    "  pp-analyze lockup.capture watchdog -g\n"
		    "  pp-analyze lockup.capture watchdog --format json\n",
	.priv_size = sizeof(struct wd_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = wd_set_events,
	.init = wd_init,
	.event = wd_event,
	.lost = wd_lost,
	.finish = wd_finish,
	.release = wd_release,
};
