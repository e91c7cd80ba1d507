/* SPDX-License-Identifier: MIT */
/*
 * test-format-spec.c - the numbers of docs/capture-format.md, checked.
 *
 * If one of these fails, either the code or the spec is wrong: change both
 * together, and think about the version number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "format/format.h"
#include "format/internal.h"
#include "tests/unit/unit.h"

static void test_spec__constants(void)
{
	CU_ASSERT_EQUAL(PPF_VERSION_MAJOR, 1);
	CU_ASSERT_EQUAL(PPF_VERSION_MINOR, 2);
	CU_ASSERT_EQUAL(memcmp(PPF_FILE_MAGIC, "\x50\x50\x43\x41\x50\x0d\x0a\x1a", 8), 0);
	CU_ASSERT_EQUAL(PPF_FILE_HDR_SZ, 64);
	CU_ASSERT_EQUAL(PPF_SEG_HDR_SZ, 64);
	CU_ASSERT_EQUAL(PPF_TRAILER_SZ, 16);
	CU_ASSERT_EQUAL(PPF_SEG_MAGIC, 0x47535050u);
	CU_ASSERT_EQUAL(PPF_TRAILER_MAGIC, 0x58495050u);
	CU_ASSERT_EQUAL(PPF_ENDIAN_TAG, 0x01020304u);
	CU_ASSERT_EQUAL(PPF_SEG_MAX_RAW, 64u << 20);
	CU_ASSERT_EQUAL(PPF_SEG_MAX_COMP, 65u << 20);
	CU_ASSERT_EQUAL(PPF_MAX_STACK, 1024);
	CU_ASSERT(PPF_SEG_META == 1 && PPF_SEG_EVENTS == 2 && PPF_SEG_KSYMS == 3 &&
		  PPF_SEG_USYMS == 4 && PPF_SEG_STATS == 5 && PPF_SEG_INDEX == 6);
	CU_ASSERT(PPF_REC_KV == 0x01 && PPF_REC_EVENT_DESC == 0x02 && PPF_REC_TASK == 0x03 &&
		  PPF_REC_KSYM == 0x04 && PPF_REC_DSO == 0x05 && PPF_REC_SYM == 0x06 &&
		  PPF_REC_STAT == 0x07 && PPF_REC_STACK == 0x08 && PPF_REC_INDEX_ENTRY == 0x09 &&
		  PPF_REC_SYSCALL == 0x0a);
	CU_ASSERT(PPF_REC_SAMPLE == 0x10 && PPF_REC_COMM == 0x11 && PPF_REC_FORK == 0x12 &&
		  PPF_REC_EXIT == 0x13 && PPF_REC_MMAP == 0x14 && PPF_REC_LOST == 0x15 &&
		  PPF_REC_TIME_SYNC == 0x16 && PPF_REC_SIDEBAND == 0x17 &&
		  PPF_REC_COUNTER == 0x18);
	CU_ASSERT(PPF_SF_PERIOD == 1 && PPF_SF_IP == 2 && PPF_SF_ADDR == 4 && PPF_SF_STACK == 8 &&
		  PPF_SF_RAW == 16 && PPF_SF_RAW_XOR == 32 && PPF_SF_EXTRA == 64 && PPF_SF_LATE == 128);
	CU_ASSERT(PPF_SEGF_ZSTD == 1 && PPF_SEGF_CPU_TIME == 2 && PPF_SEGF_DELTA_ADDR == 4 &&
		  PPF_SEGF_XOR_CPU == 8 && PPF_SEGF_TIME_COL == 16 && PPF_SEGF_USTACK_RUNS == 32);
	CU_ASSERT(PPF_FEAT_CPU_TIME == 1 && PPF_FEAT_DELTA_ADDR == 2 && PPF_FEAT_XOR_CPU == 4 &&
		  PPF_FEAT_TIME_COL == 8 && PPF_FEAT_USTACK_RUNS == 16 &&
		  PPF_FEAT_REQUIRED_KNOWN == 31);
	CU_ASSERT_EQUAL(PPF_CPU_TIME_MAX, 4096);
}

/* The byte positions of the header tables. */
static void test_spec__layout(void)
{
	uint8_t f[PPF_FILE_HDR_SZ], s[PPF_SEG_HDR_SZ];
	struct ppf_seg_hdr h = { .kind = 2, .flags = 1, .seq = 0x1122334455667788ull,
				 .first_ns = 10, .last_ns = 20, .csize = 30, .usize = 40,
				 .nr_records = 50, .nr_samples = 60, .payload_crc = 0xdeadbeef };

	ppf_file_hdr_encode(0x0102030405060708ull, f);
	CU_ASSERT_EQUAL(get_le64(f + 24),	/* this writer's */
			PPF_FEAT_CPU_TIME | PPF_FEAT_DELTA_ADDR | PPF_FEAT_XOR_CPU | PPF_FEAT_TIME_COL |
				PPF_FEAT_USTACK_RUNS);
	CU_ASSERT_EQUAL(get_le16(f + 8), 1);
	CU_ASSERT_EQUAL(get_le16(f + 10), 2);
	CU_ASSERT_EQUAL(get_le16(f + 12), 64);
	CU_ASSERT(f[16] == 0x04 && f[17] == 0x03 && f[18] == 0x02 && f[19] == 0x01);
	CU_ASSERT_EQUAL(get_le64(f + 40), 0x0102030405060708ull);
	CU_ASSERT_EQUAL(get_le32(f + 60), ppf_crc32c(0, f, 60));

	ppf_seg_hdr_encode(&h, s);
	CU_ASSERT_EQUAL(memcmp(s, "PPSG", 4), 0);
	CU_ASSERT_EQUAL(get_le16(s + 4), 2);
	CU_ASSERT_EQUAL(get_le16(s + 6), 1);
	CU_ASSERT_EQUAL(get_le64(s + 8), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(get_le64(s + 16), 10);
	CU_ASSERT_EQUAL(get_le64(s + 24), 20);
	CU_ASSERT_EQUAL(get_le32(s + 32), 30);
	CU_ASSERT_EQUAL(get_le32(s + 36), 40);
	CU_ASSERT_EQUAL(get_le32(s + 40), 50);
	CU_ASSERT_EQUAL(get_le32(s + 44), 60);
	CU_ASSERT_EQUAL(get_le32(s + 48), 0xdeadbeef);
	CU_ASSERT_EQUAL(get_le16(s + 52), 64);
	CU_ASSERT_EQUAL(get_le32(s + 60), ppf_crc32c(0, s, 60));
}

/* A record decoded by hand from the spec's tables. */
static int first_rec(const struct ppf_record *r, void *arg)
{
	*(struct ppf_record *)arg = *r;
	return 1;
}

static void test_spec__sample_bytes(void)
{
	/* SAMPLE, dt=5, flags=PERIOD|RAW, id=3, cpu=1, pid=300 (0xac 0x02), tid=301, period=997, raw 2 bytes */
	const uint8_t b[] = { 0x10, 13, 5, 0x11, 3, 1, 0xac, 0x02, 0xad, 0x02, 0xe5, 0x07, 2, 0xab, 0xcd };
	struct ppf_record r;

	CU_ASSERT_EQUAL(ppf_segment_decode(b, 1, 100, 0, first_rec, &r), PP_EBAD_RECORD);
	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 100, 0, first_rec, &r), 1);
	CU_ASSERT_EQUAL(r.time_ns, 105);
	CU_ASSERT_EQUAL(r.u.sample.id, 3);
	CU_ASSERT_EQUAL(r.u.sample.cpu, 1);
	CU_ASSERT_EQUAL(r.u.sample.pid, 300);
	CU_ASSERT_EQUAL(r.u.sample.tid, 301);
	CU_ASSERT_EQUAL(r.u.sample.period, 997);
	CU_ASSERT(r.u.sample.raw_sz == 2 && r.u.sample.raw[0] == 0xab && r.u.sample.raw[1] == 0xcd);
}

struct raws {
	uint8_t raw[8][2];
	int n;
};

static int collect_raw(const struct ppf_record *r, void *arg)
{
	struct raws *rs = arg;

	if (r->type == PPF_REC_SAMPLE && rs->n < 8 && r->u.sample.raw_sz == 2)
		memcpy(rs->raw[rs->n++], r->u.sample.raw, 2);
	return 0;
}

/*
 * RAW_XOR's base: the previous raw of the same id, and in a PPF_SEGF_XOR_CPU
 * segment of the same id on the same cpu.  The same bytes decode both ways.
 */
static void test_spec__xor_cpu(void)
{
	/* SAMPLE dt 0, flags RAW (0x10) or RAW|RAW_XOR (0x30), id 1, cpu C, pid 7, tid 7, raw 2 bytes */
	const uint8_t b[] = {
		0x10, 9, 0, 0x10, 1, 0, 7, 7, 2, 0x11, 0x22,	/* cpu 0: 11 22 */
		0x10, 9, 0, 0x10, 1, 1, 7, 7, 2, 0x33, 0x44,	/* cpu 1: 33 44 */
		0x10, 9, 0, 0x30, 1, 0, 7, 7, 2, 0x01, 0x02,	/* cpu 0, XOR 01 02 */
	};
	struct raws per_id = { 0 }, per_cpu = { 0 };

	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 0, 0, collect_raw, &per_id), 0);
	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 0, PPF_SEGF_XOR_CPU, collect_raw, &per_cpu), 0);
	CU_ASSERT_FATAL(per_id.n == 3 && per_cpu.n == 3);
	CU_ASSERT(per_id.raw[2][0] == (0x33 ^ 0x01) && per_id.raw[2][1] == (0x44 ^ 0x02));
	CU_ASSERT(per_cpu.raw[2][0] == (0x11 ^ 0x01) && per_cpu.raw[2][1] == (0x22 ^ 0x02));
	/* per cpu, a cpu without a base of its own is malformed, even when another cpu has one */
	const uint8_t c[] = {
		0x10, 9, 0, 0x10, 1, 0, 7, 7, 2, 0x11, 0x22,
		0x10, 9, 0, 0x30, 1, 1, 7, 7, 2, 0x01, 0x02,
	};
	struct raws rs = { 0 };
	CU_ASSERT_EQUAL(ppf_segment_decode(c, sizeof(c), 0, 0, collect_raw, &rs), 0);
	rs.n = 0;
	CU_ASSERT_EQUAL(ppf_segment_decode(c, sizeof(c), 0, PPF_SEGF_XOR_CPU, collect_raw, &rs),
			PP_EBAD_RECORD);
}

struct times {
	uint64_t t[8];
	int n;
};

static int collect_time(const struct ppf_record *r, void *arg)
{
	struct times *ts = arg;

	if (ts->n < 8)
		ts->t[ts->n++] = r->time_ns;
	return 0;
}

/* PPF_SEGF_CPU_TIME: a SAMPLE's dt counts from its cpu's previous SAMPLE. */
static void test_spec__cpu_time(void)
{
	/* SAMPLE body after dt: flags 0, id 1, cpu C, pid 7, tid 7; LOST: cpu 0, id 0, count 1 */
	const uint8_t b[] = {
		0x10, 6, 100, 0, 1, 0, 7, 7,		/* cpu 0, first of it: 1000 + 100 */
		0x10, 6, 50, 0, 1, 1, 7, 7,		/* cpu 1, first of it: 1100 + 50 */
		0x15, 4, 5, 0, 0, 1,			/* LOST, any record's base: 1150 + 5 */
		0x10, 6, 60, 0, 1, 0, 7, 7,		/* cpu 0: 1100 + 60 */
		0x10, 6, 20, 0, 1, 1, 7, 7,		/* cpu 1: 1150 + 20 */
		0x10, 7, 1, 0, 1, 0x88, 0x27, 7, 7,	/* cpu 5000 >= PPF_CPU_TIME_MAX: 1170 + 1 */
	};
	const uint64_t want[] = { 1100, 1150, 1155, 1160, 1170, 1171 };
	const uint64_t flat[] = { 1100, 1150, 1155, 1215, 1235, 1236 };
	struct times ts = { 0 };

	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 1000, PPF_SEGF_CPU_TIME, collect_time, &ts), 0);
	CU_ASSERT_EQUAL(ts.n, 6);
	CU_ASSERT_EQUAL(memcmp(ts.t, want, sizeof(want)), 0);
	/* the same bytes in a segment without the flag: every dt from the previous record */
	memset(&ts, 0, sizeof(ts));
	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 1000, 0, collect_time, &ts), 0);
	CU_ASSERT_EQUAL(memcmp(ts.t, flat, sizeof(flat)), 0);
	/* a cpu's sample that would go back before the previous record is malformed */
	const uint8_t back[] = {
		0x10, 6, 100, 0, 1, 0, 7, 7,		/* cpu 0: 1100 */
		0x10, 6, 50, 0, 1, 1, 7, 7,		/* cpu 1: 1150 */
		0x10, 6, 10, 0, 1, 0, 7, 7,		/* cpu 0: 1110 < 1150 */
	};
	CU_ASSERT_EQUAL(ppf_segment_decode(back, sizeof(back), 1000, PPF_SEGF_CPU_TIME, collect_time,
					   &ts), PP_EBAD_RECORD);
	/* a dt that overflows the time */
	const uint8_t big[] = { 0x10, 6, 100, 0, 1, 0, 7, 7,
				0x10, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
				0, 1, 0, 7, 7 };
	CU_ASSERT_EQUAL(ppf_segment_decode(big, sizeof(big), 1000, PPF_SEGF_CPU_TIME, collect_time,
					   &ts), PP_EBAD_RECORD);
}

struct addrs {
	uint64_t a[8];
	int n;
};

static int collect_addr(const struct ppf_record *r, void *arg)
{
	struct addrs *as = arg;

	if (as->n < 8 && (r->type == PPF_REC_KSYM || r->type == PPF_REC_SYM))
		as->a[as->n++] = r->type == PPF_REC_KSYM ? r->u.ksym.addr : r->u.sym.start;
	return 0;
}

/* PPF_SEGF_DELTA_ADDR: KSYM addr and SYM start are zigzag deltas; a DSO restarts from 0. */
static void test_spec__delta_addr(void)
{
	const uint8_t b[] = {
		0x04, 7, 0x20, 'T', 1, 'a', 0, 0, 0,	/* KSYM +16: 16 */
		0x04, 7, 0x03, 't', 1, 'b', 0, 0, 0,	/* KSYM -2 (zigzag 3): 14 */
		0x05, 8, 0, 1, 'x', 0, 1, 0, 0, 0,	/* DSO "x", 1 sym: its SYMs from 0 */
		0x06, 5, 0x0a, 1, 1, 'f', 0,		/* SYM +5: 5 */
		0x06, 5, 0x06, 1, 1, 'g', 0,		/* SYM +3: 8 */
	};
	struct addrs as = { 0 };

	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 0, PPF_SEGF_DELTA_ADDR, collect_addr, &as), 0);
	CU_ASSERT(as.n == 4 && as.a[0] == 16 && as.a[1] == 14 && as.a[2] == 5 && as.a[3] == 8);
	/* without the flag the same varints are addresses */
	memset(&as, 0, sizeof(as));
	CU_ASSERT_EQUAL(ppf_segment_decode(b, sizeof(b), 0, 0, collect_addr, &as), 0);
	CU_ASSERT(as.n == 4 && as.a[0] == 0x20 && as.a[1] == 3 && as.a[2] == 0x0a && as.a[3] == 6);
}

static int first_timed(const struct ppf_record *r, void *arg)
{
	if (r->type < PPF_REC_TIMED_FIRST)
		return 0;
	*(struct ppf_record *)arg = *r;
	return 1;
}

/* SIDEBAND: pid and tid trail the data; a file written before them has none (unknown). */
static void test_spec__sideband_task(void)
{
	/* dt 0, PERF_RECORD_KSYMBOL (17), cpu 1, 2 bytes; pid 4242 = 0x92 0x21, tid 4243 */
	const uint8_t with[] = { 0x17, 10, 0, 17, 1, 2, 0xaa, 0xbb, 0x92, 0x21, 0x93, 0x21 };
	const uint8_t without[] = { 0x17, 6, 0, 17, 1, 2, 0xaa, 0xbb };
	struct ppf_record r;

	CU_ASSERT_EQUAL(ppf_segment_decode(with, sizeof(with), 0, 0, first_timed, &r), 1);
	CU_ASSERT(r.u.sideband.perf_type == 17 && r.u.sideband.cpu == 1 && r.u.sideband.size == 2);
	CU_ASSERT(r.u.sideband.pid == 4242 && r.u.sideband.tid == 4243);
	CU_ASSERT_EQUAL(ppf_segment_decode(without, sizeof(without), 0, 0, first_timed, &r), 1);
	CU_ASSERT(r.u.sideband.data[1] == 0xbb);
	CU_ASSERT(r.u.sideband.pid == UINT32_MAX && r.u.sideband.tid == UINT32_MAX);
	/* a cut pid/tid pair is malformed, not half a task */
	const uint8_t cut[] = { 0x17, 9, 0, 17, 1, 2, 0xaa, 0xbb, 0x92, 0x21, 0x93 };	/* tid cut */
	CU_ASSERT_EQUAL(ppf_segment_decode(cut, sizeof(cut), 0, 0, first_timed, &r), PP_EBAD_RECORD);
}

struct counters {
	unsigned n;
	struct ppf_counter c[4];
	struct ppf_counter_val v[4][3];
};

static int collect_counters(const struct ppf_record *r, void *arg)
{
	struct counters *k = arg;

	if (r->type != PPF_REC_COUNTER || k->n >= 4)
		return 0;
	k->c[k->n] = r->u.counter;
	memcpy(k->v[k->n], r->u.counter.v, r->u.counter.nr * sizeof(*r->u.counter.v));
	k->c[k->n].v = k->v[k->n];
	k->n++;
	return 0;
}

/*
 * COUNTER by hand: cpu+1, tid+1, flags, enabled, gap, nr, (id<<2|mode, value)...
 * The second reading of the same group codes enabled against the time since the
 * first id's previous reading (flags 1) and each value against its own (mode 1),
 * a clock-like value against enabled's difference (mode 2); a delta whose base
 * the segment lacks is malformed.
 */
static void test_spec__counter(void)
{
	const uint8_t seg[] = {
		/* dt 0 (t 100); CPU 1 (2), every thread (0), enabled 1000, gap 0 (running
		 * 1000), 2 counters: id 3 = 500 (0xf4 0x03), id 4 = 7, absolute (mode 0) */
		0x18, 13, 0, 2, 0, 0, 0xe8, 0x07, 0, 2, 12, 0xf4, 0x03, 16, 7,
		/* dt 10 (t 110); enabled +1000: zigzag(1000 - 10) = 1980; running +600: gap
		 * zigzag(400) = 800; id 3 +20, id 4 +0 (mode 1) */
		0x18, 13, 10, 2, 0, 1, 0xbc, 0x0f, 0xa0, 0x06, 2, 13, 20, 17, 0,
		/* dt 0; thread 41 (42) on every CPU (0), id 3 absolute 9 (another key) */
		0x18, 9, 0, 0, 42, 0, 5, 0, 1, 12, 9,
		/* dt 5 (t 115); CPU 1: enabled +1005: zigzag(1000) = 2000, gap 0; id 3
		 * +1010: zigzag(1010 - 1005) = 10 (mode 2) */
		0x18, 10, 5, 2, 0, 1, 0xd0, 0x0f, 0, 1, 14, 10,
	};
	const uint8_t orphan[] = { 0x18, 9, 0, 2, 0, 1, 5, 0, 1, 13, 9 };	/* delta, no base */
	struct counters k = { 0 };

	CU_ASSERT_EQUAL(ppf_segment_decode(seg, sizeof(seg), 100, 0, collect_counters, &k), 0);
	CU_ASSERT_EQUAL_FATAL(k.n, 4);
	CU_ASSERT(k.c[0].time_ns == 100 && k.c[0].cpu == 1 && k.c[0].tid == UINT32_MAX);
	CU_ASSERT(k.c[0].enabled == 1000 && k.c[0].running == 1000 && k.c[0].nr == 2);
	CU_ASSERT(k.v[0][0].id == 3 && k.v[0][0].value == 500 && k.v[0][1].id == 4 &&
		  k.v[0][1].value == 7);
	CU_ASSERT(k.c[1].time_ns == 110 && k.c[1].enabled == 2000 && k.c[1].running == 1600);
	CU_ASSERT(k.v[1][0].value == 520 && k.v[1][1].value == 7);
	CU_ASSERT(k.c[2].cpu == UINT32_MAX && k.c[2].tid == 41 && k.v[2][0].value == 9);
	CU_ASSERT(k.c[3].time_ns == 115 && k.c[3].enabled == 3005 && k.c[3].running == 2605);
	CU_ASSERT(k.v[3][0].id == 3 && k.v[3][0].value == 1530);
	k.n = 0;
	CU_ASSERT_EQUAL(ppf_segment_decode(orphan, sizeof(orphan), 0, 0, collect_counters, &k),
			PP_EBAD_RECORD);
}

/* The writer delta-codes COUNTERs and a reader gets the values back, across segments. */
static void test_spec__writer_counter(void)
{
	int fd = memfd_create("spec", 0);
	struct ppf_writer_opts o = { .seg_max_raw = 200 };
	struct ppf_writer *w = NULL;
	struct ppf_counter_val v[2] = { { 5, 0 }, { 6, 0 } };
	struct ppf_counter c = { .cpu = 0, .tid = UINT32_MAX, .nr = 2, .v = v };
	struct ppf_reader *r = NULL;
	struct ppf_record rec;
	unsigned n = 0, bad = 0;

	CU_ASSERT_EQUAL_FATAL(ppf_writer_open_fd(fd, &o, &w), 0);
	for (unsigned i = 1; i <= 100; i++) {
		c.time_ns = i * 1000;
		c.enabled = i * 1000;
		c.running = i * 900;
		v[0].value = i * 3;
		v[1].value = i == 50 ? 1 : i * 1000 - i % 3;	/* a clock (mode 2); down once: absolute */
		CU_ASSERT_EQUAL(ppf_write_counter(w, &c), 0);
	}
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_EQUAL_FATAL(ppf_reader_open_fd(fd, 0, &r), 0);
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		if (rec.type != PPF_REC_COUNTER)
			continue;
		n++;
		const struct ppf_counter *k = &rec.u.counter;
		if (k->time_ns != n * 1000 || k->enabled != n * 1000 || k->running != n * 900 ||
		    k->nr != 2 || k->v[0].id != 5 || k->v[0].value != n * 3 || k->v[1].id != 6 ||
		    k->v[1].value != (n == 50 ? 1 : n * 1000ull - n % 3))
			bad++;
	}
	CU_ASSERT_EQUAL(n, 100);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(ppf_reader_stats(r)->nr_segments > 2);	/* the bases were reset and rebuilt */
	ppf_reader_close(r);
	close(fd);
}

struct third {
	unsigned n, want;
	uint64_t time_ns;
	uint8_t raw[150];
	uint32_t raw_sz;
};

/* SAMPLE number @want, copied: its raw lives in the decoder only during the call. */
static int third_sample(const struct ppf_record *r, void *arg)
{
	struct third *t = arg;

	if (r->type != PPF_REC_SAMPLE || ++t->n != t->want)
		return 0;
	t->time_ns = r->time_ns;
	t->raw_sz = r->u.sample.raw_sz;
	if (t->raw_sz <= sizeof(t->raw))
		memcpy(t->raw, r->u.sample.raw, t->raw_sz);
	return 1;
}

/*
 * The writer's SAMPLE bytes are the spec's: a body under 128 bytes after a
 * 1-byte length, a longer body after a 2-byte one (the writer encodes in
 * place and moves such a body up), RAW_XOR against the previous raw of the id
 * on the same cpu (PPF_SEGF_XOR_CPU), the times in the column after the
 * records (PPF_SEGF_TIME_COL).
 */
static void test_spec__writer_sample_bytes(void)
{
	const uint8_t small[] = { 0x10, 12, 0x11, 3, 1, 0xac, 0x02, 0xad, 0x02, 0xe5, 0x07, 2,
				  0xab, 0xcd };
	uint8_t big[150], rawb[2] = { 0xab, 0xcd };
	int fd = memfd_create("spec", 0);
	struct ppf_writer *w;
	struct ppf_reader *r;
	const struct ppf_segment *seg;

	for (unsigned i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1000, .id = 3, .cpu = 1,
		.pid = 300, .tid = 301, .period = 997, .raw = rawb, .raw_sz = 2 }) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1005, .id = 4, .cpu = 1,
		.pid = 7, .tid = 7, .period = 1, .raw = big, .raw_sz = 150 }) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1005, .id = 4, .cpu = 0,
		.pid = 7, .tid = 7, .period = 1, .raw = big, .raw_sz = 150 }) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1005, .id = 4, .cpu = 1,
		.pid = 7, .tid = 7, .period = 1, .raw = big, .raw_sz = 150 }) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);

	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	CU_ASSERT_FATAL(ppf_reader_next_segment(r, &seg) == 0);
	CU_ASSERT_FATAL(seg->kind == PPF_SEG_EVENTS);
	CU_ASSERT(seg->flags & PPF_SEGF_XOR_CPU);
	CU_ASSERT(seg->flags & PPF_SEGF_TIME_COL);
	CU_ASSERT(seg->flags & PPF_SEGF_USTACK_RUNS);
	const uint8_t *b = seg->data;
	/* 14 + 3 x (1 + 2 + 157), the column (4 dt) and its length (u32) */
	CU_ASSERT_EQUAL_FATAL(seg->usize, sizeof(small) + 3 * 160 + 4 + 4);
	CU_ASSERT_EQUAL(memcmp(b, small, sizeof(small)), 0);
	b += sizeof(small);
	/* flags RAW, id 4, cpu 1, pid 7, tid 7, raw_sz 150 */
	const uint8_t second[] = { 0x10, 0x9d, 0x01, 0x10, 4, 1, 7, 7, 0x96, 0x01 };
	CU_ASSERT_EQUAL(memcmp(b, second, sizeof(second)), 0);
	CU_ASSERT_EQUAL(memcmp(b + sizeof(second), big, sizeof(big)), 0);
	b += 160;
	/* flags RAW: no base on cpu 0 */
	const uint8_t third[] = { 0x10, 0x9d, 0x01, 0x10, 4, 0, 7, 7, 0x96, 0x01 };
	CU_ASSERT_EQUAL(memcmp(b, third, sizeof(third)), 0);
	CU_ASSERT_EQUAL(memcmp(b + sizeof(third), big, sizeof(big)), 0);
	b += 160;
	/* flags RAW|RAW_XOR against cpu 1's id 4: all zero */
	const uint8_t fourth[] = { 0x10, 0x9d, 0x01, 0x30, 4, 1, 7, 7, 0x96, 0x01 };
	CU_ASSERT_EQUAL(memcmp(b, fourth, sizeof(fourth)), 0);
	uint8_t zero[150] = { 0 };
	CU_ASSERT_EQUAL(memcmp(b + sizeof(fourth), zero, sizeof(zero)), 0);
	b += 160;
	/*
	 * dt 0 (the first), 5 (cpu 1's previous), 0 (cpu 0's first: from the
	 * segment's last time), 0 (cpu 1's previous); then 4, the column's length
	 */
	const uint8_t col[] = { 0, 5, 0, 0, 4, 0, 0, 0 };
	CU_ASSERT_EQUAL(memcmp(b, col, sizeof(col)), 0);

	/* and they decode back to what was written */
	for (unsigned want = 3; want <= 4; want++) {
		struct third t = { .want = want };
		CU_ASSERT_EQUAL(ppf_segment_decode(seg->data, seg->usize, seg->first_ns, seg->flags,
						   third_sample, &t), 1);
		CU_ASSERT_EQUAL(t.time_ns, 1005);
		CU_ASSERT(t.raw_sz == 150 && !memcmp(t.raw, big, 150));
	}
	ppf_reader_close(r);
	close(fd);
}

struct col_times {
	uint64_t t[4];
	uint32_t type[4];
	unsigned n;
};

static int collect_times(const struct ppf_record *r, void *arg)
{
	struct col_times *c = arg;

	if (c->n < 4) {
		c->t[c->n] = r->time_ns;
		c->type[c->n] = r->type;
	}
	c->n++;
	return 0;
}

/*
 * PPF_SEGF_TIME_COL by hand: every timed record's dt comes from the column
 * (records, column, u32 LE length), in record order; a length past the
 * payload, or a column that runs out, is malformed.
 */
static void test_spec__time_col(void)
{
	/* SAMPLE flags 0, id 1, cpu 0, pid 5, tid 6; LOST cpu 0, id 1, count 3; dt 7, 2 */
	const uint8_t seg[] = { 0x10, 5, 0, 1, 0, 5, 6, 0x15, 3, 0, 1, 3, 7, 2, 2, 0, 0, 0 };
	uint8_t bad[sizeof(seg)];
	struct col_times c = { 0 };

	CU_ASSERT_EQUAL(ppf_segment_decode(seg, sizeof(seg), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), 0);
	CU_ASSERT_EQUAL(c.n, 2);
	CU_ASSERT(c.type[0] == PPF_REC_SAMPLE && c.t[0] == 107);
	CU_ASSERT(c.type[1] == PPF_REC_LOST && c.t[1] == 109);
	memset(&c, 0, sizeof(c));	/* per-cpu times too: the LOST counts from the SAMPLE */
	CU_ASSERT_EQUAL(ppf_segment_decode(seg, sizeof(seg), 100,
					   PPF_SEGF_TIME_COL | PPF_SEGF_CPU_TIME, collect_times, &c), 0);
	CU_ASSERT(c.n == 2 && c.t[0] == 107 && c.t[1] == 109);

	memcpy(bad, seg, sizeof(seg));	/* a length past the payload: nothing is trusted */
	bad[sizeof(bad) - 4] = 15;
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(bad, sizeof(bad), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), PP_EBAD_RECORD);
	CU_ASSERT_EQUAL(c.n, 0);
	bad[sizeof(bad) - 4] = 14;	/* exactly the payload: no records, one dt of garbage */
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(bad, sizeof(bad), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), 0);
	CU_ASSERT_EQUAL(c.n, 0);

	/* a timed type this reader does not know takes its dt from the column too */
	const uint8_t unknown[] = { 0x10, 5, 0, 1, 0, 5, 6, 0x7e, 2, 0xaa, 0xbb,
				    0x15, 3, 0, 1, 3, 7, 2, 3, 3, 0, 0, 0 };
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(unknown, sizeof(unknown), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), 0);
	CU_ASSERT(c.n == 3 && c.type[1] == 0x7e && c.t[1] == 109);
	CU_ASSERT(c.type[2] == PPF_REC_LOST && c.t[2] == 112);

	/* one dt for two timed records: the second is malformed */
	const uint8_t short_col[] = { 0x10, 5, 0, 1, 0, 5, 6, 0x15, 3, 0, 1, 3, 7, 1, 0, 0, 0 };
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(short_col, sizeof(short_col), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), PP_EBAD_RECORD);
	CU_ASSERT(c.n == 1 && c.t[0] == 107);
	/* shorter than its own length field */
	const uint8_t tiny[] = { 0, 0, 0 };
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(tiny, sizeof(tiny), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), PP_EBAD_RECORD);
	CU_ASSERT_EQUAL(c.n, 0);
	/* a dt varint that runs past the column's end */
	const uint8_t cut[] = { 0x10, 5, 0, 1, 0, 5, 6, 0x87, 1, 0, 0, 0 };
	memset(&c, 0, sizeof(c));
	CU_ASSERT_EQUAL(ppf_segment_decode(cut, sizeof(cut), 100, PPF_SEGF_TIME_COL,
					   collect_times, &c), PP_EBAD_RECORD);
	CU_ASSERT_EQUAL(c.n, 0);
}

/* Records of a digest's copies, decoded. */
struct dg_recs {
	unsigned n;
	uint32_t type[8];
	uint64_t t[8];
	char comm[8][16];
};

static int dg_collect(const struct ppf_record *r, void *arg)
{
	struct dg_recs *d = arg;

	if (d->n == 8)
		return 1;
	d->type[d->n] = r->type;
	d->t[d->n] = r->time_ns;
	if (r->type == PPF_REC_COMM)
		snprintf(d->comm[d->n], sizeof(d->comm[0]), "%s", r->u.comm.comm);
	d->n++;
	return 0;
}

/*
 * Whether ppf_digest_parse() takes @b (and frees what it made); ppf_digest_check() must
 * agree, and say why not in a message holding @why (NULL: any).
 */
static bool dg_refused_why(const uint8_t *b, size_t n, const char *why)
{
	struct ppf_digest_grp *g = NULL;
	char msg[256] = "";
	size_t nr;
	int rc = ppf_digest_parse(b, n, &g, &nr);
	int crc = ppf_digest_check(b, n, msg, sizeof(msg));

	free(g);
	CU_ASSERT_EQUAL(rc, crc);
	if (rc && why && !strstr(msg, why)) {
		fprintf(stderr, "digest refused with '%s', not '%s'\n", msg, why);
		CU_FAIL("the reason");
	}
	return rc != 0;
}

static bool dg_parses(const uint8_t *b, size_t n)
{
	return !dg_refused_why(b, n, NULL);
}

/*
 * A DIGEST payload by hand: DIGEST_SEG (csize, crc, first_ns, last_ns - first_ns,
 * nr_records, nr_samples, nr_stacks, nr_copied), then the copies with dt in their
 * bodies from the entry's first_ns.  Counts that do not add up, a copy too many or
 * too few, one outside the segment's times, a SAMPLE among them, a copy before any
 * entry, and every cut of it: the digest is not to be used.
 */
static void test_spec__digest(void)
{
	const uint8_t dg[] = {
		/* csize 100, crc 0x12345678, first 1000, span 500, 5 records: 2 samples,
		 * 1 stack, 2 copies */
		0x0b, 14, 100, 0xf8, 0xac, 0xd1, 0x91, 0x01, 0xe8, 0x07, 0xf4, 0x03, 5, 2, 1, 2,
		/* COMM dt 10 (t 1010) pid 7 tid 7 exec 1 "sh" */
		0x11, 8, 10, 7, 7, 1, 2, 's', 'h', 0,
		/* EXIT dt 490 (t 1500) pid 7 ppid 1 tid 7 ptid 1 */
		0x13, 6, 0xea, 0x03, 7, 1, 7, 1,
	};
	struct ppf_seg_hdr h = { .kind = PPF_SEG_EVENTS, .first_ns = 1000, .last_ns = 1500,
				 .csize = 100, .nr_records = 5, .nr_samples = 2,
				 .payload_crc = 0x12345678 };
	struct ppf_digest_grp *g = NULL;
	struct dg_recs d = { 0 };
	uint8_t b[sizeof(dg)];
	size_t nr = 0;

	CU_ASSERT(PPF_SEG_DIGEST == 7 && PPF_REC_DIGEST_SEG == 0x0b);
	CU_ASSERT_STRING_EQUAL(ppf_kind_name(PPF_SEG_DIGEST), "digest");
	CU_ASSERT_EQUAL_FATAL(ppf_digest_parse(dg, sizeof(dg), &g, &nr), 0);
	CU_ASSERT_EQUAL_FATAL(nr, 1);
	CU_ASSERT(g[0].e.first_ns == 1000 && g[0].e.last_ns == 1500 && g[0].e.csize == 100 &&
		  g[0].e.payload_crc == 0x12345678 && g[0].e.nr_records == 5 &&
		  g[0].e.nr_samples == 2 && g[0].e.nr_stacks == 1 && g[0].e.nr_copied == 2 &&
		  g[0].data == dg + 16 && g[0].len == sizeof(dg) - 16);
	CU_ASSERT(ppf_digest_find(g, nr, &h) == &g[0]);
	CU_ASSERT_EQUAL(ppf_segment_decode(g[0].data, g[0].len, 1000, 0, dg_collect, &d), 0);
	CU_ASSERT(d.n == 2 && d.type[0] == PPF_REC_COMM && d.t[0] == 1010 &&
		  !strcmp(d.comm[0], "sh") && d.type[1] == PPF_REC_EXIT && d.t[1] == 1500);
	/* a segment that is not the one described: no entry */
	h.nr_samples = 3;
	CU_ASSERT(ppf_digest_find(g, nr, &h) == NULL);
	h.nr_samples = 2;
	h.payload_crc ^= 1;
	CU_ASSERT(ppf_digest_find(g, nr, &h) == NULL);
	h.payload_crc ^= 1;
	h.last_ns++;
	CU_ASSERT(ppf_digest_find(g, nr, &h) == NULL);
	free(g);

	/* each refusal, and the reason ppf_digest_check() gives for it */
	memcpy(b, dg, sizeof(b));
	b[14] = 0, b[15] = 3;		/* 2 + 0 + 3 = 5, but 2 copies */
	CU_ASSERT(dg_refused_why(b, sizeof(b), "entry 1: 2 copies follow it, nr_copied says 3"));
	memcpy(b, dg, sizeof(b));
	b[12] = 6;			/* 6 records != 2 + 1 + 2 */
	CU_ASSERT(dg_refused_why(b, sizeof(b),
				 "entry 1: nr_samples 2 + nr_stacks 1 + nr_copied 2 is not nr_records 6"));
	memcpy(b, dg, sizeof(b));
	b[13] = 5;			/* samples only: a skim never reads such a segment */
	b[14] = 0, b[15] = 0;
	CU_ASSERT(dg_refused_why(b, 16, "entry 1: a segment of samples only"));
	memcpy(b, dg, sizeof(b));
	b[sizeof(b) - 5] = 0x04;	/* EXIT dt 618: t 1628, after the segment's last_ns */
	CU_ASSERT(dg_refused_why(b, sizeof(b), "entry 1: copy 2 at 1628 is outside the segment's 1000..1500"));
	memcpy(b, dg, sizeof(b));
	b[16] = PPF_REC_SAMPLE;		/* a SAMPLE among the copies */
	CU_ASSERT(dg_refused_why(b, sizeof(b), "entry 1"));
	memcpy(b, dg, sizeof(b));
	b[16] = PPF_REC_STACK, b[17] = 3, b[18] = 1, b[19] = 1, b[20] = 9;	/* a STACK */
	CU_ASSERT(dg_refused_why(b, 21, "entry 1: copy 1 is a STACK, not side band"));
	CU_ASSERT(dg_refused_why(dg + 16, sizeof(dg) - 16, "before any entry"));
	for (size_t n = 1; n < sizeof(dg); n++)
		CU_ASSERT(dg_refused_why(dg, n, n < 16 ? "a record at byte 0" : "entry 1"));
	CU_ASSERT(dg_parses(dg, 0));	/* an empty digest: no entry, nothing used */
	CU_ASSERT_EQUAL(ppf_digest_check(dg, sizeof(dg), (char[8]){ 0 }, 8), 0);
}

void test_spec__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_spec__constants, "magic numbers, sizes and type codes match the spec"),
		PP_TEST(test_spec__layout, "header fields sit at the offsets the spec gives"),
		PP_TEST(test_spec__sample_bytes, "a SAMPLE encoded by hand from the spec decodes"),
		PP_TEST(test_spec__time_col, "a time column by hand: dt in record order; bad columns"),
		PP_TEST(test_spec__cpu_time, "per-cpu SAMPLE times, by hand, and their bounds"),
		PP_TEST(test_spec__delta_addr, "delta-coded KSYM and SYM addresses, by hand"),
		PP_TEST(test_spec__xor_cpu, "RAW_XOR bases per id, and per id and cpu in XOR_CPU segments, by hand"),
		PP_TEST(test_spec__writer_sample_bytes, "the writer's SAMPLE bytes: 1- and 2-byte lengths, RAW_XOR"),
		PP_TEST(test_spec__sideband_task, "SIDEBAND pid/tid, present, absent (older files) and cut"),
		PP_TEST(test_spec__counter, "COUNTER by hand: absolute, delta-coded, per key; a delta without base"),
		PP_TEST(test_spec__writer_counter, "the writer's COUNTERs read back across segments"),
		PP_TEST(test_spec__digest, "a side-band DIGEST by hand; inconsistent and cut ones are refused"),
	};
	pp_suite_add("spec", tests, PP_ARRAY_SIZE(tests));
}
