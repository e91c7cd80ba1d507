/* SPDX-License-Identifier: MIT */
/*
 * cfi.h - the unwind rules a capture carries for its binaries (UNWIND records), looked up
 * by process and address: what a DWARF unwinder needs to go from a frame to its caller.
 *
 * The tables come with the DSOs' other records (ana_cfi_meta()); a look-up finds the
 * binary mapped at the address as of the replay's time (the last sample's), then the row
 * by binary search, with a cache of the last binary and row (consecutive frames of one
 * sample, consecutive samples, hit the same ones).  x86-64 registers: SP is rsp, FP rbp.
 * Not here: reading the stack copy or walking frames (the unwinder), deriving the rows
 * (format/cfi.c).
 */
#ifndef PP_ANALYZE_CFI_H
#define PP_ANALYZE_CFI_H

#include <stdint.h>

struct ana_session;
struct ppf_record;

enum ana_cfa_kind { ANA_CFA_SP = 1, ANA_CFA_FP, ANA_CFA_PLT };	/* PLT: SP + 8, + 8 when (ip & 15) >= 11 */
enum ana_reg_rule { ANA_REG_SAME = 0, ANA_REG_AT_CFA, ANA_REG_UNDEF };
struct ana_cfi_rule {
	uint8_t cfa;		/* enum ana_cfa_kind: CFA = SP or FP + cfa_off */
	uint8_t ra;		/* AT_CFA: the return address is at CFA + ra_off; UNDEF: outermost frame */
	uint8_t fp;		/* SAME: the caller's FP is this one's; AT_CFA: saved at CFA + fp_off */
	int32_t cfa_off, ra_off, fp_off;
};

/**
 * ana_cfi_find() - the unwind rule at user address @addr of process @pid, as of the replay's time
 * Return: 1 with *@out filled; 0 when no table covers @addr (no map, a binary without a table,
 * a row the recorder could not express).
 */
int ana_cfi_find(struct ana_session *s, uint32_t pid, uint64_t addr, struct ana_cfi_rule *out);

/**
 * ana_cfi_find_at() - ana_cfi_find() as of @time_ns rather than the replay's time
 */
int ana_cfi_find_at(struct ana_session *s, uint32_t pid, uint64_t time_ns, uint64_t addr,
		    struct ana_cfi_rule *out);

/**
 * ana_cfi_meta() - an UNWIND record: its rows join the table of the DSO being read (the
 * last DSO record's).  Rows that do not follow the table's last one (a table written
 * twice) are ignored; past the side-band budget nothing is kept.
 */
void ana_cfi_meta(struct ana_session *s, const struct ppf_record *rec);

/** ana_cfi_stats() - tables and rows held by @s. */
void ana_cfi_stats(const struct ana_session *s, uint64_t *nr_tables, uint64_t *nr_rows);

/** ana_cfi_free() - free @s's tables (ana_session_free()). */
void ana_cfi_free(struct ana_session *s);

#endif
