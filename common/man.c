/* SPDX-License-Identifier: MIT */
/*
 * man.c - help texts and option tables as man(7) source.
 *
 * Everything printed is escaped here, so the texts stay plain: '-' becomes
 * \- (an ASCII minus in the rendered page, so a copied option works),
 * '\' becomes \e, a line-leading '.' or '\'' is protected, '"' is \(dq and
 * UTF-8 becomes \[uXXXX] (groff reads its input as Latin-1 without preconv).
 * Not here: the page templates and their assembly (docs/man/mkman.sh).
 */
#include <string.h>

#include "common/man.h"

int pp_man_part(const char *arg)
{
	static const struct {
		const char *name;
		int part;
	} parts[] = {
		{ "synopsis", PP_MAN_SYNOPSIS },
		{ "description", PP_MAN_DESCRIPTION },
		{ "options", PP_MAN_OPTIONS },
		{ "all", PP_MAN_ALL },
	};

	if (strncmp(arg, "--help-man", 10))
		return 0;
	if (!arg[10])
		return PP_MAN_ALL;
	if (arg[10] != '=')
		return 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strcmp(arg + 11, parts[i].name))
			return parts[i].part;
	return 0;
}

/* The code point of the UTF-8 sequence at @s (at most @len bytes) and its length in *@n. */
static unsigned long utf8_decode(const unsigned char *s, size_t len, size_t *n)
{
	unsigned long cp;
	size_t k;

	if (s[0] >= 0xf0)
		cp = s[0] & 0x07, k = 4;
	else if (s[0] >= 0xe0)
		cp = s[0] & 0x0f, k = 3;
	else if (s[0] >= 0xc0)
		cp = s[0] & 0x1f, k = 2;
	else
		k = 0;
	if (!k || k > len) {
		*n = 1;
		return '?';
	}
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*n = 1;
			return '?';
		}
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*n = k;
	return cp;
}

void pp_man_escape(FILE *fp, const char *s, size_t len, bool at_bol)
{
	if (at_bol && len && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", fp);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\')
			fputs("\\e", fp);
		else if (c == '-')
			fputs("\\-", fp);
		else if (c == '"')
			fputs("\\(dq", fp);
		else if (c == '\t')
			fputs("        ", fp);
		else if (c >= 0x80) {
			size_t n;
			unsigned long cp = utf8_decode((const unsigned char *)s + i, len - i, &n);

			if (cp == '?')
				fputc('?', fp);
			else
				fprintf(fp, "\\[u%04lX]", cp);
			i += n - 1;
		} else if (c >= 0x20 || c == '\n')
			fputc(c, fp);
	}
}

static void escape_str(FILE *fp, const char *s, bool at_bol)
{
	pp_man_escape(fp, s, strlen(s), at_bol);
}

void pp_man_heading(FILE *fp, const char *text, size_t len, enum pp_man_level level)
{
	while (len && (text[len - 1] == ':' || text[len - 1] == ' '))
		len--;
	fputs(level == PP_MAN_LEVEL_SECTION ? ".SS " : ".PP\n\\fB", fp);
	pp_man_escape(fp, text, len, false);
	fputs(level == PP_MAN_LEVEL_SECTION ? "\n" : "\\fR\n", fp);
}

void pp_man_synopsis(FILE *fp, const char *const *usage)
{
	fputs(".nf\n", fp);
	for (size_t i = 0; usage && usage[i]; i++) {
		const char *line = usage[i];

		while (*line) {
			const char *eol = strchr(line, '\n');
			size_t len = eol ? (size_t)(eol - line) : strlen(line);
			size_t word = strcspn(line, " \n");

			if (line == usage[i] && word) {
				fputs("\\fB", fp);
				pp_man_escape(fp, line, word, true);
				fputs("\\fR", fp);
				pp_man_escape(fp, line + word, len - word, false);
			} else {
				pp_man_escape(fp, line, len, true);
			}
			fputc('\n', fp);
			line += len + (eol ? 1 : 0);
		}
	}
	fputs(".fi\n", fp);
}

static bool takes_arg(const struct pp_option *o)
{
	return o->type != PP_OPT_T_BOOL && o->type != PP_OPT_T_COUNT;
}

void pp_man_options(FILE *fp, const struct pp_option *opts, enum pp_man_level level)
{
	for (const struct pp_option *o = opts; o && o->type != PP_OPT_T_END; o++) {
		if (o->type == PP_OPT_T_INCLUDE) {
			pp_man_options(fp, o->include, level);
			continue;
		}
		if (o->type == PP_OPT_T_GROUP) {
			pp_man_heading(fp, o->help, strlen(o->help), level);
			continue;
		}
		if (o->flags & PP_OPT_HIDDEN)
			continue;
		fputs(".TP\n", fp);
		if (o->short_name) {
			char s[2] = { (char)o->short_name, 0 };

			fputs("\\fB\\-", fp);
			escape_str(fp, s, false);
			fputs(o->long_name ? "\\fR, " : "\\fR", fp);
		}
		if (o->long_name) {
			fputs("\\fB\\-\\-", fp);
			escape_str(fp, o->long_name, false);
			fputs("\\fR", fp);
		}
		if (takes_arg(o)) {
			fputs(o->flags & PP_OPT_OPTARG ? "[=\\fI" : " \\fI", fp);
			escape_str(fp, o->argh ? o->argh : "value", false);
			fputs(o->flags & PP_OPT_OPTARG ? "\\fR]" : "\\fR", fp);
		}
		fputc('\n', fp);
		escape_str(fp, o->help ? o->help : "", true);
		fputc('\n', fp);
	}
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

static size_t indent_of(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A heading: "Examples:" before an indented block, or a line in capitals ("EXAMPLES"). */
static bool is_heading(const char *s, size_t len, const char *next)
{
	bool upper = len >= 3, has_alpha = false;

	for (size_t i = 0; i < len; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			upper = false;
		has_alpha |= (s[i] >= 'A' && s[i] <= 'Z');
	}
	if (upper && has_alpha)
		return true;
	if (len > 40 || s[len - 1] != ':')
		return false;
	return !*next || *next == ' ' || *next == '\t' || *next == '\n';
}

void pp_man_text(FILE *fp, const char *text, enum pp_man_level level)
{
	bool in_pre = false, para = true;
	size_t base = 0;

	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *next = eol ? eol + 1 : p + len;

		if (blank(p, len)) {
			if (in_pre)
				fputs(".fi\n.RE\n", fp);
			in_pre = false;
			para = true;
		} else if (p[0] == ' ' || p[0] == '\t') {
			size_t ind = indent_of(p, len);

			if (!in_pre) {
				fputs(".PP\n.RS 4\n.nf\n", fp);
				base = ind;
				in_pre = true;
			}
			ind = ind < base ? ind : base;
			pp_man_escape(fp, p + ind, len - ind, true);
			fputc('\n', fp);
			para = false;
		} else if (is_heading(p, len, next)) {
			if (in_pre)
				fputs(".fi\n.RE\n", fp);
			in_pre = false;
			pp_man_heading(fp, p, len, level);
			para = level == PP_MAN_LEVEL_SUB;
		} else {
			if (in_pre)
				fputs(".fi\n.RE\n", fp);
			in_pre = false;
			if (para)
				fputs(".PP\n", fp);
			para = false;
			pp_man_escape(fp, p, len, true);
			fputc('\n', fp);
		}
		p = next;
	}
	if (in_pre)
		fputs(".fi\n.RE\n", fp);
}

bool pp_help_man(FILE *fp, int argc, const char **argv, const char *const *usage,
		 const struct pp_option *opts, const char *help)
{
	int part = argc == 1 ? pp_man_part(argv[0]) : 0;

	if (!part)
		return false;
	if (part == PP_MAN_ALL) {
		fputs(".PP\n", fp);
		pp_man_synopsis(fp, usage);
		pp_man_text(fp, help, PP_MAN_LEVEL_SUB);
		if (opts && opts->type != PP_OPT_T_GROUP)
			pp_man_heading(fp, "Options", 7, PP_MAN_LEVEL_SUB);
		pp_man_options(fp, opts, PP_MAN_LEVEL_SUB);
	} else if (part == PP_MAN_SYNOPSIS) {
		pp_man_synopsis(fp, usage);
	} else if (part == PP_MAN_DESCRIPTION) {
		pp_man_text(fp, help, PP_MAN_LEVEL_SECTION);
	} else {
		pp_man_options(fp, opts, PP_MAN_LEVEL_SECTION);
	}
	return true;
}
