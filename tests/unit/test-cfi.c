/* SPDX-License-Identifier: MIT */
/*
 * test-cfi.c - the recorder's unwind rows (format/cfi.c) against elfutils' reading
 * of the same CFI (libdw's dwarf_cfi_addrframe()), at every 16th address of the text of
 * libc.so.6, of this test binary, of a load generator and of one built here (cc) with
 * .debug_frame only for its own code: the CFA's register and offset and the rules of the
 * return address and rbp must agree wherever a row is not "unknown"; then hostile
 * sections: randomly damaged copies of a real .eh_frame.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/cfi.h"
#include "tests/unit/unit.h"

struct agree {
	uint64_t checked, same, none, unknown, no_row, no_dw, differ;
};

static int row_has(const void *key, const void *elem)
{
	const uint64_t a = *(const uint64_t *)key;
	const struct ppf_unwind_row *r = elem;

	return a < r->start ? -1 : a >= r->end ? 1 : 0;
}

static const struct ppf_unwind_row *row_at(const struct ppf_unwind_row *v, size_t nr, uint64_t a)
{
	return bsearch(&a, v, nr, sizeof(*v), row_has);
}

/* libdw's rule for @reg as ours: PPF_REG_* with *off, or -1 when it is something else. */
static int dw_reg(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return -1;
	if (!n)
		return ops ? PPF_REG_UNDEF : PPF_REG_SAME;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	*off = 0;
	if (n == 1)
		return PPF_REG_AT_CFA;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return PPF_REG_AT_CFA;
	}
	return -1;
}

static bool same_as_dw(const struct ppf_unwind_row *r, Dwarf_Frame *f)
{
	Dwarf_Op *ops;
	size_t n;
	int64_t off = 0, reg = -1;
	int rule;

	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		return false;
	if (r->cfa == PPF_CFA_PLT) {
		if (n < 2 || ops[0].atom != DW_OP_breg7 || ops[0].number != 8)
			return false;
	} else {
		if (n == 1 && ops[0].atom == DW_OP_bregx) {
			reg = (int64_t)ops[0].number;
			off = (int64_t)ops[0].number2;
		} else if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			reg = ops[0].atom - DW_OP_breg0;
			off = (int64_t)ops[0].number;
		}
		if (reg != (r->cfa == PPF_CFA_SP ? 7 : 6) || off != r->cfa_off)
			return false;
	}
	rule = dw_reg(f, 16, &off);
	if (rule != r->ra || (rule == PPF_REG_AT_CFA && off != r->ra_off))
		return false;
	if (r->ra == PPF_REG_UNDEF)
		return true;
	rule = dw_reg(f, 6, &off);
	return rule == r->fp && (rule != PPF_REG_AT_CFA || off == r->fp_off);
}

static void compare_file(const char *path, struct agree *ag)
{
	int fd = open(path, O_RDONLY);
	struct ppf_unwind_row *rows = NULL;
	Elf *elf, *elf2;
	Dwarf_CFI *cfi, *dbg_cfi = NULL;
	Dwarf *dwf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t nr = 0, shstr;
	struct stat st;

	CU_ASSERT_FATAL(fd >= 0 && fstat(fd, &st) == 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	elf2 = elf_begin(fd, ELF_C_READ, NULL);
	CU_ASSERT_FATAL(elf && elf2);
	CU_ASSERT_EQUAL(ppf_cfi_read(elf, (uint64_t)st.st_size, &rows, &nr, NULL), 0);
	CU_ASSERT(nr > 0);
	cfi = dwarf_getcfi_elf(elf2);
	CU_ASSERT_FATAL(cfi != NULL);
	dwf = dwarf_begin_elf(elf2, DWARF_C_READ, NULL);	/* .debug_frame, where .eh_frame has none */
	if (dwf)
		dbg_cfi = dwarf_getcfi(dwf);
	CU_ASSERT_FATAL(elf_getshdrstrndx(elf2, &shstr) == 0);
	while ((scn = elf_nextscn(elf2, scn))) {
		if (!gelf_getshdr(scn, &sh) || strcmp(elf_strptr(elf2, shstr, sh.sh_name), ".text"))
			continue;
		for (uint64_t a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a += 16) {
			const struct ppf_unwind_row *r = row_at(rows, nr, a);
			Dwarf_Frame *f = NULL;
			bool dw = dwarf_cfi_addrframe(cfi, a, &f) == 0 ||
				  (dbg_cfi && dwarf_cfi_addrframe(dbg_cfi, a, &f) == 0);

			ag->checked++;
			if (!r && !dw)
				ag->none++;	/* no CFI either way: agreement */
			else if (!r)
				ag->no_row++;
			else if (r->cfa == PPF_CFA_UNKNOWN)
				ag->unknown++;
			else if (!dw)
				ag->no_dw++;
			else if (same_as_dw(r, f))
				ag->same++;
			else if (ag->differ++ < 5)
				fprintf(stderr, "%s: %#llx: cfa %d%+d ra %d%+d fp %d%+d differs from libdw\n",
					path, (unsigned long long)a, r->cfa, r->cfa_off, r->ra, r->ra_off,
					r->fp, r->fp_off);
			free(f);
		}
	}
	dwarf_cfi_end(cfi);
	if (dwf)
		dwarf_end(dwf);
	free(rows);
	elf_end(elf);
	elf_end(elf2);
	close(fd);
}

static int libc_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so"))
		snprintf(arg, 4096, "%s", info->dlpi_name);
	return 0;
}

static void test_cfi__agrees_with_libdw(void)
{
	static char libc[4096];
	/* the last: a load built with .debug_frame only for its own code (when cc is here) */
	const char *files[] = { libc, "/proc/self/exe", "build/load/mallocloop", "/tmp/pp-unit-cfi-dbgf" };
	struct agree all = { 0 };

	dl_iterate_phdr(libc_cb, libc);
	CU_ASSERT_FATAL(libc[0] != '\0');
	if (system("cc -O2 -g -D_GNU_SOURCE -fno-asynchronous-unwind-tables -I. "
		   "-o /tmp/pp-unit-cfi-dbgf tests/load/cpuburn.c 2>/dev/null"))
		fprintf(stderr, "no cc: .debug_frame not compared\n");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct agree ag = { 0 };

		if (i >= 2 && access(files[i], R_OK))
			continue;	/* not built: make unit builds the tests only */
		compare_file(files[i], &ag);
		if (getenv("PP_TEST_VERBOSE"))
			fprintf(stderr, "%s: %llu addresses, %llu agree, %llu without CFI, %llu unknown, "
				"%llu no row, %llu not in libdw, %llu differ\n", files[i],
				(unsigned long long)ag.checked, (unsigned long long)ag.same,
				(unsigned long long)ag.none,
				(unsigned long long)ag.unknown, (unsigned long long)ag.no_row,
				(unsigned long long)ag.no_dw, (unsigned long long)ag.differ);
		CU_ASSERT_EQUAL(ag.differ, 0);
		CU_ASSERT_EQUAL(ag.no_dw, 0);
		CU_ASSERT_EQUAL(ag.no_row, 0);
		CU_ASSERT((ag.same + ag.none) * 1000 >= ag.checked * 999);
		all.same += ag.same;
	}
	CU_ASSERT(all.same > 10000);
	unlink("/tmp/pp-unit-cfi-dbgf");
}

static bool rows_sane(const struct ppf_unwind_row *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (v[i].start >= v[i].end || (i && v[i].start < v[i - 1].end) ||
		    v[i].cfa > PPF_CFA_PLT || (i && v[i].start == v[i - 1].end &&
		     v[i].cfa == v[i - 1].cfa && v[i].ra == v[i - 1].ra && v[i].fp == v[i - 1].fp &&
		     v[i].cfa_off == v[i - 1].cfa_off && v[i].ra_off == v[i - 1].ra_off &&
		     v[i].fp_off == v[i - 1].fp_off))
			return false;
	return true;
}

/* A small binary's .eh_frame, damaged at random thousands of times: sane rows, no crash. */
static void test_cfi__hostile_sections(void)
{
	const char *path = "/bin/true";
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *img;
	size_t off = 0, size = 0, shstr;
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	unsigned seed = 12345, sane = 0, runs = 3000;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "skipped: no %s\n", path);
		return;
	}
	img = malloc((size_t)st.st_size);
	CU_ASSERT_FATAL(img && read(fd, img, (size_t)st.st_size) == st.st_size);
	close(fd);
	elf = elf_memory((char *)img, (size_t)st.st_size);
	CU_ASSERT_FATAL(elf && elf_getshdrstrndx(elf, &shstr) == 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstr, sh.sh_name), ".eh_frame")) {
			off = sh.sh_offset;
			size = sh.sh_size;
		}
	elf_end(elf);
	CU_ASSERT_FATAL(size > 64);
	for (unsigned i = 0; i < runs; i++) {
		uint8_t save[4];
		size_t at[4];
		struct ppf_unwind_row *rows;
		size_t nr;

		for (int k = 0; k < 4; k++) {
			at[k] = off + (size_t)rand_r(&seed) % size;
			save[k] = img[at[k]];
			img[at[k]] = (uint8_t)(k & 1 ? (unsigned)rand_r(&seed) : img[at[k]] ^ (1u << (rand_r(&seed) & 7)));
		}
		elf = elf_memory((char *)img, (size_t)st.st_size);
		CU_ASSERT_FATAL(elf != NULL);
		CU_ASSERT(ppf_cfi_read(elf, (uint64_t)st.st_size, &rows, &nr, NULL) == 0);
		sane += rows_sane(rows, nr);
		free(rows);
		elf_end(elf);
		for (int k = 4; k-- > 0;)
			img[at[k]] = save[k];
	}
	CU_ASSERT_EQUAL(sane, runs);
	free(img);
}

static const struct pp_test tests[] = {
	PP_TEST(test_cfi__hostile_sections, "damaged .eh_frame sections give sane rows"),
	PP_TEST(test_cfi__agrees_with_libdw, "unwind rows agree with libdw's CFI reading"),
};

void test_cfi__register(void)
{
	pp_suite_add("cfi", tests, sizeof(tests) / sizeof(tests[0]));
}
