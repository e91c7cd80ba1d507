/* SPDX-License-Identifier: MIT */
/*
 * limits.h - every bound pp puts on what a capture claims, in one place.
 *
 * A capture comes from someone else: any length or count in it may be a lie
 * (a segment "of 1 TB", a string "of 1 GB", 10^9 tasks, a symbol table of
 * 4 GB).  Nothing read from a file is used as a length or count before it is
 * checked against what remains of the object that holds it and against these
 * limits, and what a capture makes pp-analyze keep (tasks, symbols, maps,
 * host keys, event formats) is charged to one budget.  docs/capture-format.md
 * ("Limits") documents each of them; format/format.h and common/symbolize.h
 * give them their older names.
 *
 * Not here: the limits of state files (analyze/state/internal.h,
 * docs/state-format.md), which merge instead of replaying.
 */
#ifndef PP_COMMON_LIMITS_H
#define PP_COMMON_LIMITS_H

/* --- one segment: the reader refuses more before it allocates ---------------- */
#define PP_LIMIT_SEG_RAW (64u << 20)		/* decompressed payload (usize) */
#define PP_LIMIT_SEG_COMP (65u << 20)		/* stored payload (csize) */
#define PP_LIMIT_STR (1u << 20)			/* one string field */
#define PP_LIMIT_STACK 1024			/* frames in one STACK record */
#define PP_LIMIT_COUNTERS 64			/* counters in one COUNTER record */
#define PP_LIMIT_DECODE_ARENA (512u << 20)	/* decoded stacks and counters of one segment */
#define PP_LIMIT_INDEX_ENTRIES (1u << 22)	/* entries of the index: more, and it is not used */

/* --- symbols and maps (common/symbolize.c) ----------------------------------- */
#define PP_LIMIT_SYM_NAME 65536			/* bytes in one symbol name or path */
#define PP_LIMIT_SYMS (1u << 24)		/* symbols in one DSO or in the kernel table */
#define PP_LIMIT_BUILD_ID 64			/* bytes of a build id */
#define PP_LIMIT_LIVE_MAPS (1u << 17)		/* current mappings of one process */
#define PP_LIMIT_OLD_MAPS (1u << 20)		/* replaced mappings kept for one process */

/* --- what one capture makes pp-analyze keep ----------------------------------- */
/*
 * The side-band budget: bytes of tasks, host keys, syscall names, event
 * types, kernel and user symbols, binaries and memory maps a capture makes
 * pp-analyze hold.  Past it, what the capture adds is ignored (one warning
 * says so) and the replay goes on: names and symbols of later tasks and
 * binaries are missing.  PP_SIDEBAND_MAX (bytes, with K/M/G) changes it.
 */
#define PP_LIMIT_SIDEBAND (1ull << 30)
#define PP_LIMIT_HOST_KEYS 65536		/* KV records kept (their bytes are charged too) */
#define PP_LIMIT_EVENT_TYPES 65536		/* EVENT_DESC records kept */
#define PP_LIMIT_CPUS 4096			/* per-CPU tables indexed by a capture's cpu */

#endif
