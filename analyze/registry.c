/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the explicit list of analyzers, from analyzers/analyzers.def.
 *
 * No constructor self-registration: the list is greppable, ordered, and a
 * static link keeps every analyzer.  PP_ALIAS lines give some a second name
 * (perf-prof's "bpf:kvm_exit"), found by ana_analyzer_find() as the first.  Each line is checked by
 * ana_analyzer_check() (pp-analyze runs ana_registry_check() at start, the
 * unit suite `registry` walks the list).  Not here: an instance's hook table
 * (hooks.c), option parsing and instance life (instance.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/err.h"

#define PP_ANALYZER(n, name, plan, caps)                                                   \
	extern const struct pp_analyzer_ops az_##n##_ops;                                  \
	PP_PLAN_DECL(plan, n)
#include "analyzers/analyzers.def"
#undef PP_ANALYZER

static const struct pp_analyzer registry[] = {
#define PP_ANALYZER(n, nm, pl, cp)                                                         \
	{ .name = nm, .c_name = #n, .caps = cp, .plan = PP_PLAN_REF(pl, n), .ops = &az_##n##_ops },
#include "analyzers/analyzers.def"
#undef PP_ANALYZER
};

/* PP_ALIAS("alias", c_name): the analyzer is found by its C name, once per lookup. */
static const struct {
	const char *alias, *c_name;
} aliases[] = {
#define PP_ANALYZER(n, nm, pl, cp)
#define PP_ALIAS(a, n) { a, #n },
#include "analyzers/analyzers.def"
#undef PP_ALIAS
#undef PP_ANALYZER
	{ NULL, NULL },
};

size_t ana_analyzer_count(void)
{
	return sizeof(registry) / sizeof(registry[0]);
}

const struct pp_analyzer *ana_analyzer_at(size_t i)
{
	return i < ana_analyzer_count() ? &registry[i] : NULL;
}

static const struct pp_analyzer *find_c_name(const char *c_name)
{
	for (size_t i = 0; i < ana_analyzer_count(); i++)
		if (!strcmp(registry[i].c_name, c_name))
			return &registry[i];
	return NULL;
}

const char *ana_analyzer_alias_at(size_t i, const struct pp_analyzer **an)
{
	if (i >= PP_ARRAY_SIZE(aliases) - 1)
		return NULL;
	*an = find_c_name(aliases[i].c_name);
	return aliases[i].alias;
}

const struct pp_analyzer *ana_analyzer_find(const char *name)
{
	for (size_t i = 0; i < ana_analyzer_count(); i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	for (size_t i = 0; aliases[i].alias; i++)
		if (!strcmp(aliases[i].alias, name))
			return find_c_name(aliases[i].c_name);
	return NULL;
}

/* The name is c_name with '-' for '_', lowercase letters and digits otherwise. */
static bool name_matches(const char *name, const char *c_name)
{
	if (!*name)
		return false;
	for (; *name && *c_name; name++, c_name++) {
		if (*c_name == '_' ? *name != '-' : *name != *c_name)
			return false;
		if (*name != '-' && !islower((unsigned char)*name) && !isdigit((unsigned char)*name))
			return false;
	}
	return !*name && !*c_name;
}

/* Every option of a relative table lands inside the options struct. */
static bool options_fit(const struct pp_option *o, size_t opts_size)
{
	for (; o && o->type != PP_OPT_T_END; o++) {
		if (o->type == PP_OPT_T_GROUP || o->type == PP_OPT_T_INCLUDE)
			continue;
		if ((size_t)(uintptr_t)o->value >= (opts_size ? opts_size : 1))
			return false;
	}
	return true;
}

int ana_analyzer_check(const struct pp_analyzer *an, char *err, size_t errsz)
{
	const struct pp_analyzer_ops *ops = an->ops;
	const char *bad = NULL;

	if (!name_matches(an->name, an->c_name))
		bad = "its name is not its C name with '-' for '_'";
	else if (!ops->summary || !*ops->summary || !ops->usage)
		bad = "it has no summary or usage line";
	else if (!ops->init || !ops->event || !ops->finish)
		bad = "init, event and finish are required";
	else if (!an->plan)
		bad = "it has no plan (use pp_plan_none)";
	else if (!options_fit(an->plan->options, an->plan->opts_size))
		bad = "an option of its plan lies outside its opts_size";
	else if ((an->caps & PP_AZC_MERGE) && (an->caps & PP_AZC_STREAM))
		bad = "it cannot be both mergeable and a stream";
	else if (an->caps & ~(unsigned)(PP_AZC_MERGE | PP_AZC_STREAM))
		bad = "unknown capability bits";
	else if ((ops->flags & PP_AZ_NEED_EVENTS) && (ops->flags & (PP_AZ_NO_EVENTS | PP_AZ_ALL_EVENTS)))
		bad = "PP_AZ_NEED_EVENTS excludes PP_AZ_NO_EVENTS and PP_AZ_ALL_EVENTS";
	else if ((ops->flags & PP_AZ_EXTRA_EVENTS) && !ops->builtin_events && !ops->set_events)
		bad = "PP_AZ_EXTRA_EVENTS needs events of its own (builtin_events or set_events)";
	else if (!ops->state_write != !ops->state_read)
		bad = "state_write and state_read come together";
	else if ((ops->state_write || ops->state_join) && !(an->caps & PP_AZC_MERGE))
		bad = "state hooks without PP_AZC_MERGE";
	else if ((ops->flags & PP_AZ_STATE_CUT) && !ops->state_write)
		bad = "PP_AZ_STATE_CUT without a state";
	else if (!ops->state_write != !ops->state_version)
		bad = "a state needs a state_version (>= 1), and only a state has one";
	if (!bad)
		return 0;
	snprintf(err, errsz, "analyzer '%s': %s", an->name, bad);
	return -EINVAL;
}

int ana_registry_check(char *err, size_t errsz)
{
	for (size_t i = 0; i < ana_analyzer_count(); i++) {
		int rc = ana_analyzer_check(&registry[i], err, errsz);

		if (rc)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(registry[i].name, registry[j].name) ||
			    registry[i].ops == registry[j].ops) {
				snprintf(err, errsz, "analyzer '%s' is registered twice", registry[i].name);
				return -EINVAL;
			}
	}
	/* an alias names one analyzer, and no analyzer or other alias has its name */
	for (size_t i = 0; aliases[i].alias; i++) {
		const char *a = aliases[i].alias;
		bool taken = false;

		for (size_t j = 0; j < ana_analyzer_count(); j++)
			taken |= !strcmp(registry[j].name, a);
		for (size_t j = 0; j < i; j++)
			taken |= !strcmp(aliases[j].alias, a);
		if (!*a || taken || !find_c_name(aliases[i].c_name)) {
			snprintf(err, errsz, "alias '%s' of '%s': %s", a, aliases[i].c_name,
				 !*a || taken ? "empty or taken by another name"
					      : "no analyzer has that C name");
			return -EINVAL;
		}
	}
	return 0;
}

const struct ana_registry ana_registry = {
	.count = ana_analyzer_count,
	.at = ana_analyzer_at,
	.find = ana_analyzer_find,
};
