/* SPDX-License-Identifier: MIT */
/*
 * export/internal.h - what the format writers (analyze/export/) share.
 *
 * Each writer is one const struct ana_export_ops; analyze/export/export.c holds the
 * list, opens and closes exports, and provides the helpers every writer needs:
 * decoding an event's fields into typed values, fast number formatting, JSON
 * strings that are always valid UTF-8, and the --value of pprof and folded.
 * Not for analyzers: they use analyze/export/export.h.
 */
#ifndef PP_ANALYZE_EXPORT_INTERNAL_H
#define PP_ANALYZE_EXPORT_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/export/export.h"
#include "common/buf.h"

struct pp_expr;

struct ana_export_ops {
	const char *name;
	const char *summary;
	bool binary;			/* bytes, not text: refuse to write to a terminal */
	bool profile;			/* aggregates stacks: cfg.only_stacked applies */
	size_t priv_size;		/* zeroed x->priv */
	int (*begin)(struct ana_export *x);
	void (*event)(struct ana_export *x, const struct pp_event *ev);
	void (*task_exit)(struct ana_export *x, uint32_t pid, uint32_t tid, uint64_t time_ns);
	int (*end)(struct ana_export *x);
	void (*release)(struct ana_export *x);
};

struct ana_export {
	const struct ana_export_ops *ops;
	struct pp_az *az;
	struct ana_session *s;
	FILE *fp;
	struct ana_export_cfg cfg;
	void *priv;
	uint64_t nr_events;
	bool skip_unstacked;		/* cfg.only_stacked: drop types without stacks */
	char errmsg[256];
};

extern const struct ana_export_ops ana_export_chrome;
extern const struct ana_export_ops ana_export_perfetto;
extern const struct ana_export_ops ana_export_pprof;
extern const struct ana_export_ops ana_export_jsonl;
extern const struct ana_export_ops ana_export_csv;
extern const struct ana_export_ops ana_export_folded;

/* --- Fields ---------------------------------------------------------------- */

enum ana_xf_kind {
	ANA_XF_INT,		/* signed number: @i */
	ANA_XF_UINT,		/* unsigned number: @u */
	ANA_XF_PTR,		/* a kernel or user pointer: @u */
	ANA_XF_STR,		/* text: @str (NUL-terminated, at most 255 bytes) */
	ANA_XF_ARRAY,		/* numbers: @nr elements of @elem_size bytes at @data */
};

/* One field of an event, decoded.  Borrowed for the callback only. */
struct ana_xfield {
	const char *name;
	enum ana_xf_kind kind;
	int64_t i;
	uint64_t u;
	const char *str;
	const uint8_t *data;
	uint32_t nr, elem_size;
	bool is_signed;
};

typedef void (*ana_xfield_fn)(void *arg, const struct ana_xfield *f);

/**
 * ana_export_fields() - call @fn with each field of @ev: a tracepoint's own fields
 * (not the common_* ones) in format order, else period, ip and addr.
 */
void ana_export_fields(const struct pp_event *ev, ana_xfield_fn fn, void *arg);

/**
 * ana_export_field_names() - call @fn with the name of each field ana_export_fields()
 * gives for events of type @t (the column set of CSV).
 */
void ana_export_field_names(const struct ana_evtype *t, void (*fn)(void *arg, const char *name),
			    void *arg);

/**
 * ana_export_chars() - a char[N] field of @ev (not __data_loc) into @buf, NUL-terminated
 * and cut at @sz - 1 bytes; "" when @f is NULL or out of the record.
 * Return: @buf.
 */
char *ana_export_chars(const struct pp_event *ev, const struct pp_field *f, char *buf, size_t sz);

/** ana_xfield_elem() - element @i of an ANA_XF_ARRAY field, sign-extended when signed. */
uint64_t ana_xfield_elem(const struct ana_xfield *f, uint32_t i);

/** ana_xfield_json() - @f's value as JSON: a number, a string or an array of numbers. */
void ana_xfield_json(struct pp_buf *b, const struct ana_xfield *f);

/* --- Formatting ------------------------------------------------------------ */

/*
 * Appending without a function call per piece: the writers put hundreds of small pieces
 * per event, so the common case (room in the buffer) is inlined.  Keeps pp_buf's NUL.
 */
static inline char *ana_xb_reserve(struct pp_buf *b, size_t n)
{
	if (b->alloc - b->len <= n)
		pp_buf_grow(b, n);
	return b->data + b->len;
}

static inline void ana_xb_put(struct pp_buf *b, const void *p, size_t n)
{
	char *d = ana_xb_reserve(b, n);

	memcpy(d, p, n);
	b->len += n;
	d[n] = '\0';
}

static inline void ana_xb_ch(struct pp_buf *b, char c)
{
	char *d = ana_xb_reserve(b, 1);

	d[0] = c;
	d[1] = '\0';
	b->len++;
}

/* ANA_XB_LIT() - append a string literal (its length known at compile time). */
#define ANA_XB_LIT(b, lit) ana_xb_put((b), (lit), sizeof(lit) - 1)

/** ana_buf_add_u64() / ana_buf_add_i64() - decimal, without printf. */
void ana_buf_add_u64(struct pp_buf *b, uint64_t v);
void ana_buf_add_i64(struct pp_buf *b, int64_t v);

/** ana_buf_add_frac() - @v / 10^@digits with exactly @digits decimals: "1734.140081123". */
void ana_buf_add_frac(struct pp_buf *b, uint64_t v, unsigned digits);

/**
 * ana_buf_add_json_str() - @s (@len bytes) as a JSON string literal, with quotes
 *
 * Valid UTF-8 passes through; control characters and bytes that are not UTF-8
 * become \u00XX escapes, so the output always parses.
 */
void ana_buf_add_json_str(struct pp_buf *b, const char *s, size_t len);

/**
 * ana_buf_add_utf8() - @s (@len bytes) as valid UTF-8: valid sequences pass through, a
 * byte that is not UTF-8 becomes the character U+00XX (what JSON's \u00XX says), so
 * CSV readers (DuckDB, pandas) and proto3 string fields (pprof) accept it.
 */
void ana_buf_add_utf8(struct pp_buf *b, const char *s, size_t len);
/** ana_utf8_valid() - whether @s (@len bytes) is valid UTF-8. */
bool ana_utf8_valid(const char *s, size_t len);

/** ana_export_write() - write @b to the output and empty it; false on a write error. */
bool ana_export_write(struct ana_export *x, struct pp_buf *b);

/* --- Values of pprof and folded (--value) --------------------------------- */

enum ana_value_kind { ANA_VAL_COUNT, ANA_VAL_PERIOD, ANA_VAL_EXPR };

struct ana_export_value {
	enum ana_value_kind kind;
	const char *name;		/* "count", "period" or the expression text */
	struct pp_expr **exprs;		/* ANA_VAL_EXPR: one per selector match (index) */
	size_t nr_exprs;
};

/**
 * ana_export_value_init() - parse x->cfg.value (NULL: @dflt) and compile expressions
 * for every selector match of the analyzer
 * Return: 0 or a negative code (the compiler printed why).
 */
int ana_export_value_init(struct ana_export *x, struct ana_export_value *v,
			  enum ana_value_kind dflt);

/** ana_export_value_get() - the value of @ev (1 for count). */
uint64_t ana_export_value_get(struct ana_export *x, const struct ana_export_value *v,
			      const struct pp_event *ev);

/** ana_export_value_release() - free the compiled expressions. */
void ana_export_value_release(struct ana_export_value *v);

/* --- Stacks ---------------------------------------------------------------- */

#define ANA_EXPORT_MAX_FRAMES 256

/** ana_export_is_clock() - whether @t is cpu-clock or task-clock (period in ns). */
bool ana_export_is_clock(const struct ana_evtype *t);

#endif
