/* SPDX-License-Identifier: MIT */
/*
 * copy.c - write a record that a reader decoded, whatever its type.
 *
 * The writer re-encodes it (its own stack table, its own RAW_XOR chain,
 * its own segment boundaries), so a capture copied record by record reads
 * back the same records but need not be the same bytes.  Index entries are
 * the writer's own business and are not copied; records of types this
 * writer does not know are refused, not passed through blind.
 */
#include "format/writer-internal.h"
#include "common/err.h"

int ppf_write_record(struct ppf_writer *w, const struct ppf_record *r)
{
	switch (r->type) {
	case PPF_REC_KV:
		return ppf_write_kv(w, r->u.kv.key, r->u.kv.value);
	case PPF_REC_STAT:
		return ppf_write_stat(w, r->u.stat.key, r->u.stat.value);
	case PPF_REC_SYSCALL:
		return ppf_write_syscall(w, r->u.syscall.nr, r->u.syscall.name);
	case PPF_REC_EVENT_DESC:
		return ppf_write_event_desc(w, &r->u.event);
	case PPF_REC_TASK:
		return ppf_write_task(w, &r->u.task);
	case PPF_REC_KSYM:
		return ppf_write_ksym(w, &r->u.ksym);
	case PPF_REC_DSO:
		return ppf_write_dso(w, &r->u.dso);
	case PPF_REC_SYM:
		return ppf_write_sym(w, &r->u.sym);
	case PPF_REC_UNWIND:
		return ppf_write_unwind_rec(w, &r->u.unwind);
	case PPF_REC_SAMPLE:
		return ppf_write_sample(w, &r->u.sample);
	case PPF_REC_COMM:
		return ppf_write_comm(w, &r->u.comm);
	case PPF_REC_FORK:
		return ppf_write_fork(w, &r->u.task_event);
	case PPF_REC_EXIT:
		return ppf_write_exit(w, &r->u.task_event);
	case PPF_REC_MMAP:
		return ppf_write_mmap(w, &r->u.mmap);
	case PPF_REC_LOST:
		return ppf_write_lost(w, &r->u.lost);
	case PPF_REC_TIME_SYNC:
		return ppf_write_time_sync(w, &r->u.sync);
	case PPF_REC_SIDEBAND:
		return ppf_write_sideband(w, &r->u.sideband);
	case PPF_REC_COUNTER:
		return ppf_write_counter(w, &r->u.counter);
	case PPF_REC_INDEX_ENTRY:
		return 0;
	default:
		return PP_EBAD_RECORD;
	}
}
