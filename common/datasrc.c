/* SPDX-License-Identifier: MIT */
/*
 * datasrc.c - perf's data source word as text (datasrc.h).
 *
 * Each part is a bit mask of alternatives, printed joined by " or " in bit
 * order; the level and the TLB keep their HIT and MISS bits for a " hit" or
 * " miss" after the names.  Worked example: 0x28100142 is mem_op LOAD (0x02
 * in bits 0..4), mem_lvl L1|HIT (0x0a in bits 5..18), mem_snoop NONE (0x02 in
 * bits 19..23) and mem_dtlb L1|HIT (0x0a in bits 26..32): "L1 hit|SNP None|TLB
 * L1 hit".  Unit tests: tests/unit/test-datasrc.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/datasrc.h"

/* The fields of union perf_mem_data_src: shift and width. */
#define DS_LVL_SHIFT 5
#define DS_LVL_BITS 14
#define DS_SNOOP_SHIFT 19
#define DS_SNOOP_BITS 5
#define DS_LOCK_SHIFT 24
#define DS_LOCK_BITS 2
#define DS_TLB_SHIFT 26
#define DS_TLB_BITS 7
#define DS_LVLNUM_SHIFT 33
#define DS_LVLNUM_BITS 4
#define DS_REMOTE_SHIFT 37
#define DS_SNOOPX_SHIFT 38
#define DS_SNOOPX_BITS 2
#define DS_BLK_SHIFT 40
#define DS_BLK_BITS 3

#define DS_HIT 0x02u			/* in mem_lvl and mem_dtlb */
#define DS_MISS 0x04u
#define DS_LOCK_NA 0x01u
#define DS_LOCK_LOCKED 0x02u
#define DS_SNOOPX_FWD 0x01u
#define DS_BLK_NA 0x01u
#define DS_BLK_DATA 0x02u
#define DS_BLK_ADDR 0x04u

static const char *const lvl_names[] = {
	"N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
/* mem_lvl_num values with a name; the others print as "L<n>" */
static const char *const lvlnum_names[16] = {
	[0x0b] = "Any cache", [0x0c] = "LFB", [0x0d] = "RAM", [0x0e] = "PMEM", [0x0f] = "N/A",
};
static const char *const snoop_names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const tlb_names[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };

/* A bounded string being built: appends are cut at the end of the buffer. */
struct ds_out {
	char *buf;
	size_t sz, len;
};

static void put(struct ds_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct ds_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->sz)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->sz - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->sz ? o->len + (size_t)n : o->sz - 1;
}

static unsigned field(uint64_t v, unsigned shift, unsigned bits)
{
	return (unsigned)(v >> shift) & ((1u << bits) - 1);
}

/* The names of the bits set in @m, joined by " or " (@sep: one was printed before). */
static int put_bits(struct ds_out *o, unsigned m, const char *const *names, size_t nr, int sep)
{
	for (size_t i = 0; m && i < nr; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		put(o, "%s%s", sep++ ? " or " : "", names[i]);
	}
	return sep;
}

/* The end of a level or TLB text: N/A when nothing was put since @start, then hit, miss. */
static void put_result(struct ds_out *o, size_t start, unsigned m)
{
	if (o->len == start)
		put(o, "N/A");
	if (m & DS_HIT)
		put(o, " hit");
	if (m & DS_MISS)
		put(o, " miss");
}

static void put_lvl(struct ds_out *o, uint64_t v)
{
	unsigned m = field(v, DS_LVL_SHIFT, DS_LVL_BITS), num = field(v, DS_LVLNUM_SHIFT, DS_LVLNUM_BITS);
	size_t start = o->len;
	int printed = 0;

	if ((v >> DS_REMOTE_SHIFT) & 1)
		put(o, "Remote ");
	printed = put_bits(o, m & ~(DS_HIT | DS_MISS), lvl_names,
			   sizeof(lvl_names) / sizeof(lvl_names[0]), 0);
	if (num) {
		put(o, "%s", printed++ ? " or " : "");
		if (lvlnum_names[num])
			put(o, "%s", lvlnum_names[num]);
		else
			put(o, "L%u", num);
	}
	put_result(o, start, m);
}

static void put_snoop(struct ds_out *o, uint64_t v)
{
	size_t start = o->len;
	int sep = put_bits(o, field(v, DS_SNOOP_SHIFT, DS_SNOOP_BITS), snoop_names,
			   sizeof(snoop_names) / sizeof(snoop_names[0]), 0);

	if (field(v, DS_SNOOPX_SHIFT, DS_SNOOPX_BITS) & DS_SNOOPX_FWD)
		put(o, "%sFwd", sep ? " or " : "");
	if (o->len == start)
		put(o, "N/A");
}

static void put_tlb(struct ds_out *o, uint64_t v)
{
	unsigned m = field(v, DS_TLB_SHIFT, DS_TLB_BITS);
	size_t start = o->len;

	put_bits(o, m & ~(DS_HIT | DS_MISS), tlb_names, sizeof(tlb_names) / sizeof(tlb_names[0]),
		 0);
	put_result(o, start, m);
}

char *pp_data_src_lvl_str(uint64_t data_src, char *buf, size_t sz)
{
	struct ds_out o = { buf, sz, 0 };

	if (sz)
		buf[0] = '\0';
	put_lvl(&o, data_src);
	return buf;
}

char *pp_data_src_str(uint64_t v, char *buf, size_t sz)
{
	struct ds_out o = { buf, sz, 0 };
	unsigned lock = field(v, DS_LOCK_SHIFT, DS_LOCK_BITS), blk = field(v, DS_BLK_SHIFT, DS_BLK_BITS);

	if (sz)
		buf[0] = '\0';
	put_lvl(&o, v);
	if (field(v, DS_SNOOP_SHIFT, DS_SNOOP_BITS)) {
		put(&o, "|SNP ");
		put_snoop(&o, v);
	}
	if (field(v, DS_TLB_SHIFT, DS_TLB_BITS)) {
		put(&o, "|TLB ");
		put_tlb(&o, v);
	}
	if (lock)
		put(&o, "|LCK %s", (lock & DS_LOCK_NA) ? "N/A" : (lock & DS_LOCK_LOCKED) ? "Yes" : "No");
	if (blk) {
		/* perf's blocking text starts with a blank: "|BLK  Data" */
		put(&o, "|BLK ");
		if (blk & DS_BLK_NA)
			put(&o, " N/A");
		if (!(blk & DS_BLK_NA) && (blk & DS_BLK_DATA))
			put(&o, " Data");
		if (!(blk & DS_BLK_NA) && (blk & DS_BLK_ADDR))
			put(&o, " Addr");
	}
	return buf;
}
