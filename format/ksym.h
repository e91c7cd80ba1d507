/* SPDX-License-Identifier: MIT */
/*
 * ksym.h - a kallsyms line parsed into a capture's KSYM record (format.h's struct ppf_ksym).
 */
#ifndef PP_FORMAT_KSYM_H
#define PP_FORMAT_KSYM_H

#include <stdbool.h>
#include <stddef.h>

#include "format/format.h"

/**
 * ppf_ksym_parse() - one line "ADDR TYPE NAME[\t[MODULE]]", cut in place
 * @l: the line (@n bytes, its newline not counted; l[n] is overwritten with NUL)
 * @n: its length
 * @k: receives address, type, name and module ("" when none), pointing into @l
 *
 * Names past 511 bytes and modules past 255 are cut there.
 * Return: false when @l is not such a line.
 */
bool ppf_ksym_parse(char *l, size_t n, struct ppf_ksym *k);

#endif
