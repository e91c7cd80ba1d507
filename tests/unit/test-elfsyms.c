/* SPDX-License-Identifier: MIT */
/*
 * test-elfsyms.c - rec_elfsyms on the test binary itself, libc, broken files, JIT maps,
 * and the DSO/SYM records it writes to a capture.
 *
 * The test binary must keep its .symtab (it is built with -g and not stripped).
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "format/format.h"
#include "record/symbols/elfsyms.h"
#include "format/ksym.h"
#include "record/symbols/kallsyms.h"
#include "tests/unit/unit.h"

/* The function the test looks for by name in its own symbol table. */
__attribute__((noinline, used)) static int test_elfsyms_marker(int x)
{
	return x * 3 + 1;
}

struct phdr_find {
	const char *want;		/* substring of the object name; "" = main program */
	uintptr_t bias;
	char path[4096];
	bool found;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_find *pf = arg;
	const char *name = info->dlpi_name ? info->dlpi_name : "";

	(void)size;
	if (*pf->want ? !strstr(name, pf->want) : *name != '\0')
		return 0;
	pf->bias = info->dlpi_addr;
	snprintf(pf->path, sizeof(pf->path), "%s", name);
	pf->found = true;
	return 1;
}

static const struct rec_elfsym *find_sym(const struct rec_elfsyms *s, const char *name)
{
	for (size_t i = 0; i < s->nr_syms; i++)
		if (!strcmp(s->syms[i].name, name))
			return &s->syms[i];
	return NULL;
}

static bool sorted_and_sized(const struct rec_elfsyms *s)
{
	for (size_t i = 0; i + 1 < s->nr_syms; i++)
		if (s->syms[i].start > s->syms[i + 1].start ||
		    (!s->syms[i].size && s->syms[i].start != s->syms[i + 1].start))
			return false;
	return true;
}

/* file offset of a runtime address, from /proc/self/maps */
static bool maps_file_offset(uintptr_t addr, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, pgoff;

		if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &pgoff) == 3 && addr >= lo &&
		    addr < hi) {
			*off = addr - lo + pgoff;
			ok = true;
		}
	}
	fclose(f);
	return ok;
}

static void test_elfsyms__self(void)
{
	struct phdr_find pf = { .want = "" };
	uintptr_t addr = (uintptr_t)&test_elfsyms_marker;
	const struct rec_elfsym *sym;
	struct rec_elfsyms *s;
	uint64_t off = 0;

	CU_ASSERT_EQUAL(test_elfsyms_marker(1), 4);
	dl_iterate_phdr(phdr_cb, &pf);
	CU_ASSERT_FATAL(pf.found);
	CU_ASSERT_EQUAL_FATAL(rec_elfsyms_load_from("/proc/self/exe", NULL, &s), 0);
	CU_ASSERT(s->build_id_sz >= 16);
	CU_ASSERT_EQUAL(s->flags, 0);
	CU_ASSERT(s->nr_syms > 100);
	CU_ASSERT(sorted_and_sized(s));
	sym = find_sym(s, "test_elfsyms_marker");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sym);
	CU_ASSERT(sym->start + pf.bias <= addr && addr < sym->start + sym->size + pf.bias);
	/* the text mapping turns the runtime file offset into the same vaddr */
	CU_ASSERT_FATAL(maps_file_offset(addr, &off));
	CU_ASSERT_EQUAL(off - s->text_offset + s->text_vaddr, addr - pf.bias);
	CU_ASSERT_PTR_NOT_NULL(find_sym(s, "main"));
	CU_ASSERT_EQUAL(rec_elfsyms_set_path(s, "/usr/bin/renamed"), 0);
	CU_ASSERT_STRING_EQUAL(s->path, "/usr/bin/renamed");
	rec_elfsyms_free(s);
	rec_elfsyms_free(NULL);
}

static void test_elfsyms__libc_dynsym(void)
{
	struct phdr_find pf = { .want = "libc.so" };
	const struct rec_elfsym *sym;
	struct rec_elfsyms *s;

	dl_iterate_phdr(phdr_cb, &pf);
	CU_ASSERT_FATAL(pf.found);
	CU_ASSERT_EQUAL_FATAL(rec_elfsyms_load(pf.path, &s), 0);
	CU_ASSERT(s->nr_syms > 500);
	CU_ASSERT(s->build_id_sz > 0);
	CU_ASSERT(sorted_and_sized(s));
	sym = find_sym(s, "malloc");
	CU_ASSERT_PTR_NOT_NULL(sym);
	CU_ASSERT(sym && sym->size > 0);
	CU_ASSERT_PTR_NOT_NULL(find_sym(s, "free"));
	rec_elfsyms_free(s);
}

static char tmpdir[] = "/tmp/pp-elfsyms-XXXXXX";

static void make_tmpdir(void)
{
	static bool done;

	if (!done)
		done = mkdtemp(tmpdir) != NULL;
}

static bool write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf = NULL;
	long sz;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)sz);
		if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)sz;
	}
	fclose(f);
	return buf;
}

/* A hostile file fails cleanly or loads something sane; it never crashes. */
static void check_hostile(const char *path)
{
	struct rec_elfsyms *s = NULL;
	int rc = rec_elfsyms_load_from(path, NULL, &s);

	CU_ASSERT(rc == 0 || rc == -ENOEXEC);
	if (rc == 0) {
		CU_ASSERT(sorted_and_sized(s));
		for (size_t i = 0; i < s->nr_syms; i++)
			CU_ASSERT(strlen(s->syms[i].name) <= REC_ELFSYMS_MAX_NAME);
	} else {
		CU_ASSERT_PTR_NULL(s);
	}
	rec_elfsyms_free(s);
}

static void test_elfsyms__broken_files(void)
{
	struct rec_elfsyms *s = (void *)1;
	uint64_t seed = 0x5eed;
	char path[256];
	uint8_t *img, *mut, junk[4096];
	size_t len = 0;

	make_tmpdir();
	CU_ASSERT_EQUAL(rec_elfsyms_load("/nonexistent/pp-test-binary", &s), -ENOENT);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(rec_elfsyms_load(tmpdir, &s), -EINVAL);
	CU_ASSERT_EQUAL(rec_elfsyms_load("/dev/null", &s), -EINVAL);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 7 + 3);
	snprintf(path, sizeof(path), "%s/garbage", tmpdir);
	CU_ASSERT_FATAL(write_file(path, junk, sizeof(junk)));
	CU_ASSERT_EQUAL(rec_elfsyms_load(path, &s), -ENOEXEC);
	CU_ASSERT_FATAL(write_file(path, "", 0));
	CU_ASSERT_EQUAL(rec_elfsyms_load(path, &s), -ENOEXEC);

	img = read_whole("/proc/self/exe", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);
	/* truncations */
	for (size_t cut = 4; cut < len; cut = cut * 3 + 1) {
		CU_ASSERT_FATAL(write_file(path, img, cut));
		check_hostile(path);
	}
	CU_ASSERT_FATAL(write_file(path, img, len - 1));
	check_hostile(path);
	/* random corruption of headers, tables and everything else */
	mut = malloc(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mut);
	for (int round = 0; round < 150; round++) {
		memcpy(mut, img, len);
		for (int k = 0; k < 24; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t where = (seed >> 33) % (k < 8 ? 64 : k < 16 ? 4096 : len);

			if (k >= 16 && round % 2) /* odd rounds: section headers at the end */
				where = len - 1 - (seed >> 33) % (len < 8192 ? len : 8192);
			mut[where] = (uint8_t)(seed >> 17);
		}
		CU_ASSERT_FATAL(write_file(path, mut, len));
		check_hostile(path);
	}
	free(mut);
	free(img);
	unlink(path);
}

static void test_elfsyms__debug_file(void)
{
	struct phdr_find pf = { .want = "libc.so" };
	char dir[512], path[1024], *p;
	struct rec_elfsyms *s, *d;
	uint8_t *img;
	size_t len;

	make_tmpdir();
	CU_ASSERT_EQUAL_FATAL(rec_elfsyms_load_from("/proc/self/exe", NULL, &s), 0);
	CU_ASSERT_FATAL(s->build_id_sz >= 2);
	snprintf(dir, sizeof(dir), "%s/.build-id", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/.build-id/%02x", tmpdir, s->build_id[0]);
	mkdir(dir, 0700);
	p = path + snprintf(path, sizeof(path), "%s/", dir);
	for (uint32_t i = 1; i < s->build_id_sz; i++)
		p += sprintf(p, "%02x", s->build_id[i]);
	strcpy(p, ".debug");
	img = read_whole("/proc/self/exe", &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);
	CU_ASSERT_FATAL(write_file(path, img, len));
	CU_ASSERT_EQUAL(rec_elfsyms_load_from("/proc/self/exe", tmpdir, &d), 0);
	CU_ASSERT(d->flags & PPF_DSO_DEBUGINFO);
	CU_ASSERT_EQUAL(d->nr_syms, s->nr_syms);
	CU_ASSERT_PTR_NOT_NULL(find_sym(d, "test_elfsyms_marker"));
	rec_elfsyms_free(d);
	/* a broken debug file, or one of another build, is ignored */
	CU_ASSERT_FATAL(write_file(path, "\177ELF", 4));
	CU_ASSERT_EQUAL(rec_elfsyms_load_from("/proc/self/exe", tmpdir, &d), 0);
	CU_ASSERT_EQUAL(d->flags & PPF_DSO_DEBUGINFO, 0);
	CU_ASSERT_EQUAL(d->nr_syms, s->nr_syms);
	rec_elfsyms_free(d);
	dl_iterate_phdr(phdr_cb, &pf);
	free(img);
	img = read_whole(pf.path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);
	CU_ASSERT_FATAL(write_file(path, img, len));
	CU_ASSERT_EQUAL(rec_elfsyms_load_from("/proc/self/exe", tmpdir, &d), 0);
	CU_ASSERT_EQUAL(d->flags & PPF_DSO_DEBUGINFO, 0);
	CU_ASSERT_PTR_NOT_NULL(find_sym(d, "test_elfsyms_marker"));
	rec_elfsyms_free(d);
	unlink(path);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/.build-id", tmpdir);
	rmdir(dir);
	free(img);
	rec_elfsyms_free(s);
}

static void test_elfsyms__jitmap(void)
{
	static const char text[] =
		"7f0000003000 40 LazyCompile:~f app.js:3\n"
		"0x7f0000001000 0 Builtin:Call \r\n"
		"not a line\n"
		"7f0000002000 x bad\n"
		"7f0000001000 10 duplicate_start\n"
		"ffffffffffffff00 1000 wraps\n"
		"7f0000002000 20 Stub:CEntry\n"
		"7f0000009000 10 half-written";
	struct rec_elfsyms *s;
	char path[256];

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/perf-4242.map", tmpdir);
	CU_ASSERT_FATAL(write_file(path, text, sizeof(text) - 1));
	CU_ASSERT_EQUAL_FATAL(rec_jitmap_load(path, &s), 0);
	CU_ASSERT_EQUAL(s->flags, PPF_DSO_JITMAP);
	CU_ASSERT_STRING_EQUAL(s->path, path);
	CU_ASSERT_EQUAL_FATAL(s->nr_syms, 4);
	CU_ASSERT_EQUAL(s->syms[0].start, 0x7f0000001000);
	CU_ASSERT_STRING_EQUAL(s->syms[0].name, "Builtin:Call");	/* by name at one address */
	CU_ASSERT_EQUAL(s->syms[0].size, 0x1000);	/* up to the next address */
	CU_ASSERT_STRING_EQUAL(s->syms[1].name, "duplicate_start");
	CU_ASSERT_EQUAL(s->syms[1].size, 0x10);
	CU_ASSERT_STRING_EQUAL(s->syms[2].name, "Stub:CEntry");
	CU_ASSERT_STRING_EQUAL(s->syms[3].name, "LazyCompile:~f app.js:3");
	CU_ASSERT_EQUAL(s->syms[3].size, 0x40);
	rec_elfsyms_free(s);
	/* a size-less entry extends to the next one */
	CU_ASSERT_FATAL(write_file(path, "1000 0 a\n1800 8 b\n", 18));
	CU_ASSERT_EQUAL_FATAL(rec_jitmap_load(path, &s), 0);
	CU_ASSERT_EQUAL(s->nr_syms, 2);
	CU_ASSERT_EQUAL(s->syms[0].size, 0x800);
	rec_elfsyms_free(s);
	CU_ASSERT_EQUAL(rec_jitmap_load("/nonexistent/perf-1.map", &s), -ENOENT);
	unlink(path);
}

/* The capture gets one DSO record, then its SYMs; a DSO record opens every segment. */
static void test_elfsyms__write(void)
{
	struct ppf_writer_opts o = { .seg_max_raw = 8192 };
	struct phdr_find pf = { .want = "libc.so" };
	const struct ppf_segment *seg;
	struct ppf_writer *w;
	struct ppf_reader *r;
	struct ppf_record rec;
	struct rec_elfsyms *s;
	uint64_t last_seq = UINT64_MAX;
	size_t nsym = 0, ndso = 0, bad = 0;
	char path[256];
	int rc;

	make_tmpdir();
	dl_iterate_phdr(phdr_cb, &pf);
	CU_ASSERT_FATAL(pf.found);
	CU_ASSERT_EQUAL_FATAL(rec_elfsyms_load(pf.path, &s), 0);
	snprintf(path, sizeof(path), "%s/syms.ppcap", tmpdir);
	CU_ASSERT_EQUAL_FATAL(ppf_writer_open(path, &o, &w), 0);
	CU_ASSERT_EQUAL(rec_elfsyms_write(w, s), 0);
	CU_ASSERT_EQUAL(ppf_writer_close(w), 0);
	CU_ASSERT_EQUAL_FATAL(ppf_reader_open(path, PPF_READ_STRICT, &r), 0);
	while ((rc = ppf_reader_next(r, &rec, &seg)) == 0) {
		bool first = seg->seq != last_seq;

		last_seq = seg->seq;
		if (seg->kind != PPF_SEG_USYMS)
			continue;
		if (rec.type == PPF_REC_DSO) {
			ndso++;
			const struct ppf_dso *d = &rec.u.dso;

			bad += d->nr_syms != s->nr_syms || d->build_id_sz != s->build_id_sz ||
			       memcmp(d->build_id, s->build_id, s->build_id_sz) ||
			       strcmp(d->path, s->path) || d->text_vaddr != s->text_vaddr ||
			       d->text_offset != s->text_offset;
		} else if (rec.type == PPF_REC_SYM) {
			bad += first;	/* a SYM may not open a segment */
			bad += nsym >= s->nr_syms || rec.u.sym.start != s->syms[nsym].start ||
			       rec.u.sym.size != s->syms[nsym].size ||
			       strcmp(rec.u.sym.name, s->syms[nsym].name);
			nsym++;
		}
	}
	CU_ASSERT_EQUAL(rc, PPF_END);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(nsym, s->nr_syms);
	CU_ASSERT(ndso > 1);		/* 8 KiB segments: the table spans several */
	ppf_reader_close(r);
	rec_elfsyms_free(s);
	unlink(path);
	rmdir(tmpdir);
}

/* /proc/kallsyms lines, cut in place: the snapshot's and the one-name lookup's parser */
static void test_elfsyms__kallsyms_line(void)
{
	char a[] = "ffffffff81000000 T _stext", b[] = "ffffffffc0a01010 t nf_hook\t[nf_tables]";
	char c[] = "zz T bad", d[] = "ffffffff81000000 ", e[] = "12345678901234567 T toolong";
	char f[] = "ffffffffc0a01010 t mod\t[unclosed";
	struct ppf_ksym k;

	CU_ASSERT_FATAL(ppf_ksym_parse(a, strlen(a), &k));
	CU_ASSERT_EQUAL(k.addr, 0xffffffff81000000ull);
	CU_ASSERT_EQUAL(k.type, 'T');
	CU_ASSERT_STRING_EQUAL(k.name, "_stext");
	CU_ASSERT_STRING_EQUAL(k.module, "");
	CU_ASSERT_FATAL(ppf_ksym_parse(b, strlen(b), &k));
	CU_ASSERT_STRING_EQUAL(k.name, "nf_hook");
	CU_ASSERT_STRING_EQUAL(k.module, "nf_tables");
	CU_ASSERT_FALSE(ppf_ksym_parse(c, strlen(c), &k));
	CU_ASSERT_FALSE(ppf_ksym_parse(d, strlen(d), &k));
	CU_ASSERT_FALSE(ppf_ksym_parse(e, strlen(e), &k));
	CU_ASSERT_FATAL(ppf_ksym_parse(f, strlen(f), &k));	/* no module, not garbage */
	CU_ASSERT_STRING_EQUAL(k.name, "mod");
	CU_ASSERT_STRING_EQUAL(k.module, "");
}

void test_elfsyms__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_elfsyms__self, "own .symtab: a static function at its address"),
		PP_TEST(test_elfsyms__libc_dynsym, "libc: .dynsym fallback finds malloc"),
		PP_TEST(test_elfsyms__broken_files, "missing, special, garbage, cut, corrupt"),
		PP_TEST(test_elfsyms__debug_file, "debug file by build id; a mismatch is ignored"),
		PP_TEST(test_elfsyms__jitmap, "perf-PID.map reader"),
		PP_TEST(test_elfsyms__write, "DSO + SYM records round-trip through a capture"),
		PP_TEST(test_elfsyms__kallsyms_line, "kallsyms lines: module, garbage, too long"),
	};

	pp_suite_add("elfsyms", tests, PP_ARRAY_SIZE(tests));
}
