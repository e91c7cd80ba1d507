/* SPDX-License-Identifier: MIT */
/*
 * hist-az.c - the analyzer side of hrcount and stat: the count engine with
 * perf-prof's per-slot report (hist-print.c) as its round callback.
 * Their state is the engine's (keep.c).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/count/count.h"
#include "common/err.h"
#include "common/log.h"

static struct ana_cnt_hist *state(struct pp_az *az)
{
	return az->priv;
}

static void hist_round(struct pp_az *az, struct ana_cnt *c, uint64_t end_ns)
{
	ana_cnt_print_hist(az, c, &state(az)->names, end_ns);
}

int ana_cnt_hist_init(struct pp_az *az)
{
	const struct pp_count_opts *co = az->opts;
	struct ana_cnt_hist *h = state(az);
	struct ana_cnt_opts o = { az->opt.period_ns, az->opt.interval_ns, az->opt.perins,
				  hist_round };

	h->c = ana_cnt_new(az, &o);
	if (!h->c)
		return PP_EUSAGE;
	/* perf-prof packs a round of 5 slots or fewer onto a terminal */
	ana_cnt_names_init(&h->names, az, ana_cnt_slots(h->c),
			   co->packed || (az->out.format == ANA_FMT_TEXT && ana_out_tty(&az->out)));
	return 0;
}

void ana_cnt_hist_event(struct pp_az *az, const struct pp_event *ev)
{
	struct ana_cnt_hist *h = state(az);

	/* a reading counts its period; a sample (a recorded event stream, binned) its period */
	ana_cnt_feed(h->c, ev, ev->sel->index, ev->count ? ev->count->d_value : ev->period);
}

int ana_cnt_hist_finish(struct pp_az *az)
{
	struct ana_cnt_hist *h = state(az);

	if (!h->c)
		return 0;
	ana_cnt_finish(h->c);
	return 0;
}

void ana_cnt_hist_release(struct pp_az *az)
{
	struct ana_cnt_hist *h = state(az);

	ana_cnt_free(h->c);
	ana_cnt_names_release(&h->names);
	*h = (struct ana_cnt_hist){ 0 };
}
