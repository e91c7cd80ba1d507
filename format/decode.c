/* SPDX-License-Identifier: MIT */
/*
 * decode.c - decoding the records of one segment payload.
 *
 * A record is {type:u8, len:varint, body[len]}; the body of a timed record
 * starts with a varint time delta from the previous timed record of the
 * segment (the first from the segment's first_ns) - except, in a segment
 * flagged PPF_SEGF_CPU_TIME, a SAMPLE's, which counts from the previous
 * SAMPLE of the same cpu (when there is one): per-cpu clocks tick evenly,
 * the merge of several does not, and zstd sees the difference.  SAMPLE records refer to
 * STACK records defined earlier in the same segment, and may carry their
 * raw data XORed with the previous raw data of the same event id: both
 * tables start empty in every segment, which is what makes a segment
 * decodable on its own.  Every length is checked against what remains.
 * Not here: reading segments from a file (reader.c).
 */
#include "format/internal.h"

struct ppf_arena_blk {
	struct ppf_arena_blk *next;
	size_t cap, len;
	uint64_t data[];
};

#define ARENA_BLK (256u << 10)

void *ppf_arena_alloc(struct ppf_arena *a, size_t sz)
{
	sz = (sz + 7) & ~(size_t)7;
	if (a->used + sz > PPF_DECODE_MAX_ARENA)
		return NULL;
	while (a->cur && a->cur->len + sz > a->cur->cap) {
		if (!a->cur->next)
			break;
		a->cur = a->cur->next;
		a->cur->len = 0;
	}
	if (!a->cur || a->cur->len + sz > a->cur->cap) {
		size_t cap = sz > ARENA_BLK ? sz : ARENA_BLK;
		struct ppf_arena_blk *b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->cap = cap;
		b->len = 0;
		if (a->cur) {
			b->next = a->cur->next;
			a->cur->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
		a->cur = b;
	}
	void *p = (uint8_t *)a->cur->data + a->cur->len;
	a->cur->len += sz;
	a->used += sz;
	return p;
}

void ppf_arena_reset(struct ppf_arena *a)
{
	a->cur = a->head;
	if (a->cur)
		a->cur->len = 0;
	a->used = 0;
}

void ppf_arena_release(struct ppf_arena *a)
{
	for (struct ppf_arena_blk *b = a->head, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	a->head = a->cur = NULL;
	a->used = 0;
}

void ppf_decoder_reset(struct ppf_decoder *d, const uint8_t *data, size_t size, uint64_t first_ns,
		       uint32_t seg_flags)
{
	d->in.p = data;
	d->in.end = data + size;
	d->in.bad = false;
	d->last_ns = first_ns;
	d->cpu_time = seg_flags & PPF_SEGF_CPU_TIME;
	d->delta_addr = seg_flags & PPF_SEGF_DELTA_ADDR;
	d->prev_addr = 0;
	if (d->cpu_last)
		memset(d->cpu_last, 0, d->cap_cpu * sizeof(*d->cpu_last));
	d->nr_stacks = 0;
	if (d->prev_raw)
		memset(d->prev_raw, 0, d->cap_prev * sizeof(*d->prev_raw));
	ppf_arena_reset(&d->arena);
}

void ppf_decoder_release(struct ppf_decoder *d)
{
	free(d->stacks);
	free(d->cpu_last);
	free(d->prev_raw);
	free(d->prev_sz);
	ppf_arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

static int decode_stack(struct ppf_decoder *d, struct ppf_rbuf *r)
{
	uint32_t id = rb_varint32(r), nr = rb_varint32(r);
	uint64_t *f;

	if (r->bad || id != d->nr_stacks + 1 || nr == 0 || nr > PPF_MAX_STACK)
		return PP_EBAD_RECORD;
	if (d->nr_stacks == d->cap_stacks) {
		size_t cap = d->cap_stacks ? d->cap_stacks * 2 : 256;
		struct ppf_stack_ref *s = realloc(d->stacks, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		d->stacks = s;
		d->cap_stacks = cap;
	}
	f = ppf_arena_alloc(&d->arena, nr * sizeof(uint64_t));
	if (!f)
		return PP_EBAD_RECORD;
	f[0] = rb_varint(r);
	for (uint32_t i = 1; i < nr; i++)
		f[i] = f[i - 1] + (uint64_t)unzigzag(rb_varint(r));
	if (r->bad)
		return PP_EBAD_RECORD;
	d->stacks[d->nr_stacks].frames = f;
	d->stacks[d->nr_stacks].nr = nr;
	d->nr_stacks++;
	return 0;
}

static int remember_raw(struct ppf_decoder *d, uint32_t id, const uint8_t *raw, uint32_t sz)
{
	if (id >= PPF_XOR_MAX_ID)
		return 0;
	if (id >= d->cap_prev) {
		size_t cap = d->cap_prev ? d->cap_prev : 64;
		while (cap <= id)
			cap *= 2;
		const uint8_t **p = realloc(d->prev_raw, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->prev_raw = p;
		uint32_t *s = realloc(d->prev_sz, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		d->prev_sz = s;
		memset(p + d->cap_prev, 0, (cap - d->cap_prev) * sizeof(*p));
		d->cap_prev = cap;
	}
	d->prev_raw[id] = raw;
	d->prev_sz[id] = sz;
	return 0;
}

/*
 * In a PPF_SEGF_CPU_TIME segment, the time of a SAMPLE of @cpu that carried
 * @dt: from the previous SAMPLE of that cpu, else (the cpu's first, or a cpu
 * past PPF_CPU_TIME_MAX) from the previous timed record, like any other.
 * The result may not go back before the previous timed record.
 */
static int sample_time(struct ppf_decoder *d, uint32_t cpu, uint64_t dt, uint64_t *t)
{
	uint64_t base = d->last_ns;

	if (cpu < PPF_CPU_TIME_MAX) {
		if (cpu >= d->cap_cpu) {
			size_t cap = (cpu | 63) + 1;
			uint64_t *p = realloc(d->cpu_last, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			memset(p + d->cap_cpu, 0, (cap - d->cap_cpu) * sizeof(*p));
			d->cpu_last = p;
			d->cap_cpu = cap;
		}
		if (d->cpu_last[cpu])
			base = d->cpu_last[cpu];
	}
	if (dt > UINT64_MAX - base || base + dt < d->last_ns)
		return PP_EBAD_RECORD;
	*t = d->last_ns = base + dt;
	if (cpu < PPF_CPU_TIME_MAX)
		d->cpu_last[cpu] = *t;
	return 0;
}

static int decode_sample(struct ppf_decoder *d, struct ppf_rbuf *r, struct ppf_record *rec)
{
	struct ppf_sample *s = &rec->u.sample;

	s->flags = rb_varint32(r);
	s->id = rb_varint32(r);
	s->cpu = rb_varint32(r);
	if (d->cpu_time) {
		int rc = r->bad ? PP_EBAD_RECORD : sample_time(d, s->cpu, rec->time_ns, &rec->time_ns);
		if (rc)
			return rc;
	}
	s->time_ns = rec->time_ns;
	s->pid = rb_varint32(r);
	s->tid = rb_varint32(r);
	s->period = (s->flags & PPF_SF_PERIOD) ? rb_varint(r) : 1;
	s->late_ns = (s->flags & PPF_SF_LATE) ? rb_varint(r) : 0;
	s->ip = (s->flags & PPF_SF_IP) ? rb_varint(r) : 0;
	s->addr = (s->flags & PPF_SF_ADDR) ? rb_varint(r) : 0;
	s->stack_id = 0;
	s->nr_stack = 0;
	s->stack = NULL;
	if (s->flags & PPF_SF_STACK) {
		uint32_t sid = rb_varint32(r);
		if (r->bad || sid == 0 || sid > d->nr_stacks)
			return PP_EBAD_RECORD;
		s->stack_id = sid;
		s->stack = d->stacks[sid - 1].frames;
		s->nr_stack = d->stacks[sid - 1].nr;
	}
	s->extra_sz = 0;
	s->extra = NULL;
	if (s->flags & PPF_SF_EXTRA) {
		s->extra_sz = rb_varint32(r);
		s->extra = rb_bytes(r, s->extra_sz);
	}
	s->raw_sz = 0;
	s->raw = NULL;
	if (s->flags & PPF_SF_RAW) {
		s->raw_sz = rb_varint32(r);
		s->raw = rb_bytes(r, s->raw_sz);
		if (r->bad)
			return PP_EBAD_RECORD;
		if (s->flags & PPF_SF_RAW_XOR) {
			if (s->id >= d->cap_prev || !d->prev_raw[s->id] ||
			    d->prev_sz[s->id] != s->raw_sz)
				return PP_EBAD_RECORD;
			uint8_t *out = ppf_arena_alloc(&d->arena, s->raw_sz);
			if (!out)
				return PP_EBAD_RECORD;
			ppf_xor(out, s->raw, d->prev_raw[s->id], s->raw_sz);
			s->raw = out;
		}
		int rc = remember_raw(d, s->id, s->raw, s->raw_sz);
		if (rc)
			return rc;
	}
	s->flags &= ~(uint32_t)PPF_SF_RAW_XOR;
	return r->bad ? PP_EBAD_RECORD : 0;
}

/* KSYM addr, SYM start: absolute, or in a DELTA_ADDR segment a delta from the previous one */
static uint64_t read_addr(struct ppf_decoder *d, struct ppf_rbuf *r)
{
	uint64_t v = rb_varint(r);

	if (!d->delta_addr)
		return v;
	d->prev_addr += (uint64_t)unzigzag(v);
	return d->prev_addr;
}

static int decode_body(struct ppf_decoder *d, struct ppf_rbuf *r, struct ppf_record *rec)
{
	switch (rec->type) {
	case PPF_REC_KV:
		rec->u.kv.key = rb_str(r);
		rec->u.kv.value = rb_str(r);
		break;
	case PPF_REC_STAT:
		rec->u.stat.key = rb_str(r);
		rec->u.stat.value = rb_varint(r);
		break;
	case PPF_REC_SYSCALL:
		rec->u.syscall.nr = rb_varint32(r);
		rec->u.syscall.name = rb_str(r);
		break;
	case PPF_REC_EVENT_DESC: {
		struct ppf_event_desc *e = &rec->u.event;
		e->id = rb_varint32(r);
		e->kind = rb_varint32(r);
		e->flags = rb_varint32(r);
		e->tp_id = rb_varint32(r);
		e->name = rb_str(r);
		e->selector = rb_str(r);
		e->filter = rb_str(r);
		e->attr_sz = rb_varint32(r);
		e->attr = rb_bytes(r, e->attr_sz);
		e->format = rb_str(r);
		break;
	}
	case PPF_REC_TASK:
		rec->u.task.pid = rb_varint32(r);
		rec->u.task.tid = rb_varint32(r);
		rec->u.task.ppid = rb_varint32(r);
		rec->u.task.comm = rb_str(r);
		rec->u.task.cmdline = rb_str(r);
		break;
	case PPF_REC_KSYM:
		rec->u.ksym.addr = read_addr(d, r);
		rec->u.ksym.type = (char)rb_u8(r);
		rec->u.ksym.name = rb_str(r);
		rec->u.ksym.module = rb_str(r);
		break;
	case PPF_REC_DSO: {
		struct ppf_dso *o = &rec->u.dso;
		o->build_id_sz = rb_varint32(r);
		if (o->build_id_sz > 64)
			return PP_EBAD_RECORD;
		o->build_id = rb_bytes(r, o->build_id_sz);
		o->path = rb_str(r);
		o->nr_syms = rb_varint32(r);
		o->flags = rb_varint32(r);
		o->text_vaddr = rb_varint(r);
		o->text_offset = rb_varint(r);
		d->prev_addr = 0;	/* its SYMs count from 0 */
		break;
	}
	case PPF_REC_SYM:
		rec->u.sym.start = read_addr(d, r);
		rec->u.sym.size = rb_varint(r);
		rec->u.sym.name = rb_str(r);
		break;
	case PPF_REC_STACK:
		return decode_stack(d, r);
	case PPF_REC_INDEX_ENTRY:
		rec->u.index.offset = rb_varint(r);
		rec->u.index.kind = rb_varint32(r);
		rec->u.index.seq = rb_varint(r);
		rec->u.index.first_ns = rb_varint(r);
		rec->u.index.last_ns = rec->u.index.first_ns + rb_varint(r);
		rec->u.index.nr_records = rb_varint32(r);
		break;
	case PPF_REC_SAMPLE:
		return decode_sample(d, r, rec);
	case PPF_REC_COMM:
		rec->u.comm.time_ns = rec->time_ns;
		rec->u.comm.pid = rb_varint32(r);
		rec->u.comm.tid = rb_varint32(r);
		rec->u.comm.exec = rb_varint32(r);
		rec->u.comm.comm = rb_str(r);
		break;
	case PPF_REC_FORK:
	case PPF_REC_EXIT:
		rec->u.task_event.time_ns = rec->time_ns;
		rec->u.task_event.pid = rb_varint32(r);
		rec->u.task_event.ppid = rb_varint32(r);
		rec->u.task_event.tid = rb_varint32(r);
		rec->u.task_event.ptid = rb_varint32(r);
		break;
	case PPF_REC_MMAP: {
		struct ppf_mmap *m = &rec->u.mmap;
		m->time_ns = rec->time_ns;
		m->pid = rb_varint32(r);
		m->tid = rb_varint32(r);
		m->addr = rb_varint(r);
		m->len = rb_varint(r);
		m->pgoff = rb_varint(r);
		m->prot = rb_varint32(r);
		m->flags = rb_varint32(r);
		m->build_id_sz = rb_varint32(r);
		if (m->build_id_sz > 64)
			return PP_EBAD_RECORD;
		m->build_id = rb_bytes(r, m->build_id_sz);
		m->path = rb_str(r);
		break;
	}
	case PPF_REC_LOST:
		rec->u.lost.time_ns = rec->time_ns;
		rec->u.lost.cpu = rb_varint32(r);
		rec->u.lost.id = rb_varint32(r);
		rec->u.lost.count = rb_varint(r);
		break;
	case PPF_REC_TIME_SYNC:
		rec->u.sync.time_ns = rec->time_ns;
		rec->u.sync.realtime_ns = rb_varint(r);
		break;
	case PPF_REC_SIDEBAND:
		rec->u.sideband.time_ns = rec->time_ns;
		rec->u.sideband.perf_type = rb_varint32(r);
		rec->u.sideband.cpu = rb_varint32(r);
		rec->u.sideband.size = rb_varint32(r);
		rec->u.sideband.data = rb_bytes(r, rec->u.sideband.size);
		/* pid, tid: trailing fields added in 1.0's lifetime; absent in older files */
		rec->u.sideband.pid = rec->u.sideband.tid = UINT32_MAX;
		if (!r->bad && r->p < r->end) {
			rec->u.sideband.pid = rb_varint32(r);
			rec->u.sideband.tid = rb_varint32(r);
		}
		break;
	default:
		break;		/* unknown: the caller sees type, body and body_sz */
	}
	return r->bad ? PP_EBAD_RECORD : 0;
}

int ppf_decoder_next(struct ppf_decoder *d, struct ppf_record *rec)
{
	struct ppf_rbuf body;
	uint64_t len;

	if (d->in.p >= d->in.end)
		return PPF_END;
	rec->type = rb_u8(&d->in);
	len = rb_varint(&d->in);
	if (d->in.bad || len > (uint64_t)(d->in.end - d->in.p))
		return PP_EBAD_RECORD;
	body.p = d->in.p;
	body.end = d->in.p + len;
	body.bad = false;
	d->in.p += len;
	rec->body = body.p;
	rec->body_sz = (uint32_t)len;
	rec->time_ns = 0;
	if (rec->type >= PPF_REC_TIMED_FIRST && rec->type <= PPF_REC_TIMED_LAST) {
		uint64_t dt = rb_varint(&body);
		if (body.bad)
			return PP_EBAD_RECORD;
		if (rec->type == PPF_REC_SAMPLE && d->cpu_time) {
			rec->time_ns = dt;	/* decode_sample() adds its cpu's base */
		} else {
			if (dt > UINT64_MAX - d->last_ns)
				return PP_EBAD_RECORD;
			d->last_ns += dt;
			rec->time_ns = d->last_ns;
		}
	}
	return decode_body(d, &body, rec);
}

int ppf_segment_decode(const uint8_t *data, size_t size, uint64_t first_ns, uint32_t seg_flags,
		       ppf_record_fn cb, void *arg)
{
	struct ppf_decoder d = { 0 };
	struct ppf_record rec;
	int rc;

	ppf_decoder_reset(&d, data, size, first_ns, seg_flags);
	while ((rc = ppf_decoder_next(&d, &rec)) == 0) {
		if (rec.type == PPF_REC_STACK)
			continue;
		rc = cb(&rec, arg);
		if (rc) {
			ppf_decoder_release(&d);
			return rc;	/* the callback's value, even if it equals PPF_END */
		}
	}
	ppf_decoder_release(&d);
	return rc == PPF_END ? 0 : rc;
}
