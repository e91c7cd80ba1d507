/* SPDX-License-Identifier: MIT */
/*
 * ftrace-page.c - the ftrace ring-buffer page walker (layout in ftrace-page.h).
 */
#include <string.h>

#include "record/ftrace/ftrace-page.h"

#define COMMIT_MASK ((1u << 30) - 1)
#define TS_MSB (~((1ull << 59) - 1))

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

size_t rec_ftpage_open(struct rec_ftpage *it, const uint8_t *page, size_t len)
{
	uint64_t commit;
	size_t used;

	memset(it, 0, sizeof(*it));
	if (len < REC_FTPAGE_HDR)
		return 0;
	it->ts = rd64(page);
	commit = rd64(page + 8);
	used = (size_t)(commit & COMMIT_MASK);
	if (used > len - REC_FTPAGE_HDR)
		return 0;
	it->p = page + REC_FTPAGE_HDR;
	it->end = it->p + used;
	used += REC_FTPAGE_HDR;
	it->missed = commit & REC_FTPAGE_MISSED;
	if ((commit & REC_FTPAGE_MISSED_STORED) && used + 8 <= len) {
		it->nr_missed = rd64(page + used);
		used += 8;
	}
	return used;
}

bool rec_ftpage_next(struct rec_ftpage *it, struct rec_ftpage_ev *ev)
{
	while (it->p && it->end - it->p >= 4) {
		uint32_t h = rd32(it->p), type_len = h & 31, delta = h >> 5, n;
		size_t left = (size_t)(it->end - it->p);

		switch (type_len) {
		case 29:			/* padding */
			if (!delta) {
				it->p = it->end;	/* the rest of the page is unused */
				return false;
			}
			if (left < 8 || (n = rd32(it->p + 4)) > left - 4)
				goto bad;
			it->p += 4 + (n < 4 ? 4 : n);
			continue;
		case 30:			/* time extend */
			if (left < 8)
				goto bad;
			it->ts += (uint64_t)delta | (uint64_t)rd32(it->p + 4) << 27;
			it->p += 8;
			continue;
		case 31: {			/* absolute time stamp, the low 59 bits */
			uint64_t abs;

			if (left < 8)
				goto bad;
			abs = (uint64_t)delta | (uint64_t)rd32(it->p + 4) << 27;
			if (it->ts & TS_MSB) {
				abs |= it->ts & TS_MSB;
				if (abs < it->ts)
					abs += 1ull << 59;
			}
			it->ts = abs;
			it->p += 8;
			continue;
		}
		case 0:				/* data, length in the next u32 */
			if (left < 8 || (n = rd32(it->p + 4)) < 4 || n > left - 4)
				goto bad;
			it->ts += delta;
			ev->time_ns = it->ts;
			ev->data = it->p + 8;
			ev->len = n - 4;
			it->p += 4 + n;
			return true;
		default:			/* data, type_len u32s */
			n = type_len * 4;
			if (n > left - 4)
				goto bad;
			it->ts += delta;
			ev->time_ns = it->ts;
			ev->data = it->p + 4;
			ev->len = n;
			it->p += 4 + n;
			return true;
		}
	}
	return false;
bad:
	it->bad = true;
	it->p = it->end;
	return false;
}
