/* SPDX-License-Identifier: MIT */
/*
 * parallel.c - the parallel replay engine: one capture replayed by N threads
 * (`pp-analyze -j N FILE ANALYZER ...`).
 *
 * The capture is cut into parts (parts.c); each part gets its own session
 * (reader, event types, tasks, user symbols) and its own analyzer instances,
 * and is replayed by one of N worker threads: the side band before its
 * segments from the digests (or skimmed), its segments whole, into a state in
 * memory (--state-out's bytes).  With digests there are several parts a
 * thread, shared out as the threads go (struct part_sched); what every part
 * would read and build alike is the one pass's, read once: the kernel symbol
 * table (lent), the inline-frame resolvers (its session's), the checksums of
 * the segments before a part (format/checks.c).  A part is opened one at a
 * time (libtraceevent's format parser is not reentrant): the workers' first
 * ones on the main thread, the others by the worker that takes them.  The
 * main thread then merges each analyzer's states in the order of the parts
 * with the code of the `pp-analyze report` command (ana_merge_open()): adjacent
 * ranges of one capture are joined by the analyzer's state_join, so intervals
 * that cross a cut come out as in one pass, and the analyzer's result is printed
 * by its own finish().
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
	bool opened;
	struct ppf_record first;
	int have_first;
	struct pp_buf *sinks;		/* one state per analyzer */
	int rc;
	unsigned thread;		/* the worker that replayed it */
	double t0, t1;			/* its replay's start and end (CLOCK_MONOTONIC, s) */
	double cpu;			/* its replay's CPU time (s) */
	struct ppf_read_stats stats;	/* its reader's, kept when its session is freed */
	int exit_status;		/* the first of its instances' */
};

/*
 * The parts and who takes which.  A worker replays its first part (opened on the main
 * thread, before the workers start), then the next one if nobody has it, else the second
 * half (by records) of the run of parts nobody has taken that holds the most records - what
 * is left to the slowest worker - and goes on from there: the workers end together whatever
 * a part costs (parts.c makes each worker's share of parts shrink, small ones last).
 * A part taken so is opened by its worker, one at a time (libtraceevent's format parser is
 * not reentrant), its messages muted.
 */
#define NO_PART ((size_t)-1)

struct part_sched {
	pthread_mutex_t claim_lock, open_lock;
	struct part_run *runs;
	bool *claimed;
	size_t nparts;
	bool failed;			/* a part could not be opened: take no more */
	size_t failed_part;
	int failed_status;
	/* what opening a part needs */
	struct ana_session *main_s;	/* lends its kernel symbols */
	struct ppf_checks *checks;	/* the segments the parts' readers found whole */
	const char *path;
	unsigned read_flags;
	const struct ana_part *parts;
	uint64_t seek_ns;
	const struct ppf_index_entry *segs;
	size_t nsegs;
	const int *argc;
	const char *const *const *argv;
	size_t nr;
};

struct worker {
	struct part_sched *sc;
	unsigned id;
	size_t first;
	pthread_t th;
	size_t nr_parts;
	double cpu;			/* its thread's CPU time (s) */
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
		/* top's own 1 s: prints before the last one only when the range is that long */
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

static void part_replay(struct part_run *p, unsigned thread)
{
	double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	p->thread = thread;
	p->t0 = clock_s(CLOCK_MONOTONIC);
	p->rc = ana_replay(p->s, &p->first, p->have_first);
	/* its states are made: the session makes way for the next part's (peak RSS) */
	p->stats = *ppf_reader_stats(p->s->r);
	p->stats.problems = NULL;
	p->stats.nr_problems = 0;
	for (size_t i = 0; i < p->s->nr_azs && !p->exit_status; i++)
		p->exit_status = p->s->azs[i]->exit_status;
	part_free_session(p);
	p->t1 = clock_s(CLOCK_MONOTONIC);
	p->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* The part a worker that ended part @k replays next, claimed; NO_PART: none is left. */
static size_t claim_next(struct part_sched *sc, size_t k)
{
	size_t n = sc->nparts, best = 0, best_len = 0, next = NO_PART;

	pthread_mutex_lock(&sc->claim_lock);
	if (sc->failed) {
		pthread_mutex_unlock(&sc->claim_lock);
		return NO_PART;
	}
	if (k + 1 < n && !sc->claimed[k + 1]) {
		next = k + 1;
	} else {
		uint64_t most = 0, half = 0;

		/* the run of parts nobody has taken with the most records */
		for (size_t i = 0; i < n;) {
			size_t j = i;
			uint64_t recs = 0;

			while (j < n && !sc->claimed[j])
				recs += sc->parts[j++].records + 1;
			if (j > i && recs > most) {
				best = i;
				best_len = j - i;
				most = recs;
			}
			i = j + 1;
		}
		/*
		 * Its first half stays with the worker replaying the part before it; the
		 * second half, from the part where it starts, is this worker's.
		 */
		if (best_len) {
			next = best;
			for (size_t j = best; j + 1 < best + best_len; j++) {
				half += sc->parts[j].records + 1;
				next = j + 1;
				if (2 * half >= most)
					break;
			}
		}
	}
	if (next != NO_PART)
		sc->claimed[next] = true;
	pthread_mutex_unlock(&sc->claim_lock);
	return next;
}

static int part_open(struct part_sched *sc, size_t k, struct part_run *p);

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct part_sched *sc = w->sc;

	ana_heap_thread();
	for (size_t k = w->first; k != NO_PART; k = claim_next(sc, k)) {
		struct part_run *p = &sc->runs[k];

		if (!p->opened) {
			pthread_mutex_lock(&sc->open_lock);
			pp_log_mute++;
			int status = part_open(sc, k, p);
			pp_log_mute--;
			pthread_mutex_unlock(&sc->open_lock);
			if (status) {
				pthread_mutex_lock(&sc->claim_lock);
				if (!sc->failed) {
					sc->failed = true;
					sc->failed_part = k;
					sc->failed_status = status;
				}
				pthread_mutex_unlock(&sc->claim_lock);
				break;
			}
		}
		/* what the main thread learnt after the first parts were opened */
		p->s->capture_first_ns = sc->main_s->capture_first_ns;
		p->s->from_ns = sc->main_s->range_start_ns;
		part_replay(p, w->id);
		w->nr_parts++;
	}
	w->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
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

/*
 * Part @k's session and instances, ready to replay; its kernel symbols are the one pass's
 * (sc->main_s: read before the first sample, which every part reads first too).
 * Return: 0 or an exit status.
 */
static int part_open(struct part_sched *sc, size_t k, struct part_run *p)
{
	const struct ana_part *pt = &sc->parts[k];
	const char *path = sc->path;
	struct ana_session *s;
	char err[512];
	bool help = false;
	int rc;

	p->opened = true;
	rc = ana_session_open(path, sc->read_flags | ANA_OPEN_NO_READ_AHEAD, &s);
	p->s = s;
	s->registry = &ana_registry;
	if (rc) {
		pp_err("%s", s->errmsg);
		return 2;
	}
	if (ppf_reader_set_window(s->r, pt->from_off, pt->to_off) ||
	    ppf_reader_set_digests(s->r, sc->segs, sc->nsegs) ||
	    (sc->seek_ns && ppf_reader_seek_time(s->r, sc->seek_ns))) {
		pp_err("'%s': cannot read it in parts", path);
		return 1;
	}
	if (sc->checks)
		ppf_reader_share_checks(s->r, sc->checks);
	/* the kernel symbols: the one pass's table, its segments not even decompressed */
	pp_symtab_ksyms_borrow(s->syms, sc->main_s->syms, sc->main_s->ksyms_mem);
	if (sc->main_s->meta_end_off)
		ppf_reader_pass_over(s->r, 1u << PPF_SEG_KSYMS, sc->main_s->meta_end_off);
	s->part = true;
	s->lender = sc->main_s;	/* its inline-frame resolvers */
	s->exit_from_ns = k ? pt->start_ns : 0;
	s->azs = pp_xcalloc(sc->nr, sizeof(*s->azs));
	p->sinks = pp_xcalloc(sc->nr, sizeof(*p->sinks));
	for (size_t i = 0; i < sc->nr; i++) {
		/* the command line's instances, parsed already: no name is unknown here */
		struct pp_az *az = ana_az_parse(sc->argc[i], (const char **)sc->argv[i], NULL,
						&help);

		s->azs[s->nr_azs++] = az;
		az->s = s;
		ana_state_az_new_mem(az, &p->sinks[i]);
		if (ana_out_open(&az->out, NULL, NULL, err, sizeof(err))) {
			pp_err("%s: %s", az->name, err);
			return 2;
		}
	}
	rc = k ? load_head(s, &p->first) : ana_session_load_meta(s, &p->first);
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

/* Analyzer @i's states of the parts, merged and its result printed (or written: --state-out). */
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

/*
 * The parts a worker of @jobs starts with: the first of its share, nparts / jobs parts
 * each.  Return: how many workers there are (no more than parts).
 */
static unsigned first_parts(size_t nparts, unsigned jobs, struct worker *w)
{
	if (jobs > nparts)
		jobs = (unsigned)nparts;
	for (unsigned t = 0; t < jobs; t++)
		w[t].first = t * nparts / jobs;
	return jobs;
}

/* What the parts and the scheduler hold, freed: their sessions, states, and the workers. */
static void sched_release(struct part_sched *sc, struct worker *w)
{
	for (size_t k = 0; k < sc->nparts; k++)
		part_close(&sc->runs[k], sc->nr);
	free(sc->runs);
	free(sc->claimed);
	free(w);
	ppf_checks_free(sc->checks);
}

/*
 * The workers' first parts, opened here, as --state-out makes its instances, quietly:
 * the one pass said what there is to say of them (warnings, -v notes) already, once.
 * Return: 0, or the status of the first that could not be opened.
 */
static int open_first_parts(struct part_sched *sc, struct worker *w, unsigned nw)
{
	int status = 0;

	fflush(stderr);
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	for (unsigned t = 0; t < nw && !status; t++) {
		w[t].sc = sc;
		w[t].id = t + 1;
		sc->claimed[w[t].first] = true;
		status = part_open(sc, w[t].first, &sc->runs[w[t].first]);
	}
	fflush(stderr);
	if (saved >= 0 && null >= 0)
		dup2(saved, STDERR_FILENO);
	if (saved >= 0)
		close(saved);
	if (null >= 0)
		close(null);
	return status;
}

/* Start the @nw workers. Return: how many started (*@status 1 if one could not). */
static unsigned start_workers(struct part_sched *sc, struct worker *w, unsigned nw, int *status)
{
	unsigned started = 0;

	for (unsigned t = 0; t < nw && !*status; t++, started++) {
		int e = pthread_create(&w[t].th, NULL, worker_main, &w[t]);
		if (e) {
			pp_err("cannot start a thread: %s", strerror(e));
			*status = 1;
			pthread_mutex_lock(&sc->claim_lock);
			sc->failed = true;	/* the started ones take the parts left */
			pthread_mutex_unlock(&sc->claim_lock);
			break;
		}
	}
	return started;
}

/* Wait for the @started workers; say with -v -v what each thread and part took. */
static void join_workers(const struct part_sched *sc, struct worker *w, unsigned started)
{
	const struct part_run *runs = sc->runs;

	for (unsigned t = 0; t < started; t++) {
		pthread_join(w[t].th, NULL);
		pp_debug(2, "thread %u: %zu parts, cpu %.3f s", w[t].id, w[t].nr_parts, w[t].cpu);
	}
	for (size_t k = 0; k < sc->nparts; k++) {
		const struct ppf_read_stats *st = &runs[k].stats;

		if (runs[k].t1 <= 0)
			continue;
		pp_debug(2, "part %zu: from offset %llu, on thread %u, %.3f s of %.3f s, cpu %.3f s",
			 k + 1, (unsigned long long)sc->parts[k].from_off, runs[k].thread,
			 runs[k].t1 - runs[k].t0, runs[k].t1 - runs[0].t0, runs[k].cpu);
		if (k)
			pp_debug(1, "-j %zu: part %zu: side band before it: %llu segments from "
				 "digests (%llu bytes decompressed), %llu skimmed (%llu bytes "
				 "decompressed)", sc->nparts, k + 1,
				 (unsigned long long)st->digest_segments,
				 (unsigned long long)st->digest_raw_bytes,
				 (unsigned long long)st->skim_segments,
				 (unsigned long long)st->skim_raw_bytes);
	}
}

/* How the parts' replays ended: 0, or the exit status of the first that failed. */
static int parts_status(const struct part_sched *sc)
{
	if (sc->failed) {
		pp_err("reading '%s' in parts: part %zu of %zu could not be opened (-j 1 reads it "
		       "in one pass)", sc->path, sc->failed_part + 1, sc->nparts);
		return sc->failed_status;
	}
	for (size_t k = 0; k < sc->nparts; k++) {
		if (sc->runs[k].rc)
			return ana_replay_status(sc->runs[k].rc);
		if (sc->runs[k].exit_status)
			return sc->runs[k].exit_status;
	}
	return 0;
}

/*
 * The parts' damage as one reader's in @stats, and each analyzer's states merged and its
 * result printed, in the order of the command line, as after one pass.
 * Return: the exit status.
 */
static int merge_parts(struct part_sched *sc, struct ana_session *main_s,
		       struct ppf_read_stats *stats)
{
	int status = 0;

	for (size_t k = 0; k < sc->nparts; k++)
		add_stats(stats, &sc->runs[k].stats, k + 1 == sc->nparts);
	for (size_t i = 0; i < sc->nr && !status; i++) {
		ana_out_close(&main_s->azs[i]->out);	/* the merge's instance opens -o itself */
		status = merge_one(sc->path, sc->runs, sc->nparts, i, main_s->azs[i]);
	}
	return status;
}

static int run(struct ana_session *main_s, struct ppf_record *first, int have_first,
	       unsigned jobs, const struct ana_part *parts, size_t nparts,
	       const struct ppf_index_entry *segs, size_t nsegs, const int *argc,
	       const char *const *const *argv, unsigned read_flags, struct ppf_read_stats *stats)
{
	struct part_sched sc = {
		.claim_lock = PTHREAD_MUTEX_INITIALIZER,
		.open_lock = PTHREAD_MUTEX_INITIALIZER,
		.runs = pp_xcalloc(nparts, sizeof(*sc.runs)),
		.claimed = pp_xcalloc(nparts, sizeof(*sc.claimed)),
		.nparts = nparts,
		.main_s = main_s,
		.path = main_s->path,
		.read_flags = read_flags,
		.parts = parts,
		.seek_ns = main_s->range_start_ns,
		.segs = segs,
		.nsegs = nsegs,
		.argc = argc,
		.argv = argv,
		.nr = main_s->nr_azs,
		.checks = ppf_checks_new(segs, nsegs),	/* NULL: each reader checks alone */
	};
	struct worker *w = pp_xcalloc(jobs, sizeof(*w));
	unsigned nw = first_parts(nparts, jobs, w), started;
	struct ana_inl_prefetch *pf;
	int status;

	memset(stats, 0, sizeof(*stats));
	/*
	 * --time: the one pass skips the EVENTS segments that end before the range, side band
	 * and all (cmd-analyze.c's set_range(): ppf_reader_seek_time(), unless it makes a
	 * state); so do the parts, to know at its start what the one pass knows there.
	 */
	for (size_t i = 0; i < sc.nr; i++)
		if (ana_state_recording(main_s->azs[i]))
			sc.seek_ns = 0;
	/* the kernel symbols the one pass read: one table for every part */
	ana_session_finalize_syms(main_s);
	pp_symtab_ksyms_lend(main_s->syms);
	/*
	 * An analyzer that refuses to make a state with its options (a listing of its own,
	 * multi-trace's trigger, nested-trace's call tree) is left to the one pass.
	 */
	status = open_first_parts(&sc, w, nw);
	if (status) {
		pp_debug(1, "-j: one thread: %s refuses a state with these options (its listings "
			 "are one pass's)", sc.nr == 1 ? main_s->azs[0]->name : "an analyzer");
		sched_release(&sc, w);
		return -1;
	}
	pf = main_s->inl_prefetch ? NULL : ana_inl_prefetch_start(main_s);
	/*
	 * The count engine bins events on one grid for the capture (ana_grid_origin_ns()):
	 * from the --time start a result counts from, or from the capture's first time,
	 * which only the first part would see (the others, and with --time all, start
	 * later).  The one pass's reader is where that time is, unless it went to --time.
	 */
	if (!sc.seek_ns && ana_replay_capture_first(main_s, first, have_first) < 0) {
		pp_err("reading '%s': %s", sc.path, ppf_reader_errmsg(main_s->r));
		status = 1;
	}
	/* the one pass's reader makes way for the parts' (its symbols are theirs) */
	ppf_reader_close(main_s->r);
	main_s->r = NULL;
	ana_inl_prefetch_settle(pf ? pf : main_s->inl_prefetch);
	started = start_workers(&sc, w, nw, &status);
	join_workers(&sc, w, started);
	ana_inl_prefetch_join(pf);
	if (!status)
		status = parts_status(&sc);
	if (!status)
		status = merge_parts(&sc, main_s, stats);
	sched_release(&sc, w);
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

/* $PP_PARTS_PER_JOB (1-64): the parts a thread, for tests; else 0. */
static unsigned parts_per_job_env(void)
{
	const char *e = getenv("PP_PARTS_PER_JOB");
	char *end;
	long n;

	if (!e || !*e)
		return 0;
	n = strtol(e, &end, 10);
	return !*end && n >= 1 && n <= 64 ? (unsigned)n : 0;
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
	/*
	 * With digests a part costs little more than its own segments, so the capture is cut
	 * into several parts a thread, shrinking, and the threads share them out as they go
	 * (struct part_sched); without, a part skims everything before it, and each thread
	 * gets one part, sized so that they end together.
	 */
	unsigned per_job = parts_per_job_env();

	if (!per_job)
		per_job = ana_parts_per_job(segs, nsegs, jobs, has_digests(segs, nsegs));
	size_t want = (size_t)jobs * per_job;
	parts = pp_xcalloc(want, sizeof(*parts));
	if (per_job > 1)
		nparts = ana_parts_split_shared(segs, nsegs, jobs, per_job, s->range_start_ns,
						s->range_end_ns, parts);
	else
		nparts = ana_parts_split(segs, nsegs, jobs, has_digests(segs, nsegs) ? DIGEST_COST
										   : SKIM_COST,
					 s->range_start_ns, s->range_end_ns, parts);
	if (nparts < 2) {
		pp_debug(1, "-j %u: one thread: nowhere to cut '%s' (one segment of events)", jobs,
			 s->path);
		free(segs);
		free(parts);
		return -1;
	}
	status = run(s, first, have_first, jobs, parts, nparts, segs, nsegs, argc, argv, read_flags, stats);
	free(segs);
	if (status >= 0)
		pp_debug(1, "-j %u: '%s' in %zu parts", jobs, s->path, nparts);
	free(parts);
	return status;
}
