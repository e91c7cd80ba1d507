/* SPDX-License-Identifier: MIT */
/*
 * usdt-arg.h - one SDT argument spec ("-4@%edi", "8@-16(%rbp)") as a uprobe fetch argument.
 *
 * <sys/sdt.h> describes each probe argument as SIZE@OPERAND, SIZE being the byte size,
 * negative when signed, and OPERAND the assembler operand the compiler chose (AT&T syntax
 * on x86).  A uprobe reads registers by the kernel's names (%ax, %di, %r12) and memory as
 * +|-OFFSET(FETCHARG), so the translation renames registers, gives displacements a sign,
 * turns SIZE into a type (s32, u64) and PC-relative operands into @+FILE_OFFSET reads.
 * Operands a uprobe cannot express (scaled index, segment prefixes, the address of a
 * symbol as an immediate) are reported as unsupported, with the reason, and are skipped
 * by the caller, as perf does.  x86-64 and i386 operands only.
 * Not here: reading the notes (usdt.c), writing uprobe_events (record/cmd-usdt.c).
 */
#ifndef PP_RECORD_USDT_ARG_H
#define PP_RECORD_USDT_ARG_H

#include <stddef.h>
#include <stdint.h>

struct pp_buf;

/* The ELF address of symbol @name of the probed file; 0, or PP_ENOT_FOUND. */
typedef int (*rec_usdt_sym_fn)(void *arg, const char *name, uint64_t *vaddr);

/**
 * struct rec_usdt_argctx - what translating a PC-relative operand needs
 * @pc: the probe's ELF address (a "SYM+N(%rip)" operand is the memory at SYM+N: the
 *      assembler's text names the object, %rip only says the access is PC-relative)
 * @off: the probe's file offset (the kernel places @+OFFSET relative to the mapping of
 *       the probe: runtime = probe runtime address - @off + OFFSET)
 * @sym: resolves a symbol of the probed file, or NULL (symbol operands are then unsupported)
 * @sym_arg: its argument
 */
struct rec_usdt_argctx {
	uint64_t pc;
	uint64_t off;
	rec_usdt_sym_fn sym;
	void *sym_arg;
};

/**
 * rec_usdt_arg_fetch() - translate one SDT argument spec
 * @spec: "N@OP" or "OP" ("-4@%edi", "8@%rax", "-8@-16(%rbp)", "(%rdi)", "4@$5", "1@%ah",
 *        "8@counter+8(%rip)")
 * @ctx: for PC-relative operands (may be NULL: they are then unsupported)
 * @fetch: receives the fetch argument, appended, without type: "%di", "-16(%bp)",
 *         "+0(%di)", "\5", "@+0x4018"
 * @type: receives the type without colon ("s32", "u64", "b8@8/64"; "" when the spec has
 *        no size)
 * @type_sz: its size (16 is enough)
 * @why: receives the reason on failure ("scaled index (%rax,%rsi,8)")
 * @why_sz: its size
 *
 * Return: 0; PP_ENOTSUP for an operand uprobes cannot fetch (@fetch unchanged);
 * PP_ESYNTAX for a spec that is not SIZE@OPERAND at all.
 */
int rec_usdt_arg_fetch(const char *spec, const struct rec_usdt_argctx *ctx, struct pp_buf *fetch,
		       char *type, size_t type_sz, char *why, size_t why_sz);

#endif
