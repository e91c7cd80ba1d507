/* SPDX-License-Identifier: MIT */
/*
 * tdpage.c - a ring-buffer page's records walked here, or by kbuffer (tdpage.h).
 *
 * The walk keeps kbuffer's three offsets into the records: @curr the current record's
 * header (a time extend or padding before it is stepped over, as kbuffer steps), @index its
 * data and @next the record after it; and its time, the page's plus each header's delta (a
 * time extend's carries 27 more bits).  Anything the walk does not take on itself hands
 * the page to kbuffer, loaded afresh and stepped to the same record (to_kbuffer()).
 */
#include <errno.h>
#include <string.h>

#include <traceevent/kbuffer.h>

#include "analyze/import/tdpage.h"

enum {
	PAGE_HDR = 16,			/* u64 time, long commit (8 bytes) */
	RB_PADDING = 29, RB_EXTEND = 30, RB_STAMP = 31,
	RB_TS_SHIFT = 27,
};
#define COMMIT_MASK ((1u << 27) - 1)
#define MISSED (1ull << 31)
#define MISSED_STORED (1ull << 30)

/* @n (4 or 8) bytes at @p: the walk here is for a little-endian file on a little-endian host */
static inline uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}
#define rd4(p) ((uint32_t)rd((p), 4))
#define rd8(p) rd((p), 8)

int ana_td_page_init(struct ana_td_page *p, bool long8, bool big, bool old_format)
{
	const uint16_t one = 1;

	memset(p, 0, sizeof(*p));
	p->kb = kbuffer_alloc(long8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			      big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!p->kb)
		return -ENOMEM;
	if (old_format)
		kbuffer_set_old_format(p->kb);
	p->own = long8 && !big && !old_format && *(const uint8_t *)&one == 1;
	return 0;
}

void ana_td_page_free(struct ana_td_page *p)
{
	kbuffer_free(p->kb);
	p->kb = NULL;
}

/*
 * The walk gives the page to kbuffer at the record whose header is at @at: loaded, and
 * stepped over the records before.  Return: that record's data, or NULL (none).
 */
static void *to_kbuffer(struct ana_td_page *p, uint32_t at, unsigned long long *ts)
{
	void *d;

	p->fast = false;
	if (kbuffer_load_subbuffer(p->kb, p->page) < 0)
		return NULL;
	d = kbuffer_read_event(p->kb, ts);
	while (d && (uint32_t)kbuffer_curr_offset(p->kb) < at + PAGE_HDR)
		d = kbuffer_next_event(p->kb, ts);
	return d;
}

/*
 * From @next on: the next data record, as kbuffer's step finds it.  Return: its data, NULL
 * at the end, or what kbuffer says from the first header not taken here on.
 */
static void *step(struct ana_td_page *p, unsigned long long *ts)
{
	for (;;) {
		uint32_t at = p->next, hdr, len;
		const uint8_t *h = p->data + at;

		p->curr = at;
		if (at >= p->size)
			return NULL;
		if (p->size - at < 8)	/* a header, or its length word, past the commit */
			return to_kbuffer(p, at, ts);
		hdr = rd4(h);
		switch (hdr & 31) {
		case RB_STAMP:
			return to_kbuffer(p, at, ts);
		case RB_EXTEND:
			p->ts += ((uint64_t)rd4(h + 4) << RB_TS_SHIFT) + (hdr >> 5);
			p->index = p->next = at + 8;
			continue;
		case RB_PADDING:
			p->ts += hdr >> 5;
			p->index = at + 4;
			len = rd4(h + 4);
			if (len > p->size - p->index)
				return to_kbuffer(p, at, ts);
			p->next = p->index + len;
			continue;
		case 0:
			len = rd4(h + 4) - 4;
			p->index = at + 8;
			if ((len & 3) || len > p->size - p->index)
				return to_kbuffer(p, at, ts);
			break;
		default:
			len = (hdr & 31) * 4;
			p->index = at + 4;
			if (len > p->size - p->index)
				return to_kbuffer(p, at, ts);
			break;
		}
		p->ts += hdr >> 5;
		p->next = p->index + len;
		if (ts)
			*ts = p->ts;
		return (void *)(p->data + p->index);
	}
}

int ana_td_page_load(struct ana_td_page *p, void *page, uint32_t page_sz)
{
	const uint8_t *b = page;
	uint64_t flags;

	if (!page)
		return -1;
	p->page = page;
	p->fast = false;
	flags = rd8(b + 8);
	p->size = (uint32_t)flags & COMMIT_MASK;
	/* a commit past the page, or the missed count after it: kbuffer reads what it says */
	if (!p->own || page_sz < PAGE_HDR + 8 || p->size > page_sz - PAGE_HDR - 8)
		return kbuffer_load_subbuffer(p->kb, page);
	p->fast = true;
	p->ts = rd8(b);
	p->data = b + PAGE_HDR;
	if (!(flags & MISSED))
		p->lost = 0;
	else if (!(flags & MISSED_STORED))
		p->lost = -1;
	else
		p->lost = (long long)rd8(p->data + p->size);
	p->curr = p->index = p->next = 0;
	step(p, NULL);
	return 0;
}

void *ana_td_page_read(struct ana_td_page *p, unsigned long long *ts)
{
	if (!p->fast)
		return kbuffer_read_event(p->kb, ts);
	if (p->curr >= p->size)
		return NULL;
	if (ts)
		*ts = p->ts;
	return (void *)(p->data + p->index);
}

void *ana_td_page_next(struct ana_td_page *p, unsigned long long *ts)
{
	return p->fast ? step(p, ts) : kbuffer_next_event(p->kb, ts);
}

int ana_td_page_event_size(const struct ana_td_page *p)
{
	return p->fast ? (int)(p->next - p->index) : kbuffer_event_size(p->kb);
}

int ana_td_page_offset(const struct ana_td_page *p)
{
	return p->fast ? (int)(p->curr + PAGE_HDR) : kbuffer_curr_offset(p->kb);
}

int ana_td_page_record_size(const struct ana_td_page *p)
{
	return p->fast ? (int)(p->next - p->curr) : kbuffer_curr_size(p->kb);
}

int ana_td_page_missed(const struct ana_td_page *p)
{
	if (!p->fast)
		return kbuffer_missed_events(p->kb);
	return p->curr ? 0 : (int)p->lost;
}
