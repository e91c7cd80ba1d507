/* SPDX-License-Identifier: MIT */
/*
 * check.h - can a capture give an analyzer, with its options, a complete answer?
 *
 * What an analyzer needs is what its plan (analyzers/<name>-plan.c) has pp-record
 * record for the same command line: events, their filters, stacks, every CPU or the
 * followed tasks.  check.c builds that plan from an instance's parsed options and
 * compares it with what the capture says of its recording (its event types and the
 * record.* keys), then, after a scan of the whole capture, with its span, losses and
 * damage.  `pp-analyze FILE check` prints every need; a replay warns of the first
 * unmet one, on one line before the analyzer's output.
 */
#ifndef PP_ANALYZE_CHECK_H
#define PP_ANALYZE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ana_session;
struct pp_az;

/* One need of an analyzer; the order of `check`'s lines. */
enum ana_need_kind {
	ANA_NEED_EVENTS,	/* the plan's events are among the capture's event types */
	ANA_NEED_FILTERS,	/* no recorded filter keeps fewer events than the analyzer asks */
	ANA_NEED_STACKS,	/* -g or a stack selector: the samples carry call stacks */
	ANA_NEED_SCOPE,		/* every CPU (the plan's all_cpus), not only the followed tasks */
	ANA_NEED_CPUS,		/* every online CPU recorded (or those of -C) */
	ANA_NEED_TIME,		/* --time inside the capture; as long as its --duration asked */
	ANA_NEED_LOSSES,	/* no events lost (LOST records) */
	ANA_NEED_DAMAGE,	/* the file is whole: no cut, no corrupt segment */
	ANA_NR_NEEDS
};

enum ana_need_state {
	ANA_NEED_UNKNOWN = 0,	/* not checked, or the capture does not say */
	ANA_NEED_MET,
	ANA_NEED_UNMET,
	ANA_NEED_NONE,		/* the analyzer does not need it */
};

struct ana_need {
	enum ana_need_state state;
	char *detail;		/* one line: what was found, or what is missing (owned) */
};

/* The verdict on one analyzer instance and its capture. */
struct ana_check {
	struct ana_need need[ANA_NR_NEEDS];
	char *record;		/* the pp-record command line that has what it needs (owned) */
	bool no_events;		/* none of its events is in the capture: it cannot run at all */
};

/* What a scan of the whole capture found (cmd-check.c reads it once). */
struct ana_check_scan {
	uint64_t first_ns, last_ns;	/* its samples' and counter readings' span; 0: none */
	uint64_t duration_ns;		/* the STAT duration_ns pp-record wrote; 0: none */
};

/**
 * ana_check_meta() - the needs the capture's metadata answers: events, filters, stacks,
 * scope and CPUs (ana_session_load_meta() has run)
 * @s: the capture
 * @az: the analyzer instance, its options parsed (its plan is built from them)
 * @argc, @argv: its command line, argv[0] its name: for the recording named in c->record
 * @c: receives the verdicts (zeroed by the caller; ana_check_release() frees them)
 * Return: 0, or a negative code when its plan cannot be built (the line in @err).
 */
int ana_check_meta(struct ana_session *s, struct pp_az *az, int argc, const char *const *argv,
		   struct ana_check *c, char *err, size_t errsz);

/**
 * ana_check_scanned() - the needs a scan answers: time coverage, losses and damage
 * @s: the capture, read to its end, its LOST records given to ana_session_meta()
 * @az: the analyzer instance (its --time)
 * @sc: what the scan found
 * @c: the verdicts of ana_check_meta(), completed
 */
void ana_check_scanned(struct ana_session *s, const struct pp_az *az,
		       const struct ana_check_scan *sc, struct ana_check *c);

/** ana_check_complete() - no need unmet. */
bool ana_check_complete(const struct ana_check *c);

/** ana_need_name() - "events", "stacks"...: a need's name in `check`'s output. Return: static. */
const char *ana_need_name(enum ana_need_kind k);

/** ana_need_state_name() - "ok", "no", "n/a", "unknown". Return: static. */
const char *ana_need_state_name(enum ana_need_state st);

/**
 * ana_check_warning_dup() - before a replay: the analyzer's warning when the capture's
 * metadata says its answer will be incomplete (the first unmet need of scope, filters,
 * stacks and CPUs, and the recording that has it).  Losses and damage are told by the
 * replay itself (ana_report_header(), ana_tell_damage()).  Called before the analyzer's
 * init, which adds its default events to its -e; said after it succeeds.
 * @argc, @argv: the instance's command line, argv[0] its name
 * Return: the line without "warning: " (the caller's, free()), or NULL when complete.
 */
char *ana_check_warning_dup(struct ana_session *s, struct pp_az *az, int argc,
			    const char *const *argv);

/** ana_check_release() - free what @c holds. */
void ana_check_release(struct ana_check *c);

#endif
