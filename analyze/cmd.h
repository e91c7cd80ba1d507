/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command layer of pp-analyze: entry points called by main().
 */
#ifndef PP_ANALYZE_CMD_H
#define PP_ANALYZE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/analyzer.h"

/** cmd_analyze() - run `FILE [ANALYZER ...]`; argv[0] is the file. Return: exit status. */
int cmd_analyze(int argc, const char **argv, unsigned read_flags);
/**
 * cmd_merge() - `pp-analyze merge A.state B.state ... [-o OUT.state]` (argv[0] "merge")
 * cmd_report() - `pp-analyze report X.state... [--format F] [-o FILE]` (argv[0] "report")
 * Return: exit status.
 */
int cmd_merge(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
/**
 * cmd_diff() - `pp-analyze diff [OPTIONS] BEFORE AFTER [ANALYZER [OPTIONS]]` (argv[0] "diff")
 * Return: exit status (1: --fail-if matched).
 */
int cmd_diff(int argc, const char **argv);
/**
 * ana_az_parse() - an analyzer instance from argv[0..argc) (argv[0] its name, then its
 * options), its output not opened yet; exits with status 2 on bad options, 0 after -h
 * @help: set when a positional `help` asks for the events' formats
 * Return: the instance, the caller's (ana_az_free()).
 */
struct pp_az *ana_az_parse(int argc, const char **argv, bool *help);
/** ana_az_free() - release and free an instance of ana_az_parse(). */
void ana_az_free(struct pp_az *az);
/** ana_general_help() - the list of commands and analyzers. */
void ana_general_help(FILE *fp);
/** ana_analyzer_help() - one analyzer's usage, options and examples. */
void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an);
bool ana_command_help(FILE *fp, const char *name);
/** ana_usage - pp-analyze's usage lines (NULL-terminated); ana_help_text - what it does. */
extern const char *const ana_usage[];
extern const char ana_help_text[];
/**
 * ana_command_man() - the @i-th built-in command (then diff, the positional `help` last) as a
 * .SS subsection of roff, for the man page
 * Return: false past the last one.
 */
bool ana_command_man(FILE *fp, size_t i);
/**
 * ana_man_print() - `pp-analyze --help-man[=PART]`: a part of pp-analyze(1) as roff
 * @fp: where to
 * @arg: the argument, "--help-man" (every part, each under its .SH) or
 *       "--help-man=PART", PART one of synopsis, description, options, commands,
 *       analyzers, analyzer-list, common
 * @opts: pp-analyze's own option table
 * Return: 0, or -1 if @arg names no part.
 */
int ana_man_print(FILE *fp, const char *arg, const struct pp_option *opts);

#endif
