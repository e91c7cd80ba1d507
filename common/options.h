/* SPDX-License-Identifier: MIT */
/*
 * options.h - declarative command-line options (the git/perf parse-options shape).
 *
 * Each command and each analyzer declares one table of struct pp_option;
 * shared options are one table pulled in with PP_OPT_INCLUDE, not copies.
 * Help text is generated from the tables.  The parser never exits: it
 * returns an error code and leaves a one-line message in the caller's buffer.
 */
#ifndef PP_COMMON_OPTIONS_H
#define PP_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pp_opt_type {
	PP_OPT_T_END,
	PP_OPT_T_GROUP,		/* a heading in the help text */
	PP_OPT_T_INCLUDE,	/* splice another table here */
	PP_OPT_T_BOOL,		/* bool; --no-NAME clears it */
	PP_OPT_T_COUNT,		/* int, +1 each time (-v -v) */
	PP_OPT_T_INT,		/* int */
	PP_OPT_T_U64,		/* uint64_t, decimal or 0x hex */
	PP_OPT_T_TIME,		/* uint64_t ns; suffix s/ms/us/ns, bare number in @unit */
	PP_OPT_T_SIZE,		/* uint64_t bytes; suffix K/M/G */
	PP_OPT_T_STRING,	/* const char *, last one wins */
	PP_OPT_T_STRLIST,	/* struct pp_strlist, repeatable (-e A -e B) */
	PP_OPT_T_CALLBACK,	/* cb(opt, arg, unset) */
};

enum {
	PP_OPT_OPTARG = 1 << 0,	/* the argument is optional: --detail or --detail=X */
	PP_OPT_HIDDEN = 1 << 1,	/* not shown in help */
	PP_OPT_NONEG = 1 << 2,	/* no --no-NAME form */
};

/* A repeatable string option's values, in command-line order; borrowed from argv. */
struct pp_strlist {
	const char **v;
	size_t nr;
};
void pp_strlist_push(struct pp_strlist *l, const char *s);
void pp_strlist_release(struct pp_strlist *l);

struct pp_option;
/* Return 0, or a negative code after writing a message into @err. */
typedef int (*pp_opt_cb_fn)(const struct pp_option *opt, const char *arg, bool unset, char *err,
			    size_t errsz);

struct pp_option {
	enum pp_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* the argument's name in help: "ms" */
	const char *help;
	unsigned flags;
	uint64_t unit;		/* TIME: ns per bare unit; OPTARG: value when no argument */
	pp_opt_cb_fn cb;
	const struct pp_option *include;
	const char *defarg;	/* OPTARG: the string used when no argument is given */
};

#define PP_OPT_END() { .type = PP_OPT_T_END }
#define PP_OPT_GROUP(h) { .type = PP_OPT_T_GROUP, .help = (h) }
#define PP_OPT_INCLUDE(tbl) { .type = PP_OPT_T_INCLUDE, .include = (tbl) }
#define PP_OPT_BOOL(s, l, v, h) { .type = PP_OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define PP_OPT_COUNT(s, l, v, h) { .type = PP_OPT_T_COUNT, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define PP_OPT_INT(s, l, v, a, h) { .type = PP_OPT_T_INT, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h) }
#define PP_OPT_U64(s, l, v, a, h) { .type = PP_OPT_T_U64, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h) }
#define PP_OPT_TIME(s, l, v, u, h) { .type = PP_OPT_T_TIME, .short_name = (s), .long_name = (l), .value = (v), .argh = "time", .unit = (u), .help = (h) }
#define PP_OPT_SIZE(s, l, v, h) { .type = PP_OPT_T_SIZE, .short_name = (s), .long_name = (l), .value = (v), .argh = "size", .help = (h) }
#define PP_OPT_STRING(s, l, v, a, h) { .type = PP_OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h) }
#define PP_OPT_STRING_OPTARG(s, l, v, a, d, h) { .type = PP_OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), .flags = PP_OPT_OPTARG, .defarg = (d) }
#define PP_OPT_STRLIST(s, l, v, a, h) { .type = PP_OPT_T_STRLIST, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h) }
#define PP_OPT_CALLBACK(s, l, v, a, h, f) { .type = PP_OPT_T_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a), .help = (h), .cb = (f) }

enum {
	PP_PARSE_STOP_AT_NON_OPTION = 1 << 0,	/* first non-option ends parsing */
	PP_PARSE_STOP_AT_COMMA = 1 << 1,	/* a lone "," ends parsing (analyzer chains) */
	PP_PARSE_KEEP_DASHDASH = 1 << 2,	/* leave "--" in the remaining arguments */
};

/* pp_parse_options() returns this when -h/--help was given. */
#define PP_OPT_HELP 1000000

/**
 * pp_parse_options() - parse @argv against @opts
 * @argc: number of arguments, argv[0] excluded by the caller
 * @argv: the arguments; the ones left over are moved to the front, in order
 * @opts: the option table
 * @flags: PP_PARSE_*
 * @err: receives a one-line message on error ("unknown option '--foo'")
 * @errsz: its size
 *
 * With STOP_AT_COMMA, the "," and everything after it are left over too.
 * Return: the number of arguments left over, PP_OPT_HELP for -h/--help, or a
 * negative code with @err filled in.
 */
int pp_parse_options(int argc, const char **argv, const struct pp_option *opts, unsigned flags,
		     char *err, size_t errsz);

/**
 * pp_usage_print() - print the usage lines and the generated option help
 * @fp: where to
 * @usage: NULL-terminated lines, the first prefixed "usage: ", then "   or: "
 * @opts: the table (may be NULL)
 */
void pp_usage_print(FILE *fp, const char *const *usage, const struct pp_option *opts);

/** pp_option_find() - the option of @opts (includes searched) named @long_name, or NULL. */
const struct pp_option *pp_option_find(const struct pp_option *opts, const char *long_name);

#endif
