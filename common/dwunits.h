/* SPDX-License-Identifier: MIT */
/*
 * dwunits.h - the raw layout of DWARF that a lookup reads before libdw does: address ranges,
 * unit headers, abbreviation tables, line table lengths.
 *
 * A lookup in a lazily inflated debug file (dwinflate.h) must know which bytes libdw will
 * read before it reads them: which unit covers an address (.debug_aranges), where each unit
 * ends (its header), where its abbreviations end and whether they let a DIE refer into
 * another unit, where its line table ends.  Every reader here is bounded by its section and
 * gives up (false, or an empty table) on anything that does not parse: the files come from
 * anyone.  Little-endian files only.  Not here: DIEs (libdw), inline frames (dwinline.c).
 */
#ifndef PP_COMMON_DWUNITS_H
#define PP_COMMON_DWUNITS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dwinflate.h"

/* An address range [@lo, @hi) and the DWARF offset it leads to (a unit, a DIE). */
struct pp_dw_range {
	uint64_t lo, hi;
	uint64_t off;
};

/** pp_dw_range_cmp() - qsort() order of struct pp_dw_range: by @lo, then @off. */
int pp_dw_range_cmp(const void *a, const void *b);

/**
 * pp_dw_range_find() - the range of @v (@nr, sorted by pp_dw_range_cmp()) covering @addr
 * Return: the last one starting at or before it that covers it (a few are looked at, in
 * case ranges overlap), or NULL.
 */
const struct pp_dw_range *pp_dw_range_find(const struct pp_dw_range *v, size_t nr, uint64_t addr);

/**
 * pp_dw_aranges() - @elf's .debug_aranges (plain or inflated whole) as ranges whose @off is
 * the unit's offset in .debug_info, sorted
 * @out: receives the table (free()), NULL when none
 * @max: ranges kept at most
 * Return: how many; 0 when there is no such section or a set of it does not parse.
 */
size_t pp_dw_aranges(Elf *elf, size_t max, struct pp_dw_range **out);

/* What a lookup needs of a unit's header. */
struct pp_dw_unit {
	uint64_t end;			/* offset past the unit */
	uint64_t abbrev;		/* its abbreviations' offset in .debug_abbrev */
	unsigned version;		/* 2 to 5 */
};

/**
 * pp_dw_unit_at() - the header of the unit at @off of .debug_info, with the whole unit
 * inflated
 * Return: false when the header does not parse or the stream broke off before its end.
 */
bool pp_dw_unit_at(struct pp_dwlazy *info, uint64_t off, struct pp_dw_unit *u);

/**
 * pp_dw_abbrevs_need() - inflate the abbreviation table at @off of .debug_abbrev to its end
 * @leaves: when not NULL, set when one of its attributes takes a form that may refer
 *	    outside the unit (DW_FORM_ref_addr, ref_sig8, ref_sup4/8, indirect)
 * Return: false when the table does not parse before the section (or the stream) ends.
 */
bool pp_dw_abbrevs_need(struct pp_dwlazy *abbrev, uint64_t off, bool *leaves);

/** pp_dw_line_need() - inflate the line table at @off of .debug_line to its end. */
void pp_dw_line_need(struct pp_dwlazy *line, uint64_t off);

#endif
