/* SPDX-License-Identifier: MIT */
/*
 * fields.c - a tracepoint event's fields, by descriptor or by name.
 *
 * The raw record of a tracepoint sample is the kernel's struct in the
 * capture's byte order (little-endian, as the host's); a field's offset and
 * size come from the event's stored format.  Every read is bounded by the
 * record's size: a hostile capture's offsets read as 0 or a shortened string.
 * Not here: how an event prints (print.c), expressions on fields (evexpr.c).
 */
#include <string.h>

#include "analyze/internal.h"
#include "common/expr.h"

const struct pp_field *ana_field_find(const struct ana_evtype *t, const char *name)
{
	return t ? pp_field_find(t->fields, t->nr_fields, name) : NULL;
}

uint64_t ana_field_read(const struct pp_event *ev, const struct pp_field *f)
{
	uint64_t v = 0;
	uint32_t sz = f->is_data_loc ? 4 : f->size;

	if (!ev->raw || sz > 8 || (uint64_t)f->offset + sz > ev->raw_sz)
		return 0;
	memcpy(&v, ev->raw + f->offset, sz);	/* little-endian hosts and captures */
	if (f->is_signed && sz && sz < 8 && (v >> (sz * 8 - 1)) & 1)	/* size 0: a hostile format */
		v |= ~0ull << (sz * 8);
	return v;
}

bool ana_field_u64(const struct pp_event *ev, const char *name, uint64_t *out)
{
	const struct pp_field *f = ana_field_find(ev->type, name);

	if (!f || f->is_array || f->is_string)
		return false;
	*out = ana_field_read(ev, f);
	return true;
}

const char *ana_field_str(const struct pp_event *ev, const char *name, char *buf, size_t sz)
{
	const struct pp_field *f = ana_field_find(ev->type, name);
	uint32_t off, len;

	if (!f || !sz)
		return NULL;
	if (f->is_data_loc) {
		uint32_t loc = (uint32_t)ana_field_read(ev, f);
		off = loc & 0xffff;
		len = loc >> 16;
	} else {
		off = f->offset;
		len = f->size;
	}
	if ((uint64_t)off + len > ev->raw_sz)
		len = off < ev->raw_sz ? ev->raw_sz - off : 0;
	if (len >= sz)
		len = (uint32_t)sz - 1;
	memcpy(buf, ev->raw + off, len);
	buf[len] = '\0';
	return buf;
}
