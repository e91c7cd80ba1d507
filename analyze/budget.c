/* SPDX-License-Identifier: MIT */
/*
 * budget.c - the memory a capture's side-band state may take.
 *
 * Tasks, host keys, syscall names and event types are charged to the
 * session as they are added; symbols, binaries and maps are counted by the
 * symbol table itself.  Past the budget the capture's additions are ignored
 * (a warning says so once), so a hostile file is read in bounded memory.
 * Not here: what is charged (session.c, tasks.c, symbols.c).
 */
#include <stdlib.h>

#include "analyze/internal.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/symbolize.h"
#include "common/units.h"

/* The side-band budget: PP_LIMIT_SIDEBAND, or PP_SIDEBAND_MAX (a size: 512M, 4G). */
static uint64_t sideband_limit(void)
{
	const char *e = getenv("PP_SIDEBAND_MAX");
	uint64_t v;

	if (!e || !*e)
		return PP_LIMIT_SIDEBAND;
	if (pp_parse_size(e, &v) || !v) {
		pp_warn("PP_SIDEBAND_MAX='%s' is not a size: the limit stays %llu MiB", e,
			(unsigned long long)(PP_LIMIT_SIDEBAND >> 20));
		return PP_LIMIT_SIDEBAND;
	}
	return v;
}

/*
 * Room for more side-band state: tasks, host keys, syscall names, event types
 * (charged to s->sb_bytes as they are added) and symbols, binaries and maps
 * (the symtab counts its own).  Once the budget is spent the capture's
 * additions are ignored, and a warning says so once: a capture that claims
 * 10^9 tasks or a 4 GB symbol table is read in bounded memory.
 */
bool ana_sb_room(struct ana_session *s)
{
	size_t sym = s->syms ? pp_symtab_mem(s->syms) : 0;

	if (!s->sb_limit)	/* a session not made by ana_session_open() (a state's) */
		s->sb_limit = sideband_limit();
	if (s->sb_bytes + sym <= s->sb_limit)
		return true;
	if (!s->sb_full) {
		char lim[32], t[32], y[32];

		s->sb_full = true;
		pp_warn("%s: the capture's side-band data passed the %s limit (%zu tasks: %s, symbols "
			"and maps: %s): later tasks, symbols and maps are ignored (PP_SIDEBAND_MAX "
			"raises the limit)", s->path, pp_format_bytes(s->sb_limit, lim, sizeof(lim)),
			s->tasks.nr, pp_format_bytes(s->sb_bytes, t, sizeof(t)),
			pp_format_bytes(sym, y, sizeof(y)));
	}
	return false;
}
