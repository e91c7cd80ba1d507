/* SPDX-License-Identifier: MIT */
/*
 * debugsyms.c - symbols of a binary from its debug file on the analysis machine, found by
 * build id: a binary whose symbol table the capture lacks, or holds only the dynamic one of
 * (liblzma's own functions are not in its .dynsym; a stripped program has neither).
 *
 * Where, in order: DIR/.build-id/xx/rest.debug of each --debug-dir DIR, of each directory in
 * $PP_DEBUGINFO_PATH, and of /usr/lib/debug; then, with --debuginfod only, the servers of
 * $DEBUGINFOD_URLS through elfutils' libdebuginfod, which keeps what it fetched in its own
 * cache ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client).  A file is used only when
 * its build id is the binary's.  Each build id is looked for once per session, on the first
 * lookup of an address in it; its .symtab functions join the binary's table, so the lookup is
 * answered again.  What a debug file holds is read once for the root session and its parts
 * (their tables are their own, the file's functions are kept by the root's struct
 * ana_debugfiles), so a parallel replay's parts do not parse it again each.
 * Not here: inline frames from DWARF (common/dwinline.c, which searches the same directories).
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/internal.h"
#include "common/dwinline.h"
#include "common/intern.h"
#include "common/symbolize.h"
#include "common/vec.h"

#define DBG_MAX_DIRS 16
#define DBG_MAX_BID 64		/* bytes of a build id */

/* The functions of one debug file, as read once: name, ELF address and size. */
struct dbg_sym {
	uint64_t start, size;
	const char *name;		/* interned in ana_debugfiles.names */
};

/*
 * libdebuginfod, opened (dlopen) on the first download: linked, it and what it needs (libcurl,
 * TLS, Kerberos, LDAP: some thirty libraries) cost every run ~5 ms of CPU to load.  Never
 * unloaded (RTLD_NODELETE): libcurl's and the TLS library's global state, set up on the first
 * download, would be unmapped with them and lost (LeakSanitizer reports it, t142 under ASan).
 */
struct dbg_client_lib {
	void *so;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *bid, int bid_len,
			      char **path);
	const char *(*get_url)(debuginfod_client *c);
};

struct dbg_syms {
	bool have_text;			/* text_vaddr, text_off: its executable segment */
	uint64_t text_vaddr, text_off;
	struct dbg_sym *v;
	size_t nr, cap;
};

/*
 * Where the debug files are, for a session and the parts of its parallel replay (threads,
 * each with its own symbol tables): the root session's, under a lock, so that each build id
 * is looked for and downloaded once.
 */
struct ana_debugfiles {
	char *dirs[DBG_MAX_DIRS];
	size_t nr_dirs;
	bool debuginfod;
	bool server_down;		/* a download failed other than "not found" */
	debuginfod_client *client;	/* made on the first download */
	struct dbg_client_lib lib;	/* loaded with it */
	pthread_mutex_t lock;
	struct pp_intern *bids;		/* build ids (hex) looked for */
	char **files;			/* by index in bids: the debug file, or NULL: none */
	struct dbg_syms **syms;		/* by index in bids: its functions, once read */
	size_t cap_files;
	struct pp_intern *names;	/* of the functions */
};

/* A session's: the build ids whose symbols its tables have. */
struct ana_debugsyms {
	struct ana_debugfiles *where;
	struct pp_intern *tried;
	const char *last;		/* the build id tried last: where the lookup's was */
	char last_hex[2 * DBG_MAX_BID + 1];	/* and what it said */
};

static void add_dirs(struct ana_debugfiles *d, const char *list)
{
	const char *p = list;

	while (p && *p && d->nr_dirs < DBG_MAX_DIRS) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n)
			d->dirs[d->nr_dirs++] = pp_xstrndup(p, n);
		p += n + (e ? 1 : 0);
	}
}

void ana_session_debug_syms(struct ana_session *s, const char *debug_dir, bool debuginfod)
{
	struct ana_session *root = s;
	struct ana_debugfiles *w;

	while (root->lender)
		root = root->lender;
	w = root->debugfiles;
	if (!w) {
		w = root->debugfiles = pp_xcalloc(1, sizeof(*w));
		pthread_mutex_init(&w->lock, NULL);
		w->bids = pp_intern_new();
		w->names = pp_intern_new();
		add_dirs(w, debug_dir);
		add_dirs(w, getenv("PP_DEBUGINFO_PATH"));
		add_dirs(w, PP_INL_DEFAULT_PATH);
	}
	pthread_mutex_lock(&w->lock);
	w->debuginfod |= debuginfod;
	pthread_mutex_unlock(&w->lock);
	if (!s->debugsyms) {
		s->debugsyms = pp_xcalloc(1, sizeof(*s->debugsyms));
		s->debugsyms->where = w;
		s->debugsyms->tried = pp_intern_new();
	}
}

void ana_debugsyms_free(struct ana_debugsyms *d)
{
	if (!d)
		return;
	pp_intern_free(d->tried);
	free(d);
}

void ana_debugfiles_free(struct ana_debugfiles *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_dirs; i++)
		free(w->dirs[i]);
	for (size_t i = 0; i < w->cap_files; i++) {
		free(w->files[i]);
		if (w->syms[i])
			free(w->syms[i]->v);
		free(w->syms[i]);
	}
	free(w->files);
	free(w->syms);
	pp_intern_free(w->names);
	if (w->client)
		w->lib.end(w->client);
	if (w->lib.so)
		dlclose(w->lib.so);
	pp_intern_free(w->bids);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* The first executable PT_LOAD of @elf: how the binary's file offsets map to vaddrs. */
static bool text_segment(Elf *elf, uint64_t *vaddr, uint64_t *offset)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*vaddr = ph.p_vaddr;
			*offset = ph.p_offset;
			return true;
		}
	}
	return false;
}

/* The functions of @elf's .symtab into @out, their names into @names. */
static void read_symtab(Elf *elf, struct pp_intern *names, struct dbg_syms *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			name = pp_intern_key(names, pp_intern_put(names, name, strlen(name), NULL),
					     NULL);
			PP_VEC_PUSH(out->v, out->nr, out->cap,
				    ((struct dbg_sym){ sym.st_value, sym.st_size, name }));
		}
	}
}

/* @bid (hex, 2 digits a byte) as bytes into @raw (@sz). Return: how many, 0 when too long. */
static size_t bid_bytes(const char *bid, uint8_t *raw, size_t sz)
{
	size_t n = strlen(bid) / 2;

	if (n > sz)
		return 0;
	for (size_t i = 0; i < n; i++)
		raw[i] = (uint8_t)strtoul((char[3]){ bid[2 * i], bid[2 * i + 1], 0 }, NULL, 16);
	return n;
}

/*
 * Read the debug file open on @fd for binary @bid (hex): its functions, or NULL when @fd is
 * not that binary's debug file.
 */
static struct dbg_syms *read_debug(struct ana_debugfiles *w, int fd, const char *bid)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	uint8_t raw[DBG_MAX_BID];
	size_t n = bid_bytes(bid, raw, sizeof(raw));
	const void *note;
	ssize_t nsz = elf ? dwelf_elf_gnu_build_id(elf, &note) : -1;
	struct dbg_syms *ds = NULL;

	if (nsz <= 0 || !n || (size_t)nsz != n || memcmp(note, raw, n))
		goto out;
	ds = pp_xcalloc(1, sizeof(*ds));
	ds->have_text = text_segment(elf, &ds->text_vaddr, &ds->text_off);
	read_symtab(elf, w->names, ds);
out:
	if (elf)
		elf_end(elf);
	return ds;
}

/* Add @ds's functions to binary @bid (hex) of @s's tables, @path as the capture names it. */
static size_t add_syms(struct ana_session *s, const struct dbg_syms *ds, const char *bid,
		       const char *path)
{
	uint8_t raw[DBG_MAX_BID];
	size_t n = bid_bytes(bid, raw, sizeof(raw)), added = 0;
	struct pp_dso *dso = NULL;
	int rc;

	rc = pp_symtab_dso_get(s->syms, raw, n, path, PP_DSO_DEBUGINFO, &dso);
	if (rc < 0 || !dso)
		return 0;
	if (rc == 0 && ds->have_text)	/* new: no DSO record in the capture */
		pp_dso_set_text(dso, ds->text_vaddr, ds->text_off);
	for (size_t i = 0; i < ds->nr; i++)
		added += !pp_dso_sym_add(dso, ds->v[i].start, ds->v[i].size, ds->v[i].name);
	if (added)
		pp_dso_finalize(dso);
	return added;
}

/* Whether @file is an ELF file with build id @bid. */
static bool is_debug_of(const char *file, const char *bid)
{
	char hex[2 * DBG_MAX_BID + 1];

	return pp_inl_file_build_id(file, hex, sizeof(hex)) && !strcmp(hex, bid);
}

/* libdebuginfod's functions into @l; false (and a one-line reason) when it cannot be used. */
static bool load_client_lib(struct dbg_client_lib *l)
{
	if (l->so)
		return true;
	l->so = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!l->so) {
		pp_warn("--debuginfod: cannot load libdebuginfod.so.1: %s", dlerror());
		return false;
	}
	*(void **)&l->begin = dlsym(l->so, "debuginfod_begin");
	*(void **)&l->end = dlsym(l->so, "debuginfod_end");
	*(void **)&l->find_debuginfo = dlsym(l->so, "debuginfod_find_debuginfo");
	*(void **)&l->get_url = dlsym(l->so, "debuginfod_get_url");
	if (l->begin && l->end && l->find_debuginfo && l->get_url)
		return true;
	pp_warn("--debuginfod: libdebuginfod.so.1 lacks the client functions");
	dlclose(l->so);
	memset(l, 0, sizeof(*l));
	return false;
}

/* debuginfod: fetch the debug file of @bid, telling on stderr. Return: its path, or NULL. */
static char *fetch(struct ana_debugfiles *w, const char *bid, const char *path)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const char *base = strrchr(path, '/');
	char *file = NULL;
	int fd;

	if (!urls || !*urls) {
		pp_warn("--debuginfod: DEBUGINFOD_URLS is not set: no server to ask");
		w->debuginfod = false;
		return NULL;
	}
	if (!w->client && !load_client_lib(&w->lib)) {
		w->debuginfod = false;
		return NULL;
	}
	if (!w->client && !(w->client = w->lib.begin())) {
		pp_warn("--debuginfod: cannot start the debuginfod client");
		w->debuginfod = false;
		return NULL;
	}
	base = base ? base + 1 : path;
	fprintf(stderr, "pp-analyze: debuginfod: debug info of %s (build id %s)...\n", base, bid);
	fd = w->lib.find_debuginfo(w->client, (const unsigned char *)bid, 0, &file);
	if (fd < 0) {
		const char *url = w->lib.get_url(w->client);
		bool down = fd != -ENOENT;

		/* a server that does not answer is not asked again for every other binary */
		pp_warn("debuginfod: %s: debug info of %s: %s%s", url ? url : urls, base,
			down ? strerror(-fd) : "not found", down ? " (not asked again)" : "");
		w->server_down |= down;
		free(file);
		return NULL;
	}
	close(fd);
	fprintf(stderr, "pp-analyze: debuginfod: %s: %s\n", base, file ? file : "(no path)");
	return file;
}

/* The debug file of @bid (@path: the binary as the capture names it), looked for once. */
static uint32_t debug_file(struct ana_debugfiles *w, const char *bid, const char *path)
{
	char file[4096];
	bool fresh;
	uint32_t idx;

	idx = pp_intern_put(w->bids, bid, strlen(bid), &fresh);
	if (idx >= w->cap_files) {
		size_t cap = w->cap_files ? 2 * w->cap_files : 16;

		while (cap <= idx)
			cap *= 2;
		w->files = pp_xrealloc(w->files, cap * sizeof(*w->files));
		w->syms = pp_xrealloc(w->syms, cap * sizeof(*w->syms));
		memset(w->files + w->cap_files, 0, (cap - w->cap_files) * sizeof(*w->files));
		memset(w->syms + w->cap_files, 0, (cap - w->cap_files) * sizeof(*w->syms));
		w->cap_files = cap;
	}
	for (size_t i = 0; fresh && i < w->nr_dirs && !w->files[idx]; i++)
		if (snprintf(file, sizeof(file), "%s/.build-id/%.2s/%s.debug", w->dirs[i], bid,
			     bid + 2) < (int)sizeof(file) && is_debug_of(file, bid))
			w->files[idx] = pp_xstrdup(file);
	if (fresh && !w->files[idx] && w->debuginfod && !w->server_down)
		w->files[idx] = fetch(w, bid, path);
	return idx;
}

/*
 * The functions of the debug file of @bid, found and read on the first call for @bid by
 * any session sharing @w; NULL when there is none.
 */
static const struct dbg_syms *debug_syms(struct ana_debugfiles *w, const char *bid,
					 const char *path)
{
	struct dbg_syms *ds;
	uint32_t idx;
	int fd;

	pthread_mutex_lock(&w->lock);
	idx = debug_file(w, bid, path);
	ds = w->syms[idx];
	if (!ds && w->files[idx]) {
		fd = open(w->files[idx], O_RDONLY | O_CLOEXEC);
		ds = fd < 0 ? NULL : read_debug(w, fd, bid);
		if (fd >= 0)
			close(fd);
		/* not that binary's, or unreadable: an empty list, not read again */
		w->syms[idx] = ds = ds ? ds : pp_xcalloc(1, sizeof(*ds));
		pp_debug(1, "%s: %zu functions in %s", path, ds->nr, w->files[idx]);
	}
	pthread_mutex_unlock(&w->lock);
	return ds;
}

bool ana_debugsyms_fill(struct ana_session *s, const struct pp_sym_res *res)
{
	struct ana_debugsyms *d = s->debugsyms;
	const char *bid = res->build_id, *path = res->dso;
	const struct dbg_syms *ds;
	size_t n;
	bool fresh;

	/* most lookups are in the binary of the one before: its string, not even hashed */
	if (!d || !bid || (bid == d->last && !strcmp(bid, d->last_hex)))
		return false;
	n = strlen(bid);
	if (n < 4 || n > 2 * DBG_MAX_BID || (n & 1) || !path ||
	    strspn(bid, "0123456789abcdef") != n || (res->flags & PP_SYMR_JIT))
		return false;
	pp_intern_put(d->tried, bid, n, &fresh);
	d->last = bid;
	memcpy(d->last_hex, bid, n + 1);
	if (!fresh)
		return false;
	elf_version(EV_CURRENT);
	ds = debug_syms(d->where, bid, path);
	return ds && ds->nr && add_syms(s, ds, bid, path) > 0;
}
