/* SPDX-License-Identifier: MIT */
/*
 * ctrtab.c - the per-segment table of previous counter readings that COUNTER
 * records are delta-coded against (writer-events.c and decode.c keep one each, by
 * the same rules: see struct ppf_ctrtab).
 */
#include "format/internal.h"

#define CTR_SLOTS (2 * PPF_CTR_MAX_KEYS)

static uint32_t ctr_hash(uint32_t id, uint32_t cpu, uint32_t tid)
{
	uint64_t h = ((uint64_t)id << 32 | cpu) * 0x9E3779B97F4A7C15ull ^ tid * 0xC2B2AE3D27D4EB4Full;

	return (uint32_t)(h >> 40) & (CTR_SLOTS - 1);
}

struct ppf_ctr_slot *ppf_ctrtab_find(struct ppf_ctrtab *t, uint32_t id, uint32_t cpu, uint32_t tid)
{
	if (!t->slot)
		return NULL;
	for (uint32_t i = ctr_hash(id, cpu, tid);; i = (i + 1) & (CTR_SLOTS - 1)) {
		struct ppf_ctr_slot *e = &t->slot[i];

		if (!e->used)
			return NULL;
		if (e->id == id && e->cpu == cpu && e->tid == tid)
			return e;
	}
}

struct ppf_ctr_slot *ppf_ctrtab_add(struct ppf_ctrtab *t, uint32_t id, uint32_t cpu, uint32_t tid,
				    int *err)
{
	*err = 0;
	if (t->nr >= PPF_CTR_MAX_KEYS)
		return NULL;
	if (!t->slot && !(t->slot = calloc(CTR_SLOTS, sizeof(*t->slot)))) {
		*err = -ENOMEM;
		return NULL;
	}
	for (uint32_t i = ctr_hash(id, cpu, tid);; i = (i + 1) & (CTR_SLOTS - 1)) {
		struct ppf_ctr_slot *e = &t->slot[i];

		if (!e->used) {
			*e = (struct ppf_ctr_slot){ .id = id, .cpu = cpu, .tid = tid, .used = 1 };
			t->nr++;
			return e;
		}
	}
}

void ppf_ctrtab_reset(struct ppf_ctrtab *t)
{
	if (t->slot && t->nr)
		memset(t->slot, 0, CTR_SLOTS * sizeof(*t->slot));
	t->nr = 0;
}

void ppf_ctrtab_release(struct ppf_ctrtab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->nr = 0;
}
