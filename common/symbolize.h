/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - address -> symbol resolution from what a capture carries.
 *
 * struct pp_symtab holds the symbol world of one capture: kernel symbols (kallsyms
 * snapshot), the symbol tables of binaries (DSOs, stored once per build id), per-process
 * memory maps with their history, and JIT maps.  It never reads /proc or local files: the
 * caller feeds it records, in any order for symbols, in time order for maps where possible.
 *
 * Invariants: symbol tables are sorted and de-duplicated by a finalize step (run lazily by
 * the first lookup if the caller did not), lookups are binary searches; the live maps of a
 * process never overlap, and every replaced piece of a map moves to that process's history
 * with the time it stopped being valid, so lookup(pid, t, addr) answers for time t.
 * Strings returned in results are borrowed and live as long as the symtab.
 * Allocation failure is fatal (pp_xmalloc), as elsewhere in common/.  Not single-thread
 * safe for concurrent lookups (lookups fill caches).
 * Not here: reading ELF files (record/symbols/elfsyms.c) or capture records (format/).
 */
#ifndef PP_COMMON_SYMBOLIZE_H
#define PP_COMMON_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/limits.h"

struct pp_symtab;
struct pp_dso;

/* Bounds applied to untrusted input (a capture is a file from someone else): limits.h. */
#define PP_SYM_MAX_NAME PP_LIMIT_SYM_NAME	/* bytes in one symbol name or path */
#define PP_SYM_MAX_SYMS PP_LIMIT_SYMS		/* symbols in one DSO or in the kernel table */
#define PP_SYM_MAX_BUILD_ID PP_LIMIT_BUILD_ID	/* bytes of a build id */
#define PP_SYM_MAX_LIVE_MAPS PP_LIMIT_LIVE_MAPS	/* current mappings of one process */
#define PP_SYM_MAX_OLD_MAPS PP_LIMIT_OLD_MAPS	/* replaced mappings kept for one process */
#define PP_KSYM_TAIL_MAX 16384		/* size given to the last symbol of a module */

enum pp_symtab_flags {
	PP_SYMTAB_NO_DEMANGLE = 1 << 0,	/* report names as stored */
	PP_SYMTAB_NO_PARAMS = 1 << 1,	/* no parameters: "ns::f", not "ns::f(int)" */
};

enum pp_dso_flags {
	PP_DSO_JIT = 1 << 0,		/* symbols are absolute addresses (perf-PID.map) */
	PP_DSO_DEBUGINFO = 1 << 1,	/* symbols came from a separate debug file */
};

enum pp_symres_flags {
	PP_SYMR_KERNEL = 1 << 0,	/* a kernel address */
	PP_SYMR_MAPPED = 1 << 1,	/* inside a known mapping / kernel module range */
	PP_SYMR_DSO = 1 << 2,		/* the mapping's symbol table is known */
	PP_SYMR_JIT = 1 << 3,		/* resolved from a JIT map */
	PP_SYMR_FOUND = 1 << 4,		/* a symbol covers the address */
};

/**
 * struct pp_sym_res - the answer of a lookup; all pointers borrowed from the symtab
 * @name: symbol name, demangled unless the symtab says otherwise; NULL when unknown
 * @mangled: the name as stored; NULL when unknown
 * @sym_start: start of the symbol (kernel/JIT: absolute address; DSO: ELF vaddr)
 * @offset: address - symbol start (0 when unknown)
 * @dso: "[kernel.kallsyms]", "[ext4]", "/usr/lib/.../libc.so.6", "/tmp/perf-42.map";
 *       NULL when the address is in no known mapping (print "[unknown]")
 * @dso_off: user: file offset in @dso (addr - map start + pgoff); kernel and JIT: the address
 * @vaddr: user: ELF virtual address in the DSO when its table is known, else 0
 * @build_id: user: the build id (lowercase hex) of the mapping or of its DSO; NULL when
 *            unknown (kernel, JIT, anonymous memory, binaries without one)
 * @flags: PP_SYMR_*
 */
struct pp_sym_res {
	const char *name;
	const char *mangled;
	uint64_t sym_start;
	uint64_t offset;
	const char *dso;
	uint64_t dso_off;
	uint64_t vaddr;
	const char *build_id;
	unsigned flags;
};

/**
 * pp_symtab_new() - an empty symbol world
 * @flags: PP_SYMTAB_*
 * Return: the symtab (never NULL: OOM is fatal); the caller owns it, see pp_symtab_free().
 */
struct pp_symtab *pp_symtab_new(unsigned flags);

/** pp_symtab_free() - free the symtab, its DSOs and every string it returned; NULL is fine. */
void pp_symtab_free(struct pp_symtab *st);

/**
 * pp_symtab_mem() - bytes the symtab allocated for what was added to it: symbols, names,
 * paths, DSOs, processes and their maps (what a capture's side-band budget is charged;
 * limits.h).  Demangled names made by lookups are counted too; the fixed part is not.
 */
size_t pp_symtab_mem(const struct pp_symtab *st);

/* --- Kernel ---------------------------------------------------------------- */

/**
 * pp_symtab_ksym_add() - add one kallsyms entry, in any order
 * @st: the symtab
 * @addr: symbol address; 0 (a kptr_restrict'ed kallsyms) is ignored
 * @type: kallsyms type letter; 'U'/'u' (undefined) are ignored
 * @name: symbol name (copied)
 * @module: module name without brackets (copied); NULL or "" for vmlinux
 *
 * Return: 0, or -EINVAL / PP_ERANGE for an empty or oversized name or too many symbols.
 */
int pp_symtab_ksym_add(struct pp_symtab *st, uint64_t addr, char type, const char *name,
		       const char *module);

/**
 * pp_symtab_ksyms_finalize() - sort the kernel table and derive sizes and module ranges
 *
 * Each symbol extends to the next symbol's address; the last symbol of a module (or of
 * vmlinux) gets at most PP_KSYM_TAIL_MAX bytes.  At one address, a global text symbol wins
 * over a local one, then the first one added.  Safe to call again after more adds.
 */
void pp_symtab_ksyms_finalize(struct pp_symtab *st);

/**
 * pp_symtab_ksyms_lend() - make @st's kernel table readable by other threads' symtabs
 *
 * Finalizes it and fills in what lookups would otherwise write into it (the display
 * names).  From then on @st must not change its kernel table while a borrower uses it.
 */
void pp_symtab_ksyms_lend(struct pp_symtab *st);

/**
 * pp_symtab_ksyms_borrow() - resolve kernel addresses of @st with @owner's table
 * @owner: lent (pp_symtab_ksyms_lend()); must outlive @st
 * @mem: what @owner's kernel table counts in pp_symtab_mem(), charged to @st too
 *
 * For a parallel replay's parts: one table of tens of thousands of symbols, sorted once,
 * instead of one a part.  A later pp_symtab_ksym_add() on @st copies the table first.
 */
void pp_symtab_ksyms_borrow(struct pp_symtab *st, struct pp_symtab *owner, size_t mem);

/**
 * pp_symtab_lookup_kernel() - resolve a kernel address
 * @res: filled in every case; @res->dso is "[kernel.kallsyms]" unless the address is in a
 *       module's range ("[modname]")
 * Return: true when a symbol covers @addr.
 */
bool pp_symtab_lookup_kernel(struct pp_symtab *st, uint64_t addr, struct pp_sym_res *res);

/* --- DSOs (binaries and JIT maps) ------------------------------------------ */

/**
 * pp_symtab_dso_get() - find or create the DSO for a build id and/or path
 * @st: the symtab
 * @build_id: raw build-id bytes, or NULL
 * @build_id_sz: its length (0 when none), at most PP_SYM_MAX_BUILD_ID
 * @path: the binary's path, or NULL (at least one of @build_id and @path is needed)
 * @flags: PP_DSO_* for a new DSO
 * @out: receives the DSO, owned by @st
 *
 * A DSO is keyed by its build id when it has one, else by path; a mapping finds it by the
 * same rules (a DSO without build id also serves mappings of its path that have one).
 * Return: 0 when created, 1 when it already existed (its symbols may already be loaded),
 * -EINVAL or PP_ERANGE for bad arguments.
 */
int pp_symtab_dso_get(struct pp_symtab *st, const uint8_t *build_id, size_t build_id_sz,
		      const char *path, unsigned flags, struct pp_dso **out);

/**
 * pp_dso_sym_add() - add a symbol, in any order
 * @d: the DSO
 * @start: ELF virtual address (absolute address for PP_DSO_JIT)
 * @size: size in bytes; 0 means "up to the next symbol"
 * @name: the name as in the file, mangled (copied)
 * Return: 0, -EINVAL for an empty name, PP_ERANGE for an oversized name, a wrapping range or
 * too many symbols.
 */
int pp_dso_sym_add(struct pp_dso *d, uint64_t start, uint64_t size, const char *name);

/**
 * pp_dso_set_text() - how file offsets map to ELF vaddrs
 * @text_vaddr: the vaddr of the executable PT_LOAD segment
 * @text_offset: its file offset
 *
 * A file offset o maps to vaddr o - @text_offset + @text_vaddr.  Defaults to (0, 0).
 */
void pp_dso_set_text(struct pp_dso *d, uint64_t text_vaddr, uint64_t text_offset);

/**
 * pp_dso_finalize() - sort the table, drop duplicates, size zero-size symbols
 *
 * Among symbols at one address, a sized one wins, then the one with fewer leading
 * underscores, then the first added.  A zero-size symbol extends to the next one; the last
 * one then matches its start only.
 * Lookups finalize lazily; calling it explicitly after the loading phase keeps the first
 * lookup fast.  Safe to call again after more adds.
 */
void pp_dso_finalize(struct pp_dso *d);

/**
 * pp_dso_lookup() - resolve an ELF vaddr (absolute address for a JIT DSO) in one DSO
 * @res: name/mangled/sym_start/offset/flags filled in; dso fields set to this DSO
 * Return: true when a symbol covers @vaddr.
 */
bool pp_dso_lookup(struct pp_dso *d, uint64_t vaddr, struct pp_sym_res *res);

/** pp_dso_path() - the DSO's path ("" if created from a build id alone); borrowed. */
const char *pp_dso_path(const struct pp_dso *d);

/** pp_dso_build_id() - the build id as lowercase hex, "" when none; borrowed. */
const char *pp_dso_build_id(const struct pp_dso *d);

/** pp_dso_nr_syms() - symbols in the table (after de-duplication once finalized). */
size_t pp_dso_nr_syms(const struct pp_dso *d);

/* --- Processes ------------------------------------------------------------- */

/**
 * pp_symtab_map_add() - a mapping appears in process @pid at @time_ns
 * @pid: the process (tgid)
 * @time_ns: when; use 0 for the snapshot taken at the start of the capture
 * @addr, @len: the range [addr, addr + len)
 * @pgoff: file offset of @addr
 * @path: file path, "//anon", "[heap]" ... (copied; NULL is "")
 * @build_id, @build_id_sz: the kernel's build id for the file, or NULL/0
 *
 * Whatever the new range covers in the live maps is moved to the history, valid until
 * @time_ns; the rest of a partly covered mapping stays live.  A mapping added with a time
 * older than a live mapping it overlaps only goes to the history (valid until that newer
 * mapping appeared).
 * Return: 0, PP_ERANGE for an empty or wrapping range, an oversized build id or path, or
 * too many mappings in the process.
 */
int pp_symtab_map_add(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
		      uint64_t len, uint64_t pgoff, const char *path, const uint8_t *build_id,
		      size_t build_id_sz);

/**
 * pp_symtab_task_fork() - process @pid is created by @ppid at @time_ns
 *
 * The child starts with the parent's mappings valid at @time_ns.  A fork that creates a
 * thread (@pid == @ppid) is a no-op; a reused @pid first loses its old mappings.
 */
void pp_symtab_task_fork(struct pp_symtab *st, uint32_t ppid, uint32_t pid, uint64_t time_ns);

/**
 * pp_symtab_task_exec() - process @pid execs at @time_ns: its mappings end there
 *
 * Until the first mapping added after the new image's "[vdso]" (the last one execve
 * makes), an address in no live mapping resolves in the image the exec replaced: a sample
 * taken inside execve still has the old image's user pc.
 */
void pp_symtab_task_exec(struct pp_symtab *st, uint32_t pid, uint64_t time_ns);

/**
 * pp_symtab_task_exit() - process @pid exits at @time_ns
 *
 * The mappings stay: late samples of the process still resolve; a later fork or exec that
 * reuses the pid ends them.
 */
void pp_symtab_task_exit(struct pp_symtab *st, uint32_t pid, uint64_t time_ns);

/**
 * pp_symtab_jit_attach() - use @jit (a PP_DSO_JIT DSO of @st) for process @pid
 *
 * JIT symbols are tried before the mappings; a second attach replaces the first.
 */
void pp_symtab_jit_attach(struct pp_symtab *st, uint32_t pid, struct pp_dso *jit);

/**
 * pp_symtab_jitmap_parse() - load perf-PID.map text for @pid
 * @text, @len: lines "START SIZE name" (hex, optional 0x), need not be NUL-terminated
 *
 * Creates (or extends) the JIT DSO "/tmp/perf-PID.map" and attaches it to @pid; malformed
 * lines are skipped.
 * Return: the number of symbols added.
 */
ssize_t pp_symtab_jitmap_parse(struct pp_symtab *st, uint32_t pid, const char *text, size_t len);

/**
 * pp_sym_jitmap_pid() - the pid in a JIT map path ".../perf-1234.map"
 * Return: true and *@pid set when @path has that shape.
 */
bool pp_sym_jitmap_pid(const char *path, uint32_t *pid);

/**
 * pp_symtab_lookup_user() - resolve a user address of @pid at @time_ns
 * @res: filled in every case: with no mapping, @res->dso is NULL; with a mapping but no
 *       symbol, @res->dso and @res->dso_off say where the address is
 * Return: true when a symbol covers @addr.
 */
bool pp_symtab_lookup_user(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
			   struct pp_sym_res *res);

#define PP_FRAME_ID_WORDS 11

/**
 * pp_symtab_frame_id() - what resolving address @addr depends on, to cache its answer by
 * @st: the table
 * @pid: the process of a user address
 * @time_ns: when
 * @addr: the address
 * @kernel: a kernel address (pp_symtab_lookup_kernel()), else a user one of @pid
 * @id: receives the kernel table, or the mapping (path, build id, start, offset), its
 *      binary and that binary's table, each with how many symbols it holds and its
 *      generation, and @addr: two lookups with the same @id give the same answer
 * Return: false when there is no such identity (no mapping, no binary, a JIT map).
 */
bool pp_symtab_frame_id(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
			bool kernel, uint64_t id[PP_FRAME_ID_WORDS]);

/**
 * pp_symtab_user_dso() - the binary mapped at user address @addr of @pid at @time_ns
 * @vaddr: receives the ELF virtual address of @addr in it
 * Return: the DSO (its table known; JIT maps excluded), or NULL.
 */
struct pp_dso *pp_symtab_user_dso(struct pp_symtab *st, uint32_t pid, uint64_t time_ns,
				  uint64_t addr, uint64_t *vaddr);

/**
 * pp_symtab_lookup() - resolve any address: kernel when its top bit is set (x86-64, arm64
 * layouts), else user of @pid at @time_ns
 * Return: as pp_symtab_lookup_kernel() / pp_symtab_lookup_user().
 */
bool pp_symtab_lookup(struct pp_symtab *st, uint32_t pid, uint64_t time_ns, uint64_t addr,
		      struct pp_sym_res *res);

/* --- Demangling ------------------------------------------------------------ */

/**
 * pp_sym_demangle_dup() - demangle a C++ (Itanium) or Rust (legacy or v0) symbol
 * @mangled: a symbol name; a "@..." version/plt suffix is kept after the demangled part
 * @params: include parameter lists and qualifiers
 * Return: a new string owned by the caller (free()), or NULL when @mangled is not a
 * mangled name or does not demangle.
 */
char *pp_sym_demangle_dup(const char *mangled, bool params);

#endif
