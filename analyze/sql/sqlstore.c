/* SPDX-License-Identifier: MIT */
/*
 * sqlstore.c - the column store behind the SQL service's virtual tables.
 *
 * Rows of a table are appended in replay (time) order; each used column is
 * one array of fixed-width integers, so a scan touches only what a query
 * reads and _time stays sorted (binary search for time ranges).  TEXT and
 * BLOB values are interned: comm-like columns of millions of rows cost four
 * bytes a row and compare as integers.  Indexes are permutations of row
 * numbers built on first use: an LSD radix sort for integers (exact order),
 * a counting sort for string ids (equal values adjacent, enough for '=' and
 * GROUP BY).  Rows that no query can match (the pushed-down constant terms)
 * are never stored.  Not here: SQLite's side of the virtual table (sqlvtab.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/sql/internal.h"
#include "common/log.h"

static uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	const uint8_t *b = p;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ull);

	while (len >= 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		b += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, b, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 29;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

/* --- interned strings ----------------------------------------------------- */

static void strs_rehash(struct sqlstrs *st, size_t nslots)
{
	free(st->slots);
	st->slots = pp_xcalloc(nslots, sizeof(*st->slots));
	st->mask = nslots - 1;
	for (uint32_t id = 0; id < st->nr; id++) {
		size_t i = st->hash[id] & st->mask;
		while (st->slots[i])
			i = (i + 1) & st->mask;
		st->slots[i] = id + 1;
	}
}

uint32_t ana_sqlstrs_find(const struct sqlstrs *st, const void *p, size_t len)
{
	uint32_t h = (uint32_t)hash_bytes(p, len, 1);

	if (!st->slots)
		return UINT32_MAX;
	for (size_t i = h & st->mask; st->slots[i]; i = (i + 1) & st->mask) {
		uint32_t id = st->slots[i] - 1;
		if (st->hash[id] == h && st->slen[id] == len && !memcmp(st->pool + st->off[id], p, len))
			return id;
	}
	return UINT32_MAX;
}

uint32_t ana_sqlstrs_intern(struct sqlstrs *st, const void *p, size_t len)
{
	uint32_t h = (uint32_t)hash_bytes(p, len, 1);
	size_t i;

	if (!st->slots)
		strs_rehash(st, 1024);
	for (i = h & st->mask; st->slots[i]; i = (i + 1) & st->mask) {
		uint32_t id = st->slots[i] - 1;
		if (st->hash[id] == h && st->slen[id] == len && !memcmp(st->pool + st->off[id], p, len))
			return id;
	}
	if (st->nr == st->cap_ids) {
		st->cap_ids = st->cap_ids ? st->cap_ids * 2 : 1024;
		st->off = pp_xrealloc(st->off, st->cap_ids * sizeof(*st->off));
		st->slen = pp_xrealloc(st->slen, st->cap_ids * sizeof(*st->slen));
		st->hash = pp_xrealloc(st->hash, st->cap_ids * sizeof(*st->hash));
	}
	if (st->len + len + 1 > st->cap) {
		while (st->len + len + 1 > st->cap)
			st->cap = st->cap ? st->cap * 2 : 65536;
		st->pool = pp_xrealloc(st->pool, st->cap);
	}
	memcpy(st->pool + st->len, p, len);
	st->pool[st->len + len] = '\0';	/* TEXT values are handed out as C strings */
	st->off[st->nr] = st->len;
	st->slen[st->nr] = (uint32_t)len;
	st->hash[st->nr] = h;
	st->len += len + 1;
	st->slots[i] = ++st->nr;
	if (st->nr * 2 > st->mask)
		strs_rehash(st, (st->mask + 1) * 2);
	return st->nr - 1;
}

void ana_sqlstrs_release(struct sqlstrs *st)
{
	free(st->pool);
	free(st->off);
	free(st->slen);
	free(st->hash);
	free(st->slots);
	memset(st, 0, sizeof(*st));
}

/* --- interned stacks ------------------------------------------------------ */

static void stacks_rehash(struct sqlstacks *st, size_t nslots)
{
	free(st->slots);
	st->slots = pp_xcalloc(nslots, sizeof(*st->slots));
	st->mask = nslots - 1;
	for (uint32_t id = 0; id < st->nr; id++) {
		size_t i = st->v[id].hash & st->mask;
		while (st->slots[i])
			i = (i + 1) & st->mask;
		st->slots[i] = id + 1;
	}
}

/*
 * The same user addresses mean different code in different processes, so a
 * stack with user frames is keyed by its process too; kernel-only stacks are
 * shared by everyone.  The time of first sight picks the maps that resolve it.
 */
uint32_t ana_sqlstacks_intern(struct sqlstacks *st, const struct pp_event *ev)
{
	struct ana_stack_iter it;
	bool kernel, user = false;
	uint64_t addr, h;
	uint32_t pid;
	size_t i;

	if (!ev->nr_stack)
		return 0;
	ana_stack_iter_init(&it, ev->stack, ev->nr_stack);
	while (!user && ana_stack_iter_next(&it, &addr, &kernel))
		user = !kernel;
	pid = user ? ev->pid : 0;
	h = hash_bytes(ev->stack, ev->nr_stack * sizeof(uint64_t), pid + 7);
	if (!st->slots)
		stacks_rehash(st, 1024);
	for (i = h & st->mask; st->slots[i]; i = (i + 1) & st->mask) {
		const struct sqlstack *k = &st->v[st->slots[i] - 1];
		if (k->hash == h && k->nr == ev->nr_stack && k->pid == pid &&
		    !memcmp(st->frames + k->off, ev->stack, k->nr * sizeof(uint64_t)))
			return st->slots[i];
	}
	if (st->nr == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 1024;
		st->v = pp_xrealloc(st->v, st->cap * sizeof(*st->v));
	}
	if (st->nr_frames + ev->nr_stack > st->cap_frames) {
		while (st->nr_frames + ev->nr_stack > st->cap_frames)
			st->cap_frames = st->cap_frames ? st->cap_frames * 2 : 8192;
		st->frames = pp_xrealloc(st->frames, st->cap_frames * sizeof(*st->frames));
	}
	memcpy(st->frames + st->nr_frames, ev->stack, ev->nr_stack * sizeof(uint64_t));
	st->v[st->nr] = (struct sqlstack){ st->nr_frames, ev->nr_stack, pid, ev->time_ns, h };
	st->nr_frames += ev->nr_stack;
	st->slots[i] = ++st->nr;
	if (st->nr * 2 > st->mask)
		stacks_rehash(st, (st->mask + 1) * 2);
	return st->nr;
}

void ana_sqlstacks_release(struct sqlstacks *st)
{
	free(st->frames);
	free(st->v);
	free(st->slots);
	memset(st, 0, sizeof(*st));
}

/* --- tables and columns --------------------------------------------------- */

static void drop_indexes(struct sqltab *t)
{
	for (size_t i = 0; i < t->nr_idx; i++)
		free(t->idx[i].perm);
	free(t->idx);
	t->idx = NULL;
	t->nr_idx = 0;
}

void ana_sqltab_clear(struct sqltab *t)
{
	t->nr_rows = 0;
	drop_indexes(t);
}

void ana_sqltab_free(struct sqltab *t)
{
	if (!t)
		return;
	drop_indexes(t);
	for (size_t i = 0; i < t->nr_cols; i++) {
		free(t->cols[i].name);
		free(t->cols[i].data);
	}
	for (size_t i = 0; i < t->nr_alts; i++) {
		for (size_t k = 0; k < t->alts[i].nr; k++)
			free(t->alts[i].t[k].s);
		free(t->alts[i].t);
	}
	free(t->alts);
	free(t->cols);
	free(t->ucols);
	free(t->name);
	free(t->index_field);
	if (t->ins)
		sqlite3_finalize(t->ins);
	free(t);
}

/* Widths follow the field: a u8 field costs one byte a row. */
void ana_sqltab_layout(struct sqltab *t)
{
	free(t->ucols);
	t->ucols = pp_xcalloc(t->nr_cols + 1, sizeof(*t->ucols));
	t->nr_ucols = 0;
	for (size_t i = 0; i < t->nr_cols; i++) {
		struct sqlcol *c = &t->cols[i];
		switch (c->kind) {
		case SC_CPU: case SC_PID: case SC_TID: case SC_STACK: case SC_TEXT: case SC_BLOB:
			c->width = 4;
			c->is_signed = false;
			break;
		case SC_INT:
			c->width = 8;
			c->is_signed = true;
			if (c->f && (c->f->size == 1 || c->f->size == 2 || c->f->size == 4)) {
				c->width = (uint8_t)c->f->size;
				c->is_signed = c->f->is_signed;
			}
			break;
		default:
			c->width = 8;
			c->is_signed = true;
			break;
		}
		if (c->used)
			t->ucols[t->nr_ucols++] = (int)i;
	}
}

void ana_sqlcol_put(struct sqlcol *c, size_t row, int64_t v)
{
	if (row >= c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		if (c->cap <= row)
			c->cap = row + 1;
		c->data = pp_xrealloc(c->data, c->cap * c->width);
	}
	uint8_t *p = c->data + row * c->width;
	switch (c->width) {
	case 1: *p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(int64_t *)p = v; break;
	}
}

static void field_bytes(const struct sqlcol *c, const struct pp_event *ev, const char **p, size_t *len)
{
	const struct pp_field *f = c->f;
	uint32_t off = f->offset, n = f->size;

	*p = "";
	*len = 0;
	if (!ev->raw)
		return;
	if (f->is_data_loc) {
		uint32_t loc;
		if ((uint64_t)f->offset + 4 > ev->raw_sz)
			return;
		memcpy(&loc, ev->raw + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
	}
	if (off >= ev->raw_sz)
		return;
	if ((uint64_t)off + n > ev->raw_sz)
		n = ev->raw_sz - off;
	*p = (const char *)ev->raw + off;
	*len = n;
	if (c->kind == SC_TEXT) {
		const char *z = memchr(*p, '\0', n);
		if (z)
			*len = (size_t)(z - *p);
	}
}

void ana_sqltab_value(struct ana_sqldb *db, const struct sqlcol *c, const struct pp_event *ev,
		  int64_t *i, const char **p, size_t *len)
{
	switch (c->kind) {
	case SC_TIME: *i = (int64_t)ev->time_ns; break;
	case SC_CPU: *i = ev->cpu; break;
	case SC_PID: *i = ev->pid; break;
	case SC_TID: *i = ev->tid; break;
	case SC_PERIOD: *i = (int64_t)ev->period; break;
	case SC_IP: *i = (int64_t)ev->ip; break;
	case SC_ADDR: *i = (int64_t)ev->addr; break;
	case SC_STACK: *i = ana_sqlstacks_intern(&db->stacks, ev); break;
	case SC_INT: *i = (int64_t)ana_field_read(ev, c->f); break;
	case SC_TEXT:
	case SC_BLOB: field_bytes(c, ev, p, len); break;
	}
}

static bool term_ok(struct ana_sqldb *db, const struct sqltab *t, const struct sqlterm *tm,
		    const struct pp_event *ev)
{
	const struct sqlcol *c = &t->cols[tm->col];
	const char *p = NULL;
	size_t len = 0;
	int64_t v = 0;

	ana_sqltab_value(db, c, ev, &v, &p, &len);
	if (tm->is_text) {
		char buf[4096];
		switch (tm->op) {
		case SQLITE_INDEX_CONSTRAINT_EQ:
			return len == tm->len && !memcmp(p, tm->s, len);
		case SQLITE_INDEX_CONSTRAINT_NE:
			return !(len == tm->len && !memcmp(p, tm->s, len));
		case SQLITE_INDEX_CONSTRAINT_GLOB:
			if (len >= sizeof(buf) || memchr(p, '\0', len))
				return true;
			memcpy(buf, p, len);
			buf[len] = '\0';
			return sqlite3_strglob(tm->s, buf) == 0;
		default:
			return true;
		}
	}
	switch (tm->op) {
	case SQLITE_INDEX_CONSTRAINT_EQ: return v == tm->i;
	case SQLITE_INDEX_CONSTRAINT_NE: return v != tm->i;
	case SQLITE_INDEX_CONSTRAINT_LT: return v < tm->i;
	case SQLITE_INDEX_CONSTRAINT_LE: return v <= tm->i;
	case SQLITE_INDEX_CONSTRAINT_GT: return v > tm->i;
	case SQLITE_INDEX_CONSTRAINT_GE: return v >= tm->i;
	default: return true;
	}
}

bool ana_sqltab_keep(struct ana_sqldb *db, const struct sqltab *t, const struct pp_event *ev)
{
	if (t->keep_all || !t->nr_alts)
		return true;
	for (size_t a = 0; a < t->nr_alts; a++) {
		size_t k;
		for (k = 0; k < t->alts[a].nr; k++)
			if (!term_ok(db, t, &t->alts[a].t[k], ev))
				break;
		if (k == t->alts[a].nr)
			return true;
	}
	return false;
}

void ana_sqltab_store(struct ana_sqldb *db, struct sqltab *t, const struct pp_event *ev)
{
	size_t row = t->nr_rows;

	for (size_t u = 0; u < t->nr_ucols; u++) {
		struct sqlcol *c = &t->cols[t->ucols[u]];
		const char *p;
		size_t len;
		int64_t v;

		switch (c->kind) {
		case SC_TIME: v = (int64_t)ev->time_ns; break;
		case SC_CPU: v = ev->cpu; break;
		case SC_PID: v = ev->pid; break;
		case SC_TID: v = ev->tid; break;
		case SC_INT: v = (int64_t)ana_field_read(ev, c->f); break;
		case SC_TEXT:
		case SC_BLOB:
			field_bytes(c, ev, &p, &len);
			v = ana_sqlstrs_intern(&db->strs, p, len);
			break;
		default:
			ana_sqltab_value(db, c, ev, &v, &p, &len);
			break;
		}
		ana_sqlcol_put(c, row, v);
	}
	t->nr_rows++;
}

/* An alternative equal to one already kept adds nothing (xBestIndex runs many times). */
static bool alt_same(const struct sqlalt *a, const struct sqlterm *terms, size_t nr)
{
	if (a->nr != nr)
		return false;
	for (size_t k = 0; k < nr; k++) {
		const struct sqlterm *x = &a->t[k], *y = &terms[k];
		if (x->col != y->col || x->op != y->op || x->is_text != y->is_text || x->i != y->i ||
		    (x->is_text && (x->len != y->len || memcmp(x->s, y->s, x->len))))
			return false;
	}
	return true;
}

void ana_sqltab_add_alt(struct sqltab *t, const struct sqlterm *terms, size_t nr)
{
	if (t->keep_all)
		return;
	if (!nr) {
		t->keep_all = true;	/* a use without constant terms needs every row */
		return;
	}
	for (size_t a = 0; a < t->nr_alts; a++)
		if (alt_same(&t->alts[a], terms, nr))
			return;
	t->alts = pp_xrealloc(t->alts, (t->nr_alts + 1) * sizeof(*t->alts));
	struct sqlalt *a = &t->alts[t->nr_alts++];
	a->t = pp_xcalloc(nr, sizeof(*a->t));
	a->nr = nr;
	for (size_t k = 0; k < nr; k++) {
		a->t[k] = terms[k];
		if (terms[k].is_text) {
			a->t[k].s = pp_xmalloc(terms[k].len + 1);
			memcpy(a->t[k].s, terms[k].s, terms[k].len);
			a->t[k].s[terms[k].len] = '\0';
		}
	}
}

/* --- indexes -------------------------------------------------------------- */

/* Stable counting sort of @perm by string id, or by @rank[id] (ranks below nr_ids too). */
static void sort_ids(const struct sqlcol *c, const uint32_t *rank, uint32_t *perm, uint32_t *tmp,
		     size_t n)
{
	const uint32_t *ids = (const uint32_t *)c->data;
	uint32_t nr_ids = 0;
	uint32_t *cnt;

	for (size_t i = 0; i < n; i++)
		if (ids[i] + 1 > nr_ids)
			nr_ids = ids[i] + 1;
	cnt = pp_xcalloc((size_t)nr_ids + 1, sizeof(*cnt));
#define KEY(row) (rank ? rank[ids[row]] : ids[row])
	for (size_t i = 0; i < n; i++)
		cnt[KEY(perm[i]) + 1]++;
	for (uint32_t k = 0; k < nr_ids; k++)
		cnt[k + 1] += cnt[k];
	for (size_t i = 0; i < n; i++)
		tmp[cnt[KEY(perm[i])]++] = perm[i];
#undef KEY
	memcpy(perm, tmp, n * sizeof(*perm));
	free(cnt);
}

struct text_key {
	const char *p;
	size_t len;
	uint32_t id;
};

/* SQLite's BINARY collation: memcmp(), then the shorter first. */
static int text_key_cmp(const void *a, const void *b)
{
	const struct text_key *x = a, *y = b;
	int r = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* The rank in collation order of each string id in @c's first @n rows (0 for the others). */
static uint32_t *text_ranks(const struct sqlcol *c, const struct sqlstrs *st, size_t n)
{
	const uint32_t *ids = (const uint32_t *)c->data;
	uint32_t nr_ids = 0, nr = 0;
	uint32_t *rank;
	struct text_key *keys;

	for (size_t i = 0; i < n; i++)
		if (ids[i] + 1 > nr_ids)
			nr_ids = ids[i] + 1;
	rank = pp_xcalloc((size_t)nr_ids + 1, sizeof(*rank));
	for (size_t i = 0; i < n; i++)
		rank[ids[i]] = 1;	/* seen */
	keys = pp_xmalloc(((size_t)nr_ids + 1) * sizeof(*keys));
	for (uint32_t id = 0; id < nr_ids; id++) {
		if (!rank[id])
			continue;
		keys[nr].p = sqlstrs_get(st, id, &keys[nr].len);
		keys[nr++].id = id;
	}
	qsort(keys, nr, sizeof(*keys), text_key_cmp);
	for (uint32_t k = 0; k < nr; k++)
		rank[keys[k].id] = k;
	free(keys);
	return rank;
}

/*
 * Stable LSD radix sort of @perm by the column's int64 value (sign bit
 * flipped so unsigned order is signed order), 8 bits a pass, skipping the
 * passes where every key has the same digit.
 */
static void sort_ints(const struct sqlcol *c, uint32_t *perm, uint32_t *tmp, size_t n)
{
	uint64_t *keys = pp_xmalloc((n + 1) * sizeof(*keys));
	uint64_t all_and = ~0ull, all_or = 0;
	uint32_t *src = perm, *dst = tmp;

	for (size_t r = 0; r < n; r++) {
		keys[r] = (uint64_t)sqlcol_get(c, r) ^ (1ull << 63);
		all_and &= keys[r];
		all_or |= keys[r];
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t cnt[257] = { 0 };
		if (!(((all_and ^ all_or) >> shift) & 0xff))
			continue;	/* every key has this digit */
		for (size_t i = 0; i < n; i++)
			cnt[((keys[src[i]] >> shift) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (size_t i = 0; i < n; i++)
			dst[cnt[(keys[src[i]] >> shift) & 0xff]++] = src[i];
		uint32_t *x = src;
		src = dst;
		dst = x;
	}
	if (src != perm)
		memcpy(perm, src, n * sizeof(*perm));
	free(keys);
}

/*
 * A multi-column index is stable sorts by the last column first; equal keys
 * keep time order.  String columns sort by id, which groups equal strings
 * (enough for '=' and GROUP BY), or with @collate in collation order: SQLite
 * takes a GROUP BY served grouped as sorted when the query orders by the same
 * column (GROUP BY comm ORDER BY comm), so a scan must be in collation order.
 */
const uint32_t *ana_sqltab_index(struct sqltab *t, const int *cols, int nr,
				 const struct sqlstrs *collate)
{
	struct sqlindex *ix = NULL;
	size_t n = t->nr_rows;
	uint32_t *tmp;

	for (size_t i = 0; i < t->nr_idx && !ix; i++)
		if (t->idx[i].nr == nr && t->idx[i].collated == (collate != NULL) &&
		    !memcmp(t->idx[i].cols, cols, nr * sizeof(int)))
			ix = &t->idx[i];
	if (ix && ix->nr_rows == n)
		return ix->perm;
	if (!ix) {
		t->idx = pp_xrealloc(t->idx, (t->nr_idx + 1) * sizeof(*t->idx));
		ix = &t->idx[t->nr_idx++];
		memset(ix, 0, sizeof(*ix));
		memcpy(ix->cols, cols, nr * sizeof(int));
		ix->nr = nr;
		ix->collated = collate != NULL;
	}
	free(ix->perm);
	ix->perm = pp_xmalloc((n + 1) * sizeof(*ix->perm));
	ix->nr_rows = n;
	tmp = pp_xmalloc((n + 1) * sizeof(*tmp));
	for (size_t r = 0; r < n; r++)
		ix->perm[r] = (uint32_t)r;
	for (int k = nr - 1; k >= 0; k--) {
		const struct sqlcol *c = &t->cols[cols[k]];
		if (c->kind == SC_TEXT && collate) {
			uint32_t *rank = text_ranks(c, collate, n);
			sort_ids(c, rank, ix->perm, tmp, n);
			free(rank);
		} else if (c->kind == SC_TEXT || c->kind == SC_BLOB) {
			sort_ids(c, NULL, ix->perm, tmp, n);
		} else {
			sort_ints(c, ix->perm, tmp, n);
		}
	}
	free(tmp);
	return ix->perm;
}
