/* SPDX-License-Identifier: MIT */
/*
 * plan.h - the bridge between an analyzer and the recorder.
 *
 * Each analyzer has a plan part, analyzers/<name>-plan.c, that pp-record
 * links: its option table (the same one pp-analyze parses), the options
 * every analyzer shares, and a function that turns parsed options into
 * what must be recorded (events with filters, stacks, sampling).  It uses
 * common/ only: no libtraceevent, SQLite or Python.  `pp-record --for
 * 'task-state -p 123'` and live mode (`pp task-state -p 123`) both go
 * through pp_plan_build().
 */
#ifndef PP_COMMON_PLAN_H
#define PP_COMMON_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/options.h"

/* The options every analyzer takes; parsed for each analyzer instance. */
struct pp_common_opts {
	struct pp_strlist events;	/* -e, one entry per -e (a position) */
	uint64_t interval_ns;		/* -i (given in ms) */
	const char *time_range;		/* --time START,END */
	const char *cpus, *pids, *tids;	/* -C -p -t */
	bool inherit;			/* --inherit: -p/-t also take the tasks they fork (the analysis) */
	bool perins;
	uint64_t than_ns, only_than_ns, lower_ns;
	bool callchain;			/* -g */
	uint32_t call_graph;		/* --call-graph: 0, PP_CALLGRAPH_FP, else dwarf's size */
	bool order;			/* accepted, no-op */
	const char *format;		/* text|json|csv */
	const char *output;		/* -o */
	const char *state_out;		/* --state-out FILE: a mergeable state instead of the report */
	int verbose;
	bool quiet;			/* -q: perf-prof's quiet, accepted: pp's output is the same */
	const char *key;		/* -k */
	const char *filter;		/* --filter (analyzer-specific meaning) */
	const char *detail;		/* --detail[=...] */
	const char *flame_graph;	/* --flame-graph FILE */
	const char *heatmap;		/* --heatmap FILE */
	uint64_t exit_n;		/* -N */
	uint64_t freq;			/* -F (record side) */
	uint64_t period_ns;		/* --period (record side) */
	bool exclude_user, exclude_kernel;
	bool user_callchain, kernel_callchain;	/* default on; --no-... clear them */
	const char *cgroups;		/* --cgroups */
	int mmap_pages;			/* -m */
	int watermark;			/* --watermark PCT (record side; 0: pp-record's default) */
	bool exclude_host, exclude_guest;	/* -G/--exclude-host, --exclude-guest (PMU bits) */
	/*
	 * perf-prof's clock options (docs/analyzers.md "perf-prof options"):
	 * pp's event clock is CLOCK_MONOTONIC, which perf-prof cannot convert
	 * to TSC or kvmclock either; --clock-offset shifts the printed clock.
	 */
	bool tsc, monotonic;		/* --tsc, --monotonic */
	const char *kvmclock;		/* --kvmclock UUID */
	uint64_t clock_offset;		/* --clock-offset N (ns) */
	int usage_self;			/* --usage-self MS: accepted, see the notes */
	int sampling_limit;		/* --sampling-limit N: with --perfeval-*, a stop */
	const char *perfeval_cpus, *perfeval_pids;	/* --perfeval-cpus/-pids (analyze/perfeval.c) */
	int exclude_pid;		/* --exclude_pid: perf-prof's eBPF filter, applied by the replay */
};

/*
 * Option tables of analyzers are relative: each value is the offset of the
 * field in the analyzer's options struct (PP_AZOPT), and the parser points
 * it at an instance's storage (pp_opts_rebase).  pp_common_options is
 * relative to struct pp_common_opts the same way.
 */
#define PP_AZOPT(type, field) ((void *)offsetof(type, field))
extern const struct pp_option pp_common_options[];

/** pp_opts_rebase() - a copy of relative table @rel pointed at @base, with @extra spare entries. */
struct pp_option *pp_opts_rebase(const struct pp_option *rel, void *base, size_t extra);

/*
 * A perf-prof option that pp refuses: parsing it fails with "--NAME: WHY",
 * where WHY (the option's help, hidden from the help text) says what pp
 * offers instead.  _FLAG for an option without a value, _ARG with one.
 */
#define PP_OPT_REFUSED_FLAG(l, why)                                                        \
	{ .type = PP_OPT_T_CALLBACK, .long_name = (l), .argh = "", .help = (why),          \
	  .flags = PP_OPT_HIDDEN | PP_OPT_NONEG | PP_OPT_OPTARG, .defarg = "",             \
	  .cb = pp_opt_refuse }
#define PP_OPT_REFUSED_ARG(s, l, a, why)                                                   \
	{ .type = PP_OPT_T_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a),     \
	  .help = (why), .flags = PP_OPT_HIDDEN | PP_OPT_NONEG, .cb = pp_opt_refuse }
/** pp_opt_refuse() - the callback of PP_OPT_REFUSED_*: Return: PP_EUSAGE, "--NAME: WHY" in @err. */
int pp_opt_refuse(const struct pp_option *opt, const char *arg, bool unset, char *err,
		  size_t errsz);

/* Which program reads an option that means nothing to pp: it says so, once. */
enum pp_note_side {
	PP_NOTE_RECORD,		/* pp-record (--for, and pp's recording half) */
	PP_NOTE_ANALYZE,	/* pp-analyze (and pp's analysing half) */
};

/**
 * pp_common_opts_note() - with -v, one line on stderr (pp_info()) for each perf-prof
 * option given that pp accepts but that changes nothing here, saying why
 * @name: the analyzer (message prefix)
 * @c: its parsed common options
 * @side: the record-side options are noted by pp-record, the display ones by
 *        pp-analyze, so that `pp` says each once
 *
 * Without -v nothing is printed: perf-prof's test harness fails on any stderr line.
 */
void pp_common_opts_note(const char *name, const struct pp_common_opts *c, enum pp_note_side side);

/* What pp-record must open for one analyzer invocation. */
struct pp_plan {
	char **events;			/* full selectors: "sched:sched_switch/prev_pid==1/stack/" */
	size_t nr_events;
	/*
	 * Counting-mode events (pp-record --count), read every count_period ns
	 * (0: 1 s); a leading '?' leaves out an event this kernel lacks.  With
	 * count_leader a cpu-clock sample per CPU reads them (hrcount's way).
	 */
	char **counters;
	size_t nr_counters;
	uint64_t count_period;
	bool count_leader;
	bool count_no_samples;		/* the leader's samples are not kept, only their counts (hrcount) */
	bool callchain;			/* -g for every event */
	uint32_t dwarf_sz;		/* --call-graph dwarf: user stack bytes a sample (0: fp) */
	bool user_callchain, kernel_callchain;
	bool exclude_user, exclude_kernel;
	uint64_t freq;			/* sampling frequency for clock events (0: default 997) */
	uint64_t period;		/* sampling period, overrides freq */
	bool sideband;			/* ksymbol/bpf_event/cgroup/text_poke records */
	bool all_cpus;			/* every CPU, a COMMAND's run too (unless -C -p -t --cgroups) */
	/*
	 * With all_cpus: what a recording of the followed tasks alone would miss (static text,
	 * "switches into the followed tasks"): `pp-analyze FILE check` and the analyzer's
	 * warning name it when the capture followed tasks.  NULL: a generic line.
	 */
	const char *all_cpus_why;
	bool regs;			/* user registers with samples */
	int mmap_pages;			/* suggested ring size (0: default) */
	int watermark;			/* --watermark: wake-up % of a ring (0: default) */
	bool exclude_host, exclude_guest;	/* -G, --exclude-guest */
	char *cpus, *pids, *tids, *cgroups;	/* targets from -C -p -t --cgroups */
};

struct pp_plan_args {
	const void *opts;		/* the analyzer's own options, parsed */
	const struct pp_common_opts *common;
	int argc;			/* positional arguments left over */
	const char **argv;
};

/*
 * The plan part of one analyzer.  Its name is not here: analyzers/analyzers.def
 * gives it once, beside the plan (see PP_PLAN_REF()).
 */
struct pp_plan_ops {
	const struct pp_option *options;/* its own options (relative), or NULL */
	size_t opts_size;
	/* Fill @p; NULL means "record the -e events as given". Return 0 or a code, with a message in @err. */
	int (*plan)(struct pp_plan *p, const struct pp_plan_args *a, char *err, size_t errsz);
	/* The option that gives each event position, NULL-terminated (kmemleak: "alloc",
	 * "free"); NULL: -e.  For the command templates of `ANALYZER -e ... help`. */
	const char *const *sel_opts;
};

/*
 * An analyzer without options of its own that records its -e events as given
 * ("none" in the plan column of analyzers/analyzers.def): no -plan.c file.
 */
extern const struct pp_plan_ops pp_plan_none;

/*
 * Expanding analyzers/analyzers.def, PP_ANALYZER(c_name, "name", PLAN, CAPS):
 * PLAN is `own` (analyzers/<name>-plan.c defines azp_<c_name>_plan) or
 * `none` (pp_plan_none).  PP_PLAN_DECL() declares what PP_PLAN_REF() points at.
 */
#define PP_PLAN_DECL(plan, n) PP_PLAN_DECL_##plan(n)
#define PP_PLAN_DECL_own(n) extern const struct pp_plan_ops azp_##n##_plan;
#define PP_PLAN_DECL_none(n)
#define PP_PLAN_REF(plan, n) PP_PLAN_REF_##plan(n)
#define PP_PLAN_REF_own(n) (&azp_##n##_plan)
#define PP_PLAN_REF_none(n) (&pp_plan_none)

/*
 * What an analyzer's results can become (the CAPS column of analyzers.def):
 * an aggregate whose state merges (its state hooks), or a stream in time
 * order, which --state-out refuses without state hooks and the progress line
 * keeps off its terminal; the registry checks the combinations.
 */
enum pp_az_caps {
	PP_AZC_MERGE = 1 << 0,	/* an aggregate: its state can be merged with another's */
	PP_AZC_STREAM = 1 << 1,	/* its output is a sequence in time order: one stream only */
};

/** pp_plan_add_event() - append a selector (copied). */
void pp_plan_add_event(struct pp_plan *p, const char *selector);
/** pp_plan_add_eventf() - append a printf-formatted selector. */
void pp_plan_add_eventf(struct pp_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** pp_plan_add_counter() - append a counting-mode selector (copied). */
void pp_plan_add_counter(struct pp_plan *p, const char *selector);
/**
 * pp_plan_count_events() - the plan of a counting analyzer (hrcount, stat): every -e
 * event counted, read every --period (default -i, else 1 s)
 * @leader: by a cpu-clock sample per CPU (hrcount's way; CPUs only), else by pp-record's timer
 * Return: 0, or PP_EUSAGE with a message naming @name in @err.
 */
int pp_plan_count_events(struct pp_plan *p, const char *name, const struct pp_common_opts *c,
			 bool leader, char *err, size_t errsz);
/* The options of a counting analyzer (hrcount, stat): pp_count_options fills them. */
struct pp_count_opts {
	bool packed;			/* perf-prof's packed layout off a terminal too */
};
extern const struct pp_option pp_count_options[];
/**
 * pp_plan_cpu_counters() - the plan of a hardware-counter table (hwstat, llcstat,
 * tlbstat): @counters (NULL-terminated) counted on every CPU, read every -i (else 1 s)
 * @what: what it counts, for the message that refuses -e
 * Return: 0, or PP_EUSAGE with a message naming @name in @err (-p/-t or -e given).
 */
int pp_plan_cpu_counters(struct pp_plan *p, const char *name, const char *what,
			 const char *const *counters, const struct pp_common_opts *c, char *err,
			 size_t errsz);
/**
 * pp_plan_fill() - the plan of options already parsed: pp_plan_build() after its parse
 * (pp-analyze's check compares an instance's plan with its capture)
 * @ops: its plan part
 * @a: its own options, the common ones and the positional arguments
 * @p: receives the plan (zeroed by the caller); without -e an analyzer that takes the
 *     capture's events as they are (list, trace) has none
 * Return: 0, or a negative code with a one-line message in @err.
 */
int pp_plan_fill(const struct pp_plan_ops *ops, const struct pp_plan_args *a, struct pp_plan *p,
		 char *err, size_t errsz);
/** pp_plan_release() - free what the plan owns. */
void pp_plan_release(struct pp_plan *p);

/**
 * pp_plan_build() - parse "ANALYZER ARGS..." with its plan's options and build its plan
 * @name: the analyzer's name (for messages)
 * @ops: the analyzer's plan part
 * @argc, @argv: the arguments after the analyzer's name
 * @p: receives the plan (zeroed by the caller)
 * @err: a one-line message on failure
 *
 * Without a plan function the -e events are recorded as given, with -g if given.
 * Return: 0, PP_OPT_HELP, or a negative code.
 */
int pp_plan_build(const char *name, const struct pp_plan_ops *ops, int argc, const char **argv,
		  struct pp_plan *p, char *err, size_t errsz);

#endif
