/* SPDX-License-Identifier: MIT */
/*
 * units.h - parsing and printing of times, sizes and CPU/pid lists.
 *
 * Times take the suffixes s/ms/us/ns (no suffix: the caller's default unit),
 * sizes K/M/G (powers of 1024).  Lists are "1,3-5".  Every parser rejects
 * trailing junk and overflow instead of guessing.
 */
#ifndef PP_COMMON_UNITS_H
#define PP_COMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * pp_parse_time() - parse "10ms", "1.5s", "250us", "100"
 * @s: the text
 * @def_unit_ns: multiplier for a bare number (1 for ns, 1000000 for ms)
 * @out: the value in ns
 *
 * Return: 0, or PP_ESYNTAX / PP_ERANGE.
 */
int pp_parse_time(const char *s, uint64_t def_unit_ns, uint64_t *out);

/** pp_parse_size() - parse "64M", "4096", "1G" into bytes. Return: 0 or PP_ESYNTAX. */
int pp_parse_size(const char *s, uint64_t *out);

/**
 * pp_parse_hexn() - a hex number (optional 0x, at most 16 digits) at *@pp, before @end
 * On success *@pp points after the digits.  Return: true when at least one digit was read.
 */
bool pp_parse_hexn(const char **pp, const char *end, uint64_t *out);

/** pp_parse_u64() - a whole decimal or 0x-hex number, nothing else. */
int pp_parse_u64(const char *s, uint64_t *out);

/**
 * pp_parse_list() - parse "0,2-5,7" into a sorted, deduplicated array
 * @s: the text
 * @max: values must be < @max (0: no bound)
 * @out: receives a malloc'ed array the caller frees
 * @nr: receives its length
 *
 * Return: 0 or PP_ESYNTAX / PP_ERANGE.
 */
int pp_parse_list(const char *s, uint64_t max, int **out, size_t *nr);

/**
 * pp_list_has() - whether @x is in @v, a sorted array as pp_parse_list() gives
 * (binary search)
 */
bool pp_list_has(const int *v, size_t nr, int64_t x);

/** pp_format_ns() - "1.234 ms"-style text for a duration, into @buf. Return: @buf. */
char *pp_format_ns(uint64_t ns, char *buf, size_t sz);

/** pp_format_bytes() - "12.3 MiB"-style text for a size, into @buf. Return: @buf. */
char *pp_format_bytes(uint64_t bytes, char *buf, size_t sz);

#endif
