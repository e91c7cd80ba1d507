/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command layer of pp-analyze: the man page's parts (cmd-man.c), the
 * command table and the help read from it (cmd.c), the commands (cmd-<name>.c), what
 * they share (cmdutil.c).  Each calls only down that list (main() the first two): the
 * table the commands, which it points at, the commands what they share, and all of
 * them the engines below (instance.c, parallel.c, merge.c, the replay core).
 */
#ifndef PP_ANALYZE_CMD_H
#define PP_ANALYZE_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "analyze/analyzer.h"

struct ana_session;
struct ppf_read_stats;

/*
 * The command table (cmd.c).  Every way into pp-analyze goes through it: main() looks
 * the first word up (`pp-analyze help`, `merge`, `report`, `diff`), ana_cmd_run_file()
 * the word after the capture (`pp-analyze FILE info`, `dump`, `scrub`, `slice`; `FILE`
 * alone is `FILE info`), and what is neither is the capture and its analyzers (the
 * default, cmd_analyze()).  `pp-analyze help`, `pp-analyze help NAME`, `NAME --help`,
 * the 'available' list and pp-analyze(1)'s COMMANDS read it too.
 */

/* What a command runs with: main()'s options, and the capture a command runs on. */
struct ana_cmd_ctx {
	unsigned read_flags;		/* PPF_READ_*: --strict */
	unsigned jobs;			/* -j: the threads of a replay (0, 1: one) */
	struct ana_session *s;		/* ANA_CMD_CAPTURE: the capture, opened; else NULL */
	/*
	 * The table (ana_cmds), for what a command passes on of it: the commands cannot
	 * call cmd.c, which points at them (the 'available' list of an unknown analyzer).
	 */
	const struct ana_cmd *cmds;
};

/**
 * ana_cmd_fn - a command
 * @argc: the number of words in @argv
 * @argv: its name (the capture's path for the default), then its arguments
 * @ctx: what it runs with; a command asked for its help (--help, --help-man) prints it
 *       and returns 0 without a capture
 * Return: the exit status.
 */
typedef int ana_cmd_fn(int argc, const char **argv, struct ana_cmd_ctx *ctx);

enum ana_cmd_flags {
	ANA_CMD_CAPTURE = 1u << 0,	/* `FILE NAME ...`: runs on the capture, opened for it */
	ANA_CMD_FIRST = 1u << 1,	/* `NAME ...`, unless a file has its name (a capture) */
	ANA_CMD_NAME_WINS = 1u << 2,	/* with FIRST: even where a file has its name */
	ANA_CMD_DEFAULT = 1u << 3,	/* `FILE ...`: what runs when no name is given (no name) */
	ANA_CMD_OWN_HELP = 1u << 4,	/* `NAME -h` is its own, not `pp-analyze help NAME` */
	ANA_CMD_LISTED = 1u << 5,	/* among `pp-analyze help`'s commands and the 'available' */
	ANA_CMD_MAN = 1u << 6,		/* a subsection of pp-analyze(1)'s COMMANDS */
	ANA_CMD_FILE_ALONE = 1u << 7,	/* with CAPTURE: what `FILE` alone runs */
};

struct ana_cmd {
	const char *name;		/* NULL for the default */
	ana_cmd_fn *run;
	/* `pp-analyze help NAME`'s first line and the listings'; NULL: none (an analyzer's) */
	const char *summary;
	/* what `help NAME` and the man page print after the summary, when it is not what
	 * run() prints for NAME --help and --help-man (the positional `help`'s) */
	ana_cmd_fn *help;
	unsigned flags;			/* ANA_CMD_* */
	unsigned read_flags;		/* CAPTURE: PPF_READ_* it reads with besides --strict */
	const char *synopsis;		/* its line of pp-analyze's usage, or NULL */
};

/* The table: ANA_NR_CMDS commands, then an entry without run. */
extern const struct ana_cmd ana_cmds[];
/** ana_cmd_at() - the @i-th command of the table. Return: static, or NULL past the last. */
const struct ana_cmd *ana_cmd_at(size_t i);
/**
 * ana_cmd_find() - the command named @name (NULL: the default) that has every flag of
 * @flags (0: any)
 * Return: static, or NULL.
 */
const struct ana_cmd *ana_cmd_find(const char *name, unsigned flags);
/**
 * ana_cmd_synopsis() - pp-analyze's usage lines, the commands' synopses in the table's
 * order, into @v (room for ANA_NR_CMDS + 1), NULL-terminated
 * Return: @v.
 */
const char *const *ana_cmd_synopsis(const char **v);
#define ANA_NR_CMDS 11
/**
 * ana_cmd_print_help() - @c's help on stdout, as `NAME --help` prints it after the summary
 * (@how "--help"), or as its part of pp-analyze(1) ("--help-man")
 */
void ana_cmd_print_help(const struct ana_cmd *c, const char *how);
/**
 * ana_cmd_run_on() - run the ANA_CMD_CAPTURE command @c on the capture @path (opened
 * with @ctx's read flags and its own), or print its help if -h or --help is among
 * @argv (argv[0] its name) as `pp-analyze help NAME`
 * Return: the exit status.
 */
int ana_cmd_run_on(const struct ana_cmd *c, const char *path, int argc, const char **argv,
		   const struct ana_cmd_ctx *ctx);
/**
 * ana_cmd_run_file() - `pp-analyze FILE [NAME ...]` (argv[0] FILE): the capture command
 * NAME names (ANA_CMD_CAPTURE; `FILE` alone: ANA_CMD_FILE_ALONE's), else the default
 * Return: the exit status.
 */
int ana_cmd_run_file(int argc, const char **argv, struct ana_cmd_ctx *ctx);

/* The commands (cmd-<name>.c); argv[0] is the name, the capture's path for cmd_analyze(). */
/** cmd_analyze() - `FILE [ANALYZER [OPTIONS]] [, ...]`, or a capture command's `FILE NAME ...` */
ana_cmd_fn cmd_analyze;
/** cmd_info() - `FILE info [--format json]`: what a capture holds. */
ana_cmd_fn cmd_info;
/** cmd_check() - `FILE check ANALYZER [OPTIONS]`: can the capture give it a complete answer. */
ana_cmd_fn cmd_check;
/** cmd_dump() - `FILE dump`: every record, decoded. */
ana_cmd_fn cmd_dump;
/** cmd_scrub() - `FILE scrub -o OUT ...`: a copy fit for a public bug report. */
ana_cmd_fn cmd_scrub;
/** cmd_slice() - `FILE slice -o OUT ...`: a smaller self-contained capture. */
ana_cmd_fn cmd_slice;
/** cmd_import() - `FILE import -o OUT`: a perf.data or trace.dat written out as a capture. */
ana_cmd_fn cmd_import;
/**
 * cmd_merge() - `pp-analyze merge A.state B.state ... [-o OUT.state]`
 * cmd_report() - `pp-analyze report X.state... [--format F] [-o FILE]`: the analyzer's
 * result of states, as its finish() prints it after a replay (not the report analyzer)
 */
ana_cmd_fn cmd_merge;
ana_cmd_fn cmd_report;
/** cmd_diff() - `pp-analyze diff [OPTIONS] BEFORE AFTER [ANALYZER [OPTIONS]]` (1: --fail-if). */
ana_cmd_fn cmd_diff;
/** cmd_help() - `pp-analyze help [NAME]`: the commands and analyzers, or NAME's help (cmd.c). */
ana_cmd_fn cmd_help;

/* cmdutil.c: what the commands share */
/**
 * ana_cmd_open() - ana_session_open() for a command: its error said on stderr (unless
 * the live recorder said it: pp's PP_LIVE_RECORDER and an empty stream)
 * Return: 0, or the exit status 2 (*@s NULL).
 */
int ana_cmd_open(const char *path, unsigned read_flags, struct ana_session **s);
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
 *        damage; NULL after a replay: the analyzers' results end there (event-care,
 *        when it is among the analyzers, says it itself)
 */
void ana_tell_damage(const struct ana_session *s, const struct ppf_read_stats *st,
		     const char *copy);

/* cmd.c: the help read from the table */
/** ana_general_help() - the list of commands and analyzers. */
void ana_general_help(FILE *fp);
/**
 * ana_command_help() - `pp-analyze help NAME` of the command @name: "NAME - summary",
 * then its help
 * Return: false if no command named so has a summary (nothing printed).
 */
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
/** ana_help_text - what pp-analyze does, after its usage lines. */
extern const char ana_help_text[];

/* cmd-man.c */
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
