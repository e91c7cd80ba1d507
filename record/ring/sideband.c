/* SPDX-License-Identifier: MIT */
/*
 * sideband.c - from merged perf records to capture records.
 *
 * Samples are decoded with their evsel's sample_type (IDENTIFIER first, so
 * the evsel is known before anything else is parsed); every length is
 * checked against the record size.  User-space addresses (IP in user mode,
 * callchain entries after PERF_CONTEXT_USER) are passed to symbols.c, and
 * the IPs of write-breakpoint samples to insn.c, before the sample is
 * written.  The memory fields of PEBS samples (WEIGHT, DATA_SRC, PHYS_ADDR)
 * follow the registers in the sample's EXTRA.  Non-sample records lose their
 * sample_id trailer (REC_SAMPLE_ID_SZ), whose time the capture record carries
 * already, and whose pid/tid SIDEBAND records keep in fields of their own.
 * Not here: which records the kernel sends (evsel.c) or their order (merge.c).
 */
#include <stdbool.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "format/format.h"
#include "record/ftrace/ftrace.h"
#include "record/perf/counters.h"
#include "record/perf/insn.h"
#include "record/perf/regs.h"
#include "record/ring/prod.h"
#include "record/ring/sideband.h"
#include "record/session.h"
#include "record/symbols/symbols.h"
#include "record/symbols/tasks.h"

bool rec_record_time(const struct perf_event_header *h, uint64_t *time_ns)
{
	if (h->size < sizeof(*h) + REC_SAMPLE_ID_SZ)
		return false;
	memcpy(time_ns, (const uint8_t *)h + h->size - 16, sizeof(*time_ns));	/* tid, TIME, id */
	return true;
}

static int user_hits(struct rec_session *s, uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	bool user = false;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = ips[i];
		int rc;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (!user)
			continue;
		rc = rec_symbols_hit(s->syms, s->w, pid, ip);
		if (rc)
			return rc;
	}
	return 0;
}

/* The ring of @cpu's task that exited last, or NULL. */
static struct rec_exiting *exiting_of(struct rec_session *s, uint32_t cpu)
{
	for (size_t i = 0; s->exiting && i < s->tgt.nr_cpus; i++)
		if (s->tgt.cpus[i] == (int)cpu)
			return &s->exiting[i];
	return NULL;
}

/*
 * A task past exit_notify() is unhashed: the kernel gives its samples pid/tid
 * -1 up to its last context switch.  A tracepoint's common_pid still names
 * the thread; otherwise it is the task whose EXIT record this CPU wrote last,
 * a moment ago.
 */
#define EXITING_NS 20000000ull
static void exiting_ids(struct rec_session *s, const struct rec_mev *e, struct ppf_sample *smp)
{
	const struct rec_exiting *x = exiting_of(s, e->cpu);
	bool recent = x && x->tid && e->time_ns >= x->time_ns &&
		      e->time_ns - x->time_ns < EXITING_NS;

	if (smp->tid == UINT32_MAX && smp->raw_sz >= 8) {
		int32_t common_pid;

		memcpy(&common_pid, smp->raw + 4, sizeof(common_pid));
		if (common_pid > 0)
			smp->tid = (uint32_t)common_pid;
	} else if (smp->tid == UINT32_MAX && recent &&
		   (smp->pid == UINT32_MAX || smp->pid == x->pid)) {
		smp->tid = x->tid;
	}
	if (smp->pid == UINT32_MAX && recent && smp->tid == x->tid)
		smp->pid = x->pid;
}

/* What a sample carries besides struct ppf_sample: the counting group, EXTRA's room. */
struct sample_dec {
	const uint64_t *group;		/* a counting leader's PERF_FORMAT_GROUP read, or NULL */
	uint64_t group_sz;
	uint64_t xbuf[1 + 64 + 3];	/* EXTRA: registers, then weight, data_src, phys_addr */
};

/*
 * The perf sample @h of @ev into @smp (pointing into @h and @d).
 * Return: false when it is too short for what its sample_type says (dropped).
 */
static bool decode_sample(const struct rec_evsel *ev, const struct rec_mev *e,
			  const struct perf_event_header *h, struct ppf_sample *smp,
			  struct sample_dec *d)
{
	const uint8_t *p = (const uint8_t *)(h + 1), *end = (const uint8_t *)h + h->size;
	uint64_t st = ev->attr.sample_type;
	uint32_t u32[2];
	uint64_t mem[3];	/* weight, data_src, phys_addr */
	size_t nr_mem = 0;

#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) return false; } while (0)
	NEED(8);
	p += 8;				/* IDENTIFIER */
	if (st & PERF_SAMPLE_IP) {
		NEED(8);
		memcpy(&smp->ip, p, 8);
		p += 8;
		smp->flags |= PPF_SF_IP;
	}
	NEED(16);
	memcpy(u32, p, 8);
	smp->pid = u32[0];
	smp->tid = u32[1];
	p += 16;			/* TID, TIME (taken from e) */
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		memcpy(&smp->addr, p, 8);
		p += 8;
		smp->flags |= PPF_SF_ADDR;
	}
	smp->cpu = e->cpu;		/* the ring's CPU: no PERF_SAMPLE_CPU */
	smp->period = 1;
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(8);
		memcpy(&smp->period, p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_READ) {	/* a counting leader: PERF_FORMAT_GROUP|ID|TOTAL_TIME_* */
		uint64_t nr;

		NEED(8);
		memcpy(&nr, p, 8);
		if (nr > PPF_COUNTER_MAX || (size_t)(end - p) < (3 + 2 * nr) * 8)
			return false;
		d->group = (const uint64_t *)p;	/* 8-aligned: the queue keeps alignment */
		d->group_sz = (3 + 2 * nr) * 8;
		p += d->group_sz;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		memcpy(&nr, p, 8);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return false;
		smp->nr_stack = (uint32_t)(nr > PPF_MAX_STACK ? PPF_MAX_STACK : nr);
		smp->stack = (const uint64_t *)p;	/* 8-aligned: the queue keeps alignment */
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		NEED(4);
		memcpy(&sz, p, 4);
		p += 4;
		NEED(sz);
		smp->raw = p;
		smp->raw_sz = sz;
		smp->flags |= PPF_SF_RAW;
		p += sz;
	}
	/* BRANCH_STACK is never asked for; REGS_USER, STACK_USER with --call-graph dwarf */
	if ((st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) &&
	    rec_regs_user_take(&p, end, &ev->attr, smp))
		return false;
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8);
		memcpy(&mem[nr_mem++], p, 8);
		p += 8;
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		NEED(8);
		memcpy(&mem[nr_mem++], p, 8);
		p += 8;
	}
	if ((st & PERF_SAMPLE_REGS_INTR) && rec_regs_take(&p, end, ev->attr.sample_regs_intr, smp))
		return false;
	if (st & PERF_SAMPLE_PHYS_ADDR) {
		NEED(8);
		memcpy(&mem[nr_mem++], p, 8);
		p += 8;
	}
#undef NEED
	if (nr_mem) {	/* EXTRA: the registers, then the memory words (capture-format.md) */
		if (smp->extra_sz)
			memcpy(d->xbuf, smp->extra, smp->extra_sz);
		memcpy((uint8_t *)d->xbuf + smp->extra_sz, mem, nr_mem * 8);
		smp->extra = (const uint8_t *)d->xbuf;
		smp->extra_sz += (uint32_t)(nr_mem * 8);
	}
	smp->time_ns = e->time_ns;
	smp->id = ev->id;
	return true;
}

/* The user addresses of @smp to symbols.c, its IP to insn.c when @ev wants the bytes. */
static int sample_hits(struct rec_session *s, const struct perf_event_header *h,
		       const struct rec_evsel *ev, const struct ppf_sample *smp)
{
	int rc;

	if ((smp->flags & PPF_SF_IP) &&
	    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER) {
		rc = rec_symbols_hit(s->syms, s->w, smp->pid, smp->ip);
		if (rc)
			return rc;
	}
	if (smp->nr_stack) {
		rc = user_hits(s, smp->pid, smp->stack, smp->nr_stack);
		if (rc)
			return rc;
	}
	if (smp->flags & PPF_SF_USTACK) {	/* the user ip (regs: BP, SP, IP), then the copy */
		rc = rec_symbols_hit(s->syms, s->w, smp->pid, smp->uregs[2]);
		if (!rc)
			rc = rec_symbols_hit_words(s->syms, s->w, smp->pid, smp->ustack,
						   smp->ustack_sz);
		if (rc)
			return rc;
	}
	if (s->insn && (smp->flags & PPF_SF_IP) && rec_insn_wanted(ev)) {
		unsigned mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;

		if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_USER) {
			rc = rec_insn_hit(s->insn, s->w, smp->pid, smp->ip,
					  mode == PERF_RECORD_MISC_KERNEL);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int emit_sample(struct rec_session *s, const struct rec_mev *e)
{
	const struct perf_event_header *h = rec_mev_rec(e);
	struct rec_evsel *ev = &s->evsels[e->evsel];
	struct ppf_sample smp = { 0 };
	struct sample_dec d;	/* xbuf left as it is: filled only as far as EXTRA goes */
	int rc;

	d.group = NULL;
	d.group_sz = 0;
	if (!decode_sample(ev, e, h, &smp, &d))
		return 0;
	if (smp.tid == UINT32_MAX || smp.pid == UINT32_MAX)
		exiting_ids(s, e, &smp);
	rc = sample_hits(s, h, ev, &smp);
	if (rc)
		return rc;
	if (d.group && s->opts.count_no_samples && !smp.nr_stack)
		rc = 0;		/* the counts are wanted, not whom the leader interrupted */
	else if (!(rc = ppf_write_sample(s->w, &smp))) {
		ev->nr_samples++;
		s->nr_samples++;
	}
	if (!rc && d.group)	/* the group's counts, right after the sample that read them */
		rc = rec_counters_group_read(s, smp.time_ns, smp.cpu, d.group, d.group_sz);
	return rc;
}

/* What PERF_RECORD_MMAP and MMAP2 begin with. */
struct pe_mmap_head {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
};

struct pe_mmap2 {
	struct pe_mmap_head hd;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
};

struct pe_mmap {
	struct pe_mmap_head hd;
	char filename[];
};

/* Bytes of body before the sample_id trailer. */
static inline size_t body_sz(const struct perf_event_header *h)
{
	return h->size - sizeof(*h) - REC_SAMPLE_ID_SZ;
}

/* A string field that ends at most at the trailer: copy it NUL-terminated. */
static const char *body_str(const struct perf_event_header *h, const char *start, char *buf,
			    size_t sz)
{
	const char *lim = (const char *)h + sizeof(*h) + body_sz(h);

	return pp_str_copy(buf, sz, start, lim);
}

/* PERF_RECORD_COMM: an exec told to symbols.c, the task table and the tracefs instance. */
static int emit_comm(struct rec_session *s, const struct rec_mev *e,
		     const struct perf_event_header *h, const void *body)
{
	const uint32_t *v = body;
	struct ppf_comm c = { .time_ns = e->time_ns };
	char str[4096];

	if (body_sz(h) < 9)
		return 0;
	c.pid = v[0];
	c.tid = v[1];
	c.exec = !!(h->misc & PERF_RECORD_MISC_COMM_EXEC);
	c.comm = body_str(h, (const char *)(v + 2), str, sizeof(str));
	if (c.exec && c.pid == c.tid)
		rec_symbols_exec(s->syms, c.pid);
	if (s->prod && s->prod->tasks)
		rec_tasks_comm(s->prod->tasks, c.pid, c.tid, c.comm);
	if (c.exec)
		rec_ftrace_exec(s, c.pid);
	return ppf_write_comm(s->w, &c);
}

/* PERF_RECORD_FORK or EXIT: the task tables told, the record written. */
static int emit_task(struct rec_session *s, const struct rec_mev *e,
		     const struct perf_event_header *h, const void *body)
{
	const uint32_t *v = body;
	struct ppf_task_event t = { .time_ns = e->time_ns };

	if (body_sz(h) < 16)
		return 0;
	t.pid = v[0];
	t.ppid = v[1];
	t.tid = v[2];
	t.ptid = v[3];
	if (h->type == PERF_RECORD_FORK) {
		if (t.pid != t.ppid)
			rec_symbols_fork(s->syms, t.pid, t.ppid);
		if (s->prod && s->prod->tasks)
			rec_tasks_fork(s->prod->tasks, t.pid, t.ppid, t.tid, t.ptid);
		rec_ftrace_fork(s, t.pid, t.tid, t.ptid);
		return ppf_write_fork(s->w, &t);
	}
	struct rec_exiting *x = exiting_of(s, e->cpu);

	if (x)
		*x = (struct rec_exiting){ t.pid, t.tid, t.time_ns };
	if (t.pid == t.tid)
		rec_symbols_exit(s->syms, t.pid);
	if (s->prod && s->prod->tasks)
		rec_tasks_exit(s->prod->tasks, t.tid, t.time_ns);
	return ppf_write_exit(s->w, &t);
}

/* The fields MMAP and MMAP2 share; symbols.c told of the mapping, the record written. */
static int emit_mmap_common(struct rec_session *s, const struct perf_event_header *h,
			    const struct pe_mmap_head *m, const char *filename, struct ppf_mmap *mm)
{
	char str[4096];

	mm->pid = m->pid;
	mm->tid = m->tid;
	mm->addr = m->addr;
	mm->len = m->len;
	mm->pgoff = m->pgoff;
	mm->path = body_str(h, filename, str, sizeof(str));
	rec_symbols_map(s->syms, mm->pid, mm->addr, mm->len, mm->pgoff, mm->path, mm->build_id,
			mm->build_id_sz);
	return ppf_write_mmap(s->w, mm);
}

static int emit_mmap2(struct rec_session *s, const struct rec_mev *e,
		      const struct perf_event_header *h, const void *body)
{
	const struct pe_mmap2 *m = body;
	struct ppf_mmap mm = { .time_ns = e->time_ns };

	if (body_sz(h) < sizeof(*m))
		return 0;
	mm.prot = m->prot;
	mm.flags = m->flags;
	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m->build_id_size <= 20) {
		mm.build_id = m->build_id;
		mm.build_id_sz = m->build_id_size;
	}
	return emit_mmap_common(s, h, &m->hd, m->filename, &mm);
}

static int emit_mmap(struct rec_session *s, const struct rec_mev *e,
		     const struct perf_event_header *h, const void *body)
{
	const struct pe_mmap *m = body;
	struct ppf_mmap mm = { .time_ns = e->time_ns, .prot = 4 /* PROT_EXEC */ };

	if (body_sz(h) < sizeof(*m))
		return 0;
	return emit_mmap_common(s, h, &m->hd, m->filename, &mm);
}

/* PERF_RECORD_LOST: counted per CPU (and for the tracefs pages it stands for). */
static int emit_lost(struct rec_session *s, const struct rec_mev *e,
		     const struct perf_event_header *h, const void *body)
{
	const uint64_t *v = body;
	struct ppf_lost l = { .time_ns = e->time_ns, .cpu = e->cpu };
	int ix;

	if (body_sz(h) < 16)
		return 0;
	ix = rec_idmap_get(&s->ids, v[0]);
	l.id = ix >= 0 ? s->evsels[ix].id : 0;
	l.count = v[1];
	s->nr_lost += v[1];
	s->nr_lost_records++;
	for (size_t i = 0; i < s->tgt.nr_cpus; i++) {
		if (s->tgt.cpus[i] != (int)e->cpu)
			continue;
		s->lost_cpu[i] += v[1];
		if (h->misc & REC_LOST_MISC_FTRACE)
			rec_ftrace_lost_emitted(s, i, v[1]);
	}
	return ppf_write_lost(s->w, &l);
}

/* Any other record, kept as the kernel wrote it (--sideband: ksymbol, bpf, cgroup ...). */
static int emit_raw_sideband(struct rec_session *s, const struct rec_mev *e,
			     const struct perf_event_header *h, const void *body)
{
	if (h->size < sizeof(*h) + REC_SAMPLE_ID_SZ)
		return 0;
	struct ppf_sideband sb = {
		.time_ns = e->time_ns, .perf_type = h->type, .cpu = e->cpu,
		.data = body, .size = (uint32_t)body_sz(h),
	};
	/* the trailer starts with PERF_SAMPLE_TID: pid, tid */
	memcpy(&sb.pid, (const uint8_t *)body + sb.size, 4);
	memcpy(&sb.tid, (const uint8_t *)body + sb.size + 4, 4);
	return ppf_write_sideband(s->w, &sb);
}

static int emit_other(struct rec_session *s, const struct rec_mev *e)
{
	const struct perf_event_header *h = rec_mev_rec(e);
	const void *body = h + 1;

	if (h->type == REC_SYNTH_COUNTER)
		return rec_counters_emit(s, e);
	if (h->type == REC_SYNTH_TIME_SYNC) {
		const struct rec_synth_sync *sy = body;
		struct ppf_time_sync ts = { sy->mono_ns, sy->real_ns };

		return ppf_write_time_sync(s->w, &ts);
	}
	if (h->size < sizeof(*h) + REC_SAMPLE_ID_SZ)
		return 0;
	s->nr_sideband++;
	switch (h->type) {
	case PERF_RECORD_COMM:
		return emit_comm(s, e, h, body);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return emit_task(s, e, h, body);
	case PERF_RECORD_MMAP2:
		return emit_mmap2(s, e, h, body);
	case PERF_RECORD_MMAP:
		return emit_mmap(s, e, h, body);
	case PERF_RECORD_LOST:
		return emit_lost(s, e, h, body);
	default:
		return emit_raw_sideband(s, e, h, body);
	}
}

int rec_emit(const struct rec_mev *e, void *arg)
{
	struct rec_session *s = arg;
	int rc;

	if (s->werr)
		return s->werr;
	rc = rec_prod_emit(s, e);	/* file switch, trigger */
	if (!rc)
		rc = e->evsel < 0 ? emit_other(s, e) :
		     rec_mev_rec(e)->type == REC_SYNTH_FTRACE_EVENT ? rec_ftrace_emit(s, e) :
		     emit_sample(s, e);
	if (rc)
		s->werr = rc;
	return rc;
}
