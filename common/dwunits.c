/* SPDX-License-Identifier: MIT */
/*
 * dwunits.c - DWARF's address ranges, unit headers, abbreviation tables and line table
 * lengths, read by hand; see dwunits.h.
 */
#include "common/dwunits.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "common/rdbytes.h"
#include "common/vec.h"

#define UNIT_HDR_MAX 64			/* bytes of a unit header read, at most */
#define ABBREV_STEP 4096		/* bytes of an abbreviation table inflated at first */

int pp_dw_range_cmp(const void *a, const void *b)
{
	const struct pp_dw_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

const struct pp_dw_range *pp_dw_range_find(const struct pp_dw_range *v, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {	/* the first range starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges should not overlap; look at a few in case they do */
	for (size_t i = lo, n = 0; i-- > 0 && n < 8; n++)
		if (addr < v[i].hi)
			return &v[i];
	return NULL;
}

/* The plain bytes of @elf's section @want; NULL when absent or still compressed. */
static const unsigned char *section(Elf *elf, const char *want, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    !(sh.sh_flags & SHF_COMPRESSED) &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(name, want) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			*size = data->d_size;
			return data->d_buf;
		}
	}
	return NULL;
}

size_t pp_dw_aranges(Elf *elf, size_t max, struct pp_dw_range **out)
{
	uint64_t size = 0, at = 0;
	const unsigned char *p = section(elf, ".debug_aranges", &size);
	size_t nr = 0, cap = 0;

	*out = NULL;
	while (p && size - at >= 16) {	/* one set: a header, then (address, length) pairs */
		uint64_t len = pp_rd_le(p + at, 4), start = at, end, unit;
		unsigned osz = 4, asz;

		at += 4;
		if (len == 0xffffffff) {
			len = pp_rd_le(p + at, 8);
			at += 8;
			osz = 8;
		} else if (len >= 0xfffffff0) {
			goto bad;
		}
		/* version 2, the unit's offset, address and segment selector sizes */
		if (len > size - at || len < 4u + osz || pp_rd_le(p + at, 2) != 2)
			goto bad;
		end = at + len;
		unit = pp_rd_le(p + at + 2, osz);
		asz = p[at + 2 + osz];
		if (asz != 4 && asz != 8)
			goto bad;
		at += 2 + osz + 2;
		at += (2 * asz - (at - start) % (2 * asz)) % (2 * asz);	/* tuples aligned */
		for (; at + 2 * asz <= end; at += 2 * asz) {
			uint64_t lo = pp_rd_le(p + at, asz), n = pp_rd_le(p + at + asz, asz);

			if (!lo && !n)
				break;
			if (!n || lo + n < lo)
				continue;
			if (nr >= max)
				goto bad;
			PP_VEC_PUSH(*out, nr, cap, ((struct pp_dw_range){ lo, lo + n, unit }));
		}
		at = end;
	}
	if (nr)
		qsort(*out, nr, sizeof(**out), pp_dw_range_cmp);
	return nr;
bad:
	free(*out);
	*out = NULL;
	return 0;
}

bool pp_dw_unit_at(struct pp_dwlazy *info, uint64_t off, struct pp_dw_unit *u)
{
	uint64_t size = info->size, len, avail;
	const unsigned char *p;
	unsigned hdr = 4, osz = 4;

	if (off >= size || !pp_dwlazy_need(info, off + UNIT_HDR_MAX))
		return false;
	p = info->buf + off;
	avail = size - off < UNIT_HDR_MAX ? size - off : UNIT_HDR_MAX;
	if (avail < 4)
		return false;
	len = pp_rd_le(p, 4);
	if (len == 0xffffffff) {
		if (avail < 12)
			return false;
		len = pp_rd_le(p + 4, 8);
		hdr = 12;
		osz = 8;
	} else if (len >= 0xfffffff0) {
		return false;
	}
	/* version, then unit type and address size (5) or offset and address size (2-4) */
	if (len > size - off - hdr || len < 4u + osz || avail < hdr + 4u + osz)
		return false;
	u->version = (unsigned)pp_rd_le(p + hdr, 2);
	if (u->version == 5)
		u->abbrev = pp_rd_le(p + hdr + 4, osz);
	else if (u->version >= 2 && u->version <= 4)
		u->abbrev = pp_rd_le(p + hdr + 2, osz);
	else
		return false;
	u->end = off + hdr + len;
	return pp_dwlazy_need(info, u->end);
}

/* Forms whose value may lead outside the unit. */
static bool form_leaves_unit(uint64_t form)
{
	return form == DW_FORM_ref_addr || form == DW_FORM_indirect || form == DW_FORM_ref_sig8 ||
	       form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8;
}

/*
 * The table at @p (to @end) parsed: true when it ends before @end, false when it runs past
 * (or does not parse); *@leaves set as pp_dw_abbrevs_need() says.
 */
static bool abbrevs_parse(const uint8_t *p, const uint8_t *end, bool *leaves)
{
	bool bad = false;

	for (;;) {
		uint64_t attr, form;

		if (!pp_uleb128(&p, end, &bad))	/* code 0: the table's end */
			return !bad;
		pp_uleb128(&p, end, &bad);	/* tag */
		if (p++ >= end)			/* has children */
			return false;
		do {
			attr = pp_uleb128(&p, end, &bad);
			form = pp_uleb128(&p, end, &bad);
			if (form == DW_FORM_implicit_const)
				pp_uleb128(&p, end, &bad);	/* its value, in the table */
			*leaves |= form_leaves_unit(form);
		} while ((attr || form) && !bad);
		if (bad)
			return false;
	}
}

bool pp_dw_abbrevs_need(struct pp_dwlazy *abbrev, uint64_t off, bool *leaves)
{
	/* inflated a little past the table's start, then more while it runs past that */
	for (uint64_t want = ABBREV_STEP; off < abbrev->size; want *= 2) {
		uint64_t avail;
		bool ok, out = false;

		pp_dwlazy_need(abbrev, off + want);
		avail = __atomic_load_n(&abbrev->done, __ATOMIC_ACQUIRE);
		if (avail <= off)
			return false;
		ok = abbrevs_parse(abbrev->buf + off, abbrev->buf + avail, &out);
		if (ok && leaves)
			*leaves |= out;
		if (ok || avail - off < want)	/* parsed, or nothing more to inflate */
			return ok;
	}
	return false;
}

void pp_dw_line_need(struct pp_dwlazy *line, uint64_t off)
{
	uint64_t len;

	if (off >= line->size || line->size - off < 12 || !pp_dwlazy_need(line, off + 12))
		return;
	len = pp_rd_le(line->buf + off, 4);
	if (len == 0xffffffff)
		len = pp_rd_le(line->buf + off + 4, 8) + 8;
	pp_dwlazy_need(line, off + 4 + (len < line->size ? len : line->size));
}
