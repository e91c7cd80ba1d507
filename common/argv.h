/* SPDX-License-Identifier: MIT */
/*
 * argv.h - command lines as one string and back (for --for 'ANALYZER ARGS').
 *
 * pp_argv_split() follows the shell's quoting rules for words: blanks
 * separate words; '...' keeps everything literally; "..." keeps everything
 * but \" and \\; a backslash outside quotes escapes the next character.
 * pp_argv_join() quotes so that split(join(v)) == v.  No globbing, no
 * variables, no command substitution: these strings are never executed.
 */
#ifndef PP_COMMON_ARGV_H
#define PP_COMMON_ARGV_H

#include <stddef.h>

struct pp_buf;

/**
 * pp_argv_split() - split @s into words
 * @out: receives a malloc'ed, NULL-terminated array of malloc'ed words
 * @nr: receives the number of words
 * Return: 0, or PP_ESYNTAX for an unterminated quote or a trailing backslash.
 */
int pp_argv_split(const char *s, char ***out, int *nr);
/** pp_argv_free() - free what pp_argv_split() returned. */
void pp_argv_free(char **v);
/** pp_argv_squote() - append @s to @b in '' quotes, each ' in it as '\'' (one shell word). */
void pp_argv_squote(struct pp_buf *b, const char *s);
/** pp_argv_join() - append @nr words to @b, quoted where needed, separated by spaces. */
void pp_argv_join(struct pp_buf *b, int nr, const char *const *v);

#endif
