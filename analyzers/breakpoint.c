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
 * object per hit.  Not here: decoding the value an instruction wrote (it
 * needs the instruction bytes, which pp-record does not save yet).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/units.h"

#define BP_TYPE_R 1		/* HW_BREAKPOINT_R, _W, _X (uapi linux/hw_breakpoint.h) */
#define BP_TYPE_W 2
#define BP_TYPE_X 4

/* The fields of a perf_event_attr this analyzer reads (the ABI's offsets). */
#define ATTR_SAMPLE_REGS_INTR_OFF 96
#define ATTR_BP_TYPE_OFF 52
#define ATTR_BP_ADDR_OFF 56
#define ATTR_BP_LEN_OFF 64

struct bp_info {
	bool known;			/* from the attr, else parsed from the event name */
	uint64_t addr, len;
	uint32_t type;
	uint64_t regs_mask;
	uint64_t hits;
};

struct bp_priv {
	struct bp_info *bps;		/* by ana_sel.index */
	bool *skip;			/* by ana_sel.index: not a selected breakpoint */
	bool arm64;
	bool own_events;		/* set_events() ran: no -e was given */
	struct pp_flame *flame;
	struct pp_buf line;
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
	size_t nr = 0;

	if (!p->own_events) {
		pp_err("breakpoint: give breakpoints as arguments ADDR[/LEN][:TYPE], not -e");
		return PP_EUSAGE;
	}
	p->arm64 = machine && !strcmp(machine, "aarch64");
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
	}
	if (!nr) {
		pp_err("breakpoint: the capture has no breakpoint%s (record them with "
		       "pp-record --for 'breakpoint ADDR[/LEN][:TYPE]')",
		       az->nr_args ? " at these addresses" : "");
		return PP_EUNKNOWN_EVENT;
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
static void regs_print(struct bp_priv *p, const struct bp_info *b, const struct pp_event *ev,
		       bool json, struct pp_buf *out)
{
	uint64_t v[64] = { 0 }, abi;
	bool have[64] = { false };
	unsigned n = 0;

	if (ev->extra_sz < 8 || !b->regs_mask)
		return;
	memcpy(&abi, ev->extra, 8);
	if (!abi)
		return;
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(b->regs_mask & (1ull << bit)))
			continue;
		if (8 + 8 * (n + 1) > ev->extra_sz)
			break;
		memcpy(&v[bit], ev->extra + 8 + 8 * n, 8);
		have[bit] = true;
		n++;
	}
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
	/* x86_64: perf_regs numbering AX=0 ... SS=11, R8=16 ... R15=23 */
	static const struct { const char *n[3]; unsigned r[3]; } rows[] = {
		{ { "RAX", "RBX", "RCX" }, { 0, 1, 2 } },
		{ { "RDX", "RSI", "RDI" }, { 3, 4, 5 } },
		{ { "RBP", "R08", "R09" }, { 6, 16, 17 } },
		{ { "R10", "R11", "R12" }, { 18, 19, 20 } },
		{ { "R13", "R14", "R15" }, { 21, 22, 23 } },
	};
	pp_buf_addf(out, "      RIP: %016llx RSP: %016llx RFLAGS:%08llx\n",
		    (unsigned long long)v[8], (unsigned long long)v[7], (unsigned long long)v[9]);
	for (size_t i = 0; i < PP_ARRAY_SIZE(rows); i++)
		pp_buf_addf(out, "      %s: %016llx %s: %016llx %s: %016llx\n", rows[i].n[0],
			    (unsigned long long)v[rows[i].r[0]], rows[i].n[1],
			    (unsigned long long)v[rows[i].r[1]], rows[i].n[2],
			    (unsigned long long)v[rows[i].r[2]]);
	pp_buf_addf(out, "      CS: %04llx SS: %04llx\n", (unsigned long long)v[10],
		    (unsigned long long)v[11]);
}

static void bp_event(struct pp_az *az, const struct pp_event *ev)
{
	struct bp_priv *p = az->priv;
	struct bp_info *b = &p->bps[ev->sel->index];
	bool kernel = ev->ip >= 0xffff000000000000ull;
	char ts[32], when[64], type[4], sym[256];

	if (p->skip[ev->sel->index])
		return;
	b->hits++;
	type_str(b->type, type);
	ana_frame_name(az->s, ev, ev->ip, kernel, sym, sizeof(sym));
	pp_buf_reset(&p->line);
	if (az->out.format == ANA_FMT_JSON) {
		pp_buf_addf(&p->line, "{\"time\":%s,\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), ev->cpu, ev->pid, ev->tid);
		pp_buf_add_json_str(&p->line, ana_comm(az->s, ev->tid));
		pp_buf_addf(&p->line, ",\"addr\":\"0x%llx\",\"len\":%llu,\"type\":\"%s\","
			    "\"ip\":\"0x%llx\",\"symbol\":", (unsigned long long)b->addr,
			    (unsigned long long)b->len, type, (unsigned long long)ev->ip);
		pp_buf_add_json_str(&p->line, sym);
		regs_print(p, b, ev, true, &p->line);
		if (ev->nr_stack) {
			struct pp_buf f = PP_BUF_INIT;

			ana_stack_folded(az->s, ev, &f);
			pp_buf_adds(&p->line, ",\"stack\":");
			pp_buf_add_json_str(&p->line, pp_buf_str(&f));
			pp_buf_release(&f);
		}
		pp_buf_adds(&p->line, "}\n");
	} else if (az->out.format == ANA_FMT_TEXT) {
		pp_buf_addf(&p->line,
			    "%s %16s %6u [%03u] %s: breakpoint: 0x%llx/%llu:%s ip %016llx %s\n",
			    ana_time_str(az->s, ev->time_ns, when, sizeof(when)),
			    ana_comm(az->s, ev->tid), ev->tid, ev->cpu,
			    ana_ts_str(ev->time_ns, ts, sizeof(ts)), (unsigned long long)b->addr,
			    (unsigned long long)b->len, type, (unsigned long long)ev->ip, sym);
		regs_print(p, b, ev, false, &p->line);
		if (ev->nr_stack)
			ana_stack_print(az->s, ev, &p->line);
	}
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
	if (p->flame)
		pp_flame_add(ana_stack_node(az, p->flame, ev), 1);
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
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}

extern const struct pp_plan_ops azp_breakpoint_plan;

const struct pp_analyzer_ops az_breakpoint_ops = {
	.name = "breakpoint",
	.summary = "hardware breakpoint hits with registers and stacks",
	.usage = "pp-analyze FILE breakpoint [ADDR[/LEN][:TYPE]...] [-g] [--flame-graph FILE]",
	.examples = "  pp-record --for 'breakpoint 0x601040/8:w -g' -p 1234 --duration 10\n"
		    "  pp-record --for 'breakpoint 0xffffffff82345678/4:w' -a --duration 10\n"
		    "  pp-analyze pp.capture breakpoint\n"
		    "  pp-analyze pp.capture breakpoint 0x601040 --flame-graph bp.svg\n",
	.plan = &azp_breakpoint_plan,
	.priv_size = sizeof(struct bp_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = bp_set_events,
	.init = bp_init,
	.event = bp_event,
	.finish = bp_finish,
	.release = bp_release,
};
