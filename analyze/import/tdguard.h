/* SPDX-License-Identifier: MIT */
/*
 * import/tdguard.h - the sizes and counts of a trace.dat's headers checked before
 * libtracecmd reads them.
 *
 * libtracecmd trusts what a file says: a count of formats or a section size larger than the
 * file has it allocate that much (found by tests/fuzz/fuzz-tracedat).  The guard walks the
 * layout (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)) and checks that every size and count
 * fits in the file; it reads nothing else.  Not here: the reading itself (tracedat.c).
 */
#ifndef PP_ANALYZE_IMPORT_TDGUARD_H
#define PP_ANALYZE_IMPORT_TDGUARD_H

#include <stddef.h>
#include <stdint.h>

/**
 * ana_td_guard() - whether the trace.dat in @data (@size bytes, the whole file) has headers
 * whose sizes and counts fit in it
 * @data:  the file's bytes
 * @size:  how many
 * @why:   what did not fit, one line, when it returns nonzero
 * @whysz: its room
 *
 * A version 6 file's CPU data may run past its end (a file cut short): that is allowed.
 * Return: 0, or PP_EBAD_LENGTH with @why set.
 */
int ana_td_guard(const uint8_t *data, uint64_t size, char *why, size_t whysz);

#define ANA_TD_ZCPUS 256	/* CPUs of a compressed file whose chunks pp reads itself */

/* Where a file's top instance keeps each CPU's data, for tdzdata.c. */
struct ana_td_zlayout {
	unsigned nr_cpus;		/* 0: none found, or more than ANA_TD_ZCPUS */
	bool plain;			/* the pages as they are; else zstd chunks */
	uint64_t off[ANA_TD_ZCPUS];	/* the CPU's pages, or its chunk count then its chunks */
	uint64_t size[ANA_TD_ZCPUS];	/* plain: the bytes of its pages */
};

/**
 * ana_td_guard_z() - ana_td_guard(), and in @zl (zeroed first) where the top instance of a
 * little-endian file keeps each CPU's data, once checked: its pages (version 6, version 7
 * not compressed) or its zstd chunks; none for another compression, nor for a file whose
 * times libtracecmd shifts or scales (a guest's TIME_SHIFT, TSC2NSEC)
 */
int ana_td_guard_z(const uint8_t *data, uint64_t size, struct ana_td_zlayout *zl, char *why,
		   size_t whysz);

#endif
