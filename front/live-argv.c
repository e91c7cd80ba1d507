/* SPDX-License-Identifier: MIT */
/*
 * live-argv.c - live mode's command lines: `pp ANALYZER OPTIONS [--save FILE]
 * [-- COMMAND...]` taken apart and made into
 *
 *   pp-record [-q|-v] --ftrace-mono --for 'ANALYZER OPTIONS' -o - \
 *             [--command-stdout 3 -- COMMAND...]
 *   pp-analyze - ANALYZER OPTIONS
 *
 * --save is pp's own; the words after "--" are the workload, but for python,
 * whose "--" starts the script and its arguments (perf-prof's form), all of
 * which go to the analyzer.
 * Not here: running them (live.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/argv.h"
#include "common/vec.h"
#include "front/live.h"

void front_argv_push(struct front_argv *a, const char *word)
{
	PP_VEC_PUSH(a->v, a->nr, a->cap, word);
	PP_VEC_PUSH(a->v, a->nr, a->cap, NULL);
	a->nr--;		/* the NULL is the terminator, not a word */
}

void front_argv_release(struct front_argv *a)
{
	free(a->v);
	*a = (struct front_argv){ 0 };
}

/*
 * Split off pp's own --save and the workload after "--".  python is
 * perf-prof's exception: what follows its "--" is the script and its
 * arguments (`#!/usr/bin/env -S pp python -e EVENTS --`), so it all goes
 * to the analyzer.
 */
static void live_split(struct front_live_argv *la, int argc, const char **argv)
{
	bool script_args = !strcmp(argv[0], "python");

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--") && script_args) {
			while (i < argc)
				front_argv_push(&la->words, argv[i++]);
			break;
		}
		if (!strcmp(argv[i], "--")) {
			la->cmd = argv + i + 1;
			la->nr_cmd = argc - i - 1;
			break;
		}
		if (!strcmp(argv[i], "--save") && i + 1 < argc) {
			la->save = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--save=", 7)) {
			la->save = argv[i] + 7;
			continue;
		}
		front_argv_push(&la->words, argv[i]);
	}
}

/*
 * How verbose the analyzer's options ask for: each -v, each v of -vv..., each
 * --verbose (the common option; not a script's, after --).
 */
static int verbose_arg(const struct front_argv *words)
{
	int n = 0;

	for (size_t i = 0; i < words->nr && strcmp(words->v[i], "--"); i++) {
		const char *a = words->v[i];
		size_t vs = a[0] == '-' ? strspn(a + 1, "v") : 0;

		if (!strcmp(a, "--verbose"))
			n++;
		else if (vs && a[vs + 1] == '\0')
			n += (int)vs;
	}
	return n;
}

static void live_recorder_argv(struct front_live_argv *la)
{
	struct front_argv *rv = &la->rec;
	int verbose = verbose_arg(&la->words);

	front_argv_push(rv, "pp-record");
	/*
	 * stderr stays empty unless something is wrong.  -v is the analyzer's own
	 * verbose output, as perf-prof's (expr -v lists its program on stdout, and
	 * perf-prof's harness fails on any stderr line); -vv adds pp-record's
	 * summary, -vvv its debug lines.
	 */
	if (verbose >= 3)
		front_argv_push(rv, "-v");
	else if (verbose < 2)
		front_argv_push(rv, "-q");
	/*
	 * Live, tracefs events are stamped with CLOCK_MONOTONIC by the kernel, the
	 * clock of the side band: a task forked and gone within a millisecond
	 * (system()'s shell) is named at its first event, not "<...>" because the
	 * mapped local clock put the event before its FORK record.
	 */
	front_argv_push(rv, "--ftrace-mono");
	front_argv_push(rv, "--for");
	front_argv_push(rv, pp_buf_str(&la->for_arg));
	front_argv_push(rv, "-o");
	front_argv_push(rv, "-");
	if (!la->nr_cmd)
		return;
	/* the workload writes to pp's stdout, which live.c keeps as pp-record's fd 3 */
	front_argv_push(rv, "--command-stdout");
	front_argv_push(rv, "3");
	front_argv_push(rv, "--");
	for (int i = 0; i < la->nr_cmd; i++)
		front_argv_push(rv, la->cmd[i]);
}

static void live_analyzer_argv(struct front_live_argv *la)
{
	front_argv_push(&la->ana, "pp-analyze");
	front_argv_push(&la->ana, "-");
	for (size_t i = 0; i < la->words.nr; i++)
		front_argv_push(&la->ana, la->words.v[i]);
}

void front_live_argv_init(struct front_live_argv *la, int argc, const char **argv)
{
	*la = (struct front_live_argv){ .for_arg = PP_BUF_INIT };
	live_split(la, argc, argv);
	pp_argv_join(&la->for_arg, (int)la->words.nr, la->words.v);
	live_recorder_argv(la);
	live_analyzer_argv(la);
}

void front_live_argv_release(struct front_live_argv *la)
{
	front_argv_release(&la->words);
	front_argv_release(&la->rec);
	front_argv_release(&la->ana);
	pp_buf_release(&la->for_arg);
}
