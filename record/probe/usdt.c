/* SPDX-License-Identifier: MIT */
/*
 * usdt.c - reading .note.stapsdt with libelf, and the uprobe definition of a probe.
 *
 * Worked example (a PIE built by gcc): the note of sdtprobe:fire says addr 0x12f0,
 * base 0x2278, semaphore 0x4074; .stapsdt.base is at 0x2278 (not prelinked: no shift);
 * 0x12f0 lies in the R+X PT_LOAD at vaddr 0x1000 / offset 0x1000, so the site is file
 * offset 0x12f0; 0x4074 lies in the RW PT_LOAD at vaddr 0x3d50 / offset 0x2d50, so the
 * semaphore is file offset 0x3074.  The definition written is
 *   p:sdtprobe/fire /path/sdtprobe:0x00000000000012f0(0x3074) arg1=%r12:s32 ...
 * Had prelink moved the file by +0x10000 (.stapsdt.base at 0x12278), the site would be
 * 0x112f0 in the moved segments, which again is file offset 0x12f0.
 * The file stays open (ELF_C_READ: libelf reads only what is asked for) until freed,
 * for the symbols PC-relative arguments name.
 * Not here: argument operands (usdt-arg.c), tracefs (cmd-usdt.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "record/probe/usdt-arg.h"
#include "record/probe/usdt.h"

#define SDT_BASE_SCN ".stapsdt.base"
#define SDT_NOTE_SCN ".note.stapsdt"

/* --- one note's descriptor ------------------------------------------------ */

static uint64_t load_addr(const unsigned char *p, bool is64, bool msb)
{
	size_t n = is64 ? 8 : 4;
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

/* The NUL-terminated string at @p, of at most @left bytes; NULL when unterminated. */
static const char *take_str(const unsigned char **p, size_t *left)
{
	const unsigned char *nul = memchr(*p, '\0', *left);
	const char *s = (const char *)*p;

	if (!nul)
		return NULL;
	*left -= (size_t)(nul - *p) + 1;
	*p = nul + 1;
	return s;
}

int rec_usdt_note_decode(const void *desc, size_t desc_sz, bool is64, bool msb,
			 struct rec_usdt_note *out)
{
	const unsigned char *p = desc;
	size_t w = is64 ? 8 : 4, left;

	memset(out, 0, sizeof(*out));
	if (desc_sz < 3 * w)
		return PP_EBAD_RECORD;
	out->addr = load_addr(p, is64, msb);
	out->base = load_addr(p + w, is64, msb);
	out->semaphore = load_addr(p + 2 * w, is64, msb);
	p += 3 * w;
	left = desc_sz - 3 * w;
	out->provider = take_str(&p, &left);
	out->name = out->provider ? take_str(&p, &left) : NULL;
	out->args = out->name ? take_str(&p, &left) : NULL;
	/* the descriptor is padded to 4 bytes by the note format, not inside */
	if (!out->args || left) {
		memset(out, 0, sizeof(*out));
		return PP_EBAD_RECORD;
	}
	return 0;
}

/* --- the file ------------------------------------------------------------- */

struct seg {
	uint64_t vaddr, memsz, filesz, offset;
	bool exec;
};

struct loader {
	struct rec_usdt_file *f;
	struct seg *segs;
	size_t nr_segs;
	bool is64, msb;
	bool have_base;
	uint64_t base_addr;		/* .stapsdt.base's section address now */
};

static const struct seg *seg_find(const struct loader *ld, uint64_t vaddr, bool exec)
{
	for (size_t i = 0; i < ld->nr_segs; i++) {
		const struct seg *s = &ld->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < (exec ? s->filesz : s->memsz) &&
		    (!exec || s->exec))
			return s;
	}
	return NULL;
}

static void bad_note(struct loader *ld, const char *fmt, ...) PP_PRINTF(2, 3);
static void bad_note(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (!ld->f->nr_bad++) {
		va_start(ap, fmt);
		vsnprintf(ld->f->bad_msg, sizeof(ld->f->bad_msg), fmt, ap);
		va_end(ap);
	}
}

static void probe_add(struct loader *ld, const struct rec_usdt_note *n)
{
	struct rec_usdt_file *f = ld->f;
	struct rec_usdt_probe *p;
	const struct seg *s;
	uint64_t shift = ld->have_base && n->base ? ld->base_addr - n->base : 0;
	uint64_t pc = n->addr + shift, sema = n->semaphore ? n->semaphore + shift : 0;
	uint64_t sema_off = 0;

	s = seg_find(ld, pc, true);
	if (!s) {
		bad_note(ld, "note %zu: probe address 0x%llx is outside the code", f->nr_probes +
			 f->nr_bad + 1, (unsigned long long)pc);
		return;
	}
	if (sema) {
		const struct seg *ss = seg_find(ld, sema, false);

		if (!ss) {
			bad_note(ld, "note %zu: semaphore address 0x%llx is outside the file's "
				 "segments", f->nr_probes + f->nr_bad + 1, (unsigned long long)sema);
			return;
		}
		sema_off = sema - ss->vaddr + ss->offset;
	}
	if (f->nr_probes >= REC_USDT_MAX_PROBES) {
		bad_note(ld, "more than %u notes", REC_USDT_MAX_PROBES);
		return;
	}
	if ((f->nr_probes & (f->nr_probes - 1)) == 0)	/* 0, 1, 2, 4, ...: double */
		f->probes = pp_xrealloc(f->probes, (f->nr_probes ? f->nr_probes * 2 : 1) *
					sizeof(*f->probes));
	p = &f->probes[f->nr_probes++];
	p->provider = pp_xstrdup(n->provider);
	p->name = pp_xstrdup(n->name);
	p->args = pp_xstrdup(n->args);
	p->addr = n->addr;
	p->base = n->base;
	p->semaphore = n->semaphore;
	p->pc = pc;
	p->off = pc - s->vaddr + s->offset;
	p->sema_off = sema_off;
}

static void notes_read(struct loader *ld, Elf_Scn *scn)
{
	Elf_Data *d = NULL;

	while ((d = elf_getdata(scn, d))) {
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		while (off < d->d_size &&
		       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			struct rec_usdt_note n;
			const char *owner = (const char *)d->d_buf + name_off;

			off = next;
			if (nh.n_type != REC_USDT_NOTE_TYPE ||
			    nh.n_namesz != sizeof(REC_USDT_NOTE_OWNER) ||
			    memcmp(owner, REC_USDT_NOTE_OWNER, sizeof(REC_USDT_NOTE_OWNER)))
				continue;
			if (rec_usdt_note_decode((const char *)d->d_buf + desc_off, nh.n_descsz,
						 ld->is64, ld->msb, &n)) {
				bad_note(ld, "note %zu: malformed descriptor (%u bytes)",
					 ld->f->nr_probes + ld->f->nr_bad + 1, (unsigned)nh.n_descsz);
				continue;
			}
			probe_add(ld, &n);
		}
	}
}

static int load_elf(struct rec_usdt_file *f, char *msg, size_t msg_sz)
{
	struct loader ld = { .f = f };
	Elf *elf = f->elf;
	Elf_Scn *scn = NULL, *notes = NULL;
	GElf_Ehdr eh;
	size_t nph, shstrndx;
	int rc = 0;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(msg, msg_sz, "'%s' is not an ELF file", f->path);
		return PP_EBAD_MAGIC;
	}
	ld.is64 = gelf_getclass(elf) == ELFCLASS64;
	ld.msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	f->machine = eh.e_machine;
	if (elf_getphdrnum(elf, &nph) || !nph) {
		snprintf(msg, msg_sz, "'%s' has no program headers (an object file?)", f->path);
		return PP_EBAD_MAGIC;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(msg, msg_sz, "'%s': %s", f->path, elf_errmsg(-1));
		return PP_EBAD_MAGIC;
	}
	ld.segs = pp_xcalloc(nph, sizeof(*ld.segs));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ld.segs[ld.nr_segs++] = (struct seg){ ph.p_vaddr, ph.p_memsz, ph.p_filesz,
						      ph.p_offset, (ph.p_flags & PF_X) != 0 };
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_PROGBITS && !strcmp(name, SDT_BASE_SCN)) {
			ld.have_base = true;
			ld.base_addr = sh.sh_addr;
		} else if (sh.sh_type == SHT_NOTE && !strcmp(name, SDT_NOTE_SCN) && !notes) {
			notes = scn;
		}
	}
	if (!notes) {
		snprintf(msg, msg_sz, "'%s' has no USDT probes (no %s section)", f->path,
			 SDT_NOTE_SCN);
		rc = PP_ENOT_FOUND;
	} else {
		notes_read(&ld, notes);
	}
	free(ld.segs);
	return rc;
}

static struct rec_usdt_file *file_new(const char *path)
{
	struct rec_usdt_file *f = pp_xcalloc(1, sizeof(*f));

	f->path = pp_xstrdup(path);
	f->fd = -1;
	return f;
}

static int finish_load(struct rec_usdt_file *f, struct rec_usdt_file **out, char *msg,
		       size_t msg_sz)
{
	int rc;

	if (!f->elf) {
		snprintf(msg, msg_sz, "'%s' is not an ELF file", f->path);
		rc = PP_EBAD_MAGIC;
	} else {
		rc = load_elf(f, msg, msg_sz);
	}
	if (rc) {
		rec_usdt_file_free(f);
		f = NULL;
	}
	*out = f;
	return rc;
}

int rec_usdt_load(const char *path, struct rec_usdt_file **out, char *msg, size_t msg_sz)
{
	struct rec_usdt_file *f;
	struct stat st;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int rc = -errno;

		snprintf(msg, msg_sz, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(msg, msg_sz, "'%s' is not a regular file", path);
		close(fd);
		return PP_EBAD_MAGIC;
	}
	f = file_new(path);
	f->fd = fd;
	elf_version(EV_CURRENT);
	f->elf = elf_begin(fd, ELF_C_READ, NULL);
	return finish_load(f, out, msg, msg_sz);
}

int rec_usdt_load_mem(void *image, size_t image_sz, const char *path,
		      struct rec_usdt_file **out, char *msg, size_t msg_sz)
{
	struct rec_usdt_file *f = file_new(path);

	elf_version(EV_CURRENT);
	f->elf = elf_memory(image, image_sz);
	return finish_load(f, out, msg, msg_sz);
}

void rec_usdt_file_free(struct rec_usdt_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr_probes; i++) {
		free(f->probes[i].provider);
		free(f->probes[i].name);
		free(f->probes[i].args);
	}
	free(f->probes);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f);
}

int rec_usdt_file_sym(void *arg, const char *name, uint64_t *vaddr)
{
	const struct rec_usdt_file *f = arg;
	uint32_t want[] = { SHT_SYMTAB, SHT_DYNSYM };

	for (size_t k = 0; k < PP_ARRAY_SIZE(want); k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(f->elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want[k] || !sh.sh_entsize ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
				    GELF_ST_TYPE(sym.st_info) == STT_SECTION ||
				    GELF_ST_TYPE(sym.st_info) == STT_FILE)
					continue;
				s = elf_strptr(f->elf, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, name)) {
					*vaddr = sym.st_value;
					return 0;
				}
			}
		}
	}
	return PP_ENOT_FOUND;
}

/* --- selections ----------------------------------------------------------- */

int rec_usdt_spec_parse(const char *text, struct rec_usdt_spec *out, char *msg, size_t msg_sz)
{
	size_t hlen = strcspn(text, " \t\n");
	char *head = pp_xstrndup(text, hlen), *at, *rest = head, *slash;
	const char *f = text + hlen;

	memset(out, 0, sizeof(*out));
	f += strspn(f, " \t\n");
	if (*f)
		out->fmts = pp_xstrdup(f);
	at = strchr(head, '@');
	slash = strchr(head, '/');
	if (at && (!slash || at < slash)) {
		char *colon;

		*at = '\0';
		rest = at + 1;
		colon = strchr(head, ':');
		if (colon) {
			*colon = '\0';
			if (!*head) {
				snprintf(msg, msg_sz, "'%s': the provider before ':' is empty", text);
				goto err;
			}
			out->provider = pp_xstrdup(head);
			out->name = pp_xstrdup(colon + 1);
		} else {
			out->name = pp_xstrdup(head);
		}
		if (!*out->name) {
			snprintf(msg, msg_sz, "'%s': the probe name before '@' is empty", text);
			goto err;
		}
	}
	at = strrchr(rest, '@');
	if (at && at[1]) {
		char *end;

		errno = 0;
		out->addr = strtoull(at + 1, &end, 0);
		if (!errno && !*end && isdigit((unsigned char)at[1])) {
			out->has_addr = true;
			*at = '\0';
		} else {
			out->addr = 0;
		}
	}
	if (!*rest) {
		snprintf(msg, msg_sz, "'%s': the binary path is empty", text);
		goto err;
	}
	out->path = pp_xstrdup(rest);
	free(head);
	return 0;
err:
	free(head);
	rec_usdt_spec_release(out);
	return PP_ESYNTAX;
}

void rec_usdt_spec_release(struct rec_usdt_spec *s)
{
	free(s->provider);
	free(s->name);
	free(s->path);
	free(s->fmts);
	memset(s, 0, sizeof(*s));
}

bool rec_usdt_spec_match(const struct rec_usdt_spec *s, const struct rec_usdt_probe *p)
{
	return (!s->provider || !strcmp(s->provider, p->provider)) &&
	       (!s->name || !strcmp(s->name, p->name)) && (!s->has_addr || s->addr == p->addr);
}

/* --- uprobe definitions --------------------------------------------------- */

bool rec_usdt_name_ok(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++, n++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return n <= REC_USDT_MAX_NAME;
}

void rec_usdt_escape(struct pp_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			pp_buf_adds(b, "\\\\");
		else if (c < 0x20 || c >= 0x7f)
			pp_buf_addf(b, "\\x%02x", c);
		else
			pp_buf_addch(b, c);
	}
}

/* The next blank-separated word of *@s as [start, start + len); false at the end. */
static bool next_word(const char **s, const char **start, size_t *len)
{
	const char *p = *s + strspn(*s, " \t\n");

	if (!*p)
		return false;
	*start = p;
	*len = strcspn(p, " \t\n");
	*s = p + *len;
	return true;
}

static void warn_skip(struct pp_buf *warn, const struct rec_usdt_probe *p, const char *spec,
		      const char *why)
{
	pp_buf_adds(warn, "skipping unsupported SDT argument '");
	rec_usdt_escape(warn, spec);
	pp_buf_adds(warn, "' of ");
	rec_usdt_escape(warn, p->provider);
	pp_buf_addch(warn, ':');
	rec_usdt_escape(warn, p->name);
	pp_buf_adds(warn, ": ");
	rec_usdt_escape(warn, why);
	pp_buf_addch(warn, '\n');
}

/* One argument: " NAME=FETCH..." from format word @fmt (NULL: argN=FETCH:TYPE). */
static void add_arg(struct pp_buf *def, int nr, const char *fmt, size_t fmt_len,
		    const char *fetch, const char *type)
{
	const char *pct = fmt ? memmem(fmt, fmt_len, "%s", 2) : NULL;

	pp_buf_addch(def, ' ');
	if (!pct) {
		pp_buf_addf(def, "arg%d=%s%s%s", nr, fetch, *type ? ":" : "", type);
		return;
	}
	for (size_t i = 0; i < fmt_len; i++) {
		if (i + 1 < fmt_len && fmt[i] == '%' && fmt[i + 1] == 's') {
			pp_buf_adds(def, fetch);
			i++;
		} else {
			pp_buf_addch(def, fmt[i]);
		}
	}
}

int rec_usdt_uprobe_def(const struct rec_usdt_file *f, const struct rec_usdt_probe *p,
			const char *kpath, const char *fmts, struct pp_buf *def, struct pp_buf *warn,
			char *msg, size_t msg_sz)
{
	struct rec_usdt_argctx ctx = { .pc = p->pc, .off = p->off, .sym = rec_usdt_file_sym,
				       .sym_arg = (void *)f };
	bool x86 = f->machine == EM_X86_64 || f->machine == EM_386;
	const char *args = p->args, *fmt_s = fmts, *a, *fw = NULL;
	size_t alen, fwlen = 0;
	struct pp_buf fetch = PP_BUF_INIT, n = PP_BUF_INIT;
	int nr = 0, rc = 0;

	if (!rec_usdt_name_ok(p->provider) || !rec_usdt_name_ok(p->name)) {
		rec_usdt_escape(&n, p->provider);
		pp_buf_addch(&n, ':');
		rec_usdt_escape(&n, p->name);
		snprintf(msg, msg_sz, "probe '%s' cannot be a tracefs event (names are "
			 "[A-Za-z_][A-Za-z0-9_]*, %d characters at most)", pp_buf_str(&n),
			 REC_USDT_MAX_NAME);
		pp_buf_release(&n);
		return PP_ESYNTAX;
	}
	for (const char *c = kpath; *c; c++) {
		if (!isgraph((unsigned char)*c)) {
			rec_usdt_escape(&n, kpath);
			snprintf(msg, msg_sz, "path '%s' holds a blank or a control character: "
				 "uprobe_events cannot take it", pp_buf_str(&n));
			pp_buf_release(&n);
			return PP_ESYNTAX;
		}
	}
	for (const char *c = fmts; c && *c; c++) {
		if (iscntrl((unsigned char)*c) && *c != ' ' && *c != '\t') {
			snprintf(msg, msg_sz, "argument formats hold a control character");
			return PP_ESYNTAX;
		}
	}
	pp_buf_addf(def, "p:%s/%s %s:0x%016llx", p->provider, p->name, kpath,
		    (unsigned long long)p->off);
	if (p->sema_off)
		pp_buf_addf(def, "(0x%llx)", (unsigned long long)p->sema_off);
	while (next_word(&args, &a, &alen)) {
		char spec[256], type[16], why[256];

		nr++;
		if (fmts && !next_word(&fmt_s, &fw, &fwlen))
			break;		/* perf-prof's: no format word, no argument */
		snprintf(spec, sizeof(spec), "%.*s", (int)alen, a);
		pp_buf_reset(&fetch);
		if (!x86) {
			warn_skip(warn, p, spec, "arguments are translated for x86 binaries only");
			continue;
		}
		rc = rec_usdt_arg_fetch(spec, &ctx, &fetch, type, sizeof(type), why, sizeof(why));
		if (rc == PP_ENOTSUP) {
			warn_skip(warn, p, spec, why);
			rc = 0;
			continue;
		}
		if (rc) {
			pp_buf_adds(&n, "probe ");
			rec_usdt_escape(&n, p->provider);
			pp_buf_addch(&n, ':');
			rec_usdt_escape(&n, p->name);
			pp_buf_adds(&n, ": ");
			rec_usdt_escape(&n, why);
			snprintf(msg, msg_sz, "%s", pp_buf_str(&n));
			break;
		}
		add_arg(def, nr, fmts ? fw : NULL, fwlen, pp_buf_str(&fetch), type);
	}
	pp_buf_release(&fetch);
	pp_buf_release(&n);
	return rc;
}
