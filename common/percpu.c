/* SPDX-License-Identifier: MIT */
/*
 * percpu.c - per-CPU arrays grown to the CPU asked for, or doubled (percpu.h).
 */
#include "common/log.h"
#include "common/percpu.h"

void *pp_percpu_grow(void *v, size_t *nr, size_t cpu, size_t elsz)
{
	if (cpu < *nr)
		return v;
	return pp_xgrow(v, nr, cpu + 1 > 2 * *nr ? cpu + 1 : 2 * *nr, elsz);
}
