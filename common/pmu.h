/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - whether this machine has a hardware PMU, for the plans that choose
 * between a hardware event (cycles) and a software one (cpu-clock).
 *
 * The test is the one pp-record makes before it opens a hardware event: the
 * core PMU's directory in sysfs ("cpu", or "cpu_core" on hybrid Intel parts).
 * Virtual machines often have none.
 */
#ifndef PP_COMMON_PMU_H
#define PP_COMMON_PMU_H

#include <stdbool.h>

/**
 * pp_have_pmu() - whether /sys/bus/event_source/devices/cpu (or cpu_core) exists;
 * the environment variable PP_SYSFS_PMU names the path to test instead (tests)
 */
bool pp_have_pmu(void);

#endif
