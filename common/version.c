/* SPDX-License-Identifier: MIT */
/*
 * version.c - the `--version` line: release and git commit.
 *
 * PP_GIT_COMMIT comes from the Makefile on this file's command line only (a stamp under
 * $(O) rebuilds this one object when it changes); a compiler run by hand gets "unknown".
 */
#include "common/version.h"

#ifndef PP_GIT_COMMIT
#define PP_GIT_COMMIT "unknown"
#endif

const char *pp_version_commit(void)
{
	return PP_GIT_COMMIT[0] ? PP_GIT_COMMIT : "unknown";
}

void pp_version_print(FILE *fp, const char *prog, const char *extra)
{
	fprintf(fp, "%s %s (git %s%s%s)\n", prog, PP_VERSION, pp_version_commit(),
		extra ? ", " : "", extra ? extra : "");
}
