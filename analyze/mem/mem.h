/* SPDX-License-Identifier: MIT */
/*
 * mem.h - engine: memory-access samples (Intel PEBS: mem-loads, mem-stores)
 * and the load-latency tables of ldlat-loads and ldlat-stores.
 *
 * A PEBS sample carries, besides its IP and data address, the access latency
 * in cycles (WEIGHT), where the data came from (DATA_SRC, perf's
 * perf_mem_data_src word) and the physical address; pp-record keeps them in
 * the sample's EXTRA after any registers (docs/capture-format.md).  The
 * tables are perf-prof's: per data source (and instance with --perins) the
 * samples and their latency total, min, avg and max, printed and reset each
 * -i and at the end; --than CYCLES (or -v) prints the samples themselves.
 */
#ifndef PP_ANALYZE_MEM_MEM_H
#define PP_ANALYZE_MEM_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyzer.h"

/* The memory fields of one sample. */
struct ana_mem_sample {
	uint64_t weight;		/* latency in cycles (0 when not recorded) */
	uint64_t data_src;		/* perf_mem_data_src (0 when not recorded) */
	uint64_t phys_addr;		/* 0 when not recorded */
	bool has_weight, has_data_src, has_phys_addr;
};

/**
 * ana_mem_sample_get() - the memory fields of @ev from its EXTRA, as its event's attr
 * (sample_type, sample_regs_intr) lays them out
 * Return: false when @ev has none of them (no attr, or an EXTRA too short).
 */
bool ana_mem_sample_get(const struct pp_event *ev, struct ana_mem_sample *m);

/*
 * Ready-made hooks of ldlat-loads and ldlat-stores (ldlat.c): their -e is
 * their built-in event (mem-loads, mem-stores); priv_size: sizeof(void *).
 */
int ana_ldlat_init(struct pp_az *az);
void ana_ldlat_event(struct pp_az *az, const struct pp_event *ev);
void ana_ldlat_interval(struct pp_az *az, uint64_t now_ns);
int ana_ldlat_finish(struct pp_az *az);
void ana_ldlat_release(struct pp_az *az);

#endif
