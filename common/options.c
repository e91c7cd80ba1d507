/* SPDX-License-Identifier: MIT */
/*
 * options.c - the table-driven option parser and help printer.
 *
 * Accepted forms: -x VAL, -xVAL, -abc (bundled flags), --name VAL,
 * --name=VAL, --no-name (bools), and unique prefixes of long names.  An
 * OPTARG option takes its value only in the attached form (--detail=x) so
 * that "--detail FILE" never swallows a positional argument.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/options.h"
#include "common/units.h"

void pp_strlist_push(struct pp_strlist *l, const char *s)
{
	l->v = pp_xrealloc(l->v, (l->nr + 1) * sizeof(*l->v));
	l->v[l->nr++] = s;
}

void pp_strlist_release(struct pp_strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = 0;
}

/* Walk a table and its includes, depth first; stop when @fn returns non-NULL. */
typedef const struct pp_option *(*visit_fn)(const struct pp_option *o, const void *arg);

static const struct pp_option *walk(const struct pp_option *opts, visit_fn fn, const void *arg)
{
	for (const struct pp_option *o = opts; o && o->type != PP_OPT_T_END; o++) {
		const struct pp_option *r;

		if (o->type == PP_OPT_T_INCLUDE)
			r = walk(o->include, fn, arg);
		else
			r = fn(o, arg);
		if (r)
			return r;
	}
	return NULL;
}

static const struct pp_option *match_short(const struct pp_option *o, const void *arg)
{
	return o->short_name && o->short_name == *(const int *)arg ? o : NULL;
}

static const struct pp_option *match_long(const struct pp_option *o, const void *arg)
{
	return o->long_name && !strcmp(o->long_name, arg) ? o : NULL;
}

const struct pp_option *pp_option_find(const struct pp_option *opts, const char *long_name)
{
	return walk(opts, match_long, long_name);
}

struct prefix_search {
	const char *name;
	size_t len;
	const struct pp_option *found;
	int nr;
};

static const struct pp_option *match_prefix(const struct pp_option *o, const void *arg)
{
	struct prefix_search *ps = (struct prefix_search *)arg;

	if (o->long_name && !strncmp(o->long_name, ps->name, ps->len)) {
		if (ps->found != o)
			ps->nr++;
		ps->found = o;
	}
	return NULL;
}

static int set_value(const struct pp_option *o, const char *arg, bool unset, const char *shown,
		     char *err, size_t errsz)
{
	int rc = 0;

	switch (o->type) {
	case PP_OPT_T_BOOL:
		*(bool *)o->value = !unset;
		return 0;
	case PP_OPT_T_COUNT:
		*(int *)o->value = unset ? 0 : *(int *)o->value + 1;
		return 0;
	case PP_OPT_T_INT: {
		char *end;
		long v = strtol(arg, &end, 0);
		if (!*arg || *end || v < -2147483647L || v > 2147483647L)
			rc = PP_ESYNTAX;
		else
			*(int *)o->value = (int)v;
		break;
	}
	case PP_OPT_T_U64:
		rc = pp_parse_u64(arg, (uint64_t *)o->value);
		break;
	case PP_OPT_T_TIME:
		rc = pp_parse_time(arg, o->unit ? o->unit : 1, (uint64_t *)o->value);
		break;
	case PP_OPT_T_SIZE:
		rc = pp_parse_size(arg, (uint64_t *)o->value);
		break;
	case PP_OPT_T_STRING:
		*(const char **)o->value = unset ? NULL : arg;
		return 0;
	case PP_OPT_T_STRLIST:
		if (unset)
			pp_strlist_release(o->value);
		else
			pp_strlist_push(o->value, arg);
		return 0;
	case PP_OPT_T_CALLBACK:
		return o->cb(o, arg, unset, err, errsz);
	default:
		break;
	}
	if (rc)
		snprintf(err, errsz, "option '%s' does not take '%s': %s", shown, arg,
			 o->type == PP_OPT_T_TIME ? "expected a time like 10ms, 2s, 500us"
			 : o->type == PP_OPT_T_SIZE ? "expected a size like 64M, 4096"
			 : "expected a number");
	return rc;
}

static bool takes_arg(const struct pp_option *o)
{
	return o->type != PP_OPT_T_BOOL && o->type != PP_OPT_T_COUNT;
}

int pp_parse_options(int argc, const char **argv, const struct pp_option *opts, unsigned flags,
		     char *err, size_t errsz)
{
	int out = 0, i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct pp_option *o;
		char shown[128];
		int rc;

		if (!strcmp(a, "--")) {
			if (flags & PP_PARSE_KEEP_DASHDASH)
				argv[out++] = argv[i];
			i++;
			break;
		}
		if ((flags & PP_PARSE_STOP_AT_COMMA) && !strcmp(a, ","))
			break;
		if (a[0] != '-' || a[1] == '\0') {
			if (flags & PP_PARSE_STOP_AT_NON_OPTION)
				break;
			argv[out++] = a;
			continue;
		}
		if (a[1] != '-') {
			/* one or more short options */
			for (const char *p = a + 1; *p; p++) {
				int c = (unsigned char)*p;
				if (c == 'h')
					return PP_OPT_HELP;
				o = walk(opts, match_short, &c);
				if (!o) {
					snprintf(err, errsz, "unknown option '-%c'", c);
					return PP_EUSAGE;
				}
				snprintf(shown, sizeof(shown), "-%c", c);
				if (!takes_arg(o)) {
					rc = set_value(o, NULL, false, shown, err, errsz);
				} else if (p[1]) {
					rc = set_value(o, p + 1, false, shown, err, errsz);
					p += strlen(p) - 1;
				} else if (o->flags & PP_OPT_OPTARG) {
					rc = set_value(o, o->defarg, false, shown, err, errsz);
				} else if (i + 1 < argc) {
					rc = set_value(o, argv[++i], false, shown, err, errsz);
				} else {
					snprintf(err, errsz, "option '-%c' requires a value", c);
					return PP_EUSAGE;
				}
				if (rc)
					return rc;
				if (takes_arg(o))
					break;
			}
			continue;
		}

		/* a long option */
		const char *name = a + 2, *eq = strchr(name, '='), *arg = eq ? eq + 1 : NULL;
		size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
		bool unset = false;
		char key[128];

		if (nlen >= sizeof(key)) {
			snprintf(err, errsz, "unknown option '%.40s...'", a);
			return PP_EUSAGE;
		}
		memcpy(key, name, nlen);
		key[nlen] = '\0';
		if (!strcmp(key, "help"))
			return PP_OPT_HELP;
		o = walk(opts, match_long, key);
		if (!o && !strncmp(key, "no-", 3)) {
			o = walk(opts, match_long, key + 3);
			if (o && !(o->flags & PP_OPT_NONEG))
				unset = true;
			else
				o = NULL;
		}
		if (!o) {
			struct prefix_search ps = { key, nlen, NULL, 0 };
			walk(opts, match_prefix, &ps);
			if (ps.nr > 1) {
				snprintf(err, errsz, "ambiguous option '--%s'", key);
				return PP_EUSAGE;
			}
			o = ps.found;
		}
		if (!o) {
			snprintf(err, errsz, "unknown option '--%s'", key);
			return PP_EUSAGE;
		}
		snprintf(shown, sizeof(shown), "--%s", o->long_name);
		if (unset || !takes_arg(o)) {
			if (arg) {
				snprintf(err, errsz, "option '%s' takes no value", shown);
				return PP_EUSAGE;
			}
			rc = set_value(o, NULL, unset, shown, err, errsz);
		} else if (arg) {
			rc = set_value(o, arg, false, shown, err, errsz);
		} else if (o->flags & PP_OPT_OPTARG) {
			rc = set_value(o, o->defarg, false, shown, err, errsz);
		} else if (i + 1 < argc) {
			rc = set_value(o, argv[++i], false, shown, err, errsz);
		} else {
			snprintf(err, errsz, "option '%s' requires a value", shown);
			return PP_EUSAGE;
		}
		if (rc)
			return rc;
	}
	for (; i < argc; i++)
		argv[out++] = argv[i];
	return out;
}

static void usage_opts(FILE *fp, const struct pp_option *opts)
{
	for (const struct pp_option *o = opts; o && o->type != PP_OPT_T_END; o++) {
		char lhs[96];
		int n = 0;

		if (o->type == PP_OPT_T_INCLUDE) {
			usage_opts(fp, o->include);
			continue;
		}
		if (o->type == PP_OPT_T_GROUP) {
			fprintf(fp, "\n%s\n", o->help);
			continue;
		}
		if (o->flags & PP_OPT_HIDDEN)
			continue;
		if (o->short_name)
			n += snprintf(lhs + n, sizeof(lhs) - n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
		else
			n += snprintf(lhs + n, sizeof(lhs) - n, "    ");
		if (o->long_name)
			n += snprintf(lhs + n, sizeof(lhs) - (size_t)n, "--%s", o->long_name);
		if (takes_arg(o) && (size_t)n < sizeof(lhs))
			snprintf(lhs + n, sizeof(lhs) - (size_t)n,
				 (o->flags & PP_OPT_OPTARG) ? "[=<%s>]" : " <%s>",
				 o->argh ? o->argh : "value");
		if (strlen(lhs) > 26)
			fprintf(fp, "    %s\n    %26s  %s\n", lhs, "", o->help ? o->help : "");
		else
			fprintf(fp, "    %-26s  %s\n", lhs, o->help ? o->help : "");
	}
}

void pp_usage_print(FILE *fp, const char *const *usage, const struct pp_option *opts)
{
	for (int i = 0; usage && usage[i]; i++)
		fprintf(fp, "%s%s\n", i == 0 ? "usage: " : (usage[i][0] ? "   or: " : ""), usage[i]);
	if (opts) {
		fputc('\n', fp);
		usage_opts(fp, opts);
	}
}
