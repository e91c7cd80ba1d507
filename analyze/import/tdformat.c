/* SPDX-License-Identifier: MIT */
/*
 * tdformat.c - a tracefs format text written back from libtraceevent's parse of it.
 *
 * The field lines are the kernel's shape ("\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;"),
 * the common fields first and a blank line before the event's own.  libtraceevent keeps an
 * array's brackets on its type ("char[16]", name "comm"): they go back after the name, but a
 * __data_loc type keeps them where the kernel writes them ("__data_loc char[] name").  The
 * print fmt is the format string as parsed, then each argument printed from its tree; depth
 * is bounded (a hostile file's nesting is refused, never recursed without end).
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "analyze/import/tdformat.h"

#define ARG_DEPTH_MAX 64

static void field_line(struct pp_buf *out, const struct tep_format_field *f)
{
	const char *br = strchr(f->type, '[');

	if (br && !(f->flags & TEP_FIELD_IS_DYNAMIC))
		pp_buf_addf(out, "\tfield:%.*s %s%s;", (int)(br - f->type), f->type, f->name, br);
	else
		pp_buf_addf(out, "\tfield:%s %s;", f->type, f->name);
	pp_buf_addf(out, "\toffset:%d;\tsize:%d;\tsigned:%d;\n", f->offset, f->size,
		    (f->flags & TEP_FIELD_IS_SIGNED) ? 1 : 0);
}

static bool print_arg(struct pp_buf *out, const struct tep_print_arg *a, int depth);

/* The {value, "name"} pairs of __print_flags and __print_symbolic. */
static void flag_syms(struct pp_buf *out, const struct tep_print_flag_sym *fs)
{
	for (; fs; fs = fs->next)
		pp_buf_addf(out, ", { %s, \"%s\" }", fs->value ? fs->value : "0",
			    fs->str ? fs->str : "");
}

static bool print_call(struct pp_buf *out, const char *name, const struct tep_print_arg *a1,
		       const struct tep_print_arg *a2, const struct tep_print_arg *a3, int depth)
{
	bool ok;

	pp_buf_addf(out, "%s(", name);
	ok = print_arg(out, a1, depth);
	if (a2) {
		pp_buf_adds(out, ", ");
		ok = ok && print_arg(out, a2, depth);
	}
	if (a3) {
		pp_buf_adds(out, ", ");
		ok = ok && print_arg(out, a3, depth);
	}
	pp_buf_addch(out, ')');
	return ok;
}

/*
 * An atom is a number or a string literal, both without quotes in libtraceevent's tree:
 * what reads whole as a C number (or a character constant) goes back bare, the rest quoted.
 */
static void print_atom(struct pp_buf *out, const char *atom)
{
	char *end;

	if (*atom && (strtoull(atom, &end, 0), !*end))
		pp_buf_adds(out, atom);
	else if (*atom == '-' && atom[1] && (strtoull(atom + 1, &end, 0), !*end))
		pp_buf_adds(out, atom);
	else if (atom[0] == '\'' && strlen(atom) >= 3)
		pp_buf_adds(out, atom);
	else
		pp_buf_addf(out, "\"%s\"", atom);
}

static bool print_op(struct pp_buf *out, const struct tep_print_arg *a, int depth)
{
	const struct tep_print_arg *r = a->op.right;
	bool ok = true;

	if (!strcmp(a->op.op, "?")) {	/* c ? x : y: the right is the ":" op */
		if (!r || r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
			return false;
		pp_buf_addch(out, '(');
		ok = print_arg(out, a->op.left, depth);
		pp_buf_adds(out, " ? ");
		ok = ok && print_arg(out, r->op.left, depth);
		pp_buf_adds(out, " : ");
		ok = ok && print_arg(out, r->op.right, depth);
		pp_buf_addch(out, ')');
		return ok;
	}
	pp_buf_addch(out, '(');
	if (a->op.left) {
		ok = print_arg(out, a->op.left, depth);
		pp_buf_addf(out, " %s ", a->op.op);
	} else {
		pp_buf_adds(out, a->op.op);
	}
	if (a->op.op[0] == '[') {	/* REC->x[i]: libtraceevent's op is "[" alone */
		out->len -= 3;		/* " [ " */
		pp_buf_addch(out, '[');
		ok = ok && print_arg(out, a->op.right, depth);
		pp_buf_addch(out, ']');
	} else {
		ok = ok && print_arg(out, a->op.right, depth);
	}
	pp_buf_addch(out, ')');
	return ok;
}

/* __get_str(name) and its kin: a helper named by the argument's type, a field's name. */
static bool print_getter(struct pp_buf *out, const struct tep_print_arg *a)
{
	const char *helper, *name;

	switch (a->type) {
	case TEP_PRINT_STRING:
		helper = "__get_str", name = a->string.string;
		break;
	case TEP_PRINT_BITMASK:
		helper = "__get_bitmask", name = a->bitmask.bitmask;
		break;
	case TEP_PRINT_CPUMASK:
		helper = "__get_cpumask", name = a->bitmask.bitmask;
		break;
	case TEP_PRINT_DYNAMIC_ARRAY:
		helper = "__get_dynamic_array";
		name = a->dynarray.field ? a->dynarray.field->name : NULL;
		break;
	default:
		helper = "__get_dynamic_array_len";
		name = a->dynarray.field ? a->dynarray.field->name : NULL;
		break;
	}
	if (!name)
		return false;
	pp_buf_addf(out, "%s(%s)", helper, name);
	return true;
}

static bool print_arg(struct pp_buf *out, const struct tep_print_arg *a, int depth)
{
	if (!a || depth > ARG_DEPTH_MAX)
		return false;
	depth++;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		print_atom(out, a->atom.atom);
		return true;
	case TEP_PRINT_FIELD:
		pp_buf_addf(out, "REC->%s", a->field.name);
		return true;
	case TEP_PRINT_TYPE:
		pp_buf_addf(out, "(%s)", a->typecast.type);
		return print_arg(out, a->typecast.item, depth);
	case TEP_PRINT_FLAGS:
		pp_buf_adds(out, "__print_flags(");
		if (!print_arg(out, a->flags.field, depth))
			return false;
		pp_buf_addf(out, ", \"%s\"", a->flags.delim ? a->flags.delim : "");
		flag_syms(out, a->flags.flags);
		pp_buf_addch(out, ')');
		return true;
	case TEP_PRINT_SYMBOL:
		pp_buf_adds(out, "__print_symbolic(");
		if (!print_arg(out, a->symbol.field, depth))
			return false;
		flag_syms(out, a->symbol.symbols);
		pp_buf_addch(out, ')');
		return true;
	case TEP_PRINT_HEX:
		return print_call(out, "__print_hex", a->hex.field, a->hex.size, NULL, depth);
	case TEP_PRINT_HEX_STR:
		return print_call(out, "__print_hex_str", a->hex.field, a->hex.size, NULL, depth);
	case TEP_PRINT_INT_ARRAY:
		return print_call(out, "__print_array", a->int_array.field, a->int_array.count,
				  a->int_array.el_size, depth);
	case TEP_PRINT_BSTRING:
		pp_buf_addf(out, "\"%s\"", a->string.string);
		return true;
	case TEP_PRINT_STRING:
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return print_getter(out, a);
	case TEP_PRINT_OP:
		return a->op.op && print_op(out, a, depth);
	case TEP_PRINT_NULL:
	case TEP_PRINT_FUNC:
	default:
		return false;	/* a helper's name is not public: say nothing rather than guess */
	}
}

/* "print fmt: \"...\", ARG, ARG" or an empty print fmt when an argument cannot be said. */
static bool print_fmt(const struct tep_event *ev, struct pp_buf *out)
{
	size_t start = out->len;
	bool ok = ev->print_fmt.format != NULL;

	pp_buf_addf(out, "print fmt: \"%s\"", ok ? ev->print_fmt.format : "");
	for (const struct tep_print_arg *a = ev->print_fmt.args; a && ok; a = a->next) {
		pp_buf_adds(out, ", ");
		ok = print_arg(out, a, 0);
	}
	if (!ok) {
		out->len = start;
		pp_buf_adds(out, "print fmt: \"\"");
	}
	pp_buf_addch(out, '\n');
	return ok;
}

bool ana_td_format_text(const struct tep_event *ev, struct pp_buf *out)
{
	pp_buf_addf(out, "name: %s\nID: %d\nformat:\n", ev->name, ev->id);
	for (const struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		field_line(out, f);
	pp_buf_addch(out, '\n');
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next)
		field_line(out, f);
	pp_buf_addch(out, '\n');
	return print_fmt(ev, out);
}
