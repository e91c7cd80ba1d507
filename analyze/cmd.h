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
/** cmd_analyze_jobs() - cmd_analyze() on @jobs threads where it can (cmd-parallel.c); 0, 1: one. */
int cmd_analyze_jobs(int argc, const char **argv, unsigned read_flags, unsigned jobs);
/** ana_replay_status() - the exit status of a replay that returned @rc (2 for usage errors). */
int ana_replay_status(int rc);

/* cmd.c: what the commands share */
struct ana_session;
struct ppf_read_stats;
/**
 * ana_cmd_parse() - the options of a command that runs on a capture: its part of
 * pp-analyze(1) (--help-man), its help (-h: @usage, the table, then @help), else @opts
 * parsed with no argument left over
 * @help: the text after the options, starting with a blank line ("\n..."), or NULL
 * Return: 1 after printing the help (exit status 0), 0 when parsed, or -1 with the
 * message in @err.
 */
int ana_cmd_parse(int argc, const char **argv, const struct pp_option *opts,
		  const char *const *usage, const char *help, char *err, size_t errsz);
/**
 * ana_tell_damage() - after reading a cut or damaged capture (without --strict), one
 * warning for each kind of damage, so that a partial result is not taken for a whole one
 * @s: the session read (a live stream has no index or trailer: only a cut is damage)
 * @st: what its reader met (or the parts of a parallel replay, summed)
 * @copy: the command that copied the capture (scrub, slice): the copy ends at the
 *        damage; NULL after a replay: the reports end there (event-care, when it is
 *        among the analyzers, says it itself)
 */
void ana_tell_damage(const struct ana_session *s, const struct ppf_read_stats *st,
		     const char *copy);

/* cmd-parallel.c: -j N */
#include <stdint.h>
struct ppf_record;
/** ana_parallel_jobs() - the threads to use: @option (-j) if > 0, else $PP_JOBS, else the CPUs. */
unsigned ana_parallel_jobs(int option);
/**
 * ana_parallel_able() - NULL when every one of the @nr instances, init()ed, can be replayed
 * in parts (a mergeable state, nothing printed or written while replaying: no -i report
 * within @span_ns, the range's length); else why not, and in *@name which instance
 */
const char *ana_parallel_able(struct pp_az *const *azs, size_t nr, uint64_t span_ns,
			      const char **name);
/**
 * ana_parallel() - replay @s's capture (metadata read, --time set, its instances init()ed:
 * ana_replay_init(); @first the record ana_session_load_meta() stopped at, if @have_first)
 * on @jobs threads into
 * instances parsed again from @argc/@argv (one command line per instance of @s), and
 * print each instance's merged report (or write its --state-out)
 * @stats: the damage the parts met, as one reader would count it
 * Return: -1 when it cannot (a stream, an instance without a mergeable state, one segment;
 * said with -v): replay @s as usual; else the exit status.
 */
int ana_parallel(struct ana_session *s, struct ppf_record *first, int have_first, unsigned jobs,
		 const int *argc, const char *const *const *argv, unsigned read_flags,
		 struct ppf_read_stats *stats);
/**
 * cmd_merge() - `pp-analyze merge A.state B.state ... [-o OUT.state]` (argv[0] "merge")
 * cmd_report() - `pp-analyze report X.state... [--format F] [-o FILE]` (argv[0] "report")
 * Return: exit status.
 */
int cmd_merge(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
struct ana_state;
struct ana_merge;
/**
 * ana_merge_open() - merge @nr loaded states (taken: freed with the merge) and build their
 * analyzer on the merge, its report going to @output (NULL: stdout) in @format: what
 * `merge` and `report` do after loading their files, and a parallel replay after its workers
 * Return: exit status (0; 1 or 2 after printing why); free with ana_merge_close() in any case.
 */
int ana_merge_open(struct ana_state **v, size_t nr, const char *format, const char *output,
		   struct ana_merge **m, struct pp_az **az);
void ana_merge_close(struct ana_merge *m, struct pp_az *az);
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
/**
 * ana_az_try_parse() - ana_az_parse() of arguments that came from a file (a state's):
 * nothing printed and no exit - an unknown analyzer, a bad option, -h, missing events
 * are a one-line message in @err and NULL
 */
struct pp_az *ana_az_try_parse(int argc, const char **argv, bool *help, char *err, size_t errsz);
/** ana_az_free() - release and free an instance of ana_az_parse(). */
void ana_az_free(struct pp_az *az);
/** ana_general_help() - the list of commands and analyzers. */
void ana_general_help(FILE *fp);
/** ana_analyzer_help() - one analyzer's usage, options and examples. */
void ana_analyzer_help(FILE *fp, const struct pp_analyzer *an);
bool ana_command_help(FILE *fp, const char *name);
/**
 * ana_name_help() - the help of the analyzer or command @name, as `pp-analyze help NAME`,
 * `pp-analyze NAME --help` and `pp-analyze FILE NAME --help` all print it
 * Return: false if @name is neither (nothing printed).
 */
bool ana_name_help(FILE *fp, const char *name);
/** ana_name_known() - whether @name is a built-in command (info, dump ...) or an analyzer. */
bool ana_name_known(const char *name);
/** ana_help_asked() - whether -h or --help is among @argv, up to a ',' or '--'. */
bool ana_help_asked(int argc, const char *const *argv);
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
