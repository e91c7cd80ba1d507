/* SPDX-License-Identifier: MIT */
/*
 * dwinflate.c - compressed DWARF sections inflated for libdw, without the Adler-32 pass.
 *
 * An SHF_COMPRESSED section is an Elf_Chdr (type, inflated size, alignment) and, for
 * ELFCOMPRESS_ZLIB, a zlib stream: a 2-byte header, DEFLATE data, the Adler-32 of the output.
 * The header is checked here by hand and the DEFLATE data inflated raw (windowBits -15), so
 * the checksum is neither computed nor compared; the output must still be exactly the size
 * the Chdr announces and the stream must end there.  libdw reads the data descriptor of a
 * section (elf_getdata()) as long as its header does not say SHF_COMPRESSED, so the section's
 * descriptor is pointed at the inflated bytes and the flag cleared in the in-memory header.
 * The same pass marks the sections the caller never reads SHT_NOBITS, so libdw skips them.
 * A lazy section gets the same treatment, but its mapping is filled in steps, each resuming
 * the stream where the last stopped (pp_dwlazy_need()).
 */
#include "common/dwinflate.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23		/* Linux 5.14; older kernels refuse it, harmlessly */
#endif

#define DWINFLATE_MAX_SIZE (1ull << 32)	/* inflated bytes of one section, at most */
#define DEFLATE_MAX_RATIO 1032		/* inflated bytes of one DEFLATE byte, at most */
#define DWLAZY_STEP (64u << 10)		/* a lazy section is inflated this much at a time */

/* @n bytes of DEFLATE data at @in into @out (@out_sz bytes, all of it); false when not so. */
static bool inflate_raw(const unsigned char *in, size_t n, void *out, size_t out_sz)
{
	z_stream z;
	int rc;

	if (n > UINT32_MAX || out_sz > UINT32_MAX)
		return false;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, -15) != Z_OK)
		return false;
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)out_sz;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	return rc == Z_STREAM_END && z.total_out == out_sz;
}

/* A zlib stream header: DEFLATE, a window of at most 32 KB, its check bits, no dictionary. */
static bool zlib_header_ok(const unsigned char *p, size_t n)
{
	return n >= 2 && (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 && (p[0] << 8 | p[1]) % 31 == 0 &&
	       !(p[1] & 0x20);
}

/* @scn's data handed to libdw as @size plain bytes at @buf; false when libelf refuses. */
static bool hand_over(Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *d, const GElf_Chdr *ch, void *buf)
{
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = ch->ch_addralign;
	if (!gelf_update_shdr(scn, sh))
		return false;
	d->d_buf = buf;
	d->d_size = ch->ch_size;
	d->d_type = ELF_T_BYTE;
	d->d_align = ch->ch_addralign ? ch->ch_addralign : 1;
	return true;
}

/* @l's stream set up, nothing inflated yet; false when zlib cannot start. */
static bool lazy_start(struct pp_dwlazy *l, const unsigned char *in, size_t in_sz)
{
	z_stream *z = calloc(1, sizeof(*z));

	if (!z || in_sz > UINT32_MAX || inflateInit2(z, -15) != Z_OK) {
		free(z);
		return false;
	}
	z->next_in = (unsigned char *)in;
	z->avail_in = (uInt)in_sz;
	l->z = z;
	pthread_mutex_init(&l->lock, NULL);
	return true;
}

/* @l's stream ended (under its lock, or with no other thread left) */
static void lazy_stop(struct pp_dwlazy *l)
{
	if (l->z) {
		inflateEnd(l->z);
		free(l->z);
		l->z = NULL;
	}
}

/* One step of @l towards @end (under its lock; @end <= size). */
static void lazy_step(struct pp_dwlazy *l, size_t end)
{
	z_stream *z = l->z;
	size_t done = l->done, want = end - done < DWLAZY_STEP ? DWLAZY_STEP : end - done;
	size_t page = done & ~(size_t)4095;
	int rc;

	if (want > l->size - done)
		want = l->size - done;
	/* the pages in place at once, as the whole-section mapping has them */
	(void)madvise(l->buf + page, done + want - page, MADV_POPULATE_WRITE);
	z->next_out = l->buf + done;
	z->avail_out = (uInt)want;
	rc = inflate(z, Z_NO_FLUSH);
	__atomic_store_n(&l->done, (size_t)z->total_out, __ATOMIC_RELEASE);
	if (z->total_out == l->size || z->total_out == done || rc != Z_OK)
		lazy_stop(l);	/* all of it, or a stream that ends short or breaks */
}

/*
 * @scn inflated into a new mapping kept in @out (@lazy: mapped, and inflated only as far as
 * asked); false (nothing changed) when it cannot be.
 */
static bool inflate_scn(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, const char *lazy,
			struct pp_dwinflate *out)
{
	size_t chdr_sz = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	struct pp_dwlazy *l = NULL;
	const unsigned char *in;
	size_t in_sz;
	GElf_Chdr ch;
	Elf_Data *d;
	void *buf;

	if (out->nr == PP_DWINFLATE_MAX || (lazy && out->nr_lazy == PP_DWLAZY_MAX) ||
	    !gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB || !ch.ch_size ||
	    ch.ch_size > DWINFLATE_MAX_SIZE)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < chdr_sz + 2 ||
	    !zlib_header_ok((const unsigned char *)d->d_buf + chdr_sz, d->d_size - chdr_sz))
		return false;
	/* DEFLATE gives at most 1032 bytes a byte: a larger size is a lie, not mapped and filled */
	if (ch.ch_size / DEFLATE_MAX_RATIO > d->d_size - chdr_sz)
		return false;
	in = (const unsigned char *)d->d_buf + chdr_sz + 2;
	in_sz = d->d_size - chdr_sz - 2;
	buf = mmap(NULL, ch.ch_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		   (lazy ? MAP_NORESERVE : MAP_POPULATE), -1, 0);
	if (buf == MAP_FAILED)
		return false;
	if (lazy) {
		l = &out->lazy[out->nr_lazy];
		*l = (struct pp_dwlazy){ .name = lazy, .buf = buf, .size = ch.ch_size };
		if (!lazy_start(l, in, in_sz)) {
			l = NULL;
			goto fail;
		}
	} else if (!inflate_raw(in, in_sz, buf, ch.ch_size)) {
		goto fail;
	}
	if (!hand_over(scn, sh, d, &ch, buf))
		goto fail;
	if (l)
		out->nr_lazy++;
	out->buf[out->nr] = buf;
	out->len[out->nr++] = ch.ch_size;
	return true;
fail:
	if (l) {
		lazy_stop(l);
		pthread_mutex_destroy(&l->lock);
	}
	munmap(buf, ch.ch_size);
	return false;
}

static bool listed(const char *name, const char *const *v, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

void pp_dwinflate_elf(Elf *elf, const char *const *hide, size_t nr_hide,
		      const char *const *lazy, size_t nr_lazy, struct pp_dwinflate *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (listed(name, hide, nr_hide)) {
			sh.sh_type = SHT_NOBITS;
			gelf_update_shdr(scn, &sh);
		} else if ((sh.sh_flags & SHF_COMPRESSED) && !(sh.sh_flags & SHF_ALLOC) &&
			   !strncmp(name, ".debug_", 7)) {
			const char *lz = NULL;

			for (size_t i = 0; i < nr_lazy && !lz; i++)
				if (!strcmp(name, lazy[i]))
					lz = lazy[i];
			inflate_scn(elf, scn, &sh, lz, out);
		}
	}
}

struct pp_dwlazy *pp_dwinflate_lazy(struct pp_dwinflate *d, const char *name)
{
	for (size_t i = 0; i < d->nr_lazy; i++)
		if (!strcmp(d->lazy[i].name, name))
			return &d->lazy[i];
	return NULL;
}

bool pp_dwlazy_need(struct pp_dwlazy *l, uint64_t end)
{
	if (!l)
		return true;
	if (end > l->size)
		end = l->size;
	if (__atomic_load_n(&l->done, __ATOMIC_ACQUIRE) >= end)
		return true;
	pthread_mutex_lock(&l->lock);
	while (l->done < end && l->z)
		lazy_step(l, end);
	pthread_mutex_unlock(&l->lock);
	return __atomic_load_n(&l->done, __ATOMIC_ACQUIRE) >= end;
}

void pp_dwlazy_all(struct pp_dwlazy *l, const bool *stop)
{
	bool more = true;

	while (more && !__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&l->lock);	/* a step at a time: lookups may need it */
		if (l->z)
			lazy_step(l, l->done + 1);
		more = l->z != NULL;
		pthread_mutex_unlock(&l->lock);
	}
}

size_t pp_dwinflate_bytes(const struct pp_dwinflate *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++)
		n += d->len[i];
	for (size_t i = 0; i < d->nr_lazy; i++)
		n -= d->lazy[i].size - __atomic_load_n(&d->lazy[i].done, __ATOMIC_ACQUIRE);
	return n;
}

void pp_dwinflate_free(struct pp_dwinflate *d)
{
	for (size_t i = 0; i < d->nr_lazy; i++) {
		lazy_stop(&d->lazy[i]);
		pthread_mutex_destroy(&d->lazy[i].lock);
	}
	d->nr_lazy = 0;
	for (size_t i = 0; i < d->nr; i++)
		munmap(d->buf[i], d->len[i]);
	d->nr = 0;
}
