/* SPDX-License-Identifier: MIT */
/*
 * probe-args.c - argument registers of the machine's C calling convention, as probe fields.
 *
 * Entry probes get arg1..arg6 (the integer argument registers), return
 * probes get ret ($retval).  Register names are the kernel's fetch-arg
 * names for the architecture (Documentation/trace/uprobetracer.rst).
 * The values are only meaningful at a function's first instruction.
 */
#include "record/probe/probe-args.h"

#if defined(__x86_64__)
#define ENTRY_ARGS " arg1=%di:x64 arg2=%si:x64 arg3=%dx:x64 arg4=%cx:x64 arg5=%r8:x64 arg6=%r9:x64"
#elif defined(__aarch64__)
#define ENTRY_ARGS " arg1=%x0:x64 arg2=%x1:x64 arg3=%x2:x64 arg4=%x3:x64 arg5=%x4:x64 arg6=%x5:x64"
#endif

const char *rec_probe_args(bool retprobe)
{
#ifdef ENTRY_ARGS
	return retprobe ? " ret=$retval:x64" : ENTRY_ARGS;
#else
	(void)retprobe;
	return "";
#endif
}
