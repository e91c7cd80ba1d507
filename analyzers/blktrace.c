/* SPDX-License-Identifier: MIT */
/*
 * blktrace.c - block request latency per lifecycle stage.
 *
 * perf-prof's blktrace: a request is followed through block_getrq,
 * block_rq_insert, block_rq_issue and block_rq_complete, keyed by (dev,
 * sector); each event is measured from the request's previous state and
 * counted in the row of the stage it ends: getrq => insert, insert => issue,
 * issue => complete.  A request that skips the scheduler (issue right after
 * getrq) counts its getrq => issue time in the issue row (tag BYPASS_INSERT);
 * a getrq for a request already tracked restarts it (EXIST); a state
 * reached from an unexpected one is not counted (LOST); an event of an
 * untracked request starts tracking there.  Flush requests (no sectors) are
 * skipped.  -v prints the tagged events, -vv every event; --than T counts the
 * stage times above T per row and prints those events (GREATER_THAN).
 * Tables every -i of capture time and at the end.  A loss clears the
 * tracking: a request is never measured across it.  State (--state-out):
 * the three rows, and per range each request's first event (head) and the
 * requests still tracked at its end (tails): merging two adjacent ranges
 * measures the head from the tail, as one replay does.
 *
 * -d narrows the events to one device at analysis: as the capture's host
 * key blockdev.NAME describes it, else as this machine has it; the
 * recording was already filtered by the plan's -d.
 * Not here: resolving a device (blktrace-plan.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyzer.h"
#include "analyze/state/state.h"
#include "analyzers/blktrace.h"
#include "common/err.h"
#include "common/log.h"
#include "common/table.h"
#include "common/u64map.h"
#include "common/wire.h"

enum { BT_GETRQ, BT_INSERT, BT_ISSUE, BT_COMPLETE };

static const char *const bt_short[] = { "block_getrq", "block_rq_insert", "block_rq_issue",
					"block_rq_complete" };

struct bt_req {
	uint64_t sector;
	uint32_t dev;
	int state;
	uint64_t time_ns;
};

struct bt_row {
	uint64_t n, sum, min, max, than;
};

/* A request's first event in a range (it continues what the range before tracked). */
struct bt_head {
	uint64_t sector;
	uint32_t dev;
	int state;
	uint64_t time_ns;
};

struct bt_priv {
	const struct pp_field *f_dev[BLKTRACE_NR_EVENTS];
	const struct pp_field *f_sector[BLKTRACE_NR_EVENTS];
	const struct pp_field *f_nr[BLKTRACE_NR_EVENTS];
	struct pp_u64map reqs;		/* (dev, sector) -> struct bt_req * */
	struct bt_req *free_reqs;	/* recycled, chained through .sector */
	struct bt_row rows[3];		/* ending at insert, issue, complete */
	char *events[BLKTRACE_NR_EVENTS];
	bool own_events;		/* set_events() ran: no -e was given */
	struct pp_buf line;
	bool rec, rec_lost;		/* --state-out: note heads (until a loss) */
	struct pp_u64map rec_heads;	/* key -> struct bt_head */
	struct ana_edges edges;		/* a state read: per source id, a struct ana_edge of
					 * heads (key -> struct bt_head) and tails (key ->
					 * struct bt_req); lost: a loss cleared what was
					 * tracked before it */
};

/*
 * The device as the recording machine saw it, when the capture says:
 * host key "blockdev.NAME" = "MAJ:MIN DISK_MAJ:DISK_MIN START SIZE" (sectors;
 * a whole disk is its own DISK with START 0).  Return: true when found.
 */
static bool dev_from_capture(struct pp_az *az, const char *name, struct blktrace_dev *d)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	unsigned maj, min, dmaj, dmin;
	unsigned long long start, size;
	char key[128];
	const char *v;

	snprintf(key, sizeof(key), "blockdev.%s", base);
	v = ana_host(az->s, key);
	if (!v || sscanf(v, "%u:%u %u:%u %llu %llu", &maj, &min, &dmaj, &dmin, &start, &size) != 6)
		return false;
	d->dev = dmaj << 20 | dmin;
	d->part = maj != dmaj || min != dmin;
	d->start = start;
	d->size = size;
	return true;
}

static int bt_set_events(struct pp_az *az, struct pp_strlist *events)
{
	const struct blktrace_opts *o = az->opts;
	struct bt_priv *p = az->priv;
	struct blktrace_dev d;
	char *filter = NULL;
	char err[300];

	if (o->device) {
		if (!dev_from_capture(az, o->device, &d) &&
		    az_blktrace_dev_resolve(o->device, &d, err, sizeof(err))) {
			pp_err("blktrace: -d %s: %s", o->device, err);
			return PP_EUSAGE;
		}
		filter = az_blktrace_filter(&d);
	}
	for (size_t i = 0; i < BLKTRACE_NR_EVENTS; i++) {
		p->events[i] = filter ? pp_xasprintf("%s/%s/", az_blktrace_events[i], filter)
				      : pp_xstrdup(az_blktrace_events[i]);
		pp_strlist_push(events, p->events[i]);
	}
	free(filter);
	p->own_events = true;
	return 0;
}

static int bt_init(struct pp_az *az)
{
	struct bt_priv *p = az->priv;

	if (!p->own_events) {
		pp_err("blktrace: does not take -e: it uses the block request events");
		return PP_EUSAGE;
	}
	for (size_t i = 0; i < az->nr_sels; i++) {
		const struct ana_sel *m = &az->sels[i];
		unsigned k = m->pos;

		if (k >= BLKTRACE_NR_EVENTS)
			continue;
		p->f_dev[k] = ana_field_find(m->type, "dev");
		p->f_sector[k] = ana_field_find(m->type, "sector");
		p->f_nr[k] = ana_field_find(m->type, "nr_sector");
		if (!p->f_dev[k] || !p->f_sector[k] || !p->f_nr[k]) {
			pp_err("blktrace: %s lacks one of the fields dev, sector, nr_sector",
			       m->type->name);
			return PP_EUNKNOWN_FIELD;
		}
	}
	for (int r = 0; r < 3; r++)
		p->rows[r].min = UINT64_MAX;
	p->rec = ana_state_recording(az);
	if (p->rec && (az->opt.than_ns || az->opt.verbose)) {
		pp_err("blktrace: %s with --state-out: it prints events as they come, and a state "
		       "holds the table only (replay the capture for them)",
		       az->opt.than_ns ? "--than" : "-v");
		return PP_EUSAGE;
	}
	return 0;
}

static void print_tagged(struct pp_az *az, const char *tag, const struct pp_event *ev)
{
	struct bt_priv *p = az->priv;

	if (az->out.format != ANA_FMT_TEXT || !ev)	/* !ev: a join of states, which list nothing */
		return;
	pp_buf_reset(&p->line);
	if (tag)
		pp_buf_addf(&p->line, "%-14s ", tag);
	ana_event_print(az->s, ev, &p->line);
	pp_buf_addch(&p->line, '\n');
	fwrite(p->line.data, 1, p->line.len, az->out.fp);
}

static void account(struct pp_az *az, int row, uint64_t delta, const struct pp_event *ev)
{
	struct bt_row *r = &((struct bt_priv *)az->priv)->rows[row];

	r->n++;
	r->sum += delta;
	if (delta < r->min)
		r->min = delta;
	if (delta > r->max)
		r->max = delta;
	if (az->opt.than_ns && delta > az->opt.than_ns) {
		r->than++;
		print_tagged(az, "GREATER_THAN", ev);
	}
}

static struct bt_req *req_new(struct bt_priv *p)
{
	struct bt_req *q = p->free_reqs;

	if (!q)
		return pp_xmalloc(sizeof(*q));
	p->free_reqs = (struct bt_req *)(uintptr_t)q->sector;
	return q;
}

static void req_free(struct bt_priv *p, struct bt_req *q)
{
	q->sector = (uint64_t)(uintptr_t)p->free_reqs;
	p->free_reqs = q;
}

/*
 * Event @st at @t_ns of the request (@dev, @sector) tracked as @q: what it measures (the
 * tracking's update is the caller's).
 */
static void bt_step(struct pp_az *az, const struct bt_req *q, int st, uint64_t t_ns,
		    const struct pp_event *ev)
{
	bool verbose = az->opt.verbose == 1;

	if (st == BT_GETRQ) {
		if (verbose)
			print_tagged(az, "EXIST", ev);
	} else if (st == q->state + 1) {
		account(az, st - 1, t_ns - q->time_ns, ev);
	} else if (st == BT_ISSUE && q->state == BT_GETRQ) {
		if (verbose)
			print_tagged(az, "BYPASS_INSERT", ev);
		account(az, BT_ISSUE - 1, t_ns - q->time_ns, ev);
	} else if (verbose) {
		print_tagged(az, "LOST", ev);
	}
}

static void bt_event(struct pp_az *az, const struct pp_event *ev)
{
	struct bt_priv *p = az->priv;
	int st = (int)ev->sel->pos;
	uint64_t sector, key;
	uint32_t dev, nr;
	struct bt_req *q;
	void **slot;

	if (st > BT_COMPLETE)
		return;
	if (az->opt.verbose >= 2)
		print_tagged(az, NULL, ev);
	dev = (uint32_t)ana_field_read(ev, p->f_dev[st]);
	sector = ana_field_read(ev, p->f_sector[st]);
	nr = (uint32_t)ana_field_read(ev, p->f_nr[st]);
	if (sector == UINT64_MAX || !nr)	/* flush */
		return;
	key = ((uint64_t)dev << 44) ^ sector;
	slot = pp_u64map_slot(&p->reqs, key);
	q = *slot;
	if (q && (q->dev != dev || q->sector != sector))
		q = NULL;	/* a key collision: track the newer one */
	if (!q && p->rec && !p->rec_lost && !pp_u64map_get(&p->rec_heads, key)) {
		/* the request's first event: it may continue what the range before tracked */
		struct bt_head h = { sector, dev, st, ev->time_ns };
		pp_u64map_put(&p->rec_heads, key, memcpy(pp_xmalloc(sizeof(h)), &h, sizeof(h)));
	}
	if (!q) {
		if (st == BT_COMPLETE) {
			pp_u64map_del(&p->reqs, key);
			return;
		}
		if (*slot)
			req_free(p, *slot);
		q = *slot = req_new(p);
		q->dev = dev;
		q->sector = sector;
		q->state = st;
		q->time_ns = ev->time_ns;
		return;
	}
	bt_step(az, q, st, ev->time_ns, ev);
	if (st == BT_COMPLETE) {
		req_free(p, q);
		pp_u64map_del(&p->reqs, key);
		return;
	}
	q->state = st;
	q->time_ns = ev->time_ns;
}

static void reqs_clear(struct bt_priv *p)
{
	uint64_t k;
	void *v;

	for (size_t it = 0; pp_u64map_next(&p->reqs, &it, &k, &v);)
		req_free(p, v);
	pp_u64map_release(&p->reqs);
}

static void bt_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
	struct bt_priv *p = az->priv;

	(void)l;
	reqs_clear(p);
	p->rec_lost = true;	/* nor what the range before tracked */
}

static void report(struct pp_az *az, uint64_t now_ns)
{
	struct bt_priv *p = az->priv;
	bool text = az->out.format == ANA_FMT_TEXT;
	struct pp_table *t = pp_table_new();
	char buf[64];

	if (text)
		fprintf(az->out.fp, "%s\n", ana_time_str(az->s, now_ns, buf, sizeof(buf)));
	if (text) {
		pp_table_col(t, "start => end", "stage", 0, 0);
	} else {
		pp_table_col(t, "start", NULL, PP_COL_LEFT, 0);
		pp_table_col(t, "end", NULL, PP_COL_LEFT, 0);
	}
	pp_table_col(t, "reqs", NULL, 0, 8);
	pp_table_col(t, "total(us)", "total_us", 0, 16);
	pp_table_col(t, "min(us)", "min_us", 0, 12);
	pp_table_col(t, "avg(us)", "avg_us", 0, 12);
	pp_table_col(t, "max(us)", "max_us", 0, 12);
	if (az->opt.than_ns)
		pp_table_col(t, "than(reqs)", "than_reqs", 0, 0);
	for (int i = 0; i < 3; i++) {
		const struct bt_row *r = &p->rows[i];

		pp_table_row(t);
		if (text) {
			pp_table_strf(t, "%s => %s", bt_short[i], bt_short[i + 1]);
		} else {
			pp_table_str(t, bt_short[i]);
			pp_table_str(t, bt_short[i + 1]);
		}
		pp_table_u64(t, r->n);
		pp_table_num(t, "%.3f", r->sum / 1000.0);
		pp_table_num(t, "%.3f", r->n ? r->min / 1000.0 : 0.0);
		pp_table_num(t, "%.3f", r->n ? (double)r->sum / r->n / 1000.0 : 0.0);
		pp_table_num(t, "%.3f", r->max / 1000.0);
		if (az->opt.than_ns) {
			if (text)
				pp_table_strf(t, "%llu (%3.0f%%)", (unsigned long long)r->than,
					      r->n ? r->than * 100.0 / r->n : 0.0);
			else
				pp_table_u64(t, r->than);
		}
	}
	pp_table_print(t, az->out.fp, (enum pp_table_format)az->out.format, "blktrace");
	pp_table_free(t);
	memset(p->rows, 0, sizeof(p->rows));
	for (int r = 0; r < 3; r++)
		p->rows[r].min = UINT64_MAX;
}

static void bt_interval(struct pp_az *az, uint64_t now_ns)
{
	report(az, now_ns);
}

static int bt_finish(struct pp_az *az)
{
	ana_report_header(az);
	report(az, ana_capture_end_ns(az->s));
	return 0;
}

/* --- state (docs/state-format.md "blktrace") -------------------------------------------- */

/* Heads and tails alike: (dev, sector, state, time) by key. */
static void put_reqs(struct pp_buf *b, const struct pp_u64map *m, bool heads)
{
	size_t n;
	uint64_t *keys = pp_u64map_keys(m, &n);

	pp_wire_put_varint(b, n);
	for (size_t i = 0; i < n; i++) {
		const void *v = pp_u64map_get(m, keys[i]);
		const struct bt_head *h = v;
		const struct bt_req *q = v;
		pp_wire_put_varint(b, heads ? h->dev : q->dev);
		pp_wire_put_varint(b, heads ? h->sector : q->sector);
		pp_wire_put_u8(b, (uint8_t)(heads ? h->state : q->state));
		pp_wire_put_varint(b, heads ? h->time_ns : q->time_ns);
	}
	free(keys);
}

static int bt_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct bt_priv *p = az->priv;
	const unsigned *ids;
	size_t n = ana_state_sources(az, &ids);

	for (int i = 0; i < 3; i++) {
		const struct bt_row *r = &p->rows[i];
		pp_wire_put_varint(out, r->n);
		pp_wire_put_varint(out, r->sum);
		pp_wire_put_varint(out, r->n ? r->min : 0);
		pp_wire_put_varint(out, r->max);
		pp_wire_put_varint(out, r->than);
	}
	if (p->rec) {
		pp_wire_put_varint(out, 1);
		pp_wire_put_u8(out, p->rec_lost);
		put_reqs(out, &p->rec_heads, true);
		put_reqs(out, &p->reqs, false);
		return 0;
	}
	pp_wire_put_varint(out, n);
	for (size_t i = 0; i < n; i++) {
		const struct ana_edge *e = ana_edge_of(&p->edges, ids[i]);
		pp_wire_put_u8(out, e->lost);
		put_reqs(out, &e->heads, true);
		put_reqs(out, &e->tails, false);
	}
	return 0;
}

static int read_reqs(struct pp_wire *r, struct pp_u64map *m, bool heads)
{
	size_t n = pp_wire_count(r, 4, SIZE_MAX, heads ? "heads" : "tails");
	uint64_t prev = 0;

	for (size_t i = 0; i < n && pp_wire_ok(r); i++) {
		uint32_t dev = pp_wire_u32(r, "dev");
		uint64_t sector = pp_wire_varint(r);
		uint8_t st = pp_wire_u8(r);
		uint64_t t = pp_wire_varint(r), key = ((uint64_t)dev << 44) ^ sector;
		if (!pp_wire_ok(r))
			break;
		if ((i && key <= prev) || st > (heads ? BT_COMPLETE : BT_ISSUE) || sector == UINT64_MAX)
			return pp_wire_fail(r, PP_EBAD_RECORD, "%s %zu: dev %u sector %llu state %u",
					    heads ? "head" : "tail", i, dev,
					    (unsigned long long)sector, st);
		prev = key;
		if (heads) {
			struct bt_head h = { sector, dev, st, t };
			pp_u64map_put(m, key, memcpy(pp_xmalloc(sizeof(h)), &h, sizeof(h)));
		} else {
			struct bt_req q = { sector, dev, st, t };
			pp_u64map_put(m, key, memcpy(pp_xmalloc(sizeof(q)), &q, sizeof(q)));
		}
	}
	return pp_wire_ok(r) ? 0 : r->err;
}

static int read_edge(struct pp_wire *in, struct ana_edge *e)
{
	uint8_t lost = pp_wire_u8(in);
	int rc;

	if (pp_wire_ok(in) && lost > 1)
		return pp_wire_fail(in, PP_EBAD_RECORD, "lost flag %u", lost);
	e->lost = lost;
	if ((rc = read_reqs(in, &e->heads, true)) || (rc = read_reqs(in, &e->tails, false)))
		return rc;
	return 0;
}

static int bt_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct bt_priv *p = az->priv;

	for (int i = 0; i < 3; i++) {
		struct bt_row *r = &p->rows[i];
		uint64_t cnt = pp_wire_varint(in), sum = pp_wire_varint(in), min = pp_wire_varint(in);
		uint64_t max = pp_wire_varint(in), than = pp_wire_varint(in);
		if (!pp_wire_ok(in))
			return in->err;
		if (cnt ? min > max || than > cnt || sum < max : sum || min || max || than)
			return pp_wire_fail(in, PP_EBAD_RECORD, "row %d: %llu reqs, min %llu, max %llu",
					    i, (unsigned long long)cnt, (unsigned long long)min,
					    (unsigned long long)max);
		if (!cnt)
			continue;
		if (r->n + cnt < cnt || r->sum + sum < sum)
			return pp_wire_fail(in, PP_EBAD_RECORD, "row %d: a sum overflows", i);
		r->n += cnt;
		r->sum += sum;
		r->than += than;
		if (min < r->min)
			r->min = min;
		if (max > r->max)
			r->max = max;
	}
	return ana_edge_read(az, in, &p->edges, 3, read_edge);
}

/* A request's first event in the later range, measured from where the earlier left it. */
static bool bt_meet(void *arg, uint64_t key, const void *head, void *tail)
{
	const struct bt_head *h = head;
	struct bt_req *q = tail;

	(void)key;
	if (q && q->dev == h->dev && q->sector == h->sector)
		bt_step(arg, q, h->state, h->time_ns, NULL);
	return !q;	/* the request's first event yet */
}

/*
 * Adjacent ranges: each request's first event in the second is measured from where the
 * first left it, as one replay measures it; a request the second did not see keeps the
 * first's tracking, unless the second lost events before it saw the request.
 */
static void bt_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct bt_priv *p = az->priv;

	ana_edge_join(&p->edges, before, after, bt_meet, az);
}

static void bt_release(struct pp_az *az)
{
	struct bt_priv *p = az->priv;

	pp_u64map_free_all(&p->rec_heads);
	ana_edge_release(&p->edges);
	reqs_clear(p);
	while (p->free_reqs) {
		struct bt_req *q = p->free_reqs;
		p->free_reqs = (struct bt_req *)(uintptr_t)q->sector;
		free(q);
	}
	for (size_t i = 0; i < BLKTRACE_NR_EVENTS; i++)
		free(p->events[i]);
	pp_buf_release(&p->line);
}


const struct pp_analyzer_ops az_blktrace_ops = {
	.summary = "block request latency per stage: getrq, insert, issue, complete",
	.usage = "pp-analyze FILE blktrace [-d DEVICE] [-i MS] [--than T] [-v]",
	.examples = "  pp-record --for 'blktrace -d /dev/sda' --duration 10\n"
		    "  pp-analyze pp.capture blktrace -i 1000\n"
		    "  pp-analyze pp.capture blktrace -d /dev/sda1 --than 10ms -v\n"
		    "  pp blktrace -d /dev/nvme0n1 -i 1000 --than 1ms\n",
	.priv_size = sizeof(struct bt_priv),
	.flags = PP_AZ_NO_EVENTS,
	.set_events = bt_set_events,
	.init = bt_init,
	.event = bt_event,
	.lost = bt_lost,
	.interval = bt_interval,
	.finish = bt_finish,
	.release = bt_release,
	.state_version = 1,
	.state_write = bt_state_write,
	.state_read = bt_state_read,
	.state_join = bt_state_join,
};
