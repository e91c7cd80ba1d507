/* SPDX-License-Identifier: MIT */
/*
 * vdso.c - find the vDSO image in memory and its size (vdso.h).
 *
 * The image is mapped whole, starting with its ELF header; its size is not recorded
 * anywhere, so it is taken as the furthest byte its headers describe (program headers'
 * file extents, the section header table), bounded by REC_VDSO_MAX_SZ.  The section
 * header table is normally the last thing in the image.
 */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "record/symbols/vdso.h"

static size_t max_end(size_t a, unsigned long long off, unsigned long long sz)
{
	unsigned long long e = off + sz;

	return e < off || e > REC_VDSO_MAX_SZ ? REC_VDSO_MAX_SZ + 1 : (e > a ? (size_t)e : a);
}

const void *rec_vdso_image(size_t *size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	size_t end;

	*size = 0;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > REC_VDSO_MAX_SZ)
		return NULL;
	end = max_end(sizeof(*eh), eh->e_phoff, (unsigned long long)eh->e_phnum * sizeof(*ph));
	if (end > REC_VDSO_MAX_SZ)
		return NULL;
	ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			end = max_end(end, ph[i].p_offset, ph[i].p_filesz);
	if (eh->e_shoff && eh->e_shentsize == sizeof(Elf64_Shdr))
		end = max_end(end, eh->e_shoff, (unsigned long long)eh->e_shnum * sizeof(Elf64_Shdr));
	if (end > REC_VDSO_MAX_SZ)
		return NULL;
	*size = end;
	return eh;
}
