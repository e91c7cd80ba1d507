/* SPDX-License-Identifier: MIT */
/*
 * state/internal.h - the parts of the state module shared by its files.
 *
 * file.c     the container: header, sections, checks (docs/state-format.md)
 * context.c  CONTEXT: from a session, to and from bytes, merged, into a session
 * ident.c    IDENT and SOURCES: canonical options, capture identity, ordering
 * state.c    --state-out after a replay; merge and report of loaded states
 * Invariant: everything in a struct ana_state is owned by it (copied out of the
 * file bytes), so states can be merged and freed in any order.
 */
#ifndef PP_ANALYZE_STATE_INTERNAL_H
#define PP_ANALYZE_STATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/state/state.h"
#include "common/buf.h"
#include "common/wire.h"

/* The file (docs/state-format.md "Layout"). */
#define ANA_STATE_MAGIC "PPST\r\n\x1a\n"
#define ANA_STATE_MAJOR 1
#define ANA_STATE_MINOR 0
#define ANA_STATE_HDR_SZ 32
#define ANA_STATE_SEC_HDR_SZ 12
#define ANA_STATE_ENDIAN 0x01020304u
#define ANA_STATE_MAX_FILE (1ull << 30)	/* 1 GiB */

enum ana_state_sec {
	ANA_SEC_IDENT = 1,
	ANA_SEC_SOURCES = 2,
	ANA_SEC_CONTEXT = 3,
	ANA_SEC_ANALYZER = 4,
	ANA_SEC_END = 0xff,
};
#define ANA_SECF_REQUIRED 1u

/* Bounds a reader enforces (besides every length against what is left). */
#define ANA_STATE_MAX_ARGS 4096
#define ANA_STATE_MAX_EVENTS 65536
#define ANA_STATE_MAX_SOURCES (1u << 20)
#define ANA_STATE_MAX_TASKS (1u << 24)
#define ANA_STATE_MAX_KV (1u << 20)
#define ANA_STATE_MAX_LOST_CPUS 4096

/* One capture range a state came from (SOURCES). */
struct ana_ssrc {
	uint64_t created_ns;		/* the capture's file header */
	uint32_t fingerprint;		/* CRC32C of its host keys and event names */
	char *host, *path;
	uint64_t range_start_ns, range_end_ns;	/* --time, 0 = open */
	uint64_t first_ns, last_ns;	/* events replayed (0, 0: none) */
	bool have_sync;
	uint64_t sync_perf_ns, sync_real_ns;
	unsigned id;			/* in a merge: the id analyzers know it by */
};

struct ana_skv {
	char *key, *value;
};

struct ana_sevent {			/* an event type the analyzer matched */
	uint32_t id, kind, flags, tp_id;
	char *name, *selector, *filter, *format;
	uint8_t *attr;
	uint32_t attr_sz;
};

struct ana_ssyscall {
	uint32_t nr;
	char *name;
};

struct ana_stask {
	uint32_t tid, pid, ppid;
	uint64_t exit_ns;
	char *comm;
};

struct ana_slost {
	uint32_t cpu;
	uint64_t count;
};

/* CONTEXT: what a report asks of the captures. */
struct ana_sctx {
	struct ana_skv *kv;
	size_t nr_kv;
	struct ana_sevent *events;
	size_t nr_events;
	struct ana_ssyscall *syscalls;	/* ascending nr */
	size_t nr_syscalls;
	struct ana_stask *tasks;	/* ascending tid */
	size_t nr_tasks;
	uint64_t lost_total;
	bool lost_saturated;
	struct ana_slost *lost;		/* in order of first loss */
	size_t nr_lost;
	uint64_t nr_corrupt, records_lost;
};

/* IDENT's matched events: position and name, in the analyzer's order. */
struct ana_smatch {
	uint32_t pos;
	char *name;
};

struct ana_state {
	char *path;
	char *analyzer;
	uint32_t version;		/* the analyzer's state_version */
	char **argv;			/* ana_state_argv_canon(), NULL-terminated */
	const char **argv_view;		/* ana_state_argv()'s copy of it: the option parser
					 * reorders and compacts the array it is given */
	int argc;
	char *options;			/* ana_state_argv_str() of it: compared by merges */
	struct ana_smatch *matches;
	size_t nr_matches;
	struct ana_ssrc *srcs;		/* ordered (ana_ssrc_cmp()) */
	size_t nr_srcs;
	struct ana_sctx ctx;
	uint8_t *az_data;		/* the ANALYZER section */
	size_t az_size;
};

/* What the core keeps on an instance that makes or reads a state (pp_az.state). */
struct ana_az_state {
	bool recording;			/* a replay with --state-out */
	char **argv;			/* ana_state_argv_canon() (recording) */
	int argc;
	char *options;
	unsigned *ids;			/* the sources' ids, in written order */
	size_t nr_ids;
	const unsigned *in_ids;		/* the state being read: its source i is in_ids[i] */
	size_t nr_in;
	struct pp_buf *sink;		/* recording into memory (ana_state_az_new_mem()), or NULL */
	const struct ana_ssrc *srcs;	/* a merge's sources, by id (the merge's) */
	size_t nr_srcs;
};

/* file.c */
/**
 * ana_state_encode() - the whole file for @st, with @az_sec as its ANALYZER section
 * Return: the bytes in @out.
 */
void ana_state_encode(const struct ana_state *st, const void *az_sec, size_t az_sz,
		      struct pp_buf *out);
/** ana_state_decode() - parse and check the @size bytes of a file into @st. */
int ana_state_decode(const uint8_t *data, size_t size, struct ana_state *st, char *err,
		     size_t errsz);
void ana_state_release(struct ana_state *st);
/** ana_state_write_file() - @buf to @path ("-": stdout), through PATH.tmp renamed. */
int ana_state_write_file(const char *path, const struct pp_buf *buf, char *err, size_t errsz);

/* context.c */
void ana_sctx_from_session(struct ana_session *s, const struct pp_az *az, struct ana_sctx *out);
void ana_sctx_encode(const struct ana_sctx *c, struct pp_buf *b);
int ana_sctx_decode(struct pp_wire *r, struct ana_sctx *c);
/** ana_sctx_merge() - @src into @dst; @src_later: its names win where both have a key. */
void ana_sctx_merge(struct ana_sctx *dst, const struct ana_sctx *src, bool src_later);
void ana_sctx_release(struct ana_sctx *c);
/**
 * ana_sctx_session() - a session without a capture holding @c, with the time line
 * (first/last event, --time range, clock) of @srcs' latest capture
 * Return: 0, or a code with the message in s->errmsg.
 */
int ana_sctx_session(const struct ana_sctx *c, const struct ana_ssrc *srcs, size_t nr_srcs,
		     struct ana_session **out);

/* ident.c */
void ana_ssrc_from_session(struct ana_session *s, struct ana_ssrc *out);
/** ana_ssrc_cmp() - the order of sources: by capture, then by range start. */
int ana_ssrc_cmp(const struct ana_ssrc *a, const struct ana_ssrc *b);
/** ana_ssrc_same_capture() - @a and @b are ranges of one capture. */
bool ana_ssrc_same_capture(const struct ana_ssrc *a, const struct ana_ssrc *b);
/** ana_ssrc_overlap() - ranges of one capture that share time. */
bool ana_ssrc_overlap(const struct ana_ssrc *a, const struct ana_ssrc *b);
/** ana_ssrc_adjacent() - @b starts one nanosecond after @a ends, in one capture. */
bool ana_ssrc_adjacent(const struct ana_ssrc *a, const struct ana_ssrc *b);
/** ana_ssrc_describe() - "capture HOST created T (PATH), time A-B" for messages. */
void ana_ssrc_describe(const struct ana_ssrc *s, struct pp_buf *b);
void ana_ssrc_copy(struct ana_ssrc *dst, const struct ana_ssrc *src);
void ana_ssrc_release(struct ana_ssrc *s);

#endif
