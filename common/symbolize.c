/* SPDX-License-Identifier: MIT */
/*
 * symbolize.c - kernel and DSO symbol tables, JIT maps, demangling.
 *
 * Strings (names, paths, build ids) live in one append-only pool per symtab and are never
 * freed before the symtab, so results can hand out borrowed pointers.  Symbol tables are
 * vectors sorted once (lazily) and searched by binary search; demangling happens on the
 * first lookup that hits a symbol, and its result is cached next to the symbol.
 *
 * Not here: process maps (symbolize-proc.c), reading ELF files or capture records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "common/err.h"
#include "common/log.h"
#include "common/symbolize-internal.h"
#include "common/units.h"

/* --- string pool ------------------------------------------------------------ */

#define POOL_CHUNK (64 * 1024)

static const char *pool_strndup(struct pp_symtab *st, const char *s, size_t len)
{
	struct pool_chunk **head = &st->pool;
	struct pool_chunk *c = *head, *n;
	size_t need = len + 1;
	char *r;

	if (!c || c->size - c->used < need) {
		size_t sz = need > POOL_CHUNK / 4 ? need : POOL_CHUNK;

		n = pp_xmalloc(sizeof(*n) + sz);
		st->mem += sizeof(*n) + sz;
		n->size = sz;
		n->used = 0;
		if (sz == need && c) {
			/* a big string gets its own chunk behind the current one */
			n->next = c->next;
			c->next = n;
		} else {
			n->next = c;
			*head = n;
		}
		c = n;
	}
	r = c->data + c->used;
	memcpy(r, s, len);
	r[len] = '\0';
	c->used += need;
	return r;
}

/* --- hash maps: string keys (stable pointers) and pid keys ------------------ */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct strmap_slot *strmap_slot(const struct strmap *m, const char *key, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

static void *strmap_get(const struct strmap *m, const char *key, const char **stored)
{
	struct strmap_slot *s;

	if (!m->nr)
		return NULL;
	s = strmap_slot(m, key, hash_str(key));
	if (stored)
		*stored = s->key;
	return s->key ? s->val : NULL;
}

/* @key must outlive the map (a pool string); an existing key gets @val replaced. */
static void strmap_put(struct pp_symtab *st, struct strmap *m, const char *key, void *val)
{
	uint64_t h = hash_str(key);
	struct strmap_slot *s;

	if ((m->nr + 1) * 2 > m->cap) {
		struct strmap old = *m;

		m->cap = old.cap ? old.cap * 2 : 64;
		m->slots = pp_xcalloc(m->cap, sizeof(*m->slots));
		st->mem += (m->cap - old.cap) * sizeof(*m->slots);
		for (size_t i = 0; i < old.cap; i++)
			if (old.slots[i].key)
				*strmap_slot(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
		free(old.slots);
	}
	s = strmap_slot(m, key, h);
	if (!s->key) {
		s->key = key;
		s->hash = h;
		m->nr++;
	}
	s->val = val;
}

const char *pp_symtab__intern(struct pp_symtab *st, const char *s)
{
	const char *stored = strmap_get(&st->strings, s, NULL);

	if (stored)
		return stored;
	stored = pool_strndup(st, s, strlen(s));
	strmap_put(st, &st->strings, stored, (void *)stored);
	return stored;
}

void pp_symtab__bid_hex(const uint8_t *bid, size_t sz, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < sz; i++) {
		out[2 * i] = hex[bid[i] >> 4];
		out[2 * i + 1] = hex[bid[i] & 15];
	}
	out[2 * sz] = '\0';
}

/* --- symbol vectors ----------------------------------------------------------- */

static int symvec_push(struct pp_symtab *st, struct symvec *sv, const struct sym *s)
{
	if (sv->nr >= PP_SYM_MAX_SYMS)
		return PP_ERANGE;
	if (sv->nr == sv->alloc) {
		size_t old = sv->alloc;

		sv->alloc = sv->alloc ? sv->alloc * 2 : 256;
		/* and the dense array of starts the first lookup makes */
		st->mem += (sv->alloc - old) * (sizeof(*sv->v) + sizeof(*sv->starts));
		sv->v = pp_xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->nr] = *s;
	sv->v[sv->nr].seq = (uint32_t)sv->nr;
	sv->nr++;
	sv->sorted = false;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

#define SYM_MAX_TIES 64	/* symbols at one address sort_ties() orders, at most */

/*
 * @sv->v put in sym_cmp() order when only symbols at one address are out of it (kallsyms
 * lists a kernel's symbols by address, and the aliases of an address in any rank order):
 * each run of one start sorted in place by insertion.  sym_cmp() ends on the order the
 * symbols were added (seq, unique), so its order is total and both sorts give the same.
 * Return: false, @sv untouched, when the starts are out of order or a run is longer than
 * SYM_MAX_TIES (that is for qsort()).  For 64k kernel symbols this is two passes instead
 * of qsort(): ~3 ms less per analysis.
 */
static bool sort_ties(struct symvec *sv)
{
	for (size_t i = 1, run = 1; i < sv->nr; i++) {
		if (sv->v[i].start < sv->v[i - 1].start)
			return false;
		run = sv->v[i].start == sv->v[i - 1].start ? run + 1 : 1;
		if (run > SYM_MAX_TIES)
			return false;
	}
	for (size_t i = 1; i < sv->nr; i++) {
		struct sym s = sv->v[i];
		size_t j = i;

		while (j && sv->v[j - 1].start == s.start && sym_cmp(&sv->v[j - 1], &s) > 0) {
			sv->v[j] = sv->v[j - 1];
			j--;
		}
		sv->v[j] = s;
	}
	return true;
}

/*
 * Sort, keep the best symbol per address, derive missing sizes.  Kernel symbols carry no
 * size: each extends to the next one, but not across a module boundary by more than
 * PP_KSYM_TAIL_MAX (so an address past a module's last function is not blamed on it).
 */
static void symvec_finalize(struct symvec *sv, bool kernel)
{
	size_t n = 0;

	if (sv->sorted)
		return;
	for (size_t i = 1; i < sv->nr; i++)	/* added in order (a table read before): no sort */
		if (sym_cmp(&sv->v[i - 1], &sv->v[i]) > 0) {
			if (!sort_ties(sv))
				qsort(sv->v, sv->nr, sizeof(*sv->v), sym_cmp);
			break;
		}
	for (size_t i = 0; i < sv->nr; i++)
		if (!n || sv->v[i].start != sv->v[n - 1].start)
			sv->v[n++] = sv->v[i];
	sv->nr = n;
	for (size_t i = 0; i < n; i++) {
		struct sym *s = &sv->v[i];
		uint64_t room = UINT64_MAX - s->start;
		uint64_t gap = i + 1 < n ? sv->v[i + 1].start - s->start : 0;

		if (kernel) {
			if (i + 1 == n || sv->v[i + 1].dso != s->dso)
				gap = !gap || gap > PP_KSYM_TAIL_MAX ? PP_KSYM_TAIL_MAX : gap;
			s->size = gap < room ? gap : room;
		} else if (!s->size) {
			s->size = gap;
		}
	}
	free(sv->starts);
	sv->starts = pp_xmalloc((n ? n : 1) * sizeof(*sv->starts));
	for (size_t i = 0; i < n; i++)
		sv->starts[i] = sv->v[i].start;
	sv->gen++;
	sv->sorted = true;
}

struct sym *pp_symtab__find(struct pp_symtab *st, struct symvec *sv, bool kernel, uint64_t addr)
{
	uint64_t h = (addr ^ (uintptr_t)sv) * 0x9e3779b97f4a7c15ull;
	struct sym_cache_ent *c = &st->cache[h >> 52];	/* 4096 = 2^12 entries */
	size_t lo = 0, hi;
	struct sym *s = NULL;

	symvec_finalize(sv, kernel);
	if (c->sv == sv && c->addr == addr && c->gen == sv->gen)
		return c->s;
	hi = sv->nr;
	while (lo < hi) {	/* first symbol with start > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (sv->starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo) {
		s = &sv->v[lo - 1];
		if (!(addr - s->start < s->size || addr == s->start))
			s = NULL;
	}
	*c = (struct sym_cache_ent){ sv, addr, s, sv->gen };
	return s;
}

static const char *sym_display(struct pp_symtab *st, struct sym *s)
{
	char *d;

	if (st->flags & PP_SYMTAB_NO_DEMANGLE)
		return s->name;
	if (!s->dem) {
		d = pp_sym_demangle_dup(s->name, !(st->flags & PP_SYMTAB_NO_PARAMS));
		s->dem = d ? pool_strndup(st, d, strlen(d)) : s->name;
		free(d);
	}
	return s->dem;
}

bool pp_symtab__fill(struct pp_symtab *st, struct sym *s, uint64_t addr, struct pp_sym_res *res)
{
	if (!s)
		return false;
	res->name = sym_display(st, s);
	res->mangled = s->name;
	res->sym_start = s->start;
	res->offset = addr - s->start;
	res->flags |= PP_SYMR_FOUND;
	return true;
}

static int check_name(const char *name)
{
	size_t len;

	if (!name || !*name)
		return -EINVAL;
	len = strnlen(name, PP_SYM_MAX_NAME);
	return len >= PP_SYM_MAX_NAME ? PP_ERANGE : 0;
}

/* --- symtab ------------------------------------------------------------------- */

struct pp_symtab *pp_symtab_new(unsigned flags)
{
	struct pp_symtab *st = pp_xcalloc(1, sizeof(*st));

	st->flags = flags;
	return st;
}

void pp_symtab_free(struct pp_symtab *st)
{
	struct pool_chunk *c, *n;

	if (!st)
		return;
	pp_symtab__procs_free(st);
	for (size_t i = 0; i < st->nr_dsos; i++) {
		free(st->dsos[i]->syms.v);
		free(st->dsos[i]->syms.starts);
		free(st->dsos[i]);
	}
	free(st->dsos);
	free(st->dso_by_bid.slots);
	free(st->dso_by_path.slots);
	free(st->ksyms.v);
	free(st->ksyms.starts);
	free(st->strings.slots);
	for (c = st->pool; c; c = n) {
		n = c->next;
		free(c);
	}
	free(st);
}

/* --- kernel ------------------------------------------------------------------- */

/* A borrowed kernel table becomes @st's own: copied, its names still the owner's. */
static void ksyms_own(struct pp_symtab *st)
{
	const struct symvec *from = st->ksyms_lent;
	size_t n = from->nr;

	st->ksyms_lent = NULL;
	st->ksyms.v = pp_xrealloc(st->ksyms.v, (n ? n : 1) * sizeof(*st->ksyms.v));
	memcpy(st->ksyms.v, from->v, n * sizeof(*from->v));
	st->ksyms.nr = st->ksyms.alloc = n;
	st->ksyms.sorted = false;
}

int pp_symtab_ksym_add(struct pp_symtab *st, uint64_t addr, char type, const char *name,
		       const char *module)
{
	struct sym s = { .start = addr };
	int err = check_name(name);

	if (err)
		return err;
	if (!addr || type == 'U' || type == 'u')
		return 0;
	if (st->ksyms_lent)
		ksyms_own(st);
	if (module && *module) {
		if (strnlen(module, PP_SYM_MAX_NAME) >= PP_SYM_MAX_NAME)
			return PP_ERANGE;
		if (!st->last_mod || strcmp(st->last_mod, module)) {
			char *tmp = pp_xasprintf("[%s]", module);

			st->last_mod_dso = pp_symtab__intern(st, tmp);
			st->last_mod = pp_symtab__intern(st, module);
			free(tmp);
		}
		s.dso = st->last_mod_dso;
	} else {
		if (!st->kernel_dso)
			st->kernel_dso = pp_symtab__intern(st, KERNEL_DSO);
		s.dso = st->kernel_dso;
	}
	s.rank = type == 'T' ? 0 : type == 't' ? 1 : (type == 'W' || type == 'w') ? 2 : 3;
	s.name = pool_strndup(st, name, strlen(name));
	return symvec_push(st, &st->ksyms, &s);
}

void pp_symtab_ksyms_finalize(struct pp_symtab *st)
{
	symvec_finalize(st->ksyms_lent ? st->ksyms_lent : &st->ksyms, true);
}

void pp_symtab_ksyms_lend(struct pp_symtab *st)
{
	PP_BUG_ON(st->ksyms_lent);
	symvec_finalize(&st->ksyms, true);
	for (size_t i = 0; i < st->ksyms.nr; i++)
		sym_display(st, &st->ksyms.v[i]);
}

void pp_symtab_ksyms_borrow(struct pp_symtab *st, struct pp_symtab *owner, size_t mem)
{
	PP_BUG_ON(st->ksyms.nr || owner->ksyms_lent || !owner->ksyms.sorted);
	st->ksyms_lent = &owner->ksyms;
	st->mem += mem;
}

bool pp_symtab_lookup_kernel(struct pp_symtab *st, uint64_t addr, struct pp_sym_res *res)
{
	struct sym *s = pp_symtab__find(st, st->ksyms_lent ? st->ksyms_lent : &st->ksyms, true,
					addr);

	memset(res, 0, sizeof(*res));
	res->flags = PP_SYMR_KERNEL;
	res->dso = s ? s->dso : KERNEL_DSO;
	res->dso_off = addr;
	if (s)
		res->flags |= PP_SYMR_MAPPED | PP_SYMR_DSO;
	return pp_symtab__fill(st, s, addr, res);
}

/* --- DSOs ---------------------------------------------------------------------- */

int pp_symtab_dso_get(struct pp_symtab *st, const uint8_t *build_id, size_t build_id_sz,
		      const char *path, unsigned flags, struct pp_dso **out)
{
	char hex[2 * PP_SYM_MAX_BUILD_ID + 1];
	struct pp_dso *d = NULL;
	const char *bid = NULL;

	*out = NULL;
	if (build_id_sz > PP_SYM_MAX_BUILD_ID)
		return PP_ERANGE;
	if (path && strnlen(path, PP_SYM_MAX_NAME) >= PP_SYM_MAX_NAME)
		return PP_ERANGE;
	if (path && !*path)
		path = NULL;
	if (build_id && build_id_sz) {
		pp_symtab__bid_hex(build_id, build_id_sz, hex);
		d = strmap_get(&st->dso_by_bid, hex, NULL);
		bid = hex;
	} else if (path) {
		d = strmap_get(&st->dso_by_path, path, NULL);
	} else {
		return -EINVAL;
	}
	if (d) {
		if (path && !strmap_get(&st->dso_by_path, path, NULL))
			strmap_put(st, &st->dso_by_path, pp_symtab__intern(st, path), d);
		*out = d;
		return 1;
	}
	d = pp_xcalloc(1, sizeof(*d));
	st->mem += sizeof(*d) + sizeof(d);
	d->st = st;
	d->flags = flags;
	d->path = path ? pp_symtab__intern(st, path) : "";
	d->bid = bid ? pp_symtab__intern(st, bid) : "";
	if (bid)
		strmap_put(st, &st->dso_by_bid, d->bid, d);
	if (path && !strmap_get(&st->dso_by_path, path, NULL))
		strmap_put(st, &st->dso_by_path, d->path, d);
	if (st->nr_dsos == st->alloc_dsos) {
		st->alloc_dsos = st->alloc_dsos ? st->alloc_dsos * 2 : 16;
		st->dsos = pp_xrealloc(st->dsos, st->alloc_dsos * sizeof(*st->dsos));
	}
	st->dsos[st->nr_dsos++] = d;
	st->dso_gen++;
	*out = d;
	return 0;
}

int pp_dso_sym_add(struct pp_dso *d, uint64_t start, uint64_t size, const char *name)
{
	struct sym s = { .start = start, .size = size };
	int err = check_name(name);
	unsigned us = 0;

	if (err)
		return err;
	/* among aliases prefer a sized one, then fewer leading underscores (malloc) */
	while (name[us] == '_' && us < 127)
		us++;
	s.rank = (uint8_t)((size ? 0 : 128) | us);
	if (size && start + size - 1 < start)
		return PP_ERANGE;
	s.name = pool_strndup(d->st, name, strlen(name));
	return symvec_push(d->st, &d->syms, &s);
}

void pp_dso_set_text(struct pp_dso *d, uint64_t text_vaddr, uint64_t text_offset)
{
	d->text_vaddr = text_vaddr;
	d->text_offset = text_offset;
}

void pp_dso_finalize(struct pp_dso *d)
{
	symvec_finalize(&d->syms, false);
}

bool pp_dso_lookup(struct pp_dso *d, uint64_t vaddr, struct pp_sym_res *res)
{
	memset(res, 0, sizeof(*res));
	res->dso = d->path;
	res->dso_off = vaddr;
	res->vaddr = vaddr;
	res->build_id = *d->bid ? d->bid : NULL;
	res->flags = PP_SYMR_MAPPED | PP_SYMR_DSO | (d->flags & PP_DSO_JIT ? PP_SYMR_JIT : 0);
	return pp_symtab__fill(d->st, pp_symtab__find(d->st, &d->syms, false, vaddr), vaddr, res);
}

const char *pp_dso_path(const struct pp_dso *d)
{
	return d->path;
}

const char *pp_dso_build_id(const struct pp_dso *d)
{
	return d->bid;
}

size_t pp_symtab_mem(const struct pp_symtab *st)
{
	return st->mem;
}

size_t pp_dso_nr_syms(const struct pp_dso *d)
{
	return d->syms.nr;
}

/* A mapping finds its DSO by build id, else by path (a DSO without build id only). */
struct pp_dso *pp_symtab__dso_for(struct pp_symtab *st, const char *bid, const char *path)
{
	struct pp_dso *d = NULL;

	if (bid)
		d = strmap_get(&st->dso_by_bid, bid, NULL);
	if (!d && *path) {
		d = strmap_get(&st->dso_by_path, path, NULL);
		if (d && bid && *d->bid)
			d = NULL;	/* same path, another build: not this file */
	}
	return d;
}

/* --- JIT maps ------------------------------------------------------------------- */

bool pp_sym_jitmap_pid(const char *path, uint32_t *pid)
{
	const char *b = strrchr(path, '/'), *p;
	unsigned long v = 0;

	b = b ? b + 1 : path;
	if (strncmp(b, "perf-", 5))
		return false;
	for (p = b + 5; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (p == b + 5 || v > UINT32_MAX || strcmp(p, ".map"))
		return false;
	*pid = (uint32_t)v;
	return true;
}

ssize_t pp_symtab_jitmap_parse(struct pp_symtab *st, uint32_t pid, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char path[64];
	struct pp_dso *d;
	ssize_t n = 0;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	if (pp_symtab_dso_get(st, NULL, 0, path, PP_DSO_JIT, &d) < 0)
		return 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *next;
		uint64_t start = 0, size = 0;
		bool ok;
		char *tmp;

		eol = eol ? eol : end;
		next = eol < end ? eol + 1 : end;
		ok = pp_parse_hexn(&q, eol, &start) && q < eol && *q++ == ' ' &&
		     pp_parse_hexn(&q, eol, &size) && q < eol && *q++ == ' ';
		while (ok && eol > q && (eol[-1] == '\r' || eol[-1] == ' '))
			eol--;
		if (ok && q < eol && (size_t)(eol - q) < PP_SYM_MAX_NAME) {
			tmp = pp_xstrndup(q, (size_t)(eol - q));
			if (!pp_dso_sym_add(d, start, size, tmp))
				n++;
			free(tmp);
		}
		p = next;
	}
	pp_dso_finalize(d);
	pp_symtab_jit_attach(st, pid, d);
	return n;
}

/* --- demangling ----------------------------------------------------------------- */

#define DEMANGLE_MAX_IN 4096	/* longer names are left alone (libiberty's cost grows) */

char *pp_sym_demangle_dup(const char *mangled, bool params)
{
	const char *at;
	char *base, *r, *full;
	size_t len;

	if (!mangled || !(!strncmp(mangled, "_Z", 2) || !strncmp(mangled, "__Z", 3) ||
			  !strncmp(mangled, "_R", 2)))
		return NULL;
	len = strnlen(mangled, DEMANGLE_MAX_IN + 1);
	if (len > DEMANGLE_MAX_IN)
		return NULL;
	at = strchr(mangled, '@');
	base = at ? pp_xstrndup(mangled, (size_t)(at - mangled)) : (char *)mangled;
	r = cplus_demangle(base[1] == '_' ? base + 1 : base,
			   DMGL_AUTO | (params ? DMGL_PARAMS | DMGL_ANSI : 0));
	if (base != mangled)
		free(base);
	if (!r || !at)
		return r;
	full = pp_xasprintf("%s%s", r, at);
	free(r);
	return full;
}
