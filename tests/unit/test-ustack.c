/* SPDX-License-Identifier: MIT */
/*
 * test-ustack.c - --call-graph dwarf: the USTACK field's round trip through a capture (XOR
 * bases across samples, threads and segments), hostile USTACK bodies, and the unwinder on
 * synthetic stacks and rules (a normal walk, the frame-pointer step, cycles, a stack pointer
 * outside the copy, lying rules: truncated, never a crash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze/unwind.h"
#include "common/callchain.h"
#include "common/callgraph.h"
#include "common/err.h"
#include "format/format.h"
#include "format/ustack.h"
#include "tests/unit/unit.h"

#define NR_SAMPLES 400
#define BASE 0x7ffc00001000ull

/* a fixed sequence: the LCG of POSIX's rand() example, 32 bits of state */
static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) | (rnd_state << 16);
}

struct gen {
	uint8_t stack[2][PPF_USTACK_MAX];	/* each thread's stack, top at the end */
	uint64_t regs[NR_SAMPLES][3];
	uint64_t addr[NR_SAMPLES];
	uint32_t sz[NR_SAMPLES];
	uint8_t *bytes[NR_SAMPLES];
};

/* Sample @i: thread i % 2, its stack changed near the top, sp moved a little. */
static void make_sample(struct gen *g, int i, struct ppf_sample *s)
{
	int t = i % 2;
	uint32_t depth = 512 + rnd() % 4096, sz = (i % 17 == 0) ? 0 : depth;

	sz &= ~7u;
	for (int k = 0; k < 16; k++)	/* the top few words change */
		g->stack[t][PPF_USTACK_MAX - depth + rnd() % 128] = (uint8_t)rnd();
	g->addr[i] = BASE + t * 0x100000 + PPF_USTACK_MAX - depth;
	g->sz[i] = sz;
	g->bytes[i] = g->stack[t] + PPF_USTACK_MAX - depth;
	g->regs[i][0] = g->addr[i] + 64;
	g->regs[i][1] = g->addr[i];
	g->regs[i][2] = 0x555500001000ull + rnd() % 4096;
	*s = (struct ppf_sample){
		.time_ns = 1000 + (uint64_t)i * 1000, .flags = PPF_SF_USTACK | PPF_SF_IP, .id = 1,
		.cpu = (uint32_t)t, .pid = 100, .tid = 100 + (uint32_t)t, .period = 1,
		.ip = g->regs[i][2], .uregs_abi = 2, .uregs = g->regs[i], .nr_uregs = 3,
		.ustack_sz = sz, .ustack_addr = g->addr[i], .ustack = g->bytes[i],
	};
	if (i % 3 == 0) {	/* a tracepoint's: RAW comes before USTACK */
		s->flags |= PPF_SF_RAW;
		s->raw = (const uint8_t *)g->regs[i];
		s->raw_sz = 20;
	}
}

static void test_ustack__roundtrip(void)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct ppf_writer_opts o = { .seg_max_raw = 64 << 10 };	/* many segments */
	uint8_t *want = malloc((size_t)NR_SAMPLES * 4096);
	int fd = memfd_create("cap", 0), rc, n = 0, segs = 0;
	struct ppf_writer *w;
	struct ppf_reader *r;
	struct ppf_record rec;

	CU_ASSERT_FATAL(g && want && fd >= 0);
	for (int t = 0; t < 2; t++)
		for (size_t k = 0; k < PPF_USTACK_MAX; k++)
			g->stack[t][k] = (uint8_t)rnd();
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (int i = 0; i < NR_SAMPLES; i++) {
		struct ppf_sample s;

		make_sample(g, i, &s);
		memcpy(want + (size_t)i * 4096, s.ustack, s.ustack_sz < 4096 ? s.ustack_sz : 4096);
		CU_ASSERT_EQUAL(ppf_write_sample(w, &s), 0);
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	uint64_t last_seq = UINT64_MAX;
	const struct ppf_segment *seg;
	while ((rc = ppf_reader_next(r, &rec, &seg)) == 0) {
		const struct ppf_sample *s = &rec.u.sample;

		if (rec.type != PPF_REC_SAMPLE)
			continue;
		if (seg && seg->seq != last_seq) {
			segs++;
			last_seq = seg->seq;
		}
		CU_ASSERT_FATAL(n < NR_SAMPLES);
		CU_ASSERT(s->flags & PPF_SF_USTACK);
		CU_ASSERT_EQUAL(s->nr_uregs, 3);
		CU_ASSERT_EQUAL(s->uregs_abi, 2);
		CU_ASSERT(s->nr_uregs == 3 && !memcmp(s->uregs, g->regs[n], 24));
		CU_ASSERT_EQUAL(s->ustack_addr, g->addr[n]);
		CU_ASSERT_EQUAL(s->raw_sz, n % 3 == 0 ? 20u : 0u);
		CU_ASSERT(n % 3 || (s->raw_sz == 20 && !memcmp(s->raw, g->regs[n], 20)));
		CU_ASSERT_EQUAL(s->ustack_sz, g->sz[n]);
		size_t cmp = s->ustack_sz < 4096 ? s->ustack_sz : 4096;
		if (s->ustack_sz != g->sz[n] || memcmp(s->ustack, want + (size_t)n * 4096, cmp))
			CU_FAIL("stack bytes differ");
		n++;
	}
	CU_ASSERT_EQUAL(rc, PPF_END);
	CU_ASSERT_EQUAL(n, NR_SAMPLES);
	CU_ASSERT(segs > 3);	/* the XOR table started over, and decoded alone */
	ppf_reader_close(r);
	close(fd);
	free(want);
	free(g);
}

/*
 * Copies that never change encode to a few bytes each, so the segment's raw bytes stay
 * small while the reader decodes (and keeps, until it leaves the segment) each whole copy:
 * the writer closes a segment at seg_max_raw bytes of decoded copies too.
 */
static void test_ustack__segment_bound(void)
{
	enum { NR = 80 };
	uint8_t *stack = malloc(PPF_USTACK_MAX);
	uint64_t regs[3] = { BASE + 64, BASE, 0x555500001000ull };
	struct ppf_writer_opts o = { 0 };	/* seg_max_raw: the default, 1 MiB */
	int fd = memfd_create("cap", 0), rc, n = 0, in_seg = 0, most = 0, segs = 0;
	size_t copy = PPF_USTACK_MAX & ~7u;
	uint64_t last_seq = UINT64_MAX;
	const struct ppf_segment *seg;
	struct ppf_writer *w;
	struct ppf_reader *r;
	struct ppf_record rec;

	CU_ASSERT_FATAL(stack && fd >= 0);
	for (size_t k = 0; k < PPF_USTACK_MAX; k++)
		stack[k] = (uint8_t)rnd();
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (int i = 0; i < NR; i++) {
		struct ppf_sample s = {
			.time_ns = 1000 + (uint64_t)i * 1000, .flags = PPF_SF_USTACK | PPF_SF_IP,
			.id = 1, .pid = 100, .tid = 100, .period = 1, .ip = regs[2], .uregs_abi = 2,
			.uregs = regs, .nr_uregs = 3, .ustack_sz = (uint32_t)copy, .ustack_addr = BASE,
			.ustack = stack,
		};

		CU_ASSERT_EQUAL(ppf_write_sample(w, &s), 0);
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	while ((rc = ppf_reader_next(r, &rec, &seg)) == 0) {
		if (rec.type != PPF_REC_SAMPLE)
			continue;
		if (seg && seg->seq != last_seq) {
			segs++;
			in_seg = 0;
			last_seq = seg->seq;
		}
		if (++in_seg > most)
			most = in_seg;
		if (rec.u.sample.ustack_sz != copy || memcmp(rec.u.sample.ustack, stack, copy))
			CU_FAIL("stack bytes differ");
		n++;
	}
	CU_ASSERT_EQUAL(rc, PPF_END);
	CU_ASSERT_EQUAL(n, NR);
	/* 1 MiB of decoded copies: 17 of 65528 bytes close a segment (the 17th passes it) */
	CU_ASSERT(most <= (int)((1u << 20) / copy) + 1);
	CU_ASSERT(segs >= NR / ((int)((1u << 20) / copy) + 1));
	ppf_reader_close(r);
	close(fd);
	free(stack);
}

/* Bodies the decoder must refuse, with its table as a fresh segment leaves it. */
static void test_ustack__hostile(void)
{
	static const struct { const char *what; uint8_t b[16]; size_t n; } bad[] = {
		{ "65 registers", { 65, 2 }, 2 },
		{ "XOR without a base", { 0, 0, 0, 0x11, 1, 2, 3, 4, 5, 6, 7, 8 }, 12 },
		{ "size past the record", { 0, 0, 0, 0x20, 1, 2 }, 6 },
		{ "size over 65528", { 0, 0, 0, 0xf2, 0xff, 0x07 }, 6 },
		{ "cut in a register", { 3, 2, 0x80 }, 3 },
		{ "nothing", { 0 }, 0 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ppf_ustk_tab t = { 0 };
		struct ppf_arena a = { 0 };
		struct ppf_sample s = { .tid = 7 };
		uint8_t buf[16];
		const uint8_t *p = buf;

		memcpy(buf, bad[i].b, sizeof(buf));
		ppf_ustk_reset(&t);
		int rc = ppf_ustk_decode(&t, &a, true, false, &p, buf + bad[i].n, &s);
		if (rc != PP_EBAD_RECORD)
			fprintf(stderr, "not refused: %s\n", bad[i].what);
		CU_ASSERT_EQUAL(rc, PP_EBAD_RECORD);
		ppf_ustk_release(&t);
		ppf_arena_release(&a);
	}
}

/*
 * Runs (PPF_SEGF_USTACK_RUNS) by hand: a copy, then one overlapping it with two words
 * changed, encoded both ways; each decodes to the copy, and every cut of the runs record and
 * every byte of it set to 0xff decodes to the copy or is refused - never read past its end.
 */
static int decode_pair(bool runs, const uint8_t *r1, size_t n1, const uint8_t *r2, size_t n2,
		       uint32_t tid, struct ppf_sample *out, struct ppf_arena *a,
		       struct ppf_ustk_tab *t)
{
	struct ppf_sample s = { .tid = tid };
	const uint8_t *p = r1;
	int rc;

	ppf_ustk_reset(t);
	if ((rc = ppf_ustk_decode(t, a, false, runs, &p, r1 + n1, &s)) || p != r1 + n1)
		return rc ? rc : -1;
	*out = (struct ppf_sample){ .tid = tid };
	p = r2;
	rc = ppf_ustk_decode(t, a, false, runs, &p, r2 + n2, out);
	return rc ? rc : p == r2 + n2 ? 0 : -1;
}

static void test_ustack__runs(void)
{
	static uint8_t st1[512], st2[512];
	static uint8_t rec1[1024], rec2[1024], bad[1024];
	uint64_t regs[2] = { BASE, BASE + 8 };
	struct ppf_arena a = { 0 };
	struct ppf_sample s1, s2, got;

	for (size_t i = 0; i < sizeof(st1); i++)
		st1[i] = (uint8_t)rnd();
	memcpy(st2, st1 + 64, sizeof(st2) - 64);	/* the next copy: 64 bytes deeper */
	st2[40] ^= 0x5a;
	st2[300] ^= 0x01;
	s1 = (struct ppf_sample){ .tid = 9, .uregs_abi = 2, .uregs = regs, .nr_uregs = 2,
				  .ustack_sz = sizeof(st1), .ustack_addr = BASE, .ustack = st1 };
	s2 = s1;
	s2.ustack_addr = BASE + 64;
	s2.ustack = st2;
	for (int runs = 0; runs < 2; runs++) {
		struct ppf_ustk_tab w = { 0 }, t = { 0 };
		long n1, n2;

		ppf_ustk_reset(&w);
		n1 = ppf_ustk_encode(&w, &s1, runs, rec1);
		n2 = ppf_ustk_encode(&w, &s2, runs, rec2);
		CU_ASSERT_FATAL(n1 > 0 && n2 > 0 && (size_t)n2 <= ppf_ustk_max(&s2));
		if (runs)	/* two changed bytes and the 64 not shared: far below the copy */
			CU_ASSERT(n2 < 100);
		CU_ASSERT_EQUAL(decode_pair(runs, rec1, (size_t)n1, rec2, (size_t)n2, 9, &got, &a, &t),
				0);
		CU_ASSERT(got.ustack_sz == sizeof(st2) && got.ustack_addr == BASE + 64 &&
			  !memcmp(got.ustack, st2, sizeof(st2)));
		for (long cut = 0; runs && cut < n2; cut++) {
			memcpy(bad, rec2, (size_t)cut);
			CU_ASSERT_NOT_EQUAL(decode_pair(true, rec1, (size_t)n1, bad, (size_t)cut, 9,
							&got, &a, &t), 0);
		}
		for (long i = 0; runs && i < n2; i++) {
			memcpy(bad, rec2, (size_t)n2);
			bad[i] = 0xff;
			if (decode_pair(true, rec1, (size_t)n1, bad, (size_t)n2, 9, &got, &a, &t) == 0)
				CU_ASSERT(got.ustack_sz <= PPF_USTACK_MAX);
		}
		ppf_ustk_release(&w);
		ppf_ustk_release(&t);
	}
	ppf_arena_release(&a);
}

/*
 * A runs segment decodes each thread's copies in an image of its stack, over the last copy:
 * the stack pointer going down past the image's room (it grows, the base moved along), up
 * again, a thread's first copy stored as it is (its base copied in), two threads in turn.
 * Every copy decodes to its bytes, and the other thread's last one stays as it was.
 */
static void test_ustack__image(void)
{
	enum { SPAN = 24 << 10, NR = 120 };
	static uint8_t mem[2][SPAN], want[2][SPAN];
	uint8_t *seg = malloc((size_t)NR * (SPAN + 64)), *rec = seg;	/* a segment's records */
	const uint64_t top[2] = { BASE + 0x100000, BASE + 0x300000 };
	struct ppf_ustk_tab w = { 0 }, t = { 0 };
	struct ppf_sample last[2] = { { 0 } };
	uint32_t last_sz[2] = { 0 };
	struct ppf_arena a = { 0 };
	uint64_t regs[2] = { 0 };
	int grew = 0;

	CU_ASSERT_FATAL(seg != NULL);
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < SPAN; i++)
			mem[k][i] = (uint8_t)rnd();
	ppf_ustk_reset(&w);
	ppf_ustk_reset(&t);
	for (int i = 0; i < NR; i++) {
		int k = i % 2;
		/* deeper and deeper to a copy of 20 KB (past IMAGE_BELOW), then shallow again */
		uint32_t depth = i < 80 ? 256 + (uint32_t)i * 256 : 512 + rnd() % 2048;
		uint64_t addr = top[k] - depth;
		struct ppf_sample s = { .tid = 50 + (uint32_t)k, .uregs_abi = 2, .uregs = regs,
					.nr_uregs = 2, .ustack_sz = depth, .ustack_addr = addr,
					.ustack = mem[k] + SPAN - depth }, got = { .tid = s.tid };
		const uint8_t *p = rec;
		long n;

		for (int m = 0; m < 8; m++)	/* a few words near the stack pointer change */
			mem[k][SPAN - depth + rnd() % 96] ^= (uint8_t)(1 + rnd() % 255);
		n = ppf_ustk_encode(&w, &s, true, rec);
		CU_ASSERT_FATAL(n > 0);
		CU_ASSERT_FATAL(ppf_ustk_decode(&t, &a, false, true, &p, rec + n, &got) == 0);
		CU_ASSERT(p == rec + n);
		rec += n;	/* the segment's bytes stay while it is read: a first copy's base */
		CU_ASSERT_FATAL(got.ustack_sz == depth && got.ustack_addr == addr);
		if (memcmp(got.ustack, s.ustack, depth))
			CU_FAIL("a copy decoded in the image differs");
		/* the other thread's last copy: untouched by this one */
		if (last_sz[!k] && memcmp(last[!k].ustack, want[!k], last_sz[!k]))
			CU_FAIL("a thread's copy changed another's");
		/* where address 0 would be: moved when the image was made anew */
		if (last_sz[k] && (uintptr_t)got.ustack - (uintptr_t)addr !=
					  (uintptr_t)last[k].ustack - (uintptr_t)last[k].ustack_addr)
			grew++;
		memcpy(want[k], got.ustack, depth);
		last[k] = got;
		last_sz[k] = depth;
	}
	CU_ASSERT(grew > 0);	/* the images moved at least once */
	/* a copy that would end past the address space is refused */
	{
		/* no registers, abi 0, the address 2^64 - 8 (zigzag(-8)), 16 bytes without XOR */
		uint8_t bad[20] = { 0, 0, 0x0f, 0x20 };
		struct ppf_sample s = { .tid = 77 };
		const uint8_t *p = bad;

		CU_ASSERT_EQUAL(ppf_ustk_decode(&t, &a, false, true, &p, bad + sizeof(bad), &s),
				PP_EBAD_RECORD);
		s = (struct ppf_sample){ .tid = 78 };
		bad[2] = 0x0e;	/* 2^64 - 16 + 16 bytes: the last ones there are */
		p = bad;
		CU_ASSERT_EQUAL(ppf_ustk_decode(&t, &a, false, true, &p, bad + sizeof(bad), &s), 0);
	}
	free(seg);
	ppf_ustk_release(&w);
	ppf_ustk_release(&t);
	ppf_arena_release(&a);
}

/* --- the unwinder ------------------------------------------------------------ */

#define FN(i) (0x401000ull + 0x100 * (i))	/* function i's code: [FN(i), FN(i) + 0x100) */

/* Function i's rule: 1 CFA = SP + 16 (RA at -8, FP same); 2 CFA = SP + 32 with FP saved at
 * -16; 3 the outermost; 4 a cycle (CFA = SP); 5 RA far outside; 6 CFA = FP + 16 */
static int test_find(void *arg, uint32_t pid, uint64_t pc, struct ana_cfi_rule *out)
{
	const int *kinds = arg;
	uint64_t i = (pc - 0x401000) / 0x100;

	(void)pid;
	if (pc < 0x401000 || i >= 8 || !kinds[i])
		return 0;
	switch (kinds[i]) {
	case 1: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_AT_CFA, ANA_REG_SAME, 16, -8, 0 }; break;
	case 2: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_AT_CFA, ANA_REG_AT_CFA, 32, -8, -16 }; break;
	case 3: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_UNDEF, ANA_REG_SAME, 8, 0, 0 }; break;
	case 4: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_AT_CFA, ANA_REG_SAME, 0, 0, 0 }; break;
	case 5: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_AT_CFA, ANA_REG_SAME, 16, 1 << 30, 0 }; break;
	case 6: *out = (struct ana_cfi_rule){ ANA_CFA_FP, ANA_REG_AT_CFA, ANA_REG_AT_CFA, 16, -8, -16 }; break;
	case 7: *out = (struct ana_cfi_rule){ ANA_CFA_SP, ANA_REG_AT_CFA, ANA_REG_AT_CFA, 16, -8, -24 }; break;
	default: return 0;
	}
	return 1;
}

static void put64(uint8_t *st, size_t off, uint64_t v)
{
	memcpy(st + off, &v, 8);
}

static void test_ustack__unwind(void)
{
	uint8_t st[256] = { 0 };
	uint64_t out[ANA_UNWIND_MAX_FRAMES];
	int kinds[8] = { 1, 2, 3 };
	struct ana_unwind_in in = { .pid = 1, .ip = FN(0) + 5, .sp = BASE, .bp = 0x1234,
				    .stack_addr = BASE, .stack = st, .stack_sz = sizeof(st) };
	bool trunc;
	uint32_t n;

	/* fn0 (CFA sp+16) <- fn1 (CFA sp+32, saved fp) <- fn2 (outermost) */
	put64(st, 8, FN(1) + 0x10);			/* fn0's return address */
	put64(st, 16 + 16, BASE + 0x80);		/* fn1's saved fp, at its CFA - 16 */
	put64(st, 16 + 24, FN(2) + 0x20);		/* fn1's return address */
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(!trunc);
	CU_ASSERT(n == 3 && out[0] == FN(0) + 5 && out[1] == FN(1) + 0x10 &&
		  out[2] == FN(2) + 0x20);

	/* an epilogue: fn0's rbp slot was popped (below sp), rbp is the caller's already */
	kinds[0] = 7;
	kinds[1] = 6;				/* fn1's CFA from rbp: it must be 0x1234's */
	in.bp = BASE + 0x40;
	put64(st, 0x40 + 8, FN(2) + 0x30);	/* fn1's return address at rbp + 8 */
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(!trunc && n == 3 && out[2] == FN(2) + 0x30);
	kinds[0] = 1;
	kinds[1] = 2;
	in.bp = 0x1234;

	/* a cycle: fn1's rule keeps the stack pointer where it is (its RA: itself) */
	kinds[1] = 4;
	put64(st, 16, FN(1) + 0x10);
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 2);

	/* a lying rule: the return address far outside the copy */
	kinds[1] = 5;
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 2);

	/* the stack pointer outside the copy */
	kinds[1] = 2;
	in.sp = BASE - 4096;
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 1);
	in.sp = BASE + sizeof(st) - 4;	/* the return address's word half outside */
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 1);
	in.sp = BASE;

	/* no rules: frame pointers, bp -> [saved bp, ra]; a zero return address ends it */
	memset(kinds, 0, sizeof(kinds));
	memset(st, 0, sizeof(st));
	in.bp = BASE + 32;
	put64(st, 32, BASE + 96);
	put64(st, 40, FN(3));
	put64(st, 96, BASE + 160);
	put64(st, 104, FN(4));
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(!trunc && n == 3 && out[1] == FN(3) && out[2] == FN(4));

	/* no rule and rbp 0: the outermost frame, as _start marks it */
	in.bp = 0;
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(!trunc && n == 1);
	in.bp = BASE + 32;

	/* a frame-pointer loop: bp pointing at itself */
	put64(st, 32, BASE + 32);
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 2);

	/* a kernel address as a return address is no user frame */
	put64(st, 32, BASE + 96);
	put64(st, 40, 0xffffffff81000000ull);
	n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT(trunc && n == 1);
}

/* A copy of return addresses to itself: the walk stops at the bound, truncated. */
static void test_ustack__bounded(void)
{
	static uint8_t st[64 << 10];
	uint64_t out[ANA_UNWIND_MAX_FRAMES];
	int kinds[8] = { 1 };
	struct ana_unwind_in in = { .pid = 1, .ip = FN(0), .sp = BASE, .stack_addr = BASE,
				    .stack = st, .stack_sz = sizeof(st) };
	bool trunc;

	for (size_t off = 8; off < sizeof(st); off += 16)
		put64(st, off, FN(0) + 1);
	uint32_t n = ana_unwind_user(&in, test_find, kinds, out, ANA_UNWIND_MAX_FRAMES, &trunc);
	CU_ASSERT_EQUAL(n, ANA_UNWIND_MAX_FRAMES);
	CU_ASSERT(trunc);
	/* random copies and rules: never a read outside, never more than the bound */
	for (int it = 0; it < 20000; it++) {
		uint8_t small[512];
		int k[8];

		for (size_t i = 0; i < sizeof(small); i++)
			small[i] = (uint8_t)(rnd() % 5 ? 0 : rnd());
		for (size_t i = 0; i < sizeof(small); i += 8)
			if (rnd() % 3 == 0)
				put64(small, i, FN(rnd() % 8) + rnd() % 0x100);
			else if (rnd() % 4 == 0)
				put64(small, i, BASE + rnd() % 600);
		for (int i = 0; i < 8; i++)
			k[i] = (int)(rnd() % 7);
		in = (struct ana_unwind_in){ .pid = 1, .ip = FN(rnd() % 8), .sp = BASE + rnd() % 64,
					     .bp = BASE + rnd() % 600, .stack_addr = BASE,
					     .stack = small, .stack_sz = rnd() % sizeof(small) };
		n = ana_unwind_user(&in, test_find, k, out, 1 + rnd() % 64, &trunc);
		CU_ASSERT_FATAL(n >= 1 && n <= 64);
	}
}

static void test_ustack__option(void)
{
	char err[256];
	uint32_t m;

	CU_ASSERT(pp_callgraph_parse("fp", &m, err, sizeof(err)) == 0 && m == PP_CALLGRAPH_FP);
	CU_ASSERT(pp_callgraph_parse("dwarf", &m, err, sizeof(err)) == 0 && m == 8192);
	CU_ASSERT(pp_callgraph_parse("dwarf,4097", &m, err, sizeof(err)) == 0 && m == 4104);
	CU_ASSERT(pp_callgraph_parse("dwarf,65528", &m, err, sizeof(err)) == 0 && m == 65528);
	CU_ASSERT(pp_callgraph_parse("dwarf,65529", &m, err, sizeof(err)) == PP_EUSAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "65529"));
	CU_ASSERT(pp_callgraph_parse("dwarf,0", &m, err, sizeof(err)) == PP_EUSAGE);
	CU_ASSERT(pp_callgraph_parse("dwarf,12k", &m, err, sizeof(err)) == PP_EUSAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'12k'"));
	CU_ASSERT(pp_callgraph_parse("dwarf,", &m, err, sizeof(err)) == PP_EUSAGE);
	CU_ASSERT(pp_callgraph_parse("lbr", &m, err, sizeof(err)) == PP_EUSAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'lbr'"));
	CU_ASSERT(pp_callgraph_parse("dwarfish", &m, err, sizeof(err)) == PP_EUSAGE);
}

static const struct pp_test tests[] = {
	PP_TEST(test_ustack__roundtrip, "stack copies survive a capture, XORed across samples and segments"),
	PP_TEST(test_ustack__hostile, "hostile USTACK fields are malformed records"),
	PP_TEST(test_ustack__runs, "USTACK runs: both encodings round trip, cut or damaged runs refused"),
	PP_TEST(test_ustack__image, "runs decode in each thread's stack image, grown as the SP goes"),
	PP_TEST(test_ustack__segment_bound,
		"a segment closes at 1 MiB of decoded stack copies, however small they encode"),
	PP_TEST(test_ustack__unwind, "the unwinder follows rules and frame pointers, and stops on lies"),
	PP_TEST(test_ustack__bounded, "the unwinder is bounded on looping and random stacks"),
	PP_TEST(test_ustack__option, "--call-graph fp|dwarf[,SIZE] is parsed as perf's"),
};

void test_ustack__register(void)
{
	pp_suite_add("ustack", tests, sizeof(tests) / sizeof(tests[0]));
}
