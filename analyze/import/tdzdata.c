/* SPDX-License-Identifier: MIT */
/*
 * tdzdata.c - a CPU's zstd chunks decompressed in turn into two buffers (tdzdata.h).
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "analyze/import/tdzdata.h"

#define MAX_CHUNK (64u << 20)		/* a chunk's decompressed size, at most */

struct ana_td_zcpu {
	const uint8_t *file;
	uint64_t file_sz;
	uint64_t at;			/* the next chunk's header */
	uint32_t left;			/* chunks not yet decompressed */
	uint32_t page_sz;
	ZSTD_DCtx *dctx;
	uint8_t *buf[2];
	size_t cap[2];
	unsigned cur;			/* buf[cur] holds the chunk being read */
	size_t len, pos;		/* its size (whole pages), the next page in it */
	uint64_t base;			/* its offset in the CPU's data */
	bool plain;			/* @file's pages as they are, from @at up to @end */
	uint64_t end;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct ana_td_zcpu *ana_td_z_open(const uint8_t *file, uint64_t file_sz, uint64_t off,
				  uint64_t size, bool plain, uint32_t page_sz)
{
	struct ana_td_zcpu *z;

	/* whole pages only: libtracecmd reads a short last one past the CPU's data */
	if (!page_sz || off > file_sz || file_sz - off < 4 || (plain && size % page_sz) ||
	    !(z = calloc(1, sizeof(*z))))
		return NULL;
	if (plain) {
		z->plain = true;
		z->file = file;
		z->at = off;
		z->end = size < file_sz - off ? off + size : file_sz;
		z->page_sz = page_sz;
		return z;
	}
	z->dctx = ZSTD_createDCtx();
	if (!z->dctx) {
		free(z);
		return NULL;
	}
	z->file = file;
	z->file_sz = file_sz;
	z->left = le32(file + off);
	z->at = off + 4;
	z->page_sz = page_sz;
	return z;
}

/* The next chunk into the other buffer.  Return: 0, or -1 (none left, or a bad one). */
static int next_chunk(struct ana_td_zcpu *z)
{
	unsigned b = z->cur ^ 1;
	uint32_t csize, usize;
	size_t room, got;

	if (!z->left || z->file_sz - z->at < 8)
		return -1;
	csize = le32(z->file + z->at);
	usize = le32(z->file + z->at + 4);
	if (csize > z->file_sz - z->at - 8 || !usize || usize > MAX_CHUNK)
		return -1;
	/* whole pages: a short last page reads as zeros */
	room = ((size_t)usize + z->page_sz - 1) / z->page_sz * z->page_sz;
	if (room > z->cap[b]) {
		uint8_t *n = realloc(z->buf[b], room);

		if (!n)
			return -1;
		z->buf[b] = n;
		z->cap[b] = room;
	}
	got = ZSTD_decompressDCtx(z->dctx, z->buf[b], usize, z->file + z->at + 8, csize);
	if (ZSTD_isError(got) || got != usize)
		return -1;
	memset(z->buf[b] + usize, 0, room - usize);
	z->base += z->len;
	z->cur = b;
	z->len = room;
	z->pos = 0;
	z->at += 8 + (uint64_t)csize;
	z->left--;
	return 0;
}

void *ana_td_z_next(struct ana_td_zcpu *z, uint64_t *off)
{
	void *page;

	if (z->plain) {
		if (z->at >= z->end || z->end - z->at < z->page_sz)
			return NULL;	/* a page past the file: libtracecmd's (a cut file) */
		*off = z->base;
		z->base += z->page_sz;
		z->at += z->page_sz;
		return (void *)(z->file + z->at - z->page_sz);
	}
	if (z->pos >= z->len && next_chunk(z))
		return NULL;
	page = z->buf[z->cur] + z->pos;
	*off = z->base + z->pos;
	z->pos += z->page_sz;
	return page;
}

void ana_td_z_free(struct ana_td_zcpu *z)
{
	if (!z)
		return;
	ZSTD_freeDCtx(z->dctx);
	free(z->buf[0]);
	free(z->buf[1]);
	free(z);
}
