/* SPDX-License-Identifier: MIT */
/*
 * ustack.c - a SAMPLE's USTACK field: user registers and the copy of the user stack.
 *
 * Samples of one thread find most of its stack unchanged: the frames below the sampled
 * function stay where they were.  So a copy is XORed, address by address, with the thread's
 * previous copy in the segment: unchanged words become zeros that zstd takes for almost
 * nothing, and the registers become small deltas.  The bytes of the copy outside the
 * previous one are stored as they are.  In a segment flagged PPF_SEGF_USTACK_RUNS the XORed
 * part is stored as runs instead - so many bytes unchanged, so many XORed bytes -, so that
 * the unchanged words cost neither zstd's time nor the decoder's, only a copy of the base.
 * Not here: the rest of the SAMPLE (writer-events.c, decode.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "format/ustack.h"

static inline size_t tid_slot(uint32_t tid)
{
	return (size_t)((tid * 0x9e3779b1u) >> 21) & (2 * PPF_USTACK_MAX_TIDS - 1);
}

void ppf_ustk_reset(struct ppf_ustk_tab *t)
{
	t->gen++;
	t->nr = 0;
	if (t->gen == 0 && t->slot) {	/* wrapped: no stale slot may look current */
		for (size_t i = 0; i < 2 * PPF_USTACK_MAX_TIDS; i++)
			t->slot[i].gen = UINT32_MAX;
		t->gen = 1;
	}
}

void ppf_ustk_release(struct ppf_ustk_tab *t)
{
	if (t->slot) {
		for (size_t i = 0; i < 2 * PPF_USTACK_MAX_TIDS; i++) {
			free(t->slot[i].own);
			free(t->slot[i].own_regs);
		}
	}
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/*
 * The slot of @tid: its base when @base is set (NULL: none), or when @add a new one while
 * fewer than PPF_USTACK_MAX_TIDS threads hold one (NULL: the table is full).
 */
static struct ppf_ustk_slot *slot_of(struct ppf_ustk_tab *t, uint32_t tid, bool add, int *err)
{
	if (!t->slot) {
		if (!add)
			return NULL;
		t->slot = calloc(2 * PPF_USTACK_MAX_TIDS, sizeof(*t->slot));
		if (!t->slot) {
			*err = -ENOMEM;
			return NULL;
		}
		for (size_t i = 0; i < 2 * PPF_USTACK_MAX_TIDS; i++)
			t->slot[i].gen = t->gen - 1;
	}
	for (size_t i = tid_slot(tid), n = 0; n < 2 * PPF_USTACK_MAX_TIDS;
	     i = (i + 1) & (2 * PPF_USTACK_MAX_TIDS - 1), n++) {
		struct ppf_ustk_slot *sl = &t->slot[i];

		if (sl->gen != t->gen) {
			if (!add || t->nr >= PPF_USTACK_MAX_TIDS)
				return NULL;
			sl->gen = t->gen;
			sl->tid = tid;
			sl->sz = 0;
			sl->nr_regs = 0;
			sl->addr = 0;
			t->nr++;
			return sl;
		}
		if (sl->tid == tid)
			return sl;
	}
	return NULL;
}

size_t ppf_ustk_max(const struct ppf_sample *s)
{
	/* runs: at most two varints more than the bytes (put_runs()) */
	return (size_t)(6 + s->nr_uregs) * PPF_VARINT_MAX + s->ustack_sz;
}

/* [*lo, *hi): the offsets of @sl's copy that the base @b also holds; false when none */
static bool overlap(const struct ppf_ustk_slot *b, uint64_t addr, uint32_t sz, size_t *lo,
		    size_t *hi)
{
	uint64_t from, to;

	if (!b || !b->sz || !sz || addr >= b->addr + b->sz || b->addr >= addr + sz)
		return false;
	from = addr > b->addr ? addr : b->addr;
	to = addr + sz < b->addr + b->sz ? addr + sz : b->addr + b->sz;
	*lo = (size_t)(from - addr);
	*hi = (size_t)(to - addr);
	return true;
}

static uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Keep @s's copy and registers as the base of its thread's next one. */
static int remember(struct ppf_ustk_slot *sl, const struct ppf_sample *s)
{
	if (sl->cap < s->ustack_sz) {
		uint8_t *n = realloc(sl->own, s->ustack_sz);

		if (!n)
			return -ENOMEM;
		sl->own = n;
		sl->cap = s->ustack_sz;
	}
	if (!sl->own_regs) {
		sl->own_regs = malloc(PPF_USTACK_MAX_REGS * sizeof(uint64_t));
		if (!sl->own_regs)
			return -ENOMEM;
	}
	if (s->ustack_sz)
		memcpy(sl->own, s->ustack, s->ustack_sz);
	if (s->nr_uregs)
		memcpy(sl->own_regs, s->uregs, s->nr_uregs * sizeof(uint64_t));
	sl->bytes = sl->own;
	sl->regs = sl->own_regs;
	sl->sz = s->ustack_sz;
	sl->nr_regs = s->nr_uregs;
	sl->addr = s->ustack_addr;
	return 0;
}

/* How many bytes from the start of @a and @b are the same (at most @n), a word at a time. */
static size_t same_len(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	for (; i + 32 <= n; i += 32) {	/* most of a copy is the same: 32 bytes a test */
		__m128i e0 = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + i)),
					    _mm_loadu_si128((const __m128i *)(b + i)));
		__m128i e1 = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + i + 16)),
					    _mm_loadu_si128((const __m128i *)(b + i + 16)));

		if (_mm_movemask_epi8(_mm_and_si128(e0, e1)) != 0xffff)
			break;
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * The bytes from @a's start up to where RUN_MIN same bytes begin, or @n; *@same: how many
 * same bytes begin there (0 at @n).  A word at a time through what differs (a differing
 * word's equal bytes go with it, XORed to zeros).
 */
#define RUN_MIN 16
static size_t differ_len(const uint8_t *a, const uint8_t *b, size_t n, size_t *same)
{
	size_t i = 0;

	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
			i += 8;
			continue;
		}
		*same = same_len(a + i, b + i, n - i);
		if (*same >= RUN_MIN || i + *same == n)
			return i;
		i += *same;
	}
	*same = 0;
	return n;
}

/*
 * @cur against base @b (@n bytes each) as runs: (same:varint, differ:varint, differ bytes
 * XORed) until the @n bytes are covered.  Every run starts with at least RUN_MIN same bytes
 * but the first, and a last one of same bytes only, so the runs take at most @n + two
 * varints (ppf_ustk_max()).  Each byte is compared once.
 */
static uint8_t *put_runs(uint8_t *p, const uint8_t *cur, const uint8_t *b, size_t n)
{
	size_t at = 0, same = same_len(cur, b, n);

	while (at < n) {
		size_t d = 0, next = 0;

		if (at + same < n)
			d = differ_len(cur + at + same, b + at + same, n - at - same, &next);
		p = put_var(p, same);
		p = put_var(p, d);
		at += same;
		ppf_xor(p, cur + at, b + at, d);
		p += d;
		at += d;
		same = next;
	}
	return p;
}

long ppf_ustk_encode(struct ppf_ustk_tab *t, const struct ppf_sample *s, bool runs, uint8_t *out)
{
	int err = 0;
	struct ppf_ustk_slot *b = slot_of(t, s->tid, true, &err);
	uint8_t *p = out;
	size_t lo = 0, hi = 0;
	bool x;

	if (err)
		return err;
	t->owns = true;
	bool regs_base = b && b->nr_regs == s->nr_uregs;
	p = put_var(p, s->nr_uregs);
	p = put_var(p, s->uregs_abi);
	for (uint32_t i = 0; i < s->nr_uregs; i++)
		p = put_var(p, zigzag((int64_t)(s->uregs[i] - (regs_base ? b->regs[i] : 0))));
	p = put_var(p, zigzag((int64_t)(s->ustack_addr - (b ? b->addr : 0))));
	x = overlap(b, s->ustack_addr, s->ustack_sz, &lo, &hi);
	p = put_var(p, (uint64_t)s->ustack_sz << 1 | x);
	if (!x) {
		lo = hi = s->ustack_sz;
	} else if (runs) {	/* the bytes before the shared ones, the runs, the bytes after */
		memcpy(p, s->ustack, lo);
		p = put_runs(p + lo, s->ustack + lo, b->bytes + (s->ustack_addr + lo - b->addr),
			     hi - lo);
		memcpy(p, s->ustack + hi, s->ustack_sz - hi);
		p += s->ustack_sz - hi;
		goto done;
	} else {	/* the shared addresses XORed, the bytes around them as they are */
		ppf_xor(p + lo, s->ustack + lo, b->bytes + (s->ustack_addr + lo - b->addr), hi - lo);
	}
	if (lo)
		memcpy(p, s->ustack, lo);
	if (hi < s->ustack_sz)
		memcpy(p + hi, s->ustack + hi, s->ustack_sz - hi);
	p += s->ustack_sz;
done:
	if (b && remember(b, s))
		return -ENOMEM;
	return (long)(p - out);
}

/*
 * The decoder's XOR (out = out ^ base over a copy's overlap with its base: 8 KB a sample at
 * perf's default copy size, the largest per-sample cost of decoding after zstd), 32 bytes at
 * a time where the CPU has AVX2, else ppf_xor()'s 16.  The same bytes either way.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* 32 bytes at any alignment, read and written as one (may_alias: they are bytes) */
typedef uint8_t ustk_v32 __attribute__((vector_size(32), aligned(1), may_alias));

__attribute__((target("avx2"))) static void xor_avx2(uint8_t *out, const uint8_t *b, size_t n)
{
	size_t whole = n & ~(size_t)31;

	for (size_t i = 0; i < whole; i += 32)
		*(ustk_v32 *)(out + i) ^= *(const ustk_v32 *)(b + i);
	ppf_xor(out + whole, out + whole, b + whole, n - whole);
}

static void xor_base(uint8_t *out, const uint8_t *b, size_t n)
{
	static int avx2 = -1;	/* not known yet: threads that race ask the CPU each */
	int v = __atomic_load_n(&avx2, __ATOMIC_RELAXED);

	if (v < 0) {
		v = __builtin_cpu_supports("avx2") ? 1 : 0;
		__atomic_store_n(&avx2, v, __ATOMIC_RELAXED);
	}
	if (v)
		xor_avx2(out, b, n);
	else
		ppf_xor(out, out, b, n);
}
#else
static void xor_base(uint8_t *out, const uint8_t *b, size_t n)
{
	ppf_xor(out, out, b, n);
}
#endif

/* Room below a thread's copy in its image: the next copies start at a lower SP, mostly. */
#define IMAGE_BELOW 4096

/*
 * The image of @b's stack, where a copy of @sz bytes at @addr that shares [@lo, @hi) with
 * its base is decoded: the base's shared bytes at their addresses in it (copied there when
 * the base is elsewhere: the thread's first copy in the segment, stored as it is, or an image
 * too small).  A copy overlaps its base, so the image spans two copies at most, and room.
 * Return: the copy's place in the image, or NULL (no memory).
 */
static uint8_t *image_for(struct ppf_ustk_slot *b, uint64_t addr, uint64_t sz, size_t lo,
			  size_t hi)
{
	const uint8_t *base = b->bytes + (addr + lo - b->addr);
	uint64_t from = addr < b->addr ? addr : b->addr;
	uint64_t to = addr + sz > b->addr + b->sz ? addr + sz : b->addr + b->sz;
	bool covers = b->own && from >= b->own_addr && to - b->own_addr <= b->cap;

	if (covers && b->bytes == b->own + (b->addr - b->own_addr))
		return b->own + (addr - b->own_addr);	/* the base is in place */
	if (!covers) {
		uint64_t start = from > IMAGE_BELOW ? from - IMAGE_BELOW : 0;
		uint8_t *n = malloc(to - start);

		if (!n)
			return NULL;
		memcpy(n + (addr + lo - start), base, hi - lo);
		free(b->own);	/* after the copy: the base may have been in it */
		b->own = n;
		b->own_addr = start;
		b->cap = (uint32_t)(to - start);
	} else {
		memcpy(b->own + (addr + lo - b->own_addr), base, hi - lo);
	}
	return b->own + (addr - b->own_addr);
}

/*
 * A copy of @sz bytes stored as runs (ppf_ustk_encode()) into @out, which holds its base's
 * shared bytes [@lo, @hi) already (image_for()): its bytes [0, @lo) as they are, the runs'
 * differing bytes XORed into the shared ones, [@hi, @sz) as they are.
 * False when the record lies: runs past the shared bytes or the record, none that moves on.
 */
static bool get_runs(struct ppf_rbuf *r, uint8_t *out, uint64_t sz, size_t lo, size_t hi)
{
	size_t n = hi - lo, at = 0;

	if (lo > (size_t)(r->end - r->p))
		return false;
	memcpy(out, r->p, lo);
	r->p += lo;
	while (at < n) {
		uint64_t same = rb_varint(r), d;

		d = rb_varint(r);
		if (r->bad || same > n - at || d > n - at - same || !(same | d) ||
		    d > (uint64_t)(r->end - r->p))
			return false;
		at += same;
		xor_base(out + lo + at, r->p, d);
		r->p += d;
		at += d;
	}
	if (sz - hi > (uint64_t)(r->end - r->p))
		return false;
	memcpy(out + hi, r->p, sz - hi);
	r->p += sz - hi;
	return true;
}

int ppf_ustk_decode(struct ppf_ustk_tab *t, struct ppf_arena *arena, bool in_place, bool runs,
		    const uint8_t **pp, const uint8_t *end, struct ppf_sample *s)
{
	struct ppf_rbuf r = { *pp, end, false, false };
	int err = 0;
	struct ppf_ustk_slot *b = slot_of(t, s->tid, true, &err);
	uint64_t nr = rb_varint(&r), abi, v, sz;
	uint64_t *regs = NULL;
	size_t lo = 0, hi = 0;
	uint8_t *bytes;

	if (err || r.bad || nr > PPF_USTACK_MAX_REGS)
		return PP_EBAD_RECORD;
	abi = rb_varint(&r);
	bool regs_base = b && b->nr_regs == nr;
	if (nr) {
		regs = ppf_arena_alloc(arena, nr * sizeof(*regs));
		if (!regs)
			return PP_EBAD_RECORD;
	}
	for (uint64_t i = 0; i < nr; i++)
		regs[i] = (uint64_t)unzigzag(rb_varint(&r)) + (regs_base ? b->regs[i] : 0);
	s->ustack_addr = (uint64_t)unzigzag(rb_varint(&r)) + (b ? b->addr : 0);
	v = rb_varint(&r);
	sz = v >> 1;
	if (r.bad || sz > PPF_USTACK_MAX || (!runs && sz > (uint64_t)(r.end - r.p)) ||
	    s->ustack_addr > UINT64_MAX - sz)	/* no user stack ends past the address space */
		return PP_EBAD_RECORD;
	bool x = v & 1;
	if (x != overlap(b, s->ustack_addr, (uint32_t)sz, &lo, &hi))
		return PP_EBAD_RECORD;	/* an XOR without a base, or a base left unused */
	bytes = (uint8_t *)r.p;
	if (x && runs) {
		/*
		 * Decoded in the thread's image, over its base: the unchanged bytes (most of a
		 * copy) cost nothing, neither a copy nor room in the arena.
		 */
		bytes = image_for(b, s->ustack_addr, sz, lo, hi);
		if (!bytes || !get_runs(&r, bytes, sz, lo, hi))
			return PP_EBAD_RECORD;
		*pp = r.p;
		goto out;
	}
	if (sz > (uint64_t)(r.end - r.p))
		return PP_EBAD_RECORD;
	if (x && !in_place) {
		bytes = ppf_arena_alloc(arena, sz);
		if (!bytes)
			return PP_EBAD_RECORD;
		memcpy(bytes, r.p, sz);
	}
	if (x)
		xor_base(bytes + lo, b->bytes + (s->ustack_addr + lo - b->addr), hi - lo);
	*pp = r.p + sz;
out:
	s->uregs_abi = abi;
	s->uregs = regs;
	s->nr_uregs = (uint32_t)nr;
	s->ustack_sz = (uint32_t)sz;
	s->ustack = bytes;
	s->flags |= PPF_SF_USTACK;
	if (b) {
		b->bytes = bytes;
		b->regs = regs;
		b->sz = (uint32_t)sz;
		b->nr_regs = (uint32_t)nr;
		b->addr = s->ustack_addr;
	}
	return 0;
}
