/* SPDX-License-Identifier: MIT */
/*
 * output.c - where and how an analyzer's report is written (-o, --format).
 *
 * A report goes through a net (common/quote.h) whenever someone may read it
 * on a terminal: to stdout in any format, and to a file in text.  A capture's
 * comm or path may then hold ESC or an OSC sequence; it prints as \x1b.  JSON
 * and CSV files keep the data exact in their own escaping.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "common/quote.h"

int ana_out_open(struct ana_out *o, const char *path, const char *format, char *err, size_t errsz)
{
	o->fp = o->raw = stdout;
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
		o->raw = fopen(path, "w");
		if (!o->raw) {
			int e = errno;
			snprintf(err, errsz, "cannot write '%s': %s", path, strerror(e));
			o->fp = o->raw = stdout;
			return -e;
		}
	}
	o->tty = isatty(fileno(o->raw));
	o->fp = o->raw;
	if (o->raw == stdout || o->format == ANA_FMT_TEXT) {
		FILE *net = pp_quote_fopen(o->raw);
		if (!net) {
			int e = errno;
			snprintf(err, errsz, "cannot open the output: %s", strerror(e));
			return -e;
		}
		o->fp = net;
	}
	return 0;
}

void ana_out_close(struct ana_out *o)
{
	if (o->fp && o->fp != o->raw)
		fclose(o->fp);	/* the net: flushes o->raw */
	if (o->raw && o->raw != stdout)
		fclose(o->raw);
	else if (o->raw)
		fflush(o->raw);
	o->fp = o->raw = NULL;
}

FILE *ana_out_raw(const struct ana_out *o)
{
	return o->raw ? o->raw : o->fp;
}

bool ana_out_tty(const struct ana_out *o)
{
	return o->tty;
}

void ana_out_puts(struct ana_out *o, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, ANA_HL_ON ANA_HL_OFF);

		fwrite(s, 1, n, o->fp);	/* the net is unbuffered: this is in o->raw already */
		s += n;
		if (!*s)
			break;
		if (o->tty && o->fp != o->raw)
			fputs(*s == ANA_HL_ON[0] ? "\033[31;1m" : "\033[0m", o->raw);
		s++;
	}
}
