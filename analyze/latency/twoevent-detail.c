/* SPDX-License-Identifier: MIT */
/*
 * twoevent-detail.c - printing a slow pair, with --detail the events around it.
 *
 * perf-prof's layout: every line is a 27-column title, then the trace line
 * of an event (comm, tid, flags, [cpu], time, name, fields) and its stack.
 * event1 and event2 carry their wall time as the title; the events before
 * event1 (-N) come under "-Previous X us" with "|" titles, the first event
 * between the two is titled "|+ <delta> us", every 50th "|- <t - t1> us",
 * the others "|"; events closer than hide<N to the previous shown one are
 * counted in a "| N hidden" line; the events after event2 (+N) end with
 * "`After X us".  An event1 never matched prints "| >= X us, event2 may be
 * lost.".  The same* items keep only the events related to event1/event2
 * by CPU (following the task across CPUs through wakeups, switches and
 * migrations), pid, tid or key.  With --format json a pair is one JSON
 * object on one line.  Not here: deciding what is slow (twoevent-delay.c).
 */
#include <string.h>

#include "analyze/latency/internal.h"
#include "common/expr.h"

/* --- the tp matchers ------------------------------------------------------- */

static int64_t fv(const struct te_node *n, const struct pp_field *f)
{
	return f ? (int64_t)ana_field_read(&n->ev, f) : -1;
}

static bool m_samecpu(const struct te_node *n, int cpu)
{
	const struct te_tp *tp = n->tp;

	switch (tp->match) {
	case TE_M_WAKEUP:
	case TE_M_DEFAULT:
		return tp->f_cpu && fv(n, tp->f_cpu) == cpu;
	case TE_M_MIGRATE:
		return fv(n, tp->f_cpu) == cpu || fv(n, tp->f_pid2) == cpu;
	default:
		return false;
	}
}

static bool m_samepid(const struct te_node *n, int64_t pid)
{
	const struct te_tp *tp = n->tp;

	switch (tp->match) {
	case TE_M_SWITCH:
	case TE_M_FORK:
		return fv(n, tp->f_pid) == pid || fv(n, tp->f_pid2) == pid;
	default:
		return tp->f_pid && fv(n, tp->f_pid) == pid;
	}
}

/* Where task @pid may be after event @n on @cpu: its CPU, or -1 when it sleeps. */
static bool m_target_cpu(struct ana_te *te, const struct te_node *n, int cpu, int64_t pid,
			 int *target)
{
	const struct te_tp *tp = n->tp;

	switch (tp->match) {
	case TE_M_WAKEUP:
		if (fv(n, tp->f_pid) != pid)
			return false;
		*target = (int)fv(n, tp->f_cpu);
		return true;
	case TE_M_SWITCH:
		if (fv(n, tp->f_pid2) == pid) {
			*target = cpu;
			return true;
		}
		if (fv(n, tp->f_pid) == pid) {
			int64_t st = fv(n, tp->f_prev_state);
			*target = (st == 0 || (uint64_t)st == te->preempt_state) ? cpu : -1;
			return true;
		}
		return false;
	case TE_M_MIGRATE:
		if (fv(n, tp->f_pid) != pid)
			return false;
		*target = (int)fv(n, tp->f_pid2);
		return true;
	default:
		return false;
	}
}

/* perf-prof's event_need_to_print(): is @n related to the pair (@e1, @e2) and @key? */
static bool need_print(struct ana_te *te, const struct te_node *n, const struct te_node *e1,
		       const struct te_node *e2, uint64_t key, struct te_iter *it)
{
	const struct pp_detail *d = &te->detail;
	bool cmp1 = true, cmp2 = e2 != NULL, samecpu1;
	int cpu = (int)n->ev.cpu;

	if (!pp_detail_filters(d))
		return true;
	samecpu1 = cmp1;
	if (d->same1 || d->same2) {
		cmp1 = cmp1 && d->same1;
		cmp2 = cmp2 && d->same2;
	}
	if (d->samecpu) {
		if (samecpu1) {
			int64_t track = te->comm ? (int64_t)key : e1->ev.tid;
			if (track > 0) {
				if (m_target_cpu(te, n, cpu, track, &it->recent_cpu))
					return true;
				if (!te->comm && cpu != it->recent_cpu && n->ev.tid == track) {
					it->recent_cpu = cpu;
					return true;
				}
			}
			if (cpu == it->recent_cpu || m_samecpu(n, it->recent_cpu))
				return true;
			if (cmp1 && !te->comm &&
			    (n->ev.cpu == e1->ev.cpu || m_samecpu(n, (int)e1->ev.cpu)))
				return true;
		}
		if (cmp2 && !te->comm &&
		    (n->ev.cpu == e2->ev.cpu ||
		     (e1->ev.cpu != e2->ev.cpu && m_samecpu(n, (int)e2->ev.cpu))))
			return true;
	}
	if (d->samepid) {
		int64_t pid = te->comm ? (int64_t)key : e1->ev.pid;
		if (cmp1 && pid > 0 && ((int64_t)n->ev.pid == pid || m_samepid(n, pid)))
			return true;
		if (cmp2 && (int32_t)e2->ev.pid > 0 && !te->comm &&
		    (n->ev.pid == e2->ev.pid ||
		     (e1->ev.pid != e2->ev.pid && m_samepid(n, e2->ev.pid))))
			return true;
	}
	if (d->sametid) {
		int64_t tid = te->comm ? (int64_t)key : e1->ev.tid;
		if (cmp1 && tid > 0 && ((int64_t)n->ev.tid == tid || m_samepid(n, tid)))
			return true;
		if (cmp2 && (int32_t)e2->ev.tid > 0 && !te->comm &&
		    (n->ev.tid == e2->ev.tid ||
		     (e1->ev.tid != e2->ev.tid && m_samepid(n, e2->ev.tid))))
			return true;
	}
	if (d->samekey && (!!n->tp->key) == (!!e1->tp->key) && n->key == key)
		return true;
	return false;
}

static void track_cpu(struct ana_te *te, const struct te_node *n, uint64_t key, int64_t tid,
		      struct te_iter *it)
{
	int64_t track = te->comm ? (int64_t)key : tid;

	if (track > 0)
		m_target_cpu(te, n, (int)n->ev.cpu, track, &it->recent_cpu);
}

/* --- lines ---------------------------------------------------------------------- */

static void json_event(struct ana_te *te, const struct te_node *n, const char *title)
{
	struct pp_buf f = PP_BUF_INIT;
	char ts[32];

	ana_event_fields(te->s, &n->ev, &f);
	pp_buf_addf(&te->line, "%s{\"title\":", te->line.len > 1 &&
		    te->line.data[te->line.len - 1] != '[' ? "," : "");
	pp_buf_add_json_str(&te->line, title ? title : "");
	pp_buf_addf(&te->line, ",\"time\":%s,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		    ana_ts_str(n->ev.time_ns, ts, sizeof(ts)), n->ev.cpu, n->ev.pid, n->ev.tid);
	pp_buf_add_json_str(&te->line, ana_comm(te->s, n->ev.tid));
	pp_buf_adds(&te->line, ",\"event\":");
	pp_buf_add_json_str(&te->line, n->tp ? n->tp->name : n->ev.type->name);
	pp_buf_adds(&te->line, ",\"fields\":");
	pp_buf_add_json_str(&te->line, pp_buf_str(&f));
	pp_buf_addch(&te->line, '}');
	pp_buf_release(&f);
}

void ana_te_print_event(struct ana_te *te, const struct te_node *n, const char *title)
{
	struct pp_buf *b = &te->scratch;
	char wall[48];

	if (!te->text) {
		if (te->json_open) {
			json_event(te, n, title);
			return;
		}
		pp_buf_reset(&te->line);
		pp_buf_adds(&te->line, "{\"event\":[");
		json_event(te, n, title);
		pp_buf_adds(&te->line, "]}\n");
		fputs(pp_buf_str(&te->line), te->fp);
		return;
	}
	pp_buf_reset(b);
	ana_event_print(te->s, &n->ev, b);
	if (title) {
		size_t wl = strlen(ana_time_str(te->s, n->ev.time_ns, wall, sizeof(wall))) + 1;
		fprintf(te->fp, "%-27s%s\n", title, wl <= b->len ? pp_buf_str(b) + wl : "");
	} else {
		fprintf(te->fp, "%s\n", pp_buf_str(b));
	}
	if (n->tp && n->tp->stack && n->ev.nr_stack) {
		pp_buf_reset(b);
		ana_stack_print(te->s, &n->ev, b);
		fputs(pp_buf_str(b), te->fp);
	}
}

static void print_title(struct ana_te *te, const char *title)
{
	if (te->text)
		fprintf(te->fp, "%s\n", title);
}

/* A JSON object per reported pair: {"slow":{..., "events":[...]}}. */
static void json_begin(struct ana_te *te, struct te_pair *p, uint64_t key, uint64_t delta,
		       bool unfinished)
{
	pp_buf_reset(&te->line);
	pp_buf_adds(&te->line, "{\"slow\":{\"start\":");
	pp_buf_add_json_str(&te->line, p->tp1->name);
	pp_buf_adds(&te->line, ",\"end\":");
	pp_buf_add_json_str(&te->line, p->tp2 ? p->tp2->name : "");
	pp_buf_addf(&te->line, ",\"key\":%llu,\"delta_us\":%.3f,\"unfinished\":%s,\"events\":[",
		    (unsigned long long)key, delta / 1000.0, unfinished ? "true" : "false");
	te->json_open = true;
}

static void json_end(struct ana_te *te)
{
	pp_buf_adds(&te->line, "]}}\n");
	fputs(pp_buf_str(&te->line), te->fp);
	te->json_open = false;
}

/* Events of [it->start, e1) that pass the same* tests, under "-Previous X us". */
static void print_previous(struct ana_te *te, const struct te_node *e1, const struct te_node *e2,
			   uint64_t key, struct te_iter *it)
{
	bool printed = false;
	char buf[64];

	if (it->start == it->e1 || !ana_te_tl_valid(te, it->start))
		return;
	for (uint64_t seq = it->start; seq < it->e1 && ana_te_tl_valid(te, seq); seq++) {
		const struct te_node *n = ana_te_tl_at(te, seq);
		if (!need_print(te, n, e1, e2, key, it))
			continue;
		if (!printed) {
			const struct te_node *first = ana_te_tl_at(te, it->start);
			snprintf(buf, sizeof(buf), "-Previous %.3f %s",
				 (e1->ev.time_ns - first->ev.time_ns) / 1000.0, ana_te_unit(te));
			print_title(te, buf);
			printed = true;
		}
		ana_te_print_event(te, n, "|");
	}
}

void ana_te_print_pair(struct ana_te *te, struct te_pair *p, struct te_node *e1, struct te_node *e2,
		   uint64_t delta, struct te_iter *it)
{
	const char *unit = ana_te_unit(te);
	uint64_t key = e2->key;
	char buf[64];

	if (!te->text)
		json_begin(te, p, key, delta, false);
	if (it) {
		it->recent_cpu = te->comm ? (int)e1->ev.cpu : -1;
		print_previous(te, e1, e2, key, it);
	}
	ana_te_print_event(te, e1, NULL);
	if (it) {
		const struct te_node *prev = NULL;
		unsigned shown = 0, hide = 0;

		track_cpu(te, e1, key, e1->ev.tid, it);
		for (uint64_t seq = it->e1 + 1; seq < it->e2 && ana_te_tl_valid(te, seq); seq++) {
			const struct te_node *n = ana_te_tl_at(te, seq);
			if (!need_print(te, n, e1, e2, key, it))
				continue;
			if (shown && te->detail.hide_ns) {
				if (n->ev.time_ns - prev->ev.time_ns < te->detail.hide_ns) {
					hide++;
					prev = n;
					continue;
				}
				if (hide) {
					/* the last hidden one is shown: it precedes a gap */
					if (--hide && te->text)
						fprintf(te->fp, "| %6u hidden\n", hide);
					ana_te_print_event(te, prev, "|");
					shown++;
				}
			}
			if (!shown)
				snprintf(buf, sizeof(buf), "|+ %.3f %s", delta / 1000.0, unit);
			else if (shown % 50 == 0)
				snprintf(buf, sizeof(buf), "|- %.3f %s",
					 (n->ev.time_ns - e1->ev.time_ns) / 1000.0, unit);
			else
				snprintf(buf, sizeof(buf), "|");
			ana_te_print_event(te, n, buf);
			shown++;
			hide = 0;
			prev = n;
		}
		if (!shown) {
			snprintf(buf, sizeof(buf), "|+ %.3f %s", delta / 1000.0, unit);
			print_title(te, buf);
		}
		if (hide && te->text)
			fprintf(te->fp, "| %6u hidden\n", hide);
	}
	ana_te_print_event(te, e2, NULL);
	if (it) {
		const struct te_node *last = NULL;

		track_cpu(te, e2, key, e1->ev.tid, it);
		for (uint64_t seq = it->e2 + 1; ana_te_tl_valid(te, seq); seq++) {
			const struct te_node *n = ana_te_tl_at(te, seq);
			if (n->ev.time_ns > e2->ev.time_ns + te->detail.after_ns)
				break;	/* +N: the events within N after event2 */
			if (need_print(te, n, e1, e2, key, it)) {
				ana_te_print_event(te, n, "|");
				last = n;
			} else if (last) {
				last = n;
			}
		}
		if (last && te->text)
			fprintf(te->fp, "`After %.3f %s\n",
				(last->ev.time_ns - e2->ev.time_ns) / 1000.0, unit);
	}
	if (!te->text)
		json_end(te);
}

void ana_te_print_unfinished(struct ana_te *te, struct te_pair *p, struct te_node *e1, uint64_t delta,
			 struct te_iter *it)
{
	const char *unit = ana_te_unit(te);
	uint64_t key = e1->key;
	bool first = true;
	char buf[64];

	if (!te->text)
		json_begin(te, p, key, delta, true);
	it->recent_cpu = te->comm ? (int)e1->ev.cpu : -1;
	print_previous(te, e1, NULL, key, it);
	ana_te_print_event(te, e1, NULL);
	track_cpu(te, e1, key, e1->ev.tid, it);
	snprintf(buf, sizeof(buf), "| >= %.3f %s", delta / 1000.0, unit);
	for (uint64_t seq = it->e1 + 1; ana_te_tl_valid(te, seq); seq++) {
		const struct te_node *n = ana_te_tl_at(te, seq);
		if (!need_print(te, n, e1, NULL, key, it))
			continue;
		ana_te_print_event(te, n, first ? buf : "|");
		first = false;
	}
	if (te->text)
		fprintf(te->fp, "| >= %.3f %s, event2 may be lost.\n", delta / 1000.0, unit);
	else
		json_end(te);
}
