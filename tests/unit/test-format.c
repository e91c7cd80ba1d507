/* SPDX-License-Identifier: MIT */
/*
 * test-format.c - the capture library: round trips, and hostile files.
 *
 * The robustness tests build one small multi-segment capture in memory
 * (memfd), then cut it at every byte offset and flip every bit of it, and
 * check that the reader reads exactly the whole, undamaged segments and
 * says where it stopped.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/format.h"
#include "format/internal.h"
#include "common/log.h"
#include "tests/unit/unit.h"

#define NR_SAMPLES 300

static int memfd(void)
{
	return memfd_create("cap", 0);
}

static void fill_sample(struct ppf_sample *s, unsigned i, uint64_t *stack, uint8_t *raw)
{
	memset(s, 0, sizeof(*s));
	s->time_ns = 1000000 + i * 1000ull;
	s->id = 1 + i % 3;
	s->cpu = i % 2;
	s->pid = 100 + i % 5;
	s->tid = s->pid;
	s->period = i % 7 == 0 ? 997 : 1;
	for (int k = 0; k < 4; k++)
		stack[k] = 0xffffffff81000000ull + (i % 4) * 0x100 + (uint64_t)k * 0x1000;
	s->stack = stack;
	s->nr_stack = i % 2 ? 4 : 0;
	for (int k = 0; k < 24; k++)
		raw[k] = (uint8_t)(k + (i % 3));
	s->raw = raw;
	s->raw_sz = 24;
}

/* Write a capture with metadata, @nr samples and side-band records into @fd. */
static void write_capture(int fd, unsigned nr, uint32_t seg_max)
{
	struct ppf_writer_opts o = { .seg_max_raw = seg_max };
	struct ppf_writer *w;
	uint64_t stack[4];
	uint8_t raw[24];

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	CU_ASSERT(ppf_write_kv(w, "hostname", "testhost") == 0);
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_TRACEPOINT, .name = "sched:sched_switch",
				    .selector = "sched:sched_switch//stack/", .filter = "",
				    .attr = "ATTR", .attr_sz = 4, .format = "name: sched_switch\n" };
	CU_ASSERT(ppf_write_event_desc(w, &d) == 0);
	CU_ASSERT(ppf_write_task(w, &(struct ppf_task){ 100, 100, 1, "init", "/sbin/init" }) == 0);
	CU_ASSERT(ppf_write_ksym(w, &(struct ppf_ksym){ 0xffffffff81000000ull, 'T', "_stext", "" }) == 0);
	for (unsigned i = 0; i < nr; i++) {
		struct ppf_sample s;
		fill_sample(&s, i, stack, raw);
		CU_ASSERT(ppf_write_sample(w, &s) == 0);
		if (i % 50 == 0)
			CU_ASSERT(ppf_write_comm(w, &(struct ppf_comm){ s.time_ns, s.pid, s.tid, 0, "worker" }) == 0);
	}
	CU_ASSERT(ppf_write_stat(w, "samples", nr) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
}

static size_t file_size(int fd)
{
	return (size_t)lseek(fd, 0, SEEK_END);
}

struct tally {
	unsigned samples, comms, kvs, descs;
	uint64_t last_ns;
	bool ordered;
};

static int read_all(int fd, unsigned flags, struct tally *t, struct ppf_read_stats *st)
{
	struct ppf_reader *r;
	struct ppf_record rec;
	int rc;

	memset(t, 0, sizeof(*t));
	t->ordered = true;
	lseek(fd, 0, SEEK_SET);
	rc = ppf_reader_open_fd(fd, flags, &r);
	if (rc) {
		ppf_reader_close(r);
		return rc;
	}
	while ((rc = ppf_reader_next(r, &rec, NULL)) == 0) {
		if (rec.time_ns) {
			if (rec.time_ns < t->last_ns)
				t->ordered = false;
			t->last_ns = rec.time_ns;
		}
		switch (rec.type) {
		case PPF_REC_SAMPLE: t->samples++; break;
		case PPF_REC_COMM: t->comms++; break;
		case PPF_REC_KV: t->kvs++; break;
		case PPF_REC_EVENT_DESC: t->descs++; break;
		}
	}
	if (st) {
		/* the problems array belongs to the reader: keep a copy */
		static struct ppf_problem probs[64];
		*st = *ppf_reader_stats(r);
		memcpy(probs, st->problems, st->nr_problems * sizeof(*probs));
		st->problems = probs;
	}
	ppf_reader_close(r);
	return rc == PPF_END ? 0 : rc;
}

static void test_ppf__roundtrip(void)
{
	int fd = memfd();
	struct ppf_reader *r;
	struct ppf_record rec;
	uint64_t stack[4];
	uint8_t raw[24];
	unsigned i = 0;

	write_capture(fd, NR_SAMPLES, 0);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	CU_ASSERT(ppf_reader_info(r)->major == PPF_VERSION_MAJOR);
	CU_ASSERT(ppf_reader_info(r)->has_index);
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		if (rec.type == PPF_REC_KV) {
			CU_ASSERT_STRING_EQUAL(rec.u.kv.key, "hostname");
			CU_ASSERT_STRING_EQUAL(rec.u.kv.value, "testhost");
		} else if (rec.type == PPF_REC_EVENT_DESC) {
			CU_ASSERT_STRING_EQUAL(rec.u.event.name, "sched:sched_switch");
			CU_ASSERT_STRING_EQUAL(rec.u.event.selector, "sched:sched_switch//stack/");
			CU_ASSERT(rec.u.event.attr_sz == 4 && !memcmp(rec.u.event.attr, "ATTR", 4));
		} else if (rec.type == PPF_REC_TASK) {
			CU_ASSERT_STRING_EQUAL(rec.u.task.cmdline, "/sbin/init");
		} else if (rec.type == PPF_REC_KSYM) {
			CU_ASSERT_STRING_EQUAL(rec.u.ksym.name, "_stext");
			CU_ASSERT_EQUAL(rec.u.ksym.type, 'T');
		} else if (rec.type == PPF_REC_SAMPLE) {
			struct ppf_sample want;
			const struct ppf_sample *got = &rec.u.sample;
			fill_sample(&want, i, stack, raw);
			CU_ASSERT_EQUAL(got->time_ns, want.time_ns);
			CU_ASSERT(got->id == want.id && got->cpu == want.cpu && got->pid == want.pid);
			CU_ASSERT_EQUAL(got->period, want.period);
			CU_ASSERT_EQUAL(got->nr_stack, want.nr_stack);
			if (got->nr_stack == want.nr_stack && want.nr_stack)
				CU_ASSERT(!memcmp(got->stack, stack, sizeof(stack)));
			CU_ASSERT(got->raw_sz == 24 && !memcmp(got->raw, raw, 24));
			CU_ASSERT(!(got->flags & PPF_SF_LATE));
			i++;
		} else if (rec.type == PPF_REC_STAT) {
			CU_ASSERT_EQUAL(rec.u.stat.value, NR_SAMPLES);
		}
	}
	CU_ASSERT_EQUAL(i, NR_SAMPLES);
	CU_ASSERT_FALSE(ppf_reader_stats(r)->truncated);
	CU_ASSERT_EQUAL(ppf_reader_stats(r)->nr_corrupt, 0);
	ppf_reader_close(r);
	close(fd);
}

static void test_ppf__sideband_and_late(void)
{
	int fd = memfd();
	struct ppf_writer *w;
	struct ppf_reader *r;
	struct ppf_record rec;
	uint8_t bid[20] = { 1, 2, 3 };
	int seen = 0;

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, NULL, &w) == 0);
	CU_ASSERT(ppf_write_time_sync(w, &(struct ppf_time_sync){ 500, 1700000000000000000ull }) == 0);
	CU_ASSERT(ppf_write_mmap(w, &(struct ppf_mmap){ 600, 7, 7, 0x400000, 0x1000, 0, 5, 2, bid, 20, "/bin/x" }) == 0);
	CU_ASSERT(ppf_write_fork(w, &(struct ppf_task_event){ 700, 8, 7, 8, 7 }) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 650, .id = 1, .pid = 8, .tid = 8, .period = 1 }) == 0);
	CU_ASSERT(ppf_write_exit(w, &(struct ppf_task_event){ 800, 8, 7, 8, 7 }) == 0);
	CU_ASSERT(ppf_write_lost(w, &(struct ppf_lost){ 900, 1, 0, 42 }) == 0);
	CU_ASSERT(ppf_write_sideband(w, &(struct ppf_sideband){ 950, 17, 0, (const uint8_t *)"abcd", 4 }) == 0);
	CU_ASSERT(ppf_write_dso(w, &(struct ppf_dso){ bid, 20, "/bin/x", 1, 0, 0x1000, 0x1000 }) == 0);
	CU_ASSERT(ppf_write_sym(w, &(struct ppf_sym){ 0x1100, 0x20, "main" }) == 0);
	CU_ASSERT(ppf_write_syscall(w, 39, "getpid") == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);

	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		seen++;
		switch (rec.type) {
		case PPF_REC_TIME_SYNC: CU_ASSERT_EQUAL(rec.u.sync.realtime_ns, 1700000000000000000ull); break;
		case PPF_REC_MMAP:
			CU_ASSERT_STRING_EQUAL(rec.u.mmap.path, "/bin/x");
			CU_ASSERT(rec.u.mmap.build_id_sz == 20 && rec.u.mmap.build_id[2] == 3);
			break;
		case PPF_REC_SAMPLE:
			/* written after a record at 700: clamped and flagged */
			CU_ASSERT_EQUAL(rec.time_ns, 700);
			CU_ASSERT(rec.u.sample.flags & PPF_SF_LATE);
			CU_ASSERT_EQUAL(rec.u.sample.late_ns, 50);
			break;
		case PPF_REC_LOST: CU_ASSERT_EQUAL(rec.u.lost.count, 42); break;
		case PPF_REC_SIDEBAND: CU_ASSERT(rec.u.sideband.size == 4 && !memcmp(rec.u.sideband.data, "abcd", 4)); break;
		case PPF_REC_SYM: CU_ASSERT_STRING_EQUAL(rec.u.sym.name, "main"); break;
		case PPF_REC_SYSCALL: CU_ASSERT_STRING_EQUAL(rec.u.syscall.name, "getpid"); break;
		case PPF_REC_EXIT: CU_ASSERT_EQUAL(rec.u.task_event.tid, 8); break;
		}
	}
	CU_ASSERT_EQUAL(seen, 10);
	ppf_reader_close(r);
	close(fd);
}

/*
 * Per-cpu sample times (PPF_SEGF_CPU_TIME): samples of three cpus merged in
 * time order, a cpu past PPF_CPU_TIME_MAX, late samples and other timed
 * records between them, over many small segments, read back exactly - and
 * again after a copy through ppf_write_record().
 */
#define CT_N 2000

struct cpu_times {
	uint64_t real[CT_N];		/* the time each sample is written with */
	uint64_t stored[CT_N];		/* what the reader must return */
	uint64_t late_ns[CT_N];		/* 0: not late */
	uint32_t cpu[CT_N];
};

static void cpu_times_expect(struct cpu_times *ct)
{
	uint64_t clk[3] = { 5000, 5300, 5700 }, prev = 0;
	uint64_t x = 88172645463325252ull;

	for (unsigned i = 0; i < CT_N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned c = 0;
		for (unsigned k = 1; k < 3; k++)	/* the cpu whose next event comes first */
			if (clk[k] < clk[c])
				c = k;
		ct->cpu[i] = i % 97 == 5 ? 5000 : c;
		/* now and then one that arrived after the reorder window: clamped */
		ct->real[i] = i % 211 == 7 ? clk[c] - 150 : clk[c];
		ct->stored[i] = ct->real[i] < prev ? prev : ct->real[i];
		ct->late_ns[i] = ct->stored[i] - ct->real[i];
		prev = ct->stored[i];
		clk[c] += 200 + x % 900;
	}
}

static void cpu_times_check(int fd, const struct cpu_times *ct)
{
	struct ppf_reader *r;
	struct ppf_record rec;
	unsigned n = 0, comms = 0, nlate = 0;

	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	CU_ASSERT(ppf_reader_info(r)->required_features ==
		  (PPF_FEAT_CPU_TIME | PPF_FEAT_DELTA_ADDR | PPF_FEAT_XOR_CPU | PPF_FEAT_TIME_COL |
		   PPF_FEAT_USTACK_RUNS));
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		if (rec.type == PPF_REC_COMM) {
			comms++;
			continue;
		}
		if (rec.type != PPF_REC_SAMPLE || n >= CT_N)
			continue;
		CU_ASSERT_EQUAL(rec.time_ns, ct->stored[n]);
		CU_ASSERT_EQUAL(rec.u.sample.cpu, ct->cpu[n]);
		CU_ASSERT_EQUAL(!!(rec.u.sample.flags & PPF_SF_LATE), ct->late_ns[n] != 0);
		CU_ASSERT_EQUAL(rec.u.sample.late_ns, ct->late_ns[n]);
		nlate += ct->late_ns[n] != 0;
		n++;
	}
	CU_ASSERT_EQUAL(n, CT_N);
	CU_ASSERT(nlate >= 3);
	CU_ASSERT_EQUAL(comms, CT_N / 100);
	CU_ASSERT_EQUAL(ppf_reader_stats(r)->nr_corrupt, 0);
	CU_ASSERT_EQUAL(ppf_reader_stats(r)->nr_problems, 0);
	ppf_reader_close(r);
}

static void test_ppf__cpu_times(void)
{
	static struct cpu_times ct;
	struct ppf_writer_opts o = { .seg_max_raw = 700 };
	struct ppf_writer *w;
	int fd = memfd(), fd2 = memfd();

	cpu_times_expect(&ct);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (unsigned i = 0; i < CT_N; i++) {
		struct ppf_sample s = { .time_ns = ct.real[i], .id = 1 + i % 2, .cpu = ct.cpu[i],
					.pid = 9, .tid = 9, .period = 1 };
		CU_ASSERT(ppf_write_sample(w, &s) == 0);
		if (i % 100 == 99)
			CU_ASSERT(ppf_write_comm(w, &(struct ppf_comm){ ct.stored[i], 9, 9, 0, "w" }) == 0);
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
	cpu_times_check(fd, &ct);

	/* copied record by record: the same records */
	struct ppf_reader *r;
	struct ppf_record rec;
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd2, &o, &w) == 0);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		CU_ASSERT(ppf_write_record(w, &rec) == 0);
	ppf_reader_close(r);
	/* a record type this writer does not know is refused, not passed through blind */
	CU_ASSERT_EQUAL(ppf_write_record(w, &(struct ppf_record){ .type = 0x7e }), PP_EBAD_RECORD);
	CU_ASSERT(ppf_writer_close(w) == 0);
	cpu_times_check(fd2, &ct);
	close(fd);
	close(fd2);
}

/* Offsets, sizes and sample counts of the segments of a whole capture. */
struct seginfo {
	uint64_t off, end;
	uint32_t samples, kind;
};

static size_t map_segments(int fd, struct seginfo *v, size_t max)
{
	struct ppf_reader *r;
	const struct ppf_segment *s;
	size_t n = 0;

	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	while (n < max && ppf_reader_next_segment(r, &s) == 0)
		v[n++] = (struct seginfo){ s->offset, s->offset + PPF_SEG_HDR_SZ + s->csize,
					   s->nr_samples, s->kind };
	ppf_reader_close(r);
	return n;
}

/*
 * Snapshot maps that fill a metadata segment go on in the next metadata segment, not in
 * an events one (a flight recorder's dump once held events segments of metadata); maps
 * after the metadata go with the events.
 */
static void test_ppf__meta_continues(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 700 };
	struct seginfo v[64];
	struct ppf_writer *w;
	int fd = memfd();
	size_t n, nr_meta = 0;

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	CU_ASSERT(ppf_writer_begin(w, PPF_SEG_META) == 0);
	for (unsigned i = 0; i < 40; i++) {
		struct ppf_mmap m = { .time_ns = 100, .pid = 7, .tid = 7, .addr = 0x400000 + i * 4096,
				      .len = 4096, .path = "/usr/lib/x86_64-linux-gnu/libexample.so" };

		CU_ASSERT(ppf_write_mmap(w, &m) == 0);
	}
	CU_ASSERT(ppf_write_time_sync(w, &(struct ppf_time_sync){ 100, 200 }) == 0);
	CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 150, .id = 1, .pid = 7,
							     .tid = 7, .period = 1 }) == 0);
	CU_ASSERT(ppf_write_mmap(w, &(struct ppf_mmap){ .time_ns = 160, .pid = 7, .tid = 7,
							 .addr = 0x800000, .len = 4096,
							 .path = "/tmp/late" }) == 0);
	CU_ASSERT(ppf_writer_close(w) == 0);
	n = map_segments(fd, v, PP_ARRAY_SIZE(v));
	CU_ASSERT_FATAL(n >= 3);
	while (nr_meta < n && v[nr_meta].kind == PPF_SEG_META)
		nr_meta++;
	CU_ASSERT(nr_meta >= 2);	/* the maps took several metadata segments */
	for (size_t i = nr_meta; i < n; i++)
		CU_ASSERT(v[i].kind != PPF_SEG_META);
	CU_ASSERT_EQUAL(v[nr_meta].kind, PPF_SEG_EVENTS);
	close(fd);
}

static void copy_prefix(int src, int dst, size_t len)
{
	static uint8_t buf[1 << 16];

	CU_ASSERT_FATAL(ftruncate(dst, 0) == 0);
	CU_ASSERT_FATAL(pread(src, buf, len, 0) == (ssize_t)len);
	CU_ASSERT_FATAL(pwrite(dst, buf, len, 0) == (ssize_t)len);
}

static void test_ppf__cut_every_byte(void)
{
	int fd = memfd(), cut = memfd();
	struct seginfo segs[256];
	size_t nseg, size;
	unsigned bad = 0;

	write_capture(fd, NR_SAMPLES, 512);
	size = file_size(fd);
	CU_ASSERT_FATAL(size < (1 << 16));
	nseg = map_segments(fd, segs, 256);
	CU_ASSERT(nseg > 10);
	for (size_t len = 0; len <= size; len++) {
		struct tally t;
		struct ppf_read_stats st;
		unsigned want = 0;
		uint64_t whole_end = PPF_FILE_HDR_SZ;

		copy_prefix(fd, cut, len);
		int rc = read_all(cut, 0, &t, &st);
		if (len < PPF_FILE_HDR_SZ) {
			if (rc == 0)
				bad++;
			continue;
		}
		for (size_t i = 0; i < nseg; i++)
			if (segs[i].end <= len) {
				want += segs[i].samples;
				whole_end = segs[i].end;
			}
		if (rc || t.samples != want || !t.ordered ||
		    (len < size && (!st.truncated || st.truncated_at != whole_end)) ||
		    (len == size && st.truncated))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	close(fd);
	close(cut);
}

static void test_ppf__flip_every_bit(void)
{
	int fd = memfd(), dam = memfd();
	struct seginfo segs[256];
	size_t nseg, size;
	unsigned bad = 0, reported = 0;
	static uint8_t orig[1 << 16];

	write_capture(fd, 120, 512);
	size = file_size(fd);
	nseg = map_segments(fd, segs, 256);
	CU_ASSERT_FATAL(pread(fd, orig, size, 0) == (ssize_t)size);
	for (size_t off = PPF_FILE_HDR_SZ; off < size; off++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct tally t;
			struct ppf_read_stats st;
			unsigned want = 120;
			int hit = -1;

			for (size_t i = 0; i < nseg; i++)
				if (off >= segs[i].off && off < segs[i].end)
					hit = (int)i;
			if (hit >= 0)
				want -= segs[hit].samples;
			orig[off] ^= (uint8_t)(1 << bit);
			CU_ASSERT_FATAL(ftruncate(dam, 0) == 0);
			CU_ASSERT_FATAL(pwrite(dam, orig, size, 0) == (ssize_t)size);
			orig[off] ^= (uint8_t)(1 << bit);
			if (read_all(dam, 0, &t, &st) || t.samples != want || !t.ordered) {
				bad++;
				continue;
			}
			if (hit >= 0) {
				/* the damaged segment is named by number and offset */
				bool named = false;
				for (size_t k = 0; k < st.nr_problems; k++)
					if (st.problems[k].offset == segs[hit].off)
						named = true;
				if (st.nr_corrupt >= 1 && named)
					reported++;
				else
					bad++;
			}
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(reported > 0);
	close(fd);
	close(dam);
}

static void test_ppf__bad_headers(void)
{
	int fd = memfd();
	struct ppf_reader *r;
	uint8_t h[PPF_FILE_HDR_SZ];

	/* empty */
	CU_ASSERT_EQUAL(ppf_reader_open_fd(fd, 0, &r), PP_EBAD_MAGIC);
	CU_ASSERT(strstr(ppf_reader_errmsg(r), "empty") != NULL);
	ppf_reader_close(r);
	/* not a capture */
	CU_ASSERT(pwrite(fd, "hello world, this is text\n", 26, 0) == 26);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_EQUAL(ppf_reader_open_fd(fd, 0, &r), PP_EBAD_MAGIC);
	ppf_reader_close(r);
	/* a newer major version is refused, naming both versions */
	ppf_file_hdr_encode(1, h);
	put_le16(h + 8, PPF_VERSION_MAJOR + 1);
	put_le32(h + 60, ppf_crc32c(0, h, 60));
	CU_ASSERT(ftruncate(fd, 0) == 0);
	CU_ASSERT(pwrite(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_EQUAL(ppf_reader_open_fd(fd, 0, &r), PP_EVERSION);
	CU_ASSERT(strstr(ppf_reader_errmsg(r), "2.2") && strstr(ppf_reader_errmsg(r), "1.2"));
	ppf_reader_close(r);
	/* unknown required feature */
	ppf_file_hdr_encode(1, h);
	put_le64(h + 24, 1ull << 40);
	put_le32(h + 60, ppf_crc32c(0, h, 60));
	CU_ASSERT(pwrite(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_EQUAL(ppf_reader_open_fd(fd, 0, &r), PP_EFEATURE);
	ppf_reader_close(r);
	/* a directory */
	int dfd = open("/", O_RDONLY);
	CU_ASSERT_EQUAL(ppf_reader_open_fd(dfd, 0, &r), -EISDIR);
	ppf_reader_close(r);
	close(dfd);
	close(fd);
}

/* A segment header whose CRC is right but whose lengths are absurd is not trusted. */
static void test_ppf__bounds(void)
{
	struct ppf_seg_hdr h = { .kind = PPF_SEG_EVENTS, .flags = PPF_SEGF_ZSTD,
				 .usize = PPF_SEG_MAX_RAW + 1, .csize = 10 };
	uint8_t b[PPF_SEG_HDR_SZ];
	struct ppf_seg_hdr out;

	ppf_seg_hdr_encode(&h, b);
	CU_ASSERT_EQUAL(ppf_seg_hdr_decode(b, &out), PP_ELIMIT);
	h.usize = 100;
	h.csize = PPF_SEG_MAX_COMP + 1;
	ppf_seg_hdr_encode(&h, b);
	CU_ASSERT_EQUAL(ppf_seg_hdr_decode(b, &out), PP_ELIMIT);
	h.csize = 50;
	h.flags = 0;	/* stored raw but csize != usize */
	ppf_seg_hdr_encode(&h, b);
	CU_ASSERT_EQUAL(ppf_seg_hdr_decode(b, &out), PP_EBAD_LENGTH);

	/* records whose inner lengths run past the segment are rejected */
	uint8_t rec[] = { PPF_REC_SAMPLE, 0x7f, 0 };
	CU_ASSERT_EQUAL(ppf_segment_decode(rec, sizeof(rec), 0, 0, NULL, NULL), PP_EBAD_RECORD);
	uint8_t s2[] = { PPF_REC_SAMPLE, 7, 0, PPF_SF_STACK, 1, 0, 1, 1, 5 };	/* undefined stack */
	CU_ASSERT_EQUAL(ppf_segment_decode(s2, sizeof(s2), 0, 0, NULL, NULL), PP_EBAD_RECORD);
	uint8_t s3[] = { PPF_REC_KV, 4, 0x80, 0x80, 0x80, 0x10 };	/* a 32 MiB string: over the limit */
	CU_ASSERT_EQUAL(ppf_segment_decode(s3, sizeof(s3), 0, 0, NULL, NULL), PP_ELIMIT);
	uint8_t s5[] = { PPF_REC_KV, 3, 0x80, 0x01, 'a' };	/* 128 bytes: longer than the body */
	CU_ASSERT_EQUAL(ppf_segment_decode(s5, sizeof(s5), 0, 0, NULL, NULL), PP_EBAD_RECORD);
	uint8_t s4[] = { PPF_REC_STACK, 3, 1, 0x90, 0x4e };	/* 10000 frames: over the cap */
	CU_ASSERT_EQUAL(ppf_segment_decode(s4, sizeof(s4), 0, 0, NULL, NULL), PP_ELIMIT);
}

static int count_unknown(const struct ppf_record *rec, void *arg)
{
	if (rec->type == 0x7e)
		(*(int *)arg)++;
	return 0;
}

/* Unknown segment kinds and unknown record types are skipped, not fatal. */
static void test_ppf__unknown_kinds(void)
{
	int fd = memfd();
	struct tally t;
	uint8_t hdr[PPF_SEG_HDR_SZ], payload[] = { 0x7e, 2, 0, 0 }, p2[] = { 1, 2, 3, 4, 5 };
	struct ppf_read_stats st;
	int n = 0;

	write_capture(fd, 10, 0);
	/* append a segment of unknown kind 42 after the trailer's position: rewrite the end */
	size_t size = file_size(fd);
	CU_ASSERT(ftruncate(fd, (off_t)size) == 0);
	struct ppf_seg_hdr h = { .kind = 42, .usize = 5, .csize = 5, .seq = 99 };
	h.payload_crc = ppf_crc32c(0, p2, 5);
	ppf_seg_hdr_encode(&h, hdr);
	/* insert it right after the file header */
	static uint8_t all[1 << 16];
	CU_ASSERT(pread(fd, all, size, 0) == (ssize_t)size);
	CU_ASSERT(ftruncate(fd, 0) == 0);
	CU_ASSERT(pwrite(fd, all, PPF_FILE_HDR_SZ, 0) == PPF_FILE_HDR_SZ);
	CU_ASSERT(pwrite(fd, hdr, sizeof(hdr), PPF_FILE_HDR_SZ) == (ssize_t)sizeof(hdr));
	CU_ASSERT(pwrite(fd, p2, 5, PPF_FILE_HDR_SZ + sizeof(hdr)) == 5);
	CU_ASSERT(pwrite(fd, all + PPF_FILE_HDR_SZ, size - PPF_FILE_HDR_SZ,
			 PPF_FILE_HDR_SZ + sizeof(hdr) + 5) == (ssize_t)(size - PPF_FILE_HDR_SZ));
	CU_ASSERT_EQUAL(read_all(fd, 0, &t, &st), 0);
	CU_ASSERT_EQUAL(t.samples, 10);
	CU_ASSERT_EQUAL(st.nr_corrupt, 0);
	CU_ASSERT_EQUAL(ppf_segment_decode(payload, sizeof(payload), 0, 0, count_unknown, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	close(fd);
}

static void test_ppf__stream(void)
{
	int p[2];
	struct tally t;
	struct ppf_read_stats st;

	CU_ASSERT_FATAL(pipe(p) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		struct ppf_writer_opts o = { .seg_max_raw = 700, .seg_max_age_ns = 1000000 };
		struct ppf_writer *w;
		uint64_t stack[4];
		uint8_t raw[24];
		if (ppf_writer_open_fd(p[1], &o, &w))
			_exit(1);
		for (unsigned i = 0; i < 1000; i++) {
			struct ppf_sample s;
			fill_sample(&s, i, stack, raw);
			if (ppf_write_sample(w, &s) || ppf_writer_tick(w))
				_exit(1);
		}
		_exit(ppf_writer_close(w) ? 1 : 0);
	}
	close(p[1]);
	CU_ASSERT_EQUAL(read_all(p[0], PPF_READ_STREAM, &t, &st), 0);
	CU_ASSERT_EQUAL(t.samples, 1000);
	CU_ASSERT(t.ordered);
	CU_ASSERT_FALSE(st.truncated);
	int status;
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p[0]);
}

static void test_ppf__seek_time(void)
{
	int fd = memfd();
	struct ppf_reader *r;
	struct ppf_record rec;
	uint64_t first = 0;
	unsigned n = 0;

	write_capture(fd, NR_SAMPLES, 512);
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	uint64_t t = 1000000 + 200 * 1000;
	CU_ASSERT(ppf_reader_seek_time(r, t) == 0);
	bool meta = false;
	while (ppf_reader_next(r, &rec, NULL) == 0) {
		if (rec.type == PPF_REC_KV)
			meta = true;	/* metadata is still delivered */
		if (rec.type == PPF_REC_SAMPLE) {
			if (!first)
				first = rec.time_ns;
			n++;
		}
	}
	CU_ASSERT(meta);
	CU_ASSERT(first <= t && first > t - 40 * 1000);	/* within one small segment */
	CU_ASSERT(n >= 100 && n < 140);
	ppf_reader_close(r);
	close(fd);
}

/* What a read hands out, in order: records (hashed), problems and stats. */
struct read_digest {
	int rc;
	uint64_t hash, records;
	struct ppf_read_stats st;
	struct ppf_problem probs[64];
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
	return h;
}

/* Read @fd with @flags; with @rewind_at, rewind after that many records and read it all. */
static void read_digest(int fd, unsigned flags, uint64_t rewind_at, struct read_digest *d)
{
	struct ppf_reader *r;
	struct ppf_record rec;

	memset(d, 0, sizeof(*d));
	d->hash = 0xcbf29ce484222325ull;
	lseek(fd, 0, SEEK_SET);
	d->rc = ppf_reader_open_fd(fd, flags, &r);
	if (d->rc) {
		ppf_reader_close(r);
		return;
	}
	for (uint64_t n = 0; rewind_at && n < rewind_at && ppf_reader_next(r, &rec, NULL) == 0; n++)
		;
	if (rewind_at)
		CU_ASSERT_FATAL(ppf_reader_rewind(r) == 0);
	while ((d->rc = ppf_reader_next(r, &rec, NULL)) == 0) {
		d->records++;
		d->hash = fnv(d->hash, &rec.type, sizeof(rec.type));
		d->hash = fnv(d->hash, &rec.time_ns, sizeof(rec.time_ns));
		d->hash = fnv(d->hash, &rec.body_sz, sizeof(rec.body_sz));
		if (rec.type == PPF_REC_SAMPLE)
			d->hash = fnv(d->hash, rec.u.sample.raw, rec.u.sample.raw_sz);
	}
	d->st = *ppf_reader_stats(r);
	memcpy(d->probs, d->st.problems, d->st.nr_problems * sizeof(*d->probs));
	d->st.problems = NULL;
	ppf_reader_close(r);
}

static bool digest_same(const struct read_digest *a, const struct read_digest *b)
{
	return a->rc == b->rc && a->hash == b->hash && a->records == b->records &&
	       !memcmp(&a->st, &b->st, sizeof(a->st)) &&
	       !memcmp(a->probs, b->probs, a->st.nr_problems * sizeof(*a->probs));
}

/*
 * PPF_READ_AHEAD hands out what a one-thread read does - records, problems, stats - on a
 * whole capture, cut at every byte, with a bit flipped at every byte, after a rewind, and
 * when seeking starts after the next segment was read ahead.
 */
static void test_ppf__read_ahead(void)
{
	int fd = memfd(), dam = memfd();
	struct read_digest a, b;
	static uint8_t orig[1 << 16];
	unsigned bad = 0;
	size_t size;

	write_capture(fd, NR_SAMPLES, 512);
	size = file_size(fd);
	CU_ASSERT_FATAL(size < sizeof(orig));
	CU_ASSERT_FATAL(pread(fd, orig, size, 0) == (ssize_t)size);
	read_digest(fd, 0, 0, &a);
	read_digest(fd, PPF_READ_AHEAD, 0, &b);
	CU_ASSERT(a.records > NR_SAMPLES);
	CU_ASSERT(digest_same(&a, &b));
	read_digest(fd, PPF_READ_AHEAD | PPF_READ_STRICT, 0, &b);
	CU_ASSERT(digest_same(&a, &b));
	read_digest(fd, PPF_READ_AHEAD, a.records / 2, &b);
	CU_ASSERT(digest_same(&a, &b));
	for (size_t len = PPF_FILE_HDR_SZ; len < size; len++) {
		copy_prefix(fd, dam, len);
		read_digest(dam, 0, 0, &a);
		read_digest(dam, PPF_READ_AHEAD, 0, &b);
		bad += !digest_same(&a, &b);
	}
	for (size_t off = PPF_FILE_HDR_SZ; off < size; off++) {
		for (unsigned flags = 0; flags <= PPF_READ_STRICT; flags++) {
			orig[off] ^= 0x10;
			CU_ASSERT_FATAL(ftruncate(dam, 0) == 0);
			CU_ASSERT_FATAL(pwrite(dam, orig, size, 0) == (ssize_t)size);
			orig[off] ^= 0x10;
			read_digest(dam, flags, 0, &a);
			read_digest(dam, flags | PPF_READ_AHEAD, 0, &b);
			bad += !digest_same(&a, &b);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);

	/* seeking set after the first records: the segment read ahead is still skipped */
	unsigned n[2] = { 0, 0 };
	for (int k = 0; k < 2; k++) {
		struct ppf_reader *r;
		struct ppf_record rec;
		lseek(fd, 0, SEEK_SET);
		CU_ASSERT_FATAL(ppf_reader_open_fd(fd, k ? PPF_READ_AHEAD : 0, &r) == 0);
		while (ppf_reader_next(r, &rec, NULL) == 0 && rec.type != PPF_REC_SAMPLE)
			;
		CU_ASSERT(ppf_reader_seek_time(r, 1000000 + 200 * 1000) == 0);
		while (ppf_reader_next(r, &rec, NULL) == 0)
			n[k] += rec.type == PPF_REC_SAMPLE;
		ppf_reader_close(r);
	}
	CU_ASSERT(n[0] < NR_SAMPLES - 100);
	CU_ASSERT_EQUAL(n[0], n[1]);
	close(fd);
	close(dam);
}

/*
 * The two ways a segment leaves the read-ahead: a payload too big for the input buffer
 * (incompressible 4 KiB raws in 1 MiB segments: read on the careful path), and one whose
 * header and CRC are good but whose zstd frame is cut short - the helper thread's
 * decompression fails, and the segment is reported as the one-thread reader reports it.
 */
static void test_ppf__read_ahead_paths(void)
{
	int fd = memfd(), dam = memfd();
	static uint8_t raw[4096], buf[1 << 20];
	struct ppf_writer_opts o = { .seg_max_raw = 1u << 20 };
	struct ppf_writer *w;
	struct read_digest a, b;
	struct seginfo segs[64];
	uint64_t x = 88172645463325252ull;
	size_t nseg, big = 0;

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (unsigned i = 0; i < 600; i++) {
		for (size_t k = 0; k < sizeof(raw); k += 8) {	/* xorshift: zstd cannot shrink it */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(raw + k, &x, 8);
		}
		CU_ASSERT(ppf_write_sample(w, &(struct ppf_sample){ .time_ns = 1000 + i, .id = 1,
			.cpu = i & 1, .pid = 7, .tid = 7, .period = 1, .raw = raw,
			.raw_sz = sizeof(raw) }) == 0);
	}
	CU_ASSERT_FATAL(ppf_writer_close(w) == 0);
	nseg = map_segments(fd, segs, 64);
	for (size_t i = 0; i < nseg; i++)
		big += segs[i].end - segs[i].off > PPF_SEG_HDR_SZ + (256u << 10);
	CU_ASSERT(big >= 2);	/* past the reader's 256 KiB input buffer */
	read_digest(fd, 0, 0, &a);
	read_digest(fd, PPF_READ_AHEAD, 0, &b);
	CU_ASSERT_EQUAL(a.records, 600);
	CU_ASSERT(digest_same(&a, &b));

	/* a zstd frame one byte short, under a header and CRC made for it */
	close(fd);
	fd = memfd();
	write_capture(fd, NR_SAMPLES, 512);
	size_t size = file_size(fd), cut = 0;
	nseg = map_segments(fd, segs, 64);
	for (size_t i = 2; i < nseg && !cut; i++)
		if (segs[i].kind == PPF_SEG_EVENTS)
			cut = i;
	CU_ASSERT_FATAL(cut && size <= sizeof(buf));
	CU_ASSERT_FATAL(pread(fd, buf, size, 0) == (ssize_t)size);
	struct ppf_seg_hdr h;
	uint8_t *hp = buf + segs[cut].off;
	CU_ASSERT_FATAL(ppf_seg_hdr_decode(hp, &h) == 0 && (h.flags & PPF_SEGF_ZSTD));
	h.csize--;
	h.payload_crc = ppf_crc32c(0, hp + PPF_SEG_HDR_SZ, h.csize);
	ppf_seg_hdr_encode(&h, hp);
	CU_ASSERT_FATAL(ftruncate(dam, 0) == 0);
	size_t head = segs[cut].off + PPF_SEG_HDR_SZ + h.csize;
	CU_ASSERT_FATAL(pwrite(dam, buf, head, 0) == (ssize_t)head);
	CU_ASSERT_FATAL(pwrite(dam, buf + head + 1, size - head - 1, (off_t)head) ==
			(ssize_t)(size - head - 1));
	read_digest(dam, 0, 0, &a);
	read_digest(dam, PPF_READ_AHEAD, 0, &b);
	CU_ASSERT(digest_same(&a, &b));
	CU_ASSERT_EQUAL(a.st.nr_corrupt, 1);
	CU_ASSERT(a.st.nr_problems == 1 && a.probs[0].err == PP_EBAD_ZSTD &&
		  a.probs[0].offset == segs[cut].off);
	CU_ASSERT_EQUAL(a.st.records_lost, h.nr_records);
	close(fd);
	close(dam);
}

/* ENOSPC-like failures: writing to a full pipe-less fd returns the error, stays sticky. */
/*
 * A capture with side band in most segments (COMM, FORK, EXIT, MMAP, LOST and
 * delta-coded COUNTERs), samples with stacks, small segments; @no_digest: as
 * written before digests.
 */
static void write_sideband_capture(int fd, bool no_digest)
{
	struct ppf_writer_opts o = { .seg_max_raw = 2048, .no_digest = no_digest, .digest_segs = 5 };
	struct ppf_writer *w;
	uint64_t stack[4];
	uint8_t raw[24];

	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	CU_ASSERT(ppf_write_kv(w, "hostname", "testhost") == 0);
	for (unsigned i = 0; i < 2000; i++) {
		struct ppf_sample s;
		uint64_t t;

		fill_sample(&s, i, stack, raw);
		t = s.time_ns;
		CU_ASSERT(ppf_write_sample(w, &s) == 0);
		if (i % 7 == 0)
			CU_ASSERT(ppf_write_fork(w, &(struct ppf_task_event){ t, 200 + i, 100, 200 + i, 100 }) == 0);
		if (i % 7 == 1)
			CU_ASSERT(ppf_write_comm(w, &(struct ppf_comm){ t, 200 + i, 200 + i, 1, "cc1" }) == 0);
		if (i % 7 == 2) {
			struct ppf_mmap m = { t, 200 + i, 200 + i, 0x400000 + i * 4096ull, 8192, 0, 5, 2,
					      NULL, 0, "/usr/lib/cc1" };
			CU_ASSERT(ppf_write_mmap(w, &m) == 0);
		}
		if (i % 7 == 3)
			CU_ASSERT(ppf_write_exit(w, &(struct ppf_task_event){ t, 200 + i, 100, 200 + i, 100 }) == 0);
		if (i % 11 == 0) {
			struct ppf_counter_val v[2] = { { 1, 1000 + 3ull * i }, { 2, 77 * i } };
			struct ppf_counter c = { t, i % 2, UINT32_MAX, 10ull * i, 10ull * i, 2, v };
			CU_ASSERT(ppf_write_counter(w, &c) == 0);
		}
		if (i == 999)
			CU_ASSERT(ppf_write_lost(w, &(struct ppf_lost){ t, 1, 0, 42 }) == 0);
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
}

/* @h, continued with what @rec says (the fields write_sideband_capture() varies). */
static uint64_t rec_hash(uint64_t h, const struct ppf_record *rec)
{
	h = fnv(h, &rec->type, sizeof(rec->type));
	h = fnv(h, &rec->time_ns, sizeof(rec->time_ns));
	switch (rec->type) {
	case PPF_REC_SAMPLE: h = fnv(h, &rec->u.sample.tid, 4); break;
	case PPF_REC_COMM: h = fnv(h, rec->u.comm.comm, strlen(rec->u.comm.comm)); break;
	case PPF_REC_FORK:
	case PPF_REC_EXIT: h = fnv(h, &rec->u.task_event.pid, 4); break;
	case PPF_REC_MMAP: h = fnv(h, &rec->u.mmap.addr, 8); break;
	case PPF_REC_LOST: h = fnv(h, &rec->u.lost.count, 8); break;
	case PPF_REC_COUNTER:
		h = fnv(h, &rec->u.counter.enabled, 8);
		for (uint32_t j = 0; j < rec->u.counter.nr; j++)
			h = fnv(h, &rec->u.counter.v[j].value, 8);
		break;
	}
	return h;
}

/* What a part starting at the EVENTS segment @at of the list hands out, as one hash. */
static uint64_t part_hash(int fd, size_t at, bool digests, struct ppf_read_stats *st)
{
	struct ppf_index_entry *segs;
	struct ppf_reader *r;
	struct ppf_record rec;
	uint64_t h = 1469598103934665603ull;
	size_t nr, k = 0;

	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, 0, &r) == 0);
	CU_ASSERT_FATAL(ppf_reader_segments(r, &segs, &nr) == 0);
	for (size_t i = 0; i < nr; i++)
		if (segs[i].kind == PPF_SEG_EVENTS && k++ == at)
			CU_ASSERT(ppf_reader_set_window(r, segs[i].offset, 0) == 0);
	if (digests)
		CU_ASSERT(ppf_reader_set_digests(r, segs, nr) == 0);
	free(segs);
	while (ppf_reader_next(r, &rec, NULL) == 0)
		h = rec_hash(h, &rec);
	*st = *ppf_reader_stats(r);
	ppf_reader_close(r);
	return h;
}

/*
 * Side-band digests: a part reads the side band before it from them, the same
 * records as a skim gives, without decompressing one EVENTS segment; a damaged
 * digest (its checksum, or counts that do not add up) is not used, and a
 * capture without digests or cut before its last one is skimmed as before.
 */
static void test_ppf__digest_parts(void)
{
	int fd = memfd(), old = memfd();
	struct ppf_read_stats st;
	uint64_t skim, dig;
	size_t nd = 0;

	write_sideband_capture(fd, false);
	write_sideband_capture(old, true);
	for (size_t at = 1; at < 40; at += 9) {
		skim = part_hash(fd, at, false, &st);
		CU_ASSERT(st.skim_segments > 0 && st.digest_segments == 0);
		dig = part_hash(fd, at, true, &st);
		CU_ASSERT_EQUAL(dig, skim);
		CU_ASSERT(st.digest_segments > 0 && st.skim_segments == 0);
		CU_ASSERT(st.digest_raw_bytes > 0 && st.digest_raw_bytes < 64 * 2048);
		CU_ASSERT_EQUAL(part_hash(old, at, true, &st), skim);	/* same records, no digest */
		CU_ASSERT(st.digest_segments == 0 && st.skim_segments > 0);
	}
	/* one pass passes digests over, and says how many */
	struct seginfo v[256];
	struct tally t0;
	size_t n = map_segments(fd, v, 256);
	CU_ASSERT(read_all(fd, 0, &t0, &st) == 0);
	CU_ASSERT(st.nr_digests >= 8 && t0.samples == 2000);
	/* a byte of each digest flipped: the checksum says so, every segment is skimmed */
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != PPF_SEG_DIGEST)
			continue;
		uint8_t c;
		off_t at = (off_t)(v[i].off + PPF_SEG_HDR_SZ + 3);
		CU_ASSERT(pread(fd, &c, 1, at) == 1);
		c ^= 0x40;
		CU_ASSERT(pwrite(fd, &c, 1, at) == 1);
		nd++;
	}
	CU_ASSERT(nd >= 8);
	CU_ASSERT_EQUAL(part_hash(fd, 30, true, &st), part_hash(fd, 30, false, &st));
	CU_ASSERT(st.digest_segments == 0);
	/* one pass: damaged digests are reported, with no record lost */
	struct tally t;
	CU_ASSERT(read_all(old, 0, &t, &st) == 0);
	CU_ASSERT(st.nr_digests == 0 && st.nr_corrupt == 0);
	CU_ASSERT(read_all(fd, 0, &t, &st) == 0);
	CU_ASSERT(st.nr_digests == 0 && st.nr_corrupt == nd && st.records_lost == 0);
	CU_ASSERT_EQUAL(t.samples, 2000);
	close(fd);
	close(old);
}

/* An EVENTS segment as a digest's entry names it, and its side band as one hash. */
struct dg_seg {
	struct ppf_digest_entry e;
	uint64_t seq, hash;
	uint32_t nr_side;
	bool named;
};

/*
 * Every record of @fd read with PPF_READ_DIGESTS: each EVENTS segment into @v (its side
 * band hashed), each digest entry checked against the segment it names since the digest
 * before (its copies hashed the same way).  Return: the EVENTS segments; *@nr_ent the
 * entries, *@nr_dig the DIGEST segments.
 */
static size_t read_digests(int fd, struct dg_seg *v, size_t max, size_t *nr_ent, size_t *nr_dig)
{
	const struct ppf_segment *seg, *prev = NULL;
	uint64_t prev_off = UINT64_MAX, h = 0;
	struct dg_seg *ent = NULL;	/* the segment the current entry names */
	struct ppf_reader *r;
	struct ppf_record rec;
	size_t n = 0, from = 0;

	*nr_ent = *nr_dig = 0;
	lseek(fd, 0, SEEK_SET);
	CU_ASSERT_FATAL(ppf_reader_open_fd(fd, PPF_READ_DIGESTS, &r) == 0);
	for (int rc = 0; (rc = ppf_reader_next(r, &rec, &seg)) == 0 || rc == PPF_END;) {
		bool last = rc == PPF_END;

		if (last || seg != prev || seg->offset != prev_off) {
			if (ent)	/* the entry before ends with its segment */
				CU_ASSERT_EQUAL(h, ent->hash);
			ent = NULL;
			if (last)
				break;
			prev = seg;
			prev_off = seg->offset;
			*nr_dig += seg->kind == PPF_SEG_DIGEST;
			if (seg->kind == PPF_SEG_EVENTS && n < max) {
				if (n && v[n - 1].named)
					from = n;	/* its entry is in the first digest after it */
				v[n++] = (struct dg_seg){
					.e = { seg->csize, seg->payload_crc, seg->first_ns, seg->last_ns,
					       seg->nr_records, seg->nr_samples, 0, 0 },
					.seq = seg->seq, .hash = 1,
				};
			}
		}
		if (seg->kind == PPF_SEG_EVENTS && rec.type != PPF_REC_SAMPLE && n) {
			v[n - 1].hash = rec_hash(v[n - 1].hash, &rec);
			v[n - 1].nr_side++;
		}
		if (seg->kind != PPF_SEG_DIGEST)
			continue;
		if (rec.type == PPF_REC_DIGEST_SEG) {
			if (ent)
				CU_ASSERT_EQUAL(h, ent->hash);
			ent = NULL;
			for (size_t i = from; i < n && !ent; i++)
				if (!memcmp(&v[i].e, &rec.u.digest, offsetof(struct ppf_digest_entry, nr_stacks)))
					ent = &v[i];
			CU_ASSERT_PTR_NOT_NULL(ent);
			if (ent) {
				CU_ASSERT_EQUAL(rec.u.digest.nr_copied, ent->nr_side);
				ent->named = true;
			}
			h = 1;
			(*nr_ent)++;
			continue;
		}
		CU_ASSERT(rec.time_ns >= (ent ? ent->e.first_ns : 0) &&
			  rec.time_ns <= (ent ? ent->e.last_ns : 0));
		h = rec_hash(h, &rec);
	}
	ppf_reader_close(r);
	return n;
}

/*
 * PPF_READ_DIGESTS: the reader hands out each digest's entries and copies, the copies
 * with their times (each entry's count from its first_ns, its COUNTERs from no base), the
 * very side band of the segment the entry names; every segment with side band is named.
 * ppf_writer_flush_digest() writes the pending digest at once, none when nothing is pending.
 */
static void test_ppf__digest_records(void)
{
	struct dg_seg v[128];
	size_t n, nr_ent, nr_dig, side = 0, named = 0;
	int fd = memfd();

	write_sideband_capture(fd, false);
	n = read_digests(fd, v, 128, &nr_ent, &nr_dig);
	for (size_t i = 0; i < n; i++) {
		side += v[i].nr_side > 0;
		named += v[i].named;
		CU_ASSERT(v[i].named == (v[i].e.nr_records != v[i].e.nr_samples));
	}
	CU_ASSERT(n > 30 && side > 30 && named == side && nr_ent == named);
	CU_ASSERT(nr_dig >= 8);
	/* without the flag, no record of a digest */
	struct tally t;
	struct ppf_read_stats st;
	CU_ASSERT(read_all(fd, 0, &t, &st) == 0);
	CU_ASSERT(st.nr_digests == nr_dig);
	close(fd);

	/* 3 segments with side band, a digest at once; then 2, the digest at close */
	struct ppf_writer_opts o = { .digest_segs = 16 };
	struct ppf_writer *w;
	fd = memfd();
	CU_ASSERT_FATAL(ppf_writer_open_fd(fd, &o, &w) == 0);
	for (unsigned i = 0; i < 5; i++) {
		uint64_t at = 1000 + 100 * i;
		CU_ASSERT(ppf_write_comm(w, &(struct ppf_comm){ at, 7, 7, 0, "sh" }) == 0);
		CU_ASSERT(ppf_writer_flush(w) == 0);
		if (i == 2) {
			CU_ASSERT(ppf_writer_flush_digest(w) == 0);
			CU_ASSERT(ppf_writer_flush_digest(w) == 0);	/* nothing pending: none */
		}
	}
	CU_ASSERT(ppf_writer_close(w) == 0);
	n = read_digests(fd, v, 128, &nr_ent, &nr_dig);
	CU_ASSERT(n == 5 && nr_ent == 5 && nr_dig == 2);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(v[i].named && v[i].nr_side == 1);
	close(fd);
}

static void test_ppf__write_error(void)
{
	struct ppf_writer *w;
	int fd = open("/dev/full", O_WRONLY);

	if (fd < 0)
		return;
	CU_ASSERT_EQUAL(ppf_writer_open_fd(fd, NULL, &w), -ENOSPC);
	close(fd);
}

static void test_ppf__crc32c(void)
{
	CU_ASSERT_EQUAL(ppf_crc32c(0, "123456789", 9), 0xE3069283u);
	CU_ASSERT_EQUAL(ppf_crc32c(ppf_crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);

	/* every length and alignment, split anywhere, against the bitwise definition */
	uint8_t buf[80];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; off + len <= sizeof(buf); len++) {
			uint32_t ref = 0xFFFFFFFFu;
			for (size_t i = 0; i < len; i++) {
				ref ^= buf[off + i];
				for (int k = 0; k < 8; k++)
					ref = (ref >> 1) ^ (0x82F63B78u & (0u - (ref & 1)));
			}
			ref = ~ref;
			CU_ASSERT_EQUAL(ppf_crc32c(0, buf + off, len), ref);
			size_t cut = len / 3;
			CU_ASSERT_EQUAL(ppf_crc32c(ppf_crc32c(0, buf + off, cut), buf + off + cut, len - cut), ref);
		}
}

/* The XOR-base tables of writer and decoder grow by one rule: 64, doubled until the key fits. */
static void test_ppf__xor_cap(void)
{
	CU_ASSERT_EQUAL(ppf_xor_cap(0, 0), 64);
	CU_ASSERT_EQUAL(ppf_xor_cap(0, 63), 64);
	CU_ASSERT_EQUAL(ppf_xor_cap(0, 64), 128);
	CU_ASSERT_EQUAL(ppf_xor_cap(64, 200), 256);
	CU_ASSERT_EQUAL(ppf_xor_cap(128, 5), 128);
	CU_ASSERT_EQUAL(ppf_xor_cap(64, PPF_XOR_MAX_ID - 1), PPF_XOR_MAX_ID);
}

void test_ppf__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_ppf__crc32c, "crc32c matches the standard check value and the bitwise definition"),
		PP_TEST(test_ppf__xor_cap, "the RAW_XOR base tables grow to the next power of two from 64"),
		PP_TEST(test_ppf__roundtrip, "every record type written is read back identically"),
		PP_TEST(test_ppf__cpu_times, "per-cpu sample times round trip, through segments, late samples and a copy"),
		PP_TEST(test_ppf__meta_continues, "metadata that fills its segment goes on in the next metadata segment"),
		PP_TEST(test_ppf__sideband_and_late, "side-band records round trip; a late sample is clamped and flagged"),
		PP_TEST(test_ppf__cut_every_byte, "a capture cut at every byte reads its whole segments and says where it stopped"),
		PP_TEST(test_ppf__flip_every_bit, "a flipped bit loses only its segment, which is named by offset"),
		PP_TEST(test_ppf__bad_headers, "empty, foreign, newer and directory inputs are refused clearly"),
		PP_TEST(test_ppf__bounds, "lengths from the file are bounded before use"),
		PP_TEST(test_ppf__unknown_kinds, "unknown segment kinds and record types are skipped"),
		PP_TEST(test_ppf__stream, "a capture streamed through a pipe reads completely"),
		PP_TEST(test_ppf__read_ahead, "reading ahead on a second thread hands out exactly what one thread does, damaged or not"),
		PP_TEST(test_ppf__read_ahead_paths, "read-ahead: a payload past the input buffer, a cut zstd frame under a good CRC"),
		PP_TEST(test_ppf__seek_time, "seeking by time skips earlier event segments only"),
		PP_TEST(test_ppf__write_error, "write errors are returned, not ignored"),
		PP_TEST(test_ppf__digest_parts, "a part reads the side band before it from digests, as a skim would; damaged ones are not used"),
		PP_TEST(test_ppf__digest_records, "PPF_READ_DIGESTS: each entry's copies are the side band of the segment it names; a digest on demand"),
	};
	pp_suite_add("ppf", tests, PP_ARRAY_SIZE(tests));
}
