/* SPDX-License-Identifier: MIT */
/*
 * version.h - the release version of pp and the git commit it was built from.
 *
 * PP_VERSION is the one place the release is written: the three programs, the capture's
 * `pp_version` key and the Debian package (make deb reads it from here) all take it.
 * The commit is baked into common/version.o alone at build time (the Makefile passes
 * `git describe --always --dirty`, or "unknown" outside a git checkout), so a new commit
 * rebuilds one object and relinks; nothing else in a build depends on when or where it ran.
 */
#ifndef PP_COMMON_VERSION_H
#define PP_COMMON_VERSION_H

#include <stdio.h>

#define PP_VERSION "0.1.0"

/**
 * pp_version_commit() - the git commit this build was made from.
 *
 * Return: a static string, `git describe --always --dirty` of the tree built
 * (for example "6de6e11-dirty"), or "unknown" when it was not a git checkout.
 */
const char *pp_version_commit(void);

/**
 * pp_version_print() - print a program's version line.
 * @fp: where to print
 * @prog: the program's name ("pp-record")
 * @extra: more to say inside the parentheses after the commit, or NULL
 *
 * Prints "PROG VERSION (git COMMIT[, EXTRA])" and a newline: the line of `--version`.
 */
void pp_version_print(FILE *fp, const char *prog, const char *extra);

#endif
