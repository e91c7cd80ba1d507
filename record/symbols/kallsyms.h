/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.h - a kernel symbol's address by name, from /proc/kallsyms or a file like it.
 *
 * Lines are "ADDR TYPE NAME" with an optional "\t[module]"; the first line naming the
 * symbol wins (the core kernel's come first, in address order), so a static name that
 * several files define resolves to its lowest address, as perf-prof's lookup does.
 * Not here: the snapshot of every symbol a capture stores (snapshot.c).
 */
#ifndef PP_RECORD_KALLSYMS_H
#define PP_RECORD_KALLSYMS_H

#include <stdint.h>

#define REC_KALLSYMS_PROC "/proc/kallsyms"

/**
 * rec_kallsyms_lookup() - the address of kernel symbol @name
 * @path: REC_KALLSYMS_PROC or a file in its format
 * @name: the symbol ("jiffies", "linux_banner")
 * @addr: receives its address (0 when kptr_restrict hides addresses)
 *
 * Return: 0, PP_ENOT_FOUND, or -errno when @path cannot be read.
 */
int rec_kallsyms_lookup(const char *path, const char *name, uint64_t *addr);

#endif
