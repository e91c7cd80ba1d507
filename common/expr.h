/* SPDX-License-Identifier: MIT */
/*
 * expr.h - perf-prof's expression language and event filters, compiled once, run per event.
 *
 * An expression ("key=", "top-by=", "exec=", a filter ...) is compiled against
 * a description of the event's fields (struct pp_field, filled by the caller
 * from a tracepoint format; no libtraceevent here, pp-record links this) into
 * a small stack-machine program.  pp_expr_eval() runs it on one raw record
 * with no heap allocation.  Raw records come from untrusted files: every read
 * is checked against the record size, and a read that does not fit yields 0
 * (or "" for a string) and counts a fault, never an out-of-bounds access.
 *
 * The language (PERF-PROF-REFERENCE §3.4) is a C subset:
 *  - types char short int long (64 bit) signed/unsigned, u8..u64, s8..s64,
 *    void, pointers; casts; sizeof; C integer promotions and conversions
 *    (int arithmetic wraps at 32 bits); shift counts are taken modulo 64;
 *    x / 0 and x % 0 are 0;
 *  - operators: postfix [] () ++ -- › prefix ++ -- + - ! ~ * & (type) sizeof ›
 *    * / % › + - › << >> › < <= > >= and '~' (glob match: * ? [abc] [a-z] [!x]
 *    [^x]) › == != (strcmp when both sides are char *) › & › ^ › | › && › || ›
 *    ?: › = (right to left) › , (the value of the last operand);
 *  - assignment, perf-prof's: a field, an element of an array field, or *p
 *    (and a cast of one: (T)x = y stores (T)y into x) can be assigned or
 *    incremented; what the rest of the expression then reads, printf()
 *    included, is the new value.  The program runs on a copy of the record
 *    (at most EXPR_COPY_MAX, 64 KiB, of it), so the caller's record never
 *    changes and every evaluation starts from the event as recorded; a store
 *    outside the copy (a string constant, a callback's string, a made-up
 *    address, past a record cut short) writes nothing and counts a fault, and
 *    ++/-- there give 0.  As in C, x = y and ++x give x's new value, x++ its
 *    old one, each of x's type (perf-prof gives y unconverted: the results
 *    differ only when y does not fit x).  _cpu, _pid, _tid, _time and caller
 *    variables cannot be assigned;
 *  - literals: 12 0x1f 017 (suffixes u l), 'c', "str" (escapes \n \t \r \0
 *    \\ \' \" \xHH \ooo; adjacent literals concatenate); comments # and //
 *    to the end of the line, and C comments; with PP_EXPR_DOUBLE (below)
 *    decimal constants too (1.10 2e-3);
 *  - names, looked up in this order: caller variables (struct pp_expr_env
 *    vars, type unsigned long; double with PP_EXPR_DOUBLE), event fields,
 *    _cpu _pid _tid (int), _time (unsigned long, ns), then <f>_offset and
 *    <f>_len (unsigned short) for a __data_loc field <f>.  Fixed arrays (char comm[16]) and __data_loc
 *    fields are arrays: indexable (bounds-checked against the field), they
 *    decay to pointers, and char arrays are strings.  Pointer fields
 *    (void *ptr) are unsigned long values: the kernel memory they point to
 *    is not there to read.  A string inside the record ends at the end of
 *    its char[N] field or of its __data_loc data, even without a NUL;
 *  - built-ins: printf(fmt, <=6 args) to pp_expr_ctx.out (conversions d i u
 *    x X o c s p with flags, width, precision and h/l modifiers; others are
 *    printed as written), ksymbol(addr), ntohl(x), ntohs(x) (unsigned
 *    results), strncmp(s1, s2, n), comm_get(pid), syscall_name(id),
 *    exit_reason_str(isa, val) (1 VMX, 2 SVM, 3 ARM), and system(fmt, ...)
 *    only with PP_EXPR_ALLOW_SYSTEM.
 * Not supported (a compile error): compound assignment (+= -= ..., which
 * perf-prof does not have either), '.' and '->' (with PP_EXPR_DOTTED_NAMES a
 * dot between two words is part of a name), user-defined variables,
 * floating point but PP_EXPR_DOUBLE's.  Pointer values are process
 * addresses of the record (or of its copy) or of string constants and are
 * only meaningful inside one evaluation.
 */
#ifndef PP_COMMON_EXPR_H
#define PP_COMMON_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/selector.h"

/* One field of an event, from its format description. */
struct pp_field {
	const char *name;
	uint32_t offset;	/* in the raw record */
	uint32_t size;		/* bytes (the whole array for arrays, 4 for __data_loc) */
	uint32_t elem_size;	/* arrays and __data_loc: one element; else = size */
	bool is_signed;
	bool is_array;		/* fixed array: type name[N] */
	bool is_string;		/* char[N] or __data_loc char[] */
	bool is_data_loc;	/* u32 at @offset holds (len << 16 | offset) of the data */
	bool is_pointer;	/* void *, struct x *: read as unsigned long */
};

/* The compile environment: what names an expression may use. */
struct pp_expr_env {
	const struct pp_field *fields;
	size_t nr_fields;
	const char *const *vars;	/* caller variables ("key", "period") */
	size_t nr_vars;			/* values in pp_expr_ctx.vars, same order */
	unsigned flags;			/* PP_EXPR_* */
};

enum pp_expr_env_flags {
	PP_EXPR_ALLOW_SYSTEM = 1 << 0,	/* allow system(); the default refuses it */
	PP_EXPR_FILTER = 1 << 1,	/* kernel filter syntax too (pp_filter_compile sets it) */
	/*
	 * An event without fields (cpu-clock, page-faults: an analyzer source):
	 * pid, tid and cpu name its sample's, as perf-prof's -k pid keys them
	 */
	PP_EXPR_SAMPLE_NAMES = 1 << 2,
	/*
	 * A name may hold dots between its words ("before.p99"): one identifier,
	 * for caller variables named so (pp-analyze diff's --fail-if)
	 */
	PP_EXPR_DOTTED_NAMES = 1 << 3,
	/*
	 * Caller variables are doubles (vars[i] holds a double's bits:
	 * memcpy), and so are decimal constants (1.10, 2e-3): + - * / unary -,
	 * comparisons, ! && || ?: and casts to integer types take doubles, C's
	 * conversions mixing them with integers; % << >> & | ^ ~, indexes,
	 * pointers and built-in arguments refuse them.  A double cast to an
	 * integer is truncated, NaN gives 0 and out-of-range values clamp.
	 */
	PP_EXPR_DOUBLE = 1 << 4,
};

/* What a compiled expression uses, from pp_expr_flags(). */
enum pp_expr_use {
	PP_EXPR_USES_FIELDS = 1 << 0,	/* reads the raw record */
	PP_EXPR_USES_ARRAY = 1 << 1,	/* an array or string field */
	PP_EXPR_USES_PRINTF = 1 << 2,	/* printf or system: has side effects */
	PP_EXPR_USES_CALLBACK = 1 << 3,	/* ksymbol, comm_get or syscall_name */
	PP_EXPR_USES_VARS = 1 << 4,	/* a caller variable */
	PP_EXPR_USES_ASSIGN = 1 << 5,	/* =, ++ or --: runs on a copy of the record */
};

/*
 * Answers for the built-ins that need the outside world.  A NULL hook, or a
 * NULL answer, gives a NULL char * (an empty string to string operators).
 * Returned strings must stay valid until pp_expr_eval() returns.
 */
struct pp_expr_ops {
	const char *(*ksymbol)(void *priv, uint64_t addr);
	const char *(*comm_get)(void *priv, int pid);
	const char *(*syscall_name)(void *priv, int id);
};

/*
 * The runtime context of one evaluation.  Fill it once, then update the
 * per-event members (raw .. time_ns) for each event.
 */
struct pp_expr_ctx {
	const void *raw;		/* the tracepoint's raw data (PERF_SAMPLE_RAW) */
	uint32_t raw_sz;
	int cpu, pid, tid;		/* _cpu, _pid, _tid */
	uint64_t time_ns;		/* _time */
	const uint64_t *vars;		/* values of pp_expr_env.vars */
	FILE *out;			/* printf() output; NULL: stdout */
	const struct pp_expr_ops *ops;	/* may be NULL */
	void *priv;			/* passed to @ops */
	unsigned long nr_faults;	/* incremented for each read outside the record */
};

struct pp_expr;

/**
 * pp_expr_compile() - compile an expression for one event type
 * @text: the expression
 * @env: its fields and variables (borrowed during the call only)
 * @out: receives the program
 * @err: receives the byte offset in @text and a message on failure
 *
 * Return: 0, or PP_ESYNTAX, PP_EUNKNOWN_FIELD ("unknown field 'x'"),
 * PP_ETYPE ("bad lvalue in assignment", ...), PP_ENOTSUP (+=, ...),
 * PP_EOFFLINE (system()) or PP_ERANGE (a literal or the program too large).
 * Free with pp_expr_free().
 */
int pp_expr_compile(const char *text, const struct pp_expr_env *env, struct pp_expr **out,
		    struct pp_parse_error *err);

/** pp_expr_free() - free a program (NULL is fine). */
void pp_expr_free(struct pp_expr *e);

/**
 * pp_expr_eval() - run a program on one event
 * @e: the program (not modified: one program may run in several threads)
 * @ctx: the event and the runtime hooks; only @ctx->nr_faults is written
 *	(an assigning program writes its own copy of @ctx->raw, on the stack)
 *
 * Allocates nothing (printf() writes through stdio).
 * Return: the value as a long (a char * result is a process address; see
 * pp_expr_eval_str()).
 */
int64_t pp_expr_eval(const struct pp_expr *e, struct pp_expr_ctx *ctx);

/**
 * pp_expr_eval_str() - run a char * program and copy the string out
 * @e: a program for which pp_expr_is_string() is true
 * @ctx: as for pp_expr_eval()
 * @buf: receives the string, truncated to @sz - 1 bytes and NUL-terminated
 * @sz: size of @buf, > 0
 *
 * Return: 0 (a NULL or invalid pointer gives ""), or PP_ETYPE when the
 * expression is not a char *.
 */
int pp_expr_eval_str(const struct pp_expr *e, struct pp_expr_ctx *ctx, char *buf, size_t sz);

/**
 * pp_expr_eval_num() - pp_expr_eval() as a double: a double program's value, or
 * an integer program's converted with its signedness
 */
double pp_expr_eval_num(const struct pp_expr *e, struct pp_expr_ctx *ctx);

/** pp_expr_is_string() - whether the expression's type is char * (for comm=EXPR). */
bool pp_expr_is_string(const struct pp_expr *e);

/** pp_expr_flags() - what the expression uses, a mask of enum pp_expr_use. */
unsigned pp_expr_flags(const struct pp_expr *e);

/**
 * pp_expr_dump() - append a listing of the compiled program to @out (expr -v)
 *
 * One instruction per line: index, opcode, operands, and the source token.
 */
void pp_expr_dump(const struct pp_expr *e, struct pp_buf *out);

/**
 * pp_expr_eval_trace() - pp_expr_eval() that appends each executed
 * instruction and the top of the stack after it to @trace (debugging; this
 * one allocates).
 * Return: as pp_expr_eval().
 */
int64_t pp_expr_eval_trace(const struct pp_expr *e, struct pp_expr_ctx *ctx,
			   struct pp_buf *trace);

/**
 * pp_field_find() - the field called @name in @fields, or NULL
 * Return: borrowed from @fields.
 */
const struct pp_field *pp_field_find(const struct pp_field *fields, size_t nr, const char *name);

/**
 * pp_filter_compile() - compile an event filter (non-zero result = keep)
 * @text: kernel trace-event filter syntax or an expression, or a mix
 * @env: as for pp_expr_compile(); PP_EXPR_FILTER is added
 * @out, @err: as for pp_expr_compile()
 *
 * On top of the expression language this accepts unquoted and single-quoted
 * strings on the right of == != ~ when the left side is a string
 * (comm == bash, comm ~ pyth*, comm == 'a b'), "X & CPUS{0-3,8}" (X is a
 * CPU number in the list), and
 * common_cpu / CPU for _cpu when the event has no such field.
 * "field.function" and "field.ustring" fail with PP_ENOTSUP.
 * Return: as pp_expr_compile().
 */
int pp_filter_compile(const char *text, const struct pp_expr_env *env, struct pp_expr **out,
		      struct pp_parse_error *err);

/** pp_filter_match() - whether the event in @ctx passes filter @f. */
static inline bool pp_filter_match(const struct pp_expr *f, struct pp_expr_ctx *ctx)
{
	return pp_expr_eval(f, ctx) != 0;
}

/**
 * pp_filter_from_comms() - append a filter matching any of @comms to @out
 * @field: the field to test ("comm", "next_comm")
 *
 * Gives `comm == "java" || comm ~ "pyth*"`: '~' for names with * ? or [.
 * '"' and '\' in a name are escaped with '\' (the kernel may reject those).
 */
void pp_filter_from_comms(struct pp_buf *out, const char *field, const char *const *comms,
			  size_t nr);

/**
 * pp_filter_from_comm_list() - pp_filter_from_comms() for a comma-separated @list
 * ("java,pyth*", --filter's form); empty names are skipped, any number of names
 */
void pp_filter_from_comm_list(struct pp_buf *out, const char *field, const char *list);

/**
 * pp_filter_from_pids() - append a filter matching any of @pids to @out
 * @field: the field to test ("pid", "common_pid")
 *
 * Gives `pid==1 || (pid>=3&&pid<=5)`: sorted, duplicates dropped, runs of
 * consecutive pids merged into ranges.  Nothing is appended when @nr is 0.
 */
void pp_filter_from_pids(struct pp_buf *out, const char *field, const int *pids, size_t nr);

/**
 * pp_exit_reason_str() - name of a VM exit reason
 * @isa: 1 VMX (basic reason, low 16 bits), 2 SVM (exit code), 3 ARM (ESR class)
 * @val: the reason
 *
 * Return: a static string such as "EPT_VIOLATION" or "npf", or NULL if unknown.
 */
const char *pp_exit_reason_str(int isa, uint64_t val);

#endif
