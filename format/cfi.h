/* SPDX-License-Identifier: MIT */
/*
 * cfi.h - a binary's DWARF call frame information (.eh_frame, .debug_frame) turned into
 * the capture's compact unwind rows (format.h: struct ppf_unwind_row), with libelf only.
 *
 * x86-64 only: the rows say how to find the caller's rsp (the CFA), return address and
 * rbp; whatever else the CFI says is dropped, and code whose rule cannot be said that way
 * gets a row of cfa PPF_CFA_UNKNOWN.  Rows come sorted, not overlapping, adjacent equal
 * ones merged.  Sections are read as hostile input: every read is bounded, every loop
 * consumes input, the rows of one file are capped (PPF_CFI_MAX_ROWS).
 * Shared by pp-record (record/symbols/elfsyms.c) and pp-analyze's perf.data importer
 * (analyze/import/perfdata-syms.c); the rest of the capture library does not use it, so
 * only programs that call it link libelf for it.
 * Not here: writing the rows (format/unwind.c), using them (analyze/cfi.c).
 */
#ifndef PP_FORMAT_CFI_H
#define PP_FORMAT_CFI_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

#define PPF_CFI_MAX_ROWS (4u << 20)	/* rows of one binary (more are dropped) */
#define PPF_CFI_MAX_STATE 64		/* DW_CFA_remember_state depth */

/**
 * struct ppf_cfi_stats - what ppf_cfi_read() met
 * @nr_fdes: FDEs read (both sections)
 * @nr_unknown: rows of PPF_CFA_UNKNOWN
 * @nr_bad: entries refused (bad encoding, out of bounds, unknown instruction)
 */
struct ppf_cfi_stats {
	uint64_t nr_fdes, nr_unknown, nr_bad;
};

/**
 * ppf_cfi_read() - the unwind rows of ELF file @elf
 * @elf: an ELF file of @file_size bytes (ELF_C_READ or elf_memory())
 * @rows: receives the rows (free()), NULL when there are none
 * @nr: their number
 * @st: receives the counts, or NULL
 * Return: 0 (possibly no rows: no CFI), -ENOTSUP for another architecture than x86-64,
 * -ENOMEM.
 */
int ppf_cfi_read(Elf *elf, uint64_t file_size, struct ppf_unwind_row **rows, size_t *nr,
		 struct ppf_cfi_stats *st);

#endif
