/* SPDX-License-Identifier: MIT */
/*
 * context.c - CONTEXT: what an analyzer's report asks of the captures, kept in a
 * state so that it prints without them.
 *
 * Taken from the session at the end of a replay: host keys, the event types
 * the analyzer matched (with their stored formats, so ->init() compiles the
 * same expressions), the syscall table, every task with its last name, the
 * losses and the corrupt segments of the range.  Merged by "the later source
 * wins" per key (a task's name, a host key), losses added; and turned back
 * into a session without a reader, fed the same metadata records a capture
 * would feed it (ana_session_meta()), so ana_comm(), ana_syscall_name(),
 * ana_time_str() and ana_report_header() answer as after the replay.
 */
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/internal.h"
#include "analyze/state/internal.h"
#include "common/log.h"
#include "common/symbolize.h"

static int cmp_task(const void *a, const void *b)
{
	const struct ana_stask *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_syscall(const void *a, const void *b)
{
	const struct ana_ssyscall *x = a, *y = b;

	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

void ana_sctx_from_session(struct ana_session *s, const struct pp_az *az, struct ana_sctx *out)
{
	struct ana_task_info ti;
	size_t it = 0;
	uint64_t k;
	void *v;

	memset(out, 0, sizeof(*out));
	out->kv = pp_xcalloc(s->nr_host + 1, sizeof(*out->kv));
	for (size_t i = 0; i < s->nr_host; i++) {
		out->kv[i].key = pp_xstrdup(s->host_keys[i]);
		out->kv[i].value = pp_xstrdup(s->host_vals[i]);
	}
	out->nr_kv = s->nr_host;
	/* the types the analyzer matched, in the capture's order (the order selection sees) */
	out->events = pp_xcalloc(s->nr_types + 1, sizeof(*out->events));
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *t = s->type_list[i];
		struct ana_sevent *e;
		bool used = false;

		for (size_t m = 0; m < az->nr_sels && !used; m++)
			used = az->sels[m].type == t;
		if (!used)
			continue;
		e = &out->events[out->nr_events++];
		e->id = t->id;
		e->kind = t->kind;
		e->flags = t->desc_flags;
		e->name = pp_xstrdup(t->name);
		e->selector = pp_xstrdup(t->selector ? t->selector : "");
		e->filter = pp_xstrdup(t->filter ? t->filter : "");
		e->format = pp_xstrdup(ana_evtype_format(t));
		if (t->attr_sz) {
			e->attr = pp_xmalloc(t->attr_sz);
			memcpy(e->attr, t->attr, t->attr_sz);
			e->attr_sz = t->attr_sz;
		}
	}
	while (pp_u64map_next(&s->syscalls, &it, &k, &v)) {
		out->syscalls = pp_xrealloc(out->syscalls, (out->nr_syscalls + 1) * sizeof(*out->syscalls));
		out->syscalls[out->nr_syscalls++] = (struct ana_ssyscall){ (uint32_t)k, pp_xstrdup(v) };
	}
	if (out->nr_syscalls)
		qsort(out->syscalls, out->nr_syscalls, sizeof(*out->syscalls), cmp_syscall);
	it = 0;
	while (ana_task_next(s, &it, &ti)) {
		out->tasks = pp_xrealloc(out->tasks, (out->nr_tasks + 1) * sizeof(*out->tasks));
		out->tasks[out->nr_tasks++] = (struct ana_stask){ ti.tid, ti.pid, ti.ppid, ti.exit_ns,
								  pp_xstrdup(ti.comm) };
	}
	if (out->nr_tasks)
		qsort(out->tasks, out->nr_tasks, sizeof(*out->tasks), cmp_task);
	out->lost_total = s->lost_total;
	out->lost_saturated = s->lost_saturated;
	out->lost = pp_xcalloc(s->nr_lost_cpus + 1, sizeof(*out->lost));
	for (size_t i = 0; i < s->nr_lost_cpus; i++)
		out->lost[i] = (struct ana_slost){ s->lost_cpus[i].cpu, s->lost_cpus[i].count };
	out->nr_lost = s->nr_lost_cpus;
	if (s->r) {
		const struct ppf_read_stats *st = ppf_reader_stats(s->r);
		out->nr_corrupt = st->nr_corrupt;
		out->records_lost = st->records_lost;
	}
}

void ana_sctx_encode(const struct ana_sctx *c, struct pp_buf *b)
{
	pp_wire_put_varint(b, c->nr_kv);
	for (size_t i = 0; i < c->nr_kv; i++) {
		pp_wire_put_str(b, c->kv[i].key);
		pp_wire_put_str(b, c->kv[i].value);
	}
	pp_wire_put_varint(b, c->nr_events);
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct ana_sevent *e = &c->events[i];

		pp_wire_put_varint(b, e->id);
		pp_wire_put_varint(b, e->kind);
		pp_wire_put_varint(b, e->flags);
		pp_wire_put_str(b, e->name);
		pp_wire_put_str(b, e->selector);
		pp_wire_put_str(b, e->filter);
		pp_wire_put_bytes(b, e->attr, e->attr_sz);
		pp_wire_put_str(b, e->format);
	}
	pp_wire_put_varint(b, c->nr_syscalls);
	for (size_t i = 0; i < c->nr_syscalls; i++) {
		pp_wire_put_varint(b, c->syscalls[i].nr);
		pp_wire_put_str(b, c->syscalls[i].name);
	}
	pp_wire_put_varint(b, c->nr_tasks);
	for (size_t i = 0; i < c->nr_tasks; i++) {
		const struct ana_stask *t = &c->tasks[i];

		pp_wire_put_varint(b, t->tid);
		pp_wire_put_varint(b, t->pid);
		pp_wire_put_varint(b, t->ppid);
		pp_wire_put_varint(b, t->exit_ns);
		pp_wire_put_str(b, t->comm);
	}
	pp_wire_put_varint(b, c->lost_total);
	pp_wire_put_varint(b, c->lost_saturated ? 1 : 0);
	pp_wire_put_varint(b, c->nr_lost);
	for (size_t i = 0; i < c->nr_lost; i++) {
		pp_wire_put_varint(b, c->lost[i].cpu);
		pp_wire_put_varint(b, c->lost[i].count);
	}
	pp_wire_put_varint(b, c->nr_corrupt);
	pp_wire_put_varint(b, c->records_lost);
}

int ana_sctx_decode(struct pp_wire *r, struct ana_sctx *c)
{
	size_t n = pp_wire_count(r, 4, ANA_STATE_MAX_KV, "host keys");
	uint64_t flags;

	c->kv = pp_xcalloc(n + 1, sizeof(*c->kv));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		c->kv[i].key = pp_xstrdup(pp_wire_str(r));
		c->kv[i].value = pp_xstrdup(pp_wire_str(r));
		c->nr_kv++;
	}
	n = pp_wire_count(r, 12, ANA_STATE_MAX_EVENTS, "event types");
	c->events = pp_xcalloc(n + 1, sizeof(*c->events));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		struct ana_sevent *e = &c->events[i];
		const uint8_t *attr;
		size_t sz;

		e->id = pp_wire_u32(r, "event id");
		e->kind = pp_wire_u32(r, "event kind");
		e->flags = pp_wire_u32(r, "event flags");
		e->name = pp_xstrdup(pp_wire_str(r));
		e->selector = pp_xstrdup(pp_wire_str(r));
		e->filter = pp_xstrdup(pp_wire_str(r));
		attr = pp_wire_bytes(r, &sz);
		if (sz) {
			e->attr = pp_xmalloc(sz);
			memcpy(e->attr, attr, sz);
			e->attr_sz = (uint32_t)sz;
		}
		e->format = pp_xstrdup(pp_wire_str(r));
		c->nr_events++;
		if (pp_wire_ok(r) && !*e->name)
			return pp_wire_fail(r, PP_EBAD_RECORD, "event type %zu has no name", i);
		for (size_t j = 0; j < i && pp_wire_ok(r); j++)
			if (c->events[j].id == e->id)
				return pp_wire_fail(r, PP_EBAD_RECORD, "event id %u twice", e->id);
	}
	n = pp_wire_count(r, 3, 1u << 20, "syscall names");
	c->syscalls = pp_xcalloc(n + 1, sizeof(*c->syscalls));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		c->syscalls[i].nr = pp_wire_u32(r, "syscall number");
		c->syscalls[i].name = pp_xstrdup(pp_wire_str(r));
		c->nr_syscalls++;
		if (i && pp_wire_ok(r) && c->syscalls[i].nr <= c->syscalls[i - 1].nr)
			return pp_wire_fail(r, PP_EBAD_RECORD, "syscalls out of order");
	}
	n = pp_wire_count(r, 6, ANA_STATE_MAX_TASKS, "tasks");
	c->tasks = pp_xcalloc(n + 1, sizeof(*c->tasks));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		struct ana_stask *t = &c->tasks[i];

		t->tid = pp_wire_u32(r, "tid");
		t->pid = pp_wire_u32(r, "pid");
		t->ppid = pp_wire_u32(r, "ppid");
		t->exit_ns = pp_wire_varint(r);
		t->comm = pp_xstrdup(pp_wire_str(r));
		c->nr_tasks++;
		if (i && pp_wire_ok(r) && t->tid <= c->tasks[i - 1].tid)
			return pp_wire_fail(r, PP_EBAD_RECORD, "tasks out of order");
	}
	c->lost_total = pp_wire_varint(r);
	flags = pp_wire_varint(r);
	if (flags > 1)
		return pp_wire_fail(r, PP_EBAD_RECORD, "loss flags %#llx", (unsigned long long)flags);
	c->lost_saturated = flags & 1;
	n = pp_wire_count(r, 2, ANA_STATE_MAX_LOST_CPUS, "CPUs with losses");
	c->lost = pp_xcalloc(n + 1, sizeof(*c->lost));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		c->lost[i].cpu = pp_wire_u32(r, "cpu");
		c->lost[i].count = pp_wire_varint(r);
		c->nr_lost++;
	}
	c->nr_corrupt = pp_wire_varint(r);
	c->records_lost = pp_wire_varint(r);
	return r->err;
}

void ana_sctx_release(struct ana_sctx *c)
{
	for (size_t i = 0; i < c->nr_kv; i++) {
		free(c->kv[i].key);
		free(c->kv[i].value);
	}
	free(c->kv);
	for (size_t i = 0; i < c->nr_events; i++) {
		struct ana_sevent *e = &c->events[i];
		free(e->name);
		free(e->selector);
		free(e->filter);
		free(e->format);
		free(e->attr);
	}
	free(c->events);
	for (size_t i = 0; i < c->nr_syscalls; i++)
		free(c->syscalls[i].name);
	free(c->syscalls);
	for (size_t i = 0; i < c->nr_tasks; i++)
		free(c->tasks[i].comm);
	free(c->tasks);
	free(c->lost);
	memset(c, 0, sizeof(*c));
}

static void sat_add(uint64_t *acc, uint64_t v, bool *sat)
{
	if (__builtin_add_overflow(*acc, v, acc)) {
		*acc = UINT64_MAX;
		*sat = true;
	}
}

static void event_copy(struct ana_sevent *d, const struct ana_sevent *s)
{
	*d = *s;
	d->name = pp_xstrdup(s->name);
	d->selector = pp_xstrdup(s->selector);
	d->filter = pp_xstrdup(s->filter);
	d->format = pp_xstrdup(s->format);
	d->attr = NULL;
	if (s->attr_sz) {
		d->attr = pp_xmalloc(s->attr_sz);
		memcpy(d->attr, s->attr, s->attr_sz);
	}
}

void ana_sctx_merge(struct ana_sctx *dst, const struct ana_sctx *src, bool src_later)
{
	size_t n0;

	/* host keys: in dst's order, then src's new ones */
	n0 = dst->nr_kv;
	for (size_t i = 0; i < src->nr_kv; i++) {
		size_t j;
		for (j = 0; j < n0 && strcmp(dst->kv[j].key, src->kv[i].key); j++)
			;
		if (j < n0) {
			if (src_later) {
				free(dst->kv[j].value);
				dst->kv[j].value = pp_xstrdup(src->kv[i].value);
			}
			continue;
		}
		dst->kv = pp_xrealloc(dst->kv, (dst->nr_kv + 1) * sizeof(*dst->kv));
		dst->kv[dst->nr_kv++] = (struct ana_skv){ pp_xstrdup(src->kv[i].key),
							  pp_xstrdup(src->kv[i].value) };
	}
	/* event types: the same names in every state (IDENT); the later formats */
	if (src_later) {
		for (size_t i = 0; i < dst->nr_events; i++) {
			free(dst->events[i].name);
			free(dst->events[i].selector);
			free(dst->events[i].filter);
			free(dst->events[i].format);
			free(dst->events[i].attr);
		}
		dst->events = pp_xrealloc(dst->events, (src->nr_events + 1) * sizeof(*dst->events));
		for (size_t i = 0; i < src->nr_events; i++)
			event_copy(&dst->events[i], &src->events[i]);
		dst->nr_events = src->nr_events;
	}
	/* syscalls and tasks: sorted unions */
	n0 = dst->nr_syscalls;
	for (size_t i = 0; i < src->nr_syscalls; i++) {
		struct ana_ssyscall *hit = !n0 ? NULL :
			bsearch(&src->syscalls[i], dst->syscalls, n0, sizeof(*dst->syscalls), cmp_syscall);
		if (hit) {
			if (src_later) {
				free(hit->name);
				hit->name = pp_xstrdup(src->syscalls[i].name);
			}
			continue;
		}
		dst->syscalls = pp_xrealloc(dst->syscalls, (dst->nr_syscalls + 1) * sizeof(*dst->syscalls));
		dst->syscalls[dst->nr_syscalls++] = (struct ana_ssyscall){
			src->syscalls[i].nr, pp_xstrdup(src->syscalls[i].name) };
	}
	if (dst->nr_syscalls)
		qsort(dst->syscalls, dst->nr_syscalls, sizeof(*dst->syscalls), cmp_syscall);
	n0 = dst->nr_tasks;
	for (size_t i = 0; i < src->nr_tasks; i++) {
		const struct ana_stask *t = &src->tasks[i];
		struct ana_stask *hit = !n0 ? NULL : bsearch(t, dst->tasks, n0, sizeof(*dst->tasks), cmp_task);

		if (hit) {
			/*
			 * The later range's task, but not its lack of a name: one a replay learnt
			 * (from an event's fields) stays in its task table until a COMM renames it.
			 */
			if (src_later) {
				char *comm = *t->comm || !*hit->comm ? pp_xstrdup(t->comm) : hit->comm;
				if (comm != hit->comm)
					free(hit->comm);
				*hit = *t;
				hit->comm = comm;
			}
			continue;
		}
		dst->tasks = pp_xrealloc(dst->tasks, (dst->nr_tasks + 1) * sizeof(*dst->tasks));
		dst->tasks[dst->nr_tasks] = *t;
		dst->tasks[dst->nr_tasks++].comm = pp_xstrdup(t->comm);
	}
	if (dst->nr_tasks)
		qsort(dst->tasks, dst->nr_tasks, sizeof(*dst->tasks), cmp_task);
	/* losses and damage add up; CPUs in the order their first loss came */
	sat_add(&dst->lost_total, src->lost_total, &dst->lost_saturated);
	dst->lost_saturated |= src->lost_saturated;
	for (size_t i = 0; i < src->nr_lost; i++) {
		size_t j;
		for (j = 0; j < dst->nr_lost && dst->lost[j].cpu != src->lost[i].cpu; j++)
			;
		if (j < dst->nr_lost) {
			sat_add(&dst->lost[j].count, src->lost[i].count, &dst->lost_saturated);
		} else if (dst->nr_lost < ANA_STATE_MAX_LOST_CPUS) {
			dst->lost = pp_xrealloc(dst->lost, (dst->nr_lost + 1) * sizeof(*dst->lost));
			dst->lost[dst->nr_lost++] = src->lost[i];
		}
	}
	dst->nr_corrupt += src->nr_corrupt;
	dst->records_lost += src->records_lost;
}

/* The time line of the report: that of the latest capture's ranges. */
static void session_time(struct ana_session *s, const struct ana_ssrc *srcs, size_t nr)
{
	const struct ana_ssrc *last = &srcs[nr - 1];
	bool open_end = false;

	s->range_start_ns = UINT64_MAX;
	for (size_t i = 0; i < nr; i++) {
		const struct ana_ssrc *x = &srcs[i];
		if (!ana_ssrc_same_capture(x, last))
			continue;
		if (x->first_ns && (!s->first_ns || x->first_ns < s->first_ns))
			s->first_ns = x->first_ns;
		if (x->last_ns > s->last_ns)
			s->last_ns = x->last_ns;
		if (x->range_start_ns < s->range_start_ns)
			s->range_start_ns = x->range_start_ns;
		open_end |= !x->range_end_ns;
		if (x->range_end_ns > s->range_end_ns)
			s->range_end_ns = x->range_end_ns;
	}
	if (open_end)
		s->range_end_ns = 0;
	s->have_sync = last->have_sync;
	s->sync_perf_ns = last->sync_perf_ns;
	s->sync_real_ns = last->sync_real_ns;
}

int ana_sctx_session(const struct ana_sctx *c, const struct ana_ssrc *srcs, size_t nr_srcs,
		     struct ana_session **out)
{
	struct ana_session *s = pp_xcalloc(1, sizeof(*s));
	struct ppf_record rec;
	int rc;

	*out = s;
	s->path = "(state)";
	ana_session_init_meta(s);
	for (size_t i = 0; i < c->nr_kv; i++) {
		rec = (struct ppf_record){ .type = PPF_REC_KV };
		rec.u.kv.key = c->kv[i].key;
		rec.u.kv.value = c->kv[i].value;
		ana_session_meta(s, &rec);
	}
	for (size_t i = 0; i < c->nr_events; i++) {
		const struct ana_sevent *e = &c->events[i];
		rec = (struct ppf_record){ .type = PPF_REC_EVENT_DESC };
		rec.u.event = (struct ppf_event_desc){ .id = e->id, .kind = e->kind, .flags = e->flags,
						       .name = e->name, .selector = e->selector,
						       .filter = e->filter, .attr = e->attr,
						       .attr_sz = e->attr_sz, .format = e->format };
		rc = ana_session_meta(s, &rec);
		if (rc) {
			snprintf(s->errmsg, sizeof(s->errmsg), "event type %s: %s", e->name,
				 pp_strerror(rc));
			return rc;
		}
	}
	for (size_t i = 0; i < c->nr_syscalls; i++) {
		rec = (struct ppf_record){ .type = PPF_REC_SYSCALL };
		rec.u.syscall.nr = c->syscalls[i].nr;
		rec.u.syscall.name = c->syscalls[i].name;
		ana_session_meta(s, &rec);
	}
	for (size_t i = 0; i < c->nr_tasks; i++) {
		const struct ana_stask *t = &c->tasks[i];
		struct ana_task *k;
		rec = (struct ppf_record){ .type = PPF_REC_TASK };
		rec.u.task = (struct ppf_task){ .pid = t->pid, .tid = t->tid, .ppid = t->ppid,
						.comm = t->comm, .cmdline = "" };
		ana_session_meta(s, &rec);
		k = pp_u64map_get(&s->tasks, t->tid);
		if (k)
			k->exit_ns = t->exit_ns;
	}
	s->lost_total = c->lost_total;
	s->lost_saturated = c->lost_saturated;
	s->lost_cpus = pp_xcalloc(c->nr_lost + 1, sizeof(*s->lost_cpus));
	for (size_t i = 0; i < c->nr_lost; i++)
		s->lost_cpus[i] = (struct ana_lost_cpu){ c->lost[i].cpu, c->lost[i].count };
	s->nr_lost_cpus = c->nr_lost;
	s->state_stats.nr_corrupt = c->nr_corrupt;
	s->state_stats.records_lost = c->records_lost;
	session_time(s, srcs, nr_srcs);
	ana_session_finalize_syms(s);
	return 0;
}
