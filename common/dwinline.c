/* SPDX-License-Identifier: MIT */
/*
 * dwinline.c - inline frames from DWARF (libdw), per (binary, address), cached.
 *
 * Per binary (keyed by build id): the debug file is searched once (dwinline.h lists where),
 * opened with libelf/libdw and kept open; a binary without one keeps a NULL Dwarf and costs
 * nothing more.  Per address: dwarf_addrdie() finds the CU (for DWARF without .debug_aranges,
 * a table of the CUs' ranges built once per binary), a table of the CU's functions by address
 * (built once per CU) the DW_TAG_subprogram, and from there the scopes holding the address
 * are walked down (inlined subroutines, lexical blocks), never the whole CU: each
 * DW_TAG_inlined_subroutine below the subprogram, innermost first, is one inline frame, named by
 * its abstract origin (linkage name demangled, else DW_AT_name), located by the line table
 * (innermost) and the DW_AT_call_file/DW_AT_call_line of the frame inside it.
 * Every libdw failure means "no inline frames here"; nothing is trusted for sizes.
 *
 * Compressed DWARF (Debian's debug files) is inflated as far as the lookups need: libc's 6 MB
 * of .debug_info cost more to inflate than a profile's whole replay, and a profile's libc
 * frames lie in a few of its CUs.  Its .debug_aranges (inflated whole: small) names the unit
 * of an address; the units up to that one are inflated (libdw walks their headers to reach
 * it, and for DWARF 2-4 their first DIEs: their abbreviations too), then its abbreviations
 * and its line table; libdw's own address lookup, which reads every unit's header, is not
 * used then.  A unit whose abbreviations admit a reference into another unit, or an address
 * .debug_aranges does not cover, inflates everything, and the lookup is libdw's as for a
 * plain file: the answers are the same either way.
 */
#include "common/dwinline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/dwinflate.h"
#include "common/dwunits.h"
#include "common/intern.h"
#include "common/log.h"
#include "common/symbolize.h"
#include "common/u64map.h"
#include "common/vec.h"

#define INL_MAX_NAME 4096		/* bytes kept of a function or file name */
#define INL_MAX_BID 128			/* hex digits of a build id */

/* The answer for one address; frames follow. */
struct inl_ent {
	bool found;
	struct pp_inl_res res;
	struct pp_inl_frame f[];
};

#define INL_MAX_CU_RANGES (1u << 22)
#define INL_MAX_FUNC_RANGES (1u << 22)	/* function ranges indexed in one binary */
#define INL_WALK_BUDGET 200000		/* DIEs one lookup may visit inside a function */
#define INL_MAX_NEST 512		/* scopes deep inside one function */
#define INL_FIRST_UNIT 64		/* bytes of .debug_info inflated when it is opened */

/* The out-of-line functions of one CU, by address: where an address's scope walk starts. */
struct cu_funcs {
	struct pp_dw_range *v;		/* off: the DW_TAG_subprogram DIE; sorted by lo */
	size_t nr, cap;
};

struct inl_dso {
	const char *bid;		/* its build id (hex), interned in pp_inl.bids */
	/*
	 * Its debug file is looked for and opened under open_lock, outside pp_inl.lock: a
	 * thread needing another binary's answers goes on meanwhile.  searched is set (release)
	 * once dw, elf and found are final; until then only the opener touches them.
	 */
	pthread_mutex_t open_lock;
	bool searched;
	char *found;			/* the debug file used, until interned into file */
	bool ranges_built;
	struct pp_dw_range *ranges;	/* without .debug_aranges: each CU DIE's; sorted */
	size_t nr_ranges, cap_ranges;
	int fd;
	Elf *elf;
	Dwarf *dw;			/* NULL: no usable DWARF */
	struct pp_dwinflate inflated;	/* its compressed sections, inflated for libdw */
	const char *file;		/* the debug file used, interned */
	struct pp_u64map cache;		/* vaddr -> struct inl_ent */
	struct pp_u64map cus;		/* CU DIE offset -> struct cu_funcs */
	size_t nr_func_ranges;		/* in all of them, against INL_MAX_FUNC_RANGES */
	/*
	 * Sections inflated as far as lookups need (dwinflate.h): all NULL when the file's
	 * are plain, were inflated whole, or a lookup needed all of them.
	 */
	struct pp_dwlazy *info, *abbrev, *line;
	struct pp_dw_range *aranges;	/* .debug_aranges: each unit's; sorted */
	size_t nr_aranges;
	bool aranges_built;
	uint64_t units_end;		/* unit headers walked to here */
	struct pp_u64map units_own;	/* unit offset -> 1: refers to itself only, 2: not */
};

struct pp_inl {
	char **dirs;
	size_t nr_dirs, cap_dirs;
	struct pp_intern *bids;		/* build id hex -> index into dsos */
	struct inl_dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct pp_intern *strs;		/* names and files */
	uint64_t serial;		/* tells this resolver from a later one at its address */
	bool names_only;		/* no line tables (pp_inl_names_only()) */
	bool whole;			/* sections inflated whole (pp_inl_inflate_whole()) */
	pthread_rwlock_t lock;		/* answers known: read; resolving one: write */
	struct inl_ent miss;		/* shared "not covered" answer (flexible: last) */
};

static uint64_t inl_serial;		/* of the last resolver made */

/*
 * The binary this thread looked up last, in which resolver: the frames of a stack, and the
 * stacks of a profile, are mostly in a few binaries, and a build id's hash costs more than
 * comparing it with the last one's.
 */
static _Thread_local struct {
	uint64_t serial;
	struct inl_dso *d;
} inl_last;

struct pp_inl *pp_inl_new(const char *search_path)
{
	struct pp_inl *r = pp_xcalloc(1, sizeof(*r));
	const char *p = search_path ? search_path : PP_INL_DEFAULT_PATH;

	while (*p) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n) {
			char *d = pp_xmalloc(n + 1);
			memcpy(d, p, n);
			d[n] = '\0';
			PP_VEC_PUSH(r->dirs, r->nr_dirs, r->cap_dirs, d);
		}
		p += n + (e ? 1 : 0);
	}
	r->bids = pp_intern_new();
	r->strs = pp_intern_new();
	r->serial = __atomic_add_fetch(&inl_serial, 1, __ATOMIC_RELAXED);
	pthread_rwlock_init(&r->lock, NULL);
	elf_version(EV_CURRENT);
	return r;
}

struct pp_inl *pp_inl_new_dirs(const char *debug_dir)
{
	const char *env = getenv("PP_DEBUGINFO_PATH");
	struct pp_buf b = PP_BUF_INIT;
	struct pp_inl *r;

	if (debug_dir && *debug_dir)
		pp_buf_addf(&b, "%s:", debug_dir);
	if (env && *env)
		pp_buf_addf(&b, "%s:", env);
	pp_buf_adds(&b, PP_INL_DEFAULT_PATH);
	r = pp_inl_new(pp_buf_str(&b));
	pp_buf_release(&b);
	return r;
}

static void dso_close(struct inl_dso *d)
{
	if (d->dw)
		dwarf_end(d->dw);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	pp_dwinflate_free(&d->inflated);
	d->dw = NULL;
	d->elf = NULL;
	d->fd = -1;
}

void pp_inl_names_only(struct pp_inl *r)
{
	r->names_only = true;
}

void pp_inl_inflate_whole(struct pp_inl *r)
{
	r->whole = true;
}

size_t pp_inl_inflated(struct pp_inl *r, size_t *mapped)
{
	size_t n = 0, m = 0;

	pthread_rwlock_rdlock(&r->lock);
	for (size_t i = 0; i < r->nr_dsos; i++) {
		const struct pp_dwinflate *f = &r->dsos[i]->inflated;

		if (!__atomic_load_n(&r->dsos[i]->searched, __ATOMIC_ACQUIRE))
			continue;
		n += pp_dwinflate_bytes(f);
		for (size_t k = 0; k < f->nr; k++)
			m += f->len[k];
	}
	pthread_rwlock_unlock(&r->lock);
	if (mapped)
		*mapped = m;
	return n;
}

void pp_inl_free(struct pp_inl *r)
{
	size_t inflated, mapped;
	uint64_t k;
	void *v;

	if (!r)
		return;
	inflated = pp_inl_inflated(r, &mapped);
	if (mapped)
		pp_debug(2, "inline frames: %.1f of the %.1f MB of compressed DWARF inflated",
			 inflated / 1e6, mapped / 1e6);
	for (size_t i = 0; i < r->nr_dsos; i++) {
		struct inl_dso *d = r->dsos[i];
		for (size_t it = 0; pp_u64map_next(&d->cache, &it, &k, &v);)
			if (v != &r->miss)
				free(v);
		pp_u64map_release(&d->cache);
		for (size_t it = 0; pp_u64map_next(&d->cus, &it, &k, &v);) {
			free(((struct cu_funcs *)v)->v);
			free(v);
		}
		pp_u64map_release(&d->cus);
		pp_u64map_release(&d->units_own);
		free(d->aranges);
		free(d->ranges);
		dso_close(d);
		free(d->found);
		pthread_mutex_destroy(&d->open_lock);
		free(d);
	}
	free(r->dsos);
	for (size_t i = 0; i < r->nr_dirs; i++)
		free(r->dirs[i]);
	free(r->dirs);
	pp_intern_free(r->bids);
	pp_intern_free(r->strs);
	pthread_rwlock_destroy(&r->lock);
	free(r);
}

static const char *intern(struct pp_inl *r, const char *s)
{
	size_t n = strnlen(s, INL_MAX_NAME);

	return pp_intern_key(r->strs, pp_intern_put(r->strs, s, n, NULL), NULL);
}

/* The build id note of @elf as hex into @hex (@sz bytes); false when there is none. */
static bool elf_bid_hex(Elf *elf, char *hex, size_t sz)
{
	const void *bid;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
	const unsigned char *b = bid;

	if (n <= 0 || (size_t)n * 2 + 1 > sz)
		return false;
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	return true;
}

/* Open @path as ELF when it is a regular file; fd and elf in @d. */
static bool open_elf(const char *path, Elf_Cmd cmd, int *fd, Elf **elf)
{
	struct stat st;

	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (*fd < 0)
		return false;
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		goto fail;
	*elf = elf_begin(*fd, cmd, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		goto fail;
	return true;
fail:
	if (*elf)
		elf_end(*elf);
	*elf = NULL;
	close(*fd);
	*fd = -1;
	return false;
}

bool pp_inl_file_build_id(const char *path, char *hex, size_t sz)
{
	Elf *elf;
	int fd;
	bool ok;

	elf_version(EV_CURRENT);
	if (!open_elf(path, ELF_C_READ_MMAP, &fd, &elf))
		return false;
	ok = elf_bid_hex(elf, hex, sz);
	elf_end(elf);
	close(fd);
	return ok;
}

/*
 * The DWARF sections no answer reads (location lists, macros): hidden from libdw, which would
 * otherwise inflate them at dwarf_begin_elf() when they are compressed (libc's location lists
 * are 1.4 MB of its 10); with pp_inl_names_only(), the line tables too (the last 3).
 */
static const char *const unused_scns[] = { ".debug_loclists", ".debug_loc", ".debug_macro",
					   ".debug_macinfo", ".zdebug_loc", ".zdebug_macro",
					   /* names only: */
					   ".debug_line", ".debug_line_str", ".zdebug_line" };

/* Sections inflated as far as lookups need when compressed (.debug_line unless hidden). */
static const char *const lazy_scns[] = { ".debug_info", ".debug_abbrev", ".debug_line" };

/* Every section of @d inflated whole: lookups go to libdw as for a plain file. */
static void lazy_whole(struct inl_dso *d)
{
	pp_dwlazy_need(d->info, UINT64_MAX);
	pp_dwlazy_need(d->abbrev, UINT64_MAX);
	pp_dwlazy_need(d->line, UINT64_MAX);
	d->info = d->abbrev = d->line = NULL;
}

/* Use @path for @d when it is ELF with build id @bid and DWARF. */
static bool try_file(struct pp_inl *r, struct inl_dso *d, const char *bid, const char *path)
{
	char hex[2 * INL_MAX_BID + 1];
	const unsigned char *ident;
	Dwarf_Off next;
	size_t hsz;

	if (!open_elf(path, ELF_C_READ_MMAP_PRIVATE, &d->fd, &d->elf))
		return false;
	if (!elf_bid_hex(d->elf, hex, sizeof(hex)) || strcmp(hex, bid))
		goto fail;
	ident = (const unsigned char *)elf_getident(d->elf, NULL);
	pp_dwinflate_elf(d->elf, unused_scns, PP_ARRAY_SIZE(unused_scns) - (r->names_only ? 0 : 3),
			 lazy_scns, r->whole ? 0 : PP_ARRAY_SIZE(lazy_scns), &d->inflated);
	d->info = pp_dwinflate_lazy(&d->inflated, ".debug_info");
	d->abbrev = pp_dwinflate_lazy(&d->inflated, ".debug_abbrev");
	d->line = pp_dwinflate_lazy(&d->inflated, ".debug_line");
	/* the headers are read here too: little-endian ones, beside a lazy .debug_info */
	if (!d->info || !ident || ident[EI_DATA] != ELFDATA2LSB)
		lazy_whole(d);
	pp_dwlazy_need(d->info, INL_FIRST_UNIT);	/* the first unit's header, just below */
	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	/* at least one readable CU header, or this is not worth keeping */
	if (!d->dw || dwarf_nextcu(d->dw, 0, &next, &hsz, NULL, NULL, NULL) != 0)
		goto fail;
	d->found = pp_xstrdup(path);	/* interned by the next holder of the write lock */
	return true;
fail:
	dso_close(d);
	return false;
}

static void search(struct pp_inl *r, struct inl_dso *d, const char *bid, const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	char buf[4096];

	base = base ? base + 1 : path;
	for (size_t i = 0; i < r->nr_dirs; i++) {
		const char *dir = r->dirs[i];
		if (snprintf(buf, sizeof(buf), "%s/.build-id/%.2s/%s.debug", dir, bid, bid + 2) <
			    (int)sizeof(buf) &&
		    try_file(r, d, bid, buf))
			return;
		if (snprintf(buf, sizeof(buf), "%s/%s/debuginfo", dir, bid) < (int)sizeof(buf) &&
		    try_file(r, d, bid, buf))
			return;
		if (base && *base &&
		    snprintf(buf, sizeof(buf), "%s/%s", dir, base) < (int)sizeof(buf) &&
		    try_file(r, d, bid, buf))
			return;
	}
	if (path && path[0] == '/')
		try_file(r, d, bid, path);
}

/* The binary of @bid, added (not searched yet) when new; under the write lock. */
static struct inl_dso *dso_entry(struct pp_inl *r, const char *bid)
{
	size_t n = strlen(bid);
	bool added;
	uint32_t idx;
	struct inl_dso *d;

	idx = pp_intern_put(r->bids, bid, n, &added);
	if (!added)
		return r->dsos[idx];
	d = pp_xcalloc(1, sizeof(*d));
	d->bid = pp_intern_key(r->bids, idx, NULL);
	d->fd = -1;
	pthread_mutex_init(&d->open_lock, NULL);
	PP_VEC_PUSH(r->dsos, r->nr_dsos, r->cap_dsos, d);
	return d;
}

/* @d's debug file looked for and opened once, by whichever thread comes first (no lock). */
static void dso_open(struct pp_inl *r, struct inl_dso *d, const char *bid, const char *path)
{
	if (__atomic_load_n(&d->searched, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&d->open_lock);
	if (!d->searched) {
		search(r, d, bid, path);
		__atomic_store_n(&d->searched, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&d->open_lock);
}

/* A build id as the capture gives it: 2..128 lowercase hex digits. */
static bool bid_ok(const char *bid)
{
	size_t n = 0;

	if (!bid)
		return false;
	for (; bid[n]; n++)
		if (n >= INL_MAX_BID || !((bid[n] >= '0' && bid[n] <= '9') ||
					  (bid[n] >= 'a' && bid[n] <= 'f')))
			return false;
	return n >= 4 && !(n & 1);
}

/* The name of function DIE @die (following abstract origins and specifications). */
static const char *die_name(struct pp_inl *r, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;
	char *dem;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (s && *s) {
		dem = pp_sym_demangle_dup(s, true);
		if (dem) {
			s = intern(r, dem);
			free(dem);
			return s;
		}
		return intern(r, s);
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s && *s ? intern(r, s) : intern(r, "[unknown]");
}

/* DW_AT_call_file / DW_AT_call_line of inlined subroutine @die. */
static void call_site(struct pp_inl *r, Dwarf_Die *die, Dwarf_Files *files, const char **file,
		      uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	const char *f;

	*file = NULL;
	*line = 0;
	if (r->names_only)
		return;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &v) == 0 && v <= UINT32_MAX)
		*line = (uint32_t)v;
	if (files && dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &v) == 0 &&
	    (f = dwarf_filesrc(files, v, NULL, NULL)))
		*file = intern(r, f);
}

static bool is_func(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* Every CU's ranges (DW_AT_low_pc/high_pc or DW_AT_ranges), once. */
static void build_ranges(struct inl_dso *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;

	d->ranges_built = true;
	while (dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t it = 0;
		Dwarf_Off off = dwarf_dieoffset(&cudie);

		while ((it = dwarf_ranges(&cudie, it, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (d->nr_ranges >= INL_MAX_CU_RANGES)
				goto done;
			PP_VEC_PUSH(d->ranges, d->nr_ranges, d->cap_ranges,
				    ((struct pp_dw_range){ lo, hi, off }));
		}
	}
done:
	if (d->nr_ranges)
		qsort(d->ranges, d->nr_ranges, sizeof(d->ranges[0]), pp_dw_range_cmp);
}

/*
 * find_cu() on a lazily inflated .debug_info: the unit .debug_aranges names, the units
 * before it, its abbreviations and its line table inflated.  Return: 1 (@cu found), 0 (not
 * there), -1 (no answer this way: the caller inflates everything and asks libdw).
 */
static int lazy_find_cu(struct inl_dso *d, uint64_t vaddr, Dwarf_Die *cu)
{
	const struct pp_dw_range *ar;
	struct pp_dw_unit u;
	Dwarf_Attribute a;
	Dwarf_Word stmt;
	Dwarf_Off next;
	size_t hsz;
	void **own;

	if (!d->aranges_built) {
		d->nr_aranges = pp_dw_aranges(d->elf, INL_MAX_CU_RANGES, &d->aranges);
		d->aranges_built = true;
	}
	if (!(ar = pp_dw_range_find(d->aranges, d->nr_aranges, vaddr)))
		return -1;
	/* libdw reaches a unit by walking the headers before it (DWARF 2-4: their first DIE) */
	while (d->units_end <= ar->off) {
		if (!pp_dw_unit_at(d->info, d->units_end, &u) ||
		    (u.version < 5 && d->abbrev && !pp_dw_abbrevs_need(d->abbrev, u.abbrev, NULL)))
			return -1;
		d->units_end = u.end;
	}
	own = pp_u64map_slot(&d->units_own, ar->off);
	if (!*own) {
		bool leaves = false;

		/* a plain .debug_abbrev is not parsed here: libdw looks up as in plain files */
		*own = d->abbrev && pp_dw_unit_at(d->info, ar->off, &u) &&
				       pp_dw_abbrevs_need(d->abbrev, u.abbrev, &leaves) && !leaves ?
			       (void *)1 : (void *)2;
	}
	if (*own != (void *)1)
		return -1;
	if (dwarf_next_unit(d->dw, ar->off, &next, &hsz, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    !dwarf_offdie(d->dw, ar->off + hsz, cu))
		return 0;
	if (d->line && dwarf_attr(cu, DW_AT_stmt_list, &a) && dwarf_formudata(&a, &stmt) == 0)
		pp_dw_line_need(d->line, stmt);
	return 1;
}

/* The CU DIE covering @vaddr: .debug_aranges first, else the CUs' own ranges. */
static bool find_cu(struct inl_dso *d, uint64_t vaddr, Dwarf_Die *cu)
{
	const struct pp_dw_range *r;

	if (d->info) {
		int rc = lazy_find_cu(d, vaddr, cu);

		if (rc >= 0)
			return rc;
		lazy_whole(d);
	}
	if (dwarf_addrdie(d->dw, vaddr, cu))
		return true;
	if (!d->ranges_built)
		build_ranges(d);
	r = pp_dw_range_find(d->ranges, d->nr_ranges, vaddr);
	return r && dwarf_offdie(d->dw, r->off, cu) != NULL;
}

/* Containers without code of their own that may hold function definitions (C++, Fortran). */
static bool is_container(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_module;
}

/* Index the subprograms with code among the children of @parent (recursing into containers). */
static void index_funcs(struct inl_dso *d, struct cu_funcs *cf, Dwarf_Die *parent, int depth,
			size_t *budget)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (!*budget)
			return;
		--*budget;
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&c, it, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (d->nr_func_ranges >= INL_MAX_FUNC_RANGES)
					return;
				d->nr_func_ranges++;
				PP_VEC_PUSH(cf->v, cf->nr, cf->cap,
					    ((struct pp_dw_range){ lo, hi, dwarf_dieoffset(&c) }));
			}
		} else if (is_container(tag)) {
			index_funcs(d, cf, &c, depth + 1, budget);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static struct cu_funcs *cu_funcs(struct inl_dso *d, Dwarf_Die *cu)
{
	void **slot = pp_u64map_slot(&d->cus, dwarf_dieoffset(cu));
	struct cu_funcs *cf = *slot;
	size_t budget = 1u << 24;

	if (cf)
		return cf;
	cf = *slot = pp_xcalloc(1, sizeof(*cf));
	index_funcs(d, cf, cu, 0, &budget);
	if (cf->nr)
		qsort(cf->v, cf->nr, sizeof(cf->v[0]), pp_dw_range_cmp);
	return cf;
}

/*
 * The scopes containing @vaddr inside function @fn, outermost first into @chain (@fn first);
 * returns how many.  Only DIEs that can hold code are entered.
 */
static int scope_chain(Dwarf_Die *fn, uint64_t vaddr, Dwarf_Die *chain, int max)
{
	size_t budget = INL_WALK_BUDGET;
	int n = 1;
	Dwarf_Die c;

	chain[0] = *fn;
	while (n < max && dwarf_child(&chain[n - 1], &c) == 0) {
		bool found = false;
		do {
			int tag = dwarf_tag(&c);
			if (!budget--)
				return n;
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) &&
			    dwarf_haspc(&c, vaddr) == 1) {
				chain[n++] = c;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!found)
			break;
	}
	return n;
}

static struct inl_ent *resolve(struct pp_inl *r, struct inl_dso *d, uint64_t vaddr)
{
	struct pp_inl_frame f[PP_INL_MAX_DEPTH];
	Dwarf_Die cu, fn, *chain;
	Dwarf_Files *files = NULL;
	Dwarf_Line *ln;
	const struct pp_dw_range *cr;
	struct cu_funcs *cf;
	const char *file = NULL;
	uint32_t line = 0, nr = 0;
	struct inl_ent *e;
	int nc = 0;

	if (!find_cu(d, vaddr, &cu))
		return &r->miss;
	if (!r->names_only && (ln = dwarf_getsrc_die(&cu, vaddr))) {
		const char *s = dwarf_linesrc(ln, NULL, NULL);
		int l = 0;
		file = s ? intern(r, s) : NULL;
		if (dwarf_lineno(ln, &l) == 0 && l > 0)
			line = (uint32_t)l;
	}
	if (r->names_only || dwarf_getsrcfiles(&cu, &files, NULL) != 0)
		files = NULL;
	cf = cu_funcs(d, &cu);
	chain = pp_xmalloc(INL_MAX_NEST * sizeof(*chain));
	if ((cr = pp_dw_range_find(cf->v, cf->nr, vaddr)) && dwarf_offdie(d->dw, cr->off, &fn))
		nc = scope_chain(&fn, vaddr, chain, INL_MAX_NEST);
	/* innermost first, up to the real function (a nested one stops it too) */
	for (int i = nc - 1; i > 0 && nr < PP_INL_MAX_DEPTH; i--) {
		int tag = dwarf_tag(&chain[i]);
		if (!is_func(tag))
			continue;
		if (tag != DW_TAG_inlined_subroutine)
			break;	/* the real function: the symbol table names it */
		f[nr].name = die_name(r, &chain[i]);
		f[nr].file = file;
		f[nr].line = line;
		call_site(r, &chain[i], files, &file, &line);
		nr++;
	}
	free(chain);
	e = pp_xmalloc(sizeof(*e) + nr * sizeof(e->f[0]));
	e->found = true;
	memcpy(e->f, f, nr * sizeof(f[0]));
	e->res = (struct pp_inl_res){ .frames = nr ? e->f : NULL, .nr = nr, .file = file,
				      .line = line };
	return e;
}

/* The binary of @bid known to @r already, or NULL (a read lock is enough). */
static struct inl_dso *dso_known(struct pp_inl *r, const char *bid)
{
	int64_t idx;

	if (inl_last.serial == r->serial && !strcmp(inl_last.d->bid, bid))
		return inl_last.d;
	idx = pp_intern_find(r->bids, bid, strlen(bid));
	if (idx < 0)
		return NULL;
	inl_last.serial = r->serial;
	inl_last.d = r->dsos[idx];
	return inl_last.d;
}

/* The answer for @vaddr when @r has it: 1 or 0, else -1 (a read lock is enough). */
static int known(struct pp_inl *r, const char *build_id, uint64_t vaddr, struct pp_inl_res *out)
{
	struct inl_dso *d = dso_known(r, build_id);
	struct inl_ent *e;

	if (!d || !__atomic_load_n(&d->searched, __ATOMIC_ACQUIRE))
		return -1;
	if (!d->dw)
		return 0;
	e = pp_u64map_get(&d->cache, vaddr);
	if (!e)
		return -1;
	if (!e->found)
		return 0;
	*out = e->res;
	return 1;
}

/* The answer for @vaddr of @d (searched), under the write lock. */
static bool lookup(struct pp_inl *r, struct inl_dso *d, uint64_t vaddr, struct pp_inl_res *out)
{
	void **slot;
	struct inl_ent *e;

	if (d->found) {
		d->file = intern(r, d->found);
		free(d->found);
		d->found = NULL;
	}
	inl_last.serial = r->serial;
	inl_last.d = d;
	if (!d->dw)
		return false;
	slot = pp_u64map_slot(&d->cache, vaddr);
	if (!*slot) {
		e = resolve(r, d, vaddr);
		/* resolve() does not insert: the slot is still valid */
		*slot = e;
	}
	e = *slot;
	if (!e->found)
		return false;
	*out = e->res;
	return true;
}

bool pp_inl_lookup(struct pp_inl *r, const char *build_id, const char *path, uint64_t vaddr,
		   struct pp_inl_res *out)
{
	struct inl_dso *d;
	bool found;
	int rc;

	if (!(inl_last.serial == r->serial && !strcmp(inl_last.d->bid, build_id)) &&
	    !bid_ok(build_id))
		return false;
	/* what is known already, in parallel; the first lookup of an address, one at a time */
	pthread_rwlock_rdlock(&r->lock);
	rc = known(r, build_id, vaddr, out);
	pthread_rwlock_unlock(&r->lock);
	if (rc >= 0)
		return rc;
	pthread_rwlock_wrlock(&r->lock);
	d = dso_entry(r, build_id);
	pthread_rwlock_unlock(&r->lock);
	dso_open(r, d, build_id, path);
	pthread_rwlock_wrlock(&r->lock);
	found = lookup(r, d, vaddr, out);
	pthread_rwlock_unlock(&r->lock);
	return found;
}

void pp_inl_prefetch(struct pp_inl *r, const char *build_id, const char *path)
{
	struct inl_dso *d;

	if (!bid_ok(build_id))
		return;
	pthread_rwlock_wrlock(&r->lock);
	d = dso_entry(r, build_id);
	pthread_rwlock_unlock(&r->lock);
	dso_open(r, d, build_id, path);
}

void pp_inl_inflate_ahead(struct pp_inl *r, const char *build_id, const bool *stop)
{
	struct pp_dwinflate *f;
	int64_t idx;

	if (!bid_ok(build_id))
		return;
	pthread_rwlock_rdlock(&r->lock);
	idx = pp_intern_find(r->bids, build_id, strlen(build_id));
	f = idx < 0 || !__atomic_load_n(&r->dsos[idx]->searched, __ATOMIC_ACQUIRE) ?
		    NULL : &r->dsos[idx]->inflated;
	pthread_rwlock_unlock(&r->lock);
	/* the dso outlives the resolver's lock: it is freed with the resolver only */
	for (size_t i = 0; f && i < f->nr_lazy; i++)
		pp_dwlazy_all(&f->lazy[i], stop);
}

const char *pp_inl_debug_file(struct pp_inl *r, const char *build_id, const char *path)
{
	const char *file;
	int64_t idx;

	if (!bid_ok(build_id))
		return NULL;
	pthread_rwlock_rdlock(&r->lock);
	idx = pp_intern_find(r->bids, build_id, strlen(build_id));
	file = idx < 0 ? NULL : r->dsos[idx]->file;
	pthread_rwlock_unlock(&r->lock);
	return file;
}
