/* SPDX-License-Identifier: MIT */
/*
 * writer-meta.c - writing the untimed records: key/value metadata, statistics,
 * syscall names, event descriptions, tasks, and the symbol tables (KSYM, DSO, SYM).
 *
 * Each is built in w->body and committed by ppf_writer_rec_end() to a segment
 * of its kind (META, STATS, KSYMS, USYMS).  Symbol addresses are stored as
 * zigzag deltas from the previous one (PPF_SEGF_DELTA_ADDR); a DSO restarts
 * its SYMs from 0.
 * Not here: segments (writer.c) or timed records (writer-events.c).
 */
#include "format/writer-internal.h"

int ppf_write_kv(struct ppf_writer *w, const char *key, const char *value)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_META, ppf_str_sz(key) + ppf_str_sz(value));

	if (rc)
		return rc;
	wb_str(&w->body, key);
	wb_str(&w->body, value);
	return ppf_writer_rec_end(w, PPF_REC_KV);
}

int ppf_write_stat(struct ppf_writer *w, const char *key, uint64_t value)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_STATS, ppf_str_sz(key) + PPF_VARINT_MAX);

	if (rc)
		return rc;
	wb_str(&w->body, key);
	wb_varint(&w->body, value);
	return ppf_writer_rec_end(w, PPF_REC_STAT);
}

int ppf_write_syscall(struct ppf_writer *w, uint32_t nr, const char *name)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_META, PPF_VARINT_MAX + ppf_str_sz(name));

	if (rc)
		return rc;
	wb_varint(&w->body, nr);
	wb_str(&w->body, name);
	return ppf_writer_rec_end(w, PPF_REC_SYSCALL);
}

int ppf_write_event_desc(struct ppf_writer *w, const struct ppf_event_desc *d)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_META, 5 * PPF_VARINT_MAX + ppf_str_sz(d->name) +
			   ppf_str_sz(d->selector) + ppf_str_sz(d->filter) + d->attr_sz + ppf_str_sz(d->format));

	if (rc)
		return rc;
	wb_varint(&w->body, d->id);
	wb_varint(&w->body, d->kind);
	wb_varint(&w->body, d->flags);
	wb_varint(&w->body, d->tp_id);
	wb_str(&w->body, d->name);
	wb_str(&w->body, d->selector);
	wb_str(&w->body, d->filter);
	wb_varint(&w->body, d->attr_sz);
	wb_bytes(&w->body, d->attr, d->attr_sz);
	wb_str(&w->body, d->format);
	return ppf_writer_rec_end(w, PPF_REC_EVENT_DESC);
}

int ppf_write_task(struct ppf_writer *w, const struct ppf_task *t)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_META, 3 * PPF_VARINT_MAX + ppf_str_sz(t->comm) + ppf_str_sz(t->cmdline));

	if (rc)
		return rc;
	wb_varint(&w->body, t->pid);
	wb_varint(&w->body, t->tid);
	wb_varint(&w->body, t->ppid);
	wb_str(&w->body, t->comm);
	wb_str(&w->body, t->cmdline);
	return ppf_writer_rec_end(w, PPF_REC_TASK);
}

int ppf_write_ksym(struct ppf_writer *w, const struct ppf_ksym *k)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_KSYMS, PPF_VARINT_MAX + 1 + ppf_str_sz(k->name) + ppf_str_sz(k->module));

	if (rc)
		return rc;
	wb_varint(&w->body, zigzag((int64_t)(k->addr - w->prev_addr)));
	w->prev_addr = k->addr;
	wb_u8(&w->body, (uint8_t)k->type);
	wb_str(&w->body, k->name);
	wb_str(&w->body, k->module);
	return ppf_writer_rec_end(w, PPF_REC_KSYM);
}

int ppf_write_dso(struct ppf_writer *w, const struct ppf_dso *d)
{
	if (d->build_id_sz > 64)
		return ppf_writer_fail(w, PP_EBAD_LENGTH, "build id");
	int rc = ppf_writer_rec_begin(w, PPF_SEG_USYMS, 6 * PPF_VARINT_MAX + d->build_id_sz + ppf_str_sz(d->path));

	if (rc)
		return rc;
	wb_varint(&w->body, d->build_id_sz);
	wb_bytes(&w->body, d->build_id, d->build_id_sz);
	wb_str(&w->body, d->path);
	wb_varint(&w->body, d->nr_syms);
	wb_varint(&w->body, d->flags);
	wb_varint(&w->body, d->text_vaddr);
	wb_varint(&w->body, d->text_offset);
	w->prev_addr = 0;	/* its SYMs count from 0 */
	return ppf_writer_rec_end(w, PPF_REC_DSO);
}

int ppf_write_sym(struct ppf_writer *w, const struct ppf_sym *s)
{
	int rc = ppf_writer_rec_begin(w, PPF_SEG_USYMS, 2 * PPF_VARINT_MAX + ppf_str_sz(s->name));

	if (rc)
		return rc;
	wb_varint(&w->body, zigzag((int64_t)(s->start - w->prev_addr)));
	w->prev_addr = s->start;
	wb_varint(&w->body, s->size);
	wb_str(&w->body, s->name);
	return ppf_writer_rec_end(w, PPF_REC_SYM);
}
