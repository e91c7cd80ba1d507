/* SPDX-License-Identifier: MIT */
/*
 * symbolize-internal.h - what symbolize.c (tables, kernel, DSOs, JIT, demangling) and
 * symbolize-proc.c (per-process map history) share.  Not for use outside those two files.
 */
#ifndef PP_COMMON_SYMBOLIZE_INTERNAL_H
#define PP_COMMON_SYMBOLIZE_INTERNAL_H

#include "common/symbolize.h"

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char data[];
};

struct strmap_slot {
	const char *key;
	void *val;
	uint64_t hash;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, nr;		/* cap is 0 or a power of two */
};

struct sym_proc;

struct pidmap {
	struct sym_proc **slots;
	size_t cap, nr;
};

struct sym {
	uint64_t start, size;
	const char *name;	/* as stored */
	const char *dem;	/* demangled (or == name), NULL until first needed */
	const char *dso;	/* kernel: "[kernel.kallsyms]" / "[mod]"; NULL in DSOs */
	uint32_t seq;		/* insertion order, for a stable sort */
	uint8_t rank;		/* lower wins among symbols at one address */
};

struct symvec {
	struct sym *v;
	size_t nr, alloc;
	uint64_t *starts;	/* v[i].start once sorted: a dense array for the binary search */
	uint32_t gen;		/* bumped by every finalize: invalidates cached lookups */
	bool sorted;
};

/* Direct-mapped cache of recent lookups: stacks repeat the same return addresses a lot. */
#define SYM_CACHE_SZ 4096
struct sym_cache_ent {
	const struct symvec *sv;
	uint64_t addr;
	struct sym *s;		/* NULL: known miss */
	uint32_t gen;
};

struct pp_dso {
	struct pp_symtab *st;
	const char *path;
	const char *bid;	/* hex, "" when none */
	unsigned flags;
	uint64_t text_vaddr, text_offset;
	struct symvec syms;
};

struct pp_symtab {
	unsigned flags;
	struct pool_chunk *pool;
	struct strmap strings;		/* interned paths, build ids, module names */
	struct symvec ksyms;
	/*
	 * pp_symtab_ksyms_borrow(): another symtab's kernel table, read in place of ksyms
	 * until this one adds a kernel symbol of its own (then copied into ksyms).
	 */
	struct symvec *ksyms_lent;
	const char *last_mod, *last_mod_dso;
	const char *kernel_dso;		/* KERNEL_DSO interned, on the first kernel symbol */
	struct strmap dso_by_bid, dso_by_path;
	struct pp_dso **dsos;
	size_t nr_dsos, alloc_dsos;
	uint64_t dso_gen;		/* bumped by every new DSO */
	struct pidmap procs;
	struct sym_proc *last_proc;
	struct sym_cache_ent cache[SYM_CACHE_SZ];
	size_t mem;			/* bytes allocated for what was added (pp_symtab_mem()) */
};

#define KERNEL_DSO "[kernel.kallsyms]"

/* Interned copy of @s, owned by @st. */
const char *pp_symtab__intern(struct pp_symtab *st, const char *s);
/* @out receives 2 * @sz + 1 bytes of lowercase hex. */
void pp_symtab__bid_hex(const uint8_t *bid, size_t sz, char *out);
/* The symbol covering @addr (finalizing @sv first), or NULL. */
struct sym *pp_symtab__find(struct pp_symtab *st, struct symvec *sv, bool kernel, uint64_t addr);
/* Fill the symbol fields of @res from @s; false when @s is NULL. */
bool pp_symtab__fill(struct pp_symtab *st, struct sym *s, uint64_t addr, struct pp_sym_res *res);
/* The DSO a mapping of (@bid or NULL, @path) uses, or NULL. */
struct pp_dso *pp_symtab__dso_for(struct pp_symtab *st, const char *bid, const char *path);
/* Free every process of @st (symbolize-proc.c). */
void pp_symtab__procs_free(struct pp_symtab *st);

#endif
