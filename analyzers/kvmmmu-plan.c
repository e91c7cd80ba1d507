/* SPDX-License-Identifier: MIT */
/*
 * kvmmmu-plan.c - what kvmmmu records: kvmmmu:kvm_mmu_get_page and
 * kvmmmu:kvm_mmu_prepare_zap_page, kvm_mmu_set_spte with --spte,
 * mark_mmio_spte with --mmio, and the -e events (printed as they come).
 */
#include <stdio.h>

#include "analyzers/kvmmmu.h"
#include "common/err.h"
#include "common/plan.h"

#define O(f) PP_AZOPT(struct kvmmmu_opts, f)

static const struct pp_option kvmmmu_options[] = {
	PP_OPT_GROUP("kvmmmu options:"),
	PP_OPT_BOOL(0, "spte", O(spte), "also follow the sptes set (kvmmmu:kvm_mmu_set_spte)"),
	PP_OPT_BOOL(0, "mmio", O(mmio), "also follow the MMIO sptes (kvmmmu:mark_mmio_spte)"),
	PP_OPT_END(),
};

static int kvmmmu_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	const struct kvmmmu_opts *o = a->opts;

	(void)err;
	(void)errsz;
	pp_plan_add_event(p, "kvmmmu:kvm_mmu_get_page");
	pp_plan_add_event(p, "kvmmmu:kvm_mmu_prepare_zap_page");
	if (o->spte)
		pp_plan_add_event(p, "kvmmmu:kvm_mmu_set_spte");
	if (o->mmio)
		pp_plan_add_event(p, "kvmmmu:mark_mmio_spte");
	for (size_t i = 0; i < a->common->events.nr; i++)
		pp_plan_add_event(p, a->common->events.v[i]);
	return 0;
}

const struct pp_plan_ops azp_kvmmmu_plan = {
	.options = kvmmmu_options,
	.opts_size = sizeof(struct kvmmmu_opts),
	.plan = kvmmmu_plan,
};
