/* SPDX-License-Identifier: MIT */
/*
 * elfsyms.h - the symbol table of one binary (or JIT map), extracted for a capture.
 *
 * pp-record reads each binary that recorded samples hit, once per build id, with libelf
 * only: build id, function symbols from .symtab (else .dynsym), preferring a separate
 * debug file under <debug root>/.build-id/xx/yyyy.debug, and the file offset <-> vaddr
 * relation of the executable PT_LOAD segment.  The result is written to the capture as one
 * PPF_REC_DSO record followed by its PPF_REC_SYM records.
 *
 * Files are untrusted: every size is checked against the file size and fixed caps before
 * anything is allocated, and a malformed file is an error, never a crash.
 * Not here: demangling or lookups (common/symbolize.h, analysis side), DWARF.
 */
#ifndef PP_RECORD_ELFSYMS_H
#define PP_RECORD_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

#define REC_ELFSYMS_DEBUG_ROOT "/usr/lib/debug"
#define REC_ELFSYMS_MAX_BUILD_ID 64
#define REC_ELFSYMS_MAX_SECTION (256u << 20)	/* a symbol or string table larger is skipped */
#define REC_ELFSYMS_MAX_SYMS (4u << 20)		/* function symbols kept from one file */
#define REC_ELFSYMS_MAX_NAME 65535		/* longer names are skipped */
#define REC_JITMAP_MAX_SZ (64u << 20)		/* bytes of a perf-PID.map read */

/** struct rec_elfsym - one function: [start, start + size) in ELF vaddrs (absolute for JIT) */
struct rec_elfsym {
	uint64_t start;
	uint64_t size;
	const char *name;	/* mangled, as in the file; points into rec_elfsyms storage */
};

/**
 * struct rec_elfsyms - what a capture stores about one binary
 * @path: the path recorded in the capture (rec_elfsyms_set_path() changes it)
 * @build_id: raw build-id bytes, @build_id_sz of them (0: the file has none)
 * @flags: PPF_DSO_DEBUGINFO (symbols from a separate debug file), PPF_DSO_JITMAP
 * @text_vaddr: vaddr of the executable PT_LOAD segment (0 for JIT maps)
 * @text_offset: its file offset: file offset o maps to vaddr o - text_offset + text_vaddr
 * @nr_syms: entries in @syms
 * @syms: sorted by start then name (aliases at one address all kept), zero sizes
 *        replaced by the distance to the next address (bounded by the symbol's section end)
 * @nr_unwind: entries in @unwind
 * @unwind: the unwind rows (cfi.h) when rec_elfsyms_load_unwind() read them, else NULL
 */
struct rec_elfsyms {
	char *path;
	uint8_t build_id[REC_ELFSYMS_MAX_BUILD_ID];
	uint32_t build_id_sz;
	uint32_t flags;
	uint64_t text_vaddr;
	uint64_t text_offset;
	size_t nr_syms;
	struct rec_elfsym *syms;
	char *names;		/* private: storage of the names */
	size_t nr_unwind;
	struct ppf_unwind_row *unwind;
};

/**
 * rec_elfsyms_load() - read the symbol table of the ELF file at @path
 * @path: the file to read (also the recorded path)
 * @out: receives the table
 *
 * Same as rec_elfsyms_load_from(@path, REC_ELFSYMS_DEBUG_ROOT, @out).
 * Return: 0 or a negative code (see rec_elfsyms_load_from()); on success the caller owns
 * *@out and frees it with rec_elfsyms_free().
 */
int rec_elfsyms_load(const char *path, struct rec_elfsyms **out);

/**
 * rec_elfsyms_load_from() - as rec_elfsyms_load() with another debug root
 * @path: the file to read
 * @debug_root: directory holding ".build-id/xx/yyyy.debug" files, or NULL to not look
 * @out: receives the table (NULL on error)
 *
 * A binary without any function symbol loads fine with @nr_syms == 0 (its build id and
 * text mapping still describe it).
 * Return: 0; -ENOENT/-EACCES/... when it cannot be opened; -EINVAL when it is not a
 * regular file; -ENOEXEC when it is not a well-formed ELF file; -ENOMEM.  On success the
 * caller owns *@out (rec_elfsyms_free()).
 */
int rec_elfsyms_load_from(const char *path, const char *debug_root, struct rec_elfsyms **out);

/**
 * rec_jitmap_load() - read a JIT map ("START SIZE name" lines in hex, perf-PID.map)
 * @path: the map file, e.g. "/tmp/perf-1234.map"
 * @out: receives the table, flagged PPF_DSO_JITMAP, with absolute addresses
 *
 * Reads at most REC_JITMAP_MAX_SZ bytes; malformed lines and a last line without its
 * newline (still being written) are skipped.
 * Return: 0, -errno when it cannot be opened or read, -EINVAL when it is not a regular
 * file, -ENOMEM.  On success the caller owns *@out (rec_elfsyms_free()).
 */
int rec_jitmap_load(const char *path, struct rec_elfsyms **out);

/**
 * rec_elfsyms_set_path() - record @path instead of the path the table was read from
 *
 * For files opened through /proc/PID/root or a JIT map renamed to the host pid.
 * Return: 0 or -ENOMEM (the old path is kept).
 */
/**
 * rec_elfsyms_load_mem() - rec_elfsyms_load() of an ELF image in memory (the vDSO)
 * @name: the path to record ("[vdso]")
 * @image: the image (copied: it need not stay)
 * @size: its bytes
 * @unwind: read its unwind rows too (rec_elfsyms_load_unwind())
 * @out: receives the result (rec_elfsyms_free())
 * Return: 0, -ENOEXEC when it is not an ELF file, -ENOMEM.
 */
int rec_elfsyms_load_mem(const char *name, const void *image, size_t size, bool unwind,
			 struct rec_elfsyms **out);

/**
 * rec_elfsyms_load_unwind() - add to @s the unwind rows of ELF file @path (cfi.h), which
 * rec_elfsyms_write() then writes as UNWIND records after the symbols
 * @s: the binary's symbols
 * @path: the binary (the one mapped, not a debug file)
 * Return: 0 (also when the file has no CFI), -ENOTSUP for another architecture than
 * x86-64, -errno when the file cannot be read, -ENOMEM.
 */
int rec_elfsyms_load_unwind(struct rec_elfsyms *s, const char *path);

int rec_elfsyms_set_path(struct rec_elfsyms *s, const char *path);

/** rec_elfsyms_free() - free a table; NULL is a no-op. */
void rec_elfsyms_free(struct rec_elfsyms *s);

/**
 * rec_elfsyms_write() - write the table to a capture
 * @w: the writer
 * @s: the table
 *
 * Writes one PPF_REC_DSO record followed by one PPF_REC_SYM per symbol, in a
 * PPF_SEG_USYMS segment.  When the writer closes the segment in the middle of the symbols
 * (size limit), the DSO record is written again at the start of the next segment, so every
 * segment decodes on its own: readers merge DSO records with the same build id / path.
 * Return: 0 or the writer's negative code.
 */
int rec_elfsyms_write(struct ppf_writer *w, const struct rec_elfsyms *s) PP_MUST_CHECK;

#endif
