/* SPDX-License-Identifier: MIT */
/*
 * probe-args.h - the fetch arguments every dynamic probe is created with.
 *
 * A probe on a function entry records the first six integer arguments as
 * fields arg1..arg6, a return probe records the return value as field ret,
 * so that analyzers can use them in expressions (kmemleak's
 * `uprobe:libc.so.6:malloc//size=arg1/` and `uretprobe:...//ptr=ret/`).
 */
#ifndef PP_RECORD_PROBE_ARGS_H
#define PP_RECORD_PROBE_ARGS_H

#include <stdbool.h>

/**
 * rec_probe_args() - the fetch-argument part of a uprobe_events/kprobe_events line
 * @retprobe: a return probe (ret=$retval) rather than an entry probe (arg1..arg6)
 *
 * Return: a static string starting with a space, or "" where the machine's
 * calling convention is not known (the probe then has no argument fields).
 */
const char *rec_probe_args(bool retprobe);

#endif
