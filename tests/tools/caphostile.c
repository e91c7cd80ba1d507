/* SPDX-License-Identifier: MIT */
/*
 * caphostile.c - test-only captures that claim huge counts and lengths.
 *
 * usage: caphostile CASE [N [LEN]] OUTPUT
 *
 *   tasks N          N TASK records, tids 1..N (10^9 tasks, the real part of it)
 *   symtab N LEN     a DSO claiming 2^32-1 symbols, then N SYMs with LEN-byte names
 *   ksyms N LEN      N kernel symbols with LEN-byte names
 *   events N         N samples in segments whose headers claim 2^32-1 records and
 *                    samples each, and a STAT claiming 2^40 samples
 *   etasks N         N samples, each of a task of its own (tids 1..N)
 *   unwind N         a DSO, then N UNWIND records of 4096 one-byte rows each (the most a
 *                    record holds, 2 bytes a row on disk, 32 in pp-analyze's table)
 *   bigseg           a segment header claiming 4 GB (csize = usize = 2^32-1, the most
 *                    32 bits say; its CRC is right), then a good segment
 *   bigstr           a KV record whose key claims 1 GB, then a good segment
 *   digest-strip IN  IN's segments but its side-band digests (a capture as pp-record wrote
 *                    them before digests), through format/'s writer (indexed anew)
 *   digest-lie IN    IN with one copy taken out of each digest's first entry that has
 *                    any (the digest stored raw, its checksums right): counts that do
 *                    not add up, so a reader must not use it
 *   digest-flip IN   IN with one payload byte of each digest flipped (checksum wrong)
 *   digest-mangle S IN  IN with 1 to 8 bytes of each digest's payload changed, the
 *                    positions and values from seed S (the digest stored raw, its
 *                    checksums right): what the records and checks of a digest meet
 *
 * The side-band cases go through format/'s writer (checksums right, segments of
 * 1 MiB); the header and record claims are written byte by byte.  Used by
 * t214-t216 (docs/capture-format.md, Limits), the digest cases by t218 and t835.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/log.h"
#include "format/internal.h"

static struct ppf_writer *open_w(const char *out, const struct ppf_writer_opts *o)
{
	struct ppf_writer *w;

	if (ppf_writer_open(out, o, &w))
		pp_die("cannot write %s", out);
	return w;
}

static void check(struct ppf_writer *w, int rc)
{
	if (rc)
		pp_die("write: %s", ppf_writer_errmsg(w));
}

static void done(struct ppf_writer *w)
{
	if (ppf_writer_close(w))
		pp_die("close failed");
}

static char *name_of(size_t len)
{
	char *n = pp_xmalloc(len + 1);

	memset(n, 'f', len);
	n[len] = '\0';
	return n;
}

static void tasks(uint64_t n, const char *out)
{
	struct ppf_writer *w = open_w(out, NULL);
	char comm[32];

	check(w, ppf_write_kv(w, "hostname", "hostile"));
	for (uint64_t i = 1; i <= n; i++) {
		snprintf(comm, sizeof(comm), "task-%llu", (unsigned long long)i);
		struct ppf_task t = { .pid = (uint32_t)i, .tid = (uint32_t)i, .ppid = 1, .comm = comm,
				      .cmdline = "" };
		check(w, ppf_write_task(w, &t));
	}
	done(w);
}

static void symtab(uint64_t n, size_t len, bool kernel, const char *out)
{
	struct ppf_writer *w = open_w(out, NULL);
	char *name = name_of(len);
	uint8_t bid[20] = { 0xab, 0xcd };

	check(w, ppf_write_kv(w, "hostname", "hostile"));
	if (!kernel) {
		struct ppf_dso d = { .build_id = bid, .build_id_sz = sizeof(bid), .path = "/usr/bin/big",
				     .nr_syms = UINT32_MAX };
		check(w, ppf_write_dso(w, &d));
	}
	for (uint64_t i = 0; i < n; i++) {
		name[i % len] = (char)('a' + i % 26);	/* not all the same name */
		if (kernel) {
			struct ppf_ksym k = { .addr = 0xffffffff81000000ull + 64 * i, .type = 't',
					      .name = name, .module = "" };
			check(w, ppf_write_ksym(w, &k));
		} else {
			struct ppf_sym s = { .start = 0x1000 + 64 * i, .size = 64, .name = name };
			check(w, ppf_write_sym(w, &s));
		}
	}
	free(name);
	done(w);
}

static void unwind(uint64_t n, const char *out)
{
	struct ppf_writer *w = open_w(out, NULL);
	struct ppf_unwind_row *rows = calloc(PPF_UNWIND_MAX_ROWS, sizeof(*rows));
	const struct ppf_dso d = { .path = "/usr/bin/unwound" };
	uint64_t at = 0x1000;

	if (!rows)
		exit(1);
	check(w, ppf_write_kv(w, "hostname", "hostile"));
	check(w, ppf_write_dso(w, &d));
	for (uint64_t i = 0; i < n; i++) {
		for (size_t k = 0; k < PPF_UNWIND_MAX_ROWS; k++, at++)
			rows[k] = (struct ppf_unwind_row){ .start = at, .end = at + 1, .cfa = PPF_CFA_SP,
							   .ra = PPF_REG_AT_CFA, .cfa_off = 8,
							   .ra_off = -8, .fp_off = -16 };
		check(w, ppf_write_unwind(w, PPF_UNWIND_X86_64, rows, PPF_UNWIND_MAX_ROWS));
	}
	free(rows);
	done(w);
}

/* A sink that keeps the file in memory: its segment headers are rewritten before it is saved. */
struct mem {
	struct ppf_wbuf b;
};

static int mem_sink(void *arg, const struct ppf_chunk *c)
{
	struct mem *m = arg;

	if (ppf_wbuf_reserve(&m->b, c->head_sz + c->body_sz))
		return -ENOMEM;
	wb_bytes(&m->b, c->head, c->head_sz);
	if (c->body_sz)
		wb_bytes(&m->b, c->body, c->body_sz);
	return 0;
}

static void save(struct ppf_wbuf *b, const char *out)
{
	FILE *f = fopen(out, "wb");

	if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f))
		pp_die("cannot write %s", out);
}

static void events(uint64_t n, bool own_task, const char *out)
{
	struct ppf_writer_opts o = { .seg_max_raw = 4096 };
	struct ppf_event_desc d = { .id = 1, .kind = PPF_EV_SOFTWARE, .name = "cpu-clock",
				    .selector = "cpu-clock", .filter = "", .format = "" };
	struct ppf_writer *w;
	struct mem m = { 0 };

	if (ppf_writer_open_cb(mem_sink, &m, &o, &w))
		pp_die("writer");
	check(w, ppf_write_kv(w, "hostname", "hostile"));
	check(w, ppf_write_event_desc(w, &d));
	for (uint64_t i = 0; i < n; i++) {
		struct ppf_sample s = { .time_ns = 1000000000 + 1000 * i, .id = 1, .cpu = (uint32_t)(i % 2),
					.pid = 100, .tid = 100, .period = 1 };
		if (own_task)
			s.pid = s.tid = (uint32_t)(i + 1);
		check(w, ppf_write_sample(w, &s));
	}
	check(w, ppf_write_stat(w, "samples", 1ull << 40));
	done(w);
	/* every segment header claims 2^32-1 records and samples (its CRC made right again) */
	for (size_t off = PPF_FILE_HDR_SZ; off + PPF_SEG_HDR_SZ <= m.b.len;) {
		uint8_t *h = m.b.data + off;
		if (get_le32(h) != PPF_SEG_MAGIC)
			break;
		put_le32(h + 40, UINT32_MAX);
		put_le32(h + 44, UINT32_MAX);
		put_le32(h + 60, ppf_crc32c(0, h, 60));
		off += PPF_SEG_HDR_SZ + get_le32(h + 32);
	}
	save(&m.b, out);
	ppf_wbuf_release(&m.b);
}

/* A stored segment holding @p (its header's claims right). */
static void raw_seg(struct ppf_wbuf *b, uint64_t seq, const void *p, size_t n)
{
	struct ppf_seg_hdr h = { .kind = PPF_SEG_META, .seq = seq, .csize = (uint32_t)n,
				 .usize = (uint32_t)n, .nr_records = 1,
				 .payload_crc = ppf_crc32c(0, p, n) };

	if (ppf_wbuf_reserve(b, PPF_SEG_HDR_SZ + n))
		pp_die("out of memory");
	ppf_seg_hdr_encode(&h, b->data + b->len);
	b->len += PPF_SEG_HDR_SZ;
	wb_bytes(b, p, n);
}

static void claims(bool bigseg, const char *out)
{
	static const uint8_t kv_ok[] = { PPF_REC_KV, 13, 8, 'h', 'o', 's', 't', 'n', 'a', 'm', 'e', 0,
					 1, 'x', 0 };
	static const uint8_t kv_1g[] = { PPF_REC_KV, 9, 0x80, 0x80, 0x80, 0x80, 0x04, 'a', 0, 0, 0 };
	struct ppf_wbuf b = { 0 };

	if (ppf_wbuf_reserve(&b, PPF_FILE_HDR_SZ + PPF_SEG_HDR_SZ))
		pp_die("out of memory");
	ppf_file_hdr_encode(1, b.data);
	b.len = PPF_FILE_HDR_SZ;
	if (bigseg) {
		struct ppf_seg_hdr h = { .kind = PPF_SEG_EVENTS, .flags = PPF_SEGF_ZSTD,
					 .csize = UINT32_MAX, .usize = UINT32_MAX,
					 .nr_records = UINT32_MAX, .nr_samples = UINT32_MAX };
		ppf_seg_hdr_encode(&h, b.data + b.len);
		b.len += PPF_SEG_HDR_SZ;
	} else {
		raw_seg(&b, 0, kv_1g, sizeof(kv_1g));
	}
	raw_seg(&b, 1, kv_ok, sizeof(kv_ok));
	save(&b, out);
	ppf_wbuf_release(&b);
}

static void load(const char *in, struct ppf_wbuf *b)
{
	FILE *f = fopen(in, "rb");
	size_t got;

	if (!f)
		pp_die("cannot read %s", in);
	do {
		if (ppf_wbuf_reserve(b, 1 << 16))
			pp_die("out of memory");
		got = fread(b->data + b->len, 1, 1 << 16, f);
		b->len += got;
	} while (got);
	fclose(f);
}

/* The payload of the digest segment @h, decompressed into @u. */
static void digest_raw(const struct ppf_seg_hdr *h, const uint8_t *payload, struct ppf_wbuf *u)
{
	u->len = 0;
	if (ppf_wbuf_reserve(u, h->usize + 1))
		pp_die("out of memory");
	if (h->flags & PPF_SEGF_ZSTD) {
		if (ZSTD_decompress(u->data, h->usize, payload, h->csize) != h->usize)
			pp_die("a digest does not decompress");
	} else {
		memcpy(u->data, payload, h->usize);
	}
	u->len = h->usize;
}

/* @u as the payload of the digest segment @h, stored raw with its checksums right, into @seg. */
static void digest_store(struct ppf_seg_hdr *h, const struct ppf_wbuf *u, struct ppf_wbuf *seg)
{
	h->flags = 0;
	h->csize = h->usize = (uint32_t)u->len;
	h->payload_crc = ppf_crc32c(0, u->data, u->len);
	seg->len = 0;
	if (ppf_wbuf_reserve(seg, PPF_SEG_HDR_SZ + u->len))
		pp_die("out of memory");
	ppf_seg_hdr_encode(h, seg->data);
	memcpy(seg->data + PPF_SEG_HDR_SZ, u->data, u->len);
	seg->len = PPF_SEG_HDR_SZ + u->len;
}

/* The digest segment @h, @payload with 1 to 8 of its bytes changed (seed *@seed). */
static void digest_mangle(struct ppf_seg_hdr *h, const uint8_t *payload, uint64_t *seed,
			  struct ppf_wbuf *seg)
{
	struct ppf_wbuf u = { 0 };

	digest_raw(h, payload, &u);
	for (unsigned n = 1 + (unsigned)(*seed % 8); n && u.len; n--) {
		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		u.data[(*seed >> 33) % u.len] = (uint8_t)(*seed >> 17);
	}
	digest_store(h, &u, seg);
	ppf_wbuf_release(&u);
}

/* The digest segment @h, @payload with one copy record taken out of its first entry with any. */
static void digest_lie(struct ppf_seg_hdr *h, const uint8_t *payload, struct ppf_wbuf *seg)
{
	struct ppf_wbuf u = { 0 };
	size_t i = 0, cut = 0, cut_len = 0;
	bool in_entry = false;

	digest_raw(h, payload, &u);
	while (i < u.len && !cut_len) {
		struct ppf_rbuf r = { u.data + i, u.data + u.len, false, false };
		uint8_t type = rb_u8(&r);
		uint64_t n = rb_varint(&r);
		size_t next = (size_t)(r.p - u.data) + (size_t)n;

		if (r.bad || next > u.len)
			pp_die("a digest is malformed");
		if (type == PPF_REC_DIGEST_SEG)
			in_entry = true;
		else if (in_entry)
			cut = i, cut_len = next - i;
		i = next;
	}
	memmove(u.data + cut, u.data + cut + cut_len, u.len - cut - cut_len);
	u.len -= cut_len;
	h->nr_records -= cut_len ? 1 : 0;
	digest_store(h, &u, seg);
	ppf_wbuf_release(&u);
}

/* IN's digests stripped, falsified, mangled (from @seed) or damaged, into OUT. */
static void digests(const char *mode, uint64_t seed, const char *in, const char *out)
{
	struct ppf_writer_opts o = { .no_digest = true };
	struct ppf_wbuf b = { 0 }, seg = { 0 };
	struct ppf_writer *w = NULL;
	size_t off = PPF_FILE_HDR_SZ, nr = 0;

	load(in, &b);
	if (b.len < PPF_FILE_HDR_SZ || memcmp(b.data, PPF_FILE_MAGIC, 8))
		pp_die("%s: not a pp capture", in);
	if (strcmp(mode, "flip"))
		w = open_w(out, &o);
	while (off + PPF_SEG_HDR_SZ <= b.len) {
		struct ppf_seg_hdr h;
		uint8_t *p = b.data + off;

		if (ppf_seg_hdr_decode(p, &h) || off + PPF_SEG_HDR_SZ + h.csize > b.len)
			break;
		off += PPF_SEG_HDR_SZ + h.csize;
		if (h.kind == PPF_SEG_DIGEST)
			nr++;
		if (!w) {
			if (h.kind == PPF_SEG_DIGEST && h.csize)
				p[PPF_SEG_HDR_SZ + h.csize / 2] ^= 0x5a;
			continue;
		}
		if (h.kind == PPF_SEG_INDEX || (h.kind == PPF_SEG_DIGEST && !strcmp(mode, "strip")))
			continue;
		if (h.kind == PPF_SEG_DIGEST) {
			if (!strcmp(mode, "mangle"))
				digest_mangle(&h, p + PPF_SEG_HDR_SZ, &seed, &seg);
			else
				digest_lie(&h, p + PPF_SEG_HDR_SZ, &seg);
			check(w, ppf_writer_put_segment(w, seg.data, seg.len));
		} else {
			check(w, ppf_writer_put_segment(w, p, PPF_SEG_HDR_SZ + h.csize));
		}
	}
	if (w)
		done(w);
	else
		save(&b, out);
	fprintf(stderr, "caphostile: %s: %zu digests\n", mode, nr);
	ppf_wbuf_release(&b);
	ppf_wbuf_release(&seg);
}

int main(int argc, char **argv)
{
	const char *c = argc > 2 ? argv[1] : "";
	const char *out = argv[argc - 1];
	uint64_t n = argc > 3 ? strtoull(argv[2], NULL, 0) : 0;
	size_t len = argc > 4 ? (size_t)strtoull(argv[3], NULL, 0) : 0;

	pp_progname = "caphostile";
	if (!strcmp(c, "tasks") && argc == 4)
		tasks(n, out);
	else if ((!strcmp(c, "symtab") || !strcmp(c, "ksyms")) && argc == 5 && len && len < 65536)
		symtab(n, len, c[0] == 'k', out);
	else if ((!strcmp(c, "events") || !strcmp(c, "etasks")) && argc == 4)
		events(n, c[0] == 'e' && c[1] == 't', out);
	else if (!strcmp(c, "unwind") && argc == 4)
		unwind(n, out);
	else if ((!strcmp(c, "bigseg") || !strcmp(c, "bigstr")) && argc == 3)
		claims(c[4] == 'e', out);
	else if ((!strcmp(c, "digest-strip") || !strcmp(c, "digest-lie") ||
		  !strcmp(c, "digest-flip")) && argc == 4)
		digests(c + 7, 0, argv[2], out);
	else if (!strcmp(c, "digest-mangle") && argc == 5)
		digests(c + 7, n, argv[3], out);
	else {
		fprintf(stderr, "usage: caphostile tasks N | symtab N LEN | ksyms N LEN | events N | "
				"etasks N | unwind N | bigseg | bigstr | digest-strip|digest-lie|digest-flip IN | "
				"digest-mangle SEED IN  OUTPUT\n");
		return 2;
	}
	return 0;
}
