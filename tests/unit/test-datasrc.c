/* SPDX-License-Identifier: MIT */
/*
 * test-datasrc.c - perf's data source word as text (common/datasrc.c), and the memory
 * fields of a PEBS sample taken from its EXTRA (analyze/mem/ldlat.c).
 *
 * The words are built from the kernel's own macros (PERF_MEM_S), so the copy of the
 * layout in datasrc.c is checked against the ABI; the texts are perf's.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "analyze/mem/mem.h"
#include "common/datasrc.h"
#include "common/log.h"
#include "tests/unit/unit.h"

static const char *src(uint64_t v)
{
	static char buf[128];

	return pp_data_src_str(v, buf, sizeof(buf));
}

static void test_datasrc__parts(void)
{
	uint64_t l1 = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, HIT) |
		      PERF_MEM_S(SNOOP, NONE) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, L2) |
		      PERF_MEM_S(TLB, HIT);
	uint64_t ram = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, LOC_RAM) | PERF_MEM_S(LVL, HIT) |
		       PERF_MEM_S(SNOOP, MISS) | PERF_MEM_S(TLB, L2) | PERF_MEM_S(TLB, MISS) |
		       PERF_MEM_S(LOCK, LOCKED);
	uint64_t remote = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) |
			  PERF_MEM_S(LVLNUM, RAM) | PERF_MEM_S(REMOTE, REMOTE) |
			  PERF_MEM_S(SNOOP, HIT) | PERF_MEM_S(SNOOPX, FWD) | PERF_MEM_S(BLK, DATA);
	char lvl[64];

	CU_ASSERT_EQUAL(l1, 0x68100142);	/* the worked example of datasrc.c, with L2 */
	CU_ASSERT_STRING_EQUAL(src(l1), "L1 hit|SNP None|TLB L1 or L2 hit");
	CU_ASSERT_STRING_EQUAL(src(ram), "Local RAM hit|SNP Miss|TLB L2 miss|LCK Yes");
	CU_ASSERT_STRING_EQUAL(src(remote), "Remote RAM hit|SNP Hit or Fwd|BLK  Data");
	CU_ASSERT_STRING_EQUAL(pp_data_src_lvl_str(ram, lvl, sizeof(lvl)), "Local RAM hit");
	/* a level number without a name, a level with its number, nothing at all */
	CU_ASSERT_STRING_EQUAL(src(PERF_MEM_S(LVLNUM, L2)), "L2");
	CU_ASSERT_STRING_EQUAL(src(PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVL, MISS) |
				   PERF_MEM_S(LVLNUM, L3)), "L3 or L3 miss");
	CU_ASSERT_STRING_EQUAL(src(0), "N/A");
	CU_ASSERT_STRING_EQUAL(src(PERF_MEM_S(LVL, HIT)), "N/A hit");
	CU_ASSERT_STRING_EQUAL(src(PERF_MEM_S(LVL, NA) | PERF_MEM_S(LOCK, NA) |
				   PERF_MEM_S(BLK, NA)), "N/A|LCK N/A|BLK  N/A");
	CU_ASSERT_STRING_EQUAL(src(PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, LFB) |
				   PERF_MEM_S(TLB, WK) | PERF_MEM_S(TLB, OS)),
			       "L1 or LFB|TLB Walker or Fault");
	/* cut at the buffer, always terminated */
	CU_ASSERT_STRING_EQUAL(pp_data_src_str(l1, lvl, 8), "L1 hit|");
}

static void test_datasrc__sample_extra(void)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct ana_evtype t = { .attr = &a, .attr_sz = sizeof(a) };
	uint64_t extra[8] = { 42, 0x68100142, 0x1234000 };
	struct pp_event ev = { .type = &t, .extra = (const uint8_t *)extra, .extra_sz = 24 };
	struct ana_mem_sample m;

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_PHYS_ADDR;
	CU_ASSERT_FATAL(ana_mem_sample_get(&ev, &m));
	CU_ASSERT_EQUAL(m.weight, 42);
	CU_ASSERT_EQUAL(m.data_src, 0x68100142);
	CU_ASSERT_EQUAL(m.phys_addr, 0x1234000);

	/* the registers first: the ABI word and one word per bit of the mask */
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	a.sample_regs_intr = 0x5;
	memcpy(extra, (uint64_t[]){ 2, 0xaa, 0xbb, 7, 0x184, 0x99000 }, 6 * 8);
	ev.extra_sz = 48;
	CU_ASSERT_FATAL(ana_mem_sample_get(&ev, &m));
	CU_ASSERT_EQUAL(m.weight, 7);
	CU_ASSERT_EQUAL(m.data_src, 0x184);
	CU_ASSERT_EQUAL(m.phys_addr, 0x99000);
	/* ABI none: no register words */
	extra[0] = 0;
	memcpy(extra + 1, (uint64_t[]){ 9, 0x144, 0x88000 }, 3 * 8);
	ev.extra_sz = 32;
	CU_ASSERT_FATAL(ana_mem_sample_get(&ev, &m));
	CU_ASSERT_EQUAL(m.weight, 9);
	CU_ASSERT_EQUAL(m.phys_addr, 0x88000);

	/* WEIGHT_STRUCT: the latency is the low 32 bits */
	a.sample_type = PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	extra[0] = (uint64_t)3 << 32 | 77;
	extra[1] = 0x144;
	ev.extra_sz = 16;
	CU_ASSERT_FATAL(ana_mem_sample_get(&ev, &m));
	CU_ASSERT_EQUAL(m.weight, 77);
	CU_ASSERT(!m.has_phys_addr);

	/* cut short: what is whole is kept; nothing recorded, or no attr: none */
	a.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	ev.extra_sz = 8;
	CU_ASSERT(ana_mem_sample_get(&ev, &m));
	CU_ASSERT(m.has_weight && !m.has_data_src);
	a.sample_type = PERF_SAMPLE_IP;
	CU_ASSERT(!ana_mem_sample_get(&ev, &m));
	t.attr = NULL;
	CU_ASSERT(!ana_mem_sample_get(&ev, &m));
}

void test_datasrc__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_datasrc__parts,
			"levels, snoops, TLB, lock and blocking as perf prints them"),
		PP_TEST(test_datasrc__sample_extra,
			"weight, data source and physical address after the registers in EXTRA"),
	};

	pp_suite_add("datasrc", tests, PP_ARRAY_SIZE(tests));
}
