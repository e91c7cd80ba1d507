/* SPDX-License-Identifier: MIT */
/*
 * session.h - struct rec_session: everything one pp-record run owns.
 *
 * The life of a session: rec_session_init(), options into s->opts,
 * rec_evsels_add() per -e and rec_plan_apply() per --for, rec_session_open()
 * (targets, writer, perf fds, rings, snapshots, enable), rec_session_run()
 * (poll rounds until a stop condition), rec_session_finish() (drain, stats,
 * close the capture), rec_session_release() (fds, probes, memory) - which is
 * safe after a failure at any step and always removes the probes it made.
 * There is no other mutable global than pp_stop (common/log.h), set by the signal handlers.
 */
#ifndef PP_RECORD_SESSION_H
#define PP_RECORD_SESSION_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/options.h"
#include "common/version.h"
#include "format/format.h"
#include "record/ftrace/tracefs.h"
#include "record/perf/evopen.h"
#include "record/perf/evsel.h"
#include "record/perf/idmap.h"
#include "record/probe/uprobe.h"
#include "record/ring/drain.h"
#include "record/ring/merge.h"
#include "record/ring/ring.h"
#include "record/targets.h"
#include "record/workload.h"

#define REC_PP_VERSION PP_VERSION	/* common/version.h */
#define REC_DEFAULT_OUTPUT "pp.capture"
#define REC_DEFAULT_FREQ 997
#define REC_DEFAULT_PAGES 256		/* 1 MiB per CPU with 4 KiB pages */
#define REC_DEFAULT_PAGES_CALLCHAINS 1024	/* -g on whole CPUs: 4 MiB per CPU */
#define REC_DEFAULT_PAGES_DWARF 2048	/* --call-graph dwarf: 8 KiB a sample, 8 MiB per CPU */
#define REC_PAGES_AUTO (-1)		/* -m not given: one of the two above */
#define REC_DEFAULT_SPILL (512ull << 20)	/* --spill-max (spill.h) */
#define REC_DEFAULT_WATERMARK 50	/* % of the ring before poll wakes us */
#define REC_REORDER_WINDOW_NS 25000000ull	/* 25 ms: a vCPU can stall that long */
#define REC_DEFAULT_MERGE_MAX (3ull << 20)	/* --merge-max: records waiting in the window */
#define REC_RING_SLICE_NS 5000000ull	/* a backlog is taken across the rings 5 ms at a time */
#define REC_RING_SLACK_NS 1000000ull	/* a ring's records are in time order to 1 ms */
#define REC_SYNC_PERIOD_NS 1000000000ull	/* time-sync pairs every second */
/* -o -: segments close this soon, and time-sync pairs this often drive the analyzer's clock */
#define REC_STREAM_SEG_AGE_NS 50000000ull

/* The parsed command line.  Strings are borrowed from argv. */
struct rec_opts {
	struct pp_strlist events;	/* -e */
	struct pp_strlist fors;		/* --for */
	struct pp_strlist counters;	/* --count: counting-mode events (counters.h) */
	uint64_t count_period;		/* --count-period: read them this often (ns) */
	bool count_leader;		/* --count-leader: a cpu-clock sample reads them (hrcount) */
	bool count_no_samples;		/* --count-no-samples: keep the leader's counts, not its samples */
	uint64_t freq;			/* -F, 0 = default */
	uint64_t period;		/* --period, 0 = none */
	bool callgraph;			/* -g */
	uint32_t dwarf_sz;		/* --call-graph dwarf,SIZE: user stack bytes (0: fp) */
	bool user_callchain;		/* default true */
	bool kernel_callchain;		/* default true */
	bool exclude_user, exclude_kernel;
	bool exclude_host, exclude_guest;	/* -G, --exclude-guest (from --for plans) */
	bool all_cpus;			/* -a */
	const char *cpus, *pids, *tids, *cgroups;
	int mmap_pages;
	int watermark;			/* percent */
	const char *output;
	int command_stdout;		/* --command-stdout FD: the command's stdout (-1: default) */
	uint64_t duration_ns;
	int zstd_level;
	int verbose;
	int kallsyms;			/* -1 auto, 0 never, 1 always */
	bool sideband;			/* ksymbol/bpf_event/cgroup/text_poke records */
	bool regs;			/* registers with page-fault samples (page-faults -g) */
	bool no_realtime;		/* the ring reader stays SCHED_OTHER */
	bool no_ftrace;			/* every tracepoint through perf (ftrace.h) */
	bool ftrace_mono;		/* trace_clock mono, not local + clocksync.h */
	bool check;			/* --check: record nothing (record/check/check.h) */
	uint64_t spill_max;		/* tracefs pages wait in a file, this much at most (spill.h); 0 off */
	uint64_t merge_max;		/* records waiting for the reorder window: bytes at most */
	/* production recording (ring/prod.c) and self-monitoring (selfstat.c) */
	uint64_t max_size;		/* --max-size, bytes */
	int rotate;			/* --rotate N files */
	uint64_t flight_size;		/* --flight-recorder, bytes */
	const char *trigger;		/* --trigger EVENT/filter/ */
	uint64_t post_trigger_ns;	/* --post-trigger */
	uint64_t stat_interval_ns;	/* -v: report pp-record's own costs this often */
	const char **argv;		/* the workload, NULL-terminated, or NULL */
	char *cmdline;			/* the pp-record command line, for the capture */
};

struct rec_symbols;
struct rec_insn;
struct rec_task_list;
struct rec_prod;
struct rec_selfstat;
struct rec_ftrace;
struct rec_counters;

struct rec_session {
	struct rec_opts opts;
	char errmsg[1024];		/* the last error, one line */
	char **owned;			/* strings the options borrow (from --for plans) */
	size_t nr_owned;
	size_t nr_counted;		/* counter selectors added by --for plans */
	char **added;			/* selectors added by --for plans */
	size_t nr_added;

	struct rec_tracefs tfs;
	struct rec_ftrace *ftrace;	/* tracepoints from a tracefs instance, or NULL */
	bool cpu_sideband;		/* per-task targets, side band per CPU (perf/evopen.c) */
	bool user_only;			/* perf_event_paranoid 2: kernel excluded (perf/evopen.c) */
	uint32_t compat;		/* what an older kernel refused, dropped (perf/compat.h) */
	struct rec_probes probes;
	bool stale_probes_checked;

	struct rec_evsel *evsels;
	size_t nr_evsels;
	struct rec_target tgt;
	struct rec_workload wl;

	struct rec_counters *ctr;	/* counting-mode fds, NULL when none (counters.h) */
	struct rec_fd *fds;
	size_t nr_fds, cap_fds;
	struct rec_idmap ids;
	struct rec_ring *rings;		/* one per target CPU */
	struct rec_merge merge;		/* one queue per ring, one for our own records */
	struct rec_drain drain;		/* the ring-reading thread */
	bool backlog;			/* the last process() left records in a FIFO */

	struct ppf_writer *w;
	char *out_name;			/* for messages: "'FILE'" or "standard output" */
	bool out_stream;		/* -o -: no index, short segments */
	struct ppf_writer_totals totals;	/* taken just before the writer closes */
	uint64_t file_bytes;		/* bytes written, the file's size for a file */
	int werr;			/* first writer error, sticky */
	bool reader_gone;		/* -o -: the reader closed the stream (EPIPE): not an error */
	struct rec_symbols *syms;
	struct rec_insn *insn;		/* instruction bytes at write-breakpoint IPs, or NULL */
	bool want_kallsyms;
	struct rec_task_list *early_tasks;	/* threads before the enable (symbols/snapshot.c) */

	/* clocks, ns */
	uint64_t start_ns, start_real_ns, end_ns, next_sync_ns, deadline_ns;

	/* the last EXIT record of each ring: the task a sample with pid/tid -1 belongs to */
	struct rec_exiting { uint32_t pid, tid; uint64_t time_ns; } *exiting;

	/* counters */
	uint64_t *lost_cpu;		/* per ring */
	uint64_t nr_lost, nr_lost_records;
	uint64_t nr_lost_counted;
	uint64_t nr_bad_records;	/* samples of unknown events or too short: dropped */
	uint64_t nr_merge_tight;	/* flushes past the window at --merge-max */
	bool *ring_hold;		/* per ring: left for now, ahead of the others (process()) */
	uint64_t *ring_newest;		/* per ring: the latest time of a perf record from its FIFO */	/* the kernel's per-event counters at the end */
	uint64_t nr_sideband, nr_samples, nr_ksyms, nr_tasks, nr_maps;
	bool stop_workload_exit;
	struct rec_prod *prod;		/* production modes, NULL when none (ring/prod.c) */
	struct rec_selfstat *self;	/* -v per-interval costs, NULL when off (selfstat.c) */
	uint64_t dbg_last_end, dbg_max_gap, dbg_max_round;	/* the run ended because the command exited */
};

/** rec_session_init() - an empty session with default options. */
void rec_session_init(struct rec_session *s);

/**
 * rec_session_fail() - set s->errmsg from printf-style arguments
 * Return: @err, for "return rec_session_fail(s, rc, ...)".
 */
int rec_session_fail(struct rec_session *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * rec_session_open() - resolve targets, open the capture and the perf events, snapshot
 *
 * After this the events are enabled (or armed for the workload's exec) and
 * the capture holds all start-time metadata.
 * Return: 0 or a negative code with s->errmsg set.
 */
int rec_session_open(struct rec_session *s);

/**
 * rec_session_try_open() - the open's steps up to the events (pp-record --check)
 *
 * Resolves the targets (a COMMAND is forked and held before its exec), sets
 * up the tracefs instance and opens every perf event, disabled, with its
 * ring: no capture, no reader, nothing enabled.  rec_session_release() then
 * closes it all and removes the instance and the probes.
 * Return: 0 or a negative code with s->errmsg set.
 */
int rec_session_try_open(struct rec_session *s);

/**
 * rec_session_run() - poll, drain, merge and write until a stop condition
 *
 * Stops on pp_stop, --duration, the workload's exit, all -p/-t targets gone,
 * or a write error.
 * Return: 0 or the write error (s->errmsg set).
 */
int rec_session_run(struct rec_session *s);

/**
 * rec_session_finish() - disable, drain everything, write the stats, close the capture
 * Return: 0 or the first write error (s->errmsg set).
 */
int rec_session_finish(struct rec_session *s);

/** rec_session_release() - close fds, remove probes, stop the workload, free memory. */
void rec_session_release(struct rec_session *s);

#endif
