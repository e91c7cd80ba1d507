/* SPDX-License-Identifier: MIT */
/*
 * test-usdt.c - the USDT note reader (record/probe/usdt.c) and the SDT operand translation
 * (record/probe/usdt-arg.c) without a kernel: note descriptors as bytes, an ELF image built in
 * memory (semaphores, a prelinked copy, malformed notes), probe selections, uprobe
 * definitions, and the probe <sys/sdt.h> leaves in this test binary itself.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "record/probe/usdt-arg.h"
#include "record/probe/usdt.h"
#include "record/symbols/elfsyms.h"
#include "tests/unit/unit.h"

#if defined(__has_include)
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define HAVE_SDT 1
#endif
#endif

/* --- note descriptors ----------------------------------------------------- */

/* A descriptor: three addresses of @w bytes (@msb order), then the strings. */
static size_t make_desc(uint8_t *out, int w, bool msb, uint64_t a, uint64_t b, uint64_t c,
			const char *prov, const char *name, const char *args)
{
	uint64_t v[3] = { a, b, c };
	size_t n = 0;

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < w; i++)
			out[n++] = (uint8_t)(v[k] >> (8 * (msb ? w - 1 - i : i)));
	n += (size_t)sprintf((char *)out + n, "%s", prov) + 1;
	n += (size_t)sprintf((char *)out + n, "%s", name) + 1;
	n += (size_t)sprintf((char *)out + n, "%s", args) + 1;
	return n;
}

static void test_usdt__note_decode(void)
{
	uint8_t d[256];
	struct rec_usdt_note n;
	size_t sz = make_desc(d, 8, false, 0x1139, 0x2004, 0x4010, "prov", "name", "-4@%edi");

	CU_ASSERT_EQUAL_FATAL(rec_usdt_note_decode(d, sz, true, false, &n), 0);
	CU_ASSERT_EQUAL(n.addr, 0x1139);
	CU_ASSERT_EQUAL(n.base, 0x2004);
	CU_ASSERT_EQUAL(n.semaphore, 0x4010);
	CU_ASSERT_STRING_EQUAL(n.provider, "prov");
	CU_ASSERT_STRING_EQUAL(n.name, "name");
	CU_ASSERT_STRING_EQUAL(n.args, "-4@%edi");

	sz = make_desc(d, 4, true, 0x80001000, 0x80002000, 0, "p", "n", "");
	CU_ASSERT_EQUAL_FATAL(rec_usdt_note_decode(d, sz, false, true, &n), 0);
	CU_ASSERT_EQUAL(n.addr, 0x80001000);
	CU_ASSERT_EQUAL(n.base, 0x80002000);
	CU_ASSERT_EQUAL(n.semaphore, 0);
	CU_ASSERT_STRING_EQUAL(n.args, "");

	/* every truncation, and bytes after the strings, are malformed */
	sz = make_desc(d, 8, false, 1, 2, 3, "prov", "name", "8@%rax");
	for (size_t cut = 0; cut < sz; cut++)
		CU_ASSERT_EQUAL(rec_usdt_note_decode(d, cut, true, false, &n), PP_EBAD_RECORD);
	d[sz] = 'x';
	CU_ASSERT_EQUAL(rec_usdt_note_decode(d, sz + 1, true, false, &n), PP_EBAD_RECORD);
	d[sz - 1] = 'x';	/* the last string unterminated */
	CU_ASSERT_EQUAL(rec_usdt_note_decode(d, sz, true, false, &n), PP_EBAD_RECORD);
}

/* --- operands ------------------------------------------------------------- */

static int fake_sym(void *arg, const char *name, uint64_t *vaddr)
{
	(void)arg;
	if (strcmp(name, "counter") && strcmp(name, "mp_"))
		return PP_ENOT_FOUND;
	*vaddr = !strcmp(name, "counter") ? 0x4010 : 0x5000;
	return 0;
}

static void test_usdt__arg_fetch(void)
{
	static const struct {
		const char *spec, *fetch, *type;
		int rc;
	} cases[] = {
		{ "-4@%edi", "%di", "s32", 0 },
		{ "8@%rax", "%ax", "u64", 0 },
		{ "-8@%rbx", "%bx", "s64", 0 },
		{ "1@%bl", "%bx", "u8", 0 },
		{ "-2@%r12w", "%r12", "s16", 0 },
		{ "4@%r15d", "%r15", "u32", 0 },
		{ "1@%ah", "%ax", "b8@8/64", 0 },
		{ "%rsi", "%si", "", 0 },
		{ "8@-16(%rbp)", "-16(%bp)", "u64", 0 },
		{ "-4@112(%rsp)", "+112(%sp)", "s32", 0 },
		{ "-2@(%rdi)", "+0(%di)", "s16", 0 },
		{ "4@0x10(%r8)", "+16(%r8)", "u32", 0 },
		{ "4@$5", "\\5", "u32", 0 },
		{ "-4@$-1", "\\-1", "s32", 0 },
		{ "8@counter(%rip)", "@+0x3010", "u64", 0 },
		{ "8@counter+8(%rip)", "@+0x3018", "u64", 0 },
		{ "-4@44+mp_(%rip)", "@+0x402c", "s32", 0 },
		{ "8@(%rax,%rsi,8)", NULL, NULL, PP_ENOTSUP },
		{ "8@10(%rax,%rsi,8)", NULL, NULL, PP_ENOTSUP },
		{ "8@$sym", NULL, NULL, PP_ENOTSUP },
		{ "8@%fs:8", NULL, NULL, PP_ENOTSUP },
		{ "8@nosuch(%rip)", NULL, NULL, PP_ENOTSUP },
		{ "8@sym(%rbx)", NULL, NULL, PP_ENOTSUP },
		{ "8@%xmm0", NULL, NULL, PP_ENOTSUP },
		{ "8@-8(%ah)", NULL, NULL, PP_ENOTSUP },
		{ "3@%eax", NULL, NULL, PP_ESYNTAX },
		{ "x@%eax", NULL, NULL, PP_ESYNTAX },
		{ "8@", NULL, NULL, PP_ESYNTAX },
		{ "8@-16(%rbp", NULL, NULL, PP_ESYNTAX },
		{ "8@%rax\n", NULL, NULL, PP_ESYNTAX },
	};
	/* a probe at ELF address 0x12f0, file offset 0x2f0: the kernel's base is 0x1000 */
	struct rec_usdt_argctx ctx = { .pc = 0x12f0, .off = 0x2f0, .sym = fake_sym };
	struct pp_buf b = PP_BUF_INIT;

	for (size_t i = 0; i < PP_ARRAY_SIZE(cases); i++) {
		char type[16], why[256];
		int rc;

		pp_buf_reset(&b);
		rc = rec_usdt_arg_fetch(cases[i].spec, &ctx, &b, type, sizeof(type), why,
					sizeof(why));
		if (rc != cases[i].rc)
			fprintf(stderr, "\n%s: rc %d (%s), expected %d\n", cases[i].spec, rc, why,
				cases[i].rc);
		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (rc) {
			CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "");	/* nothing appended */
			CU_ASSERT_TRUE(why[0] != '\0');
			continue;
		}
		if (strcmp(pp_buf_str(&b), cases[i].fetch) || strcmp(type, cases[i].type))
			fprintf(stderr, "\n%s: '%s' '%s'\n", cases[i].spec, pp_buf_str(&b), type);
		CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), cases[i].fetch);
		CU_ASSERT_STRING_EQUAL(type, cases[i].type);
	}
	pp_buf_release(&b);
}

/* --- selections ----------------------------------------------------------- */

static void test_usdt__spec_parse(void)
{
	static const struct {
		const char *text, *provider, *name, *path, *fmts;
		uint64_t addr;
		int rc;
	} cases[] = {
		{ "/bin/x", NULL, NULL, "/bin/x", NULL, 0, 0 },
		{ "fire@/bin/x", NULL, "fire", "/bin/x", NULL, 0, 0 },
		{ "sdt:fire@/bin/x", "sdt", "fire", "/bin/x", NULL, 0, 0 },
		{ "sdt:fire@/bin/x@0x1139", "sdt", "fire", "/bin/x", NULL, 0x1139, 0 },
		{ "/bin/x@4409", NULL, NULL, "/bin/x", NULL, 4409, 0 },
		{ "fire@x n=%s:s32  s=+0(%s):string", NULL, "fire", "x",
		  "n=%s:s32  s=+0(%s):string", 0, 0 },
		{ "/opt/a@b/c", NULL, NULL, "/opt/a@b/c", NULL, 0, 0 },
		{ "/opt/c@latest", NULL, NULL, "/opt/c@latest", NULL, 0, 0 },
		{ "fire@", NULL, NULL, NULL, NULL, 0, PP_ESYNTAX },
		{ "@/bin/x", NULL, NULL, NULL, NULL, 0, PP_ESYNTAX },
		{ ":fire@/bin/x", NULL, NULL, NULL, NULL, 0, PP_ESYNTAX },
		{ "sdt:@/bin/x", NULL, NULL, NULL, NULL, 0, PP_ESYNTAX },
		{ "", NULL, NULL, NULL, NULL, 0, PP_ESYNTAX },
	};

	for (size_t i = 0; i < PP_ARRAY_SIZE(cases); i++) {
		struct rec_usdt_spec s;
		char msg[256] = "";
		int rc = rec_usdt_spec_parse(cases[i].text, &s, msg, sizeof(msg));

		if (rc != cases[i].rc)
			fprintf(stderr, "\n'%s': rc %d %s\n", cases[i].text, rc, msg);
		CU_ASSERT_EQUAL(rc, cases[i].rc);
		if (rc) {
			CU_ASSERT_TRUE(msg[0] != '\0');
			CU_ASSERT_PTR_NULL(s.path);
			continue;
		}
#define STR_EQ(a, b) CU_ASSERT_TRUE((a) == NULL ? (b) == NULL : (b) && !strcmp((a), (b)))
		STR_EQ(cases[i].provider, s.provider);
		STR_EQ(cases[i].name, s.name);
		STR_EQ(cases[i].path, s.path);
		STR_EQ(cases[i].fmts, s.fmts);
#undef STR_EQ
		CU_ASSERT_EQUAL(s.has_addr, cases[i].addr != 0);
		CU_ASSERT_EQUAL(s.addr, cases[i].addr);
		rec_usdt_spec_release(&s);
	}
}

/* --- a whole ELF image ---------------------------------------------------- */

#define IMG_SZ 0x2400u
#define TEXT_OFF 0x1000u
#define DATA_OFF 0x2000u
#define NOTE_OFF 0x1200u
#define STR_OFF 0x1600u
#define SHDR_OFF 0x2100u

/* Append a note to @p: owner @owner, @type, the descriptor @d of @dsz bytes. */
static size_t put_note(uint8_t *p, const char *owner, uint32_t type, const void *d, size_t dsz)
{
	Elf64_Nhdr nh = { .n_namesz = (uint32_t)strlen(owner) + 1, .n_descsz = (uint32_t)dsz,
			  .n_type = type };
	size_t n = 0;

	memcpy(p, &nh, sizeof(nh));
	n += sizeof(nh);
	memcpy(p + n, owner, nh.n_namesz);
	n += (nh.n_namesz + 3) & ~3u;
	memcpy(p + n, d, dsz);
	n += (dsz + 3) & ~(size_t)3;
	return n;
}

/*
 * A shared object: text PT_LOAD at vaddr 0x1000 (offset 0x1000), data PT_LOAD at vaddr
 * 0x3000 (offset 0x2000), .stapsdt.base at 0x1100, every address plus @shift (as prelink
 * moves a file) but the notes', which keep the link-time ones.  Notes: prov:one (with a
 * semaphore and two arguments), prov:two (none), a GNU note, a truncated one, one whose
 * address is outside the code.
 */
static void build_image(uint8_t *img, uint64_t shift)
{
	static const char strtab[] = "\0.text\0.stapsdt.base\0.note.stapsdt\0.shstrtab";
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + SHDR_OFF);
	uint8_t d[256];
	size_t sz, n = 0;

	memset(img, 0, IMG_SZ);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = SHDR_OFF;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = TEXT_OFF,
			      .p_vaddr = 0x1000 + shift, .p_filesz = 0x200, .p_memsz = 0x200 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = DATA_OFF,
			      .p_vaddr = 0x3000 + shift, .p_filesz = 0x10, .p_memsz = 0x20 };

	sz = make_desc(d, 8, false, 0x1010, 0x1100, 0x3004, "prov", "one", "-4@%edi 8@-16(%rbp)");
	n += put_note(img + NOTE_OFF + n, "stapsdt", 3, d, sz);
	sz = make_desc(d, 8, false, 0x1020, 0x1100, 0, "prov", "two", "");
	n += put_note(img + NOTE_OFF + n, "stapsdt", 3, d, sz);
	n += put_note(img + NOTE_OFF + n, "GNU", NT_GNU_BUILD_ID, "\x01\x02\x03\x04", 4);
	n += put_note(img + NOTE_OFF + n, "stapsdt", 3, d, 20);
	sz = make_desc(d, 8, false, 0x5000, 0x1100, 0, "prov", "far", "");
	n += put_note(img + NOTE_OFF + n, "stapsdt", 3, d, sz);

	memcpy(img + STR_OFF, strtab, sizeof(strtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = 0x1000 + shift,
			      .sh_offset = TEXT_OFF, .sh_size = 0x100, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = 0x1100 + shift, .sh_offset = TEXT_OFF + 0x100,
			      .sh_size = 1, .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 21, .sh_type = SHT_NOTE, .sh_offset = NOTE_OFF,
			      .sh_size = n, .sh_addralign = 4 };
	sh[4] = (Elf64_Shdr){ .sh_name = 35, .sh_type = SHT_STRTAB, .sh_offset = STR_OFF,
			      .sh_size = sizeof(strtab), .sh_addralign = 1 };
}

static void test_usdt__load_image(void)
{
	static uint8_t img[IMG_SZ];
	const uint64_t shifts[] = { 0, 0x10000 };

	for (size_t k = 0; k < PP_ARRAY_SIZE(shifts); k++) {
		struct rec_usdt_file *f = NULL;
		char msg[256] = "";
		const struct rec_usdt_probe *p;

		build_image(img, shifts[k]);
		CU_ASSERT_EQUAL_FATAL(rec_usdt_load_mem(img, sizeof(img), "img", &f, msg,
							sizeof(msg)), 0);
		CU_ASSERT_EQUAL(f->machine, EM_X86_64);
		CU_ASSERT_EQUAL_FATAL(f->nr_probes, 2);
		CU_ASSERT_EQUAL(f->nr_bad, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(f->bad_msg, "note 3: malformed"));
		p = &f->probes[0];
		CU_ASSERT_STRING_EQUAL(p->provider, "prov");
		CU_ASSERT_STRING_EQUAL(p->name, "one");
		CU_ASSERT_STRING_EQUAL(p->args, "-4@%edi 8@-16(%rbp)");
		CU_ASSERT_EQUAL(p->addr, 0x1010);	/* as the note says */
		CU_ASSERT_EQUAL(p->semaphore, 0x3004);
		CU_ASSERT_EQUAL(p->pc, 0x1010 + shifts[k]);	/* moved with the file */
		CU_ASSERT_EQUAL(p->off, 0x1010);	/* the file did not change */
		CU_ASSERT_EQUAL(p->sema_off, 0x2004);	/* in the data segment: 0x3004 - 0x1000 */
		p = &f->probes[1];
		CU_ASSERT_STRING_EQUAL(p->name, "two");
		CU_ASSERT_EQUAL(p->off, 0x1020);
		CU_ASSERT_EQUAL(p->sema_off, 0);
		rec_usdt_file_free(f);
	}

	/* no .note.stapsdt: PP_ENOT_FOUND, and the message says so */
	{
		struct rec_usdt_file *f = NULL;
		char msg[256] = "";

		build_image(img, 0);
		memcpy(img + STR_OFF + 21, ".note.stapxxx", 13);
		CU_ASSERT_EQUAL(rec_usdt_load_mem(img, sizeof(img), "img", &f, msg, sizeof(msg)),
				PP_ENOT_FOUND);
		CU_ASSERT_PTR_NULL(f);
		CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no USDT probes"));
		memcpy(img, "\x7f" "ELX", 4);
		CU_ASSERT_EQUAL(rec_usdt_load_mem(img, sizeof(img), "img", &f, msg, sizeof(msg)),
				PP_EBAD_MAGIC);
	}
}

/* --- definitions ---------------------------------------------------------- */

static void test_usdt__uprobe_def(void)
{
	static uint8_t img[IMG_SZ];
	struct rec_usdt_file *f = NULL;
	struct rec_usdt_probe p;
	struct pp_buf def = PP_BUF_INIT, warn = PP_BUF_INIT;
	char msg[256];

	build_image(img, 0);
	CU_ASSERT_EQUAL_FATAL(rec_usdt_load_mem(img, sizeof(img), "img", &f, msg, sizeof(msg)), 0);
	p = f->probes[0];

	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/lib/img.so", NULL, &def, &warn, msg,
					    sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&def), "p:prov/one /lib/img.so:0x0000000000001010(0x2004)"
			       " arg1=%di:s32 arg2=-16(%bp):u64");
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&warn), "");

	/* format words: %s is the location; a word without it keeps argN; no word, no arg */
	pp_buf_reset(&def);
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/lib/img.so", "n=%s:x32 other", &def, &warn,
					    msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&def), "p:prov/one /lib/img.so:0x0000000000001010(0x2004)"
			       " n=%di:x32 arg2=-16(%bp):u64");
	pp_buf_reset(&def);
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/lib/img.so", "s=+0(%s):string", &def, &warn,
					    msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&def), "p:prov/one /lib/img.so:0x0000000000001010(0x2004)"
			       " s=+0(%di):string");

	/* an operand a uprobe cannot fetch: left out, one warning line, argN numbering kept */
	free(p.args);
	p.args = pp_xstrdup("8@(%rax,%rsi,8) -4@%esi");
	pp_buf_reset(&def);
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/x", NULL, &def, &warn, msg, sizeof(msg)), 0);
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&def), "p:prov/one /x:0x0000000000001010(0x2004)"
			       " arg2=%si:s32");
	CU_ASSERT_PTR_NOT_NULL(strstr(pp_buf_str(&warn), "'8@(%rax,%rsi,8)' of prov:one"));

	/* names the kernel cannot take, paths it cannot parse, formats with control bytes */
	free(p.provider);
	p.provider = pp_xstrdup("ev\x1b[31mil");
	pp_buf_reset(&def);
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/x", NULL, &def, &warn, msg, sizeof(msg)),
			PP_ESYNTAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ev\\x1b[31mil:one"));
	CU_ASSERT_PTR_NULL(strchr(msg, '\x1b'));
	free(p.provider);
	p.provider = pp_xstrdup("prov");
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/x y", NULL, &def, &warn, msg, sizeof(msg)),
			PP_ESYNTAX);
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/x", "a=%s\nb", &def, &warn, msg,
					    sizeof(msg)), PP_ESYNTAX);
	free(p.args);
	p.args = pp_xstrdup("8@%rax junk@@");
	CU_ASSERT_EQUAL(rec_usdt_uprobe_def(f, &p, "/x", NULL, &def, &warn, msg, sizeof(msg)),
			PP_ESYNTAX);

	f->probes[0].provider = p.provider;	/* freed with the file */
	f->probes[0].args = p.args;
	pp_buf_release(&def);
	pp_buf_release(&warn);
	rec_usdt_file_free(f);
}

static void test_usdt__escape(void)
{
	struct pp_buf b = PP_BUF_INIT;

	rec_usdt_escape(&b, "ok_1:a\\b\x1b[2J\n\x7f\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(pp_buf_str(&b), "ok_1:a\\\\b\\x1b[2J\\x0a\\x7f\\xc3\\xa9");
	pp_buf_release(&b);
	CU_ASSERT_TRUE(rec_usdt_name_ok("function__entry"));
	CU_ASSERT_TRUE(rec_usdt_name_ok("_x9"));
	CU_ASSERT_FALSE(rec_usdt_name_ok("9x"));
	CU_ASSERT_FALSE(rec_usdt_name_ok("a-b"));
	CU_ASSERT_FALSE(rec_usdt_name_ok(""));
}

/* --- this binary's own probe ---------------------------------------------- */

#ifdef HAVE_SDT
__attribute__((noinline, used)) int test_usdt_marker_fn(int x);
__attribute__((noinline, used)) int test_usdt_marker_fn(int x)
{
	STAP_PROBE1(pp_unit, marker, x);
	return x + 1;
}
#endif

static void test_usdt__self(void)
{
#ifdef HAVE_SDT
	struct rec_usdt_file *f = NULL;
	struct rec_elfsyms *es = NULL;
	const struct rec_usdt_probe *p = NULL;
	char msg[256];

	CU_ASSERT_EQUAL_FATAL(rec_usdt_load("/proc/self/exe", &f, msg, sizeof(msg)), 0);
	for (size_t i = 0; i < f->nr_probes; i++)
		if (!strcmp(f->probes[i].provider, "pp_unit") &&
		    !strcmp(f->probes[i].name, "marker"))
			p = &f->probes[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(f->nr_bad, 0);
	CU_ASSERT_EQUAL(strncmp(p->args, "-4@", 3), 0);	/* a signed int */
	/* the site lies inside the function the probe is written in */
	CU_ASSERT_EQUAL_FATAL(rec_elfsyms_load_from("/proc/self/exe", NULL, &es), 0);
	for (size_t i = 0; i < es->nr_syms; i++) {
		if (strcmp(es->syms[i].name, "test_usdt_marker_fn"))
			continue;
		CU_ASSERT_TRUE(p->pc >= es->syms[i].start &&
			       p->pc < es->syms[i].start + es->syms[i].size);
		CU_ASSERT_EQUAL(p->off, p->pc - es->text_vaddr + es->text_offset);
	}
	rec_elfsyms_free(es);
	rec_usdt_file_free(f);
	CU_ASSERT_EQUAL(test_usdt_marker_fn(1), 2);
#endif
}

void test_usdt__register(void)
{
	static const struct pp_test tests[] = {
		PP_TEST(test_usdt__note_decode,
			"stapsdt descriptors decode in both classes and byte orders; any truncation is malformed"),
		PP_TEST(test_usdt__arg_fetch,
			"SDT operands become uprobe fetch arguments, or are refused with a reason"),
		PP_TEST(test_usdt__spec_parse, "[[provider:]name@]binpath[@addr][ args] selections"),
		PP_TEST(test_usdt__load_image,
			"probe and semaphore file offsets, prelinked files, malformed notes"),
		PP_TEST(test_usdt__uprobe_def,
			"uprobe_events lines, argument formats, unsupported and hostile input"),
		PP_TEST(test_usdt__escape, "names from binaries are escaped; tracefs names checked"),
		PP_TEST(test_usdt__self, "this binary's own probe is found inside its function"),
	};
	pp_suite_add("usdt", tests, PP_ARRAY_SIZE(tests));
}
