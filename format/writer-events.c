/* SPDX-License-Identifier: MIT */
/*
 * writer-events.c - writing the timed records of EVENTS segments: SAMPLE, the
 * hot path of recording, and the side band (COMM, FORK, EXIT, MMAP, LOST,
 * COUNTER, TIME_SYNC, SIDEBAND).
 *
 * Times are deltas in the segment's time column (PPF_SEGF_TIME_COL); a SAMPLE's
 * counts from the previous SAMPLE of its cpu (PPF_SEGF_CPU_TIME).  Call stacks
 * are interned per segment (STACK records) and tracepoint raw data is XORed with
 * the previous raw of the same event id and cpu when the sizes match: both
 * exploit the repetition of traces and both reset per segment.
 * Not here: segments (writer.c) or untimed records (writer-meta.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "format/ustack.h"
#include "format/writer-internal.h"

/*
 * The segment kind of a record that goes with the metadata while it is being
 * written (snapshot maps, the time-sync pair) and with the events otherwise:
 * metadata that filled its segment goes on in the next one.
 */
static enum ppf_seg_kind snapshot_kind(const struct ppf_writer *w)
{
	if (w->open ? w->kind == PPF_SEG_META : w->meta_full)
		return PPF_SEG_META;
	return PPF_SEG_EVENTS;
}

/*
 * Put the time delta for a timed record; clamp to keep the file ordered.
 * @cpu: a SAMPLE's cpu, or UINT32_MAX: every segment is PPF_SEGF_CPU_TIME,
 * so a SAMPLE's delta counts from the previous SAMPLE of its cpu when this
 * segment has one (decode.c's sample_time() is the other half).
 */
static uint64_t time_delta(struct ppf_writer *w, uint64_t t, uint32_t cpu, uint64_t *late)
{
	uint64_t base;

	*late = 0;
	if (t < w->file_last_ns) {
		*late = w->file_last_ns - t;
		t = w->file_last_ns;
	}
	if (!w->have_time) {
		w->have_time = true;
		w->first_ns = w->last_ns = t;
	}
	base = w->last_ns;
	if (cpu < w->cap_cpu) {
		if (w->cpu_gen[cpu] == w->gen && w->cpu_last[cpu])
			base = w->cpu_last[cpu];
		w->cpu_gen[cpu] = w->gen;
		w->cpu_last[cpu] = t;
	}
	w->last_ns = t;
	w->file_last_ns = t;
	return t - base;
}

/*
 * ppf_writer_rec_begin() for a timed record at @t but a SAMPLE: its dt goes to the time
 * column, not its body (PPF_SEGF_TIME_COL), and counts from the previous timed record.
 */
static int timed_begin(struct ppf_writer *w, enum ppf_seg_kind kind, size_t max_body, uint64_t t)
{
	uint64_t late;
	int rc = ppf_writer_rec_begin(w, kind, max_body);

	if (rc)
		return rc;
	rc = ppf_wbuf_reserve(&w->tcol, PPF_VARINT_MAX);
	if (rc)
		return ppf_writer_fail(w, rc, "segment");
	wb_varint(&w->tcol, time_delta(w, t, UINT32_MAX, &late));
	return 0;
}

/* Make room for @cpu in the per-cpu time table (cpus past PPF_CPU_TIME_MAX get none). */
static int cpu_time_grow(struct ppf_writer *w, uint32_t cpu)
{
	if (cpu < w->cap_cpu || cpu >= PPF_CPU_TIME_MAX)
		return 0;
	size_t cap = (cpu | 63) + 1;
	uint64_t *l = realloc(w->cpu_last, cap * sizeof(*l));
	if (!l)
		return ppf_writer_fail(w, -ENOMEM, "cpu table");
	w->cpu_last = l;
	uint32_t *g = realloc(w->cpu_gen, cap * sizeof(*g));
	if (!g)
		return ppf_writer_fail(w, -ENOMEM, "cpu table");
	w->cpu_gen = g;
	for (size_t i = w->cap_cpu; i < cap; i++)
		g[i] = w->gen - 1;
	w->cap_cpu = cap;
	return 0;
}

/* Find or define the segment-local id of a stack; emits a STACK record when new. */
static int stack_intern(struct ppf_writer *w, const uint64_t *f, uint32_t nr, uint32_t *id)
{
	uint64_t h = pp_hash_u64s(f, nr) | 1;	/* 0 marks an empty slot */
	size_t i;

	if (w->nr_stacks * 2 >= w->stab_cap) {
		size_t cap = w->stab_cap ? w->stab_cap * 2 : 1024;
		struct stack_slot *t = calloc(cap, sizeof(*t));
		if (!t)
			return ppf_writer_fail(w, -ENOMEM, "stack table");
		for (size_t j = 0; j < w->stab_cap; j++) {
			if (!w->stab[j].hash)
				continue;
			for (i = w->stab[j].hash & (cap - 1); t[i].hash; i = (i + 1) & (cap - 1))
				;
			t[i] = w->stab[j];
		}
		free(w->stab);
		w->stab = t;
		w->stab_cap = cap;
	}
	for (i = h & (w->stab_cap - 1); w->stab[i].hash; i = (i + 1) & (w->stab_cap - 1)) {
		struct stack_slot *s = &w->stab[i];
		if (s->hash == h && s->nr == nr && !memcmp(s->frames, f, nr * sizeof(*f))) {
			*id = s->id;
			return 0;
		}
	}
	uint64_t *copy = ppf_arena_alloc(&w->frames, nr * sizeof(*f));
	if (!copy)
		return ppf_writer_fail(w, -ENOMEM, "stack table");
	memcpy(copy, f, nr * sizeof(*f));
	w->stab[i] = (struct stack_slot){ h, (uint32_t)++w->nr_stacks, nr, copy };
	*id = (uint32_t)w->nr_stacks;

	/* the STACK record itself */
	size_t save = w->body.len;
	int rc = ppf_wbuf_reserve(&w->seg, 1 + 2 * PPF_VARINT_MAX + (size_t)(nr + 2) * PPF_VARINT_MAX);
	if (rc)
		return ppf_writer_fail(w, rc, "segment");
	w->body.len = 0;
	rc = ppf_wbuf_reserve(&w->body, (size_t)(nr + 2) * PPF_VARINT_MAX);
	if (rc)
		return ppf_writer_fail(w, rc, "record");
	wb_varint(&w->body, *id);
	wb_varint(&w->body, nr);
	wb_varint(&w->body, f[0]);
	for (uint32_t k = 1; k < nr; k++)
		wb_varint(&w->body, zigzag((int64_t)(f[k] - f[k - 1])));
	wb_u8(&w->seg, PPF_REC_STACK);
	wb_varint(&w->seg, w->body.len);
	wb_bytes(&w->seg, w->body.data, w->body.len);
	w->nr_records++;
	w->body.len = save;
	return 0;
}

/* Return the previous raw of @id in this segment when its size is @sz, else NULL. */
static const uint8_t *xor_prev(struct ppf_writer *w, uint32_t id, uint32_t sz)
{
	if (id >= PPF_XOR_MAX_ID || id >= w->cap_prev || w->prev_gen[id] != w->gen ||
	    w->prev_sz[id] != sz)
		return NULL;
	return w->prev_raw[id];
}

static int xor_remember(struct ppf_writer *w, uint32_t id, const uint8_t *raw, uint32_t sz)
{
	if (id >= PPF_XOR_MAX_ID)
		return 0;
	if (id >= w->cap_prev) {
		size_t cap = ppf_xor_cap(w->cap_prev, id);
		uint8_t **r = realloc(w->prev_raw, cap * sizeof(*r));
		if (!r)
			return ppf_writer_fail(w, -ENOMEM, "xor table");
		w->prev_raw = r;
		uint32_t *s = realloc(w->prev_sz, cap * sizeof(*s));
		if (!s)
			return ppf_writer_fail(w, -ENOMEM, "xor table");
		w->prev_sz = s;
		uint32_t *g = realloc(w->prev_gen, cap * sizeof(*g));
		if (!g)
			return ppf_writer_fail(w, -ENOMEM, "xor table");
		w->prev_gen = g;
		for (size_t i = w->cap_prev; i < cap; i++) {
			r[i] = NULL;
			s[i] = 0;
			g[i] = UINT32_MAX;
		}
		w->cap_prev = cap;
	}
	if (w->prev_sz[id] < sz || !w->prev_raw[id]) {
		uint8_t *p = realloc(w->prev_raw[id], sz ? sz : 1);
		if (!p)
			return ppf_writer_fail(w, -ENOMEM, "xor table");
		w->prev_raw[id] = p;
	}
	memcpy(w->prev_raw[id], raw, sz);
	w->prev_sz[id] = sz;
	w->prev_gen[id] = w->gen;
	return 0;
}

/* Put @v at @p as a varint; return the byte after it. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * The hot path: a SAMPLE is encoded straight into the segment buffer through
 * a local cursor (not into w->body and copied, nor through wb_varint(), whose
 * stores through a uint8_t pointer make the compiler reload the buffer's
 * pointer and length after every byte).  The body is written after a 1-byte
 * length; a body of 128 bytes or more is moved up to make room for its
 * longer varint.  The bytes are those ppf_writer_rec_begin()/ppf_writer_rec_end() would write.
 */
int ppf_write_sample(struct ppf_writer *w, const struct ppf_sample *s)
{
	uint32_t flags = s->flags & (PPF_SF_IP | PPF_SF_ADDR | PPF_SF_USTACK);
	uint32_t stack_id = 0;
	uint64_t late;
	int rc;

	if (s->nr_stack > PPF_MAX_STACK || s->raw_sz > PPF_SEG_MAX_RAW / 8 ||
	    s->extra_sz > PPF_SEG_MAX_RAW / 8 ||
	    ((s->flags & PPF_SF_USTACK) &&
	     (s->ustack_sz > PPF_USTACK_MAX || s->nr_uregs > PPF_USTACK_MAX_REGS)))
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "sample too large");
	if (w->err)
		return w->err;
	if (!w->open || w->kind != PPF_SEG_EVENTS) {
		rc = ppf_writer_begin(w, PPF_SEG_EVENTS);
		if (rc)
			return rc;
	}
	if (s->nr_stack) {
		rc = stack_intern(w, s->stack, s->nr_stack, &stack_id);
		if (rc)
			return rc;
		flags |= PPF_SF_STACK;
	}
	size_t max_body = 12 * PPF_VARINT_MAX + s->raw_sz + s->extra_sz +
			  ((flags & PPF_SF_USTACK) ? ppf_ustk_max(s) : 0);
	if (max_body > PPF_SEG_MAX_RAW / 4)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "record too large");
	rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + max_body);
	if (!rc)
		rc = ppf_wbuf_reserve(&w->tcol, PPF_VARINT_MAX);
	if (rc)
		return ppf_writer_fail(w, rc, "segment");
	if (s->period != 1)
		flags |= PPF_SF_PERIOD;
	if (s->extra_sz)
		flags |= PPF_SF_EXTRA;
	const uint8_t *prev = NULL;
	if (s->raw_sz || (s->flags & PPF_SF_RAW)) {
		flags |= PPF_SF_RAW;
		prev = xor_prev(w, ppf_xor_key(true, s->id, s->cpu), s->raw_sz);
		if (prev)
			flags |= PPF_SF_RAW_XOR;
	}
	rc = cpu_time_grow(w, s->cpu);
	if (rc)
		return rc;
	uint64_t delta = time_delta(w, s->time_ns, s->cpu, &late);
	if (late || (s->flags & PPF_SF_LATE)) {
		flags |= PPF_SF_LATE;
		late += s->late_ns;
		w->totals.nr_late++;
	}
	uint8_t *rec = w->seg.data + w->seg.len;
	uint8_t *body = rec + 2, *p = body;
	w->tcol.len = (size_t)(put_varint(w->tcol.data + w->tcol.len, delta) - w->tcol.data);
	p = put_varint(p, flags);
	p = put_varint(p, s->id);
	p = put_varint(p, s->cpu);
	p = put_varint(p, s->pid);
	p = put_varint(p, s->tid);
	if (flags & PPF_SF_PERIOD)
		p = put_varint(p, s->period);
	if (flags & PPF_SF_LATE)
		p = put_varint(p, late);
	if (flags & PPF_SF_IP)
		p = put_varint(p, s->ip);
	if (flags & PPF_SF_ADDR)
		p = put_varint(p, s->addr);
	if (flags & PPF_SF_STACK)
		p = put_varint(p, stack_id);
	if (flags & PPF_SF_EXTRA) {
		p = put_varint(p, s->extra_sz);
		memcpy(p, s->extra, s->extra_sz);
		p += s->extra_sz;
	}
	if (flags & PPF_SF_RAW) {
		p = put_varint(p, s->raw_sz);
		if (prev)
			ppf_xor(p, s->raw, prev, s->raw_sz);
		else if (s->raw_sz)
			memcpy(p, s->raw, s->raw_sz);
		p += s->raw_sz;
	}
	if (flags & PPF_SF_USTACK) {
		long n;

		if (w->ustk_gen != w->gen) {	/* a new segment: no base */
			ppf_ustk_reset(&w->ustk);
			w->ustk_gen = w->gen;
		}
		n = ppf_ustk_encode(&w->ustk, s, true, p);
		if (n < 0)
			return ppf_writer_fail(w, (int)n, "stack copy table");
		p += n;
		w->ustk_bytes += s->ustack_sz;
	}
	size_t blen = (size_t)(p - body);
	rec[0] = PPF_REC_SAMPLE;
	if (blen < 0x80) {
		rec[1] = (uint8_t)blen;
	} else {
		uint8_t len[PPF_VARINT_MAX];
		size_t vl = (size_t)(put_varint(len, blen) - len);
		memmove(rec + 1 + vl, body, blen);
		memcpy(rec + 1, len, vl);
		body = rec + 1 + vl;
	}
	if (flags & PPF_SF_RAW) {
		rc = xor_remember(w, ppf_xor_key(true, s->id, s->cpu), s->raw, s->raw_sz);
		if (rc)
			return rc;
	}
	w->seg.len = (size_t)(body - w->seg.data) + blen;
	w->nr_samples++;
	w->totals.nr_samples++;
	return ppf_writer_rec_done(w);
}

int ppf_write_comm(struct ppf_writer *w, const struct ppf_comm *c)
{
	int rc = timed_begin(w, PPF_SEG_EVENTS, 4 * PPF_VARINT_MAX + ppf_str_sz(c->comm), c->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, c->pid);
	wb_varint(&w->body, c->tid);
	wb_varint(&w->body, c->exec);
	wb_str(&w->body, c->comm);
	return ppf_writer_rec_end(w, PPF_REC_COMM);
}

static int write_task_event(struct ppf_writer *w, const struct ppf_task_event *f, uint8_t type)
{
	int rc = timed_begin(w, PPF_SEG_EVENTS, 5 * PPF_VARINT_MAX, f->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, f->pid);
	wb_varint(&w->body, f->ppid);
	wb_varint(&w->body, f->tid);
	wb_varint(&w->body, f->ptid);
	return ppf_writer_rec_end(w, type);
}

int ppf_write_fork(struct ppf_writer *w, const struct ppf_task_event *f)
{
	return write_task_event(w, f, PPF_REC_FORK);
}

int ppf_write_exit(struct ppf_writer *w, const struct ppf_task_event *e)
{
	return write_task_event(w, e, PPF_REC_EXIT);
}

int ppf_write_mmap(struct ppf_writer *w, const struct ppf_mmap *m)
{
	if (m->build_id_sz > 64)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "build id");
	/* snapshot maps go with the metadata; later ones with the events */
	int rc = timed_begin(w, snapshot_kind(w),
			     10 * PPF_VARINT_MAX + m->build_id_sz + ppf_str_sz(m->path), m->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, m->pid);
	wb_varint(&w->body, m->tid);
	wb_varint(&w->body, m->addr);
	wb_varint(&w->body, m->len);
	wb_varint(&w->body, m->pgoff);
	wb_varint(&w->body, m->prot);
	wb_varint(&w->body, m->flags);
	wb_varint(&w->body, m->build_id_sz);
	wb_bytes(&w->body, m->build_id, m->build_id_sz);
	wb_str(&w->body, m->path);
	return ppf_writer_rec_end(w, PPF_REC_MMAP);
}

int ppf_write_lost(struct ppf_writer *w, const struct ppf_lost *l)
{
	int rc = timed_begin(w, PPF_SEG_EVENTS, 4 * PPF_VARINT_MAX, l->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, l->cpu);
	wb_varint(&w->body, l->id);
	wb_varint(&w->body, l->count);
	return ppf_writer_rec_end(w, PPF_REC_LOST);
}

/*
 * COUNTER (docs/capture-format.md): cpu+1, tid+1 (0: every), flags, enabled,
 * gap, nr, then nr x (id << 2 | mode, value).  Counters are cumulative, so
 * each is coded against its previous reading in the segment: enabled as its
 * distance to the time since then (flag bit 0), a value as its difference
 * (mode 1) or as that difference's distance to enabled's (mode 2: clocks such
 * as the cpu-clock leader), whichever is shorter.  At a 1 ms period a reading
 * is a few one-byte numbers instead of growing 5-byte ones.
 */
int ppf_write_counter(struct ppf_writer *w, const struct ppf_counter *c)
{
	struct ppf_ctr_slot *first;
	uint64_t flags = 0, t;
	int rc;

	if (!c->nr || c->nr > PPF_COUNTER_MAX)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "counter record");
	rc = timed_begin(w, PPF_SEG_EVENTS, (6 + 2 * (size_t)c->nr) * PPF_VARINT_MAX, c->time_ns);
	if (rc)
		return rc;
	t = w->last_ns;			/* as stored: a reader knows this one */
	first = ppf_ctrtab_find(&w->ctr, c->v[0].id, c->cpu, c->tid);
	if (first && c->enabled >= first->enabled && c->running >= first->running &&
	    t >= first->time)
		flags |= 1;
	wb_varint(&w->body, c->cpu + 1);
	wb_varint(&w->body, c->tid + 1);
	wb_varint(&w->body, flags);
	if (flags) {
		uint64_t den = c->enabled - first->enabled;

		wb_varint(&w->body, zigzag((int64_t)(den - (t - first->time))));
		/* running as its distance to enabled: 0 unless the kernel multiplexed */
		wb_varint(&w->body, zigzag((int64_t)(den - (c->running - first->running))));
	} else {
		wb_varint(&w->body, c->enabled);
		wb_varint(&w->body, zigzag((int64_t)(c->enabled - c->running)));
	}
	wb_varint(&w->body, c->nr);
	for (uint32_t i = 0; i < c->nr; i++) {
		const struct ppf_counter_val *v = &c->v[i];
		struct ppf_ctr_slot *e = ppf_ctrtab_find(&w->ctr, v->id, c->cpu, c->tid);
		uint64_t mode = 0, out = v->value;

		if (e && v->value >= e->value) {
			uint64_t dv = v->value - e->value;

			mode = 1;
			out = dv;
			if (c->enabled >= e->enabled) {
				uint64_t z = zigzag((int64_t)(dv - (c->enabled - e->enabled)));

				if (pp_wire_varint_len(z) < pp_wire_varint_len(dv)) {
					mode = 2;
					out = z;
				}
			}
		}
		wb_varint(&w->body, (uint64_t)v->id << 2 | mode);
		wb_varint(&w->body, out);
		if (!e && !(e = ppf_ctrtab_add(&w->ctr, v->id, c->cpu, c->tid, &rc)) && rc)
			return ppf_writer_fail(w, rc, "counter table");
		if (e) {
			e->value = v->value;
			e->enabled = c->enabled;
			e->running = c->running;
			e->time = t;
		}
	}
	return ppf_writer_rec_end(w, PPF_REC_COUNTER);
}

int ppf_write_time_sync(struct ppf_writer *w, const struct ppf_time_sync *s)
{
	int rc = timed_begin(w, snapshot_kind(w), 2 * PPF_VARINT_MAX, s->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, s->realtime_ns);
	return ppf_writer_rec_end(w, PPF_REC_TIME_SYNC);
}

int ppf_write_sideband(struct ppf_writer *w, const struct ppf_sideband *s)
{
	if (s->size > PPF_SEG_MAX_RAW / 8)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "sideband record");
	int rc = timed_begin(w, PPF_SEG_EVENTS, 6 * PPF_VARINT_MAX + s->size, s->time_ns);

	if (rc)
		return rc;
	wb_varint(&w->body, s->perf_type);
	wb_varint(&w->body, s->cpu);
	wb_varint(&w->body, s->size);
	wb_bytes(&w->body, s->data, s->size);
	wb_varint(&w->body, s->pid);
	wb_varint(&w->body, s->tid);
	return ppf_writer_rec_end(w, PPF_REC_SIDEBAND);
}
