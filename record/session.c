/* SPDX-License-Identifier: MIT */
/*
 * session.c - one recording's life: open, the poll loop, the end, release.
 *
 * Open resolves the targets (targets.c), opens the capture and the perf fds
 * (perf/evopen.c), starts the ring reader, snapshots, then enables.  A round
 * drains every ring into the merge queues, adds a time-sync pair once a
 * second, flushes the merge up to (round start - window) and lets the writer
 * close an old segment.  Probes are removed only after every fd is closed
 * (the kernel refuses while they are in use).
 * Not here: attrs (perf/evsel.c), record decoding (ring/sideband.c), snapshots
 * (symbols/snapshot.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <sched.h>

#include "common/err.h"
#include "common/log.h"
#include "common/sys.h"
#include "record/clock.h"
#include "record/ftrace/ftrace.h"
#include "record/perf/counters.h"
#include "record/perf/insn.h"
#include "record/ring/prod.h"
#include "record/ring/sideband.h"
#include "record/selfstat.h"
#include "record/session.h"
#include "record/summary.h"
#include "record/symbols/snapshot.h"
#include "record/symbols/symbols.h"


static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rec_session_init(struct rec_session *s)
{
	memset(s, 0, sizeof(*s));
	s->opts.user_callchain = true;
	s->opts.kernel_callchain = true;
	s->opts.mmap_pages = REC_PAGES_AUTO;
	s->opts.watermark = REC_DEFAULT_WATERMARK;
	s->opts.kallsyms = -1;
	s->opts.command_stdout = -1;
	s->opts.spill_max = REC_DEFAULT_SPILL;
	s->opts.merge_max = REC_DEFAULT_MERGE_MAX;
	s->wl.go_fd = -1;
	s->wl.err_fd = -1;
}

int rec_session_fail(struct rec_session *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
	return err;
}

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static bool want_kallsyms(const struct rec_session *s)
{
	if (s->opts.kallsyms >= 0)
		return s->opts.kallsyms;
	for (size_t i = 0; i < s->nr_evsels; i++) {
		const struct rec_evsel *e = &s->evsels[i];
		const char *pf;

		if ((e->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    !e->attr.exclude_callchain_kernel)
			return true;
		if ((e->attr.sample_type & PERF_SAMPLE_IP) && !e->attr.exclude_kernel)
			return true;
		/* the kernel prints a symbol for this field: so will the analyzer */
		pf = e->format ? strstr(e->format, "print fmt:") : NULL;
		if (pf && (strstr(pf, "%ps") || strstr(pf, "%pS") || strstr(pf, "%pf") ||
			   strstr(pf, "%pF") || strstr(pf, "%pB")))
			return true;
	}
	return false;
}

static int open_writer(struct rec_session *s)
{
	struct ppf_writer_opts o = { .zstd_level = s->opts.zstd_level };
	const char *out = s->opts.output ? s->opts.output : REC_DEFAULT_OUTPUT;
	int rc;

	if (s->prod && (rc = rec_prod_open(s, s->errmsg, sizeof(s->errmsg))) <= 0)
		return rc;	/* rotation, flight recorder: their own writer */
	if (!strcmp(out, "-")) {
		if (isatty(STDOUT_FILENO))
			return rec_session_fail(s, PP_EUSAGE,
						"refusing to write a capture to a terminal: redirect -o - to a file or a pipe");
		s->out_stream = true;
		s->out_name = pp_xstrdup("standard output");
		o.seg_max_age_ns = REC_STREAM_SEG_AGE_NS;	/* live: reports within 200 ms */
		o.no_index = true;
		rc = ppf_writer_open_fd(STDOUT_FILENO, &o, &s->w);
	} else {
		s->out_name = pp_xasprintf("'%s'", out);
		o.seg_max_age_ns = 1000 * 1000 * 1000ull;
		rc = ppf_writer_open(out, &o, &s->w);
	}
	if (rc)
		return rec_session_fail(s, rc, "cannot write capture %s: %s", s->out_name,
					pp_strerror(rc));
	return 0;
}

static int write_fail(struct rec_session *s, int rc)
{
	if (!s->werr)
		s->werr = rc;
	/* -o -: the reader closed the stream (pp's analyzer stopped, `| head`): the end, no error */
	if (rc == -EPIPE && s->out_stream)
		s->reader_gone = true;
	return rec_session_fail(s, rc, "cannot write capture %s%s: %s", s->out_stream ? "to " : "",
				s->out_name, pp_strerror(rc));
}

/*
 * Per-ring FIFO: 8 rings' worth (a quarter second of a 32 MB/s storm with the
 * default rings), 4 to 64 MiB, 512 MiB over all CPUs at most.  Its pages are
 * populated as it is used (ring/drain.c), so a light recording stays small, and
 * the main thread gets a higher priority while it lags (ring/drain.c's boost_consumer()).
 */
static size_t fifo_size(const struct rec_session *s)
{
	size_t ring = (size_t)s->opts.mmap_pages * (size_t)sysconf(_SC_PAGESIZE), sz = 8 * ring;

	if (sz < (4u << 20))
		sz = 4u << 20;
	if (sz > (64u << 20))
		sz = 64u << 20;
	if (s->tgt.nr_cpus && sz * s->tgt.nr_cpus > (512u << 20))
		sz = (512u << 20) / s->tgt.nr_cpus;
	return sz;
}

static bool spill_wanted(const struct rec_session *s)
{
	return s->ftrace && s->opts.spill_max && !s->out_stream && !s->prod;
}

/*
 * How far ahead of the drain thread its FIFO pages are populated: two rings
 * when perf samples come through the rings; 256 KiB when every event is read
 * from tracefs and its pages go to the spill file, so the rings hold the side
 * band alone and a round puts markers and a few partial pages in the FIFO.
 * (Two 1 MiB rings ahead were 4-6 MiB of the RSS on a syscall storm.)  Should
 * the spill stop (a full disk), pages go into the FIFO and the drain thread
 * faults the rest in: slower, nothing lost.
 */
static size_t fifo_ahead(const struct rec_session *s)
{
	if (!spill_wanted(s))
		return 0;
	for (size_t i = 0; i < s->nr_evsels; i++)
		if (!s->evsels[i].ftrace)
			return 0;
	return 256u << 10;
}

/*
 * Tracefs pages wait in a file next to the capture while the workload runs
 * (ring/spill.h) - not for -o -, where the analyzer waits for them, nor for the
 * flight recorder and rotation, which act on events as they come.
 */
static void set_spill(struct rec_session *s)
{
	const char *out = s->opts.output ? s->opts.output : REC_DEFAULT_OUTPUT;
	const char *slash = strrchr(out, '/');
	char *dir;
	int rc;

	if (!spill_wanted(s))
		return;
	dir = slash ? pp_xstrndup(out, slash == out ? 1 : (size_t)(slash - out)) : pp_xstrdup(".");
	rc = rec_drain_set_spill(&s->drain, dir, s->opts.spill_max);
	if (rc)
		pp_warn("no spill file in %s (%s): tracefs pages are read into memory", dir,
			strerror(-rc));
	else
		pp_debug(1, "tracefs pages spill to a file in %s, %llu MiB at most", dir,
			 (unsigned long long)(s->opts.spill_max >> 20));
	free(dir);
}

/* Probes and tracefs instances left by a pp-record that was killed: only when tracefs is there. */
static void clean_stale(struct rec_session *s)
{
	if (!s->stale_probes_checked && (!access("/sys/kernel/tracing/uprobe_events", F_OK) ||
					 !access("/sys/kernel/tracing/kprobe_events", F_OK)) &&
	    !rec_tracefs_need(&s->tfs, s->errmsg, sizeof(s->errmsg))) {
		int n = rec_probes_clean_stale(&s->tfs);

		if (n > 0)
			pp_info("removed %d probe%s left by a pp-record that no longer runs", n,
				n > 1 ? "s" : "");
		n = rec_ftrace_clean_stale(&s->tfs);
		if (n > 0)
			pp_info("removed %d tracefs instance%s left by a pp-record that no longer runs",
				n, n > 1 ? "s" : "");
		s->stale_probes_checked = true;
	}
}

/* The targets, the events' last touches, what they need, the command forked and held. */
static int resolve(struct rec_session *s)
{
	int rc;

	rc = rec_target_init(s, s->errmsg, sizeof(s->errmsg));
	if (rc)
		return rc;
	rc = rec_counters_prepare(s, s->errmsg, sizeof(s->errmsg));
	if (rc)
		return rc;
	rc = rec_evsels_finish(s);
	if (rc)
		return rc;
	s->want_kallsyms = want_kallsyms(s);
	for (size_t i = 0; i < s->nr_evsels && !s->insn; i++)
		if (rec_insn_wanted(&s->evsels[i]))
			s->insn = rec_insn_new("/proc/kcore");
	if (s->opts.argv) {
		/*
		 * -o -: the capture is our standard output, so the command writes
		 * elsewhere: where --command-stdout says (pp gives its own standard
		 * output, as perf-prof's command writes to the terminal), else stderr.
		 */
		bool stream = s->opts.output && !strcmp(s->opts.output, "-");
		int out_fd = s->opts.command_stdout >= 0 ? s->opts.command_stdout : stream ? 2 : -1;

		rc = rec_workload_prepare(&s->wl, s->opts.argv, out_fd);
		if (rc)
			return rec_session_fail(s, rc, "cannot start '%s': %s", s->opts.argv[0],
						strerror(-rc));
		if (s->tgt.kind == REC_TGT_WORKLOAD)
			rec_target_add_tid(&s->tgt, s->wl.pid);
	}
	return 0;
}

/* The ring-reading thread: the perf rings, the tracefs pages and their spill file. */
static int start_reader(struct rec_session *s)
{
	int rc;

	rc = rec_drain_init(&s->drain, s->rings, s->tgt.nr_cpus, fifo_size(s), fifo_ahead(s),
			    s->out_stream ? 25 : 100);
	s->drain.realtime = !s->opts.no_realtime;
	if (!rc)
		rec_drain_set_tp(&s->drain, rec_ftrace_fds(s), rec_ftrace_page_size(s),
				 rec_ftrace_buffer_size(s));
	s->drain.tp_off = rec_ftrace_drain_offset(s);
	s->drain.boost_tid = (pid_t)syscall(SYS_gettid);
	s->drain.urgent = &pp_stop;
	if (!rc)
		set_spill(s);
	if (!rc)
		rc = rec_drain_start(&s->drain);
	if (rc)
		return rec_session_fail(s, rc, "cannot start the ring reader: %s", strerror(-rc));
	return 0;
}

/* The META segment's start: host, event descriptions, the first time sync. */
static int write_meta(struct rec_session *s)
{
	struct ppf_time_sync ts;
	int rc;

	ts.time_ns = s->start_ns;
	ts.realtime_ns = s->start_real_ns;
	rc = ppf_writer_begin(s->w, PPF_SEG_META);
	if (!rc)
		rc = rec_snapshot_host(s);
	if (!rc)
		rc = rec_evsels_write_descs(s->evsels, s->nr_evsels, s->w);
	if (!rc)
		rc = ppf_write_time_sync(s->w, &ts);
	if (rc)
		return write_fail(s, rc);
	return 0;
}

/* PERF_EVENT_IOC_ENABLE on fd @i.  Return: 0 or -errno (s->errmsg set). */
static int enable_fd(struct rec_session *s, size_t i)
{
	if (!pp_sys_ioctl(s->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0))
		return 0;
	return rec_session_fail(s, -errno, "cannot enable events: %s", strerror(errno));
}

/* The events on, unless the command's exec does it (enable_on_exec). */
static int enable_events(struct rec_session *s)
{
	int rc;

	if (s->tgt.kind != REC_TGT_WORKLOAD) {
		/*
		 * The side band before the first reading of /proc, the events after
		 * it: a task forked in between has its FORK (and COMM) records, one
		 * forked before is in the reading.  Enabled together, a task forked
		 * between the reading and the enable and gone before the second
		 * reading had neither (t125, about once in 20 runs under ASan).
		 */
		for (int pass = 0; pass < 2; pass++) {
			for (size_t i = 0; i < s->nr_fds; i++) {
				if ((s->fds[i].evsel < 0) != (pass == 0))
					continue;
				rc = enable_fd(s, i);
				if (rc)
					return rc;
			}
			if (pass == 0)
				rec_snapshot_early_tasks(s);
		}
		rec_ftrace_enable(s, true);
	} else if (s->cpu_sideband) {
		for (size_t i = 0; i < s->nr_fds; i++) {	/* no enable_on_exec on CPU-wide events */
			rc = enable_fd(s, i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The symbol table, the merge queues, the start time, the perf fds and their rings. */
static int open_events(struct rec_session *s)
{
	int rc;

	s->syms = rec_symbols_new();
	/* --call-graph dwarf: the binaries' unwind tables */
	if (s->opts.dwarf_sz)
		rec_symbols_set_unwind(s->syms, true);
	/* a queue per ring, one for our own records, a queue per CPU of tracefs events */
	rec_merge_init(&s->merge, s->tgt.nr_cpus + 1 + (s->ftrace ? s->tgt.nr_cpus : 0));
	rec_merge_bound(&s->merge, s->opts.merge_max);
	s->ring_hold = pp_xcalloc(s->tgt.nr_cpus + 1, sizeof(*s->ring_hold));
	s->ring_newest = pp_xcalloc(s->tgt.nr_cpus + 1, sizeof(*s->ring_newest));

	s->start_ns = rec_now_ns();
	s->start_real_ns = real_ns();
	rc = rec_events_open(s, s->errmsg, sizeof(s->errmsg));
	if (!rc)
		rc = rec_counters_open(s, s->errmsg, sizeof(s->errmsg));
	return rc;
}

/* The counters on, then what the machine holds at the start: tasks, syscalls, kallsyms. */
static int snapshot(struct rec_session *s)
{
	int rc;

	rec_counters_enable(s, true);
	rc = rec_snapshot_tasks(s);
	if (!rc)
		rc = rec_snapshot_syscalls(s);
	if (!rc && s->want_kallsyms)
		rc = rec_snapshot_kallsyms(s);
	if (!rc)
		rc = ppf_writer_flush(s->w);
	if (rc)
		return write_fail(s, rc);
	return 0;
}

/* The periodic clocks armed, the command let go (its exec enables its events). */
static int start_workload(struct rec_session *s)
{
	int rc;

	s->next_sync_ns = s->start_ns + REC_SYNC_PERIOD_NS;
	if (s->opts.duration_ns)
		s->deadline_ns = rec_now_ns() + s->opts.duration_ns;
	rec_drain_idle_from(&s->drain, s->deadline_ns);
	if (s->wl.pid) {
		if (s->tgt.kind == REC_TGT_WORKLOAD)
			rec_ftrace_enable(s, true);	/* events before its exec are dropped */
		rc = rec_workload_start(&s->wl);
		if (rc)
			return rec_session_fail(s, rc, "cannot run '%s': %s", s->opts.argv[0],
						strerror(-rc));
	}
	return 0;
}

int rec_session_open(struct rec_session *s)
{
	/* in this order: the reading starts before the events do, the snapshots take a while */
	static int (*const step[])(struct rec_session *s) = {
		resolve, rec_ftrace_setup, open_writer, open_events, start_reader, write_meta,
		enable_events, snapshot, start_workload,
	};
	int rc = 0;

	raise_nofile();
	clean_stale(s);
	for (size_t i = 0; !rc && i < sizeof(step) / sizeof(step[0]); i++)
		rc = step[i](s);
	return rc;
}

int rec_session_try_open(struct rec_session *s)
{
	static int (*const step[])(struct rec_session *s) = {
		resolve, rec_ftrace_setup, open_events,
	};
	int rc = 0;

	raise_nofile();
	for (size_t i = 0; !rc && i < sizeof(step) / sizeof(step[0]); i++)
		rc = step[i](s);
	return rc;
}

/* --- the loop ----------------------------------------------------------- */

struct drain_ctx {
	struct rec_session *s;
	size_t qi;			/* the merge queue: the ring's index */
	int cpu;
};

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct drain_ctx *c = arg;
	struct rec_session *s = c->s;
	uint64_t t;

	if (h->type == PERF_RECORD_SAMPLE) {
		uint64_t kid;
		int ix;

		if (h->size < sizeof(*h) + 8) {
			s->nr_bad_records++;
			return;
		}
		memcpy(&kid, h + 1, 8);
		ix = rec_idmap_get(&s->ids, kid);
		if (ix < 0 || h->size < s->evsels[ix].time_off + 8) {
			s->nr_bad_records++;
			return;
		}
		memcpy(&t, (const uint8_t *)h + s->evsels[ix].time_off, 8);
		rec_merge_push(&s->merge, c->qi, t, ix, c->cpu, h);
		if (t > s->ring_newest[c->qi])
			s->ring_newest[c->qi] = t;
		return;
	}
	if (!rec_record_time(h, &t)) {
		t = s->merge.last_ns;
	} else if (t > s->ring_newest[c->qi]) {
		s->ring_newest[c->qi] = t;
	}
	rec_merge_push(&s->merge, c->qi, t, -1, c->cpu, h);
}

static void on_drained(size_t ring, const struct perf_event_header *h, void *arg)
{
	struct rec_session *s = arg;
	struct drain_ctx dc = { s, ring, s->tgt.cpus[ring] };

	if (h->type == REC_SYNTH_FTRACE_PAGE) {
		rec_ftrace_page(s, ring, (const uint8_t *)(h + 1), h->size - sizeof(*h));
		return;
	}
	on_record(h, &dc);
}

/*
 * How far in time ring @i's records have been taken: its last round mark, or the
 * newest record taken from its FIFO less REC_RING_SLACK_NS (not the newest in its
 * merge queue: counter readings go there stamped with the time they were read).
 * What is still in its FIFO is later.  A round copies the perf ring, then the tracefs pages of its CPU, so
 * with tracefs the newest tracefs event counts: the perf records after it in the
 * FIFO were written after the round before read the perf ring, which it read
 * just before those pages (the slack covers that instant), while a perf record
 * is followed by the pages of the whole round.
 */
static uint64_t ring_progress(const struct rec_session *s, size_t i)
{
	uint64_t t = s->ftrace ? s->merge.q[s->tgt.nr_cpus + 1 + i].newest : s->ring_newest[i];

	t = t > REC_RING_SLACK_NS ? t - REC_RING_SLACK_NS : 0;
	return t > s->drain.fifos[i].round_seen ? t : s->drain.fifos[i].round_seen;
}

/*
 * Which rings to take records from now, and how much of each: a backlog is
 * taken in time order across the rings, not in equal bytes (a ring whose records
 * are denser would fall further behind each time, and the merge hold every
 * other ring's records until it caught up), so a ring more than
 * REC_RING_SLICE_NS ahead of the furthest-behind one waits - and with the merge
 * at --merge-max, every ring but that one: what it gives is older than what the
 * others gave, so the flush can take it and more out.  The bytes are what the
 * merge has room for, shared by the rings (a tracefs page's records take about
 * twice its bytes in the merge), between 16 KiB and 1 MiB.
 */
static size_t consume_plan(struct rec_session *s)
{
	size_t used = rec_merge_bytes(&s->merge), n = s->drain.nr_rings ? s->drain.nr_rings : 1, b;
	uint64_t least = UINT64_MAX, slice = used >= s->opts.merge_max ? 0 : REC_RING_SLICE_NS;
	size_t behind = SIZE_MAX;

	for (size_t i = 0; i < s->drain.nr_rings; i++) {
		s->ring_hold[i] = false;
		if (rec_drain_left(&s->drain, i) && ring_progress(s, i) < least) {
			least = ring_progress(s, i);
			behind = i;
		}
	}
	for (size_t i = 0; least != UINT64_MAX && i < s->drain.nr_rings; i++)
		s->ring_hold[i] = rec_drain_left(&s->drain, i) && i != behind &&
				  ring_progress(s, i) >= least + slice;
	if (used >= s->opts.merge_max)
		return 16u << 10;
	b = (size_t)(s->opts.merge_max - used) / (2 * n);
	return b < (16u << 10) ? 16u << 10 : b > (1u << 20) ? 1u << 20 : b;
}

/*
 * Take what the drain thread copied, add a time-sync pair when one is due,
 * and write everything older than (the time every ring has been taken up to -
 * the reorder window).
 */
static int process(struct rec_session *s, int timeout_ms, bool final)
{
	uint64_t round_ns, now, upto, horizon;
	size_t budget = s->drain.nr_rings ? consume_plan(s) : 1u << 20;
	int rc;

	rec_drain_consume(&s->drain, timeout_ms, budget, s->ring_hold, on_drained, s, &round_ns,
			  &s->backlog);
	upto = round_ns;
	for (size_t i = 0; i < s->drain.nr_rings; i++)
		if (rec_drain_left(&s->drain, i) && ring_progress(s, i) < upto)
			upto = ring_progress(s, i);
	now = rec_now_ns();
	if (now >= s->next_sync_ns) {
		struct {
			struct perf_event_header h;
			struct rec_synth_sync b;
		} sy = { { REC_SYNTH_TIME_SYNC, 0, sizeof(sy) }, { now, real_ns() } };

		/* the realtime read comes after the monotonic one: good to ~100 ns */
		rec_merge_push(&s->merge, s->tgt.nr_cpus, now, -1, -1, &sy.h);
		s->next_sync_ns = now + (s->out_stream ? REC_STREAM_SEG_AGE_NS : REC_SYNC_PERIOD_NS);
	}
	if (final)
		horizon = UINT64_MAX;
	else if (upto > REC_REORDER_WINDOW_NS)
		horizon = upto - REC_REORDER_WINDOW_NS;
	else
		horizon = 0;
	rc = rec_merge_flush(&s->merge, horizon, rec_emit, s);
	/*
	 * Over --merge-max, the window gives way: what is older than the time every
	 * ring has been taken up to goes now.  Only a record still being written
	 * into a ring when its round read it (a stalled vCPU) can come late then,
	 * and the summary counts it.
	 */
	if (!rc && !final && rec_merge_bytes(&s->merge) > s->opts.merge_max && upto > horizon) {
		s->nr_merge_tight++;
		rc = rec_merge_flush(&s->merge, upto, rec_emit, s);
	}
	if (!rc && !final)
		rc = ppf_writer_tick(s->w);
	if (rc)
		return write_fail(s, rc);
	return 0;
}

int rec_session_run(struct rec_session *s)
{
	int base_ms = s->out_stream ? 25 : 100, rc;

	while (!pp_stop) {
		uint64_t now = rec_now_ns();
		int timeout = base_ms;

		if (s->deadline_ns) {
			if (now >= s->deadline_ns)
				break;
			if (s->deadline_ns - now < (uint64_t)timeout * 1000000ull)
				timeout = (int)((s->deadline_ns - now) / 1000000ull) + 1;
		}
		int due = rec_counters_tick(s, now);

		if (due >= 0 && due < timeout)
			timeout = due;
		rc = process(s, s->backlog ? 0 : timeout, false);
		if (rc)
			return rc;
		rec_ftrace_tick(s, rec_now_ns());
		if (s->self)
			rec_selfstat_tick(s, rec_now_ns());
		if (s->prod && (rc = rec_prod_poll(s, rec_now_ns(), s->errmsg, sizeof(s->errmsg))))
			return rc < 0 ? rc : 0;	/* > 0: a size limit or the trigger ends it */
		if (s->wl.pid && rec_workload_reap(&s->wl)) {
			s->stop_workload_exit = true;
			break;
		}
		if (s->tgt.kind == REC_TGT_THREADS && !rec_target_alive(s))
			break;
	}
	return 0;
}

/*
 * Samples the kernel dropped for want of ring space are announced by a
 * PERF_RECORD_LOST written once there is room again - so drops at the very
 * end may never be announced.  The per-event lost counter (PERF_FORMAT_LOST,
 * Linux 6.0+) is exact: whatever it counts beyond the LOST records becomes
 * one LOST record per CPU at the end.
 */
static void unannounced_losses(struct rec_session *s)
{
	uint64_t *per_cpu = pp_xcalloc(s->tgt.nr_cpus, sizeof(*per_cpu)), total = 0;

	for (size_t i = 0; i < s->nr_fds; i++) {
		const struct rec_fd *f = &s->fds[i];
		uint64_t v[2];

		if (f->evsel < 0 || !(s->evsels[f->evsel].attr.read_format & PERF_FORMAT_LOST))
			continue;
		if (read(f->fd, v, sizeof(v)) == (ssize_t)sizeof(v)) {
			per_cpu[f->cpu_idx] += v[1];
			total += v[1];
		}
	}
	s->nr_lost_counted = total;
	for (size_t i = 0; i < s->tgt.nr_cpus; i++) {
		uint64_t seen = s->lost_cpu[i] - rec_ftrace_lost_on(s, i);	/* perf's own */

		if (per_cpu[i] <= seen)
			continue;
		struct {
			struct perf_event_header h;
			uint64_t id, lost;
			uint64_t sid[3];	/* tid, time, identifier: the trailer */
		} r = { { PERF_RECORD_LOST, 0, sizeof(r) }, 0, per_cpu[i] - seen,
			{ 0, s->end_ns, 0 } };

		rec_merge_push(&s->merge, i, s->end_ns, -1, s->tgt.cpus[i], &r.h);
	}
	free(per_cpu);
}

int rec_session_finish(struct rec_session *s)
{
	struct stat st;
	int rc = 0, rc2;

	for (size_t i = 0; i < s->nr_fds; i++)
		ioctl(s->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	rec_counters_enable(s, false);
	rec_ftrace_enable(s, false);
	s->end_ns = rec_now_ns();
	rec_counters_final(s, s->end_ns);
	rec_drain_stop(&s->drain);
	if (!s->w)
		return 0;
	if (!s->werr && s->rings && s->drain.pfds) {
		/* what the thread copied, then what is left in the rings */
		rc = process(s, 0, false);
		if (!rc && s->ftrace) {
			/* tracefs pages written since the thread's last round */
			rec_drain_round(&s->drain, rec_now_ns());
			rc = process(s, 0, false);
		}
		for (int i = 0; !rc && i < 100000 && (s->backlog || rec_drain_pending(&s->drain));
		     i++) {
			if (!s->backlog)
				rec_drain_round(&s->drain, rec_now_ns());
			rc = process(s, 0, false);
		}
		if (!rc) {
			rc = process(s, 0, false);
			unannounced_losses(s);
			rec_ftrace_losses(s);
			rc = process(s, 0, true);
		}
	}
	if (!rc && !s->werr) {
		rc = rec_summary_write_stats(s);
		if (rc)
			rc = write_fail(s, rc);
	}
	ppf_writer_totals(s->w, &s->totals);
	rc2 = ppf_writer_close(s->w);
	s->w = NULL;
	if (rc2 && !rc)
		rc = write_fail(s, rc2);
	if (!s->out_stream && stat(s->opts.output ? s->opts.output : REC_DEFAULT_OUTPUT, &st) == 0)
		s->file_bytes = (uint64_t)st.st_size;
	else
		s->file_bytes = s->totals.comp_bytes + PPF_FILE_HDR_SZ;
	if (s->prod && (rc2 = rec_prod_finish(s, s->errmsg, sizeof(s->errmsg))) && !rc)
		rc = rc2;	/* the flight recorder's last dump; every file's bytes */
	return rc;
}

void rec_session_release(struct rec_session *s)
{
	rec_counters_release(s);
	rec_events_close(s);
	rec_snapshot_free(s);
	if (s->probes.nr) {
		size_t nr = s->probes.nr;
		int failed = rec_probes_remove(&s->tfs, &s->probes);

		if (failed)
			pp_warn("could not remove %d of %zu probes; the next pp-record start removes them",
				failed, nr);
	}
	rec_workload_stop(&s->wl);
	if (s->w) {
		/* an error path: keep what was written readable */
		int rc = ppf_writer_close(s->w);

		(void)rc;
		s->w = NULL;
	}
	for (size_t i = 0; i < s->nr_evsels; i++)
		rec_evsel_release(&s->evsels[i]);
	free(s->evsels);
	rec_symbols_free(s->syms);
	rec_insn_free(s->insn);
	s->insn = NULL;
	rec_merge_release(&s->merge);
	free(s->ring_hold);
	free(s->ring_newest);
	rec_drain_stop(&s->drain);
	rec_ftrace_release(s);		/* after the thread that reads its files */
	rec_drain_release(&s->drain);
	free(s->rings);
	free(s->lost_cpu);
	free(s->exiting);
	rec_idmap_release(&s->ids);
	rec_target_release(&s->tgt);
	free(s->out_name);
	for (size_t i = 0; i < s->nr_owned; i++)
		free(s->owned[i]);
	free(s->owned);
	for (size_t i = 0; i < s->nr_added; i++)
		free(s->added[i]);
	free(s->added);
	free(s->opts.cmdline);
	pp_strlist_release(&s->opts.events);
	pp_strlist_release(&s->opts.fors);
	pp_strlist_release(&s->opts.counters);
	rec_tracefs_release(&s->tfs);
}
