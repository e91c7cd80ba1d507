/* SPDX-License-Identifier: MIT */
/*
 * callgraph.h - `--call-graph fp|dwarf[,SIZE]`: how call stacks are recorded (perf's spelling).
 *
 * fp is the kernel's frame-pointer walk (`-g`); dwarf records the user registers and a copy of
 * SIZE bytes of the user stack with each sample, unwound later by pp-analyze.  Not here: the
 * attrs (record/perf/evsel.c) or the unwinding (analyze/unwind.c).
 */
#ifndef PP_COMMON_CALLGRAPH_H
#define PP_COMMON_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#define PP_CALLGRAPH_FP 1		/* a mode word: 0 not given, 1 fp, else dwarf's SIZE */
#define PP_CALLGRAPH_DWARF_SIZE 8192	/* perf's default */
#define PP_CALLGRAPH_DWARF_MAX 65528	/* perf's limit: a u16 rounded down to 8 */

/**
 * pp_callgraph_parse() - "fp", "dwarf" or "dwarf,SIZE" into a mode word
 * @arg: the option's argument
 * @mode: PP_CALLGRAPH_FP, or dwarf's stack size (rounded up to a multiple of 8, as perf)
 * @err: the one-line message on failure, naming the bad part
 * Return: 0, or PP_EUSAGE.
 */
int pp_callgraph_parse(const char *arg, uint32_t *mode, char *err, size_t errsz);

#endif
