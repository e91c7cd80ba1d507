/* SPDX-License-Identifier: MIT */
/*
 * err.c - a failure's one line of text (see err.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "record/err.h"

int rec_errf(char *msg, size_t msg_sz, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msg_sz, fmt, ap);
	va_end(ap);
	return code;
}
