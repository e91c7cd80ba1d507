/* SPDX-License-Identifier: MIT */
/*
 * tdguard.c - a trace.dat's header sizes and counts checked against the file's size.
 *
 * A cursor walks the layout in the file's byte order: version 6 in its fixed order
 * (header page and event, ftrace formats, event systems, kallsyms, printk formats,
 * cmdlines, CPU count, options); version 7 from its first OPTIONS section along the chain
 * of DONE options, each section an option points to checked where it lies.  A section
 * compressed in a version 7 file is checked as far as its compression header (its sizes
 * within bounds); its inside is libtracecmd's.  Every check is a bound, none a parse.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyze/import/tdguard.h"
#include "common/err.h"

#define MAGIC_SZ 10
#define MAX_CPUS 8192u
#define MAX_SECTIONS 256		/* OPTIONS sections followed along the DONE chain */
#define MAX_RATIO 1024u			/* a compressed section's usize over its csize */
#define MAX_USIZE (1u << 30)

enum { OPT_DONE = 0, OPT_BUFFER = 3, OPT_TIME_SHIFT = 12, OPT_TSC2NSEC = 14, OPT_HEADER_INFO = 16,
       OPT_CMDLINES = 21 };
enum { SEC_FLAG_COMPRESS = 1 };

struct cur {
	const uint8_t *p;
	uint64_t off, end;		/* where it is, where its region ends */
	bool be;			/* the file is big-endian */
	bool zip;			/* version 7 with a compression algorithm */
	uint64_t page_sz;		/* the file's buffer page size */
	unsigned commit_sz;		/* a page header's commit field: the file's long size */
	char *why;
	size_t whysz;
	bool failed;
	bool zstd;			/* compressed with zstd */
	struct ana_td_zlayout *zl;	/* where the top instance's chunks are, or NULL */
	bool shifted;			/* times libtracecmd shifts or scales: no @zl */
};

static bool fail(struct cur *c, const char *what)
{
	if (!c->failed)
		snprintf(c->why, c->whysz, "%s at byte %llu runs past %llu", what,
			 (unsigned long long)c->off, (unsigned long long)c->end);
	c->failed = true;
	return false;
}

/* A failure inside a sub-cursor @c of @file (its line already said, or said here). */
static bool section(struct cur *file, uint64_t off, unsigned id);

static bool sub_fail(struct cur *file, const struct cur *c, const char *what)
{
	if (!c->failed)
		fail(file, what);
	file->failed = true;
	return false;
}

static bool need(struct cur *c, uint64_t n, const char *what)
{
	return n <= c->end - c->off ? true : fail(c, what);
}

static bool num(struct cur *c, unsigned width, uint64_t *v, const char *what)
{
	if (!need(c, width, what))
		return false;
	*v = 0;
	for (unsigned i = 0; i < width; i++) {
		unsigned b = c->be ? i : width - 1 - i;

		*v = *v << 8 | c->p[c->off + b];
	}
	c->off += width;
	return true;
}

static bool skip(struct cur *c, uint64_t n, const char *what)
{
	if (!need(c, n, what))
		return false;
	c->off += n;
	return true;
}

/* A NUL-terminated string (@want: it must be this one, or NULL). */
static bool str(struct cur *c, const char *want, const char *what)
{
	const uint8_t *nul = memchr(c->p + c->off, 0, (size_t)(c->end - c->off));

	if (!nul)
		return fail(c, what);
	if (want && strcmp((const char *)c->p + c->off, want))
		return fail(c, what);
	c->off = (uint64_t)(nul - c->p) + 1;
	return true;
}

/* A size of @width bytes and that many bytes. */
static bool sized(struct cur *c, unsigned width, const char *what)
{
	uint64_t n;

	return num(c, width, &n, what) && skip(c, n, what);
}

/* A 4-byte count of (8-byte size, bytes) items. */
static bool counted(struct cur *c, const char *what)
{
	uint64_t n;

	if (!num(c, 4, &n, what) || !need(c, n * 8, what))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (!sized(c, 8, what))
			return false;
	return true;
}

static bool headers(struct cur *c)
{
	return str(c, "header_page", "header_page") && sized(c, 8, "header_page") &&
	       str(c, "header_event", "header_event") && sized(c, 8, "header_event");
}

static bool systems(struct cur *c)
{
	uint64_t n;

	if (!num(c, 4, &n, "event systems") || !need(c, n * 5, "event systems"))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (!str(c, NULL, "event system name") || !counted(c, "event formats"))
			return false;
	return true;
}

/* The inside of version 7's sections 16 to 21, or version 6's parts of the same name. */
static bool part(struct cur *c, unsigned id)
{
	switch (id) {
	case 16: return headers(c);
	case 17: return counted(c, "ftrace formats");
	case 18: return systems(c);
	case 19: return sized(c, 4, "kallsyms");
	case 20: return sized(c, 4, "printk formats");
	case 21: return sized(c, 8, "cmdlines");
	default: return true;
	}
}

static bool options6(struct cur *c)
{
	uint64_t id, sz;

	for (;;) {	/* ended by a type of 0, with no size after it */
		if (!num(c, 2, &id, "option"))
			return false;
		if (id == OPT_DONE)
			return true;
		if (!num(c, 4, &sz, "option") || !skip(c, sz, "option"))
			return false;
	}
}

/*
 * A CPU's uncompressed buffer pages at @off, @size bytes (what lies past the file's end is
 * not read): each page's commit, the bytes of events it says it holds, within the page.
 * libtraceevent's kbuffer reads a page up to its commit without a check (fuzz-tracedat:
 * a SEGV in kbuffer_load_subbuffer).
 */
static bool pages(struct cur *file, uint64_t off, uint64_t size, uint64_t page_sz)
{
	const uint64_t commit_mask = (1u << 27) - 1;	/* the rest are flags */
	uint64_t hdr = 8 + file->commit_sz, end, commit;
	struct cur c = *file;

	if (page_sz < hdr || page_sz > (1u << 24))
		return fail(file, "the buffer page size");
	if (off >= file->end)
		return true;
	end = size < file->end - off ? off + size : file->end;
	for (uint64_t p = off; p + hdr <= end; p += page_sz) {
		c.off = p + 8;
		if (!num(&c, file->commit_sz, &commit, "a page header"))
			return sub_fail(file, &c, "a page header");
		if ((commit & commit_mask) > page_sz - hdr) {
			snprintf(file->why, file->whysz, "the buffer page at byte %llu says it holds"
				 " %llu bytes, more than a page of %llu", (unsigned long long)p,
				 (unsigned long long)(commit & commit_mask),
				 (unsigned long long)page_sz);
			file->failed = true;
			return false;
		}
	}
	return true;
}

/* CPU @i's data at @off, @size bytes, into @zl (may be NULL). */
static void note_cpu(struct ana_td_zlayout *zl, uint64_t i, uint64_t off, uint64_t size,
		     bool plain)
{
	if (!zl || i >= ANA_TD_ZCPUS)
		return;
	zl->off[i] = off;
	zl->size[i] = size;
	zl->plain = plain;
}

/* Version 6's "flyrecord" part: each CPU's data offset and size, its pages checked. */
static bool flyrecord6(struct cur *c, uint64_t cpus)
{
	uint64_t off, size;

	if (c->end - c->off < 10 || memcmp(c->p + c->off, "flyrecord", 10))
		return true;	/* latency format, or nothing: libtracecmd's */
	c->off += 10;
	for (uint64_t i = 0; i < cpus; i++) {
		if (!num(c, 8, &off, "CPU data") || !num(c, 8, &size, "CPU data") ||
		    !pages(c, off, size, c->page_sz))
			return false;
		note_cpu(c->be ? NULL : c->zl, i, off, size, true);
	}
	if (c->zl && !c->be)
		c->zl->nr_cpus = cpus <= ANA_TD_ZCPUS ? (unsigned)cpus : 0;
	return true;
}

static bool version6(struct cur *c)
{
	uint64_t cpus;
	bool ok = headers(c);

	for (unsigned id = 17; ok && id <= 21; id++)
		ok = part(c, id);
	if (!ok || !num(c, 4, &cpus, "CPU count"))
		return false;
	if (cpus > MAX_CPUS)
		return fail(c, "CPU count");
	if (c->end - c->off >= 10 && !memcmp(c->p + c->off, "options  ", 10)) {
		c->off += 10;
		if (!options6(c))
			return false;
	}
	return flyrecord6(c, cpus);
}

/*
 * The header of the version 7 section at @off (id, flags, string id, size): @c is left on
 * its body, bounded to it, and @flags holds its flags.
 */
static bool sec_head(struct cur *file, uint64_t off, struct cur *c, uint64_t *flags,
		     const char *what)
{
	uint64_t sid, strid, size;

	*c = *file;
	if (off > c->end)
		return fail(file, what);
	c->off = off;
	if (!num(c, 2, &sid, what) || !num(c, 2, flags, what) || !num(c, 4, &strid, what) ||
	    !num(c, 8, &size, what) || !need(c, size, what))
		return sub_fail(file, c, what);
	c->end = c->off + size;
	return true;
}

/*
 * A version 7 section at @off: its header within the file, its size within the file, a
 * compressed one's sizes within bounds, an uncompressed one's inside walked when @id says
 * what it holds.
 */
static bool section(struct cur *file, uint64_t off, unsigned id)
{
	struct cur c;
	uint64_t flags, csize, usize;

	if (!sec_head(file, off, &c, &flags, "section"))
		return false;
	if (flags & SEC_FLAG_COMPRESS) {
		if (id == OPT_BUFFER)
			return true;	/* flyrecord chunks: libtracecmd's */
		if (!num(&c, 4, &csize, "compression header") ||
		    !num(&c, 4, &usize, "compression header") || !need(&c, csize, "compressed data"))
			return sub_fail(file, &c, "section");
		if (usize > MAX_USIZE || usize > csize * MAX_RATIO + 4096)
			return fail(file, "a compressed section's size");
		return true;
	}
	if (!part(&c, id))
		return sub_fail(file, &c, "section");
	return true;
}

/*
 * A compressed CPU's data at @off, @size bytes: a count of chunks, each a compressed and an
 * uncompressed size and the compressed bytes (libtracecmd allocates the count's table and
 * each chunk's size before it reads them).
 */
static bool chunks(struct cur *file, uint64_t off, uint64_t size)
{
	struct cur c = *file;
	uint64_t n, csize, usize;

	/* the size trace-cmd writes leaves out the count: 4 bytes more */
	if (!size || off > file->end || size + 4 > file->end - off)
		return true;	/* a cut file: libtracecmd stops at its end */
	c.off = off;
	c.end = off + size + 4;
	if (!num(&c, 4, &n, "chunk count") || !need(&c, n * 8, "chunk count"))
		return sub_fail(file, &c, "chunk count");
	for (uint64_t i = 0; i < n; i++) {
		if (!num(&c, 4, &csize, "chunk") || !num(&c, 4, &usize, "chunk") ||
		    !skip(&c, csize, "chunk"))
			return sub_fail(file, &c, "chunk");
		if (usize > MAX_USIZE || usize > csize * MAX_RATIO + 4096)
			return fail(file, "a compressed chunk's size");
	}
	return true;
}

/* A BUFFER option's data (@c bounded to it): offset, name, clock, page size, CPUs. */
static bool buffer7(struct cur *file, struct cur *c)
{
	uint64_t off, page, cpus, id, coff, csz;

	/* the top instance's name is "": its chunks are noted for tdzdata.c */
	bool top = c->end - c->off > 8 && !c->p[c->off + 8];	/* past the section offset */
	struct ana_td_zlayout *zl = (file->zstd || !file->zip) && !file->be && top &&
				    file->zl && !file->zl->nr_cpus ? file->zl : NULL;

	if (!num(c, 8, &off, "buffer option") || !str(c, NULL, "buffer name") ||
	    !str(c, NULL, "buffer clock") || !num(c, 4, &page, "buffer option") ||
	    !num(c, 4, &cpus, "buffer option") || !need(c, cpus * 20, "buffer CPUs"))
		return sub_fail(file, c, "buffer option");
	if (!section(file, off, OPT_BUFFER))
		return false;
	for (uint64_t i = 0; i < cpus; i++) {
		if (!num(c, 4, &id, "buffer CPU") || !num(c, 8, &coff, "buffer CPU") ||
		    !num(c, 8, &csz, "buffer CPU"))
			return sub_fail(file, c, "buffer CPU");
		if (file->zip ? !chunks(file, coff, csz) : !pages(file, coff, csz, page))
			return false;
		note_cpu(zl, i, coff, csz, !file->zip);
	}
	if (zl)
		zl->nr_cpus = cpus <= ANA_TD_ZCPUS ? (unsigned)cpus : 0;
	return true;
}

static bool options7(struct cur *file, uint64_t off, uint64_t *next)
{
	struct cur c;
	uint64_t flags, id, sz, v;

	*next = 0;
	if (!sec_head(file, off, &c, &flags, "options section"))
		return false;
	if (flags & SEC_FLAG_COMPRESS)
		return section(file, off, 0);
	while (c.off < c.end) {
		if (!num(&c, 2, &id, "option") || !num(&c, 4, &sz, "option") || !need(&c, sz, "option"))
			return sub_fail(file, &c, "section");
		uint64_t data = c.off;

		file->shifted |= id == OPT_TIME_SHIFT || id == OPT_TSC2NSEC;
		if (id == OPT_DONE && sz >= 8 && num(&c, 8, next, "option"))
			return true;
		if (id == OPT_BUFFER) {
			struct cur b = c;

			b.end = data + sz;
			if (!buffer7(file, &b))
				return false;
		} else if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES && sz >= 8 &&
			   num(&c, 8, &v, "option") && !section(file, v, (unsigned)id)) {
			return false;
		}
		c.off = data + sz;
	}
	return true;
}

static bool version7(struct cur *c)
{
	uint64_t off, next;

	const char *zname = (const char *)c->p + c->off;

	if (!str(c, NULL, "compression name") || !str(c, NULL, "compression version") ||
	    !num(c, 8, &off, "options offset"))
		return false;
	c->zip = *zname && strcmp(zname, "none");
	c->zstd = !strcmp(zname, "zstd");
	if (off >= c->end) {
		snprintf(c->why, c->whysz, "its options are at byte %llu, past its end (%llu bytes):"
			 " version 7 keeps them at the end, a cut file lost them",
			 (unsigned long long)off, (unsigned long long)c->end);
		return false;
	}
	for (int i = 0; off && i < MAX_SECTIONS; i++) {
		if (!options7(c, off, &next))
			return false;
		if (next == off)
			break;
		off = next;
	}
	return true;
}

int ana_td_guard(const uint8_t *data, uint64_t size, char *why, size_t whysz)
{
	return ana_td_guard_z(data, size, NULL, why, whysz);
}

int ana_td_guard_z(const uint8_t *data, uint64_t size, struct ana_td_zlayout *zl, char *why,
		   size_t whysz)
{
	struct cur c = { .p = data, .end = size, .why = why, .whysz = whysz, .zl = zl };
	uint64_t page;
	bool ok;

	if (zl)
		memset(zl, 0, sizeof(*zl));
	if (size < MAGIC_SZ + 2 + 6) {
		snprintf(why, whysz, "only %llu bytes", (unsigned long long)size);
		return PP_EBAD_LENGTH;
	}
	c.off = MAGIC_SZ + 2;	/* after "6\0" or "7\0" (tracedat.c checked them) */
	c.be = data[c.off] == 1;
	c.off += 2;		/* endian, long size */
	c.commit_sz = data[MAGIC_SZ + 3] == 4 ? 4 : 8;
	ok = num(&c, 4, &page, "page size");
	c.page_sz = page;
	if (ok)
		ok = data[MAGIC_SZ] == '6' ? version6(&c) : version7(&c);
	if (zl && (!ok || c.shifted))
		zl->nr_cpus = 0;
	return ok ? 0 : PP_EBAD_LENGTH;
}
