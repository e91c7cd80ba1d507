/* SPDX-License-Identifier: MIT */
/*
 * fuzz-seed.c - a capture turned into a capfuzz program: seeds for the pipeline targets.
 *
 * usage: fuzz-seed [-c CONFIG] [-n MAX_SAMPLES] CAPTURE OUTPUT
 *
 * Reads CAPTURE with format/'s reader and writes the program (capfuzz.h)
 * that makes the same records again: events with their format text as
 * literal text, samples with their raw records as given, and the first
 * MAX_SAMPLES samples only (300), a few hundred kernel symbols, tasks and
 * other records, so that a seed stays a few tens of KB whatever the
 * capture.  `make fuzz` runs it on the captures of samples/, the fixtures and
 * those capbuild makes of the fixtures' descriptions.  Not here: running it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "common/log.h"
#include "format/format.h"
#include "tests/fuzz/capfuzz.h"

struct seed {
	struct pp_buf out;
	uint64_t t;
	uint32_t ids[FZ_MAX_EVENTS];
	size_t nr_ids;
	unsigned long nr_samples, max_samples, nr_ksyms, nr_other, nr_tasks;
	/* a DSO op carries its symbols after their count: held until the next non-SYM */
	struct pp_buf dso, syms;
	unsigned nr_syms;
	bool in_dso;
};

static void dso_flush(struct seed *s)
{
	if (!s->in_dso)
		return;
	pp_buf_add(&s->out, s->dso.data, s->dso.len);
	fz_put_u8(&s->out, s->nr_syms);
	pp_buf_add(&s->out, s->syms.data, s->syms.len);
	pp_buf_reset(&s->dso);
	pp_buf_reset(&s->syms);
	s->in_dso = false;
}

static uint64_t dt(struct seed *s, uint64_t t)
{
	uint64_t d = t >= s->t ? t - s->t : 0;

	if (t > s->t)
		s->t = t;
	return d;
}

static void put_event(struct seed *s, const struct ppf_event_desc *d)
{
	struct pp_buf *b = &s->out;
	struct perf_event_attr a = { 0 };

	fz_put_u8(b, FZ_OP_EVENT);
	fz_put_v(b, d->id);
	fz_put_u8(b, d->kind);
	fz_put_v(b, d->flags);
	fz_put_v(b, d->tp_id);
	fz_put_u8(b, FZ_NAME_LITERAL);
	fz_put_str(b, d->name);
	fz_put_str(b, d->selector);
	fz_put_str(b, d->filter);
	if (d->attr_sz) {
		memcpy(&a, d->attr, d->attr_sz < sizeof(a) ? d->attr_sz : sizeof(a));
		fz_put_u8(b, 1);
		fz_put_v(b, a.type);
		fz_put_v(b, a.config);
		fz_put_v(b, a.sample_type);
		fz_put_v(b, a.sample_regs_intr);
		fz_put_v(b, a.bp_type);
		fz_put_v(b, a.bp_addr);
		fz_put_v(b, a.bp_len);
		fz_put_v(b, a.read_format);
	} else {
		fz_put_u8(b, 0);
	}
	if (d->format && *d->format) {
		fz_put_u8(b, FZ_FMT_LITERAL);
		fz_put_str(b, d->format);
	} else {
		fz_put_u8(b, FZ_FMT_NONE);
	}
	if (s->nr_ids < FZ_MAX_EVENTS)
		s->ids[s->nr_ids++] = d->id;
}

static void put_sample(struct seed *s, const struct ppf_sample *x)
{
	struct pp_buf *b = &s->out;
	unsigned bits = 0, evi = 0xff;
	uint64_t d;

	if (x->time_ns < s->t) {
		bits |= FZ_S_BACK;
		d = s->t - x->time_ns;
		s->t = x->time_ns;	/* the builder goes back too */
	} else {
		d = dt(s, x->time_ns);
	}
	if (x->flags & PPF_SF_PERIOD)
		bits |= FZ_S_PERIOD;
	if (x->flags & PPF_SF_IP)
		bits |= FZ_S_IP;
	if (x->flags & PPF_SF_ADDR)
		bits |= FZ_S_ADDR;
	if (x->nr_stack)
		bits |= FZ_S_STACK;
	if (x->flags & PPF_SF_EXTRA)
		bits |= FZ_S_EXTRA;
	if (x->flags & PPF_SF_RAW)
		bits |= FZ_S_RAW;
	for (size_t i = 0; i < s->nr_ids; i++)
		if (s->ids[i] == x->id)
			evi = (unsigned)i;
	fz_put_u8(b, FZ_OP_SAMPLE);
	fz_put_v(b, d);
	fz_put_u8(b, bits);
	fz_put_u8(b, evi);
	if (evi == 0xff)
		fz_put_v(b, x->id);
	fz_put_v(b, x->cpu);
	fz_put_v(b, x->pid);
	fz_put_v(b, x->tid);
	if (bits & FZ_S_PERIOD)
		fz_put_v(b, x->period);
	if (bits & FZ_S_IP)
		fz_put_a(b, x->ip);
	if (bits & FZ_S_ADDR)
		fz_put_a(b, x->addr);
	if (bits & FZ_S_STACK) {
		uint32_t n = x->nr_stack < 63 ? x->nr_stack : 63;
		fz_put_u8(b, n);
		for (uint32_t i = 0; i < n; i++)
			fz_put_a(b, x->stack[i]);
	}
	if (bits & FZ_S_EXTRA)
		fz_put_s(b, x->extra, x->extra_sz);
	if (bits & FZ_S_RAW)
		fz_put_s(b, x->raw, x->raw_sz);
}

static void put_record(struct seed *s, const struct ppf_record *r)
{
	struct pp_buf *b = &s->out;
	bool timed = r->type >= PPF_REC_TIMED_FIRST && r->type != PPF_REC_SAMPLE;

	if (r->type != PPF_REC_SYM)
		dso_flush(s);
	if (timed && ++s->nr_other > 400)
		return;
	switch (r->type) {
	case PPF_REC_KV:
		fz_put_u8(b, FZ_OP_KV);
		fz_put_str(b, r->u.kv.key);
		fz_put_str(b, r->u.kv.value);
		break;
	case PPF_REC_STAT:
		fz_put_u8(b, FZ_OP_STAT);
		fz_put_str(b, r->u.stat.key);
		fz_put_v(b, r->u.stat.value);
		break;
	case PPF_REC_SYSCALL:
		fz_put_u8(b, FZ_OP_SYSCALL);
		fz_put_v(b, r->u.syscall.nr);
		fz_put_str(b, r->u.syscall.name);
		break;
	case PPF_REC_EVENT_DESC:
		put_event(s, &r->u.event);
		break;
	case PPF_REC_TASK:
		if (++s->nr_tasks > 100)
			break;
		fz_put_u8(b, FZ_OP_TASK);
		fz_put_v(b, r->u.task.pid);
		fz_put_v(b, r->u.task.tid);
		fz_put_v(b, r->u.task.ppid);
		fz_put_str(b, r->u.task.comm);
		fz_put_str(b, r->u.task.cmdline);
		break;
	case PPF_REC_KSYM:
		if (++s->nr_ksyms > 300)
			break;
		fz_put_u8(b, FZ_OP_KSYM);
		fz_put_a(b, r->u.ksym.addr);
		fz_put_u8(b, (unsigned char)r->u.ksym.type);
		fz_put_str(b, r->u.ksym.name);
		fz_put_str(b, r->u.ksym.module);
		break;
	case PPF_REC_DSO:
		s->in_dso = true;
		s->nr_syms = 0;
		fz_put_u8(&s->dso, FZ_OP_DSO);
		fz_put_s(&s->dso, r->u.dso.build_id, r->u.dso.build_id_sz);
		fz_put_str(&s->dso, r->u.dso.path);
		fz_put_v(&s->dso, r->u.dso.flags);
		fz_put_v(&s->dso, r->u.dso.text_vaddr);
		fz_put_v(&s->dso, r->u.dso.text_offset);
		break;
	case PPF_REC_SYM:
		if (!s->in_dso || s->nr_syms == 100)
			break;
		s->nr_syms++;
		fz_put_v(&s->syms, r->u.sym.start);
		fz_put_v(&s->syms, r->u.sym.size);
		fz_put_str(&s->syms, r->u.sym.name);
		break;
	case PPF_REC_SAMPLE:
		if (++s->nr_samples <= s->max_samples)
			put_sample(s, &r->u.sample);
		break;
	case PPF_REC_COMM:
		fz_put_u8(b, FZ_OP_COMM);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.comm.pid);
		fz_put_v(b, r->u.comm.tid);
		fz_put_v(b, r->u.comm.exec);
		fz_put_str(b, r->u.comm.comm);
		break;
	case PPF_REC_FORK:
	case PPF_REC_EXIT:
		fz_put_u8(b, FZ_OP_TASKEV);
		fz_put_u8(b, r->type == PPF_REC_EXIT);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.task_event.pid);
		fz_put_v(b, r->u.task_event.ppid);
		fz_put_v(b, r->u.task_event.tid);
		fz_put_v(b, r->u.task_event.ptid);
		break;
	case PPF_REC_MMAP:
		fz_put_u8(b, FZ_OP_MMAP);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.mmap.pid);
		fz_put_v(b, r->u.mmap.tid);
		fz_put_a(b, r->u.mmap.addr);
		fz_put_v(b, r->u.mmap.len);
		fz_put_v(b, r->u.mmap.pgoff);
		fz_put_v(b, r->u.mmap.prot);
		fz_put_v(b, r->u.mmap.flags);
		fz_put_s(b, r->u.mmap.build_id, r->u.mmap.build_id_sz);
		fz_put_str(b, r->u.mmap.path);
		break;
	case PPF_REC_LOST:
		fz_put_u8(b, FZ_OP_LOST);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.lost.cpu);
		fz_put_v(b, r->u.lost.id);
		fz_put_v(b, r->u.lost.count);
		break;
	case PPF_REC_TIME_SYNC:
		fz_put_u8(b, FZ_OP_SYNC);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.sync.realtime_ns);
		break;
	case PPF_REC_SIDEBAND:
		fz_put_u8(b, FZ_OP_SIDEBAND);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, r->u.sideband.perf_type);
		fz_put_v(b, r->u.sideband.cpu);
		fz_put_s(b, r->u.sideband.data, r->u.sideband.size);
		fz_put_v(b, r->u.sideband.pid);
		fz_put_v(b, r->u.sideband.tid);
		break;
	case PPF_REC_COUNTER: {
		const struct ppf_counter *c = &r->u.counter;
		uint32_t n = c->nr < 8 ? c->nr : 8;
		fz_put_u8(b, FZ_OP_COUNTER);
		fz_put_v(b, dt(s, r->time_ns));
		fz_put_v(b, c->cpu == UINT32_MAX ? 0 : (uint64_t)c->cpu + 1);
		fz_put_v(b, c->tid == UINT32_MAX ? 0 : (uint64_t)c->tid + 1);
		fz_put_v(b, c->enabled);
		fz_put_v(b, c->running);
		fz_put_u8(b, n - 1);
		for (uint32_t i = 0; i < n; i++) {
			unsigned evi = 0xff;
			for (size_t j = 0; j < s->nr_ids; j++)
				if (s->ids[j] == c->v[i].id)
					evi = (unsigned)j;
			fz_put_u8(b, evi);
			if (evi == 0xff)
				fz_put_v(b, c->v[i].id);
			fz_put_v(b, c->v[i].value);
		}
		break;
	}
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	struct seed s = { .out = PP_BUF_INIT, .dso = PP_BUF_INIT, .syms = PP_BUF_INIT, .max_samples = 300 };
	struct ppf_reader *r = NULL;
	const struct ppf_segment *seg;
	struct ppf_record rec;
	uint64_t last_seq = UINT64_MAX;
	unsigned config = 0;
	int opt;
	FILE *fp;

	while ((opt = getopt(argc, argv, "c:n:")) != -1) {
		if (opt == 'c')
			config = (unsigned)strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			s.max_samples = strtoul(optarg, NULL, 0);
		else
			goto usage;
	}
	if (argc - optind != 2)
		goto usage;
	if (ppf_reader_open(argv[optind], 0, &r)) {
		fprintf(stderr, "fuzz-seed: %s\n", r ? ppf_reader_errmsg(r) : argv[optind]);
		return 1;
	}
	fz_put_u8(&s.out, config);
	while (ppf_reader_next(r, &rec, &seg) == 0) {
		if (seg->seq != last_seq && seg->kind == PPF_SEG_EVENTS && last_seq != UINT64_MAX)
			fz_put_u8(&s.out, FZ_OP_FLUSH);
		last_seq = seg->seq;
		put_record(&s, &rec);
	}
	dso_flush(&s);
	ppf_reader_close(r);
	fp = fopen(argv[optind + 1], "w");
	if (!fp || fwrite(s.out.data, 1, s.out.len, fp) != s.out.len || fclose(fp)) {
		perror(argv[optind + 1]);
		return 1;
	}
	pp_buf_release(&s.out);
	pp_buf_release(&s.dso);
	pp_buf_release(&s.syms);
	return 0;
usage:
	fprintf(stderr, "usage: fuzz-seed [-c CONFIG] [-n MAX_SAMPLES] CAPTURE OUTPUT\n");
	return 2;
}
