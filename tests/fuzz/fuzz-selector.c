/* SPDX-License-Identifier: MIT */
/*
 * fuzz-selector.c - libFuzzer entry: the event selector parser and glob matching.
 *
 * The input is a -e argument.  What parses must have consistent parts
 * (at least one selector, each with its text, positions inside the input,
 * attribute lookups that find every attribute by its name), and its sys and
 * name are matched as globs against a few event names; an error must point
 * into the text.  The input split at its first NUL is also a pattern and a
 * subject for pp_glob_matchn(), which must agree with pp_glob_match() when
 * neither has a NUL.  Not here: resolving selectors against a capture.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"sched:sched_switch", "sched_switch", "raw_syscalls:sys_enter", "cpu-clock", "", "a",
};

static void check_sel(const char *text, const struct pp_selector *s)
{
	size_t len = strlen(text);

	if (!s->text || s->pos < 0 || (size_t)s->pos > len)
		abort();
	if (s->filter && (s->filter_pos < 0 || (size_t)s->filter_pos > len))
		abort();
	for (size_t i = 0; i < s->nr_attrs; i++) {
		const struct pp_sel_attr *a = &s->attrs[i];
		if (!a->name || a->pos < 0 || (size_t)a->pos > len || a->value_pos > (int)len)
			abort();
		if (!pp_selector_attr(s, a->name))
			abort();
	}
	(void)pp_selector_unsupported(s);
	(void)pp_selector_is_glob(s);
	for (size_t i = 0; i < PP_ARRAY_SIZE(names); i++) {
		if (s->sys)
			(void)pp_glob_match(s->sys, names[i]);
		if (s->name)
			(void)pp_glob_match(s->name, names[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pp_xstrndup((const char *)data, size);
	const uint8_t *nul = memchr(data, 0, size);
	struct pp_selector *v = NULL;
	struct pp_parse_error err;
	size_t nr = 0;

	if (pp_selector_parse(text, &v, &nr, &err) == 0) {
		if (!nr)
			abort();
		for (size_t i = 0; i < nr; i++)
			check_sel(text, &v[i]);
	} else if (err.pos < -1 || err.pos > (int)strlen(text) || !err.msg[0]) {
		abort();
	}
	pp_selector_free_array(v, nr);
	if (nul) {
		const char *pat = (const char *)data, *str = (const char *)nul + 1;
		size_t plen = (size_t)(nul - data), slen = size - plen - 1;
		bool n = pp_glob_matchn(pat, plen, str, slen);
		if (!memchr(str, 0, slen)) {
			char *s = pp_xstrndup(str, slen);
			if (pp_glob_match(text, s) != n)
				abort();
			free(s);
		}
	}
	free(text);
	return 0;
}
