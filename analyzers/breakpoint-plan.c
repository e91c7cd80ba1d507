/* SPDX-License-Identifier: MIT */
/*
 * breakpoint-plan.c - what breakpoint records: one hardware breakpoint per
 * argument ADDR[/LEN][:TYPE] (at most 4, the x86 debug registers), as
 * pp-record's mem:ADDR/LEN:TYPE events, which sample the interrupted
 * registers.  perf-prof's defaults: LEN 1, TYPE w; r means rw (a read
 * breakpoint also fires on writes); x has the length of a long.  ADDR is a
 * number or a kernel symbol (resolved by pp-record).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/plan.h"
#include "common/units.h"

#define BP_MAX 4

/* "0x1234/8:w" -> "mem:0x1234/8:w" with the defaults filled in; 0 or PP_ESYNTAX */
static int bp_selector(const char *arg, struct pp_plan *p, char *err, size_t errsz)
{
	char where[256], *slash, *colon;
	const char *type = "w";
	uint64_t len = 0;

	if (strlen(arg) >= sizeof(where) || !*arg)
		goto bad;
	snprintf(where, sizeof(where), "%s", arg);
	colon = strchr(where, ':');
	if (colon) {
		*colon = '\0';
		type = colon + 1;
		if (!strcmp(type, "r"))
			type = "rw";
		else if (strcmp(type, "w") && strcmp(type, "rw") && strcmp(type, "x"))
			goto bad;
	}
	slash = strchr(where, '/');
	if (slash) {
		*slash = '\0';
		if (pp_parse_u64(slash + 1, &len) || (len != 1 && len != 2 && len != 4 && len != 8))
			goto bad;
	}
	if (!strcmp(type, "x"))
		len = sizeof(long);
	else if (!len)
		len = 1;
	if (!*where)
		goto bad;
	pp_plan_add_eventf(p, "mem:%s/%llu:%s", where, (unsigned long long)len, type);
	return 0;
bad:
	snprintf(err, errsz, "breakpoint: bad breakpoint '%s': expected ADDR[/1|2|4|8][:r|w|rw|x]",
		 arg);
	return PP_ESYNTAX;
}

static int breakpoint_plan(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz)
{
	int rc;

	if (a->common->events.nr) {
		snprintf(err, errsz, "breakpoint: give addresses as arguments, not -e");
		return PP_EUSAGE;
	}
	if (a->argc < 1 || a->argc > BP_MAX) {
		snprintf(err, errsz, "breakpoint: give 1 to %d breakpoints: ADDR[/LEN][:TYPE] ...",
			 BP_MAX);
		return PP_EUSAGE;
	}
	for (int i = 0; i < a->argc; i++) {
		rc = bp_selector(a->argv[i], p, err, errsz);
		if (rc)
			return rc;
	}
	return 0;
}

const struct pp_plan_ops azp_breakpoint_plan = {
	.plan = breakpoint_plan,
};
