/* SPDX-License-Identifier: MIT */
/*
 * dwinflate.h - the compressed DWARF sections of an ELF file inflated before libdw sees them.
 *
 * dwarf_begin_elf() inflates every SHF_COMPRESSED debug section through libelf
 * (elf_compress()), checking each with zlib's Adler-32: for a Debian debug file such as
 * libc's, 7 MB of output and a tenth of the CPU spent on the checksum.  Here zlib inflates
 * the DEFLATE stream alone, into a buffer mapped with its pages already in place, and the
 * section is handed to libdw as plain data: same bytes, less CPU.  A section this cannot
 * take (not zlib, a preset dictionary, a size or stream that does not add up) is left as it
 * was, for libdw to treat as before.  Not here: which sections are read (common/dwinline.c).
 */
#ifndef PP_COMMON_DWINFLATE_H
#define PP_COMMON_DWINFLATE_H

#include <gelf.h>
#include <stddef.h>

#define PP_DWINFLATE_MAX 32	/* sections inflated in one file, at most */

/* The buffers holding the inflated sections of one file, to free after its Elf. */
struct pp_dwinflate {
	void *buf[PP_DWINFLATE_MAX];
	size_t len[PP_DWINFLATE_MAX];
	size_t nr;
};

/**
 * pp_dwinflate_elf() - hide the PROGBITS sections named in @hide, inflate the other
 * compressed .debug_* PROGBITS sections of @elf
 * @elf: opened with ELF_C_READ_MMAP_PRIVATE (its section headers are rewritten in memory,
 *	 never in the file); before dwarf_begin_elf()
 * @hide: names of sections no answer reads: marked SHT_NOBITS, which libdw leaves alone
 * @nr_hide: entries in @hide
 * @out: receives the buffers (zeroed by the caller); pp_dwinflate_free() after elf_end()
 *
 * Each section inflated loses SHF_COMPRESSED and its data becomes the inflated bytes; the
 * others are untouched.
 */
void pp_dwinflate_elf(Elf *elf, const char *const *hide, size_t nr_hide, struct pp_dwinflate *out);

/* pp_dwinflate_free() - unmap @d's buffers (after the Elf and the Dwarf using them are gone). */
void pp_dwinflate_free(struct pp_dwinflate *d);

#endif
