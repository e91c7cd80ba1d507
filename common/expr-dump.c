/* SPDX-License-Identifier: MIT */
/*
 * expr-dump.c - listings of compiled expressions (expr -v) and trace lines.
 *
 * Each instruction prints as "  12  LDRAW   off=24 size=4 signed   next_pid":
 * index, opcode, operands, then the source token it came from.
 * Not here: execution (expr-vm.c).
 */
#include <ctype.h>
#include <string.h>

#include "common/expr-internal.h"

static const char *const op_names[OP__COUNT] = {
	[OP_NOP] = "NOP", [OP_IMM] = "IMM", [OP_STR] = "STR", [OP_LDRAW] = "LDRAW",
	[OP_ADDR] = "ADDR", [OP_LOC] = "LOC", [OP_LOCOFF] = "LOCOFF", [OP_LOCLEN] = "LOCLEN",
	[OP_IDX] = "IDX", [OP_IDXLOC] = "IDXLOC", [OP_LD] = "LD", [OP_VAR] = "VAR",
	[OP_CPU] = "CPU", [OP_PID] = "PID", [OP_TID] = "TID", [OP_TIME] = "TIME",
	[OP_ADD] = "ADD", [OP_SUB] = "SUB", [OP_MUL] = "MUL", [OP_DIV] = "DIV",
	[OP_DIVU] = "DIVU", [OP_MOD] = "MOD", [OP_MODU] = "MODU", [OP_SHL] = "SHL",
	[OP_SHR] = "SHR", [OP_SHRU] = "SHRU", [OP_AND] = "AND", [OP_OR] = "OR",
	[OP_XOR] = "XOR", [OP_EQ] = "EQ", [OP_NE] = "NE", [OP_LT] = "LT", [OP_LTU] = "LTU",
	[OP_LE] = "LE", [OP_LEU] = "LEU", [OP_GT] = "GT", [OP_GTU] = "GTU", [OP_GE] = "GE",
	[OP_GEU] = "GEU", [OP_STREQ] = "STREQ", [OP_STRNE] = "STRNE", [OP_GLOB] = "GLOB",
	[OP_NEG] = "NEG", [OP_NOT] = "NOT", [OP_BNOT] = "BNOT", [OP_BOOL] = "BOOL",
	[OP_MULI] = "MULI", [OP_SEXT] = "SEXT", [OP_ZEXT] = "ZEXT", [OP_JMP] = "JMP",
	[OP_JZ] = "JZ", [OP_JZK] = "JZK", [OP_JNZK] = "JNZK", [OP_POP] = "POP",
	[OP_CPUS] = "CPUS", [OP_IDXADDR] = "IDXADDR", [OP_LOCADDR] = "LOCADDR", [OP_ST] = "ST",
	[OP_INC] = "INC", [OP_CALL] = "CALL", [OP_RET] = "RET",
	[OP_FADD] = "FADD", [OP_FSUB] = "FSUB", [OP_FMUL] = "FMUL", [OP_FDIV] = "FDIV",
	[OP_FNEG] = "FNEG", [OP_FEQ] = "FEQ", [OP_FNE] = "FNE", [OP_FLT] = "FLT",
	[OP_FLE] = "FLE", [OP_FGT] = "FGT", [OP_FGE] = "FGE", [OP_FBOOL] = "FBOOL",
	[OP_I2D] = "I2D", [OP_U2D] = "U2D", [OP_D2I] = "D2I",
};

const char *pp_expr_op_name(int op)
{
	return op >= 0 && op < OP__COUNT && op_names[op] ? op_names[op] : "?";
}

/* The source token at @pos: a word, a quoted literal, or an operator. */
static void add_token(struct pp_buf *out, const char *text, int pos)
{
	int len = (int)strlen(text), e = pos;

	if (pos < 0 || pos >= len)
		return;
	if (text[pos] == '"' || text[pos] == '\'') {
		for (e = pos + 1; e < len && text[e] != text[pos]; e++)
			if (text[e] == '\\' && e + 1 < len)
				e++;
		e = e < len ? e + 1 : len;
	} else if (isalnum((unsigned char)text[pos]) || text[pos] == '_') {
		while (e < len && (isalnum((unsigned char)text[e]) || text[e] == '_'))
			e++;
	} else {
		while (e < len && e < pos + 2 && strchr("<>=!&|+-", text[e]) && text[e])
			e++;
		if (e == pos)
			e = pos + 1;
	}
	if (e - pos > 40)
		e = pos + 40;
	pp_buf_addf(out, "  # %.*s", e - pos, text + pos);
}

void pp_expr_insn_print(const struct pp_expr *e, uint32_t i, struct pp_buf *out)
{
	const struct expr_insn *in = &e->code[i];
	const char *name = pp_expr_op_name(in->op);

	pp_buf_addf(out, "%4u  %-7s", i, name);
	switch (in->op) {
	case OP_IMM:
		if (in->nargs) {	/* a double's bits */
			double d;

			memcpy(&d, &in->imm, sizeof(d));
			pp_buf_addf(out, " %.17g", d);
		} else {
			pp_buf_addf(out, " %lld", (long long)in->imm);
		}
		break;
	case OP_STR:
		pp_buf_add_json_str(out, e->pool + in->a);
		break;
	case OP_LDRAW: case OP_IDX: case OP_IDXLOC: case OP_IDXADDR: case OP_LOCADDR:
		pp_buf_addf(out, " off=%u size=%u%s", in->a, in->size, in->sign ? " signed" : "");
		if (in->op == OP_IDX || in->op == OP_IDXADDR)
			pp_buf_addf(out, " n=%lld", (long long)in->imm);
		break;
	case OP_ADDR: case OP_LOC: case OP_LOCOFF: case OP_LOCLEN:
		pp_buf_addf(out, " off=%u", in->a);
		break;
	case OP_LD: case OP_SEXT: case OP_ZEXT: case OP_ST: case OP_D2I:
		pp_buf_addf(out, " size=%u%s", in->size,
			    (in->op == OP_LD || in->op == OP_ST || in->op == OP_D2I) && in->sign ?
			    " signed" : "");
		break;
	case OP_INC:	/* "size=4 signed +1 post", " as 8" through a cast */
		pp_buf_addf(out, " size=%u%s %+lld%s", in->size, in->sign ? " signed" : "",
			    (long long)in->imm, in->a & INC_POST ? " post" : "");
		if (in->nargs != in->size || !(in->a & INC_SIGNED) != !in->sign)
			pp_buf_addf(out, " as %u%s", in->nargs,
				    in->a & INC_SIGNED ? " signed" : "");
		break;
	case OP_VAR:
		pp_buf_addf(out, " #%u", in->a);
		break;
	case OP_MULI:
		pp_buf_addf(out, " %lld", (long long)in->imm);
		break;
	case OP_JMP: case OP_JZ: case OP_JZK: case OP_JNZK:
		pp_buf_addf(out, " -> %u", in->a);
		break;
	case OP_CPUS:
		pp_buf_addf(out, " bits=%lld", (long long)in->imm);
		break;
	case OP_CALL:
		pp_buf_addf(out, " %s/%u", pp_expr_builtin_name((int)in->a), in->nargs);
		break;
	default:
		break;
	}
	if (in->op != OP_RET && e->text && e->code_pos)
		add_token(out, e->text, e->code_pos[i]);
}

void pp_expr_dump(const struct pp_expr *e, struct pp_buf *out)
{
	pp_buf_addf(out, "; %s: %u instructions, stack %u, result %s\n", e->text ? e->text : "",
		    e->nr_code, e->max_stack, pp_expr_is_string(e) ? "char *" :
		    pp_expr_is_double(e->type) ? "double" : "long");
	for (uint32_t i = 0; i < e->nr_code; i++) {
		pp_expr_insn_print(e, i, out);
		pp_buf_addch(out, '\n');
	}
}
