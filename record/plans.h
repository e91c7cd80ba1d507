/* SPDX-License-Identifier: MIT */
/*
 * plans.h - lookup of analyzer plans by name (pp-record --for).
 */
#ifndef PP_RECORD_PLANS_H
#define PP_RECORD_PLANS_H

#include "common/plan.h"

/** rec_plan_find() - the plan part of analyzer @name, or NULL. Return: static, borrowed. */
const struct pp_plan_ops *rec_plan_find(const char *name);

#endif
