/* SPDX-License-Identifier: MIT */
/*
 * kvmmmu.h - the options of the kvmmmu analyzer, shared by kvmmmu.c and
 * kvmmmu-plan.c (which pp-record links).
 */
#ifndef PP_AZ_KVMMMU_H
#define PP_AZ_KVMMMU_H

#include <stdbool.h>

struct kvmmmu_opts {
	bool spte;		/* --spte: also kvmmmu:kvm_mmu_set_spte */
	bool mmio;		/* --mmio: also kvmmmu:mark_mmio_spte */
};

#endif
