/* SPDX-License-Identifier: MIT */
/*
 * cmd-info.c - `pp-analyze FILE info [--format json]`: what a capture holds.
 *
 * Reads the whole capture once (it is the check of a capture as much as a
 * summary): host, recording command, time range, events with counts,
 * losses per CPU, late events, segments with sizes, symbols, and every
 * truncation or corruption found on the way.
 */
#include <stdio.h>
#include <string.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/unwind.h"
#include "common/limits.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/sat.h"
#include "common/units.h"

struct info {
	uint64_t first_ns, last_ns, nr_samples, nr_late, nr_lost;
	bool lost_sat;			/* a loss sum passed 2^64-1: printed as "N or more" */
	uint64_t nr_ksyms, nr_dsos, nr_syms, nr_tasks, nr_comm, nr_mmap;
	uint64_t nr_unwind_tabs, nr_unwind_rows;	/* DSOs with UNWIND records, their rows */
	bool dso_unwind;		/* the last DSO has an UNWIND record */
	uint64_t nr_ustacks, ustack_bytes;	/* --call-graph dwarf samples, their copies' bytes */
	uint64_t seg_by_kind[8];
	struct pp_u64map counts;	/* id -> count (stored in the pointer) */
	struct pp_u64map readings;	/* id -> COUNTER readings, and the last value seen (sum per key) */
	uint64_t nr_readings;
	struct pp_u64map lost;		/* cpu -> count */
};

/* What unwinding needs of the side band: tasks, maps, binaries and their tables. */
static bool user_meta(uint32_t type)
{
	return type == PPF_REC_TASK || type == PPF_REC_COMM || type == PPF_REC_FORK ||
	       type == PPF_REC_EXIT || type == PPF_REC_MMAP || type == PPF_REC_DSO ||
	       type == PPF_REC_SYM || type == PPF_REC_UNWIND;
}

/* A --call-graph dwarf sample: unwound as a replay would, to count the stacks cut short. */
static void ustack_sample(struct ana_session *s, struct info *in, const struct ppf_sample *smp)
{
	struct ana_evtype *t = ana_session_type(s, smp->id);
	struct pp_event ev;

	in->nr_ustacks++;
	in->ustack_bytes += smp->ustack_sz;
	if (t)
		ana_session_sample(s, t, smp, &ev);
}

static int scan(struct ana_session *s, struct info *in)
{
	struct ppf_record rec;
	const struct ppf_segment *seg, *prev = NULL;
	int rc;

	while ((rc = ppf_reader_next(s->r, &rec, &seg)) == 0) {
		if (seg != prev || seg->offset != in->seg_by_kind[7]) {
			if (seg->kind < 7)
				in->seg_by_kind[seg->kind]++;
			in->seg_by_kind[7] = seg->offset;
			prev = seg;
		}
		switch (rec.type) {
		case PPF_REC_SAMPLE: {
			/* per event type: a count for each id the samples claim would be unbounded */
			if (ana_session_type(s, rec.u.sample.id)) {
				void **c = pp_u64map_slot(&in->counts, rec.u.sample.id);
				*c = (void *)((uintptr_t)*c + 1);
			}
			if (!in->first_ns)
				in->first_ns = rec.time_ns;
			in->last_ns = rec.time_ns;
			in->nr_samples++;
			if (rec.u.sample.flags & PPF_SF_USTACK)
				ustack_sample(s, in, &rec.u.sample);
			if (rec.u.sample.flags & PPF_SF_LATE)
				in->nr_late++;
			break;
		}
		case PPF_REC_COUNTER:
			for (uint32_t i = 0; i < rec.u.counter.nr; i++) {
				if (!ana_session_type(s, rec.u.counter.v[i].id))
					continue;
				void **c = pp_u64map_slot(&in->readings, rec.u.counter.v[i].id);
				*c = (void *)((uintptr_t)*c + 1);
			}
			if (!in->first_ns)
				in->first_ns = rec.time_ns;
			in->last_ns = rec.time_ns;
			in->nr_readings++;
			break;
		case PPF_REC_LOST: {
			/* counts from the capture: 2^64-1 and 5 is not 4 */
			in->lost_sat |= pp_sat_add(&in->nr_lost, rec.u.lost.count);
			if (rec.u.lost.cpu >= PP_LIMIT_CPUS)
				break;	/* in the sum only: no CPU has that number */
			void **c = pp_u64map_slot(&in->lost, rec.u.lost.cpu);
			uint64_t v = (uintptr_t)*c;

			in->lost_sat |= pp_sat_add(&v, rec.u.lost.count);
			*c = (void *)(uintptr_t)v;
			break;
		}
		case PPF_REC_KSYM: in->nr_ksyms++; break;
		case PPF_REC_DSO: in->nr_dsos++; in->dso_unwind = false; break;
		case PPF_REC_UNWIND:
			in->nr_unwind_tabs += !in->dso_unwind;
			in->dso_unwind = true;
			in->nr_unwind_rows += rec.u.unwind.nr_rows;
			break;
		case PPF_REC_SYM: in->nr_syms++; break;
		case PPF_REC_TASK: in->nr_tasks++; break;
		case PPF_REC_COMM: in->nr_comm++; break;
		case PPF_REC_MMAP: in->nr_mmap++; break;
		}
		if (rec.type == PPF_REC_EVENT_DESC || rec.type == PPF_REC_KV ||
		    rec.type == PPF_REC_TIME_SYNC || user_meta(rec.type))
			ana_session_meta(s, &rec);
	}
	if (rc < 0)
		pp_err("reading '%s': %s", s->path, ppf_reader_errmsg(s->r));
	return rc < 0 ? rc : 0;
}

static const char *hv(struct ana_session *s, const char *k)
{
	const char *v = ana_host(s, k);

	return v ? v : "";
}

/* Text output: the capture's strings as fields (common/quote.h), in scratch @i. */
struct info_q {
	struct pp_buf b[5];
};
#define QV(i, str) pp_quote_str(&q->b[i], (str))

static void print_text(struct ana_session *s, struct info *in, struct info_q *q)
{
	const struct ppf_file_info *fi = ppf_reader_info(s->r);
	const struct ppf_read_stats *st = ppf_reader_stats(s->r);
	char a[64], b[64], t[64];

	printf("capture      %s\n", QV(0, s->path));
	printf("format       %u.%u%s\n", fi->major, fi->minor, fi->has_index ? " (indexed)" : "");
	printf("host         %s (%s ", QV(0, hv(s, "hostname")),
	       QV(1, hv(s, "sysname")[0] ? hv(s, "sysname") : "Linux"));
	printf("%s %s), %s CPUs online / %s possible, ", QV(0, hv(s, "release")), QV(1, hv(s, "machine")),
	       QV(2, hv(s, "nr_cpus_online")), QV(3, hv(s, "nr_cpus_possible")));
	printf("page size %s\n", QV(0, hv(s, "page_size")));
	printf("command      %s\n", QV(0, hv(s, "cmdline")));
	printf("recorder     pp-record %s, clock %s\n", QV(0, hv(s, "pp_version")), QV(1, hv(s, "clock")));
	if (in->nr_samples || in->nr_readings) {
		printf("time         %s .. %s", ana_ts_str(in->first_ns, a, sizeof(a)),
		       ana_ts_str(in->last_ns, b, sizeof(b)));
		printf(" (%s)\n", pp_format_ns(in->last_ns - in->first_ns, t, sizeof(t)));
		printf("wall clock   %s .. ", ana_time_str(s, in->first_ns, a, sizeof(a)));
		printf("%s\n", ana_time_str(s, in->last_ns, b, sizeof(b)));
	} else {
		printf("time         no events\n");
	}
	printf("events       %llu", (unsigned long long)in->nr_samples);
	if (in->nr_readings)
		printf(" (and %llu counter readings)", (unsigned long long)in->nr_readings);
	putchar('\n');
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *e = s->type_list[i];
		uintptr_t n = (uintptr_t)pp_u64map_get(&in->counts, e->id);
		uintptr_t r = (uintptr_t)pp_u64map_get(&in->readings, e->id);

		printf("  %-40s %12llu%s", QV(0, e->name), (unsigned long long)n,
		       (e->desc_flags & PPF_EVF_USER_FILTER) ? "  (filter applied at analysis)" : "");
		if (e->desc_flags & PPF_EVF_COUNTING)
			printf("  counted: %llu readings", (unsigned long long)r);
		else if (e->desc_flags & PPF_EVF_COUNT_LEADER)
			printf("  reads the counters' group: %llu readings", (unsigned long long)r);
		putchar('\n');
	}
	printf("lost         %llu%s", (unsigned long long)in->nr_lost,
	       in->lost_sat ? " or more (the sum of the loss records passed 2^64-1)" : "");
	/* per CPU, in CPU order */
	for (uint64_t cpu = 0, seen = 0; seen < in->lost.nr && cpu < 65536; cpu++) {
		void *v = pp_u64map_get(&in->lost, cpu);
		if (!v)
			continue;
		printf("%scpu%llu=%llu", seen++ ? ", " : " (", (unsigned long long)cpu,
		       (unsigned long long)(uintptr_t)v);
	}
	printf("%s\n", in->lost.nr ? ")" : "");
	printf("late         %llu (written after the reorder window)\n", (unsigned long long)in->nr_late);
	printf("segments     %llu: meta %llu, events %llu, ksyms %llu, usyms %llu, stats %llu",
	       (unsigned long long)(st->nr_segments + st->nr_digests),
	       (unsigned long long)in->seg_by_kind[PPF_SEG_META],
	       (unsigned long long)in->seg_by_kind[PPF_SEG_EVENTS],
	       (unsigned long long)in->seg_by_kind[PPF_SEG_KSYMS],
	       (unsigned long long)in->seg_by_kind[PPF_SEG_USYMS],
	       (unsigned long long)in->seg_by_kind[PPF_SEG_STATS]);
	if (st->nr_digests)
		printf(", digest %llu", (unsigned long long)st->nr_digests);
	putchar('\n');
	printf("bytes        raw %s, compressed %s, ratio %.2f",
	       pp_format_bytes(st->raw_bytes, a, sizeof(a)), pp_format_bytes(st->comp_bytes, b, sizeof(b)),
	       st->comp_bytes ? (double)st->raw_bytes / (double)st->comp_bytes : 0.0);
	if (in->nr_samples)
		printf(", %.2f bytes/event", (double)st->comp_bytes / (double)in->nr_samples);
	printf("\n");
	printf("symbols      kernel: %s (%llu); user: %llu binaries, %llu symbols\n",
	       in->nr_ksyms ? "yes" : "no", (unsigned long long)in->nr_ksyms,
	       (unsigned long long)in->nr_dsos, (unsigned long long)in->nr_syms);
	if (in->nr_unwind_tabs)
		printf("unwind       %llu tables, %llu rows\n", (unsigned long long)in->nr_unwind_tabs,
		       (unsigned long long)in->nr_unwind_rows);
	if (in->nr_ustacks) {
		uint64_t nr, cut;

		ana_unwind_counts(s->unwind, &nr, &cut);
		printf("user stacks  %llu copies, %.0f bytes each on average; %llu of %llu unwound "
		       "stacks truncated\n", (unsigned long long)in->nr_ustacks,
		       (double)in->ustack_bytes / (double)in->nr_ustacks, (unsigned long long)cut,
		       (unsigned long long)nr);
	}
	printf("tasks        %llu at start, %llu comm changes, %llu mmaps\n",
	       (unsigned long long)in->nr_tasks, (unsigned long long)in->nr_comm,
	       (unsigned long long)in->nr_mmap);
	if (!st->truncated && !st->nr_corrupt) {
		printf("integrity    ok\n");
		return;
	}
	if (st->truncated)
		printf("integrity    truncated after segment %llu (offset %llu)%s, last event at %s\n",
		       (unsigned long long)st->last_seq, (unsigned long long)st->truncated_at,
		       st->cut_mid_segment ? ", cut inside a segment" : ", no trailer",
		       ana_ts_str(st->last_time_ns, a, sizeof(a)));
	if (st->nr_corrupt)
		printf("integrity    %llu corrupt segments skipped, %llu records lost\n",
		       (unsigned long long)st->nr_corrupt, (unsigned long long)st->records_lost);
	for (size_t i = 0; i < st->nr_problems; i++)
		printf("  segment %llu at offset %llu: %s\n", (unsigned long long)st->problems[i].seq,
		       (unsigned long long)st->problems[i].offset, pp_strerror(st->problems[i].err));
}

static void json_kv(struct pp_buf *b, const char *k, const char *v, bool comma)
{
	pp_buf_add_json_str(b, k);
	pp_buf_addch(b, ':');
	pp_buf_add_json_str(b, v ? v : "");
	if (comma)
		pp_buf_addch(b, ',');
}

static void print_json(struct ana_session *s, struct info *in)
{
	const struct ppf_file_info *fi = ppf_reader_info(s->r);
	const struct ppf_read_stats *st = ppf_reader_stats(s->r);
	struct pp_buf b = PP_BUF_INIT;
	char ver[32];

	snprintf(ver, sizeof(ver), "%u.%u", fi->major, fi->minor);
	pp_buf_addch(&b, '{');
	json_kv(&b, "capture", s->path, true);
	json_kv(&b, "version", ver, true);
	pp_buf_adds(&b, "\"host\":{");
	json_kv(&b, "hostname", ana_host(s, "hostname"), true);
	json_kv(&b, "release", ana_host(s, "release"), true);
	json_kv(&b, "machine", ana_host(s, "machine"), true);
	pp_buf_addf(&b, "\"nr_cpus_online\":%d,\"nr_cpus_possible\":%d,\"page_size\":%d},",
		    atoi(hv(s, "nr_cpus_online")), atoi(hv(s, "nr_cpus_possible")), atoi(hv(s, "page_size")));
	json_kv(&b, "command", ana_host(s, "cmdline"), true);
	json_kv(&b, "pp_version", ana_host(s, "pp_version"), true);
	pp_buf_addf(&b, "\"first_ns\":%llu,\"last_ns\":%llu,\"duration_ns\":%llu,",
		    (unsigned long long)in->first_ns, (unsigned long long)in->last_ns,
		    (unsigned long long)(in->last_ns - in->first_ns));
	pp_buf_adds(&b, "\"events\":[");
	for (size_t i = 0; i < s->nr_types; i++) {
		const struct ana_evtype *e = s->type_list[i];
		pp_buf_addf(&b, "%s{\"name\":", i ? "," : "");
		pp_buf_add_json_str(&b, e->name);
		pp_buf_addf(&b, ",\"id\":%u,\"count\":%llu,\"readings\":%llu}", e->id,
			    (unsigned long long)(uintptr_t)pp_u64map_get(&in->counts, e->id),
			    (unsigned long long)(uintptr_t)pp_u64map_get(&in->readings, e->id));
	}
	pp_buf_addf(&b, "],\"nr_events\":%llu,\"lost\":%llu,\"lost_saturated\":%s,\"lost_per_cpu\":{",
		    (unsigned long long)in->nr_samples, (unsigned long long)in->nr_lost,
		    in->lost_sat ? "true" : "false");
	size_t it = 0;
	uint64_t k;
	void *v;
	bool first = true;
	while (pp_u64map_next(&in->lost, &it, &k, &v)) {
		pp_buf_addf(&b, "%s\"%llu\":%llu", first ? "" : ",", (unsigned long long)k,
			    (unsigned long long)(uintptr_t)v);
		first = false;
	}
	pp_buf_addf(&b, "},\"late\":%llu,\"segments\":%llu,\"digest_segments\":%llu,"
		    "\"raw_bytes\":%llu,\"compressed_bytes\":%llu,",
		    (unsigned long long)in->nr_late,
		    (unsigned long long)(st->nr_segments + st->nr_digests),
		    (unsigned long long)st->nr_digests, (unsigned long long)st->raw_bytes,
		    (unsigned long long)st->comp_bytes);
	pp_buf_addf(&b, "\"kernel_symbols\":%llu,\"user_binaries\":%llu,\"user_symbols\":%llu,",
		    (unsigned long long)in->nr_ksyms, (unsigned long long)in->nr_dsos,
		    (unsigned long long)in->nr_syms);
	if (in->nr_unwind_tabs)
		pp_buf_addf(&b, "\"unwind_tables\":%llu,\"unwind_rows\":%llu,",
			    (unsigned long long)in->nr_unwind_tabs, (unsigned long long)in->nr_unwind_rows);
	if (in->nr_ustacks) {
		uint64_t nr, cut;

		ana_unwind_counts(s->unwind, &nr, &cut);
		pp_buf_addf(&b, "\"user_stacks\":%llu,\"user_stack_bytes\":%llu,"
			    "\"unwound_stacks\":%llu,\"truncated_stacks\":%llu,",
			    (unsigned long long)in->nr_ustacks, (unsigned long long)in->ustack_bytes,
			    (unsigned long long)nr, (unsigned long long)cut);
	}
	pp_buf_addf(&b, "\"truncated\":%s,\"truncated_at\":%llu,\"last_segment\":%llu,"
		    "\"corrupt_segments\":%llu,\"records_lost_to_corruption\":%llu,\"problems\":[",
		    st->truncated ? "true" : "false", (unsigned long long)st->truncated_at,
		    (unsigned long long)st->last_seq, (unsigned long long)st->nr_corrupt,
		    (unsigned long long)st->records_lost);
	for (size_t i = 0; i < st->nr_problems; i++) {
		pp_buf_addf(&b, "%s{\"segment\":%llu,\"offset\":%llu,\"error\":", i ? "," : "",
			    (unsigned long long)st->problems[i].seq,
			    (unsigned long long)st->problems[i].offset);
		pp_buf_add_json_str(&b, pp_strerror(st->problems[i].err));
		pp_buf_addch(&b, '}');
	}
	pp_buf_adds(&b, "]}\n");
	fputs(pp_buf_str(&b), stdout);
	pp_buf_release(&b);
}

int cmd_info(int argc, const char **argv, struct ana_cmd_ctx *ctx)
{
	struct ana_session *s = ctx->s;
	const char *format = NULL;
	char err[256];
	const struct pp_option opts[] = {
		PP_OPT_STRING(0, "format", &format, "text|json", "output format"),
		PP_OPT_END(),
	};
	const char *usage[] = { "pp-analyze FILE info [--format json]", NULL };
	struct info in = { 0 };
	int n = ana_cmd_parse(argc, argv, opts, usage, NULL, err, sizeof(err));

	if (n > 0)
		return 0;	/* its help */
	if (n != 0 || (format && strcmp(format, "json") && strcmp(format, "text"))) {
		pp_err("info: %s", n != 0 ? err : "--format is text or json");
		return 2;
	}
	int rc = scan(s, &in);
	if (format && !strcmp(format, "json")) {
		print_json(s, &in);
	} else {
		struct info_q q = { 0 };

		print_text(s, &in, &q);
		for (size_t i = 0; i < PP_ARRAY_SIZE(q.b); i++)
			pp_buf_release(&q.b[i]);
	}
	pp_u64map_release(&in.counts);
	pp_u64map_release(&in.readings);
	pp_u64map_release(&in.lost);
	return rc ? 1 : 0;
}
