/* SPDX-License-Identifier: MIT */
/*
 * writer.c - writing a capture: records into segments, segments into a file.
 *
 * Records are encoded into the open segment's raw buffer; a segment is
 * closed when it reaches seg_max_raw bytes, when seg_max_age_ns has passed
 * since its first record, when another kind of segment is needed, or on
 * ppf_writer_flush().  A closed segment is compressed (one zstd frame, or
 * stored raw when that is not smaller), checksummed and written with one
 * writev(), so a crash leaves whole segments plus at most one partial one.
 * Call stacks are interned per segment (STACK records) and tracepoint raw
 * data is XORed with the previous raw of the same event id when the sizes
 * match: both exploit the repetition of traces and both reset per segment.
 * The side band of each EVENTS segment is copied as it is written into a
 * DIGEST segment (digest.c), written after every digest_segs of them, before
 * a copied segment, at close and when asked (ppf_writer_flush_digest()).
 * Not here: decoding (decode.c) or reading files (reader.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/io.h"
#include "common/sys.h"
#include "format/internal.h"

struct stack_slot {
	uint64_t hash;
	uint32_t id;
	uint32_t nr;
	const uint64_t *frames;
};

struct ppf_writer {
	int fd;
	bool own_fd;
	ppf_sink_fn sink;		/* when set, output goes here instead of fd */
	void *sink_arg;
	int err;
	char errmsg[256];
	struct ppf_writer_opts opts;
	ZSTD_CCtx *cctx;
	uint64_t offset;		/* bytes written to the fd so far */
	uint64_t seq;			/* next segment's sequence number */

	/* the open segment */
	bool open;
	uint32_t kind;
	bool meta_full;			/* the last segment was metadata closed full: more follows */
	struct ppf_wbuf seg, body, cbuf;
	struct ppf_wbuf tcol;		/* the timed records' dt (PPF_SEGF_TIME_COL) */
	bool have_time;
	uint64_t first_ns, last_ns;	/* timed records of this segment */
	uint32_t nr_records, nr_samples;
	uint64_t opened_mono_ns;
	uint64_t file_last_ns;		/* last timed record of the file */

	/* per-segment interning */
	struct stack_slot *stab;
	size_t stab_cap, nr_stacks;
	struct ppf_arena frames;
	uint8_t **prev_raw;
	uint32_t *prev_sz, *prev_gen;
	uint32_t gen;
	size_t cap_prev;
	uint64_t prev_addr;		/* the previous KSYM addr or SYM start (DELTA_ADDR) */
	uint64_t *cpu_last;		/* by cpu: this segment's last SAMPLE time (gen-checked) */
	uint32_t *cpu_gen;
	size_t cap_cpu;
	struct ppf_ctrtab ctr;		/* COUNTER delta bases */
	struct ppf_digest_w dig;	/* the side band of the EVENTS segments since the last DIGEST */

	struct ppf_index_entry *idx;
	size_t nr_idx, cap_idx;
	struct ppf_writer_totals totals;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fail(struct ppf_writer *w, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->errmsg, sizeof(w->errmsg), "%s: %s", what, pp_strerror(err));
	}
	return err;
}

/*
 * Hand one piece to the sink: @nr is 1 (file header, trailer) or 2 (a
 * segment: header, payload).  The sink's error is sticky like a write error.
 */
static int sink_put(struct ppf_writer *w, const struct iovec *iov, int nr)
{
	struct ppf_chunk c = { .head = iov[0].iov_base, .head_sz = iov[0].iov_len };
	struct ppf_seg_hdr h;
	int rc;

	if (nr == 2) {
		c.what = PPF_CHUNK_SEGMENT;
		c.body = iov[1].iov_base;
		c.body_sz = iov[1].iov_len;
		if (ppf_seg_hdr_decode(c.head, &h) == 0) {
			c.seg_kind = h.kind;
			c.seq = h.seq;
			c.first_ns = h.first_ns;
			c.last_ns = h.last_ns;
			c.usize = h.usize;
			c.nr_records = h.nr_records;
			c.nr_samples = h.nr_samples;
		}
	} else {
		c.what = c.head_sz == PPF_FILE_HDR_SZ ? PPF_CHUNK_FILE_HDR : PPF_CHUNK_TRAILER;
	}
	rc = w->sink(w->sink_arg, &c);
	if (rc)
		return fail(w, rc < 0 ? rc : -EIO, "sink");
	w->offset += c.head_sz + c.body_sz;
	return 0;
}

/* Write @iov (consumed in place) to the fd or the sink. */
static int write_all(struct ppf_writer *w, struct iovec *iov, int nr)
{
	size_t n;
	int rc;

	if (w->sink)
		return sink_put(w, iov, nr);
	rc = pp_writev_full(w->fd, iov, nr, &n);
	w->offset += n;		/* a failed write's first part is in the file too */
	return rc ? fail(w, rc, "write") : 0;
}

static void writer_free(struct ppf_writer *w);

static int writer_init(int fd, bool own, ppf_sink_fn sink, void *sink_arg,
		       const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	struct ppf_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[PPF_FILE_HDR_SZ];
	struct timespec ts;

	*out = NULL;
	if (!w) {
		if (own)
			close(fd);
		return -ENOMEM;
	}
	w->fd = fd;
	w->own_fd = own;
	w->sink = sink;
	w->sink_arg = sink_arg;
	if (opts)
		w->opts = *opts;
	if (sink)
		w->opts.own_fd = false;
	if (!w->opts.seg_max_raw)
		w->opts.seg_max_raw = 1u << 20;
	if (w->opts.seg_max_raw > PPF_SEG_MAX_RAW / 2)
		w->opts.seg_max_raw = PPF_SEG_MAX_RAW / 2;
	if (!w->opts.zstd_level)
		w->opts.zstd_level = 3;
	if (!w->opts.digest_segs)
		w->opts.digest_segs = 16;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		if (own)
			close(fd);
		writer_free(w);
		return -ENOMEM;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opts.zstd_level);
	if (!w->opts.created_ns) {
		clock_gettime(CLOCK_REALTIME, &ts);
		w->opts.created_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	}
	ppf_file_hdr_encode(w->opts.created_ns, hdr);
	struct iovec iov = { hdr, sizeof(hdr) };
	int rc = write_all(w, &iov, 1);
	if (rc) {
		if (own)
			close(fd);
		writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int ppf_writer_open(const char *path, const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	int fd = pp_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	*out = NULL;
	if (fd < 0)
		return -errno;
	return writer_init(fd, true, NULL, NULL, opts, out);
}

int ppf_writer_open_fd(int fd, const struct ppf_writer_opts *opts, struct ppf_writer **out)
{
	return writer_init(fd, opts && opts->own_fd, NULL, NULL, opts, out);
}

int ppf_writer_open_cb(ppf_sink_fn fn, void *arg, const struct ppf_writer_opts *opts,
		       struct ppf_writer **out)
{
	*out = NULL;
	if (!fn)
		return -EINVAL;
	return writer_init(-1, false, fn, arg, opts, out);
}

uint64_t ppf_writer_bytes(const struct ppf_writer *w)
{
	return w->offset;
}

const char *ppf_writer_errmsg(const struct ppf_writer *w)
{
	return w && w->errmsg[0] ? w->errmsg : "no error";
}

void ppf_writer_totals(const struct ppf_writer *w, struct ppf_writer_totals *t)
{
	*t = w->totals;
}

static int index_add(struct ppf_writer *w, const struct ppf_index_entry *e)
{
	if (w->nr_idx == w->cap_idx) {
		size_t cap = w->cap_idx ? w->cap_idx * 2 : 64;
		struct ppf_index_entry *p = realloc(w->idx, cap * sizeof(*p));
		if (!p)
			return fail(w, -ENOMEM, "index");
		w->idx = p;
		w->cap_idx = cap;
	}
	w->idx[w->nr_idx++] = *e;
	return 0;
}

static void segment_reset(struct ppf_writer *w)
{
	w->open = false;
	w->seg.len = 0;
	w->tcol.len = 0;
	w->have_time = false;
	w->first_ns = w->last_ns = 0;
	w->nr_records = w->nr_samples = 0;
	w->nr_stacks = 0;
	w->prev_addr = 0;
	ppf_ctrtab_reset(&w->ctr);
	if (w->stab)
		memset(w->stab, 0, w->stab_cap * sizeof(*w->stab));
	ppf_arena_reset(&w->frames);
	w->gen++;
}

/*
 * Compress @len bytes of payload @raw (stored as is when that is not smaller), checksum,
 * write and index a segment of header @h (kind, flags, times and counts set; the rest
 * is filled in here).
 */
static int seg_emit(struct ppf_writer *w, struct ppf_seg_hdr *h, const uint8_t *raw, size_t len)
{
	uint8_t hdr[PPF_SEG_HDR_SZ];
	const uint8_t *payload = raw;
	size_t plen = len;
	int rc;

	h->seq = w->seq;
	h->usize = (uint32_t)len;
	size_t bound = ZSTD_compressBound(len);
	w->cbuf.len = 0;
	rc = ppf_wbuf_reserve(&w->cbuf, bound);
	if (rc)
		return fail(w, rc, "compress");
	size_t c = ZSTD_compress2(w->cctx, w->cbuf.data, w->cbuf.cap, raw, len);
	if (ZSTD_isError(c)) {
		snprintf(w->errmsg, sizeof(w->errmsg), "zstd: %s", ZSTD_getErrorName(c));
		return w->err = PP_EBAD_ZSTD;
	}
	if (c < len) {
		h->flags |= PPF_SEGF_ZSTD;
		payload = w->cbuf.data;
		plen = c;
	}
	h->csize = (uint32_t)plen;
	h->payload_crc = ppf_crc32c(0, payload, plen);
	ppf_seg_hdr_encode(h, hdr);

	struct ppf_index_entry e = {
		.offset = w->offset, .kind = h->kind, .seq = h->seq, .first_ns = h->first_ns,
		.last_ns = h->last_ns, .nr_records = h->nr_records,
	};
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)payload, plen } };
	rc = write_all(w, iov, 2);
	if (rc)
		return rc;
	w->seq++;
	w->totals.nr_segments++;
	w->totals.raw_bytes += h->usize;
	w->totals.comp_bytes += PPF_SEG_HDR_SZ + plen;
	if (h->kind != PPF_SEG_INDEX && (rc = index_add(w, &e)))
		return rc;
	return 0;
}

/* Write the digest of the EVENTS segments since the last one (none: nothing). */
static int digest_emit(struct ppf_writer *w)
{
	struct ppf_seg_hdr h = { .kind = PPF_SEG_DIGEST };
	int rc;

	if (w->err)
		return w->err;
	if (!w->dig.nr_segs)
		return 0;
	h.first_ns = w->dig.first_ns;
	h.last_ns = w->dig.last_ns;
	h.nr_records = w->dig.nr_records;
	rc = seg_emit(w, &h, w->dig.out.data, w->dig.out.len);
	ppf_digest_clear(&w->dig);
	return rc;
}

/* Compress, checksum and write the open segment. */
static int segment_close(struct ppf_writer *w)
{
	struct ppf_seg_hdr h = { 0 };
	int rc;

	if (!w->open)
		return 0;
	if (w->err)
		return w->err;
	h.kind = w->kind;
	h.flags = PPF_SEGF_CPU_TIME | PPF_SEGF_DELTA_ADDR | PPF_SEGF_XOR_CPU;
	if (w->tcol.len) {
		/*
		 * The time column after the records, its length last: the
		 * records, all alike but for their times, then compress to long
		 * matches, and the times to what their entropy costs (1.1-1.9
		 * -> 0.6-0.9 bytes an event on a syscall storm).
		 */
		rc = ppf_wbuf_reserve(&w->seg, w->tcol.len + 4);
		if (rc)
			return fail(w, rc, "segment");
		wb_bytes(&w->seg, w->tcol.data, w->tcol.len);
		for (int i = 0; i < 4; i++)
			wb_u8(&w->seg, (uint8_t)(w->tcol.len >> (8 * i)));	/* u32, little-endian */
		h.flags |= PPF_SEGF_TIME_COL;
	}
	h.first_ns = w->first_ns;
	h.last_ns = w->last_ns;
	h.nr_records = w->nr_records;
	h.nr_samples = w->nr_samples;
	rc = seg_emit(w, &h, w->seg.data, w->seg.len);
	if (rc)
		return rc;
	bool digest = h.kind == PPF_SEG_EVENTS && !w->opts.no_digest;
	if (digest && (rc = ppf_digest_seg_end(&w->dig, &h, (uint32_t)w->nr_stacks)))
		return fail(w, rc, "digest");
	segment_reset(w);
	/* a digest of digest_segs segments, or of about a segment's bytes */
	if (digest && (w->dig.nr_segs >= w->opts.digest_segs ||
		       w->dig.out.len >= w->opts.seg_max_raw))
		return digest_emit(w);
	return 0;
}

int ppf_writer_put_segment(struct ppf_writer *w, const void *seg, size_t len)
{
	const uint8_t *p = seg;
	struct ppf_seg_hdr h;
	uint8_t hdr[PPF_SEG_HDR_SZ];
	int rc;

	if (w->err)
		return w->err;
	if (len < PPF_SEG_HDR_SZ)
		return PP_EBAD_LENGTH;
	rc = ppf_seg_hdr_decode(p, &h);
	if (rc)
		return rc;
	if (h.csize != len - PPF_SEG_HDR_SZ || h.kind == PPF_SEG_INDEX)
		return PP_EBAD_LENGTH;
	if (ppf_crc32c(0, p + PPF_SEG_HDR_SZ, h.csize) != h.payload_crc)
		return PP_EBAD_CRC;
	rc = segment_close(w);
	/* this writer's digest before: its segments' entries are looked for in the first after them */
	if (!rc)
		rc = digest_emit(w);
	if (rc)
		return rc;
	h.seq = w->seq;
	ppf_seg_hdr_encode(&h, hdr);

	struct ppf_index_entry e = {
		.offset = w->offset, .kind = h.kind, .seq = h.seq, .first_ns = h.first_ns,
		.last_ns = h.last_ns, .nr_records = h.nr_records,
	};
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)(p + PPF_SEG_HDR_SZ), h.csize } };
	rc = write_all(w, iov, 2);
	if (rc)
		return rc;
	w->seq++;
	w->totals.nr_segments++;
	w->totals.raw_bytes += h.usize;
	w->totals.comp_bytes += len;
	w->totals.nr_samples += h.nr_samples;
	if (h.nr_records && h.last_ns > w->file_last_ns)
		w->file_last_ns = h.last_ns;
	return index_add(w, &e);
}

int ppf_writer_begin(struct ppf_writer *w, enum ppf_seg_kind kind)
{
	if (w->err)
		return w->err;
	if (w->open && w->kind == (uint32_t)kind)
		return 0;
	w->meta_full = false;
	int rc = segment_close(w);
	if (rc)
		return rc;
	w->open = true;
	w->kind = kind;
	w->opened_mono_ns = w->opts.seg_max_age_ns ? mono_ns() : 0;
	return 0;
}

int ppf_writer_flush(struct ppf_writer *w)
{
	return w->err ? w->err : segment_close(w);
}

int ppf_writer_flush_digest(struct ppf_writer *w)
{
	int rc = w->err ? w->err : segment_close(w);

	return rc ? rc : digest_emit(w);
}

int ppf_writer_tick(struct ppf_writer *w)
{
	if (w->err)
		return w->err;
	if (w->open && w->opts.seg_max_age_ns && w->nr_records &&
	    mono_ns() - w->opened_mono_ns >= w->opts.seg_max_age_ns)
		return segment_close(w);
	return 0;
}

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
 * Start a record of @type in a segment of @kind; the body is built in
 * w->body (reserved for @max_body bytes) and committed by rec_end().
 */
static int rec_begin(struct ppf_writer *w, enum ppf_seg_kind kind, size_t max_body)
{
	int rc;

	if (w->err)
		return w->err;
	if (!w->open || w->kind != (uint32_t)kind) {
		rc = ppf_writer_begin(w, kind);
		if (rc)
			return rc;
	}
	if (max_body > PPF_SEG_MAX_RAW / 4)
		return fail(w, PP_EBAD_LENGTH, "record too large");
	w->body.len = 0;
	rc = ppf_wbuf_reserve(&w->body, max_body);
	return rc ? fail(w, rc, "record") : 0;
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

/* The dt of a timed record goes to the time column, not its body (PPF_SEGF_TIME_COL). */
static int put_time(struct ppf_writer *w, uint64_t t, uint32_t cpu, uint64_t *late)
{
	int rc = ppf_wbuf_reserve(&w->tcol, PPF_VARINT_MAX);

	if (rc)
		return fail(w, rc, "segment");
	wb_varint(&w->tcol, time_delta(w, t, cpu, late));
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
		return fail(w, -ENOMEM, "cpu table");
	w->cpu_last = l;
	uint32_t *g = realloc(w->cpu_gen, cap * sizeof(*g));
	if (!g)
		return fail(w, -ENOMEM, "cpu table");
	w->cpu_gen = g;
	for (size_t i = w->cap_cpu; i < cap; i++)
		g[i] = w->gen - 1;
	w->cap_cpu = cap;
	return 0;
}

static int rec_done(struct ppf_writer *w);

static int rec_end(struct ppf_writer *w, uint8_t type)
{
	int rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + w->body.len);

	if (rc)
		return fail(w, rc, "segment");
	wb_u8(&w->seg, type);
	wb_varint(&w->seg, w->body.len);
	wb_bytes(&w->seg, w->body.data, w->body.len);
	/* every record of an EVENTS segment but SAMPLE and STACK is side band, and timed */
	if (w->kind == PPF_SEG_EVENTS && !w->opts.no_digest &&
	    (rc = ppf_digest_copy(&w->dig, type, w->last_ns, w->first_ns, w->body.data, w->body.len)))
		return fail(w, rc, "digest");
	return rec_done(w);
}

/* A record was appended to the segment: close it when full or old. */
static int rec_done(struct ppf_writer *w)
{
	w->nr_records++;
	if (w->seg.len + w->tcol.len >= w->opts.seg_max_raw) {
		w->meta_full = w->kind == PPF_SEG_META;
		return segment_close(w);
	}
	if (w->opts.seg_max_age_ns && (w->nr_records & 63) == 0)
		return ppf_writer_tick(w);
	return 0;
}

static inline size_t str_sz(const char *s)
{
	return PPF_VARINT_MAX + (s ? strlen(s) : 0) + 1;
}

static inline void wb_str(struct ppf_wbuf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wb_varint(b, n);
	wb_bytes(b, s ? s : "", n);
	wb_u8(b, 0);
}

int ppf_write_kv(struct ppf_writer *w, const char *key, const char *value)
{
	int rc = rec_begin(w, PPF_SEG_META, str_sz(key) + str_sz(value));

	if (rc)
		return rc;
	wb_str(&w->body, key);
	wb_str(&w->body, value);
	return rec_end(w, PPF_REC_KV);
}

int ppf_write_stat(struct ppf_writer *w, const char *key, uint64_t value)
{
	int rc = rec_begin(w, PPF_SEG_STATS, str_sz(key) + PPF_VARINT_MAX);

	if (rc)
		return rc;
	wb_str(&w->body, key);
	wb_varint(&w->body, value);
	return rec_end(w, PPF_REC_STAT);
}

int ppf_write_syscall(struct ppf_writer *w, uint32_t nr, const char *name)
{
	int rc = rec_begin(w, PPF_SEG_META, PPF_VARINT_MAX + str_sz(name));

	if (rc)
		return rc;
	wb_varint(&w->body, nr);
	wb_str(&w->body, name);
	return rec_end(w, PPF_REC_SYSCALL);
}

int ppf_write_event_desc(struct ppf_writer *w, const struct ppf_event_desc *d)
{
	int rc = rec_begin(w, PPF_SEG_META, 5 * PPF_VARINT_MAX + str_sz(d->name) +
			   str_sz(d->selector) + str_sz(d->filter) + d->attr_sz + str_sz(d->format));

	if (rc)
		return rc;
	wb_varint(&w->body, d->id);
	wb_varint(&w->body, d->kind);
	wb_varint(&w->body, d->flags);
	wb_varint(&w->body, d->tp_id);
	wb_str(&w->body, d->name);
	wb_str(&w->body, d->selector);
	wb_str(&w->body, d->filter);
	wb_varint(&w->body, d->attr_sz);
	wb_bytes(&w->body, d->attr, d->attr_sz);
	wb_str(&w->body, d->format);
	return rec_end(w, PPF_REC_EVENT_DESC);
}

int ppf_write_task(struct ppf_writer *w, const struct ppf_task *t)
{
	int rc = rec_begin(w, PPF_SEG_META, 3 * PPF_VARINT_MAX + str_sz(t->comm) + str_sz(t->cmdline));

	if (rc)
		return rc;
	wb_varint(&w->body, t->pid);
	wb_varint(&w->body, t->tid);
	wb_varint(&w->body, t->ppid);
	wb_str(&w->body, t->comm);
	wb_str(&w->body, t->cmdline);
	return rec_end(w, PPF_REC_TASK);
}

int ppf_write_ksym(struct ppf_writer *w, const struct ppf_ksym *k)
{
	int rc = rec_begin(w, PPF_SEG_KSYMS, PPF_VARINT_MAX + 1 + str_sz(k->name) + str_sz(k->module));

	if (rc)
		return rc;
	wb_varint(&w->body, zigzag((int64_t)(k->addr - w->prev_addr)));
	w->prev_addr = k->addr;
	wb_u8(&w->body, (uint8_t)k->type);
	wb_str(&w->body, k->name);
	wb_str(&w->body, k->module);
	return rec_end(w, PPF_REC_KSYM);
}

int ppf_write_dso(struct ppf_writer *w, const struct ppf_dso *d)
{
	if (d->build_id_sz > 64)
		return fail(w, PP_EBAD_LENGTH, "build id");
	int rc = rec_begin(w, PPF_SEG_USYMS, 6 * PPF_VARINT_MAX + d->build_id_sz + str_sz(d->path));

	if (rc)
		return rc;
	wb_varint(&w->body, d->build_id_sz);
	wb_bytes(&w->body, d->build_id, d->build_id_sz);
	wb_str(&w->body, d->path);
	wb_varint(&w->body, d->nr_syms);
	wb_varint(&w->body, d->flags);
	wb_varint(&w->body, d->text_vaddr);
	wb_varint(&w->body, d->text_offset);
	w->prev_addr = 0;	/* its SYMs count from 0 */
	return rec_end(w, PPF_REC_DSO);
}

int ppf_write_sym(struct ppf_writer *w, const struct ppf_sym *s)
{
	int rc = rec_begin(w, PPF_SEG_USYMS, 2 * PPF_VARINT_MAX + str_sz(s->name));

	if (rc)
		return rc;
	wb_varint(&w->body, zigzag((int64_t)(s->start - w->prev_addr)));
	w->prev_addr = s->start;
	wb_varint(&w->body, s->size);
	wb_str(&w->body, s->name);
	return rec_end(w, PPF_REC_SYM);
}

static uint64_t hash_frames(const uint64_t *f, uint32_t nr)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ nr;

	for (uint32_t i = 0; i < nr; i++) {
		h ^= f[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h | 1;	/* 0 marks an empty slot */
}

/* Find or define the segment-local id of a stack; emits a STACK record when new. */
static int stack_intern(struct ppf_writer *w, const uint64_t *f, uint32_t nr, uint32_t *id)
{
	uint64_t h = hash_frames(f, nr);
	size_t i;

	if (w->nr_stacks * 2 >= w->stab_cap) {
		size_t cap = w->stab_cap ? w->stab_cap * 2 : 1024;
		struct stack_slot *t = calloc(cap, sizeof(*t));
		if (!t)
			return fail(w, -ENOMEM, "stack table");
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
		return fail(w, -ENOMEM, "stack table");
	memcpy(copy, f, nr * sizeof(*f));
	w->stab[i] = (struct stack_slot){ h, (uint32_t)++w->nr_stacks, nr, copy };
	*id = (uint32_t)w->nr_stacks;

	/* the STACK record itself */
	size_t save = w->body.len;
	int rc = ppf_wbuf_reserve(&w->seg, 1 + 2 * PPF_VARINT_MAX + (size_t)(nr + 2) * PPF_VARINT_MAX);
	if (rc)
		return fail(w, rc, "segment");
	w->body.len = 0;
	rc = ppf_wbuf_reserve(&w->body, (size_t)(nr + 2) * PPF_VARINT_MAX);
	if (rc)
		return fail(w, rc, "record");
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
		size_t cap = w->cap_prev ? w->cap_prev : 64;
		while (cap <= id)
			cap *= 2;
		uint8_t **r = realloc(w->prev_raw, cap * sizeof(*r));
		if (!r)
			return fail(w, -ENOMEM, "xor table");
		w->prev_raw = r;
		uint32_t *s = realloc(w->prev_sz, cap * sizeof(*s));
		if (!s)
			return fail(w, -ENOMEM, "xor table");
		w->prev_sz = s;
		uint32_t *g = realloc(w->prev_gen, cap * sizeof(*g));
		if (!g)
			return fail(w, -ENOMEM, "xor table");
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
			return fail(w, -ENOMEM, "xor table");
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
 * longer varint.  The bytes are those rec_begin()/rec_end() would write.
 */
int ppf_write_sample(struct ppf_writer *w, const struct ppf_sample *s)
{
	uint32_t flags = s->flags & (PPF_SF_IP | PPF_SF_ADDR);
	uint32_t stack_id = 0;
	uint64_t late;
	int rc;

	if (s->nr_stack > PPF_MAX_STACK || s->raw_sz > PPF_SEG_MAX_RAW / 8 ||
	    s->extra_sz > PPF_SEG_MAX_RAW / 8)
		return fail(w, PP_EBAD_LENGTH, "sample too large");
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
	size_t max_body = 12 * PPF_VARINT_MAX + s->raw_sz + s->extra_sz;
	if (max_body > PPF_SEG_MAX_RAW / 4)
		return fail(w, PP_EBAD_LENGTH, "record too large");
	rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + max_body);
	if (!rc)
		rc = ppf_wbuf_reserve(&w->tcol, PPF_VARINT_MAX);
	if (rc)
		return fail(w, rc, "segment");
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
	return rec_done(w);
}

int ppf_write_comm(struct ppf_writer *w, const struct ppf_comm *c)
{
	uint64_t late;
	int rc = rec_begin(w, PPF_SEG_EVENTS, 4 * PPF_VARINT_MAX + str_sz(c->comm));

	if (rc)
		return rc;
	rc = put_time(w, c->time_ns, UINT32_MAX, &late);
	if (rc)
		return rc;
	wb_varint(&w->body, c->pid);
	wb_varint(&w->body, c->tid);
	wb_varint(&w->body, c->exec);
	wb_str(&w->body, c->comm);
	return rec_end(w, PPF_REC_COMM);
}

static int write_task_event(struct ppf_writer *w, const struct ppf_task_event *f, uint8_t type)
{
	uint64_t late;
	int rc = rec_begin(w, PPF_SEG_EVENTS, 5 * PPF_VARINT_MAX);

	if (rc)
		return rc;
	rc = put_time(w, f->time_ns, UINT32_MAX, &late);
	if (rc)
		return rc;
	wb_varint(&w->body, f->pid);
	wb_varint(&w->body, f->ppid);
	wb_varint(&w->body, f->tid);
	wb_varint(&w->body, f->ptid);
	return rec_end(w, type);
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
	uint64_t late;

	if (m->build_id_sz > 64)
		return fail(w, PP_EBAD_LENGTH, "build id");
	/* snapshot maps go with the metadata; later ones with the events */
	int rc = rec_begin(w, snapshot_kind(w),
			   10 * PPF_VARINT_MAX + m->build_id_sz + str_sz(m->path));

	if (rc)
		return rc;
	rc = put_time(w, m->time_ns, UINT32_MAX, &late);
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
	return rec_end(w, PPF_REC_MMAP);
}

int ppf_write_lost(struct ppf_writer *w, const struct ppf_lost *l)
{
	uint64_t late;
	int rc = rec_begin(w, PPF_SEG_EVENTS, 4 * PPF_VARINT_MAX);

	if (rc)
		return rc;
	rc = put_time(w, l->time_ns, UINT32_MAX, &late);
	if (rc)
		return rc;
	wb_varint(&w->body, l->cpu);
	wb_varint(&w->body, l->id);
	wb_varint(&w->body, l->count);
	return rec_end(w, PPF_REC_LOST);
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
	uint64_t late, flags = 0, t;
	int rc;

	if (!c->nr || c->nr > PPF_COUNTER_MAX)
		return fail(w, PP_EBAD_LENGTH, "counter record");
	rc = rec_begin(w, PPF_SEG_EVENTS, (6 + 2 * (size_t)c->nr) * PPF_VARINT_MAX);
	if (rc)
		return rc;
	rc = put_time(w, c->time_ns, UINT32_MAX, &late);
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
			return fail(w, rc, "counter table");
		if (e) {
			e->value = v->value;
			e->enabled = c->enabled;
			e->running = c->running;
			e->time = t;
		}
	}
	return rec_end(w, PPF_REC_COUNTER);
}

int ppf_write_time_sync(struct ppf_writer *w, const struct ppf_time_sync *s)
{
	uint64_t late;
	int rc = rec_begin(w, snapshot_kind(w),
			   2 * PPF_VARINT_MAX);

	if (rc)
		return rc;
	rc = put_time(w, s->time_ns, UINT32_MAX, &late);
	if (rc)
		return rc;
	wb_varint(&w->body, s->realtime_ns);
	return rec_end(w, PPF_REC_TIME_SYNC);
}

int ppf_write_sideband(struct ppf_writer *w, const struct ppf_sideband *s)
{
	uint64_t late;

	if (s->size > PPF_SEG_MAX_RAW / 8)
		return fail(w, PP_EBAD_LENGTH, "sideband record");
	int rc = rec_begin(w, PPF_SEG_EVENTS, 6 * PPF_VARINT_MAX + s->size);

	if (rc)
		return rc;
	rc = put_time(w, s->time_ns, UINT32_MAX, &late);
	if (rc)
		return rc;
	wb_varint(&w->body, s->perf_type);
	wb_varint(&w->body, s->cpu);
	wb_varint(&w->body, s->size);
	wb_bytes(&w->body, s->data, s->size);
	wb_varint(&w->body, s->pid);
	wb_varint(&w->body, s->tid);
	return rec_end(w, PPF_REC_SIDEBAND);
}

static int write_index(struct ppf_writer *w)
{
	uint64_t index_off;
	uint8_t trailer[PPF_TRAILER_SZ];
	int rc;

	rc = segment_close(w);
	if (!rc)
		rc = digest_emit(w);
	if (rc)
		return rc;
	index_off = w->offset;
	rc = ppf_writer_begin(w, PPF_SEG_INDEX);
	for (size_t i = 0; !rc && i < w->nr_idx; i++) {
		const struct ppf_index_entry *e = &w->idx[i];
		rc = rec_begin(w, PPF_SEG_INDEX, 6 * PPF_VARINT_MAX);
		if (rc)
			break;
		wb_varint(&w->body, e->offset);
		wb_varint(&w->body, e->kind);
		wb_varint(&w->body, e->seq);
		wb_varint(&w->body, e->first_ns);
		wb_varint(&w->body, e->last_ns - e->first_ns);
		wb_varint(&w->body, e->nr_records);
		/* the index is one segment whatever its size: bypass rec_end's split */
		rc = ppf_wbuf_reserve(&w->seg, 1 + PPF_VARINT_MAX + w->body.len);
		if (rc)
			return fail(w, rc, "index");
		wb_u8(&w->seg, PPF_REC_INDEX_ENTRY);
		wb_varint(&w->seg, w->body.len);
		wb_bytes(&w->seg, w->body.data, w->body.len);
		w->nr_records++;
	}
	if (!rc)
		rc = segment_close(w);
	if (rc)
		return rc;
	put_le64(trailer, index_off);
	put_le32(trailer + 8, ppf_crc32c(0, trailer, 8));
	put_le32(trailer + 12, PPF_TRAILER_MAGIC);
	struct iovec iov = { trailer, sizeof(trailer) };
	return write_all(w, &iov, 1);
}

int ppf_writer_close(struct ppf_writer *w)
{
	int rc;

	if (!w)
		return 0;
	rc = w->err;
	if (!rc && w->cctx)
		rc = w->opts.no_index ? segment_close(w) : write_index(w);
	if (!rc && w->cctx && w->opts.no_index)
		rc = digest_emit(w);
	if (w->own_fd && close(w->fd) && !rc)
		rc = -errno;
	writer_free(w);
	return rc;
}

static void writer_free(struct ppf_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	ppf_wbuf_release(&w->seg);
	ppf_wbuf_release(&w->body);
	ppf_wbuf_release(&w->cbuf);
	ppf_wbuf_release(&w->tcol);
	free(w->stab);
	ppf_arena_release(&w->frames);
	for (size_t i = 0; i < w->cap_prev; i++)
		free(w->prev_raw[i]);
	free(w->prev_raw);
	free(w->prev_sz);
	free(w->prev_gen);
	free(w->cpu_last);
	free(w->cpu_gen);
	ppf_ctrtab_release(&w->ctr);
	ppf_digest_w_release(&w->dig);
	free(w->idx);
	free(w);
}
