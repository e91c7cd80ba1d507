/* SPDX-License-Identifier: MIT */
/*
 * framecache.c - the folded names of a frame, kept by what resolving it depends on.
 *
 * Each distinct stack of a profile is symbolized once, but stacks share most of their
 * frames: a frame seen in another stack costs a hash lookup here instead of a mapping
 * lookup, a symbol search, an inline look-up and copies of the names.  The key is
 * pp_symtab_frame_id() (the mapping, binary and table state, the address) with the inline
 * resolver, the kind of name and whether the frame is a return address; the value is the
 * names print.c's folding gave that frame, copied.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/log.h"

#define FCACHE_MAX (1u << 18)		/* frames kept (~40 MB): bounds a hostile capture */

struct ana_fcache_ent {
	struct ana_fcache_id id;
	struct ana_fcache_ent *next;	/* same hash */
	struct ana_fcache_val val;
};

static uint64_t id_hash(const struct ana_fcache_id *id)
{
	uint64_t h = (uint64_t)(uintptr_t)id->inl ^ ((uint64_t)id->mode << 56);

	for (size_t i = 0; i < PP_FRAME_ID_WORDS; i++)
		h = (h ^ id->w[i]) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static bool id_eq(const struct ana_fcache_id *a, const struct ana_fcache_id *b)
{
	return a->inl == b->inl && a->mode == b->mode && !memcmp(a->w, b->w, sizeof(a->w));
}

struct ana_fcache_val *ana_fcache_get(struct ana_session *s, const struct ana_fcache_id *id)
{
	for (struct ana_fcache_ent *e = pp_u64map_get(&s->fcache, id_hash(id)); e; e = e->next)
		if (id_eq(&e->id, id))
			return &e->val;
	return NULL;
}

void ana_fcache_put(struct ana_session *s, const struct ana_fcache_id *id,
		    const char *const *names, const bool *inlined, uint32_t nr, bool sets_user_seen)
{
	size_t bytes = 0;
	struct ana_fcache_ent *e;
	void **slot;
	char *p;

	if (s->fcache_nr >= FCACHE_MAX || ana_fcache_get(s, id))
		return;
	for (uint32_t i = 0; i < nr; i++)
		bytes += strlen(names[i]) + 1;
	e = pp_xmalloc(sizeof(*e) + nr * (sizeof(char *) + sizeof(bool)) + bytes);
	e->id = *id;
	e->val.nr = nr;
	e->val.memo_serial = 0;
	e->val.memo = NULL;
	e->val.sets_user_seen = sets_user_seen;
	e->val.names = (const char **)(e + 1);
	e->val.inlined = (bool *)(e->val.names + nr);
	p = (char *)(e->val.inlined + nr);
	for (uint32_t i = 0; i < nr; i++) {
		size_t n = strlen(names[i]) + 1;

		memcpy(p, names[i], n);
		e->val.names[i] = p;
		e->val.inlined[i] = inlined[i];
		p += n;
	}
	slot = pp_u64map_slot(&s->fcache, id_hash(id));
	e->next = *slot;
	*slot = e;
	s->fcache_nr++;
}

void ana_fcache_free(struct ana_session *s)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; pp_u64map_next(&s->fcache, &i, &k, &v);)
		for (struct ana_fcache_ent *e = v, *n; e; e = n) {
			n = e->next;
			free(e->val.memo);
			free(e);
		}
	pp_u64map_release(&s->fcache);
	s->fcache_nr = 0;
}
