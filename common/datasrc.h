/* SPDX-License-Identifier: MIT */
/*
 * datasrc.h - perf's data source word (union perf_mem_data_src) as text.
 *
 * PEBS memory samples (mem-loads, mem-stores) say where the data came from in
 * one u64: the memory level (L1, LFB, L2, L3, RAM ...) and whether it hit,
 * the snoop result, the data TLB, locked access, blocking.  The text is
 * perf's (perf script / perf mem), as perf-prof's ldlat-loads prints it:
 *   "L1 hit|SNP None|TLB L1 or L2 hit|LCK No"
 * The bit layout is the kernel's ABI; this file has its own copy of the
 * shifts so that common/ needs no kernel header.
 */
#ifndef PP_COMMON_DATASRC_H
#define PP_COMMON_DATASRC_H

#include <stddef.h>
#include <stdint.h>

/**
 * pp_data_src_lvl_str() - the memory level part: "L1 hit", "Remote RAM (1 hop) miss",
 * "L3 or L3 hit" (a level and its number), "N/A"
 * Return: @buf (truncated to @sz).
 */
char *pp_data_src_lvl_str(uint64_t data_src, char *buf, size_t sz);

/**
 * pp_data_src_str() - the whole word: the level, then "|SNP ...", "|TLB ...", "|LCK ...",
 * "|BLK ..." for the parts that are set
 * Return: @buf (truncated to @sz).
 */
char *pp_data_src_str(uint64_t data_src, char *buf, size_t sz);

#endif
