/* SPDX-License-Identifier: MIT */
/*
 * slots.c - the count engine: events binned into time slots per instance and
 * event, reported a round (-i) at a time (count.h has the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"

/* A capture gap longer than this many rounds is jumped over, not printed as zeros. */
#define CNT_MAX_EMPTY_ROUNDS 1000

struct ana_cnt {
	struct pp_az *az;
	struct ana_cnt_opts o;
	uint64_t rec_period;		/* the recorded counter period (0: unknown) */
	unsigned hist;			/* slots per round */
	bool threads;
	enum ana_cnt_origin t0_kind;	/* whence t0 (none yet, counters' enable, the grid) */
	uint64_t t0;			/* slot 0 starts here */
	uint64_t round;			/* the round being filled */
	bool dirty;			/* something was fed into it */
	uint64_t max;
	struct ana_cnt_row *rows;
	size_t nr_rows, cap_rows;
	struct pp_u64map idx;		/* (ins, ev) -> row index + 1 */
	bool sorted;
	uint64_t *slot_store;		/* hist per row, reallocated with rows */
	bool rec;			/* --state-out: complete rounds are kept, not reported */
	struct ana_cnt_keep *keep;	/* the kept rounds (keep.c): recorded, or read from states */
};

static uint64_t parse_u64(const char *v)
{
	char *end;
	unsigned long long n = v ? strtoull(v, &end, 10) : 0;

	return v && *v && !*end ? n : 0;
}

struct ana_cnt *ana_cnt_new(struct pp_az *az, const struct ana_cnt_opts *o)
{
	struct ana_cnt *c = pp_xcalloc(1, sizeof(*c));

	c->az = az;
	c->o = *o;
	c->rec_period = parse_u64(ana_host(az->s, "record.count_period_ns"));
	if (!c->o.interval_ns)
		c->o.interval_ns = 1000000000ull;
	if (!c->o.period_ns)
		c->o.period_ns = c->rec_period ? c->rec_period : c->o.interval_ns;
	if (c->rec_period && (c->o.period_ns < c->rec_period || c->o.period_ns % c->rec_period)) {
		pp_err("%s: --period %llu ns: the counters were read every %llu ns; the period must be a multiple of that",
		       az->name, (unsigned long long)c->o.period_ns,
		       (unsigned long long)c->rec_period);
		free(c);
		return NULL;
	}
	if (c->o.interval_ns < c->o.period_ns || c->o.interval_ns % c->o.period_ns) {
		pp_err("%s: -i %llu ms is not a multiple of the period (%llu ns)", az->name,
		       (unsigned long long)(c->o.interval_ns / 1000000),
		       (unsigned long long)c->o.period_ns);
		free(c);
		return NULL;
	}
	c->hist = (unsigned)(c->o.interval_ns / c->o.period_ns);
	if (c->hist > 4096) {
		pp_err("%s: -i / --period = %u slots a round; at most 4096", az->name, c->hist);
		free(c);
		return NULL;
	}
	c->rec = ana_state_recording(az);
	c->keep = ana_cnt_keep_new(c->hist);
	az->engine = c;
	return c;
}

void ana_cnt_free(struct ana_cnt *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c->slot_store);
	ana_cnt_keep_free(c->keep);
	pp_u64map_release(&c->idx);
	free(c);
}

/*
 * The key of a row in c->idx: instance, thread?, event (below 2^31) packed in
 * one word.  Not the report's order: row_cmp() sorts CPUs before threads.
 */
static uint64_t row_key(bool thread, uint32_t ins, uint32_t ev)
{
	return (uint64_t)ins << 32 | (uint64_t)thread << 31 | (ev & 0x7fffffff);
}

static struct ana_cnt_row *row_get(struct ana_cnt *c, bool thread, uint32_t ins, uint32_t ev)
{
	void **slot = pp_u64map_slot(&c->idx, row_key(thread, ins, ev));
	uintptr_t i = (uintptr_t)*slot;

	if (i)
		return &c->rows[i - 1];
	if (c->nr_rows == c->cap_rows) {
		c->cap_rows = c->cap_rows ? 2 * c->cap_rows : 16;
		c->rows = pp_xrealloc(c->rows, c->cap_rows * sizeof(*c->rows));
		c->slot_store = pp_xrealloc(c->slot_store, c->cap_rows * c->hist * sizeof(uint64_t));
		for (size_t k = 0; k < c->nr_rows; k++)	/* the store moved */
			c->rows[k].slot = c->slot_store + k * c->hist;
	}
	struct ana_cnt_row *r = &c->rows[c->nr_rows];

	*r = (struct ana_cnt_row){ .ins = ins, .thread = thread, .ev = ev,
				   .slot = c->slot_store + c->nr_rows * c->hist };
	memset(r->slot, 0, c->hist * sizeof(uint64_t));
	*slot = (void *)(uintptr_t)++c->nr_rows;
	c->sorted = false;
	return r;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ana_cnt_row *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread ? 1 : -1;
	if (x->ins != y->ins)
		return x->ins < y->ins ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static void sort_rows(struct ana_cnt *c)
{
	if (c->sorted)
		return;
	/* sort the rows with their slots: copy the slots out and back */
	uint64_t *tmp = pp_xmalloc(c->nr_rows * c->hist * sizeof(uint64_t) + 1);

	for (size_t k = 0; k < c->nr_rows; k++) {
		memcpy(tmp + k * c->hist, c->rows[k].slot, c->hist * sizeof(uint64_t));
		c->rows[k].slot = tmp + k * c->hist;	/* follows the row through qsort */
	}
	qsort(c->rows, c->nr_rows, sizeof(*c->rows), row_cmp);
	pp_u64map_release(&c->idx);
	memset(&c->idx, 0, sizeof(c->idx));
	for (size_t k = 0; k < c->nr_rows; k++) {
		memcpy(c->slot_store + k * c->hist, c->rows[k].slot, c->hist * sizeof(uint64_t));
		c->rows[k].slot = c->slot_store + k * c->hist;
		*pp_u64map_slot(&c->idx, row_key(c->rows[k].thread, c->rows[k].ins, c->rows[k].ev)) =
			(void *)(uintptr_t)(k + 1);
	}
	free(tmp);
	c->sorted = true;
}

static void emit(struct ana_cnt *c)
{
	sort_rows(c);
	if (c->rec) {
		for (size_t k = 0; k < c->nr_rows; k++)
			if (c->rows[k].seen)
				ana_cnt_keep_add(c->keep, c->round, &c->rows[k]);
	} else {
		c->o.round(c->az, c, c->t0 + (c->round + 1) * c->o.interval_ns);
	}
	for (size_t k = 0; k < c->nr_rows; k++) {
		struct ana_cnt_row *r = &c->rows[k];

		memset(r->slot, 0, c->hist * sizeof(uint64_t));
		r->sum = r->max = r->enabled = r->running = 0;
		r->seen = false;
	}
	c->dirty = false;
}

/* Rounds before @round are complete: report them. */
static void advance(struct ana_cnt *c, uint64_t round)
{
	if (round <= c->round)
		return;
	if (round - c->round > CNT_MAX_EMPTY_ROUNDS) {
		if (c->dirty)
			emit(c);
		c->round = round;
		return;
	}
	while (c->round < round) {
		if (c->nr_rows)
			emit(c);
		c->round++;
	}
}

/* The slot (since t0) of @ev. */
static uint64_t slot_of(struct ana_cnt *c, const struct pp_event *ev)
{
	if (ev->count && c->rec_period) {
		uint64_t p = c->rec_period, k;

		if (!c->t0_kind) {
			c->t0 = ev->time_ns > ev->count->enabled ? ev->time_ns - ev->count->enabled : 0;
			c->t0_kind = ANA_CNT_ORIGIN_ENABLE;
		}
		k = ev->time_ns >= c->t0 ? (ev->time_ns - c->t0 + p / 2) / p : 0;
		return (k ? k - 1 : 0) / (c->o.period_ns / p);
	}
	if (!c->t0_kind) {
		/*
		 * One grid for the capture: a state's (every range, every part of -j) starts at
		 * the capture's first time; a report of --time A,B at A, as it always did.
		 */
		uint64_t start = ana_grid_origin_ns(c->az->s, !c->az->opt.state_out);

		c->t0 = start && start <= ev->time_ns ? start : ev->time_ns;
		c->t0_kind = ANA_CNT_ORIGIN_GRID;
	}
	return ev->time_ns >= c->t0 ? (ev->time_ns - c->t0) / c->o.period_ns : 0;
}

void ana_cnt_feed(struct ana_cnt *c, const struct pp_event *ev, uint32_t idx, uint64_t n)
{
	uint64_t s = slot_of(c, ev), round = s / c->hist;
	bool thread = ev->count && ev->cpu == UINT32_MAX;
	uint32_t ins;
	struct ana_cnt_row *r;

	c->threads |= thread;
	if (!c->o.perins)
		thread = false;
	ins = !c->o.perins ? UINT32_MAX : thread ? ev->tid : ev->cpu;
	advance(c, round);
	if (round < c->round)
		s = c->round * c->hist;	/* late: into the round being filled */
	r = row_get(c, thread, ins, idx);
	r->slot[s % c->hist] += n;
	r->sum += n;
	if (r->slot[s % c->hist] > r->max)
		r->max = r->slot[s % c->hist];
	if (r->max > c->max)
		c->max = r->max;
	if (ev->count) {
		r->enabled += ev->count->d_enabled;
		r->running += ev->count->d_running;
	}
	r->seen = true;
	c->dirty = true;
}

void ana_cnt_finish(struct ana_cnt *c)
{
	if (!c->rec && !ana_cnt_keep_empty(c->keep)) {
		/* a report of states: the kept rounds, in order, as if fed */
		struct ana_cnt_keep *k = c->keep;

		c->keep = ana_cnt_keep_new(c->hist);
		ana_cnt_keep_load(k, c);
		ana_cnt_keep_free(k);
	}
	if (c->dirty)
		emit(c);
}

unsigned ana_cnt_slots(const struct ana_cnt *c)
{
	return c->hist;
}

uint64_t ana_cnt_period(const struct ana_cnt *c)
{
	return c->o.period_ns;
}

bool ana_cnt_perins(const struct ana_cnt *c)
{
	return c->o.perins;
}

struct ana_cnt_keep *ana_cnt_kept(struct ana_cnt *c)
{
	return c->keep;
}

bool ana_cnt_threads(const struct ana_cnt *c)
{
	return c->threads;
}

struct ana_cnt_row *ana_cnt_rows(struct ana_cnt *c, size_t *nr)
{
	sort_rows(c);
	*nr = c->nr_rows;
	return c->rows;
}

uint64_t ana_cnt_max(const struct ana_cnt *c)
{
	return c->max;
}

uint64_t ana_cnt_round(const struct ana_cnt *c)
{
	return c->round;
}

uint64_t ana_cnt_interval(const struct ana_cnt *c)
{
	return c->o.interval_ns;
}

enum ana_cnt_origin ana_cnt_origin(const struct ana_cnt *c, uint64_t *t0)
{
	*t0 = c->t0;
	return c->t0_kind;
}

void ana_cnt_set_origin(struct ana_cnt *c, enum ana_cnt_origin kind, uint64_t t0, bool threads)
{
	c->t0_kind = kind;
	c->t0 = t0;
	c->threads |= threads;
}

void ana_cnt_load(struct ana_cnt *c, uint64_t round, bool thread, uint32_t ins, uint32_t ev,
		  const uint64_t *slots, uint64_t enabled, uint64_t running)
{
	struct ana_cnt_row *r;

	advance(c, round);	/* the rounds before it are reported, as when fed */
	r = row_get(c, thread, ins, ev);
	for (unsigned i = 0; i < c->hist; i++) {
		r->slot[i] += slots[i];
		r->sum += slots[i];
		if (r->slot[i] > r->max)
			r->max = r->slot[i];
	}
	if (r->max > c->max)
		c->max = r->max;
	r->enabled += enabled;
	r->running += running;
	r->seen = true;
	c->dirty = true;
}
