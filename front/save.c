/* SPDX-License-Identifier: MIT */
/*
 * save.c - `pp ... --save FILE`: the live stream copied into a complete capture.
 *
 * The stream is cut into its pieces as it passes: the file header (which
 * opens a capture writer with the stream's creation time), then each segment
 * (a header, then as many bytes as its csize says), handed whole to
 * ppf_writer_put_segment(), which checks it and indexes it.  Anything that is
 * no segment (the stream's trailer) ends the copy; the writer then writes its
 * own index and trailer.
 * Not here: reading the stream and feeding pp-analyze (live.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "format/format.h"
#include "front/live.h"

/* Where the file header keeps its creation time, a segment header its csize (capture-format.md). */
#define SAVE_HDR_CREATED_OFF 40
#define SAVE_SEG_CSIZE_OFF 32

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void front_saver_init(struct front_saver *sv, const char *path)
{
	*sv = (struct front_saver){ .path = path, .need = PPF_FILE_HDR_SZ };
}

static void saver_fail(struct front_saver *sv, const char *what)
{
	pp_err("cannot save '%s': %s", sv->path, what);
	sv->failed = true;
}

/* The file header is in sv->buf: open the writer. */
static void saver_header(struct front_saver *sv)
{
	struct ppf_writer_opts o = { 0 };
	int rc;

	if (memcmp(sv->buf, PPF_FILE_MAGIC, 8)) {
		saver_fail(sv, "the stream is not a pp capture");
		return;
	}
	for (int i = 7; i >= 0; i--)
		o.created_ns = o.created_ns << 8 | sv->buf[SAVE_HDR_CREATED_OFF + i];
	rc = ppf_writer_open(sv->path, &o, &sv->w);
	if (rc) {
		saver_fail(sv, pp_strerror(rc));
		return;
	}
	sv->have_hdr = true;
	sv->len = 0;
	sv->need = PPF_SEG_HDR_SZ;
}

/* A whole piece is in sv->buf: the file header opens the writer, a segment is copied. */
static void saver_piece(struct front_saver *sv)
{
	int rc;

	if (!sv->have_hdr) {
		saver_header(sv);
		return;
	}
	if (sv->need == PPF_SEG_HDR_SZ) {
		if (le32(sv->buf) != PPF_SEG_MAGIC) {
			sv->need = SIZE_MAX;	/* a trailer, or garbage: the end */
			return;
		}
		sv->need += le32(sv->buf + SAVE_SEG_CSIZE_OFF);
		if (sv->need > PPF_SEG_HDR_SZ)
			return;
	}
	rc = ppf_writer_put_segment(sv->w, sv->buf, sv->len);
	if (rc == PP_EBAD_CRC || rc == PP_EBAD_LENGTH || rc == PP_EBAD_MAGIC)
		pp_warn("'%s': a damaged segment of the stream is left out", sv->path);
	else if (rc) {
		saver_fail(sv, ppf_writer_errmsg(sv->w));
		return;
	}
	sv->len = 0;
	sv->need = PPF_SEG_HDR_SZ;
}

void front_saver_add(struct front_saver *sv, const uint8_t *p, size_t n)
{
	while (n && !sv->failed && sv->need != SIZE_MAX) {
		size_t take = sv->need - sv->len < n ? sv->need - sv->len : n;

		if (sv->len + take > sv->cap) {
			sv->cap = sv->len + take > 2 * sv->cap ? sv->len + take : 2 * sv->cap;
			sv->buf = pp_xrealloc(sv->buf, sv->cap);
		}
		memcpy(sv->buf + sv->len, p, take);
		sv->len += take;
		p += take;
		n -= take;
		if (sv->len == sv->need)
			saver_piece(sv);
	}
}

void front_saver_close(struct front_saver *sv)
{
	if (sv->w) {
		int rc = ppf_writer_close(sv->w);

		if (rc && !sv->failed)
			pp_err("cannot save '%s': %s", sv->path, pp_strerror(rc));
	} else if (!sv->failed) {
		pp_err("cannot save '%s': the stream was empty", sv->path);
	}
	free(sv->buf);
}
