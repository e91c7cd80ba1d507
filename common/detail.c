/* SPDX-License-Identifier: MIT */
/*
 * detail.c - parse --detail[=-N,+N,1,2,hide<N,samecpu,samepid,sametid,samekey].
 *
 * Unlike perf-prof, an item that is neither a keyword nor a time is an
 * error rather than a silent "+0"; see detail.h for the meaning of items.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/detail.h"
#include "common/err.h"
#include "common/log.h"
#include "common/units.h"

static int parse_ns(const char *item, const char *s, uint64_t *out, char *err, size_t errsz)
{
	if (!*s || pp_parse_time(s, 1, out)) {
		snprintf(err, errsz, "--detail: bad time in '%s' (use 1ms, 500us, 100ns ...)", item);
		return PP_ESYNTAX;
	}
	return 0;
}

static int parse_item(const char *s, struct pp_detail *d, char *err, size_t errsz)
{
	if (!strcmp(s, "samecpu"))
		d->samecpu = true;
	else if (!strcmp(s, "samepid"))
		d->samepid = true;
	else if (!strcmp(s, "sametid"))
		d->sametid = true;
	else if (!strcmp(s, "samekey"))
		d->samekey = true;
	else if (!strcmp(s, "1"))
		d->same1 = true;
	else if (!strcmp(s, "2"))
		d->same2 = true;
	else if (!strncmp(s, "hide<", 5))
		return parse_ns(s, s + 5, &d->hide_ns, err, errsz);
	else if (s[0] == '-')
		return parse_ns(s, s + 1, &d->before_ns, err, errsz);
	else if (s[0] == '+')
		return parse_ns(s, s + 1, &d->after_ns, err, errsz);
	else if (s[0] >= '0' && s[0] <= '9')
		return parse_ns(s, s, &d->after_ns, err, errsz);
	else {
		snprintf(err, errsz, "--detail: unknown item '%s' (expected -N, +N, 1, 2, hide<N, "
			 "samecpu, samepid, sametid or samekey)", s);
		return PP_ESYNTAX;
	}
	return 0;
}

int pp_detail_parse(const char *text, struct pp_detail *d, char *err, size_t errsz)
{
	char *copy, *save = NULL;
	int rc = 0;

	memset(d, 0, sizeof(*d));
	if (!text)
		return 0;
	d->enabled = true;
	copy = pp_xstrdup(text);
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		rc = parse_item(tok, d, err, errsz);
	free(copy);
	return rc;
}
