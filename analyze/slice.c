/* SPDX-License-Identifier: MIT */
/*
 * slice.c - a smaller self-contained capture: a time range, some processes,
 * some events, with what their analysis needs.
 *
 * The slice keeps what a replay restricted with --time, -p and -e reads, so
 * that analyzers given those options report on the slice what they report on
 * the original: the replay stops at the first sample or counter reading after
 * the range (so does the slice), delivers the samples of the range, counts
 * the losses of the range, and learns tasks, names and maps from every
 * side-band record before that point (so the slice keeps the whole task
 * history, every time sync, and the counter readings before the range, the
 * bases of the first deltas).  A sample belongs to a kept process when its
 * pid, its thread's process, or a *pid field of the record (next_pid of a
 * sched_switch, pid of a wakeup) names one: task-state and rundelay follow a
 * task through the events of others.  Symbols: the binaries the kept processes
 * map, and the kernel symbols the kept samples' addresses fall in (IPs, stacks,
 * 8-byte fields such as a timer's function), with the symbol after each (a
 * kernel symbol ends where the next begins); a first pass over the capture finds
 * them (a stream keeps every kernel symbol and binary).
 * Not here: options (cmd-slice.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/internal.h"
#include "analyze/share.h"
#include "common/expr.h"
#include "common/intern.h"
#include "common/selector.h"
#include "common/symbolize.h"
#include "common/units.h"

struct slice {
	struct ana_session *s;
	const struct ana_slice_opts *o;
	struct ana_slice_report *rep;
	bool have_range;
	uint64_t start_ns, end_ns;	/* --time, 0 = open */
	struct pp_u64map kept_ids;	/* event id -> (void *)1 when -e selects it */
	struct pp_intern *bins;		/* build ids and paths the kept processes map */
	bool dso_kept;			/* the last DSO is kept: so are its SYMs */
	uint64_t span_first, span_last;	/* the range's first and last samples, of any event */
	struct pp_u64map kaddrs;	/* kernel addresses in the kept samples of the range */
	uint64_t *kstarts;		/* every kernel symbol's address (pass one) */
	size_t nr_kstarts, cap_kstarts;
	struct pp_u64map kkeep;		/* kernel symbol addresses to keep */
	bool ksyms_filtered;
	struct ppf_counter_val *vals;	/* a COUNTER's readings of kept events */
};

static bool pid_kept(const struct slice *x, uint32_t pid)
{
	return !x->o->nr_pids || pp_list_has(x->o->pids, x->o->nr_pids, (int)pid);
}

/* A task id (thread or process) that belongs to a kept process, as the session knows it now. */
static bool task_kept(struct slice *x, uint64_t v)
{
	if (v > UINT32_MAX)
		return false;
	return pid_kept(x, (uint32_t)v) || pid_kept(x, ana_task_pid(x->s, (uint32_t)v));
}

static bool in_range(const struct slice *x, uint64_t t)
{
	return !(x->start_ns && t < x->start_ns) && !(x->end_ns && t > x->end_ns);
}

static bool event_selected(const struct slice *x, const char *name)
{
	for (size_t i = 0; i < x->o->nr_events; i++)
		if (pp_glob_match(x->o->events[i], name))
			return true;
	return !x->o->nr_events;
}

/* "+2s" from the first event, "12.5" seconds, "123ns": as analyzers read --time. */
static int parse_when(const char *text, size_t n, uint64_t first_ns, uint64_t *out)
{
	char *s = pp_xstrndup(text, n), *p = s;
	bool rel = *p == '+';
	uint64_t v = 0;
	int rc = 0;

	p += rel;
	if (*p)
		rc = pp_parse_time(p, 1000000000ull, &v);
	*out = *p ? (rel ? first_ns + v : v) : 0;
	free(s);
	return rc;
}

static int set_range(struct slice *x, uint64_t first_ns, char *err, size_t errsz)
{
	const char *t = x->o->time, *comma = t ? strchr(t, ',') : NULL;

	x->have_range = true;
	if (!t)
		return 0;
	if (parse_when(t, comma ? (size_t)(comma - t) : strlen(t), first_ns, &x->start_ns) ||
	    (comma && parse_when(comma + 1, strlen(comma + 1), first_ns, &x->end_ns))) {
		snprintf(err, errsz, "bad --time '%s': use START,END with times like 12.5 or +2s", t);
		return PP_EUSAGE;
	}
	if (x->end_ns && x->end_ns < x->start_ns) {
		snprintf(err, errsz, "--time '%s': the end is before the start", t);
		return PP_EUSAGE;
	}
	x->rep->start_ns = x->start_ns;
	x->rep->end_ns = x->end_ns;
	return 0;
}

static void bin_key(struct pp_buf *b, const uint8_t *id, uint32_t id_sz, const char *path)
{
	pp_buf_reset(b);
	if (id_sz) {
		pp_buf_adds(b, "id:");
		for (uint32_t i = 0; i < id_sz; i++)
			pp_buf_addf(b, "%02x", id[i]);
	} else {
		pp_buf_adds(b, "path:");
		pp_buf_adds(b, path);
	}
}

/* A kernel text address (not a PERF_CONTEXT_* marker) a kept sample holds. */
static void note_kaddr(struct slice *x, uint64_t a)
{
	if (a >= 0xffff000000000000ull && a < (uint64_t)-4095)
		pp_u64map_put(&x->kaddrs, a, (void *)1);
}

/* Its IP, address, stack, and the 8-byte fields (function pointers, call sites). */
static void note_sample_kaddrs(struct slice *x, const struct ppf_sample *smp)
{
	const struct ana_evtype *t = ana_session_type(x->s, smp->id);
	struct pp_event ev = { .raw = smp->raw, .raw_sz = smp->raw_sz };

	note_kaddr(x, smp->ip);
	note_kaddr(x, smp->addr);
	for (uint32_t i = 0; i < smp->nr_stack; i++)
		note_kaddr(x, smp->stack[i]);
	for (size_t i = 0; t && i < t->nr_fields; i++) {
		const struct pp_field *f = &t->fields[i];
		uint64_t v;

		if (f->is_string || f->is_data_loc)
			continue;
		if (!f->is_array && f->size == 8) {
			note_kaddr(x, ana_field_read(&ev, f));
		} else if (f->is_array && f->elem_size == 8) {
			for (uint32_t k = 0; k + 8 <= f->size && f->offset + k + 8 <= smp->raw_sz; k += 8) {
				memcpy(&v, smp->raw + f->offset + k, 8);
				note_kaddr(x, v);
			}
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The kernel symbols to keep: for each address, the symbol that starts last at or
 * before it, and the one after that (its end: the symbolizer sizes a kernel symbol
 * by the next one), every alias at those addresses included.  Every kept address
 * then resolves to the symbol and offset it resolves to in the original.
 */
static void choose_ksyms(struct slice *x)
{
	size_t n = 0, it = 0;
	uint64_t a;
	void *v;

	if (x->nr_kstarts)
		qsort(x->kstarts, x->nr_kstarts, sizeof(*x->kstarts), cmp_u64);
	for (size_t i = 0; i < x->nr_kstarts; i++)
		if (!n || x->kstarts[i] != x->kstarts[n - 1])
			x->kstarts[n++] = x->kstarts[i];
	while (pp_u64map_next(&x->kaddrs, &it, &a, &v)) {
		size_t lo = 0, hi = n;

		while (lo < hi) {	/* the first start > a */
			size_t mid = lo + (hi - lo) / 2;
			if (x->kstarts[mid] <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo)
			pp_u64map_put(&x->kkeep, x->kstarts[lo - 1], (void *)1);
		if (lo < n)
			pp_u64map_put(&x->kkeep, x->kstarts[lo], (void *)1);
	}
	x->ksyms_filtered = true;
}

/*
 * Pass one (files only): the range's start ("+2s" counts from the first event), the
 * binaries the kept processes map (by build id and by path), the kernel addresses
 * the range's samples of the kept events hold and the kernel symbols' addresses.
 * The session learns the event types here; it learns nothing else before pass two.
 */
static int scan(struct slice *x, char *err, size_t errsz)
{
	struct pp_buf b = PP_BUF_INIT;
	struct ppf_record r;
	int rc;

	while ((rc = ppf_reader_next(x->s->r, &r, NULL)) == 0) {
		if (!x->have_range && (r.type == PPF_REC_SAMPLE || r.type == PPF_REC_SIDEBAND ||
				       r.type == PPF_REC_COUNTER)) {
			rc = set_range(x, r.time_ns, err, errsz);
			if (rc)
				break;
		}
		switch (r.type) {
		case PPF_REC_EVENT_DESC:
			if (!ana_session_type(x->s, r.u.event.id) && (rc = ana_session_meta(x->s, &r)))
				goto out;
			if (event_selected(x, r.u.event.name))
				pp_u64map_put(&x->kept_ids, r.u.event.id, (void *)1);
			break;
		case PPF_REC_KSYM:
			if (x->nr_kstarts == x->cap_kstarts) {
				x->cap_kstarts = x->cap_kstarts ? 2 * x->cap_kstarts : 4096;
				x->kstarts = pp_xrealloc(x->kstarts, x->cap_kstarts * sizeof(*x->kstarts));
			}
			x->kstarts[x->nr_kstarts++] = r.u.ksym.addr;
			break;
		case PPF_REC_MMAP:
			if (!x->o->nr_pids || !pid_kept(x, r.u.mmap.pid))
				break;
			bin_key(&b, r.u.mmap.build_id, r.u.mmap.build_id_sz, r.u.mmap.path);
			pp_intern_put_str(x->bins, pp_buf_str(&b), NULL);
			bin_key(&b, NULL, 0, r.u.mmap.path);
			pp_intern_put_str(x->bins, pp_buf_str(&b), NULL);
			break;
		case PPF_REC_SAMPLE:
			if (in_range(x, r.time_ns) && pp_u64map_get(&x->kept_ids, r.u.sample.id))
				note_sample_kaddrs(x, &r.u.sample);
			break;
		}
	}
out:
	pp_buf_release(&b);
	if (rc < 0) {
		if (!err[0])
			snprintf(err, errsz, "reading '%s': %s", x->s->path, ppf_reader_errmsg(x->s->r));
		return rc;
	}
	if (!x->o->all_ksyms)
		choose_ksyms(x);
	rc = ppf_reader_rewind(x->s->r);
	if (rc)
		snprintf(err, errsz, "'%s' cannot be read a second time (%s)", x->s->path,
			 pp_strerror(rc));
	return rc;
}

static bool dso_kept(struct slice *x, const struct ppf_dso *d)
{
	struct pp_buf b = PP_BUF_INIT;
	uint32_t jit_pid;
	bool keep;

	if (!x->o->nr_pids || (d->flags & PPF_DSO_KERNEL_MODULE))
		return true;
	if ((d->flags & PPF_DSO_JITMAP) && pp_sym_jitmap_pid(d->path, &jit_pid))
		return pid_kept(x, jit_pid);
	bin_key(&b, d->build_id, d->build_id_sz, d->path);
	keep = pp_intern_find(x->bins, b.data, b.len) >= 0;
	bin_key(&b, NULL, 0, d->path);
	keep |= pp_intern_find(x->bins, b.data, b.len) >= 0;
	pp_buf_release(&b);
	return keep;
}

/* A sample of the range: of a selected event, concerning a kept process. */
static bool sample_kept(struct slice *x, const struct ppf_sample *smp)
{
	struct ana_evtype *t;
	struct pp_event ev;

	if (!pp_u64map_get(&x->kept_ids, smp->id))
		return false;
	t = ana_session_type(x->s, smp->id);
	if (!t)
		return false;
	ana_session_sample(x->s, t, smp, &ev);	/* pid/tid as the replay recovers them */
	if (!x->o->nr_pids || task_kept(x, ev.pid) || task_kept(x, ev.tid))
		return true;
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct pp_field *f = &t->fields[i];
		size_t n = strlen(f->name);

		if (n >= 3 && !strcmp(f->name + n - 3, "pid") && !f->is_array && !f->is_string &&
		    task_kept(x, ana_field_read(&ev, f)))
			return true;
	}
	return false;
}

/* A COUNTER with the readings of the selected events only; false when none is left. */
static bool counter_kept(struct slice *x, struct ppf_record *r)
{
	struct ppf_counter *k = &r->u.counter;
	uint32_t n = 0;

	if (k->tid != UINT32_MAX && !task_kept(x, k->tid))
		return false;
	for (uint32_t i = 0; i < k->nr; i++)
		if (pp_u64map_get(&x->kept_ids, k->v[i].id))
			x->vals[n++] = k->v[i];
	k->v = x->vals;
	k->nr = n;
	return n > 0;
}

/*
 * Whether record @r goes into the slice; *@stop when the replay of the original
 * with --time would stop reading here.
 */
static int keep_record(struct slice *x, struct ppf_record *r, bool *keep, bool *stop, char *err,
		       size_t errsz)
{
	int rc = 0;

	*keep = true;
	*stop = false;
	if (!x->have_range && (r->type == PPF_REC_SAMPLE || r->type == PPF_REC_SIDEBAND ||
			       r->type == PPF_REC_COUNTER)) {
		rc = set_range(x, r->time_ns, err, errsz);	/* "+2s" counts from here */
		if (rc)
			return rc;
	}
	switch (r->type) {
	case PPF_REC_EVENT_DESC:
		if (!ana_session_type(x->s, r->u.event.id))
			rc = ana_session_meta(x->s, r);
		*keep = event_selected(x, r->u.event.name);
		if (*keep)
			pp_u64map_put(&x->kept_ids, r->u.event.id, (void *)1);
		break;
	case PPF_REC_TASK:
	case PPF_REC_COMM:
	case PPF_REC_FORK:
	case PPF_REC_EXIT:
		rc = ana_session_meta(x->s, r);	/* task history: all of it */
		break;
	case PPF_REC_MMAP:
		*keep = pid_kept(x, r->u.mmap.pid);
		break;
	case PPF_REC_DSO:
		x->rep->nr_dsos_in++;
		*keep = x->dso_kept = dso_kept(x, &r->u.dso);
		x->rep->nr_dsos_out += *keep;
		break;
	case PPF_REC_SYM:
	case PPF_REC_UNWIND:
		*keep = x->dso_kept;
		break;
	case PPF_REC_KSYM:
		x->rep->nr_ksyms_in++;
		*keep = !x->ksyms_filtered || pp_u64map_get(&x->kkeep, r->u.ksym.addr);
		x->rep->nr_ksyms_out += *keep;
		break;
	case PPF_REC_LOST:
		*keep = in_range(x, r->time_ns);
		break;
	case PPF_REC_SAMPLE:
		x->rep->nr_samples_in++;
		*stop = x->end_ns && r->time_ns > x->end_ns;
		if (!*stop && in_range(x, r->time_ns) && ana_session_type(x->s, r->u.sample.id)) {
			if (!x->span_first)
				x->span_first = r->time_ns;
			x->span_last = r->time_ns;
		}
		*keep = !*stop && in_range(x, r->time_ns) && sample_kept(x, &r->u.sample);
		x->rep->nr_samples_out += *keep;
		break;
	case PPF_REC_COUNTER:
		*stop = x->end_ns && r->time_ns > x->end_ns;
		*keep = !*stop && counter_kept(x, r);	/* before the range too: delta bases */
		break;
	case PPF_REC_SIDEBAND:
		*keep = !(x->end_ns && r->time_ns > x->end_ns);
		break;
	}
	return rc;
}

/* The slice says what it is: KV slice.* records first. */
static int write_origin(struct slice *x, struct ppf_writer *w)
{
	struct pp_buf b = PP_BUF_INIT;
	int rc = ppf_write_kv(w, "slice.source", x->s->path);

	if (!rc && x->o->time)
		rc = ppf_write_kv(w, "slice.time", x->o->time);
	for (size_t i = 0; i < x->o->nr_pids; i++)
		pp_buf_addf(&b, "%s%d", i ? "," : "", x->o->pids[i]);
	if (!rc && b.len)
		rc = ppf_write_kv(w, "slice.pids", pp_buf_str(&b));
	pp_buf_reset(&b);
	for (size_t i = 0; i < x->o->nr_events; i++)
		pp_buf_addf(&b, "%s%s", i ? "," : "", x->o->events[i]);
	if (!rc && b.len)
		rc = ppf_write_kv(w, "slice.events", pp_buf_str(&b));
	pp_buf_release(&b);
	return rc;
}

int ana_slice(struct ana_session *s, const struct ana_slice_opts *o, struct ana_slice_report *rep,
	      char *err, size_t errsz)
{
	struct slice x = { .s = s, .o = o, .rep = rep };
	struct ppf_writer *w = NULL;
	struct ppf_record r;
	struct stat st;
	int rc, crc;

	memset(rep, 0, sizeof(*rep));
	err[0] = '\0';
	x.bins = pp_intern_new();
	x.vals = pp_xcalloc(PPF_COUNTER_MAX, sizeof(*x.vals));
	if (strcmp(s->path, "-")) {
		rc = scan(&x, err, errsz);
		if (rc)
			goto out;
	} else if (o->nr_pids) {
		snprintf(err, errsz, "--pid reads the capture twice: give a file, not a stream");
		rc = PP_EUSAGE;
		goto out;
	}
	rc = ppf_writer_open(o->out_path, NULL, &w);
	if (rc) {
		snprintf(err, errsz, "cannot write '%s': %s", o->out_path, pp_strerror(rc));
		goto out;
	}
	rc = write_origin(&x, w);
	while (!rc && (rc = ppf_reader_next(s->r, &r, NULL)) == 0) {
		bool keep, stop;

		rep->nr_in++;
		rc = keep_record(&x, &r, &keep, &stop, err, errsz);
		if (rc || stop)
			break;
		if (!keep)
			continue;
		rep->nr_out++;
		rc = ppf_write_record(w, &r);
		if (rc)
			snprintf(err, errsz, "writing '%s': %s", o->out_path, ppf_writer_errmsg(w));
	}
	if (rc == PPF_END)
		rc = 0;
	if (!rc && x.span_first) {
		/* the replay's start and end on the original (session.c's slice_span()) */
		char span[48];
		snprintf(span, sizeof(span), "%llu,%llu", (unsigned long long)x.span_first,
			 (unsigned long long)x.span_last);
		rc = ppf_write_kv(w, "slice.span", span);
	}
	if (rc < 0 && !err[0])
		snprintf(err, errsz, "reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
	crc = ppf_writer_close(w);
	if (!stat(o->out_path, &st))
		rep->bytes_out = (uint64_t)st.st_size;
	if (crc && !rc) {
		rc = crc;
		snprintf(err, errsz, "writing '%s': %s", o->out_path, pp_strerror(crc));
	}
out:
	pp_u64map_release(&x.kept_ids);
	pp_u64map_release(&x.kaddrs);
	pp_u64map_release(&x.kkeep);
	free(x.kstarts);
	pp_intern_free(x.bins);
	free(x.vals);
	return rc;
}
