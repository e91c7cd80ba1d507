/* SPDX-License-Identifier: MIT */
/*
 * insn.h - the instruction bytes around the IPs of write-breakpoint hits,
 * saved in the capture for the breakpoint analyzer's decoder.
 *
 * A data breakpoint traps after the access, so the instruction that wrote
 * ends at the sample's IP; the analyzer decodes it from the bytes before
 * the IP.  For each distinct IP (kernel) or (process, IP) (user) of a write
 * breakpoint's samples, up to REC_INSN_BEFORE bytes before the IP and
 * REC_INSN_AFTER bytes from it are read once - kernel text from /proc/kcore,
 * user text from /proc/PID/mem when the sample is written - and stored as a
 * KV record before that sample, so a streaming reader has them first:
 *
 *   key   "insn.<ip hex>" (kernel), "insn.<pid>.<ip hex>" (user)
 *   value "<bytes before the IP, hex>:<bytes from the IP, hex>"
 *
 * An address that cannot be read gives no record (noted once with -v); it
 * is not tried again.  Code patched while recording is saved as first read.
 * Not here: decoding (common/x86-insn.c, analyzers/breakpoint.c).
 */
#ifndef PP_RECORD_INSN_H
#define PP_RECORD_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ppf_writer;
struct rec_evsel;
struct rec_insn;

#define REC_INSN_BEFORE 15		/* the longest x86 instruction */
#define REC_INSN_AFTER 15

/* /proc/kcore: an ELF core file whose PT_LOAD headers map kernel addresses to file offsets. */
struct rec_kcore_seg {
	uint64_t vaddr, offset, size;
};

struct rec_kcore {
	int fd;
	struct rec_kcore_seg *segs;
	size_t nr_segs;
};

/**
 * rec_kcore_open() - open an ELF core file and read its PT_LOAD headers
 * @path: "/proc/kcore", or a file laid out like it (tests)
 * @kc: filled in; close with rec_kcore_close()
 * Return: 0, -errno, or PP_EBAD_MAGIC (not a 64-bit little-endian ELF core).
 */
int rec_kcore_open(const char *path, struct rec_kcore *kc);
/** rec_kcore_close() - close it (a zeroed or closed one is fine). */
void rec_kcore_close(struct rec_kcore *kc);
/**
 * rec_kcore_read() - bytes at kernel address @va, within the segment that holds @va
 * Return: the number of bytes read (fewer than @n at the segment's end), or -1
 * when no segment holds @va or the read fails.
 */
ssize_t rec_kcore_read(const struct rec_kcore *kc, uint64_t va, void *buf, size_t n);

/** rec_insn_wanted() - whether the bytes at the IPs of @e are saved (x86 write breakpoints) */
bool rec_insn_wanted(const struct rec_evsel *e);

/**
 * rec_insn_new() - an empty cache
 * @kcore: the kernel image to read ("/proc/kcore"; tests give another file)
 * Return: the cache (never NULL); free with rec_insn_free().
 */
struct rec_insn *rec_insn_new(const char *kcore);
/** rec_insn_free() - free it (NULL is fine). */
void rec_insn_free(struct rec_insn *ri);

/**
 * rec_insn_hit() - a write-breakpoint sample at @ip: save its bytes if not yet done
 * @ri: the cache
 * @w: the capture (a KV record is written when the bytes are new)
 * @pid: the sampled process (user IPs)
 * @ip: the sample's IP
 * @kernel: the IP is kernel code
 * Return: 0 or the writer's error.
 */
int rec_insn_hit(struct rec_insn *ri, struct ppf_writer *w, uint32_t pid, uint64_t ip,
		 bool kernel);

/**
 * rec_insn_write_all() - a KV record for every IP saved so far
 *
 * For a capture file that starts in the middle of a recording (rotation,
 * flight-recorder dumps): its samples may need bytes saved earlier.
 * Return: 0 or the writer's error.
 */
int rec_insn_write_all(struct rec_insn *ri, struct ppf_writer *w);

/** rec_insn_count() - IPs saved so far, and IPs whose bytes could not be read (-v). */
void rec_insn_count(const struct rec_insn *ri, uint64_t *nr_saved, uint64_t *nr_failed);

#endif
