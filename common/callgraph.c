/* SPDX-License-Identifier: MIT */
/*
 * callgraph.c - parsing `--call-graph fp|dwarf[,SIZE]` (callgraph.h).
 *
 * SIZE is perf's: a decimal byte count, rounded up to a multiple of 8, from 8 to 65528.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/callgraph.h"
#include "common/err.h"

int pp_callgraph_parse(const char *arg, uint32_t *mode, char *err, size_t errsz)
{
	const char *size;
	unsigned long long v;
	char *end;

	if (!strcmp(arg, "fp")) {
		*mode = PP_CALLGRAPH_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		snprintf(err, errsz, "--call-graph '%s': expected fp or dwarf[,SIZE]", arg);
		return PP_EUSAGE;
	}
	if (!arg[5]) {
		*mode = PP_CALLGRAPH_DWARF_SIZE;
		return 0;
	}
	size = arg + 6;
	errno = 0;
	v = strtoull(size, &end, 10);
	if (!*size || *end || errno || *size == '-' || *size == '+') {
		snprintf(err, errsz, "--call-graph dwarf,SIZE: '%s' is not a number of bytes", size);
		return PP_EUSAGE;
	}
	v = (v + 7) & ~7ull;
	if (!v || v > PP_CALLGRAPH_DWARF_MAX) {
		snprintf(err, errsz, "--call-graph dwarf,SIZE: %s is out of range (8 to %d bytes)",
			 size, PP_CALLGRAPH_DWARF_MAX);
		return PP_EUSAGE;
	}
	*mode = (uint32_t)v;
	return 0;
}
