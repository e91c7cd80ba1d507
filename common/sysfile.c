/* SPDX-License-Identifier: MIT */
/*
 * sysfile.c - one line of a /proc or /sys file (sysfile.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sysfile.h"

bool pp_read_line(const char *path, char *buf, size_t sz)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)sz, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

bool pp_read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (!pp_read_line(path, buf, sizeof(buf)))
		return false;
	*v = strtol(buf, &end, 10);
	return end != buf;
}
