/* SPDX-License-Identifier: MIT */
/*
 * capfuzz.h - a capture derived from fuzzer bytes, through format/'s writer.
 *
 * The whole-pipeline fuzz targets (fuzz-pipeline.c, fuzz-python.c) do not
 * feed raw bytes to the reader, whose checksums would reject nearly every
 * mutation: they read the bytes as a little program of records (below) and
 * write what it says with ppf_write_*(), so every checksum and frame is
 * right and the mutations reach libtraceevent, the decoders and the
 * analyzers.  Every byte string is a valid program: a value read past the
 * end is 0, an opcode is taken modulo the number of ops, lengths are capped
 * by what remains.  fuzz-seed.c writes the same language from a real
 * capture (the seed corpus), so the constants here are its contract too.
 *
 *   program := config:u8 op*
 *   op      := opcode:u8 fields          (opcode % FZ_OP_NR)
 *
 * Numbers are LEB128 varints ("v"), strings a varint length and the bytes
 * ("s"), addresses a tag byte and a varint ("a": FZ_A_*).  The fields of
 * each op are listed at enum fz_op.  Bytes that begin with the capture
 * file's magic are taken as a capture as they are: the regression inputs
 * (tests/fuzz/regress/) are captures, which pp-analyze opens too and which
 * stay valid when this language changes.  Not here: what is run on the
 * capture (the targets).
 */
#ifndef PP_TESTS_CAPFUZZ_H
#define PP_TESTS_CAPFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fz_op {
	FZ_OP_KV,		/* s key, s value */
	FZ_OP_EVENT,		/* see fz_event in capfuzz.c: id, kind, flags, name, format, attr */
	FZ_OP_TASK,		/* v pid, v tid, v ppid, s comm, s cmdline */
	FZ_OP_KSYM,		/* a addr, u8 type, s name, s module */
	FZ_OP_DSO,		/* s build_id, s path, v flags, v vaddr, v offset, u8 nr, nr x (v start, v size, s name) */
	FZ_OP_SYSCALL,		/* v nr, s name */
	FZ_OP_SAMPLE,		/* see fz_sample in capfuzz.c */
	FZ_OP_COMM,		/* v dt, v pid, v tid, v exec, s comm */
	FZ_OP_TASKEV,		/* u8 fork|exit, v dt, v pid, v ppid, v tid, v ptid */
	FZ_OP_MMAP,		/* v dt, v pid, v tid, a addr, v len, v pgoff, v prot, v flags, s build_id, s path */
	FZ_OP_LOST,		/* v dt, v cpu, v id, v count */
	FZ_OP_SYNC,		/* v dt, v realtime_ns */
	FZ_OP_SIDEBAND,		/* v dt, v type, v cpu, s data, v pid, v tid */
	FZ_OP_COUNTER,		/* v dt, v cpu, v tid, v enabled, v running, u8 nr, nr x (v id, v value) */
	FZ_OP_STAT,		/* s key, v value */
	FZ_OP_FLUSH,		/* close the open segment */
	FZ_OP_NR,
};

/* Address tags ("a"): what the varint that follows means. */
enum fz_addr_tag {
	FZ_A_ABS,		/* the value itself */
	FZ_A_KERNEL,		/* FZ_KBASE + value: near the kernel's symbols */
	FZ_A_USER,		/* FZ_UBASE + value: near a program's mappings */
	FZ_A_MARK,		/* a PERF_CONTEXT_* marker (value % 7 picks one) */
	FZ_A_NR,
};
#define FZ_KBASE 0xffffffff81000000ull
#define FZ_UBASE 0x0000555555554000ull

/* EVENT: how the name and the format text are given (a tag byte each). */
#define FZ_NAME_LITERAL 0x80	/* tag >= this: s name follows; else the table's name (tag % n) */
#define FZ_FMT_NONE 0xfe	/* no format: a software event */
#define FZ_FMT_LITERAL 0xff	/* s format follows; else the table's (tag % n) and edits */

/* SAMPLE: which fields follow, a bit mask. */
enum fz_sample_bits {
	FZ_S_PERIOD = 1 << 0,	/* v period */
	FZ_S_IP = 1 << 1,	/* a ip */
	FZ_S_ADDR = 1 << 2,	/* a addr */
	FZ_S_STACK = 1 << 3,	/* u8 nr, nr x a frame */
	FZ_S_EXTRA = 1 << 4,	/* s extra */
	FZ_S_RAW = 1 << 5,	/* s raw: the raw record as given */
	FZ_S_FIELDS = 1 << 6,	/* raw built from the event's format: a value per field */
	FZ_S_BACK = 1 << 7,	/* the time goes back by dt (the writer makes it LATE) */
};

/* The event names and format texts a program can pick by number (capfuzz-formats.c). */
struct fz_format {
	const char *name;	/* "sched:sched_switch" */
	const char *text;	/* its tracefs format file */
};
extern const struct fz_format fz_formats[];
extern const size_t fz_nr_formats;

/* What a program wrote, for the targets that choose analyzers by it. */
#define FZ_MAX_EVENTS 32
struct fz_capture {
	int fd;			/* a memfd holding the capture, positioned at 0 */
	char path[64];		/* /proc/self/fd/N */
	uint8_t config;		/* the program's first byte */
	bool verbatim;		/* the bytes were a capture (a regression input): run everything */
	size_t nr_events;
	char *names[FZ_MAX_EVENTS];	/* the events written, in order */
	char *fields[FZ_MAX_EVENTS];	/* the first non-common field of each, or NULL */
	size_t nr_samples;
};

/**
 * fz_capture_build() - write the capture the program @data says
 * @data, @size: the fuzzer's bytes
 * @out: receives the memfd, its path and what was written
 *
 * The capture is closed normally (index and trailer) unless the program's
 * config byte asks for a cut one.
 * Return: 0, or -1 when no memfd could be made; release with fz_capture_release().
 */
int fz_capture_build(const uint8_t *data, size_t size, struct fz_capture *out);

/** fz_capture_release() - close the memfd and free the names. */
void fz_capture_release(struct fz_capture *c);

/* --- writing programs (fuzz-seed.c) ----------------------------------------- */

struct pp_buf;
void fz_put_u8(struct pp_buf *b, unsigned v);
void fz_put_v(struct pp_buf *b, uint64_t v);
void fz_put_s(struct pp_buf *b, const void *p, size_t n);
void fz_put_str(struct pp_buf *b, const char *s);
/** fz_put_a() - an address: kernel and user ones near the bases relative to them. */
void fz_put_a(struct pp_buf *b, uint64_t addr);

/**
 * fz_quiet_analyze() - what the targets that run pp-analyze's commands set up first: their
 * reports go to /dev/null (stdout), no log lines, pp-analyze's name in messages, times in UTC.
 */
void fz_quiet_analyze(void);

#endif
