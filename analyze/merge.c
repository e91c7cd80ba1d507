/* SPDX-License-Identifier: MIT */
/*
 * merge.c - loaded states merged, and their analyzer's instance built on the merge:
 * what `pp-analyze merge` and `report` do after loading their files (cmd-state.c),
 * and a parallel replay after its workers (parallel.c).
 *
 * The instance is rebuilt from the first state's own command line (the states
 * agree on it: ana_merge_new() checks), refused with a message when it does not
 * parse here; its result goes where the caller says, never where the state's
 * options (a file's bytes) say.  Not here: the merge itself (analyze/state/).
 */
#include <stdio.h>

#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/log.h"

int ana_merge_open(struct ana_state **v, size_t nr, const char *format, const char *output,
		   struct ana_merge **m_out, struct pp_az **az_out)
{
	const char *const *argv;
	struct ana_merge *m;
	struct pp_az *az;
	char err[1024];
	bool help = false;
	int argc, rc;

	*az_out = NULL;
	rc = ana_merge_new(&ana_registry, v, nr, &m, err, sizeof(err));
	*m_out = m;
	if (rc) {
		pp_err("%s", err);
		return 2;
	}
	if (!ana_merge_session(m))
		return 1;
	argv = ana_state_argv(v[0], &argc);
	/* the options come from a file: a state whose options do not parse is refused */
	az = ana_az_try_parse(argc, (const char **)argv, &help, err, sizeof(err));
	*az_out = az;
	if (!az) {
		pp_err("'%s': its analyzer and options do not parse here: %s",
		       ana_state_path(v[0]), err);
		return 2;
	}
	/*
	 * Where the result goes is this command's.  The files a replay writes besides its
	 * result are not written again - nor anywhere a state's options (a file's bytes) say.
	 */
	az->opt.output = output;
	az->opt.format = format;
	az->opt.state_out = NULL;
	az->opt.time_range = NULL;
	az->opt.heatmap = NULL;
	az->opt.flame_graph = NULL;
	if (ana_out_open(&az->out, output, format, err, sizeof(err))) {
		pp_err("%s: %s", az->name, err);
		return 2;
	}
	return ana_merge_load(m, az);
}

void ana_merge_close(struct ana_merge *m, struct pp_az *az)
{
	if (az)
		ana_az_free(az);
	ana_merge_free(m);
}
