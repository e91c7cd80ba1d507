/* SPDX-License-Identifier: MIT */
/*
 * latency/latency.h - the two-event latency engine: multi-trace and the analyzers built on it.
 *
 * A core service of pp-analyze for analyzers, like the expression helpers
 * in analyzer.h; analyzers/multi-trace.c, rundelay.c, syscalls.c,
 * nested-trace.c and kmemprof.c are thin layers over it (perf-prof's
 * two-event.c + multi-trace.c, PERF-PROF-REFERENCE.md section 4.1).
 *
 * The model: each -e is a position; every traced event of position k pairs
 * with every traced event of position k+1 (and last -> first with --cycle).
 * An event has a key (key=EXPR, else -k EXPR, else its instance: the CPU,
 * or the thread with -p/-t).  An event that may start a pair is backed up
 * under its key (one per key: a newer one replaces it); an event that may
 * end a pair looks its key up, and the two make a pair handed to the
 * implementation (--impl): delay (latency table, --than/--detail), pair
 * (paired/unpaired counts), kmemprof (bytes per stack), syscalls (per
 * syscall id), call and call-delay (nested-trace's call tree).
 *
 * Memory: without --detail only the backups are kept, a copy each, so the
 * state is bounded by the number of live keys.  With --detail every event
 * goes on a timeline that is trimmed from its head as soon as no backup
 * (and no -N window) needs it.  The hot path allocates nothing once the
 * node pool has grown to the working set.
 *
 * Usage from an analyzer's init: ana_te_new(), optionally adjust keys and
 * filters per event (ana_te_tp_*), then ana_te_start(); from ->event()
 * ana_te_feed(), from ->lost() ana_te_lost(), from ->interval()
 * ana_te_tick(), from ->finish() ana_te_finish(), from ->release()
 * ana_te_free().
 */
#ifndef PP_ANALYZE_LATENCY_H
#define PP_ANALYZE_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/analyzer.h"

enum ana_te_impl {
	ANA_TE_DELAY,
	ANA_TE_PAIR,
	ANA_TE_KMEMPROF,
	ANA_TE_SYSCALLS,
	ANA_TE_CALL,
	ANA_TE_CALL_DELAY,
};

/* How an analyzer sets the engine up. */
struct ana_te_config {
	enum ana_te_impl impl;		/* the default; --impl (az->opts) may override it */
	const char *impl_name;		/* --impl as given, or NULL */
	bool nested;			/* nested-trace: "-e f,f_ret" entry/exit pairs */
	bool cycle;			/* --cycle */
	bool pid_key;			/* keys are thread ids (rundelay, syscalls): comm */
	bool rundelay;			/* rundelay's cpu tracking in --detail */
	bool cpu_mode;			/* instances are CPUs even with -p/-t (rundelay) */
	unsigned nr_positions;		/* the -e positions the engine owns; 0: all */
};

struct ana_te;

/**
 * ana_te_new() - build an engine over @az's matched selectors
 * @az: the analyzer instance (its -e matches, common options and output)
 * @cfg: the setup
 * @out: the engine
 *
 * Parses --detail, --impl, --than/--only-than/--lower, reads each event's
 * attributes (key, printkey, role, untraced, trigger, alias, stack, size).
 * Nothing is compiled yet.  Errors are printed.  Sets @az->engine to the engine.
 * Return: 0 or a negative code; free with ana_te_free().
 */
int ana_te_new(struct pp_az *az, const struct ana_te_config *cfg, struct ana_te **out);

/** ana_te_nr_tps() - the number of the engine's events (one per selector match it owns). */
unsigned ana_te_nr_tps(const struct ana_te *te);
/** ana_te_tp_sel() - the match of event @i. Borrowed. */
const struct ana_sel *ana_te_tp_sel(const struct ana_te *te, unsigned i);
/** ana_te_tp_key() - the key expression text of event @i, or NULL (the instance). */
const char *ana_te_tp_key(const struct ana_te *te, unsigned i);
/** ana_te_tp_set_key() - set event @i's key expression (copied); before ana_te_start(). */
void ana_te_tp_set_key(struct ana_te *te, unsigned i, const char *expr);
/**
 * ana_te_tp_set_filter() - an extra filter for event @i, applied after the
 * selector's (copied); it counts as a filter for the sched_wakeup logic.
 */
void ana_te_tp_set_filter(struct ana_te *te, unsigned i, const char *expr);

/**
 * ana_te_start() - compile the expressions, build the pairs, check the setup
 * Return: 0 or a negative code (message printed).
 */
int ana_te_start(struct ana_te *te);

/** ana_te_feed() - one event of the analyzer (events of positions not owned are ignored). */
void ana_te_feed(struct ana_te *te, const struct pp_event *ev);

/** ana_te_lost() - a loss: drop (and report) the backups it makes unsafe. */
void ana_te_lost(struct ana_te *te, const struct pp_lost_ev *l);

/**
 * ana_te_reclaim() - drop the backups of @key at @time_ns, reporting them as
 * unfinished (syscalls: a thread that exits inside exit/exit_group)
 */
void ana_te_reclaim(struct ana_te *te, uint64_t key, uint64_t time_ns);

/** ana_te_tick() - an -i interval ended at @now_ns: print and reset the report. */
void ana_te_tick(struct ana_te *te, uint64_t now_ns);

/** ana_te_finish() - end of the capture: unmatched event1s, then the last report. Return: 0. */
int ana_te_finish(struct ana_te *te);

/** ana_te_free() - free the engine (NULL is fine). */
void ana_te_free(struct ana_te *te);

/**
 * ana_te_tp_set_targets() - keep event @i only when its field @field names a
 * thread of @pids (processes) or one of @tids (rundelay's -p/-t: the wakee
 * of a wakeup, prev_pid/next_pid of a switch), or with @forks a task one of
 * them forked in the capture (--inherit); arrays are sorted (as
 * pp_parse_list() gives them) and copied
 */
void ana_te_tp_set_targets(struct ana_te *te, unsigned i, const char *field, const int *pids,
			   size_t nr_pids, const int *tids, size_t nr_tids, bool forks);

/*
 * Ready-made analyzer callbacks for analyzers that built their engine with
 * ana_te_new() in ->init() (it sets az->engine): ->event feeds the engine,
 * ->lost, ->interval, ->finish and ->release forward to it.
 */
void ana_te_az_event(struct pp_az *az, const struct pp_event *ev);
void ana_te_az_lost(struct pp_az *az, const struct pp_lost_ev *l);
void ana_te_az_interval(struct pp_az *az, uint64_t now_ns);
int ana_te_az_finish(struct pp_az *az);
void ana_te_az_release(struct pp_az *az);

/*
 * Mergeable state (twoevent-state.c, twoevent-edge.c, docs/state-format.md "the
 * latency engine"): the implementation's aggregate (the latency table of delay
 * and syscalls, pair's counts) and each capture range's edges - what it left
 * unmatched at its end, and its first events that looked for what the range
 * before left - so that adjacent ranges join into the pairs one replay makes.
 * The ready-made hooks serve analyzers whose engine is az->engine.
 */
int ana_te_az_state_write(struct pp_az *az, struct pp_buf *out);
int ana_te_az_state_read(struct pp_az *az, struct pp_wire *in);
void ana_te_az_state_join(struct pp_az *az, unsigned before, unsigned after);

/**
 * ana_te_az_init() - an analyzer's whole init when nothing is adjusted per event:
 * ana_te_new() with @cfg, then ana_te_start()
 * Return: 0 or a negative code (message printed); the engine is az->engine.
 */
int ana_te_az_init(struct pp_az *az, const struct ana_te_config *cfg);

/*
 * The hooks of an analyzer on the engine, for its pp_analyzer_ops: the ready-made
 * callbacks above (event, lost, interval, finish, release) and state hooks.
 */
#define ANA_TE_HOOKS							\
	.event = ana_te_az_event,					\
	.lost = ana_te_az_lost,						\
	.interval = ana_te_az_interval,					\
	.finish = ana_te_az_finish,					\
	.release = ana_te_az_release,					\
	.state_version = 2,						\
	.state_write = ana_te_az_state_write,				\
	.state_read = ana_te_az_state_read,				\
	.state_join = ana_te_az_state_join

/**
 * ana_te_state_check() - what an engine with --state-out refuses (ana_te_start()
 * calls it): what prints while it replays (--than, --lower, --detail, -v,
 * trigger), the call trees of call and call-delay, implementations without a state
 * Return: 0, or PP_EUSAGE after a one-line message.
 */
int ana_te_state_check(struct ana_te *te);

/** ana_te_impl_parse() - "delay", "pair", ... to enum ana_te_impl. Return: 0 or PP_EUSAGE. */
int ana_te_impl_parse(const char *name, enum ana_te_impl *out);

#endif
