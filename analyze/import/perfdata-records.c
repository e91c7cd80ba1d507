/* SPDX-License-Identifier: MIT */
/*
 * perfdata-records.c - perf.data's records into capture records, in time order.
 *
 * perf writes each CPU's ring buffer out in turn, so records of different CPUs
 * interleave out of order; a FINISHED_ROUND record ends each pass over the buffers.
 * As perf's own ordered-events queue does, the records are held and, at each
 * round's end, those not later than the newest time seen at the previous round's end
 * are sorted (time, then arrival) and written out: a record can be late by up to one
 * round.  The queue holds pointers into the mapped file (file mode) or copies
 * (pipe mode, decompressed records); past PD_MAX_QUEUE bytes its older half goes
 * out early (the capture writer clamps and flags what comes later still).
 * Tool records (>= 64) are folded in as they come: attrs, features, event names,
 * build ids, compressed records (a zstd stream across PERF_RECORD_COMPRESSED).
 * Not here: the file's framing (perfdata.c), the header part (perfdata-header.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

#include "analyze/import/perfdata.h"
#include "common/limits.h"
#include "format/format.h"

/* The id-sample trailer of a non-sample record (sample_id_all). */
struct pd_id {
	uint64_t time_ns, id;
	uint32_t pid, tid, cpu;
	bool has_time, has_cpu;
};

static bool parse_trailer(const struct pd_file *f, const uint8_t *rec, size_t sz, size_t body,
			  struct pd_id *o)
{
	uint64_t t = f->sample_type;
	size_t n = !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		   !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		   !!(t & PERF_SAMPLE_IDENTIFIER);
	const uint8_t *p;

	memset(o, 0, sizeof(*o));
	if (!f->sample_id_all || n * 8 > sz - body)
		return false;
	p = rec + sz - n * 8;
	if (t & PERF_SAMPLE_TID) {
		o->pid = pd_u32(p);
		o->tid = pd_u32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		o->time_ns = pd_u64(p);
		o->has_time = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		o->id = pd_u64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (t & PERF_SAMPLE_CPU) {
		o->cpu = pd_u32(p);
		o->has_cpu = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		o->id = pd_u64(p);
	return true;
}

struct pd_smp {
	struct pd_attr *a;
	uint64_t ip, time_ns, addr, period;
	uint32_t pid, tid, cpu;
	uint64_t nr_chain;
	const uint8_t *chain;
	uint32_t raw_sz;
	const uint8_t *raw;
	uint64_t uregs_abi;
	uint32_t nr_uregs;
	const uint8_t *uregs;		/* nr_uregs u64s, unaligned */
	uint64_t ustack_sz;		/* dyn_size: the valid part of the copy */
	const uint8_t *ustack;
	bool has_time, has_cpu;
};

#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) return false; } while (0)

/*
 * --call-graph dwarf's part of a SAMPLE, after RAW: the branch stack skipped, the user
 * registers (the ABI word, then one u64 per bit of sample_regs_user) and the stack copy
 * (its size, the bytes, the valid part's length).  Return: false if malformed.
 */
static bool parse_user_stack(struct pd_smp *s, uint64_t t, const uint8_t *p, const uint8_t *end)
{
	const struct perf_event_attr *a = &s->a->attr;

	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr;

		NEED(8);
		nr = pd_u64(p);
		p += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8);
			p += 8;
		}
		if (nr > (size_t)(end - p) / 24)
			return false;
		p += 24 * nr;
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		s->uregs_abi = pd_u64(p);
		p += 8;
		if (s->uregs_abi) {
			s->nr_uregs = (uint32_t)__builtin_popcountll(a->sample_regs_user);
			NEED(8 * (size_t)s->nr_uregs);
			s->uregs = p;
			p += 8 * (size_t)s->nr_uregs;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t size;

		NEED(8);
		size = pd_u64(p);
		p += 8;
		if (size) {
			if (size > (size_t)(end - p) || (size_t)(end - p) - size < 8)
				return false;
			s->ustack = p;
			s->ustack_sz = pd_u64(p + size);
			if (s->ustack_sz > size)
				return false;
		}
	}
	return true;
}

/* The fields of a SAMPLE up to the raw data (what a capture keeps). Return: false if malformed. */
static bool parse_sample(struct pd_file *f, const uint8_t *rec, size_t sz, struct pd_smp *s)
{
	const uint8_t *p = rec + 8, *end = rec + sz;
	uint64_t id = 0, t;

	/* field by field: a memset of the whole was a third of the conversion's own time */
	s->ip = s->time_ns = s->addr = s->nr_chain = s->uregs_abi = s->ustack_sz = 0;
	s->period = 1;
	s->pid = s->tid = s->cpu = s->raw_sz = s->nr_uregs = 0;
	s->chain = s->raw = s->uregs = s->ustack = NULL;
	s->has_time = s->has_cpu = false;
	if (f->id_pos >= 0 && sz >= 8 + 8 * (size_t)(f->id_pos + 1))
		id = pd_u64(p + 8 * f->id_pos);
	s->a = pd_attr_of_id(f, id);
	if (!s->a)
		return false;
	t = s->a->attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER) { NEED(8); p += 8; }
	if (t & PERF_SAMPLE_IP) { NEED(8); s->ip = pd_u64(p); p += 8; }
	if (t & PERF_SAMPLE_TID) { NEED(8); s->pid = pd_u32(p); s->tid = pd_u32(p + 4); p += 8; }
	if (t & PERF_SAMPLE_TIME) { NEED(8); s->time_ns = pd_u64(p); s->has_time = true; p += 8; }
	if (t & PERF_SAMPLE_ADDR) { NEED(8); s->addr = pd_u64(p); p += 8; }
	if (t & PERF_SAMPLE_ID) { NEED(8); p += 8; }
	if (t & PERF_SAMPLE_STREAM_ID) { NEED(8); p += 8; }
	if (t & PERF_SAMPLE_CPU) { NEED(8); s->cpu = pd_u32(p); s->has_cpu = true; p += 8; }
	if (t & PERF_SAMPLE_PERIOD) { NEED(8); s->period = pd_u64(p); p += 8; }
	if (t & PERF_SAMPLE_READ) {
		uint64_t rf = s->a->attr.read_format;
		size_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
		size_t hdr = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
			     ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
		if (rf & PERF_FORMAT_GROUP) {
			NEED(8);
			uint64_t nr = pd_u64(p);
			NEED(8 + hdr);
			if (nr > (size_t)(end - p - 8 - hdr) / per)
				return false;
			p += 8 + hdr + nr * per;
		} else {
			NEED(per + hdr);
			p += per + hdr;
		}
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		s->nr_chain = pd_u64(p);
		p += 8;
		if (s->nr_chain > (size_t)(end - p) / 8)
			return false;
		s->chain = p;
		p += 8 * s->nr_chain;
	}
	if (t & PERF_SAMPLE_RAW) {
		NEED(4);
		s->raw_sz = pd_u32(p);
		p += 4;
		NEED(s->raw_sz);
		s->raw = p;
		p += s->raw_sz;
	}
	return parse_user_stack(s, t, p, end);
}

/* The time a record is ordered by; false if it has none (kept in arrival order). */
static bool record_time(struct pd_file *f, const uint8_t *rec, size_t sz, uint64_t *t)
{
	uint32_t type = pd_u32(rec);
	struct pd_id id;

	if (type == PERF_RECORD_SAMPLE) {
		/* the time comes after the identifier, ip and tid: read there, not parsed
		 * twice (emit_sample() parses the whole sample, once) */
		const struct pd_attr *a;
		uint64_t st, ident = 0;
		size_t at = 8;

		if (f->id_pos >= 0 && sz >= 8 + 8 * (size_t)(f->id_pos + 1))
			ident = pd_u64(rec + 8 + 8 * f->id_pos);
		a = pd_attr_of_id(f, ident);
		if (!a || !(a->attr.sample_type & PERF_SAMPLE_TIME))
			return false;
		st = a->attr.sample_type;
		at += 8 * (size_t)(!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
				   !!(st & PERF_SAMPLE_TID));
		if (sz < at + 8)
			return false;
		*t = pd_u64(rec + at);
		return true;
	}
	if (!parse_trailer(f, rec, sz, 8, &id) || !id.has_time)
		return false;
	*t = id.time_ns == UINT64_MAX ? 0 : id.time_ns;
	return true;
}

/* --- writing records out --------------------------------------------------- */

/*
 * A copy and its registers as the capture's USTACK field (the copy starts at the sampled
 * SP, the register of bit PERF_REG_X86_SP): what pp's unwinder reads as its own
 * --call-graph dwarf samples.  A sample without the SP register, or with a copy larger
 * than a capture holds, keeps its callchain only.
 */
static void set_ustack(const struct pd_smp *s, struct ppf_sample *o, uint64_t *uregs)
{
	uint64_t mask = s->a->attr.sample_regs_user, sp_bit = 1ull << 7;	/* PERF_REG_X86_SP */

	if (!s->ustack || !s->uregs || !(mask & sp_bit) || s->nr_uregs > 64 ||
	    s->ustack_sz > PPF_USTACK_MAX)
		return;
	memcpy(uregs, s->uregs, 8 * (size_t)s->nr_uregs);
	o->flags |= PPF_SF_USTACK;
	o->uregs_abi = s->uregs_abi;
	o->uregs = uregs;
	o->nr_uregs = s->nr_uregs;
	o->ustack_addr = uregs[__builtin_popcountll(mask & (sp_bit - 1))];
	o->ustack = s->ustack;
	o->ustack_sz = (uint32_t)s->ustack_sz;
}

/*
 * A SAMPLE record out.  The capture sample is f->out, zero from the start and only its
 * fields that some sample sets are set each time: zeroing or copying the whole struct per
 * sample compiles to a rep stos or rep movs (three rep stos a sample had cost 0.1 s of a
 * 0.5 s top on 2.25M samples).
 */
static int emit_sample(struct pd_file *f, const uint8_t *rec, size_t sz, uint64_t t)
{
	struct ppf_sample *o = &f->out;
	uint64_t chain[PPF_MAX_STACK], uregs[64];
	struct pd_smp s;
	int rc;

	if (!parse_sample(f, rec, sz, &s)) {
		f->nr_bad++;
		return 0;
	}
	if (!s.a->written && (rc = pd_write_event_desc(f, s.a)))
		return rc;
	if (!s.has_cpu)
		f->nr_nocpu++;
	o->time_ns = t;
	o->flags = ((s.a->attr.sample_type & PERF_SAMPLE_IP) ? PPF_SF_IP : 0) |
		   ((s.a->attr.sample_type & PERF_SAMPLE_ADDR) ? PPF_SF_ADDR : 0) |
		   (s.raw ? PPF_SF_RAW : 0);
	o->id = s.a->cap_id;
	o->cpu = s.cpu;
	o->pid = s.pid;
	o->tid = s.tid;
	o->nr_stack = s.nr_chain > PPF_MAX_STACK ? PPF_MAX_STACK : (uint32_t)s.nr_chain;
	o->period = s.period;
	o->ip = s.ip;
	o->addr = s.addr;
	if (o->nr_stack)
		memcpy(chain, s.chain, o->nr_stack * 8);	/* the record need not be 8-byte aligned */
	o->stack = chain;
	o->raw = s.raw;
	o->raw_sz = s.raw_sz;
	o->uregs = NULL;	/* set_ustack()'s, when the sample has them */
	o->ustack = NULL;
	o->nr_uregs = o->ustack_sz = 0;
	o->uregs_abi = o->ustack_addr = 0;
	set_ustack(&s, o, uregs);
	s.a->nr_samples++;
	return ppf_write_sample(f->w, o);
}

/* MMAP and MMAP2: user mappings (the kernel's are not a task's maps). */
static int emit_mmap(struct pd_file *f, const uint8_t *rec, size_t sz, uint64_t t)
{
	uint32_t type = pd_u32(rec);
	uint16_t misc;
	size_t name_at = type == PERF_RECORD_MMAP ? 40 : 72;
	struct ppf_mmap m = { 0 };
	struct pd_id id;
	char path[4096];
	size_t n, body;

	memcpy(&misc, rec + 4, 2);
	if (sz <= name_at)
		return 0;
	n = strnlen((const char *)rec + name_at, sz - name_at);
	body = name_at + ((n + 8) & ~(size_t)7);
	if (n >= sizeof(path) || body > sz)
		return 0;
	memcpy(path, rec + name_at, n);
	path[n] = '\0';
	parse_trailer(f, rec, sz, body, &id);
	m.pid = pd_u32(rec + 8);
	m.tid = pd_u32(rec + 12);
	m.addr = pd_u64(rec + 16);
	m.len = pd_u64(rec + 24);
	m.pgoff = pd_u64(rec + 32);
	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL || m.pid == UINT32_MAX)
		return 0;	/* the kernel's and its modules' (note_kernel_map()) */
	m.time_ns = t;
	m.path = path;
	m.prot = (misc & PERF_RECORD_MISC_MMAP_DATA) ? 1 /* PROT_READ */ : 5 /* READ | EXEC */;
	if (type == PERF_RECORD_MMAP2) {
		m.prot = pd_u32(rec + 64);
		m.flags = pd_u32(rec + 68);
		if ((misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && rec[40] <= 20) {
			m.build_id = rec + 44;
			m.build_id_sz = rec[40];
		}
	}
	if (!m.build_id_sz) {
		const struct pd_build_id *b = pd_build_id_of(f, path);
		if (b) {
			m.build_id = b->id;
			m.build_id_sz = b->sz;
		}
	}
	if ((m.prot & 4) && f->want_usyms) {
		int rc = pd_user_dso(f, path, m.build_id, m.build_id_sz);
		if (rc)
			return rc;
	}
	return ppf_write_mmap(f->w, &m);
}

static int emit_task(struct pd_file *f, const uint8_t *rec, size_t sz, uint64_t t)
{
	uint32_t type = pd_u32(rec);
	uint16_t misc;

	memcpy(&misc, rec + 4, 2);
	if (type == PERF_RECORD_COMM) {
		struct ppf_comm c = { .time_ns = t };
		char comm[32];
		size_t n;

		if (sz <= 16)
			return 0;
		n = strnlen((const char *)rec + 16, sz - 16);
		if (n >= sizeof(comm))
			n = sizeof(comm) - 1;
		memcpy(comm, rec + 16, n);
		comm[n] = '\0';
		c.pid = pd_u32(rec + 8);
		c.tid = pd_u32(rec + 12);
		c.exec = !!(misc & PERF_RECORD_MISC_COMM_EXEC);
		c.comm = comm;
		return ppf_write_comm(f->w, &c);
	}
	if (sz < 32)
		return 0;
	struct ppf_task_event e = { t, pd_u32(rec + 8), pd_u32(rec + 12), pd_u32(rec + 16), pd_u32(rec + 20) };
	return type == PERF_RECORD_FORK ? ppf_write_fork(f->w, &e) : ppf_write_exit(f->w, &e);
}

static int emit_lost(struct pd_file *f, const uint8_t *rec, size_t sz, uint64_t t)
{
	uint32_t type = pd_u32(rec);
	struct ppf_lost l = { .time_ns = t };
	struct pd_id id;

	if (type == PERF_RECORD_LOST) {
		if (sz < 24)
			return 0;
		struct pd_attr *a = pd_attr_of_id(f, pd_u64(rec + 8));
		l.id = a ? a->cap_id : 0;
		l.count = pd_u64(rec + 16);
		f->nr_lost_recs++;
		parse_trailer(f, rec, sz, 24, &id);
	} else {
		/* perf's own LOST_SAMPLES at the end of a recording repeat the kernel's LOST counts */
		if (sz < 16 || f->nr_lost_recs)
			return 0;
		l.count = pd_u64(rec + 8);
		parse_trailer(f, rec, sz, 16, &id);
	}
	l.cpu = id.has_cpu ? id.cpu : UINT32_MAX;
	return l.count ? ppf_write_lost(f->w, &l) : 0;
}

static int emit(struct pd_file *f, const struct pd_qent *e)
{
	uint32_t type = pd_u32(e->rec);

	f->last_emit_ns = e->time_ns;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return emit_sample(f, e->rec, e->sz, e->time_ns);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return emit_mmap(f, e->rec, e->sz, e->time_ns);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return emit_task(f, e->rec, e->sz, e->time_ns);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return emit_lost(f, e->rec, e->sz, e->time_ns);
	default:
		return 0;
	}
}

/* --- the ordered-events queue ---------------------------------------------- */

static int qent_cmp(const void *a, const void *b)
{
	const struct pd_qent *x = a, *y = b;
	int c = (x->time_ns > y->time_ns) - (x->time_ns < y->time_ns);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);	/* then arrival */
}

/*
 * Move the records due by @upto to the front (the rest keep their order), then sort only
 * those, unless they came in order (one CPU's buffer, a per-thread recording).
 * Return: how many are due.
 */
static size_t due_first(struct pd_file *f, uint64_t upto)
{
	size_t k = 0, later = 0;
	bool sorted = true;

	if (f->cap_q2 < f->nr_q) {
		struct pd_qent *q2 = realloc(f->q2, f->cap_q * sizeof(*q2));
		if (!q2) {	/* no room to partition: sort them all */
			qsort(f->q, f->nr_q, sizeof(*f->q), qent_cmp);
			for (k = 0; k < f->nr_q && f->q[k].time_ns <= upto; k++)
				;
			return k;
		}
		f->q2 = q2;
		f->cap_q2 = f->cap_q;
	}
	for (size_t i = 0; i < f->nr_q; i++) {
		if (f->q[i].time_ns > upto) {
			f->q2[later++] = f->q[i];
			continue;
		}
		if (k && qent_cmp(&f->q[k - 1], &f->q[i]) > 0)
			sorted = false;
		f->q[k++] = f->q[i];
	}
	memcpy(f->q + k, f->q2, later * sizeof(*f->q));
	if (!sorted)
		qsort(f->q, k, sizeof(*f->q), qent_cmp);
	return k;
}

/* Write out the queued records up to @upto (inclusive), or the first @nmax after sorting. */
static int flush_upto(struct pd_file *f, uint64_t upto, size_t nmax)
{
	size_t i, k = 0, due;
	int rc = 0;

	if (!f->nr_q)
		return 0;
	if (!f->meta_written && pd_write_meta(f))
		return pd_set_err(f, "writing the capture: %s", ppf_writer_errmsg(f->w));
	if (nmax < f->nr_q) {
		qsort(f->q, f->nr_q, sizeof(*f->q), qent_cmp);
		due = nmax;
	} else {
		due = due_first(f, upto);
	}
	for (i = 0; i < due && !rc; i++) {
		rc = emit(f, &f->q[i]);
		if (f->q[i].owned) {
			f->q_bytes -= f->q[i].sz;
			free((void *)f->q[i].rec);
		}
	}
	for (; i < f->nr_q; i++)
		f->q[k++] = f->q[i];
	f->nr_q = k;
	return rc ? pd_set_err(f, "writing the capture: %s", ppf_writer_errmsg(f->w)) : 0;
}

int pd_flush(struct pd_file *f)
{
	int rc = flush_upto(f, UINT64_MAX, SIZE_MAX);

	if (!rc && !f->meta_written && pd_write_meta(f))
		return pd_set_err(f, "writing the capture: %s", ppf_writer_errmsg(f->w));
	return rc;
}

/* The kernel's map ([kernel.kallsyms]_text at _text): seen as it is queued, for pd_write_ksyms() */
static void note_kernel_map(struct pd_file *f, const uint8_t *rec, size_t sz)
{
	size_t name_at = pd_u32(rec) == PERF_RECORD_MMAP ? 40 : 72;

	if (sz > name_at + 17 && !memcmp(rec + name_at, "[kernel.kallsyms]", 17))
		f->kernel_text = pd_u64(rec + 32);
}

static int enqueue(struct pd_file *f, const uint8_t *rec, size_t sz, bool stable)
{
	uint64_t t;
	struct pd_qent *e;

	if ((pd_u32(rec) == PERF_RECORD_MMAP || pd_u32(rec) == PERF_RECORD_MMAP2) && !f->kernel_text)
		note_kernel_map(f, rec, sz);
	if (!record_time(f, rec, sz, &t)) {
		t = f->max_ts;	/* no time: where it arrived */
		f->nr_unordered++;
	}
	if (t > f->max_ts)
		f->max_ts = t;
	if (f->nr_q == f->cap_q) {
		size_t n = f->cap_q ? 2 * f->cap_q : 4096;
		struct pd_qent *q = realloc(f->q, n * sizeof(*q));
		if (!q)
			return pd_set_err(f, "out of memory");
		f->q = q;
		f->cap_q = n;
	}
	e = &f->q[f->nr_q++];
	*e = (struct pd_qent){ t, f->seq++, rec, (uint32_t)sz, !stable };
	if (!stable) {
		uint8_t *c = malloc(sz);
		if (!c) {
			f->nr_q--;
			return pd_set_err(f, "out of memory");
		}
		memcpy(c, rec, sz);
		e->rec = c;
		f->q_bytes += sz;
	}
	/* no rounds (or lying ones): the older half goes out, memory stays bounded */
	if (f->q_bytes > PD_MAX_QUEUE || f->nr_q > PD_MAX_QUEUED)
		return flush_upto(f, UINT64_MAX, f->nr_q / 2);
	return 0;
}

/* --- tool records ---------------------------------------------------------- */

static int header_attr(struct pd_file *f, const uint8_t *rec, size_t sz)
{
	uint32_t asz;

	if (sz < 8 + PERF_ATTR_SIZE_VER0)
		return pd_set_err(f, "HEADER_ATTR record of %zu bytes", sz);
	asz = pd_u32(rec + 8 + 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > sz - 8)
		return pd_set_err(f, "HEADER_ATTR: attr of %u bytes in a record of %zu", asz, sz);
	return pd_add_attr(f, rec + 8, asz, rec + 8 + asz, (sz - 8 - asz) / 8);
}

/* EVENT_UPDATE of type NAME (1): {u64 type, u64 id, char name[]} */
static void event_update(struct pd_file *f, const uint8_t *rec, size_t sz)
{
	struct pd_attr *a;

	if (sz <= 24 || pd_u64(rec + 8) != 1)
		return;
	a = pd_attr_of_id(f, pd_u64(rec + 16));
	if (a && !a->written)
		snprintf(a->name, sizeof(a->name), "%.*s", (int)strnlen((const char *)rec + 24, sz - 24),
			 (const char *)rec + 24);
}

/* PERF_RECORD_COMPRESSED(2): its bytes continue one zstd stream of whole records. */
static int compressed(struct pd_file *f, const uint8_t *rec, size_t sz)
{
	size_t off = 8, len = sz - 8;
	ZSTD_inBuffer in;

	if (pd_u32(rec) == PD_COMPRESSED2) {
		if (sz < 16 || pd_u64(rec + 8) > sz - 16)
			return pd_set_err(f, "COMPRESSED2 record: data size past its record");
		off = 16;
		len = (size_t)pd_u64(rec + 8);
	}
	if (!f->zstd && !(f->zstd = ZSTD_createDStream()))
		return pd_set_err(f, "out of memory");
	in = (ZSTD_inBuffer){ rec + off, len, 0 };
	while (in.pos < in.size) {
		if (f->zcap - f->zlen < 65536) {
			size_t n = f->zcap ? 2 * f->zcap : 1 << 20;
			if (n > 2 * PD_MAX_RECORD + (64u << 20))
				return pd_set_err(f, "compressed records: a record larger than %u bytes",
						  PD_MAX_RECORD);
			uint8_t *b = realloc(f->zbuf, n);
			if (!b)
				return pd_set_err(f, "out of memory");
			f->zbuf = b;
			f->zcap = n;
		}
		ZSTD_outBuffer out = { f->zbuf + f->zlen, f->zcap - f->zlen, 0 };
		size_t r = ZSTD_decompressStream(f->zstd, &out, &in);
		if (ZSTD_isError(r))
			return pd_set_err(f, "compressed records: %s", ZSTD_getErrorName(r));
		f->zlen += out.pos;
		/* the whole records decompressed so far */
		size_t at = 0;
		while (f->zlen - at >= 8) {
			uint16_t rsz;
			memcpy(&rsz, f->zbuf + at + 6, 2);
			uint32_t t = pd_u32(f->zbuf + at);
			if (rsz < 8 || t == PD_COMPRESSED || t == PD_COMPRESSED2)
				return pd_set_err(f, "compressed records: a bad record inside");
			if (rsz > f->zlen - at)
				break;
			if (pd_record(f, f->zbuf + at, rsz, false))
				return -1;
			at += rsz;
		}
		memmove(f->zbuf, f->zbuf + at, f->zlen - at);
		f->zlen -= at;
		if (!out.pos && !r)
			break;
	}
	return 0;
}

int pd_record(struct pd_file *f, const uint8_t *rec, size_t sz, bool stable)
{
	uint32_t type = pd_u32(rec);

	f->info->records++;
	if (type < PD_HEADER_ATTR) {
		if (type == PERF_RECORD_SAMPLE || type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
		    type == PERF_RECORD_COMM || type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT ||
		    type == PERF_RECORD_LOST || type == PERF_RECORD_LOST_SAMPLES)
			return enqueue(f, rec, sz, stable);
		return 0;	/* throttling, switches, namespaces, cgroups, ksymbols: not carried */
	}
	switch (type) {
	case PD_HEADER_ATTR:
		return header_attr(f, rec, sz);
	case PD_HEADER_FEATURE:
		if (sz < 16)
			return pd_set_err(f, "HEADER_FEATURE record of %zu bytes", sz);
		if (pd_feature(f, (unsigned)pd_u64(rec + 8), rec + 16, sz - 16)) {
			ana_import_lack(f->info, "feature %llu unreadable (%s): skipped",
					(unsigned long long)pd_u64(rec + 8), f->err);
			f->err[0] = '\0';
		}
		return 0;
	case PD_HEADER_BUILD_ID:
		return pd_feature(f, PD_FEAT_BUILD_ID, rec, sz);
	case PD_EVENT_UPDATE:
		event_update(f, rec, sz);
		return 0;
	case PD_FINISHED_ROUND: {
		int rc = flush_upto(f, f->next_flush, SIZE_MAX);
		f->next_flush = f->max_ts;
		return rc;
	}
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		return compressed(f, rec, sz);
	default:
		return 0;	/* id index, maps, stat, aux, time conversion: nothing for a capture */
	}
}

void pd_records_release(struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_q; i++)
		if (f->q[i].owned)
			free((void *)f->q[i].rec);
	free(f->q);
	free(f->q2);
	ZSTD_freeDStream(f->zstd);
	free(f->zbuf);
}
