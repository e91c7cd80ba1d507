/* SPDX-License-Identifier: MIT */
/*
 * cmd-dump.c - `pp-analyze FILE dump`: every record, one line each.
 *
 * A debugging view of the format, not a report: raw ids, raw times, and
 * segment boundaries, so a capture can be checked against its spec.  A DIGEST
 * segment shows whether a part of -j would use it (ppf_digest_check()), then
 * each entry - the EVENTS segment it names, by the header fields it stores, and
 * that segment's number when one since the previous digest has them - and its
 * copies, indented, printed as the records they copy.  Segments the reader
 * skipped (damage) are said where they were.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/man.h"

static const char dump_help[] =
	"\nEvery record of the capture, one a line, in file order: a '# segment' line\n"
	"where each segment starts (its header's fields), timed records with their\n"
	"time first.  A DIGEST segment (side-band copies for -j) says whether a part\n"
	"of -j would use it or why not, then for each entry a DIGEST_SEG line naming\n"
	"the EVENTS segment it describes by the header fields it stores (segment=N:\n"
	"the segment since the previous digest that has them), then its copies,\n"
	"indented.  A segment the reader skipped says so where it was ('# skipped').\n"
	"\nEXAMPLES\n"
	"  pp-analyze pp.capture dump | less\n"
	"  pp-analyze pp.capture dump | grep -A3 '^# segment .* digest'\n";

static void dump_sample(const struct ppf_record *r)
{
	const struct ppf_sample *s = &r->u.sample;

	printf("%llu SAMPLE id=%u cpu=%u pid=%u tid=%u period=%llu", (unsigned long long)r->time_ns,
	       s->id, s->cpu, s->pid, s->tid, (unsigned long long)s->period);
	if (s->flags & PPF_SF_IP)
		printf(" ip=0x%llx", (unsigned long long)s->ip);
	if (s->flags & PPF_SF_ADDR)
		printf(" addr=0x%llx", (unsigned long long)s->addr);
	if (s->flags & PPF_SF_LATE)
		printf(" late=%llu", (unsigned long long)s->late_ns);
	if (s->raw_sz)
		printf(" raw=%u", s->raw_sz);
	if (s->nr_stack) {
		printf(" stack=");
		for (uint32_t i = 0; i < s->nr_stack; i++)
			printf("%s%llx", i ? "," : "", (unsigned long long)s->stack[i]);
	}
	putchar('\n');
}

/*
 * The capture's strings (keys, names, comms, paths) as text fields: control bytes
 * and bytes that are not UTF-8 print as \xHH (common/quote.h), never raw.  Four
 * scratch buffers: no line prints more strings.
 */
struct dump_q {
	struct pp_buf b[4];
};
#define Q(i, str) pp_quote_str(&q->b[i], (str))

/* An EVENTS segment since the last DIGEST: what an entry of the next one may name. */
struct dump_seg {
	struct ppf_digest_entry e;	/* its header's fields, as an entry names it */
	uint64_t seq;
};

struct dump {
	struct dump_q q;
	struct dump_seg *segs;
	size_t nr_segs, cap_segs;
	bool sorted;
	bool digest_since;	/* a DIGEST since the last EVENTS segment: the next starts anew */
	size_t nr_problems;	/* of the reader's, said */
};

/* One record, on one line: the same printer for a segment's records and a digest's copies. */
static void dump_record(const struct ppf_record *r, struct dump_q *q)
{
	switch (r->type) {
	case PPF_REC_KV: printf("KV %s=%s\n", Q(0, r->u.kv.key), Q(1, r->u.kv.value)); break;
	case PPF_REC_STAT:
		printf("STAT %s=%llu\n", Q(0, r->u.stat.key), (unsigned long long)r->u.stat.value);
		break;
	case PPF_REC_SYSCALL: printf("SYSCALL %u %s\n", r->u.syscall.nr, Q(0, r->u.syscall.name)); break;
	case PPF_REC_EVENT_DESC:
		printf("EVENT id=%u kind=%u flags=%#x tp=%u name=%s selector=%s filter=%s attr=%u format=%zu\n",
		       r->u.event.id, r->u.event.kind, r->u.event.flags, r->u.event.tp_id,
		       Q(0, r->u.event.name), Q(1, r->u.event.selector), Q(2, r->u.event.filter),
		       r->u.event.attr_sz, strlen(r->u.event.format));
		break;
	case PPF_REC_TASK:
		printf("TASK pid=%u tid=%u ppid=%u comm=%s cmdline=%s\n", r->u.task.pid, r->u.task.tid,
		       r->u.task.ppid, Q(0, r->u.task.comm), Q(1, r->u.task.cmdline));
		break;
	case PPF_REC_KSYM:
		printf("KSYM %llx %c %s %s\n", (unsigned long long)r->u.ksym.addr, r->u.ksym.type,
		       Q(0, r->u.ksym.name), Q(1, r->u.ksym.module));
		break;
	case PPF_REC_DSO:
		printf("DSO %s syms=%u flags=%#x text=%llx@%llx build_id=", Q(0, r->u.dso.path), r->u.dso.nr_syms,
		       r->u.dso.flags, (unsigned long long)r->u.dso.text_vaddr,
		       (unsigned long long)r->u.dso.text_offset);
		for (uint32_t i = 0; i < r->u.dso.build_id_sz; i++)
			printf("%02x", r->u.dso.build_id[i]);
		putchar('\n');
		break;
	case PPF_REC_SYM:
		printf("SYM %llx %llu %s\n", (unsigned long long)r->u.sym.start,
		       (unsigned long long)r->u.sym.size, Q(0, r->u.sym.name));
		break;
	case PPF_REC_UNWIND:
		printf("UNWIND arch=%u rows=%u bytes=%u\n", r->u.unwind.arch, r->u.unwind.nr_rows,
		       r->u.unwind.rows_sz);
		break;
	case PPF_REC_SAMPLE: dump_sample(r); break;
	case PPF_REC_COMM:
		printf("%llu COMM pid=%u tid=%u exec=%u %s\n", (unsigned long long)r->time_ns,
		       r->u.comm.pid, r->u.comm.tid, r->u.comm.exec, Q(0, r->u.comm.comm));
		break;
	case PPF_REC_FORK:
	case PPF_REC_EXIT:
		printf("%llu %s pid=%u ppid=%u tid=%u ptid=%u\n", (unsigned long long)r->time_ns,
		       r->type == PPF_REC_FORK ? "FORK" : "EXIT", r->u.task_event.pid,
		       r->u.task_event.ppid, r->u.task_event.tid, r->u.task_event.ptid);
		break;
	case PPF_REC_MMAP:
		printf("%llu MMAP pid=%u %llx-%llx pgoff=%llx %s\n", (unsigned long long)r->time_ns,
		       r->u.mmap.pid, (unsigned long long)r->u.mmap.addr,
		       (unsigned long long)(r->u.mmap.addr + r->u.mmap.len),
		       (unsigned long long)r->u.mmap.pgoff, Q(0, r->u.mmap.path));
		break;
	case PPF_REC_LOST:
		printf("%llu LOST cpu=%u count=%llu\n", (unsigned long long)r->time_ns, r->u.lost.cpu,
		       (unsigned long long)r->u.lost.count);
		break;
	case PPF_REC_COUNTER: {
		const struct ppf_counter *k = &r->u.counter;

		printf("%llu COUNTER cpu=%d tid=%d enabled=%llu running=%llu",
		       (unsigned long long)r->time_ns, (int)k->cpu, (int)k->tid,
		       (unsigned long long)k->enabled, (unsigned long long)k->running);
		for (uint32_t i = 0; i < k->nr; i++)
			printf(" %u=%llu", k->v[i].id, (unsigned long long)k->v[i].value);
		putchar('\n');
		break;
	}
	case PPF_REC_TIME_SYNC:
		printf("%llu TIME_SYNC realtime=%llu\n", (unsigned long long)r->time_ns,
		       (unsigned long long)r->u.sync.realtime_ns);
		break;
	case PPF_REC_SIDEBAND:
		printf("%llu SIDEBAND type=%u cpu=%u size=%u\n", (unsigned long long)r->time_ns,
		       r->u.sideband.perf_type, r->u.sideband.cpu, r->u.sideband.size);
		break;
	default:
		printf("UNKNOWN type=%u size=%u\n", r->type, r->body_sz);
	}
}

static int seg_cmp(const void *a, const void *b)
{
	return ppf_digest_entry_cmp(&((const struct dump_seg *)a)->e, &((const struct dump_seg *)b)->e);
}

/* A new segment begins: an EVENTS one is a name a digest's entry may use. */
static void seg_note(struct dump *d, const struct ppf_segment *seg)
{
	if (seg->kind == PPF_SEG_DIGEST) {
		d->digest_since = true;
		return;
	}
	if (seg->kind != PPF_SEG_EVENTS)
		return;
	if (d->digest_since)
		d->nr_segs = 0;	/* a reader looks for it in the first digest after it */
	d->digest_since = false;
	if (d->nr_segs == d->cap_segs) {
		d->cap_segs = d->cap_segs ? 2 * d->cap_segs : 32;
		d->segs = pp_xrealloc(d->segs, d->cap_segs * sizeof(*d->segs));
	}
	d->segs[d->nr_segs++] = (struct dump_seg){
		.e = { .csize = seg->csize, .payload_crc = seg->payload_crc, .first_ns = seg->first_ns,
		       .last_ns = seg->last_ns, .nr_records = seg->nr_records,
		       .nr_samples = seg->nr_samples },
		.seq = seg->seq,
	};
	d->sorted = false;
}

/* A digest's entry: the segment it names, by the fields it stores, and which one that is. */
static void dump_entry(struct dump *d, const struct ppf_digest_entry *e)
{
	struct dump_seg key = { .e = *e };
	const struct dump_seg *hit;

	if (!d->sorted && d->nr_segs)
		qsort(d->segs, d->nr_segs, sizeof(*d->segs), seg_cmp);
	d->sorted = true;
	hit = d->nr_segs ? bsearch(&key, d->segs, d->nr_segs, sizeof(*d->segs), seg_cmp) : NULL;
	printf("DIGEST_SEG csize=%u crc=%#010x time=%llu..%llu records=%u samples=%u stacks=%u "
	       "copied=%u", e->csize, e->payload_crc, (unsigned long long)e->first_ns,
	       (unsigned long long)e->last_ns, e->nr_records, e->nr_samples, e->nr_stacks,
	       e->nr_copied);
	if (hit)
		printf(" segment=%llu\n", (unsigned long long)hit->seq);
	else
		printf(" segment=none\n");	/* not since the previous digest, or not in this file */
}

/* Whether a part of -j would use the digest @seg, and if not why. */
static void dump_digest_check(const struct ppf_segment *seg)
{
	char why[256];
	int rc = ppf_digest_check(seg->data, seg->usize, why, sizeof(why));

	if (!rc)
		printf("# digest ok: -j reads the side band of the segments it names from it\n");
	else if (rc == -ENOMEM)
		printf("# digest not checked: out of memory\n");
	else
		printf("# digest not used: %s (-j skims the segments it names)\n", why);
}

/* The segments the reader skipped since the last call (damage, a cut), where they were. */
static void dump_problems(struct dump *d, const struct ppf_read_stats *st)
{
	for (; d->nr_problems < st->nr_problems; d->nr_problems++) {
		const struct ppf_problem *p = &st->problems[d->nr_problems];

		printf("# skipped segment %llu", (unsigned long long)p->seq);
		if (p->kind)
			printf(" %s", ppf_kind_name(p->kind));
		printf(" offset=%llu: %s", (unsigned long long)p->offset, pp_strerror(p->err));
		if (p->kind == PPF_SEG_DIGEST)
			printf(" (copies: no record lost)");
		else if (p->kind && p->err != PP_ETRUNCATED)
			printf(", %u records lost", p->nr_records);
		putchar('\n');
	}
}

int cmd_dump(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	struct dump d = { 0 };
	const struct ppf_segment *seg, *prev = NULL;
	uint64_t prev_off = UINT64_MAX;
	struct ppf_record r;
	int rc;

	if (argc > 1) {
		static const char *const usage[] = { "pp-analyze FILE dump", NULL };

		if (pp_help_man(stdout, argc - 1, argv + 1, usage, NULL, dump_help + 1))
			return 0;	/* pp-analyze(1)'s part (make man) */
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			pp_usage_print(stdout, usage, NULL);
			fputs(dump_help, stdout);
			return 0;
		}
		pp_err("dump: takes no arguments");
		return 2;
	}
	while ((rc = ppf_reader_next(s->r, &r, &seg)) == 0) {
		dump_problems(&d, ppf_reader_stats(s->r));
		if (seg != prev || seg->offset != prev_off) {
			printf("# segment %llu %s offset=%llu raw=%u comp=%u records=%u time=%llu..%llu\n",
			       (unsigned long long)seg->seq, ppf_kind_name(seg->kind),
			       (unsigned long long)seg->offset, seg->usize, seg->csize, seg->nr_records,
			       (unsigned long long)seg->first_ns, (unsigned long long)seg->last_ns);
			prev = seg;
			prev_off = seg->offset;
			seg_note(&d, seg);
			if (seg->kind == PPF_SEG_DIGEST)
				dump_digest_check(seg);
		}
		if (seg->kind == PPF_SEG_DIGEST && r.type == PPF_REC_DIGEST_SEG) {
			dump_entry(&d, &r.u.digest);
			continue;
		}
		if (seg->kind == PPF_SEG_DIGEST)
			fputs("  ", stdout);	/* a copy, under its entry */
		dump_record(&r, &d.q);
	}
	dump_problems(&d, ppf_reader_stats(s->r));
	for (size_t i = 0; i < PP_ARRAY_SIZE(d.q.b); i++)
		pp_buf_release(&d.q.b[i]);
	free(d.segs);
	if (rc < 0) {
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
		return 1;
	}
	return 0;
}
