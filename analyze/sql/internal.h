/* SPDX-License-Identifier: MIT */
/*
 * sql/internal.h - private parts of the SQL service (analyze/sql/).
 *
 * A struct ana_sqldb is one SQLite connection plus the tables it shows:
 * one per selected event (rows from the replay) and the auxiliary tables
 * (stacks, tasks, mmaps, losses).  In VTAB mode rows live in a column
 * store (struct sqltab) behind the "pp" virtual-table module; in TABLE mode
 * they are INSERTed into ordinary tables.  The column store keeps only the
 * columns the queries read, as fixed-width integers; TEXT and BLOB values
 * are interned and stored as ids.  Not here: the analyzer (analyzers/sql.c).
 */
#ifndef PP_ANALYZE_SQL_INTERNAL_H
#define PP_ANALYZE_SQL_INTERNAL_H

#include <sqlite3.h>

#include "analyze/internal.h"
#include "analyze/sql/sql.h"
#include "common/expr.h"

/* What a column holds and where it comes from. */
enum sqlcol_kind {
	SC_TIME, SC_CPU, SC_PID, SC_TID, SC_PERIOD, SC_IP, SC_ADDR, SC_STACK,	/* the sample */
	SC_INT,		/* a numeric field, or an integer column of an aux table */
	SC_TEXT,	/* a string field or TEXT column */
	SC_BLOB,	/* an array field */
};

struct sqlcol {
	char *name;
	enum sqlcol_kind kind;
	const struct pp_field *f;	/* fields of event tables */
	bool used;			/* read by some query (or every column is kept) */
	bool indexed;			/* index= named it: constant lookups use the index */
	uint8_t width;			/* stored bytes: 1 2 4 8; TEXT and BLOB: 4 (an id) */
	bool is_signed;
	uint8_t *data;			/* nr_rows values */
	size_t cap;			/* rows allocated */
};

/* Rows ordered by one to four columns (TEXT by string id or collated), built on first use. */
#define SQL_INDEX_MAX_COLS 4
struct sqlindex {
	int cols[SQL_INDEX_MAX_COLS];
	int nr;
	bool collated;			/* TEXT in collation order, not by id */
	uint32_t *perm;
	size_t nr_rows;			/* rows covered (stale when the table grew) */
};

/* One condition a stored row must meet: col OP value (pushed down from the queries). */
struct sqlterm {
	int col;
	int op;				/* SQLITE_INDEX_CONSTRAINT_* */
	bool is_text;
	int64_t i;
	char *s;
	size_t len;
};

/* A conjunction of terms; a table keeps the rows that meet any of its alternatives. */
struct sqlalt {
	struct sqlterm *t;
	size_t nr;
};

enum sqltab_kind { ST_EVENT, ST_STACKS, ST_TASKS, ST_MMAPS, ST_LOSSES };

struct sqltab {
	char *name;
	enum sqltab_kind kind;
	const struct ana_evtype *type;	/* ST_EVENT */
	char *index_field;		/* index= */
	struct sqlcol *cols;
	size_t nr_cols;
	int *ucols;			/* the used columns, in order (ana_sqltab_layout()) */
	size_t nr_ucols;
	int time_col;			/* the column rows are sorted by (_time), or -1 */
	size_t nr_rows;
	bool referenced;		/* some query reads it (or every table is kept) */
	bool keep_all;			/* some query reads it without constant constraints */
	struct sqlalt *alts;
	size_t nr_alts;
	struct sqlindex *idx;
	size_t nr_idx;
	sqlite3_stmt *ins;		/* TABLE mode: the prepared INSERT */
	/* for event_metadata: every event delivered, stored or not */
	uint64_t nr_events, first_ns, last_ns;
};

/* Interned byte strings: TEXT and BLOB values are stored as ids. */
struct sqlstrs {
	char *pool;
	size_t len, cap;
	uint64_t *off;			/* id -> offset in pool */
	uint32_t *slen;			/* id -> length */
	uint32_t *hash;			/* id -> hash (low bits) */
	uint32_t nr, cap_ids;
	uint32_t *slots;		/* id + 1, 0 = free */
	size_t mask;
};

/* Interned call stacks: the stacks table and the _stack column. */
struct sqlstack {
	uint64_t off;			/* first frame in frames[] */
	uint32_t nr;
	uint32_t pid;			/* resolves user frames (0 for kernel-only stacks) */
	uint64_t time_ns;		/* first seen: the maps of that time resolve it */
	uint64_t hash;
};

struct sqlstacks {
	uint64_t *frames;
	size_t nr_frames, cap_frames;
	struct sqlstack *v;		/* id - 1 */
	uint32_t nr, cap;
	uint32_t *slots;
	size_t mask;
};

/* First and last sight of a thread in the delivered events (the tasks table). */
struct sqlseen {
	uint64_t first_ns, last_ns, count;
};

struct sqlsym {
	char *key;			/* "table.field" */
	uint64_t value;
	char *name;
};

struct ana_sqldb {
	struct ana_session *s;
	sqlite3 *db;
	enum ana_sql_mode mode;
	bool file;
	bool all_rows;
	bool learning;			/* ana_sqldb_plan() is preparing to learn */
	bool in_txn;
	bool dirty;			/* rows changed since the aux tables were refreshed */
	struct sqltab **tabs;		/* every table, aux tables first */
	size_t nr_tabs;
	struct sqltab *aux[5];		/* by enum sqltab_kind (aux[ST_EVENT] unused) */
	uint32_t stacks_done;		/* stacks already in the stacks table */
	struct sqlstrs strs;
	struct sqlstacks stacks;
	struct pp_u64map seen;		/* tid -> struct sqlseen * */
	bool track_seen;
	char **queries;
	size_t nr_queries;
	struct sqlsym *syms;
	size_t nr_syms;
	char *single_sym;		/* the only "table.field" with symbols, or NULL */
	uint64_t nr_inserts;
	bool reads_sideband;		/* a query reads what side-band records make (comm(), tasks ...) */
	uint64_t stop_after_ns;		/* ana_sqldb_narrow_replay(): no row is kept after this */
	char errmsg[1024];
};

/* sqlstore.c: column store, interning, indexes, pushed-down filters */
uint32_t ana_sqlstrs_intern(struct sqlstrs *st, const void *p, size_t len);
/* The id of @p, or UINT32_MAX when it was never interned. */
uint32_t ana_sqlstrs_find(const struct sqlstrs *st, const void *p, size_t len);
static inline const char *sqlstrs_get(const struct sqlstrs *st, uint32_t id, size_t *len)
{
	*len = st->slen[id];
	return st->pool + st->off[id];
}
void ana_sqlstrs_release(struct sqlstrs *st);
uint32_t ana_sqlstacks_intern(struct sqlstacks *st, const struct pp_event *ev);
void ana_sqlstacks_release(struct sqlstacks *st);

void ana_sqltab_free(struct sqltab *t);
void ana_sqltab_clear(struct sqltab *t);
void ana_sqltab_layout(struct sqltab *t);
void ana_sqlcol_put(struct sqlcol *c, size_t row, int64_t v);
static inline int64_t sqlcol_get(const struct sqlcol *c, size_t row)
{
	const uint8_t *p = c->data + row * c->width;

	switch (c->width) {
	case 1: return c->is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*p;
	case 2: return c->is_signed ? (int64_t)*(const int16_t *)p : (int64_t)*(const uint16_t *)p;
	case 4: return c->is_signed ? (int64_t)*(const int32_t *)p : (int64_t)*(const uint32_t *)p;
	default: return *(const int64_t *)p;
	}
}
/* The value of column @c of @ev: an integer, or a (pointer, length) for TEXT/BLOB. */
void ana_sqltab_value(struct ana_sqldb *db, const struct sqlcol *c, const struct pp_event *ev,
		  int64_t *i, const char **p, size_t *len);
bool ana_sqltab_keep(struct ana_sqldb *db, const struct sqltab *t, const struct pp_event *ev);
void ana_sqltab_store(struct ana_sqldb *db, struct sqltab *t, const struct pp_event *ev);
void ana_sqltab_add_alt(struct sqltab *t, const struct sqlterm *terms, size_t nr);
/*
 * The rows of @t ordered by columns @cols (@nr of them); cached until rows change.
 * TEXT columns group by string id, or with @collate (the strings) sort in BINARY order.
 */
const uint32_t *ana_sqltab_index(struct sqltab *t, const int *cols, int nr,
				 const struct sqlstrs *collate);

/* sqlvtab.c: the "pp" virtual-table module */
int ana_sqlvtab_register(struct ana_sqldb *db);
/* CREATE TABLE text for @t ("CREATE TABLE x(...)" or "CREATE VIRTUAL TABLE ...") */
char *ana_sqltab_schema(const struct sqltab *t, bool only_used);
const char *ana_sqlcol_decl(const struct sqlcol *c);

/* sqlfunc.c: SQL functions (ksymbol, symbolic, comm, stack_str ...) */
int ana_sqlfunc_register(struct ana_sqldb *db);
void ana_sqlfunc_add_symbols(struct ana_sqldb *db, const struct sqltab *t);
void ana_sqlfunc_release(struct ana_sqldb *db);
char *ana_sqlfunc_list(const struct sqltab *t);

/* sqlaux.c: the auxiliary tables */
struct sqltab *ana_sqlaux_new(enum sqltab_kind kind);
void ana_sqlaux_refresh(struct ana_sqldb *db);
int ana_sqlaux_write_metadata(struct ana_sqldb *db);
void ana_sqlaux_note_seen(struct ana_sqldb *db, const struct pp_event *ev);
void ana_sqlaux_lost(struct ana_sqldb *db, const struct pp_lost_ev *l);
void ana_sqlaux_mmap(struct ana_sqldb *db, const struct pp_mmap_ev *m);

int ana_sqldb_errf(struct ana_sqldb *db, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
