/* SPDX-License-Identifier: MIT */
/*
 * cmd-dump.c - `pp-analyze FILE dump`: every record, one line each.
 *
 * A debugging view of the format, not a report: raw ids, raw times, and
 * segment boundaries, so a capture can be checked against its spec.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/internal.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/man.h"

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
#define Q(i, str) pp_quote_str(&q.b[i], (str))

int cmd_dump(struct ana_session *s, int argc, const char **argv)
{
	struct dump_q q = { 0 };
	const struct ppf_segment *seg, *prev = NULL;
	uint64_t prev_off = UINT64_MAX;
	struct ppf_record r;
	int rc;

	if (argc > 0) {
		static const char *const usage[] = { "pp-analyze FILE dump", NULL };

		if (pp_help_man(stdout, argc, argv, usage, NULL, NULL))
			return 0;	/* pp-analyze(1)'s part (make man) */
		if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			pp_usage_print(stdout, usage, NULL);
			return 0;
		}
		pp_err("dump: takes no arguments");
		return 2;
	}
	while ((rc = ppf_reader_next(s->r, &r, &seg)) == 0) {
		if (seg != prev || seg->offset != prev_off) {
			printf("# segment %llu %s offset=%llu raw=%u comp=%u records=%u time=%llu..%llu\n",
			       (unsigned long long)seg->seq, ppf_kind_name(seg->kind),
			       (unsigned long long)seg->offset, seg->usize, seg->csize, seg->nr_records,
			       (unsigned long long)seg->first_ns, (unsigned long long)seg->last_ns);
			prev = seg;
			prev_off = seg->offset;
		}
		switch (r.type) {
		case PPF_REC_KV: printf("KV %s=%s\n", Q(0, r.u.kv.key), Q(1, r.u.kv.value)); break;
		case PPF_REC_STAT:
			printf("STAT %s=%llu\n", Q(0, r.u.stat.key), (unsigned long long)r.u.stat.value);
			break;
		case PPF_REC_SYSCALL: printf("SYSCALL %u %s\n", r.u.syscall.nr, Q(0, r.u.syscall.name)); break;
		case PPF_REC_EVENT_DESC:
			printf("EVENT id=%u kind=%u flags=%#x tp=%u name=%s selector=%s filter=%s attr=%u format=%zu\n",
			       r.u.event.id, r.u.event.kind, r.u.event.flags, r.u.event.tp_id,
			       Q(0, r.u.event.name), Q(1, r.u.event.selector), Q(2, r.u.event.filter),
			       r.u.event.attr_sz, strlen(r.u.event.format));
			break;
		case PPF_REC_TASK:
			printf("TASK pid=%u tid=%u ppid=%u comm=%s cmdline=%s\n", r.u.task.pid, r.u.task.tid,
			       r.u.task.ppid, Q(0, r.u.task.comm), Q(1, r.u.task.cmdline));
			break;
		case PPF_REC_KSYM:
			printf("KSYM %llx %c %s %s\n", (unsigned long long)r.u.ksym.addr, r.u.ksym.type,
			       Q(0, r.u.ksym.name), Q(1, r.u.ksym.module));
			break;
		case PPF_REC_DSO:
			printf("DSO %s syms=%u flags=%#x text=%llx@%llx build_id=", Q(0, r.u.dso.path), r.u.dso.nr_syms,
			       r.u.dso.flags, (unsigned long long)r.u.dso.text_vaddr,
			       (unsigned long long)r.u.dso.text_offset);
			for (uint32_t i = 0; i < r.u.dso.build_id_sz; i++)
				printf("%02x", r.u.dso.build_id[i]);
			putchar('\n');
			break;
		case PPF_REC_SYM:
			printf("SYM %llx %llu %s\n", (unsigned long long)r.u.sym.start,
			       (unsigned long long)r.u.sym.size, Q(0, r.u.sym.name));
			break;
		case PPF_REC_SAMPLE: dump_sample(&r); break;
		case PPF_REC_COMM:
			printf("%llu COMM pid=%u tid=%u exec=%u %s\n", (unsigned long long)r.time_ns,
			       r.u.comm.pid, r.u.comm.tid, r.u.comm.exec, Q(0, r.u.comm.comm));
			break;
		case PPF_REC_FORK:
		case PPF_REC_EXIT:
			printf("%llu %s pid=%u ppid=%u tid=%u ptid=%u\n", (unsigned long long)r.time_ns,
			       r.type == PPF_REC_FORK ? "FORK" : "EXIT", r.u.task_event.pid,
			       r.u.task_event.ppid, r.u.task_event.tid, r.u.task_event.ptid);
			break;
		case PPF_REC_MMAP:
			printf("%llu MMAP pid=%u %llx-%llx pgoff=%llx %s\n", (unsigned long long)r.time_ns,
			       r.u.mmap.pid, (unsigned long long)r.u.mmap.addr,
			       (unsigned long long)(r.u.mmap.addr + r.u.mmap.len),
			       (unsigned long long)r.u.mmap.pgoff, Q(0, r.u.mmap.path));
			break;
		case PPF_REC_LOST:
			printf("%llu LOST cpu=%u count=%llu\n", (unsigned long long)r.time_ns, r.u.lost.cpu,
			       (unsigned long long)r.u.lost.count);
			break;
		case PPF_REC_COUNTER: {
			const struct ppf_counter *k = &r.u.counter;

			printf("%llu COUNTER cpu=%d tid=%d enabled=%llu running=%llu",
			       (unsigned long long)r.time_ns, (int)k->cpu, (int)k->tid,
			       (unsigned long long)k->enabled, (unsigned long long)k->running);
			for (uint32_t i = 0; i < k->nr; i++)
				printf(" %u=%llu", k->v[i].id, (unsigned long long)k->v[i].value);
			putchar('\n');
			break;
		}
		case PPF_REC_TIME_SYNC:
			printf("%llu TIME_SYNC realtime=%llu\n", (unsigned long long)r.time_ns,
			       (unsigned long long)r.u.sync.realtime_ns);
			break;
		case PPF_REC_SIDEBAND:
			printf("%llu SIDEBAND type=%u cpu=%u size=%u\n", (unsigned long long)r.time_ns,
			       r.u.sideband.perf_type, r.u.sideband.cpu, r.u.sideband.size);
			break;
		default:
			printf("UNKNOWN type=%u size=%u\n", r.type, r.body_sz);
		}
	}
	for (size_t i = 0; i < PP_ARRAY_SIZE(q.b); i++)
		pp_buf_release(&q.b[i]);
	if (rc < 0) {
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
		return 1;
	}
	return 0;
}
