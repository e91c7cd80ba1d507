/* SPDX-License-Identifier: MIT */
/*
 * main.c - pp-record's entry point: program name, then cmd_record(), or cmd_symbols()
 * for `--symbols BIN` (`pp --symbols` and `perf-prof --symbols` come here).
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "record.h"

int main(int argc, char **argv)
{
	pp_progname = "pp-record";
	if (argc > 1 && !strncmp(argv[1], "--symbols", 9)) {
		const char *bin = argv[1][9] == '=' ? argv[1] + 10 : argv[1][9] ? NULL : argv[2];

		if (!bin || !*bin) {
			pp_err("usage: pp-record --symbols BIN (maps lines, then addresses or names, on stdin)");
			return 2;
		}
		return cmd_symbols(bin, getenv("PP_PERF_PROF_ERRORS") != NULL);
	}
	return cmd_record(argc, (const char **)argv);
}
