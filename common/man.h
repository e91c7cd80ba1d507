/* SPDX-License-Identifier: MIT */
/*
 * man.h - a command's help as man(7) source, for the generated man pages.
 *
 * The pages (the templates in docs/man/, built by `make man`) take their synopsis, option
 * lists and examples from the same usage lines, option tables and help texts
 * that print --help, so the two cannot drift.  A program given
 * `--help-man=PART` prints one part of its help as roff on stdout and
 * docs/man/mkman.sh puts the parts into the hand-written page templates.
 * Not here: the templates' prose, page headers (.TH), or which part goes where.
 */
#ifndef PP_COMMON_MAN_H
#define PP_COMMON_MAN_H

#include <stdbool.h>
#include <stdio.h>

#include "common/options.h"

/* What --help-man=PART prints; ALL is the three in a row, for a subsection of a page. */
enum pp_man_part {
	PP_MAN_SYNOPSIS = 1 << 0,	/* the usage lines, unfilled */
	PP_MAN_DESCRIPTION = 1 << 1,	/* the help text after the options */
	PP_MAN_OPTIONS = 1 << 2,	/* the option table, one .TP each */
	PP_MAN_ALL = PP_MAN_SYNOPSIS | PP_MAN_DESCRIPTION | PP_MAN_OPTIONS,
};

/*
 * Headings inside what is printed: at PP_MAN_LEVEL_SECTION the text sits
 * directly under a .SH and its headings (option groups, "Examples:") become
 * .SS; at PP_MAN_LEVEL_SUB it sits under a .SS already and they become bold
 * paragraphs.
 */
enum pp_man_level {
	PP_MAN_LEVEL_SECTION,
	PP_MAN_LEVEL_SUB,
};

/**
 * pp_man_part() - the part an argument asks for
 * @arg: a command-line argument
 *
 * "--help-man" is PP_MAN_ALL; "--help-man=synopsis", "=description",
 * "=options" and "=all" name one part.
 * Return: the part, or 0 when @arg is not "--help-man" or names no part.
 */
int pp_man_part(const char *arg);

/**
 * pp_help_man() - print a command's help as roff if @argv asks for it
 * @fp: where to
 * @argc: arguments after the command name
 * @argv: them; only the form "--help-man[=PART]" alone is taken
 * @usage: the command's usage lines (as for pp_usage_print())
 * @opts: its option table (may be NULL)
 * @help: the plain-text help printed after the options (may be NULL)
 *
 * The part asked for (PP_MAN_ALL: the three at PP_MAN_LEVEL_SUB; one part:
 * at PP_MAN_LEVEL_SECTION, for its own .SH) goes to @fp.
 * Return: true if something was printed (the command is done), false
 * otherwise (parse @argv as usual).
 */
bool pp_help_man(FILE *fp, int argc, const char **argv, const char *const *usage,
		 const struct pp_option *opts, const char *help);

/**
 * pp_man_synopsis() - usage lines as an unfilled block, the first word of
 * each line in bold; lines may continue after '\n'
 */
void pp_man_synopsis(FILE *fp, const char *const *usage);

/** pp_man_options() - an option table (includes followed, hidden ones left out), .TP each. */
void pp_man_options(FILE *fp, const struct pp_option *opts, enum pp_man_level level);

/**
 * pp_man_text() - plain help text as roff
 *
 * Blank lines separate paragraphs; indented lines (examples) are kept as
 * they are, in an unfilled block; a short unindented line ending in ':'
 * before such a block, or an all-capitals line, is a heading.
 */
void pp_man_text(FILE *fp, const char *text, enum pp_man_level level);

/**
 * pp_man_heading() - a heading at @level (.SS, or a bold paragraph), with a
 * trailing ':' dropped
 */
void pp_man_heading(FILE *fp, const char *text, size_t len, enum pp_man_level level);

/**
 * pp_man_escape() - @len bytes of text with roff's specials escaped
 * @at_bol: the text starts a line (a leading '.' or '\'' is protected)
 */
void pp_man_escape(FILE *fp, const char *s, size_t len, bool at_bol);

#endif
