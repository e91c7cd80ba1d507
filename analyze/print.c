/* SPDX-License-Identifier: MIT */
/*
 * print.c - how events, fields and stacks look: perf-prof's layouts.
 *
 * The trace line is "<wall time> <comm> <tid> <lat flags> [cpu] sec.usec:
 * sys:name: <print_fmt output>", sec.usec being the event clock: capture
 * time (CLOCK_MONOTONIC) plus the analyzer's --clock-offset.  The print_fmt part is libtraceevent's
 * rendering of the stored format, with kernel symbols resolved from the
 * capture's kallsyms through a function resolver.  Frames are resolved
 * from the capture only; a user frame without a symbol is named by its binary and file
 * offset (liblzma.so.5+0x1c2f0), a frame in no known mapping prints as [unknown].  The
 * perf script layout of a stack ("addr sym+0xoff (dso)") keeps perf's "[unknown] (dso)":
 * its binary is beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "analyze/internal.h"
#include "common/callchain.h"
#include "common/flamegraph.h"
#include "common/dwinline.h"
#include "common/quote.h"
#include "common/sat.h"
#include "common/symbolize.h"

#define PERF_CONTEXT_HV ((uint64_t)-32)
#define PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PERF_CONTEXT_USER ((uint64_t)-512)
#define PERF_CONTEXT_GUEST ((uint64_t)-2048)
#define PERF_CONTEXT_MAX ((uint64_t)-4095)

/*
 * The kernel's latency columns (trace_print_lat_fmt): irqs-off (D d b),
 * need-resched (B N L b n p l), hard/soft irq (Z z H h s), preempt depth.
 */
static void lat_flags(const struct pp_event *ev, char out[4])
{
	const struct ana_evtype_priv *x = ana_evtype_priv(ev->type);
	unsigned flags, pc = 0;

	memcpy(out, "....", 4);
	if (x->flags_off < 0 || !ev->raw || (uint32_t)x->flags_off >= ev->raw_sz)
		return;
	flags = ev->raw[x->flags_off];
	if (x->pc_off >= 0 && (uint32_t)x->pc_off < ev->raw_sz)
		pc = ev->raw[x->pc_off];
	bool bh_off = flags & 0x80, nmi = flags & 0x40, hard = flags & 0x08, soft = flags & 0x10;
	out[0] = (flags & 0x01) ? (bh_off ? 'D' : 'd') : bh_off ? 'b' : '.';
	switch (flags & 0x26) {	/* NEED_RESCHED 0x04, _LAZY 0x02, PREEMPT_RESCHED 0x20 */
	case 0x26: out[1] = 'B'; break;
	case 0x24: out[1] = 'N'; break;
	case 0x22: out[1] = 'L'; break;
	case 0x06: out[1] = 'b'; break;
	case 0x04: out[1] = 'n'; break;
	case 0x20: out[1] = 'p'; break;
	case 0x02: out[1] = 'l'; break;
	}
	out[2] = (nmi && hard) ? 'Z' : nmi ? 'z' : (hard && soft) ? 'H' : hard ? 'h'
		 : soft ? 's' : '.';
	pc &= 0xf;
	out[3] = pc ? "0123456789abcdef"[pc] : '.';
}

/*
 * How many bytes libtraceevent may read of @raw: it picks the format by the record's
 * common_type and reads each field, dynamic ones too, where that format says, never
 * asking the record's size.  evtype.c let in only formats whose fields lie within
 * 1 MiB, with common_type at 0: the record padded to this reach with zeros (a NUL
 * ends every string there) is read within its bounds (tests/fuzz found the overflow).
 * A field of size 0 (a flexible array, "u32 buf[]") is to libtraceevent the record's
 * size less its offset, unsigned: *@rec_sz, the size to tell it, reaches every such
 * offset (a record shorter than one made it copy 4 GB; tests/fuzz/fuzz-format).
 */
static size_t tep_reach(struct ana_session *s, const uint8_t *raw, uint32_t raw_sz,
			uint32_t *rec_sz)
{
	size_t need = raw_sz > 64 ? raw_sz : 64;	/* the common fields: evtype.c */
	uint16_t id = raw_sz >= 2 ? (uint16_t)(raw[0] | raw[1] << 8) : 0;
	struct tep_event *te = tep_find_event(s->tep, id);

	for (int common = 0; te && common < 2; common++)
		for (struct tep_format_field *f = common ? te->format.common_fields : te->format.fields;
		     f; f = f->next) {
			size_t end = (size_t)f->offset + (size_t)f->size;
			uint32_t loc = 0;
			if (end > need)
				need = end;
			if (!f->size && (uint32_t)f->offset > *rec_sz)
				*rec_sz = (uint32_t)f->offset;
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if ((size_t)f->offset + 4 <= raw_sz)
				memcpy(&loc, raw + f->offset, 4);
			end = (loc & 0xffff) + (loc >> 16) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? end : 0);
			if (end > need)
				need = end;
		}
	return need;
}

static void fields_generic(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	struct tep_record rec = { 0 };
	struct trace_seq seq;
	uint8_t small[1024], *copy;
	uint32_t rec_sz = ev->raw_sz;
	size_t need = tep_reach(s, ev->raw, ev->raw_sz, &rec_sz) + 1;

	copy = need <= sizeof(small) ? small : pp_xmalloc(need);
	if (ev->raw_sz)
		memcpy(copy, ev->raw, ev->raw_sz);
	memset(copy + ev->raw_sz, 0, need - ev->raw_sz);
	rec.ts = ev->time_ns;
	rec.cpu = (int)ev->cpu;
	rec.data = copy;
	rec.size = (int)rec_sz;
	rec.record_size = (int)rec_sz;
	trace_seq_init(&seq);
	tep_print_event(s->tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	pp_buf_add(out, seq.buffer, seq.len);
	trace_seq_destroy(&seq);
	if (copy != small)
		free(copy);
}

void ana_print_generic(struct ana_session *s, bool on)
{
	s->generic_print = on;
}

/*
 * The compiled print format (fastfmt.c) must print what libtraceevent
 * prints.  As a safety net, the first records of each type and then one in
 * 4096 are printed both ways; a difference drops the compiled format for
 * that type for the rest of the run (and says so with -v).
 */
static bool fields_fast(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	struct ana_evtype_priv *x = ana_evtype_priv(ev->type);
	size_t start = out->len;

	if (!x->fmt_tried) {
		x->fmt_tried = true;
		if (ana_fastfmt_compile(ev->type->tep, &x->fmt) == 0)
			pp_debug(1, "%s: compiled print format", ev->type->name);
	}
	if (!x->fmt)
		return false;
	if (!ana_fastfmt_print(s, x->fmt, ev->raw, ev->raw_sz, out))
		return false;
	if (x->nr_printed++ < 64 || !(x->nr_printed & 4095)) {
		pp_buf_reset(&s->print_check);
		fields_generic(s, ev, &s->print_check);
		/* an empty line of both: no data to compare (out->data may be NULL) */
		if (s->print_check.len != out->len - start ||
		    (s->print_check.len &&
		     memcmp(s->print_check.data, out->data + start, s->print_check.len))) {
			pp_debug(1, "%s: compiled print format differs from libtraceevent, dropped",
				 ev->type->name);
			ana_fastfmt_free(x->fmt);
			x->fmt = NULL;
			out->len = start;
			pp_buf_add(out, s->print_check.data, s->print_check.len);
		}
	}
	return true;
}

void ana_json_head(struct ana_session *s, uint64_t time_ns, uint32_t cpu, uint32_t pid,
		   uint32_t tid, unsigned what, struct pp_buf *out)
{
	char ts[32];

	pp_buf_addf(out, "{\"time\":%s,\"cpu\":%u", ana_ts_str(time_ns, ts, sizeof(ts)), cpu);
	if (what & ANA_JSON_TASK)
		pp_buf_addf(out, ",\"pid\":%u,\"tid\":%u", pid, tid);
	if (what & ANA_JSON_COMM) {
		pp_buf_adds(out, ",\"comm\":");
		pp_buf_add_json_str(out, ana_comm(s, tid));
	}
}

void ana_json_event_head(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	ana_json_head(s, ev->time_ns, ev->cpu, ev->pid, ev->tid, ANA_JSON_TASK | ANA_JSON_COMM, out);
}

void ana_event_fields(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	if (ev->type->tep && ev->raw) {
		if (s->generic_print || !fields_fast(s, ev, out))
			fields_generic(s, ev, out);
		return;
	}
	pp_buf_addf(out, "period=%llu", (unsigned long long)ev->period);
	if (ev->ip)
		pp_buf_addf(out, " ip=0x%llx", (unsigned long long)ev->ip);
	if (ev->addr)
		pp_buf_addf(out, " addr=0x%llx", (unsigned long long)ev->addr);
}

/* Append @v in decimal, right-aligned in @width (0: no padding), zero-padded if @zero. */
static char *put_u64(char *p, uint64_t v, int width, char padch)
{
	char tmp[24], *e = tmp + sizeof(tmp), *d = e;

	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (int n = width - (int)(e - d); n > 0; n--)
		*p++ = padch;
	memcpy(p, d, (size_t)(e - d));
	return p + (e - d);
}

/* "YYYY-MM-DD HH:MM:SS.uuuuuu", the strftime part cached per second. */
static char *put_wall(struct ana_session *s, char *p, uint64_t t_ns)
{
	uint64_t real;

	if (!s->have_sync) {
		p = put_u64(p, t_ns / 1000000000ull, 0, ' ');
		*p++ = '.';
		return put_u64(p, t_ns % 1000000000ull / 1000, 6, '0');
	}
	if (!pp_time_map_ns(t_ns, s->sync_perf_ns, s->sync_real_ns, &real)) {
		/* a time near 2^64: no wall clock, never a wrapped date (26 columns as one) */
		static const char oor[] = "(wall clock out of range) ";
		memcpy(p, oor, sizeof(oor) - 1);
		return p + sizeof(oor) - 1;
	}
	if (!s->wall_str[0] || real / 1000000000ull != s->wall_sec) {
		struct tm tm;
		time_t sec = (time_t)(real / 1000000000ull);
		localtime_r(&sec, &tm);
		strftime(s->wall_str, sizeof(s->wall_str), "%Y-%m-%d %H:%M:%S", &tm);
		s->wall_sec = real / 1000000000ull;
	}
	size_t n = strlen(s->wall_str);
	memcpy(p, s->wall_str, n);
	p += n;
	*p++ = '.';
	return put_u64(p, real % 1000000000ull / 1000, 6, '0');
}

/*
 * --clock-offset N: perf-prof adds N to the event clock it prints (the
 * sec.usec column), never to the wall time, and drops it with --tsc or
 * --kvmclock when it cannot convert the clock, as it cannot convert pp's
 * CLOCK_MONOTONIC.  The offset is that of the analyzer whose match @ev is
 * delivered for; an event of no match (a copy a script prints) takes the
 * first analyzer's that has one.
 */
static uint64_t clock_offset(const struct ana_session *s, const struct pp_event *ev)
{
	uintptr_t sel = (uintptr_t)ev->sel;
	uint64_t first = 0;

	for (size_t i = 0; i < s->nr_azs; i++) {
		const struct pp_az *az = s->azs[i];
		uintptr_t lo = (uintptr_t)az->sels;
		uint64_t off = az->opt.tsc || az->opt.kvmclock ? 0 : az->opt.clock_offset;

		if (sel && sel >= lo && sel < lo + az->nr_sels * sizeof(*az->sels))
			return off;
		if (!first)
			first = off;
	}
	return first;
}

/*
 * The part of @out from @start as one text field (common/quote.h): a string
 * field of the record may hold ESC, a newline or bytes that are not UTF-8.
 */
static void quote_tail(struct pp_buf *out, size_t start)
{
	size_t n = out->len - start;
	char *copy;

	if (pp_quote_safe_len(out->data + start, n, PP_QUOTE_FIELD) == n)
		return;
	copy = pp_xmalloc(n);
	memcpy(copy, out->data + start, n);
	out->len = start;
	pp_buf_add_quoted(out, copy, n, PP_QUOTE_FIELD);
	free(copy);
}

void ana_event_print(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	struct pp_buf qc = PP_BUF_INIT, qn = PP_BUF_INIT;
	const char *comm = pp_quote_str(&qc, ana_comm(s, ev->tid));
	const char *name = pp_quote_str(&qn, ev->type->name);
	size_t clen = strlen(comm), nlen = strlen(name), start;
	uint64_t evclock = ev->time_ns + clock_offset(s, ev);
	char *p;

	pp_buf_grow(out, 128 + clen + nlen);
	p = out->data + out->len;
	p = put_wall(s, p, ev->time_ns);
	*p++ = ' ';
	for (size_t i = clen; i < 16; i++)
		*p++ = ' ';
	memcpy(p, comm, clen);
	p += clen;
	*p++ = ' ';
	p = put_u64(p, ev->tid, 6, ' ');
	*p++ = ' ';
	lat_flags(ev, p);
	p += 4;
	memcpy(p, " [", 2);
	p = put_u64(p + 2, ev->cpu, 3, '0');
	memcpy(p, "] ", 2);
	p = put_u64(p + 2, evclock / 1000000000ull, 0, ' ');
	*p++ = '.';
	p = put_u64(p, evclock % 1000000000ull / 1000, 6, '0');
	memcpy(p, ": ", 2);
	memcpy(p + 2, name, nlen);
	p += 2 + nlen;
	memcpy(p, ": ", 2);
	p += 2;
	out->len = (size_t)(p - out->data);
	out->data[out->len] = '\0';
	start = out->len;
	ana_event_fields(s, ev, out);
	quote_tail(out, start);
	pp_buf_release(&qc);
	pp_buf_release(&qn);
}

/* A user address, with the debug file of its binary when the capture has no name for it. */
static bool user_lookup(struct ana_session *s, uint32_t pid, uint64_t time_ns, uint64_t addr,
			struct pp_sym_res *res)
{
	bool found = pp_symtab_lookup_user(s->syms, pid, time_ns, addr, res);

	if (s->debugsyms && res->build_id && ana_debugsyms_fill(s, res))
		found = pp_symtab_lookup_user(s->syms, pid, time_ns, addr, res);
	return found;
}

static bool resolve(struct ana_session *s, const struct pp_event *ev, uint64_t addr, bool kernel,
		    struct pp_sym_res *res)
{
	ana_session_finalize_syms(s);
	memset(res, 0, sizeof(*res));
	if (kernel)
		return pp_symtab_lookup_kernel(s->syms, addr, res);
	return user_lookup(s, ev->pid, ev->time_ns, addr, res);
}

const char *ana_frame_unnamed(const char *dso, uint64_t dso_off, bool kernel, char *buf,
			      size_t sz)
{
	const char *slash = dso ? strrchr(dso, '/') : NULL;
	const char *file = slash ? slash + 1 : dso;

	if (kernel || !file || !*file)
		snprintf(buf, sz, "[unknown]");
	else
		snprintf(buf, sz, "%s+0x%llx", file, (unsigned long long)dso_off);
	return buf;
}

/* snprintf(@buf, @sz, "%s", @s) without the format's cost: a frame's name is copied per frame */
static void copy_name(char *buf, size_t sz, const char *s)
{
	size_t n = strnlen(s, sz - 1);

	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* @res's name, or what ana_frame_unnamed() calls the frame */
static const char *res_name(const struct pp_sym_res *res, bool found, bool kernel, char *buf,
			    size_t sz)
{
	if (found)
		copy_name(buf, sz, res->name);
	else
		ana_frame_unnamed(res->dso, res->dso_off, kernel, buf, sz);
	return buf;
}

const char *ana_frame_name(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
			   bool kernel, char *buf, size_t sz)
{
	struct pp_sym_res res;
	bool found = resolve(s, ev, addr, kernel, &res) && res.name;

	return res_name(&res, found, kernel, buf, sz);
}

/* Walk @ev's callchain innermost first, calling @fn with each real frame. */
typedef void (*frame_fn)(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
			 bool kernel, void *arg);

/*
 * The next real frame of @ev's callchain from *@i on: context markers switch between
 * kernel and user, and user chains often end in a zero frame, which is skipped.
 */
static bool next_frame(const struct pp_event *ev, uint32_t *i, bool *kernel, uint64_t *addr)
{
	while (*i < ev->nr_stack) {
		uint64_t a = ev->stack[(*i)++];
		if (a >= PERF_CONTEXT_MAX) {
			*kernel = a == PERF_CONTEXT_KERNEL || a == PERF_CONTEXT_HV;
			continue;
		}
		if (a) {
			*addr = a;
			return true;
		}
	}
	return false;
}

/* The chain ends in PP_CONTEXT_TRUNCATED: an unwind of a stack copy stopped (analyze/unwind.c). */
static bool stack_truncated(const struct pp_event *ev)
{
	return ev->nr_stack && ev->stack[ev->nr_stack - 1] == PP_CONTEXT_TRUNCATED;
}

static void walk_stack(struct ana_session *s, const struct pp_event *ev, frame_fn fn, void *arg)
{
	bool kernel = false;
	uint32_t i = 0;
	uint64_t a;

	while (next_frame(ev, &i, &kernel, &a))
		fn(s, ev, a, kernel || a >= 0xffff000000000000ull, arg);
}

size_t ana_stack_frames(const struct pp_event *ev, struct ana_frame *out, size_t max)
{
	bool kernel = false;
	uint32_t i = 0;
	size_t n = 0;
	uint64_t a;

	while (n < max && next_frame(ev, &i, &kernel, &a))
		out[n++] = (struct ana_frame){ a, kernel || a >= 0xffff000000000000ull };
	return n;
}

bool ana_frame_resolve(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
		       bool kernel, struct ana_frame_info *fi)
{
	struct pp_sym_res res;
	bool found = resolve(s, ev, addr, kernel, &res) && res.name;

	*fi = (struct ana_frame_info){
		.name = found ? res.name : NULL,
		.mangled = found ? res.mangled : NULL,
		.sym_off = res.offset,
		.dso = res.dso ? res.dso : kernel ? "[kernel.kallsyms]" : NULL,
		.build_id = res.build_id,
		.dso_off = res.dso ? res.dso_off : addr,
		.jit = res.flags & PP_SYMR_JIT,
	};
	return found;
}

void ana_stack_iter_init(struct ana_stack_iter *it, const uint64_t *stack, uint32_t nr)
{
	it->stack = stack;
	it->nr = stack ? nr : 0;
	it->i = 0;
	it->kernel = false;
}

bool ana_stack_iter_next(struct ana_stack_iter *it, uint64_t *addr, bool *kernel)
{
	while (it->i < it->nr) {
		uint64_t a = it->stack[it->i++];
		if (a >= PERF_CONTEXT_MAX) {
			it->kernel = a == PERF_CONTEXT_KERNEL || a == PERF_CONTEXT_HV;
			continue;
		}
		if (!a)	/* user chains often end in a zero frame */
			continue;
		*addr = a;
		*kernel = it->kernel || a >= 0xffff000000000000ull;
		return true;
	}
	return false;
}

bool ana_frame_lookup(struct ana_session *s, uint32_t pid, uint64_t time_ns, uint64_t addr,
		       bool kernel, struct ana_frame_sym *out)
{
	struct pp_sym_res res;
	bool found;

	ana_session_finalize_syms(s);
	memset(&res, 0, sizeof(res));
	if (kernel)
		found = pp_symtab_lookup_kernel(s->syms, addr, &res);
	else
		found = user_lookup(s, pid, time_ns, addr, &res);
	out->addr = addr;
	out->kernel = kernel;
	out->symbol = found ? res.name : NULL;
	out->offset = found ? res.offset : 0;
	out->dso = res.dso ? res.dso : kernel ? "[kernel.kallsyms]" : NULL;
	out->dso_off = res.dso ? res.dso_off : addr;
	return found && res.name;
}

/*
 * The inline frames of user frame @addr (resolved into @res) when @inl is set: DWARF
 * lookups want the call instruction of a return address, so every user frame after the
 * first one of the stack is looked up at addr - 1.
 */
static bool frame_inlines(struct pp_inl *inl, const struct pp_sym_res *res, bool kernel,
			  bool *user_seen, struct pp_inl_res *ir)
{
	bool ret;

	if (!inl || kernel)
		return false;
	ret = *user_seen;
	*user_seen = true;
	if (!(res->flags & PP_SYMR_DSO) || !res->build_id || !res->dso || (ret && !res->vaddr))
		return false;
	return pp_inl_lookup(inl, res->build_id, res->dso, res->vaddr - ret, ir) && ir->nr;
}

struct print_walk {
	struct pp_buf *out;
	struct pp_inl *inl;
	bool user_seen;
};

static void print_frame(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
			bool kernel, void *arg)
{
	struct print_walk *w = arg;
	struct pp_buf *out = w->out;
	struct pp_buf qs = PP_BUF_INIT, qd = PP_BUF_INIT;
	struct pp_sym_res res;
	struct pp_inl_res ir;
	bool found = resolve(s, ev, addr, kernel, &res) && res.name;
	/* symbol names and paths come from the capture: one field each */
	const char *dso = pp_quote_str(&qd, res.dso ? res.dso : kernel ? "[kernel.kallsyms]"
								      : "[unknown]");

	/* perf script's form: the inlined functions first, at the same address */
	if (found && frame_inlines(w->inl, &res, kernel, &w->user_seen, &ir))
		for (uint32_t i = 0; i < ir.nr; i++)
			pp_buf_addf(out, "    %016llx %s" ANA_INLINED_SUFFIX "\n",
				    (unsigned long long)addr, pp_quote_str(&qs, ir.frames[i].name));
	if (found)
		pp_buf_addf(out, "    %016llx %s+0x%llx (%s)\n", (unsigned long long)addr,
			    pp_quote_str(&qs, res.name), (unsigned long long)res.offset, dso);
	else
		pp_buf_addf(out, "    %016llx [unknown] (%s)\n", (unsigned long long)addr, dso);
	pp_buf_release(&qs);
	pp_buf_release(&qd);
}

void ana_stack_print_inl(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			 struct pp_buf *out)
{
	struct print_walk w = { .out = out, .inl = inl };

	walk_stack(s, ev, print_frame, &w);
	if (stack_truncated(ev))
		pp_buf_adds(out, "    [truncated]\n");
}

void ana_stack_print(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	ana_stack_print_inl(s, ev, NULL, out);
}

struct folded {
	const char *names[256];
	char store[256][128];
	bool inlined[256];
	struct ana_fcache_val *src[256];	/* the cached frame a name is of, or NULL */
	uint16_t src_i[256];			/* its index there */
	unsigned nr;
	struct pp_inl *inl;
	enum ana_frame_key key;
	bool user_seen;
};

/* the file name of @res's binary: what ANA_FRAME_DSO* call it */
static const char *res_binary(const struct pp_sym_res *res, bool kernel)
{
	const char *slash = res->dso ? strrchr(res->dso, '/') : NULL;

	if (slash && slash[1])
		return slash + 1;
	return res->dso ? res->dso : kernel ? "[kernel.kallsyms]" : "[unknown]";
}

/* Append frame @name (with its binary, as f->key says) to @f. */
static void fold_name(struct folded *f, const struct pp_sym_res *res, bool kernel,
		      const char *name, bool inlined)
{
	char *st = f->store[f->nr];

	if (f->key == ANA_FRAME_DSO_SYM)
		snprintf(st, sizeof(f->store[0]), "%s`%s", res_binary(res, kernel), name);
	else if (f->key == ANA_FRAME_DSO)
		copy_name(st, sizeof(f->store[0]), res_binary(res, kernel));
	else
		copy_name(st, sizeof(f->store[0]), name);
	f->names[f->nr] = st;
	f->src[f->nr] = NULL;
	f->inlined[f->nr++] = inlined;
}

/* Fold the frame at @addr into @f: its inline frames, then its own name. */
static void fold_resolve(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
			 bool kernel, struct folded *f)
{
	struct pp_sym_res res;
	struct pp_inl_res ir;
	char name[128];
	bool found;

	if (!f->inl && f->key == ANA_FRAME_SYM) {
		f->names[f->nr] = ana_frame_name(s, ev, addr, kernel, f->store[f->nr],
						 sizeof(f->store[0]));
		f->src[f->nr] = NULL;
		f->inlined[f->nr++] = false;
		return;
	}
	found = resolve(s, ev, addr, kernel, &res) && res.name;
	if (found && f->key != ANA_FRAME_DSO &&
	    frame_inlines(f->inl, &res, kernel, &f->user_seen, &ir)) {
		for (uint32_t i = 0; i < ir.nr && f->nr < PP_ARRAY_SIZE(f->names) - 1; i++) {
			if (f->key == ANA_FRAME_SYM) {	/* borrowed: no copy */
				f->names[f->nr] = ir.frames[i].name;
				f->src[f->nr] = NULL;
				f->inlined[f->nr++] = true;
			} else {
				fold_name(f, &res, kernel, ir.frames[i].name, true);
			}
		}
	}
	res_name(&res, found, kernel, name, sizeof(name));
	fold_name(f, &res, kernel, name, false);
}

/* frames a stack folds into before the frame cache is left alone: none is ever cut there */
#define FOLD_CACHED_ROOM 240

/* What folding the frame at @addr depends on, for framecache.c; false: not to be cached. */
static bool fold_id(struct ana_session *s, const struct folded *f, const struct pp_event *ev,
		    uint64_t addr, bool kernel, bool ret, struct ana_fcache_id *id)
{
	id->inl = f->inl;
	id->mode = (uint32_t)f->key << 1 | ret;
	return pp_symtab_frame_id(s->syms, ev->pid, ev->time_ns, addr, kernel, id->w);
}

static void fold_frame(struct ana_session *s, const struct pp_event *ev, uint64_t addr,
		       bool kernel, void *arg)
{
	struct folded *f = arg;
	struct ana_fcache_val *v;
	struct ana_fcache_id id;
	unsigned first = f->nr;
	bool seen = f->user_seen;

	if (f->nr >= PP_ARRAY_SIZE(f->names))
		return;
	ana_session_finalize_syms(s);
	if (first < FOLD_CACHED_ROOM && fold_id(s, f, ev, addr, kernel, seen, &id) &&
	    (v = ana_fcache_get(s, &id)) && first + v->nr <= FOLD_CACHED_ROOM) {
		for (uint32_t i = 0; i < v->nr; i++) {
			f->names[f->nr] = v->names[i];
			f->src[f->nr] = v;
			f->src_i[f->nr] = (uint16_t)i;
			f->inlined[f->nr++] = v->inlined[i];
		}
		f->user_seen |= v->sets_user_seen;
		return;
	}
	fold_resolve(s, ev, addr, kernel, f);
	/* the key again: resolving may have added the debug file's symbols to the binary */
	if (f->nr <= FOLD_CACHED_ROOM && fold_id(s, f, ev, addr, kernel, seen, &id))
		ana_fcache_put(s, &id, f->names + first, f->inlined + first, f->nr - first,
			       f->user_seen && !seen);
}

/* @ev's frames, folded into s->fold_scratch: innermost first. */
static struct folded *fold_stack(struct ana_session *s, const struct pp_event *ev,
				 struct pp_inl *inl, enum ana_frame_key key)
{
	struct folded *f = s->fold_scratch;

	if (!f)
		f = s->fold_scratch = pp_xmalloc(sizeof(*f));
	f->nr = 0;
	f->inl = inl;
	f->key = key;
	f->user_seen = false;
	walk_stack(s, ev, fold_frame, f);
	return f;
}

/*
 * A folded line is text: the comm and the names as fields (common/quote.h).  A ';' in the
 * comm would be a frame boundary, and in a name a ';' or a space; the inline marker keeps its
 * space, as perf prints it.
 */
static void fold_comm(struct pp_buf *out, const char *comm)
{
	size_t start = out->len;

	pp_buf_add_quoted(out, comm, strlen(comm), PP_QUOTE_FIELD);
	for (char *p = out->data + start; *p; p++)
		if (*p == ';')
			*p = '_';
}

static void fold_token(struct pp_buf *out, const char *name, bool inlined)
{
	size_t start = out->len;

	pp_buf_add_quoted(out, name, strlen(name), PP_QUOTE_FIELD);
	for (char *p = out->data + start; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	if (inlined)
		pp_buf_adds(out, ANA_INLINED_SUFFIX);
}

void ana_stack_folded_key(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			  enum ana_frame_key key, struct pp_buf *out)
{
	struct folded *f = fold_stack(s, ev, inl, key);

	fold_comm(out, ana_comm(s, ev->tid));
	if (stack_truncated(ev))	/* the unwind stopped: its frames hang from this root */
		pp_buf_adds(out, ";[truncated]");
	for (unsigned i = f->nr; i-- > 0;) {
		pp_buf_addch(out, ';');
		fold_token(out, f->names[i], f->inlined[i]);
	}
}

/* The child of @n named as token @b holds (none when empty, as pp_flame_path() skips it). */
static struct pp_flame_node *token_child(struct pp_flame *fg, struct pp_flame_node *n,
					 const struct pp_buf *b)
{
	return b->len ? pp_flame_child(fg, n, b->data, b->len) : n;
}

/* The names of cached frame @v as @fg interned them: made once per tree. */
static const char *const *memo_names(struct pp_flame *fg, struct ana_fcache_val *v,
				     struct pp_buf *b)
{
	uint64_t serial = pp_flame_serial(fg);

	if (v->memo && v->memo_serial == serial)
		return v->memo;
	if (!v->memo)
		v->memo = pp_xmalloc(v->nr * sizeof(*v->memo));
	for (uint32_t i = 0; i < v->nr; i++) {
		pp_buf_reset(b);
		fold_token(b, v->names[i], v->inlined[i]);
		v->memo[i] = b->len ? pp_flame_intern(fg, b->data, b->len) : NULL;
	}
	v->memo_serial = serial;
	return v->memo;
}

struct pp_flame_node *ana_stack_flame(struct ana_session *s, const struct pp_event *ev,
				      struct pp_inl *inl, enum ana_frame_key key, struct pp_flame *fg)
{
	struct folded *f = fold_stack(s, ev, inl, key);
	struct pp_flame_node *n = pp_flame_root(fg);
	struct pp_buf *b = &s->fold_tok;	/* kept: a distinct stack each call */

	pp_buf_reset(b);
	fold_comm(b, ana_comm(s, ev->tid));
	n = token_child(fg, n, b);
	if (stack_truncated(ev))
		n = pp_flame_child(fg, n, "[truncated]", strlen("[truncated]"));
	for (unsigned i = f->nr; i-- > 0;) {
		const char *in;

		if (f->src[i]) {
			in = memo_names(fg, f->src[i], b)[f->src_i[i]];
			if (in)
				n = pp_flame_child_interned(fg, n, in);
			continue;
		}
		pp_buf_reset(b);
		fold_token(b, f->names[i], f->inlined[i]);
		n = token_child(fg, n, b);
	}
	return n;
}

void ana_stack_folded_inl(struct ana_session *s, const struct pp_event *ev, struct pp_inl *inl,
			  struct pp_buf *out)
{
	ana_stack_folded_key(s, ev, inl, ANA_FRAME_SYM, out);
}

void ana_stack_folded(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	ana_stack_folded_inl(s, ev, NULL, out);
}

void ana_json_stack(struct ana_session *s, const struct pp_event *ev, struct pp_buf *out)
{
	struct pp_buf f = PP_BUF_INIT;

	if (!ev->nr_stack)
		return;
	ana_stack_folded(s, ev, &f);
	pp_buf_adds(out, ",\"stack\":");
	pp_buf_add_json_str(out, pp_buf_str(&f));
	pp_buf_release(&f);
}
