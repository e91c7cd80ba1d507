/* SPDX-License-Identifier: MIT */
/*
 * ldlat.c - the memory fields of PEBS samples, and ldlat-loads' and
 * ldlat-stores' latency tables (mem.h).
 *
 * Rows are kept per (instance, data source) - the instance is 0 without
 * --perins - in a map of maps (instance, then the data_src word), and printed
 * in perf-prof's order: instance, then the data_src word as a number.  Each
 * report empties the table, as perf-prof's latency_dist_print() does.
 *
 *   2026-01-01 00:00:01.000000
 *   Mem Load Latency                     samples    total(cycles) ... max(cycles)
 *   ------------------------------------ -------- ---------------- ... ------------
 *   L1 hit|SNP None|TLB L1 or L2 hit|LCK No     3               21 ...           10
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/mem/mem.h"
#include "common/datasrc.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"

#define LDLAT_KERNEL_START 0xffff800000000000ull	/* x86-64: the kernel's half */
#define LDLAT_NAME_WIDTH 60

bool ana_mem_sample_get(const struct pp_event *ev, struct ana_mem_sample *m)
{
	const struct perf_event_attr *a = ev->type ? ev->type->attr : NULL;
	uint64_t st, w;
	size_t off = 0;

	memset(m, 0, sizeof(*m));
	if (!a || ev->type->attr_sz < PERF_ATTR_SIZE_VER0)
		return false;
	st = a->sample_type;
	if (st & PERF_SAMPLE_REGS_INTR) {	/* the registers come first */
		uint64_t abi;

		if (ev->type->attr_sz < PERF_ATTR_SIZE_VER4 || ev->extra_sz < 8)
			return false;
		memcpy(&abi, ev->extra, 8);
		off = 8 + (abi ? 8 * (size_t)__builtin_popcountll(a->sample_regs_intr) : 0);
	}
#define TAKE(flag, field)                                                                  \
	do {                                                                               \
		if (!(st & (flag)))                                                        \
			break;                                                             \
		if (off + 8 > ev->extra_sz)                                                \
			return m->has_weight || m->has_data_src;                           \
		memcpy(&w, ev->extra + off, 8);                                            \
		off += 8;                                                                  \
		m->field = w;                                                              \
		m->has_##field = true;                                                     \
	} while (0)
	TAKE(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, weight);
	TAKE(PERF_SAMPLE_DATA_SRC, data_src);
	TAKE(PERF_SAMPLE_PHYS_ADDR, phys_addr);
#undef TAKE
	if (st & PERF_SAMPLE_WEIGHT_STRUCT)
		m->weight &= 0xffffffffu;	/* var1_dw: the access latency */
	return m->has_weight || m->has_data_src || m->has_phys_addr;
}

static struct ana_ldlat *ldlat(struct pp_az *az)
{
	return az->priv;
}

int ana_ldlat_init(struct pp_az *az)
{
	ldlat(az)->by_thread = az->opt.pids || az->opt.tids;
	return 0;
}

static struct ana_ldlat_row *row_get(struct ana_ldlat *l, uint32_t ins, uint64_t data_src)
{
	void **sub = pp_u64map_slot(&l->by_ins, ins);
	void **slot;
	uintptr_t i;

	if (!*sub)
		*sub = pp_xcalloc(1, sizeof(struct pp_u64map));
	slot = pp_u64map_slot(*sub, data_src);
	i = (uintptr_t)*slot;
	if (i)
		return &l->rows[i - 1];
	if (l->nr_rows == l->cap_rows) {
		l->cap_rows = l->cap_rows ? 2 * l->cap_rows : 32;
		l->rows = pp_xrealloc(l->rows, l->cap_rows * sizeof(*l->rows));
	}
	l->rows[l->nr_rows] = (struct ana_ldlat_row){ .ins = ins, .data_src = data_src,
						       .min = UINT64_MAX };
	*slot = (void *)(uintptr_t)++l->nr_rows;
	return &l->rows[l->nr_rows - 1];
}

/* perf-prof's sample line: "... ldlat-loads: DATA ADDR ... latency N cycles L1 hit RIP <ip sym>" */
static void print_sample(struct pp_az *az, const struct pp_event *ev,
			 const struct ana_mem_sample *m)
{
	struct ana_ldlat *l = ldlat(az);
	struct ana_frame_sym fs;
	bool kernel = ev->ip >= LDLAT_KERNEL_START;
	bool sym = ana_frame_lookup(az->s, ev->pid, ev->time_ns, ev->ip, kernel, &fs);
	char when[48], ts[32], lvl[64], src[128];

	pp_buf_reset(&l->line);
	if (az->out.format == ANA_FMT_JSON) {
		ana_json_event_head(az->s, ev, &l->line);
		pp_buf_addf(&l->line, ",\"addr\":\"0x%llx\",\"phys\":\"0x%llx\",\"latency\":%llu,"
			    "\"data_src\":", (unsigned long long)ev->addr,
			    (unsigned long long)m->phys_addr, (unsigned long long)m->weight);
		pp_buf_add_json_str(&l->line, pp_data_src_str(m->data_src, src, sizeof(src)));
		pp_buf_addf(&l->line, ",\"ip\":\"0x%llx\",\"symbol\":", (unsigned long long)ev->ip);
		pp_buf_add_json_str(&l->line, sym ? fs.symbol : "");
		pp_buf_adds(&l->line, "}\n");
	} else {
		pp_buf_addf(&l->line, "%s     pid %6u tid %6u [%03u] %s: %s: DATA ADDR %016llx PHYS "
			    "%016llx latency %6llu cycles %s RIP     %016llx %s+0x%llx\n",
			    ana_time_str(az->s, ev->time_ns, when, sizeof(when)), ev->pid, ev->tid,
			    ev->cpu, ana_ts_str(ev->time_ns, ts, sizeof(ts)), az->name,
			    (unsigned long long)ev->addr, (unsigned long long)m->phys_addr,
			    (unsigned long long)m->weight,
			    pp_data_src_lvl_str(m->data_src, lvl, sizeof(lvl)),
			    (unsigned long long)ev->ip, sym ? fs.symbol : "Unknown",
			    (unsigned long long)(sym ? fs.offset : 0));
	}
	fputs(pp_buf_str(&l->line), az->out.fp);
}

void ana_ldlat_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ana_ldlat *l = ldlat(az);
	struct ana_mem_sample m;
	struct ana_ldlat_row *r;
	uint32_t ins;

	if (ev->count)
		return;
	if (!ana_mem_sample_get(ev, &m)) {
		l->nr_bare++;
		return;
	}
	if ((az->opt.verbose || (az->opt.than_ns && m.weight > az->opt.than_ns)) &&
	    az->out.format != ANA_FMT_CSV)
		print_sample(az, ev, &m);
	ins = !az->opt.perins ? 0 : l->by_thread ? ev->tid : ev->cpu;
	r = row_get(l, ins, m.data_src);
	r->n++;
	r->sum += m.weight;
	if (m.weight < r->min)
		r->min = m.weight;
	if (m.weight > r->max)
		r->max = m.weight;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ana_ldlat_row *x = a, *y = b;

	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	return x->data_src < y->data_src ? -1 : x->data_src > y->data_src;
}

static void print_text(struct pp_az *az, uint64_t now_ns)
{
	struct ana_ldlat *l = ldlat(az);
	FILE *fp = az->out.fp;
	char when[48], src[128];

	fprintf(fp, "%s \n", ana_time_str(az->s, now_ns, when, sizeof(when)));
	if (az->opt.perins)
		fputs(l->by_thread ? "[THREAD] " : "[CPU] ", fp);
	fprintf(fp, "%-*s %8s %16s %12s %12s %12s\n", LDLAT_NAME_WIDTH, "Mem Load Latency",
		"samples", "total(cycles)", "min(cycles)", "avg(cycles)", "max(cycles)");
	if (az->opt.perins)
		fputs(l->by_thread ? "-------- " : "----- ", fp);
	for (int i = 0; i < LDLAT_NAME_WIDTH; i++)
		fputc('-', fp);
	fprintf(fp, " %8s %16s %12s %12s %12s\n", "--------", "----------------", "------------",
		"------------", "------------");
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct ana_ldlat_row *r = &l->rows[i];

		if (az->opt.perins) {
			if (l->by_thread)
				fprintf(fp, "%-8u ", r->ins);
			else
				fprintf(fp, "[%03u] ", r->ins);
		}
		fprintf(fp, "%-*s %8llu %16llu %12llu %12llu %12llu\n", LDLAT_NAME_WIDTH,
			pp_data_src_str(r->data_src, src, sizeof(src)), (unsigned long long)r->n,
			(unsigned long long)r->sum, (unsigned long long)r->min,
			(unsigned long long)(r->sum / r->n), (unsigned long long)r->max);
	}
}

static void print_table(struct pp_az *az, uint64_t now_ns)
{
	struct ana_ldlat *l = ldlat(az);
	struct pp_table *t = pp_table_new();
	char when[48], src[128];

	ana_time_str(az->s, now_ns, when, sizeof(when));
	pp_table_col(t, "time", NULL, PP_COL_LEFT, 0);
	if (az->opt.perins)
		pp_table_col(t, l->by_thread ? "thread" : "cpu", NULL, 0, 0);
	pp_table_col(t, "data_src", NULL, PP_COL_LEFT, 0);
	pp_table_col(t, "samples", NULL, 0, 0);
	pp_table_col(t, "total", "total_cycles", 0, 0);
	pp_table_col(t, "min", "min_cycles", 0, 0);
	pp_table_col(t, "avg", "avg_cycles", 0, 0);
	pp_table_col(t, "max", "max_cycles", 0, 0);
	for (size_t i = 0; i < l->nr_rows; i++) {
		const struct ana_ldlat_row *r = &l->rows[i];

		pp_table_row(t);
		pp_table_str(t, when);
		if (az->opt.perins)
			pp_table_u64(t, r->ins);
		pp_table_str(t, pp_data_src_str(r->data_src, src, sizeof(src)));
		pp_table_u64(t, r->n);
		pp_table_u64(t, r->sum);
		pp_table_u64(t, r->min);
		pp_table_u64(t, r->sum / r->n);
		pp_table_u64(t, r->max);
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, az->name);
	pp_table_free(t);
}

static void ldlat_empty(struct ana_ldlat *l)
{
	uint64_t k;
	void *v;

	for (size_t i = 0; pp_u64map_next(&l->by_ins, &i, &k, &v);) {
		pp_u64map_release(v);
		free(v);
	}
	pp_u64map_release(&l->by_ins);
	memset(&l->by_ins, 0, sizeof(l->by_ins));
	l->nr_rows = 0;
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct ana_ldlat *l = ldlat(az);

	if (!l->nr_rows)
		return;
	qsort(l->rows, l->nr_rows, sizeof(*l->rows), row_cmp);
	if (az->out.format == ANA_FMT_TEXT)
		print_text(az, now_ns);
	else
		print_table(az, now_ns);
	ldlat_empty(l);
}

void ana_ldlat_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
}

int ana_ldlat_finish(struct pp_az *az)
{
	struct ana_ldlat *l = ldlat(az);

	report(az, ana_capture_end_ns(az->s));
	if (l->nr_bare)
		pp_warn("%s: %llu samples without their latency and data source (recorded "
			"without PEBS memory fields: record with pp-record --for %s)", az->name,
			(unsigned long long)l->nr_bare, az->name);
	return 0;
}

void ana_ldlat_release(struct pp_az *az)
{
	struct ana_ldlat *l = ldlat(az);

	ldlat_empty(l);
	free(l->rows);
	pp_buf_release(&l->line);
	*l = (struct ana_ldlat){ 0 };
}
