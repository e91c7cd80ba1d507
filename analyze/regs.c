/* SPDX-License-Identifier: MIT */
/*
 * regs.c - unpacking and printing a sample's interrupted registers (declared in analyzer.h: a service of the core).
 */
#include <string.h>

#include "analyze/analyzer.h"
#include "common/buf.h"
#include "common/log.h"

bool ana_regs_get(const struct pp_event *ev, uint64_t mask, struct ana_regs *r)
{
	unsigned n = 0;

	memset(r, 0, sizeof(*r));
	if (ev->extra_sz < 8 || !mask)
		return false;
	memcpy(&r->abi, ev->extra, 8);
	if (!r->abi)
		return false;
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(mask & (1ull << bit)))
			continue;
		if (8 + 8 * (n + 1) > ev->extra_sz)
			break;
		memcpy(&r->v[bit], ev->extra + 8 + 8 * n, 8);
		r->have |= 1ull << bit;
		n++;
	}
	return true;
}

void ana_regs_print_x86(const struct ana_regs *r, struct pp_buf *out)
{
	static const struct { const char *n[3]; unsigned r[3]; } rows[] = {
		{ { "RAX", "RBX", "RCX" }, { 0, 1, 2 } },
		{ { "RDX", "RSI", "RDI" }, { 3, 4, 5 } },
		{ { "RBP", "R08", "R09" }, { 6, 16, 17 } },
		{ { "R10", "R11", "R12" }, { 18, 19, 20 } },
		{ { "R13", "R14", "R15" }, { 21, 22, 23 } },
	};
	const uint64_t *v = r->v;

	pp_buf_addf(out, "      RIP: %016llx RSP: %016llx RFLAGS:%08llx\n",
		    (unsigned long long)v[8], (unsigned long long)v[7], (unsigned long long)v[9]);
	for (size_t i = 0; i < PP_ARRAY_SIZE(rows); i++)
		pp_buf_addf(out, "      %s: %016llx %s: %016llx %s: %016llx\n", rows[i].n[0],
			    (unsigned long long)v[rows[i].r[0]], rows[i].n[1],
			    (unsigned long long)v[rows[i].r[1]], rows[i].n[2],
			    (unsigned long long)v[rows[i].r[2]]);
	pp_buf_addf(out, "      CS: %04llx SS: %04llx\n", (unsigned long long)v[10],
		    (unsigned long long)v[11]);
}
