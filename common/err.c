/* SPDX-License-Identifier: MIT */
/*
 * err.c - pp_strerror(): text for -errno and PP_E* codes alike.
 */
#include <string.h>

#include "common/err.h"

static const char *const pp_err_text[PP_E__COUNT] = {
#define PP_ERR(name, text) [PP_E_IDX_##name] = text,
#include "common/err.def"
#undef PP_ERR
};

const char *pp_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err <= PP_ERRNO_BASE && err > PP_ERRNO_BASE - PP_E__COUNT)
		return pp_err_text[PP_ERRNO_BASE - err];
	if (err < 0 && err > PP_ERRNO_BASE)
		return strerror(-err);
	return "unknown error";
}
