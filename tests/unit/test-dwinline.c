/* SPDX-License-Identifier: MIT */
/*
 * test-dwinline.c - inline frames from DWARF (common/dwinline.c), on this test binary itself.
 *
 * unit_inl_outer() calls unit_inl_mid() which calls unit_inl_leaf() which calls probe(), the
 * first two always inlined: the return address probe() records is in unit_inl_outer's code,
 * and DWARF says the call there is leaf inlined into mid inlined into outer.  The binary is
 * built with -g (OPT); without DWARF the tests pass with a note.  Also: bad build ids, a
 * binary of another build id, garbage in a debug directory, and copies of the binary whose
 * DWARF sections were overwritten with random bytes (no crash, no wrong answers asked).
 * Compressed debug sections inflated lazily give the answers of those inflated whole, on
 * this binary's functions and, when its debug file is installed, on libc's.
 */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/dwinflate.h"
#include "common/dwinline.h"
#include "common/log.h"
#include "tests/unit/unit.h"

#ifdef __clang__
#define NOCLONE
#else
#define NOCLONE __attribute__((noclone))	/* no specialized copy of the function */
#endif

static uintptr_t probe_ra;

__attribute__((noinline)) NOCLONE static void probe(void)
{
	probe_ra = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

/* the line numbers below are checked: keep each call on the line its enum names */
enum { LINE_PROBE = __LINE__ + 3 };
static inline __attribute__((always_inline)) void unit_inl_leaf(void)
{
	probe();
	__asm__ volatile("" ::: "memory");	/* no tail call: the return address stays here */
}

enum { LINE_LEAF = __LINE__ + 3 };
static inline __attribute__((always_inline)) void unit_inl_mid(void)
{
	unit_inl_leaf();
	__asm__ volatile("" ::: "memory");
}

void unit_inl_outer(void);	/* global: found by name in the unit-test binary's symbols */

enum { LINE_MID = __LINE__ + 3 };
__attribute__((noinline, used)) NOCLONE void unit_inl_outer(void)
{
	unit_inl_mid();
	__asm__ volatile("" ::: "memory");
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uintptr_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the program */
}

struct self {
	char path[4096];
	char bid[129];
	uint64_t vaddr;		/* of the call to probe() */
};

static bool self_get(struct self *s)
{
	uintptr_t bias = 0;
	ssize_t n = readlink("/proc/self/exe", s->path, sizeof(s->path) - 1);

	if (n <= 0)
		return false;
	s->path[n] = '\0';
	if (!pp_inl_file_build_id(s->path, s->bid, sizeof(s->bid)))
		return false;
	unit_inl_outer();
	dl_iterate_phdr(first_bias, &bias);
	s->vaddr = probe_ra - 1 - bias;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void test_dwinline__chain(void)
{
	struct pp_inl *r = pp_inl_new("/nonexistent-debug-dir");
	struct pp_inl_res res, again;
	struct self s;

	if (!self_get(&s)) {
		printf("\n    (no build id on the test binary: not checked) ");
		pp_inl_free(r);
		return;
	}
	if (!pp_inl_lookup(r, s.bid, s.path, s.vaddr, &res)) {
		printf("\n    (no DWARF in the test binary: not checked) ");
		pp_inl_free(r);
		return;
	}
	CU_ASSERT_STRING_EQUAL(pp_inl_debug_file(r, s.bid, s.path), s.path);
	CU_ASSERT_EQUAL_FATAL(res.nr, 2);
	CU_ASSERT_STRING_EQUAL(res.frames[0].name, "unit_inl_leaf");
	CU_ASSERT_STRING_EQUAL(res.frames[1].name, "unit_inl_mid");
	CU_ASSERT(ends_with(res.frames[0].file, "test-dwinline.c"));
	CU_ASSERT_EQUAL(res.frames[0].line, LINE_PROBE);
	CU_ASSERT(ends_with(res.frames[1].file, "test-dwinline.c"));
	CU_ASSERT_EQUAL(res.frames[1].line, LINE_LEAF);
	CU_ASSERT(ends_with(res.file, "test-dwinline.c"));
	CU_ASSERT_EQUAL(res.line, LINE_MID);
	/* the second answer comes from the cache */
	CU_ASSERT(pp_inl_lookup(r, s.bid, s.path, s.vaddr, &again));
	CU_ASSERT_PTR_EQUAL(again.frames, res.frames);
	/* probe() itself inlines nothing */
	if (pp_inl_lookup(r, s.bid, s.path, (uint64_t)((uintptr_t)probe - (probe_ra - 1 - s.vaddr)),
			  &res))
		CU_ASSERT_EQUAL(res.nr, 0);
	/* an address in no CU */
	CU_ASSERT_FALSE(pp_inl_lookup(r, s.bid, s.path, 0xfffffffffff0ull, &res));
	pp_inl_free(r);
}

static void test_dwinline__refusals(void)
{
	struct pp_inl *r = pp_inl_new(NULL);
	struct pp_inl_res res;
	struct self s;
	char other[129];

	CU_ASSERT_FALSE(pp_inl_lookup(r, NULL, "/bin/sh", 0x1000, &res));
	CU_ASSERT_FALSE(pp_inl_lookup(r, "", "/bin/sh", 0x1000, &res));
	CU_ASSERT_FALSE(pp_inl_lookup(r, "abc", "/bin/sh", 0x1000, &res));	/* odd */
	CU_ASSERT_FALSE(pp_inl_lookup(r, "ABCD", "/bin/sh", 0x1000, &res));	/* case */
	CU_ASSERT_FALSE(pp_inl_lookup(r, "zz00", "/bin/sh", 0x1000, &res));
	CU_ASSERT_FALSE(pp_inl_lookup(r, "0123456789", "/dev/zero", 0x1000, &res));
	CU_ASSERT_FALSE(pp_inl_lookup(r, "0123456789", "relative/path", 0x1000, &res));
	CU_ASSERT_PTR_NULL(pp_inl_debug_file(r, "0123456789", NULL));
	CU_ASSERT_FALSE(pp_inl_file_build_id("/dev/null", other, sizeof(other)));
	CU_ASSERT_FALSE(pp_inl_file_build_id("/nonexistent", other, sizeof(other)));
	if (self_get(&s)) {
		/* the binary at the path has another build id: not used */
		snprintf(other, sizeof(other), "%s", s.bid);
		other[0] = other[0] == '0' ? '1' : '0';
		CU_ASSERT_FALSE(pp_inl_lookup(r, other, s.path, s.vaddr, &res));
		CU_ASSERT_FALSE(pp_inl_lookup(r, other, s.path, s.vaddr, &res));	/* cached miss */
	}
	pp_inl_free(r);
}

/* Write @len bytes of @data to @path, creating the directories. */
static bool write_file(const char *path, const void *data, size_t len)
{
	char dir[4096];
	FILE *fp;
	bool ok;

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	}
	fp = fopen(path, "wb");
	if (!fp)
		return false;
	ok = fwrite(data, 1, len, fp) == len;
	return fclose(fp) == 0 && ok;
}

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!fp)
		return NULL;
	do {
		cap = cap ? cap * 2 : 1 << 20;
		buf = pp_xrealloc(buf, cap);
		n = fread(buf + *len, 1, cap - *len, fp);
		*len += n;
	} while (*len == cap);
	fclose(fp);
	return buf;
}

struct dsec {
	uint64_t off, size;
};

/* The file ranges of the .debug_* sections of ELF image @img. */
static size_t debug_sections(unsigned char *img, size_t len, struct dsec *out, size_t max)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	GElf_Shdr sh;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		goto out;
	while ((scn = elf_nextscn(e, scn)) && n < max) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".debug_", 7) && sh.sh_offset + sh.sh_size <= len)
			out[n++] = (struct dsec){ sh.sh_offset, sh.sh_size };
	}
out:
	if (e)
		elf_end(e);
	return n;
}

static bool compress_debug(const char *path);

static void test_dwinline__broken(void)
{
	char dir[] = "/tmp/pp-dwinline.XXXXXX", path[4200], cmd[4300];
	struct pp_inl_res res;
	struct self s;
	struct dsec secs[64];
	unsigned char *img, *bad;
	size_t len, nsec;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (!self_get(&s) || !mkdtemp(dir))
		return;
	/* garbage under the build id's name, then the binary itself: the binary is used */
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, s.bid, s.bid + 2);
	CU_ASSERT(write_file(path, "not an ELF file", 15));
	{
		struct pp_inl *r = pp_inl_new(dir);
		if (pp_inl_lookup(r, s.bid, s.path, s.vaddr, &res))
			CU_ASSERT_STRING_EQUAL(pp_inl_debug_file(r, s.bid, s.path), s.path);
		pp_inl_free(r);
	}
	img = read_all(s.path, &len);
	nsec = img ? debug_sections(img, len, secs, 64) : 0;
	bad = img ? pp_xmalloc(len) : NULL;
	for (int round = 0; nsec && round < 24; round++) {
		struct pp_inl *r = pp_inl_new(dir);
		memcpy(bad, img, len);
		/* a few bytes flipped in one section, or a whole section overwritten */
		for (size_t i = 0; i < nsec; i++) {
			if (round % nsec != i && round < 16)
				continue;
			for (uint64_t j = 0; j < (round < 16 ? 32 : secs[i].size); j++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint64_t at = round < 16 ? (seed >> 20) % secs[i].size : j;
				bad[secs[i].off + at] = (unsigned char)(seed >> 56);
			}
		}
		CU_ASSERT_FATAL(write_file(path, bad, len));
		/* every other round compressed: the lazy lookup reads the damage by hand */
		if (round & 1)
			CU_ASSERT(compress_debug(path));
		/* path NULL: no fallback to the intact binary */
		for (uint64_t a = s.vaddr - 4096; a < s.vaddr + 4096; a += 61)
			(void)pp_inl_lookup(r, s.bid, NULL, a, &res);
		(void)pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res);
		pp_inl_free(r);
	}
	free(bad);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* @path rewritten with its .debug_* sections zlib-compressed (SHF_COMPRESSED); false: not done */
static bool compress_debug(const char *path)
{
	int fd = open(path, O_RDWR);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	bool ok = e && !elf_getshdrstrndx(e, &shstrndx);

	while (ok && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
			continue;
		ok = elf_compress(scn, ELFCOMPRESS_ZLIB, 0) >= 0;
		n++;
	}
	ok = ok && n && elf_update(e, ELF_C_WRITE) >= 0;
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* The section @name of ELF file @path: its flags and, inflated by pp_dwinflate_elf(), bytes. */
static bool section_of(const char *path, const char *name, bool inflate, uint64_t *flags,
		       unsigned char **data, size_t *len)
{
	struct pp_dwinflate inf = { .nr = 0 };
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (e && inflate)
		pp_dwinflate_elf(e, NULL, 0, NULL, 0, &inf);
	while (e && !elf_getshdrstrndx(e, &shstrndx) && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(nm, name) || !(d = elf_getdata(scn, NULL)))
			continue;
		found = true;
		*flags = sh.sh_flags;
		*len = d->d_size;
		*data = pp_xmalloc(d->d_size ? d->d_size : 1);
		memcpy(*data, d->d_buf, d->d_size);
	}
	if (e)
		elf_end(e);
	pp_dwinflate_free(&inf);
	if (fd >= 0)
		close(fd);
	return found;
}

/*
 * The test binary copied under its build id's name in debug directory @dir (the name into
 * @path, @sz bytes), its plain .debug_info into *@want (when not NULL; free() it), its debug
 * sections then compressed.  False, said, when it has no DWARF to compress.
 */
static bool compressed_copy(const struct self *s, const char *dir, char *path, size_t sz,
			    unsigned char **want, size_t *want_len)
{
	unsigned char *img, *info = NULL;
	size_t len, info_len = 0;
	uint64_t flags;
	bool ok;

	snprintf(path, sz, "%s/.build-id/%.2s/%s.debug", dir, s->bid, s->bid + 2);
	img = read_all(s->path, &len);
	CU_ASSERT_FATAL(img && write_file(path, img, len));
	free(img);
	ok = section_of(path, ".debug_info", false, &flags, &info, &info_len) &&
	     compress_debug(path);
	if (!ok)
		printf("\n    (no DWARF to compress in the test binary: not checked) ");
	if (ok && want) {
		*want = info;
		*want_len = info_len;
	} else {
		free(info);
	}
	return ok;
}

/*
 * Debug sections compressed as distributions ship them (libc6-dbg): inflated by
 * pp_dwinflate_elf() to the very bytes of the uncompressed file, and the inline chain read
 * through them the same; a stream damaged in its middle leaves its section compressed.
 */
static void test_dwinline__compressed(void)
{
	char dir[] = "/tmp/pp-dwinline.XXXXXX", path[4200], cmd[4300];
	unsigned char *img = NULL, *want = NULL, *got = NULL;
	size_t len, want_len = 0, got_len = 0;
	uint64_t flags = 0;
	struct pp_inl_res res;
	struct self s;

	if (!self_get(&s) || !mkdtemp(dir))
		return;
	if (!compressed_copy(&s, dir, path, sizeof(path), &want, &want_len))
		goto out;
	CU_ASSERT(section_of(path, ".debug_info", false, &flags, &got, &got_len));
	CU_ASSERT(flags & SHF_COMPRESSED);
	free(got);
	got = NULL;
	CU_ASSERT_FATAL(section_of(path, ".debug_info", true, &flags, &got, &got_len));
	CU_ASSERT_FALSE(flags & SHF_COMPRESSED);
	CU_ASSERT_EQUAL_FATAL(got_len, want_len);
	CU_ASSERT(!memcmp(got, want, want_len));
	{	/* path NULL: the compressed copy alone */
		struct pp_inl *r = pp_inl_new(dir);

		CU_ASSERT_FATAL(pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res));
		CU_ASSERT_EQUAL_FATAL(res.nr, 2);
		CU_ASSERT_STRING_EQUAL(res.frames[0].name, "unit_inl_leaf");
		CU_ASSERT_STRING_EQUAL(res.frames[1].name, "unit_inl_mid");
		CU_ASSERT_EQUAL(res.frames[0].line, LINE_PROBE);
		CU_ASSERT_EQUAL(res.line, LINE_MID);
		pp_inl_free(r);
	}
	free(got);
	got = NULL;
	/* the middle of .debug_info's stream damaged: that section is left to libdw */
	free(img);
	img = read_all(path, &len);
	{
		struct dsec secs[64];
		size_t n = img ? debug_sections(img, len, secs, 64) : 0;

		for (size_t i = 0; i < n; i++)
			if (secs[i].size > 64)
				memset(img + secs[i].off + secs[i].size / 2, 0xff, 16);
		CU_ASSERT_FATAL(n && write_file(path, img, len));
	}
	CU_ASSERT(section_of(path, ".debug_info", true, &flags, &got, &got_len));
	CU_ASSERT(flags & SHF_COMPRESSED);
	{
		struct pp_inl *r = pp_inl_new(dir);

		(void)pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res);
		pp_inl_free(r);
	}
out:
	free(got);
	free(want);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Up to @max addresses in the functions of ELF file @path's .symtab: start, middle, last byte. */
static size_t func_addrs(const char *path, uint64_t *out, size_t max, unsigned every)
{
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t n = 0, seen = 0;

	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && n + 3 <= max; i++) {
			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
			    !sym.st_size || seen++ % every)
				continue;
			out[n++] = sym.st_value;
			out[n++] = sym.st_value + sym.st_size / 2;
			out[n++] = sym.st_value + sym.st_size - 1;
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return n;
}

/* Two answers the same: found or not, frames, names, files, lines. */
static bool same_answer(bool fa, const struct pp_inl_res *a, bool fb, const struct pp_inl_res *b)
{
	if (fa != fb || (fa && (a->nr != b->nr || a->line != b->line ||
				!a->file != !b->file || (a->file && strcmp(a->file, b->file)))))
		return false;
	for (uint32_t i = 0; fa && i < a->nr; i++) {
		const struct pp_inl_frame *x = &a->frames[i], *y = &b->frames[i];

		if (strcmp(x->name, y->name) || x->line != y->line || !x->file != !y->file ||
		    (x->file && strcmp(x->file, y->file)))
			return false;
	}
	return true;
}

/* A thread inflating a binary's DWARF ahead of the lookups, as analyze/inlprefetch.c does. */
struct ahead {
	pthread_t th;
	struct pp_inl *r;
	const char *bid, *path;
	bool stop;
};

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;

	pp_inl_prefetch(a->r, a->bid, a->path);
	pp_inl_inflate_ahead(a->r, a->bid, &a->stop);
	return NULL;
}

/*
 * The binary of build id @bid (debug file searched in @dir, else @path) looked up at
 * @addrs by a resolver inflating lazily (@ahead: with a thread inflating ahead of it
 * meanwhile) and by one inflating whole: how many answers differ; *@found: how many the
 * lazy one found.
 */
static size_t lazy_vs_whole(const char *dir, const char *bid, const char *path,
			    const uint64_t *addrs, size_t n, bool names_only, bool ahead,
			    size_t *found)
{
	struct pp_inl *lazy = pp_inl_new(dir), *whole = pp_inl_new(dir);
	struct ahead ah = { .r = lazy, .bid = bid, .path = path };
	size_t differ = 0;

	pp_inl_inflate_whole(whole);
	if (names_only) {
		pp_inl_names_only(lazy);
		pp_inl_names_only(whole);
	}
	if (ahead)
		CU_ASSERT_FATAL(pthread_create(&ah.th, NULL, ahead_main, &ah) == 0);
	*found = 0;
	for (size_t i = 0; i < n; i++) {
		struct pp_inl_res a, b;
		bool fa = pp_inl_lookup(lazy, bid, path, addrs[i], &a);
		bool fb = pp_inl_lookup(whole, bid, path, addrs[i], &b);

		*found += fa;
		if (!same_answer(fa, &a, fb, &b) && differ++ < 5)
			printf("\n    %s+0x%llx: lazy %s %u frames, whole %s %u ",
			       path ? path : bid, (unsigned long long)addrs[i],
			       fa ? "found" : "missed", fa ? a.nr : 0, fb ? "found" : "missed",
			       fb ? b.nr : 0);
	}
	if (ahead) {	/* it ran to the end: everything inflated */
		size_t mapped;

		CU_ASSERT(pthread_join(ah.th, NULL) == 0);
		CU_ASSERT_EQUAL(pp_inl_inflated(lazy, &mapped), mapped);
	}
	pp_inl_free(lazy);
	pp_inl_free(whole);
	return differ;
}

/*
 * Compressed sections inflated as far as lookups need: the first lookup inflates less than
 * the whole file, and every function of the binary (with and without line tables) gets the
 * answer of a resolver that inflated everything at once; libc's too, when its debug file is
 * installed (Debian's libc6-dbg: DWARF 5, compressed).
 */
static void test_dwinline__lazy(void)
{
	char dir[] = "/tmp/pp-dwinline.XXXXXX", path[4200], cmd[4300];
	size_t n, found, max = 1u << 16;
	uint64_t *addrs = pp_xmalloc(max * sizeof(*addrs));
	struct pp_inl_res res;
	struct self s;
	char libc_bid[129];

	if (!self_get(&s) || !mkdtemp(dir)) {
		free(addrs);
		return;
	}
	if (!compressed_copy(&s, dir, path, sizeof(path), NULL, NULL))
		goto libc;
	{	/* one lookup: part of the file inflated, when .debug_aranges says where */
		struct pp_inl *r = pp_inl_new(dir);
		size_t mapped, got, ar_len;
		unsigned char *ar = NULL;
		uint64_t ar_flags;

		CU_ASSERT_FATAL(pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res));
		CU_ASSERT_EQUAL(res.nr, 2);
		got = pp_inl_inflated(r, &mapped);
		CU_ASSERT(mapped > 0 && got <= mapped);
		if (section_of(s.path, ".debug_aranges", false, &ar_flags, &ar, &ar_len)) {
			CU_ASSERT(got < mapped / 2);
		} else {
			printf("\n    (no .debug_aranges in the test binary: laziness unchecked) ");
		}
		free(ar);
		pp_inl_free(r);
	}
	n = func_addrs(s.path, addrs, max, 1);
	CU_ASSERT(n > 300);
	CU_ASSERT_EQUAL(lazy_vs_whole(dir, s.bid, NULL, addrs, n, false, false, &found), 0);
	CU_ASSERT(found > n / 2);
	CU_ASSERT_EQUAL(lazy_vs_whole(dir, s.bid, NULL, addrs, n, true, false, &found), 0);
	/* a thread inflating ahead meanwhile: the same answers */
	CU_ASSERT_EQUAL(lazy_vs_whole(dir, s.bid, NULL, addrs, n, false, true, &found), 0);
	{	/* asked to stop before it starts: it returns, and lookups still inflate */
		struct pp_inl *r = pp_inl_new(dir);
		bool stop = true;
		size_t mapped;

		pp_inl_prefetch(r, s.bid, NULL);
		pp_inl_inflate_ahead(r, s.bid, &stop);
		CU_ASSERT(pp_inl_inflated(r, &mapped) < mapped / 2);
		CU_ASSERT(pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res) && res.nr == 2);
		pp_inl_free(r);
	}
	{	/* not asked to stop, no lookup: all of it inflated */
		struct ahead ah = { .r = pp_inl_new(dir), .bid = s.bid };
		size_t mapped;

		ahead_main(&ah);
		CU_ASSERT_EQUAL(pp_inl_inflated(ah.r, &mapped), mapped);
		pp_inl_free(ah.r);
	}
libc:
	if (!pp_inl_file_build_id("/lib/x86_64-linux-gnu/libc.so.6", libc_bid, sizeof(libc_bid))) {
		printf("\n    (no /lib/x86_64-linux-gnu/libc.so.6: libc not checked) ");
	} else {
		char dbg[300];
		struct stat st;

		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", libc_bid,
			 libc_bid + 2);
		n = stat(dbg, &st) ? 0 : func_addrs(dbg, addrs, max, 3);
		if (!n) {
			printf("\n    (no debug file of libc (libc6-dbg): libc not checked) ");
		} else {
			CU_ASSERT_EQUAL(lazy_vs_whole("/usr/lib/debug", libc_bid,
						      "/lib/x86_64-linux-gnu/libc.so.6", addrs, n,
						      true, true, &found), 0);
			CU_ASSERT(found > n / 2);
		}
	}
	free(addrs);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* The file range of section @name of ELF image @img; false when there is none. */
static bool section_range(unsigned char *img, size_t len, const char *name, uint64_t *off,
			  uint64_t *size)
{
	Elf *e = elf_memory((char *)img, len);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	while (e && !found && !elf_getshdrstrndx(e, &shstrndx) && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm;

		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(nm, name) && sh.sh_offset + sh.sh_size <= len) {
			*off = sh.sh_offset;
			*size = sh.sh_size;
			found = true;
		}
	}
	if (e)
		elf_end(e);
	return found;
}

/* @path's .debug_info, inflated lazily: @check(its lazy section, @arg). */
static void with_lazy_info(const char *path, void (*check)(struct pp_dwlazy *, void *),
			   void *arg)
{
	static const char *const lazy[] = { ".debug_info" };
	struct pp_dwinflate inf = { .nr = 0 };
	int fd = open(path, O_RDONLY);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	struct pp_dwlazy *l;

	CU_ASSERT_FATAL(e != NULL);
	pp_dwinflate_elf(e, NULL, 0, lazy, 1, &inf);
	l = pp_dwinflate_lazy(&inf, ".debug_info");
	CU_ASSERT(l != NULL);
	if (l)
		check(l, arg);
	elf_end(e);
	pp_dwinflate_free(&inf);
	close(fd);
}

struct short_stream {
	const unsigned char *want;	/* the plain section */
	size_t want_len;
};

/* A stream that ends before the size its header claims: what it holds, and no more. */
static void check_short(struct pp_dwlazy *l, void *arg)
{
	const struct short_stream *ss = arg;

	CU_ASSERT_EQUAL(l->size, ss->want_len + 4096);
	CU_ASSERT_FALSE(pp_dwlazy_need(l, l->size));
	CU_ASSERT_EQUAL(l->done, ss->want_len);
	CU_ASSERT(pp_dwlazy_need(l, ss->want_len));
	CU_ASSERT(!memcmp(l->buf, ss->want, ss->want_len));
	CU_ASSERT_FALSE(pp_dwlazy_need(l, l->size));	/* asked again: still short, at once */
}

/* A stream broken at its first block: nothing inflated, asked twice. */
static void check_broken(struct pp_dwlazy *l, void *arg)
{
	(void)arg;
	CU_ASSERT_FALSE(pp_dwlazy_need(l, 1));
	CU_ASSERT_EQUAL(l->done, 0);
	CU_ASSERT_FALSE(pp_dwlazy_need(l, l->size));
}

/*
 * Lazily inflated streams that do not hold what their header says: one that ends short
 * (its header's size raised by 4 KiB) gives its bytes and says the rest is not there; one
 * whose first DEFLATE block has the reserved type gives nothing; neither has DWARF to look
 * up, and no lookup crashes.
 */
static void test_dwinline__lazy_streams(void)
{
	char dir[] = "/tmp/pp-dwinline.XXXXXX", path[4200], cmd[4300];
	unsigned char *img = NULL, *want = NULL;
	size_t len, want_len;
	uint64_t off = 0, size = 0;
	struct pp_inl_res res;
	struct self s;

	if (!self_get(&s) || !mkdtemp(dir))
		return;
	if (!compressed_copy(&s, dir, path, sizeof(path), &want, &want_len))
		goto out;
	img = read_all(path, &len);
	CU_ASSERT_FATAL(img && section_range(img, len, ".debug_info", &off, &size) &&
			size > sizeof(Elf64_Chdr) + 2);
	{
		Elf64_Chdr ch;
		struct short_stream ss = { want, want_len };

		memcpy(&ch, img + off, sizeof(ch));
		CU_ASSERT_FATAL(ch.ch_size == want_len);
		ch.ch_size += 4096;
		memcpy(img + off, &ch, sizeof(ch));
		CU_ASSERT_FATAL(write_file(path, img, len));
		with_lazy_info(path, check_short, &ss);
		ch.ch_size -= 4096;
		memcpy(img + off, &ch, sizeof(ch));
	}
	img[off + sizeof(Elf64_Chdr) + 2] |= 6;	/* BTYPE 11: reserved */
	CU_ASSERT_FATAL(write_file(path, img, len));
	with_lazy_info(path, check_broken, NULL);
	{
		struct pp_inl *r = pp_inl_new(dir);

		CU_ASSERT_FALSE(pp_inl_lookup(r, s.bid, NULL, s.vaddr, &res));
		pp_inl_free(r);
	}
out:
	free(want);
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/*
 * Link-time optimization: the CUs gcc writes at link time name their inlined functions by
 * references into other units (DW_FORM_ref_addr), here into units past the first steps of
 * the stream (their headers' types make them large).  Such a unit needs the whole file:
 * the lazy answers are still those of the whole one, inline names included.
 */
static void test_dwinline__lazy_lto(void)
{
	static const char hdrs[] =
		"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		"#include <pthread.h>\n#include <signal.h>\n#include <elf.h>\n"
		"#include <sys/socket.h>\n#include <netinet/in.h>\n#include <time.h>\n"
		"#include <sys/stat.h>\n#include <fcntl.h>\n#include <regex.h>\n";
	char dir[] = "/tmp/pp-dwinline-lto.XXXXXX", src[4200], bin[4200], cmd[9000], bid[129];
	uint64_t addrs[3 * 64];
	size_t n, found, mapped;
	struct pp_inl_res res;
	bool inline_named = false;
	FILE *fp;

	if (!mkdtemp(dir))
		return;
	for (int i = 0; i < 6; i++) {
		snprintf(src, sizeof(src), "%s/lto%d.c", dir, i);
		CU_ASSERT_FATAL((fp = fopen(src, "w")) != NULL);
		/* main -> lto_f1 -> ... -> lto_f5, each with its own inlined lto_inN */
		if (!i)
			fprintf(fp, "%sint lto_f1(int);\nint main(int c, char **v)\n"
				"{ (void)v; return lto_f1(c); }\n", hdrs);
		else
			fprintf(fp, "%sint lto_f%d(int);\n"
				"static inline __attribute__((always_inline)) int lto_in%d(int x)\n"
				"{ return x * x + %d; }\n"
				"__attribute__((noinline)) int lto_f%d(int x)\n"
				"{ return lto_f%d(lto_in%d(x)); }\n",
				hdrs, i + 1, i, i, i, i + 1, i);
		if (i == 5)
			fprintf(fp, "__attribute__((noinline)) int lto_f6(int x)\n"
				"{ return abs(x); }\n");
		CU_ASSERT_FATAL(fclose(fp) == 0);
	}
	snprintf(bin, sizeof(bin), "%s/lto", dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && cc -O2 -g -flto -fno-eliminate-unused-debug-types "
		 "-gz=zlib -Wl,--build-id -o lto lto0.c lto1.c lto2.c lto3.c lto4.c lto5.c "
		 ">/dev/null 2>&1", dir);
	if (system(cmd) || !pp_inl_file_build_id(bin, bid, sizeof(bid))) {
		printf("\n    (cc cannot build with -flto -gz here: not checked) ");
		goto out;
	}
	n = func_addrs(bin, addrs, PP_ARRAY_SIZE(addrs), 1);
	CU_ASSERT(n >= 15);
	CU_ASSERT_EQUAL(lazy_vs_whole("/nonexistent-debug-dir", bid, bin, addrs, n, false, false,
				      &found), 0);
	CU_ASSERT(found > 0);
	{	/* an inlined function named across units: the whole file inflated for it */
		struct pp_inl *r = pp_inl_new("/nonexistent-debug-dir");

		for (size_t i = 0; i < n; i++)
			if (pp_inl_lookup(r, bid, bin, addrs[i], &res))
				for (uint32_t k = 0; k < res.nr; k++)
					inline_named |= !strncmp(res.frames[k].name, "lto_in", 6);
		CU_ASSERT(inline_named);
		CU_ASSERT_EQUAL(pp_inl_inflated(r, &mapped), mapped);
		CU_ASSERT(mapped > 80 * 1024);	/* past the first step (64 KiB) */
		pp_inl_free(r);
	}
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

void test_dwinline__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_dwinline__chain, "two inlined calls: names, lines, cache"),
		PP_TEST(test_dwinline__refusals, "bad build ids, special files, other builds"),
		PP_TEST(test_dwinline__broken, "garbage and randomized DWARF: no crash"),
		PP_TEST(test_dwinline__compressed, "compressed debug sections: same bytes, same chain"),
		PP_TEST(test_dwinline__lazy, "lazily inflated sections: the answers of whole ones"),
		PP_TEST(test_dwinline__lazy_lto, "references across units (LTO): inflated whole"),
		PP_TEST(test_dwinline__lazy_streams, "lazy streams that end short or break"),
	};

	pp_suite_add("dwinline", tests, PP_ARRAY_SIZE(tests));
}
