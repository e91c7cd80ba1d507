/* SPDX-License-Identifier: MIT */
/*
 * percpu-stat.h - percpu-stat's options and its hand-picked counters, shared by
 * its plan part (what to count) and the analyzer (how the columns are titled).
 */
#ifndef PP_ANALYZERS_PERCPU_STAT_H
#define PP_ANALYZERS_PERCPU_STAT_H

#include <stdbool.h>

struct percpu_stat_opts {
	bool syscalls;			/* --syscalls: raw_syscalls:sys_enter too */
};

/* One column: the counted event and perf-prof's title (a leading blank starts a group). */
struct percpu_stat_col {
	const char *event;
	const char *title;
	bool syscalls;			/* only with --syscalls */
	bool halves;			/* power:cpu_idle counts entry and exit: /2 */
};

/* perf-prof's columns, in its order; tracepoints this kernel lacks are left out. */
static const struct percpu_stat_col percpu_stat_cols[] = {
	{ "context-switches", " SOFT csw", false, false },
	{ "cpu-migrations", "cpu-mig", false, false },
	{ "minor-faults", "minflt", false, false },
	{ "major-faults", "majflt", false, false },
	{ "raw_syscalls:sys_enter", " syscalls", true, false },
	{ "irq:irq_handler_entry", " hardirq", false, false },
	{ "irq:softirq_entry", "softirq", false, false },
	{ "timer:hrtimer_expire_entry", "hrtimer", false, false },
	{ "workqueue:workqueue_execute_start", "workqueue", false, false },
	{ "kvm:kvm_exit", " KVM exit", false, false },
	{ "net:netif_receive_skb", " NET recv", false, false },
	{ "net:net_dev_xmit", " xmit", false, false },
	{ "net:napi_gro_receive_entry", "gro", false, false },
	{ "kmem:mm_page_alloc", " MM alloc", false, false },
	{ "compaction:mm_compaction_migratepages", "compact", false, false },
	{ "vmscan:mm_vmscan_direct_reclaim_begin", "reclaim", false, false },
	{ "migrate:mm_migrate_pages", "migrate", false, false },
	{ "filemap:mm_filemap_add_to_page_cache", " PAGE cache", false, false },
	{ "writeback:wbc_writepage", " WB pages", false, false },
	{ "power:cpu_idle", " idle", false, true },
};

#endif
