/* SPDX-License-Identifier: MIT */
/*
 * err.h - a failure's one line of text, written where the caller asked.
 *
 * The parts of a recording (perf/, ring/prod.c, targets.c, plan.c) return a
 * negative code (-errno or PP_E*, common/err.h) and write one line saying
 * what failed into the caller's buffer (@msg, @msg_sz), as common/ and
 * ftrace/tracefs.c do; the session or the command prints it.  They never call back
 * into the session for that.
 */
#ifndef PP_RECORD_ERR_H
#define PP_RECORD_ERR_H

#include <stddef.h>

/**
 * rec_errf() - write printf-style text into @msg (at most @msg_sz bytes, NUL-terminated)
 * Return: @code, for "return rec_errf(msg, msg_sz, rc, ...)".
 */
int rec_errf(char *msg, size_t msg_sz, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
