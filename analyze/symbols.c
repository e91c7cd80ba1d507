/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - the names a capture gives to numbers: syscalls, kernel and
 * user symbols.
 *
 * The syscall table, kallsyms, the DSOs with their symbols and the mmaps
 * come as metadata and side-band records; kernel symbols are sorted once,
 * before the first look-up after a KSYM (ksyms_final), and a DSO is complete
 * when the next one begins or the first look-up comes.
 * Not here: resolving a stack's frames (print.c), the task table (tasks.c).
 */
#include <string.h>

#include "analyze/internal.h"
#include "common/symbolize.h"

const char *ana_syscall_name(struct ana_session *s, uint64_t nr)
{
	return pp_u64map_get(&s->syscalls, nr);
}

void ana_session_finalize_syms(struct ana_session *s)
{
	if (!s->ksyms_final) {
		pp_symtab_ksyms_finalize(s->syms);
		s->ksyms_final = true;
	}
	struct pp_dso *d = pp_u64map_del(&s->dsos, 0);
	if (d)
		pp_dso_finalize(d);
}

const char *ana_ksym(struct ana_session *s, uint64_t addr, uint64_t *off)
{
	struct pp_sym_res res;

	ana_session_finalize_syms(s);
	if (!pp_symtab_lookup_kernel(s->syms, addr, &res) || !res.name)
		return NULL;
	if (off)
		*off = res.offset;
	return res.name;
}

/*
 * A DSO record starts the symbols of a binary: the one before is complete.
 * A DSO's symbols may span segments: the writer repeats the DSO record at
 * the start of the next one, and dso_get() returns the existing DSO (1),
 * which the SYMs that follow keep filling.
 */
static void dso_begin(struct ana_session *s, const struct ppf_record *rec)
{
	struct pp_dso *d = pp_u64map_del(&s->dsos, 0);
	if (d)
		pp_dso_finalize(d);
	d = NULL;
	unsigned f = ((rec->u.dso.flags & PPF_DSO_JITMAP) ? PP_DSO_JIT : 0) |
		     ((rec->u.dso.flags & PPF_DSO_DEBUGINFO) ? PP_DSO_DEBUGINFO : 0);
	uint32_t jpid;
	if (ana_sb_room(s) && pp_symtab_dso_get(s->syms, rec->u.dso.build_id, rec->u.dso.build_id_sz,
			      rec->u.dso.path, f, &d) >= 0 && d) {
		pp_dso_set_text(d, rec->u.dso.text_vaddr, rec->u.dso.text_offset);
		pp_u64map_put(&s->dsos, 0, d);
		if ((f & PP_DSO_JIT) && pp_sym_jitmap_pid(rec->u.dso.path, &jpid))
			pp_symtab_jit_attach(s->syms, jpid, d);
	}
}

void ana_syms_meta(struct ana_session *s, const struct ppf_record *rec)
{
	switch (rec->type) {
	case PPF_REC_SYSCALL:
		if (!pp_u64map_get(&s->syscalls, rec->u.syscall.nr) && ana_sb_room(s)) {
			s->sb_bytes += strlen(rec->u.syscall.name) + 1 + 2 * sizeof(struct pp_u64map_slot);
			pp_u64map_put(&s->syscalls, rec->u.syscall.nr, pp_xstrdup(rec->u.syscall.name));
		}
		break;
	case PPF_REC_MMAP: {
		const struct ppf_mmap *m = &rec->u.mmap;

		if (ana_sb_room(s))
			pp_symtab_map_add(s->syms, m->pid, rec->time_ns, m->addr, m->len, m->pgoff,
					  m->path, m->build_id, m->build_id_sz);
		break;
	}
	case PPF_REC_KSYM: {
		size_t mem = pp_symtab_mem(s->syms);

		if (!ana_sb_room(s))
			break;
		pp_symtab_ksym_add(s->syms, rec->u.ksym.addr, rec->u.ksym.type, rec->u.ksym.name,
				   rec->u.ksym.module);
		s->ksyms_mem += pp_symtab_mem(s->syms) - mem;
		s->ksyms_final = false;
		break;
	}
	case PPF_REC_DSO:
		dso_begin(s, rec);
		break;
	case PPF_REC_SYM: {
		struct pp_dso *d = pp_u64map_get(&s->dsos, 0);
		if (d && ana_sb_room(s))
			pp_dso_sym_add(d, rec->u.sym.start, rec->u.sym.size, rec->u.sym.name);
		break;
	}
	default:
		break;
	}
}
