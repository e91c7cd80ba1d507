/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the explicit list of analyzers, from analyzers/analyzers.def.
 *
 * No constructor self-registration: the list is greppable, ordered, and a
 * static link keeps every analyzer.
 */
#include <string.h>

#include "analyze/internal.h"

#define PP_ANALYZER(n) extern const struct pp_analyzer_ops az_##n##_ops;
#include "analyzers/analyzers.def"
#undef PP_ANALYZER

static const struct pp_analyzer_ops *const registry[] = {
#define PP_ANALYZER(n) &az_##n##_ops,
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
};

size_t ana_analyzer_count(void)
{
	return sizeof(registry) / sizeof(registry[0]);
}

const struct pp_analyzer_ops *ana_analyzer_at(size_t i)
{
	return i < ana_analyzer_count() ? registry[i] : NULL;
}

const struct pp_analyzer_ops *ana_analyzer_find(const char *name)
{
	for (size_t i = 0; i < ana_analyzer_count(); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}
