/* SPDX-License-Identifier: MIT */
/*
 * err.h - error codes and pp_strerror().
 *
 * Every fallible function returns 0 or a negative code: either -errno or one
 * of the PP_E* codes generated from err.def (PP_EBAD_MAGIC == -10000, then
 * -10001, ...).  Not here: logging (log.h).
 */
#ifndef PP_COMMON_ERR_H
#define PP_COMMON_ERR_H

#define PP_ERRNO_BASE (-10000)

enum pp_err_index {
#define PP_ERR(name, text) PP_E_IDX_##name,
#include "common/err.def"
#undef PP_ERR
	PP_E__COUNT
};

enum pp_err {
#define PP_ERR(name, text) PP_E##name = PP_ERRNO_BASE - PP_E_IDX_##name,
#include "common/err.def"
#undef PP_ERR
};

/**
 * pp_strerror() - text for an error code
 * @err: 0, a negative errno, or a PP_E* code
 *
 * Return: a static string, never NULL (borrowed, valid forever).
 */
const char *pp_strerror(int err);

#endif
