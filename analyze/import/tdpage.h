/* SPDX-License-Identifier: MIT */
/*
 * import/tdpage.h - the records of one ftrace ring-buffer page (a trace.dat's "sub-buffer"),
 * walked in pp's own code where it can be, through libtraceevent's kbuffer where not.
 *
 * A page is a header (the time of its first record, 8 bytes, and a long: the bytes
 * committed, the low 27 bits, and two flags: events were missed before it, and their count
 * is stored after the last record), then records each behind a 32-bit header: its low 5
 * bits a type or length (1-28: that many 32-bit words of data; 0: the length in the next
 * word, itself included; 29 padding; 30 a time extend, 31 an absolute time stamp) and its
 * high 27 bits the time since the record before.  Debian builds libtraceevent at -O0, where
 * each kbuffer call was a sixth of `pp-analyze FILE.dat top`; the walk here gives what
 * kbuffer gives (the same records, times, sizes and offsets) for a little-endian file with
 * 8-byte longs in the current layout, and hands a page to kbuffer from the first thing it
 * does not take on itself (an absolute time stamp, a record or length that does not fit the
 * committed bytes, a length not a multiple of 4): kbuffer then goes on as it always did.
 * Not here: which pages, and their order (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDPAGE_H
#define PP_ANALYZE_IMPORT_TDPAGE_H

#include <stdbool.h>
#include <stdint.h>

struct kbuffer;

/* The page being walked: fields private to tdpage.c but for the accessors below. */
struct ana_td_page {
	struct kbuffer *kb;	/* the walker of the pages (and rests of pages) not taken here */
	bool own;		/* the file's layout is one walked here */
	bool fast;		/* this page is walked here; false: by @kb */
	void *page;
	const uint8_t *data;	/* the records: the page past its header */
	uint32_t size;		/* the bytes committed */
	uint32_t curr, index, next;	/* the record's header, its data, the record after */
	uint64_t ts;		/* the record's time */
	long long lost;		/* events missed before the page (-1: some) */
};

/**
 * ana_td_page_init() - @p ready to walk pages of a file whose longs are 8 bytes or not
 * (@long8), little-endian or not (@big), of the old layout (Linux 2.6.30 and before) or not
 * Return: 0, or -ENOMEM.
 */
int ana_td_page_init(struct ana_td_page *p, bool long8, bool big, bool old_format);

/** ana_td_page_free() - what ana_td_page_init() allocated */
void ana_td_page_free(struct ana_td_page *p);

/**
 * ana_td_page_load() - walk @page from its first record (kbuffer_load_subbuffer())
 * @page_sz: the file's page size: a page committing more is kbuffer's
 * Return: 0, or -1 (no page).
 */
int ana_td_page_load(struct ana_td_page *p, void *page, uint32_t page_sz);

/**
 * ana_td_page_read() - the current record's data and time (@ts), NULL past the last
 * (kbuffer_read_event())
 */
void *ana_td_page_read(struct ana_td_page *p, unsigned long long *ts);

/** ana_td_page_next() - step to the next record, as ana_td_page_read() (kbuffer_next_event()) */
void *ana_td_page_next(struct ana_td_page *p, unsigned long long *ts);

/** ana_td_page_event_size() - the current record's data bytes (kbuffer_event_size()) */
int ana_td_page_event_size(const struct ana_td_page *p);

/** ana_td_page_offset() - its header's offset in the page (kbuffer_curr_offset()) */
int ana_td_page_offset(const struct ana_td_page *p);

/** ana_td_page_record_size() - its size, header included (kbuffer_curr_size()) */
int ana_td_page_record_size(const struct ana_td_page *p);

/**
 * ana_td_page_missed() - events missed before it: the page's count (-1: some) when it
 * starts at the page's first byte, else 0 (kbuffer_missed_events(), an int as there)
 */
int ana_td_page_missed(const struct ana_td_page *p);

#endif
