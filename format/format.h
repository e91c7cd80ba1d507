/* SPDX-License-Identifier: MIT */
/*
 * format.h - the pp capture file: writer, reader and record types.
 *
 * A capture is a 64-byte file header, then self-contained segments (a
 * 64-byte header and one zstd frame each), then optionally an index segment
 * and a 16-byte trailer.  Inside a segment, records are framed as
 * {type:u8, len:varint, body}; records of type 0x10..0x7f ("timed") start
 * their body with a time delta.  docs/capture-format.md is the normative spec;
 * this header is its C binding.
 *
 * Invariants: timed records are in non-decreasing time order across the
 * whole file; every segment decodes on its own (stack tables and XOR state
 * reset at each boundary).  Not here: what the records mean to an analyzer.
 *
 * format/ never exits and never prints: every call returns 0 or a negative
 * code, and the writer/reader keep a detailed message behind *_errmsg().
 */
#ifndef PP_FORMAT_H
#define PP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/limits.h"

#ifndef PP_MUST_CHECK
#define PP_MUST_CHECK __attribute__((warn_unused_result))
#endif

#define PPF_VERSION_MAJOR 1
#define PPF_VERSION_MINOR 2

#define PPF_FILE_MAGIC "PPCAP\r\n\032"	/* 8 bytes */
#define PPF_FILE_HDR_SZ 64
#define PPF_SEG_MAGIC 0x47535050u	/* "PPSG" little-endian */
#define PPF_SEG_HDR_SZ 64
#define PPF_TRAILER_MAGIC 0x58495050u	/* "PPIX" little-endian */
#define PPF_TRAILER_SZ 16
#define PPF_ENDIAN_TAG 0x01020304u

/* Bounds a reader enforces before it allocates anything (common/limits.h). */
#define PPF_SEG_MAX_RAW PP_LIMIT_SEG_RAW	/* usize */
#define PPF_SEG_MAX_COMP PP_LIMIT_SEG_COMP	/* csize */
#define PPF_MAX_STACK PP_LIMIT_STACK		/* frames in one STACK record */
#define PPF_MAX_STR PP_LIMIT_STR		/* one string field */

enum ppf_seg_kind {
	PPF_SEG_META = 1,	/* KV, EVENT_DESC, TASK, SYSCALL, snapshot MMAP ... */
	PPF_SEG_EVENTS = 2,	/* SAMPLE, STACK, COMM, FORK, EXIT, MMAP, LOST, ... */
	PPF_SEG_KSYMS = 3,	/* KSYM */
	PPF_SEG_USYMS = 4,	/* DSO followed by its SYMs */
	PPF_SEG_STATS = 5,	/* STAT, written at close */
	PPF_SEG_INDEX = 6,	/* INDEX_ENTRY, last segment of a closed file */
	PPF_SEG_DIGEST = 7,	/* DIGEST_SEG + copies of earlier EVENTS segments' side band */
};

enum ppf_seg_flags {
	PPF_SEGF_ZSTD = 1 << 0,	/* payload is one zstd frame; else stored as is */
	PPF_SEGF_CPU_TIME = 1 << 1,	/* SAMPLE dt counts from the previous SAMPLE of its cpu */
	PPF_SEGF_DELTA_ADDR = 1 << 2,	/* KSYM addr, SYM start: zigzag delta from the previous */
	PPF_SEGF_XOR_CPU = 1 << 3,	/* RAW_XOR against the previous raw of the same id and cpu */
	PPF_SEGF_TIME_COL = 1 << 4,	/* timed records' dt in a column after the records */
	PPF_SEGF_USTACK_RUNS = 1 << 5,	/* a USTACK copy's XORed bytes stored as runs */
};

/* Required feature bits (a reader refuses unknown ones). */
#define PPF_FEAT_CPU_TIME (1ull << 0)	/* segments may carry PPF_SEGF_CPU_TIME */
#define PPF_FEAT_DELTA_ADDR (1ull << 1)	/* segments may carry PPF_SEGF_DELTA_ADDR */
#define PPF_FEAT_XOR_CPU (1ull << 2)	/* segments may carry PPF_SEGF_XOR_CPU */
#define PPF_FEAT_TIME_COL (1ull << 3)	/* segments may carry PPF_SEGF_TIME_COL */
#define PPF_FEAT_USTACK_RUNS (1ull << 4)	/* segments may carry PPF_SEGF_USTACK_RUNS */
#define PPF_FEAT_REQUIRED_KNOWN (PPF_FEAT_CPU_TIME | PPF_FEAT_DELTA_ADDR | PPF_FEAT_XOR_CPU | \
				 PPF_FEAT_TIME_COL | PPF_FEAT_USTACK_RUNS)
#define PPF_CPU_TIME_MAX 4096		/* cpus at or above it use the previous record's time */

/* Record types.  0x01..0x0f untimed, 0x10..0x7f timed, 0x80.. reserved. */
enum ppf_rec_type {
	PPF_REC_KV = 0x01,		/* key, value (strings) */
	PPF_REC_EVENT_DESC = 0x02,	/* one recorded event */
	PPF_REC_TASK = 0x03,		/* task snapshot entry */
	PPF_REC_KSYM = 0x04,		/* kernel symbol */
	PPF_REC_DSO = 0x05,		/* a binary: build id, path; its SYMs follow */
	PPF_REC_SYM = 0x06,		/* a symbol of the last DSO */
	PPF_REC_STAT = 0x07,		/* key, value (u64) statistics */
	PPF_REC_STACK = 0x08,		/* stack_id, frames: segment-local interning */
	PPF_REC_INDEX_ENTRY = 0x09,	/* one segment in the index */
	PPF_REC_SYSCALL = 0x0a,		/* nr, name */
	PPF_REC_DIGEST_SEG = 0x0b,	/* a DIGEST's entry for one EVENTS segment (digest.c) */
	PPF_REC_UNWIND = 0x0c,		/* unwind rows of the last DSO (format/unwind.c) */
	PPF_REC_TIMED_FIRST = 0x10,
	PPF_REC_SAMPLE = 0x10,
	PPF_REC_COMM = 0x11,
	PPF_REC_FORK = 0x12,
	PPF_REC_EXIT = 0x13,
	PPF_REC_MMAP = 0x14,
	PPF_REC_LOST = 0x15,
	PPF_REC_TIME_SYNC = 0x16,	/* (perf ns, realtime ns) pair */
	PPF_REC_SIDEBAND = 0x17,	/* any other perf record, kept raw */
	PPF_REC_COUNTER = 0x18,		/* one reading of a group of counters on a CPU or thread */
	PPF_REC_TIMED_LAST = 0x7f,
};

/* --- Typed views of records ------------------------------------------------ */

enum ppf_event_kind {
	PPF_EV_TRACEPOINT = 1,
	PPF_EV_SOFTWARE = 2,
	PPF_EV_HARDWARE = 3,
	PPF_EV_UPROBE = 4,
	PPF_EV_KPROBE = 5,
	PPF_EV_BREAKPOINT = 6,
	PPF_EV_OTHER = 7,
};

enum ppf_event_desc_flags {
	PPF_EVF_KERNEL_FILTER = 1 << 0,	/* filter applied by the kernel */
	PPF_EVF_USER_FILTER = 1 << 1,	/* kernel refused it: analyzer must apply it */
	PPF_EVF_STACK = 1 << 2,		/* samples carry callchains */
	PPF_EVF_RETPROBE = 1 << 3,
	PPF_EVF_COUNTING = 1 << 4,	/* counted, not sampled: its values are in COUNTER records */
	PPF_EVF_COUNT_LEADER = 1 << 5,	/* samples a period and reads the counters' group (COUNTER after each) */
};

/* PPF_REC_EVENT_DESC.  Strings are borrowed from the segment buffer on read. */
struct ppf_event_desc {
	uint32_t id;			/* referenced by ppf_sample.id */
	uint32_t kind;			/* enum ppf_event_kind */
	uint32_t flags;			/* enum ppf_event_desc_flags */
	uint32_t tp_id;			/* tracefs id (common_type), 0 if none */
	const char *name;		/* "sched:sched_switch", "cpu-clock" */
	const char *selector;		/* as the user wrote it, with /filter/ATTR/ */
	const char *filter;		/* filter text, "" if none */
	const void *attr;		/* struct perf_event_attr bytes, as opened */
	uint32_t attr_sz;
	const char *format;		/* tracefs "format" text, "" if none */
};

/* PPF_REC_TASK: a task alive when recording started. */
struct ppf_task {
	uint32_t pid, tid, ppid;
	const char *comm;
	const char *cmdline;		/* NUL-separated args turned into spaces */
};

/* PPF_REC_KSYM */
struct ppf_ksym {
	uint64_t addr;
	char type;			/* 't', 'T', 'W' ... */
	const char *name;
	const char *module;		/* "" for vmlinux */
};

/* PPF_REC_DSO: a binary whose symbol table follows as SYM records. */
struct ppf_dso {
	const uint8_t *build_id;
	uint32_t build_id_sz;		/* 0 when the binary has none */
	const char *path;
	uint32_t nr_syms;
	uint32_t flags;			/* PPF_DSO_* */
	uint64_t text_vaddr;		/* ELF vaddr that maps file offset @text_offset */
	uint64_t text_offset;
};

enum { PPF_DSO_DEBUGINFO = 1 << 0, PPF_DSO_JITMAP = 1 << 1, PPF_DSO_KERNEL_MODULE = 1 << 2 };

/* PPF_REC_SYM: start is an ELF virtual address of the DSO (or absolute for JIT maps). */
struct ppf_sym {
	uint64_t start;
	uint64_t size;
	const char *name;		/* mangled as in the ELF file */
};

/*
 * PPF_REC_UNWIND: a run of the last DSO's unwind table, derived from its DWARF CFI at record
 * time.  One row says, for the ELF vaddrs [start, end), how to find the caller's frame:
 * CFA = SP or FP + cfa_off (PLT: SP + cfa_off, + 8 more when (ip & 15) >= 11), the return
 * address saved at CFA + ra_off (or undefined: the outermost frame), the caller's FP the
 * same as this one's or saved at CFA + fp_off.  A row of cfa UNKNOWN covers code whose
 * rule the recorder could not express: unwinding stops there.
 */
enum ppf_unwind_arch { PPF_UNWIND_X86_64 = 1 };
enum ppf_cfa_kind { PPF_CFA_UNKNOWN = 0, PPF_CFA_SP, PPF_CFA_FP, PPF_CFA_PLT };
enum ppf_reg_rule { PPF_REG_SAME = 0, PPF_REG_AT_CFA, PPF_REG_UNDEF };
#define PPF_UNWIND_MAX_ROWS 4096	/* rows in one UNWIND record (the writer splits) */

struct ppf_unwind_row {
	uint64_t start, end;		/* ELF vaddrs, start < end */
	uint8_t cfa;			/* enum ppf_cfa_kind */
	uint8_t ra;			/* PPF_REG_AT_CFA or PPF_REG_UNDEF */
	uint8_t fp;			/* PPF_REG_SAME or PPF_REG_AT_CFA */
	int32_t cfa_off, ra_off, fp_off;
};

/* PPF_REC_UNWIND as read: the rows stay encoded (validated); ppf_unwind_rows() decodes them. */
struct ppf_unwind {
	uint32_t arch;			/* enum ppf_unwind_arch */
	uint32_t nr_rows;		/* 1 .. PPF_UNWIND_MAX_ROWS */
	const uint8_t *rows;		/* borrowed from the segment */
	uint32_t rows_sz;
};

/**
 * ppf_unwind_rows() - decode the rows of an UNWIND record the reader returned
 * @u: the record (validated by the reader: sorted, not overlapping, in bounds)
 * @out: room for @u->nr_rows rows
 * Return: 0, or PP_EBAD_RECORD when @u is not as the reader validated it.
 */
int ppf_unwind_rows(const struct ppf_unwind *u, struct ppf_unwind_row *out) PP_MUST_CHECK;

/* PPF_REC_SAMPLE flags */
enum ppf_sample_flags {
	PPF_SF_PERIOD = 1 << 0,		/* period present (else 1) */
	PPF_SF_IP = 1 << 1,
	PPF_SF_ADDR = 1 << 2,
	PPF_SF_STACK = 1 << 3,
	PPF_SF_RAW = 1 << 4,
	PPF_SF_RAW_XOR = 1 << 5,	/* on disk only: raw XORed with the previous raw of this id */
	PPF_SF_EXTRA = 1 << 6,		/* extra bytes: regs, read values (layout by event desc) */
	PPF_SF_LATE = 1 << 7,		/* arrived after the reorder window; see late_ns */
	PPF_SF_USTACK = 1 << 8,		/* user registers and a copy of the user stack */
};
#define PPF_USTACK_MAX 65528		/* bytes of a stack copy (perf's limit) */

/*
 * PPF_REC_SAMPLE.  Pointers are borrowed until the reader leaves the segment; ustack, in a
 * segment whose copies are runs (PPF_SEGF_USTACK_RUNS), only until the thread's next sample.
 */
struct ppf_sample {
	uint64_t time_ns;		/* stored time (clamped for LATE samples) */
	uint64_t late_ns;		/* LATE: how much earlier it really happened */
	uint32_t flags;
	uint32_t id;
	uint32_t cpu;
	uint32_t pid, tid;
	uint64_t period;
	uint64_t ip;
	uint64_t addr;
	uint32_t stack_id;		/* segment-local, 0 = none */
	uint32_t nr_stack;
	const uint64_t *stack;		/* callchain as perf gives it, context markers included */
	uint32_t raw_sz;
	const uint8_t *raw;		/* tracepoint raw data */
	uint32_t extra_sz;
	const uint8_t *extra;
	/* USTACK: the user registers (the event's sample_regs_user, in bit order), the stack */
	uint64_t uregs_abi;		/* PERF_SAMPLE_REGS_ABI_* */
	const uint64_t *uregs;
	uint32_t nr_uregs;		/* at most 64 */
	uint32_t ustack_sz;		/* the valid part of the copy (dyn_size), <= PPF_USTACK_MAX */
	uint64_t ustack_addr;		/* the user address of ustack[0]: the sampled SP */
	const uint8_t *ustack;
};

struct ppf_comm {
	uint64_t time_ns;
	uint32_t pid, tid;
	uint32_t exec;			/* the COMM came from exec */
	const char *comm;
};

/* PPF_REC_FORK and PPF_REC_EXIT */
struct ppf_task_event {
	uint64_t time_ns;
	uint32_t pid, ppid, tid, ptid;
};

struct ppf_mmap {
	uint64_t time_ns;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t prot, flags;
	const uint8_t *build_id;
	uint32_t build_id_sz;
	const char *path;
};

struct ppf_lost {
	uint64_t time_ns;
	uint32_t cpu;
	uint32_t id;			/* event id if known, else 0 */
	uint64_t count;
};

struct ppf_time_sync {
	uint64_t time_ns;		/* perf clock */
	uint64_t realtime_ns;		/* CLOCK_REALTIME at the same instant */
};

struct ppf_sideband {
	uint64_t time_ns;
	uint32_t perf_type;		/* PERF_RECORD_* */
	uint32_t cpu;
	const uint8_t *data;		/* the record body after perf_event_header */
	uint32_t size;
	uint32_t pid, tid;		/* the thread that caused it; UINT32_MAX: unknown */
};

/* One counter of a COUNTER record: its event id and its value (absolute, as read). */
struct ppf_counter_val {
	uint32_t id;
	uint64_t value;
};

/* The most counters one COUNTER record holds (a group the kernel reads at once). */
#define PPF_COUNTER_MAX PP_LIMIT_COUNTERS

/*
 * A COUNTER record: counting-mode events read at one instant (a timer read,
 * or the group read a sampling leader carries).  Values, enabled and running
 * times are cumulative since the counters were enabled; running < enabled
 * means the kernel multiplexed them.
 */
struct ppf_counter {
	uint64_t time_ns;
	uint32_t cpu;			/* the CPU counted, UINT32_MAX: every CPU (a thread's count) */
	uint32_t tid;			/* the thread counted, UINT32_MAX: every thread (a CPU's count) */
	uint64_t enabled, running;	/* ns */
	uint32_t nr;			/* 1..PPF_COUNTER_MAX */
	const struct ppf_counter_val *v;
};

/*
 * PPF_REC_DIGEST_SEG: one entry of a DIGEST segment, naming an EVENTS segment by the
 * fields of its header (not by seq or offset); nr_copied copies of its side band follow.
 */
struct ppf_digest_entry {
	uint32_t csize, payload_crc;
	uint64_t first_ns, last_ns;
	uint32_t nr_records, nr_samples;
	uint32_t nr_stacks;		/* its STACK records */
	uint32_t nr_copied;		/* the copies after this record */
};

struct ppf_index_entry {
	uint64_t offset;
	uint32_t kind;
	uint64_t seq;
	uint64_t first_ns, last_ns;
	uint32_t nr_records;
};

/* A decoded record: @type says which member of the union is valid. */
struct ppf_record {
	uint32_t type;
	uint64_t time_ns;		/* timed records; 0 otherwise */
	const uint8_t *body;		/* the raw body, for unknown types */
	uint32_t body_sz;
	union {
		struct { const char *key, *value; } kv;
		struct { const char *key; uint64_t value; } stat;
		struct { uint32_t nr; const char *name; } syscall;
		struct ppf_event_desc event;
		struct ppf_task task;
		struct ppf_ksym ksym;
		struct ppf_dso dso;
		struct ppf_sym sym;
		struct ppf_unwind unwind;
		struct ppf_sample sample;
		struct ppf_comm comm;
		struct ppf_task_event task_event;
		struct ppf_mmap mmap;
		struct ppf_lost lost;
		struct ppf_time_sync sync;
		struct ppf_sideband sideband;
		struct ppf_counter counter;
		struct ppf_index_entry index;
		struct ppf_digest_entry digest;
	} u;
};

/* --- Writer ---------------------------------------------------------------- */

struct ppf_writer;

struct ppf_writer_opts {
	int zstd_level;			/* 0 = default (3); negative = fast levels */
	uint32_t seg_max_raw;		/* close a segment at this many raw bytes (0: 1 MiB) */
	uint64_t seg_max_age_ns;	/* ... or this long after its first record (0: never) */
	bool own_fd;			/* ppf_writer_close() closes the fd */
	bool no_index;			/* streaming: write no index/trailer at close */
	bool no_digest;			/* write no DIGEST segments */
	uint32_t digest_segs;		/* a DIGEST covers at most this many EVENTS segments (0: 16) */
	uint64_t created_ns;		/* wall clock for the header; 0 = now */
	/* segments stored raw, payload checksum 0: for a sink that hands them to a reader in
	 * this process (format/segq.h), never for a file */
	bool in_memory;
};

/**
 * ppf_writer_open() - create a capture file
 * @path: file to create (truncated if it exists)
 * @opts: options, or NULL for defaults
 * @out: the new writer
 *
 * Writes the file header at once.
 * Return: 0 or a negative code; the caller owns *@out and frees it with ppf_writer_close().
 */
int ppf_writer_open(const char *path, const struct ppf_writer_opts *opts,
		    struct ppf_writer **out) PP_MUST_CHECK;

/**
 * ppf_writer_open_fd() - write a capture to an open fd (a pipe is fine: no seeking)
 * Return: as ppf_writer_open().
 */
int ppf_writer_open_fd(int fd, const struct ppf_writer_opts *opts,
		       struct ppf_writer **out) PP_MUST_CHECK;

/*
 * Writer sinks: instead of an fd, a writer can hand every piece of the file
 * to a callback - the file header, each finished segment (its 64-byte header
 * and its payload, with the header's fields decoded), and the trailer - in
 * file order.  A sink keeps what it wants (a ring of segments in memory, a
 * size count before a file switch) and returns 0, or a negative code that
 * becomes the writer's sticky error.  The pieces are borrowed for the call.
 */
enum ppf_chunk_kind {
	PPF_CHUNK_FILE_HDR = 1,		/* the 64-byte file header */
	PPF_CHUNK_SEGMENT = 2,		/* one segment: header + payload */
	PPF_CHUNK_TRAILER = 3,		/* the 16-byte trailer after the index */
};

struct ppf_chunk {
	enum ppf_chunk_kind what;
	const void *head;		/* header bytes (file header, segment header, trailer) */
	size_t head_sz;
	const void *body;		/* PPF_CHUNK_SEGMENT: the payload; else NULL */
	size_t body_sz;
	/* PPF_CHUNK_SEGMENT only: the segment header's fields */
	uint32_t seg_kind;		/* enum ppf_seg_kind */
	uint64_t seq, first_ns, last_ns;
	uint32_t usize, nr_records, nr_samples;
	/* a writer's opts.in_memory segment: its payload's malloc()ed buffer (*@swap_cap
	 * bytes), which the sink may take, leaving a malloc()ed one of its own or NULL, 0 */
	void **swap_buf;
	size_t *swap_cap;
};

typedef int (*ppf_sink_fn)(void *arg, const struct ppf_chunk *c);

/**
 * ppf_writer_open_cb() - a writer whose output goes to @fn instead of an fd
 * @fn: called for each piece of the file, in order (see struct ppf_chunk)
 * @arg: passed to @fn
 * @opts: options, or NULL (own_fd is ignored)
 * @out: the new writer
 *
 * The file header goes to @fn at once.  Offsets in the index count the bytes
 * handed to @fn, so a sink that stores every chunk back to back holds a valid
 * capture.
 * Return: 0 or a negative code (also @fn's); the caller owns *@out and frees
 * it with ppf_writer_close().
 */
int ppf_writer_open_cb(ppf_sink_fn fn, void *arg, const struct ppf_writer_opts *opts,
		       struct ppf_writer **out) PP_MUST_CHECK;

/**
 * ppf_writer_put_segment() - copy a finished segment (from a sink) into this writer
 * @w: the writer
 * @seg: the segment's 64-byte header followed by its payload
 * @len: its size (64 + csize)
 *
 * Closes the open segment first.  The header and the payload checksum are
 * verified; the segment is written as is, renumbered to this writer's next
 * sequence number, and indexed.  Index segments are refused (the writer
 * makes its own).  Timed records that follow must not be older than the
 * segment's last_ns.
 * Return: 0, PP_EBAD_MAGIC/PP_EBAD_CRC/PP_EBAD_LENGTH/PP_ELIMIT for a bad segment
 * (the writer stays usable), or the writer's sticky error.
 */
int ppf_writer_put_segment(struct ppf_writer *w, const void *seg, size_t len) PP_MUST_CHECK;

/** ppf_writer_bytes() - bytes written so far (file header and closed segments). */
uint64_t ppf_writer_bytes(const struct ppf_writer *w);

/**
 * ppf_writer_begin() - make @kind the kind of the segment being filled
 *
 * Closes the open segment if it is of another kind.  Every ppf_write_*()
 * appends to the open segment (opening one of the kind it belongs to when
 * none is open).
 * Return: 0 or a negative code.
 */
int ppf_writer_begin(struct ppf_writer *w, enum ppf_seg_kind kind) PP_MUST_CHECK;

/** ppf_writer_flush() - close the open segment now (pipe latency, reorder flush). */
int ppf_writer_flush(struct ppf_writer *w) PP_MUST_CHECK;

/**
 * ppf_writer_flush_digest() - close the open segment and write the DIGEST of the EVENTS
 * segments since the last one now (none: nothing), rather than after digest_segs more or
 * at close: what a sink that is copied out in the middle (a flight recorder's dump)
 * needs for its last segments
 * Return: 0 or a negative code.
 */
int ppf_writer_flush_digest(struct ppf_writer *w) PP_MUST_CHECK;

/** ppf_writer_tick() - close the open segment if it is older than seg_max_age_ns. */
int ppf_writer_tick(struct ppf_writer *w) PP_MUST_CHECK;

/**
 * ppf_writer_close() - flush, write the index and trailer, free the writer
 * Return: 0 or the first error seen by this writer (the writer is freed in every case).
 */
int ppf_writer_close(struct ppf_writer *w) PP_MUST_CHECK;

/** ppf_writer_errmsg() - the last detailed error ("write: No space left on device"). */
const char *ppf_writer_errmsg(const struct ppf_writer *w);

/** Totals so far: segments written, raw and compressed bytes (headers included in comp). */
struct ppf_writer_totals {
	uint64_t nr_segments, raw_bytes, comp_bytes, nr_samples, nr_late;
};
void ppf_writer_totals(const struct ppf_writer *w, struct ppf_writer_totals *t);

/*
 * Record writers.  Each appends one record to the open segment, opening a
 * segment of the right kind if needed.  Timed records must come in time
 * order; a SAMPLE older than the previous timed record is clamped and
 * flagged PPF_SF_LATE (late_ns set), any other timed record is clamped.
 * Return: 0 or a negative code (also kept as the writer's sticky error).
 */
int ppf_write_kv(struct ppf_writer *w, const char *key, const char *value) PP_MUST_CHECK;
int ppf_write_stat(struct ppf_writer *w, const char *key, uint64_t value) PP_MUST_CHECK;
int ppf_write_syscall(struct ppf_writer *w, uint32_t nr, const char *name) PP_MUST_CHECK;
int ppf_write_event_desc(struct ppf_writer *w, const struct ppf_event_desc *d) PP_MUST_CHECK;
int ppf_write_task(struct ppf_writer *w, const struct ppf_task *t) PP_MUST_CHECK;
int ppf_write_ksym(struct ppf_writer *w, const struct ppf_ksym *k) PP_MUST_CHECK;
int ppf_write_dso(struct ppf_writer *w, const struct ppf_dso *d) PP_MUST_CHECK;
int ppf_write_sym(struct ppf_writer *w, const struct ppf_sym *s) PP_MUST_CHECK;
/**
 * ppf_write_unwind() - an UNWIND record: @nr (1 .. PPF_UNWIND_MAX_ROWS) rows of the last DSO
 * @rows: sorted by start, not overlapping, each start < end, offsets as in the row
 * Return: 0, PP_EBAD_RECORD for rows out of order or a bad count, or the writer's error.
 */
int ppf_write_unwind(struct ppf_writer *w, uint32_t arch, const struct ppf_unwind_row *rows,
		     size_t nr) PP_MUST_CHECK;
/* For SAMPLE, stack_id and RAW_XOR are computed by the writer; set nr_stack/stack. */
int ppf_write_sample(struct ppf_writer *w, const struct ppf_sample *s) PP_MUST_CHECK;
int ppf_write_comm(struct ppf_writer *w, const struct ppf_comm *c) PP_MUST_CHECK;
int ppf_write_fork(struct ppf_writer *w, const struct ppf_task_event *f) PP_MUST_CHECK;
int ppf_write_exit(struct ppf_writer *w, const struct ppf_task_event *e) PP_MUST_CHECK;
int ppf_write_mmap(struct ppf_writer *w, const struct ppf_mmap *m) PP_MUST_CHECK;
int ppf_write_lost(struct ppf_writer *w, const struct ppf_lost *l) PP_MUST_CHECK;
int ppf_write_time_sync(struct ppf_writer *w, const struct ppf_time_sync *s) PP_MUST_CHECK;
int ppf_write_sideband(struct ppf_writer *w, const struct ppf_sideband *s) PP_MUST_CHECK;
/** ppf_write_counter() - a COUNTER record; values are delta-coded per (id, cpu, tid) in a segment. */
int ppf_write_counter(struct ppf_writer *w, const struct ppf_counter *c) PP_MUST_CHECK;

/**
 * ppf_write_record() - write a record a reader decoded (format/copy.c)
 * @w: the writer
 * @r: the record; INDEX_ENTRY records are skipped (the writer indexes itself)
 *
 * Re-encodes it with this writer's stack table, RAW_XOR chain and segments.
 * Return: 0, PP_EBAD_RECORD for a type this writer does not know, or the
 * error of the ppf_write_*() it dispatched to.
 */
int ppf_write_record(struct ppf_writer *w, const struct ppf_record *r) PP_MUST_CHECK;

/* --- Reader ---------------------------------------------------------------- */

struct ppf_reader;

enum ppf_reader_flags {
	PPF_READ_STRICT = 1 << 0,	/* corruption or truncation is an error, not a skip */
	PPF_READ_STREAM = 1 << 1,	/* the fd cannot seek (a pipe): scan only */
	/*
	 * Decompress the next segment on a helper thread while the caller
	 * decodes the current one (files only: a stream is never read ahead,
	 * which would hold back the segment in hand until the next arrives).
	 * Same records, problems and stats, in the same order, as without.
	 */
	PPF_READ_AHEAD = 1 << 2,
	/*
	 * ppf_reader_next() hands out the records of DIGEST segments too, instead of
	 * passing them over: for each entry a DIGEST_SEG record (rec->u.digest), then
	 * its copies with their times (pp-analyze dump).
	 */
	PPF_READ_DIGESTS = 1 << 3,
};

struct ppf_file_info {
	uint16_t major, minor;
	uint64_t created_ns;
	uint32_t flags;
	uint64_t required_features, optional_features;
	bool has_index;
};

/* A problem the reader skipped over (bad checksum, bad zstd, cut-off tail). */
struct ppf_problem {
	uint64_t seq;			/* segment number (sequence), or the next expected */
	uint64_t offset;		/* file offset of the segment header */
	int err;			/* PP_EBAD_CRC, PP_EBAD_ZSTD, PP_ETRUNCATED, ... */
	uint32_t nr_records;		/* records lost with it, when the header was trusted */
	uint32_t kind;			/* its kind, when the header was trusted; else 0 */
};

struct ppf_read_stats {
	uint64_t nr_segments;		/* good segments read */
	uint64_t raw_bytes, comp_bytes;	/* of the good segments (comp includes headers) */
	uint64_t nr_corrupt;		/* segments skipped */
	uint64_t records_lost;		/* records in skipped segments (as their headers said) */
	bool truncated;			/* the file ends inside a segment, or without a trailer */
	bool cut_mid_segment;		/* the file ends inside a segment */
	uint64_t truncated_at;		/* file offset where the last whole segment ended */
	uint64_t last_seq;		/* last good segment's sequence number */
	uint64_t last_time_ns;		/* last timed record of the last good events segment */
	size_t nr_problems;
	const struct ppf_problem *problems;	/* the first 64 problems, borrowed */
	/* DIGEST segments passed over by ppf_reader_next() (not in nr_segments; in the bytes) */
	uint64_t nr_digests;
	/* before the window (ppf_reader_set_window()): how the side band was had */
	uint64_t skim_segments;		/* EVENTS segments decompressed and skimmed */
	uint64_t skim_raw_bytes;	/* their decompressed bytes */
	uint64_t digest_segments;	/* EVENTS segments whose side band came from a digest */
	uint64_t digest_raw_bytes;	/* bytes of the digests decompressed for them */
};

/** A segment as read: header fields plus the decompressed payload. */
struct ppf_segment {
	uint32_t kind, flags;
	uint64_t seq;
	uint64_t offset;		/* of its header in the file */
	uint64_t first_ns, last_ns;
	uint32_t csize, usize;
	uint32_t nr_records, nr_samples;
	uint32_t payload_crc;		/* as in its header (what a digest's entry names) */
	const uint8_t *data;		/* usize bytes, borrowed until the next segment */
};

/**
 * ppf_reader_open() - open a capture for reading
 * @path: a file, or "-" for standard input (then PPF_READ_STREAM is implied)
 * @flags: PPF_READ_*
 * @out: the new reader
 *
 * Reads and checks the file header; a newer major version is refused with
 * a message naming both versions (see ppf_reader_errmsg(r) on failure:
 * @out is set to a reader holding only the message, which the caller frees).
 * Return: 0 or a negative code.
 */
int ppf_reader_open(const char *path, unsigned flags, struct ppf_reader **out) PP_MUST_CHECK;
/** ppf_reader_open_fd() - as ppf_reader_open() on an fd the reader does not own. */
int ppf_reader_open_fd(int fd, unsigned flags, struct ppf_reader **out) PP_MUST_CHECK;
/** ppf_reader_close() - free the reader (NULL is fine). */
void ppf_reader_close(struct ppf_reader *r);
const char *ppf_reader_errmsg(const struct ppf_reader *r);
const struct ppf_file_info *ppf_reader_info(const struct ppf_reader *r);
const struct ppf_read_stats *ppf_reader_stats(const struct ppf_reader *r);

/**
 * ppf_reader_next_segment() - the next good segment, skipping bad ones
 * @r: the reader
 * @seg: receives a borrowed view valid until the next call
 *
 * Corrupt segments are recorded in the stats and skipped (with
 * PPF_READ_STRICT they end the read with an error instead).
 * Return: 0, PPF_END (positive 1) at the end, or a negative code.
 */
#define PPF_END 1
int ppf_reader_next_segment(struct ppf_reader *r, const struct ppf_segment **seg) PP_MUST_CHECK;

/**
 * ppf_reader_next() - the next record of the capture, across segments
 * @r: the reader
 * @rec: receives the decoded record; pointers borrowed until the reader
 *       leaves the current segment
 * @seg: if not NULL, receives the segment the record came from (its data
 *       is the decoder's work buffer: the raw data of RAW_XOR samples
 *       already decoded is stored there un-XORed, and so is rec->body's)
 *
 * Return: 0, PPF_END at the end, or a negative code (a malformed record:
 * the rest of that segment is skipped and reported as corrupt; the call
 * continues with the next segment, so a negative return only happens in
 * strict mode or on an I/O error).
 */
int ppf_reader_next(struct ppf_reader *r, struct ppf_record *rec,
		    const struct ppf_segment **seg) PP_MUST_CHECK;

/**
 * ppf_reader_rewind() - start over from the first segment (seekable files only)
 * Return: 0 or -ESPIPE.
 */
int ppf_reader_rewind(struct ppf_reader *r) PP_MUST_CHECK;

/**
 * ppf_reader_seek_time() - skip EVENTS segments that end before @t_ns
 *
 * Uses the index when the file has one; other segment kinds are still
 * delivered.  Without an index (or on a stream) it only skips the decoding
 * of segments whose headers say they end earlier.
 * Return: 0 or a negative code.
 */
int ppf_reader_seek_time(struct ppf_reader *r, uint64_t t_ns) PP_MUST_CHECK;

/**
 * ppf_reader_set_window() - read one part of a file (parallel replay, docs/capture-format.md
 * "Reading a capture in parts")
 * @from: file offset of the part's first segment; before it, EVENTS segments give their
 *        records but SAMPLEs (and STACKs): the side band, counters and losses, so that the
 *        state at @from is known; problems there are not reported (that part's reader does)
 * @to: the read ends (PPF_END, not a cut) at the first segment at or after this offset;
 *      0: the end of the file
 * Offsets are those of ppf_reader_segments().  Call before reading.
 * Return: 0, -ESPIPE on a stream, -EINVAL for @to before @from.
 */
int ppf_reader_set_window(struct ppf_reader *r, uint64_t from, uint64_t to) PP_MUST_CHECK;

/**
 * ppf_reader_set_digests() - let the part before the window take its side band from DIGEST
 * segments (docs/capture-format.md "Side-band digests")
 * @segs, @nr: the file's segments, as ppf_reader_segments() lists them (copied)
 *
 * An EVENTS segment before the window whose entry the first DIGEST after it holds, and
 * whose header and payload checksum agree with it, is not decompressed: its side-band
 * records come from the digest.  Anything else about it is read as without.  A reader
 * never uses digests otherwise: ppf_reader_next() passes DIGEST segments over unread
 * (unless PPF_READ_DIGESTS).
 * Return: 0 or -ENOMEM.
 */
int ppf_reader_set_digests(struct ppf_reader *r, const struct ppf_index_entry *segs,
			   size_t nr) PP_MUST_CHECK;

/*
 * Which segments of one file passed their checksum (format/checks.c), shared by the
 * readers of a parallel replay's parts (any thread): a segment before a reader's window
 * that another reader checked is not read again - its side band comes from its digest.
 */
struct ppf_checks;
/** ppf_checks_new() - none passed yet, for the segments @segs (ppf_reader_segments()); NULL: no memory */
struct ppf_checks *ppf_checks_new(const struct ppf_index_entry *segs, size_t nr);
void ppf_checks_free(struct ppf_checks *c);
/** ppf_checks_pass() - the segment at file offset @off passed its checksum */
void ppf_checks_pass(struct ppf_checks *c, uint64_t off);
/** ppf_checks_passed() - whether a reader noted the segment at @off as passed */
bool ppf_checks_passed(const struct ppf_checks *c, uint64_t off);
/**
 * ppf_reader_share_checks() - @r notes in @c the segments that pass their checksum, and
 * takes a segment before its window that @c holds as passed from its digest unread
 * (ppf_reader_set_digests()).  @c must outlive @r.
 */
void ppf_reader_share_checks(struct ppf_reader *r, struct ppf_checks *c);

/**
 * ppf_reader_pass_over() - segments of the kinds in @kinds (1 << PPF_SEG_*) before file
 * offset @before are not read: skipped as if absent (a parallel replay's part, whose
 * kernel symbols are another reader's).  Call before reading.
 */
void ppf_reader_pass_over(struct ppf_reader *r, unsigned kinds, uint64_t before);

/**
 * ppf_reader_segments() - every segment of the file but the index, in file order: from
 * the index when the file has one, else from a scan of the headers (a header that fails
 * its checks is stepped over, as the reader does; a segment cut by the end of the file
 * ends the list)
 * @out: new array (free()), with offset, kind, seq, first_ns, last_ns, nr_records
 * Return: 0, -ESPIPE on a stream, -ENOMEM.
 */
int ppf_reader_segments(struct ppf_reader *r, struct ppf_index_entry **out, size_t *nr) PP_MUST_CHECK;

/* --- Low-level pieces, exposed for tests and tools ------------------------- */

/** ppf_crc32c() - CRC32C (Castagnoli) of @len bytes, continuing from @crc (start with 0). */
uint32_t ppf_crc32c(uint32_t crc, const void *buf, size_t len);

/**
 * ppf_segment_decode() - decode the records of a raw segment payload
 * @data, @size: the decompressed payload
 * @first_ns: the segment header's first_ns (base of time deltas)
 * @seg_flags: the segment header's flags (PPF_SEGF_CPU_TIME changes SAMPLE times)
 * @cb: called for each record; non-zero return stops the walk
 * Return: 0, the callback's value, or PP_EBAD_RECORD.
 */
typedef int (*ppf_record_fn)(const struct ppf_record *rec, void *arg);
int ppf_segment_decode(const uint8_t *data, size_t size, uint64_t first_ns, uint32_t seg_flags,
		       ppf_record_fn cb, void *arg) PP_MUST_CHECK;

/**
 * ppf_digest_check() - whether a part of a parallel read would use a DIGEST segment
 * (docs/capture-format.md "Side-band digests": every check after its checksum's and its
 * zstd frame's, which the reader makes)
 * @data, @size: its decompressed payload (a DIGEST segment's data from the reader)
 * @why: receives, when it would not be used, the first check it fails
 *       ("entry 3: 4 copies follow it, nr_copied says 5")
 * Return: 0, PP_EBAD_RECORD (not used: @why says why) or -ENOMEM.
 */
int ppf_digest_check(const uint8_t *data, size_t size, char *why, size_t whysz) PP_MUST_CHECK;

/**
 * ppf_digest_entry_cmp() - an order of digest entries by the six header fields that name
 * their segment (csize, payload_crc, first_ns, last_ns, nr_records, nr_samples; not
 * nr_stacks or nr_copied): 0 when @a and @b name the same segment
 * Return: <0, 0 or >0, as qsort() and bsearch() want.
 */
int ppf_digest_entry_cmp(const struct ppf_digest_entry *a, const struct ppf_digest_entry *b);

/** ppf_kind_name() - "events", "meta", ... for a segment kind. */
const char *ppf_kind_name(uint32_t kind);

#endif
