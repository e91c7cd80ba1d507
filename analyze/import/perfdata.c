/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - perf.data (perf record) into a capture: a placeholder until the
 * reader lands, so that the dispatch (import.c) links.
 */
#include <stdio.h>

#include "analyze/import/import.h"
#include "common/err.h"

int ana_import_perfdata(const char *path, struct ppf_writer *w, struct ana_import_info *info)
{
	(void)path;
	(void)w;
	snprintf(info->stopped, sizeof(info->stopped), "the perf.data reader is not built yet");
	return PP_EBAD_MAGIC;
}
