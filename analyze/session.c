/* SPDX-License-Identifier: MIT */
/*
 * session.c - one capture opened for analysis: its metadata and side-band state.
 *
 * Metadata records (host keys, event descriptions, syscall table, task
 * snapshot, kernel and user symbols) come first in a capture and are folded
 * into the session as they are read; side-band records (COMM, FORK, EXIT,
 * MMAP, LOST, TIME_SYNC) keep arriving in time order and keep the task
 * table, the maps and the clock mapping current for the event being
 * replayed.  The same code serves a file and a live stream.
 * Not here: the task table (tasks.c), the symbol tables (symbols.c), the
 * side-band budget (budget.c): this file hands them their records, and
 * what each sample teaches the task table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "analyze/cfi.h"
#include "analyze/import/import.h"
#include "analyze/internal.h"
#include "analyze/unwind.h"
#include "format/segq.h"
#include "common/dwinline.h"
#include "common/expr.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/sat.h"
#include "common/symbolize.h"
#include "common/units.h"

/* libtraceevent's %pS / %ps: kernel symbols from the capture's kallsyms. */
static char *tep_ksym_resolver(void *priv, unsigned long long *addrp, char **modp)
{
	uint64_t off = 0;
	const char *name = ana_ksym(priv, *addrp, &off);

	if (!name)
		return NULL;
	*addrp -= off;
	*modp = NULL;
	return (char *)name;
}

/*
 * A file is decompressed a segment ahead on a second thread when there is a second CPU
 * (about a quarter off the wall time of `top`); PP_READ_AHEAD=0 keeps
 * the replay on one thread.
 */
static unsigned read_ahead_flag(void)
{
	const char *e = getenv("PP_READ_AHEAD");

	if (e && !strcmp(e, "0"))
		return 0;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? PPF_READ_AHEAD : 0;
}

void ana_session_init_meta(struct ana_session *s)
{
	s->tep = tep_alloc();
	if (!s->tep)
		pp_die("out of memory");
	tep_set_long_size(s->tep, 8);
	tep_set_page_size(s->tep, 4096);
	tep_set_file_bigendian(s->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, TEP_LITTLE_ENDIAN);
	s->syms = pp_symtab_new(0);
	if (!s->syms)
		pp_die("out of memory");
}

/*
 * The reader of @path: a capture's, or that of the capture a perf.data or trace.dat
 * converts into (analyze/import/).  Return: 0, a negative code (reader's message), or
 * 1 with the message in s->errmsg.
 */
static int open_reader(struct ana_session *s, const char *path, unsigned flags, bool stream)
{
	const struct ana_importer *imp;

	if (ana_import_sniff(path, &imp, s->errmsg, sizeof(s->errmsg)))
		return 1;
	if (!imp)
		return ppf_reader_open(path, flags, &s->r);
	if (stream && imp->in_memory && strcmp(path, "-")) {
		struct ppf_segq *q;

		if (ana_import_stream(path, imp, &q, &s->import_job, s->errmsg, sizeof(s->errmsg)))
			return 1;
		s->imported = true;
		return ppf_reader_open_segq(q, flags, &s->r);
	}
	if (ana_import_open(path, imp, s->conv_path, sizeof(s->conv_path), s->errmsg,
			    sizeof(s->errmsg)))
		return 1;
	s->imported = true;
	return ppf_reader_open(s->conv_path, flags, &s->r);
}

int ana_session_open(const char *path, unsigned flags, struct ana_session **out)
{
	struct ana_session *s = pp_xcalloc(1, sizeof(*s));
	int rc;

	*out = s;
	s->path = path;
	bool stream = flags & ANA_OPEN_IMPORT_STREAM;

	flags &= ~ANA_OPEN_IMPORT_STREAM;
	if (flags & ANA_OPEN_NO_READ_AHEAD)
		flags &= ~ANA_OPEN_NO_READ_AHEAD;
	else
		flags |= read_ahead_flag();
	rc = open_reader(s, path, flags, stream);
	if (rc == 1)
		return PP_EBAD_MAGIC;	/* a foreign file that cannot be converted: errmsg says why */
	if (rc) {
		snprintf(s->errmsg, sizeof(s->errmsg), "cannot open capture '%s'%s: %s", path,
			 strcmp(path, "-") ? "" : " (standard input)",
			 s->r ? ppf_reader_errmsg(s->r) : pp_strerror(rc));
		return rc;
	}
	ana_session_init_meta(s);
	tep_set_function_resolver(s->tep, tep_ksym_resolver, s);
	return 0;
}

struct pp_inl *ana_session_inl(struct ana_session *s, const char *debug_dir)
{
	const char *dir = debug_dir ? debug_dir : "";

	while (s->lender)
		s = s->lender;
	for (size_t i = 0; i < s->nr_inls; i++)
		if (!strcmp(s->inls[i].dir, dir))
			return s->inls[i].inl;
	s->inls = pp_xrealloc(s->inls, (s->nr_inls + 1) * sizeof(*s->inls));
	s->inls[s->nr_inls] = (struct ana_inl_dir){ pp_xstrdup(dir), pp_inl_new_dirs(debug_dir) };
	pp_inl_names_only(s->inls[s->nr_inls].inl);	/* stacks print names, not lines */
	return s->inls[s->nr_inls++].inl;
}

void ana_session_free(struct ana_session *s)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!s)
		return;
	for (size_t i = 0; i < s->nr_inls; i++) {
		free(s->inls[i].dir);
		pp_inl_free(s->inls[i].inl);
	}
	free(s->inls);
	ana_unwind_free(s->unwind);
	ppf_reader_close(s->r);
	ana_import_job_end(s->import_job);	/* the reader gone, its converter stops */
	for (size_t i = 0; i < s->nr_types; i++)
		ana_evtype_free(s->type_list[i]);
	free(s->type_list);
	free(s->cpu_cur);
	pp_u64map_release(&s->types);
	while (pp_u64map_next(&s->syscalls, &it, &k, &v))
		free(v);
	pp_u64map_release(&s->syscalls);
	it = 0;
	while (pp_u64map_next(&s->tasks, &it, &k, &v))
		free(v);
	pp_u64map_release(&s->tasks);
	it = 0;
	while (pp_u64map_next(&s->disp, &it, &k, &v)) {
		struct ana_disp_list *l = v;
		free(l->v);
		free(l);
	}
	pp_u64map_release(&s->disp);
	it = 0;
	while (pp_u64map_next(&s->counts, &it, &k, &v))
		free(v);
	pp_u64map_release(&s->counts);
	pp_u64map_release(&s->dsos);
	ana_cfi_free(s);
	for (size_t i = 0; i < s->nr_host; i++) {
		free(s->host_keys[i]);
		free(s->host_vals[i]);
	}
	free(s->host_keys);
	free(s->host_vals);
	free(s->lost_cpus);
	if (s->tep)
		tep_free(s->tep);
	pp_symtab_free(s->syms);
	pp_buf_release(&s->scratch);
	pp_buf_release(&s->print_check);
	free(s->fold_scratch);
	pp_buf_release(&s->fold_tok);
	ana_fcache_free(s);
	ana_debugsyms_free(s->debugsyms);
	ana_debugfiles_free(s->debugfiles);
	free(s->str_scratch);
	free(s);
}

void ana_session_stop(struct ana_session *s)
{
	s->stop = true;
}

struct ana_evtype *ana_session_type(struct ana_session *s, uint32_t id)
{
	return pp_u64map_get(&s->types, id);
}

const char *ana_host(struct ana_session *s, const char *key)
{
	for (size_t i = 0; i < s->nr_host; i++)
		if (!strcmp(s->host_keys[i], key))
			return s->host_vals[i];
	return NULL;
}

static void host_set(struct ana_session *s, const char *k, const char *v)
{
	for (size_t i = 0; i < s->nr_host; i++)
		if (!strcmp(s->host_keys[i], k)) {
			if (strlen(v) > strlen(s->host_vals[i]) && !ana_sb_room(s))
				return;
			s->sb_bytes += strlen(v) + 1;	/* freed ones are not given back: a bound */
			free(s->host_vals[i]);
			s->host_vals[i] = pp_xstrdup(v);
			return;
		}
	if (s->nr_host >= PP_LIMIT_HOST_KEYS || !ana_sb_room(s))
		return;	/* a hostile file: stop growing */
	s->sb_bytes += strlen(k) + strlen(v) + 2 + 4 * sizeof(char *);
	s->host_keys = pp_xrealloc(s->host_keys, (s->nr_host + 1) * sizeof(char *));
	s->host_vals = pp_xrealloc(s->host_vals, (s->nr_host + 1) * sizeof(char *));
	s->host_keys[s->nr_host] = pp_xstrdup(k);
	s->host_vals[s->nr_host++] = pp_xstrdup(v);
}

/* A sample names its pid/tid; remember the pairing for tasks the snapshot missed. */
struct ana_task *ana_session_note_task(struct ana_session *s, uint32_t pid, uint32_t tid)
{
	struct ana_task **slot = &s->task_cache[tid & (PP_ARRAY_SIZE(s->task_cache) - 1)];
	struct ana_task *t = *slot;

	if (!tid)
		return NULL;
	if (!t || t->tid != tid)
		t = *slot = ana_task_entry(s, tid);
	t->pid = pid;
	return t;
}

/*
 * The kernel reports pid/tid -1 for a task it has already unhashed: the
 * last sched_switch of an exiting task (prev_state X), a timer sample in its
 * exit path.  A tracepoint still names it in common_pid; else, when the
 * capture has sched_switch, the task is the one last switched in on that
 * CPU.  Its process comes from the task table.
 */
static void recover_tid(struct ana_session *s, struct pp_event *ev)
{
	uint64_t pid = 0;

	if (!ev->raw_sz || !ana_field_u64(ev, "common_pid", &pid))
		pid = ev->cpu < s->nr_cpu_cur && s->cpu_cur[ev->cpu] ? s->cpu_cur[ev->cpu] - 1 : 0;
	if (!pid || pid >= UINT32_MAX)
		return;
	ev->tid = (uint32_t)pid;
	ev->pid = ana_task_pid(s, ev->tid);
}

/* Who runs on each CPU, from sched_switch (for recover_tid()). */
static void note_switch(struct ana_session *s, const struct pp_field *next, const struct pp_event *ev)
{
	if (ev->cpu >= 4096)
		return;
	if (ev->cpu >= s->nr_cpu_cur) {
		size_t n = (ev->cpu | 15) + 1;
		s->cpu_cur = pp_xrealloc(s->cpu_cur, n * sizeof(*s->cpu_cur));
		memset(s->cpu_cur + s->nr_cpu_cur, 0, (n - s->nr_cpu_cur) * sizeof(*s->cpu_cur));
		s->nr_cpu_cur = n;
	}
	uint32_t v;
	if (next->size == 4 && !next->is_data_loc && ev->raw &&
	    (uint64_t)next->offset + 4 <= ev->raw_sz)
		memcpy(&v, ev->raw + next->offset, 4);	/* ana_field_read()'s value, inline */
	else
		v = (uint32_t)ana_field_read(ev, next);
	s->cpu_cur[ev->cpu] = v + 1;
}

/*
 * A task whose COMM and FORK records were lost has no name; an event that
 * names it in its own fields (sched_switch's prev_comm/prev_pid) gives it one.
 * For every event only after a LOST record: without losses the task records
 * name almost every task, and this costs a lookup per field pair per event
 * (~40% of `top`); else only for the events of a task still unnamed.
 */
static void learn_names(struct ana_session *s, const struct ana_evtype_priv *x,
			const struct pp_event *ev)
{
	for (unsigned i = 0; i < x->nr_names; i++) {
		uint64_t pid = ana_field_read(ev, x->name_pid[i]);
		const struct pp_field *c = x->name_comm[i];
		struct ana_task *t;

		if (!pid || pid >= UINT32_MAX)
			continue;
		t = pp_u64map_get(&s->tasks, pid);
		if (t && t->comm[0])
			continue;
		if (c->is_data_loc || (uint64_t)c->offset + c->size > ev->raw_sz)
			continue;
		t = ana_task_entry(s, (uint32_t)pid);
		size_t n = c->size < sizeof(t->comm) ? c->size : sizeof(t->comm) - 1;
		memcpy(t->comm, ev->raw + c->offset, n);
		t->comm[n] = '\0';
		ana_task_named(s, t);
	}
}

void ana_session_sample(struct ana_session *s, struct ana_evtype *t, const struct ppf_sample *smp,
			struct pp_event *ev)
{
	/*
	 * Field by field, not `*ev = (struct pp_event){...}`: the compound literal
	 * zeroes the whole struct first (a `rep stos` of its 112 bytes) before the
	 * stores overwrite it.  With ana_comm()'s task cache: 4% fewer instructions
	 * in a `top` replay of 1M sched events (callgrind, tests/bench stage core).
	 */
	ev->time_ns = smp->time_ns;
	ev->cpu = smp->cpu;
	ev->pid = smp->pid;
	ev->tid = smp->tid;
	ev->period = smp->period;
	ev->ip = smp->ip;
	ev->addr = smp->addr;
	ev->flags = smp->flags;
	ev->type = t;
	ev->sel = NULL;
	ev->raw = smp->raw;
	ev->raw_sz = smp->raw_sz;
	ev->stack = smp->stack;
	ev->count = NULL;
	ev->nr_stack = smp->nr_stack;
	ev->extra = smp->extra;
	ev->extra_sz = smp->extra_sz;
	if (smp->flags & PPF_SF_USTACK)	/* --call-graph dwarf: the whole stack, once */
		ana_unwind_event(s, t, smp, ev);
	t->count++;
	if (!s->first_ns)
		s->first_ns = smp->time_ns;
	s->last_ns = smp->time_ns;
	if (s->lost_total && ana_evtype_priv(t)->nr_names)	/* only losses leave tasks unnamed */
		learn_names(s, ana_evtype_priv(t), ev);
	if (ev->tid == UINT32_MAX)
		recover_tid(s, ev);
	if (ana_evtype_priv(t)->switch_next)
		note_switch(s, ana_evtype_priv(t)->switch_next, ev);
	if (ev->tid != s->last_tid) {
		struct ana_task *k = ana_session_note_task(s, ev->pid, ev->tid);
		/*
		 * A task with no name without any loss: one forked between the
		 * recorder's first reading of /proc and the enable, gone before its
		 * second (no FORK, no COMM, no snapshot).  Its events may name it
		 * (sched_switch's prev_comm): learn from each of them until one does.
		 */
		if (k && !k->comm[0] && ana_evtype_priv(t)->nr_names && !s->lost_total)
			learn_names(s, ana_evtype_priv(t), ev);
		s->last_tid = k && !k->comm[0] ? 0 : ev->tid;
	}
}

const struct ana_evtype *ana_evtype_find(struct ana_session *s, const char *name)
{
	for (size_t i = 0; i < s->nr_types; i++)
		if (!strcmp(s->type_list[i]->name, name))
			return s->type_list[i];
	return NULL;
}

static void lost_add(struct ana_session *s, uint32_t cpu, uint64_t count)
{
	/* counts from the capture: a sum stops at 2^64-1 and says so, it never wraps */
	if (pp_sat_add(&s->lost_total, count))
		s->lost_saturated = true;
	for (size_t i = 0; i < s->nr_lost_cpus; i++)
		if (s->lost_cpus[i].cpu == cpu) {
			if (pp_sat_add(&s->lost_cpus[i].count, count))
				s->lost_saturated = true;
			return;
		}
	if (s->nr_lost_cpus >= 4096)
		return;
	s->lost_cpus = pp_xrealloc(s->lost_cpus, (s->nr_lost_cpus + 1) * sizeof(*s->lost_cpus));
	s->lost_cpus[s->nr_lost_cpus++] = (struct ana_lost_cpu){ cpu, count };
}

uint64_t ana_lost_total(struct ana_session *s)
{
	return s->lost_total;
}

/* PPF_REC_KV: a host key; the page size is libtraceevent's too */
static void meta_kv(struct ana_session *s, const struct ppf_record *rec)
{
	host_set(s, rec->u.kv.key, rec->u.kv.value);
	if (!strcmp(rec->u.kv.key, "page_size"))
		tep_set_page_size(s->tep, atoi(rec->u.kv.value) > 0 ? atoi(rec->u.kv.value) : 4096);
}

/* PPF_REC_EVENT_DESC: a new event type, charged to the side-band budget */
static int meta_event_desc(struct ana_session *s, const struct ppf_event_desc *e)
{
	if (ana_session_type(s, e->id))
		return 0;	/* a repeated description (rotation) */
	if (s->nr_types >= PP_LIMIT_EVENT_TYPES || !ana_sb_room(s))
		return 0;	/* its samples are skipped as those of an unknown event */
	/* libtraceevent's event, fields and print arguments: a few times the text */
	s->sb_bytes += 4096 + 4 * strlen(e->format) + strlen(e->name) + strlen(e->selector) +
		       strlen(e->filter) + e->attr_sz;
	return ana_evtype_add(s, e);
}

/* PPF_REC_MMAP: into the symbol table, then to every analyzer's mmap hook */
static void meta_mmap(struct ana_session *s, const struct ppf_record *rec)
{
	const struct ppf_mmap *m = &rec->u.mmap;
	struct pp_mmap_ev ev = { rec->time_ns, m->pid, m->tid, m->addr, m->len, m->pgoff,
				 m->path, m->build_id, m->build_id_sz };

	ana_syms_meta(s, rec);
	for (size_t i = 0; i < s->nr_azs; i++)
		s->azs[i]->ops->mmap(s->azs[i], &ev);
}

int ana_session_meta(struct ana_session *s, const struct ppf_record *rec)
{
	switch (rec->type) {
	case PPF_REC_KV:
		meta_kv(s, rec);
		break;
	case PPF_REC_EVENT_DESC:
		return meta_event_desc(s, &rec->u.event);
	case PPF_REC_TASK:
	case PPF_REC_COMM:
	case PPF_REC_FORK:
	case PPF_REC_EXIT:
		ana_tasks_meta(s, rec);
		break;
	case PPF_REC_MMAP:
		meta_mmap(s, rec);
		ana_unwind_forget(s->unwind);	/* the rules it cached may have moved */
		break;
	case PPF_REC_SYSCALL:
	case PPF_REC_KSYM:
	case PPF_REC_DSO:
	case PPF_REC_SYM:
		ana_syms_meta(s, rec);
		break;
	case PPF_REC_UNWIND:
		ana_cfi_meta(s, rec);
		ana_unwind_forget(s->unwind);	/* a pc found in no table may be in this one */
		break;
	case PPF_REC_TIME_SYNC:
		/*
		 * The capture's first pair (the meta segment's) maps every time to the wall
		 * clock: the one anchor a one-pass replay, each part of -j N (it reads the
		 * side band before it) and every --time range's state all hold, so that a
		 * time prints the same microseconds whichever of them prints it.  The later
		 * pairs differ from it by the clocks' drift and their read's jitter (~100 ns).
		 */
		if (s->have_sync)
			break;
		s->have_sync = true;
		s->sync_perf_ns = rec->u.sync.time_ns;
		s->sync_real_ns = rec->u.sync.realtime_ns;
		break;
	case PPF_REC_LOST:
		if (ana_in_range(s, rec->time_ns))	/* reports count the losses of their range */
			lost_add(s, rec->u.lost.cpu, rec->u.lost.count);
		break;
	default:
		break;
	}
	return 0;
}

int ana_session_load_meta(struct ana_session *s, struct ppf_record *first)
{
	const struct ppf_segment *seg;
	int rc;

	while ((rc = ppf_reader_next(s->r, first, &seg)) == 0) {
		/* the first record for analyzers: a sample, a counter reading, or a side-band record (misc) */
		if (first->type == PPF_REC_SAMPLE || first->type == PPF_REC_SIDEBAND ||
		    first->type == PPF_REC_COUNTER) {
			s->meta_end_off = seg->offset;
			return 0;
		}
		rc = ana_session_meta(s, first);
		if (rc)
			return rc;
	}
	return rc;
}

/* "+2s" is relative to @base, "12.5" is seconds of capture time, "123ns" absolute. */
static int parse_when(const char *s, uint64_t base, uint64_t *out)
{
	uint64_t v;
	bool rel = *s == '+';

	*out = 0;
	if (rel)
		s++;
	if (!*s)
		return 0;
	if (pp_parse_time(s, 1000000000ull, &v))
		return PP_ESYNTAX;
	*out = rel ? base + v : v;
	return 0;
}

int ana_time_range_parse(const char *range, uint64_t first_ns, uint64_t *start_ns,
			 uint64_t *end_ns)
{
	const char *comma = strchr(range, ',');
	char *start = pp_xstrndup(range, comma ? (size_t)(comma - range) : strlen(range));
	int rc = parse_when(start, first_ns, start_ns);

	free(start);
	*end_ns = 0;
	if (!rc && comma)
		rc = parse_when(comma + 1, first_ns, end_ns);
	return rc;
}

char *ana_ts_str(uint64_t t_ns, char *buf, size_t sz)
{
	snprintf(buf, sz, "%llu.%06llu", (unsigned long long)(t_ns / 1000000000ull),
		 (unsigned long long)(t_ns % 1000000000ull / 1000));
	return buf;
}

bool ana_realtime_ns(const struct ana_session *s, uint64_t t_ns, uint64_t *real_ns)
{
	*real_ns = 0;
	if (!s->have_sync)
		return false;
	/* a time near 2^64 (or long before the sync) has no wall clock: never a wrapped date */
	return pp_time_map_ns(t_ns, s->sync_perf_ns, s->sync_real_ns, real_ns);
}

char *ana_time_str(struct ana_session *s, uint64_t t_ns, char *buf, size_t sz)
{
	uint64_t real;
	struct tm tm;
	time_t sec;

	if (!ana_realtime_ns(s, t_ns, &real)) {
		if (s->have_sync) {
			snprintf(buf, sz, "%s", ANA_TIME_OUT_OF_RANGE);
			return buf;
		}
		/* no clock mapping: print capture time instead of guessing */
		return ana_ts_str(t_ns, buf, sz);
	}
	sec = (time_t)(real / 1000000000ull);
	localtime_r(&sec, &tm);
	size_t n = strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, sz - n, ".%06llu", (unsigned long long)(real % 1000000000ull / 1000));
	return buf;
}

/*
 * A slice (analyze/slice.c) keeps the events of some processes and types, so
 * its first and last samples need not be those of the range it was cut from:
 * its KV "slice.span" gives the first and last samples of that range in the
 * original, of any event, and the replay's start and end stretch to them (in
 * the range analysed), so that reports on the slice say what they say on the
 * original given the same --time, -p and -e.
 */
static bool slice_span(struct ana_session *s, uint64_t *first, uint64_t *last)
{
	const char *v = ana_host(s, "slice.span");
	unsigned long long a, b;

	if (!v || sscanf(v, "%llu,%llu", &a, &b) != 2)
		return false;
	*first = a;
	*last = b;
	return true;
}

uint64_t ana_capture_start_ns(struct ana_session *s)
{
	uint64_t first = s->first_ns, sf, sl;

	if (slice_span(s, &sf, &sl) && ana_in_range(s, sf) && (!first || sf < first))
		first = sf;
	return s->range_start_ns ? s->range_start_ns : first;
}

uint64_t ana_grid_origin_ns(struct ana_session *s, bool from_range)
{
	uint64_t start = s->part ? s->from_ns : s->range_start_ns, first = s->capture_first_ns;
	uint64_t sf, sl;

	if (from_range && start)
		return start;
	if (slice_span(s, &sf, &sl) && (!first || sf < first))
		first = sf;
	return first;
}

uint64_t ana_capture_end_ns(struct ana_session *s)
{
	uint64_t sf, sl;

	if (slice_span(s, &sf, &sl) && ana_in_range(s, sl) && sl > s->last_ns)
		return sl;
	return s->last_ns;
}
