/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - which binaries recorded user-space addresses fall into, and
 * their symbol tables written to the capture the first time one is hit.
 *
 * The maps of every process are followed in capture time order: the /proc
 * snapshot at start, then MMAP2/FORK/COMM(exec)/EXIT as they are written.
 * When a sample's address lands in a binary whose symbols are not in the
 * capture yet, they are loaded (rec_elfsyms) and written before that sample,
 * so a streaming reader always has them first.  Each build id is written once.
 * Not here: reading ELF symbol tables (elfsyms.c).
 */
#ifndef PP_RECORD_SYMBOLS_H
#define PP_RECORD_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ppf_writer;
struct rec_symbols;

struct rec_symbols_stats {
	uint64_t nr_dsos;		/* symbol tables written */
	uint64_t nr_failed;		/* binaries hit whose symbols could not be read */
	uint64_t nr_dup;		/* hit under another path, same build id: not rewritten */
	uint64_t nr_unmapped;		/* user addresses in no known mapping */
	uint64_t nr_unwind;		/* unwind tables written (rec_symbols_set_unwind()) */
	uint64_t nr_unwind_rows;	/* their rows */
	uint64_t nr_stack_words;	/* words of stack copies looked up in a map */
};

/**
 * rec_symbols_set_unwind() - whether each binary's unwind table (its DWARF CFI as UNWIND
 * records, format/cfi.h) follows its symbols: for sessions that record DWARF stacks
 * @sy: the tracker
 * @on: the switch (off when made)
 */
void rec_symbols_set_unwind(struct rec_symbols *sy, bool on);

/** rec_symbols_new() - an empty tracker.  Return: the tracker (never NULL). */
struct rec_symbols *rec_symbols_new(void);
/** rec_symbols_free() - free it (NULL is fine). */
void rec_symbols_free(struct rec_symbols *sy);

/** rec_symbols_map() - process @pid maps @path at [@addr, @addr + @len) from file offset @pgoff. */
void rec_symbols_map(struct rec_symbols *sy, uint32_t pid, uint64_t addr, uint64_t len,
		     uint64_t pgoff, const char *path, const uint8_t *build_id, size_t build_id_sz);
/** rec_symbols_fork() - new process @pid starts with a copy of @ppid's maps. */
void rec_symbols_fork(struct rec_symbols *sy, uint32_t pid, uint32_t ppid);
/** rec_symbols_exec() - @pid replaced its image: forget its maps. */
void rec_symbols_exec(struct rec_symbols *sy, uint32_t pid);
/** rec_symbols_exit() - @pid is gone. */
void rec_symbols_exit(struct rec_symbols *sy, uint32_t pid);

/**
 * rec_symbols_hit() - a recorded user address of @pid: make sure its binary's symbols are written
 * @sy: the tracker
 * @w: the capture (a USYMS segment is written when needed)
 * @pid: the process
 * @addr: the address
 *
 * A binary whose symbols cannot be read is remembered as failed and skipped.
 * Return: 0 or the writer's error.
 */
int rec_symbols_hit(struct rec_symbols *sy, struct ppf_writer *w, uint32_t pid, uint64_t addr);

/**
 * rec_symbols_hit_words() - rec_symbols_hit() for each 8-byte word of a user stack copy that
 * falls in an executable map of @pid (the frames of --call-graph dwarf are not known yet)
 * @words, @sz: the copy
 * Return: 0 or the writer's error.
 */
int rec_symbols_hit_words(struct rec_symbols *sy, struct ppf_writer *w, uint32_t pid,
			  const uint8_t *words, size_t sz);

/**
 * rec_symbols_write_maps() - an MMAP record at @time_ns for every map the tracker holds
 * @sy: the tracker
 * @w: the capture
 * @time_ns: the time of the records
 *
 * For a capture that starts in the middle of a recording (a rotated file, a
 * flight-recorder dump): the processes' executable file maps as of now.
 * Return: 0 or the writer's error.
 */
int rec_symbols_write_maps(struct rec_symbols *sy, struct ppf_writer *w, uint64_t time_ns);

/**
 * rec_symbols_forget_written() - a new capture file starts: symbol tables go out again
 *
 * Binaries whose symbols could not be read stay skipped.
 */
void rec_symbols_forget_written(struct rec_symbols *sy);

/** rec_symbols_get_stats() - counters so far. */
void rec_symbols_get_stats(const struct rec_symbols *sy, struct rec_symbols_stats *st);

/**
 * rec_read_build_id() - the GNU build id of ELF file @path
 * @path: the file
 * @id: receives up to @max bytes
 * @max: its size
 * Return: the build id's length, 0 when the file has none, or -errno.
 */
int rec_read_build_id(const char *path, uint8_t *id, size_t max);

#endif
