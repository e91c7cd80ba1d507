/* SPDX-License-Identifier: MIT */
/*
 * shell.h - the expression language's system(): a command run by /bin/sh,
 * as system(3) runs it, that a stop request (pp_stop, log.h) ends.
 *
 * system(3) waits for its shell whatever happens, and a shell command that
 * cannot end (`cat` writing to a stdout nobody reads any more, a `sleep`)
 * would keep pp-analyze from ending after Ctrl-C or pp's SIGTERM, and keep
 * running after it.  pp_shell() runs the command in a process group of its
 * own and, when a signal sets pp_stop while it waits, kills that group (the
 * shell and whatever it started) and returns.
 */
#ifndef PP_COMMON_SHELL_H
#define PP_COMMON_SHELL_H

/*
 * pp_shell() - run @cmd with `/bin/sh -c`, wait for it
 *
 * The command has SIGINT, SIGTERM, SIGPIPE, SIGUSR1 and SIGUSR2 at their
 * defaults, whatever the caller set, reads /dev/null (a live pp-analyze's
 * stdin is the capture's stream), and dies with its caller (PR_SET_PDEATHSIG).  Return: the wait status as system(3) returns it; -1
 * when it could not be started (errno set); when a stop request ended it,
 * the status of a command killed by SIGKILL.
 */
int pp_shell(const char *cmd);

#endif
