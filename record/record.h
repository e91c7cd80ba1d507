/* SPDX-License-Identifier: MIT */
/*
 * record.h - pp-record's commands.
 *
 * The library side of record/ is in the per-concept headers (session.h,
 * perf/evsel.h, ring/ring.h, ring/merge.h, ...); this header only declares the commands
 * main() dispatches to.
 */
#ifndef PP_RECORD_RECORD_H
#define PP_RECORD_RECORD_H

#include <stdbool.h>

/**
 * cmd_record() - `pp-record [OPTIONS] [-- COMMAND ARGS...]`
 * @argc: arguments, argv[0] included
 * @argv: the arguments
 *
 * Return: the process exit status: 0, 1 (a runtime failure such as a full
 * disk), 2 (bad usage), or the recorded command's own status.
 */
int cmd_record(int argc, const char **argv);

/**
 * cmd_symbols() - `pp-record --symbols BIN`: perf-prof's address lookup (cmd-symbols.c)
 * @binpath: the binary whose function offsets are asked for by name
 * @quiet_errors: an unreadable binary prints nothing and exits 0 (perf-prof's way)
 *
 * Reads maps lines, then addresses and names, from stdin; answers on stdout.
 * Return: the process exit status: 0, or 2 with one line on stderr.
 */
int cmd_symbols(const char *binpath, bool quiet_errors);

/**
 * cmd_usdt() - `pp-record usdt list|add|del SPEC...`: perf-prof's usdt tool (cmd-usdt.c)
 * @argc: arguments, argv[0] ("usdt") included
 * @argv: the arguments
 *
 * Return: the process exit status: 0, 1 (the kernel refused a uprobe definition or its
 * removal) or 2 (bad input: a bad SPEC, an unreadable binary, no such probe).
 */
int cmd_usdt(int argc, const char **argv);

/**
 * cmd_kcore() - `pp-record kcore [-1|-2|-4|-8] [--string] ADDR|SYMBOL [COUNT]`: perf-prof's
 * kernel memory dump (cmd-kcore.c)
 * @argc: arguments, argv[0] ("kcore") included
 * @argv: the arguments
 *
 * Return: the process exit status: 0, 1 (the address is not in the core) or 2 (bad input,
 * no /proc/kcore, an unknown symbol).
 */
int cmd_kcore(int argc, const char **argv);

#endif
