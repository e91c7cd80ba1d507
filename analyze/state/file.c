/* SPDX-License-Identifier: MIT */
/*
 * file.c - the state file as bytes: header, sections, END (docs/state-format.md).
 *
 * Decoding treats the file as hostile, as the capture reader does: the header
 * and every section are checked (CRC, sizes against what is left) before their
 * payload is parsed, every length and count inside is checked by common/wire.c,
 * and the required sections must each come once, in order, before END, with
 * nothing after it - so a truncated or spliced file is refused, never half read.
 * Not here: what CONTEXT holds (context.c), what an analyzer section holds (the
 * analyzer's state_read).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/state/internal.h"
#include "common/err.h"
#include "common/log.h"
#include "format/format.h"

static void put_le16(struct pp_buf *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	pp_buf_add(b, x, 2);
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

/* A section's crc covers its kind, flags and size, then its payload. */
static uint32_t section_crc(const uint8_t *hdr, const void *p, size_t n)
{
	return ppf_crc32c(ppf_crc32c(0, hdr, 8), p, n);
}

static void section(struct pp_buf *out, unsigned kind, const void *p, size_t n)
{
	size_t at = out->len;

	put_le16(out, (uint16_t)kind);
	put_le16(out, ANA_SECF_REQUIRED);
	pp_wire_put_le32(out, (uint32_t)n);
	pp_wire_put_le32(out, section_crc((const uint8_t *)out->data + at, p, n));
	if (n)
		pp_buf_add(out, p, n);
}

static void encode_ident(const struct ana_state *st, struct pp_buf *b)
{
	pp_wire_put_str(b, st->analyzer);
	pp_wire_put_varint(b, st->version);
	pp_wire_put_varint(b, (uint64_t)(st->argc > 0 ? st->argc - 1 : 0));
	for (int i = 1; i < st->argc; i++)
		pp_wire_put_str(b, st->argv[i]);
	pp_wire_put_str(b, st->options);
	pp_wire_put_varint(b, st->nr_matches);
	for (size_t i = 0; i < st->nr_matches; i++) {
		pp_wire_put_varint(b, st->matches[i].pos);
		pp_wire_put_str(b, st->matches[i].name);
	}
}

static void encode_sources(const struct ana_state *st, struct pp_buf *b)
{
	pp_wire_put_varint(b, st->nr_srcs);
	for (size_t i = 0; i < st->nr_srcs; i++) {
		const struct ana_ssrc *s = &st->srcs[i];

		pp_wire_put_varint(b, s->created_ns);
		pp_wire_put_varint(b, s->fingerprint);
		pp_wire_put_str(b, s->host);
		pp_wire_put_str(b, s->path);
		pp_wire_put_varint(b, s->range_start_ns);
		pp_wire_put_varint(b, s->range_end_ns);
		pp_wire_put_varint(b, s->first_ns);
		pp_wire_put_varint(b, s->last_ns);
		pp_wire_put_u8(b, s->have_sync);
		pp_wire_put_varint(b, s->sync_perf_ns);
		pp_wire_put_varint(b, s->sync_real_ns);
	}
}

void ana_state_encode(const struct ana_state *st, const void *az_sec, size_t az_sz,
		      struct pp_buf *out)
{
	struct pp_buf sec = PP_BUF_INIT;
	uint8_t hdr[ANA_STATE_HDR_SZ] = { 0 };
	size_t end_at;

	memcpy(hdr, ANA_STATE_MAGIC, 8);
	hdr[8] = ANA_STATE_MAJOR;
	hdr[10] = ANA_STATE_MINOR;
	hdr[12] = ANA_STATE_HDR_SZ;
	hdr[16] = 0x04, hdr[17] = 0x03, hdr[18] = 0x02, hdr[19] = 0x01;
	uint32_t crc = ppf_crc32c(0, hdr, 28);
	hdr[28] = (uint8_t)crc, hdr[29] = (uint8_t)(crc >> 8);
	hdr[30] = (uint8_t)(crc >> 16), hdr[31] = (uint8_t)(crc >> 24);
	pp_buf_reset(out);
	pp_buf_add(out, hdr, sizeof(hdr));

	encode_ident(st, &sec);
	section(out, ANA_SEC_IDENT, sec.data, sec.len);
	pp_buf_reset(&sec);
	encode_sources(st, &sec);
	section(out, ANA_SEC_SOURCES, sec.data, sec.len);
	pp_buf_reset(&sec);
	ana_sctx_encode(&st->ctx, &sec);
	section(out, ANA_SEC_CONTEXT, sec.data, sec.len);
	section(out, ANA_SEC_ANALYZER, az_sec, az_sz);
	end_at = out->len;
	pp_buf_reset(&sec);
	pp_wire_put_le64(&sec, end_at);
	section(out, ANA_SEC_END, sec.data, sec.len);
	pp_buf_release(&sec);
}

/* --- decoding --------------------------------------------------------------- */

static int decode_ident(struct pp_wire *r, struct ana_state *st)
{
	size_t n;

	st->analyzer = pp_xstrdup(pp_wire_str(r));
	st->version = pp_wire_u32(r, "state version");
	n = pp_wire_count(r, 2, ANA_STATE_MAX_ARGS, "arguments");
	if (!pp_wire_ok(r))
		return r->err;
	if (!*st->analyzer)
		return pp_wire_fail(r, PP_EBAD_RECORD, "no analyzer named");
	st->argv = pp_xcalloc(n + 2, sizeof(*st->argv));
	st->argv[0] = pp_xstrdup(st->analyzer);
	st->argc = 1;
	for (size_t i = 0; i < n && pp_wire_ok(r); i++)
		st->argv[st->argc++] = pp_xstrdup(pp_wire_str(r));
	st->options = pp_xstrdup(pp_wire_str(r));
	n = pp_wire_count(r, 3, ANA_STATE_MAX_EVENTS, "matched events");
	st->matches = pp_xcalloc(n + 1, sizeof(*st->matches));
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		st->matches[i].pos = pp_wire_u32(r, "event position");
		st->matches[i].name = pp_xstrdup(pp_wire_str(r));
		st->nr_matches++;
	}
	return r->err;
}

static int decode_sources(struct pp_wire *r, struct ana_state *st)
{
	size_t n = pp_wire_count(r, 13, ANA_STATE_MAX_SOURCES, "sources");

	if (!pp_wire_ok(r))
		return r->err;
	if (!n)
		return pp_wire_fail(r, PP_EBAD_RECORD, "no source");
	st->srcs = pp_xcalloc(n, sizeof(*st->srcs));
	for (size_t i = 0; i < n; i++) {
		struct ana_ssrc *s = &st->srcs[i];
		uint8_t sync;

		s->created_ns = pp_wire_varint(r);
		s->fingerprint = pp_wire_u32(r, "fingerprint");
		s->host = pp_xstrdup(pp_wire_str(r));
		s->path = pp_xstrdup(pp_wire_str(r));
		st->nr_srcs++;
		s->range_start_ns = pp_wire_varint(r);
		s->range_end_ns = pp_wire_varint(r);
		s->first_ns = pp_wire_varint(r);
		s->last_ns = pp_wire_varint(r);
		sync = pp_wire_u8(r);
		s->have_sync = sync == 1;
		s->sync_perf_ns = pp_wire_varint(r);
		s->sync_real_ns = pp_wire_varint(r);
		if (!pp_wire_ok(r))
			return r->err;
		if (sync > 1 || (s->range_end_ns && s->range_end_ns < s->range_start_ns) ||
		    s->first_ns > s->last_ns)
			return pp_wire_fail(r, PP_EBAD_RECORD, "source %zu: bad range or flags", i);
		if (i && ana_ssrc_cmp(&st->srcs[i - 1], s) >= 0)
			return pp_wire_fail(r, PP_EBAD_RECORD, "sources out of order");
		if (i && ana_ssrc_overlap(&st->srcs[i - 1], s))
			return pp_wire_fail(r, PP_EBAD_RECORD, "sources %zu and %zu overlap", i - 1, i);
	}
	return 0;
}

/* Parse one required section's payload; anything left over is an error too. */
static int decode_section(unsigned kind, const uint8_t *p, size_t n, struct ana_state *st,
			  char *err, size_t errsz)
{
	static const char *const names[] = { "", "IDENT", "SOURCES", "CONTEXT" };
	struct pp_wire r;
	int rc;

	pp_wire_init(&r, p, n);
	rc = kind == ANA_SEC_IDENT ? decode_ident(&r, st) :
	     kind == ANA_SEC_SOURCES ? decode_sources(&r, st) : ana_sctx_decode(&r, &st->ctx);
	if (!rc && pp_wire_left(&r))
		rc = pp_wire_fail(&r, PP_EBAD_LENGTH, "%zu bytes after its end", pp_wire_left(&r));
	if (rc)
		snprintf(err, errsz, "section %s: %s", names[kind], r.msg[0] ? r.msg : pp_strerror(rc));
	return rc;
}

int ana_state_decode(const uint8_t *data, size_t size, struct ana_state *st, char *err,
		     size_t errsz)
{
	size_t off = ANA_STATE_HDR_SZ;
	unsigned next = ANA_SEC_IDENT;
	int rc;

	if (size < ANA_STATE_HDR_SZ || memcmp(data, ANA_STATE_MAGIC, 8)) {
		snprintf(err, errsz, "not a pp state (bad magic)");
		return PP_EBAD_MAGIC;
	}
	if (get_le32(data + 28) != ppf_crc32c(0, data, 28)) {
		snprintf(err, errsz, "header checksum mismatch");
		return PP_EBAD_CRC;
	}
	if (get_le16(data + 8) != ANA_STATE_MAJOR) {
		snprintf(err, errsz, "state format %u.%u: this pp-analyze reads %u.x",
			 get_le16(data + 8), get_le16(data + 10), ANA_STATE_MAJOR);
		return PP_EVERSION;
	}
	if (get_le16(data + 12) != ANA_STATE_HDR_SZ || get_le32(data + 16) != ANA_STATE_ENDIAN ||
	    get_le32(data + 20)) {
		snprintf(err, errsz, "bad header (size, endian tag or flags)");
		return PP_EBAD_RECORD;
	}
	for (;;) {
		unsigned kind, flags;
		uint32_t n;
		const uint8_t *p;

		if (size - off < ANA_STATE_SEC_HDR_SZ) {
			snprintf(err, errsz, "truncated at offset %zu: no END section", off);
			return PP_ETRUNCATED;
		}
		kind = get_le16(data + off);
		flags = get_le16(data + off + 2);
		n = get_le32(data + off + 4);
		p = data + off + ANA_STATE_SEC_HDR_SZ;
		if (n > size - off - ANA_STATE_SEC_HDR_SZ) {
			snprintf(err, errsz, "section %u at offset %zu: %u bytes, %zu left%s", kind,
				 off, n, size - off - ANA_STATE_SEC_HDR_SZ,
				 kind == ANA_SEC_END ? "" : " (truncated?)");
			return PP_ETRUNCATED;
		}
		if (get_le32(data + off + 8) != section_crc(data + off, p, n)) {
			snprintf(err, errsz, "section %u at offset %zu: checksum mismatch", kind, off);
			return PP_EBAD_CRC;
		}
		if (kind == ANA_SEC_END) {
			if (next <= ANA_SEC_ANALYZER) {
				snprintf(err, errsz, "END at offset %zu before the required sections",
					 off);
				return PP_EBAD_RECORD;
			}
			if (n != 8 || get_le64(p) != off || off + ANA_STATE_SEC_HDR_SZ + n != size) {
				snprintf(err, errsz, "END at offset %zu: bad, or bytes after it", off);
				return PP_EBAD_RECORD;
			}
			return 0;
		}
		if (kind != next || kind > ANA_SEC_ANALYZER) {
			if ((flags & ANA_SECF_REQUIRED) || (kind >= ANA_SEC_IDENT &&
							    kind <= ANA_SEC_ANALYZER)) {
				snprintf(err, errsz, "section %u at offset %zu: %s", kind, off,
					 kind >= ANA_SEC_IDENT && kind <= ANA_SEC_ANALYZER
						 ? "out of order or repeated"
						 : "required, and unknown to this pp-analyze");
				return PP_EFEATURE;
			}
			off += ANA_STATE_SEC_HDR_SZ + n;	/* an optional section of a newer minor */
			continue;
		}
		if (kind == ANA_SEC_ANALYZER) {
			st->az_data = pp_xmalloc(n + 1);
			memcpy(st->az_data, p, n);
			st->az_size = n;
		} else {
			rc = decode_section(kind, p, n, st, err, errsz);
			if (rc)
				return rc;
		}
		next++;
		off += ANA_STATE_SEC_HDR_SZ + n;
	}
}

void ana_state_release(struct ana_state *st)
{
	free(st->path);
	free(st->analyzer);
	for (int i = 0; st->argv && i < st->argc; i++)
		free(st->argv[i]);
	free(st->argv);
	free(st->argv_view);
	free(st->options);
	for (size_t i = 0; i < st->nr_matches; i++)
		free(st->matches[i].name);
	free(st->matches);
	for (size_t i = 0; i < st->nr_srcs; i++)
		ana_ssrc_release(&st->srcs[i]);
	free(st->srcs);
	ana_sctx_release(&st->ctx);
	free(st->az_data);
	memset(st, 0, sizeof(*st));
}

void ana_state_free(struct ana_state *st)
{
	if (!st)
		return;
	ana_state_release(st);
	free(st);
}

static int read_all(FILE *fp, struct pp_buf *b, char *err, size_t errsz)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (b->len + n > ANA_STATE_MAX_FILE) {
			snprintf(err, errsz, "over %llu bytes: not a state this pp-analyze reads",
				 (unsigned long long)ANA_STATE_MAX_FILE);
			return PP_ERANGE;
		}
		pp_buf_add(b, chunk, n);
	}
	if (ferror(fp)) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -EIO;
	}
	return 0;
}

int ana_state_load(const char *path, struct ana_state **out, char *err, size_t errsz)
{
	struct ana_state *st = pp_xcalloc(1, sizeof(*st));
	struct pp_buf b = PP_BUF_INIT;
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char why[320];
	int rc;

	*out = NULL;
	if (!fp) {
		rc = -errno;
		snprintf(err, errsz, "cannot open state '%s': %s", path, strerror(errno));
		free(st);
		return rc;
	}
	rc = read_all(fp, &b, why, sizeof(why));
	if (fp != stdin)
		fclose(fp);
	if (!rc)
		rc = ana_state_decode((const uint8_t *)(b.data ? b.data : ""), b.len, st, why,
				      sizeof(why));
	pp_buf_release(&b);
	if (rc) {
		snprintf(err, errsz, "'%s': %s", path, why);
		ana_state_free(st);
		return rc;
	}
	st->path = pp_xstrdup(path);
	*out = st;
	return 0;
}

int ana_state_write_file(const char *path, const struct pp_buf *buf, char *err, size_t errsz)
{
	char *tmp;
	FILE *fp;
	int e;

	if (!strcmp(path, "-")) {
		if (isatty(fileno(stdout))) {
			snprintf(err, errsz, "not writing a binary state to a terminal: "
				 "give --state-out FILE, or redirect standard output");
			return PP_EUSAGE;
		}
		if (fwrite(buf->data, 1, buf->len, stdout) != buf->len || fflush(stdout)) {
			snprintf(err, errsz, "cannot write the state to standard output: %s",
				 strerror(errno));
			return -EIO;
		}
		return 0;
	}
	/*
	 * Not a regular file (/dev/null, a FIFO, a terminal's device): written in place.
	 * Renamed onto, /dev/null became a regular file holding the state.
	 */
	struct stat sb;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		fp = fopen(path, "wb");
		if (!fp || fwrite(buf->data, 1, buf->len, fp) != buf->len || fflush(fp)) {
			e = errno;
			if (fp)
				fclose(fp);
			snprintf(err, errsz, "cannot write state '%s': %s", path, strerror(e));
			return -e;
		}
		fclose(fp);
		return 0;
	}
	/* a state appears whole or not at all: a killed run leaves only PATH.tmp */
	tmp = pp_xmalloc(strlen(path) + 5);
	sprintf(tmp, "%s.tmp", path);
	fp = fopen(tmp, "wb");
	if (!fp) {
		e = errno;
		snprintf(err, errsz, "cannot write state '%s': %s", tmp, strerror(e));
		free(tmp);
		return -e;
	}
	if (fwrite(buf->data, 1, buf->len, fp) != buf->len || fflush(fp) || fsync(fileno(fp))) {
		e = errno;
		fclose(fp);
		unlink(tmp);
		snprintf(err, errsz, "cannot write state '%s': %s", path, strerror(e));
		free(tmp);
		return -e;
	}
	if (fclose(fp) || rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		snprintf(err, errsz, "cannot write state '%s': %s", path, strerror(e));
		free(tmp);
		return -e;
	}
	free(tmp);
	return 0;
}
