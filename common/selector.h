/* SPDX-License-Identifier: MIT */
/*
 * selector.h - the event selector: "sys:name/filter/ATTR/ATTR=VALUE/", lists and globs.
 *
 * One parser for pp-record (what to open) and pp-analyze (what to select and
 * how to annotate it).  Grammar (perf-prof's, PERF-PROF-REFERENCE.md §3.1):
 *
 *   EVENTS := EVENT [, EVENT ...]        split on ',' outside quotes and ()
 *   EVENT  := sys:name[/filter/ATTR/.../] | kprobe:func | kretprobe:func
 *           | uprobe:BINARY:fn[+off] | uprobe:BINARY:0xOFF | uprobe:fn@"BINARY" (and uretprobe:)
 *           | name[/.../]                 a software event (cpu-clock) or an analyzer source
 *   ATTR   := name | name=value           value may be quoted or wrapped in ()
 *
 * Attribute values are stored without surrounding quotes, and without one
 * pair of parentheses when that pair encloses the whole value ("size=(4096<<order)"
 * gives "4096<<order"; "key=(a)+(b)" stays as is); nothing else is unescaped.
 * Known attributes (PERF-PROF-REFERENCE §3.2): stack max-stack=N alias key
 * printkey role untraced trigger top-by (top_by) top-add (top_add) comm ptr
 * size num exec cpus=LIST index vm push pull.  For a PLAIN event, a first
 * part starting with '-' is an option string, anything else a filter.
 *
 * The parser only checks syntax and attribute names/values; resolving globs
 * against tracefs or a capture is the caller's job.  It depends on nothing
 * but common/ (pp-record links it).
 */
#ifndef PP_COMMON_SELECTOR_H
#define PP_COMMON_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pp_sel_kind {
	PP_SEL_TRACEPOINT,	/* sys:name (either part may be a glob) */
	PP_SEL_KPROBE,
	PP_SEL_KRETPROBE,
	PP_SEL_UPROBE,
	PP_SEL_URETPROBE,
	PP_SEL_PLAIN,		/* no ':' - software event name or analyzer source */
};

/* An attribute as written; @value is NULL for a bare flag like "stack". */
struct pp_sel_attr {
	char *name;		/* canonical: "top-by" for top_by too */
	char *value;
	int pos;		/* byte offset of the attribute in the original text */
	int value_pos;		/* byte offset of @value (after quotes/parens), -1 if none */
};

struct pp_selector {
	enum pp_sel_kind kind;
	char *text;		/* this event's text exactly as given */
	int pos;		/* byte offset of @text in the list it came from */
	char *sys;		/* TRACEPOINT: "sched"; PROBES: "kprobe"/"uprobe"...; PLAIN: NULL */
	char *name;		/* TRACEPOINT: "sched_switch"; PLAIN: "cpu-clock"; K*: the function */
	char *binary;		/* U*PROBE: the binary path */
	char *func;		/* U*PROBE: the symbol, or NULL when an offset is given */
	uint64_t offset;	/* U*PROBE: +off or 0xOFF; K*PROBE: +off */
	bool has_offset_only;	/* uprobe:BIN:0xOFF form */
	char *filter;		/* NULL when none (or empty "//") */
	int filter_pos;		/* byte offset of the filter in the original text */
	char *options;		/* PLAIN with a first '/' part that is not a filter:
				 * the option string of an analyzer source ("-F 200 -g") */
	struct pp_sel_attr *attrs;
	size_t nr_attrs;

	/* Attributes with a meaning everywhere, decoded for convenience. */
	bool stack;		/* "stack" or max-stack=N */
	uint32_t max_stack;	/* 0 = default */
	bool untraced;
	bool trigger;
	const char *alias;	/* borrowed from attrs, or NULL */
};

/* Where a parse error happened and why: print the text, then a caret at @pos. */
struct pp_parse_error {
	int pos;		/* byte offset into the text that was parsed, -1 if none */
	char msg[256];
};

/**
 * pp_selector_parse() - parse one -e argument (a comma list of events)
 * @text: the argument
 * @out: receives a malloc'ed array of selectors
 * @nr: receives its length (>= 1 on success)
 * @err: receives the position and message on failure
 *
 * Unknown attributes are an error naming them ("unknown attribute 'foo'").
 * Return: 0 or PP_ESYNTAX / PP_EUNKNOWN_ATTR; free with pp_selector_free_array().
 */
int pp_selector_parse(const char *text, struct pp_selector **out, size_t *nr,
		      struct pp_parse_error *err);

/** pp_selector_free_array() - free what pp_selector_parse() returned (NULL is fine). */
void pp_selector_free_array(struct pp_selector *v, size_t nr);

/** pp_selector_attr() - the value of attribute @name ("" for a bare flag), or NULL if absent. */
const char *pp_selector_attr(const struct pp_selector *s, const char *name);

/**
 * pp_selector_unsupported() - why pp cannot honour an attribute of @s, or NULL
 *
 * push=, pull= and vm= are perf-prof's event streams between live instances
 * (and the guest vCPU mapping of pulled events); pp has no such pipe: its
 * captures are the transport.  The parser accepts them (the grammar is
 * perf-prof's); pp-record and pp-analyze refuse them with this text.
 * Return: a static one-line reason that names what pp does instead.
 */
const char *pp_selector_unsupported(const struct pp_selector *s);

/** pp_selector_is_glob() - whether the sys or name part has *, ? or [. */
bool pp_selector_is_glob(const struct pp_selector *s);

/**
 * pp_glob_match() - shell-style match of @str against @pat: * ? [abc] [a-z] [!x] [^x]
 * Return: true on a match.  Used by selectors and by the '~' operator.
 */
bool pp_glob_match(const char *pat, const char *str);

/**
 * pp_glob_matchn() - pp_glob_match() on counted strings (no NUL needed)
 * @pat: the pattern, @plen bytes
 * @str: the subject, @slen bytes
 *
 * Runs in O(plen * slen) time and constant space whatever the pattern; a '\\'
 * in the pattern makes the next character literal, an unclosed '[' is literal.
 * Return: true on a match.
 */
bool pp_glob_matchn(const char *pat, size_t plen, const char *str, size_t slen);

/**
 * pp_parse_error_print() - "TEXT\n     ^ MSG" to stderr, prefixed by pp_progname
 */
void pp_parse_error_print(const char *what, const char *text, const struct pp_parse_error *err);

#endif
