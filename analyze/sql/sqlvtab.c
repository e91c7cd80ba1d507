/* SPDX-License-Identifier: MIT */
/*
 * sqlvtab.c - the "pp" SQLite virtual-table module over the column store.
 *
 * xBestIndex does two jobs.  While ana_sqldb_plan() prepares the queries
 * (db->learning) it records which columns each table's users read
 * (colUsed) and the constant terms of each use (sqlite3_vtab_rhs_value), so
 * the store keeps only what can be asked for.  At execution it picks the
 * cheapest access: a binary search on the sorted column (_time) for ranges
 * and equality, an index (built on first use) for '=' on _cpu/_pid/_tid,
 * index= columns and join columns, or a full scan; ORDER BY _time is free,
 * and GROUP BY one column is served grouped from the index.  Constraints
 * are never "omitted": SQLite re-checks every row, so a plan only has to
 * return a superset, which keeps odd types (REAL, TEXT against INTEGER)
 * simple and correct.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sql/internal.h"
#include "common/buf.h"
#include "common/log.h"

enum { P_FULL, P_RANGE, P_INDEX_EQ, P_INDEX_SCAN };
enum { F_EQ = 1, F_LO = 2, F_LO_STRICT = 4, F_HI = 8, F_HI_STRICT = 16, F_DESC = 32 };

struct sqlvt {
	sqlite3_vtab base;
	struct ana_sqldb *db;
	struct sqltab *t;
};

struct sqlcur {
	sqlite3_vtab_cursor base;
	struct sqltab *t;
	struct ana_sqldb *db;
	const uint32_t *perm;	/* NULL: rows in natural order */
	size_t lo, hi, pos;	/* [lo, hi) of the natural order or of perm */
	bool desc;
	size_t row;
};

const char *ana_sqlcol_decl(const struct sqlcol *c)
{
	return c->kind == SC_TEXT ? "TEXT" : c->kind == SC_BLOB ? "BLOB" : "INTEGER";
}

static void add_ident(struct pp_buf *b, const char *name)
{
	pp_buf_addch(b, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			pp_buf_addch(b, '"');
		pp_buf_addch(b, *p);
	}
	pp_buf_addch(b, '"');
}

char *ana_sqltab_schema(const struct sqltab *t, bool only_used)
{
	struct pp_buf b = PP_BUF_INIT;
	bool first = true;

	pp_buf_adds(&b, "CREATE TABLE ");
	add_ident(&b, t->name);
	pp_buf_addch(&b, '(');
	for (size_t i = 0; i < t->nr_cols; i++) {
		if (only_used && !t->cols[i].used)
			continue;
		pp_buf_adds(&b, first ? "" : ", ");
		add_ident(&b, t->cols[i].name);
		pp_buf_addf(&b, " %s", ana_sqlcol_decl(&t->cols[i]));
		first = false;
	}
	if (first)
		pp_buf_adds(&b, "\"_rowid\" INTEGER");	/* a table nobody reads still needs a column */
	pp_buf_addch(&b, ')');
	return pp_buf_detach(&b);
}

static int vt_connect(sqlite3 *sdb, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct ana_sqldb *db = aux;
	struct sqlvt *vt;
	char *schema;
	long n;
	int rc;

	if (argc < 4 || (n = strtol(argv[3], NULL, 10)) < 0 || (size_t)n >= db->nr_tabs) {
		*err = sqlite3_mprintf("pp: bad table number");
		return SQLITE_ERROR;
	}
	schema = ana_sqltab_schema(db->tabs[n], false);
	rc = sqlite3_declare_vtab(sdb, schema);
	free(schema);
	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->db = db;
	vt->t = db->tabs[n];
	*out = &vt->base;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

/* Record what a use of the table reads and its constant terms (plan time). */
static void learn(struct sqltab *t, sqlite3_index_info *info)
{
	struct sqlterm terms[64];
	size_t nr = 0;

	t->referenced = true;
	for (size_t i = 0; i < t->nr_cols; i++) {
		uint64_t bit = i < 63 ? 1ull << i : 1ull << 63;
		if (info->colUsed & bit)
			t->cols[i].used = true;
	}
	for (int i = 0; i < info->nConstraint && nr < PP_ARRAY_SIZE(terms); i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		sqlite3_value *v = NULL;
		const char *coll;
		struct sqlcol *col;
		int op = c->op;

		if (!c->usable || c->iColumn < 0 || (size_t)c->iColumn >= t->nr_cols)
			continue;
		if (op != SQLITE_INDEX_CONSTRAINT_EQ && op != SQLITE_INDEX_CONSTRAINT_NE &&
		    op != SQLITE_INDEX_CONSTRAINT_LT && op != SQLITE_INDEX_CONSTRAINT_LE &&
		    op != SQLITE_INDEX_CONSTRAINT_GT && op != SQLITE_INDEX_CONSTRAINT_GE &&
		    op != SQLITE_INDEX_CONSTRAINT_GLOB)
			continue;
		if (sqlite3_vtab_rhs_value(info, i, &v) != SQLITE_OK || !v)
			continue;
		coll = sqlite3_vtab_collation(info, i);
		if (coll && sqlite3_stricmp(coll, "BINARY"))
			continue;
		col = &t->cols[c->iColumn];
		if (col->kind == SC_TEXT && sqlite3_value_type(v) == SQLITE_TEXT &&
		    (op == SQLITE_INDEX_CONSTRAINT_EQ || op == SQLITE_INDEX_CONSTRAINT_NE ||
		     op == SQLITE_INDEX_CONSTRAINT_GLOB)) {
			terms[nr++] = (struct sqlterm){ .col = c->iColumn, .op = op, .is_text = true,
							.s = (char *)sqlite3_value_text(v),
							.len = (size_t)sqlite3_value_bytes(v) };
		} else if (col->kind != SC_TEXT && col->kind != SC_BLOB && col->kind != SC_STACK &&
			   sqlite3_value_type(v) == SQLITE_INTEGER &&
			   op != SQLITE_INDEX_CONSTRAINT_GLOB) {
			terms[nr++] = (struct sqlterm){ .col = c->iColumn, .op = op,
							.i = sqlite3_value_int64(v) };
		}
	}
	ana_sqltab_add_alt(t, terms, nr);
}

static bool offers_index(const struct sqlcol *c, bool constant_rhs)
{
	if (c->kind == SC_CPU || c->kind == SC_PID || c->kind == SC_TID || c->indexed)
		return true;
	/* a constant term on another column was pushed down: the rows left are few */
	return !constant_rhs;
}

static int vt_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	struct sqlvt *vt = (struct sqlvt *)v;
	struct sqltab *t = vt->t;
	double n = t->nr_rows ? (double)t->nr_rows : 1000.0, logn = log2(n + 2);
	int eq = -1, lo = -1, hi = -1, plan = P_FULL, flags = 0, col = 0;
	int icols[SQL_INDEX_MAX_COLS], iargs[SQL_INDEX_MAX_COLS], nic = 0;
	bool worthy = false;
	double cost = n, rows = n;

	if (vt->db->learning)
		learn(t, info);
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		if (!c->usable || c->iColumn < 0)
			continue;
		if (c->iColumn == t->time_col) {
			if (c->op == SQLITE_INDEX_CONSTRAINT_EQ && eq < 0)
				eq = i;
			else if ((c->op == SQLITE_INDEX_CONSTRAINT_GT ||
				  c->op == SQLITE_INDEX_CONSTRAINT_GE) && lo < 0)
				lo = i;
			else if ((c->op == SQLITE_INDEX_CONSTRAINT_LT ||
				  c->op == SQLITE_INDEX_CONSTRAINT_LE) && hi < 0)
				hi = i;
		} else if (c->op == SQLITE_INDEX_CONSTRAINT_EQ && nic < SQL_INDEX_MAX_COLS &&
			   t->cols[c->iColumn].kind != SC_BLOB) {
			sqlite3_value *rv = NULL;
			bool constant = sqlite3_vtab_rhs_value(info, i, &rv) == SQLITE_OK;
			const char *coll = sqlite3_vtab_collation(info, i);
			bool dup = false;
			if (coll && sqlite3_stricmp(coll, "BINARY"))
				continue;
			for (int k = 0; k < nic; k++)
				dup |= icols[k] == c->iColumn;
			if (dup)
				continue;
			worthy |= offers_index(&t->cols[c->iColumn], constant);
			icols[nic] = c->iColumn;
			iargs[nic++] = i;
		}
	}
	if (eq >= 0) {
		plan = P_RANGE;
		flags = F_EQ;
		info->aConstraintUsage[eq].argvIndex = 1;
		cost = logn + 1;
		rows = 1;
	} else if (lo >= 0 || hi >= 0) {
		int argv = 1;
		plan = P_RANGE;
		if (lo >= 0) {
			flags |= F_LO | (info->aConstraint[lo].op == SQLITE_INDEX_CONSTRAINT_GT ? F_LO_STRICT : 0);
			info->aConstraintUsage[lo].argvIndex = argv++;
		}
		if (hi >= 0) {
			flags |= F_HI | (info->aConstraint[hi].op == SQLITE_INDEX_CONSTRAINT_LT ? F_HI_STRICT : 0);
			info->aConstraintUsage[hi].argvIndex = argv++;
		}
		rows = (lo >= 0 && hi >= 0) ? n / 10 : n / 3;
		cost = logn + rows;
	}
	/* '=' on one to four columns: a (composite) index, when it pays */
	if (worthy && logn + 10.0 / nic < cost) {
		struct pp_buf b = PP_BUF_INIT;
		for (int i = 0; i < info->nConstraint; i++)
			info->aConstraintUsage[i].argvIndex = 0;
		plan = P_INDEX_EQ;
		flags = 0;
		for (int k = 0; k < nic; k++) {
			info->aConstraintUsage[iargs[k]].argvIndex = k + 1;
			pp_buf_addf(&b, "%s%d", k ? "," : "", icols[k]);
		}
		info->idxStr = sqlite3_mprintf("%s", pp_buf_str(&b));
		info->needToFreeIdxStr = 1;
		pp_buf_release(&b);
		rows = 10.0 / nic;
		/* equal keys stay in time order in the index: a time range narrows the group */
		int argv = nic + 1;
		if (lo >= 0) {
			flags |= F_LO | (info->aConstraint[lo].op == SQLITE_INDEX_CONSTRAINT_GT ? F_LO_STRICT : 0);
			info->aConstraintUsage[lo].argvIndex = argv++;
			rows /= 2;
		}
		if (hi >= 0) {
			flags |= F_HI | (info->aConstraint[hi].op == SQLITE_INDEX_CONSTRAINT_LT ? F_HI_STRICT : 0);
			info->aConstraintUsage[hi].argvIndex = argv++;
			rows /= 2;
		}
		cost = logn + rows;
	}
	if (info->nOrderBy == 1 && plan == P_INDEX_EQ && info->aOrderBy[0].iColumn == t->time_col &&
	    t->time_col >= 0 && sqlite3_vtab_distinct(info) <= 1) {
		info->orderByConsumed = 1;
		flags |= info->aOrderBy[0].desc ? F_DESC : 0;
	}
	if (info->nOrderBy == 1 && (plan == P_FULL || plan == P_RANGE)) {
		const struct sqlite3_index_orderby *ob = &info->aOrderBy[0];
		int distinct = sqlite3_vtab_distinct(info);
		if (ob->iColumn == t->time_col && t->time_col >= 0 && distinct <= 1) {
			info->orderByConsumed = 1;
			flags |= ob->desc ? F_DESC : 0;
		} else if (plan == P_FULL && ob->iColumn >= 0 &&
			   t->cols[ob->iColumn].kind != SC_BLOB &&
			   (distinct == 1 || (distinct == 0 && t->cols[ob->iColumn].kind != SC_TEXT))) {
			/* ORDER BY an integer column, or GROUP BY one column: served by an index */
			plan = P_INDEX_SCAN;
			col = ob->iColumn;
			flags |= ob->desc ? F_DESC : 0;
			info->orderByConsumed = 1;
			cost = n * 1.5;
		}
	}
	info->idxNum = plan | flags << 2 | col << 16;
	info->estimatedCost = cost;
	info->estimatedRows = (sqlite3_int64)(rows < 1 ? 1 : rows);
	return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct sqlvt *vt = (struct sqlvt *)v;
	struct sqlcur *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->t = vt->t;
	c->db = vt->db;
	*out = &c->base;
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* First position in [from, to) whose value is >= @v (@strict: > @v) in sorted order. */
static size_t bound(const struct sqlcol *c, const uint32_t *perm, size_t from, size_t to, int64_t v,
		    bool strict)
{
	size_t lo = from, hi = to;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t x = sqlcol_get(c, perm ? perm[mid] : mid);
		if (x < v || (strict && x == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* bound() on a multi-column index: tuples compared column by column. */
static size_t bound_n(const struct sqltab *t, const int *cols, int nr, const uint32_t *perm,
		      size_t n, const int64_t *key, bool strict)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = 0;
		for (int k = 0; k < nr && !cmp; k++) {
			int64_t x = sqlcol_get(&t->cols[cols[k]], perm[mid]);
			cmp = x < key[k] ? -1 : x > key[k];
		}
		if (cmp < 0 || (strict && cmp == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An SQL value as an integer key; false when no integer can compare equal to it. */
static bool int_key(sqlite3_value *v, int64_t *out, bool round_up)
{
	double d;

	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return true;
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		d = round_up ? ceil(d) : floor(d);
		if (d >= 9.2e18)
			*out = INT64_MAX;
		else if (d <= -9.2e18)
			*out = INT64_MIN;
		else
			*out = (int64_t)d;
		return true;
	default:
		return false;
	}
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	struct sqlcur *c = (struct sqlcur *)cur;
	struct sqltab *t = c->t;
	int plan = idx & 3, flags = (idx >> 2) & 0x3f, col = idx >> 16;
	size_t n = t->nr_rows;
	int64_t v;
	int a = 0;

	c->perm = NULL;
	c->lo = 0;
	c->hi = n;
	c->desc = flags & F_DESC;
	if (plan == P_INDEX_EQ && idxstr) {
		int cols[SQL_INDEX_MAX_COLS], nr = 0;
		int64_t key[SQL_INDEX_MAX_COLS];
		bool empty = false, usable = true;
		for (const char *p = idxstr; *p && nr < SQL_INDEX_MAX_COLS && nr < argc; nr++) {
			char *end;
			cols[nr] = (int)strtol(p, &end, 10);
			p = *end == ',' ? end + 1 : end;
		}
		a = nr;
		for (int k = 0; k < nr; k++) {
			const struct sqlcol *ic = &t->cols[cols[k]];
			sqlite3_value *x = argv[k];
			if (sqlite3_value_type(x) == SQLITE_NULL) {
				empty = true;
			} else if (ic->kind == SC_TEXT) {
				const unsigned char *p = sqlite3_value_text(x);
				uint32_t id = ana_sqlstrs_find(&c->db->strs, p ? (const char *)p : "",
							   (size_t)sqlite3_value_bytes(x));
				empty |= id == UINT32_MAX;
				key[k] = id;
			} else if (int_key(x, &v, false)) {
				int64_t up;
				int_key(x, &up, true);
				empty |= up != v;	/* 1.5 equals no integer */
				key[k] = v;
			} else {
				usable = false;	/* TEXT against an INTEGER column: SQLite decides */
			}
		}
		if (empty) {
			c->hi = 0;
		} else if (usable && nr > 0) {
			c->perm = ana_sqltab_index(t, cols, nr, NULL);
			c->lo = bound_n(t, cols, nr, c->perm, n, key, false);
			c->hi = bound_n(t, cols, nr, c->perm, n, key, true);
		}
	} else if (plan == P_INDEX_SCAN && (size_t)col < t->nr_cols) {
		c->perm = ana_sqltab_index(t, &col, 1, &c->db->strs);
	}
	/* time bounds: on the natural order, or inside an index group (in time order too) */
	if ((plan == P_RANGE || plan == P_INDEX_EQ) && t->time_col >= 0) {
		const struct sqlcol *tc = &t->cols[t->time_col];
		if ((flags & F_EQ) && plan == P_RANGE) {
			if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
				c->hi = 0;
			} else if (int_key(argv[0], &v, false)) {
				c->lo = bound(tc, NULL, 0, n, v, false);
				int_key(argv[0], &v, true);
				c->hi = bound(tc, NULL, c->lo, n, v, true);
			}
		}
		if ((flags & F_LO) && a < argc) {
			sqlite3_value *x = argv[a++];
			if (sqlite3_value_type(x) == SQLITE_NULL)
				c->hi = 0;
			else if (int_key(x, &v, false))
				c->lo = bound(tc, c->perm, c->lo, c->hi, v, flags & F_LO_STRICT &&
					      sqlite3_value_type(x) == SQLITE_INTEGER);
		}
		if ((flags & F_HI) && a < argc) {
			sqlite3_value *x = argv[a++];
			if (sqlite3_value_type(x) == SQLITE_NULL)
				c->hi = 0;
			else if (int_key(x, &v, true))
				c->hi = bound(tc, c->perm, c->lo, c->hi, v, !(flags & F_HI_STRICT) ||
					      sqlite3_value_type(x) != SQLITE_INTEGER);
		}
		if (c->lo > c->hi)
			c->lo = c->hi;
	}
	c->pos = c->lo;
	if (c->pos < c->hi)
		c->row = c->perm ? c->perm[c->desc ? c->hi - 1 : c->pos] : (c->desc ? c->hi - 1 : c->pos);
	return SQLITE_OK;
}

static int vt_next(sqlite3_vtab_cursor *cur)
{
	struct sqlcur *c = (struct sqlcur *)cur;
	size_t k;

	if (++c->pos >= c->hi)
		return SQLITE_OK;
	k = c->desc ? c->hi - 1 - (c->pos - c->lo) : c->pos;
	c->row = c->perm ? c->perm[k] : k;
	return SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *cur)
{
	struct sqlcur *c = (struct sqlcur *)cur;

	return c->pos >= c->hi;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
	struct sqlcur *c = (struct sqlcur *)cur;
	const struct sqlcol *col;
	const char *p;
	size_t len;
	int64_t v;

	if (i < 0 || (size_t)i >= c->t->nr_cols || !c->t->cols[i].used || !c->t->cols[i].data) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	col = &c->t->cols[i];
	v = sqlcol_get(col, c->row);
	switch (col->kind) {
	case SC_TEXT:
		p = sqlstrs_get(&c->db->strs, (uint32_t)v, &len);
		sqlite3_result_text(ctx, p, (int)len, SQLITE_STATIC);
		break;
	case SC_BLOB:
		p = sqlstrs_get(&c->db->strs, (uint32_t)v, &len);
		sqlite3_result_blob(ctx, p, (int)len, SQLITE_STATIC);
		break;
	case SC_STACK:
		if (v)
			sqlite3_result_int64(ctx, v);
		else
			sqlite3_result_null(ctx);
		break;
	default:
		if (col->kind == SC_INT && !col->f && v == INT64_MIN)
			sqlite3_result_null(ctx);	/* aux tables: "unknown" */
		else
			sqlite3_result_int64(ctx, v);
		break;
	}
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct sqlcur *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module pp_module = {
	.iVersion = 1,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

int ana_sqlvtab_register(struct ana_sqldb *db)
{
	return sqlite3_create_module(db->db, "pp", &pp_module, db);
}
