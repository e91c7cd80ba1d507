/* SPDX-License-Identifier: MIT */
/*
 * test-symbolize.c - pp_symtab on synthetic kernel tables, DSOs, map histories, JIT maps.
 *
 * The map-history test checks the symtab against a brute-force model: the mapping valid at
 * (t, addr) is the last one added at or before t that covers addr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/log.h"
#include "common/symbolize.h"
#include "tests/unit/unit.h"

#define KBASE 0xffffffff81000000ull
#define MBASE 0xffffffffc0000000ull

/* The kernel address @addr resolves in @st to the symbol @name. */
static void want_ksym(struct pp_symtab *st, uint64_t addr, const char *name)
{
	struct pp_sym_res r;

	CU_ASSERT_FATAL(pp_symtab_lookup_kernel(st, addr, &r));
	CU_ASSERT_STRING_EQUAL(r.name, name);
}

static void test_symbolize__kernel(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;

	/* any order, duplicates, ignored entries */
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x200, 't', "do_thing", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 'T', "schedule", ""), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 't', "__schedule_alias", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE, 'T', "_stext", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, MBASE + 0x40, 't', "ext4_sync", "ext4"), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, MBASE, 't', "ext4_init", "ext4"), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, MBASE + 0x100000, 't', "xfs_fn", "xfs"), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, 0, 'T', "restricted", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x300, 'U', "undef", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x300, 'T', "", NULL), -EINVAL);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x300, 'T', NULL, NULL), -EINVAL);
	pp_symtab_ksyms_finalize(st);

	CU_ASSERT(pp_symtab_lookup_kernel(st, KBASE + 0x123, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "schedule");
	CU_ASSERT_EQUAL(r.offset, 0x23);
	CU_ASSERT_STRING_EQUAL(r.dso, "[kernel.kallsyms]");
	CU_ASSERT(r.flags & PP_SYMR_KERNEL);
	CU_ASSERT(pp_symtab_lookup(st, 1, 0, KBASE + 0x200, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "do_thing");
	CU_ASSERT_EQUAL(r.offset, 0);
	/* the last vmlinux symbol gets a bounded tail */
	CU_ASSERT(pp_symtab_lookup_kernel(st, KBASE + 0x200 + PP_KSYM_TAIL_MAX - 1, &r));
	CU_ASSERT(!pp_symtab_lookup_kernel(st, KBASE + 0x200 + PP_KSYM_TAIL_MAX, &r));
	CU_ASSERT_PTR_NULL(r.name);
	CU_ASSERT_STRING_EQUAL(r.dso, "[kernel.kallsyms]");
	CU_ASSERT(!pp_symtab_lookup_kernel(st, KBASE - 1, &r));
	/* modules */
	CU_ASSERT(pp_symtab_lookup_kernel(st, MBASE + 0x44, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "ext4_sync");
	CU_ASSERT_STRING_EQUAL(r.dso, "[ext4]");
	CU_ASSERT_EQUAL(r.offset, 4);
	want_ksym(st, MBASE + 0x10, "ext4_init");
	CU_ASSERT(!pp_symtab_lookup_kernel(st, MBASE + 0x40 + PP_KSYM_TAIL_MAX, &r));
	CU_ASSERT(pp_symtab_lookup_kernel(st, MBASE + 0x100008, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "[xfs]");
	/* adding after finalize re-sorts lazily */
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x180, 't', "late_fn", NULL), 0);
	want_ksym(st, KBASE + 0x190, "late_fn");
	want_ksym(st, KBASE + 0x170, "schedule");
	pp_symtab_free(st);
	pp_symtab_free(NULL);
}

/* A borrowed kernel table answers as the owner's; an add makes it the borrower's own. */
static void test_symbolize__ksyms_lent(void)
{
	struct pp_symtab *own = pp_symtab_new(0), *a = pp_symtab_new(0), *b = pp_symtab_new(0);
	struct pp_sym_res r, o;

	CU_ASSERT_EQUAL(pp_symtab_ksym_add(own, KBASE + 0x100, 'T', "schedule", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(own, KBASE, 'T', "_stext", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(own, MBASE, 't', "ext4_init", "ext4"), 0);
	size_t mem = pp_symtab_mem(own);
	pp_symtab_ksyms_lend(own);
	pp_symtab_ksyms_borrow(a, own, mem);
	pp_symtab_ksyms_borrow(b, own, mem);
	/* what it is charged for the side-band budget */
	CU_ASSERT(pp_symtab_mem(a) >= mem);
	for (uint64_t addr = KBASE - 8; addr < KBASE + 0x200; addr += 8) {
		bool fo = pp_symtab_lookup_kernel(own, addr, &o);
		CU_ASSERT_EQUAL(pp_symtab_lookup_kernel(a, addr, &r), fo);
		CU_ASSERT(!fo || (!strcmp(r.name, o.name) && r.offset == o.offset));
	}
	CU_ASSERT(pp_symtab_lookup_kernel(a, MBASE + 4, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "[ext4]");
	/* the owner's names, not copies: one table */
	CU_ASSERT(pp_symtab_lookup_kernel(own, KBASE + 0x104, &o));
	CU_ASSERT(pp_symtab_lookup_kernel(a, KBASE + 0x104, &r));
	CU_ASSERT_PTR_EQUAL(r.name, o.name);
	/* a borrower that adds: its own copy with the new symbol; the owner and b unchanged */
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(a, KBASE + 0x180, 't', "late_fn", NULL), 0);
	want_ksym(a, KBASE + 0x190, "late_fn");
	want_ksym(a, KBASE + 0x110, "schedule");
	want_ksym(b, KBASE + 0x190, "schedule");
	want_ksym(own, KBASE + 0x190, "schedule");
	pp_symtab_free(a);
	pp_symtab_free(b);
	CU_ASSERT(pp_symtab_lookup_kernel(own, KBASE + 0x100, &o));
	pp_symtab_free(own);
}

static const uint8_t BID_A[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };
static const uint8_t BID_B[20] = { 0xca, 0xfe, 0xba, 0xbe, 9 };

/* libfoo: text at vaddr 0x401000 = file offset 0x1000 */
static struct pp_dso *make_libfoo(struct pp_symtab *st)
{
	struct pp_dso *d;

	CU_ASSERT_EQUAL(pp_symtab_dso_get(st, BID_A, sizeof(BID_A), "/usr/lib/libfoo.so", 0, &d),
			0);
	pp_dso_set_text(d, 0x401000, 0x1000);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401200, 0x100, "_ZN3foo3barEi"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401000, 0x80, "foo_init"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401100, 0, "foo_nosize"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401000, 0x80, "foo_init_alias"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401400, 0x40,
				       "_ZN4core3fmt9Formatter3pad17h0123456789abcdefE"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401500, 0x40, "_RNvCs1234_7mycrate3foo"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401600, 0x10, "_Z3bazv@plt"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401700, 0x10, "__libc_malloc"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401700, 0x10, "malloc"), 0);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x401700, 0, "_malloc_nosize"), 0);
	return d;
}

static void test_symbolize__dso_and_maps(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	const uint64_t base = 0x7f0000000000ull;
	struct pp_sym_res r;
	struct pp_dso *d, *d2;

	/* the mapping arrives before the DSO: resolved once the DSO exists */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 100, 0, base, 0x10000, 0, "/usr/lib/libfoo.so",
					  BID_A, sizeof(BID_A)), 0);
	CU_ASSERT(!pp_symtab_lookup_user(st, 100, 5, base + 0x1210, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "/usr/lib/libfoo.so");
	CU_ASSERT_EQUAL(r.dso_off, 0x1210);
	CU_ASSERT_PTR_NULL(r.name);
	CU_ASSERT(r.flags & PP_SYMR_MAPPED);
	CU_ASSERT(!(r.flags & PP_SYMR_DSO));

	d = make_libfoo(st);
	CU_ASSERT_EQUAL(pp_symtab_dso_get(st, BID_A, sizeof(BID_A), NULL, 0, &d2), 1);
	CU_ASSERT_PTR_EQUAL(d, d2);
	CU_ASSERT_STRING_EQUAL(pp_dso_build_id(d), "deadbeef01020300000000000000000000000000");
	pp_dso_finalize(d);
	CU_ASSERT_EQUAL(pp_dso_nr_syms(d), 7);

	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x1210, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "foo::bar(int)");
	CU_ASSERT_STRING_EQUAL(r.mangled, "_ZN3foo3barEi");
	CU_ASSERT_EQUAL(r.offset, 0x10);
	CU_ASSERT_EQUAL(r.vaddr, 0x401210);
	CU_ASSERT_EQUAL(r.sym_start, 0x401200);
	CU_ASSERT_EQUAL(r.flags & (PP_SYMR_FOUND | PP_SYMR_DSO), PP_SYMR_FOUND | PP_SYMR_DSO);
	CU_ASSERT(pp_symtab_lookup(st, 100, 5, base + 0x1000, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "foo_init");
	/* zero-size symbol extends to the next one */
	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x11ff, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "foo_nosize");
	/* gap after a sized symbol */
	CU_ASSERT(!pp_symtab_lookup_user(st, 100, 5, base + 0x1090, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "/usr/lib/libfoo.so");
	CU_ASSERT_EQUAL(r.dso_off, 0x1090);
	/* Rust legacy and v0, plt suffix */
	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x1410, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "core::fmt::Formatter::pad");
	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x1500, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "mycrate::foo");
	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x1601, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "baz()@plt");
	CU_ASSERT(pp_symtab_lookup_user(st, 100, 5, base + 0x1708, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "malloc");	/* the alias with fewer underscores */

	/* unknown pid, unmapped address, mapping of another build at the same path */
	CU_ASSERT(!pp_symtab_lookup_user(st, 999, 5, base + 0x1210, &r));
	CU_ASSERT_PTR_NULL(r.dso);
	CU_ASSERT(!pp_symtab_lookup_user(st, 100, 5, base - 1, &r));
	CU_ASSERT_PTR_NULL(r.dso);
	CU_ASSERT_EQUAL(r.flags, 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 101, 0, base, 0x10000, 0, "/usr/lib/libfoo.so",
					  BID_B, sizeof(BID_B)), 0);
	CU_ASSERT(!pp_symtab_lookup_user(st, 101, 5, base + 0x1210, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "/usr/lib/libfoo.so");
	/* a mapping without build id finds the DSO by path */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 102, 0, base, 0x10000, 0, "/usr/lib/libfoo.so",
					  NULL, 0), 0);
	CU_ASSERT(pp_symtab_lookup_user(st, 102, 5, base + 0x1210, &r));
	/* an anonymous mapping */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 102, 0, 0x1000, 0x1000, 0, NULL, NULL, 0), 0);
	CU_ASSERT(!pp_symtab_lookup_user(st, 102, 5, 0x1800, &r));
	CU_ASSERT_STRING_EQUAL(r.dso, "//anon");

	/* bad input */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 1, 0, 0x1000, 0, 0, "x", NULL, 0), PP_ERANGE);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 1, 0, UINT64_MAX - 5, 0x10, 0, "x", NULL, 0),
			PP_ERANGE);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 1, 0, 0x1000, 0x10, 0, "x", BID_A, 65), PP_ERANGE);
	CU_ASSERT_EQUAL(pp_symtab_dso_get(st, NULL, 0, NULL, 0, &d2), -EINVAL);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, UINT64_MAX - 4, 0x10, "wrap"), PP_ERANGE);
	CU_ASSERT_EQUAL(pp_dso_sym_add(d, 0x10, 0x10, ""), -EINVAL);
	pp_symtab_free(st);
}

/* The user address @addr of @pid at @t is in the mapping of @dso (NULL: in none). */
static void want_dso(struct pp_symtab *st, uint32_t pid, uint64_t t, uint64_t addr,
		     const char *dso)
{
	struct pp_sym_res r;

	pp_symtab_lookup_user(st, pid, t, addr, &r);
	if (!dso) {
		CU_ASSERT_PTR_NULL(r.dso);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.dso);
	CU_ASSERT_STRING_EQUAL(r.dso, dso);
}

static void test_symbolize__replaced_maps(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;

	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 7, 0, 0x1000, 0x4000, 0x100000, "A", NULL, 0), 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 7, 10, 0x2000, 0x1000, 0, "B", NULL, 0), 0);
	pp_symtab_lookup_user(st, 7, 5, 0x2800, &r);
	CU_ASSERT_STRING_EQUAL(r.dso, "A");
	CU_ASSERT_EQUAL(r.dso_off, 0x101800);
	pp_symtab_lookup_user(st, 7, 11, 0x2800, &r);
	CU_ASSERT_STRING_EQUAL(r.dso, "B");
	CU_ASSERT_EQUAL(r.dso_off, 0x800);
	want_dso(st, 7, 11, 0x1800, "A");
	pp_symtab_lookup_user(st, 7, 11, 0x4800, &r);	/* right remainder keeps its pgoff */
	CU_ASSERT_STRING_EQUAL(r.dso, "A");
	CU_ASSERT_EQUAL(r.dso_off, 0x103800);
	/* a third mapping covering everything at t=20 */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 7, 20, 0x0, 0x10000, 0, "C", NULL, 0), 0);
	want_dso(st, 7, 15, 0x2800, "B");
	want_dso(st, 7, 15, 0x4800, "A");
	want_dso(st, 7, 25, 0x2800, "C");
	/* a huge reservation, partly replaced: its old pieces are still found by time */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 9, 0, 1ull << 40, 1ull << 36, 0, "[heap-res]", NULL,
					  0), 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 9, 10, (1ull << 40) + 0x1000, 0x1000, 0, "F", NULL,
					  0), 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 9, 20, 1ull << 40, 1ull << 36, 0, "G", NULL, 0), 0);
	pp_symtab_lookup_user(st, 9, 5, (1ull << 40) + (1ull << 35), &r);
	CU_ASSERT_STRING_EQUAL(r.dso, "[heap-res]");
	CU_ASSERT_EQUAL(r.dso_off, 1ull << 35);
	want_dso(st, 9, 15, (1ull << 40) + 0x1800, "F");
	want_dso(st, 9, 15, (1ull << 40) + 0x2800, "[heap-res]");
	want_dso(st, 9, 25, (1ull << 40) + 0x1800, "G");
	pp_symtab_task_fork(st, 9, 19, 15);
	want_dso(st, 19, 16, (1ull << 40) + 0x2800, "[heap-res]");
	/* before anything was mapped */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 8, 50, 0x1000, 0x1000, 0, "D", NULL, 0), 0);
	want_dso(st, 8, 40, 0x1800, NULL);
	/* out of order: an older mapping under a newer one only lands in the history */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 8, 30, 0x1000, 0x1000, 0, "E", NULL, 0), 0);
	want_dso(st, 8, 40, 0x1800, "E");
	want_dso(st, 8, 60, 0x1800, "D");
	pp_symtab_free(st);
}

static void test_symbolize__fork_exec(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;

	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 10, 0, 0x1000, 0x1000, 0, "/bin/sh", NULL, 0), 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 10, 50, 0x1000, 0x1000, 0, "/bin/sh2", NULL, 0), 0);
	pp_symtab_task_fork(st, 10, 10, 60);		/* a thread: nothing changes */
	pp_symtab_task_fork(st, 10, 11, 40);		/* sees the mapping valid at 40 */
	pp_symtab_task_fork(st, 10, 12, 100);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 10, 200, 0x8000, 0x1000, 0, "/lib/late.so", NULL, 0),
			0);
	want_dso(st, 11, 45, 0x1800, "/bin/sh");
	want_dso(st, 12, 150, 0x1800, "/bin/sh2");
	want_dso(st, 12, 250, 0x8800, NULL);		/* the parent's later mmap is not inherited */
	want_dso(st, 10, 250, 0x8800, "/lib/late.so");
	pp_symtab_task_fork(st, 999, 13, 100);		/* unknown parent */
	CU_ASSERT(!pp_symtab_lookup_user(st, 13, 150, 0x1800, &r));
	CU_ASSERT_PTR_NULL(r.dso);

	/*
	 * exec ends the maps; the new image maps again.  Until the first mapping after its
	 * vDSO, an address in no new mapping is the old image's (a pc in execve): at any
	 * lookup time.
	 */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 12, 120, 0x3000, 0x1000, 0, "/lib/libc", NULL, 0),
			0);
	pp_symtab_task_exec(st, 12, 300);
	want_dso(st, 12, 301, 0x1800, "/bin/sh2");
	want_dso(st, 12, 299, 0x1800, "/bin/sh2");
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 12, 302, 0x1000, 0x1000, 0, "/bin/ls", NULL, 0), 0);
	want_dso(st, 12, 303, 0x1800, "/bin/ls");
	want_dso(st, 12, 303, 0x3800, "/lib/libc");
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 12, 304, 0x9000, 0x1000, 0, "[vdso]", NULL, 0), 0);
	want_dso(st, 12, 305, 0x3800, "/lib/libc");	/* the stack is filled after it */
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 12, 310, 0x5000, 0x1000, 0, "/lib/ld", NULL, 0), 0);
	want_dso(st, 12, 309, 0x3800, "/lib/libc");
	want_dso(st, 12, 310, 0x3800, NULL);		/* the new image's own mapping */
	want_dso(st, 12, 315, 0x3800, NULL);
	/* a second exec: its own window, the first one's answers unchanged */
	pp_symtab_task_exec(st, 12, 320);
	want_dso(st, 12, 321, 0x1800, "/bin/ls");
	want_dso(st, 12, 321, 0x3800, NULL);		/* ls had no libc */
	want_dso(st, 12, 321, 0x5800, "/lib/ld");
	want_dso(st, 12, 303, 0x3800, "/lib/libc");
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 12, 330, 0x1000, 0x1000, 0, "/bin/cat", NULL, 0), 0);
	want_dso(st, 12, 331, 0x1800, "/bin/cat");
	want_dso(st, 12, 302, 0x1800, "/bin/ls");
	/* exit keeps the maps for late samples; pid reuse by a fork replaces them */
	pp_symtab_task_exit(st, 12, 400);
	want_dso(st, 12, 401, 0x1800, "/bin/cat");
	want_dso(st, 12, 401, 0x5800, "/lib/ld");	/* cat's exec is not over */
	pp_symtab_task_fork(st, 11, 12, 500);
	want_dso(st, 12, 501, 0x1800, "/bin/sh");
	want_dso(st, 12, 450, 0x1800, "/bin/cat");
	want_dso(st, 12, 501, 0x5800, NULL);		/* the fork ended the exec's window */
	/*
	 * A hostile capture's execs: at time 0 (nothing before it) and older than the last one
	 * (out of order) open no window; the answers stay as they were.
	 */
	pp_symtab_task_exec(st, 14, 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 14, 5, 0x6000, 0x1000, 0, "/bin/a", NULL, 0), 0);
	want_dso(st, 14, 6, 0x6800, "/bin/a");
	want_dso(st, 14, 6, 0x7800, NULL);
	pp_symtab_task_exec(st, 14, 50);
	want_dso(st, 14, 60, 0x6800, "/bin/a");		/* inside the window of 50 */
	pp_symtab_task_exec(st, 14, 40);			/* out of order: no window of its own */
	want_dso(st, 14, 45, 0x6800, "/bin/a");		/* still valid at 45: no exec before 50 */
	want_dso(st, 14, 60, 0x6800, "/bin/a");
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 14, 70, 0x9000, 0x1000, 0, "[vdso]", NULL, 0), 0);
	CU_ASSERT_EQUAL(pp_symtab_map_add(st, 14, 80, 0xa000, 0x1000, 0, "/lib/c", NULL, 0), 0);
	want_dso(st, 14, 79, 0x6800, "/bin/a");
	want_dso(st, 14, 80, 0x6800, NULL);
	pp_symtab_task_exec(st, 999, 90);			/* a process nothing knows: nothing */
	CU_ASSERT(!pp_symtab_lookup_user(st, 999, 91, 0x6800, &r));
	pp_symtab_free(st);
}

static void test_symbolize__jit(void)
{
	static const char text[] =
		"7f0000001000 40 LazyCompile:~main app.js:1\n"
		"0x7f0000002000 0x20 Builtin:Call\r\n"
		"garbage line\n"
		"7f0000003000 zz bad size\n"
		"7f0000004000 10\n"
		"11111111111111111111 10 too_long_addr\n"
		"7f0000005000 8 last_no_newline";
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;
	uint32_t pid;

	CU_ASSERT_EQUAL(pp_symtab_jitmap_parse(st, 77, text, sizeof(text) - 1), 3);
	CU_ASSERT(pp_symtab_lookup_user(st, 77, 0, 0x7f0000001010, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "LazyCompile:~main app.js:1");
	CU_ASSERT_STRING_EQUAL(r.dso, "/tmp/perf-77.map");
	CU_ASSERT_EQUAL(r.offset, 0x10);
	CU_ASSERT(r.flags & PP_SYMR_JIT);
	CU_ASSERT(pp_symtab_lookup_user(st, 77, 0, 0x7f0000002000, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "Builtin:Call");
	CU_ASSERT(pp_symtab_lookup_user(st, 77, 0, 0x7f0000005007, &r));
	CU_ASSERT(!pp_symtab_lookup_user(st, 77, 0, 0x7f0000002020, &r));
	CU_ASSERT_EQUAL(pp_symtab_jitmap_parse(st, 78, "", 0), 0);
	CU_ASSERT(pp_sym_jitmap_pid("/tmp/perf-1234.map", &pid));
	CU_ASSERT_EQUAL(pid, 1234);
	CU_ASSERT(!pp_sym_jitmap_pid("/tmp/perf-.map", &pid));
	CU_ASSERT(!pp_sym_jitmap_pid("/tmp/perf-12x.map", &pid));
	CU_ASSERT(!pp_sym_jitmap_pid("/tmp/perf-99999999999.map", &pid));
	pp_symtab_free(st);
}

static void test_symbolize__demangle(void)
{
	struct pp_symtab *st = pp_symtab_new(PP_SYMTAB_NO_PARAMS), *raw;
	struct pp_sym_res r;
	char *s;

	s = pp_sym_demangle_dup("_ZNSt6vectorIiSaIiEE9push_backERKi", true);
	CU_ASSERT_STRING_EQUAL(s, "std::vector<int, std::allocator<int> >::push_back(int const&)");
	free(s);
	s = pp_sym_demangle_dup("_ZN3foo3barEv.cold", true);
	CU_ASSERT_STRING_EQUAL(s, "foo::bar() [clone .cold]");
	free(s);
	s = pp_sym_demangle_dup("__Z3fooi", true);
	CU_ASSERT_STRING_EQUAL(s, "foo(int)");
	free(s);
	CU_ASSERT_PTR_NULL(pp_sym_demangle_dup("main", true));
	CU_ASSERT_PTR_NULL(pp_sym_demangle_dup("_Zgarbage", true));
	CU_ASSERT_PTR_NULL(pp_sym_demangle_dup(NULL, true));

	make_libfoo(st);
	pp_symtab_map_add(st, 5, 0, 0x400000, 0x10000, 0, "/usr/lib/libfoo.so", BID_A, 20);
	CU_ASSERT(pp_symtab_lookup_user(st, 5, 0, 0x401200, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "foo::bar");
	raw = pp_symtab_new(PP_SYMTAB_NO_DEMANGLE);
	make_libfoo(raw);
	pp_symtab_map_add(raw, 5, 0, 0x400000, 0x10000, 0, "/usr/lib/libfoo.so", BID_A, 20);
	CU_ASSERT(pp_symtab_lookup_user(raw, 5, 0, 0x401200, &r));
	CU_ASSERT_STRING_EQUAL(r.name, "_ZN3foo3barEi");
	pp_symtab_free(raw);
	pp_symtab_free(st);
}

/* --- brute-force model of one process's map history -------------------------- */

#define MODEL_OPS 3000
#define MODEL_PAGES 64

struct model_op {
	uint64_t t, start, end, pgoff;
	int exec, vdso;
};

static uint64_t model_rng = 0x1234567;

static uint64_t model_next(void)
{
	model_rng ^= model_rng << 13;
	model_rng ^= model_rng >> 7;
	model_rng ^= model_rng << 17;
	return model_rng;
}

static void test_symbolize__history_model(void)
{
	struct model_op *ops = calloc(MODEL_OPS, sizeof(*ops));
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;
	char path[32];
	int bad = 0;

	CU_ASSERT_FATAL(ops != NULL);
	for (int i = 0; i < MODEL_OPS; i++) {
		uint64_t a = model_next() % MODEL_PAGES, n = 1 + model_next() % 8;

		ops[i].t = 10 * (uint64_t)(i + 1);
		ops[i].exec = model_next() % 97 == 0;
		if (model_next() % 50 == 0) {	/* now and then a huge mapping over everything */
			a = 0;
			n = 1ull << 19;
		}
		ops[i].start = a << 12;
		ops[i].end = (a + n) << 12;
		ops[i].pgoff = (model_next() % 1000) << 12;
		if (ops[i].exec) {
			pp_symtab_task_exec(st, 3, ops[i].t);
			continue;
		}
		ops[i].vdso = model_next() % 151 == 0;
		if (ops[i].vdso)
			snprintf(path, sizeof(path), "[vdso]");
		else
			snprintf(path, sizeof(path), "m%d", i);
		CU_ASSERT_EQUAL(pp_symtab_map_add(st, 3, ops[i].t, ops[i].start, n << 12,
						  ops[i].pgoff, path, NULL, 0), 0);
	}
	for (int q = 0; q < 100000; q++) {
		uint64_t t = model_next() % (10 * (MODEL_OPS + 2));
		uint64_t addr = model_next() % ((MODEL_PAGES + 8) << 12);
		int want = -1, i = MODEL_OPS - 1, over = 0, later = 0;

		while (i >= 0 && ops[i].t > t)
			i--;
		for (; i >= 0 && !ops[i].exec; i--) {
			over |= ops[i].vdso && later;	/* a mapping after a vDSO: exec over */
			later = 1;
			if (addr >= ops[i].start && addr < ops[i].end) {
				want = i;
				break;
			}
		}
		/* in no mapping after an exec that is not over: the old image */
		if (want < 0 && i >= 0 && !over)
			for (i--; i >= 0 && !ops[i].exec; i--)
				if (addr >= ops[i].start && addr < ops[i].end) {
					want = i;
					break;
				}
		pp_symtab_lookup_user(st, 3, t, addr, &r);
		if (want < 0) {
			bad += r.dso != NULL;
			continue;
		}
		if (ops[want].vdso)
			snprintf(path, sizeof(path), "[vdso]");
		else
			snprintf(path, sizeof(path), "m%d", want);
		if (!r.dso || strcmp(r.dso, path) ||
		    r.dso_off != addr - ops[want].start + ops[want].pgoff)
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(ops);
	pp_symtab_free(st);
}

/* Millions of frames: 20 DSOs x 20000 symbols, 2M lookups over 50 processes. */
static void test_symbolize__speed(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	struct pp_sym_res r;
	struct timespec t0, t1;
	uint8_t bid[20] = { 0 };
	char name[64];
	size_t hits = 0;
	double sec;

	for (int i = 0; i < 20; i++) {
		struct pp_dso *d;

		bid[0] = (uint8_t)i;
		snprintf(name, sizeof(name), "/lib/lib%d.so", i);
		pp_symtab_dso_get(st, bid, sizeof(bid), name, 0, &d);
		for (int s = 0; s < 20000; s++) {
			snprintf(name, sizeof(name), "_ZN3lib%d4funcEi%d", i, s);
			pp_dso_sym_add(d, 0x1000 + (uint64_t)s * 64, 48, name);
		}
		pp_dso_finalize(d);
		for (uint32_t pid = 1; pid <= 50; pid++)
			pp_symtab_map_add(st, pid, 0, 0x7f0000000000ull + ((uint64_t)i << 24),
					  0x1000000, 0, "x", bid, sizeof(bid));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int q = 0; q < 2000000; q++) {
		uint64_t x = model_next();
		uint32_t pid = 1 + (uint32_t)((q / 64) % 50);	/* one pid per stack */
		uint64_t addr = 0x7f0000000000ull + ((x % 20) << 24) + 0x1000 +
				(x >> 32) % (20000 * 64);

		hits += pp_symtab_lookup_user(st, pid, 1, addr, &r);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CU_ASSERT(hits > 1400000 && hits < 1600000);	/* 48 of every 64 bytes are covered */
	CU_ASSERT(sec < 10.0);
	pp_symtab_free(st);
}

/*
 * Kernel symbols in address order (as kallsyms lists them), aliases of one address in any
 * rank order: the T symbol names the address, the first of equals wins, as when sorted
 * whole; a run of aliases too long to order in place, and an address out of order, too.
 */
static void test_symbolize__kernel_ties(void)
{
	struct pp_symtab *st = pp_symtab_new(0);
	char name[32];

	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE, 'T', "_stext", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 'w', "weak_alias", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 't', "local_alias", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 'T', "global_fn", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 'T', "global_second", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x200, 't', "b_local", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x200, 't', "a_local", NULL), 0);
	pp_symtab_ksyms_finalize(st);
	want_ksym(st, KBASE + 0x10, "_stext");
	want_ksym(st, KBASE + 0x108, "global_fn");
	want_ksym(st, KBASE + 0x200, "b_local");
	for (int i = 0; i < 100; i++) {		/* longer than one run ordered in place */
		snprintf(name, sizeof(name), "d_%d", i);
		CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x300, 'd', name, NULL), 0);
	}
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x300, 'T', "after_data", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x400, 'T', "last_fn", NULL), 0);
	want_ksym(st, KBASE + 0x108, "global_fn");
	want_ksym(st, KBASE + 0x200, "b_local");
	want_ksym(st, KBASE + 0x300, "after_data");
	want_ksym(st, KBASE + 0x410, "last_fn");
	/* one address out of order: the whole table sorted */
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x180, 't', "late_fn", NULL), 0);
	CU_ASSERT_EQUAL(pp_symtab_ksym_add(st, KBASE + 0x100, 'T', "late_alias", NULL), 0);
	want_ksym(st, KBASE + 0x108, "global_fn");
	want_ksym(st, KBASE + 0x190, "late_fn");
	want_ksym(st, KBASE + 0x300, "after_data");
	pp_symtab_free(st);
}

void test_symbolize__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_symbolize__kernel, "kernel symbols: order, aliases, modules, tails"),
		PP_TEST(test_symbolize__kernel_ties, "kernel symbols in order but for aliases"),
		PP_TEST(test_symbolize__ksyms_lent, "kernel symbols lent: the owner's answers, copied on add"),
		PP_TEST(test_symbolize__dso_and_maps, "DSO symbols through a mapping, unknowns"),
		PP_TEST(test_symbolize__replaced_maps, "overlapping and replaced mappings"),
		PP_TEST(test_symbolize__fork_exec, "fork inherits, exec clears, exit keeps"),
		PP_TEST(test_symbolize__jit, "perf-PID.map parsing and lookup"),
		PP_TEST(test_symbolize__demangle, "C++ and Rust demangling, params or not"),
		PP_TEST(test_symbolize__history_model, "map history matches a brute-force model"),
		PP_TEST(test_symbolize__speed, "2M lookups over 400k symbols run fast"),
	};

	pp_suite_add("symbolize", tests, PP_ARRAY_SIZE(tests));
}
