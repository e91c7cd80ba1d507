/* SPDX-License-Identifier: MIT */
/*
 * vdso.h - the vDSO's ELF image, taken from pp-record's own process.
 *
 * The kernel maps one vDSO image per boot and ABI into every process: a 64-bit process's
 * [vdso] is the image pp-record sees at getauxval(AT_SYSINFO_EHDR), so its symbols and
 * unwind rows can be written for any 64-bit process whose [vdso] samples hit.
 * Not here: reading the image (elfsyms.c, cfi.c).
 */
#ifndef PP_RECORD_VDSO_H
#define PP_RECORD_VDSO_H

#include <stddef.h>

#define REC_VDSO_PATH "[vdso]"
#define REC_VDSO_MAX_SZ (1u << 20)	/* a larger image is not believed */

/**
 * rec_vdso_image() - this process's vDSO
 * @size: receives its bytes: the furthest end of its program headers, section headers
 *        and sections
 * Return: the image, or NULL when there is none (or it does not look like an ELF file).
 */
const void *rec_vdso_image(size_t *size);

#endif
