/* SPDX-License-Identifier: MIT */
/*
 * perfdata-syms.c - symbols for a perf.data's addresses, from this machine when they
 * match: perf.data holds build ids and paths, not symbol tables.
 *
 * Kernel: /proc/kallsyms is used only when this machine runs the file's kernel - the
 * same release, the same build id when the file has one, and _text where the file's
 * kernel map says it was (the same KASLR offset: the same boot, in practice).  Else
 * kernel frames stay addresses, and that is said once.
 * User: each binary the file maps executable is read here (libelf) when its build id
 * is the file's for that path; a file without build ids (perf record -B) is matched
 * by path alone, as perf report does, and that is said.  Its functions become a DSO
 * and its SYM records in the capture, as pp-record writes them.
 * Not here: which maps a task has (the capture's MMAP records do that).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyze/import/perfdata.h"
#include "common/limits.h"
#include "format/format.h"
#include "format/cfi.h"
#include "format/ksym.h"

/* This kernel's build id, from /sys/kernel/notes (an ELF note list). Return: its size, 0 if none. */
static size_t kernel_build_id(uint8_t *out)
{
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	size_t at = 0;

	if (fd >= 0)
		close(fd);
	while (n > 0 && at + 12 <= (size_t)n) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, buf + at, 4);
		memcpy(&dsz, buf + at + 4, 4);
		memcpy(&type, buf + at + 8, 4);
		size_t name_end = at + 12 + ((nsz + 3u) & ~3u), end = name_end + ((dsz + 3u) & ~3u);
		if (nsz > 4096 || dsz > 4096 || end > (size_t)n)
			break;
		if (type == 3 && nsz == 4 && !memcmp(buf + at + 12, "GNU", 4) && dsz <= 20) {
			memcpy(out, buf + name_end, dsz);
			return dsz;
		}
		at = end;
	}
	return 0;
}

/* Why this machine's kallsyms are not the file's kernel's, or NULL when they are. */
static const char *kernel_mismatch(struct pd_file *f)
{
	const struct pd_build_id *b = NULL;
	uint8_t bid[20];
	size_t bsz = kernel_build_id(bid);
	struct utsname u;

	uname(&u);
	if (!f->osrelease[0])
		return "the file names no kernel release";
	if (strcmp(f->osrelease, u.release))
		return "this machine runs another kernel";
	for (size_t i = 0; i < f->nr_bids && !b; i++)
		if (f->bids[i].kernel && !strncmp(f->bids[i].path, "[kernel.kallsyms]", 17))
			b = &f->bids[i];
	if (b && bsz && (b->sz != bsz || memcmp(b->id, bid, bsz)))
		return "this machine's kernel has another build id";
	return NULL;
}

int pd_write_ksyms(struct pd_file *f)
{
	const char *why = kernel_mismatch(f);
	FILE *fp;
	char line[1024];
	bool text_ok = !f->kernel_text;
	int rc = 0;

	if (!why && f->info->offline)
		why = "this machine's are not looked at";
	if (!why && !(fp = fopen("/proc/kallsyms", "re")))
		why = "this machine's /proc/kallsyms cannot be read";
	if (why) {
		ana_import_lack(f->info, "no kernel symbol table in a perf.data, and %s: kernel "
				"frames are addresses", why);
		return 0;
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 20);	/* fewer, larger reads of a slow proc file */
	/* the file's kernel map starts at _text: the same address here, or another boot */
	while (!text_ok && fgets(line, sizeof(line), fp)) {
		struct ppf_ksym k;

		if (ppf_ksym_parse(line, strcspn(line, "\n"), &k) &&
		    (!strcmp(k.name, "_text") || !strcmp(k.name, "_stext")) &&
		    k.addr == f->kernel_text)
			text_ok = true;
	}
	if (!text_ok) {
		fclose(fp);
		ana_import_lack(f->info, "no kernel symbol table in a perf.data, and this machine's "
				"kernel is at another address (another boot): kernel frames are addresses");
		return 0;
	}
	rewind(fp);
	while (!rc && fgets(line, sizeof(line), fp)) {
		struct ppf_ksym k;

		if (ppf_ksym_parse(line, strcspn(line, "\n"), &k) && k.addr)
			rc = ppf_write_ksym(f->w, &k);
	}
	fclose(fp);
	if (!rc)
		ana_import_lack(f->info, "no kernel symbol table in a perf.data: this machine's "
				"kallsyms used (the same kernel, build and boot)");
	return rc;
}

/* --- user binaries --------------------------------------------------------- */

struct usyms {
	uint8_t bid[20];
	size_t bid_sz;
	uint64_t text_vaddr, text_offset;
};

static void elf_build_id(Elf *e, struct usyms *u)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz <= 20 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				memcpy(u->bid, (char *)d->d_buf + doff, nh.n_descsz);
				u->bid_sz = nh.n_descsz;
				return;
			}
		}
	}
}

static void elf_text(Elf *e, struct usyms *u)
{
	size_t n = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			u->text_vaddr = ph.p_vaddr;
			u->text_offset = ph.p_offset;
			return;
		}
}

/* The function symbols of the first table of @type into the open USYMS segment. */
static int elf_funcs(struct pd_file *f, Elf *e, Elf64_Word type, const struct ppf_dso *dso,
		     size_t *nr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	struct ppf_writer_totals t0, t1;
	int rc = 0;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
		return 0;
	ppf_writer_totals(f->w, &t0);
	for (size_t i = 1; i < d->d_size / sh.sh_entsize && !rc && *nr < PP_LIMIT_SYMS; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		if ((GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || !s.st_value)
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name || !*name || strlen(name) >= PP_LIMIT_SYM_NAME)
			continue;
		struct ppf_sym y = { s.st_value, s.st_size, name };
		rc = ppf_write_sym(f->w, &y);
		(*nr)++;
		/* a DSO's symbols that go on in a new segment start it with the DSO again */
		ppf_writer_totals(f->w, &t1);
		if (!rc && t1.nr_segments != t0.nr_segments) {
			rc = ppf_write_dso(f->w, dso);
			t0 = t1;
		}
	}
	return rc;
}

/* Does a sample of the file carry a stack copy (perf record --call-graph dwarf)? */
static bool copies_stacks(const struct pd_file *f)
{
	for (size_t i = 0; i < f->nr_attrs; i++)
		if (f->attrs[i].attr.sample_type & PERF_SAMPLE_STACK_USER)
			return true;
	return false;
}

/*
 * The binary's unwind rows (format/cfi.c, as pp-record derives them) after its
 * symbols, for the stack copies to unwind as pp's own: at most PPF_UNWIND_MAX_ROWS a
 * record, the DSO again when the rows go on in a new segment.
 */
static int elf_unwind(struct pd_file *f, Elf *e, size_t file_sz, const struct ppf_dso *d)
{
	struct ppf_unwind_row *rows = NULL;
	struct ppf_writer_totals t0, t1;
	size_t nr = 0;
	int rc = ppf_cfi_read(e, file_sz, &rows, &nr, NULL);

	if (rc)
		return rc == -ENOMEM ? rc : 0;	/* another architecture: no rows */
	ppf_writer_totals(f->w, &t0);
	for (size_t i = 0; !rc && i < nr; i += PPF_UNWIND_MAX_ROWS) {
		size_t n = nr - i < PPF_UNWIND_MAX_ROWS ? nr - i : PPF_UNWIND_MAX_ROWS;

		ppf_writer_totals(f->w, &t1);
		if (t1.nr_segments != t0.nr_segments) {
			rc = ppf_write_dso(f->w, d);
			t0 = t1;
		}
		if (!rc)
			rc = ppf_write_unwind(f->w, PPF_UNWIND_X86_64, rows + i, n);
	}
	if (!rc && nr)
		f->nr_dsos_unwind++;
	free(rows);
	return rc;
}

static int write_dso(struct pd_file *f, const char *path, Elf *e, size_t file_sz,
		     const struct usyms *u)
{
	struct ppf_dso d = { u->bid, (uint32_t)u->bid_sz, path, 0, 0, u->text_vaddr, u->text_offset };
	size_t nr = 0;
	int rc = ppf_writer_begin(f->w, PPF_SEG_USYMS);

	if (!rc)
		rc = ppf_write_dso(f->w, &d);
	if (!rc)
		rc = elf_funcs(f, e, SHT_SYMTAB, &d, &nr);
	if (!rc && !nr)
		rc = elf_funcs(f, e, SHT_DYNSYM, &d, &nr);
	if (!rc && copies_stacks(f))
		rc = elf_unwind(f, e, file_sz, &d);
	return rc;
}

/* FNV-1a of a path: the set of binaries looked at (a collision only skips one) */
static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h | 1;
}

int pd_user_dso(struct pd_file *f, const char *path, const uint8_t *bid, size_t bid_sz)
{
	uint64_t h = path_hash(path);
	struct usyms u = { 0 };
	struct stat st;
	Elf *e;
	int fd, rc = 0;

	if (path[0] != '/' || f->info->offline || pp_u64map_get(&f->dsos_seen, h) || f->dsos_seen.nr >= 65536)
		return 0;	/* [vdso], anon, a binary already looked at */
	pp_u64map_put(&f->dsos_seen, h, (void *)1);
	f->nr_dsos++;
	if (!bid_sz)
		f->nr_dsos_nobid++;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && !fstat(fd, &st)) {
		elf_build_id(e, &u);
		if (!bid_sz || (u.bid_sz == bid_sz && !memcmp(u.bid, bid, bid_sz))) {
			elf_text(e, &u);
			rc = write_dso(f, path, e, (size_t)st.st_size, &u);
			f->nr_dsos_matched++;
		}
	}
	elf_end(e);
	close(fd);
	return rc;
}
