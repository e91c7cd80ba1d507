/* SPDX-License-Identifier: MIT */
/*
 * uprobe.c - uprobes/kprobes through tracefs uprobe_events/kprobe_events.
 *
 * A probe is appended to s->probes before its definition is written, so
 * every exit path (error mid-setup, SIGINT, normal end) that calls
 * rec_probes_remove() takes it away again.  Removing needs the perf fds on
 * it closed first (the kernel answers EBUSY otherwise).
 * Symbol resolution reads .symtab and .dynsym and maps the symbol's virtual
 * address to a file offset through the PT_LOAD segment that contains it.
 * Not here: the events' attrs (evsel.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/log.h"
#include "common/selector.h"
#include "common/sys.h"
#include "record/ftrace/tracefs.h"
#include "record/probe/probe-args.h"
#include "record/probe/uprobe.h"

#define MAX_CANDIDATES 16

struct cand {
	uint64_t vaddr;
	uint64_t off;
};

static int vaddr_to_off(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return PP_EBAD_RECORD;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return PP_ENOT_FOUND;
}

int rec_uprobe_resolve(const char *path, const char *func, uint64_t *off, char *msg,
		       size_t msg_sz)
{
	struct cand c[MAX_CANDIDATES];
	size_t nr = 0, more = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd, rc = 0;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(msg, msg_sz, "cannot open '%s': %s", path, strerror(errno));
		return rc;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(msg, msg_sz, "'%s' is not an ELF file", path);
		rc = PP_EBAD_MAGIC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			size_t k;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, func))
				continue;
			for (k = 0; k < nr; k++)
				if (c[k].vaddr == sym.st_value)
					break;
			if (k < nr)
				continue;
			if (nr == MAX_CANDIDATES) {
				more++;
				continue;
			}
			c[nr].vaddr = sym.st_value;
			if (vaddr_to_off(elf, sym.st_value, &c[nr].off))
				continue;
			nr++;
		}
	}
	if (nr == 0) {
		snprintf(msg, msg_sz, "no function '%s' in '%s'", func, path);
		rc = PP_ENOT_FOUND;
	} else if (nr > 1) {
		struct pp_buf b = PP_BUF_INIT;

		pp_buf_addf(&b, "function '%s' is not unique in '%s' (%zu candidates:", func, path,
			    nr + more);
		for (size_t k = 0; k < nr; k++)
			pp_buf_addf(&b, " 0x%llx", (unsigned long long)c[k].off);
		pp_buf_addf(&b, "%s); pick one with uprobe:%s:0xOFFSET", more ? " ..." : "", path);
		snprintf(msg, msg_sz, "%s", pp_buf_str(&b));
		pp_buf_release(&b);
		rc = PP_EAMBIGUOUS;
	} else {
		*off = c[0].off;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static char *try_dir(const char *dir, size_t len, const char *name)
{
	char *p = pp_xasprintf("%.*s/%s", (int)len, dir, name);

	if (access(p, R_OK) == 0) {
		char *r = realpath(p, NULL);

		free(p);
		return r;
	}
	free(p);
	return NULL;
}

char *rec_uprobe_find_binary_dup(const char *binary)
{
	static const char *const libdirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	const char *path, *p;
	char *r;

	if (strchr(binary, '/'))
		return access(binary, R_OK) == 0 ? realpath(binary, NULL) : NULL;
	path = getenv("PATH");
	for (p = path; p && *p;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len && (r = try_dir(p, len, binary)))
			return r;
		p = e ? e + 1 : NULL;
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(libdirs); i++)
		if ((r = try_dir(libdirs[i], strlen(libdirs[i]), binary)))
			return r;
	return access(binary, R_OK) == 0 ? realpath(binary, NULL) : NULL;
}

/* Event names allow [A-Za-z0-9_] and must not start with a digit. */
static void sanitize(struct pp_buf *b, const char *s)
{
	if (*s >= '0' && *s <= '9')
		pp_buf_addch(b, '_');
	for (; *s; s++) {
		char c = *s;

		pp_buf_addch(b, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') ? c : '_');
	}
}

static bool event_exists(const struct rec_tracefs *t, const char *group, const char *event)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "events/%s/%s", group, event);
	return rec_tracefs_exists(t, rel);
}

int rec_probe_create(const struct rec_tracefs *t, struct rec_probes *p,
		     const struct pp_selector *sel, size_t *idx, char *msg, size_t msg_sz)
{
	bool kprobe = sel->kind == PP_SEL_KPROBE || sel->kind == PP_SEL_KRETPROBE;
	bool ret = sel->kind == PP_SEL_KRETPROBE || sel->kind == PP_SEL_URETPROBE;
	const char *ctl = kprobe ? "kprobe_events" : "uprobe_events";
	struct pp_buf name = PP_BUF_INIT, def = PP_BUF_INIT;
	char *bin = NULL, group[32];
	struct rec_probe *pr;
	uint64_t off = sel->offset;
	int rc;

	if (!rec_tracefs_exists(t, ctl)) {
		snprintf(msg, msg_sz, "%s: this kernel has no %s support (no %s in tracefs)",
			 sel->text, kprobe ? "kprobe" : "uprobe", ctl);
		return PP_ENOTSUP;
	}
	snprintf(group, sizeof(group), "pp_%d", (int)getpid());
	if (kprobe) {
		sanitize(&name, sel->name ? sel->name : "kprobe");
		if (sel->offset)
			pp_buf_addf(&name, "_off%llx", (unsigned long long)sel->offset);
	} else {
		bin = rec_uprobe_find_binary_dup(sel->binary ? sel->binary : "");
		if (!bin) {
			snprintf(msg, msg_sz, "%s: binary '%s' not found", sel->text,
				 sel->binary ? sel->binary : "");
			return PP_ENOT_FOUND;
		}
		if (sel->func && !sel->has_offset_only) {
			char m[768];
			uint64_t foff;

			rc = rec_uprobe_resolve(bin, sel->func, &foff, m, sizeof(m));
			if (rc) {
				snprintf(msg, msg_sz, "%s: %s", sel->text, m);
				free(bin);
				return rc;
			}
			off = foff + sel->offset;
			sanitize(&name, sel->func);
			if (sel->offset)
				pp_buf_addf(&name, "_off%llx", (unsigned long long)sel->offset);
		} else {
			const char *base = strrchr(bin, '/');

			pp_buf_adds(&name, "p_");
			sanitize(&name, base ? base + 1 : bin);
			pp_buf_addf(&name, "_0x%llx", (unsigned long long)off);
		}
	}
	if (ret)
		pp_buf_adds(&name, "__return");
	/* the same probe twice in one run gets a suffix */
	if (event_exists(t, group, name.data)) {
		size_t len = name.len;

		for (int k = 1; k < 1000; k++) {
			name.len = len;
			name.data[len] = '\0';
			pp_buf_addf(&name, "_%d", k);
			if (!event_exists(t, group, name.data))
				break;
		}
	}
	if (kprobe)
		pp_buf_addf(&def, "%c:%s/%s %s+%llu%s\n", ret ? 'r' : 'p', group, name.data,
			    sel->name, (unsigned long long)sel->offset, rec_probe_args(ret));
	else
		pp_buf_addf(&def, "%c:%s/%s %s:0x%llx%s\n", ret ? 'r' : 'p', group, name.data, bin,
			    (unsigned long long)off, rec_probe_args(ret));

	p->v = pp_xrealloc(p->v, (p->nr + 1) * sizeof(*p->v));
	pr = &p->v[p->nr];
	pr->group = pp_xstrdup(group);
	pr->event = pp_buf_detach(&name);
	pr->kprobe = kprobe;
	*idx = p->nr++;
	/* the seam of common/sys.h: PP_FAULT=uprobe:N:ERR makes the Nth definition fail */
	rc = pp_sys_check(PP_SYS_UPROBE) > 0 ? -errno : rec_tracefs_append(t, ctl, def.data);
	/* logged without the fetch arguments, which are the same for every probe */
	pp_debug(1, "probe %.*s: %s", (int)(def.len - 1 - strlen(rec_probe_args(ret))), def.data,
		 rc ? strerror(-rc) : "created");
	if (rc) {
		def.data[def.len - 1] = '\0';
		snprintf(msg, msg_sz, "%s: the kernel refused probe '%s': %s", sel->text, def.data,
			 strerror(-rc));
		/* never written: forget it so removal does not complain */
		free(pr->group);
		free(pr->event);
		p->nr--;
	}
	pp_buf_release(&def);
	free(bin);
	return rc;
}

static int probe_remove(const struct rec_tracefs *t, bool kprobe, const char *group,
			const char *event)
{
	char def[512];

	snprintf(def, sizeof(def), "-:%s/%s\n", group, event);
	return rec_tracefs_append(t, kprobe ? "kprobe_events" : "uprobe_events", def);
}

int rec_probes_remove(const struct rec_tracefs *t, struct rec_probes *p)
{
	int failed = 0;

	for (size_t i = p->nr; i-- > 0;) {
		struct rec_probe *pr = &p->v[i];

		if (t->root && probe_remove(t, pr->kprobe, pr->group, pr->event))
			failed++;
		free(pr->group);
		free(pr->event);
	}
	free(p->v);
	p->v = NULL;
	p->nr = 0;
	return failed;
}

/* "p:pp_123/name /bin:0x..." -> group and event, when the group is pp_<pid>. */
static bool parse_def(const char *line, char *group, size_t gsz, char *event, size_t esz,
		      int *pid)
{
	const char *c = strchr(line, ':'), *sl, *sp;
	char *end;
	long v;

	if (!c || strncmp(c + 1, "pp_", 3))
		return false;
	sl = strchr(c, '/');
	sp = strpbrk(c, " \t\n");
	if (!sl || (sp && sp < sl))
		return false;
	v = strtol(c + 4, &end, 10);
	if (end != sl || v <= 0)
		return false;
	if ((size_t)(sl - c - 1) >= gsz)
		return false;
	snprintf(group, gsz, "%.*s", (int)(sl - c - 1), c + 1);
	snprintf(event, esz, "%.*s", (int)(sp ? sp - sl - 1 : (long)strlen(sl + 1)), sl + 1);
	*pid = (int)v;
	return true;
}

int rec_probes_clean_stale(const struct rec_tracefs *t)
{
	static const char *const ctls[] = { "uprobe_events", "kprobe_events" };
	int removed = 0;

	for (size_t k = 0; k < PP_ARRAY_SIZE(ctls); k++) {
		char *text = NULL, *line, *save = NULL;

		if (rec_tracefs_read_dup(t, ctls[k], &text))
			continue;
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char group[64], event[256];
			int pid;

			if (!parse_def(line, group, sizeof(group), event, sizeof(event), &pid))
				continue;
			if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
				continue;
			if (probe_remove(t, k == 1, group, event) == 0)
				removed++;
		}
		free(text);
	}
	return removed;
}
