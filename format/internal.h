/* SPDX-License-Identifier: MIT */
/*
 * internal.h - format/'s private helpers: little-endian access, varints,
 * bounded growable buffers, and the segment header codec.
 *
 * Everything here treats input as hostile: decoders check each length
 * against the bytes that remain before they touch them, and every buffer
 * growth is bounded by the caller.  format/ never exits on OOM: it returns
 * -ENOMEM.
 */
#ifndef PP_FORMAT_INTERNAL_H
#define PP_FORMAT_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/wire.h"
#include "format/format.h"

static inline void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* A growable output buffer.  len <= cap; data may be NULL while cap == 0. */
struct ppf_wbuf {
	uint8_t *data;
	size_t len, cap;
};

int ppf_wbuf_reserve(struct ppf_wbuf *b, size_t extra);
void ppf_wbuf_release(struct ppf_wbuf *b);

/* Append helpers: the caller reserved enough room (see PPF_VARINT_MAX). */
#define PPF_VARINT_MAX 10
static inline void wb_u8(struct ppf_wbuf *b, uint8_t v) { b->data[b->len++] = v; }
static inline void wb_varint(struct ppf_wbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}
static inline void wb_bytes(struct ppf_wbuf *b, const void *p, size_t n)
{
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}
static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* A bounded input cursor.  Once @bad is set every getter returns 0/NULL. */
struct ppf_rbuf {
	const uint8_t *p, *end;
	bool bad;
	bool over;		/* what made it bad is a length over a limit (PP_ELIMIT) */
};

static inline uint64_t rb_varint(struct ppf_rbuf *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static inline uint32_t rb_varint32(struct ppf_rbuf *r)
{
	uint64_t v = rb_varint(r);

	if (v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
}

static inline uint8_t rb_u8(struct ppf_rbuf *r)
{
	if (r->p >= r->end) {
		r->bad = true;
		return 0;
	}
	return *r->p++;
}

static inline const uint8_t *rb_bytes(struct ppf_rbuf *r, size_t n)
{
	const uint8_t *p = r->p;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return p;
}

/* Strings are stored as varint length, bytes, then a NUL the reader checks. */
static inline const char *rb_str(struct ppf_rbuf *r)
{
	uint64_t n = rb_varint(r);
	const uint8_t *p;

	if (r->bad || n > PPF_MAX_STR) {
		r->over |= !r->bad;
		r->bad = true;
		return "";
	}
	p = rb_bytes(r, (size_t)n + 1);
	if (!p || p[n] != 0) {
		r->bad = true;
		return "";
	}
	return (const char *)p;
}

/*
 * out = a ^ b, 16 bytes at a time (RAW_XOR raw data, tens of bytes: the writer's
 * and the decoder's hot loop); @out may be @a, not @b.
 */
typedef uint8_t ppf_v16 __attribute__((vector_size(16)));
/* @w (8 or 4, a constant) bytes of @a XOR @b into @out, one load and store each */
static inline void ppf_xor_word(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t w)
{
	uint64_t x = 0, y = 0;

	memcpy(&x, a, w);
	memcpy(&y, b, w);
	x ^= y;
	memcpy(out, &x, w);
}

static inline void ppf_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		ppf_v16 x, y;
		memcpy(&x, a + i, 16);
		memcpy(&y, b + i, 16);
		x ^= y;
		memcpy(out + i, &x, 16);
	}
	/* the tail: 8 bytes, 4 (tracepoint records are 4-byte multiples), then single bytes */
	if (i + 8 <= n) {
		ppf_xor_word(out + i, a + i, b + i, 8);
		i += 8;
	}
	if (i + 4 <= n) {
		ppf_xor_word(out + i, a + i, b + i, 4);
		i += 4;
	}
	for (; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* --- segment header (64 bytes) ------------------------------------------ */

struct ppf_seg_hdr {
	uint32_t kind, flags;
	uint64_t seq;
	uint64_t first_ns, last_ns;
	uint32_t csize, usize;
	uint32_t nr_records, nr_samples;
	uint32_t payload_crc;
};

void ppf_seg_hdr_encode(const struct ppf_seg_hdr *h, uint8_t out[PPF_SEG_HDR_SZ]);
/* Return 0, or PP_EBAD_MAGIC / PP_EBAD_CRC / PP_EBAD_LENGTH / PP_ELIMIT (sizes over the limits) for a header not to be trusted. */
int ppf_seg_hdr_decode(const uint8_t in[PPF_SEG_HDR_SZ], struct ppf_seg_hdr *h);

void ppf_file_hdr_encode(uint64_t created_ns, uint8_t out[PPF_FILE_HDR_SZ]);

/* readahead.c: a thread that decompresses one zstd frame at a time for the reader */
struct ppf_ra;
int ppf_ra_start(struct ppf_ra **out);
/* Start decompressing @src into @dst; neither may be touched until ppf_ra_wait(). */
void ppf_ra_submit(struct ppf_ra *ra, const void *src, size_t src_sz, void *dst, size_t dst_sz);
/* Wait for the job submitted last; return ZSTD_decompressDCtx()'s result. */
size_t ppf_ra_wait(struct ppf_ra *ra);
/* Join the thread (a job in flight finishes first) and free it; NULL is a no-op. */
void ppf_ra_stop(struct ppf_ra *ra);

/* --- record codec ------------------------------------------------------- */

/*
 * An arena of fixed blocks: allocations never move, so pointers handed to
 * the caller stay valid until the arena is reset (at the next segment).
 */
struct ppf_arena_blk;
struct ppf_arena {
	struct ppf_arena_blk *head, *cur;
	size_t used;		/* bytes handed out since the last reset */
};
void *ppf_arena_alloc(struct ppf_arena *a, size_t sz);
void ppf_arena_reset(struct ppf_arena *a);
void ppf_arena_release(struct ppf_arena *a);

#define PPF_XOR_MAX_ID 65536	/* XOR keys from here on are never XOR-encoded */

/* The size of a table by XOR key that holds @key: @cap (64 when 0) doubled as need be. */
static inline size_t ppf_xor_cap(size_t cap, uint32_t key)
{
	if (!cap)
		cap = 64;
	while (cap <= key)
		cap *= 2;
	return cap;
}
#define PPF_XOR_CPUS 64		/* PPF_SEGF_XOR_CPU: cpus told apart (the rest share a base) */

/*
 * The key of a SAMPLE's RAW_XOR base: its event id, and in a PPF_SEGF_XOR_CPU
 * segment its cpu too (a cpu's events follow one task for a while; the merged
 * stream alternates between tasks).  PPF_XOR_MAX_ID: a key that is not XOR-encoded.
 */
static inline uint32_t ppf_xor_key(bool per_cpu, uint64_t id, uint64_t cpu)
{
	uint64_t k = per_cpu ? id * PPF_XOR_CPUS + cpu % PPF_XOR_CPUS : id;

	return k < PPF_XOR_MAX_ID ? (uint32_t)k : PPF_XOR_MAX_ID;	/* ids are < 2^32 */
}
#define PPF_DECODE_MAX_ARENA PP_LIMIT_DECODE_ARENA

struct ppf_stack_ref {
	const uint64_t *frames;
	uint32_t nr;
};

/* Per-segment decoder state: time base, stack table, XOR history. */
/*
 * The previous reading of each counter (event id, cpu, tid) in a segment: the
 * base of COUNTER deltas.  Writer and decoder keep the same table by the same
 * rules, so it holds the same keys on both sides: a key is added by a reading
 * written absolute while fewer than PPF_CTR_MAX_KEYS keys are held; a full
 * table takes no new key, so such counters stay absolute.
 */
#define PPF_CTR_MAX_KEYS 2048
struct ppf_ctr_slot {
	uint32_t id, cpu, tid;
	uint32_t used;
	uint64_t value, enabled, running;
	uint64_t time;			/* of the record (as stored) */
};
struct ppf_ctrtab {
	struct ppf_ctr_slot *slot;	/* 2 * PPF_CTR_MAX_KEYS, open addressing; NULL until used */
	uint32_t nr;
};

/** ppf_ctrtab_find() - the slot of a key, or NULL. */
struct ppf_ctr_slot *ppf_ctrtab_find(struct ppf_ctrtab *t, uint32_t id, uint32_t cpu, uint32_t tid);
/** ppf_ctrtab_add() - a new slot for a key not held; NULL when full. Return -ENOMEM via @err. */
struct ppf_ctr_slot *ppf_ctrtab_add(struct ppf_ctrtab *t, uint32_t id, uint32_t cpu, uint32_t tid,
				    int *err);
/** ppf_ctrtab_reset() - forget every key (a new segment). */
void ppf_ctrtab_reset(struct ppf_ctrtab *t);
void ppf_ctrtab_release(struct ppf_ctrtab *t);

struct ppf_decoder {
	struct ppf_rbuf in;
	uint64_t last_ns;		/* the previous timed record's time */
	bool cpu_time;			/* PPF_SEGF_CPU_TIME: SAMPLE dt from its cpu's last */
	bool delta_addr;		/* PPF_SEGF_DELTA_ADDR: KSYM/SYM addresses are deltas */
	bool xor_cpu;			/* PPF_SEGF_XOR_CPU: RAW_XOR bases per id and cpu */
	bool ustk_runs;			/* PPF_SEGF_USTACK_RUNS: copies' XORed bytes as runs */
	bool time_col;			/* PPF_SEGF_TIME_COL: dt from the column below */
	struct ppf_rbuf tcol;		/* the time column */
	uint64_t prev_addr;
	uint64_t *cpu_last;		/* by cpu: the last SAMPLE's time, 0 = none yet */
	size_t cap_cpu;
	struct ppf_stack_ref *stacks;	/* index = stack_id - 1 */
	size_t nr_stacks, cap_stacks;
	const uint8_t **prev_raw;	/* by event id */
	uint32_t *prev_sz;
	size_t cap_prev;
	struct ppf_arena arena;
	struct ppf_ctrtab ctr;		/* COUNTER delta bases */
	struct ppf_ustk_tab *ustk;	/* USTACK bases (ustack.h); NULL until the first */
	bool xor_in_place;		/* the data is writable: RAW_XOR is undone in it (reader.c) */
	/*
	 * Side band only (ppf_reader_set_window()): SAMPLE records are read up to
	 * their time (the times after them count from it) and skipped, with the
	 * STACK records they would use; every other record is decoded.
	 */
	bool skim;
	/*
	 * A DIGEST segment's payload: each DIGEST_SEG record starts its copies' times
	 * at its first_ns and empties the COUNTER bases (digest.c); elsewhere the
	 * record changes nothing.
	 */
	bool digest;
};

void ppf_decoder_reset(struct ppf_decoder *d, const uint8_t *data, size_t size, uint64_t first_ns,
		       uint32_t seg_flags);
void ppf_decoder_release(struct ppf_decoder *d);
/* Return 0, PPF_END at the end of the segment, or PP_EBAD_RECORD. */
int ppf_decoder_next(struct ppf_decoder *d, struct ppf_record *rec);

/* --- side-band digests (digest.c) ----------------------------------------- */

#define PPF_DIGEST_MAX_SEGS 65536	/* entries of one DIGEST: more, and it is not used */

/* The writer's digest under construction. */
struct ppf_digest_w {
	struct ppf_wbuf grp;		/* the open EVENTS segment's side-band copies */
	uint32_t grp_nr;
	uint64_t grp_last_ns;		/* time of its last copy */
	struct ppf_wbuf out;		/* entries and copies of the closed segments */
	uint32_t nr_segs, nr_records;	/* entries; records of @out */
	uint64_t first_ns, last_ns;	/* first entry's first_ns, last entry's last_ns */
};

/* Copy one side-band record (@body without its dt) of the open EVENTS segment. Return 0 or -ENOMEM. */
int ppf_digest_copy(struct ppf_digest_w *d, uint8_t type, uint64_t t_ns, uint64_t seg_first_ns,
		    const uint8_t *body, size_t len);
/* The open EVENTS segment was written with header @h: its entry and copies join @out. */
int ppf_digest_seg_end(struct ppf_digest_w *d, const struct ppf_seg_hdr *h, uint32_t nr_stacks);
/* @out was written: start the next digest. */
void ppf_digest_clear(struct ppf_digest_w *d);
void ppf_digest_w_release(struct ppf_digest_w *d);

/* One entry of a digest read back: an EVENTS segment's header fields and its copies. */
struct ppf_digest_grp {
	struct ppf_digest_entry e;	/* its DIGEST_SEG */
	const uint8_t *data;		/* the copies: records with their dt, from e.first_ns */
	size_t len;
};

/*
 * ppf_digest_parse() - a digest's decompressed payload, checked whole: every record
 * well formed, each entry's counts adding up and its copies that many, none a SAMPLE
 * or STACK, their times inside the entry's.  @out (free()) borrows from @data.
 * Return: 0, PP_EBAD_RECORD (the digest is not to be used) or -ENOMEM.
 */
int ppf_digest_parse(const uint8_t *data, size_t len, struct ppf_digest_grp **out, size_t *nr);
/* The entry of @v (from ppf_digest_parse()) for the segment of header @h, or NULL. */
const struct ppf_digest_grp *ppf_digest_find(const struct ppf_digest_grp *v, size_t nr,
					     const struct ppf_seg_hdr *h);

/* unwind.c: an UNWIND body from @r, every row checked (see there); 0 or PP_EBAD_RECORD. */
int ppf_decode_unwind(struct ppf_rbuf *r, struct ppf_unwind *u);

#endif
