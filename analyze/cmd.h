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
/** ana_general_help() - the list of commands and analyzers. */
void ana_general_help(FILE *fp);
/** ana_analyzer_help() - one analyzer's usage, options and examples. */
void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an);
bool ana_command_help(FILE *fp, const char *name);

#endif
