/* SPDX-License-Identifier: MIT */
/*
 * event-care.c - is this capture whole?  Losses, late and out-of-order
 * events per instance, and corrupt or missing parts of the file.
 *
 * An instance is a CPU (a thread with -p/-t).  Per instance it counts the
 * events, the events the kernel lost (LOST records), the events written
 * LATE (they arrived after pp-record's reorder window and carry a clamped
 * time) and events older than their instance's previous one.  The file
 * itself: segments skipped because their checksum or compression was bad,
 * and a file cut short.  The report ends with "ok" or the number of
 * problems, and pp-analyze exits 1 when there is any (a CI gate).
 * State (--state-out): the instances' counts and the detail lines kept (the
 * first of each kind, in the order they came); merged, counts add and the
 * lines follow the states' order (time order for ranges of one capture).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "common/err.h"
#include "common/sat.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "common/wire.h"

#define EC_MAX_DETAIL 10	/* detail lines per kind of problem */

struct ec_ins {
	uint32_t id;
	uint64_t events, lost, late, disorder;
	uint64_t last_ns;
	bool lost_sat;		/* the loss records claim more than 2^64-1 (common/sat.h) */
};

enum ec_kind { EC_LOST, EC_LATE, EC_DISORDER, EC_NR_KINDS };

/* A detail line: at most EC_MAX_DETAIL of each kind are kept, in the order they came. */
struct ec_line {
	uint64_t time_ns;
	enum ec_kind kind;
	char *text;		/* with its newline */
};

struct ec_priv {
	struct pp_u64map ins;	/* instance -> struct ec_ins */
	struct ec_ins **list;
	size_t nr, cap;
	bool by_thread;
	struct ec_line *lines;
	size_t nr_lines, cap_lines;
	uint64_t nr_kind[EC_NR_KINDS];	/* lines of each kind there were */
	unsigned kept[EC_NR_KINDS];	/* and kept */
};

/* Count a line of @kind; keep its text if it is among the first. */
static void line_add(struct ec_priv *p, enum ec_kind kind, uint64_t time_ns, const char *text)
{
	p->nr_kind[kind]++;
	if (p->kept[kind] >= EC_MAX_DETAIL)
		return;
	p->kept[kind]++;
	struct ec_line l = { time_ns, kind, pp_xstrdup(text) };
	PP_VEC_PUSH(p->lines, p->nr_lines, p->cap_lines, l);
}

static struct ec_ins *ins_get(struct ec_priv *p, uint32_t id)
{
	void **slot = pp_u64map_slot(&p->ins, id);

	if (!*slot) {
		struct ec_ins *in = calloc(1, sizeof(*in));
		if (!in)
			abort();
		in->id = id;
		if (p->nr == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 16;
			p->list = realloc(p->list, p->cap * sizeof(*p->list));
			if (!p->list)
				abort();
		}
		p->list[p->nr++] = in;
		*slot = in;
	}
	return *slot;
}

static void ins_name(const struct ec_priv *p, uint32_t id, char *buf, size_t sz)
{
	if (p->by_thread)
		snprintf(buf, sz, "%u", id);
	else
		snprintf(buf, sz, "[%03u]", id);
}

static int ec_init(struct pp_az *az)
{
	struct ec_priv *p = az->priv;

	p->by_thread = az->opt.pids || az->opt.tids;
	return 0;
}

static void ec_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ec_priv *p = az->priv;
	struct ec_ins *in = ins_get(p, p->by_thread ? ev->tid : ev->cpu);
	char name[32], ts[32], line[512];

	in->events++;
	if (ev->flags & (1u << 7)) {	/* PPF_SF_LATE */
		in->late++;
		ins_name(p, in->id, name, sizeof(name));
		snprintf(line, sizeof(line), "%s LATE %s at %s (written after the reorder window)\n",
			 name, ev->type->name, ana_ts_str(ev->time_ns, ts, sizeof(ts)));
		line_add(p, EC_LATE, ev->time_ns, line);
	}
	if (ev->time_ns < in->last_ns) {
		char prev[32];

		in->disorder++;
		ins_name(p, in->id, name, sizeof(name));
		snprintf(line, sizeof(line), "%s out-of-order %s %s < %s\n", name, ev->type->name,
			 ana_ts_str(ev->time_ns, ts, sizeof(ts)),
			 ana_ts_str(in->last_ns, prev, sizeof(prev)));
		line_add(p, EC_DISORDER, ev->time_ns, line);
	} else {
		in->last_ns = ev->time_ns;
	}
}

static void ec_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct ec_priv *p = az->priv;
	struct ec_ins *in;
	char name[32], ts[32], line[128];

	if (p->by_thread)
		in = ins_get(p, (uint32_t)-1);	/* losses are per ring buffer, not per thread */
	else
		in = ins_get(p, l->cpu);
	if (pp_sat_add(&in->lost, l->count))	/* 2^64-1 and 5 lost is not 4 */
		in->lost_sat = true;
	ins_name(p, p->by_thread ? l->cpu : in->id, name, sizeof(name));
	snprintf(line, sizeof(line), "%s%s lost %llu events at %s\n", p->by_thread ? "cpu " : "",
		 name, (unsigned long long)l->count, ana_ts_str(l->time_ns, ts, sizeof(ts)));
	line_add(p, EC_LOST, l->time_ns, line);
}

static int ins_cmp(const void *a, const void *b)
{
	const struct ec_ins *x = *(const struct ec_ins *const *)a;
	const struct ec_ins *y = *(const struct ec_ins *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int ec_finish(struct pp_az *az)
{
	struct ec_priv *p = az->priv;
	struct pp_table *t = pp_table_new();
	struct pp_buf file = PP_BUF_INIT, detail = PP_BUF_INIT;
	uint64_t problems = 0;
	FILE *fp = az->out.fp;
	char name[32];
	bool sat = false;

	if (p->nr)	/* qsort(NULL, 0, ...) is undefined */
		qsort(p->list, p->nr, sizeof(*p->list), ins_cmp);
	pp_table_col(t, p->by_thread ? "THREAD" : "CPU", "instance", PP_COL_LEFT, 0);
	pp_table_col(t, "EVENTS", "events", 0, 0);
	pp_table_col(t, "LOST", "lost", 0, 0);
	pp_table_col(t, "LATE", "late", 0, 0);
	pp_table_col(t, "OUT-OF-ORDER", "out_of_order", 0, 0);
	for (size_t i = 0; i < p->nr; i++) {
		const struct ec_ins *in = p->list[i];
		pp_table_row(t);
		if (in->id == (uint32_t)-1)
			pp_table_str(t, "(lost)");
		else {
			ins_name(p, in->id, name, sizeof(name));
			pp_table_str(t, name);
		}
		pp_table_u64(t, in->events);
		pp_table_u64(t, in->lost);
		pp_table_u64(t, in->late);
		pp_table_u64(t, in->disorder);
		problems += (in->lost != 0) + (in->late != 0) + (in->disorder != 0);
		sat |= in->lost_sat;
	}
	if (sat && az->out.format != ANA_FMT_TEXT)
		pp_warn("event-care: a sum of losses passed 2^64-1: LOST says 18446744073709551615, "
			"the capture claims more");
	problems += ana_capture_problems(az->s, &file);
	pp_table_print(t, fp, (enum pp_table_format)az->out.format, "instances");
	for (size_t i = 0; i < p->nr_lines; i++)
		pp_buf_adds(&detail, p->lines[i].text);
	if (az->out.format == ANA_FMT_TEXT) {
		if (detail.len || file.len)
			fprintf(fp, "\n%s%s", pp_buf_str(&detail), pp_buf_str(&file));
		if (p->nr_kind[EC_LOST] > EC_MAX_DETAIL || p->nr_kind[EC_LATE] > EC_MAX_DETAIL ||
		    p->nr_kind[EC_DISORDER] > EC_MAX_DETAIL)
			fprintf(fp, "(only the first %d of each kind are listed)\n", EC_MAX_DETAIL);
		if (sat)
			fprintf(fp, "(a sum of losses passed 2^64-1: LOST says 18446744073709551615, "
				"the capture claims more)\n");
		if (problems)
			fprintf(fp, "\nevent-care: %llu problem%s\n", (unsigned long long)problems,
				problems > 1 ? "s" : "");
		else
			fprintf(fp, "\nevent-care: ok\n");
	} else if (file.len) {
		/* the file problems as a second table */
		struct pp_table *f = pp_table_new();
		pp_table_col(f, "problem", NULL, PP_COL_LEFT, 0);
		for (char *l = file.data, *nl; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			pp_table_row(f);
			pp_table_str(f, l);
		}
		pp_table_print(f, fp, (enum pp_table_format)az->out.format, "capture");
		pp_table_free(f);
	}
	pp_table_free(t);
	pp_buf_release(&file);
	pp_buf_release(&detail);
	fflush(fp);
	return problems ? 1 : 0;
}

static void ec_release(struct pp_az *az)
{
	struct ec_priv *p = az->priv;

	for (size_t i = 0; i < p->nr; i++)
		free(p->list[i]);
	free(p->list);
	pp_u64map_release(&p->ins);
	for (size_t i = 0; i < p->nr_lines; i++)
		free(p->lines[i].text);
	free(p->lines);
}

/* --- mergeable state (docs/state-format.md "event-care") ----------------------- */

static int ec_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct ec_priv *p = az->priv;

	if (p->nr)
		qsort(p->list, p->nr, sizeof(*p->list), ins_cmp);
	pp_wire_put_varint(out, p->nr);
	for (size_t i = 0; i < p->nr; i++) {
		const struct ec_ins *in = p->list[i];

		pp_wire_put_varint(out, in->id);
		pp_wire_put_varint(out, in->events);
		pp_wire_put_varint(out, in->lost);
		pp_wire_put_varint(out, in->late);
		pp_wire_put_varint(out, in->disorder);
		pp_wire_put_u8(out, in->lost_sat);
		pp_wire_put_varint(out, in->last_ns);
	}
	for (int k = 0; k < EC_NR_KINDS; k++)
		pp_wire_put_varint(out, p->nr_kind[k]);
	pp_wire_put_varint(out, p->nr_lines);
	for (size_t i = 0; i < p->nr_lines; i++) {
		pp_wire_put_varint(out, p->lines[i].time_ns);
		pp_wire_put_u8(out, (uint8_t)p->lines[i].kind);
		pp_wire_put_str(out, p->lines[i].text);
	}
	return 0;
}

static int ec_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct ec_priv *p = az->priv;
	size_t nr = pp_wire_count(in, 7, SIZE_MAX, "instances");
	uint64_t kinds[EC_NR_KINDS], have[EC_NR_KINDS] = { 0 };
	uint32_t prev = 0;

	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint32_t id = pp_wire_u32(in, "instance");
		uint64_t events = pp_wire_varint(in), lost = pp_wire_varint(in);
		uint64_t late = pp_wire_varint(in), disorder = pp_wire_varint(in);
		uint8_t sat = pp_wire_u8(in);
		uint64_t last = pp_wire_varint(in);
		struct ec_ins *e;

		if (!pp_wire_ok(in))
			break;
		if ((i && id <= prev) || sat > 1 || late > events || disorder > events)
			return pp_wire_fail(in, PP_EBAD_RECORD, "instance %u: out of order, or more "
					    "late or out-of-order events than events", id);
		prev = id;
		e = ins_get(p, id);
		if (pp_sat_add(&e->lost, lost) || sat)
			e->lost_sat = true;
		pp_sat_add(&e->events, events);
		pp_sat_add(&e->late, late);
		pp_sat_add(&e->disorder, disorder);
		if (last > e->last_ns)
			e->last_ns = last;
	}
	for (int k = 0; k < EC_NR_KINDS; k++)
		kinds[k] = pp_wire_varint(in);
	nr = pp_wire_count(in, 3, 3 * EC_MAX_DETAIL, "detail lines");
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint64_t t = pp_wire_varint(in);
		uint8_t kind = pp_wire_u8(in);
		const char *text = pp_wire_str(in);
		size_t len = strlen(text);

		if (!pp_wire_ok(in))
			break;
		if (kind >= EC_NR_KINDS || ++have[kind] > kinds[kind] || !len || text[len - 1] != '\n')
			return pp_wire_fail(in, PP_EBAD_RECORD, "detail line %zu: kind %u, or not a "
					    "line", i, kind);
		/* the first of each kind over the states, as line_add() keeps them */
		if (p->kept[kind] < EC_MAX_DETAIL) {
			struct ec_line l = { t, kind, pp_xstrdup(text) };
			PP_VEC_PUSH(p->lines, p->nr_lines, p->cap_lines, l);
			p->kept[kind]++;
		}
	}
	if (!pp_wire_ok(in))
		return in->err;
	for (int k = 0; k < EC_NR_KINDS; k++) {
		if (have[k] != (kinds[k] < EC_MAX_DETAIL ? kinds[k] : EC_MAX_DETAIL))
			return pp_wire_fail(in, PP_EBAD_RECORD, "%llu lines of a kind, %llu kept",
					    (unsigned long long)kinds[k], (unsigned long long)have[k]);
		pp_sat_add(&p->nr_kind[k], kinds[k]);
	}
	return 0;
}


const struct pp_analyzer_ops az_event_care_ops = {
	.summary = "capture integrity: losses, late and out-of-order events, corruption (exit 1)",
	.usage = "pp-analyze FILE event-care [-e EVENTS] [-C CPUS|-p PIDS|-t TIDS]",
	.examples = "  pp-analyze pp.capture event-care || echo 'do not trust this capture'\n"
		    "  pp-analyze pp.capture event-care -e 'sched:*' --format json\n",
	.priv_size = sizeof(struct ec_priv),
	.flags = PP_AZ_ALL_EVENTS,
	.init = ec_init,
	.event = ec_event,
	.lost = ec_lost,
	.finish = ec_finish,
	.release = ec_release,
	.state_version = 1,
	.state_write = ec_state_write,
	.state_read = ec_state_read,
};
