/* SPDX-License-Identifier: MIT */
/*
 * units.c - times, sizes and lists from the command line.
 *
 * Fractions are allowed on times ("1.5ms") but computed in integers, so
 * "0.000001ms" is rejected as below one nanosecond rather than rounded.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/units.h"

int pp_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return PP_ESYNTAX;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return PP_ERANGE;
	if (*end)
		return PP_ESYNTAX;
	*out = v;
	return 0;
}

/* Split "12.345" into whole and fraction digits scaled by @mult. */
static int scaled(const char *num, size_t len, uint64_t mult, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, fdiv = 1;
	size_t i = 0;
	bool digits = false;

	for (; i < len && isdigit((unsigned char)num[i]); i++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return PP_ERANGE;
		whole = whole * 10 + (uint64_t)(num[i] - '0');
		digits = true;
	}
	if (i < len && num[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)num[i]); i++) {
			if (fdiv < 1000000000000ULL) {
				frac = frac * 10 + (uint64_t)(num[i] - '0');
				fdiv *= 10;
			}
			digits = true;
		}
	}
	if (i != len || !digits)
		return PP_ESYNTAX;
	if (mult && whole > UINT64_MAX / mult)
		return PP_ERANGE;
	*out = whole * mult + (frac * mult) / fdiv;
	return 0;
}

int pp_parse_time(const char *s, uint64_t def_unit_ns, uint64_t *out)
{
	static const struct { const char *sfx; uint64_t mult; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "m", 60000000000ULL }, { "min", 60000000000ULL }, { "h", 3600000000000ULL },
	};
	size_t len;

	if (!s || !*s)
		return PP_ESYNTAX;
	len = strlen(s);
	for (size_t i = 0; i < PP_ARRAY_SIZE(units); i++) {
		size_t sl = strlen(units[i].sfx);
		if (len > sl && !strcmp(s + len - sl, units[i].sfx) &&
		    !isalpha((unsigned char)s[len - sl - 1]))
			return scaled(s, len - sl, units[i].mult, out);
	}
	return scaled(s, len, def_unit_ns, out);
}

int pp_parse_size(const char *s, uint64_t *out)
{
	uint64_t mult = 1;
	size_t len;

	if (!s || !*s)
		return PP_ESYNTAX;
	len = strlen(s);
	if (len > 1 && (s[len - 1] == 'B' || s[len - 1] == 'b'))
		len--;
	if (len > 1 && (s[len - 1] == 'i'))
		len--;
	switch (s[len - 1]) {
	case 'k': case 'K': mult = 1ULL << 10; len--; break;
	case 'm': case 'M': mult = 1ULL << 20; len--; break;
	case 'g': case 'G': mult = 1ULL << 30; len--; break;
	case 't': case 'T': mult = 1ULL << 40; len--; break;
	}
	return scaled(s, len, mult, out);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

bool pp_list_has(const int *v, size_t nr, int64_t x)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] == x)
			return true;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

int pp_parse_list(const char *s, uint64_t max, int **out, size_t *nr)
{
	int *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = s;

	if (!s || !*s)
		return PP_ESYNTAX;
	while (*p) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (b < a || a < 0 || b > 0x7fffffff || (max && (uint64_t)b >= max)) {
			free(v);
			return PP_ERANGE;
		}
		if (b - a > 1 << 22)
			goto bad;
		for (long x = a; x <= b; x++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				v = pp_xrealloc(v, cap * sizeof(*v));
			}
			v[n++] = (int)x;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	qsort(v, n, sizeof(*v), cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (!w || v[w - 1] != v[i])
			v[w++] = v[i];
	*out = v;
	*nr = w;
	return 0;
bad:
	free(v);
	return PP_ESYNTAX;
}

char *pp_format_ns(uint64_t ns, char *buf, size_t sz)
{
	if (ns >= 1000000000ULL)
		snprintf(buf, sz, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000ULL)
		snprintf(buf, sz, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 1000ULL)
		snprintf(buf, sz, "%.3f us", (double)ns / 1e3);
	else
		snprintf(buf, sz, "%llu ns", (unsigned long long)ns);
	return buf;
}

char *pp_format_bytes(uint64_t bytes, char *buf, size_t sz)
{
	if (bytes >= (1ULL << 30))
		snprintf(buf, sz, "%.2f GiB", (double)bytes / (double)(1ULL << 30));
	else if (bytes >= (1ULL << 20))
		snprintf(buf, sz, "%.2f MiB", (double)bytes / (double)(1ULL << 20));
	else if (bytes >= (1ULL << 10))
		snprintf(buf, sz, "%.2f KiB", (double)bytes / 1024.0);
	else
		snprintf(buf, sz, "%llu B", (unsigned long long)bytes);
	return buf;
}

bool pp_parse_hexn(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int nd = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++, nd++) {
		int c = *p, x = c >= '0' && c <= '9' ? c - '0' : -1;

		if (x < 0 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			x = (c | 0x20) - 'a' + 10;
		if (x < 0)
			break;
		if (nd == 16)
			return false;
		v = v << 4 | (unsigned)x;
	}
	*pp = p;
	*out = v;
	return nd > 0;
}
