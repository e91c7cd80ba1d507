/* SPDX-License-Identifier: MIT */
/*
 * summary.c - what a run did: STATS records in the capture, a report on stderr.
 *
 * Stat keys (stable, read by pp-analyze info): "events.<name>", "samples",
 * "sideband", "lost", "lost_records", "lost.cpu<N>", "late", "late_records",
 * "duration_ns", "dsos", "ksyms", "tasks", "maps", "rec.cpu_user_us",
 * "rec.cpu_sys_us", "rec.maxrss_kb", "rec.max_queued", "rec.bad_fifo_bytes"; with a
 * spill file (ring/spill.h) "rec.spill_pages", "rec.spill_most_kb" (most waiting),
 * "rec.spill_at_bound" (rounds the bound stopped), "rec.spill_off" (1: a write
 * failed, pages went to memory after it), "rec.consumer_boosts".
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "common/units.h"
#include "format/format.h"
#include "record/ftrace/ftrace.h"
#include "record/perf/insn.h"
#include "record/session.h"
#include "record/summary.h"
#include "record/symbols/symbols.h"

int rec_summary_write_stats(struct rec_session *s)
{
	struct ppf_writer_totals t;
	struct rec_symbols_stats sy;
	struct rusage ru;
	char key[300];
	int rc = 0;

	ppf_writer_totals(s->w, &t);
	rec_symbols_get_stats(s->syms, &sy);
	getrusage(RUSAGE_SELF, &ru);
	for (size_t i = 0; i < s->nr_evsels && !rc; i++) {
		snprintf(key, sizeof(key), "events.%s", s->evsels[i].name);
		rc = ppf_write_stat(s->w, key, s->evsels[i].nr_samples);
	}
#define STAT(k, v) do { if (!rc) rc = ppf_write_stat(s->w, k, (uint64_t)(v)); } while (0)
	STAT("samples", s->nr_samples);
	STAT("sideband", s->nr_sideband);
	STAT("lost", s->nr_lost);
	STAT("lost_records", s->nr_lost_records);
	for (size_t i = 0; i < s->tgt.nr_cpus && !rc; i++) {
		snprintf(key, sizeof(key), "lost.cpu%d", s->tgt.cpus[i]);
		rc = ppf_write_stat(s->w, key, s->lost_cpu[i]);
	}
	STAT("late", t.nr_late);
	STAT("late_records", s->merge.nr_late);
	STAT("rec.bad_fifo_bytes", s->drain.nr_bad);
	STAT("duration_ns", s->end_ns - s->start_ns);
	STAT("dsos", sy.nr_dsos);
	STAT("dsos_failed", sy.nr_failed);
	if (sy.nr_unwind) {
		STAT("unwind_tables", sy.nr_unwind);
		STAT("unwind_rows", sy.nr_unwind_rows);
	}
	STAT("ksyms", s->nr_ksyms);
	STAT("tasks", s->nr_tasks);
	STAT("maps", s->nr_maps);
	STAT("rec.cpu_user_us", ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec);
	STAT("rec.cpu_sys_us", ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	STAT("rec.maxrss_kb", ru.ru_maxrss);
	STAT("rec.max_queued", s->merge.max_queued);
	STAT("rec.merge_most_kb", s->merge.max_chunks * rec_merge_chunk_size(&s->merge) >> 10);
	STAT("rec.merge_tight", s->nr_merge_tight);
	if (s->drain.spill.page) {
		STAT("rec.spill_pages", s->drain.spill.nr_pages);
		STAT("rec.spill_most_kb", s->drain.spill.max_used >> 10);
		STAT("rec.spill_at_bound", s->drain.spill.nr_full);
		STAT("rec.spill_off", s->drain.spill.off);
		STAT("rec.consumer_boosts", s->drain.nr_boosts);
	}
#undef STAT
	if (!rc)
		rc = rec_ftrace_write_stats(s);
	return rc;
}

void rec_summary_print(const struct rec_session *s, FILE *fp)
{
	const struct ppf_writer_totals *t = &s->totals;
	double dur = (double)(s->end_ns - s->start_ns) / 1e9;
	char raw[32], comp[32], rss[32];
	struct rusage ru;
	size_t width = 10;

	getrusage(RUSAGE_SELF, &ru);
	if (s->werr)	/* not all of them are in the file: say so (t750) */
		fprintf(fp, "%s: %llu events in %.2f s recorded; %s keeps those of the segments "
			"written before the error\n", "pp-record", (unsigned long long)s->nr_samples,
			dur, s->out_name);
	else
		fprintf(fp, "%s: %llu events in %.2f s written to %s\n", "pp-record",
			(unsigned long long)s->nr_samples, dur, s->out_name);
	for (size_t i = 0; i < s->nr_evsels; i++)
		if (strlen(s->evsels[i].name) > width)
			width = strlen(s->evsels[i].name);
	for (size_t i = 0; i < s->nr_evsels; i++)
		fprintf(fp, "  %-*s %12llu\n", (int)width, s->evsels[i].name,
			(unsigned long long)s->evsels[i].nr_samples);
	fprintf(fp, "  %-*s %12llu\n", (int)width, "(side-band)",
		(unsigned long long)s->nr_sideband);
	fprintf(fp, "  lost: %llu", (unsigned long long)s->nr_lost);
	if (s->opts.verbose && s->tgt.nr_cpus) {
		fputs(" (", fp);
		for (size_t i = 0; i < s->tgt.nr_cpus; i++)
			fprintf(fp, "%scpu%d %llu", i ? ", " : "", s->tgt.cpus[i],
				(unsigned long long)s->lost_cpu[i]);
		fputc(')', fp);
	}
	fprintf(fp, "; late: %llu\n", (unsigned long long)s->merge.nr_late);
	if (s->drain.nr_bad)
		fprintf(fp, "  internal error: %llu bytes of the ring copy were not records and"
			" were dropped (please report)\n", (unsigned long long)s->drain.nr_bad);
	if (s->opts.verbose)
		fprintf(fp, "  lost counted by the kernel: %llu; records dropped as malformed: %llu\n",
			(unsigned long long)s->nr_lost_counted,
			(unsigned long long)s->nr_bad_records);
	if (s->opts.verbose && s->rings) {
		fputs("  ring high-water:", fp);
		for (size_t i = 0; i < s->tgt.nr_cpus; i++)
			fprintf(fp, " cpu%d %zu%%", s->tgt.cpus[i],
				s->rings[i].data_sz ?
				s->rings[i].max_pending * 100 / s->rings[i].data_sz : 0);
		fprintf(fp, "; longest drain %.1f ms, longest gap %.1f ms, %llu drains (%llu left"
			" in a ring), FIFO high-water",
			(double)s->drain.max_round_ns / 1e6, (double)s->drain.max_gap_ns / 1e6,
			(unsigned long long)s->drain.nr_rounds,
			(unsigned long long)s->drain.nr_full);
		for (size_t i = 0; s->drain.fifos && i < s->tgt.nr_cpus; i++)
			fprintf(fp, " %zu%%", s->drain.fifos[i].size ?
				s->drain.fifos[i].max_used * 100 / s->drain.fifos[i].size : 0);
		fprintf(fp, ", %llu priority boosts; the thread's CPU %.3f s\n",
			(unsigned long long)s->drain.nr_boosts, (double)s->drain.cpu_ns / 1e9);
		if (s->drain.spill.page)
			fprintf(fp, "  spill: %llu pages, most waiting %llu KiB (bound %llu MiB), file"
				" %llu KiB, %llu restarts, %llu rounds at the bound%s%s\n",
				(unsigned long long)s->drain.spill.nr_pages,
				(unsigned long long)(s->drain.spill.max_used >> 10),
				(unsigned long long)(s->drain.spill.max_backlog >> 20),
				(unsigned long long)(s->drain.spill.file_high >> 10),
				(unsigned long long)s->drain.spill.nr_resets,
				(unsigned long long)s->drain.spill.nr_full,
				s->drain.spill.off ? "; turned off: " : "",
				s->drain.spill.off ? strerror(s->drain.spill.last_err) : "");
		fprintf(fp, "  merge: most queued %llu records in %zu KiB (bound %llu KiB, %llu"
			" flushes before the window passed)\n",
			(unsigned long long)s->merge.max_queued,
			s->merge.max_chunks * rec_merge_chunk_size(&s->merge) >> 10,
			(unsigned long long)(s->opts.merge_max >> 10),
			(unsigned long long)s->nr_merge_tight);
	}
	if (s->opts.verbose && s->insn) {
		uint64_t saved, failed;

		rec_insn_count(s->insn, &saved, &failed);
		fprintf(fp, "  instructions saved at %llu breakpoint IPs, %llu unreadable\n",
			(unsigned long long)saved, (unsigned long long)failed);
	}
	pp_format_bytes(t->raw_bytes, raw, sizeof(raw));
	pp_format_bytes(s->file_bytes, comp, sizeof(comp));
	fprintf(fp, "  size: %s raw, %s written (ratio %.1f)", raw, comp,
		s->file_bytes ? (double)t->raw_bytes / (double)s->file_bytes : 0.0);
	if (s->nr_samples)
		fprintf(fp, ", %.2f bytes/event", (double)s->file_bytes / (double)s->nr_samples);
	fputc('\n', fp);
	pp_format_bytes((uint64_t)ru.ru_maxrss * 1024, rss, sizeof(rss));
	fprintf(fp, "  pp-record: %.2f s CPU (%.2f user, %.2f sys), peak RSS %s\n",
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, rss);
}
