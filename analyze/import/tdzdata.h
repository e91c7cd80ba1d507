/* SPDX-License-Identifier: MIT */
/*
 * import/tdzdata.h - a version 7 trace.dat's zstd-compressed CPU data decompressed by pp,
 * page by page, instead of by libtracecmd.
 *
 * Each CPU's data is a count of chunks, then each chunk: its compressed size (4 bytes), its
 * size decompressed (4 bytes) and a zstd frame; decompressed one after the other, they are
 * the CPU's buffer pages.  libtracecmd 3.1.6 decompresses each chunk into fresh memory it
 * never frees and looks each up in a list that only grows: half of what it spent on a
 * version 7 file's pages.  Here each CPU decompresses into two buffers in turn, so that a
 * page stays where it is until the chunk after the next one (tracedat.c copies a sample it
 * still holds when it leaves the page).  Every size is checked against the file and the
 * chunk; a chunk that does not decompress to its size ends the CPU's data, as it does
 * libtracecmd's.  A file not compressed has its pages read where they lie, in the mapping
 * the guard's walk already touched, instead of libtracecmd mapping them again.
 * Not here: where the chunks are (tdguard.c), the records (tdpage.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDZDATA_H
#define PP_ANALYZE_IMPORT_TDZDATA_H

#include <stdbool.h>
#include <stdint.h>

struct ana_td_zcpu;

/**
 * ana_td_z_open() - the pages of a CPU of @file (@file_sz bytes, mapped for as long as the
 * pages are read), @page_sz bytes each: its zstd chunks, whose count is at @off; or with
 * @plain, its pages as they are, @size bytes at @off (those wholly in the file)
 * Return: the reader, or NULL (no memory, no chunk count within the file, or @plain and
 * @size not whole pages).
 */
struct ana_td_zcpu *ana_td_z_open(const uint8_t *file, uint64_t file_sz, uint64_t off,
				  uint64_t size, bool plain, uint32_t page_sz);

/**
 * ana_td_z_next() - the CPU's next page, and in @off its offset in the CPU's decompressed
 * data; a chunk's last page may be short of @page_sz: the rest reads as zeros
 * Return: the page, or NULL after the last one (or at a chunk that does not decompress).
 */
void *ana_td_z_next(struct ana_td_zcpu *z, uint64_t *off);

/** ana_td_z_free() - the reader and its buffers; NULL is fine */
void ana_td_z_free(struct ana_td_zcpu *z);

#endif
