/* SPDX-License-Identifier: MIT */
/*
 * record.h - pp-record's commands.
 *
 * The library side of record/ is in the per-concept headers (session.h,
 * evsel.h, ring.h, merge.h, ...); this header only declares the commands
 * main() dispatches to.
 */
#ifndef PP_RECORD_RECORD_H
#define PP_RECORD_RECORD_H

/**
 * cmd_record() - `pp-record [OPTIONS] [-- COMMAND ARGS...]`
 * @argc: arguments, argv[0] included
 * @argv: the arguments
 *
 * Return: the process exit status: 0, 1 (a runtime failure such as a full
 * disk), 2 (bad usage), or the recorded command's own status.
 */
int cmd_record(int argc, const char **argv);

#endif
