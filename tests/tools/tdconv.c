/* SPDX-License-Identifier: MIT */
/*
 * tdconv.c - a test-only driver of the trace.dat converter: tdconv IN.dat OUT.ppcap.
 *
 * Writes the capture analyze/import/tracedat.c makes of IN.dat and prints its facts, one
 * "key: value" line each (what, lacks, skipped, stopped, events, lost, stacks), so the
 * converter is tested apart from pp-analyze's import plumbing.  Exits 1 on a failure.
 */
#include <stdio.h>

#include "analyze/import/tracedat.h"
#include "format/format.h"

int main(int argc, char **argv)
{
	struct ppf_writer_opts o = { 0 };
	struct ppf_writer *w;
	struct ana_td_facts f;
	char err[256] = "";
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: tdconv IN.dat OUT.ppcap\n");
		return 2;
	}
	if (ppf_writer_open(argv[2], &o, &w)) {
		fprintf(stderr, "tdconv: cannot create '%s'\n", argv[2]);
		return 1;
	}
	rc = ana_td_convert(argv[1], w, &f, err, sizeof(err));
	if (ppf_writer_close(w) && !rc) {
		fprintf(stderr, "tdconv: cannot close '%s'\n", argv[2]);
		return 1;
	}
	printf("what: %s\nlacks: %s\nskipped: %s\nstopped: %s\n", f.what, f.lacks, f.skipped,
	       f.stopped);
	printf("events: %llu\nlost: %llu\nstacks: %llu\n", (unsigned long long)f.nr_events,
	       (unsigned long long)f.nr_lost, (unsigned long long)f.nr_stacks);
	if (rc)
		fprintf(stderr, "tdconv: %s\n", err);
	return rc ? 1 : 0;
}
