/* SPDX-License-Identifier: MIT */
/*
 * capfuzz.c - fuzzer bytes to a capture with valid checksums (capfuzz.h).
 *
 * A cursor reads the program; every read past the end gives 0, so every
 * input is a program and a mutation never makes one invalid, only another.
 * Event formats come from the fixtures' table (tests/fixtures/formats, by
 * one byte) with up to three edits - a number, a field's type, a line, the
 * print format - or as literal text; samples get their raw record either as
 * given or built from the (edited) format's fields, so __data_loc values,
 * offsets past the record and odd sizes reach the decoders with a
 * plausible rest.  Not here: running anything on the capture.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/fuzz/capfuzz.h"
#include "tests/tools/tp-format.h"

#define FZ_MAX_FIELDS 64
#define FZ_MAX_RAW 65536
#define FZ_MAX_STR 4096

struct fz_cur {
	const uint8_t *p, *end;
};

struct fz_field {
	char name[64];
	uint32_t offset, size;
	bool data_loc, rel_loc, string;
};

struct fz_event {
	uint32_t id, tp_id;
	struct fz_field fields[FZ_MAX_FIELDS];
	size_t nr_fields;
	uint32_t fixed_sz;
};

struct fz_builder {
	struct fz_cur c;
	struct ppf_writer *w;
	struct fz_capture *cap;
	struct fz_event ev[FZ_MAX_EVENTS];
	uint64_t t;
	bool failed;		/* the writer's sticky error: stop writing */
};

/* --- reading the program ----------------------------------------------------- */

static unsigned fz_u8(struct fz_cur *c)
{
	return c->p < c->end ? *c->p++ : 0;
}

static uint64_t fz_v(struct fz_cur *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* A length-prefixed byte string, capped at @max and at what remains: borrowed. */
static size_t fz_s(struct fz_cur *c, size_t max, const uint8_t **out)
{
	uint64_t n = fz_v(c);
	size_t left = (size_t)(c->end - c->p);

	if (n > max)
		n = max;
	if (n > left)
		n = left;
	*out = c->p;
	c->p += n;
	return (size_t)n;
}

/* The same as a NUL-terminated string (an inner NUL ends it early), malloc'ed. */
static char *fz_str(struct fz_cur *c, size_t max)
{
	const uint8_t *p;
	size_t n = fz_s(c, max, &p);

	return pp_xstrndup((const char *)p, n);
}

static uint64_t fz_a(struct fz_cur *c)
{
	static const uint64_t marks[] = {
		PERF_CONTEXT_HV, PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, PERF_CONTEXT_GUEST,
		PERF_CONTEXT_GUEST_KERNEL, PERF_CONTEXT_GUEST_USER, PERF_CONTEXT_MAX,
	};
	unsigned tag = fz_u8(c) % FZ_A_NR;
	uint64_t v = fz_v(c);

	switch (tag) {
	case FZ_A_KERNEL: return FZ_KBASE + v;
	case FZ_A_USER: return FZ_UBASE + v;
	case FZ_A_MARK: return marks[v % 7];
	default: return v;
	}
}

/* --- writing programs (fuzz-seed.c) ------------------------------------------ */

void fz_put_u8(struct pp_buf *b, unsigned v)
{
	pp_buf_addch(b, (int)(v & 0xff));
}

void fz_put_v(struct pp_buf *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		pp_buf_addch(b, byte | (v ? 0x80 : 0));
	} while (v);
}

void fz_put_s(struct pp_buf *b, const void *p, size_t n)
{
	fz_put_v(b, n);
	pp_buf_add(b, p, n);
}

void fz_put_str(struct pp_buf *b, const char *s)
{
	fz_put_s(b, s ? s : "", s ? strlen(s) : 0);
}

void fz_put_a(struct pp_buf *b, uint64_t a)
{
	static const uint64_t marks[] = {
		PERF_CONTEXT_HV, PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER, PERF_CONTEXT_GUEST,
		PERF_CONTEXT_GUEST_KERNEL, PERF_CONTEXT_GUEST_USER, PERF_CONTEXT_MAX,
	};

	for (unsigned i = 0; i < 7; i++)
		if (a == marks[i]) {
			fz_put_u8(b, FZ_A_MARK);
			fz_put_v(b, i);
			return;
		}
	if (a >= FZ_KBASE && a - FZ_KBASE < (1ull << 32)) {
		fz_put_u8(b, FZ_A_KERNEL);
		fz_put_v(b, a - FZ_KBASE);
	} else if (a >= FZ_UBASE && a - FZ_UBASE < (1ull << 32)) {
		fz_put_u8(b, FZ_A_USER);
		fz_put_v(b, a - FZ_UBASE);
	} else {
		fz_put_u8(b, FZ_A_ABS);
		fz_put_v(b, a);
	}
}

/* --- formats ----------------------------------------------------------------- */

/* One "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" line (capbuild's reading). */
static void parse_field(void *ctx, const char *line)
{
	struct fz_event *e = ctx;
	const char *decl = line + strlen("field:");
	const char *semi = strchr(decl, ';');
	const char *off = strstr(line, "offset:"), *sz = strstr(line, "size:");
	struct fz_field *f;
	bool array;

	if (!semi || !off || !sz || e->nr_fields == FZ_MAX_FIELDS)
		return;
	f = &e->fields[e->nr_fields++];
	memset(f, 0, sizeof(*f));
	f->offset = (uint32_t)strtoul(off + 7, NULL, 10);
	f->size = (uint32_t)strtoul(sz + 5, NULL, 10);
	array = tp_field_name(decl, semi, f->name, sizeof(f->name));
	f->rel_loc = !strncmp(decl, "__rel_loc", 9);
	f->data_loc = f->rel_loc || !strncmp(decl, "__data_loc", 10);
	f->string = strstr(decl, "char") && (array || f->data_loc);
	/* a field far past any record only makes every sample huge: keep it, cap the record */
	if (f->offset < FZ_MAX_RAW && f->size < FZ_MAX_RAW && f->offset + f->size > e->fixed_sz)
		e->fixed_sz = f->offset + f->size;
}

static void parse_format(struct fz_event *e, const char *text)
{
	tp_format_read(text, &e->tp_id, parse_field, e);
}

/* The types a field's declaration can be switched to by an edit. */
static const char *const field_types[] = {
	"char", "unsigned char", "short", "int", "unsigned int", "long", "unsigned long",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bool", "pid_t", "void *",
	"char *", "const char *", "char[16]", "u8[6]", "unsigned long[4]", "int[2]",
	"__data_loc char[]", "__data_loc u8[]", "__data_loc unsigned long[]",
	"__rel_loc char[]", "struct foo *", "enum bar", "dma_addr_t", "gfp_t",
	"unsigned int:3", "char[0]",
};

/* The @n-th line of @b (modulo the number of lines): [*start, *end). */
static bool nth_line(const struct pp_buf *b, uint64_t n, size_t *start, size_t *end)
{
	size_t nr = 0;

	for (size_t i = 0; i < b->len; i++)
		nr += b->data[i] == '\n';
	if (!b->len)
		return false;
	n %= nr + 1;
	size_t i = 0;
	for (; n && i < b->len; i++)
		if (b->data[i] == '\n')
			n--;
	*start = i;
	while (i < b->len && b->data[i] != '\n')
		i++;
	*end = i;
	return true;
}

/* Replace [start, end) of @b with @with. */
static void buf_splice(struct pp_buf *b, size_t start, size_t end, const char *with, size_t n)
{
	struct pp_buf o = PP_BUF_INIT;

	pp_buf_add(&o, b->data, start);
	pp_buf_add(&o, with, n);
	pp_buf_add(&o, b->data + end, b->len - end);
	pp_buf_release(b);
	*b = o;
}

static void edit_format(struct fz_cur *c, struct pp_buf *b)
{
	unsigned kind = fz_u8(c) % 6;
	uint64_t arg = fz_v(c);
	size_t s, e;

	switch (kind) {
	case 0: {	/* the arg-th number becomes another */
		uint64_t v = fz_v(c);
		size_t nr = 0;
		for (size_t i = 0; i < b->len; i++)
			if (isdigit((unsigned char)b->data[i]) &&
			    (!i || !isdigit((unsigned char)b->data[i - 1])))
				nr++;
		if (!nr)
			break;
		arg %= nr;
		for (size_t i = 0; i < b->len; i++) {
			if (!isdigit((unsigned char)b->data[i]) ||
			    (i && isdigit((unsigned char)b->data[i - 1])) || arg--)
				continue;
			size_t j = i;
			while (j < b->len && isdigit((unsigned char)b->data[j]))
				j++;
			char num[24];
			int n = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
			buf_splice(b, i, j, num, (size_t)n);
			break;
		}
		break;
	}
	case 1: {	/* a field's type becomes another */
		const char *t = field_types[fz_u8(c) % PP_ARRAY_SIZE(field_types)];
		if (!nth_line(b, arg, &s, &e))
			break;
		char *line = pp_xstrndup(b->data + s, e - s);
		char *decl = strstr(line, "field:"), *semi = decl ? strchr(decl, ';') : NULL;
		if (semi) {
			char *name = semi;
			while (name > decl + 6 && name[-1] != ' ')
				name--;
			size_t from = s + (size_t)(decl + 6 - line), to = s + (size_t)(name - line);
			if (to > from)
				buf_splice(b, from, to, t, strlen(t)), buf_splice(b, from + strlen(t), from + strlen(t), " ", 1);
		}
		free(line);
		break;
	}
	case 2:		/* a line goes */
		if (nth_line(b, arg, &s, &e))
			buf_splice(b, s, e < b->len ? e + 1 : e, "", 0);
		break;
	case 3: {	/* the print format becomes the given text */
		const char *pf = b->len ? strstr(b->data, "print fmt: ") : NULL;
		char *with = fz_str(c, FZ_MAX_STR);
		if (pf)
			buf_splice(b, (size_t)(pf - b->data) + 11, b->len, with, strlen(with));
		free(with);
		break;
	}
	case 4: {	/* the given text goes in */
		char *with = fz_str(c, FZ_MAX_STR);
		size_t at = b->len ? arg % (b->len + 1) : 0;
		buf_splice(b, at, at, with, strlen(with));
		free(with);
		break;
	}
	default:	/* the text is cut */
		if (b->len)
			b->len = arg % (b->len + 1), b->data[b->len] = '\0';
		break;
	}
}

/* --- the ops ----------------------------------------------------------------- */

static void check(struct fz_builder *b, int rc)
{
	if (rc)
		b->failed = true;
}

static void fz_event(struct fz_builder *b)
{
	struct fz_cur *c = &b->c;
	struct ppf_event_desc d = { 0 };
	struct perf_event_attr attr = { 0 };
	struct pp_buf fmt = PP_BUF_INIT;
	char *name, *selector, *filter;
	const uint8_t *lit = NULL;
	unsigned tag;
	struct fz_event *e;

	d.id = (uint32_t)fz_v(c);
	d.kind = fz_u8(c);
	d.flags = (uint32_t)fz_v(c);
	d.tp_id = (uint32_t)fz_v(c);
	tag = fz_u8(c);
	name = tag >= FZ_NAME_LITERAL || !fz_nr_formats ? fz_str(c, 256)
						       : pp_xstrdup(fz_formats[tag % fz_nr_formats].name);
	selector = fz_str(c, 512);
	filter = fz_str(c, 512);
	switch (fz_u8(c) % 3) {
	case 1:
		attr.size = sizeof(attr);
		attr.type = (uint32_t)fz_v(c);
		attr.config = fz_v(c);
		attr.sample_type = fz_v(c);
		attr.sample_regs_intr = fz_v(c);
		attr.bp_type = (uint32_t)fz_v(c);
		attr.bp_addr = fz_v(c);
		attr.bp_len = fz_v(c);
		attr.read_format = fz_v(c);
		d.attr = &attr;
		d.attr_sz = sizeof(attr);
		break;
	case 2:
		d.attr_sz = (uint32_t)fz_s(c, 512, &lit);
		d.attr = lit;
		break;
	default:
		break;
	}
	tag = fz_u8(c);
	if (tag == FZ_FMT_LITERAL) {
		char *t = fz_str(c, 1 << 16);
		pp_buf_adds(&fmt, t);
		free(t);
	} else if (tag != FZ_FMT_NONE && fz_nr_formats) {
		pp_buf_adds(&fmt, fz_formats[tag % fz_nr_formats].text);
		for (unsigned n = fz_u8(c) % 4; n; n--)
			edit_format(c, &fmt);
	}
	d.name = name;
	d.selector = selector;
	d.filter = filter;
	d.format = pp_buf_str(&fmt);
	if (b->cap->nr_events < FZ_MAX_EVENTS) {
		e = &b->ev[b->cap->nr_events];
		memset(e, 0, sizeof(*e));
		e->id = d.id;
		parse_format(e, d.format);
		e->tp_id = d.tp_id;
		b->cap->names[b->cap->nr_events] = pp_xstrdup(name);
		for (size_t i = 0; i < e->nr_fields; i++)
			if (strncmp(e->fields[i].name, "common_", 7)) {
				b->cap->fields[b->cap->nr_events] = pp_xstrdup(e->fields[i].name);
				break;
			}
		b->cap->nr_events++;
	}
	check(b, ppf_write_event_desc(b->w, &d));
	pp_buf_release(&fmt);
	free(name);
	free(selector);
	free(filter);
}

static void put_uint(uint8_t *raw, uint32_t off, uint32_t size, uint64_t v)
{
	for (uint32_t i = 0; i < size && i < 8; i++)
		raw[off + i] = (uint8_t)(v >> (8 * i));
}

/* A raw record from @e's fields, a value of the program each; malloc'ed, *@sz its size. */
static uint8_t *raw_from_fields(struct fz_builder *b, const struct fz_event *e, uint32_t tid,
				uint32_t *sz)
{
	struct fz_cur *c = &b->c;
	uint32_t fixed = (e->fixed_sz + 7) & ~7u, dyn = fixed;
	uint8_t *raw = calloc(1, FZ_MAX_RAW);

	if (!raw)
		return NULL;
	for (size_t i = 0; i < e->nr_fields; i++) {
		const struct fz_field *f = &e->fields[i];
		if (f->offset >= FZ_MAX_RAW || f->size > FZ_MAX_RAW - f->offset)
			continue;
		if (!strcmp(f->name, "common_type")) {
			put_uint(raw, f->offset, f->size, e->tp_id);
		} else if (!strcmp(f->name, "common_pid")) {
			put_uint(raw, f->offset, f->size, tid);
		} else if (f->data_loc) {
			unsigned mode = fz_u8(c);
			if (mode & 1) {
				put_uint(raw, f->offset, f->size, fz_v(c));
				continue;
			}
			const uint8_t *p;
			size_t n = fz_s(c, FZ_MAX_STR, &p);
			if (n > FZ_MAX_RAW - dyn - 1)
				n = FZ_MAX_RAW - dyn - 1;
			memcpy(raw + dyn, p, n);
			n += !(mode & 2);	/* with or without its NUL */
			uint32_t off = f->rel_loc ? dyn - (f->offset + f->size) : dyn;
			put_uint(raw, f->offset, f->size, (uint64_t)n << 16 | (off & 0xffff));
			dyn += (uint32_t)n;
		} else if (f->string) {
			const uint8_t *p;
			size_t n = fz_s(c, f->size, &p);
			memcpy(raw + f->offset, p, n);
		} else {
			put_uint(raw, f->offset, f->size, fz_v(c));
		}
	}
	*sz = dyn;
	return raw;
}

static void fz_sample(struct fz_builder *b)
{
	struct fz_cur *c = &b->c;
	struct ppf_sample s = { .period = 1 };
	uint64_t stack[64];
	uint8_t *raw = NULL;
	uint64_t dt = fz_v(c);
	unsigned bits = fz_u8(c), evi = fz_u8(c);
	const struct fz_event *e = NULL;

	if (evi == 0xff || !b->cap->nr_events) {
		s.id = (uint32_t)fz_v(c);
	} else {
		e = &b->ev[evi % b->cap->nr_events];
		s.id = e->id;
	}
	b->t = bits & FZ_S_BACK ? b->t - dt : b->t + dt;
	s.time_ns = b->t;
	s.cpu = (uint32_t)fz_v(c);
	s.pid = (uint32_t)fz_v(c);
	s.tid = (uint32_t)fz_v(c);
	if (bits & FZ_S_PERIOD) {
		s.flags |= PPF_SF_PERIOD;
		s.period = fz_v(c);
	}
	if (bits & FZ_S_IP) {
		s.flags |= PPF_SF_IP;
		s.ip = fz_a(c);
	}
	if (bits & FZ_S_ADDR) {
		s.flags |= PPF_SF_ADDR;
		s.addr = fz_a(c);
	}
	if (bits & FZ_S_STACK) {
		s.nr_stack = fz_u8(c) % 64;
		for (uint32_t i = 0; i < s.nr_stack; i++)
			stack[i] = fz_a(c);
		if (s.nr_stack) {
			s.flags |= PPF_SF_STACK;
			s.stack = stack;
		}
	}
	if (bits & FZ_S_EXTRA) {
		s.flags |= PPF_SF_EXTRA;
		s.extra_sz = (uint32_t)fz_s(c, 4096, &s.extra);
	}
	if (bits & FZ_S_RAW) {
		s.flags |= PPF_SF_RAW;
		s.raw_sz = (uint32_t)fz_s(c, FZ_MAX_RAW, &s.raw);
	} else if ((bits & FZ_S_FIELDS) && e) {
		raw = raw_from_fields(b, e, s.tid, &s.raw_sz);
		if (raw) {
			s.flags |= PPF_SF_RAW;
			s.raw = raw;
		}
	}
	check(b, ppf_write_sample(b->w, &s));
	b->cap->nr_samples++;
	free(raw);
}

static void fz_dso(struct fz_builder *b)
{
	struct fz_cur *c = &b->c;
	struct ppf_dso d = { 0 };
	char *path;

	d.build_id_sz = (uint32_t)fz_s(c, 64, &d.build_id);
	path = fz_str(c, 512);
	d.path = path;
	d.flags = (uint32_t)fz_v(c);
	d.text_vaddr = fz_v(c);
	d.text_offset = fz_v(c);
	d.nr_syms = fz_u8(c);
	check(b, ppf_write_dso(b->w, &d));
	for (uint32_t i = 0; i < d.nr_syms && !b->failed; i++) {
		struct ppf_sym s = { 0 };
		s.start = fz_v(c);
		s.size = fz_v(c);
		char *name = fz_str(c, 512);
		s.name = name;
		check(b, ppf_write_sym(b->w, &s));
		free(name);
	}
	free(path);
}

static void fz_counter(struct fz_builder *b)
{
	struct fz_cur *c = &b->c;
	struct ppf_counter_val v[8];
	struct ppf_counter k = { 0 };
	uint64_t cpu, tid;

	b->t += fz_v(c);
	k.time_ns = b->t;
	cpu = fz_v(c);
	tid = fz_v(c);
	k.cpu = cpu ? (uint32_t)(cpu - 1) : UINT32_MAX;
	k.tid = tid ? (uint32_t)(tid - 1) : UINT32_MAX;
	k.enabled = fz_v(c);
	k.running = fz_v(c);
	k.nr = fz_u8(c) % 8 + 1;
	for (uint32_t i = 0; i < k.nr; i++) {
		unsigned evi = fz_u8(c);
		v[i].id = evi == 0xff || !b->cap->nr_events ? (uint32_t)fz_v(c)
							    : b->ev[evi % b->cap->nr_events].id;
		v[i].value = fz_v(c);
	}
	k.v = v;
	check(b, ppf_write_counter(b->w, &k));
}

static void fz_op(struct fz_builder *b, unsigned op)
{
	struct fz_cur *c = &b->c;
	char *s1, *s2;

	switch (op) {
	case FZ_OP_KV:
		s1 = fz_str(c, 512);
		s2 = fz_str(c, FZ_MAX_STR);
		check(b, ppf_write_kv(b->w, s1, s2));
		free(s1);
		free(s2);
		break;
	case FZ_OP_EVENT:
		fz_event(b);
		break;
	case FZ_OP_TASK: {
		struct ppf_task t;
		t.pid = (uint32_t)fz_v(c);
		t.tid = (uint32_t)fz_v(c);
		t.ppid = (uint32_t)fz_v(c);
		t.comm = s1 = fz_str(c, 64);
		t.cmdline = s2 = fz_str(c, 1024);
		check(b, ppf_write_task(b->w, &t));
		free(s1);
		free(s2);
		break;
	}
	case FZ_OP_KSYM: {
		struct ppf_ksym k;
		k.addr = fz_a(c);
		k.type = (char)fz_u8(c);
		k.name = s1 = fz_str(c, 512);
		k.module = s2 = fz_str(c, 64);
		check(b, ppf_write_ksym(b->w, &k));
		free(s1);
		free(s2);
		break;
	}
	case FZ_OP_DSO:
		fz_dso(b);
		break;
	case FZ_OP_SYSCALL: {
		uint32_t nr = (uint32_t)fz_v(c);
		s1 = fz_str(c, 64);
		check(b, ppf_write_syscall(b->w, nr, s1));
		free(s1);
		break;
	}
	case FZ_OP_SAMPLE:
		fz_sample(b);
		break;
	case FZ_OP_COMM: {
		struct ppf_comm m;
		b->t += fz_v(c);
		m.time_ns = b->t;
		m.pid = (uint32_t)fz_v(c);
		m.tid = (uint32_t)fz_v(c);
		m.exec = (uint32_t)fz_v(c);
		m.comm = s1 = fz_str(c, 64);
		check(b, ppf_write_comm(b->w, &m));
		free(s1);
		break;
	}
	case FZ_OP_TASKEV: {
		struct ppf_task_event t;
		bool is_exit = fz_u8(c) & 1;
		b->t += fz_v(c);
		t.time_ns = b->t;
		t.pid = (uint32_t)fz_v(c);
		t.ppid = (uint32_t)fz_v(c);
		t.tid = (uint32_t)fz_v(c);
		t.ptid = (uint32_t)fz_v(c);
		check(b, is_exit ? ppf_write_exit(b->w, &t) : ppf_write_fork(b->w, &t));
		break;
	}
	case FZ_OP_MMAP: {
		struct ppf_mmap m;
		b->t += fz_v(c);
		m.time_ns = b->t;
		m.pid = (uint32_t)fz_v(c);
		m.tid = (uint32_t)fz_v(c);
		m.addr = fz_a(c);
		m.len = fz_v(c);
		m.pgoff = fz_v(c);
		m.prot = (uint32_t)fz_v(c);
		m.flags = (uint32_t)fz_v(c);
		m.build_id_sz = (uint32_t)fz_s(c, 64, &m.build_id);
		m.path = s1 = fz_str(c, 512);
		check(b, ppf_write_mmap(b->w, &m));
		free(s1);
		break;
	}
	case FZ_OP_LOST: {
		struct ppf_lost l;
		b->t += fz_v(c);
		l.time_ns = b->t;
		l.cpu = (uint32_t)fz_v(c);
		l.id = (uint32_t)fz_v(c);
		l.count = fz_v(c);
		check(b, ppf_write_lost(b->w, &l));
		break;
	}
	case FZ_OP_SYNC: {
		struct ppf_time_sync y;
		b->t += fz_v(c);
		y.time_ns = b->t;
		y.realtime_ns = fz_v(c);
		check(b, ppf_write_time_sync(b->w, &y));
		break;
	}
	case FZ_OP_SIDEBAND: {
		struct ppf_sideband y;
		b->t += fz_v(c);
		y.time_ns = b->t;
		y.perf_type = (uint32_t)fz_v(c);
		y.cpu = (uint32_t)fz_v(c);
		y.size = (uint32_t)fz_s(c, 4096, &y.data);
		y.pid = (uint32_t)fz_v(c);
		y.tid = (uint32_t)fz_v(c);
		check(b, ppf_write_sideband(b->w, &y));
		break;
	}
	case FZ_OP_COUNTER:
		fz_counter(b);
		break;
	case FZ_OP_STAT: {
		s1 = fz_str(c, 256);
		check(b, ppf_write_stat(b->w, s1, fz_v(c)));
		free(s1);
		break;
	}
	default:
		check(b, ppf_writer_flush(b->w));
		break;
	}
}

/* FZ_SAVE=FILE (replay-main.c): a copy of the capture, to look at with pp-analyze. */
static void save(int fd, const char *path)
{
	FILE *fp = fopen(path, "w");
	char buf[65536];
	ssize_t n;

	while (fp && (n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, fp);
	if (fp)
		fclose(fp);
	lseek(fd, 0, SEEK_SET);
}

/* A capture given as such (a regression input): its events, for the targets' choices. */
static void scan_events(struct fz_capture *out)
{
	struct ppf_reader *r = NULL;
	struct ppf_record rec;

	if (ppf_reader_open_fd(out->fd, 0, &r) == 0)
		while (ppf_reader_next(r, &rec, NULL) == 0 && out->nr_events < FZ_MAX_EVENTS) {
			if (rec.type != PPF_REC_EVENT_DESC)
				continue;
			struct fz_event e = { 0 };
			parse_format(&e, rec.u.event.format);
			out->names[out->nr_events] = pp_xstrdup(rec.u.event.name);
			for (size_t i = 0; i < e.nr_fields; i++)
				if (strncmp(e.fields[i].name, "common_", 7)) {
					out->fields[out->nr_events] = pp_xstrdup(e.fields[i].name);
					break;
				}
			out->nr_events++;
		}
	ppf_reader_close(r);
	lseek(out->fd, 0, SEEK_SET);
}

int fz_capture_build(const uint8_t *data, size_t size, struct fz_capture *out)
{
	static const uint32_t seg_sz[] = { 0, 512, 4096, 65536 };
	struct fz_builder b = { .c = { data, data + size }, .cap = out };
	struct ppf_writer_opts o = { .zstd_level = 1, .created_ns = 1 };
	off_t end;
	int rc;

	memset(out, 0, sizeof(*out));
	out->fd = memfd_create("capfuzz", 0);
	if (out->fd < 0)
		return -1;
	snprintf(out->path, sizeof(out->path), "/proc/self/fd/%d", out->fd);
	if (size >= 8 && !memcmp(data, PPF_FILE_MAGIC, 8)) {
		if (write(out->fd, data, size) != (ssize_t)size)
			return -1;
		lseek(out->fd, 0, SEEK_SET);
		out->verbatim = true;
		scan_events(out);
		return 0;
	}
	out->config = (uint8_t)fz_u8(&b.c);
	o.seg_max_raw = seg_sz[out->config & 3];
	o.no_index = out->config & 4;
	if (ppf_writer_open_fd(out->fd, &o, &b.w))
		return 0;	/* an empty file: the targets see a refused capture */
	while (b.c.p < b.c.end && !b.failed)
		fz_op(&b, fz_u8(&b.c) % FZ_OP_NR);
	rc = ppf_writer_close(b.w);
	(void)rc;	/* a writer error cuts the capture short: still a capture to read */
	end = lseek(out->fd, 0, SEEK_END);
	if ((out->config & 8) && end > 7 && ftruncate(out->fd, end - 7))
		return -1;
	lseek(out->fd, 0, SEEK_SET);
	if (getenv("FZ_SAVE"))
		save(out->fd, getenv("FZ_SAVE"));
	return 0;
}

void fz_capture_release(struct fz_capture *c)
{
	if (c->fd >= 0)
		close(c->fd);
	for (size_t i = 0; i < c->nr_events; i++) {
		free(c->names[i]);
		free(c->fields[i]);
	}
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

void fz_quiet_analyze(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
	pp_progname = "pp-analyze";
	pp_log_level = PP_LOG_SILENT;
	setenv("TZ", "UTC", 1);
}
