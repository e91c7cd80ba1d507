/* SPDX-License-Identifier: MIT */
/*
 * expr-parse.c - recursive-descent parser of the expression language, emitting stack code.
 *
 * One function per C precedence level, from comma() down to primary().
 * Every nesting path (parentheses, unary operators, ?:, calls, subscripts)
 * goes through unary(), which counts the depth and refuses more than
 * EXPR_MAX_DEPTH, so hostile input cannot overflow the C stack.  Errors
 * longjmp back to pp_expr_compile(); everything allocated hangs off the
 * parser or the program, which the error path frees.
 * Not here: tokens (expr-lex.c), type rules and operators (expr-gen.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/expr-internal.h"
#include "common/log.h"
#include "common/units.h"

static const struct builtin {
	const char *name;
	uint8_t min_args, max_args;
	uint8_t str_args;	/* bit i: argument i must be a char * */
	struct expr_type ret;
} builtins[FN__COUNT] = {
	[FN_PRINTF] = { "printf", 1, 7, 1, { B_INT, false, 0 } },
	[FN_KSYMBOL] = { "ksymbol", 1, 1, 0, { B_CHAR, false, 1 } },
	[FN_NTOHL] = { "ntohl", 1, 1, 0, { B_INT, true, 0 } },
	[FN_NTOHS] = { "ntohs", 1, 1, 0, { B_SHORT, true, 0 } },
	[FN_STRNCMP] = { "strncmp", 3, 3, 3, { B_INT, false, 0 } },
	[FN_COMM_GET] = { "comm_get", 1, 1, 0, { B_CHAR, false, 1 } },
	[FN_SYSCALL_NAME] = { "syscall_name", 1, 1, 0, { B_CHAR, false, 1 } },
	[FN_EXIT_REASON_STR] = { "exit_reason_str", 2, 2, 0, { B_CHAR, false, 1 } },
	[FN_SYSTEM] = { "system", 1, 7, 1, { B_INT, false, 0 } },
};

const char *pp_expr_builtin_name(int fn)
{
	return fn >= 0 && fn < FN__COUNT ? builtins[fn].name : "?";
}

static struct expr_val comma(struct expr_parser *p);
static struct expr_val assign(struct expr_parser *p);
static struct expr_val cond(struct expr_parser *p);
static struct expr_val unary(struct expr_parser *p);

static void next(struct expr_parser *p)
{
	pp_expr_lex_next(p);
}

static void __attribute__((noreturn)) fail_unexpected(struct expr_parser *p,
							  const char *expected)
{
	int n = p->tok_end - p->tok_pos;
	const char *t = p->src + p->tok_pos;

	if (expected && p->tok == TK_EOF)
		pp_expr_fail(p, PP_ESYNTAX, p->tok_pos, "expected %s at the end", expected);
	if (expected)
		pp_expr_fail(p, PP_ESYNTAX, p->tok_pos, "expected %s before '%.*s'", expected, n, t);
	if (p->tok == TK_EOF)
		pp_expr_fail(p, PP_ESYNTAX, p->tok_pos, "unexpected end of expression");
	pp_expr_fail(p, PP_ESYNTAX, p->tok_pos, "unexpected '%.*s'", n, t);
}

static void expect(struct expr_parser *p, int tok, const char *what)
{
	if (p->tok != tok)
		fail_unexpected(p, what);
	next(p);
}

static void enter(struct expr_parser *p)
{
	if (++p->depth > EXPR_MAX_DEPTH)
		pp_expr_fail(p, PP_ERANGE, p->tok_pos, "expression nested too deeply");
}

static struct expr_val val_of(struct expr_type t)
{
	struct expr_val v = { .t = t };

	return v;
}

static void need_scalar(struct expr_parser *p, const struct expr_val *v, int pos)
{
	if (!v->t.ptr && v->t.base == B_VOID)
		pp_expr_fail(p, PP_ETYPE, pos, "void value not ignored");
}

static void need_integer(struct expr_parser *p, const struct expr_val *v, int pos,
			 const char *what)
{
	if (v->t.ptr || v->t.base == B_VOID || v->t.base == B_DOUBLE)
		pp_expr_fail(p, PP_ETYPE, pos, "%s needs an integer", what);
}

static int elem_base(uint32_t size)
{
	switch (size) {
	case 2: return B_SHORT;
	case 4: return B_INT;
	case 8: return B_LONG;
	default: return B_CHAR;
	}
}

/* @v, just loaded by the last instruction, is an lvalue loaded the @kind way. */
static void set_lvalue(struct expr_parser *p, struct expr_val *v, int kind)
{
	v->lv = (int8_t)kind;
	v->lv_at = p->e->nr_code - 1;
	v->lv_t = v->t;
	v->lv_cast = false;
}

static bool scalar_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* Remember a string field, so that its strings end where it ends. */
static void add_str_field(struct pp_expr *e, const struct pp_field *f)
{
	struct expr_str_field sf = { f->offset, f->is_data_loc ? 0 : f->size };

	for (unsigned i = 0; i < e->nr_str_fields; i++)
		if (e->str_fields[i].off == sf.off)
			return;
	if (e->nr_str_fields < EXPR_STR_FIELDS)
		e->str_fields[e->nr_str_fields++] = sf;
}

static struct expr_val field_val(struct expr_parser *p, const struct pp_field *f)
{
	struct expr_val v = { .lv = LV_NONE };
	uint32_t es = scalar_size(f->elem_size) ? f->elem_size : 1;

	p->e->flags |= PP_EXPR_USES_FIELDS;
	if (f->is_data_loc || f->is_array || f->is_string || !scalar_size(f->size)) {
		if (f->is_string) {
			v.t = expr_type_make(B_CHAR, false, 1);
			add_str_field(p->e, f);
		} else
			v.t = expr_type_make(elem_base(es), !f->is_signed, 1);
		pp_expr_emit(p, f->is_data_loc ? OP_LOC : OP_ADDR, f->offset, 0);
		v.arr_size = f->is_data_loc ? 0 : f->size;
		v.field = f;
		p->e->flags |= PP_EXPR_USES_ARRAY;
		return v;
	}
	if (f->is_pointer) {
		v.t = expr_type_make(elem_base(f->size), true, 0);
		pp_expr_emit_load(p, OP_LDRAW, f->offset, (int)f->size, false);
	} else {
		v.t = expr_type_make(elem_base(f->size), !f->is_signed, 0);
		pp_expr_emit_load(p, OP_LDRAW, f->offset, (int)f->size, f->is_signed);
	}
	set_lvalue(p, &v, LV_RAW);
	return v;
}

static bool name_is(const char *s, int n, const char *word)
{
	return (size_t)n == strlen(word) && !memcmp(s, word, (size_t)n);
}

static const struct pp_field *find_field(const struct expr_parser *p, const char *s, int n)
{
	for (size_t i = 0; i < p->env->nr_fields; i++)
		if (p->env->fields[i].name && name_is(s, n, p->env->fields[i].name))
			return &p->env->fields[i];
	return NULL;
}

static int find_builtin(const char *s, int n)
{
	for (int i = 0; i < FN__COUNT; i++)
		if (name_is(s, n, builtins[i].name))
			return i;
	return -1;
}

static const struct {
	const char *name;
	int op;
	struct expr_type t;
	unsigned only;			/* 0 or the env flag it needs */
} globals[] = {
	{ "_cpu", OP_CPU, { B_INT, false, 0 }, 0 },
	{ "_pid", OP_PID, { B_INT, false, 0 }, 0 },
	{ "_tid", OP_TID, { B_INT, false, 0 }, 0 },
	{ "_time", OP_TIME, { B_LONG, true, 0 }, 0 },
	{ "common_cpu", OP_CPU, { B_INT, false, 0 }, PP_EXPR_FILTER },
	{ "CPU", OP_CPU, { B_INT, false, 0 }, PP_EXPR_FILTER },
	{ "pid", OP_PID, { B_INT, false, 0 }, PP_EXPR_SAMPLE_NAMES },
	{ "tid", OP_TID, { B_INT, false, 0 }, PP_EXPR_SAMPLE_NAMES },
	{ "cpu", OP_CPU, { B_INT, false, 0 }, PP_EXPR_SAMPLE_NAMES },
};

/*
 * The name s[0, n) as a variable, field, global or __data_loc suffix: emits
 * its code into @v and returns true, or returns false if it is unknown.
 */
static bool resolve_name(struct expr_parser *p, const char *s, int n, struct expr_val *v,
			 bool emit)
{
	const struct pp_field *f;
	static const char *const suffix[] = { "_offset", "_len" };

	for (size_t i = 0; i < p->env->nr_vars; i++)
		if (p->env->vars[i] && name_is(s, n, p->env->vars[i])) {
			if (emit) {
				pp_expr_emit(p, OP_VAR, (uint32_t)i, 0);
				p->e->flags |= PP_EXPR_USES_VARS;
				*v = val_of(p->env->flags & PP_EXPR_DOUBLE ?
					    expr_type_make(B_DOUBLE, false, 0) :
					    expr_type_make(B_LONG, true, 0));
			}
			return true;
		}
	f = find_field(p, s, n);
	if (f) {
		if (emit)
			*v = field_val(p, f);
		return true;
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(globals); i++)
		if (name_is(s, n, globals[i].name) &&
		    (!globals[i].only || (p->env->flags & globals[i].only))) {
			if (emit) {
				pp_expr_emit(p, globals[i].op, 0, 0);
				*v = val_of(globals[i].t);
			}
			return true;
		}
	for (int k = 0; k < 2; k++) {
		int sl = (int)strlen(suffix[k]);

		if (n <= sl || memcmp(s + n - sl, suffix[k], (size_t)sl))
			continue;
		f = find_field(p, s, n - sl);
		if (!f || !f->is_data_loc)
			continue;
		if (emit) {
			p->e->flags |= PP_EXPR_USES_FIELDS;
			pp_expr_emit(p, k ? OP_LOCLEN : OP_LOCOFF, f->offset, 0);
			*v = val_of(expr_type_make(B_SHORT, true, 0));
		}
		return true;
	}
	return false;
}

static struct expr_val call(struct expr_parser *p, int fn, int pos)
{
	const struct builtin *b = &builtins[fn];
	struct expr_type types[EXPR_MAX_ARGS];
	int argpos[EXPR_MAX_ARGS];
	int nargs = 0;

	if (fn == FN_SYSTEM && !(p->env->flags & PP_EXPR_ALLOW_SYSTEM))
		pp_expr_fail(p, PP_EOFFLINE, pos,
			  "system() runs only live (pp ANALYZER): not when replaying a capture");
	next(p);	/* '(' */
	while (p->tok != ')') {
		struct expr_val a;

		if (nargs == EXPR_MAX_ARGS || nargs == b->max_args)
			pp_expr_fail(p, PP_ETYPE, p->tok_pos, "too many arguments to %s()", b->name);
		argpos[nargs] = p->tok_pos;
		a = assign(p);
		need_scalar(p, &a, argpos[nargs]);
		if (pp_expr_is_double(a.t))
			pp_expr_fail(p, PP_ETYPE, argpos[nargs], "argument %d of %s() is a double",
				     nargs + 1, b->name);
		types[nargs++] = a.t;
		if (p->tok != ',')
			break;
		next(p);
	}
	expect(p, ')', "')'");
	if (nargs < b->min_args)
		pp_expr_fail(p, PP_ETYPE, pos, "too few arguments to %s()", b->name);
	for (int i = 0; i < nargs; i++)
		if ((b->str_args & (1u << i)) && !pp_expr_is_str(types[i]))
			pp_expr_fail(p, PP_ETYPE, argpos[i], "argument %d of %s() must be a string",
				  i + 1, b->name);
	p->at = pos;
	pp_expr_emit(p, OP_CALL, (uint32_t)fn, nargs);
	if (fn == FN_PRINTF || fn == FN_SYSTEM)
		p->e->flags |= PP_EXPR_USES_PRINTF;
	else if (fn == FN_KSYMBOL || fn == FN_COMM_GET || fn == FN_SYSCALL_NAME)
		p->e->flags |= PP_EXPR_USES_CALLBACK;
	return val_of(b->ret);
}

static struct expr_val identifier(struct expr_parser *p)
{
	const char *s = p->src + p->tok_pos;
	int n = p->tok_end - p->tok_pos, pos = p->tok_pos, fn;
	struct expr_val v;

	if (pp_expr_type_word_find(p))
		pp_expr_fail(p, PP_ESYNTAX, pos, "unexpected type name '%.*s'", n, s);
	if ((p->env->flags & PP_EXPR_FILTER) && name_is(s, n, "CPUS"))
		pp_expr_fail(p, PP_ENOTSUP, pos, "CPUS{} is only supported as 'X & CPUS{list}'");
	next(p);
	p->at = pos;
	if (p->tok == '(') {
		fn = find_builtin(s, n);
		if (fn < 0)
			pp_expr_fail(p, PP_ESYNTAX, pos, "unknown function '%.*s'", n, s);
		return call(p, fn, pos);
	}
	if (!resolve_name(p, s, n, &v, true))
		pp_expr_fail(p, PP_EUNKNOWN_FIELD, pos, "unknown field '%.*s'", n, s);
	if (p->tok == '.' && (p->env->flags & PP_EXPR_FILTER))
		pp_expr_fail(p, PP_ENOTSUP, p->tok_pos,
			  "'%.*s%.*s' is not supported (no kernel memory in a capture)",
			  n, s, (int)strcspn(p->src + p->tok_pos, " \t\n=!<>&|)"),
			  p->src + p->tok_pos);
	return v;
}

static struct expr_val string_literal(struct expr_parser *p)
{
	struct pp_buf *b = &p->lit;	/* the parser's: next() may longjmp */
	struct expr_val v;
	uint32_t off;

	p->at = p->tok_pos;
	pp_buf_reset(b);
	while (p->tok == TK_STR) {
		pp_buf_add(b, p->str, p->str_len);
		next(p);
	}
	pp_buf_grow(b, 1);	/* the NUL */
	off = pp_expr_pool_add(p, b->data, (uint32_t)b->len + 1);
	v = val_of(expr_type_make(B_CHAR, false, 1));
	v.arr_size = (uint32_t)b->len + 1;
	pp_expr_emit(p, OP_STR, off, 0);
	return v;
}

static struct expr_val primary(struct expr_parser *p)
{
	struct expr_val v;

	p->at = p->tok_pos;
	switch (p->tok) {
	case TK_NUM:
		v = val_of(p->num_type);
		v.is_const = true;
		v.start = pp_expr_emit(p, OP_IMM, 0, p->num);
		p->e->code[v.start].nargs = pp_expr_is_double(v.t);	/* the listing shows it so */
		next(p);
		return v;
	case TK_STR:
		return string_literal(p);
	case TK_ID:
		return identifier(p);
	case '(':
		next(p);
		v = comma(p);
		expect(p, ')', "')'");
		return v;
	default:
		fail_unexpected(p, NULL);
	}
}

/* ++v or --v (@post false), v++ or v-- (@post true), the operator at @pos. */
static struct expr_val incdec(struct expr_parser *p, const struct expr_val *v, int tok, int pos,
			      bool post)
{
	if (!v->lv)
		pp_expr_fail(p, PP_ETYPE, pos, "bad lvalue in %s-%s", post ? "post" : "pre",
			  tok == TK_INC ? "increment" : "decrement");
	p->at = pos;
	return pp_expr_gen_incdec(p, v, tok, post);
}

/* a[i]: a bounds-checked element of an array field, or *(a + i). */
static struct expr_val subscript(struct expr_parser *p, struct expr_val v)
{
	struct pp_expr *e = p->e;
	int pos = p->tok_pos, ipos;
	const struct pp_field *f = NULL;
	struct expr_type et = v.t;
	struct expr_val i;
	int es;

	if (!pp_expr_is_ptr(&v))
		pp_expr_fail(p, PP_ETYPE, pos, "subscripted value is not an array or pointer");
	et.ptr--;
	if (!et.ptr && et.base == B_VOID)
		pp_expr_fail(p, PP_ETYPE, pos, "subscript of a void pointer");
	es = pp_expr_type_size(et);
	if (v.field && e->nr_code &&
	    (e->code[e->nr_code - 1].op == OP_ADDR || e->code[e->nr_code - 1].op == OP_LOC)) {
		f = v.field;	/* fuse: the index is checked against the field */
		e->nr_code--;
		p->sp--;
		pos = e->code_pos[e->nr_code];
	}
	next(p);
	ipos = p->tok_pos;
	i = comma(p);
	need_integer(p, &i, ipos, "an array index");
	expect(p, ']', "']'");
	p->at = pos;
	if (f && f->is_data_loc) {
		pp_expr_emit_load(p, OP_IDXLOC, f->offset, es, !et.uns && !et.ptr);
	} else if (f) {
		uint32_t idx = pp_expr_emit_load(p, OP_IDX, f->offset, es, !et.uns && !et.ptr);

		e->code[idx].imm = f->size / (uint32_t)es;
	} else {
		if (es != 1)
			pp_expr_emit(p, OP_MULI, 0, es);
		pp_expr_emit(p, OP_ADD, 0, 0);
		pp_expr_emit_load(p, OP_LD, 0, es, !et.uns && !et.ptr);
	}
	v = val_of(et);
	set_lvalue(p, &v, !f ? LV_MEM : f->is_data_loc ? LV_IDXLOC : LV_IDX);
	return v;
}

static struct expr_val postfix(struct expr_parser *p)
{
	struct expr_val v = primary(p);

	for (;;) {
		if (p->tok == '[') {
			v = subscript(p, v);
		} else if (p->tok == TK_INC || p->tok == TK_DEC) {
			v = incdec(p, &v, p->tok, p->tok_pos, true);
			next(p);
		} else if (p->tok == '(') {
			pp_expr_fail(p, PP_ETYPE, p->tok_pos, "called object is not a function");
		} else if (p->tok == '.' || p->tok == TK_ARROW) {
			pp_expr_fail(p, PP_ENOTSUP, p->tok_pos, "'%s' is not supported",
				  p->tok == '.' ? "." : "->");
		} else {
			return v;
		}
	}
}

static struct expr_val unary_op(struct expr_parser *p, int tok, int pos)
{
	struct expr_val v = unary(p), c = v;
	struct expr_type t = v.t;
	struct pp_expr *e = p->e;
	struct expr_insn *last = e->nr_code ? &e->code[e->nr_code - 1] : NULL;

	p->at = pos;
	switch (tok) {
	case '-': case '+':
		if (!pp_expr_is_double(v.t))
			goto integer;
		if (tok == '-')
			pp_expr_emit(p, OP_FNEG, 0, 0);
		v = val_of(t);
		if (c.is_const)
			pp_expr_fold(p, &v, c.start);
		return v;
	case '~':
	integer:
		need_integer(p, &v, pos, tok == '-' ? "unary '-'" : tok == '+' ? "unary '+'" :
			     "'~'");
		t = pp_expr_promote(v.t);
		if (tok != '+') {
			pp_expr_emit(p, tok == '-' ? OP_NEG : OP_BNOT, 0, 0);
			pp_expr_normalize(p, t);
		}
		v = val_of(t);
		if (c.is_const)
			pp_expr_fold(p, &v, c.start);
		return v;
	case '!':
		need_scalar(p, &v, pos);
		if (pp_expr_is_double(v.t))
			pp_expr_emit(p, OP_FBOOL, 0, 0);
		pp_expr_emit(p, OP_NOT, 0, 0);
		v = val_of(expr_type_make(B_INT, false, 0));
		v.is_bool = true;
		if (c.is_const)
			pp_expr_fold(p, &v, c.start);
		return v;
	case '*':
		if (!t.ptr)
			pp_expr_fail(p, PP_ETYPE, pos, "'*' needs a pointer");
		t.ptr--;
		if (!t.ptr && t.base == B_VOID)
			pp_expr_fail(p, PP_ETYPE, pos, "dereferencing a void pointer");
		pp_expr_emit_load(p, OP_LD, 0, pp_expr_type_size(t), !t.uns && !t.ptr);
		v = val_of(t);
		set_lvalue(p, &v, LV_MEM);
		return v;
	default:	/* '&' */
		if (v.field && v.arr_size) {
			v.field = NULL;
			return v;	/* &array: the same address */
		}
		if (v.lv_cast) {
			pp_expr_fail(p, PP_ETYPE, pos, "cannot take the address of this operand");
		} else if (v.lv == LV_RAW && last && last->op == OP_LDRAW) {
			last->op = OP_ADDR;
			last->size = last->sign = 0;
		} else if (v.lv == LV_MEM && last && last->op == OP_LD) {
			e->nr_code--;
		} else {
			pp_expr_fail(p, PP_ETYPE, pos, "cannot take the address of this operand");
		}
		t.ptr++;
		return val_of(t);
	}
}

static struct expr_val do_sizeof(struct expr_parser *p)
{
	struct pp_expr *e = p->e;
	int pos = p->tok_pos;
	uint32_t size;

	next(p);
	if (p->tok == '(' && pp_expr_paren_starts_type(p)) {
		next(p);
		struct expr_type t = pp_expr_parse_type(p);

		expect(p, ')', "')'");
		size = (uint32_t)pp_expr_type_size(t);
	} else {
		/* Compile the operand for its type only, then forget its code. */
		uint32_t nr = e->nr_code;
		unsigned flags = e->flags;
		int sp = p->sp;
		struct expr_val v = unary(p);

		size = v.arr_size ? v.arr_size : (uint32_t)pp_expr_type_size(v.t);
		e->nr_code = nr;
		e->flags = flags;
		p->sp = sp;
	}
	p->at = pos;
	struct expr_val v = val_of(expr_type_make(B_LONG, true, 0));

	v.is_const = true;
	v.start = pp_expr_emit(p, OP_IMM, 0, size);
	return v;
}

static struct expr_val unary(struct expr_parser *p)
{
	struct expr_val v;
	int tok = p->tok, pos = p->tok_pos;

	enter(p);
	if (tok == '-' || tok == '+' || tok == '!' || tok == '~' || tok == '*' || tok == '&') {
		next(p);
		v = unary_op(p, tok, pos);
	} else if (tok == TK_INC || tok == TK_DEC) {
		next(p);
		v = unary(p);
		v = incdec(p, &v, tok, pos, false);
	} else if (pp_expr_tok_is(p, "sizeof")) {
		v = do_sizeof(p);
	} else if (tok == '(' && pp_expr_paren_starts_type(p)) {
		next(p);
		struct expr_type t = pp_expr_parse_type(p);

		expect(p, ')', "')'");
		v = unary(p);
		if (t.base != B_VOID || t.ptr)
			need_scalar(p, &v, pos);
		if (t.ptr && pp_expr_is_double(v.t))
			pp_expr_fail(p, PP_ETYPE, pos, "a double cannot become a pointer");
		p->at = pos;
		pp_expr_convert(p, v.t, t);
		if (v.is_const) {
			struct expr_val c = v;

			v = val_of(t);
			pp_expr_fold(p, &v, c.start);
		} else if (v.lv && (t.ptr || t.base != B_VOID)) {
			/* perf-prof's cast as lvalue: (T)x = y stores (T)y into x */
			v.t = t;
			v.arr_size = 0;
			v.field = NULL;
			v.is_bool = false;
			v.lv_cast = true;
		} else {
			v = val_of(t);
		}
	} else {
		v = postfix(p);
	}
	p->depth--;
	return v;
}

/* Left-associative binary levels share one loop. */
typedef struct expr_val (*level_fn)(struct expr_parser *p);

static bool tok_in(int tok, const int *toks)
{
	for (; *toks; toks++)
		if (*toks == tok)
			return true;
	return false;
}

/*
 * In a filter, the right side of == != ~ after a string may be a bare word
 * (comm == bash, comm ~ pyth*) or single-quoted (comm == 'bash'), as the
 * kernel allows.  A bare word that names something stays a name.
 */
static void next_operand(struct expr_parser *p, int tok, const struct expr_val *l)
{
	int b, e, kind;
	struct expr_val unused;

	if ((p->env->flags & PP_EXPR_FILTER) && pp_expr_is_str(l->t) &&
	    (tok == TK_EQ || tok == TK_NE || tok == '~') &&
	    (kind = pp_expr_lex_peek_word(p, &b, &e))) {
		const char *s = p->src + b;

		if (kind == 2) {
			pp_expr_lex_take_word(p, b, e, e + 1);
			p->tok_pos = b - 1;
			return;
		}
		bool ident = !(s[0] >= '0' && s[0] <= '9');

		for (int i = b; i < e && ident; i++)
			ident = (p->src[i] >= 'a' && p->src[i] <= 'z') ||
				(p->src[i] >= 'A' && p->src[i] <= 'Z') ||
				(p->src[i] >= '0' && p->src[i] <= '9') || p->src[i] == '_';
		if (!ident || (!resolve_name(p, s, e - b, &unused, false) &&
			       find_builtin(s, e - b) < 0)) {
			pp_expr_lex_take_word(p, b, e, e);
			return;
		}
	}
	next(p);
}

static struct expr_val binary(struct expr_parser *p, level_fn sub, const int *toks)
{
	struct expr_val v = sub(p);

	while (tok_in(p->tok, toks)) {
		int tok = p->tok, pos = p->tok_pos;
		struct expr_val l = v, r;
		uint32_t hole;

		next_operand(p, tok, &v);
		hole = pp_expr_emit(p, OP_NOP, 0, 0);
		r = sub(p);
		pp_expr_gen_binop(p, tok, pos, &v, &r, hole);
		if (l.is_const && r.is_const)
			pp_expr_fold(p, &v, l.start);
	}
	return v;
}

static struct expr_val mul(struct expr_parser *p)
{
	static const int toks[] = { '*', '/', '%', 0 };

	return binary(p, unary, toks);
}

static struct expr_val add(struct expr_parser *p)
{
	static const int toks[] = { '+', '-', 0 };

	return binary(p, mul, toks);
}

static struct expr_val shift(struct expr_parser *p)
{
	static const int toks[] = { TK_SHL, TK_SHR, 0 };

	return binary(p, add, toks);
}

static struct expr_val relational(struct expr_parser *p)
{
	static const int toks[] = { '<', TK_LE, '>', TK_GE, '~', 0 };

	return binary(p, shift, toks);
}

static struct expr_val equality(struct expr_parser *p)
{
	static const int toks[] = { TK_EQ, TK_NE, 0 };

	return binary(p, relational, toks);
}

/* "X & CPUS{0-3,8}": X is a CPU number in the list. */
static void cpus_set(struct expr_parser *p, struct expr_val *v, int pos)
{
	const char *s = p->src;
	int b = p->cur + 1, e = b;
	uint8_t map[512] = { 0 };	/* CPUs 0..4095 */
	uint32_t nbits = 0, off;
	int *list = NULL;
	size_t nr = 0;
	char *text;
	int ret;

	need_integer(p, v, pos, "'& CPUS{}'");
	while (e < p->len && s[e] != '}')
		e++;
	if (e >= p->len)
		pp_expr_fail(p, PP_ESYNTAX, p->cur, "unterminated CPUS{");
	text = pp_xstrndup(s + b, (size_t)(e - b));
	ret = pp_parse_list(text, sizeof(map) * 8, &list, &nr);
	free(text);
	if (ret) {
		free(list);
		pp_expr_fail(p, PP_ESYNTAX, b, "invalid CPU list");
	}
	for (size_t i = 0; i < nr; i++) {
		map[list[i] / 8] |= (uint8_t)(1u << (list[i] % 8));
		if ((uint32_t)list[i] + 1 > nbits)
			nbits = (uint32_t)list[i] + 1;
	}
	free(list);
	off = pp_expr_pool_add(p, map, (nbits + 7) / 8);
	p->cur = e + 1;
	next(p);
	p->at = pos;
	pp_expr_emit(p, OP_CPUS, off, nbits);
	*v = val_of(expr_type_make(B_INT, false, 0));
}

static struct expr_val band(struct expr_parser *p)
{
	struct expr_val v = equality(p);

	while (p->tok == '&') {
		int pos = p->tok_pos;
		uint32_t hole;
		struct expr_val r;

		next(p);
		if ((p->env->flags & PP_EXPR_FILTER) && pp_expr_tok_is(p, "CPUS") &&
		    p->cur < p->len && p->src[p->cur] == '{') {
			cpus_set(p, &v, pos);
			continue;
		}
		hole = pp_expr_emit(p, OP_NOP, 0, 0);
		r = equality(p);
		if (v.is_const && r.is_const) {
			struct expr_val l = v;

			pp_expr_gen_binop(p, '&', pos, &v, &r, hole);
			pp_expr_fold(p, &v, l.start);
		} else {
			pp_expr_gen_binop(p, '&', pos, &v, &r, hole);
		}
	}
	return v;
}

static struct expr_val bxor(struct expr_parser *p)
{
	static const int toks[] = { '^', 0 };

	return binary(p, band, toks);
}

static struct expr_val bor(struct expr_parser *p)
{
	static const int toks[] = { '|', 0 };

	return binary(p, bxor, toks);
}

/*
 * && and ||: JZK/JNZK over the right side, with BOOLs so that the result is
 * 0 or 1 (not needed for a 0/1 operand, nor left of &&: it keeps only a 0).
 */
static struct expr_val logical(struct expr_parser *p, level_fn sub, int tok, int jop)
{
	struct expr_val v = sub(p);

	while (p->tok == tok) {
		int pos = p->tok_pos;
		uint32_t j;
		struct expr_val r;

		need_scalar(p, &v, pos);
		p->at = pos;
		if (pp_expr_is_double(v.t))
			pp_expr_emit(p, OP_FBOOL, 0, 0);	/* -0.0 is false, its bits are not 0 */
		else if (jop == OP_JNZK && !v.is_bool)
			pp_expr_emit(p, OP_BOOL, 0, 0);
		j = pp_expr_emit(p, jop, 0, 0);
		next(p);
		r = sub(p);
		need_scalar(p, &r, pos);
		p->at = pos;
		if (!r.is_bool)
			pp_expr_emit(p, pp_expr_is_double(r.t) ? OP_FBOOL : OP_BOOL, 0, 0);
		p->e->code[j].a = p->e->nr_code;
		v = val_of(expr_type_make(B_INT, false, 0));
		v.is_bool = true;
	}
	return v;
}

static struct expr_val land(struct expr_parser *p)
{
	return logical(p, bor, TK_LAND, OP_JZK);
}

static struct expr_val lor(struct expr_parser *p)
{
	return logical(p, land, TK_LOR, OP_JNZK);
}

static struct expr_val cond(struct expr_parser *p)
{
	struct expr_val v = lor(p), a, b;
	struct expr_type t;
	int pos = p->tok_pos, sp;
	uint32_t jz, jmp, hole;

	if (p->tok != '?')
		return v;
	need_scalar(p, &v, pos);
	enter(p);
	next(p);
	p->at = pos;
	if (pp_expr_is_double(v.t))
		pp_expr_emit(p, OP_FBOOL, 0, 0);
	jz = pp_expr_emit(p, OP_JZ, 0, 0);
	sp = p->sp;
	a = comma(p);
	hole = pp_expr_emit(p, OP_NOP, 0, 0);
	jmp = pp_expr_emit(p, OP_JMP, 0, 0);
	expect(p, ':', "':'");
	p->sp = sp;
	p->e->code[jz].a = p->e->nr_code;
	b = cond(p);
	if ((a.t.ptr || b.t.ptr) && (pp_expr_is_double(a.t) || pp_expr_is_double(b.t))) {
		pp_expr_fail(p, PP_ETYPE, pos, "'?:' of a pointer and a double");
	} else if (a.t.ptr || b.t.ptr) {
		t = a.t.ptr ? a.t : b.t;
	} else if (a.t.base == B_VOID || b.t.base == B_VOID) {
		t = expr_type_make(B_VOID, false, 0);
	} else {
		t = pp_expr_usual(pp_expr_promote(a.t), pp_expr_promote(b.t));
		pp_expr_patch_ext(p, hole, pp_expr_promote(a.t), t);
		pp_expr_convert(p, pp_expr_promote(b.t), t);
	}
	p->e->code[jmp].a = p->e->nr_code;
	p->depth--;
	return val_of(t);
}

/*
 * x = y, right to left: x's address is pushed before y is computed, and the
 * value is x's new value.  Nesting goes through here, not unary(), so the
 * depth is counted here too.
 */
static struct expr_val assign(struct expr_parser *p)
{
	struct expr_val v = cond(p), r;
	int pos = p->tok_pos, rpos;

	if (p->tok == TK_ASSIGN_OP)
		pp_expr_fail(p, PP_ENOTSUP, pos, "'%.*s' is not supported (as in perf-prof): "
			  "write x = x %.*s y", p->tok_end - pos, p->src + pos,
			  p->tok_end - pos - 1, p->src + pos);
	if (p->tok != '=')
		return v;
	if (!v.lv)
		pp_expr_fail(p, PP_ETYPE, pos, "bad lvalue in assignment");
	enter(p);
	pp_expr_lvalue_addr(p, &v);
	next(p);
	rpos = p->tok_pos;
	r = assign(p);
	need_scalar(p, &r, rpos);
	if (pp_expr_is_double(r.t) && v.t.ptr)
		pp_expr_fail(p, PP_ETYPE, rpos, "a double cannot become a pointer");
	p->at = pos;
	v = pp_expr_gen_assign(p, &v, &r);
	p->depth--;
	return v;
}

static struct expr_val comma(struct expr_parser *p)
{
	struct expr_val v = assign(p);

	while (p->tok == ',') {
		p->at = p->tok_pos;
		pp_expr_emit(p, OP_POP, 0, 0);
		next(p);
		v = assign(p);
		v.lv = LV_NONE;	/* (a, b) = 1 is not C */
	}
	return v;
}

static int compile(const char *text, const struct pp_expr_env *env, unsigned flags,
		   struct pp_expr **out, struct pp_parse_error *err)
{
	static const struct pp_expr_env no_env;
	struct expr_parser *const p = pp_xcalloc(1, sizeof(*p));
	struct pp_expr_env env2 = env ? *env : no_env;
	size_t len = strlen(text);
	int ret;

	*out = NULL;
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	env2.flags |= flags;
	p->src = text;
	p->len = (int)(len > EXPR_MAX_TEXT ? EXPR_MAX_TEXT : len);
	p->env = &env2;
	p->err = err;
	p->e = pp_xcalloc(1, sizeof(*p->e));
	if (setjmp(p->fail)) {
		ret = p->ret;
		pp_expr_free(p->e);
		pp_buf_release(&p->lit);
		free(p->str);
		free(p);
		return ret;
	}
	if (len > EXPR_MAX_TEXT)
		pp_expr_fail(p, PP_ERANGE, EXPR_MAX_TEXT, "expression too long");
	next(p);
	if (p->tok == TK_EOF)
		pp_expr_fail(p, PP_ESYNTAX, p->tok_pos, "empty expression");

	struct expr_val v = comma(p);

	if (p->tok != TK_EOF)
		fail_unexpected(p, NULL);
	p->e->type = v.t;
	p->at = p->len;
	pp_expr_finish(p);
	p->e->text = pp_xstrdup(text);
	*out = p->e;
	pp_buf_release(&p->lit);
	free(p->str);
	free(p);
	return 0;
}

int pp_expr_compile(const char *text, const struct pp_expr_env *env, struct pp_expr **out,
		    struct pp_parse_error *err)
{
	return compile(text, env, 0, out, err);
}

int pp_filter_compile(const char *text, const struct pp_expr_env *env, struct pp_expr **out,
		      struct pp_parse_error *err)
{
	return compile(text, env, PP_EXPR_FILTER, out, err);
}
