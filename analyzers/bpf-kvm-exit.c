/* SPDX-License-Identifier: MIT */
/*
 * bpf-kvm-exit.c - perf-prof's bpf:kvm_exit, computed from tracepoints.
 *
 * perf-prof's BPF program builds, for each VM exit slower than --threshold,
 * {tgid, pid, isa, switches, exit_reason, latency, run_delay, sched_latency}
 * from kvm_exit, kvm_entry and sched_switch; here the same is built from the
 * capture's kvm:kvm_exit, kvm:kvm_entry, sched:sched_switch and
 * sched:sched_wakeup.  Per vCPU thread, from its exit to its next entry:
 *   latency        entry - exit
 *   switches       how many times it was switched back in
 *   sched_latency  its time off the CPU (switch-out to switch-in, summed)
 *   run_delay      the part of that spent runnable: from a preemption, or
 *                  from its wakeup, to the switch-in (the kernel's run_delay)
 *   wait           sched_latency - run_delay: asleep (a halted vCPU)
 * Without sched_wakeup in the capture, time after a sleep counts as wait.
 * Each exit is then handled as perf-prof's user space handles the BPF
 * output: rows per (instance, ISA, reason) with the total wait and run delay
 * (CPU mode), --than prints the exits whose delay (run delay for HLT) is
 * over T, --output2 appends each process's largest such value per interval.
 * With -p/-t (or a capture without sched_switch), perf-prof's process mode:
 * latency only, instances are threads.  Not here: the rows and reason names
 * shared with kvm-exit (common/exit-stat.c, exit-reasons.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyzers/bpf-kvm-exit.h"
#include "common/err.h"
#include "common/exit-stat.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"

#define BK_THRESHOLD_NS 1000000ull	/* perf-prof's default --threshold */
enum { BK_POS_EXIT, BK_POS_ENTRY, BK_POS_SWITCH, BK_POS_WAKEUP };
enum { BK_WAIT, BK_RUNDELAY, BK_SWITCHES };	/* extra[] of a row */

/* One vCPU thread between an exit and its entry. */
struct bk_vcpu {
	bool pending;			/* an exit waits for its entry */
	uint32_t isa, reason;
	uint64_t exit_ns;
	uint32_t switches;
	uint64_t off_ns;		/* switched out at, 0 while on a CPU */
	uint64_t runnable_ns;		/* off the CPU but runnable since, or 0 */
	uint64_t sched_latency, run_delay;
};

/* One exit, as perf-prof's BPF program hands it over (struct kvm_vcpu_event). */
struct bk_exit {
	uint64_t time_ns;		/* of the entry */
	uint32_t cpu, tgid, pid, isa, reason, switches;
	uint64_t latency, run_delay, sched_latency;
};

struct bk_priv {
	const struct pp_field *f_reason, *f_isa, *f_ret, *f_esr_ec;
	const struct pp_field *f_prev_pid, *f_prev_state, *f_next_pid, *f_wakeup_pid;
	struct ana_prev_state ps;	/* the capture's prev_state encoding */
	bool own_events;		/* set_events() ran: no -e was given */
	bool oncpu;			/* CPU mode: sched events, wait and rundelay columns */
	bool thread_rows;		/* --perins rows of threads (PID THREAD COMM) */
	uint64_t threshold_ns;
	struct pp_u64map vcpus;		/* tid -> struct bk_vcpu * */
	struct pp_exit_stat rows;
	struct pp_exit_stat out2;	/* --output2: (tgid, 0, 0) */
	FILE *output2;
	bool seen_exit;
	struct pp_buf line;
};

static int bk_set_events(struct pp_az *az, struct pp_strlist *events)
{
	struct bk_priv *p = az->priv;

	p->own_events = true;
	pp_strlist_push(events, "kvm:kvm_exit");
	pp_strlist_push(events, "kvm:kvm_entry");
	/* perf-prof's process mode (-p/-t) has no sched events; nor has such a capture */
	p->oncpu = !az->opt.pids && !az->opt.tids &&
		   ana_evtype_find(az->s, "sched:sched_switch");
	if (!p->oncpu)
		return 0;
	pp_strlist_push(events, "sched:sched_switch");
	if (ana_evtype_find(az->s, "sched:sched_wakeup"))
		pp_strlist_push(events, "sched:sched_wakeup");
	return 0;
}

static int bk_field(const struct ana_evtype *t, const char *name, const struct pp_field **f)
{
	*f = ana_field_find(t, name);
	if (*f)
		return 0;
	pp_err("bpf-kvm-exit: %s has no field '%s'", t->name, name);
	return PP_EUNKNOWN_FIELD;
}

static int bk_init(struct pp_az *az)
{
	struct bk_priv *p = az->priv;
	const struct bpf_kvm_exit_opts *o = az->opts;
	int rc = 0;

	if (!p->own_events) {
		pp_err("bpf-kvm-exit: does not take -e: it uses kvm:kvm_exit, kvm:kvm_entry, "
		       "sched:sched_switch and sched:sched_wakeup");
		return PP_EUSAGE;
	}
	p->threshold_ns = o->threshold_ns ? o->threshold_ns : BK_THRESHOLD_NS;
	p->thread_rows = az->opt.perins && (!p->oncpu || az->opt.detail);
	for (size_t i = 0; i < az->nr_sels && !rc; i++) {
		const struct ana_evtype *t = az->sels[i].type;

		switch (az->sels[i].pos) {
		case BK_POS_EXIT:
			p->f_reason = ana_field_find(t, "exit_reason");
			p->f_isa = ana_field_find(t, "isa");
			/* arm64: the exception code, and the ESR class of traps */
			p->f_ret = ana_field_find(t, "ret");
			p->f_esr_ec = ana_field_find(t, "esr_ec");
			if (!p->f_reason && !(p->f_ret && p->f_esr_ec))
				rc = bk_field(t, "exit_reason", &p->f_reason);
			break;
		case BK_POS_SWITCH:
			rc = bk_field(t, "prev_pid", &p->f_prev_pid);
			if (!rc)
				rc = bk_field(t, "prev_state", &p->f_prev_state);
			if (!rc)
				rc = bk_field(t, "next_pid", &p->f_next_pid);
			ana_prev_state_init(az->s, t, &p->ps);
			break;
		case BK_POS_WAKEUP:
			rc = bk_field(t, "pid", &p->f_wakeup_pid);
			break;
		}
	}
	if (!rc && o->output2) {
		p->output2 = fopen(o->output2, "a");
		if (!p->output2) {
			pp_err("bpf-kvm-exit: cannot open --output2 file '%s': %m", o->output2);
			rc = -1;
		}
	}
	return rc;
}

static struct bk_vcpu *vcpu_get(struct bk_priv *p, uint32_t tid, bool create)
{
	void **slot;

	if (!create)
		return pp_u64map_get(&p->vcpus, tid);
	slot = pp_u64map_slot(&p->vcpus, tid);
	if (!*slot)
		*slot = pp_xcalloc(1, sizeof(struct bk_vcpu));
	return *slot;
}

static void exit_reason(const struct bk_priv *p, const struct pp_event *ev, struct bk_vcpu *v)
{
	if (p->f_reason) {
		v->reason = (uint32_t)ana_field_read(ev, p->f_reason);
		v->isa = p->f_isa ? (uint32_t)ana_field_read(ev, p->f_isa) : PP_KVM_ISA_VMX;
		return;
	}
	/* arm64 (perf-prof's EXIT_REASON()): a trap is its ESR class, else 0x80000000|code */
	uint32_t ret = (uint32_t)ana_field_read(ev, p->f_ret) & ~(1u << 31);

	v->isa = PP_KVM_ISA_ARM;
	v->reason = ret == 2 ? (uint32_t)ana_field_read(ev, p->f_esr_ec) : 0x80000000u | ret;
}

/* The value --than and --output2 look at: the delay, or for a halt the run delay. */
static uint64_t bk_value(const struct bk_exit *x)
{
	return pp_exit_reason_is_hlt(x->isa, x->reason) ? x->run_delay : x->latency;
}

static uint64_t bk_wait(const struct bk_exit *x)
{
	return x->sched_latency > x->run_delay ? x->sched_latency - x->run_delay : 0;
}

static void bk_print(struct pp_az *az, const struct bk_exit *x)
{
	struct bk_priv *p = az->priv;
	char wall[48], ts[32], name[64];

	pp_buf_reset(&p->line);
	pp_exit_reason_name(x->isa, x->reason, name, sizeof(name));
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_head(az->s, x->time_ns, x->cpu, x->tgid, x->pid,
			      ANA_JSON_TASK | ANA_JSON_COMM, &p->line);
		pp_buf_adds(&p->line, ",\"exit_reason\":");
		pp_buf_add_json_str(&p->line, name);
		pp_buf_addf(&p->line, ",\"latency_ns\":%llu", (unsigned long long)x->latency);
		if (p->oncpu)
			pp_buf_addf(&p->line, ",\"wait_ns\":%llu,\"rundelay_ns\":%llu,\"switches\":%u",
				    (unsigned long long)bk_wait(x),
				    (unsigned long long)x->run_delay, x->switches);
		pp_buf_adds(&p->line, "}\n");
	} else if (az->out.format == ANA_FMT_TEXT) {
		pp_buf_addf(&p->line, "%s %18s %8u    [%03u] %s: bpf:kvm_exit: %s lat %llu",
			    ana_time_str(az->s, x->time_ns, wall, sizeof(wall)),
			    ana_comm(az->s, x->pid), x->pid, x->cpu,
			    ana_ts_str(x->time_ns, ts, sizeof(ts)), name,
			    (unsigned long long)x->latency);
		if (p->oncpu)
			pp_buf_addf(&p->line, " wait %llu rundelay %llu sw %u",
				    (unsigned long long)bk_wait(x),
				    (unsigned long long)x->run_delay, x->switches);
		pp_buf_addch(&p->line, '\n');
	}
	if (p->line.len)	/* csv: the tables only */
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

/* One exit over the threshold: perf-prof's bpf_kvm_exit_sample(). */
static void bk_sample(struct pp_az *az, const struct bk_exit *x)
{
	struct bk_priv *p = az->priv;
	bool hlt = pp_exit_reason_is_hlt(x->isa, x->reason);
	uint64_t ins = 0;
	struct pp_exit_row *r;

	if (az->opt.perins) {
		if (!p->oncpu)
			ins = (uint64_t)x->tgid << 32 | x->pid;
		else if (az->opt.detail)	/* halts per process: they are idle vCPUs */
			ins = (uint64_t)x->tgid << 32 | (hlt ? x->tgid : x->pid);
		else
			ins = x->tgid;
	}
	r = pp_exit_stat_row(&p->rows, ins, x->isa, x->reason);
	pp_hist_add(&r->h, x->latency);
	if (p->oncpu) {
		r->extra[BK_WAIT] += bk_wait(x);
		r->extra[BK_RUNDELAY] += x->run_delay;
		r->extra[BK_SWITCHES] += x->switches;
	}
	if (p->output2)
		pp_hist_add(&pp_exit_stat_row(&p->out2, x->tgid, 0, 0)->h, bk_value(x));
	if (az->opt.verbose >= 2 || (az->opt.than_ns && bk_value(x) > az->opt.than_ns))
		bk_print(az, x);
}

static void bk_entry(struct pp_az *az, const struct pp_event *ev, struct bk_vcpu *v)
{
	struct bk_priv *p = az->priv;
	struct bk_exit x;

	if (!v->pending || ev->time_ns < v->exit_ns)
		return;
	v->pending = false;
	x = (struct bk_exit){
		.time_ns = ev->time_ns, .cpu = ev->cpu, .tgid = ev->pid, .pid = ev->tid,
		.isa = v->isa, .reason = v->reason, .latency = ev->time_ns - v->exit_ns,
		.switches = v->switches,
	};
	if (x.switches) {	/* the BPF program reports these only after a switch */
		x.sched_latency = v->sched_latency;
		x.run_delay = v->run_delay;
	}
	if (x.latency > p->threshold_ns)
		bk_sample(az, &x);
}

static void bk_switch(struct bk_priv *p, const struct pp_event *ev)
{
	struct bk_vcpu *prev = vcpu_get(p, (uint32_t)ana_field_read(ev, p->f_prev_pid), false);
	struct bk_vcpu *next = vcpu_get(p, (uint32_t)ana_field_read(ev, p->f_next_pid), false);

	if (prev && prev->pending) {
		prev->off_ns = ev->time_ns;
		/* preempted (0 "R", "R+" as the capture's format marks it): runnable at once */
		prev->runnable_ns = ana_prev_state_runnable(&p->ps,
							    ana_field_read(ev, p->f_prev_state)) ?
				    ev->time_ns : 0;
	}
	if (next && next->pending && next->off_ns) {
		next->switches++;
		next->sched_latency += ev->time_ns - next->off_ns;
		if (next->runnable_ns)
			next->run_delay += ev->time_ns - next->runnable_ns;
		next->off_ns = next->runnable_ns = 0;
	}
}

static void bk_event(struct pp_az *az, const struct pp_event *ev)
{
	struct bk_priv *p = az->priv;
	struct bk_vcpu *v;

	switch (ev->sel->pos) {
	case BK_POS_EXIT:
		v = vcpu_get(p, ev->tid, true);
		*v = (struct bk_vcpu){ .pending = true, .exit_ns = ev->time_ns };
		exit_reason(p, ev, v);
		p->seen_exit = true;
		break;
	case BK_POS_ENTRY:
		v = vcpu_get(p, ev->tid, false);
		if (v)
			bk_entry(az, ev, v);
		break;
	case BK_POS_SWITCH:
		bk_switch(p, ev);
		break;
	case BK_POS_WAKEUP:
		v = vcpu_get(p, (uint32_t)ana_field_read(ev, p->f_wakeup_pid), false);
		if (v && v->pending && v->off_ns && !v->runnable_ns)
			v->runnable_ns = ev->time_ns;
		break;
	}
}

static void bk_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct bk_priv *p = az->priv;
	uint64_t k;
	void *v;

	/* what was lost may be an entry or a switch: no exit spans a loss */
	for (size_t it = 0; pp_u64map_next(&p->vcpus, &it, &k, &v);)
		((struct bk_vcpu *)v)->pending = false;
	(void)l;
}

static void bk_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
	struct bk_priv *p = az->priv;

	free(pp_u64map_del(&p->vcpus, tid));
	(void)pid;
	(void)time_ns;
}

static void bk_table(struct pp_az *az, uint64_t now_ns)
{
	struct bk_priv *p = az->priv;
	bool text = az->out.format == ANA_FMT_TEXT, all_vmx;
	struct pp_exit_row **v;
	size_t n = pp_exit_stat_sorted(&p->rows, &v, &all_vmx);
	struct pp_table *t;
	char buf[48];

	if (!n) {
		free(v);
		return;
	}
	if (text)
		fprintf(az->out.fp, "%s kvm_exit latency\n",
			ana_time_str(az->s, now_ns, buf, sizeof(buf)));
	t = pp_table_new();
	if (az->opt.perins) {
		pp_table_col(t, "PID", "pid", 0, 6);
		if (p->thread_rows) {
			pp_table_col(t, "THREAD", "thread", 0, 6);
			pp_table_col(t, "COMM", "comm", PP_COL_LEFT, 15);
		}
	}
	pp_exit_table_cols(t, all_vmx);
	if (p->oncpu) {
		pp_table_col(t, "total wait(us)", "wait_us", 0, 14);
		pp_table_col(t, "rundelay(us)", "rundelay_us", 0, 12);
	}
	for (size_t i = 0; i < n; i++) {
		const struct pp_exit_row *r = v[i];

		pp_table_row(t);
		if (az->opt.perins) {
			pp_table_u64(t, r->ins >> (p->thread_rows ? 32 : 0));
			if (p->thread_rows) {
				pp_table_u64(t, (uint32_t)r->ins);
				pp_table_str(t, ana_comm(az->s, (uint32_t)r->ins));
			}
		}
		pp_exit_table_cells(t, r);
		if (p->oncpu) {
			pp_table_num(t, "%.3f", r->extra[BK_WAIT] / 1000.0);
			pp_table_num(t, "%.3f", r->extra[BK_RUNDELAY] / 1000.0);
		}
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "bpf_kvm_exit");
	if (text)
		fputc('\n', az->out.fp);
	pp_table_free(t);
	free(v);
}

/* --output2: "   PID  max-latency(us)" rows, appended to the file as perf-prof does. */
static void bk_output2(struct pp_az *az, uint64_t now_ns)
{
	struct bk_priv *p = az->priv;
	struct pp_exit_row **v;
	bool all_vmx;
	size_t n = pp_exit_stat_sorted(&p->out2, &v, &all_vmx);
	char buf[48];

	if (n)
		fprintf(p->output2, "%s \n   PID  max-latency(us)\n",
			ana_time_str(az->s, now_ns, buf, sizeof(buf)));
	for (size_t i = 0; i < n; i++)
		fprintf(p->output2, "%6llu  %.3f\n", (unsigned long long)v[i]->ins,
			pp_hist_max(&v[i]->h) / 1000.0);
	fflush(p->output2);
	free(v);
}

static void bk_report(struct pp_az *az, uint64_t now_ns)
{
	struct bk_priv *p = az->priv;

	bk_table(az, now_ns);
	pp_exit_stat_reset(&p->rows);
	if (p->output2) {
		bk_output2(az, now_ns);
		pp_exit_stat_reset(&p->out2);
	}
}

static int bk_finish(struct pp_az *az)
{
	struct bk_priv *p = az->priv;

	ana_report_header(az);
	bk_report(az, ana_capture_end_ns(az->s));
	if (!p->seen_exit)
		pp_warn("bpf-kvm-exit: no VM exit in the capture: no KVM guest ran on the %s",
			p->oncpu ? "recorded CPUs" : "recorded tasks (-p/-t)");
	return 0;
}

static void bk_release(struct pp_az *az)
{
	struct bk_priv *p = az->priv;
	uint64_t k;
	void *v;

	for (size_t it = 0; pp_u64map_next(&p->vcpus, &it, &k, &v);)
		free(v);
	pp_u64map_release(&p->vcpus);
	pp_exit_stat_release(&p->rows);
	pp_exit_stat_release(&p->out2);
	if (p->output2)
		fclose(p->output2);
	pp_buf_release(&p->line);
}

const struct pp_analyzer_ops az_bpf_kvm_exit_ops = {
	.summary = "perf-prof's bpf:kvm_exit: VM exit delays with run delay and switches, "
		   "from tracepoints",
	.usage = "pp-analyze FILE bpf:kvm_exit [-C CPUS | -p PID] [-i MS] [--perins [--detail]]\n"
		 "       [--than T] [--threshold T] [--output2 FILE]\n\n"
		 "perf-prof's bpf:kvm_exit (bpf-kvm-exit is the same analyzer).  perf-prof builds\n"
		 "each exit in a BPF program; pp computes it from the kvm:kvm_exit, kvm:kvm_entry,\n"
		 "sched:sched_switch and sched:sched_wakeup tracepoints of the capture, no BPF needed.\n"
		 "Rows per exit reason count the exits longer than --threshold (1ms); on CPUs (not\n"
		 "-p/-t) with the time the vCPU slept (total wait) or waited for a CPU (rundelay)\n"
		 "before its entry.  --than T prints each exit over T (a HLT: its run delay over T);\n"
		 "--perins: rows per process, per thread with --detail or -p/-t; --output2 FILE\n"
		 "appends each process's largest non-HLT delay per interval.",
	.examples = "  pp bpf:kvm_exit -C 1-4 -i 1000 --perins\n"
		    "  pp bpf:kvm_exit -p $(pidof qemu-system-x86_64) -i 1000 --than 50ms\n"
		    "  pp-record --for 'bpf:kvm_exit' -C 0-7 --duration 30 -o vm.capture\n"
		    "  pp-analyze vm.capture bpf:kvm_exit --threshold 10ms --than 20ms\n"
		    "  pp-analyze vm.capture bpf:kvm_exit -i 1000 --perins --detail --format json\n",
	.priv_size = sizeof(struct bk_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = bk_set_events,
	.init = bk_init,
	.event = bk_event,
	.lost = bk_lost,
	.task_exit = bk_task_exit,
	.interval = bk_report,
	.finish = bk_finish,
	.release = bk_release,
};
