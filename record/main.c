/* SPDX-License-Identifier: MIT */
/*
 * main.c - pp-record's entry point: program name, then cmd_record(), or cmd_symbols()
 * for `--symbols BIN` (`pp --symbols` and `perf-prof --symbols` come here), or one of
 * perf-prof's live tools named by the first argument: `pp-record usdt ...`,
 * `pp-record kcore ...` (`pp usdt`, `perf-prof kcore` ... come here).  Only the first
 * argument names a tool: `pp-record -- usdt` records a command named usdt.
 */
#include <stdlib.h>
#include <string.h>

#include "common/front-env.h"
#include "common/log.h"
#include "common/sys.h"
#include "record/record.h"

static const struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
} tools[] = {
	{ "usdt", cmd_usdt },
	{ "kcore", cmd_kcore },
};

int main(int argc, char **argv)
{
	char err[160];

	pp_progname = "pp-record";
	/* PP_FAULT: tests make the system calls of common/sys.h fail (docs/production.md) */
	if (pp_sys_faults_init(err, sizeof(err))) {
		pp_err("%s", err);
		return 2;
	}
	for (size_t i = 0; argc > 1 && i < PP_ARRAY_SIZE(tools); i++)
		if (!strcmp(argv[1], tools[i].name))
			return tools[i].fn(argc - 1, (const char **)argv + 1);
	if (argc > 1 && !strncmp(argv[1], "--symbols", 9)) {
		const char *bin = argv[1][9] == '=' ? argv[1] + 10 : argv[1][9] ? NULL : argv[2];

		if (!bin || !*bin) {
			pp_err("usage: pp-record --symbols BIN (maps lines, then addresses or names, on stdin)");
			return 2;
		}
		return cmd_symbols(bin, getenv(PP_ENV_PERF_PROF_ERRORS) != NULL);
	}
	return cmd_record(argc, (const char **)argv);
}
