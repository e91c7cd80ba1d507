/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.c - one name looked up in a kallsyms file, line by line.
 *
 * /proc/kallsyms has a few hundred thousand lines and is generated as it is read; a
 * single lookup reads it once with a stdio buffer and stops at the first match, which
 * costs less than building a table.  Malformed lines are skipped.  Lines are parsed by
 * ppf_ksym_parse() (format/ksym.h), as the snapshot's are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/format.h"
#include "format/ksym.h"
#include "record/symbols/kallsyms.h"

int rec_kallsyms_lookup(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	int rc = PP_ENOT_FOUND;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct ppf_ksym k;

		if (ppf_ksym_parse(line, strcspn(line, "\n"), &k) && !strcmp(k.name, name)) {
			*addr = k.addr;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}
