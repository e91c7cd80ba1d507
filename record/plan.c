/* SPDX-License-Identifier: MIT */
/*
 * plan.c - the --for bridge to analyzer plans.
 *
 * Placeholder until the analyzer registry and its plan hooks exist: the
 * option is parsed and stored, and applying it fails with a clear message.
 */
#include "common/err.h"
#include "plan.h"
#include "session.h"

int rec_plan_apply(struct rec_session *s, const char *analyzer_args)
{
	return rec_session_fail(s, PP_ENOTSUP,
				"--for '%s': recording for an analyzer is not supported yet; give the events with -e",
				analyzer_args);
}
