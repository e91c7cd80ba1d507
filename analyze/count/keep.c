/* SPDX-License-Identifier: MIT */
/*
 * keep.c - the count engine's mergeable state: rounds kept instead of reported.
 *
 * With --state-out the engine hands each complete round to ana_cnt_keep_add()
 * in place of the analyzer's round callback; a state holds those rounds (the
 * rows that were fed, by round index from the counters' enable), and two
 * states add round by round, row by row (docs/state-format.md "the count
 * engine").  A report loads the rounds back into the engine in order
 * (ana_cnt_load()), which reports them through the analyzer's callback as
 * when they were fed, empty rounds between them included: every analyzer on
 * the engine (hrcount, stat, percpu-stat, hwstat, llcstat, tlbstat) gets its
 * state from here, one layout for all.
 * Not here: binning (slots.c), any report layout (hist-print.c, hwtab.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "common/wire.h"

/* A row of a round kept for a state. */
struct kept_row {
	bool thread;
	uint32_t ins, ev;
	uint64_t enabled, running;
	uint64_t slot[];		/* hist counts */
};

struct kept_round {
	uint64_t round;
	struct pp_u64map rows;		/* row key -> struct kept_row */
};

/* The origin a state read gave its sources (a merged state has one for all). */
struct src_origin {
	unsigned id;			/* the source's */
	unsigned state;			/* which state read held it */
	enum ana_cnt_origin kind;
	uint64_t t0;
};

struct ana_cnt_keep {
	unsigned hist;			/* slots per round */
	struct pp_u64map rounds;	/* round -> struct kept_round */
	struct src_origin *origins;	/* per source read */
	size_t nr_origins, cap_origins;
	unsigned nr_read;		/* states read */
	unsigned owner;			/* the state whose origin the engine has (+ 1; 0: none) */
};

struct ana_cnt_keep *ana_cnt_keep_new(unsigned hist)
{
	struct ana_cnt_keep *k = pp_xcalloc(1, sizeof(*k));

	k->hist = hist;
	return k;
}

void ana_cnt_keep_free(struct ana_cnt_keep *k)
{
	size_t it = 0;
	uint64_t key;
	void *v;

	if (!k)
		return;
	while (pp_u64map_next(&k->rounds, &it, &key, &v)) {
		struct kept_round *kr = v;
		size_t jt = 0;
		void *r;
		while (pp_u64map_next(&kr->rows, &jt, &key, &r))
			free(r);
		pp_u64map_release(&kr->rows);
		free(kr);
	}
	pp_u64map_release(&k->rounds);
	free(k->origins);
	free(k);
}

bool ana_cnt_keep_empty(const struct ana_cnt_keep *k)
{
	return !k || !k->rounds.nr;
}

/* The engine's row order: CPUs before threads, then instance, then event. */
static uint64_t kept_key(bool thread, uint32_t ins, uint32_t ev)
{
	return (uint64_t)thread << 63 | (uint64_t)ins << 31 | (ev & 0x7fffffff);
}

void ana_cnt_keep_add(struct ana_cnt_keep *k, uint64_t round, const struct ana_cnt_row *row)
{
	void **rs = pp_u64map_slot(&k->rounds, round), **slot;
	struct kept_round *kr = *rs;
	struct kept_row *r;

	if (!kr) {
		kr = *rs = pp_xcalloc(1, sizeof(*kr));
		kr->round = round;
	}
	slot = pp_u64map_slot(&kr->rows, kept_key(row->thread, row->ins, row->ev));
	r = *slot;
	if (!r) {
		r = *slot = pp_xcalloc(1, sizeof(*r) + k->hist * sizeof(uint64_t));
		r->thread = row->thread;
		r->ins = row->ins;
		r->ev = row->ev;
	}
	for (unsigned i = 0; i < k->hist; i++)
		r->slot[i] += row->slot[i];
	r->enabled += row->enabled;
	r->running += row->running;
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

void ana_cnt_keep_load(struct ana_cnt_keep *k, struct ana_cnt *c)
{
	size_t nr_rounds, nr_rows;
	uint64_t *rounds = sorted_keys(&k->rounds, &nr_rounds);

	for (size_t i = 0; i < nr_rounds; i++) {
		struct kept_round *kr = pp_u64map_get(&k->rounds, rounds[i]);
		uint64_t *keys = sorted_keys(&kr->rows, &nr_rows);

		for (size_t j = 0; j < nr_rows; j++) {
			const struct kept_row *r = pp_u64map_get(&kr->rows, keys[j]);
			ana_cnt_load(c, kr->round, r->thread, r->ins, r->ev, r->slot, r->enabled,
				     r->running);
		}
		free(keys);
	}
	free(rounds);
}

void ana_cnt_keep_write(const struct ana_cnt_keep *k, struct pp_buf *out)
{
	size_t nr_rounds, nr_rows;
	uint64_t *rounds = sorted_keys(&k->rounds, &nr_rounds);

	pp_wire_put_varint(out, nr_rounds);
	for (size_t i = 0; i < nr_rounds; i++) {
		struct kept_round *kr = pp_u64map_get(&k->rounds, rounds[i]);
		uint64_t *keys = sorted_keys(&kr->rows, &nr_rows);

		pp_wire_put_varint(out, kr->round);
		pp_wire_put_varint(out, nr_rows);
		for (size_t j = 0; j < nr_rows; j++) {
			const struct kept_row *r = pp_u64map_get(&kr->rows, keys[j]);
			pp_wire_put_u8(out, r->thread);
			pp_wire_put_varint(out, r->ins);
			pp_wire_put_varint(out, r->ev);
			pp_wire_put_varint(out, r->enabled);
			pp_wire_put_varint(out, r->running);
			for (unsigned s = 0; s < k->hist; s++)
				pp_wire_put_varint(out, r->slot[s]);
		}
		free(keys);
	}
	free(rounds);
}

int ana_cnt_keep_read(struct ana_cnt_keep *k, struct pp_wire *in, uint32_t nr_events, bool perins)
{
	uint64_t prev = 0;
	size_t nr = pp_wire_count(in, 2, SIZE_MAX, "rounds");
	uint64_t *slots = pp_xcalloc(k->hist + 1, sizeof(*slots));

	for (size_t i = 0; i < nr && pp_wire_ok(in); i++) {
		uint64_t round = pp_wire_varint(in);
		size_t nr_rows = pp_wire_count(in, 5 + k->hist, SIZE_MAX, "rows");

		if (pp_wire_ok(in) && i && round <= prev) {
			pp_wire_fail(in, PP_EBAD_RECORD, "rounds out of order");
			break;
		}
		prev = round;
		for (size_t j = 0; j < nr_rows && pp_wire_ok(in); j++) {
			struct ana_cnt_row row = { .slot = slots };
			uint8_t thread = pp_wire_u8(in);

			row.ins = pp_wire_u32(in, "instance");
			row.ev = pp_wire_u32(in, "event");
			row.enabled = pp_wire_varint(in);
			row.running = pp_wire_varint(in);
			for (unsigned s = 0; s < k->hist; s++)
				slots[s] = pp_wire_varint(in);
			if (!pp_wire_ok(in))
				break;
			row.thread = thread;
			if (thread > 1 || row.ev >= nr_events ||
			    (!perins && (thread || row.ins != UINT32_MAX))) {
				pp_wire_fail(in, PP_EBAD_RECORD, "round %llu: row %zu: event %u of %u, "
					     "instance %u", (unsigned long long)round, j, row.ev,
					     nr_events, row.ins);
				break;
			}
			ana_cnt_keep_add(k, round, &row);
		}
	}
	free(slots);
	return in->err;
}

int ana_cnt_az_state_write(struct pp_az *az, struct pp_buf *out)
{
	struct ana_cnt *c = az->engine;
	enum ana_cnt_origin kind;
	uint64_t t0;

	if (ana_state_recording(az))
		ana_cnt_finish(c);	/* the last round, kept */
	kind = ana_cnt_origin(c, &t0);
	pp_wire_put_varint(out, ana_cnt_slots(c));
	pp_wire_put_varint(out, ana_cnt_period(c));
	pp_wire_put_varint(out, ana_cnt_interval(c));
	pp_wire_put_u8(out, (uint8_t)kind);
	pp_wire_put_varint(out, kind ? t0 : 0);
	pp_wire_put_u8(out, ana_cnt_threads(c));
	ana_cnt_keep_write(ana_cnt_kept(c), out);
	return 0;
}

/* The sources of the state being read, with its origin if @kind (the engine's now). */
static void note_origin(struct pp_az *az, struct ana_cnt_keep *k, struct pp_wire *in,
			enum ana_cnt_origin kind, uint64_t t0)
{
	size_t n = ana_state_nr_sources_in(az);

	k->nr_read++;
	if (kind)
		k->owner = k->nr_read;
	for (size_t i = 0; i < n; i++) {
		struct src_origin o = { .state = k->nr_read, .kind = kind, .t0 = t0 };

		if (!ana_state_source_in(az, in, i, &o.id))
			return;
		PP_VEC_PUSH(k->origins, k->nr_origins, k->cap_origins, o);
	}
}

static const struct src_origin *origin_of(const struct ana_cnt_keep *k, unsigned id)
{
	for (size_t i = 0; i < k->nr_origins; i++)
		if (k->origins[i].id == id)
			return &k->origins[i];
	return NULL;
}

/*
 * Two ranges of one capture: slot 0 starts where the capture's counters were
 * enabled, which the first range saw (the second's first reading is later).
 * The engine keeps the origin of the latest state it read; if that state holds
 * @after, the capture's origin is @before's.  (Joins come as (first, next) with
 * the first's id kept, so a capture cut in three ends with its first range's.)
 */
void ana_cnt_az_state_join(struct pp_az *az, unsigned before, unsigned after)
{
	struct ana_cnt *c = az->engine;
	struct ana_cnt_keep *k = ana_cnt_kept(c);
	const struct src_origin *a = origin_of(k, after), *b = origin_of(k, before);

	if (!a || !b || !b->kind || a->state != k->owner)
		return;
	ana_cnt_set_origin(c, b->kind, b->t0, false);
	k->owner = b->state;
}

/*
 * Whether a range of a capture binned from events from @t0 meets a range of the same
 * capture read before that was binned from another origin (their slots would not line
 * up): then the read fails, naming both.  Readings' origins differ by the ns between
 * a counter's enable and its reading: the join picks one, as before.
 */
static bool other_grid(struct pp_az *az, const struct ana_cnt_keep *k, struct pp_wire *in,
		       uint64_t t0)
{
	size_t n = ana_state_nr_sources_in(az);
	unsigned id;

	for (size_t i = 0; i < n; i++) {
		if (!ana_state_source_in(az, in, i, &id))
			return true;
		for (size_t j = 0; j < k->nr_origins; j++) {
			const struct src_origin *o = &k->origins[j];

			if (o->kind != ANA_CNT_ORIGIN_GRID || o->t0 == t0 ||
			    !ana_state_same_capture(az, id, o->id))
				continue;
			pp_wire_fail(in, PP_EUSAGE, "slot 0 at %llu ns, another range of its capture "
				     "at %llu ns: binned on other grids, their slots do not add up",
				     (unsigned long long)t0, (unsigned long long)o->t0);
			return true;
		}
	}
	return false;
}

int ana_cnt_az_state_read(struct pp_az *az, struct pp_wire *in)
{
	struct ana_cnt *c = az->engine;
	unsigned hist = ana_cnt_slots(c);
	uint64_t nslots = pp_wire_varint(in), period = pp_wire_varint(in);
	uint64_t interval = pp_wire_varint(in), t0;
	uint8_t kind = pp_wire_u8(in), threads;

	t0 = pp_wire_varint(in);
	threads = pp_wire_u8(in);
	if (!pp_wire_ok(in))
		return in->err;
	if (nslots != hist || period != ana_cnt_period(c) || interval != ana_cnt_interval(c))
		return pp_wire_fail(in, PP_EUSAGE, "rounds of %llu slots of %llu ns, here %u of %llu "
				    "ns: counters read at another period", (unsigned long long)nslots,
				    (unsigned long long)period, hist,
				    (unsigned long long)ana_cnt_period(c));
	if (kind > ANA_CNT_ORIGIN_GRID || threads > 1)
		return pp_wire_fail(in, PP_EBAD_RECORD, "bad origin flags");
	if (kind == ANA_CNT_ORIGIN_GRID && other_grid(az, ana_cnt_kept(c), in, t0))
		return in->err;
	if (kind) {	/* inputs come in time order: the latest capture's origin wins */
		ana_cnt_set_origin(c, kind, t0, threads);
	} else if (threads) {
		enum ana_cnt_origin had = ana_cnt_origin(c, &t0);
		ana_cnt_set_origin(c, had, t0, true);
	}
	note_origin(az, ana_cnt_kept(c), in, kind, t0);
	return ana_cnt_keep_read(ana_cnt_kept(c), in, (uint32_t)az->nr_sels, ana_cnt_perins(c));
}
