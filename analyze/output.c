/* SPDX-License-Identifier: MIT */
/*
 * output.c - where and how an analyzer's report is written (-o, --format).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"

int ana_out_open(struct ana_out *o, const char *path, const char *format, char *err, size_t errsz)
{
	o->fp = stdout;
	o->format = ANA_FMT_TEXT;
	if (format) {
		if (!strcmp(format, "json"))
			o->format = ANA_FMT_JSON;
		else if (!strcmp(format, "csv"))
			o->format = ANA_FMT_CSV;
		else if (strcmp(format, "text")) {
			snprintf(err, errsz, "unknown --format '%s': use text, json or csv", format);
			return -EINVAL;
		}
	}
	if (path && strcmp(path, "-")) {
		o->fp = fopen(path, "w");
		if (!o->fp) {
			int e = errno;
			snprintf(err, errsz, "cannot write '%s': %s", path, strerror(e));
			o->fp = stdout;
			return -e;
		}
	}
	return 0;
}

void ana_out_close(struct ana_out *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	else if (o->fp)
		fflush(o->fp);
	o->fp = NULL;
}
