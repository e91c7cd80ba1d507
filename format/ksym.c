/* SPDX-License-Identifier: MIT */
/*
 * ksym.c - one line of a kallsyms file ("ADDR TYPE NAME[\t[MODULE]]") as a ppf_ksym (ksym.h).
 *
 * pp-record reads /proc/kallsyms into a capture's KSYM records and looks names up in it;
 * pp-analyze's perf.data import reads it for a file recorded on this kernel.  A hand parser:
 * sscanf() on its 100k+ lines was a third of a short recording's CPU.  Names past 511 bytes
 * and modules past 255 are cut there.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "format/ksym.h"

bool ppf_ksym_parse(char *l, size_t n, struct ppf_ksym *k)
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
