/* SPDX-License-Identifier: MIT */
/*
 * cmd-parallel.c - `pp-analyze -j N FILE ANALYZER ...`: one capture replayed by
 * N threads.
 *
 * The capture is cut into parts (parts.c); each part gets its own session
 * (reader, event types, tasks, symbols) and its own analyzer instances,
 * parsed and initialised here on the main thread (libtraceevent's format
 * parser is not reentrant), then replayed on a thread of its own: the side
 * band before its segments skimmed, its segments whole, into a state in
 * memory (--state-out's bytes).  The main thread then merges each
 * analyzer's states in the order of the parts with `pp-analyze report`'s
 * code (ana_merge_open()): adjacent ranges of one capture are joined by the
 * analyzer's state_join, so intervals that cross a cut come out as in one
 * pass, and the report is printed by the analyzer's own finish().
 * Only instances that can be merged run so (ana_parallel_able()); anything
 * else is one pass, as without -j.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/cmd.h"
#include "analyze/internal.h"
#include "analyze/state/state.h"
#include "common/log.h"
#include "common/symbolize.h"

/*
 * What a skim costs per record, as a share of a replay's: decompressing is about
 * half of decoding, and decoding about half of top's replay (docs/performance.md).
 * With side-band digests the records before a part cost only their segments'
 * checksums and their side band, read from the digests: DIGEST_COST.
 */
#define SKIM_COST 0.3
#define DIGEST_COST 0.05

struct part_run {
	struct ana_session *s;
	struct ppf_record first;
	int have_first;
	struct pp_buf *sinks;		/* one state per analyzer */
	int rc;
	pthread_t th;
	double t0, t1;			/* its replay's start and end (CLOCK_MONOTONIC, s) */
	double cpu;			/* its thread's CPU time (s) */
	struct ppf_read_stats stats;	/* its reader's, kept when its session is freed */
	int exit_status;		/* the first of its instances' */
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned ana_parallel_jobs(int option)
{
	const char *e = getenv("PP_JOBS");
	long n;

	if (option > 0)
		return (unsigned)option;
	if (e && *e) {
		char *end;
		n = strtol(e, &end, 10);
		if (!*end && n > 0)
			return n > 1024 ? 1024 : (unsigned)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 1 ? (n > 1024 ? 1024 : (unsigned)n) : 1;
}

const char *ana_parallel_able(struct pp_az *const *azs, size_t nr, uint64_t span_ns,
			      const char **name)
{
	for (size_t i = 0; i < nr; i++) {
		const struct pp_az *az = azs[i];
		const struct pp_common_opts *o = &az->opt;

		*name = az->name;
		if (!az->an->ops->state_write)
			return "it has no mergeable state";
		if (!az->an->ops->state_join && !(az->an->ops->flags & PP_AZ_STATE_CUT))
			return "its state does not join what crosses a cut (no state_join)";
		if (az->an->ops->flags & PP_AZ_STATE_MAY_REFUSE)
			return "its state refuses some captures (a loss, samples) after the replay";
		/* top's own 1 s: reports before the last one only when the range is that long */
		if (o->interval_ns && az->an->ops->interval && span_ns >= o->interval_ns)
			return "-i prints as the replay goes";
		if (o->exit_n)
			return "-N takes the first events";
		if (o->than_ns || o->only_than_ns || o->lower_ns || o->verbose || o->detail)
			return "it lists events as the replay goes";
		if (o->flame_graph || o->heatmap)
			return "its side files are made by one pass";
		if (o->perfeval_cpus || o->perfeval_pids)
			return "--perfeval-* lists counts as the replay goes";
		/*
		 * The latency engine's pair: the events a loss leaves unpaired are listed at the
		 * loss, and a join does not list those of the range before yet (a --time merge
		 * prints them neither): one pass until it does.
		 */
		char *canon = ana_state_options(az);
		bool pair = strstr(canon, "--impl=pair") != NULL;
		free(canon);
		if (pair)
			return "--impl pair lists what a loss leaves unpaired as the replay goes";
	}
	*name = NULL;
	return NULL;
}

static void part_free_session(struct part_run *p);

static void *part_main(void *arg)
{
	struct part_run *p = arg;

	p->t0 = clock_s(CLOCK_MONOTONIC);
	p->rc = ana_replay(p->s, &p->first, p->have_first);
	/* its states are made: the session makes way for the merge (peak RSS) */
	p->stats = *ppf_reader_stats(p->s->r);
	p->stats.problems = NULL;
	p->stats.nr_problems = 0;
	for (size_t i = 0; i < p->s->nr_azs && !p->exit_status; i++)
		p->exit_status = p->s->azs[i]->exit_status;
	part_free_session(p);
	p->t1 = clock_s(CLOCK_MONOTONIC);
	p->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/*
 * A part after the first: the metadata before the first EVENTS segment, and that
 * segment's first record in @first.  Unlike ana_session_load_meta(), which stops at the
 * first sample (what comes before it only informs the session, as in one pass), the
 * records of the events segments go through the replay: a loss or an exit at the start
 * of the part's own segments reaches the analyzers as it does in one pass.
 */
static int load_head(struct ana_session *s, struct ppf_record *first)
{
	const struct ppf_segment *seg;
	int rc;

	while ((rc = ppf_reader_next(s->r, first, &seg)) == 0) {
		if (seg->kind == PPF_SEG_EVENTS)
			return 0;
		rc = ana_session_meta(s, first);
		if (rc)
			return rc;
	}
	return rc;
}

/* A part's session and instances, ready to replay. Return: 0 or an exit status. */
static int part_open(const char *path, unsigned read_flags, const struct ana_part *pt, bool first,
		     uint64_t seek_ns, const struct ppf_index_entry *segs, size_t nsegs,
		     const int *argc, const char *const *const *argv, size_t nr, struct part_run *p)
{
	struct ana_session *s;
	char err[512];
	bool help = false;
	int rc;

	rc = ana_session_open(path, read_flags | ANA_OPEN_NO_READ_AHEAD, &s);
	p->s = s;
	if (rc) {
		pp_err("%s", s->errmsg);
		return 2;
	}
	if (ppf_reader_set_window(s->r, pt->from_off, pt->to_off) ||
	    ppf_reader_set_digests(s->r, segs, nsegs) ||
	    (seek_ns && ppf_reader_seek_time(s->r, seek_ns))) {
		pp_err("'%s': cannot read it in parts", path);
		return 1;
	}
	s->part = true;
	s->exit_from_ns = first ? 0 : pt->start_ns;
	s->azs = pp_xcalloc(nr, sizeof(*s->azs));
	p->sinks = pp_xcalloc(nr, sizeof(*p->sinks));
	for (size_t i = 0; i < nr; i++) {
		struct pp_az *az = ana_az_parse(argc[i], (const char **)argv[i], &help);

		s->azs[s->nr_azs++] = az;
		az->s = s;
		ana_state_az_new_mem(az, &p->sinks[i]);
		if (ana_out_open(&az->out, NULL, NULL, err, sizeof(err))) {
			pp_err("%s: %s", az->name, err);
			return 2;
		}
	}
	rc = first ? ana_session_load_meta(s, &p->first) : load_head(s, &p->first);
	if (rc < 0) {
		pp_err("reading '%s': %s", path, ppf_reader_errmsg(s->r));
		return 1;
	}
	p->have_first = rc == 0;
	s->range_start_ns = pt->start_ns;
	s->range_end_ns = pt->end_ns;
	rc = ana_replay_init(s);
	return rc == 0 ? 0 : ana_replay_status(rc);
}

/* The part's session and instances (its states stay in its sinks). */
static void part_free_session(struct part_run *p)
{
	if (!p->s)
		return;
	for (size_t i = 0; i < p->s->nr_azs; i++)
		ana_az_free(p->s->azs[i]);
	free(p->s->azs);
	p->s->azs = NULL;
	ana_session_free(p->s);
	p->s = NULL;
}

static void part_close(struct part_run *p, size_t nr)
{
	part_free_session(p);
	for (size_t i = 0; p->sinks && i < nr; i++)
		pp_buf_release(&p->sinks[i]);
	free(p->sinks);
	p->sinks = NULL;
}

/* The damage the parts met, as one reader of the whole file would report it. */
static void add_stats(struct ppf_read_stats *sum, const struct ppf_read_stats *st, bool last)
{
	sum->nr_segments += st->nr_segments;
	sum->nr_corrupt += st->nr_corrupt;
	sum->records_lost += st->records_lost;
	if (last) {
		sum->truncated = st->truncated;
		sum->cut_mid_segment = st->cut_mid_segment;
		sum->truncated_at = st->truncated_at;
		sum->last_seq = st->last_seq;
		sum->last_time_ns = st->last_time_ns;
	}
}

/* Analyzer @i's states of the parts, merged and reported (or written: --state-out). */
static int merge_one(const char *path, struct part_run *runs, size_t nparts, size_t i,
		     struct pp_az *user)
{
	struct ana_state **v = pp_xcalloc(nparts, sizeof(*v));
	struct ana_merge *m = NULL;
	struct pp_az *az = NULL;
	char err[1024], name[64];
	int rc;

	for (size_t k = 0; k < nparts; k++) {
		snprintf(name, sizeof(name), "part %zu of '%.32s'", k + 1, path);
		rc = ana_state_from_mem(runs[k].sinks[i].data, runs[k].sinks[i].len, name, &v[k],
					err, sizeof(err));
		if (rc) {
			pp_err("%s: %s", user->name, err);
			for (size_t j = 0; j < k; j++)
				ana_state_free(v[j]);
			free(v);
			return 1;
		}
	}
	rc = ana_merge_open(v, nparts, user->opt.format, user->opt.output, &m, &az);
	if (!rc)
		rc = user->opt.state_out ? ana_merge_write(m, az, user->opt.state_out)
					 : ana_merge_report(m, az);
	ana_merge_close(m, az);
	return rc;
}

static int run(struct ana_session *main_s, struct ppf_record *first, int have_first,
	       const struct ana_part *parts, size_t nparts, const struct ppf_index_entry *segs,
	       size_t nsegs, const int *argc,
	       const char *const *const *argv, unsigned read_flags, struct ppf_read_stats *stats)
{
	struct part_run *runs = pp_xcalloc(nparts, sizeof(*runs));
	const char *path = main_s->path;
	size_t nr = main_s->nr_azs, started = 0;
	int status = 0;

	memset(stats, 0, sizeof(*stats));
	/*
	 * The parts' instances are made as --state-out makes them, quietly: the one pass
	 * said what there is to say of them (warnings, -v notes) already, once.  An
	 * analyzer that refuses to make a state with its options (a listing of its own,
	 * multi-trace's trigger, nested-trace's call tree) is left to the one pass.
	 */
	fflush(stderr);
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	/*
	 * --time: the one pass skips the EVENTS segments that end before the range, side band
	 * and all (cmd-analyze.c's set_range(): ppf_reader_seek_time(), unless it makes a
	 * state); so do the parts, to know at its start what the one pass knows there.
	 */
	uint64_t seek_ns = main_s->range_start_ns;
	for (size_t i = 0; i < nr; i++)
		if (ana_state_recording(main_s->azs[i]))
			seek_ns = 0;
	for (size_t k = 0; k < nparts && !status; k++)
		status = part_open(path, read_flags, &parts[k], k == 0, seek_ns, segs, nsegs, argc,
				   argv, nr, &runs[k]);
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	if (status) {
		pp_debug(1, "-j: one thread: %s refuses a state with these options (its listings "
			 "are one pass's)", nr == 1 ? main_s->azs[0]->name : "an analyzer");
		for (size_t k = 0; k < nparts; k++)
			part_close(&runs[k], nr);
		free(runs);
		return -1;
	}
	/*
	 * The count engine bins events on one grid for the capture (ana_grid_origin_ns()):
	 * from the --time start a report counts from, or from the capture's first time,
	 * which only the first part would see (the others, and with --time all, start
	 * later).  The one pass's reader is where that time is, unless it went to --time.
	 */
	if (!seek_ns && ana_replay_capture_first(main_s, first, have_first) < 0) {
		pp_err("reading '%s': %s", path, ppf_reader_errmsg(main_s->r));
		status = 1;
	}
	for (size_t k = 0; k < nparts; k++) {
		runs[k].s->capture_first_ns = main_s->capture_first_ns;
		runs[k].s->from_ns = main_s->range_start_ns;
	}
	/*
	 * The one pass's session only read the metadata and named the instances: its reader
	 * and symbol tables make way for the parts' (peak RSS: N parts, not N + 1).
	 */
	ppf_reader_close(main_s->r);
	main_s->r = NULL;
	pp_u64map_del(&main_s->dsos, 0);	/* a DSO of those tables, being filled */
	pp_symtab_free(main_s->syms);
	main_s->syms = pp_symtab_new(0);
	for (size_t k = 0; k < nparts && !status; k++, started++) {
		int e = pthread_create(&runs[k].th, NULL, part_main, &runs[k]);
		if (e) {
			pp_err("cannot start a thread: %s", strerror(e));
			status = 1;
			break;
		}
	}
	for (size_t k = 0; k < started; k++) {
		pthread_join(runs[k].th, NULL);
		const struct ppf_read_stats *st = &runs[k].stats;

		pp_debug(2, "part %zu: from offset %llu, %.3f s of %.3f s, cpu %.3f s", k + 1,
			 (unsigned long long)parts[k].from_off, runs[k].t1 - runs[k].t0,
			 runs[k].t1 - runs[0].t0, runs[k].cpu);
		if (k)
			pp_debug(1, "-j %zu: part %zu: side band before it: %llu segments from "
				 "digests (%llu bytes decompressed), %llu skimmed (%llu bytes "
				 "decompressed)", nparts, k + 1, (unsigned long long)st->digest_segments,
				 (unsigned long long)st->digest_raw_bytes,
				 (unsigned long long)st->skim_segments,
				 (unsigned long long)st->skim_raw_bytes);
	}
	for (size_t k = 0; k < started && !status; k++) {
		if (runs[k].rc)
			status = ana_replay_status(runs[k].rc);
		if (!status)
			status = runs[k].exit_status;
	}
	if (!status)
		for (size_t k = 0; k < nparts; k++)
			add_stats(stats, &runs[k].stats, k + 1 == nparts);
	/* each analyzer's report in the order of the command line, as after one pass */
	for (size_t i = 0; i < nr && !status; i++) {
		ana_out_close(&main_s->azs[i]->out);	/* the merge's instance opens -o itself */
		status = merge_one(path, runs, nparts, i, main_s->azs[i]);
	}
	for (size_t k = 0; k < nparts; k++)
		part_close(&runs[k], nr);
	free(runs);
	return status;
}

/* How long the analysed range of the capture lasts, from its events segments' times. */
static uint64_t span(const struct ppf_index_entry *segs, size_t nr, const struct ana_session *s)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (size_t i = 0; i < nr; i++) {
		if (segs[i].kind != PPF_SEG_EVENTS || !segs[i].nr_records)
			continue;
		if (segs[i].first_ns < first)
			first = segs[i].first_ns;
		if (segs[i].last_ns > last)
			last = segs[i].last_ns;
	}
	if (s->range_start_ns > first)
		first = s->range_start_ns;
	if (s->range_end_ns && s->range_end_ns < last)
		last = s->range_end_ns;
	return last > first ? last - first : 0;
}

/*
 * Whether pp-record wrote side-band digests: it writes one after every few EVENTS
 * segments, so a capture with any has them for all but its last few.
 */
static bool has_digests(const struct ppf_index_entry *segs, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (segs[i].kind == PPF_SEG_DIGEST)
			return true;
	return false;
}

int ana_parallel(struct ana_session *s, struct ppf_record *first, int have_first, unsigned jobs,
		 const int *argc, const char *const *const *argv, unsigned read_flags,
		 struct ppf_read_stats *stats)
{
	struct ppf_index_entry *segs;
	struct ana_part *parts;
	const char *name, *why;
	size_t nsegs, nparts;
	int status;

	if (jobs < 2)
		return -1;
	if (s->live || !strcmp(s->path, "-")) {
		pp_debug(1, "-j %u: a stream is replayed by one thread", jobs);
		return -1;
	}
	if (ppf_reader_segments(s->r, &segs, &nsegs)) {
		pp_debug(1, "-j %u: one thread: '%s' cannot be read in parts", jobs, s->path);
		return -1;
	}
	why = ana_parallel_able(s->azs, s->nr_azs, span(segs, nsegs, s), &name);
	if (why) {
		pp_debug(1, "-j %u: one thread: %s: %s", jobs, name, why);
		free(segs);
		return -1;
	}
	parts = pp_xcalloc(jobs, sizeof(*parts));
	nparts = ana_parts_split(segs, nsegs, jobs, has_digests(segs, nsegs) ? DIGEST_COST : SKIM_COST,
				 s->range_start_ns, s->range_end_ns, parts);
	if (nparts < 2) {
		pp_debug(1, "-j %u: one thread: nowhere to cut '%s' (one segment of events)", jobs,
			 s->path);
		free(segs);
		free(parts);
		return -1;
	}
	status = run(s, first, have_first, parts, nparts, segs, nsegs, argc, argv, read_flags, stats);
	free(segs);
	if (status >= 0)
		pp_debug(1, "-j %u: '%s' in %zu parts", jobs, s->path, nparts);
	free(parts);
	return status;
}
