/* SPDX-License-Identifier: MIT */
/*
 * split-lock.c - split locks per CPU and the instructions that take them
 * (perf-prof's split-lock).
 *
 * The capture holds the CPU's split-lock event (r10f4 on Intel, r125 on AMD)
 * as counter readings per CPU (or thread), and with -T N its samples, one
 * every N split locks.  Each round of -i (the count engine's) prints, as
 * perf-prof does:
 *   2026-01-01 00:00:01.000000 split-lock        when the round counted any
 *        SAMPLED_RIP     N                       the round's sampled IPs by count
 *    0000000000401136     3 host-user
 *    CPU  SPLIT_LOCKS  RUN%                      the CPUs that counted some
 *      0         3000   100
 * With -v or -g each sample is printed too ("split-lock: N host-user ip ..."
 * and its stack), before its round's tables.  Samples wait in a list until
 * their round is reported, so that a round's RIPs are its own: the engine
 * knows a round is over only when a reading of the next one arrives.  The
 * mode of a sample comes from its IP (the kernel's half of the address
 * space) and from -G (guest): the capture does not keep perf's cpumode bits.
 *
 * Mergeable state: the count engine's rounds (analyze/count/keep.c), for
 * captures of counts only; the sampled RIPs of a round are not kept, so a
 * replay that met samples (-T) refuses --state-out in one line.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"

#define SL_KERNEL_START 0xffff800000000000ull	/* x86-64: the kernel's half */

struct sl_sample {
	uint64_t time_ns;
	uint64_t ip;
	const char *mode;
	char *line;			/* printed with -v or -g, else NULL */
};

struct sl_rip {
	uint64_t ip;
	const char *mode;
	uint64_t n;
};

struct sl_priv {
	struct ana_cnt *c;
	struct sl_sample *pend;		/* samples not reported yet, in time order */
	size_t nr_pend, cap_pend;
	uint64_t nr_readings, nr_samples;
	bool read_state;		/* a report of states: no readings of its own */
	bool csv_head;
	struct pp_buf out, line;
};

static const char *const sl_names[] = { "r10f4", "r125" };

static struct sl_priv *sl(struct pp_az *az)
{
	return az->priv;
}

/* The split-lock event of the capture's CPU: Intel's, else AMD's. */
static int sl_set_events(struct pp_az *az, struct pp_strlist *events)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(sl_names); i++)
		if (ana_evtype_find(az->s, sl_names[i])) {
			pp_strlist_push(events, sl_names[i]);
			return 0;
		}
	pp_err("split-lock: the capture has no split-lock event (r10f4 on Intel, r125 on AMD): "
	       "record with pp-record --for split-lock");
	return PP_EUNKNOWN_EVENT;
}

static const char *sample_mode(const struct pp_event *ev)
{
	const struct perf_event_attr *a = ev->type->attr;
	bool guest = a && ev->type->attr_sz >= PERF_ATTR_SIZE_VER0 && a->exclude_host;
	bool kernel = ev->ip >= SL_KERNEL_START;

	if (guest)
		return kernel ? "guest-kernel" : "guest-user";
	return kernel ? "host-kernel" : "host-user";
}

static void sample_line(struct pp_az *az, const struct pp_event *ev, const char *mode)
{
	struct sl_priv *p = sl(az);
	char when[48], ts[32];

	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(az->s, ev, &p->line);
		pp_buf_addf(&p->line, ",\"split_locks\":%llu,\"mode\":\"%s\",\"ip\":\"0x%llx\"}\n",
			    (unsigned long long)ev->period, mode, (unsigned long long)ev->ip);
		return;
	}
	pp_buf_addf(&p->line, "%s     pid %6u tid %6u [%03u] %s: split-lock: %llu %s ip %08llx\n",
		    ana_time_str(az->s, ev->time_ns, when, sizeof(when)), ev->pid, ev->tid,
		    ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)),
		    (unsigned long long)ev->period, mode, (unsigned long long)ev->ip);
	if (az->opt.callchain && ev->nr_stack)
		ana_stack_print(az->s, ev, &p->line);
}

static void sl_event(struct pp_az *az, const struct pp_event *ev)
{
	struct sl_priv *p = sl(az);
	struct sl_sample *s;
	bool show = az->opt.verbose || az->opt.callchain;

	if (ev->count) {
		p->nr_readings++;
		ana_cnt_feed(p->c, ev, 0, ev->count->d_value);
		return;
	}
	p->nr_samples++;
	if (p->nr_pend == p->cap_pend) {
		p->cap_pend = p->cap_pend ? 2 * p->cap_pend : 64;
		p->pend = pp_xrealloc(p->pend, p->cap_pend * sizeof(*p->pend));
	}
	s = &p->pend[p->nr_pend++];
	*s = (struct sl_sample){ ev->time_ns, ev->ip, sample_mode(ev), NULL };
	if (show && ev->period && az->out.format != ANA_FMT_CSV) {
		sample_line(az, ev, s->mode);
		s->line = pp_xstrdup(pp_buf_str(&p->line));
	}
}

static int rip_cmp(const void *a, const void *b)
{
	const struct sl_rip *x = a, *y = b;
	int m;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	m = strcmp(x->mode, y->mode);
	if (m)
		return m;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* The pending samples up to @end_ns: their lines into p->out, their RIPs counted into @rips. */
static size_t take_samples(struct sl_priv *p, uint64_t end_ns, struct sl_rip **rips)
{
	size_t n = 0, nr = 0;
	struct sl_rip *r = NULL;

	while (n < p->nr_pend && p->pend[n].time_ns <= end_ns)
		n++;
	if (n)
		r = pp_xcalloc(n, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		const struct sl_sample *s = &p->pend[i];
		size_t k = 0;

		if (s->line) {
			pp_buf_adds(&p->out, s->line);
			free(s->line);
		}
		while (k < nr && (r[k].ip != s->ip || r[k].mode != s->mode))
			k++;
		if (k == nr)
			r[nr++] = (struct sl_rip){ s->ip, s->mode, 0 };
		r[k].n++;
	}
	if (n)	/* pend is NULL before the first sample: NULL + 0 is undefined */
		memmove(p->pend, p->pend + n, (p->nr_pend - n) * sizeof(*p->pend));
	p->nr_pend -= n;
	if (nr)
		qsort(r, nr, sizeof(*r), rip_cmp);
	*rips = r;
	return nr;
}

static unsigned run_pct(const struct ana_cnt_row *r)
{
	return r->enabled ? (unsigned)(r->running * 100 / r->enabled) : 0;
}

static void print_text(struct pp_az *az, struct ana_cnt *c, const char *when,
		       const struct sl_rip *rips, size_t nr_rips)
{
	struct sl_priv *p = sl(az);
	size_t nr = 0;
	struct ana_cnt_row *rows = c ? ana_cnt_rows(c, &nr) : NULL;
	bool any = false, thread = c && ana_cnt_threads(c);

	for (size_t k = 0; k < nr; k++)
		any |= rows[k].sum > 0;
	if (any)
		pp_buf_addf(&p->out, "%s split-lock\n", when);
	if (nr_rips)
		pp_buf_addf(&p->out, " %16s  %4s\n", "SAMPLED_RIP", "N");
	for (size_t i = 0; i < nr_rips; i++)
		pp_buf_addf(&p->out, " %016llx  %4llu %s\n", (unsigned long long)rips[i].ip,
			    (unsigned long long)rips[i].n, rips[i].mode);
	if (!any)
		return;
	pp_buf_adds(&p->out, thread ? "    TID  SPLIT_LOCKS  RUN%\n" : " CPU  SPLIT_LOCKS  RUN%\n");
	for (size_t k = 0; k < nr; k++)
		if (rows[k].sum)
			pp_buf_addf(&p->out, !thread ? " %3u  %11llu  %4u\n" :
					     rows[k].thread ? " %6u  %11llu  %4u\n" :
					     " [%03u]  %11llu  %4u\n",
				    rows[k].ins, (unsigned long long)rows[k].sum, run_pct(&rows[k]));
}

static void print_json(struct pp_az *az, struct ana_cnt *c, const char *when,
		       const struct sl_rip *rips, size_t nr_rips)
{
	struct sl_priv *p = sl(az);
	size_t nr = 0, shown = 0;
	struct ana_cnt_row *rows = c ? ana_cnt_rows(c, &nr) : NULL;

	for (size_t k = 0; k < nr; k++)
		shown += rows[k].sum > 0;
	if (!shown && !nr_rips)
		return;
	pp_buf_addf(&p->out, "{\"time\":\"%s\",\"rips\":[", when);
	for (size_t i = 0; i < nr_rips; i++)
		pp_buf_addf(&p->out, "%s{\"rip\":\"0x%llx\",\"n\":%llu,\"mode\":\"%s\"}", i ? "," : "",
			    (unsigned long long)rips[i].ip, (unsigned long long)rips[i].n,
			    rips[i].mode);
	pp_buf_adds(&p->out, "],\"counts\":[");
	shown = 0;
	for (size_t k = 0; k < nr; k++)
		if (rows[k].sum)
			pp_buf_addf(&p->out, "%s{\"%s\":%u,\"split_locks\":%llu,\"run_pct\":%u}",
				    shown++ ? "," : "", rows[k].thread ? "tid" : "cpu", rows[k].ins,
				    (unsigned long long)rows[k].sum, run_pct(&rows[k]));
	pp_buf_adds(&p->out, "]}\n");
}

/* CSV: one line per instance that counted ("count") and per sampled RIP ("rip"). */
static void print_csv(struct pp_az *az, struct ana_cnt *c, const char *when,
		      const struct sl_rip *rips, size_t nr_rips)
{
	struct sl_priv *p = sl(az);
	size_t nr = 0;
	struct ana_cnt_row *rows = c ? ana_cnt_rows(c, &nr) : NULL;

	if (!p->csv_head) {
		pp_buf_adds(&p->out, "time,kind,instance,n,run_pct,rip,mode\n");
		p->csv_head = true;
	}
	for (size_t i = 0; i < nr_rips; i++)
		pp_buf_addf(&p->out, "%s,rip,,%llu,,0x%llx,%s\n", when,
			    (unsigned long long)rips[i].n, (unsigned long long)rips[i].ip,
			    rips[i].mode);
	for (size_t k = 0; k < nr; k++)
		if (rows[k].sum)
			pp_buf_addf(&p->out, "%s,count,%s%u,%llu,%u,,\n", when,
				    rows[k].thread ? "tid " : "", rows[k].ins,
				    (unsigned long long)rows[k].sum, run_pct(&rows[k]));
}

/* A round of the engine (@c NULL: the samples after the last round), up to @end_ns. */
static void sl_report(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct sl_priv *p = sl(az);
	struct sl_rip *rips;
	size_t nr_rips;
	char when[48];

	ana_time_str(az->s, end_ns, when, sizeof(when));
	pp_buf_reset(&p->out);
	nr_rips = take_samples(p, end_ns, &rips);
	if (az->out.format == ANA_FMT_JSON)
		print_json(az, c, when, rips, nr_rips);
	else if (az->out.format == ANA_FMT_CSV)
		print_csv(az, c, when, rips, nr_rips);
	else
		print_text(az, c, when, rips, nr_rips);
	fputs(pp_buf_str(&p->out), az->out.fp);
	free(rips);
}

static void sl_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	sl_report(az, c, end_ns);
}

static int sl_init(struct pp_az *az)
{
	struct sl_priv *p = sl(az);
	struct ana_cnt_opts o = { az->opt.period_ns, az->opt.interval_ns, true, sl_round };

	p->c = ana_cnt_new(az, &o);
	return p->c ? 0 : PP_EUSAGE;
}

static int sl_finish(struct pp_az *az)
{
	struct sl_priv *p = sl(az);

	if (!p->c)
		return 0;
	ana_cnt_finish(p->c);
	if (p->nr_pend)		/* sampled after the last reading: no counts to go with */
		sl_report(az, NULL, p->pend[p->nr_pend - 1].time_ns);
	if (!p->nr_readings && !p->read_state)
		pp_warn("split-lock: the capture has no counter readings of the split-lock event "
			"(record them with pp-record --for split-lock)");
	return 0;
}

static void sl_release(struct pp_az *az)
{
	struct sl_priv *p = sl(az);

	for (size_t i = 0; i < p->nr_pend; i++)
		free(p->pend[i].line);
	free(p->pend);
	ana_cnt_free(p->c);
	pp_buf_release(&p->out);
	pp_buf_release(&p->line);
	*p = (struct sl_priv){ 0 };
}

static int sl_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct sl_priv *p = sl(az);

	if (p->nr_samples) {
		pp_err("split-lock: the capture has %llu split-lock samples (recorded with -T): "
		       "a state keeps the counts, not each round's sampled RIPs (replay the capture)",
		       (unsigned long long)p->nr_samples);
		return PP_EUSAGE;
	}
	return ana_cnt_az_state_write(az, out);
}

static int sl_state_read(struct pp_az *az, struct pp_wire *in)
{
	sl(az)->read_state = true;
	return ana_cnt_az_state_read(az, in);
}

const struct pp_analyzer_ops az_split_lock_ops = {
	.summary = "split locks per CPU each -i, with the sampled RIPs that take them (x86 PMU)",
	.usage = "pp-analyze FILE split-lock [-i MS] [-C CPUS] [-v] [-g]   (record: [-T N] [-G])",
	.examples = "  pp split-lock -i 1000 -- build/load/splitlock 5\n"
		    "  pp split-lock -T 1000 -i 1000 -G\n"
		    "  pp-record --for 'split-lock -T 100 -g' -a --duration 10 -o sl.pp\n"
		    "  pp-analyze sl.pp split-lock -g\n",
	.priv_size = sizeof(struct sl_priv),
	.flags = PP_AZ_NO_EVENTS | PP_AZ_COUNTERS | PP_AZ_STATE_MAY_REFUSE,
	.set_events = sl_set_events,
	.init = sl_init,
	.event = sl_event,
	.finish = sl_finish,
	.release = sl_release,
	.state_version = ANA_CNT_STATE_VERSION,
	.state_write = sl_state_write,
	.state_read = sl_state_read,
	.state_join = ana_cnt_az_state_join,
};
