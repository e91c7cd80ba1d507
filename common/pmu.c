/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - whether a hardware PMU exists (see pmu.h).
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/pmu.h"

bool pp_have_pmu(void)
{
	const char *dir = getenv("PP_SYSFS_PMU");

	if (dir && *dir)
		return access(dir, F_OK) == 0;
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}
