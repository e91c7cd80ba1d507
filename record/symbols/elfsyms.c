/* SPDX-License-Identifier: MIT */
/*
 * elfsyms.c - extract function symbols, build id and text mapping of a binary with libelf.
 *
 * Order of preference for the symbols: the .symtab of <debug root>/.build-id/xx/yyyy.debug
 * (same build id), the binary's .symtab, its .dynsym.  Symbols are collected as raw entries
 * (start, size, end of their section, name offset in one growing name buffer), then sorted
 * by address and name, rid of exact duplicates (keeping a sized one, then global before weak
 * before local, then file order) and given sizes.  Aliases (malloc and __libc_malloc
 * at one address) are all kept: the analysis side picks the name it prints.
 * The file is opened with ELF_C_READ, so libelf reads only the pieces asked for, and each
 * table is checked against the file size and REC_ELFSYMS_MAX_SECTION first: a hostile
 * file costs at most a bounded amount of memory.
 * MiniDebugInfo (Fedora, RHEL): a binary without .symtab may carry .gnu_debugdata, an
 * xz-compressed ELF file whose .symtab holds the local functions .dynsym lacks; it is
 * decompressed (liblzma, at most REC_ELFSYMS_MAX_SECTION bytes) and its function symbols
 * join those of .dynsym.
 * Not here: DWARF, demangling.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/units.h"
#include "format/cfi.h"
#include "record/symbols/elfsyms.h"

struct raw_sym {
	uint64_t start, size, sec_end;
	size_t name_off;
	uint32_t seq;
	uint8_t rank;
};

struct loader {
	struct raw_sym *v;
	size_t nr, alloc;
	char *names;
	size_t names_len, names_alloc;
};

static void loader_reset(struct loader *ld)
{
	free(ld->v);
	free(ld->names);
	memset(ld, 0, sizeof(*ld));
}

static int loader_push(struct loader *ld, uint64_t start, uint64_t size, uint64_t sec_end,
		       uint8_t rank, const char *name, size_t len)
{
	if (ld->nr >= REC_ELFSYMS_MAX_SYMS)
		return 0;	/* keep what we have: a partial table is still useful */
	if (ld->nr == ld->alloc) {
		size_t n = ld->alloc ? ld->alloc * 2 : 1024;
		struct raw_sym *v = realloc(ld->v, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ld->v = v;
		ld->alloc = n;
	}
	if (ld->names_alloc - ld->names_len < len + 1) {
		size_t n = ld->names_alloc ? ld->names_alloc : 16384;
		char *p;

		while (n - ld->names_len < len + 1)
			n *= 2;
		p = realloc(ld->names, n);
		if (!p)
			return -ENOMEM;
		ld->names = p;
		ld->names_alloc = n;
	}
	memcpy(ld->names + ld->names_len, name, len);
	ld->names[ld->names_len + len] = '\0';
	ld->v[ld->nr] = (struct raw_sym){
		.start = start, .size = size, .sec_end = sec_end,
		.name_off = ld->names_len, .seq = (uint32_t)ld->nr, .rank = rank,
	};
	ld->names_len += len + 1;
	ld->nr++;
	return 0;
}

static int raw_cmp(const void *a, const void *b, void *names)
{
	const struct raw_sym *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	c = strcmp((char *)names + x->name_off, (char *)names + y->name_off);
	if (c)
		return c;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort, drop exact duplicates, size, and move the result into @s (the loader is emptied). */
static int loader_finish(struct loader *ld, struct rec_elfsyms *s)
{
	size_t n = 0, next = 0;

	if (ld->nr)
		qsort_r(ld->v, ld->nr, sizeof(*ld->v), raw_cmp, ld->names);
	for (size_t i = 0; i < ld->nr; i++)
		if (!n || ld->v[i].start != ld->v[n - 1].start ||
		    strcmp(ld->names + ld->v[i].name_off, ld->names + ld->v[n - 1].name_off))
			ld->v[n++] = ld->v[i];
	s->syms = calloc(n ? n : 1, sizeof(*s->syms));
	if (!s->syms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct raw_sym *r = &ld->v[i];
		uint64_t size = r->size;

		if (next <= i)		/* first symbol with a greater start */
			for (next = i + 1; next < n && ld->v[next].start == r->start; next++)
				;
		if (!size) {
			size = next < n ? ld->v[next].start - r->start : 0;
			if (r->sec_end > r->start && (!size || r->sec_end - r->start < size))
				size = r->sec_end - r->start;
		}
		s->syms[i] = (struct rec_elfsym){ r->start, size, NULL };
	}
	/* names last: the buffer does not move any more */
	for (size_t i = 0; i < n; i++)
		s->syms[i].name = ld->names + ld->v[i].name_off;
	s->nr_syms = n;
	s->names = ld->names;
	ld->names = NULL;
	loader_reset(ld);
	return 0;
}

/* --- ELF access ----------------------------------------------------------------- */

struct elf_file {
	int fd;
	Elf *elf;
	uint64_t size;
	GElf_Ehdr ehdr;
};

static int open_regular(const char *path, int *fd, uint64_t *size)
{
	struct stat st;
	int err;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return -errno;
	if (fstat(*fd, &st)) {
		err = -errno;
		goto err_close;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto err_close;
	}
	*size = (uint64_t)st.st_size;
	return 0;
err_close:
	close(*fd);
	*fd = -1;
	return err;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

static int elf_file_open(const char *path, struct elf_file *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = open_regular(path, &f->fd, &f->size);
	if (err)
		return err;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = -ENOSYS;
		goto err_close;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->ehdr) ||
	    (f->ehdr.e_type != ET_EXEC && f->ehdr.e_type != ET_DYN)) {
		err = -ENOEXEC;
		goto err_close;
	}
	return 0;
err_close:
	elf_file_close(f);
	return err;
}

/* A section whose contents we may read: inside the file and not absurdly large. */
static bool section_ok(const struct elf_file *f, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size > REC_ELFSYMS_MAX_SECTION)
		return false;
	return sh->sh_offset <= f->size && sh->sh_size <= f->size - sh->sh_offset;
}

static bool note_build_id(Elf_Data *d, struct rec_elfsyms *s)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= REC_ELFSYMS_MAX_BUILD_ID) {
			memcpy(s->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			s->build_id_sz = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

static void read_build_id(struct elf_file *f, struct rec_elfsyms *s)
{
	Elf_Scn *scn = NULL;
	size_t phnum = 0;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !section_ok(f, &sh))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && note_build_id(d, s))
			return;
	}
	/* no section headers (or no note section): try the PT_NOTE segments */
	if (elf_getphdrnum(f->elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    ph.p_filesz > REC_ELFSYMS_MAX_SECTION || ph.p_offset > f->size ||
		    ph.p_filesz > f->size - ph.p_offset)
			continue;
		d = elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && note_build_id(d, s))
			return;
	}
}

static void read_text_segment(struct elf_file *f, struct rec_elfsyms *s)
{
	bool have_load = false;
	size_t phnum = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_load || (ph.p_flags & PF_X)) {
			s->text_vaddr = ph.p_vaddr;
			s->text_offset = ph.p_offset;
			have_load = true;
		}
		if (ph.p_flags & PF_X)
			return;
	}
}

/* End address of section @ndx (for sizing size-less symbols), 0 when unknown. */
static uint64_t section_end(struct elf_file *f, size_t ndx)
{
	Elf_Scn *scn = elf_getscn(f->elf, ndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_addr + sh.sh_size < sh.sh_addr)
		return 0;
	return sh.sh_addr + sh.sh_size;
}

/*
 * Collect the function symbols of the first section of type @type.
 * Return: symbols collected (>= 0), or -ENOMEM.
 */
static ssize_t read_symtab(struct elf_file *f, Elf64_Word type, struct loader *ld)
{
	size_t entsz = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT), last_ndx = SIZE_MAX;
	uint64_t last_end = 0;
	Elf_Scn *scn = NULL, *strscn;
	GElf_Shdr sh, strsh;
	Elf_Data *d;
	size_t before = ld->nr;

	while ((scn = elf_nextscn(f->elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	}
	if (!scn || !entsz || !section_ok(f, &sh))
		return 0;
	strscn = elf_getscn(f->elf, sh.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB ||
	    !section_ok(f, &strsh))
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	for (size_t i = 1; i < d->d_size / entsz; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t start;
		size_t len;
		int t, err;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		t = GELF_ST_TYPE(sym.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !sym.st_value)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		len = strnlen(name, REC_ELFSYMS_MAX_NAME + 1);
		if (len > REC_ELFSYMS_MAX_NAME)
			continue;
		start = sym.st_value;
		if (f->ehdr.e_machine == EM_ARM)
			start &= ~1ull;		/* Thumb bit */
		if (sym.st_size && start + sym.st_size < start)
			continue;
		if (!sym.st_size && sym.st_shndx != last_ndx) {
			last_ndx = sym.st_shndx;
			last_end = section_end(f, sym.st_shndx);
		}
		err = loader_push(ld, start, sym.st_size, sym.st_size ? 0 : last_end,
				  GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
				  GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2, name, len);
		if (err)
			return err;
	}
	return (ssize_t)(ld->nr - before);
}

/* Symbols from the separate debug file, if there is one with our build id. */
static int read_debug_file(const char *root, struct rec_elfsyms *s, struct loader *ld)
{
	char path[4096], *p = path;
	struct rec_elfsyms other = { 0 };
	struct elf_file f;
	ssize_t n;
	int len;

	if (!root || s->build_id_sz < 2)
		return 0;
	len = snprintf(path, sizeof(path), "%s/.build-id/%02x/", root, s->build_id[0]);
	if (len < 0 || (size_t)len + 2 * s->build_id_sz + 8 > sizeof(path))
		return 0;
	p += len;
	for (uint32_t i = 1; i < s->build_id_sz; i++)
		p += sprintf(p, "%02x", s->build_id[i]);
	strcpy(p, ".debug");
	if (elf_file_open(path, &f))
		return 0;
	read_build_id(&f, &other);
	n = 0;
	if (other.build_id_sz == s->build_id_sz &&
	    !memcmp(other.build_id, s->build_id, s->build_id_sz))
		n = read_symtab(&f, SHT_SYMTAB, ld);
	elf_file_close(&f);
	return n < 0 ? (int)n : n > 0;
}

/* The decompressed .gnu_debugdata of @f (free()), its size in *@len; NULL when none. */
static uint8_t *debugdata_xz(struct elf_file *f, size_t *len)
{
	size_t shstr, out_cap = 1u << 16;
	lzma_stream z = LZMA_STREAM_INIT;
	Elf_Scn *scn = NULL;
	uint8_t *out = NULL;
	lzma_ret r = LZMA_OK;
	GElf_Shdr sh;
	Elf_Data *d = NULL;

	*len = 0;
	if (elf_getshdrstrndx(f->elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(f->elf, shstr, sh.sh_name)) &&
		    !strcmp(name, ".gnu_debugdata") && section_ok(f, &sh)) {
			d = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_buf || !d->d_size ||
	    lzma_stream_decoder(&z, REC_ELFSYMS_MAX_SECTION, 0) != LZMA_OK)
		return NULL;
	z.next_in = d->d_buf;
	z.avail_in = d->d_size;
	while (r == LZMA_OK) {
		if (!out || z.avail_out == 0) {
			uint8_t *p;

			if (out)
				out_cap *= 2;
			if (out_cap > REC_ELFSYMS_MAX_SECTION || !(p = realloc(out, out_cap)))
				break;
			out = p;
			z.next_out = out + *len;
			z.avail_out = out_cap - *len;
		}
		r = lzma_code(&z, LZMA_FINISH);
		*len = out_cap - z.avail_out;
	}
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		free(out);
		*len = 0;
		return NULL;
	}
	return out;
}

/* The function symbols of the MiniDebugInfo of @f into @ld.  Return: their number, -ENOMEM. */
static ssize_t read_minidebug(struct elf_file *f, struct loader *ld)
{
	struct elf_file m = { .fd = -1 };
	uint8_t *img = debugdata_xz(f, &m.size);
	ssize_t n = 0;

	if (!img)
		return 0;
	m.elf = elf_memory((char *)img, m.size);
	if (m.elf && elf_kind(m.elf) == ELF_K_ELF && gelf_getehdr(m.elf, &m.ehdr))
		n = read_symtab(&m, SHT_SYMTAB, ld);
	elf_file_close(&m);
	free(img);
	return n;
}

/* The symbols of the open file @f, recorded as @path; @f is closed. */
static int load_open(struct elf_file *f, const char *path, const char *debug_root,
		     struct rec_elfsyms **out)
{
	struct loader ld = { 0 };
	struct rec_elfsyms *s;
	ssize_t n;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		err = -ENOMEM;
		goto err_free;
	}
	read_build_id(f, s);
	read_text_segment(f, s);
	err = read_debug_file(debug_root, s, &ld);
	if (err < 0)
		goto err_free;
	if (err > 0) {
		s->flags |= PPF_DSO_DEBUGINFO;
	} else {
		n = read_symtab(f, SHT_SYMTAB, &ld);
		if (n == 0) {
			ssize_t k = read_symtab(f, SHT_DYNSYM, &ld);

			n = k < 0 ? k : read_minidebug(f, &ld);
			n = n < 0 ? n : k;
		}
		if (n < 0) {
			err = (int)n;
			goto err_free;
		}
	}
	err = loader_finish(&ld, s);
	if (err)
		goto err_free;
	elf_file_close(f);
	*out = s;
	return 0;
err_free:
	loader_reset(&ld);
	rec_elfsyms_free(s);
	elf_file_close(f);
	return err;
}

int rec_elfsyms_load_from(const char *path, const char *debug_root, struct rec_elfsyms **out)
{
	struct elf_file f;
	int err;

	*out = NULL;
	err = elf_file_open(path, &f);
	return err ? err : load_open(&f, path, debug_root, out);
}

int rec_elfsyms_load_mem(const char *name, const void *image, size_t size, bool unwind,
			 struct rec_elfsyms **out)
{
	struct elf_file f = { .fd = -1, .size = size };
	char *copy = malloc(size ? size : 1);
	int err;

	*out = NULL;
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		free(copy);
		return -ENOSYS;
	}
	f.elf = elf_memory(copy, size);
	if (!f.elf || elf_kind(f.elf) != ELF_K_ELF || !gelf_getehdr(f.elf, &f.ehdr)) {
		elf_file_close(&f);
		free(copy);
		return -ENOEXEC;
	}
	if (unwind) {
		struct ppf_unwind_row *rows = NULL;
		size_t nr = 0;

		err = ppf_cfi_read(f.elf, size, &rows, &nr, NULL);
		if (err == -ENOMEM) {
			elf_file_close(&f);
			free(copy);
			return err;
		}
		err = load_open(&f, name, NULL, out);
		if (!err) {
			(*out)->unwind = rows;
			(*out)->nr_unwind = nr;
		} else {
			free(rows);
		}
	} else {
		err = load_open(&f, name, NULL, out);
	}
	free(copy);
	return err;
}

int rec_elfsyms_load(const char *path, struct rec_elfsyms **out)
{
	return rec_elfsyms_load_from(path, REC_ELFSYMS_DEBUG_ROOT, out);
}

/* --- JIT maps -------------------------------------------------------------------- */

static int jitmap_parse(const char *buf, size_t len, struct loader *ld)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;
		uint64_t start = 0, size = 0;
		int err;

		if (!eol)
			break;		/* last line still being written */
		if (pp_parse_hexn(&q, eol, &start) && q < eol && *q++ == ' ' &&
		    pp_parse_hexn(&q, eol, &size) && q < eol && *q++ == ' ' &&
		    (!size || start + size - 1 >= start)) {
			const char *e = eol;

			while (e > q && (e[-1] == '\r' || e[-1] == ' '))
				e--;
			if (e > q && (size_t)(e - q) <= REC_ELFSYMS_MAX_NAME) {
				err = loader_push(ld, start, size, 0, 0, q, (size_t)(e - q));
				if (err)
					return err;
			}
		}
		p = eol + 1;
	}
	return 0;
}

int rec_jitmap_load(const char *path, struct rec_elfsyms **out)
{
	struct loader ld = { 0 };
	struct rec_elfsyms *s = NULL;
	uint64_t fsize;
	size_t cap, len = 0;
	char *buf = NULL;
	int fd, err;

	*out = NULL;
	err = open_regular(path, &fd, &fsize);
	if (err)
		return err;
	cap = fsize < REC_JITMAP_MAX_SZ ? (size_t)fsize : REC_JITMAP_MAX_SZ;
	buf = malloc(cap + 1);
	s = calloc(1, sizeof(*s));
	if (!buf || !s || !(s->path = strdup(path))) {
		err = -ENOMEM;
		goto err_free;
	}
	while (len < cap) {
		ssize_t r = read(fd, buf + len, cap - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto err_free;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	err = jitmap_parse(buf, len, &ld);
	if (!err)
		err = loader_finish(&ld, s);
	if (err)
		goto err_free;
	s->flags = PPF_DSO_JITMAP;
	free(buf);
	close(fd);
	*out = s;
	return 0;
err_free:
	loader_reset(&ld);
	rec_elfsyms_free(s);
	free(buf);
	close(fd);
	return err;
}

/* --- the rest ------------------------------------------------------------------------ */

int rec_elfsyms_load_unwind(struct rec_elfsyms *s, const char *path)
{
	struct elf_file f;
	int err = elf_file_open(path, &f);

	if (err)
		return err;
	free(s->unwind);
	s->unwind = NULL;
	s->nr_unwind = 0;
	err = ppf_cfi_read(f.elf, f.size, &s->unwind, &s->nr_unwind, NULL);
	elf_file_close(&f);
	return err;
}

int rec_elfsyms_set_path(struct rec_elfsyms *s, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(s->path);
	s->path = p;
	return 0;
}

void rec_elfsyms_free(struct rec_elfsyms *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->syms);
	free(s->names);
	free(s->unwind);
	free(s);
}

static uint64_t nr_segments(const struct ppf_writer *w)
{
	struct ppf_writer_totals t;

	ppf_writer_totals(w, &t);
	return t.nr_segments;
}

/* The unwind rows of @s after its symbols, the DSO record @d repeated in a new segment. */
static int write_unwind(struct ppf_writer *w, const struct rec_elfsyms *s, const struct ppf_dso *d,
			uint64_t seg)
{
	int err = 0;

	for (size_t i = 0; !err && i < s->nr_unwind; i += PPF_UNWIND_MAX_ROWS) {
		size_t n = s->nr_unwind - i < PPF_UNWIND_MAX_ROWS ? s->nr_unwind - i : PPF_UNWIND_MAX_ROWS;

		if (nr_segments(w) != seg) {
			err = ppf_write_dso(w, d);	/* the rows go on in a new segment */
			seg = nr_segments(w);
		}
		if (!err)
			err = ppf_write_unwind(w, PPF_UNWIND_X86_64, s->unwind + i, n);
	}
	return err;
}

int rec_elfsyms_write(struct ppf_writer *w, const struct rec_elfsyms *s)
{
	const struct ppf_dso d = {
		.build_id = s->build_id,
		.build_id_sz = s->build_id_sz,
		.path = s->path,
		.nr_syms = (uint32_t)s->nr_syms,
		.flags = s->flags,
		.text_vaddr = s->text_vaddr,
		.text_offset = s->text_offset,
	};
	uint64_t seg;
	int err;

	err = ppf_writer_begin(w, PPF_SEG_USYMS);
	if (err)
		return err;
	seg = nr_segments(w);
	err = ppf_write_dso(w, &d);
	if (!err && nr_segments(w) != seg && (s->nr_syms || s->nr_unwind))
		err = ppf_write_dso(w, &d);	/* the DSO record itself filled the segment */
	seg = nr_segments(w);
	for (size_t i = 0; !err && i < s->nr_syms; i++) {
		const struct ppf_sym sym = { s->syms[i].start, s->syms[i].size, s->syms[i].name };

		err = ppf_write_sym(w, &sym);
		if (!err && nr_segments(w) != seg && i + 1 < s->nr_syms) {
			err = ppf_write_dso(w, &d);
			seg = nr_segments(w);
		}
	}
	return err ? err : write_unwind(w, s, &d, seg);
}
