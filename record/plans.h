/* SPDX-License-Identifier: MIT */
/*
 * plans.h - lookup of analyzer plans by name (pp-record --for).
 */
#ifndef PP_RECORD_PLANS_H
#define PP_RECORD_PLANS_H

#include <stddef.h>

#include "common/plan.h"

/** rec_plan_find() - the plan part of analyzer @name, or NULL. */
const struct pp_plan_ops *rec_plan_find(const char *name);
size_t rec_plan_count(void);
const struct pp_plan_ops *rec_plan_at(size_t i);

#endif
