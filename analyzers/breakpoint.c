/* SPDX-License-Identifier: MIT */
/*
 * breakpoint.c - every hit of a hardware breakpoint, with the registers and the stack.
 *
 * perf-prof's breakpoint: one line per hit,
 *   <time> <comm> <tid> [cpu] sec.usec: breakpoint: 0xADDR/LEN:TYPE ip IP symbol
 * then the registers of the interrupted code (recorded by pp-record as the
 * sample's extra bytes, perf's REGS_INTR layout: abi, then one u64 per bit
 * of attr.sample_regs_intr), then the stack with -g.  A data breakpoint
 * traps after the access, so IP is the instruction after the one that
 * accessed the address.  The breakpoints are the capture's mem: events;
 * ADDR[/LEN][:TYPE] arguments select some of them (by address).
 * --flame-graph collects the stacks of the hits; --format json prints one
 * object per hit.
 *
 * The written value (x86-64 write breakpoints, as perf-prof on kernel ones):
 * pp-record saves the bytes before each hit's IP (insn.* KV records, see
 * record/perf/insn.h).  The writing instruction ends at the IP; of the
 * instructions of common/x86-insn.h that end there, the one whose
 * destination, computed from the registers, is the breakpoint's address
 * with its size is taken, else one that overlaps it, else (FS/GS-relative:
 * the segment base is not in the registers) one that cannot be checked;
 * the longest among equals.  Written value: MOV - the source register or
 * immediate; CMPXCHG - the source if ZF is set, else rAX (the unchanged
 * value, written back); a read-modify-write (ADD OR AND SUB XOR INC DEC NOT
 * NEG, shifts, rotates, BTS BTR BTC) - its operation applied to the value
 * the earlier decoded writes of this breakpoint left, when every byte of
 * it is known that way, else 0 when the operation left ZF set, else
 * unknown ("DATA: ?" with the operation and its operand).  That old value
 * assumes every write was seen: it is forgotten at a loss, at a hit whose
 * instruction is not decoded (XCHG, XADD, no bytes) and at a write it
 * cannot place, and not used at all with -C -p -t (hits are left out).
 * --filter EXPR keeps the hits whose written value is known and makes EXPR
 * (variable "data") non-zero.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/units.h"
#include "common/x86-insn.h"

#define BP_TYPE_R 1		/* HW_BREAKPOINT_R, _W, _X (uapi linux/hw_breakpoint.h) */
#define BP_TYPE_W 2
#define BP_TYPE_X 4

/* The fields of a perf_event_attr this analyzer reads (the ABI's offsets). */
#define ATTR_SAMPLE_REGS_INTR_OFF 96
#define ATTR_BP_TYPE_OFF 52
#define ATTR_BP_ADDR_OFF 56
#define ATTR_BP_LEN_OFF 64

#define REGS_ABI_64 2		/* PERF_SAMPLE_REGS_ABI_64 */
#define X86_REG_AX 0		/* perf_regs bits of AX and FLAGS */
#define X86_REG_FLAGS 9
#define X86_ZF (1u << 6)

struct bp_info {
	bool known;			/* from the attr, else parsed from the event name */
	uint64_t addr, len;
	uint32_t type;
	uint64_t regs_mask;
	uint64_t hits;
	bool decode;			/* an x86-64 write breakpoint with registers: decode */
	uint8_t val[8];			/* what the decoded writes left at [addr, addr + len) */
	uint8_t val_known;		/* which bytes of val are known (bit i: byte i) */
};

struct bp_priv {
	struct bp_info *bps;		/* by ana_sel.index */
	bool *skip;			/* by ana_sel.index: not a selected breakpoint */
	bool arm64;
	bool own_events;		/* set_events() ran: no -e was given */
	struct pp_expr *filter;		/* --filter on "data" */
	bool all_writes;		/* no -C -p -t: every hit is delivered (old values) */
	struct pp_flame *flame;
	struct pp_buf line;
};

/* How the value of a decoded write was found. */
enum bp_how {
	BP_DATA_UNKNOWN,		/* read-modify-write, old value unknown */
	BP_DATA_SOURCE,			/* MOV, CMPXCHG: a register or an immediate */
	BP_DATA_OLD,			/* read-modify-write applied to the known old value */
	BP_DATA_ZF,			/* read-modify-write that left ZF set: 0 */
};

/* The instruction that wrote, and what it wrote. */
struct bp_write {
	struct pp_x86_insn in;
	const uint8_t *bytes;		/* in.len bytes, borrowed from the hit's bytes */
	uint64_t addr;			/* written address (the offset in FS/GS when in.mem.seg) */
	bool addr_known;		/* false: a register of the address was not recorded */
	bool placed;			/* the written bytes are known to be at @at */
	uint64_t at;
	enum bp_how how;
	uint64_t data;			/* BP_DATA_UNKNOWN: 0 */
	uint64_t old;			/* BP_DATA_OLD: the value it was applied to */
};

static const char *const x86_regs[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

static int bp_set_events(struct pp_az *az, struct pp_strlist *events)
{
	/* pp-record names breakpoints "mem:ADDR/LEN:TYPE" */
	pp_strlist_push(events, "mem:*");
	((struct bp_priv *)az->priv)->own_events = true;
	return 0;
}

static uint64_t attr_u64(const struct ana_evtype *t, size_t off)
{
	uint64_t v = 0;

	if (t->attr && t->attr_sz >= off + 8)
		memcpy(&v, (const uint8_t *)t->attr + off, 8);
	return v;
}

static uint32_t attr_u32(const struct ana_evtype *t, size_t off)
{
	uint32_t v = 0;

	if (t->attr && t->attr_sz >= off + 4)
		memcpy(&v, (const uint8_t *)t->attr + off, 4);
	return v;
}

static uint32_t type_parse(const char *s)
{
	uint32_t t = 0;

	for (; *s; s++)
		t |= *s == 'r' ? BP_TYPE_R : *s == 'w' ? BP_TYPE_W : *s == 'x' ? BP_TYPE_X : 0;
	return t;
}

/* "mem:0x1234/8:w" -> addr, len, type; false when it does not parse (a symbol) */
static bool name_parse(const char *name, struct bp_info *b)
{
	char buf[256], *slash, *colon;

	if (strncmp(name, "mem:", 4) || strlen(name + 4) >= sizeof(buf))
		return false;
	strcpy(buf, name + 4);
	colon = strchr(buf, ':');
	slash = strchr(buf, '/');
	if (colon) {
		*colon = '\0';
		b->type = type_parse(colon + 1);
	}
	if (slash) {
		*slash = '\0';
		if (pp_parse_u64(slash + 1, &b->len))
			return false;
	}
	return !pp_parse_u64(buf, &b->addr);
}

static void type_str(uint32_t t, char *buf)
{
	char *p = buf;

	if (t & BP_TYPE_R)
		*p++ = 'r';
	if (t & BP_TYPE_W)
		*p++ = 'w';
	if (t & BP_TYPE_X)
		*p++ = 'x';
	*p = '\0';
}

/* Is breakpoint @b one of the ADDR[/LEN][:TYPE] arguments (all when there are none)? */
static bool selected(struct pp_az *az, const struct bp_info *b)
{
	if (!az->nr_args)
		return true;
	for (int i = 0; i < az->nr_args; i++) {
		char buf[256];
		uint64_t addr;

		snprintf(buf, sizeof(buf), "%s", az->args[i]);
		buf[strcspn(buf, "/:")] = '\0';
		if (!pp_parse_u64(buf, &addr) && addr == b->addr)
			return true;
	}
	return false;
}

static int bp_init(struct pp_az *az)
{
	struct bp_priv *p = az->priv;
	const char *machine = ana_host(az->s, "machine");
	size_t nr = 0, nr_decode = 0;
	bool x86;

	if (!p->own_events) {
		pp_err("breakpoint: give breakpoints as arguments ADDR[/LEN][:TYPE], not -e");
		return PP_EUSAGE;
	}
	p->arm64 = machine && !strcmp(machine, "aarch64");
	x86 = machine && !strcmp(machine, "x86_64");
	p->bps = pp_xcalloc(az->nr_sels + 1, sizeof(*p->bps));
	p->skip = pp_xcalloc(az->nr_sels + 1, sizeof(*p->skip));
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];
		const struct ana_evtype *t = m->type;
		struct bp_info *b = &p->bps[m->index];

		if (t->kind != 6 /* PPF_EV_BREAKPOINT */) {
			p->skip[m->index] = true;
			continue;
		}
		if (t->attr && t->attr_sz >= ATTR_SAMPLE_REGS_INTR_OFF + 8) {
			b->known = true;
			b->addr = attr_u64(t, ATTR_BP_ADDR_OFF);
			b->len = attr_u64(t, ATTR_BP_LEN_OFF);
			b->type = attr_u32(t, ATTR_BP_TYPE_OFF);
			b->regs_mask = attr_u64(t, ATTR_SAMPLE_REGS_INTR_OFF);
		} else {
			b->known = name_parse(t->name, b);
		}
		p->skip[m->index] = !selected(az, b);
		nr += !p->skip[m->index];
		b->decode = x86 && b->known && b->type == BP_TYPE_W && b->regs_mask &&
			    b->len <= 8;
		nr_decode += b->decode && !p->skip[m->index];
	}
	if (!nr) {
		pp_err("breakpoint: the capture has no breakpoint%s (record them with "
		       "pp-record --for 'breakpoint ADDR[/LEN][:TYPE]')",
		       az->nr_args ? " at these addresses" : "");
		return PP_EUNKNOWN_EVENT;
	}
	p->all_writes = !az->opt.cpus && !az->opt.pids && !az->opt.tids;
	if (az->opt.filter) {
		static const char *const vars[] = { "data" };
		int rc;

		if (!nr_decode) {
			pp_err("breakpoint: --filter tests the value an x86-64 write breakpoint's hit "
			       "wrote, and the capture has no such breakpoint%s",
			       az->nr_args ? " at these addresses" : "");
			return PP_EUSAGE;
		}
		rc = ana_expr_compile_vars(az, NULL, "--filter", az->opt.filter, vars, 1, &p->filter);
		if (rc)
			return rc;
	}
	if (az->opt.flame_graph)
		p->flame = pp_flame_new();
	return 0;
}

/* arm64 perf_regs: X0..X29, LR (30), SP (31), PC (32) */
static void arm64_reg(unsigned bit, char *buf, size_t sz)
{
	if (bit < 30)
		snprintf(buf, sz, "X%u", bit);
	else
		snprintf(buf, sz, "%s", bit == 30 ? "LR" : bit == 31 ? "SP" : "PC");
}

/* The registers of @ev in perf-prof's layout (text) or as a JSON object. */
static void regs_print(struct bp_priv *p, const struct ana_regs *r, bool json, struct pp_buf *out)
{
	const uint64_t *v = r->v;
	bool have[64];

	for (unsigned bit = 0; bit < 64; bit++)
		have[bit] = r->have & (1ull << bit);
	if (json) {
		bool first = true;

		pp_buf_adds(out, ",\"regs\":{");
		for (unsigned bit = 0; bit < 64; bit++) {
			if (!have[bit])
				continue;
			char name[8];

			if (p->arm64)
				arm64_reg(bit, name, sizeof(name));
			else if (bit < PP_ARRAY_SIZE(x86_regs))
				snprintf(name, sizeof(name), "%s", x86_regs[bit]);
			else
				continue;
			pp_buf_addf(out, "%s\"%s\":\"0x%llx\"", first ? "" : ",", name,
				    (unsigned long long)v[bit]);
			first = false;
		}
		pp_buf_addch(out, '}');
		return;
	}
	if (p->arm64) {
		unsigned col = 0;

		for (unsigned bit = 0; bit < 33; bit++) {
			char name[8];

			if (!have[bit])
				continue;
			arm64_reg(bit, name, sizeof(name));
			pp_buf_addf(out, "%s%3s: %016llx", col % 4 ? " " : "      ", name,
				    (unsigned long long)v[bit]);
			if (++col % 4 == 0)
				pp_buf_addch(out, '\n');
		}
		if (col % 4)
			pp_buf_addch(out, '\n');
		return;
	}
	ana_regs_print_x86(r, out);
}

/* --- the written value ---------------------------------------------------- */

static bool reg_val(const struct ana_regs *r, int reg, uint64_t *v)
{
	int bit = pp_x86_perf_reg(reg);

	if (bit < 0 || !(r->have & (1ull << bit)))
		return false;
	*v = r->v[bit];
	return true;
}

/* The address @in wrote at (without the FS/GS base); false when a register is missing. */
static bool write_addr(const struct pp_x86_insn *in, const struct ana_regs *r, uint64_t ip,
		       uint64_t *out)
{
	uint64_t a = (uint64_t)in->mem.disp, v;

	if (in->mem.base == PP_X86_REG_RIP) {
		a += ip;		/* the IP of a trap is the next instruction's: RIP */
	} else if (in->mem.base != PP_X86_REG_NONE) {
		if (!reg_val(r, in->mem.base, &v))
			return false;
		a += in->mem.addr32 ? (uint32_t)v : v;
	}
	if (in->mem.index != PP_X86_REG_NONE) {
		if (!reg_val(r, in->mem.index, &v))
			return false;
		a += (in->mem.addr32 ? (uint32_t)v : v) * in->mem.scale;
	}
	if (in->mem.addr32)
		a = (uint32_t)a;
	if (in->src == PP_X86_SRC_REG && (in->op == PP_X86_BTS || in->op == PP_X86_BTR ||
					  in->op == PP_X86_BTC)) {
		if (!reg_val(r, in->src_reg, &v))
			return false;
		a += (uint64_t)pp_x86_bt_disp(in, v);
	}
	*out = a;
	return true;
}

/* The source operand's value: a register (after the write), an immediate, CL. */
static bool src_val(const struct pp_x86_insn *in, const struct ana_regs *r, uint64_t *v)
{
	switch (in->src) {
	case PP_X86_SRC_REG:
		if (!reg_val(r, in->src_reg, v))
			return false;
		if (in->src_high8)
			*v >>= 8;
		return true;
	case PP_X86_SRC_IMM:
		*v = in->imm;
		return true;
	case PP_X86_SRC_CL:
		if (!reg_val(r, 1, v))
			return false;
		*v &= 0xff;
		return true;
	default:
		*v = 0;
		return true;
	}
}

/* "48 89 07" -> bytes; the part before ':' of an insn.* value. Return: the count, or -1. */
static int hex_before(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (; *s && *s != ':'; s += 2) {
		unsigned hi, lo;

		if (!s[1] || n == max || sscanf(s, "%1x%1x", &hi, &lo) != 2)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	return (int)n;
}

/*
 * Which instruction wrote: of the candidates ending at the IP, those whose
 * address overlaps the breakpoint (one whose FS/GS base is unknown cannot be
 * checked and ranks below), the same address and size as the breakpoint
 * first, then the longest.  Return: the candidate's index, or -1.
 */
static int pick(const struct bp_info *b, const struct pp_x86_insn *c, size_t nr,
		const struct ana_regs *r, uint64_t ip, struct bp_write *w)
{
	int best = -1, best_rank = 0;

	for (size_t i = 0; i < nr; i++) {
		uint64_t a = 0;
		bool computed = write_addr(&c[i], r, ip, &a);
		int rank;

		if (c[i].mem.seg || !computed)
			rank = 1;
		else if (a == b->addr && c[i].opsz == b->len)
			rank = 3;
		else if (a < b->addr + b->len && b->addr < a + c[i].opsz)
			rank = 2;
		else
			continue;
		if (rank > best_rank) {
			best = (int)i;
			best_rank = rank;
			w->addr = a;
			w->addr_known = computed;
		}
	}
	if (best >= 0) {
		/* a write that cannot be checked is taken to be at the breakpoint if of its size */
		w->placed = best_rank >= 2 || c[best].opsz == b->len;
		w->at = best_rank >= 2 ? w->addr : b->addr;
	}
	return best;
}

/* Keep what the write left at the breakpoint's bytes (or forget them). */
static void track(struct bp_info *b, const struct bp_write *w)
{
	if (!w || !w->placed) {
		b->val_known = 0;	/* something wrote somewhere in them */
		return;
	}
	for (unsigned j = 0; j < w->in.opsz; j++) {
		uint64_t off = w->at + j - b->addr;

		if (off >= b->len)
			continue;
		if (w->how == BP_DATA_UNKNOWN) {
			b->val_known &= (uint8_t)~(1u << off);
		} else {
			b->val[off] = (uint8_t)(w->data >> (8 * j));
			b->val_known |= (uint8_t)(1u << off);
		}
	}
}

/* The old value of the bytes @w writes, when every one of them is known. */
static bool old_val(const struct bp_info *b, const struct bp_write *w, uint64_t *old)
{
	*old = 0;
	if (!w->placed || w->at < b->addr || w->at + w->in.opsz > b->addr + b->len)
		return false;
	for (unsigned j = 0; j < w->in.opsz; j++) {
		uint64_t off = w->at + j - b->addr;

		if (!(b->val_known & (1u << off)))
			return false;
		*old |= (uint64_t)b->val[off] << (8 * j);
	}
	return true;
}

/*
 * Decode the write of hit @ev of breakpoint @b from the instruction bytes
 * pp-record saved for its IP.  Return: false when there is nothing to
 * decode (no bytes, no known instruction ending at the IP).
 */
static bool decode(struct pp_az *az, struct bp_info *b, const struct pp_event *ev,
		   const struct ana_regs *r, uint8_t *bytes, struct bp_write *w)
{
	struct bp_priv *p = az->priv;
	struct pp_x86_insn c[PP_X86_MAX_LEN];
	char key[64];
	const char *val;
	uint64_t src = 0, flags;
	int nb, i;
	size_t nr;

	memset(w, 0, sizeof(*w));
	if (ev->ip >= 0xffff000000000000ull)
		snprintf(key, sizeof(key), "insn.%llx", (unsigned long long)ev->ip);
	else
		snprintf(key, sizeof(key), "insn.%u.%llx", ev->pid, (unsigned long long)ev->ip);
	val = ana_host(az->s, key);
	if (!val || (nb = hex_before(val, bytes, PP_X86_MAX_LEN)) <= 0)
		return false;
	nr = pp_x86_decode_ending(bytes, (size_t)nb, c, PP_ARRAY_SIZE(c));
	i = pick(b, c, nr, r, ev->ip, w);
	if (i < 0)
		return false;
	w->in = c[i];
	w->bytes = bytes + nb - w->in.len;
	if (!src_val(&w->in, r, &src))
		return true;
	flags = (r->have & (1ull << X86_REG_FLAGS)) ? r->v[X86_REG_FLAGS] : 0;
	if (w->in.op == PP_X86_MOV) {
		w->data = pp_x86_apply(&w->in, 0, src);
		w->how = BP_DATA_SOURCE;
	} else if (w->in.op == PP_X86_CMPXCHG) {
		/* equal: the source was stored; else the old value, now in rAX, was written back */
		if (!(r->have & (1ull << X86_REG_FLAGS)) || !(r->have & (1ull << X86_REG_AX)))
			return true;
		w->data = pp_x86_apply(&w->in, 0, (flags & X86_ZF) ? src : r->v[X86_REG_AX]);
		w->how = BP_DATA_SOURCE;
	} else if (p->all_writes && old_val(b, w, &w->old)) {
		w->data = pp_x86_apply(&w->in, w->old, src);
		w->how = BP_DATA_OLD;
	} else if (pp_x86_sets_zf(&w->in, src) && (r->have & (1ull << X86_REG_FLAGS)) &&
		   (flags & X86_ZF)) {
		w->data = 0;
		w->how = BP_DATA_ZF;
	}
	return true;
}

/* "      INSN: 48 89 07  ADDR: 404020  DATA: 1  (movq %rax)" (perf-prof's, then how) */
static void write_print(const struct bp_write *w, bool json, struct pp_buf *out)
{
	char op[64], addr[64];

	const char *seg = !w->in.mem.seg ? "" : w->in.mem.seg == 0x64 ? "%fs:" : "%gs:";

	pp_x86_insn_str(&w->in, op, sizeof(op));
	if (w->addr_known)
		snprintf(addr, sizeof(addr), "%s%s%llx", seg, json ? "0x" : "",
			 (unsigned long long)w->addr);
	else
		snprintf(addr, sizeof(addr), "%s?", seg);
	if (json) {
		pp_buf_adds(out, ",\"insn\":\"");
		for (unsigned i = 0; i < w->in.len; i++)
			pp_buf_addf(out, "%s%02x", i ? " " : "", w->bytes[i]);
		pp_buf_addf(out, "\",\"op\":\"%s\",\"write_addr\":\"%s\",\"data\":", op, addr);
		if (w->how == BP_DATA_UNKNOWN)
			pp_buf_adds(out, "null");
		else
			pp_buf_addf(out, "\"0x%llx\"", (unsigned long long)w->data);
		if (w->how == BP_DATA_OLD)
			pp_buf_addf(out, ",\"old\":\"0x%llx\"", (unsigned long long)w->old);
		return;
	}
	pp_buf_adds(out, "      INSN: ");
	for (unsigned i = 0; i < w->in.len; i++)
		pp_buf_addf(out, "%02x ", w->bytes[i]);
	pp_buf_addf(out, " ADDR: %s  DATA: ", addr);
	switch (w->how) {
	case BP_DATA_SOURCE:
		pp_buf_addf(out, "%llx  (%s)\n", (unsigned long long)w->data, op);
		break;
	case BP_DATA_OLD:
		pp_buf_addf(out, "%llx  (%s, old %llx)\n", (unsigned long long)w->data, op,
			    (unsigned long long)w->old);
		break;
	case BP_DATA_ZF:
		pp_buf_addf(out, "0  (%s, ZF)\n", op);
		break;
	default:
		pp_buf_addf(out, "?  (%s, old value unknown)\n", op);
		break;
	}
}

static void bp_event(struct pp_az *az, const struct pp_event *ev)
{
	struct bp_priv *p = az->priv;
	struct bp_info *b = &p->bps[ev->sel->index];
	bool kernel = ev->ip >= 0xffff000000000000ull, have_regs, have_write = false;
	char ts[32], when[64], type[4], sym[256];
	uint8_t bytes[PP_X86_MAX_LEN];
	struct ana_regs regs;
	struct bp_write w;

	if (p->skip[ev->sel->index])
		return;
	b->hits++;
	have_regs = ana_regs_get(ev, b->regs_mask, &regs);
	if (b->decode && have_regs && regs.abi == REGS_ABI_64) {
		have_write = decode(az, b, ev, &regs, bytes, &w);
		track(b, have_write ? &w : NULL);
	}
	if (p->filter) {
		uint64_t data = have_write ? w.data : 0;

		if (!have_write || w.how == BP_DATA_UNKNOWN ||
		    !ana_expr_eval_vars(az, p->filter, ev, &data))
			return;
	}
	type_str(b->type, type);
	ana_frame_name(az->s, ev, ev->ip, kernel, sym, sizeof(sym));
	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(az->s, ev, &p->line);
		pp_buf_addf(&p->line, ",\"addr\":\"0x%llx\",\"len\":%llu,\"type\":\"%s\","
			    "\"ip\":\"0x%llx\",\"symbol\":", (unsigned long long)b->addr,
			    (unsigned long long)b->len, type, (unsigned long long)ev->ip);
		pp_buf_add_json_str(&p->line, sym);
		if (have_write)
			write_print(&w, true, &p->line);
		if (have_regs)
			regs_print(p, &regs, true, &p->line);
		ana_json_stack(az->s, ev, &p->line);
		pp_buf_adds(&p->line, "}\n");
	} else if (az->out.format == ANA_FMT_TEXT) {
		pp_buf_addf(&p->line,
			    "%s %16s %6u [%03u] %s: breakpoint: 0x%llx/%llu:%s ip %016llx %s\n",
			    ana_time_str(az->s, ev->time_ns, when, sizeof(when)),
			    ana_comm(az->s, ev->tid), ev->tid, ev->cpu,
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), (unsigned long long)b->addr,
			    (unsigned long long)b->len, type, (unsigned long long)ev->ip, sym);
		if (have_write)
			write_print(&w, false, &p->line);
		if (have_regs)
			regs_print(p, &regs, false, &p->line);
		if (ev->nr_stack)
			ana_stack_print(az->s, ev, &p->line);
	}
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
	if (p->flame)
		pp_flame_add(ana_stack_node(az, p->flame, ev), 1);
}

/* Samples were lost: a write may be among them, the known old values are not known any more. */
static void bp_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct bp_priv *p = az->priv;

	for (size_t i = 0; i < az->nr_sels; i++)
		p->bps[az->sels[i].index].val_known = 0;
}

static int bp_finish(struct pp_az *az)
{
	struct bp_priv *p = az->priv;
	int rc = 0;

	if (az->out.format == ANA_FMT_TEXT && az->opt.verbose) {
		for (size_t i = 0; i < az->nr_sels; i++) {
			const struct bp_info *b = &p->bps[az->sels[i].index];
			char type[4];

			if (p->skip[az->sels[i].index])
				continue;
			type_str(b->type, type);
			fprintf(az->out.fp, "breakpoint 0x%llx/%llu:%s hits %llu\n",
				(unsigned long long)b->addr, (unsigned long long)b->len, type,
				(unsigned long long)b->hits);
		}
	}
	if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "breakpoint", .unit = "hits" };
		char err[256];

		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("breakpoint: %s", err);
	}
	return rc;
}

static void bp_release(struct pp_az *az)
{
	struct bp_priv *p = az->priv;

	free(p->bps);
	free(p->skip);
	pp_expr_free(p->filter);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_breakpoint_ops = {
	.summary = "hardware breakpoint hits with registers, stacks and the value written",
	.usage = "pp-analyze FILE breakpoint [ADDR[/LEN][:TYPE]...] [--filter EXPR] [-g] "
		 "[--flame-graph FILE]",
	.examples = "  pp-record --for 'breakpoint 0x601040/8:w -g' -p 1234 --duration 10\n"
		    "  pp-record --for 'breakpoint 0xffffffff82345678/4:w' -a --duration 10\n"
		    "  pp-analyze pp.capture breakpoint\n"
		    "  pp-analyze pp.capture breakpoint 0x601040 --flame-graph bp.svg\n"
		    "  pp-analyze pp.capture breakpoint --filter 'data==1'\n",
	.priv_size = sizeof(struct bp_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = bp_set_events,
	.init = bp_init,
	.event = bp_event,
	.lost = bp_lost,
	.finish = bp_finish,
	.release = bp_release,
};
