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
 * an exit, is not a pair.  Not here: the rows, their order and the exit
 * reason names, shared with bpf-kvm-exit (common/exit-stat.c, exit-reasons.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/exit-stat.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"

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

static void pair(struct pp_az *az, struct kx_exit *x, const struct pp_event *entry)
{
	struct kx_priv *p = az->priv;
	uint64_t delta = entry->time_ns - x->time_ns;
	uint32_t ins = !az->opt.perins ? 0 : p->cpu_ins ? entry->cpu : entry->tid;
	struct pp_exit_row *r = pp_exit_stat_row(&p->rows, ins, x->isa, x->reason);

	pp_hist_add(&r->h, delta);
	if (x->guest_rip >= KX_GUEST_KERNEL)
		r->extra[KX_GSYS] += delta;
	if (p->heatmap)
		fprintf(p->heatmap, "%llu %llu\n", (unsigned long long)x->time_ns,
			(unsigned long long)delta);
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

static void kx_release(struct pp_az *az)
{
	struct kx_priv *p = az->priv;
	uint64_t k;
	void *v;

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
};
