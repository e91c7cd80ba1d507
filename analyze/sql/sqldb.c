/* SPDX-License-Identifier: MIT */
/*
 * sqldb.c - SQL over a replay's events: the public side of the SQL service.
 *
 * Life of a database: open (connection, functions, aux tables), add one
 * table per selected event, plan (split and compile the queries once on
 * empty virtual tables to learn what they read: see sqlvtab.c), then
 * insert events as the replay delivers them, exec the queries (each run
 * re-prepares, so SQLite plans with the real row counts), clear between
 * intervals, flush at the end.  In TABLE mode the learnt columns become
 * ordinary tables filled by one prepared INSERT inside one transaction; a
 * database file is always TABLE mode with every row and column, and its
 * auxiliary tables are copied from temporary virtual tables at flush, so
 * the file needs nothing of pp to be read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/sql/internal.h"
#include "common/buf.h"
#include "common/log.h"

static const char *const reserved[] = { "stacks", "tasks", "mmaps", "losses", "event_metadata" };

int ana_sqldb_errf(struct ana_sqldb *db, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->errmsg, sizeof(db->errmsg), fmt, ap);
	va_end(ap);
	return rc;
}

const char *ana_sqldb_errmsg(const struct ana_sqldb *db)
{
	return db->errmsg;
}

static int exec_sql(struct ana_sqldb *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		ana_sqldb_errf(db, PP_ESYNTAX, "%s (in: %s)", err ? err : "error", sql);
		sqlite3_free(err);
		return PP_ESYNTAX;
	}
	return 0;
}

static void tab_push(struct ana_sqldb *db, struct sqltab *t)
{
	db->tabs = pp_xrealloc(db->tabs, (db->nr_tabs + 1) * sizeof(*db->tabs));
	db->tabs[db->nr_tabs++] = t;
}

int ana_sqldb_open(struct ana_session *s, const struct ana_sqldb_opts *o, struct ana_sqldb **out)
{
	struct ana_sqldb *db = pp_xcalloc(1, sizeof(*db));
	int rc;

	*out = db;
	db->s = s;
	db->file = o->path != NULL;
	db->mode = db->file ? ANA_SQL_TABLE : o->mode;
	db->all_rows = o->all_rows || db->file;
	if (db->file)
		unlink(o->path);
	rc = sqlite3_open_v2(o->path ? o->path : ":memory:", &db->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK)
		return ana_sqldb_errf(db, -EIO, "cannot create database '%s': %s", o->path ? o->path : ":memory:",
				  db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
	rc = exec_sql(db, db->file ? "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
				     "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY"
				   : "PRAGMA temp_store=MEMORY");
	if (rc)
		return rc;
	if (ana_sqlvtab_register(db) != SQLITE_OK)
		return ana_sqldb_errf(db, PP_ENOTSUP, "cannot register the virtual table module: %s",
				  sqlite3_errmsg(db->db));
	rc = ana_sqlfunc_register(db);
	if (rc)
		return rc;
	for (int k = ST_STACKS; k <= ST_LOSSES; k++) {
		db->aux[k] = ana_sqlaux_new(k);
		tab_push(db, db->aux[k]);
	}
	return 0;
}

void ana_sqldb_close(struct ana_sqldb *db)
{
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!db)
		return;
	for (size_t i = 0; i < db->nr_tabs; i++)
		if (db->tabs[i]->ins) {
			sqlite3_finalize(db->tabs[i]->ins);
			db->tabs[i]->ins = NULL;
		}
	if (db->db)
		sqlite3_close_v2(db->db);
	for (size_t i = 0; i < db->nr_tabs; i++)
		ana_sqltab_free(db->tabs[i]);
	free(db->tabs);
	for (size_t i = 0; i < db->nr_queries; i++)
		free(db->queries[i]);
	free(db->queries);
	while (pp_u64map_next(&db->seen, &it, &k, &v))
		free(v);
	pp_u64map_release(&db->seen);
	ana_sqlstrs_release(&db->strs);
	ana_sqlstacks_release(&db->stacks);
	ana_sqlfunc_release(db);
	free(db);
}

static void col_add(struct sqltab *t, const char *name, enum sqlcol_kind kind,
		    const struct pp_field *f)
{
	t->cols = pp_xrealloc(t->cols, (t->nr_cols + 1) * sizeof(*t->cols));
	memset(&t->cols[t->nr_cols], 0, sizeof(t->cols[0]));
	t->cols[t->nr_cols].name = pp_xstrdup(name);
	t->cols[t->nr_cols].kind = kind;
	t->cols[t->nr_cols].f = f;
	t->nr_cols++;
}

int ana_sqldb_add_table(struct ana_sqldb *db, const struct ana_evtype *type, const char *name,
			const char *index_field)
{
	struct sqltab *t;

	if (!name || !*name)
		return ana_sqldb_errf(db, PP_EUSAGE, "bad alias for %s: a table needs a name", type->name);
	if (!sqlite3_strnicmp(name, "sqlite_", 7))
		return ana_sqldb_errf(db, PP_EUSAGE, "bad alias '%s': names starting with sqlite_ are "
				  "reserved by SQLite", name);
	for (size_t i = 0; i < PP_ARRAY_SIZE(reserved); i++)
		if (!sqlite3_stricmp(name, reserved[i]))
			return ana_sqldb_errf(db, PP_EUSAGE, "bad alias '%s': a built-in table has that "
					  "name; choose another with alias=", name);
	for (size_t i = 0; i < db->nr_tabs; i++)
		if (!sqlite3_stricmp(name, db->tabs[i]->name))
			return ana_sqldb_errf(db, PP_EUSAGE, "two tables named '%s' (%s and %s): give one "
					  "of them another name with alias=", name,
					  db->tabs[i]->type ? db->tabs[i]->type->name : "?", type->name);
	t = pp_xcalloc(1, sizeof(*t));
	t->kind = ST_EVENT;
	t->type = type;
	t->name = pp_xstrdup(name);
	col_add(t, "_pid", SC_PID, NULL);
	col_add(t, "_tid", SC_TID, NULL);
	col_add(t, "_time", SC_TIME, NULL);
	col_add(t, "_cpu", SC_CPU, NULL);
	col_add(t, "_period", SC_PERIOD, NULL);
	t->time_col = 2;
	if (!type->sys) {
		col_add(t, "_ip", SC_IP, NULL);
		col_add(t, "_addr", SC_ADDR, NULL);
	}
	if (type->desc_flags & PPF_EVF_STACK)
		col_add(t, "_stack", SC_STACK, NULL);
	for (size_t i = 0; i < type->nr_fields; i++) {
		const struct pp_field *f = &type->fields[i];
		enum sqlcol_kind k = f->is_string ? SC_TEXT
				     : (f->is_array || f->is_data_loc || f->size > 8) ? SC_BLOB : SC_INT;
		bool dup = false;
		if (!strcmp(f->name, "common_type"))
			continue;
		for (size_t c = 0; c < t->nr_cols; c++)
			dup |= !strcmp(t->cols[c].name, f->name);
		if (!dup)
			col_add(t, f->name, k, f);
	}
	if (index_field) {
		size_t c;
		for (c = 0; c < t->nr_cols; c++)
			if (!strcmp(t->cols[c].name, index_field))
				break;
		if (c == t->nr_cols || t->cols[c].kind == SC_BLOB) {
			ana_sqltab_free(t);
			return ana_sqldb_errf(db, PP_EUNKNOWN_FIELD, "index=%s: table '%s' has no such "
					  "INTEGER or TEXT column", index_field, name);
		}
		t->cols[c].indexed = true;
		t->index_field = pp_xstrdup(index_field);
	}
	ana_sqltab_layout(t);
	tab_push(db, t);
	return (int)(db->nr_tabs - 1);
}

static char *vtab_name(const struct ana_sqldb *db, const struct sqltab *t)
{
	struct pp_buf b = PP_BUF_INIT;

	/* a file keeps its aux tables as real tables: their virtual sources live in temp */
	if (db->file && t->kind != ST_EVENT)
		pp_buf_addf(&b, "temp.\"pp_aux_%s\"", t->name);
	else
		pp_buf_addf(&b, "main.\"%s\"", t->name);
	return pp_buf_detach(&b);
}

static int create_vtab(struct ana_sqldb *db, size_t i)
{
	char *name = vtab_name(db, db->tabs[i]);
	char *sql = pp_xasprintf("CREATE VIRTUAL TABLE %s USING pp(%zu)", name, i);
	int rc = exec_sql(db, sql);

	free(name);
	free(sql);
	return rc;
}

/* A real table with the columns kept, and its prepared INSERT. */
static int create_table(struct ana_sqldb *db, struct sqltab *t, bool with_insert)
{
	char *schema = ana_sqltab_schema(t, true);
	struct pp_buf ins = PP_BUF_INIT;
	int rc = exec_sql(db, schema);

	free(schema);
	if (rc || !with_insert)
		return rc;
	pp_buf_addf(&ins, "INSERT INTO \"%s\" VALUES (", t->name);
	for (size_t u = 0; u < t->nr_ucols; u++)
		pp_buf_adds(&ins, u ? ",?" : "?");
	if (!t->nr_ucols)
		pp_buf_adds(&ins, "NULL");
	pp_buf_addch(&ins, ')');
	if (sqlite3_prepare_v3(db->db, ins.data, -1, SQLITE_PREPARE_PERSISTENT, &t->ins, NULL) !=
	    SQLITE_OK)
		rc = ana_sqldb_errf(db, PP_ESYNTAX, "%s: %s", ins.data, sqlite3_errmsg(db->db));
	pp_buf_release(&ins);
	return rc;
}

/* The first character of @p that is not blank or inside a leading -- or C comment. */
static const char *skip_space_comments(const char *p, const char *e)
{
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		if (e - p >= 2 && p[0] == '-' && p[1] == '-') {
			while (p < e && *p != '\n')
				p++;
		} else if (e - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			p = end && end + 2 <= e ? end + 2 : e;
		} else {
			return p;
		}
	}
}

/* Compile every statement of @sql; with @keep, remember their texts. */
static int compile_all(struct ana_sqldb *db, const char *sql, bool keep)
{
	const char *p = sql;

	while (p && *p) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sqlite3_prepare_v2(db->db, p, -1, &st, &tail);
		if (rc != SQLITE_OK) {
			const char *end;
			while (*(p = skip_space_comments(p, p + strlen(p))) == ';')
				p++;
			end = strchr(p, ';');
			if (!end)
				end = p + strlen(p);
			return ana_sqldb_errf(db, PP_ESYNTAX, "%s\n  in query: %.*s", sqlite3_errmsg(db->db),
					  (int)(end > p ? end - p : (long)strlen(p)), p);
		}
		if (st && keep) {
			const char *e = tail ? tail : p + strlen(p);
			const char *s = skip_space_comments(p, e);
			while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' ||
					 e[-1] == ';' || e[-1] == '\r'))
				e--;
			db->queries = pp_xrealloc(db->queries, (db->nr_queries + 1) * sizeof(char *));
			db->queries[db->nr_queries++] = pp_xstrndup(s, (size_t)(e - s));
		}
		sqlite3_finalize(st);
		p = tail;
	}
	return 0;
}

static const char metadata_schema[] =
	"CREATE TABLE event_metadata(table_name TEXT PRIMARY KEY, event_system TEXT, "
	"event_name TEXT, event_id INTEGER, filter_expression TEXT, has_stack INTEGER, "
	"max_stack INTEGER, field_count INTEGER, created_time INTEGER, sample_count INTEGER, "
	"first_sample_time INTEGER, last_sample_time INTEGER, function_list TEXT)";

/*
 * AUTO, from tests/bench/sql-python.sh on 10M sched_switch events (CPU s,
 * column store vs tables): count 0.93/7.97, GROUP BY text 2.49/16.79, GROUP BY
 * int 3.65/18.13, time range 0.95/1.31, constant '=' 0.97/2.02, ORDER BY two
 * columns LIMIT 3.84/39.17, join on a DISTINCT subquery 11.0/11.7, SELECT * of
 * a 10% time slice 1.96/2.20.  The column store is never slower, so it is the
 * choice for every shape; TABLE stays for --verify and --mode table.
 */
static enum ana_sql_mode choose_mode(const struct ana_sqldb *db)
{
	return ANA_SQL_VTAB;
}

enum ana_sql_mode ana_sqldb_mode(const struct ana_sqldb *db)
{
	return db->mode;
}

/* While learning: note the queries that read what only side-band records make. */
static int learn_auth(void *arg, int action, const char *a, const char *b, const char *dbname,
		      const char *trigger)
{
	static const char *const side_fns[] = { "comm", "stack_str", "time_str" };
	struct ana_sqldb *db = arg;

	if (action == SQLITE_FUNCTION && b) {
		for (size_t i = 0; i < PP_ARRAY_SIZE(side_fns); i++)
			if (!sqlite3_stricmp(b, side_fns[i]))
				db->reads_sideband = true;
	} else if (action == SQLITE_READ && a && !sqlite3_stricmp(a, "event_metadata")) {
		db->reads_sideband = true;
	}
	return SQLITE_OK;
}

int ana_sqldb_plan(struct ana_sqldb *db, const char *sql)
{
	int rc;

	for (size_t i = 0; i < db->nr_tabs; i++)
		if (db->tabs[i]->kind == ST_EVENT)
			ana_sqlfunc_add_symbols(db, db->tabs[i]);
	rc = exec_sql(db, metadata_schema);
	if (rc)
		return rc;
	/* 1. virtual tables; learn what the queries read */
	for (size_t i = 0; i < db->nr_tabs; i++) {
		struct sqltab *t = db->tabs[i];
		if (db->all_rows) {
			t->referenced = t->keep_all = true;
			for (size_t c = 0; c < t->nr_cols; c++)
				t->cols[c].used = true;
		}
		if (!db->file || t->kind != ST_EVENT) {
			rc = create_vtab(db, i);
			if (rc)
				return rc;
		}
	}
	if (!db->all_rows && sql) {
		db->learning = true;
		sqlite3_set_authorizer(db->db, learn_auth, db);
		rc = compile_all(db, sql, true);
		sqlite3_set_authorizer(db->db, NULL, NULL);
		db->learning = false;
		if (rc)
			return rc;
	}
	/* 2. what is kept */
	for (size_t i = 0; i < db->nr_tabs; i++) {
		struct sqltab *t = db->tabs[i];
		if (t->kind != ST_EVENT)
			t->keep_all = true;
		else if (t->keep_all || !t->nr_alts)
			t->keep_all = true;
		ana_sqltab_layout(t);
	}
	db->track_seen = db->all_rows || db->aux[ST_TASKS]->referenced;
	if (db->mode == ANA_SQL_AUTO)
		db->mode = choose_mode(db);
	/* 3. TABLE mode: real tables in place of the virtual event tables */
	for (size_t i = 0; i < db->nr_tabs && db->mode == ANA_SQL_TABLE; i++) {
		struct sqltab *t = db->tabs[i];
		if (t->kind == ST_EVENT) {
			if (!db->file) {
				char *drop = pp_xasprintf("DROP TABLE main.\"%s\"", t->name);
				rc = exec_sql(db, drop);
				free(drop);
				if (rc)
					return rc;
			}
			rc = create_table(db, t, true);
		} else if (db->file) {
			rc = create_table(db, t, false);
		}
		if (rc)
			return rc;
	}
	if (db->all_rows && sql) {
		rc = compile_all(db, sql, true);	/* validate against the final schema */
		if (rc)
			return rc;
	}
	return 0;
}

/* The _time range the rows of @t can have, from its pushed-down terms. */
static void time_bounds(const struct sqltab *t, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t a = 0; a < t->nr_alts; a++) {
		uint64_t alo = 0, ahi = UINT64_MAX;
		for (size_t k = 0; k < t->alts[a].nr; k++) {
			const struct sqlterm *x = &t->alts[a].t[k];
			uint64_t v = (uint64_t)x->i;
			if (x->col != t->time_col || x->is_text)
				continue;
			if (x->i < 0) {		/* no capture time is negative */
				if (x->op == SQLITE_INDEX_CONSTRAINT_EQ ||
				    x->op == SQLITE_INDEX_CONSTRAINT_LT || x->op == SQLITE_INDEX_CONSTRAINT_LE)
					ahi = 0, alo = 1;	/* empty */
				continue;
			}
			switch (x->op) {
			case SQLITE_INDEX_CONSTRAINT_EQ:
				alo = v > alo ? v : alo;
				ahi = v < ahi ? v : ahi;
				break;
			case SQLITE_INDEX_CONSTRAINT_GT:
				v = v == UINT64_MAX ? v : v + 1;
				/* fall through */
			case SQLITE_INDEX_CONSTRAINT_GE:
				alo = v > alo ? v : alo;
				break;
			case SQLITE_INDEX_CONSTRAINT_LT:
				v = v ? v - 1 : 0;
				/* fall through */
			case SQLITE_INDEX_CONSTRAINT_LE:
				ahi = v < ahi ? v : ahi;
				break;
			default:
				break;
			}
		}
		if (alo > ahi)
			continue;	/* this use keeps no row */
		*lo = alo < *lo ? alo : *lo;
		*hi = ahi > *hi ? ahi : *hi;
	}
}

bool ana_sqldb_narrow_replay(struct ana_sqldb *db, uint64_t *lo, uint64_t *hi)
{
	struct ana_session *s = db->s;
	bool any = false;

	*lo = UINT64_MAX;
	*hi = 0;
	if (db->all_rows || db->mode != ANA_SQL_VTAB || db->reads_sideband || !db->nr_queries ||
	    s->nr_azs != 1 || s->live)
		return false;
	for (int k = ST_STACKS; k <= ST_LOSSES; k++)
		if (db->aux[k]->referenced)
			return false;
	for (size_t i = 0; i < db->nr_tabs; i++) {
		const struct sqltab *t = db->tabs[i];
		uint64_t tlo, thi;
		if (t->kind != ST_EVENT || !t->referenced)
			continue;
		if (t->keep_all || t->time_col < 0)
			return false;
		for (size_t c = 0; c < t->nr_cols; c++)
			if (t->cols[c].kind == SC_STACK && t->cols[c].used)
				return false;	/* stack ids are numbered in replay order */
		time_bounds(t, &tlo, &thi);
		if (tlo > thi)
			continue;	/* the table keeps no row */
		*lo = tlo < *lo ? tlo : *lo;
		*hi = thi > *hi ? thi : *hi;
		any = true;
	}
	if (!any || (*lo == 0 && *hi == UINT64_MAX))
		return false;
	if (*lo > s->range_start_ns && ppf_reader_seek_time(s->r, *lo))
		return false;
	db->stop_after_ns = *hi;
	return true;
}

uint64_t ana_sqldb_segments_read(const struct ana_sqldb *db)
{
	return ppf_reader_stats(db->s->r)->nr_segments;
}

size_t ana_sqldb_nr_queries(const struct ana_sqldb *db)
{
	return db->nr_queries;
}

const char *ana_sqldb_query(const struct ana_sqldb *db, size_t i)
{
	return i < db->nr_queries ? db->queries[i] : NULL;
}

uint64_t ana_sqldb_rows(const struct ana_sqldb *db)
{
	return db->nr_inserts;
}

static void bind_row(struct ana_sqldb *db, struct sqltab *t, const struct pp_event *ev)
{
	sqlite3_stmt *st = t->ins;

	for (size_t u = 0; u < t->nr_ucols; u++) {
		const struct sqlcol *c = &t->cols[t->ucols[u]];
		const char *p = NULL;
		size_t len = 0;
		int64_t v = 0;
		int k = (int)u + 1;

		ana_sqltab_value(db, c, ev, &v, &p, &len);
		if (c->kind == SC_TEXT)
			sqlite3_bind_text(st, k, p, (int)len, SQLITE_STATIC);
		else if (c->kind == SC_BLOB)
			sqlite3_bind_blob(st, k, p, (int)len, SQLITE_STATIC);
		else if (c->kind == SC_STACK && !v)
			sqlite3_bind_null(st, k);
		else
			sqlite3_bind_int64(st, k, v);
	}
}

void ana_sqldb_insert(struct ana_sqldb *db, int table, const struct pp_event *ev)
{
	struct sqltab *t = db->tabs[table];

	if (db->stop_after_ns && ev->time_ns > db->stop_after_ns) {
		ana_session_stop(db->s);	/* ana_sqldb_narrow_replay(): nothing more to keep */
		return;
	}
	if (!t->nr_events++)
		t->first_ns = ev->time_ns;
	t->last_ns = ev->time_ns;
	if (db->track_seen)
		ana_sqlaux_note_seen(db, ev);
	if (!t->referenced || !ana_sqltab_keep(db, t, ev))
		return;
	db->nr_inserts++;
	db->dirty = true;
	if (db->mode == ANA_SQL_VTAB) {
		ana_sqltab_store(db, t, ev);
		return;
	}
	if (!db->in_txn && !exec_sql(db, "BEGIN"))
		db->in_txn = true;
	bind_row(db, t, ev);
	if (sqlite3_step(t->ins) != SQLITE_DONE && !db->errmsg[0])
		ana_sqldb_errf(db, -EIO, "insert into %s: %s", t->name, sqlite3_errmsg(db->db));
	sqlite3_reset(t->ins);
}

void ana_sqldb_lost(struct ana_sqldb *db, const struct pp_lost_ev *l)
{
	ana_sqlaux_lost(db, l);
}

void ana_sqldb_mmap(struct ana_sqldb *db, const struct pp_mmap_ev *m)
{
	ana_sqlaux_mmap(db, m);
}

static int build_indexes(struct ana_sqldb *db)
{
	for (size_t i = 0; i < db->nr_tabs; i++) {
		const struct sqltab *t = db->tabs[i];
		if (t->kind != ST_EVENT || !t->index_field || db->mode != ANA_SQL_TABLE)
			continue;
		bool have = false;
		for (size_t c = 0; c < t->nr_cols; c++)
			have |= t->cols[c].indexed && t->cols[c].used;
		if (!have)
			continue;
		char *sql = pp_xasprintf("CREATE INDEX IF NOT EXISTS \"pp_idx_%s_%s\" ON \"%s\"(\"%s\")",
					 t->name, t->index_field, t->name, t->index_field);
		int rc = exec_sql(db, sql);
		free(sql);
		if (rc)
			return rc;
	}
	return 0;
}

/* Before a query round: rows committed, aux tables and metadata current. */
static int db_sync(struct ana_sqldb *db)
{
	int rc;

	if (db->in_txn) {
		db->in_txn = false;
		rc = exec_sql(db, "COMMIT");
		if (rc)
			return rc;
	}
	if (!db->dirty)
		return 0;
	db->dirty = false;
	ana_sqlaux_refresh(db);
	rc = ana_sqlaux_write_metadata(db);
	return rc ? rc : build_indexes(db);
}

int ana_sqldb_exec(struct ana_sqldb *db, size_t i, ana_sql_row_fn fn, void *arg)
{
	const char *names[256];
	struct ana_sql_val vals[256];
	sqlite3_stmt *st = NULL;
	int rc, n;

	if (i >= db->nr_queries)
		return -EINVAL;
	rc = db_sync(db);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db->db, db->queries[i], -1, &st, NULL) != SQLITE_OK)
		return ana_sqldb_errf(db, PP_ESYNTAX, "%s\n  in query: %s", sqlite3_errmsg(db->db),
				  db->queries[i]);
	n = sqlite3_column_count(st);
	if (n > (int)PP_ARRAY_SIZE(names))
		n = (int)PP_ARRAY_SIZE(names);
	for (int c = 0; c < n; c++)
		names[c] = sqlite3_column_name(st, c);
	int stop = fn(arg, (size_t)n, names, NULL);
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < n; c++) {
			struct ana_sql_val *v = &vals[c];
			memset(v, 0, sizeof(*v));
			switch (sqlite3_column_type(st, c)) {
			case SQLITE_INTEGER:
				v->type = ANA_SQL_INT;
				v->i = sqlite3_column_int64(st, c);
				break;
			case SQLITE_FLOAT:
				v->type = ANA_SQL_FLOAT;
				v->f = sqlite3_column_double(st, c);
				break;
			case SQLITE_TEXT:
				v->type = ANA_SQL_TEXT;
				v->s = (const char *)sqlite3_column_text(st, c);
				v->len = (size_t)sqlite3_column_bytes(st, c);
				break;
			case SQLITE_BLOB:
				v->type = ANA_SQL_BLOB;
				v->s = sqlite3_column_blob(st, c);
				v->len = (size_t)sqlite3_column_bytes(st, c);
				break;
			default:
				v->type = ANA_SQL_NULL;
				break;
			}
		}
		stop = fn(arg, (size_t)n, names, vals);
	}
	if (stop)
		rc = stop;
	else if (rc == SQLITE_DONE)
		rc = 0;
	else
		rc = ana_sqldb_errf(db, PP_ESYNTAX, "%s\n  in query: %s", sqlite3_errmsg(db->db),
				db->queries[i]);
	sqlite3_finalize(st);
	return rc;
}

int ana_sqldb_clear(struct ana_sqldb *db)
{
	int rc = 0;

	for (size_t i = 0; i < db->nr_tabs; i++) {
		struct sqltab *t = db->tabs[i];
		if (t->kind == ST_EVENT) {
			t->nr_events = 0;
			if (db->mode == ANA_SQL_TABLE) {
				char *sql = pp_xasprintf("DELETE FROM \"%s\"", t->name);
				rc = rc ? rc : exec_sql(db, sql);
				free(sql);
			}
		}
		if (t->kind == ST_EVENT || t->kind == ST_LOSSES)
			ana_sqltab_clear(t);
	}
	db->dirty = true;
	return rc;
}

int ana_sqldb_flush(struct ana_sqldb *db)
{
	int rc = db_sync(db);

	if (rc || !db->file)
		return rc;
	/* the file's aux tables: copies of the virtual sources in temp */
	rc = exec_sql(db, "BEGIN");
	for (int k = ST_STACKS; k <= ST_LOSSES && !rc; k++) {
		struct sqltab *t = db->aux[k];
		char *sql = pp_xasprintf("DELETE FROM main.\"%s\"; INSERT INTO main.\"%s\" "
					 "SELECT * FROM temp.\"pp_aux_%s\"", t->name, t->name, t->name);
		rc = exec_sql(db, sql);
		free(sql);
	}
	return rc ? rc : exec_sql(db, "COMMIT");
}
