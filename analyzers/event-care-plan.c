/* SPDX-License-Identifier: MIT */
/*
 * event-care-plan.c - event-care records the -e events as given (all of a
 * capture's events when it runs on one without -e).
 */
#include "common/plan.h"

const struct pp_plan_ops azp_event_care_plan = {
	.name = "event-care",
};
