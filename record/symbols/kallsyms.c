/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.c - one name looked up in a kallsyms file, line by line.
 *
 * /proc/kallsyms has a few hundred thousand lines and is generated as it is read; a
 * single lookup reads it once with a stdio buffer and stops at the first match, which
 * costs less than building a table.  Malformed lines are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "record/symbols/kallsyms.h"

int rec_kallsyms_lookup(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	int rc = PP_ENOT_FOUND;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *end, *sym;
		unsigned long long v;

		v = strtoull(line, &end, 16);
		if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		sym = end + 3;
		sym[strcspn(sym, "\t\n ")] = '\0';
		if (!strcmp(sym, name)) {
			*addr = v;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}
