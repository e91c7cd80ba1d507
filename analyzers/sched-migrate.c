/* SPDX-License-Identifier: MIT */
/*
 * sched-migrate.c - task migrations between CPUs and how many stay within a
 * cache (perf-prof's sched-migrate).
 *
 * Each sched_migrate_task counts as same-L2 and/or same-LLC when the source
 * and destination CPUs share that cache.  The cache topology comes from the
 * capture's host keys, topology.cpuN.L2 / .L3 (sysfs shared_cpu_list, which
 * pp-record stores); two CPUs share a cache when their lists are equal.
 * When the recording machine exposed no cache information (some VMs), the
 * package (core_siblings) stands for the LLC and the core (thread_siblings)
 * for L2, and the report says so.  Per interval (-i) and at the end:
 *   sched-migrate total N, same LLC N hit P%, same L2 N hit P%
 * --detail prints each cross-LLC migration (with -g its kernel stack), -v
 * every migration; --flame-graph collects the stacks of cross-LLC ones.
 * State (--state-out): the three counts, which add; the listings refuse it.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/callchain.h"
#include "common/err.h"
#include "common/expr.h"
#include "common/flamegraph.h"
#include "common/log.h"
#include "common/stackmap.h"
#include "common/table.h"
#include "common/wire.h"

struct sm_priv {
	uint64_t *l2, *llc;		/* per CPU: a hash of the shared_cpu_list, 0 = unknown */
	uint32_t nr_cpus;
	bool fallback;			/* no cache keys: package/core stand in */
	const struct pp_field *orig_cpu, *dest_cpu;
	struct pp_expr *filter;
	uint64_t total, same_llc, same_l2;
	struct pp_table *table;		/* JSON/CSV rows, one per report */
	struct pp_flame *flame;
	struct pp_stackmap stacks;
	struct pp_buf line;
	uint64_t *trim;
	uint32_t cap_trim;
};

static const char *const sm_events[] = { "sched:sched_migrate_task", NULL };

static uint64_t sm_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h | 1;	/* never 0: 0 means unknown */
}

/* The domain of @cpu for the first host key of @names present; 0 if none. */
static uint64_t sm_domain(struct ana_session *s, uint32_t cpu, const char *const *names)
{
	char key[96];

	for (; *names; names++) {
		snprintf(key, sizeof(key), "topology.cpu%u.%s", cpu, *names);
		const char *v = ana_host(s, key);
		if (v && *v)
			return sm_hash(v);
	}
	return 0;
}

static int sm_init(struct pp_az *az)
{
	struct sm_priv *p = az->priv;
	static const char *const l2_keys[] = { "L2", NULL };
	static const char *const llc_keys[] = { "L3", "L2", NULL };
	static const char *const core_keys[] = { "thread_siblings", NULL };
	static const char *const pkg_keys[] = { "core_siblings", NULL };
	const char *n = ana_host(az->s, "nr_cpus_possible");
	const struct ana_evtype *t = az->sels[0].type;
	bool any_cache = false;

	if (ana_state_recording(az) && (az->opt.verbose || az->opt.detail || az->opt.flame_graph)) {
		pp_err("sched-migrate: %s with --state-out: it lists migrations as they come, and a "
		       "state holds the counts only (replay the capture for them)",
		       az->opt.verbose ? "-v" : az->opt.detail ? "--detail" : "--flame-graph");
		return PP_EUSAGE;
	}
	p->nr_cpus = n ? (uint32_t)strtoul(n, NULL, 10) : 0;
	if (!p->nr_cpus)
		p->nr_cpus = 1024;
	p->l2 = pp_xcalloc(p->nr_cpus, sizeof(*p->l2));
	p->llc = pp_xcalloc(p->nr_cpus, sizeof(*p->llc));
	for (uint32_t c = 0; c < p->nr_cpus; c++) {
		p->l2[c] = sm_domain(az->s, c, l2_keys);
		p->llc[c] = sm_domain(az->s, c, llc_keys);
		any_cache |= p->llc[c] != 0;
	}
	if (!any_cache) {
		p->fallback = true;
		for (uint32_t c = 0; c < p->nr_cpus; c++) {
			p->l2[c] = sm_domain(az->s, c, core_keys);
			p->llc[c] = sm_domain(az->s, c, pkg_keys);
		}
	}
	p->orig_cpu = ana_field_find(t, "orig_cpu");
	p->dest_cpu = ana_field_find(t, "dest_cpu");
	if (!p->orig_cpu || !p->dest_cpu) {
		pp_err("sched-migrate: event %s has no orig_cpu/dest_cpu fields", t->name);
		return PP_EUNKNOWN_FIELD;
	}
	if (az->opt.filter) {
		int rc = ana_expr_compile(az, t, "--filter", az->opt.filter, &p->filter);
		if (rc)
			return rc;
	}
	if (az->opt.flame_graph)
		p->flame = pp_flame_new();
	if (p->fallback && az->out.format == ANA_FMT_TEXT && !ana_state_recording(az))
		fprintf(az->out.fp,
			"# no cache topology in the capture: LLC = package (core_siblings), "
			"L2 = core (thread_siblings)\n");
	if (az->out.format != ANA_FMT_TEXT) {
		p->table = pp_table_new();
		pp_table_col(p->table, "time", "time", PP_COL_LEFT, 0);
		pp_table_col(p->table, "total", "total", 0, 0);
		pp_table_col(p->table, "same_llc", "same_llc", 0, 0);
		pp_table_col(p->table, "same_llc_pct", "same_llc_pct", 0, 0);
		pp_table_col(p->table, "same_l2", "same_l2", 0, 0);
		pp_table_col(p->table, "same_l2_pct", "same_l2_pct", 0, 0);
	}
	return 0;
}

static bool sm_same(const uint64_t *dom, uint32_t nr, uint64_t a, uint64_t b)
{
	return a < nr && b < nr && dom[a] && dom[a] == dom[b];
}

static void sm_print(struct pp_az *az, const struct pp_event *ev)
{
	struct sm_priv *p = az->priv;
	struct pp_event e = *ev;

	if (az->out.format != ANA_FMT_TEXT)
		return;
	pp_buf_reset(&p->line);
	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	if (az->opt.callchain && ev->nr_stack) {
		if (ev->nr_stack > p->cap_trim) {
			p->cap_trim = ev->nr_stack;
			p->trim = pp_xrealloc(p->trim, p->cap_trim * sizeof(*p->trim));
		}
		e.stack = p->trim;
		e.nr_stack = pp_callchain_trim(ev->stack, ev->nr_stack, p->trim, true, false);
		ana_stack_print(az->s, &e, &p->line);
	}
	if (p->line.len)
		fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static void sm_event(struct pp_az *az, const struct pp_event *ev)
{
	struct sm_priv *p = az->priv;
	uint64_t from = ana_field_read(ev, p->orig_cpu), to = ana_field_read(ev, p->dest_cpu);
	bool llc;

	if (p->filter && !ana_expr_eval(az, p->filter, ev))
		return;
	p->total++;
	if (sm_same(p->l2, p->nr_cpus, from, to))
		p->same_l2++;
	llc = sm_same(p->llc, p->nr_cpus, from, to);
	if (llc)
		p->same_llc++;
	if (az->opt.verbose || (!llc && az->opt.detail))
		sm_print(az, ev);
	if (!llc && p->flame) {
		void **slot = pp_stackmap_slot(&p->stacks, ana_stack_key(az->s, ev), ev->stack,
					       ev->nr_stack);
		if (!*slot)
			*slot = ana_stack_node(az, p->flame, ev);
		pp_flame_add(*slot, 1);
	}
}

static void sm_report(struct pp_az *az, uint64_t now_ns)
{
	struct sm_priv *p = az->priv;
	uint64_t llc_pct = p->total ? p->same_llc * 100 / p->total : 0;
	uint64_t l2_pct = p->total ? p->same_l2 * 100 / p->total : 0;
	char when[48];

	ana_time_str(az->s, now_ns, when, sizeof(when));
	if (p->table) {
		pp_table_row(p->table);
		pp_table_str(p->table, when);
		pp_table_u64(p->table, p->total);
		pp_table_u64(p->table, p->same_llc);
		pp_table_u64(p->table, llc_pct);
		pp_table_u64(p->table, p->same_l2);
		pp_table_u64(p->table, l2_pct);
	} else {
		fprintf(az->out.fp, "%s sched-migrate total %llu, same LLC %llu hit %llu%%, "
				    "same L2 %llu hit %llu%%\n",
			when, (unsigned long long)p->total, (unsigned long long)p->same_llc,
			(unsigned long long)llc_pct, (unsigned long long)p->same_l2,
			(unsigned long long)l2_pct);
	}
	p->total = p->same_llc = p->same_l2 = 0;
}

static void sm_interval(struct pp_az *az, uint64_t now_ns)
{
	sm_report(az, now_ns);
}

static int sm_finish(struct pp_az *az)
{
	struct sm_priv *p = az->priv;
	char err[256];
	int rc = 0;

	if (az->out.format == ANA_FMT_TEXT)
		ana_report_header(az);
	sm_report(az, ana_capture_end_ns(az->s));
	if (p->table)
		pp_table_print(p->table, az->out.fp, (enum pp_table_format)az->out.format,
			       "sched-migrate");
	if (p->flame) {
		struct pp_flame_svg_opts so = { .title = "Cross-LLC migrations (sched-migrate)" };
		rc = pp_flame_write_file(p->flame, az->opt.flame_graph, &so, err, sizeof(err));
		if (rc)
			pp_err("sched-migrate: %s", err);
	}
	return rc;
}

/* docs/state-format.md "sched-migrate": total, same LLC, same L2. */
static int sm_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct sm_priv *p = az->priv;

	pp_wire_put_varint(out, p->total);
	pp_wire_put_varint(out, p->same_llc);
	pp_wire_put_varint(out, p->same_l2);
	return 0;
}

static int sm_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct sm_priv *p = az->priv;
	uint64_t total = pp_wire_varint(in), llc = pp_wire_varint(in), l2 = pp_wire_varint(in);

	if (!pp_wire_ok(in))
		return in->err;
	if (llc > total || l2 > total || p->total + total < total)
		return pp_wire_fail(in, PP_EBAD_RECORD, "%llu migrations, %llu same LLC, %llu same L2",
				    (unsigned long long)total, (unsigned long long)llc,
				    (unsigned long long)l2);
	p->total += total;
	p->same_llc += llc;
	p->same_l2 += l2;
	return 0;
}

static void sm_release(struct pp_az *az)
{
	struct sm_priv *p = az->priv;

	free(p->l2);
	free(p->llc);
	free(p->trim);
	pp_expr_free(p->filter);
	pp_table_free(p->table);
	pp_stackmap_release(&p->stacks);
	pp_flame_free(p->flame);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_sched_migrate_ops = {
	.summary = "task migrations per interval, and how many stay within the L2 / the LLC",
	.usage = "pp-analyze FILE sched-migrate [-i MS] [--detail [-g]] [--filter EXPR] "
		 "[--flame-graph FILE]",
	.examples = "  pp-record --for 'sched-migrate -g' -a --duration 10\n"
		    "  pp-analyze pp.capture sched-migrate -i 1000\n"
		    "  pp-analyze pp.capture sched-migrate --detail -g\n"
		    "  pp-analyze pp.capture sched-migrate --filter 'prio<100' -i 1000\n",
	.priv_size = sizeof(struct sm_priv),
	.flags = PP_AZ_NO_EVENTS,
	.builtin_events = sm_events,
	.init = sm_init,
	.event = sm_event,
	.interval = sm_interval,
	.finish = sm_finish,
	.release = sm_release,
	.state_version = 1,
	.state_write = sm_state_write,
	.state_read = sm_state_read,
};
