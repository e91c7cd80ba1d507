/* SPDX-License-Identifier: MIT */
/*
 * front.h - pp, the front end: what its command (front/main.c) dispatches to.
 *
 * pp offers perf-prof's command surface by running the two programs: live
 * mode is `pp-record --for ... -o - | pp-analyze - ...` (live.c), the rest
 * is handed to one of them (progs.c) or answered here (help.c, perfprof.c).
 * Every non-static name in front/ has the prefix front_; these are command
 * code and may exit (pp_die()).  pp links common/ and format/ only.
 * Not here: `pp fleet` (fleet.h); the live pipeline's parts (live.h).
 */
#ifndef PP_FRONT_FRONT_H
#define PP_FRONT_FRONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/log.h"

/*
 * All take @bindir, the directory of pp's own executable ("" when unknown):
 * pp runs the pp-record and pp-analyze found there, else PATH's.
 */

/**
 * front_prog() - the program @name to run: @bindir/@name if executable, else @name (PATH)
 * @buf, @sz: room for the path
 * Return: @buf or @name, borrowed.
 */
const char *front_prog(const char *bindir, const char *name, char *buf, size_t sz);

/**
 * front_exec() - replace pp by program @name with the @argc words of @argv after its name
 * Return: does not; dies when the program cannot be run.
 */
void front_exec(const char *bindir, const char *name, int argc, const char **argv) PP_NORETURN;

/**
 * front_run_wait() - run program @name with @arg1 and @arg2 and wait for it
 * @arg1, @arg2: either may be NULL, the end of the arguments
 * @to_stderr: its stdout goes to pp's stderr
 * Return: its exit status (128 + the signal that killed it).
 */
int front_run_wait(const char *bindir, const char *name, const char *arg1, const char *arg2,
		   bool to_stderr);

/** front_usage() - pp's forms and what they do (`pp -h`), on @fp. */
void front_usage(FILE *fp);

/**
 * front_help_man() - `pp --help-man=PART`: pp(1)'s synopsis, description or commands
 * @arg: the whole argument, "--help-man=PART"
 * Return: an exit status.
 */
int front_help_man(const char *arg);

/** front_is_tool() - whether @name is one of perf-prof's tools pp-record runs (usdt, kcore). */
bool front_is_tool(const char *name);

/**
 * front_perfprof_help() - `perf-prof`, `perf-prof -h`: perf-prof's help layout on stderr
 * Return: the exit status, perf-prof's 129, or 2 when pp-analyze's list could not be read.
 */
int front_perfprof_help(const char *bindir);

/**
 * front_perfprof_analyzer_help() - `perf-prof NAME -h`: perf-prof's usage line, then
 * the help of analyzer or tool @name, on stderr
 * Return: the exit status, perf-prof's 129 unless the help failed.
 */
int front_perfprof_analyzer_help(const char *bindir, const char *name);

/**
 * front_check_main() - `pp check [--format json] [ANALYZER [OPTIONS]] [-- COMMAND]`:
 * pp-record --check with live mode's command line (check.c)
 * @bindir: where pp's programs are
 * @argc, @argv: the words after "check"
 * Return: 0 for -h, 2 for a bad option; else it does not (pp-record runs).
 */
int front_check_main(const char *bindir, int argc, const char **argv);

/**
 * front_live_run() - `pp ANALYZER [OPTIONS] [--save FILE] [-- COMMAND...]`: live mode
 * @argc, @argv: the words after "pp", the analyzer's name first
 * Return: pp-record's exit status when it failed, else pp-analyze's.
 */
int front_live_run(const char *bindir, int argc, const char **argv);

#endif
