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
 * Not here: reading segments from a file (reader-segment.c).
 */
#include "format/internal.h"
#include "format/ustack.h"

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

/*
 * The decoder's hot path.  Everything below reads through a cursor that the
 * compiler keeps in registers, and checks every length as rb_*() do.
 */

/* ppf_arena_alloc() for the common case: room left in the current block. */
static inline void *arena_alloc(struct ppf_arena *a, size_t sz)
{
	struct ppf_arena_blk *b = a->cur;
	size_t sz8 = (sz + 7) & ~(size_t)7;

	if (b && sz8 <= b->cap - b->len && a->used + sz8 <= PPF_DECODE_MAX_ARENA) {
		void *p = (uint8_t *)b->data + b->len;
		b->len += sz8;
		a->used += sz8;
		return p;
	}
	return ppf_arena_alloc(a, sz);
}

/*
 * A varint at *pp read without bound checks: the caller knows that 10 bytes
 * (the longest varint) can be read there.  rb_varint()'s result: the 10th
 * byte's bits past bit 63 are dropped, and a 10th byte with its high bit
 * set sets *bad.
 */
static inline uint64_t uvarint(const uint8_t **pp, bool *bad)
{
	const uint8_t *p = *pp;
	uint64_t c = p[0], v;

	if (c < 0x80) {
		*pp = p + 1;
		return c;
	}
	v = c & 0x7f;
	c = p[1];
	if (c < 0x80) {
		*pp = p + 2;
		return v | c << 7;
	}
	v |= (c & 0x7f) << 7;
	for (unsigned i = 2; i < PPF_VARINT_MAX; i++) {
		c = p[i];
		v |= (c & 0x7f) << (7 * i);
		if (c < 0x80) {
			*pp = p + i + 1;
			return v;
		}
	}
	*pp = p + PPF_VARINT_MAX;
	*bad = true;
	return 0;
}

/* rb_varint() with the bound check done once when 10 bytes remain: same result, same errors */
static inline uint64_t dec_varint(struct ppf_rbuf *r)
{
	if (__builtin_expect(r->end - r->p >= PPF_VARINT_MAX, 1))
		return uvarint(&r->p, &r->bad);
	return rb_varint(r);
}

static inline uint32_t dec_varint32(struct ppf_rbuf *r)
{
	uint64_t v = dec_varint(r);

	if (v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
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
	d->xor_cpu = seg_flags & PPF_SEGF_XOR_CPU;
	d->time_col = seg_flags & PPF_SEGF_TIME_COL;
	d->ustk_runs = seg_flags & PPF_SEGF_USTACK_RUNS;
	d->tcol.p = d->tcol.end = NULL;
	d->tcol.bad = false;
	if (d->time_col) {
		/* records, then the column of their dt, then its length (u32 LE) */
		uint32_t n = 0;

		if (size >= 4)
			n = (uint32_t)data[size - 4] | (uint32_t)data[size - 3] << 8 |
			    (uint32_t)data[size - 2] << 16 | (uint32_t)data[size - 1] << 24;
		if (size < 4 || n > size - 4) {
			d->in.end = d->in.p;	/* no record can be trusted: one problem */
			d->in.bad = true;
		} else {
			d->tcol.p = data + size - 4 - n;
			d->tcol.end = data + size - 4;
			d->in.end = d->tcol.p;
		}
	}
	d->prev_addr = 0;
	if (d->cpu_last)
		memset(d->cpu_last, 0, d->cap_cpu * sizeof(*d->cpu_last));
	d->nr_stacks = 0;
	ppf_ctrtab_reset(&d->ctr);
	if (d->ustk)
		ppf_ustk_reset(d->ustk);
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
	ppf_ctrtab_release(&d->ctr);
	if (d->ustk)
		ppf_ustk_release(d->ustk);
	free(d->ustk);
	ppf_arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

/*
 * COUNTER (writer-events.c's ppf_write_counter() has the layout), made absolute again.
 * The table is updated entry by entry, in order, as the writer updated its own.
 */
static int decode_counter(struct ppf_decoder *d, struct ppf_rbuf *r, struct ppf_counter *c)
{
	struct ppf_counter_val *v;
	uint64_t flags, en, gap;
	int err;

	c->cpu = dec_varint32(r) - 1;
	c->tid = dec_varint32(r) - 1;
	flags = dec_varint(r);
	en = dec_varint(r);
	gap = dec_varint(r);
	c->nr = dec_varint32(r);
	if (r->bad || !c->nr || flags > 1)
		return PP_EBAD_RECORD;
	if (c->nr > PPF_COUNTER_MAX)
		return PP_ELIMIT;
	v = arena_alloc(&d->arena, c->nr * sizeof(*v));
	if (!v)
		return PP_ELIMIT;	/* the segment's decoded counters and stacks passed the arena's limit */
	for (uint32_t i = 0; i < c->nr; i++) {
		uint64_t idm = dec_varint(r), x;
		struct ppf_ctr_slot *e;

		if (r->bad || idm >> 2 > UINT32_MAX || (idm & 3) == 3)
			return PP_EBAD_RECORD;
		v[i].id = (uint32_t)(idm >> 2);
		x = dec_varint(r);
		e = ppf_ctrtab_find(&d->ctr, v[i].id, c->cpu, c->tid);
		if (i == 0) {
			if (flags) {
				uint64_t den;

				if (!e || c->time_ns < e->time)
					return PP_EBAD_RECORD;	/* a delta without its base */
				den = c->time_ns - e->time + (uint64_t)unzigzag(en);
				c->enabled = e->enabled + den;
				c->running = e->running + den - (uint64_t)unzigzag(gap);
			} else {
				c->enabled = en;
				c->running = en - (uint64_t)unzigzag(gap);
			}
		}
		if (idm & 3) {
			if (!e)
				return PP_EBAD_RECORD;
			if ((idm & 3) == 2)	/* its difference's distance to enabled's */
				x = (c->enabled - e->enabled) + (uint64_t)unzigzag(x);
			v[i].value = e->value + x;
		} else {
			v[i].value = x;
		}
		if (!e && !(e = ppf_ctrtab_add(&d->ctr, v[i].id, c->cpu, c->tid, &err)) && err)
			return err;
		if (e) {
			e->value = v[i].value;
			e->enabled = c->enabled;
			e->running = c->running;
			e->time = c->time_ns;
		}
	}
	c->v = v;
	return r->bad ? PP_EBAD_RECORD : 0;
}

static int decode_stack(struct ppf_decoder *d, struct ppf_rbuf *r)
{
	uint32_t id = dec_varint32(r), nr = dec_varint32(r);
	uint64_t *f;

	if (r->bad || id != d->nr_stacks + 1 || nr == 0)
		return PP_EBAD_RECORD;
	if (nr > PPF_MAX_STACK)
		return PP_ELIMIT;
	if (d->nr_stacks == d->cap_stacks) {
		size_t cap = d->cap_stacks ? d->cap_stacks * 2 : 256;
		struct ppf_stack_ref *s = realloc(d->stacks, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		d->stacks = s;
		d->cap_stacks = cap;
	}
	f = arena_alloc(&d->arena, nr * sizeof(uint64_t));
	if (!f)
		return PP_ELIMIT;
	f[0] = dec_varint(r);
	for (uint32_t i = 1; i < nr; i++)
		f[i] = f[i - 1] + (uint64_t)unzigzag(dec_varint(r));
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
		size_t cap = ppf_xor_cap(d->cap_prev, id);
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
static inline int sample_time(struct ppf_decoder *d, uint32_t cpu, uint64_t dt, uint64_t *t)
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

/* A varint at *pp, before @end: rb_varint()'s result and errors, dec_varint()'s speed. */
static inline bool get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	struct ppf_rbuf r = { *pp, end, false };

	*out = dec_varint(&r);
	*pp = r.p;
	return !r.bad;
}

static inline bool get_varint32(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	return get_varint(pp, end, out) && *out <= UINT32_MAX;
}

/* A SAMPLE's dt: from the time column, or the body's first varint (at *@pp, moved on). */
static inline int sample_dt(struct ppf_decoder *d, const uint8_t **pp, const uint8_t *end,
			    uint64_t *dt)
{
	if (d->time_col) {
		*dt = dec_varint(&d->tcol);
		return d->tcol.bad ? PP_EBAD_RECORD : 0;
	}
	return get_varint(pp, end, dt) ? 0 : PP_EBAD_RECORD;
}

/* A SAMPLE's leading fields, and its time. */
struct sample_head {
	uint64_t t, flags, id, cpu, pid, tid;
};

/*
 * The head of the SAMPLE whose body starts at *@pp (moved on) and ends at @end,
 * in a segment that ends at @seg_end: dt, flags, id, cpu, pid, tid, and the time.
 * Inlined in decode_sample(), so that @h lives in registers.
 */
static inline __attribute__((always_inline)) int
sample_head(struct ppf_decoder *d, const uint8_t **pp, const uint8_t *end, const uint8_t *seg_end,
	    struct sample_head *h)
{
	const uint8_t *p = *pp;
	uint64_t dt;
	int rc;

	h->t = 0;
	if (seg_end - p >= 6 * PPF_VARINT_MAX) {
		/*
		 * The six leading varints, with one bound check after them: the
		 * segment holds the bytes even where the body does not, and a
		 * cursor past @end means a varint crossed it, which rb_varint()
		 * would have refused.
		 */
		bool bad = false;
		if (d->time_col) {
			dt = dec_varint(&d->tcol);
			bad = d->tcol.bad;
		} else {
			dt = uvarint(&p, &bad);
		}
		h->flags = uvarint(&p, &bad);
		h->id = uvarint(&p, &bad);
		h->cpu = uvarint(&p, &bad);
		h->pid = uvarint(&p, &bad);
		h->tid = uvarint(&p, &bad);
		if (bad || p > end || (h->flags | h->id | h->cpu | h->pid | h->tid) > UINT32_MAX)
			return PP_EBAD_RECORD;
		if (!d->cpu_time) {
			if (dt > UINT64_MAX - d->last_ns)
				return PP_EBAD_RECORD;
			h->t = d->last_ns += dt;
		} else if ((rc = sample_time(d, (uint32_t)h->cpu, dt, &h->t))) {
			return rc;
		}
	} else {
		if ((rc = sample_dt(d, &p, end, &dt)))
			return rc;
		if (!d->cpu_time) {
			if (dt > UINT64_MAX - d->last_ns)
				return PP_EBAD_RECORD;
			h->t = d->last_ns += dt;
		}
		if (!get_varint32(&p, end, &h->flags) || !get_varint32(&p, end, &h->id) ||
		    !get_varint32(&p, end, &h->cpu))
			return PP_EBAD_RECORD;
		if (d->cpu_time && (rc = sample_time(d, (uint32_t)h->cpu, dt, &h->t)))
			return rc;
		if (!get_varint32(&p, end, &h->pid) || !get_varint32(&p, end, &h->tid))
			return PP_EBAD_RECORD;
	}
	*pp = p;
	return 0;
}

/*
 * A SAMPLE's raw data at *@pp (moved on), XOR-decoded against the previous one of
 * @key when @flags says so, and remembered as the next one's base.
 */
static inline __attribute__((always_inline)) int
sample_raw(struct ppf_decoder *d, const uint8_t **pp, const uint8_t *end, uint64_t flags,
	   uint32_t key, const uint8_t **raw_out, uint32_t *raw_sz_out)
{
	const uint8_t *p = *pp, *raw;
	uint32_t raw_sz;
	uint64_t v;
	int rc;

	if (!get_varint32(&p, end, &v) || (uint64_t)(end - p) < v)
		return PP_EBAD_RECORD;
	raw_sz = (uint32_t)v;
	raw = p;
	if (flags & PPF_SF_RAW_XOR) {
		if (key >= d->cap_prev || !d->prev_raw[key] || d->prev_sz[key] != raw_sz)
			return PP_EBAD_RECORD;
		/*
		 * In place when the reader owns the buffer: the stored bytes
		 * are not needed again, and the arena's copy cost an
		 * allocation and 64 fresh bytes of cache a record.
		 */
		uint8_t *out = d->xor_in_place ? (uint8_t *)raw : arena_alloc(&d->arena, raw_sz);
		if (!out)
			return PP_EBAD_RECORD;
		ppf_xor(out, raw, d->prev_raw[key], raw_sz);
		raw = out;
	}
	if (key < d->cap_prev) {		/* remember_raw(), without the call */
		d->prev_raw[key] = raw;
		d->prev_sz[key] = raw_sz;
	} else if ((rc = remember_raw(d, key, raw, raw_sz))) {
		return rc;
	}
	*pp = p + raw_sz;	/* past the raw data: USTACK may follow */
	*raw_out = raw;
	*raw_sz_out = raw_sz;
	return 0;
}

/* A SAMPLE's USTACK field at *@pp (moved on) into @u's USTACK fields (tid set): ustack.c */
static int __attribute__((noinline)) sample_ustack(struct ppf_decoder *d, const uint8_t **pp,
						   const uint8_t *end, struct ppf_sample *u)
{
	if (!d->ustk && !(d->ustk = calloc(1, sizeof(*d->ustk))))
		return -ENOMEM;
	return ppf_ustk_decode(d->ustk, &d->arena, d->xor_in_place, d->ustk_runs, pp, end, u);
}

/*
 * A SAMPLE's body [p, end), in a segment that ends at @seg_end: the hot
 * path of every replay.  The cursor and
 * the fields live in locals until the record is known good (with
 * -fno-strict-aliasing, a store through @rec would otherwise reload them);
 * the checks are rb_*()'s, in the same order, and a malformed record is
 * rejected at its first bad field instead of at its end.
 */
static int decode_sample(struct ppf_decoder *d, struct ppf_record *rec, const uint8_t *p,
			 const uint8_t *end, const uint8_t *seg_end)
{
	struct ppf_sample *s = &rec->u.sample;
	struct sample_head h;
	uint64_t v, period = 1, late = 0, ip = 0, addr = 0;
	uint32_t stack_id = 0, nr_stack = 0, extra_sz = 0, raw_sz = 0;
	const uint64_t *stack = NULL;
	const uint8_t *extra = NULL, *raw = NULL;
	int rc;

	if ((rc = sample_head(d, &p, end, seg_end, &h)))
		return rc;
	if ((h.flags & PPF_SF_PERIOD) && !get_varint(&p, end, &period))
		return PP_EBAD_RECORD;
	if ((h.flags & PPF_SF_LATE) && !get_varint(&p, end, &late))
		return PP_EBAD_RECORD;
	if ((h.flags & PPF_SF_IP) && !get_varint(&p, end, &ip))
		return PP_EBAD_RECORD;
	if ((h.flags & PPF_SF_ADDR) && !get_varint(&p, end, &addr))
		return PP_EBAD_RECORD;
	if (h.flags & PPF_SF_STACK) {
		if (!get_varint32(&p, end, &v) || v == 0 || v > d->nr_stacks)
			return PP_EBAD_RECORD;
		stack_id = (uint32_t)v;
		stack = d->stacks[v - 1].frames;
		nr_stack = d->stacks[v - 1].nr;
	}
	if (h.flags & PPF_SF_EXTRA) {
		if (!get_varint32(&p, end, &v) || (uint64_t)(end - p) < v)
			return PP_EBAD_RECORD;
		extra_sz = (uint32_t)v;
		extra = p;
		p += v;
	}
	if ((h.flags & PPF_SF_RAW) &&
	    (rc = sample_raw(d, &p, end, h.flags, ppf_xor_key(d->xor_cpu, h.id, h.cpu), &raw,
			     &raw_sz)))
		return rc;
	if (h.flags & PPF_SF_USTACK) {
		s->tid = (uint32_t)h.tid;	/* its XOR base's key; the USTACK fields go to @s */
		if ((rc = sample_ustack(d, &p, end, s)))
			return rc;
	} else {
		s->nr_uregs = s->ustack_sz = 0;
		s->uregs = NULL;
		s->ustack = NULL;
	}
	rec->time_ns = h.t;
	s->time_ns = h.t;
	s->late_ns = late;
	s->flags = (uint32_t)h.flags & ~(uint32_t)PPF_SF_RAW_XOR;
	s->id = (uint32_t)h.id;
	s->cpu = (uint32_t)h.cpu;
	s->pid = (uint32_t)h.pid;
	s->tid = (uint32_t)h.tid;
	s->period = period;
	s->ip = ip;
	s->addr = addr;
	s->stack_id = stack_id;
	s->nr_stack = nr_stack;
	s->stack = stack;
	s->raw_sz = raw_sz;
	s->raw = raw;
	s->extra_sz = extra_sz;
	s->extra = extra;
	return 0;
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

static void decode_event_desc(struct ppf_rbuf *r, struct ppf_event_desc *e)
{
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
}

/* Return: 0, or -1 for a build id longer than any (the record is bad). */
static int decode_dso(struct ppf_rbuf *r, struct ppf_dso *o)
{
	o->build_id_sz = rb_varint32(r);
	if (o->build_id_sz > 64)
		return -1;
	o->build_id = rb_bytes(r, o->build_id_sz);
	o->path = rb_str(r);
	o->nr_syms = rb_varint32(r);
	o->flags = rb_varint32(r);
	o->text_vaddr = rb_varint(r);
	o->text_offset = rb_varint(r);
	return 0;
}

/* Return: 0, or -1 for a span past the end of time (the record is bad). */
static int decode_digest_seg(struct ppf_rbuf *r, struct ppf_digest_entry *e)
{
	uint64_t span;

	e->csize = rb_varint32(r);
	e->payload_crc = rb_varint32(r);
	e->first_ns = rb_varint(r);
	span = rb_varint(r);
	e->nr_records = rb_varint32(r);
	e->nr_samples = rb_varint32(r);
	e->nr_stacks = rb_varint32(r);
	e->nr_copied = rb_varint32(r);
	if (span > UINT64_MAX - e->first_ns)
		return -1;
	e->last_ns = e->first_ns + span;
	return 0;
}

/* Return: 0, or -1 for a build id longer than any (the record is bad). */
static int decode_mmap(struct ppf_rbuf *r, struct ppf_mmap *m)
{
	m->pid = rb_varint32(r);
	m->tid = rb_varint32(r);
	m->addr = rb_varint(r);
	m->len = rb_varint(r);
	m->pgoff = rb_varint(r);
	m->prot = rb_varint32(r);
	m->flags = rb_varint32(r);
	m->build_id_sz = rb_varint32(r);
	if (m->build_id_sz > 64)
		return -1;
	m->build_id = rb_bytes(r, m->build_id_sz);
	m->path = rb_str(r);
	return 0;
}

static void decode_sideband(struct ppf_rbuf *r, struct ppf_sideband *sb)
{
	sb->perf_type = rb_varint32(r);
	sb->cpu = rb_varint32(r);
	sb->size = rb_varint32(r);
	sb->data = rb_bytes(r, sb->size);
	/* pid, tid: trailing fields added in 1.0's lifetime; absent in older files */
	sb->pid = sb->tid = UINT32_MAX;
	if (!r->bad && r->p < r->end) {
		sb->pid = rb_varint32(r);
		sb->tid = rb_varint32(r);
	}
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
	case PPF_REC_EVENT_DESC:
		decode_event_desc(r, &rec->u.event);
		break;
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
	case PPF_REC_DSO:
		if (decode_dso(r, &rec->u.dso))
			return PP_EBAD_RECORD;
		d->prev_addr = 0;	/* its SYMs count from 0 */
		break;
	case PPF_REC_SYM:
		rec->u.sym.start = read_addr(d, r);
		rec->u.sym.size = rb_varint(r);
		rec->u.sym.name = rb_str(r);
		break;
	case PPF_REC_UNWIND:
		return ppf_decode_unwind(r, &rec->u.unwind);
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
	case PPF_REC_DIGEST_SEG: {
		struct ppf_digest_entry *e = &rec->u.digest;

		if (decode_digest_seg(r, e))
			return PP_EBAD_RECORD;
		if (d->digest && !r->bad) {
			/* the copies after it decode as a segment of their own */
			d->last_ns = e->first_ns;
			ppf_ctrtab_reset(&d->ctr);
		}
		break;
	}
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
	case PPF_REC_MMAP:
		rec->u.mmap.time_ns = rec->time_ns;
		if (decode_mmap(r, &rec->u.mmap))
			return PP_EBAD_RECORD;
		break;
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
		decode_sideband(r, &rec->u.sideband);
		break;
	case PPF_REC_COUNTER:
		rec->u.counter.time_ns = rec->time_ns;
		return decode_counter(d, r, &rec->u.counter);
	default:
		break;		/* unknown: the caller sees type, body and body_sz */
	}
	return r->bad ? (r->over ? PP_ELIMIT : PP_EBAD_RECORD) : 0;
}

/*
 * Skimming: the time of the SAMPLE whose body is [p, end), as decode_sample()
 * takes it (dt, then flags, id and cpu, for CPU_TIME), nothing else.
 */
static int skim_sample(struct ppf_decoder *d, const uint8_t *p, const uint8_t *end)
{
	uint64_t dt, flags, id, cpu, t;
	int rc = sample_dt(d, &p, end, &dt);

	if (rc)
		return rc;
	if (!get_varint32(&p, end, &flags) || !get_varint32(&p, end, &id) ||
	    !get_varint32(&p, end, &cpu))
		return PP_EBAD_RECORD;
	if (d->cpu_time)
		return sample_time(d, (uint32_t)cpu, dt, &t);
	if (dt > UINT64_MAX - d->last_ns)
		return PP_EBAD_RECORD;
	d->last_ns += dt;
	return 0;
}

/* ppf_decoder_next() of a skimming decoder: the next record that is not a SAMPLE or STACK. */
static int __attribute__((noinline)) skim_next(struct ppf_decoder *d)
{
	for (;;) {
		const uint8_t *p = d->in.p, *end = d->in.end;
		uint64_t len;
		uint32_t type;
		int rc;

		if (p >= end)
			return 0;	/* ppf_decoder_next() says PPF_END */
		type = *p;
		if (type != PPF_REC_SAMPLE && type != PPF_REC_STACK)
			return 0;
		p++;
		if (!get_varint(&p, end, &len) || len > (uint64_t)(end - p))
			return 0;	/* ppf_decoder_next() meets it */
		if (type == PPF_REC_SAMPLE && (rc = skim_sample(d, p, p + len)))
			return rc;
		d->in.p = p + len;
	}
}

int ppf_decoder_next(struct ppf_decoder *d, struct ppf_record *rec)
{
	if (__builtin_expect(d->skim, 0)) {
		int rc = skim_next(d);
		if (rc) {
			d->in.bad = true;
			return rc;
		}
	}
	const uint8_t *p = d->in.p, *end = d->in.end;
	struct ppf_rbuf body;
	uint64_t len;
	uint32_t type;

	if (p >= end)
		return d->in.bad ? PP_EBAD_RECORD : PPF_END;	/* bad: a time column that is not */
	type = *p++;
	if (!get_varint(&p, end, &len) || len > (uint64_t)(end - p)) {
		d->in.p = p;
		d->in.bad = true;
		return PP_EBAD_RECORD;
	}
	d->in.p = p + len;
	rec->type = type;
	rec->body = p;
	rec->body_sz = (uint32_t)len;
	rec->time_ns = 0;
	if (type == PPF_REC_SAMPLE)
		return decode_sample(d, rec, p, p + len, end);
	body.p = p;
	body.end = p + len;
	body.bad = body.over = false;
	if (type >= PPF_REC_TIMED_FIRST && type <= PPF_REC_TIMED_LAST) {
		uint64_t dt = d->time_col ? dec_varint(&d->tcol) : rb_varint(&body);
		if (body.bad || d->tcol.bad || dt > UINT64_MAX - d->last_ns)
			return PP_EBAD_RECORD;
		d->last_ns += dt;
		rec->time_ns = d->last_ns;
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
