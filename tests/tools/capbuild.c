/* SPDX-License-Identifier: MIT */
/*
 * capbuild.c - a test-only capture builder: a readable description in, a capture out.
 *
 * usage: capbuild [-l LEVEL] [-s SEG_BYTES] DESCRIPTION OUTPUT
 *
 * Writes OUTPUT through format/ (the writer pp-record uses), so analyzers
 * can be tested on small, exactly reproducible captures without a kernel.
 * DESCRIPTION ("-" for stdin) has one directive a line; '#' starts a
 * comment, tokens are separated by blanks, and a token may contain
 * "double quoted" parts with the escapes \n \t \\ \" \xHH.  Times are
 * nanoseconds (123456789) or seconds with a dot (1.000250).  Numbers are
 * decimal, 0x hex or negative.  Paths are relative to the description.
 *
 *   kv KEY VALUE...               a KV record; VALUE is the other tokens joined by a space
 *   event ID NAME FORMAT_FILE [selector=S] [filter=F] [kind=N] [flags=stack|user_filter]
 *         [attr.FIELD=N...]       an event description; FORMAT_FILE is a tracefs
 *                                 "format" text ("-" for none: a software event);
 *                                 attr.type, attr.config, attr.sample_type,
 *                                 attr.bp_type, attr.bp_addr, attr.bp_len,
 *                                 attr.sample_regs_intr fill a perf_event_attr
 *   syscall NR NAME               a syscall table entry
 *   task PID TID PPID COMM [CMDLINE...]   a task alive at the start
 *   ksym ADDR NAME [TYPE [MODULE]]        a kernel symbol (TYPE default 't')
 *   dso PATH BUILD_ID_HEX TEXT_VADDR TEXT_OFFSET   a binary; its 'sym' lines follow
 *   sym START SIZE NAME           a symbol of the last dso
 *   unwind START END CFA CFA_OFF RA RA_OFF FP FP_OFF   an unwind row of the last dso
 *                                 (kinds as enum ppf_cfa_kind, ppf_reg_rule)
 *   sample TIME CPU PID TID EVENT_ID [FIELD=VALUE...] [stack=A,B,...] [period=N]
 *          [ip=A] [addr=A] [extra=W,W,...] [uregs=BP,SP,IP] [ustack=W,W,...]
 *          [ustack_addr=A]        a sample (extra: u64 words, e.g. registers; uregs,
 *                                 ustack: --call-graph dwarf's registers and stack
 *                                 copy, as u64 words at ustack_addr, default SP);
 *                                 tracepoint raw data is built from
 *                                 the format's offsets and sizes: numbers for
 *                                 numeric fields, strings for char[N] and
 *                                 __data_loc char[]; common_type, common_pid
 *                                 (= TID) are filled in unless given; a stack
 *                                 list may hold the context markers 'kernel'
 *                                 and 'user'
 *   comm TIME PID TID COMM [exec] a COMM record
 *   fork TIME PID PPID TID PTID   a FORK record
 *   exit TIME PID PPID TID PTID   an EXIT record
 *   mmap TIME PID TID ADDR LEN PGOFF PATH [BUILD_ID_HEX]
 *   lost TIME CPU COUNT           a LOST record
 *   sideband TIME CPU TYPE ITEM...   a raw side-band record of PERF_RECORD_ TYPE; its
 *                                 body from ITEMs u8:N u16:N u32:N u64:N str:TEXT
 *                                 (NUL-terminated) hex:BYTES, padded to 8 bytes;
 *                                 pid:N tid:N name the thread (default: unknown)
 *   counter TIME CPU TID ENABLED RUNNING ID=VALUE...   a COUNTER record: cumulative
 *                                 values of events ID read together on CPU (- for
 *                                 every CPU) for TID (- for every thread)
 *   sync PERF_NS REALTIME_NS      a clock pair (wall-clock times)
 *   stat KEY VALUE                a STAT record
 *   flush                         close the open segment
 *   repeat COUNT STEP ... end     the lines in between COUNT times, the times of
 *                                 iteration i shifted by i * STEP (big captures)
 *
 * Samples out of time order are written as the writer writes them (LATE).
 * Not here: checking what an analyzer makes of the capture (the tests do).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/tools/tp-format.h"

#define MAX_TOK 256
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)

struct field {
	char name[64];
	uint32_t offset, size;
	bool is_string, is_data_loc;
};

struct event {
	uint32_t id, tp_id;
	struct field *fields;
	size_t nr_fields;
	uint32_t fixed_sz;
	struct event *next;
};

struct builder {
	struct ppf_writer *w;
	const char *dir;
	const char *file;
	int line;
	struct event *events;
	uint64_t time_base;	/* added to every time (repeat) */
	char *tok[MAX_TOK];
	int nr_tok;
};

static struct builder *cur;

static void PP_PRINTF(1, 2) PP_NORETURN bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "capbuild: %s:%d: ", cur->file, cur->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void check(int rc, const char *what)
{
	if (rc)
		bad("%s: %s", what, ppf_writer_errmsg(cur->w));
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	if (*s == '-')
		v = (uint64_t)strtoll(s, &end, 0);
	else
		v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		bad("bad number '%s'", s);
	return v;
}

/* "123" is ns; "1.5" is seconds. */
static uint64_t when(const char *s)
{
	const char *dot = strchr(s, '.');
	uint64_t sec, frac = 0;
	int digits = 0;

	if (!dot)
		return cur->time_base + num(s);
	char *whole = pp_xstrndup(s, (size_t)(dot - s));
	sec = num(whole);
	free(whole);
	for (const char *p = dot + 1; *p; p++) {
		if (!isdigit((unsigned char)*p) || digits == 9)
			bad("bad time '%s'", s);
		frac = frac * 10 + (uint64_t)(*p - '0');
		digits++;
	}
	while (digits++ < 9)
		frac *= 10;
	return cur->time_base + sec * 1000000000ull + frac;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Split @line into tokens in place (quotes and escapes resolved). */
static void tokenize(struct builder *b, char *line)
{
	char *in = line, *out;

	b->nr_tok = 0;
	for (;;) {
		while (*in == ' ' || *in == '\t')
			in++;
		if (!*in || *in == '#' || *in == '\n')
			break;
		if (b->nr_tok == MAX_TOK)
			bad("too many tokens");
		b->tok[b->nr_tok++] = out = in;
		bool q = false;
		while (*in && (q || (*in != ' ' && *in != '\t' && *in != '\n'))) {
			if (*in == '"') {
				q = !q;
				in++;
				continue;
			}
			if (q && *in == '\\' && in[1]) {
				in++;
				switch (*in) {
				case 'n': *out++ = '\n'; break;
				case 't': *out++ = '\t'; break;
				case 'x':
					if (hexval(in[1]) >= 0 && hexval(in[2]) >= 0) {
						*out++ = (char)(hexval(in[1]) * 16 + hexval(in[2]));
						in += 2;
						break;
					}
					/* fall through */
				default: *out++ = *in; break;
				}
				in++;
				continue;
			}
			*out++ = *in++;
		}
		if (q)
			bad("unterminated quote");
		bool end = !*in || *in == '\n';
		*out = '\0';
		if (end)
			break;
		in++;
	}
}

static char *slurp(const char *path)
{
	char full[4096];
	FILE *fp;
	char *data = NULL;
	size_t len = 0, n;
	char chunk[4096];

	if (path[0] == '/' || !cur->dir)
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", cur->dir, path);
	fp = fopen(full, "r");
	if (!fp)
		bad("cannot open '%s': %s", full, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		data = pp_xrealloc(data, len + n + 1);
		memcpy(data + len, chunk, n);
		len += n;
	}
	fclose(fp);
	data = pp_xrealloc(data, len + 1);
	data[len] = '\0';
	return data;
}

/* One "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" line. */
static void parse_field(void *ctx, const char *line)
{
	struct event *e = ctx;
	const char *decl = line + strlen("field:");
	const char *semi = strchr(decl, ';');
	const char *off = strstr(line, "offset:"), *sz = strstr(line, "size:");
	struct field *f;

	if (!semi || !off || !sz)
		return;
	e->fields = pp_xrealloc(e->fields, (e->nr_fields + 1) * sizeof(*e->fields));
	f = &e->fields[e->nr_fields++];
	memset(f, 0, sizeof(*f));
	f->offset = (uint32_t)strtoul(off + 7, NULL, 10);
	f->size = (uint32_t)strtoul(sz + 5, NULL, 10);
	bool array = tp_field_name(decl, semi, f->name, sizeof(f->name));
	f->is_data_loc = !strncmp(decl, "__data_loc", 10) || !strncmp(decl, "__rel_loc", 9);
	f->is_string = strstr(decl, "char") && (array || f->is_data_loc);
	if (f->offset + f->size > e->fixed_sz)
		e->fixed_sz = f->offset + f->size;
}

static void parse_format(struct event *e, const char *text)
{
	tp_format_read(text, &e->tp_id, parse_field, e);
}

static struct event *event_find(struct builder *b, uint32_t id)
{
	for (struct event *e = b->events; e; e = e->next)
		if (e->id == id)
			return e;
	bad("no 'event %u' line before this sample", id);
}

static const char *opt_val(const char *tok, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(tok, key, n) && tok[n] == '=' ? tok + n + 1 : NULL;
}

/* "FIELD=N" of a perf_event_attr; dies on an unknown field. */
static bool set_attr(struct perf_event_attr *a, const char *tok)
{
	const char *eq = strchr(tok, '=');
	uint64_t v;

	if (!eq)
		bad("expected attr.FIELD=N, got 'attr.%s'", tok);
	v = num(eq + 1);
#define F(name)                                                                         \
	if (strlen(#name) == (size_t)(eq - tok) && !strncmp(tok, #name, strlen(#name))) { \
		a->name = v;                                                            \
		return true;                                                            \
	}
	F(type) F(config) F(sample_type) F(bp_type) F(bp_addr) F(bp_len) F(sample_regs_intr)
	F(sample_regs_user) F(sample_stack_user)
#undef F
	bad("unknown attr field in 'attr.%s'", tok);
	return false;
}

static void do_event(struct builder *b)
{
	struct ppf_event_desc d = { 0 };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	bool have_attr = false;
	struct event *e = pp_xcalloc(1, sizeof(*e));
	char *format = NULL;

	if (b->nr_tok < 4)
		bad("usage: event ID NAME FORMAT_FILE [selector=S] [filter=F] [kind=N] "
		    "[flags=...]");
	e->id = (uint32_t)num(b->tok[1]);
	d.id = e->id;
	d.name = b->tok[2];
	d.selector = b->tok[2];
	d.filter = "";
	d.format = "";
	d.kind = PPF_EV_SOFTWARE;
	if (strcmp(b->tok[3], "-")) {
		format = slurp(b->tok[3]);
		parse_format(e, format);
		d.format = format;
		d.kind = PPF_EV_TRACEPOINT;
		d.tp_id = e->tp_id;
	}
	for (int i = 4; i < b->nr_tok; i++) {
		const char *v;
		if ((v = opt_val(b->tok[i], "selector")))
			d.selector = v;
		else if ((v = opt_val(b->tok[i], "filter")))
			d.filter = v;
		else if ((v = opt_val(b->tok[i], "kind")))
			d.kind = (uint32_t)num(v);
		else if (!strncmp(b->tok[i], "attr.", 5) && set_attr(&attr, b->tok[i] + 5))
			have_attr = true;
		else if ((v = opt_val(b->tok[i], "flags"))) {
			if (strstr(v, "stack"))
				d.flags |= PPF_EVF_STACK;
			if (strstr(v, "user_filter"))
				d.flags |= PPF_EVF_USER_FILTER;
			if (strstr(v, "kernel_filter"))
				d.flags |= PPF_EVF_KERNEL_FILTER;
		} else
			bad("unknown event option '%s'", b->tok[i]);
	}
	if (have_attr) {
		d.attr = &attr;
		d.attr_sz = sizeof(attr);
	}
	check(ppf_write_event_desc(b->w, &d), "event");
	free(format);
	e->next = b->events;
	b->events = e;
}

static void put_uint(uint8_t *raw, uint32_t off, uint32_t size, uint64_t v)
{
	for (uint32_t i = 0; i < size && i < 8; i++)
		raw[off + i] = (uint8_t)(v >> (8 * i));	/* little-endian captures */
}

static void parse_stack(const char *v, uint64_t **stack, uint32_t *nr)
{
	char *copy = pp_xstrdup(v), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		*stack = pp_xrealloc(*stack, (*nr + 1) * sizeof(**stack));
		if (!strcmp(t, "kernel"))
			(*stack)[(*nr)++] = CTX_KERNEL;
		else if (!strcmp(t, "user"))
			(*stack)[(*nr)++] = CTX_USER;
		else
			(*stack)[(*nr)++] = num(t);
	}
	free(copy);
}

/* u64 words (into *@w, replacing what it held) as bytes: their address, *@sz */
static const uint8_t *parse_words(const char *v, uint64_t **w, uint32_t *sz)
{
	uint32_t nw = 0;

	free(*w);
	*w = NULL;
	parse_stack(v, w, &nw);
	*sz = nw * 8;
	return (const uint8_t *)*w;
}

static void do_sample(struct builder *b)
{
	struct ppf_sample s = { .period = 1 };
	struct event *e;
	uint8_t *raw;
	uint32_t raw_sz, dyn_sz = 0, alloc;
	uint64_t *stack = NULL, *extra = NULL, *uregs = NULL, *ustack = NULL;
	bool have_type = false, have_pid = false, have_addr = false;

	if (b->nr_tok < 6)
		bad("usage: sample TIME CPU PID TID EVENT_ID [FIELD=VALUE...]");
	s.time_ns = when(b->tok[1]);
	s.cpu = (uint32_t)num(b->tok[2]);
	s.pid = (uint32_t)num(b->tok[3]);
	s.tid = (uint32_t)num(b->tok[4]);
	s.id = (uint32_t)num(b->tok[5]);
	e = event_find(b, s.id);
	alloc = e->fixed_sz + 4096;
	raw = pp_xcalloc(1, alloc);
	for (int i = 6; i < b->nr_tok; i++) {
		char *eq = strchr(b->tok[i], '=');
		if (!eq)
			bad("expected FIELD=VALUE, got '%s'", b->tok[i]);
		*eq = '\0';
		const char *name = b->tok[i], *v = eq + 1;
		struct field *f = NULL;
		for (size_t k = 0; k < e->nr_fields; k++)
			if (!strcmp(e->fields[k].name, name))
				f = &e->fields[k];
		if (!f) {
			if (!strcmp(name, "stack"))
				parse_stack(v, &stack, &s.nr_stack);
			else if (!strcmp(name, "period"))
				s.period = num(v);
			else if (!strcmp(name, "ip")) {
				s.ip = num(v);
				s.flags |= PPF_SF_IP;
			} else if (!strcmp(name, "addr")) {
				s.addr = num(v);
				s.flags |= PPF_SF_ADDR;
			} else if (!strcmp(name, "uregs")) {	/* USTACK: BP,SP,IP */
				free(uregs);
				uregs = NULL;
				s.nr_uregs = 0;
				parse_stack(v, &uregs, &s.nr_uregs);
				s.uregs = uregs;
				s.uregs_abi = 2;	/* PERF_SAMPLE_REGS_ABI_64 */
				s.flags |= PPF_SF_USTACK;
				if (s.nr_uregs >= 2 && !have_addr)
					s.ustack_addr = uregs[1];
			} else if (!strcmp(name, "ustack")) {	/* the copy, as u64 words */
				s.ustack = parse_words(v, &ustack, &s.ustack_sz);
				s.flags |= PPF_SF_USTACK;
			} else if (!strcmp(name, "ustack_addr")) {
				s.ustack_addr = num(v);
				have_addr = true;
			} else if (!strcmp(name, "extra")) {
				s.extra = parse_words(v, &extra, &s.extra_sz);
			} else
				bad("event %u has no field '%s'", s.id, name);
			continue;
		}
		if (!strcmp(name, "common_type"))
			have_type = true;
		if (!strcmp(name, "common_pid"))
			have_pid = true;
		if (f->is_data_loc) {
			uint32_t len = (uint32_t)strlen(v) + 1;
			uint32_t off = e->fixed_sz + dyn_sz;
			if (off + len > alloc)
				bad("dynamic data too large");
			memcpy(raw + off, v, len);
			dyn_sz += len;
			put_uint(raw, f->offset, 4, (uint64_t)len << 16 | off);
		} else if (f->is_string) {
			size_t n = strlen(v);
			if (n > f->size)
				bad("'%s' is longer than %s[%u]", v, name, f->size);
			memset(raw + f->offset, 0, f->size);
			memcpy(raw + f->offset, v, n);
		} else {
			put_uint(raw, f->offset, f->size, num(v));
		}
	}
	if (e->nr_fields) {
		if (!have_type)
			put_uint(raw, 0, 2, e->tp_id);
		if (!have_pid)
			put_uint(raw, 4, 4, s.tid);
		raw_sz = e->fixed_sz + dyn_sz;
		while ((raw_sz + 4) % 8)	/* perf pads the u32 size + data to 8 bytes */
			raw_sz++;
		s.raw = raw;
		s.raw_sz = raw_sz;
	}
	s.stack = stack;
	check(ppf_write_sample(b->w, &s), "sample");
	free(raw);
	free(stack);
	free(extra);
	free(uregs);
	free(ustack);
}


static void do_sideband(struct builder *b)
{
	struct pp_buf body = PP_BUF_INIT;
	struct ppf_sideband sb;
	uint32_t pid = UINT32_MAX, tid = UINT32_MAX;

	if (b->nr_tok < 4)
		bad("usage: sideband TIME CPU TYPE [u8:N|u16:N|u32:N|u64:N|str:TEXT|hex:BYTES]...");
	for (int i = 4; i < b->nr_tok; i++) {
		const char *t = b->tok[i], *v = strchr(t, ':');
		size_t w = 0;

		if (!v)
			bad("expected TYPE:VALUE, got '%s'", t);
		v++;
		if (!strncmp(t, "pid:", 4)) {
			pid = (uint32_t)num(v);
			continue;
		}
		if (!strncmp(t, "tid:", 4)) {
			tid = (uint32_t)num(v);
			continue;
		}
		if (!strncmp(t, "u8:", 3))
			w = 1;
		else if (!strncmp(t, "u16:", 4))
			w = 2;
		else if (!strncmp(t, "u32:", 4))
			w = 4;
		else if (!strncmp(t, "u64:", 4))
			w = 8;
		if (w) {
			uint64_t x = num(v);
			for (size_t k = 0; k < w; k++)
				pp_buf_addch(&body, (char)(x >> (8 * k)));
		} else if (!strncmp(t, "str:", 4)) {
			pp_buf_adds(&body, v);
			pp_buf_addch(&body, '\0');
		} else if (!strncmp(t, "hex:", 4)) {
			uint8_t bytes[256];
			uint32_t n = 0;
			for (; v[0] && v[1] && n < sizeof(bytes); v += 2) {
				int hi = hexval(v[0]), lo = hexval(v[1]);
				if (hi < 0 || lo < 0)
					bad("bad hex in '%s'", t);
				bytes[n++] = (uint8_t)(hi * 16 + lo);
			}
			for (uint32_t k = 0; k < n; k++)
				pp_buf_addch(&body, (char)bytes[k]);
		} else {
			bad("unknown item '%s'", t);
		}
	}
	while (body.len % 8)
		pp_buf_addch(&body, '\0');
	sb = (struct ppf_sideband){ .time_ns = when(b->tok[1]), .cpu = (uint32_t)num(b->tok[2]),
				    .perf_type = (uint32_t)num(b->tok[3]),
				    .data = (const uint8_t *)body.data, .size = (uint32_t)body.len,
				    .pid = pid, .tid = tid };
	check(ppf_write_sideband(b->w, &sb), "sideband");
	pp_buf_release(&body);
}

static void parse_build_id(const char *hex, uint8_t *out, uint32_t *sz)
{
	size_t n = strlen(hex);

	*sz = 0;
	if (!strcmp(hex, "-"))
		return;
	if (n % 2 || n > 40)
		bad("bad build id '%s'", hex);
	for (size_t i = 0; i < n; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);
		if (hi < 0 || lo < 0)
			bad("bad build id '%s'", hex);
		out[(*sz)++] = (uint8_t)(hi * 16 + lo);
	}
}

static void need(struct builder *b, int n, const char *usage)
{
	if (b->nr_tok < n)
		bad("usage: %s", usage);
}

static void do_counter(struct builder *b)
{
	struct ppf_counter_val v[PPF_COUNTER_MAX];
	struct ppf_counter c = { 0 };

	need(b, 7, "counter TIME CPU TID ENABLED RUNNING ID=VALUE...");
	c.time_ns = when(b->tok[1]);
	c.cpu = strcmp(b->tok[2], "-") ? (uint32_t)num(b->tok[2]) : UINT32_MAX;
	c.tid = strcmp(b->tok[3], "-") ? (uint32_t)num(b->tok[3]) : UINT32_MAX;
	c.enabled = num(b->tok[4]);
	c.running = num(b->tok[5]);
	for (int i = 6; i < b->nr_tok; i++) {
		char *eq = strchr(b->tok[i], '=');

		if (!eq || c.nr == PPF_COUNTER_MAX)
			bad("counter: '%s' is not ID=VALUE (at most %d)", b->tok[i], PPF_COUNTER_MAX);
		*eq = '\0';
		v[c.nr].id = (uint32_t)num(b->tok[i]);
		v[c.nr++].value = num(eq + 1);
	}
	c.v = v;
	check(ppf_write_counter(b->w, &c), "counter");
}

static void do_line(struct builder *b, char *line)
{
	const char *cmd;
	uint8_t bid[20];
	uint32_t bid_sz;

	tokenize(b, line);
	if (!b->nr_tok)
		return;
	cmd = b->tok[0];
	if (!strcmp(cmd, "kv")) {
		need(b, 2, "kv KEY VALUE...");
		struct pp_buf vb = PP_BUF_INIT;
		for (int i = 2; i < b->nr_tok; i++)
			pp_buf_addf(&vb, "%s%s", i > 2 ? " " : "", b->tok[i]);
		check(ppf_write_kv(b->w, b->tok[1], pp_buf_str(&vb)), "kv");
		pp_buf_release(&vb);
	} else if (!strcmp(cmd, "event")) {
		do_event(b);
	} else if (!strcmp(cmd, "syscall")) {
		need(b, 3, "syscall NR NAME");
		check(ppf_write_syscall(b->w, (uint32_t)num(b->tok[1]), b->tok[2]), "syscall");
	} else if (!strcmp(cmd, "task")) {
		need(b, 5, "task PID TID PPID COMM [CMDLINE...]");
		struct pp_buf cl = PP_BUF_INIT;
		for (int i = 5; i < b->nr_tok; i++)
			pp_buf_addf(&cl, "%s%s", i > 5 ? " " : "", b->tok[i]);
		struct ppf_task t = { (uint32_t)num(b->tok[1]), (uint32_t)num(b->tok[2]),
				      (uint32_t)num(b->tok[3]), b->tok[4], pp_buf_str(&cl) };
		check(ppf_write_task(b->w, &t), "task");
		pp_buf_release(&cl);
	} else if (!strcmp(cmd, "ksym")) {
		need(b, 3, "ksym ADDR NAME [TYPE [MODULE]]");
		struct ppf_ksym k = { num(b->tok[1]), b->nr_tok > 3 ? b->tok[3][0] : 't', b->tok[2],
				      b->nr_tok > 4 ? b->tok[4] : "" };
		check(ppf_write_ksym(b->w, &k), "ksym");
	} else if (!strcmp(cmd, "dso")) {
		need(b, 5, "dso PATH BUILD_ID_HEX TEXT_VADDR TEXT_OFFSET");
		parse_build_id(b->tok[2], bid, &bid_sz);
		struct ppf_dso d = { .build_id = bid, .build_id_sz = bid_sz, .path = b->tok[1],
				     .text_vaddr = num(b->tok[3]), .text_offset = num(b->tok[4]) };
		check(ppf_write_dso(b->w, &d), "dso");
	} else if (!strcmp(cmd, "sym")) {
		need(b, 4, "sym START SIZE NAME");
		struct ppf_sym s = { num(b->tok[1]), num(b->tok[2]), b->tok[3] };
		check(ppf_write_sym(b->w, &s), "sym");
	} else if (!strcmp(cmd, "unwind")) {
		need(b, 9, "unwind START END CFA CFA_OFF RA RA_OFF FP FP_OFF");
		struct ppf_unwind_row r = {
			num(b->tok[1]), num(b->tok[2]), (uint8_t)num(b->tok[3]), (uint8_t)num(b->tok[5]),
			(uint8_t)num(b->tok[7]), (int32_t)num(b->tok[4]), (int32_t)num(b->tok[6]),
			(int32_t)num(b->tok[8]),
		};
		check(ppf_write_unwind(b->w, PPF_UNWIND_X86_64, &r, 1), "unwind");
	} else if (!strcmp(cmd, "sample")) {
		do_sample(b);
	} else if (!strcmp(cmd, "comm")) {
		need(b, 5, "comm TIME PID TID COMM [exec]");
		struct ppf_comm c = { when(b->tok[1]), (uint32_t)num(b->tok[2]),
				      (uint32_t)num(b->tok[3]),
				      b->nr_tok > 5 && !strcmp(b->tok[5], "exec"), b->tok[4] };
		check(ppf_write_comm(b->w, &c), "comm");
	} else if (!strcmp(cmd, "fork") || !strcmp(cmd, "exit")) {
		need(b, 6, "fork|exit TIME PID PPID TID PTID");
		struct ppf_task_event t = { when(b->tok[1]), (uint32_t)num(b->tok[2]),
					    (uint32_t)num(b->tok[3]), (uint32_t)num(b->tok[4]),
					    (uint32_t)num(b->tok[5]) };
		check(cmd[0] == 'f' ? ppf_write_fork(b->w, &t) : ppf_write_exit(b->w, &t), cmd);
	} else if (!strcmp(cmd, "mmap")) {
		need(b, 8, "mmap TIME PID TID ADDR LEN PGOFF PATH [BUILD_ID_HEX]");
		bid_sz = 0;
		if (b->nr_tok > 8)
			parse_build_id(b->tok[8], bid, &bid_sz);
		struct ppf_mmap m = { .time_ns = when(b->tok[1]), .pid = (uint32_t)num(b->tok[2]),
				      .tid = (uint32_t)num(b->tok[3]), .addr = num(b->tok[4]),
				      .len = num(b->tok[5]), .pgoff = num(b->tok[6]), .prot = 5,
				      .flags = 2, .build_id = bid, .build_id_sz = bid_sz,
				      .path = b->tok[7] };
		check(ppf_write_mmap(b->w, &m), "mmap");
	} else if (!strcmp(cmd, "lost")) {
		need(b, 4, "lost TIME CPU COUNT");
		struct ppf_lost l = { when(b->tok[1]), (uint32_t)num(b->tok[2]), 0,
				      num(b->tok[3]) };
		check(ppf_write_lost(b->w, &l), "lost");
	} else if (!strcmp(cmd, "sync")) {
		need(b, 3, "sync PERF_NS REALTIME_NS");
		uint64_t base = b->time_base;
		struct ppf_time_sync s = { when(b->tok[1]), 0 };
		b->time_base = 0;
		s.realtime_ns = when(b->tok[2]) + base;
		b->time_base = base;
		check(ppf_write_time_sync(b->w, &s), "sync");
	} else if (!strcmp(cmd, "counter")) {
		do_counter(b);
	} else if (!strcmp(cmd, "stat")) {
		need(b, 3, "stat KEY VALUE");
		check(ppf_write_stat(b->w, b->tok[1], num(b->tok[2])), "stat");
	} else if (!strcmp(cmd, "sideband")) {
		do_sideband(b);
	} else if (!strcmp(cmd, "flush")) {
		check(ppf_writer_flush(b->w), "flush");
	} else {
		bad("unknown directive '%s'", cmd);
	}
}

/* "repeat COUNT STEP": read the block up to "end", then run it COUNT times. */
static void do_repeat(struct builder *b, char *line, FILE *in)
{
	char **block = NULL, *l = NULL, *copy;
	size_t nr = 0, cap = 0;
	uint64_t count, step;
	int first = b->line;

	tokenize(b, line);
	if (b->nr_tok != 3)
		bad("usage: repeat COUNT STEP ... end");
	count = num(b->tok[1]);
	step = num(b->tok[2]);
	while (getline(&l, &cap, in) > 0) {
		b->line++;
		if (!strncmp(l, "end", 3) && (!l[3] || isspace((unsigned char)l[3])))
			break;
		block = pp_xrealloc(block, (nr + 1) * sizeof(*block));
		block[nr++] = pp_xstrdup(l);
	}
	copy = pp_xmalloc(4096);
	for (uint64_t i = 0; i < count; i++) {
		b->time_base = i * step;
		for (size_t k = 0; k < nr; k++) {
			size_t n = strlen(block[k]) + 1;
			if (n > 4096)
				copy = pp_xrealloc(copy, n);
			memcpy(copy, block[k], n);
			b->line = first + 1 + (int)k;
			do_line(b, copy);
		}
	}
	b->time_base = 0;
	b->line = first + (int)nr + 1;
	for (size_t k = 0; k < nr; k++)
		free(block[k]);
	free(block);
	free(copy);
	free(l);
}

int main(int argc, char **argv)
{
	struct ppf_writer_opts o = { .created_ns = 1, .seg_max_raw = 0 };
	struct builder b = { 0 };
	char *line = NULL, *slash;
	size_t cap = 0;
	FILE *in;
	int opt;

	pp_progname = "capbuild";
	while ((opt = getopt(argc, argv, "l:s:")) != -1) {
		switch (opt) {
		case 'l': o.zstd_level = atoi(optarg); break;
		case 's': o.seg_max_raw = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	cur = &b;
	b.file = argv[optind];
	if (strcmp(b.file, "-")) {
		in = fopen(b.file, "r");
		if (!in)
			pp_die("cannot open '%s': %s", b.file, strerror(errno));
		slash = strrchr(b.file, '/');
		b.dir = slash ? pp_xstrndup(b.file, (size_t)(slash - b.file)) : NULL;
	} else {
		in = stdin;
	}
	int rc = ppf_writer_open(argv[optind + 1], &o, &b.w);
	if (rc)
		pp_die("cannot create '%s': %s", argv[optind + 1], strerror(-rc));
	while (getline(&line, &cap, in) > 0) {
		b.line++;
		if (!strncmp(line, "repeat", 6) && (line[6] == ' ' || line[6] == '\t'))
			do_repeat(&b, line, in);
		else
			do_line(&b, line);
	}
	if (ppf_writer_close(b.w))
		pp_die("cannot write '%s'", argv[optind + 1]);
	free(line);
	free((char *)b.dir);
	while (b.events) {
		struct event *e = b.events;
		b.events = e->next;
		free(e->fields);
		free(e);
	}
	if (in != stdin)
		fclose(in);
	return 0;
usage:
	fprintf(stderr, "usage: capbuild [-l LEVEL] [-s SEG_BYTES] DESCRIPTION|- OUTPUT\n");
	return 2;
}
