/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - a zeroed array indexed by CPU number, grown on the first look at a
 * CPU past its end.
 *
 * Analyzers learn the CPUs from the events (a capture need not say how many the
 * machine had), so their per-CPU arrays grow as CPUs appear: to the CPU asked
 * for, or to twice the old size when that is more (few regrowths on a large
 * machine whose CPUs show up in order).  New elements are zero: "not seen yet".
 * Not here: arrays indexed by anything else (pp_xgrow() in common/log.h).
 */
#ifndef PP_COMMON_PERCPU_H
#define PP_COMMON_PERCPU_H

#include <stddef.h>

/**
 * pp_percpu_grow() - the per-CPU array @v of *@nr elements of @elsz bytes, grown
 * (at least doubled) so that element @cpu exists, the new elements zeroed
 * @v:    the array, or NULL with *@nr 0
 * @nr:   its number of elements, updated
 * @cpu:  the index that must exist
 * @elsz: the size of one element
 *
 * Return: the array, moved when it grew (the caller stores it in place of @v and
 * owns it; OOM is fatal, as pp_xrealloc()'s).
 */
void *pp_percpu_grow(void *v, size_t *nr, size_t cpu, size_t elsz);

#endif
