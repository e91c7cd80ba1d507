/* SPDX-License-Identifier: MIT */
/*
 * sysfile.h - one line of a /proc or /sys file (a sysctl, a setting, a name).
 *
 * Such files hold one value on one line: read it whole, the newline cut.
 * Not here: files of many lines (each reader parses its own).
 */
#ifndef PP_COMMON_SYSFILE_H
#define PP_COMMON_SYSFILE_H

#include <stdbool.h>
#include <stddef.h>

/**
 * pp_read_line() - the first line of @path, without its newline
 * @path: the file
 * @buf: receives it, NUL-terminated (cut at @sz - 1 bytes)
 * @sz: its size
 * Return: false when the file cannot be read or is empty.
 */
bool pp_read_line(const char *path, char *buf, size_t sz);

/**
 * pp_read_long() - the number that starts the first line of @path
 * @path: the file
 * @v: receives it
 * Return: false when the file cannot be read or does not start with a number.
 */
bool pp_read_long(const char *path, long *v);

#endif
