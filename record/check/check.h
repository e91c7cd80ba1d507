/* SPDX-License-Identifier: MIT */
/*
 * check.h - `pp-record --check`: what this machine lets pp-record do, and
 * whether a given command line would record here.
 *
 * A check is a list of lines, each a name, an answer (yes, no, warn, info),
 * what was found and, for a "no" or a "warn", the fix.  machine.c and
 * machine-perf.c add the machine's lines (user, capabilities, sysctls,
 * tracefs, probes, PMU, lockdown, cgroups, container, clocks, free space);
 * dryrun.c opens the command line's events for real, disabled, and closes
 * them again (the only true answer); report.c prints the list as text or
 * as JSON (docs/production.md, "pp check": the schema).
 * Not here: the option (record/cmd-record.c), the session's steps (record/session.c).
 */
#ifndef PP_RECORD_CHECK_CHECK_H
#define PP_RECORD_CHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rec_session;

enum rec_check_answer {
	REC_CHECK_YES,		/* this works here */
	REC_CHECK_NO,		/* this does not: the recording fails, or records nothing */
	REC_CHECK_WARN,		/* it works, with a cost or a limit the fix lifts */
	REC_CHECK_INFO,		/* a fact about the machine, nothing to fix */
};

/* One line of the check. */
struct rec_check_line {
	const char *name;		/* "perf_event_paranoid"; static */
	enum rec_check_answer answer;
	char *value;			/* what was found, one line; owned */
	char *fix;			/* how to turn a no or a warn into a yes, or NULL; owned */
	bool event;			/* a line of the command line's events, not of the machine */
};

/* The lines, and the verdict on the command line. */
struct rec_check {
	struct rec_check_line *v;
	size_t nr, cap;
	const char *analyzer;		/* --for's analyzer, or NULL; borrowed */
	char *command;			/* the command line checked; owned */
	bool run;			/* the verdict: the command line records here */
	char *reason;			/* when not: the first reason, one line; owned */
	char *reason_fix;		/* its fix, or NULL; owned */
};

/**
 * rec_check_add() - append a line
 * @c: the check
 * @name: its name (static)
 * @answer: yes, no, warn or info
 * @fix: the fix (copied), or NULL
 * @fmt: the value, printf-style
 */
void rec_check_add(struct rec_check *c, const char *name, enum rec_check_answer answer,
		   const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/** rec_check_release() - free the lines and the verdict. */
void rec_check_release(struct rec_check *c);

/**
 * rec_check_machine() - the machine's lines: user and capabilities, the perf
 * sysctls, tracefs, probes, BTF, lockdown, cgroups, container, clocks, free space
 * @c: the check
 * @s: the session (its options: the output, -F, -m), not opened
 */
void rec_check_machine(struct rec_check *c, const struct rec_session *s);

/**
 * rec_check_machine_perf() - the lines perf_event_open() answers: a hardware
 * PMU, breakpoints, the perf clock
 * @c: the check
 */
void rec_check_machine_perf(struct rec_check *c);

/**
 * rec_check_dry_open() - open @s's events for real, disabled, then close them
 * @c: receives a line per event and, on failure, the verdict's reason
 * @s: a session whose events are added (cmd-record.c's add_events); released
 *     here: tracefs instances, probes and a tracefs mount this made are removed
 * Return: true when the events opened (the command line records here).
 */
bool rec_check_dry_open(struct rec_check *c, struct rec_session *s);

/**
 * rec_check_session_release() - rec_session_release(), and tracefs unmounted if the
 * session mounted it (a check leaves the machine as it found it)
 * @s: the session
 */
void rec_check_session_release(struct rec_session *s);

/**
 * rec_check_needs() - what the events need beyond opening: kvm:* events need
 * a KVM guest running here (unless COMMAND starts one)
 * @c: receives a line per need; a "no" sets the verdict
 * @s: the session, its events added
 */
void rec_check_needs(struct rec_check *c, const struct rec_session *s);

/**
 * rec_check_fail() - set the verdict to "no" with @reason, unless it already is
 * @c: the check
 * @reason: one line (copied)
 * @fix: its fix (copied), or NULL
 */
void rec_check_fail(struct rec_check *c, const char *reason, const char *fix);

/**
 * rec_check_print() - the check as text (one line each) or as JSON
 * @c: the check
 * @json: JSON (docs/production.md gives the schema)
 * @out: where
 */
void rec_check_print(const struct rec_check *c, bool json, FILE *out);

#endif
