/* SPDX-License-Identifier: MIT */
/*
 * insn.c - saving the instruction bytes around write-breakpoint IPs (insn.h).
 *
 * The cache maps an IP to the entries seen for it: one for kernel code, one
 * per process for user code (the same address may hold other code in
 * another process).  A failed read is cached too, so an unreadable IP costs
 * one attempt.  /proc/kcore is opened on the first kernel IP; when it is
 * missing or unreadable (a kernel without CONFIG_PROC_KCORE, lockdown, no
 * CAP_SYS_RAWIO) kernel IPs are skipped, which -v reports once.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "common/err.h"
#include "common/log.h"
#include "common/u64map.h"
#include "format/format.h"
#include "record/perf/evsel.h"
#include "record/perf/insn.h"

#define KCORE_MAX_SEGS 4096

struct insn_entry {
	struct insn_entry *next;	/* the other processes with this IP */
	uint64_t ip;
	uint32_t pid;			/* 0 for kernel code */
	bool kernel, ok;
	uint8_t nr_before, nr_after;
	uint8_t bytes[REC_INSN_BEFORE + REC_INSN_AFTER];
};

struct rec_insn {
	struct pp_u64map by_ip;		/* ip -> struct insn_entry list */
	char *kcore_path;
	struct rec_kcore kcore;
	int kcore_state;		/* 0 not tried, 1 open, -1 unavailable */
	uint64_t nr_saved, nr_failed;
	bool noted_user;
};

/* --- /proc/kcore ---------------------------------------------------------- */

int rec_kcore_open(const char *path, struct rec_kcore *kc)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	int rc;

	memset(kc, 0, sizeof(*kc));
	kc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0)
		return -errno;
	if (pread(kc->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum || eh.e_phnum > KCORE_MAX_SEGS) {
		rc = PP_EBAD_MAGIC;
		goto err_close;
	}
	ph = pp_xcalloc(eh.e_phnum, sizeof(*ph));
	if (pread(kc->fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		rc = PP_ETRUNCATED;
		goto err_free;
	}
	kc->segs = pp_xcalloc(eh.e_phnum, sizeof(*kc->segs));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_filesz)
			continue;
		kc->segs[kc->nr_segs++] = (struct rec_kcore_seg){ ph[i].p_vaddr, ph[i].p_offset,
								  ph[i].p_filesz };
	}
	free(ph);
	return 0;

err_free:
	free(ph);
err_close:
	close(kc->fd);
	kc->fd = -1;
	return rc;
}

void rec_kcore_close(struct rec_kcore *kc)
{
	if (kc->segs && kc->fd >= 0)
		close(kc->fd);
	free(kc->segs);
	memset(kc, 0, sizeof(*kc));
	kc->fd = -1;
}

ssize_t rec_kcore_read(const struct rec_kcore *kc, uint64_t va, void *buf, size_t n)
{
	for (size_t i = 0; i < kc->nr_segs; i++) {
		const struct rec_kcore_seg *s = &kc->segs[i];
		ssize_t got;

		if (va < s->vaddr || va - s->vaddr >= s->size)
			continue;
		if (n > s->size - (va - s->vaddr))
			n = (size_t)(s->size - (va - s->vaddr));
		got = pread(kc->fd, buf, n, (off_t)(s->offset + (va - s->vaddr)));
		return got < 0 ? -1 : got;
	}
	return -1;
}

/* --- reading around an IP -------------------------------------------------- */

/* Read @n bytes at @addr from kcore (@kc) or from an open /proc/PID/mem (@fd). */
static ssize_t read_at(const struct rec_kcore *kc, int fd, uint64_t addr, void *buf, size_t n)
{
	if (kc)
		return rec_kcore_read(kc, addr, buf, n);
	ssize_t got = pread(fd, buf, n, (off_t)addr);

	return got < 0 ? -1 : got;
}

/*
 * The bytes before @ip (as many of the REC_INSN_BEFORE as can be read: the
 * page or segment before may be missing) and after it.  Return: whether
 * any byte before @ip was read.
 */
static bool read_around(const struct rec_kcore *kc, int fd, struct insn_entry *e)
{
	uint8_t tmp[REC_INSN_BEFORE];
	ssize_t got;

	for (size_t k = REC_INSN_BEFORE; k >= 1; k--) {
		if (e->ip < k)
			continue;
		got = read_at(kc, fd, e->ip - k, tmp, k);
		if (got == (ssize_t)k) {
			memcpy(e->bytes, tmp, k);
			e->nr_before = (uint8_t)k;
			break;
		}
	}
	if (!e->nr_before)
		return false;
	got = read_at(kc, fd, e->ip, e->bytes + e->nr_before, REC_INSN_AFTER);
	e->nr_after = got > 0 ? (uint8_t)got : 0;
	return true;
}

static bool read_kernel(struct rec_insn *ri, struct insn_entry *e)
{
	if (!ri->kcore_state) {
		int rc = rec_kcore_open(ri->kcore_path, &ri->kcore);

		ri->kcore_state = rc ? -1 : 1;
		if (rc)
			pp_debug(1, "cannot read %s (%s): the instructions at kernel breakpoint "
				 "hits are not saved, their written values will not be decoded",
				 ri->kcore_path, pp_strerror(rc));
	}
	return ri->kcore_state > 0 && read_around(&ri->kcore, -1, e);
}

static bool read_user(struct rec_insn *ri, struct insn_entry *e)
{
	char path[64];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/mem", e->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!ri->noted_user)
			pp_debug(1, "cannot read %s (%s): some instructions at user breakpoint "
				 "hits are not saved", path, strerror(errno));
		ri->noted_user = true;
		return false;
	}
	ok = read_around(NULL, fd, e);
	close(fd);
	return ok;
}

/* --- the cache ------------------------------------------------------------- */

bool rec_insn_wanted(const struct rec_evsel *e)
{
#if defined(__x86_64__)
	return e->kind == PPF_EV_BREAKPOINT && e->attr.type == PERF_TYPE_BREAKPOINT &&
	       e->attr.bp_type == HW_BREAKPOINT_W;
#else
	(void)e;
	return false;		/* the decoder knows x86-64 only */
#endif
}

struct rec_insn *rec_insn_new(const char *kcore)
{
	struct rec_insn *ri = pp_xcalloc(1, sizeof(*ri));

	ri->kcore_path = pp_xstrdup(kcore);
	ri->kcore.fd = -1;
	return ri;
}

void rec_insn_free(struct rec_insn *ri)
{
	size_t it = 0;
	uint64_t key;
	void *v;

	if (!ri)
		return;
	while (pp_u64map_next(&ri->by_ip, &it, &key, &v)) {
		for (struct insn_entry *e = v, *next; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	pp_u64map_release(&ri->by_ip);
	rec_kcore_close(&ri->kcore);
	free(ri->kcore_path);
	free(ri);
}

static int entry_write(const struct insn_entry *e, struct ppf_writer *w)
{
	static const char hex[] = "0123456789abcdef";
	char key[64], val[2 * (REC_INSN_BEFORE + REC_INSN_AFTER) + 2], *p = val;

	if (e->kernel)
		snprintf(key, sizeof(key), "insn.%llx", (unsigned long long)e->ip);
	else
		snprintf(key, sizeof(key), "insn.%u.%llx", e->pid, (unsigned long long)e->ip);
	for (size_t i = 0; i < (size_t)e->nr_before + e->nr_after; i++) {
		if (i == e->nr_before)
			*p++ = ':';
		*p++ = hex[e->bytes[i] >> 4];
		*p++ = hex[e->bytes[i] & 15];
	}
	if (!e->nr_after)
		*p++ = ':';
	*p = '\0';
	return ppf_write_kv(w, key, val);
}

int rec_insn_hit(struct rec_insn *ri, struct ppf_writer *w, uint32_t pid, uint64_t ip,
		 bool kernel)
{
	void **slot = pp_u64map_slot(&ri->by_ip, ip);
	struct insn_entry *e;

	if (kernel)
		pid = 0;
	for (e = *slot; e; e = e->next)
		if (e->kernel == kernel && e->pid == pid)
			return 0;	/* saved, or tried */
	e = pp_xcalloc(1, sizeof(*e));
	e->ip = ip;
	e->pid = pid;
	e->kernel = kernel;
	e->next = *slot;
	*slot = e;
	e->ok = kernel ? read_kernel(ri, e) : read_user(ri, e);
	if (!e->ok) {
		ri->nr_failed++;
		return 0;
	}
	ri->nr_saved++;
	return entry_write(e, w);
}

int rec_insn_write_all(struct rec_insn *ri, struct ppf_writer *w)
{
	size_t it = 0;
	uint64_t key;
	void *v;
	int rc = 0;

	while (!rc && pp_u64map_next(&ri->by_ip, &it, &key, &v))
		for (const struct insn_entry *e = v; e && !rc; e = e->next)
			if (e->ok)
				rc = entry_write(e, w);
	return rc;
}

void rec_insn_count(const struct rec_insn *ri, uint64_t *nr_saved, uint64_t *nr_failed)
{
	*nr_saved = ri ? ri->nr_saved : 0;
	*nr_failed = ri ? ri->nr_failed : 0;
}
