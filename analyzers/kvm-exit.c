/* SPDX-License-Identifier: MIT */
/*
 * kvm-exit.c - the time a vCPU spends in the host per VM exit, by exit reason.
 *
 * perf-prof's kvm-exit: each kvm:kvm_exit is kept per thread (a vCPU is one
 * thread) until the next kvm:kvm_entry of that thread; the delay between
 * them goes to the row (ISA, exit_reason), or (instance, ISA, exit_reason)
 * with --perins, where the instance is the thread, or the CPU when -C is
 * given.  Rows: calls, total, min, avg, p99, max in microseconds, and %gsys,
 * the share of that time for exits taken while the guest ran kernel code
 * (guest_rip >= 0xffff000000000000).  Sorted by total, largest first; with
 * -i a table per interval (rows reset), otherwise one at the end.
 * --than T prints the exit and entry events of every pair slower than T,
 * HLT excepted (a halted guest waits on purpose); --heatmap F writes "time
 * delay" lines to F.lat; --filter applies to kvm_exit only.
 * An exit followed by another exit of the same thread, or an entry without
 * an exit, is not a pair.  State (--state-out): the rows, and per range its
 * edges - each thread's exit left waiting at the end (tail) and whether the
 * thread's first event in the range was an entry (head), which meets the
 * range before's tail when two adjacent ranges merge.  Not here: the rows, their order and the exit
 * reason names, shared with bpf-kvm-exit (common/exit-stat.c, exit-reasons.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/state/state.h"
#include "common/err.h"
#include "common/exit-stat.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/wire.h"

#define KX_GUEST_KERNEL 0xffff000000000000ull
#define KX_GSYS 0			/* extra[] of a row: ns of exits taken in guest kernel mode */

/* The exit waiting for its entry, per thread. */
struct kx_exit {
	bool valid;
	uint64_t time_ns;
	uint32_t cpu, pid, isa, reason;
	uint64_t guest_rip;
	const struct ana_sel *sel;
	uint8_t *raw;			/* with --than: the event, to print it */
	uint32_t raw_sz, raw_cap;
};

/* A thread's first event in a range: an entry (it meets the range before's exit) or not. */
struct kx_head {
	bool entry;
	uint64_t time_ns;
	uint32_t cpu;
};

struct kx_priv {
	const struct pp_field *f_reason, *f_isa, *f_rip;
	unsigned exit_pos;		/* -e position of kvm_exit */
	struct pp_u64map pending;	/* tid -> struct kx_exit * */
	struct pp_exit_stat rows;	/* (ins, isa, reason) */
	bool cpu_ins;			/* instances are CPUs (-C) */
	FILE *heatmap;
	char *exit_sel;			/* "kvm:kvm_exit/FILTER/" */
	bool own_events;		/* set_events() ran: no -e was given */
	struct pp_buf line;
	struct pp_u64map rec_heads;	/* --state-out: tid -> struct kx_head */
	bool rec, rec_lost;
	struct ana_edges edges;		/* a state read: per source id, a struct ana_edge of
					 * heads (tid -> struct kx_head) and tails (waiting
					 * exits: tid -> struct kx_exit, valid) */
};

static int kx_set_events(struct pp_az *az, struct pp_strlist *events)
{
	if (az->opt.filter) {
		struct kx_priv *p = az->priv;

		p->exit_sel = pp_xasprintf("kvm:kvm_exit/%s/", az->opt.filter);
		pp_strlist_push(events, p->exit_sel);
	} else {
		pp_strlist_push(events, "kvm:kvm_exit");
	}
	pp_strlist_push(events, "kvm:kvm_entry");
	((struct kx_priv *)az->priv)->own_events = true;
	return 0;
}

static int kx_init(struct pp_az *az)
{
	struct kx_priv *p = az->priv;

	if (!p->own_events) {
		pp_err("kvm-exit: does not take -e: it uses kvm:kvm_exit and kvm:kvm_entry");
		return PP_EUSAGE;
	}
	p->rec = ana_state_recording(az);
	if (p->rec && (az->opt.than_ns || az->opt.verbose)) {
		pp_err("kvm-exit: %s with --state-out: it prints events as they come, and a state "
		       "holds the table only (replay the capture for them)",
		       az->opt.than_ns ? "--than" : "-v");
		return PP_EUSAGE;
	}
	p->exit_pos = 0;
	p->cpu_ins = az->opt.cpus && !az->opt.pids && !az->opt.tids;
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];

		if (m->pos != p->exit_pos)
			continue;
		p->f_reason = ana_field_find(m->type, "exit_reason");
		p->f_isa = ana_field_find(m->type, "isa");
		p->f_rip = ana_field_find(m->type, "guest_rip");
		if (!p->f_reason) {
			pp_err("kvm-exit: %s has no field 'exit_reason'", m->type->name);
			return PP_EUNKNOWN_FIELD;
		}
	}
	if (az->opt.heatmap && *az->opt.heatmap) {
		const char *hm = az->opt.heatmap;
		size_t n = strlen(hm);
		char *path = n > 4 && !strcmp(hm + n - 4, ".lat") ? pp_xstrdup(hm)
								  : pp_xasprintf("%s.lat", hm);

		p->heatmap = fopen(path, "w");
		if (!p->heatmap) {
			pp_err("kvm-exit: cannot create heatmap file '%s': %m", path);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

static void print_event(struct pp_az *az, const struct pp_event *ev)
{
	struct kx_priv *p = az->priv;

	pp_buf_reset(&p->line);
	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

/* The exit @x met its entry at @time_ns on @cpu in thread @tid: its row. */
static void add(struct pp_az *az, const struct kx_exit *x, uint64_t time_ns, uint32_t cpu,
		uint32_t tid)
{
	struct kx_priv *p = az->priv;
	uint64_t delta = time_ns - x->time_ns;
	uint32_t ins = !az->opt.perins ? 0 : p->cpu_ins ? cpu : tid;
	struct pp_exit_row *r = pp_exit_stat_row(&p->rows, ins, x->isa, x->reason);

	pp_hist_add(&r->h, delta);
	if (x->guest_rip >= KX_GUEST_KERNEL)
		r->extra[KX_GSYS] += delta;
	if (p->heatmap)
		fprintf(p->heatmap, "%llu %llu\n", (unsigned long long)x->time_ns,
			(unsigned long long)delta);
}

static void pair(struct pp_az *az, struct kx_exit *x, const struct pp_event *entry)
{
	uint64_t delta = entry->time_ns - x->time_ns;

	add(az, x, entry->time_ns, entry->cpu, entry->tid);
	if (az->opt.than_ns && delta > az->opt.than_ns && !pp_exit_reason_is_hlt(x->isa, x->reason) &&
	    az->out.format == ANA_FMT_TEXT) {
		struct pp_event ev = {
			.time_ns = x->time_ns, .cpu = x->cpu, .pid = x->pid, .tid = entry->tid,
			.type = x->sel->type, .sel = x->sel, .raw = x->raw, .raw_sz = x->raw_sz,
		};
		print_event(az, &ev);
		print_event(az, entry);
	}
}

static void kx_event(struct pp_az *az, const struct pp_event *ev)
{
	struct kx_priv *p = az->priv;
	void **slot = pp_u64map_slot(&p->pending, ev->tid);
	struct kx_exit *x = *slot;

	if (az->opt.verbose >= 2 && az->out.format == ANA_FMT_TEXT)
		print_event(az, ev);
	if (!x)
		x = *slot = pp_xcalloc(1, sizeof(*x));
	if (p->rec && !p->rec_lost && !pp_u64map_get(&p->rec_heads, ev->tid)) {
		/* the thread's first event in the range */
		struct kx_head *h = pp_xcalloc(1, sizeof(*h));
		h->entry = ev->sel->pos != p->exit_pos;
		h->time_ns = ev->time_ns;
		h->cpu = ev->cpu;
		pp_u64map_put(&p->rec_heads, ev->tid, h);
	}
	if (ev->sel->pos == p->exit_pos) {
		x->valid = true;
		x->time_ns = ev->time_ns;
		x->cpu = ev->cpu;
		x->pid = ev->pid;
		x->sel = ev->sel;
		x->reason = (uint32_t)ana_field_read(ev, p->f_reason);
		x->isa = p->f_isa ? (uint32_t)ana_field_read(ev, p->f_isa) : PP_KVM_ISA_VMX;
		x->guest_rip = p->f_rip ? ana_field_read(ev, p->f_rip) : 0;
		if (az->opt.than_ns) {
			if (x->raw_cap < ev->raw_sz) {
				x->raw = pp_xrealloc(x->raw, ev->raw_sz);
				x->raw_cap = ev->raw_sz;
			}
			if (ev->raw_sz)	/* a sample without raw data: raw is NULL */
				memcpy(x->raw, ev->raw, ev->raw_sz);
			x->raw_sz = ev->raw_sz;
		}
		return;
	}
	if (x->valid && ev->time_ns > x->time_ns)
		pair(az, x, ev);
	x->valid = false;
}

static void kx_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct kx_priv *p = az->priv;
	uint64_t k;
	void *v;

	/* the entry of a pending exit may be what was lost: do not pair across */
	for (size_t it = 0; pp_u64map_next(&p->pending, &it, &k, &v);)
		((struct kx_exit *)v)->valid = false;
	p->rec_lost = true;	/* nor with what the range before left */
	(void)l;
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct kx_priv *p = az->priv;
	bool text = az->out.format == ANA_FMT_TEXT, all_vmx;
	struct pp_exit_row **v;
	size_t n = pp_exit_stat_sorted(&p->rows, &v, &all_vmx);
	struct pp_table *t;
	char buf[64];

	if (!n) {
		free(v);
		return;
	}
	if (text)
		fprintf(az->out.fp, "%s kvm-exit latency\n",
			ana_time_str(az->s, now_ns, buf, sizeof(buf)));
	t = pp_table_new();
	if (az->opt.perins)
		pp_table_col(t, p->cpu_ins ? "[CPU]" : "[THREAD]", p->cpu_ins ? "cpu" : "thread",
			     0, 0);
	pp_exit_table_cols(t, all_vmx);
	pp_table_col(t, "%gsys", "gsys_pct", 0, 6);
	for (size_t i = 0; i < n; i++) {
		const struct pp_exit_row *r = v[i];
		uint64_t sum = pp_hist_sum(&r->h);

		pp_table_row(t);
		if (az->opt.perins) {
			if (text)
				pp_table_strf(t, p->cpu_ins ? "[%03u]" : "[%u]", (unsigned)r->ins);
			else
				pp_table_u64(t, r->ins);
		}
		pp_exit_table_cells(t, r);
		pp_table_num(t, "%.2f", sum ? r->extra[KX_GSYS] * 100.0 / sum : 0.0);
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "kvm_exit");
	if (text)
		fputc('\n', az->out.fp);
	pp_table_free(t);
	free(v);
}

static void kx_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
	pp_exit_stat_reset(&((struct kx_priv *)az->priv)->rows);
}

static int kx_finish(struct pp_az *az)
{
	ana_report_header(az);
	report(az, ana_capture_end_ns(az->s));
	return 0;
}

/* --- state (docs/state-format.md "kvm-exit") ------------------------------------------- */

static void *dup_of(const void *v, size_t n)
{
	return memcpy(pp_xmalloc(n), v, n);
}

static void put_edge(struct pp_buf *b, bool lost, const struct pp_u64map *heads,
		     const struct pp_u64map *tails)
{
	size_t n;
	uint64_t *keys = pp_u64map_keys(heads, &n);

	pp_wire_put_u8(b, lost);
	pp_wire_put_varint(b, n);
	for (size_t i = 0; i < n; i++) {
		const struct kx_head *h = pp_u64map_get(heads, keys[i]);
		pp_wire_put_varint(b, keys[i]);
		pp_wire_put_u8(b, h->entry);
		if (h->entry) {
			pp_wire_put_varint(b, h->time_ns);
			pp_wire_put_varint(b, h->cpu);
		}
	}
	free(keys);
	keys = pp_u64map_keys(tails, &n);
	size_t nv = 0;	/* a replay's map holds the threads' entries too: only waiting exits */
	for (size_t i = 0; i < n; i++)
		if (((struct kx_exit *)pp_u64map_get(tails, keys[i]))->valid)
			keys[nv++] = keys[i];
	pp_wire_put_varint(b, nv);
	for (size_t i = 0; i < nv; i++) {
		const struct kx_exit *x = pp_u64map_get(tails, keys[i]);
		pp_wire_put_varint(b, keys[i]);
		pp_wire_put_varint(b, x->time_ns);
		pp_wire_put_varint(b, x->cpu);
		pp_wire_put_varint(b, x->pid);
		pp_wire_put_varint(b, x->isa);
		pp_wire_put_varint(b, x->reason);
		pp_wire_put_varint(b, x->guest_rip);
	}
	free(keys);
}

static int kx_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct kx_priv *p = az->priv;
	const unsigned *ids;
	size_t n = ana_state_sources(az, &ids);

	pp_exit_stat_put(out, &p->rows, 1);
	if (p->rec) {
		pp_wire_put_varint(out, 1);
		put_edge(out, p->rec_lost, &p->rec_heads, &p->pending);
		return 0;
	}
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct ana_edge *e = ana_edge_of(&p->edges, ids[i]);
		put_edge(out, e->lost, &e->heads, &e->tails);
	}
	return 0;
}

static int read_edge(struct pp_wire *r, struct ana_edge *e)
{
	uint8_t lost = pp_wire_u8(r);
	size_t n = pp_wire_count(r, 2, SIZE_MAX, "heads");
	uint64_t prev = 0;

	if (pp_wire_ok(r) && lost > 1)
		return pp_wire_fail(r, PP_EBAD_RECORD, "lost flag %u", lost);
	e->lost = lost;
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint64_t tid = pp_wire_varint(r);
		uint8_t entry = pp_wire_u8(r);
		struct kx_head h = { .entry = entry == 1 };
		if (h.entry) {
			h.time_ns = pp_wire_varint(r);
			h.cpu = pp_wire_u32(r, "cpu");
		}
		if (pp_wire_ok(r) && ((i && tid <= prev) || tid > UINT32_MAX || entry > 1))
			return pp_wire_fail(r, PP_EBAD_RECORD, "head %zu: thread %llu", i,
					    (unsigned long long)tid);
		prev = tid;
		if (pp_wire_ok(r))
			pp_u64map_put(&e->heads, tid, dup_of(&h, sizeof(h)));
	}
	n = pp_wire_count(r, 7, SIZE_MAX, "tails");
	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint64_t tid = pp_wire_varint(r);
		struct kx_exit x = { .valid = true, .time_ns = pp_wire_varint(r) };
		x.cpu = pp_wire_u32(r, "cpu");
		x.pid = pp_wire_u32(r, "pid");
		x.isa = pp_wire_u32(r, "isa");
		x.reason = pp_wire_u32(r, "exit reason");
		x.guest_rip = pp_wire_varint(r);
		if (pp_wire_ok(r) && ((i && tid <= prev) || tid > UINT32_MAX))
			return pp_wire_fail(r, PP_EBAD_RECORD, "tail %zu: thread %llu", i,
					    (unsigned long long)tid);
		prev = tid;
		if (pp_wire_ok(r))
			pp_u64map_put(&e->tails, tid, dup_of(&x, sizeof(x)));
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

static int kx_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct kx_priv *p = az->priv;
	int rc = pp_exit_stat_read(in, &p->rows, 1);

	return rc ? rc : ana_edge_read(az, in, &p->edges, 3, read_edge);
}

/* A thread's first event of the later range meets the exit the earlier left waiting. */
static bool kx_meet(void *arg, uint64_t tid, const void *head, void *tail)
{
	const struct kx_head *h = head;
	const struct kx_exit *x = tail;

	if (h->entry && x && h->time_ns > x->time_ns)
		add(arg, x, h->time_ns, h->cpu, (uint32_t)tid);
	return true;	/* the thread's first event yet, whatever it met */
}

/*
 * Adjacent ranges: each thread's first event of the second range meets the exit the
 * first left; the threads the second did not touch keep the first's exit (unless a
 * loss in the second dropped it).
 */
static void kx_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct kx_priv *p = az->priv;

	ana_edge_join(&p->edges, before, after, kx_meet, az);
}

static void kx_release(struct pp_az *az)
{
	struct kx_priv *p = az->priv;
	uint64_t k;
	void *v;

	pp_u64map_free_all(&p->rec_heads);
	ana_edge_release(&p->edges);

	for (size_t it = 0; pp_u64map_next(&p->pending, &it, &k, &v);) {
		free(((struct kx_exit *)v)->raw);
		free(v);
	}
	pp_u64map_release(&p->pending);
	pp_exit_stat_release(&p->rows);
	if (p->heatmap)
		fclose(p->heatmap);
	pp_buf_release(&p->line);
	free(p->exit_sel);
}


const struct pp_analyzer_ops az_kvm_exit_ops = {
	.summary = "time from each VM exit to the next entry, by exit reason",
	.usage = "pp-analyze FILE kvm-exit [--perins] [--than T] [--heatmap FILE]\n"
		 "       [--filter FILTER] [-i MS]",
	.examples = "  pp-record --for 'kvm-exit' -p $(pidof qemu-system-x86_64) --duration 10\n"
		    "  pp-analyze pp.capture kvm-exit -i 1000\n"
		    "  pp-analyze pp.capture kvm-exit --perins --than 1ms\n"
		    "  pp-analyze pp.capture kvm-exit --filter 'exit_reason==48' --heatmap ept\n",
	.priv_size = sizeof(struct kx_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = kx_set_events,
	.init = kx_init,
	.event = kx_event,
	.lost = kx_lost,
	.interval = kx_interval,
	.finish = kx_finish,
	.release = kx_release,
	.state_version = 1,
	.state_write = kx_state_write,
	.state_read = kx_state_read,
	.state_join = kx_state_join,
};
