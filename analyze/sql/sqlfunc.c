/* SPDX-License-Identifier: MIT */
/*
 * sqlfunc.c - SQL functions answered from the capture.
 *
 * perf-prof registers functions for what print formats print specially:
 * symbolic() from __print_symbolic() tables, ksymbol() for %pS, syscall(),
 * ipv4_str() & co for %pI4/%pI6/%pIS, uuid_str()/guid_str() for %pU and
 * mac_str() for %pM.  Here they are always available, and the capture adds
 * comm(pid), stack_str(stack_id[, sep]) (folded, root first: flame-graph
 * input) and time_str(ns) (wall clock).  Names come from the capture's
 * tables, never from the local machine.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "analyze/sql/internal.h"
#include "common/buf.h"
#include "common/log.h"

static struct ana_sqldb *fdb(sqlite3_context *ctx)
{
	return sqlite3_user_data(ctx);
}

static void f_ksymbol(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *name;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	name = ana_ksym(fdb(ctx)->s, (uint64_t)sqlite3_value_int64(argv[0]), NULL);
	sqlite3_result_text(ctx, name ? name : "??", -1, SQLITE_TRANSIENT);
}

static void f_syscall(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *name;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	name = ana_syscall_name(fdb(ctx)->s, (uint64_t)sqlite3_value_int64(argv[0]));
	sqlite3_result_text(ctx, name ? name : "??", -1, SQLITE_TRANSIENT);
}

static void f_comm(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_text(ctx, ana_comm(fdb(ctx)->s, (uint32_t)sqlite3_value_int64(argv[0])), -1,
			    SQLITE_TRANSIENT);
}

static void f_time_str(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char buf[64];

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	ana_time_str(fdb(ctx)->s, (uint64_t)sqlite3_value_int64(argv[0]), buf, sizeof(buf));
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static void f_stack_str(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ana_sqldb *db = fdb(ctx);
	const char *sep = argc > 1 ? (const char *)sqlite3_value_text(argv[1]) : ";";
	const char *names[512];
	char store[512][160];
	struct ana_stack_iter it;
	struct pp_buf b = PP_BUF_INIT;
	const struct sqlstack *st;
	unsigned nr = 0;
	uint64_t addr;
	bool kernel;
	int64_t id;

	id = sqlite3_value_int64(argv[0]);
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL || id <= 0 || (uint64_t)id > db->stacks.nr) {
		sqlite3_result_null(ctx);
		return;
	}
	st = &db->stacks.v[id - 1];
	ana_stack_iter_init(&it, db->stacks.frames + st->off, st->nr);
	while (nr < PP_ARRAY_SIZE(names) && ana_stack_iter_next(&it, &addr, &kernel)) {
		struct ana_frame_sym f;
		if (ana_frame_lookup(db->s, st->pid, st->time_ns, addr, kernel, &f))
			snprintf(store[nr], sizeof(store[nr]), "%s", f.symbol);
		else
			ana_frame_unnamed(f.dso, f.dso_off, kernel, store[nr], sizeof(store[nr]));
		names[nr] = store[nr];
		nr++;
	}
	for (unsigned i = nr; i-- > 0;) {
		pp_buf_adds(&b, names[i]);
		if (i)
			pp_buf_adds(&b, sep ? sep : ";");
	}
	sqlite3_result_text(ctx, pp_buf_str(&b), (int)b.len, SQLITE_TRANSIENT);
	pp_buf_release(&b);
}

/* --- symbolic() ----------------------------------------------------------- */

struct sym_collect {
	struct ana_sqldb *db;
	const struct sqltab *t;
	char **fields;			/* the bare field names this table gave symbols */
	size_t nr_fields;
};

static void sym_add(struct ana_sqldb *db, const char *prefix, const char *field, uint64_t v,
		    const char *name)
{
	db->syms = pp_xrealloc(db->syms, (db->nr_syms + 1) * sizeof(*db->syms));
	db->syms[db->nr_syms++] = (struct sqlsym){ prefix ? pp_xasprintf("%s.%s", prefix, field)
							  : pp_xstrdup(field), v, pp_xstrdup(name) };
}

/*
 * symbolic('field', v), as perf-prof: the field of the first table that has it.  The
 * key "field" belongs to the table that first gave it symbols.
 */
static bool bare_key_ours(struct sym_collect *c, const char *field)
{
	for (size_t i = 0; i < c->nr_fields; i++)
		if (!strcmp(c->fields[i], field))
			return true;
	for (size_t i = 0; i < c->db->nr_syms; i++)
		if (!strcmp(c->db->syms[i].key, field))
			return false;	/* an earlier table's */
	c->fields = pp_xrealloc(c->fields, (c->nr_fields + 1) * sizeof(*c->fields));
	c->fields[c->nr_fields++] = pp_xstrdup(field);
	return true;
}

static void sym_cb(void *arg, const char *field, uint64_t value, const char *name)
{
	struct sym_collect *c = arg;

	sym_add(c->db, c->t->name, field, value, name);
	if (strcmp(c->t->name, c->t->type->event))
		sym_add(c->db, c->t->type->event, field, value, name);
	if (strcmp(c->t->type->name, c->t->type->event))
		sym_add(c->db, c->t->type->name, field, value, name);
	if (bare_key_ours(c, field))
		sym_add(c->db, NULL, field, value, name);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sqlsym *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : x->value < y->value ? -1 : x->value > y->value;
}

void ana_sqlfunc_add_symbols(struct ana_sqldb *db, const struct sqltab *t)
{
	struct sym_collect c = { db, t, NULL, 0 };
	int n = t->type ? ana_evtype_symbolic(t->type, sym_cb, &c) : 0;
	char *first = NULL;
	bool single = true;

	for (size_t i = 0; i < c.nr_fields; i++)
		free(c.fields[i]);
	free(c.fields);
	/* a __print_symbolic() whose values are no numbers (a hostile format) adds none */
	if (!n || !db->nr_syms)
		return;
	qsort(db->syms, db->nr_syms, sizeof(*db->syms), sym_cmp);
	/* symbolic(v) with one argument is allowed while one table.field has symbols */
	for (size_t i = 0; i < db->nr_syms; i++) {
		const char *k = db->syms[i].key;
		bool is_table = false;
		for (size_t k2 = 0; k2 < db->nr_tabs; k2++) {
			size_t nl = strlen(db->tabs[k2]->name);
			if (db->tabs[k2]->kind == ST_EVENT && !strncmp(k, db->tabs[k2]->name, nl) &&
			    k[nl] == '.')
				is_table = true;
		}
		if (!is_table)
			continue;
		if (!first)
			first = db->syms[i].key;
		else if (strcmp(first, k))
			single = false;
	}
	free(db->single_sym);
	db->single_sym = single && first ? pp_xstrdup(first) : NULL;
}

void ana_sqlfunc_release(struct ana_sqldb *db)
{
	for (size_t i = 0; i < db->nr_syms; i++) {
		free(db->syms[i].key);
		free(db->syms[i].name);
	}
	free(db->syms);
	free(db->single_sym);
	db->syms = NULL;
	db->nr_syms = 0;
	db->single_sym = NULL;
}

static const char *sym_find(const struct ana_sqldb *db, const char *key, uint64_t v, bool *known)
{
	size_t lo = 0, hi = db->nr_syms;

	*known = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct sqlsym *s = &db->syms[mid];
		int r = strcmp(s->key, key);
		if (!r)
			*known = true;
		if (!r && s->value == v)
			return s->name;
		if (r < 0 || (!r && s->value < v))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!*known && lo < db->nr_syms && !strcmp(db->syms[lo].key, key))
		*known = true;
	return NULL;
}

static void f_symbolic(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct ana_sqldb *db = fdb(ctx);
	const char *key, *name;
	sqlite3_value *val = argv[argc - 1];
	bool known;

	if (argc == 1) {
		if (!db->single_sym) {
			sqlite3_result_error(ctx, db->nr_syms ?
				"symbolic(value) is ambiguous here: use symbolic('event.field', value)" :
				"symbolic(): no selected event prints a field with __print_symbolic()", -1);
			return;
		}
		key = db->single_sym;
	} else {
		key = (const char *)sqlite3_value_text(argv[0]);
	}
	if (sqlite3_value_type(val) == SQLITE_NULL || !key) {
		sqlite3_result_null(ctx);
		return;
	}
	name = sym_find(db, key, (uint64_t)sqlite3_value_int64(val), &known);
	if (!known && argc == 2) {
		char *msg = sqlite3_mprintf("symbolic(): no __print_symbolic() table for '%s'", key);
		sqlite3_result_error(ctx, msg, -1);
		sqlite3_free(msg);
		return;
	}
	sqlite3_result_text(ctx, name ? name : "UNKNOWN", -1, SQLITE_STATIC);
}

/* --- address printers ----------------------------------------------------- */

/* The bytes of an argument: a BLOB as is, an INTEGER as its little-endian bytes. */
static int arg_bytes(sqlite3_value *v, uint8_t *buf, size_t want)
{
	if (sqlite3_value_type(v) == SQLITE_BLOB) {
		size_t n = (size_t)sqlite3_value_bytes(v);
		memset(buf, 0, want);
		memcpy(buf, sqlite3_value_blob(v), n < want ? n : want);
		return (int)n;
	}
	if (sqlite3_value_type(v) == SQLITE_INTEGER) {
		uint64_t x = (uint64_t)sqlite3_value_int64(v);
		memset(buf, 0, want);
		memcpy(buf, &x, want < 8 ? want : 8);
		return (int)(want < 8 ? want : 8);
	}
	return -1;
}

static void f_ipv4(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bool host = sqlite3_user_data(ctx) != NULL;
	uint8_t b[4];
	char out[32];

	if (arg_bytes(argv[0], b, 4) < 0) {
		sqlite3_result_null(ctx);
		return;
	}
	if (host && sqlite3_value_type(argv[0]) == SQLITE_INTEGER) {
		uint32_t x = (uint32_t)sqlite3_value_int64(argv[0]);
		snprintf(out, sizeof(out), "%u.%u.%u.%u", x >> 24, (x >> 16) & 0xff, (x >> 8) & 0xff,
			 x & 0xff);
	} else if (host) {
		snprintf(out, sizeof(out), "%u.%u.%u.%u", b[3], b[2], b[1], b[0]);
	} else {
		snprintf(out, sizeof(out), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	}
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

static void f_ipv6(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint8_t b[16];
	char out[INET6_ADDRSTRLEN];

	if (arg_bytes(argv[0], b, 16) < 0 || !inet_ntop(AF_INET6, b, out, sizeof(out))) {
		sqlite3_result_null(ctx);
		return;
	}
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* struct sockaddr_in / sockaddr_in6 bytes: "1.2.3.4:80", "[::1]:80" */
static void f_ipsa(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bool host = sqlite3_user_data(ctx) != NULL;
	uint8_t b[28];
	char addr[INET6_ADDRSTRLEN], out[80];
	uint16_t family, port;

	if (arg_bytes(argv[0], b, sizeof(b)) < 4) {
		sqlite3_result_null(ctx);
		return;
	}
	memcpy(&family, b, 2);
	memcpy(&port, b + 2, 2);
	if (!host)
		port = ntohs(port);
	if (family == AF_INET && inet_ntop(AF_INET, b + 4, addr, sizeof(addr)))
		snprintf(out, sizeof(out), "%s:%u", addr, port);
	else if (family == AF_INET6 && inet_ntop(AF_INET6, b + 8, addr, sizeof(addr)))
		snprintf(out, sizeof(out), "[%s]:%u", addr, port);
	else
		snprintf(out, sizeof(out), "family %u", family);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* uuid_str: bytes in order; guid_str: the first three groups little-endian. */
static void f_uuid(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bool guid = sqlite3_user_data(ctx) != NULL;
	static const int order_uuid[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	static const int order_guid[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	const int *ord = guid ? order_guid : order_uuid;
	uint8_t b[16];
	char out[40], *p = out;

	if (arg_bytes(argv[0], b, 16) < 0) {
		sqlite3_result_null(ctx);
		return;
	}
	for (int i = 0; i < 16; i++) {
		p += sprintf(p, "%02x", b[ord[i]]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*p++ = '-';
	}
	*p = '\0';
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

static void f_mac(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	uint8_t b[6];
	char out[24];

	if (arg_bytes(argv[0], b, 6) < 0) {
		sqlite3_result_null(ctx);
		return;
	}
	snprintf(out, sizeof(out), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* --- registration --------------------------------------------------------- */

static const struct {
	const char *name;
	int nargs;
	void (*fn)(sqlite3_context *, int, sqlite3_value **);
	bool flag;		/* user data non-NULL: the host/guid variant */
	bool db;		/* needs the database as user data */
} funcs[] = {
	{ "ksymbol", 1, f_ksymbol, false, true },
	{ "syscall", 1, f_syscall, false, true },
	{ "comm", 1, f_comm, false, true },
	{ "time_str", 1, f_time_str, false, true },
	{ "stack_str", 1, f_stack_str, false, true },
	{ "stack_str", 2, f_stack_str, false, true },
	{ "symbolic", 1, f_symbolic, false, true },
	{ "symbolic", 2, f_symbolic, false, true },
	{ "ipv4_str", 1, f_ipv4, false, false },
	{ "ipv4_hstr", 1, f_ipv4, true, false },
	{ "ipv6_str", 1, f_ipv6, false, false },
	{ "ipsa_str", 1, f_ipsa, false, false },
	{ "ipsa_hstr", 1, f_ipsa, true, false },
	{ "uuid_str", 1, f_uuid, false, false },
	{ "guid_str", 1, f_uuid, true, false },
	{ "mac_str", 1, f_mac, false, false },
};

int ana_sqlfunc_register(struct ana_sqldb *db)
{
	for (size_t i = 0; i < PP_ARRAY_SIZE(funcs); i++) {
		void *ud = funcs[i].db ? (void *)db : funcs[i].flag ? (void *)db : NULL;
		int flags = SQLITE_UTF8 | (funcs[i].db ? 0 : SQLITE_DETERMINISTIC);
		int rc = sqlite3_create_function(db->db, funcs[i].name, funcs[i].nargs, flags, ud,
						 funcs[i].fn, NULL, NULL);
		if (rc != SQLITE_OK)
			return ana_sqldb_errf(db, PP_ENOTSUP, "cannot register %s(): %s", funcs[i].name,
					  sqlite3_errmsg(db->db));
	}
	return 0;
}

/* What the print format prints specially: the function_list of event_metadata. */
char *ana_sqlfunc_list(const struct sqltab *t)
{
	static const struct { const char *spec, *fn; } pspec[] = {
		{ "pS", "ksymbol" }, { "ps", "ksymbol" }, { "pF", "ksymbol" }, { "pf", "ksymbol" },
		{ "pB", "ksymbol" }, { "pI4", "ipv4_str" }, { "pi4", "ipv4_str" },
		{ "pI6", "ipv6_str" }, { "pi6", "ipv6_str" }, { "pIS", "ipsa_str" },
		{ "piS", "ipsa_str" }, { "pU", "uuid_str" }, { "pM", "mac_str" }, { "pm", "mac_str" },
	};
	const char *fmt = ana_evtype_print_fmt(t->type);
	struct pp_buf b = PP_BUF_INIT;
	bool seen[PP_ARRAY_SIZE(pspec)] = { false };

	if (t->type && ana_evtype_symbolic(t->type, NULL, NULL))
		pp_buf_adds(&b, "symbolic");
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 1, '%')) {
		for (size_t i = 0; i < PP_ARRAY_SIZE(pspec); i++) {
			size_t n = strlen(pspec[i].spec);
			if (seen[i] || strncmp(p + 1, pspec[i].spec, n))
				continue;
			bool dup = false;
			for (size_t k = 0; k < PP_ARRAY_SIZE(pspec); k++)
				if (seen[k] && !strcmp(pspec[k].fn, pspec[i].fn))
					dup = true;
			seen[i] = true;
			if (!dup)
				pp_buf_addf(&b, "%s%s", b.len ? "," : "", pspec[i].fn);
		}
	}
	if (t->type && (ana_field_find(t->type, "__syscall_nr") ||
			(t->type->sys && !strcmp(t->type->sys, "raw_syscalls"))))
		pp_buf_addf(&b, "%ssyscall", b.len ? "," : "");
	return pp_buf_detach(&b);
}
