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
#include "common/buf.h"
#include "common/u64map.h"

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

/* One row of ldlat: the samples of one data source (on one instance). */
struct ana_ldlat_row {
	uint32_t ins;
	uint64_t data_src;
	uint64_t n, sum, min, max;
};

/* The az->priv of ldlat-loads and ldlat-stores; the fields are ldlat.c's. */
struct ana_ldlat {
	struct pp_u64map by_ins;	/* instance -> struct pp_u64map * (data_src -> row index + 1) */
	struct ana_ldlat_row *rows;
	size_t nr_rows, cap_rows;
	bool by_thread;			/* instances are threads (-p/-t), else CPUs */
	uint64_t nr_bare;		/* samples without memory fields */
	struct pp_buf line;
};

/*
 * Ready-made hooks of ldlat-loads and ldlat-stores (ldlat.c): their -e is
 * their built-in event (mem-loads, mem-stores); priv_size: sizeof(struct ana_ldlat).
 */
int ana_ldlat_init(struct pp_az *az);
void ana_ldlat_event(struct pp_az *az, const struct pp_event *ev);
void ana_ldlat_interval(struct pp_az *az, uint64_t now_ns);
int ana_ldlat_finish(struct pp_az *az);
void ana_ldlat_release(struct pp_az *az);

#endif
