/* SPDX-License-Identifier: MIT */
/*
 * sql/sql.h - the SQL engine: SQL over the events of a replay (SQLite inside).
 *
 * One struct ana_sqldb is a SQLite database showing one table per selected
 * event (columns _pid _tid _time _cpu _period [_ip _addr] [_stack], the
 * common_* fields but common_type, then every field: numbers INTEGER,
 * strings TEXT, other arrays BLOB), the auxiliary tables stacks, tasks,
 * mmaps, losses and event_metadata, and functions (ksymbol, syscall,
 * symbolic, comm, stack_str, time_str, ipv4_str ...).  The caller adds
 * tables, plans the queries (which learns what they read, so only those
 * columns, and only the rows their constant WHERE terms can match, are
 * kept), inserts events, and executes the queries as often as it likes.
 * Analyzers use this header through analyze/analyzer.h; they never see
 * sqlite3.h.  Not here: output layout (the sql analyzer does it).
 */
#ifndef PP_ANALYZE_SQL_H
#define PP_ANALYZE_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ana_session;
struct ana_evtype;
struct pp_event;
struct pp_lost_ev;
struct pp_mmap_ev;
struct ana_sqldb;

enum ana_sql_mode {
	ANA_SQL_AUTO,	/* chosen by ana_sqldb_plan() from what the queries read */
	ANA_SQL_VTAB,	/* rows in a column store behind a virtual table (memory only) */
	ANA_SQL_TABLE,	/* rows INSERTed into ordinary SQLite tables */
};

struct ana_sqldb_opts {
	const char *path;	/* a database file, created anew; NULL for memory */
	enum ana_sql_mode mode;	/* a file is always ANA_SQL_TABLE */
	bool all_rows;		/* keep every row and column, whatever the queries read */
};

/** A value of a result row.  Strings and blobs are borrowed for the row callback. */
struct ana_sql_val {
	enum { ANA_SQL_NULL, ANA_SQL_INT, ANA_SQL_FLOAT, ANA_SQL_TEXT, ANA_SQL_BLOB } type;
	int64_t i;
	double f;
	const char *s;		/* TEXT (NUL-terminated) and BLOB */
	size_t len;
};

/**
 * ana_sql_row_fn - receives a query's result
 * @vals: NULL for the header call (once, before the rows), then one row
 * Return: 0 to go on, non-zero to stop (returned by ana_sqldb_exec()).
 */
typedef int (*ana_sql_row_fn)(void *arg, size_t nr_cols, const char *const *names,
			      const struct ana_sql_val *vals);

/**
 * ana_sqldb_open() - a new database over session @s
 * Return: 0 or a negative code (message in ana_sqldb_errmsg(*out) when *out is set);
 * the caller frees *out with ana_sqldb_close().
 */
int ana_sqldb_open(struct ana_session *s, const struct ana_sqldb_opts *o, struct ana_sqldb **out);
/** ana_sqldb_close() - flush nothing, free everything (NULL is fine). */
void ana_sqldb_close(struct ana_sqldb *db);
/** ana_sqldb_errmsg() - the last error, naming the query or table. Borrowed. */
const char *ana_sqldb_errmsg(const struct ana_sqldb *db);

/**
 * ana_sqldb_add_table() - show events of type @t as table @name
 * @index_field: a column to index (the index= attribute), or NULL
 * Return: the table's number (>= 0), or PP_EUSAGE when the name is taken or reserved,
 * PP_EUNKNOWN_FIELD when @index_field is not a column.
 */
int ana_sqldb_add_table(struct ana_sqldb *db, const struct ana_evtype *t, const char *name,
			const char *index_field);

/**
 * ana_sqldb_plan() - create the schema and compile @sql ("SQL; SQL ...", or NULL)
 *
 * Learns which tables and columns the statements read and which constant
 * constraints every use of a table has; rows that cannot match are not kept.
 * Return: 0, or PP_ESYNTAX with SQLite's message and the statement in errmsg.
 */
int ana_sqldb_plan(struct ana_sqldb *db, const char *sql);

/** ana_sqldb_mode() - the storage mode (after ana_sqldb_plan(): never ANA_SQL_AUTO). */
enum ana_sql_mode ana_sqldb_mode(const struct ana_sqldb *db);

/** ana_sqldb_nr_queries() / ana_sqldb_query() - the statements of the plan, split. */
size_t ana_sqldb_nr_queries(const struct ana_sqldb *db);
const char *ana_sqldb_query(const struct ana_sqldb *db, size_t i);

/** ana_sqldb_insert() - add @ev to table @table (from ana_sqldb_add_table()). */
void ana_sqldb_insert(struct ana_sqldb *db, int table, const struct pp_event *ev);
/** ana_sqldb_lost() / ana_sqldb_mmap() - rows of the losses and mmaps tables. */
void ana_sqldb_lost(struct ana_sqldb *db, const struct pp_lost_ev *l);
void ana_sqldb_mmap(struct ana_sqldb *db, const struct pp_mmap_ev *m);

/**
 * ana_sqldb_exec() - run statement @i of the plan, calling @fn for the header and each row
 * Return: 0, @fn's non-zero value, or PP_ESYNTAX (errmsg names the statement).
 */
int ana_sqldb_exec(struct ana_sqldb *db, size_t i, ana_sql_row_fn fn, void *arg);

/** ana_sqldb_clear() - drop the rows of the event and losses tables (per-interval queries). */
int ana_sqldb_clear(struct ana_sqldb *db);

/**
 * ana_sqldb_flush() - make the database complete: commit, fill the auxiliary tables and
 * event_metadata, build the index= indexes (a file is then readable by the sqlite3 CLI).
 * Return: 0 or a negative code.
 */
int ana_sqldb_flush(struct ana_sqldb *db);

/**
 * ana_sqldb_narrow_replay() - replay only the time the queries can see
 * @db: a database whose plan keeps rows by constant terms (ana_sqldb_plan(), no -i)
 * @lo, @hi: receive the range of _time the kept rows can have
 *
 * When every use of every event table has a constant range on _time (and no
 * query reads what side-band records make: comm(), stack_str(), time_str(),
 * _stack, the stacks, tasks, mmaps, losses or event_metadata tables), the
 * capture's time index skips the events segments that end before @lo, and the
 * replay stops at the first event after @hi.  Only for a session whose only
 * analyzer is this one, replaying a file.
 * Return: true when the replay was narrowed.
 */
bool ana_sqldb_narrow_replay(struct ana_sqldb *db, uint64_t *lo, uint64_t *hi);
/** ana_sqldb_segments_read() - segments of the capture read so far (for -v). */
uint64_t ana_sqldb_segments_read(const struct ana_sqldb *db);

/** ana_sqldb_stats() - rows kept so far over all tables. */
uint64_t ana_sqldb_rows(const struct ana_sqldb *db);

#endif
