/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - per-process maps and the lazy writing of DSO symbol tables.
 *
 * Processes are in a chained hash by pid; each holds its executable maps
 * sorted by start address, so a lookup is a binary search.  Binaries are in a
 * chained hash by path; a binary is loaded at most once (written, failed or
 * found to duplicate an already written build id).  The common case of a
 * sample - every frame in binaries already done - costs a hash lookup and a
 * binary search per frame, with a one-entry cache for the last process.
 * An exec keeps the old image's maps aside until the first map after the
 * new image's vDSO: a sample taken inside execve has a pc in the old image,
 * and the analyzer names it from there (common/symbolize-proc.c), so its
 * binary is written too.
 * Not here: ELF parsing of symbol tables (elfsyms.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/log.h"
#include "format/format.h"
#include "record/symbols/elfsyms.h"
#include "record/symbols/symbols.h"
#include "record/symbols/vdso.h"

#define BID_MAX 64

struct dso {
	struct dso *next;		/* hash chain */
	char *path;
	uint64_t hash;
	uint8_t bid[BID_MAX];
	size_t bid_sz;
	bool done;			/* written, failed or a duplicate */
	bool failed;			/* its symbols could not be read */
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	struct proc *next;
	uint32_t pid;
	bool jit_done;			/* looked for /tmp/perf-PID.map */
	bool all_done;			/* unwind tables on: every map's binary loaded */
	struct map *maps;
	size_t nr, cap;
	struct map *pre;		/* the image an exec replaced, until the exec is over */
	size_t nr_pre;
	bool pre_vdso;			/* the new vDSO is mapped: the next map ends the exec */
};

struct rec_symbols {
	struct proc **procs;
	size_t nr_procs, cap_procs;	/* cap is a power of 2 */
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	uint8_t (*written)[BID_MAX + 1];	/* build ids written: [0] = length */
	size_t nr_written;
	struct proc *last;
	bool unwind;			/* write each binary's unwind rows too */
	bool unwind_warned;		/* said once that this architecture has none */
	struct rec_symbols_stats st;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static inline size_t pid_slot(const struct rec_symbols *sy, uint32_t pid)
{
	return (size_t)((pid * 0x9e3779b1u) & (uint32_t)(sy->cap_procs - 1));
}

struct rec_symbols *rec_symbols_new(void)
{
	struct rec_symbols *sy = pp_xcalloc(1, sizeof(*sy));

	sy->cap_procs = 1024;
	sy->procs = pp_xcalloc(sy->cap_procs, sizeof(*sy->procs));
	sy->cap_dsos = 256;
	sy->dsos = pp_xcalloc(sy->cap_dsos, sizeof(*sy->dsos));
	return sy;
}

static void proc_free(struct proc *p)
{
	free(p->maps);
	free(p->pre);
	free(p);
}

void rec_symbols_free(struct rec_symbols *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < sy->cap_procs; i++) {
		for (struct proc *p = sy->procs[i], *n; p; p = n) {
			n = p->next;
			proc_free(p);
		}
	}
	for (size_t i = 0; i < sy->cap_dsos; i++) {
		for (struct dso *d = sy->dsos[i], *n; d; d = n) {
			n = d->next;
			free(d->path);
			free(d);
		}
	}
	free(sy->procs);
	free(sy->dsos);
	free(sy->written);
	free(sy);
}

static struct proc *proc_find(struct rec_symbols *sy, uint32_t pid)
{
	if (sy->last && sy->last->pid == pid)
		return sy->last;
	for (struct proc *p = sy->procs[pid_slot(sy, pid)]; p; p = p->next) {
		if (p->pid == pid) {
			sy->last = p;
			return p;
		}
	}
	return NULL;
}

/* @p at the head of its pid's chain. */
static void proc_link(struct rec_symbols *sy, struct proc *p)
{
	size_t s = pid_slot(sy, p->pid);

	p->next = sy->procs[s];
	sy->procs[s] = p;
}

static void procs_grow(struct rec_symbols *sy)
{
	struct proc **old = sy->procs;
	size_t ocap = sy->cap_procs;

	sy->cap_procs *= 2;
	sy->procs = pp_xcalloc(sy->cap_procs, sizeof(*sy->procs));
	for (size_t i = 0; i < ocap; i++) {
		for (struct proc *p = old[i], *n; p; p = n) {
			n = p->next;
			proc_link(sy, p);
		}
	}
	free(old);
}

static struct proc *proc_get(struct rec_symbols *sy, uint32_t pid)
{
	struct proc *p = proc_find(sy, pid);

	if (p)
		return p;
	if (sy->nr_procs >= sy->cap_procs)
		procs_grow(sy);
	p = pp_xcalloc(1, sizeof(*p));
	p->pid = pid;
	proc_link(sy, p);
	sy->nr_procs++;
	return p;
}

static void proc_drop(struct rec_symbols *sy, uint32_t pid)
{
	struct proc **pp = &sy->procs[pid_slot(sy, pid)];

	for (; *pp; pp = &(*pp)->next) {
		struct proc *p = *pp;

		if (p->pid != pid)
			continue;
		*pp = p->next;
		if (sy->last == p)
			sy->last = NULL;
		proc_free(p);
		sy->nr_procs--;
		return;
	}
}

static struct dso *dso_get(struct rec_symbols *sy, const char *path, const uint8_t *bid,
			   size_t bid_sz)
{
	uint64_t h = hash_str(path);
	size_t s = (size_t)(h & (sy->cap_dsos - 1));
	struct dso *d;

	for (d = sy->dsos[s]; d; d = d->next)
		if (d->hash == h && !strcmp(d->path, path))
			break;
	if (!d) {
		if (sy->nr_dsos >= sy->cap_dsos) {
			struct dso **old = sy->dsos;
			size_t ocap = sy->cap_dsos;

			sy->cap_dsos *= 2;
			sy->dsos = pp_xcalloc(sy->cap_dsos, sizeof(*sy->dsos));
			for (size_t i = 0; i < ocap; i++) {
				for (struct dso *x = old[i], *n; x; x = n) {
					size_t k = (size_t)(x->hash & (sy->cap_dsos - 1));

					n = x->next;
					x->next = sy->dsos[k];
					sy->dsos[k] = x;
				}
			}
			free(old);
			s = (size_t)(h & (sy->cap_dsos - 1));
		}
		d = pp_xcalloc(1, sizeof(*d));
		d->path = pp_xstrdup(path);
		d->hash = h;
		d->next = sy->dsos[s];
		sy->dsos[s] = d;
		sy->nr_dsos++;
	}
	if (bid_sz && !d->bid_sz && bid_sz <= BID_MAX) {
		memcpy(d->bid, bid, bid_sz);
		d->bid_sz = bid_sz;
	}
	return d;
}

/* The index of the first map with end > @addr. */
static size_t maps_lower(const struct map *maps, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t map_lower(const struct proc *p, uint64_t addr)
{
	return maps_lower(p->maps, p->nr, addr);
}

void rec_symbols_map(struct rec_symbols *sy, uint32_t pid, uint64_t addr, uint64_t len,
		     uint64_t pgoff, const char *path, const uint8_t *build_id, size_t build_id_sz)
{
	struct proc *p;
	size_t i, j;
	uint64_t end = addr + len;

	if (!path || (path[0] != '/' && strcmp(path, REC_VDSO_PATH)) || !len)
		return;		/* //anon, memfd: no file to read symbols from */
	p = proc_get(sy, pid);
	/* remove what the new map covers (a map partly covered is dropped whole) */
	i = map_lower(p, addr);
	for (j = i; j < p->nr && p->maps[j].start < end; j++)
		;
	if (j > i) {
		memmove(p->maps + i, p->maps + j, (p->nr - j) * sizeof(*p->maps));
		p->nr -= j - i;
	}
	if (p->nr == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->maps = pp_xrealloc(p->maps, p->cap * sizeof(*p->maps));
	}
	memmove(p->maps + i + 1, p->maps + i, (p->nr - i) * sizeof(*p->maps));
	p->maps[i] = (struct map){ addr, end, pgoff, dso_get(sy, path, build_id, build_id_sz) };
	p->nr++;
	p->all_done = false;
	if (p->pre && p->pre_vdso) {	/* the new image's own map: the exec is over */
		free(p->pre);
		p->pre = NULL;
		p->nr_pre = 0;
	}
	p->pre_vdso = p->pre && !strcmp(path, REC_VDSO_PATH);	/* the last map exec makes */
}

void rec_symbols_fork(struct rec_symbols *sy, uint32_t pid, uint32_t ppid)
{
	struct proc *parent, *child;

	if (pid == ppid)
		return;
	proc_drop(sy, pid);
	parent = proc_find(sy, ppid);
	if (!parent || !parent->nr)
		return;
	child = proc_get(sy, pid);
	parent = proc_find(sy, ppid);	/* proc_get may have rehashed: find again */
	child->cap = parent->nr;
	child->nr = parent->nr;
	child->maps = pp_xmalloc(child->cap * sizeof(*child->maps));
	memcpy(child->maps, parent->maps, child->nr * sizeof(*child->maps));
}

void rec_symbols_exec(struct rec_symbols *sy, uint32_t pid)
{
	struct proc *p = proc_find(sy, pid);

	if (!p)
		return;
	free(p->pre);
	p->pre = p->maps;
	p->nr_pre = p->nr;
	p->pre_vdso = false;
	p->maps = NULL;
	p->nr = p->cap = 0;
}

void rec_symbols_exit(struct rec_symbols *sy, uint32_t pid)
{
	proc_drop(sy, pid);
}

int rec_read_build_id(const char *path, uint8_t *id, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), len = 0;
	size_t n;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n && !len; i++) {
			GElf_Phdr ph;
			Elf_Data *d;
			size_t off = 0, name_off, desc_off;
			GElf_Nhdr nh;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
						 ELF_T_NHDR);
			while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
				    nh.n_descsz <= max) {
					memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
					len = (int)nh.n_descsz;
					break;
				}
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}

static bool bid_written(const struct rec_symbols *sy, const uint8_t *bid, size_t sz)
{
	for (size_t i = 0; i < sy->nr_written; i++)
		if (sy->written[i][0] == sz && !memcmp(sy->written[i] + 1, bid, sz))
			return true;
	return false;
}

static void remember_bid(struct rec_symbols *sy, const uint8_t *bid, size_t sz)
{
	if (!sz || sz > BID_MAX || bid_written(sy, bid, sz))
		return;
	sy->written = pp_xrealloc(sy->written, (sy->nr_written + 1) * sizeof(*sy->written));
	sy->written[sy->nr_written][0] = (uint8_t)sz;
	memcpy(sy->written[sy->nr_written] + 1, bid, sz);
	sy->nr_written++;
}

/* The unwind rows of @es from the binary at @path: none when they cannot be read. */
static void unwind_load(struct rec_symbols *sy, struct rec_elfsyms *es, const char *path)
{
	int rc = rec_elfsyms_load_unwind(es, path);
	struct utsname u;

	if (rc == -ENOTSUP && !sy->unwind_warned && !uname(&u) && strcmp(u.machine, "x86_64")) {
		sy->unwind_warned = true;	/* this machine's binaries: say it once */
		pp_warn("DWARF unwind tables are not supported on %s", u.machine);
	} else if (rc) {
		pp_debug(1, "no unwind table for '%s': %s", path,
			 rc == -ENOTSUP ? "not x86-64 code" : strerror(-rc));
	}
	sy->st.nr_unwind_rows += es->nr_unwind;
	sy->st.nr_unwind += es->nr_unwind > 0;
}

/* [vdso]: the image of this process (the same in every 64-bit one). */
static int vdso_load(struct rec_symbols *sy, struct ppf_writer *w, struct dso *d)
{
	struct rec_elfsyms *es = NULL;
	size_t size;
	const void *img = rec_vdso_image(&size);
	int rc;

	d->done = true;
	if (!img || rec_elfsyms_load_mem(REC_VDSO_PATH, img, size, sy->unwind, &es)) {
		sy->st.nr_failed++;
		d->failed = true;
		return 0;
	}
	if (es->build_id_sz && bid_written(sy, es->build_id, es->build_id_sz)) {
		rec_elfsyms_free(es);
		return 0;
	}
	sy->st.nr_unwind_rows += es->nr_unwind;
	sy->st.nr_unwind += es->nr_unwind > 0;
	rc = rec_elfsyms_write(w, es);
	if (!rc) {
		sy->st.nr_dsos++;
		remember_bid(sy, es->build_id, es->build_id_sz);
	}
	rec_elfsyms_free(es);
	return rc;
}

static int dso_load(struct rec_symbols *sy, struct ppf_writer *w, struct dso *d, uint32_t pid,
		    const struct map *m)
{
	struct rec_elfsyms *es = NULL;
	char alt[128];
	const char *from = d->path;	/* the file the symbols came from */
	int rc;

	d->done = true;
	/* deleted, replaced or in another mount namespace: the mapping still has it */
	snprintf(alt, sizeof(alt), "/proc/%u/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if (!d->bid_sz) {
		int n = rec_read_build_id(d->path, d->bid, BID_MAX);

		if (n < 0)
			n = rec_read_build_id(alt, d->bid, BID_MAX);
		if (n > 0)
			d->bid_sz = (size_t)n;
	}
	if (d->bid_sz && bid_written(sy, d->bid, d->bid_sz)) {
		sy->st.nr_dup++;
		return 0;
	}
	rc = rec_elfsyms_load(d->path, &es);
	if (rc == 0 && d->bid_sz && (es->build_id_sz != d->bid_sz ||
				     memcmp(es->build_id, d->bid, d->bid_sz))) {
		/* the file at that path is not the one mapped any more */
		rec_elfsyms_free(es);
		es = NULL;
		rc = -ESTALE;
	}
	if (rc) {
		int rc2 = rec_elfsyms_load(alt, &es);

		if (rc2 == 0 && rec_elfsyms_set_path(es, d->path) == 0)
			rc = 0;
		else if (rc2 == 0)
			rec_elfsyms_free(es);
		from = alt;
	}
	if (rc) {
		pp_debug(1, "no symbols for '%s': %s", d->path, strerror(rc < 0 ? -rc : EINVAL));
		sy->st.nr_failed++;
		d->failed = true;
		return 0;
	}
	if (es->build_id_sz && bid_written(sy, es->build_id, es->build_id_sz)) {
		sy->st.nr_dup++;
		rec_elfsyms_free(es);
		return 0;
	}
	if (sy->unwind)
		unwind_load(sy, es, from);
	rc = rec_elfsyms_write(w, es);
	if (!rc) {
		sy->st.nr_dsos++;
		remember_bid(sy, es->build_id, es->build_id_sz);
		remember_bid(sy, d->bid, d->bid_sz);
	}
	rec_elfsyms_free(es);
	return rc;
}

/* An address in no file mapping: a JIT map /tmp/perf-PID.map names it, if any. */
static int jit_load(struct rec_symbols *sy, struct ppf_writer *w, struct proc *p)
{
	struct rec_elfsyms *es = NULL;
	char path[64];
	int rc;

	p->jit_done = true;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->pid);
	if (access(path, R_OK) || rec_jitmap_load(path, &es))
		return 0;
	rc = rec_elfsyms_write(w, es);
	if (!rc)
		sy->st.nr_dsos++;
	rec_elfsyms_free(es);
	return rc;
}

/*
 * With unwind tables, the frames under a sample's IP are found from its stack copy only
 * when the capture is analysed: every binary the process maps may be among them, so all
 * get their symbols and tables the first time one of its samples comes.
 */
static int all_load(struct rec_symbols *sy, struct ppf_writer *w, struct proc *p)
{
	int rc = 0;

	for (size_t k = 0; k < p->nr && !rc; k++) {
		struct map m = p->maps[k];	/* dso_load() may not move maps, but be safe */

		if (m.dso->done)
			continue;
		rc = !strcmp(m.dso->path, REC_VDSO_PATH) ? vdso_load(sy, w, m.dso) :
			dso_load(sy, w, m.dso, p->pid, &m);
	}
	p->all_done = !rc;
	return rc;
}

/* The binary of map @m of @pid written, if it is not yet. */
static int map_load(struct rec_symbols *sy, struct ppf_writer *w, uint32_t pid,
		    const struct map *m)
{
	if (m->dso->done)
		return 0;
	if (!strcmp(m->dso->path, REC_VDSO_PATH))
		return vdso_load(sy, w, m->dso);
	return dso_load(sy, w, m->dso, pid, m);
}

int rec_symbols_hit(struct rec_symbols *sy, struct ppf_writer *w, uint32_t pid, uint64_t addr)
{
	struct proc *p = proc_find(sy, pid);
	size_t i;
	int rc;

	if (!p) {
		sy->st.nr_unmapped++;
		return 0;
	}
	if (sy->unwind && !p->all_done && (rc = all_load(sy, w, p)))
		return rc;
	i = map_lower(p, addr);
	if (i < p->nr && p->maps[i].start <= addr)
		return map_load(sy, w, pid, &p->maps[i]);
	i = maps_lower(p->pre, p->nr_pre, addr);
	if (i < p->nr_pre && p->pre[i].start <= addr)	/* a pc inside execve */
		return map_load(sy, w, pid, &p->pre[i]);
	sy->st.nr_unmapped++;
	return p->jit_done ? 0 : jit_load(sy, w, p);
}

int rec_symbols_write_maps(struct rec_symbols *sy, struct ppf_writer *w, uint64_t time_ns)
{
	int rc = 0;

	for (size_t i = 0; i < sy->cap_procs && !rc; i++) {
		for (struct proc *p = sy->procs[i]; p && !rc; p = p->next) {
			for (size_t k = 0; k < p->nr && !rc; k++) {
				const struct map *m = &p->maps[k];
				struct ppf_mmap mm = {
					.time_ns = time_ns, .pid = p->pid, .tid = p->pid,
					.addr = m->start, .len = m->end - m->start, .pgoff = m->pgoff,
					.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
					.build_id = m->dso->bid_sz ? m->dso->bid : NULL,
					.build_id_sz = (uint32_t)m->dso->bid_sz, .path = m->dso->path,
				};
				rc = ppf_write_mmap(w, &mm);
			}
		}
	}
	return rc;
}

void rec_symbols_forget_written(struct rec_symbols *sy)
{
	for (size_t i = 0; i < sy->cap_dsos; i++)
		for (struct dso *d = sy->dsos[i]; d; d = d->next)
			d->done = d->failed;
	for (size_t i = 0; i < sy->cap_procs; i++)
		for (struct proc *p = sy->procs[i]; p; p = p->next)
			p->jit_done = p->all_done = false;
	sy->nr_written = 0;
}

void rec_symbols_set_unwind(struct rec_symbols *sy, bool on)
{
	sy->unwind = on;
}

void rec_symbols_get_stats(const struct rec_symbols *sy, struct rec_symbols_stats *st)
{
	*st = sy->st;
}

/*
 * The words of a stack copy are mostly not code addresses: the process's lowest and highest
 * executable addresses turn most away in two compares, and the map of the last hit takes
 * the return addresses into one binary, the usual run, without a search.  With unwind tables
 * every binary of the process is loaded at its first sample, after which no word can load
 * anything: the scan (a tenth of pp-record's CPU on a C++ program's 3 KiB copies, whose
 * stack addresses lie below [vdso], inside the maps' span) is skipped.
 */
int rec_symbols_hit_words(struct rec_symbols *sy, struct ppf_writer *w, uint32_t pid,
			  const uint8_t *words, size_t sz)
{
	struct proc *p = proc_find(sy, pid);
	const struct map *last = NULL;
	uint64_t lo, hi;

	if (!p || !p->nr)
		return 0;
	if (sy->unwind && !p->all_done) {	/* every map's binary at once, as rec_symbols_hit() */
		int rc = all_load(sy, w, p);

		if (rc)
			return rc;
	}
	if (p->all_done)	/* nothing left that a word could load: skip the scan */
		return 0;
	lo = p->maps[0].start;
	hi = p->maps[p->nr - 1].end;
	for (size_t off = 0; off + 8 <= sz; off += 8) {
		uint64_t a;
		size_t i;

		memcpy(&a, words + off, 8);
		if (a < lo || a >= hi || (last && a >= last->start && a < last->end))
			continue;
		i = map_lower(p, a);
		if (i == p->nr || p->maps[i].start > a)
			continue;
		last = &p->maps[i];
		sy->st.nr_stack_words++;
		if (!last->dso->done) {
			int rc = dso_load(sy, w, last->dso, pid, &p->maps[i]);

			if (rc)
				return rc;
		}
	}
	return 0;
}
