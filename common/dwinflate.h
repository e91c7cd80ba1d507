/* SPDX-License-Identifier: MIT */
/*
 * dwinflate.h - the compressed DWARF sections of an ELF file inflated before libdw sees them.
 *
 * dwarf_begin_elf() inflates every SHF_COMPRESSED debug section through libelf
 * (elf_compress()), checking each with zlib's Adler-32: for a Debian debug file such as
 * libc's, 7 MB of output and a tenth of the CPU spent on the checksum.  Here zlib inflates
 * the DEFLATE stream alone, into a buffer mapped with its pages already in place, and the
 * section is handed to libdw as plain data: same bytes, less CPU.  A section this cannot
 * take (not zlib, a preset dictionary, a size or stream that does not add up) is left as it
 * was, for libdw to treat as before.
 *
 * Sections the caller names lazy are mapped at their whole inflated size but inflated only
 * as far as it asks (pp_dwlazy_need()), in steps: a lookup in libc needs the units of the
 * CUs it lands in, and the stream is inflated up to the last of them, not through its 6 MB
 * of .debug_info.  Past what was inflated the bytes read as zeros; the caller asks before
 * libdw reads.  Not here: which sections are read, and which bytes a lookup needs
 * (common/dwinline.c).
 */
#ifndef PP_COMMON_DWINFLATE_H
#define PP_COMMON_DWINFLATE_H

#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_DWINFLATE_MAX 32	/* sections inflated in one file, at most */
#define PP_DWLAZY_MAX 4		/* sections inflated lazily in one file, at most */

/**
 * struct pp_dwlazy - a compressed section inflated only as far as asked
 * @name: as the caller named it to pp_dwinflate_elf()
 * @buf: mapped for @size bytes; zeros past @done
 * @size: inflated size (the section's data size as libdw sees it)
 * @done: bytes inflated so far, from the start (read it with __atomic_load_n(ACQUIRE): another
 *	  thread may be inflating further)
 * @lock: held while inflating
 * @z: the inflate state (a z_stream), under @lock; NULL once @done is @size or the stream
 *     broke off
 *
 * Threads may ask for bytes at once: one inflates, the others wait for it; the bytes below
 * @done never change again, so they are read without the lock.
 */
struct pp_dwlazy {
	const char *name;
	unsigned char *buf;
	size_t size, done;
	pthread_mutex_t lock;
	void *z;
};

/* The buffers holding the inflated sections of one file, to free after its Elf. */
struct pp_dwinflate {
	void *buf[PP_DWINFLATE_MAX];
	size_t len[PP_DWINFLATE_MAX];
	size_t nr;
	struct pp_dwlazy lazy[PP_DWLAZY_MAX];
	size_t nr_lazy;
};

/**
 * pp_dwinflate_elf() - hide the PROGBITS sections named in @hide, inflate the other
 * compressed .debug_* PROGBITS sections of @elf
 * @elf: opened with ELF_C_READ_MMAP_PRIVATE (its section headers are rewritten in memory,
 *	 never in the file); before dwarf_begin_elf()
 * @hide: names of sections no answer reads: marked SHT_NOBITS, which libdw leaves alone
 * @nr_hide: entries in @hide
 * @lazy: names of sections to inflate only as far as asked (pp_dwinflate_lazy()); the
 *	  strings must outlive @out
 * @nr_lazy: entries in @lazy
 * @out: receives the buffers (zeroed by the caller); pp_dwinflate_free() after elf_end()
 *
 * Each section inflated loses SHF_COMPRESSED and its data becomes the inflated bytes (for a
 * lazy one: zeros until asked for); the others are untouched.
 */
void pp_dwinflate_elf(Elf *elf, const char *const *hide, size_t nr_hide,
		      const char *const *lazy, size_t nr_lazy, struct pp_dwinflate *out);

/* pp_dwinflate_lazy() - @d's lazy section @name, or NULL (not compressed, not lazy, absent). */
struct pp_dwlazy *pp_dwinflate_lazy(struct pp_dwinflate *d, const char *name);

/**
 * pp_dwlazy_need() - inflate @l so that its first @end bytes are there
 * @l: a lazy section; NULL (a section with all its bytes) is fine
 * @end: past the last byte wanted; more than the size means all of it
 * Return: true when they are; false when the stream broke off before them (what it gave
 * stays, the rest reads as zeros).  Thread safe.
 */
bool pp_dwlazy_need(struct pp_dwlazy *l, uint64_t end);

/**
 * pp_dwlazy_all() - inflate the rest of @l a step at a time, for a thread that works ahead
 * of the lookups
 * @stop: checked between steps (__atomic): when set, return with what is done
 */
void pp_dwlazy_all(struct pp_dwlazy *l, const bool *stop);

/* pp_dwinflate_bytes() - bytes of @d's sections inflated so far (whole and lazy). */
size_t pp_dwinflate_bytes(const struct pp_dwinflate *d);

/* pp_dwinflate_free() - unmap @d's buffers (after the Elf and the Dwarf using them are gone). */
void pp_dwinflate_free(struct pp_dwinflate *d);

#endif
