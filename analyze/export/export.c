/* SPDX-License-Identifier: MIT */
/*
 * export.c - the list of export formats, opening and closing an export, and the
 * helpers the format writers share (fields, numbers, JSON strings, --value).
 *
 * Writers never see the reader: they get the analyzer's events, already filtered
 * and in time order, and write to the analyzer's output file.  Fields are read
 * straight from the raw record (no print_fmt rendering), so a writer costs a few
 * hundred nanoseconds per event, not a libtraceevent pass.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "analyze/export/internal.h"
#include "analyze/internal.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/log.h"

static const struct ana_export_ops *const formats[] = {
	&ana_export_chrome, &ana_export_perfetto, &ana_export_pprof,
	&ana_export_jsonl, &ana_export_csv, &ana_export_folded,
};

const char *ana_export_format_at(size_t i, const char **summary, bool *binary)
{
	if (i >= PP_ARRAY_SIZE(formats))
		return NULL;
	if (summary)
		*summary = formats[i]->summary;
	if (binary)
		*binary = formats[i]->binary;
	return formats[i]->name;
}

int ana_export_new(struct pp_az *az, const struct ana_export_cfg *cfg, struct ana_export **out)
{
	struct ana_export *x = pp_xcalloc(1, sizeof(*x));
	int rc;

	*out = x;
	x->az = az;
	x->s = az->s;
	x->fp = az->out.fp;
	x->cfg = *cfg;
	for (size_t i = 0; i < PP_ARRAY_SIZE(formats); i++)
		if (cfg->format && !strcmp(cfg->format, formats[i]->name))
			x->ops = formats[i];
	if (!x->ops) {
		snprintf(x->errmsg, sizeof(x->errmsg), "unknown export format '%s'",
			 cfg->format ? cfg->format : "");
		return PP_EUSAGE;
	}
	/*
	 * Only stdout gets the net (a CSV or folded line on a terminal shows ESC as
	 * \x1b); a binary format, and every export to a file, is written exactly.
	 */
	if (x->ops->binary || ana_out_raw(&az->out) != stdout)
		x->fp = ana_out_raw(&az->out);
	if (x->ops->binary && isatty(fileno(x->fp))) {
		snprintf(x->errmsg, sizeof(x->errmsg),
			 "%s is a binary format: write it to a file with -o", x->ops->name);
		return PP_EUSAGE;
	}
	for (size_t i = 0; x->ops->profile && cfg->only_stacked && i < az->nr_sels; i++)
		if (az->sels[i].type->desc_flags & PPF_EVF_STACK)
			x->skip_unstacked = true;
	x->priv = pp_xcalloc(1, x->ops->priv_size ? x->ops->priv_size : 1);
	rc = x->ops->begin ? x->ops->begin(x) : 0;
	if (rc && !x->errmsg[0])
		snprintf(x->errmsg, sizeof(x->errmsg), "%s", pp_strerror(rc));
	return rc;
}

void ana_export_event(struct ana_export *x, const struct pp_event *ev)
{
	if (x->skip_unstacked && !(ev->type->desc_flags & PPF_EVF_STACK))
		return;
	x->nr_events++;
	x->ops->event(x, ev);
}

void ana_export_task_exit(struct ana_export *x, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	if (x->ops->task_exit)
		x->ops->task_exit(x, pid, tid, time_ns);
}

int ana_export_finish(struct ana_export *x)
{
	int rc = x->ops->end ? x->ops->end(x) : 0;

	if (!rc && fflush(x->fp)) {
		rc = -errno;
		snprintf(x->errmsg, sizeof(x->errmsg), "write: %s", strerror(errno));
	}
	if (!rc && ferror(x->fp)) {
		rc = -EIO;
		snprintf(x->errmsg, sizeof(x->errmsg), "write error");
	}
	return rc;
}

void ana_export_free(struct ana_export *x)
{
	if (!x)
		return;
	if (x->ops && x->ops->release && x->priv)
		x->ops->release(x);
	free(x->priv);
	free(x);
}

const char *ana_export_errmsg(const struct ana_export *x)
{
	return x->errmsg;
}

uint64_t ana_export_nr_events(const struct ana_export *x)
{
	return x->nr_events;
}

bool ana_export_write(struct ana_export *x, struct pp_buf *b)
{
	bool ok = !b->len || fwrite(b->data, 1, b->len, x->fp) == b->len;

	pp_buf_reset(b);
	if (!ok && !x->errmsg[0])
		snprintf(x->errmsg, sizeof(x->errmsg), "write: %s", strerror(errno));
	return ok;
}

/* --- Fields ---------------------------------------------------------------- */

static bool is_common(const struct pp_field *f)
{
	return !strncmp(f->name, "common_", 7);
}

void ana_export_field_names(const struct ana_evtype *t, void (*fn)(void *arg, const char *name),
			    void *arg)
{
	if (!t->tep) {
		fn(arg, "period");
		fn(arg, "ip");
		fn(arg, "addr");
		return;
	}
	for (size_t i = 0; i < t->nr_fields; i++)
		if (!is_common(&t->fields[i]))
			fn(arg, t->fields[i].name);
}

void ana_export_fields(const struct pp_event *ev, ana_xfield_fn fn, void *arg)
{
	const struct ana_evtype *t = ev->type;
	char str[256];

	if (!t->tep) {
		struct ana_xfield f = { .name = "period", .kind = ANA_XF_UINT, .u = ev->period };
		fn(arg, &f);
		f = (struct ana_xfield){ .name = "ip", .kind = ANA_XF_PTR, .u = ev->ip };
		fn(arg, &f);
		f = (struct ana_xfield){ .name = "addr", .kind = ANA_XF_PTR, .u = ev->addr };
		fn(arg, &f);
		return;
	}
	for (size_t i = 0; i < t->nr_fields; i++) {
		const struct pp_field *pf = &t->fields[i];
		struct ana_xfield f = { .name = pf->name };
		uint32_t off = pf->offset, len = pf->size;

		if (pf->name[0] == 'c' && is_common(pf))
			continue;
		if (pf->is_data_loc) {
			uint32_t loc = (uint32_t)ana_field_read(ev, pf);
			off = loc & 0xffff;
			len = loc >> 16;
		}
		if (!ev->raw || off >= ev->raw_sz)
			len = 0;
		else if ((uint64_t)off + len > ev->raw_sz)
			len = ev->raw_sz - off;
		if (pf->is_string) {
			if (len >= sizeof(str))
				len = sizeof(str) - 1;
			if (len)
				memcpy(str, ev->raw + off, len);
			str[len] = '\0';
			f.kind = ANA_XF_STR;
			f.str = str;
		} else if (pf->is_array || pf->is_data_loc) {
			f.kind = ANA_XF_ARRAY;
			f.elem_size = pf->elem_size && pf->elem_size <= 8 ? pf->elem_size : 1;
			f.data = len ? ev->raw + off : NULL;
			f.nr = len / f.elem_size;
			f.is_signed = pf->is_signed;
		} else if (pf->is_pointer) {
			f.kind = ANA_XF_PTR;
			f.u = ana_field_read(ev, pf);
		} else if (pf->is_signed) {
			f.kind = ANA_XF_INT;
			f.i = (int64_t)ana_field_read(ev, pf);
		} else {
			f.kind = ANA_XF_UINT;
			f.u = ana_field_read(ev, pf);
		}
		fn(arg, &f);
	}
}

char *ana_export_chars(const struct pp_event *ev, const struct pp_field *f, char *buf, size_t sz)
{
	size_t len = f ? f->size : 0;

	if (!f || f->is_data_loc || !ev->raw || (uint64_t)f->offset + len > ev->raw_sz)
		len = 0;
	if (len >= sz)
		len = sz - 1;
	if (len)
		memcpy(buf, ev->raw + f->offset, len);
	buf[strnlen(buf, len)] = '\0';
	return buf;
}

uint64_t ana_xfield_elem(const struct ana_xfield *f, uint32_t i)
{
	uint64_t v = 0;
	uint32_t sz = f->elem_size;

	memcpy(&v, f->data + (size_t)i * sz, sz);	/* little-endian captures and hosts */
	if (f->is_signed && sz && sz < 8 && (v >> (sz * 8 - 1)) & 1)
		v |= ~0ull << (sz * 8);
	return v;
}

void ana_xfield_json(struct pp_buf *b, const struct ana_xfield *f)
{
	switch (f->kind) {
	case ANA_XF_INT:
		ana_buf_add_i64(b, f->i);
		break;
	case ANA_XF_UINT:
	case ANA_XF_PTR:
		ana_buf_add_u64(b, f->u);
		break;
	case ANA_XF_STR:
		ana_buf_add_json_str(b, f->str, strlen(f->str));
		break;
	case ANA_XF_ARRAY:
		ana_xb_ch(b, '[');
		for (uint32_t i = 0; i < f->nr; i++) {
			if (i)
				ana_xb_ch(b, ',');
			if (f->is_signed)
				ana_buf_add_i64(b, (int64_t)ana_xfield_elem(f, i));
			else
				ana_buf_add_u64(b, ana_xfield_elem(f, i));
		}
		ana_xb_ch(b, ']');
		break;
	}
}

/* --- Formatting ------------------------------------------------------------ */

void ana_buf_add_u64(struct pp_buf *b, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ana_xb_put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void ana_buf_add_i64(struct pp_buf *b, int64_t v)
{
	if (v < 0) {
		ana_xb_ch(b, '-');
		ana_buf_add_u64(b, -(uint64_t)v);
	} else {
		ana_buf_add_u64(b, (uint64_t)v);
	}
}

void ana_buf_add_frac(struct pp_buf *b, uint64_t v, unsigned digits)
{
	char tmp[32], *p = tmp + sizeof(tmp);

	for (unsigned i = 0; i < digits; i++) {
		*--p = (char)('0' + v % 10);
		v /= 10;
	}
	if (digits)
		*--p = '.';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ana_xb_put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* Length of the valid UTF-8 sequence at @p (at most @n bytes), 0 if not valid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	return pp_utf8_seq_len(p, n);
}

bool ana_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = *p < 0x80 ? 1 : utf8_len(p, (size_t)(end - p));
		if (!n)
			return false;
		p += n;
	}
	return true;
}

void ana_buf_add_utf8(struct pp_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		const unsigned char *run = p;
		size_t n;
		while (p < end && *p < 0x80)
			p++;
		while (p < end && *p >= 0x80 && (n = utf8_len(p, (size_t)(end - p))))
			p += n;
		if (p > run)
			ana_xb_put(b, run, (size_t)(p - run));
		if (p < end && *p >= 0x80) {	/* not UTF-8: U+0080..U+00FF */
			char c[2] = { (char)(0xc0 | (*p >> 6)), (char)(0x80 | (*p & 0x3f)) };
			ana_xb_put(b, c, 2);
			p++;
		}
	}
}

void ana_buf_add_json_str(struct pp_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	ana_xb_reserve(b, len + 2);
	ana_xb_ch(b, '"');
	while (p < end) {
		const unsigned char *run = p;
		while (p < end && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			ana_xb_put(b, run, (size_t)(p - run));
		if (p >= end)
			break;
		if (*p >= 0x80) {
			size_t n = utf8_len(p, (size_t)(end - p));
			if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
				/* a C1 control: the same code point, escaped (DEL below too) */
				char c1[6] = { '\\', 'u', '0', '0', hex[p[1] >> 4], hex[p[1] & 15] };
				ana_xb_put(b, c1, 6);
				p += 2;
				continue;
			}
			if (n) {
				ana_xb_put(b, p, n);
				p += n;
				continue;
			}
		}
		char esc[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15] };
		if (*p == '"' || *p == '\\') {
			esc[1] = (char)*p;
			ana_xb_put(b, esc, 2);
		} else if (*p == '\n') {
			ANA_XB_LIT(b, "\\n");
		} else if (*p == '\t') {
			ANA_XB_LIT(b, "\\t");
		} else {
			ana_xb_put(b, esc, 6);
		}
		p++;
	}
	ana_xb_ch(b, '"');
}

/* --- Values ---------------------------------------------------------------- */

bool ana_export_is_clock(const struct ana_evtype *t)
{
	return !t->tep && (!strcmp(t->name, "cpu-clock") || !strcmp(t->name, "task-clock"));
}

int ana_export_value_init(struct ana_export *x, struct ana_export_value *v,
			  enum ana_value_kind dflt)
{
	const char *text = x->cfg.value;
	struct pp_az *az = x->az;

	memset(v, 0, sizeof(*v));
	if (!text || !*text) {
		v->kind = dflt;
		v->name = dflt == ANA_VAL_PERIOD ? "period" : "count";
		return 0;
	}
	v->name = text;
	if (!strcmp(text, "count")) {
		v->kind = ANA_VAL_COUNT;
		return 0;
	}
	if (!strcmp(text, "period")) {
		v->kind = ANA_VAL_PERIOD;
		return 0;
	}
	v->kind = ANA_VAL_EXPR;
	v->nr_exprs = az->nr_sels;
	v->exprs = pp_xcalloc(az->nr_sels ? az->nr_sels : 1, sizeof(*v->exprs));
	for (size_t i = 0; i < az->nr_sels; i++) {
		int rc = ana_expr_compile(az, az->sels[i].type, "value", text, &v->exprs[i]);
		if (rc) {
			snprintf(x->errmsg, sizeof(x->errmsg), "--value '%s' does not apply to %s",
				 text, az->sels[i].type->name);
			return rc;
		}
	}
	return 0;
}

uint64_t ana_export_value_get(struct ana_export *x, const struct ana_export_value *v,
			      const struct pp_event *ev)
{
	switch (v->kind) {
	case ANA_VAL_COUNT:
		return 1;
	case ANA_VAL_PERIOD:
		return ev->period;
	case ANA_VAL_EXPR:
		if (ev->sel && ev->sel->index < v->nr_exprs && v->exprs[ev->sel->index])
			return (uint64_t)ana_expr_eval(x->az, v->exprs[ev->sel->index], ev);
		return 0;
	}
	return 0;
}

void ana_export_value_release(struct ana_export_value *v)
{
	for (size_t i = 0; i < v->nr_exprs; i++)
		pp_expr_free(v->exprs[i]);
	free(v->exprs);
	memset(v, 0, sizeof(*v));
}
