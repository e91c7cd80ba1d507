/* SPDX-License-Identifier: MIT */
/*
 * check.c - `pp check [--format json] [ANALYZER [OPTIONS]] [-- COMMAND...]`:
 * whether `pp ANALYZER OPTIONS [-- COMMAND]` records on this machine, asked of
 * pp-record (`pp-record --check`), with the command line live mode would give
 * it (live-argv.c), so the answer is about that very recording.
 * Not here: the checks (record/check/).
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "front/front.h"
#include "front/live.h"

static const char check_help[] =
	"usage: pp check [--format text|json] [ANALYZER [OPTIONS]] [-- COMMAND [ARGS]]\n"
	"\n"
	"Says what this machine lets pp-record do, one line each with the fix for each\n"
	"\"no\" (user and capabilities, perf_event_paranoid, perf_event_max_sample_rate,\n"
	"perf_event_mlock_kb, kptr_restrict, tracefs, uprobes, kprobes, BTF, lockdown,\n"
	"cgroups, a container, a hardware PMU, breakpoints, the clocks, free space), then\n"
	"opens the events `pp ANALYZER OPTIONS` would record, for real and disabled, and\n"
	"closes them again: the verdict is whether that recording works here, and if not,\n"
	"the first reason.  Nothing is recorded; no tracefs state is left behind.\n"
	"It runs `pp-record --check --for 'ANALYZER OPTIONS' ...` (docs/production.md):\n"
	"where only pp-record is installed, ask it directly.\n"
	"\n"
	"Exit status: 0 it records here, 1 it does not, 2 a bad command line.\n"
	"--format json: one object, schema pp-check/1 (docs/production.md).\n"
	"\n"
	"Examples:\n"
	"  pp check\n"
	"  pp check task-state\n"
	"  pp check profile -g\n"
	"  pp check --format json kvm-exit | python3 -m json.tool\n";

int front_check_main(const char *bindir, int argc, const char **argv)
{
	struct front_live_argv la;
	struct front_argv rv = { 0 };
	const char *format = NULL;
	int i = 0;

	for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(check_help, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
			format = argv[++i];
		} else if (!strncmp(argv[i], "--format=", 9)) {
			format = argv[i] + 9;
		} else {
			pp_err("pp check: unknown option '%s' (see pp check -h)", argv[i]);
			return 2;
		}
	}
	front_argv_push(&rv, "--check");
	if (format) {
		front_argv_push(&rv, "--format");
		front_argv_push(&rv, format);
	}
	if (i == argc || !strcmp(argv[i], "--")) {
		/* the machine alone, or a COMMAND recorded as plain pp-record records it */
		for (; i < argc; i++)
			front_argv_push(&rv, argv[i]);
		front_exec(bindir, "pp-record", (int)rv.nr, rv.v);
	}
	front_live_argv_init(&la, argc - i, argv + i);
	/* live mode's pp-record words, but its fd 3 for the command's output */
	for (size_t k = 1; k < la.rec.nr; k++) {
		if (!strcmp(la.rec.v[k], "--command-stdout")) {
			k++;
			continue;
		}
		front_argv_push(&rv, la.rec.v[k]);
	}
	front_exec(bindir, "pp-record", (int)rv.nr, rv.v);
}
