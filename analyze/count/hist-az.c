/* SPDX-License-Identifier: MIT */
/*
 * hist-az.c - the analyzer side of hrcount and stat: the count engine with
 * perf-prof's per-slot report (hist-print.c) as its round callback.
 *
 * With --state-out the callback keeps each round's rows instead of printing
 * them; a state holds those rounds (rows that were fed, by round index from
 * the counters' enable), and two states add round by round, row by row.  A
 * report loads the rounds back into the engine in order (ana_cnt_load()),
 * which prints them as when they were fed, empty rounds between them included.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/wire.h"

/* A row of a round kept for a state. */
struct kept_row {
	bool thread;
	uint32_t ins, ev;
	uint64_t enabled, running;
	uint64_t slot[];		/* ana_cnt_slots() counts */
};

struct kept_round {
	uint64_t round;
	struct pp_u64map rows;		/* row key -> struct kept_row */
};

struct hist_state {
	struct ana_cnt *c;
	struct ana_cnt_names names;
	bool rec;			/* --state-out: rounds are kept, not printed */
	struct pp_u64map rounds;	/* round -> struct kept_round */
};

static struct hist_state *state(struct pp_az *az)
{
	return *(struct hist_state **)az->priv;
}

/* The engine's row order: CPUs before threads, then instance, then event. */
static uint64_t kept_key(bool thread, uint32_t ins, uint32_t ev)
{
	return (uint64_t)thread << 63 | (uint64_t)ins << 31 | (ev & 0x7fffffff);
}

static void keep(struct hist_state *h, uint64_t round, bool thread, uint32_t ins, uint32_t ev,
		 const uint64_t *slots, uint64_t enabled, uint64_t running)
{
	unsigned hist = ana_cnt_slots(h->c);
	void **rs = pp_u64map_slot(&h->rounds, round), **slot;
	struct kept_round *kr = *rs;
	struct kept_row *r;

	if (!kr) {
		kr = *rs = pp_xcalloc(1, sizeof(*kr));
		kr->round = round;
	}
	slot = pp_u64map_slot(&kr->rows, kept_key(thread, ins, ev));
	r = *slot;
	if (!r) {
		r = *slot = pp_xcalloc(1, sizeof(*r) + hist * sizeof(uint64_t));
		r->thread = thread;
		r->ins = ins;
		r->ev = ev;
	}
	for (unsigned i = 0; i < hist; i++)
		r->slot[i] += slots[i];
	r->enabled += enabled;
	r->running += running;
}

static void hist_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	struct hist_state *h = state(az);
	struct ana_cnt_row *rows;
	size_t nr;

	if (!h->rec) {
		ana_cnt_print_hist(az, c, &h->names, end_ns);
		return;
	}
	rows = ana_cnt_rows(c, &nr);
	for (size_t k = 0; k < nr; k++)
		if (rows[k].seen)
			keep(h, ana_cnt_round(c), rows[k].thread, rows[k].ins, rows[k].ev,
			     rows[k].slot, rows[k].enabled, rows[k].running);
}

int ana_cnt_hist_init(struct pp_az *az, bool packed)
{
	struct hist_state *h = pp_xcalloc(1, sizeof(*h));
	struct ana_cnt_opts o = { az->opt.period_ns, az->opt.interval_ns, az->opt.perins,
				  hist_round };

	*(struct hist_state **)az->priv = h;
	h->rec = ana_state_recording(az);
	h->c = ana_cnt_new(az, &o);
	if (!h->c)
		return PP_EUSAGE;
	/* perf-prof packs a round of 5 slots or fewer onto a terminal */
	ana_cnt_names_init(&h->names, az, ana_cnt_slots(h->c),
			   packed || (az->out.format == ANA_FMT_TEXT && ana_out_tty(&az->out)));
	return 0;
}

void ana_cnt_hist_event(struct pp_az *az, const struct pp_event *ev)
{
	struct hist_state *h = state(az);

	/* a reading counts its period; a sample (a recorded event stream, binned) its period */
	ana_cnt_feed(h->c, ev, ev->sel->index, ev->count ? ev->count->d_value : ev->period);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The keys of @m, ascending. */
static uint64_t *sorted_keys(const struct pp_u64map *m, size_t *nr)
{
	uint64_t *v = pp_xmalloc((m->nr + 1) * sizeof(*v)), k;
	size_t it = 0, n = 0;
	void *x;

	while (pp_u64map_next(m, &it, &k, &x))
		v[n++] = k;
	qsort(v, n, sizeof(*v), cmp_u64);
	*nr = n;
	return v;
}

/* A report of states: the kept rounds through the engine, in order, as if fed. */
static void load_rounds(struct hist_state *h)
{
	size_t nr_rounds, nr_rows;
	uint64_t *rounds = sorted_keys(&h->rounds, &nr_rounds);

	for (size_t i = 0; i < nr_rounds; i++) {
		struct kept_round *kr = pp_u64map_get(&h->rounds, rounds[i]);
		uint64_t *keys = sorted_keys(&kr->rows, &nr_rows);

		for (size_t k = 0; k < nr_rows; k++) {
			const struct kept_row *r = pp_u64map_get(&kr->rows, keys[k]);
			ana_cnt_load(h->c, kr->round, r->thread, r->ins, r->ev, r->slot, r->enabled,
				     r->running);
		}
		free(keys);
	}
	free(rounds);
}

int ana_cnt_hist_finish(struct pp_az *az)
{
	struct hist_state *h = state(az);

	if (!h || !h->c)
		return 0;
	if (!h->rec)
		load_rounds(h);
	ana_cnt_finish(h->c);
	return 0;
}

int ana_cnt_hist_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct hist_state *h = state(az);
	unsigned hist = ana_cnt_slots(h->c);
	size_t nr_rounds, nr_rows;
	uint64_t *rounds, t0;
	bool have_t0;

	if (h->rec)
		ana_cnt_finish(h->c);	/* the last round, kept */
	have_t0 = ana_cnt_origin(h->c, &t0);
	pp_wire_put_varint(out, hist);
	pp_wire_put_varint(out, ana_cnt_period(h->c));
	pp_wire_put_varint(out, ana_cnt_interval(h->c));
	pp_wire_put_u8(out, have_t0);
	pp_wire_put_varint(out, have_t0 ? t0 : 0);
	pp_wire_put_u8(out, ana_cnt_threads(h->c));
	rounds = sorted_keys(&h->rounds, &nr_rounds);
	pp_wire_put_varint(out, nr_rounds);
	for (size_t i = 0; i < nr_rounds; i++) {
		struct kept_round *kr = pp_u64map_get(&h->rounds, rounds[i]);
		uint64_t *keys = sorted_keys(&kr->rows, &nr_rows);

		pp_wire_put_varint(out, kr->round);
		pp_wire_put_varint(out, nr_rows);
		for (size_t k = 0; k < nr_rows; k++) {
			const struct kept_row *r = pp_u64map_get(&kr->rows, keys[k]);
			pp_wire_put_u8(out, r->thread);
			pp_wire_put_varint(out, r->ins);
			pp_wire_put_varint(out, r->ev);
			pp_wire_put_varint(out, r->enabled);
			pp_wire_put_varint(out, r->running);
			for (unsigned s = 0; s < hist; s++)
				pp_wire_put_varint(out, r->slot[s]);
		}
		free(keys);
	}
	free(rounds);
	return 0;
}

int ana_cnt_hist_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct hist_state *h = state(az);
	unsigned hist = ana_cnt_slots(h->c);
	uint64_t nslots = pp_wire_varint(in), period = pp_wire_varint(in);
	uint64_t interval = pp_wire_varint(in), t0, prev = 0;
	uint8_t have_t0 = pp_wire_u8(in), threads;
	uint64_t *slots;
	size_t nr;

	t0 = pp_wire_varint(in);
	threads = pp_wire_u8(in);
	if (!pp_wire_ok(in))
		return in->err;
	if (nslots != hist || period != ana_cnt_period(h->c) ||
	    interval != ana_cnt_interval(h->c))
		return pp_wire_fail(in, PP_EUSAGE, "rounds of %llu slots of %llu ns, here %u of %llu "
				    "ns: counters read at another period", (unsigned long long)nslots,
				    (unsigned long long)period, hist,
				    (unsigned long long)ana_cnt_period(h->c));
	if (have_t0 > 1 || threads > 1)
		return pp_wire_fail(in, PP_EBAD_RECORD, "bad origin flags");
	if (have_t0)	/* inputs come in time order: the latest capture's origin wins */
		ana_cnt_set_origin(h->c, true, t0, threads);
	else if (threads)
		ana_cnt_set_origin(h->c, ana_cnt_origin(h->c, &t0), t0, true);
	nr = pp_wire_count(in, 2, SIZE_MAX, "rounds");
	slots = pp_xcalloc(hist + 1, sizeof(*slots));
	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint64_t round = pp_wire_varint(in);
		size_t nr_rows = pp_wire_count(in, 5 + hist, SIZE_MAX, "rows");

		if (pp_wire_ok(in) && i && round <= prev) {
			pp_wire_fail(in, PP_EBAD_RECORD, "rounds out of order");
			break;
		}
		prev = round;
		for (size_t k = 0; k < nr_rows && pp_wire_ok(in); k++) {
			uint8_t thread = pp_wire_u8(in);
			uint32_t ins = pp_wire_u32(in, "instance"), ev = pp_wire_u32(in, "event");
			uint64_t enabled = pp_wire_varint(in), running = pp_wire_varint(in);

			for (unsigned s = 0; s < hist; s++)
				slots[s] = pp_wire_varint(in);
			if (!pp_wire_ok(in))
				break;
			if (thread > 1 || ev >= az->nr_sels ||
			    (!az->opt.perins && (thread || ins != UINT32_MAX))) {
				pp_wire_fail(in, PP_EBAD_RECORD, "round %llu: row %zu: event %u of %zu, "
					     "instance %u", (unsigned long long)round, k, ev,
					     az->nr_sels, ins);
				break;
			}
			keep(h, round, thread, ins, ev, slots, enabled, running);
		}
	}
	free(slots);
	return in->err;
}

void ana_cnt_hist_release(struct pp_az *az)
{
	struct hist_state *h = state(az);
	size_t it = 0;
	uint64_t k;
	void *v;

	if (!h)
		return;
	while (pp_u64map_next(&h->rounds, &it, &k, &v)) {
		struct kept_round *kr = v;
		size_t jt = 0;
		void *r;
		while (pp_u64map_next(&kr->rows, &jt, &k, &r))
			free(r);
		pp_u64map_release(&kr->rows);
		free(kr);
	}
	pp_u64map_release(&h->rounds);
	ana_cnt_free(h->c);
	ana_cnt_names_release(&h->names);
	free(h);
	*(struct hist_state **)az->priv = NULL;
}
