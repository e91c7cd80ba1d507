/* SPDX-License-Identifier: MIT */
/*
 * replay.c - one pass over a capture, dispatching events to analyzers.
 *
 * Records arrive in time order.  Side-band records update the session
 * (tasks, maps, clock, losses) before any later event is delivered, so an
 * analyzer always sees the comm and maps current at its event's time.
 * Each sample is delivered once per (analyzer, matching selector), after
 * the recorded user-space filter, the post-filters (-C -p -t, --time) and
 * the selector's filter.  Interval ticks (-i) are driven by capture time,
 * not by the wall clock, so a replay of a capture prints the same reports
 * whenever it runs.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "analyze/progress.h"
#include "analyze/state/state.h"
#include "common/err.h"
#include "common/log.h"
#include "common/units.h"

volatile sig_atomic_t ana_interval_now, ana_print_stat_now;

static void disp_add(struct ana_session *s, struct pp_az *az, struct ana_sel *sel)
{
	void **slot = pp_u64map_slot(&s->disp, sel->type->id);
	struct ana_disp_list *l = *slot;

	if (!l)
		l = *slot = pp_xcalloc(1, sizeof(*l));
	l->v = pp_xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
	bool plain = !az->nr_cpus && !az->opt.exclude_pid &&
		     ((az->ops->flags & PP_AZ_OWN_TASK_FILTER) || (!az->nr_pids && !az->nr_tids)) &&
		     !sel->filter && !az->opt.exit_n && !(sel->sel && sel->sel->max_stack) &&
		     !az->perfeval;
	l->v[l->nr++] = (struct ana_disp){ az, sel, plain };
}

/* -C names CPUs the recording machine had (when the capture says how many). */
static int check_cpus(struct ana_session *s, const struct pp_az *az)
{
	const char *v = ana_host(s, "nr_cpus_possible");
	char *end;
	unsigned long nr = v ? strtoul(v, &end, 10) : 0;

	if (!nr || *end)
		return 0;
	for (size_t i = 0; i < az->nr_cpus; i++)
		if (az->cpus[i] < 0 || (unsigned long)az->cpus[i] >= nr) {
			pp_err("%s: -C %d: the capture was recorded on %lu CPUs (0-%lu)", az->name,
			       az->cpus[i], nr, nr - 1);
			return PP_EUSAGE;
		}
	return 0;
}

int ana_replay_init(struct ana_session *s)
{
	int rc;

	s->live = s->path && !strcmp(s->path, "-");	/* analyzers ask in init (ana_is_live()) */

	ana_session_finalize_syms(s);
	for (size_t i = 0; i < s->nr_azs; i++) {
		struct pp_az *az = s->azs[i];
		rc = check_cpus(s, az);
		if (rc)
			return rc;
		rc = ana_az_select(az);
		if (rc)
			return rc;
		rc = az->ops->init(az);
		if (!rc)
			rc = ana_perfeval_init(az);
		if (rc)
			return rc;
		for (size_t k = 0; k < az->nr_sels; k++)
			disp_add(s, az, &az->sels[k]);
		if (az->opt.interval_ns && az->an->ops->interval)
			s->has_ticks = true;
	}
	s->inited = true;
	return 0;
}

/*
 * The -i reports due at @t.  s->tick_due is the earliest next tick of all analyzers (0 while
 * one has none yet), so that the caller on the hot path skips the call before it.
 */
static void tick(struct ana_session *s, uint64_t t)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < s->nr_azs; i++) {
		struct pp_az *az = s->azs[i];
		uint64_t iv = az->opt.interval_ns;

		if (!iv || !az->an->ops->interval)
			continue;
		if (ana_state_recording(az)) {	/* no -i report; its ticks wait */
			due = az->next_tick_ns < due ? az->next_tick_ns : due;
			continue;
		}
		/*
		 * A capture's times may reach 2^64 - 1 (tests/fuzz): the tick saturates there
		 * and a tick at UINT64_MAX never comes, so the loop ends.
		 */
		if (!az->next_tick_ns)
			az->next_tick_ns = t > UINT64_MAX - iv ? UINT64_MAX : t + iv;
		if (t > az->next_tick_ns && (t - az->next_tick_ns) / iv >= 1000)
			az->next_tick_ns = t - (t - az->next_tick_ns) % iv;	/* skip empty ticks */
		while (t >= az->next_tick_ns && az->next_tick_ns != UINT64_MAX) {
			az->ops->interval(az, az->next_tick_ns);
			az->next_tick_ns = az->next_tick_ns > UINT64_MAX - iv ? UINT64_MAX
									: az->next_tick_ns + iv;
			if (s->live)
				fflush(az->out.fp);
		}
		due = az->next_tick_ns < due ? az->next_tick_ns : due;
	}
	s->tick_due = due;
}

/*
 * SIGUSR1: the report of each analyzer that -i makes report (tick()'s), now,
 * then the flush a reader waits for; the periodic ticks keep their times.
 */
static void interval_now(struct ana_session *s, uint64_t t)
{
	ana_interval_now = 0;
	if (s->has_ticks)
		tick(s, t);	/* the ticks due before @t first */
	for (size_t i = 0; i < s->nr_azs; i++) {
		struct pp_az *az = s->azs[i];

		if (!az->opt.interval_ns || !az->an->ops->interval || ana_state_recording(az))
			continue;
		az->ops->interval(az, t);
		if (az->out.fp)
			fflush(az->out.fp);
	}
	fflush(stdout);
}

static bool post_filter(const struct pp_az *az, const struct pp_event *ev)
{
	if (az->nr_cpus && !pp_list_has(az->cpus, az->nr_cpus, ev->cpu))
		return false;
	if (az->opt.exclude_pid && ev->pid == (uint32_t)az->opt.exclude_pid)
		return false;
	if (az->ops->flags & PP_AZ_OWN_TASK_FILTER)
		return true;
	if ((!az->nr_pids || pp_list_has(az->pids, az->nr_pids, ev->pid)) &&
	    (!az->nr_tids || pp_list_has(az->tids, az->nr_tids, ev->tid)))
		return true;
	return az->opt.inherit &&
	       ana_task_forked_by(az->s, ev->tid, az->pids, az->nr_pids, az->tids, az->nr_tids);
}

/*
 * max-stack=N: the length of @ev's callchain that keeps its first N real frames
 * (innermost first); PERF_CONTEXT_* markers (>= (u64)-4095) count for nothing.
 */
static uint32_t stack_cut(const struct pp_event *ev, uint32_t max)
{
	uint32_t frames = 0;

	for (uint32_t i = 0; i < ev->nr_stack; i++)
		if (ev->stack[i] < (uint64_t)-4095 && ++frames > max)
			return i;
	return ev->nr_stack;
}

/* -N: every analyzer has had its N events, the rest of the capture is not needed. */
static bool all_done(const struct ana_session *s)
{
	for (size_t i = 0; i < s->nr_azs; i++)
		if (!s->azs[i]->opt.exit_n || s->azs[i]->nr_delivered < s->azs[i]->opt.exit_n)
			return false;
	return true;
}

/* The hot path: most captures have a handful of event types, in runs. */
static void deliver(struct ana_session *s, const struct ppf_sample *smp)
{
	struct ana_evtype *t;
	struct ana_disp_list *l;
	struct pp_event ev;

	/*
	 * Types and dispatch lists only change before the replay starts (a type
	 * described later has no analyzer and is never cached empty), so a
	 * small direct-mapped cache holds for the whole replay: sched_switch and
	 * sched_wakeup interleave, and missed a one-entry cache 3 times in 4.
	 */
	struct ana_type_cache *c = &s->type_cache[smp->id % PP_ARRAY_SIZE(s->type_cache)];

	if (c->id == smp->id && c->type) {
		t = c->type;
		l = c->disp;
	} else {
		t = ana_session_type(s, smp->id);
		if (!t)
			return;
		l = pp_u64map_get(&s->disp, smp->id);
		c->id = smp->id;
		c->type = t;
		c->disp = l;
	}
	ana_session_sample(s, t, smp, &ev);
	if (s->has_ticks && smp->time_ns >= s->tick_due)
		tick(s, smp->time_ns);
	if (!l || (!l->nr))
		return;
	if (t->rec_filter && !ana_filter_pass(s, t->rec_filter, &ev))
		return;
	for (size_t i = 0; i < l->nr; i++) {
		const struct ana_disp *dp = &l->v[i];
		struct pp_az *az = dp->az;
		struct ana_sel *sel = dp->sel;

		if (dp->plain) {	/* the common case: nothing to check */
			az->nr_delivered++;
			ev.sel = sel;
			az->ops->event(az, &ev);
			continue;
		}
		if (!post_filter(az, &ev))
			continue;
		if (sel->filter && !ana_filter_pass(s, sel->filter, &ev))
			continue;
		if (az->opt.exit_n && az->nr_delivered >= az->opt.exit_n)
			continue;
		if (az->perfeval && !ana_perfeval_event(az, &ev))
			continue;
		az->nr_delivered++;
		ev.sel = sel;
		if (sel->sel && sel->sel->max_stack) {
			uint32_t nr = ev.nr_stack;

			ev.nr_stack = stack_cut(&ev, sel->sel->max_stack);
			az->ops->event(az, &ev);
			ev.nr_stack = nr;
		} else {
			az->ops->event(az, &ev);
		}
		if (az->opt.exit_n && az->nr_delivered >= az->opt.exit_n)
			s->all_done = all_done(s);
	}
}

/* The previous reading of a counter key (struct ana_session.counts). */
struct ana_count_prev {
	uint64_t value, enabled, running;
};

static uint64_t count_key(uint32_t id, uint32_t cpu, uint32_t tid)
{
	return (uint64_t)(id & 0xffff) << 48 | (uint64_t)(cpu & 0xffff) << 32 | tid;
}

static uint64_t nonneg(uint64_t now, uint64_t prev)
{
	return now >= prev ? now - prev : 0;
}

/*
 * A COUNTER record: each of its counters becomes an event with its count for
 * the period, delivered to the analyzers that take counters (PP_AZ_COUNTERS)
 * through the same matching, filters and ticks as samples.
 */
static void deliver_counter(struct ana_session *s, const struct ppf_counter *k, bool deliver)
{
	for (uint32_t i = 0; i < k->nr; i++) {
		struct ana_evtype *t = ana_session_type(s, k->v[i].id);
		void **slot = pp_u64map_slot(&s->counts, count_key(k->v[i].id, k->cpu, k->tid));
		struct ana_count_prev *prev = *slot;
		struct ana_disp_list *l;
		struct pp_count c = { .value = k->v[i].value, .enabled = k->enabled,
				      .running = k->running, .first = !prev };
		struct pp_event ev = { .time_ns = k->time_ns, .cpu = k->cpu, .tid = k->tid,
				       .pid = k->tid, .count = &c };

		if (!prev)
			prev = *slot = pp_xcalloc(1, sizeof(*prev));
		c.d_value = nonneg(c.value, prev->value);
		c.d_enabled = nonneg(c.enabled, prev->enabled);
		c.d_running = nonneg(c.running, prev->running);
		*prev = (struct ana_count_prev){ c.value, c.enabled, c.running };
		if (!t || !deliver)
			continue;
		if (!s->first_ns)
			s->first_ns = k->time_ns;
		s->last_ns = k->time_ns;
		ev.type = t;
		ev.period = c.d_value;
		if (k->tid != UINT32_MAX)
			ev.pid = ana_task_pid(s, k->tid);
		if (s->has_ticks)
			tick(s, k->time_ns);
		l = pp_u64map_get(&s->disp, t->id);
		for (size_t j = 0; l && j < l->nr; j++) {
			const struct ana_disp *dp = &l->v[j];
			struct pp_az *az = dp->az;

			if (!(az->ops->flags & PP_AZ_COUNTERS))
				continue;
			if (!dp->plain && !post_filter(az, &ev))
				continue;
			/* the selector's filter was the kernel's; its cpus= is checked here */
			if (dp->sel->cpus && ev.cpu != UINT32_MAX &&
			    !pp_list_has(dp->sel->cpus, dp->sel->nr_cpus, ev.cpu))
				continue;
			ev.sel = dp->sel;
			az->ops->event(az, &ev);
		}
	}
}

/*
 * A record of a CPU >= ANA_MAX_CPUS is not delivered (the session counts it): analyzers
 * keep tables by CPU, and a damaged capture's CPU 4294967294 must not cost them 100 GB
 * (tests/fuzz).  UINT32_MAX is "every CPU" in counters, losses and side band.
 */
static bool bad_cpu(struct ana_session *s, const struct ppf_record *rec)
{
	uint32_t cpu;

	switch (rec->type) {
	case PPF_REC_SAMPLE: cpu = rec->u.sample.cpu; break;
	case PPF_REC_COUNTER: cpu = rec->u.counter.cpu; break;
	case PPF_REC_LOST: cpu = rec->u.lost.cpu; break;
	case PPF_REC_SIDEBAND: cpu = rec->u.sideband.cpu; break;
	default: return false;
	}
	if (cpu < ANA_MAX_CPUS || (cpu == UINT32_MAX && rec->type != PPF_REC_SAMPLE))
		return false;
	s->nr_bad_cpu++;
	return true;
}

/* Live: what a segment produced reaches the reader before we wait for the next one. */
static void live_flush(struct ana_session *s)
{
	for (size_t i = 0; i < s->nr_azs; i++)
		if (s->azs[i]->out.fp)
			fflush(s->azs[i]->out.fp);
	fflush(stdout);
}

/* Whether @rec is one that sets first_ns in a replay of its time: a sample or a reading of a known type. */
static bool counts_first(struct ana_session *s, const struct ppf_record *rec)
{
	if (rec->type == PPF_REC_SAMPLE)
		return ana_session_type(s, rec->u.sample.id) != NULL;
	if (rec->type != PPF_REC_COUNTER)
		return false;
	for (uint32_t i = 0; i < rec->u.counter.nr; i++)
		if (ana_session_type(s, rec->u.counter.v[i].id))
			return true;
	return false;
}

int ana_replay_capture_first(struct ana_session *s, struct ppf_record *rec, int have_first)
{
	int rc = 0;

	while (!s->capture_first_ns) {
		if (have_first)
			have_first = 0;
		else if ((rc = ppf_reader_next(s->r, rec, NULL)) != 0)
			return rc == PPF_END ? 0 : rc;
		if (!bad_cpu(s, rec) && counts_first(s, rec))
			s->capture_first_ns = rec->time_ns;
	}
	return 0;
}

int ana_replay(struct ana_session *s, struct ppf_record *rec, int have_first)
{
	const struct ppf_segment *seg = NULL;
	struct ana_progress progress;
	bool seg_end = false;
	int rc = 0;

	s->live = s->path && !strcmp(s->path, "-");
	if (!s->inited && (rc = ana_replay_init(s)))
		return rc;
	ana_progress_start(&progress, s);
	for (;;) {
		if (have_first) {
			have_first = 0;
		} else {
			if (seg_end)
				live_flush(s);	/* the segment's last record is done */
			rc = ppf_reader_next(s->r, rec, s->live ? &seg : NULL);
			if (rc)
				break;
			seg_end = seg && rec->time_ns && rec->time_ns == seg->last_ns;
		}
		ana_progress_record(&progress, s);
		if (pp_stop || s->all_done || s->stop)
			break;
		/* the signals' requests are the main thread's, not a part's (parallel.c) */
		if (ana_interval_now && rec->time_ns && !s->part)
			interval_now(s, rec->time_ns);
		if (ana_print_stat_now && !s->part) {
			ana_print_stat_now = 0;
			for (size_t i = 0; i < s->nr_azs; i++) {
				s->azs[i]->ops->flush(s->azs[i]);
				s->azs[i]->ops->print_stat(s->azs[i], 2);
			}
			fflush(stdout);
		}
		if (bad_cpu(s, rec))
			continue;
		if (!s->capture_first_ns && counts_first(s, rec))
			s->capture_first_ns = rec->time_ns;
		if (rec->type == PPF_REC_SAMPLE) {
			if (s->range_start_ns && rec->time_ns < s->range_start_ns)
				continue;
			if (s->range_end_ns && rec->time_ns > s->range_end_ns)
				break;
			deliver(s, &rec->u.sample);
			continue;
		}
		if (rec->type == PPF_REC_COUNTER) {
			if (s->range_end_ns && rec->time_ns > s->range_end_ns)
				break;
			/* before --time's start: only a base for the deltas */
			deliver_counter(s, &rec->u.counter,
					!s->range_start_ns || rec->time_ns >= s->range_start_ns);
			continue;
		}
		rc = ana_session_meta(s, rec);
		if (rc)
			break;
		/* live: time syncs (every 50 ms from pp-record -o -) end intervals without events */
		if (s->live && s->has_ticks && rec->type == PPF_REC_TIME_SYNC)
			tick(s, rec->time_ns);
		if (rec->type == PPF_REC_LOST && ana_in_range(s, rec->time_ns)) {
			struct pp_lost_ev l = { rec->time_ns, rec->u.lost.cpu, rec->u.lost.count };
			for (size_t i = 0; i < s->nr_azs; i++)
				s->azs[i]->ops->lost(s->azs[i], &l);
		} else if (rec->type == PPF_REC_SIDEBAND) {
			const struct ppf_sideband *b = &rec->u.sideband;
			struct pp_sideband_ev sb = { rec->time_ns, b->cpu, b->perf_type, b->data,
						     b->size, b->pid, b->tid };

			if ((s->range_start_ns && rec->time_ns < s->range_start_ns) ||
			    (s->range_end_ns && rec->time_ns > s->range_end_ns))
				continue;
			for (size_t i = 0; i < s->nr_azs; i++)
				s->azs[i]->ops->sideband(s->azs[i], &sb);
		} else if (rec->type == PPF_REC_EXIT && rec->time_ns >= s->exit_from_ns) {
			for (size_t i = 0; i < s->nr_azs; i++)
				s->azs[i]->ops->task_exit(s->azs[i], rec->u.task_event.pid,
							  rec->u.task_event.tid, rec->time_ns);
		} else if (rec->type == PPF_REC_DSO || rec->type == PPF_REC_KSYM) {
			s->ksyms_final = false;
		}
	}
	ana_progress_end(&progress);	/* before any message or report */
	if (s->nr_bad_cpu)
		pp_warn("'%s': %llu records of CPUs beyond %u (a damaged capture) were not analysed",
			s->path, (unsigned long long)s->nr_bad_cpu, ANA_MAX_CPUS - 1);
	if (rc == PPF_END)
		rc = 0;
	if (rc < 0)
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
	for (size_t i = 0; i < s->nr_azs; i++) {
		struct pp_az *az = s->azs[i];
		/* --state-out: the state is the result, in place of the report */
		int frc = ana_state_recording(az) ? ana_state_save(az) : az->ops->finish(az);
		if (frc && !az->exit_status)
			az->exit_status = frc < 0 ? 1 : frc;
	}
	return rc;
}

int ana_replay_status(int rc)
{
	if (rc == PP_EUNKNOWN_EVENT || rc == PP_ESYNTAX || rc == PP_EUNKNOWN_FIELD ||
	    rc == PP_ETYPE || rc == PP_EUNKNOWN_ATTR || rc == PP_EUSAGE ||
	    rc == PP_EOFFLINE || rc == PP_ENOTSUP || rc == PP_ERANGE)
		return 2;
	return rc ? 1 : 0;
}

bool ana_is_live(const struct pp_az *az)
{
	return az->s->live;
}

bool ana_time_in_range(const struct pp_az *az, uint64_t t_ns)
{
	return ana_in_range(az->s, t_ns);
}

void ana_report_header(struct pp_az *az)
{
	struct ana_session *s = az->s;
	const struct ppf_read_stats *st = s->r ? ppf_reader_stats(s->r) : &s->state_stats;
	struct pp_buf where = PP_BUF_INIT;

	for (size_t i = 0; i < s->nr_lost_cpus; i++)
		pp_buf_addf(&where, " cpu%u=%llu", s->lost_cpus[i].cpu,
			    (unsigned long long)s->lost_cpus[i].count);
	if (az->out.format == ANA_FMT_TEXT) {
		if (s->lost_total)
			fprintf(az->out.fp, "# %llu%s events lost:%s\n", (unsigned long long)s->lost_total,
				s->lost_saturated ? " or more (the sum saturated)" : "",
				pp_buf_str(&where));
		if (st->nr_corrupt)
			fprintf(az->out.fp, "# %llu corrupt segments skipped (%llu records lost)\n",
				(unsigned long long)st->nr_corrupt, (unsigned long long)st->records_lost);
	} else {
		/* json and csv stay parseable: the reader is told on stderr, once per change */
		if (s->lost_total > az->lost_noted)
			pp_warn("%s: %llu%s events lost:%s (not part of the %s output)", az->name,
				(unsigned long long)s->lost_total,
				s->lost_saturated ? " or more (the sum saturated)" : "", pp_buf_str(&where),
				az->out.format == ANA_FMT_JSON ? "json" : "csv");
		if (st->nr_corrupt > az->corrupt_noted)
			pp_warn("%s: %llu corrupt segments skipped (%llu records lost)", az->name,
				(unsigned long long)st->nr_corrupt, (unsigned long long)st->records_lost);
		az->lost_noted = s->lost_total;
		az->corrupt_noted = st->nr_corrupt;
	}
	pp_buf_release(&where);
}

size_t ana_capture_problems(struct ana_session *s, struct pp_buf *out)
{
	const struct ppf_read_stats *st = s->r ? ppf_reader_stats(s->r) : &s->state_stats;
	size_t n = 0;

	for (size_t i = 0; i < st->nr_problems; i++) {
		const struct ppf_problem *pb = &st->problems[i];
		if (pb->err == PP_ETRUNCATED)
			continue;	/* reported below, once */
		pp_buf_addf(out, "segment %llu at offset %llu: %s", (unsigned long long)pb->seq,
			    (unsigned long long)pb->offset, pp_strerror(pb->err));
		if (pb->nr_records)
			pp_buf_addf(out, " (%u records lost)", pb->nr_records);
		pp_buf_addch(out, '\n');
		n++;
	}
	if (st->nr_corrupt > st->nr_problems) {
		pp_buf_addf(out, "%llu more corrupt segments\n",
			    (unsigned long long)(st->nr_corrupt - st->nr_problems));
		n++;
	}
	/* a live stream has no index or trailer by design: only a cut segment is a problem */
	if (st->truncated && !(s->live && !st->cut_mid_segment)) {
		pp_buf_addf(out, "truncated: %s at offset %llu (after segment %llu)\n",
			    st->cut_mid_segment ? "the file ends inside a segment"
						: "the file has no index or trailer",
			    (unsigned long long)st->truncated_at, (unsigned long long)st->last_seq);
		n++;
	}
	return n;
}
