/* SPDX-License-Identifier: MIT */
/*
 * sqlaux.c - the tables a capture has beyond perf-prof's event tables.
 *
 *   stacks(stack_id, depth, addr, symbol, offset, dso, kernel)  one row a frame,
 *          innermost first; stack_id is the _stack column of the event tables
 *   tasks(pid, tid, ppid, comm, first_seen, last_seen, events, exit_time)
 *   mmaps(time, pid, tid, addr, len, pgoff, path, build_id)
 *   losses(time, cpu, count)
 *   event_metadata(table_name, ...)  perf-prof's, one row per event table
 *
 * They use the column store of the event tables; stacks are symbolized when
 * a query round needs them, once per stack, with the maps of the time the
 * stack was first seen.  event_metadata is an ordinary table rewritten
 * before each round.  Unknown integers are stored as INT64_MIN (NULL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sql/internal.h"
#include "common/log.h"
#include "common/selector.h"

#define AUX_NULL INT64_MIN

struct auxdef {
	const char *name;
	const char *cols[9];	/* "name:T" T = I(nteger) or T(ext) */
	int sorted;		/* the column rows are sorted by, or -1 */
};

static const struct auxdef defs[] = {
	[ST_STACKS] = { "stacks", { "stack_id:I", "depth:I", "addr:I", "symbol:T", "offset:I",
				    "dso:T", "kernel:I" }, 0 },
	[ST_TASKS] = { "tasks", { "pid:I", "tid:I", "ppid:I", "comm:T", "first_seen:I",
				  "last_seen:I", "events:I", "exit_time:I" }, -1 },
	[ST_MMAPS] = { "mmaps", { "time:I", "pid:I", "tid:I", "addr:I", "len:I", "pgoff:I",
				  "path:T", "build_id:T" }, 0 },
	[ST_LOSSES] = { "losses", { "time:I", "cpu:I", "count:I" }, 0 },
};

struct sqltab *ana_sqlaux_new(enum sqltab_kind kind)
{
	const struct auxdef *d = &defs[kind];
	struct sqltab *t = pp_xcalloc(1, sizeof(*t));

	t->kind = kind;
	t->name = pp_xstrdup(d->name);
	t->time_col = d->sorted;
	for (size_t i = 0; i < PP_ARRAY_SIZE(d->cols) && d->cols[i]; i++) {
		const char *colon = strchr(d->cols[i], ':');
		t->cols = pp_xrealloc(t->cols, (t->nr_cols + 1) * sizeof(*t->cols));
		memset(&t->cols[t->nr_cols], 0, sizeof(t->cols[0]));
		t->cols[t->nr_cols].name = pp_xstrndup(d->cols[i], (size_t)(colon - d->cols[i]));
		t->cols[t->nr_cols].kind = colon[1] == 'T' ? SC_TEXT : SC_INT;
		t->cols[t->nr_cols].used = true;
		t->nr_cols++;
	}
	t->keep_all = true;
	ana_sqltab_layout(t);
	return t;
}

static void put_row(struct ana_sqldb *db, struct sqltab *t, const int64_t *ints,
		    const char *const *texts)
{
	for (size_t i = 0; i < t->nr_cols; i++) {
		struct sqlcol *c = &t->cols[i];
		int64_t v = ints[i];
		if (c->kind == SC_TEXT)
			v = ana_sqlstrs_intern(&db->strs, texts[i] ? texts[i] : "",
					   texts[i] ? strlen(texts[i]) : 0);
		ana_sqlcol_put(c, t->nr_rows, v);
	}
	t->nr_rows++;
	db->dirty = true;
}

void ana_sqlaux_note_seen(struct ana_sqldb *db, const struct pp_event *ev)
{
	void **slot = pp_u64map_slot(&db->seen, ev->tid);
	struct sqlseen *s = *slot;

	if (!s) {
		s = *slot = pp_xcalloc(1, sizeof(*s));
		s->first_ns = ev->time_ns;
	}
	s->last_ns = ev->time_ns;
	s->count++;
}

void ana_sqlaux_lost(struct ana_sqldb *db, const struct pp_lost_ev *l)
{
	int64_t v[3] = { (int64_t)l->time_ns, l->cpu, (int64_t)l->count };
	const char *tx[3] = { NULL };

	put_row(db, db->aux[ST_LOSSES], v, tx);
}

void ana_sqlaux_mmap(struct ana_sqldb *db, const struct pp_mmap_ev *m)
{
	char bid[2 * 64 + 1];
	int64_t v[8] = { (int64_t)m->time_ns, m->pid, m->tid, (int64_t)m->addr, (int64_t)m->len,
			 (int64_t)m->pgoff, 0, 0 };
	const char *tx[8] = { NULL, NULL, NULL, NULL, NULL, NULL, m->path, bid };
	uint32_t n = m->build_id_sz < 64 ? m->build_id_sz : 64;

	for (uint32_t i = 0; i < n; i++)
		sprintf(bid + 2 * i, "%02x", m->build_id[i]);
	bid[2 * n] = '\0';
	put_row(db, db->aux[ST_MMAPS], v, tx);
}

static void refresh_tasks(struct ana_sqldb *db)
{
	struct sqltab *t = db->aux[ST_TASKS];
	struct ana_task_info ti;
	size_t it = 0;

	ana_sqltab_clear(t);
	while (ana_task_next(db->s, &it, &ti)) {
		struct sqlseen *s = pp_u64map_get(&db->seen, ti.tid);
		int64_t v[8] = { ti.pid, ti.tid, ti.ppid ? (int64_t)ti.ppid : AUX_NULL, 0,
				 s ? (int64_t)s->first_ns : AUX_NULL,
				 s ? (int64_t)s->last_ns : AUX_NULL, s ? (int64_t)s->count : 0,
				 ti.exit_ns ? (int64_t)ti.exit_ns : AUX_NULL };
		const char *tx[8] = { NULL, NULL, NULL, ti.comm };
		put_row(db, t, v, tx);
	}
}

static void refresh_stacks(struct ana_sqldb *db)
{
	struct sqltab *t = db->aux[ST_STACKS];

	for (; db->stacks_done < db->stacks.nr; db->stacks_done++) {
		const struct sqlstack *st = &db->stacks.v[db->stacks_done];
		struct ana_stack_iter it;
		uint64_t addr;
		bool kernel;
		int64_t depth = 0;

		ana_stack_iter_init(&it, db->stacks.frames + st->off, st->nr);
		while (ana_stack_iter_next(&it, &addr, &kernel)) {
			struct ana_frame_sym f;
			bool ok = ana_frame_lookup(db->s, st->pid, st->time_ns, addr, kernel, &f);
			int64_t v[7] = { db->stacks_done + 1, depth++, (int64_t)addr, 0,
					 ok ? (int64_t)f.offset : AUX_NULL, 0, kernel };
			const char *tx[7] = { NULL, NULL, NULL, ok ? f.symbol : NULL, NULL, f.dso };
			put_row(db, t, v, tx);
		}
	}
}

void ana_sqlaux_refresh(struct ana_sqldb *db)
{
	if (db->aux[ST_TASKS]->referenced)
		refresh_tasks(db);
	if (db->aux[ST_STACKS]->referenced)
		refresh_stacks(db);
}

static int max_stack_of(const struct ana_evtype *type)
{
	struct pp_selector *v = NULL;
	struct pp_parse_error err;
	size_t nr = 0;
	int ms = 0;

	if (!(type->desc_flags & PPF_EVF_STACK))
		return 0;
	ms = 127;	/* perf's default sample_max_stack */
	if (type->selector && !pp_selector_parse(type->selector, &v, &nr, &err) && nr &&
	    v[0].max_stack)
		ms = (int)v[0].max_stack;
	pp_selector_free_array(v, nr);
	return ms;
}

int ana_sqlaux_write_metadata(struct ana_sqldb *db)
{
	const struct ppf_file_info *fi = ppf_reader_info(db->s->r);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_exec(db->db, "DELETE FROM event_metadata", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db->db, "INSERT INTO event_metadata VALUES "
					"(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return ana_sqldb_errf(db, PP_ESYNTAX, "event_metadata: %s", sqlite3_errmsg(db->db));
	for (size_t i = 0; i < db->nr_tabs; i++) {
		const struct sqltab *t = db->tabs[i];
		const struct ana_evtype *ty = t->type;
		size_t nfields = 0;
		char *fl;

		if (t->kind != ST_EVENT)
			continue;
		for (size_t k = 0; k < t->nr_cols; k++)
			nfields += t->cols[k].f != NULL;
		fl = ana_sqlfunc_list(t);
		sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, ty->sys ? ty->sys : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, ty->event, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, ty->id);
		sqlite3_bind_text(st, 5, ty->filter ? ty->filter : "", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, !!(ty->desc_flags & PPF_EVF_STACK));
		sqlite3_bind_int(st, 7, max_stack_of(ty));
		sqlite3_bind_int64(st, 8, (sqlite3_int64)nfields);
		sqlite3_bind_int64(st, 9, fi ? (sqlite3_int64)(fi->created_ns / 1000000000ull) : 0);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)t->nr_events);
		if (t->nr_events) {
			sqlite3_bind_int64(st, 11, (sqlite3_int64)t->first_ns);
			sqlite3_bind_int64(st, 12, (sqlite3_int64)t->last_ns);
		} else {
			sqlite3_bind_null(st, 11);
			sqlite3_bind_null(st, 12);
		}
		sqlite3_bind_text(st, 13, fl, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		free(fl);
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			return ana_sqldb_errf(db, PP_ESYNTAX, "event_metadata: %s", sqlite3_errmsg(db->db));
		}
	}
	sqlite3_finalize(st);
	return 0;
}
