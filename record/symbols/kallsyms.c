/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.c - one name looked up in a kallsyms file, line by line.
 *
 * /proc/kallsyms has a few hundred thousand lines and is generated as it is read; a
 * single lookup reads it once with a stdio buffer and stops at the first match, which
 * costs less than building a table.  Malformed lines are skipped.  The line parser is
 * the snapshot's too (snapshot.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "format/format.h"
#include "record/symbols/kallsyms.h"

/*
 * One line of /proc/kallsyms (kallsyms.h).  Names past 511 bytes and modules
 * past 255 are cut there.  A hand parser: sscanf() on its 100k+ lines was a third of a short
 * recording's CPU.
 */
bool rec_kallsyms_line(char *l, size_t n, struct ppf_ksym *k)
{
	char *p = l, *end = l + n, *name;
	uint64_t addr = 0;
	int digits = 0;

	for (; p < end && digits < 17; p++, digits++) {
		int c = *p, v = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' &&
			(c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;

		if (v < 0)
			break;
		addr = addr << 4 | (uint64_t)v;
	}
	if (!digits || digits > 16 || p >= end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end)
		return false;
	k->type = *p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	if (p == name)
		return false;
	if (p - name > 511)
		name[511] = '\0';
	k->module = "";
	if (p < end) {
		*p++ = '\0';
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '[') {
			char *m = ++p, *close = memchr(m, ']', (size_t)(end - m));

			if (close && close > m) {
				*(close - m > 255 ? m + 255 : close) = '\0';
				k->module = m;
			}
		}
	}
	*end = '\0';
	k->addr = addr;
	k->name = name;
	return true;
}

int rec_kallsyms_lookup(const char *path, const char *name, uint64_t *addr)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	int rc = PP_ENOT_FOUND;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct ppf_ksym k;

		if (rec_kallsyms_line(line, strcspn(line, "\n"), &k) && !strcmp(k.name, name)) {
			*addr = k.addr;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}
