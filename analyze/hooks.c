/* SPDX-License-Identifier: MIT */
/*
 * hooks.c - an analyzer instance's hook table.
 *
 * ana_az_bind() copies the analyzer's ops into the instance and puts a no-op
 * in each optional dispatch hook the analyzer leaves NULL, so the replay
 * calls every hook unchecked (lost, task_exit, sideband, mmap, interval,
 * release, flush, print_stat, and the state hooks: state_write and state_read
 * fail with PP_ENOTSUP, state_join does nothing).  What an analyzer does NOT
 * have (an interval hook, for -i; a state, for --state-out) is asked of
 * az->an->ops, outside the dispatch.
 * Not here: the list of analyzers (registry.c).
 */
#include "analyze/internal.h"
#include "common/err.h"

/* The no-ops put in place of optional dispatch hooks. */
static void no_lost(struct pp_az *az, const struct pp_lost_ev *l)
{
}

static void no_task_exit(struct pp_az *az, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
}

static void no_sideband(struct pp_az *az, const struct pp_sideband_ev *sb)
{
}

static void no_mmap(struct pp_az *az, const struct pp_mmap_ev *m)
{
}

static void no_interval(struct pp_az *az, uint64_t now_ns)
{
}

static void no_release(struct pp_az *az)
{
}

static void no_flush(struct pp_az *az)
{
}

static void no_print_stat(struct pp_az *az, int indent)
{
}

static int no_state_write(struct pp_az *az, struct pp_buf *out)
{
	return PP_ENOTSUP;
}

static int no_state_read(struct pp_az *az, struct pp_wire *in)
{
	return PP_ENOTSUP;
}

static void no_state_join(struct pp_az *az, unsigned before, unsigned after)
{
}

void ana_az_bind(struct pp_az *az, const struct pp_analyzer *an)
{
	az->an = an;
	az->name = an->name;
	az->plan = an->plan;
	az->hooks = *an->ops;
	if (!az->hooks.lost)
		az->hooks.lost = no_lost;
	if (!az->hooks.task_exit)
		az->hooks.task_exit = no_task_exit;
	if (!az->hooks.sideband)
		az->hooks.sideband = no_sideband;
	if (!az->hooks.mmap)
		az->hooks.mmap = no_mmap;
	if (!az->hooks.interval)
		az->hooks.interval = no_interval;
	if (!az->hooks.release)
		az->hooks.release = no_release;
	if (!az->hooks.flush)
		az->hooks.flush = no_flush;
	if (!az->hooks.print_stat)
		az->hooks.print_stat = no_print_stat;
	if (!az->hooks.state_write)
		az->hooks.state_write = no_state_write;
	if (!az->hooks.state_read)
		az->hooks.state_read = no_state_read;
	if (!az->hooks.state_join)
		az->hooks.state_join = no_state_join;
	az->ops = &az->hooks;
}
