/* SPDX-License-Identifier: MIT */
/*
 * dwinline.h - inline frames of an address of a binary, from DWARF found on this machine.
 *
 * A capture names each user-space frame's binary by build id and path, and gives the frame as
 * an ELF virtual address in it (struct pp_sym_res).  When DWARF for that build id is on the
 * analysis machine, the address can stand for several frames: the functions the compiler
 * inlined there, innermost first, then the real function that the symbol table names.
 *
 * Where the DWARF comes from, for a build id B (hex, "ab" + "cdef..." split) and a recorded
 * path P, in this order, the first file that carries B and DWARF:
 *   for each directory D of the search path: D/.build-id/ab/cdef....debug (Debian's
 *   -dbgsym packages, Fedora's debuginfo), D/B/debuginfo (a debuginfod client cache),
 *   D/basename(P) (an unstripped copy put there by the user);
 *   then P itself (the binary as installed here).
 * Every candidate must carry build id B: a binary rebuilt since the capture is not used.
 * A binary without build id in the capture is not expanded.  Only regular files are opened.
 *
 * Cost: one search per binary (a binary without DWARF costs one failed search, then nothing),
 * and one libdw lookup per distinct (binary, address), cached; answers are borrowed from the
 * resolver and live as long as it.  Broken DWARF (the files come from anyone) gives no inline
 * frames for the addresses libdw cannot read; chains are bounded (PP_INL_MAX_DEPTH).
 * Not thread safe.  Not here: symbol tables (symbolize.h), printing (analyze/print.c).
 */
#ifndef PP_COMMON_DWINLINE_H
#define PP_COMMON_DWINLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_INL_MAX_DEPTH 64		/* inline frames kept for one address */
#define PP_INL_DEFAULT_PATH "/usr/lib/debug"

struct pp_inl;

/* One inlined function at an address; strings borrowed from the resolver. */
struct pp_inl_frame {
	const char *name;	/* demangled when it was a mangled linkage name */
	const char *file;	/* source file of the location inside this function, or NULL */
	uint32_t line;		/* its line, 0 when unknown */
};

/**
 * struct pp_inl_res - what one address expands to
 * @frames: @nr inlined functions, innermost first (NULL when @nr is 0)
 * @nr: how many
 * @file, @line: the location in the real (outer) function: the call site of the outermost
 *               inlined function, or the address's own line when @nr is 0; NULL / 0 unknown
 */
struct pp_inl_res {
	const struct pp_inl_frame *frames;
	uint32_t nr;
	const char *file;
	uint32_t line;
};

/**
 * pp_inl_new() - a resolver
 * @search_path: directories separated by ':' (empty entries skipped); NULL means
 *               PP_INL_DEFAULT_PATH
 * Return: the resolver, owned by the caller (pp_inl_free()); never NULL (OOM is fatal).
 * Lookups may come from several threads (a parallel replay's parts share one resolver):
 * addresses answered before are answered in parallel, the first lookup of one takes its
 * turn, and what one returns stays valid until pp_inl_free().
 */
struct pp_inl *pp_inl_new(const char *search_path);

/**
 * pp_inl_new_dirs() - a resolver searching @debug_dir (a --debug-dir value, or NULL),
 * then $PP_DEBUGINFO_PATH, then PP_INL_DEFAULT_PATH
 * Return: as pp_inl_new().
 */
struct pp_inl *pp_inl_new_dirs(const char *debug_dir);

/**
 * pp_inl_names_only() - answer with the functions' names only: every file NULL, every line 0
 *
 * The line tables are then never read (nor inflated when compressed: libc's are 1.3 MB).
 * Call it before the first lookup; for callers that print names (profile, export).
 */
void pp_inl_names_only(struct pp_inl *r);

/**
 * pp_inl_inflate_whole() - inflate a compressed debug file's sections whole when it is
 * opened, not as far as lookups need (the answers are the same; for comparing the two)
 */
void pp_inl_inflate_whole(struct pp_inl *r);

/**
 * pp_inl_inflated() - bytes of compressed DWARF inflated so far, in every debug file opened
 * @mapped: when not NULL, receives what inflating all of it would give
 */
size_t pp_inl_inflated(struct pp_inl *r, size_t *mapped);

/**
 * pp_inl_inflate_ahead() - inflate the rest of the compressed DWARF of binary @build_id
 * (opened by pp_inl_prefetch()), for a thread working ahead of the lookups
 * @stop: checked between steps (__atomic): when set, return at once
 *
 * Lookups meanwhile go on, waiting only for the bytes they need.
 */
void pp_inl_inflate_ahead(struct pp_inl *r, const char *build_id, const bool *stop);

/** pp_inl_free() - close every debug file and free every answer; NULL is fine. */
void pp_inl_free(struct pp_inl *r);

/**
 * pp_inl_lookup() - the inline frames at @vaddr of the binary (@build_id, @path)
 * @build_id: lowercase hex as struct pp_sym_res gives it (NULL or "" gives false)
 * @path: the binary's recorded path (may be NULL)
 * @vaddr: an ELF virtual address of the binary; for a return address, pass the address of
 *         the call (return address - 1) so that the caller's inline context is found
 * @out: filled when true is returned
 * Return: true when DWARF for the binary covers @vaddr (@out->nr may still be 0).
 */
bool pp_inl_lookup(struct pp_inl *r, const char *build_id, const char *path, uint64_t vaddr,
		   struct pp_inl_res *out);

/**
 * pp_inl_prefetch() - look for and open the DWARF of binary (@build_id, @path) now, so that
 * lookups find it open (libc's debug file takes tens of ms to inflate); safe alongside
 * lookups from other threads, which wait only when they need this binary's answers.
 */
void pp_inl_prefetch(struct pp_inl *r, const char *build_id, const char *path);

/**
 * pp_inl_debug_file() - the file the DWARF of @build_id was read from, after a lookup;
 * NULL when none was found (or none looked for yet).  Borrowed.
 */
const char *pp_inl_debug_file(struct pp_inl *r, const char *build_id, const char *path);

/**
 * pp_inl_file_build_id() - the GNU build id of the ELF file @path as lowercase hex
 * @hex: receives it, @sz bytes (129 are always enough)
 * Return: true when @path is a regular ELF file with a build id note.
 */
bool pp_inl_file_build_id(const char *path, char *hex, size_t sz);

#endif
